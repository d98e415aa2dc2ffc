//! The console: the state one kubectl session keeps (current namespace, the page's editor
//! buffers as files, history, running watches and waits) and [`Console::execute`], which runs
//! one command line against the API server.
//!
//! kubectl never advances the simulation: a command is a few API calls at the current virtual
//! instant. What kubectl would keep doing afterwards (a `get --watch` printing rows, a `delete`
//! waiting for finalizers, a `rollout status` waiting for the rollout) is a [`Continuation`]
//! kept by the console; whoever advances the world calls [`Console::resume`] and shows what it
//! prints. Commands run while continuations are pending (the page has one console, and `lab`
//! commands must still work while kubectl "blocks"); every command ends with a resume, so a
//! `kubectl patch` that lets a waiting delete finish, or a change seen by a running watch,
//! shows at once.

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, EditSession, Output};
use super::commands::{self, Handoff, Run};
use super::continuation::Continuation;
use super::flags::{self, FlagSpec, Parsed};
use super::help;
use super::job::Job;
use super::{mutate, rollout, wait, watch};
use crate::engine::object::ObjectExt;
use std::collections::BTreeMap;

/// The longest console input accepted, in bytes (a pasted manifest with its here-document fits
/// many times over); longer input is refused politely before parsing.
pub const MAX_LINE: usize = 64 * 1024;

/// The refusal for an over-long console input.
pub fn line_too_long(len: usize) -> String {
    format!("the command is too long ({len} characters); this console takes at most {MAX_LINE}")
}

/// One console session.
#[derive(Clone, Debug)]
pub struct Console {
    /// The current namespace (kubeconfig context namespace): `default`.
    pub namespace: String,
    /// The page's editor buffers, readable with `-f NAME`.
    pub files: BTreeMap<String, String>,
    /// Every line executed, oldest first.
    pub history: Vec<String>,
    /// Command lines still running (a watch, a wait, and what they pipe into and run next).
    pub pending: Vec<Job>,
    /// The last `kubectl edit` not yet saved or cancelled.
    pub open_edit: Option<EditSession>,
    /// Shell variables (`NAME=value`), read as `$NAME`.
    pub vars: BTreeMap<String, String>,
    /// The exit status of the last pipeline (`$?`).
    pub status: i32,
    /// The status of the last command substitution of the command being prepared.
    pub(super) subst_status: Option<i32>,
    /// How many `$(...)` are running (output then goes to the substitution, not the terminal).
    pub(super) subst_depth: usize,
    /// How deeply resumes nest (a resumed line that steps the world resumes again).
    pub(super) resume_depth: usize,
}

impl Default for Console {
    fn default() -> Self {
        Console::new()
    }
}

impl Console {
    /// A session in namespace `default` with no files.
    pub fn new() -> Console {
        Console {
            namespace: "default".into(),
            files: BTreeMap::new(),
            history: Vec::new(),
            pending: Vec::new(),
            open_edit: None,
            vars: BTreeMap::new(),
            status: 0,
            subst_status: None,
            subst_depth: 0,
            resume_depth: 0,
        }
    }

    /// Stores an editor buffer under `name`, for `-f name`.
    pub fn set_file(&mut self, name: &str, text: &str) {
        self.files.insert(name.to_string(), text.to_string());
    }

    /// Runs the command line (a pipeline, a list with `&&`, `||` and `;`, here-documents;
    /// see [`super::shell`] and [`super::exec`]) and then resumes whatever is pending, so the
    /// output shows everything the terminal would. Pasted text holding several commands runs
    /// them one after the other (the exit status is the last one's, as in a shell). A command
    /// that keeps running (a watch, a wait) holds back the rest of the text until it finishes.
    pub fn execute(&mut self, api: &mut dyn Cluster, line: &str) -> Output {
        let mut out = Output::default();
        if line.len() > MAX_LINE {
            // Refused before any parsing, and without echoing the line back (issue 10).
            out.fail(CmdError::Plain(line_too_long(line.len())));
            out.exit_code = 1;
            return out;
        }
        if !line.trim().is_empty() {
            self.history.push(line.to_string());
        }
        if let Some(job) = self.run_text(api, line, &mut out) {
            self.pending.push(job);
            out.exit_code = 0;
        } else {
            out.exit_code = self.status;
        }
        out
    }

    /// Stops every watch and wait (Ctrl-C), and what their command lines would have run next.
    pub fn interrupt(&mut self, api: &mut dyn Cluster) {
        for job in std::mem::take(&mut self.pending) {
            self.stop(api, &job.what);
        }
        self.status = 130;
    }

    /// What kubectl is still doing, for the page's "waiting" indicator.
    pub fn waiting(&self) -> Vec<String> {
        self.pending.iter().map(|j| j.what.describe()).collect()
    }

    /// Saves the open edit: the edited YAML is sent as an update (PUT) that carries the
    /// resourceVersion the edit loaded, unless the text sets another. Prints `<name> edited`,
    /// `Edit cancelled, no changes made.` or the server's error (409 for a stale edit).
    pub fn save_edit(&mut self, api: &mut dyn Cluster, text: &str) -> Output {
        let mut out = Output::default();
        match self.open_edit.take() {
            None => out.fail(CmdError::Plain("no edit in progress: run kubectl edit first".into())),
            Some(session) => mutate::edit::save_edit(api, &session, text, &mut out),
        }
        let more = self.resume(api);
        out.extend(more);
        out
    }

    /// Runs `kubectl ARGS`; returns what it keeps doing, if anything.
    pub(super) fn kubectl(
        &mut self,
        api: &mut dyn Cluster,
        args: &[String],
        stdin: Option<&str>,
        out: &mut Output,
    ) -> Option<Continuation> {
        let Some(verb) = args.first() else {
            out.out(help::root());
            return None;
        };
        let rest = &args[1..];
        if verb.starts_with('-') {
            if verb == "-h" || verb == "--help" {
                out.out(help::root());
            } else {
                match flags::parse(args, flags::GLOBAL_FLAGS) {
                    Err(e) => out.fail(CmdError::Flag { cmd: String::new(), msg: e }.fix_root()),
                    Ok(p) => {
                        // `kubectl -n ns get pods`: global flags before the verb.
                        let mut moved: Vec<String> = p.args.clone();
                        if let Some(ns) = p.str("namespace") {
                            moved.extend(["-n".to_string(), ns.to_string()]);
                        }
                        // Without a verb after the flags (`kubectl -n ns`), or with pflag's lone
                        // `-` argument as the verb, this would recurse for ever.
                        if p.args.is_empty() {
                            out.out(help::root());
                        } else if moved[0].starts_with('-') {
                            out.fail(CmdError::Raw(help::unknown_command(&moved[0])));
                        } else {
                            return self.kubectl(api, &moved, stdin, out);
                        }
                    }
                }
            }
            return None;
        }
        if verb == "help" {
            match rest.first().and_then(|v| commands::find(v)) {
                Some(c) => out.out(help::command_help(c)),
                None if rest.is_empty() => out.out(help::root()),
                None => out.fail(CmdError::Raw(format!("Unknown help topic [`{}`]\n{}", rest[0], help::root_usage()))),
            }
            return None;
        }
        let Some(command) = commands::find(verb) else {
            out.fail(CmdError::Raw(help::unknown_command(verb)));
            return None;
        };
        // A verb the lab does not model answers whatever its flags (kubectl's are not all here).
        let wants_help = |args: &[String]| args.iter().any(|a| a == "-h" || a == "--help");
        if let Some(run @ Run::Unmodeled(_)) = command.run {
            if wants_help(rest) {
                out.out(help::command_help(command));
                return None;
            }
            return self.run(api, run, &Parsed::default(), stdin, out);
        }
        let mut specs: Vec<FlagSpec> = command.flags.to_vec();
        specs.extend_from_slice(flags::GLOBAL_FLAGS);
        let mut cmd_path = command.name.to_string();
        let mut args: Vec<String> = rest.to_vec();
        if !command.subcommands.is_empty() {
            // `rollout status|history|undo|restart`, `create namespace|deployment`.
            let sub = args.iter().position(|a| !a.starts_with('-'));
            if let Some(i) = sub {
                if let Some(s) =
                    command.subcommands.iter().find(|s| s.name == args[i] || s.aliases.contains(&args[i].as_str()))
                {
                    if let Run::Unmodeled(_) = s.run {
                        if wants_help(&args) {
                            out.out(help::subcommand_help(command, s));
                            return None;
                        }
                        return self.run(api, s.run, &Parsed::default(), stdin, out);
                    }
                    specs = s.flags.to_vec();
                    specs.extend_from_slice(flags::GLOBAL_FLAGS);
                    cmd_path = format!("{} {}", command.name, s.name);
                    args.remove(i);
                    let p = match flags::parse(&args, &specs) {
                        Ok(p) => p,
                        Err(e) => {
                            out.fail(CmdError::Flag { cmd: cmd_path, msg: e });
                            return None;
                        }
                    };
                    if p.bool("help") {
                        out.out(help::subcommand_help(command, s));
                        return None;
                    }
                    return self.run(api, s.run, &p, stdin, out);
                }
            }
        }
        let p = match flags::parse(&args, &specs) {
            Ok(p) => p,
            Err(e) => {
                out.fail(CmdError::Flag { cmd: cmd_path, msg: e });
                return None;
            }
        };
        if p.bool("help") {
            out.out(help::command_help(command));
            return None;
        }
        match command.run {
            Some(run) => self.run(api, run, &p, stdin, out),
            // `kubectl rollout`, `kubectl set`: a subcommand is needed.
            None => {
                out.fail(CmdError::Raw(help::command_help(command)));
                None
            }
        }
    }

    /// Runs a command of the table in this session's context, and keeps what it leaves: an open
    /// edit, a new namespace. Returns what kubectl keeps doing (the caller decides how it runs).
    fn run(
        &mut self,
        api: &mut dyn Cluster,
        run: Run,
        p: &Parsed,
        stdin: Option<&str>,
        out: &mut Output,
    ) -> Option<Continuation> {
        let ns = self.ns(p);
        let ctx = CmdCtx { ns: &ns, explicit_ns: p.has("namespace"), stdin, files: &self.files };
        match run.call(api, &ctx, p, out) {
            Handoff::None => None,
            Handoff::Continue(c) => Some(c),
            Handoff::Edit(session) => {
                out.edit = Some(session.clone());
                self.open_edit = Some(session);
                None
            }
            Handoff::SetNamespace(ns) => {
                self.namespace = ns;
                None
            }
        }
    }

    fn ns(&self, p: &Parsed) -> String {
        p.str("namespace").map(String::from).unwrap_or_else(|| self.namespace.clone())
    }
}

/// Lets one continuation print what happened since it last ran: watch rows for queued events,
/// nothing (but completion) for a delete whose objects are gone, new `rollout status` lines.
/// Returns whether it finished.
pub(super) fn advance(api: &mut dyn Cluster, c: &mut Continuation, out: &mut Output) -> bool {
    match c {
        Continuation::WaitForDeletion(targets) => {
            targets.retain(|t| match api.get(t.kind, t.namespace.as_deref(), &t.name) {
                Ok(obj) => obj.uid() == t.uid,
                Err(_) => false,
            });
            targets.is_empty()
        }
        Continuation::Watch(w) => watch::resume(api, w, out),
        Continuation::Wait(w) => wait::resume(api, w, out),
        Continuation::RolloutStatus(s) => rollout::resume_status(api, s, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::apiserver::ApiServer;
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "kubectl",
        "get",
        "describe",
        "apply",
        "create",
        "delete",
        "scale",
        "patch",
        "label",
        "annotate",
        "edit",
        "rollout",
        "status",
        "undo",
        "history",
        "restart",
        "set",
        "image",
        "deploy",
        "pods",
        "po",
        "ns",
        "cm",
        "rs",
        "lease",
        "buckets",
        "all",
        "web",
        "web=x",
        "x-",
        "deploy/web",
        "-o",
        "json",
        "yaml",
        "name",
        "wide",
        "jsonpath={.items[*].metadata.name}",
        "jsonpath={.items[",
        "jsonpath={..x}",
        "custom-columns=A:.a",
        "-n",
        "kube-system",
        "-A",
        "-l",
        "app=web",
        "app in (",
        "-w",
        "--output-watch-events",
        "--replicas=3",
        "--replicas",
        "-p",
        "{\"spec\":{}}",
        "[{\"op\":\"remove\",\"path\":\"/x\"}]",
        "--type=json",
        "--type",
        "-f",
        "-",
        "web.yaml",
        "--cascade=orphan",
        "--cascade",
        "--image=nginx",
        "namespace",
        "deployment",
        "'",
        "\"",
        "\\",
        "<<EOF",
        "|",
        ">",
        "lab",
        "save-edit",
        "^C",
        "cat",
        "--",
        "-",
        "--help",
        "-h",
        "help",
        "{",
        "}",
        "[",
        "]",
        "?(@.x==1)",
        "🙂",
        "",
    ];

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// Never panic on input: any sequence of (mostly plausible) words, any here-document.
        #[test]
        fn any_line_is_answered(lines in prop::collection::vec(prop::collection::vec(0..WORDS.len(), 0..8), 1..6),
                                body in "[ -~\n]{0,60}") {
            let mut api = ApiServer::new(1);
            let mut console = Console::new();
            console.set_file("web.yaml", &body);
            console.execute(&mut api, "kubectl create deployment web --image=nginx");
            for words in lines {
                let line: Vec<&str> = words.iter().map(|&i| WORDS[i]).collect();
                let text = format!("{}\n{body}\nEOF\n", line.join(" "));
                let out = console.execute(&mut api, &text);
                prop_assert!(out.exit_code == 0 || !out.stderr().is_empty(), "failed silently: {text:?}");
            }
        }
    }

    #[test]
    fn pasted_scripts_run_every_command() {
        let mut api = ApiServer::new(1);
        let mut c = Console::new();
        let out = c.execute(
            &mut api,
            "kubectl create ns a\n\nkubectl apply -f - <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nEOF\nkubectl get cm x -o name\n",
        );
        assert_eq!(out.stdout(), "namespace/a created\nconfigmap/x created\nconfigmap/x\n");
        assert_eq!(out.exit_code, 0);
        let out = c.execute(&mut api, "kubectl get nope\nkubectl get ns a -o name");
        assert_eq!(out.terminal(), "error: the server doesn't have a resource type \"nope\"\nnamespace/a\n");
        assert_eq!(out.exit_code, 0);
    }
}
