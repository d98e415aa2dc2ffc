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
use super::flags::{self, FlagKind, FlagSpec, Parsed};
use super::help;
use super::shell;
use super::table::TabWriter;
use super::{get, mutate, rollout};
use crate::engine::apiserver::WatchId;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Reason, Status};
use std::collections::BTreeMap;

/// The longest console input accepted, in bytes (a pasted manifest with its here-document fits
/// many times over); longer input is refused politely before parsing.
pub const MAX_LINE: usize = 64 * 1024;

/// The refusal for an over-long console input.
pub fn line_too_long(len: usize) -> String {
    format!("the command is too long ({len} characters); this console takes at most {MAX_LINE}")
}

/// Which stream a piece of output went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// What one command printed, in terminal order, and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The printed pieces in the order a terminal shows them.
    pub chunks: Vec<(Stream, String)>,
    /// The process exit status (0 success, 1 kubectl error).
    pub exit_code: i32,
    /// `kubectl edit` opened an object in the page's editor.
    pub edit: Option<EditSession>,
}

impl Output {
    /// Appends to stdout.
    pub fn out(&mut self, text: impl AsRef<str>) {
        self.push(Stream::Stdout, text.as_ref());
    }
    /// Appends to stderr.
    pub fn err(&mut self, text: impl AsRef<str>) {
        self.push(Stream::Stderr, text.as_ref());
    }
    fn push(&mut self, stream: Stream, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.chunks.last_mut() {
            Some((s, t)) if *s == stream => t.push_str(text),
            _ => self.chunks.push((stream, text.to_string())),
        }
    }
    /// Everything written to stdout.
    pub fn stdout(&self) -> String {
        self.collect(Stream::Stdout)
    }
    /// Everything written to stderr.
    pub fn stderr(&self) -> String {
        self.collect(Stream::Stderr)
    }
    fn collect(&self, stream: Stream) -> String {
        self.chunks.iter().filter(|(s, _)| *s == stream).map(|(_, t)| t.as_str()).collect()
    }
    /// Both streams interleaved as a terminal shows them.
    pub fn terminal(&self) -> String {
        self.chunks.iter().map(|(_, t)| t.as_str()).collect()
    }
    /// Prints a kubectl error (see [`CmdError`]) and sets exit status 1.
    pub fn fail(&mut self, e: CmdError) {
        self.err(e.render());
        self.exit_code = 1;
    }
    /// Appends the output of the next command of a script: its exit status replaces this one.
    pub fn extend_with_status(&mut self, other: Output) {
        let code = other.exit_code;
        self.extend(other);
        self.exit_code = code;
    }

    /// Appends another output (a continuation's) after this one.
    pub fn extend(&mut self, other: Output) {
        for (s, t) in other.chunks {
            self.push(s, &t);
        }
        if other.exit_code != 0 {
            self.exit_code = other.exit_code;
        }
        if other.edit.is_some() {
            self.edit = other.edit;
        }
    }
}

/// A kubectl failure, printed the way kubectl's `CheckErr` prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CmdError {
    /// A usage error: `error: <msg>` and `See 'kubectl <cmd> -h' for help and examples`.
    Usage {
        /// The command path after `kubectl` (`get`, `rollout status`).
        cmd: String,
        /// The message.
        msg: String,
    },
    /// A flag error: `error: <msg>` and `See 'kubectl <cmd> --help' for usage.`
    Flag {
        /// The command path after `kubectl`.
        cmd: String,
        /// pflag's message.
        msg: String,
    },
    /// A client-side error: `error: <msg>`.
    Plain(String),
    /// An API error: `Error from server (<Reason>): <message>`, or the Invalid form.
    Server(Box<Status>),
    /// Text printed as is.
    Raw(String),
}

impl CmdError {
    /// The text kubectl prints for this error, newline-terminated.
    pub fn render(&self) -> String {
        let mut s = match self {
            CmdError::Usage { cmd, msg } => format!("error: {msg}\nSee 'kubectl {cmd} -h' for help and examples"),
            CmdError::Flag { cmd, msg } => format!("error: {msg}\nSee 'kubectl {cmd} --help' for usage."),
            CmdError::Plain(msg) => format!("error: {msg}"),
            CmdError::Server(status) => server_error(status),
            CmdError::Raw(t) => t.clone(),
        };
        if !s.ends_with('\n') {
            s.push('\n');
        }
        s
    }
}

impl CmdError {
    /// `messageForError`: the error's line in a list of several (kubectl `MultipleErrors`):
    /// API errors as `Error from server (<Reason>): <message>`, others bare, without `error: `.
    pub fn standard_message(&self) -> String {
        match self {
            CmdError::Server(status) => format!("Error from server ({}): {}", status.reason.as_str(), status.message),
            CmdError::Usage { msg, .. } | CmdError::Flag { msg, .. } | CmdError::Plain(msg) => msg.clone(),
            CmdError::Raw(text) => text.trim_end_matches('\n').to_string(),
        }
    }
}

/// The errors of a verb that visits several objects, printed after all of them: kubectl's
/// `ContinueOnError` visitors (apply, create -f, delete, patch, label, annotate, set image)
/// keep going and return the errors as one aggregate, which `CheckErr` prints as the single
/// error it holds or, for several, one `MultipleErrors` line each.
#[derive(Debug, Default)]
pub struct Deferred(Vec<CmdError>);

impl Deferred {
    /// Whether nothing failed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Keeps an error for later.
    pub fn push(&mut self, e: CmdError) {
        self.0.push(e);
    }

    /// Prints what was kept (nothing, one error, or the list) and sets the exit status.
    pub fn report(self, out: &mut Output) {
        let mut errs = self.0;
        if errs.len() == 1 {
            return out.fail(errs.remove(0));
        }
        for e in &errs {
            out.err(format!("{}\n", e.standard_message()));
            out.exit_code = 1;
        }
    }
}

impl From<Status> for CmdError {
    fn from(s: Status) -> CmdError {
        CmdError::Server(Box::new(s))
    }
}

/// kubectl's `CheckErr` for API errors (kubectl cmd/util/helpers.go): Invalid errors print
/// `The <Kind> "<name>" is invalid: <field>: <detail>` (one cause) or a `* ` list; others print
/// `Error from server (<Reason>): <message>` (kubernetes-semantics.md §8.4).
pub fn server_error(status: &Status) -> String {
    if status.reason == Reason::Invalid && (!status.kind.is_empty() || !status.name.is_empty()) {
        let prefix = format!("The {} \"{}\" is invalid: ", status.kind, status.name);
        return match status.causes.len() {
            0 => prefix.trim_end_matches(": ").to_string(),
            1 => format!("{prefix}{}: {}", status.causes[0].field, status.causes[0].message),
            _ => {
                let mut s = format!("{prefix}\n");
                for c in &status.causes {
                    s.push_str(&format!("* {}: {}\n", c.field, c.message));
                }
                s
            }
        };
    }
    format!("Error from server ({}): {}", status.reason.as_str(), status.message)
}

/// `cmdutil.AddSourceToErr`: API errors about an object read from a file get
/// `error when <verb> "<file>": ` in front of their message.
pub fn with_source(verb: &str, source: &str, mut status: Status) -> Status {
    if !source.is_empty() {
        status.message = format!("error when {verb} \"{source}\": {}", status.message);
    }
    status
}

/// An object opened by `kubectl edit`: the page shows `yaml` in its editor and later calls
/// [`Console::save_edit`] with the edited text. The save is a PUT carrying `resource_version`,
/// the version that was loaded, so a stale edit gets the real 409 Conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditSession {
    /// The object's kind.
    pub kind: &'static Kind,
    /// Its namespace (None for cluster-scoped kinds).
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// The resourceVersion that was loaded.
    pub resource_version: String,
    /// The object as YAML, as `kubectl edit` shows it.
    pub yaml: String,
}

/// What kubectl keeps doing after a command printed its output.
#[derive(Clone, Debug)]
pub enum Continuation {
    /// `kubectl delete` waiting until each deleted object is really gone (`--wait=true`).
    WaitForDeletion(Vec<DeletionTarget>),
    /// `kubectl get --watch`, printing one row per event until interrupted.
    Watch(Box<WatchState>),
    /// `kubectl wait --for=...`.
    Wait(Box<super::wait::WaitState>),
    /// `kubectl rollout status` waiting for the rollout to finish.
    RolloutStatus {
        /// Namespace of the deployment.
        namespace: String,
        /// Its name.
        name: String,
        /// The last line printed (each new state prints once).
        last: String,
    },
}

/// One object a waiting delete waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionTarget {
    /// Its kind.
    pub kind: &'static Kind,
    /// Its namespace.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// Its uid: an object recreated under the same name is a different object.
    pub uid: String,
}

/// How a watch prints each event.
#[derive(Clone, Debug)]
pub enum WatchPrinter {
    /// Table rows (widths remembered from the first table).
    Table(TabWriter, super::printers::TableOptions),
    /// `-o name`.
    Name,
    /// `-o json` (with `--output-watch-events`: compact envelopes).
    Json,
    /// `-o yaml` (documents separated by `---`).
    Yaml,
    /// `-o jsonpath=...`.
    JsonPath(super::jsonpath::JsonPath),
    /// `kubectl events --watch`: kubectl's event printer, one row per event.
    Events(super::events::EventRows),
}

/// A running `kubectl get --watch`.
#[derive(Clone, Debug)]
pub struct WatchState {
    /// The API server watch.
    pub id: WatchId,
    /// The watched kind.
    pub kind: &'static Kind,
    /// Only this object (a named watch), if set.
    pub name: Option<String>,
    /// How events print.
    pub printer: WatchPrinter,
    /// `--output-watch-events`.
    pub events: bool,
    /// A named watch starts at RV "0": its synthetic first ADDED is not printed.
    pub skip_initial_added: bool,
    /// The server's resourceVersion when the watch started (ADDED events at or below it are
    /// the synthetic initial state).
    pub start_rv: u64,
    /// Whether the table header has been printed.
    pub header_done: bool,
    /// What the console shows while it runs: `watching deployments.apps in default`.
    pub description: String,
}

impl Continuation {
    /// A short description for the page: what kubectl is waiting for.
    pub fn describe(&self) -> String {
        match self {
            Continuation::WaitForDeletion(t) => {
                let names: Vec<String> = t.iter().map(|t| format!("{}/{}", t.kind.name_prefix(), t.name)).collect();
                format!("waiting for {} to be deleted", names.join(", "))
            }
            Continuation::Watch(w) => w.description.clone(),
            Continuation::Wait(w) => super::wait::describe(w),
            Continuation::RolloutStatus { name, .. } => format!("waiting for deployment \"{name}\" rollout to finish"),
        }
    }
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
    /// What kubectl is still doing (watches, waits), oldest first.
    pub pending: Vec<Continuation>,
    /// The last `kubectl edit` not yet saved or cancelled.
    pub open_edit: Option<EditSession>,
}

impl Default for Console {
    fn default() -> Self {
        Console::new()
    }
}

/// The flags every kubectl command takes.
pub const GLOBAL_FLAGS: &[FlagSpec] = &[
    flags::flag("namespace", Some('n'), FlagKind::Str, "If present, the namespace scope for this CLI request"),
    flags::flag("help", Some('h'), FlagKind::Bool, "help for this command"),
];

impl Console {
    /// A session in namespace `default` with no files.
    pub fn new() -> Console {
        Console {
            namespace: "default".into(),
            files: BTreeMap::new(),
            history: Vec::new(),
            pending: Vec::new(),
            open_edit: None,
        }
    }

    /// Stores an editor buffer under `name`, for `-f name`.
    pub fn set_file(&mut self, name: &str, text: &str) {
        self.files.insert(name.to_string(), text.to_string());
    }

    /// Runs the command line (with its here-document, if any) and then resumes whatever is
    /// pending, so the output shows everything the terminal would. Pasted text holding several
    /// commands runs them one after the other (the exit status is the last one's, as in a shell).
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
        let mut rest = line;
        loop {
            let (cmd, used) = match shell::parse(rest) {
                Ok(parsed) => parsed,
                Err(e) => {
                    out.fail(CmdError::Plain(e.to_string()));
                    out.exit_code = 2;
                    return out;
                }
            };
            let one = self.run_one(api, &cmd);
            out.extend_with_status(one);
            // Skip the lines this command used.
            let mut consumed = 0;
            for l in rest.split_inclusive('\n').take(used) {
                consumed += l.len();
            }
            rest = &rest[consumed.min(rest.len())..];
            if rest.trim().is_empty() {
                break;
            }
        }
        out
    }

    fn run_one(&mut self, api: &mut dyn Cluster, cmd: &shell::CommandLine) -> Output {
        let mut out = Output::default();
        let Some((program, args)) = cmd.words.split_first() else { return out };
        match program.as_str() {
            "kubectl" | "k" => self.kubectl(api, args, cmd.stdin.as_deref(), &mut out),
            "cat" => self.cat(api, args, cmd.stdin.as_deref(), &mut out),
            "^C" => self.interrupt(api),
            "lab" => self.lab(api, args, cmd.stdin.as_deref(), &mut out),
            other => {
                out.err(format!("{other}: command not found (this console runs kubectl and lab commands)\n"));
                out.exit_code = 127;
            }
        }
        let more = self.resume(api);
        out.extend(more);
        out
    }

    /// The little shell around kubectl that documentation uses: `cat FILE` prints an editor
    /// buffer, `cat > FILE <<EOF` (or `cat <<EOF > FILE`) writes one, and
    /// `cat <<EOF | kubectl apply -f -` (or `cat FILE | kubectl ...`) pipes into kubectl.
    fn cat(&mut self, api: &mut dyn Cluster, args: &[String], stdin: Option<&str>, out: &mut Output) {
        if let Some(pipe) = args.iter().position(|a| a == "|") {
            let input = match args[..pipe].first() {
                Some(name) => match self.files.get(name) {
                    Some(t) => t.clone(),
                    None => {
                        out.err(format!("cat: {name}: No such file or directory\n"));
                        out.exit_code = 1;
                        return;
                    }
                },
                None => stdin.unwrap_or("").to_string(),
            };
            match args[pipe + 1..].split_first() {
                Some((p, rest)) if p == "kubectl" || p == "k" => self.kubectl(api, rest, Some(&input), out),
                Some((p, _)) => {
                    out.err(format!("{p}: command not found (this console runs kubectl and lab commands)\n"));
                    out.exit_code = 127;
                }
                None => out.fail(CmdError::Plain("syntax error: nothing after `|'".into())),
            }
            return;
        }
        if let Some(gt) = args.iter().position(|a| a == ">") {
            let Some(name) = args.get(gt + 1) else {
                return out.fail(CmdError::Plain("syntax error near unexpected token `newline'".into()));
            };
            self.files.insert(name.clone(), stdin.unwrap_or("").to_string());
            return;
        }
        match args.first() {
            None => out.out(stdin.unwrap_or("")),
            Some(name) => match self.files.get(name) {
                Some(t) => out.out(t.clone()),
                None => {
                    out.err(format!("cat: {name}: No such file or directory\n"));
                    out.exit_code = 1;
                }
            },
        }
    }

    /// Stops every watch and wait (Ctrl-C).
    pub fn interrupt(&mut self, api: &mut dyn Cluster) {
        for c in self.pending.drain(..) {
            if let Continuation::Watch(w) = c {
                api.stop_watch(w.id);
            }
        }
    }

    /// What kubectl is still doing, for the page's "waiting" indicator.
    pub fn waiting(&self) -> Vec<String> {
        self.pending.iter().map(Continuation::describe).collect()
    }

    /// Lets every pending continuation print what happened since it last ran: watch rows for
    /// queued events, nothing (but completion) for a delete whose objects are gone, new
    /// `rollout status` lines. Finished continuations are dropped.
    pub fn resume(&mut self, api: &mut dyn Cluster) -> Output {
        let mut out = Output::default();
        let pending = std::mem::take(&mut self.pending);
        for mut c in pending {
            let done = match &mut c {
                Continuation::WaitForDeletion(targets) => {
                    targets.retain(|t| match api.get(t.kind, t.namespace.as_deref(), &t.name) {
                        Ok(obj) => obj.uid() == t.uid,
                        Err(_) => false,
                    });
                    targets.is_empty()
                }
                Continuation::Watch(w) => get::resume_watch(api, w, &mut out),
                Continuation::Wait(w) => super::wait::resume(api, w, &mut out),
                Continuation::RolloutStatus { namespace, name, last } => {
                    rollout::resume_status(api, namespace, name, last, &mut out)
                }
            };
            if !done {
                self.pending.push(c);
            }
        }
        out
    }

    /// Saves the open edit: the edited YAML is sent as an update (PUT) that carries the
    /// resourceVersion the edit loaded, unless the text sets another. Prints `<name> edited`,
    /// `Edit cancelled, no changes made.` or the server's error (409 for a stale edit).
    pub fn save_edit(&mut self, api: &mut dyn Cluster, text: &str) -> Output {
        let mut out = Output::default();
        match self.open_edit.take() {
            None => out.fail(CmdError::Plain("no edit in progress: run kubectl edit first".into())),
            Some(session) => mutate::save_edit(api, &session, text, &mut out),
        }
        let more = self.resume(api);
        out.extend(more);
        out
    }

    fn kubectl(&mut self, api: &mut dyn Cluster, args: &[String], stdin: Option<&str>, out: &mut Output) {
        let Some(verb) = args.first() else {
            out.out(help::root());
            return;
        };
        let rest = &args[1..];
        if verb.starts_with('-') {
            if verb == "-h" || verb == "--help" {
                out.out(help::root());
            } else {
                match flags::parse(args, GLOBAL_FLAGS) {
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
                            self.kubectl(api, &moved, stdin, out);
                        }
                    }
                }
            }
            return;
        }
        if verb == "help" {
            match rest.first().and_then(|v| help::find(v)) {
                Some(c) => out.out(help::command_help(c)),
                None if rest.is_empty() => out.out(help::root()),
                None => out.fail(CmdError::Raw(format!("Unknown help topic [`{}`]\n{}", rest[0], help::root_usage()))),
            }
            return;
        }
        let Some(command) = help::find(verb) else {
            out.fail(CmdError::Raw(help::unknown_command(verb)));
            return;
        };
        let mut specs: Vec<FlagSpec> = command.flags.to_vec();
        specs.extend_from_slice(GLOBAL_FLAGS);
        let mut cmd_path = command.name.to_string();
        let mut args: Vec<String> = rest.to_vec();
        if !command.subcommands.is_empty() {
            // `rollout status|history|undo|restart`, `create namespace|deployment`.
            let sub = args.iter().position(|a| !a.starts_with('-'));
            if let Some(i) = sub {
                if let Some(s) =
                    command.subcommands.iter().find(|s| s.name == args[i] || s.aliases.contains(&args[i].as_str()))
                {
                    specs = s.flags.to_vec();
                    specs.extend_from_slice(GLOBAL_FLAGS);
                    cmd_path = format!("{} {}", command.name, s.name);
                    args.remove(i);
                    let p = match flags::parse(&args, &specs) {
                        Ok(p) => p,
                        Err(e) => return out.fail(CmdError::Flag { cmd: cmd_path, msg: e }),
                    };
                    if p.bool("help") {
                        return out.out(help::subcommand_help(command, s));
                    }
                    let ns = self.ns(&p);
                    return self.run_sub(api, command.name, s.name, &p, &ns, stdin, out);
                }
            }
        }
        let p = match flags::parse(&args, &specs) {
            Ok(p) => p,
            Err(e) => return out.fail(CmdError::Flag { cmd: cmd_path, msg: e }),
        };
        if p.bool("help") {
            return out.out(help::command_help(command));
        }
        let ns = self.ns(&p);
        let ctx = Ctx { ns: &ns, explicit_ns: p.has("namespace"), stdin, files: &self.files };
        match command.name {
            "get" => {
                if let Some(c) = get::run(api, &ctx, &p, out) {
                    self.pending.push(c);
                }
            }
            "describe" => super::describe::run(api, &ctx, &p, out),
            "events" => {
                if let Some(c) = super::events::run(api, &ctx, &p, out) {
                    self.pending.push(c);
                }
            }
            "create" => mutate::create(api, &ctx, &p, out),
            "apply" => mutate::apply(api, &ctx, &p, out),
            "delete" => {
                if let Some(c) = mutate::delete(api, &ctx, &p, out) {
                    self.pending.push(c);
                }
            }
            "scale" => mutate::scale(api, &ctx, &p, out),
            "run" => mutate::run_pod(api, &ctx, &p, out),
            "wait" => {
                if let Some(c) = super::wait::run(api, &ctx, &p, out) {
                    self.pending.push(c);
                }
            }
            "version" => out.out("Client Version: v1.34.0\nKustomize Version: v5.7.1\nServer Version: v1.34.0\n"),
            "patch" => mutate::patch(api, &ctx, &p, out),
            "label" => mutate::label_or_annotate(api, &ctx, &p, out, mutate::MetaField::Labels),
            "annotate" => mutate::label_or_annotate(api, &ctx, &p, out, mutate::MetaField::Annotations),
            "edit" => {
                if let Some(session) = mutate::edit(api, &ctx, &p, out) {
                    out.edit = Some(session.clone());
                    self.open_edit = Some(session);
                }
            }
            "rollout" | "set" => out.fail(CmdError::Raw(help::command_help(command))),
            "api-resources" => get::api_resources(&p, out),
            "config" => self.config(&p, out),
            _ => out.fail(CmdError::Raw(help::unknown_command(verb))),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run_sub(
        &mut self,
        api: &mut dyn Cluster,
        verb: &str,
        sub: &str,
        p: &Parsed,
        ns: &str,
        stdin: Option<&str>,
        out: &mut Output,
    ) {
        let ctx = Ctx { ns, explicit_ns: p.has("namespace"), stdin, files: &self.files };
        match (verb, sub) {
            ("create", "namespace") => mutate::create_namespace(api, &ctx, p, out),
            ("create", "deployment") => mutate::create_deployment(api, &ctx, p, out),
            ("create", "configmap") => mutate::create_configmap(api, &ctx, p, out),
            ("set", "image") => mutate::set_image(api, &ctx, p, out),
            ("apply", "view-last-applied") => mutate::view_last_applied(api, &ctx, p, out),
            ("apply", "set-last-applied") => mutate::set_last_applied_cmd(api, &ctx, p, out),
            ("rollout", "status") => {
                if let Some(c) = rollout::status(api, &ctx, p, out) {
                    self.pending.push(c);
                }
            }
            ("rollout", "history") => rollout::history(api, &ctx, p, out),
            ("rollout", "undo") => rollout::undo(api, &ctx, p, out),
            ("rollout", "restart") => rollout::restart(api, &ctx, p, out),
            ("rollout", "pause") => rollout::pause_or_resume(api, &ctx, p, out, true),
            ("rollout", "resume") => rollout::pause_or_resume(api, &ctx, p, out, false),
            _ => out.fail(CmdError::Plain(format!("unknown command \"{sub}\" for \"kubectl {verb}\""))),
        }
    }

    /// `kubectl config set-context --current --namespace=X` and `view --minify` are the two
    /// config commands the console understands (they change the session's namespace).
    fn config(&mut self, p: &Parsed, out: &mut Output) {
        match p.args.first().map(String::as_str) {
            Some("set-context") if p.args.get(1).map(String::as_str) == Some("--current") || p.has("current") => {
                if let Some(ns) = p.str("namespace") {
                    self.namespace = ns.to_string();
                }
                out.out("Context \"reconcile-lab\" modified.\n");
            }
            _ => out.fail(CmdError::Plain(
                "this console supports only: kubectl config set-context --current --namespace=NAME".into(),
            )),
        }
    }

    fn ns(&self, p: &Parsed) -> String {
        p.str("namespace").map(String::from).unwrap_or_else(|| self.namespace.clone())
    }
}

impl CmdError {
    fn fix_root(self) -> CmdError {
        match self {
            CmdError::Flag { msg, .. } => CmdError::Raw(format!("error: {msg}\nSee 'kubectl --help' for usage.")),
            other => other,
        }
    }
}

/// What a command needs from the session.
pub struct Ctx<'a> {
    /// The namespace in effect (`-n` or the session's).
    pub ns: &'a str,
    /// Whether `-n` was given (then a manifest's own namespace must match it).
    pub explicit_ns: bool,
    /// The here-document, for `-f -`.
    pub stdin: Option<&'a str>,
    /// The editor buffers, for `-f NAME`.
    pub files: &'a BTreeMap<String, String>,
}

impl Ctx<'_> {
    /// Reads `-f` sources: `-` is the here-document (source `STDIN`), anything else an editor
    /// buffer. Returns (source name, text) pairs.
    pub fn read_files(&self, names: &[String]) -> Result<Vec<(String, String)>, CmdError> {
        let mut out = Vec::new();
        for n in names {
            if n == "-" {
                out.push(("STDIN".to_string(), self.stdin.unwrap_or("").to_string()));
            } else if let Some(t) = self.files.get(n) {
                out.push((n.clone(), t.clone()));
            } else {
                return Err(CmdError::Plain(format!("the path \"{n}\" does not exist")));
            }
        }
        Ok(out)
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

    #[test]
    fn output_keeps_terminal_order() {
        let mut o = Output::default();
        o.out("a\n");
        o.err("b\n");
        o.out("c\n");
        assert_eq!(o.terminal(), "a\nb\nc\n");
        assert_eq!((o.stdout(), o.stderr()), ("a\nc\n".to_string(), "b\n".to_string()));
        assert_eq!(o.chunks.len(), 3);
    }
}
