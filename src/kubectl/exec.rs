//! Running what [`super::shell`] parsed, as bash runs it: expansions (`$(...)`, `$?`, `$NAME`,
//! with unquoted results split into words), redirections to and from the editor's buffers,
//! pipelines into [`super::filters`], `&&`, `||`, `;`, and exit statuses (a pipeline's is its
//! last command's; `!` negates it; `$?` reads it).
//!
//! **Commands that keep running.** In a terminal, `kubectl get pods --watch | grep web` keeps
//! printing matches and the shell waits; `kubectl rollout status deploy/web && kubectl get pods`
//! lists the pods only once the rollout is done. Here kubectl never advances time, so such a
//! command leaves a [`Job`](super::job::Job) in the console: its [`Continuation`], the filters it pipes into (fed
//! as it prints; `head` closing its input ends it, as SIGPIPE would), and the rest of the command
//! line, which runs when it finishes, with its exit status as `$?`. Ctrl-C (`^C`) stops jobs and
//! drops what they would have run, as it does in bash. The console still takes new lines while a
//! job runs (as a second terminal would).
//!
//! Inside `$(...)` nothing can wait: a command there that would keep running is stopped with a
//! message. Expansion results are bounded ([`MAX_EXPANSION`]): a line never builds unbounded
//! text.

use super::cluster::Cluster;
use super::cmd::{CmdError, Output, Stream};
use super::console::Console;
use super::continuation::Continuation;
use super::filters::{self, Filter};
use super::job::{Job, Rest, Sink, TailStage};
use super::shell::{self, AndOr, List, Part, Pipeline, RedirOp, Simple, Word};

/// The longest text one expansion (a word, a variable, a substitution's output) may produce.
pub const MAX_EXPANSION: usize = 1 << 20;

/// The most shell variables a console keeps.
const MAX_VARS: usize = 1_000;

/// How deeply the rest of a command line may run from inside another's (a resumed job whose
/// rest runs `lab step`, which resumes jobs...).
const MAX_RESUME_DEPTH: usize = 8;

enum Flow {
    Done(i32),
    Blocked(Box<Job>),
}

/// A command ready to run: its words expanded, its redirections done.
struct Prepared {
    args: Vec<String>,
    assigns: Vec<(String, String)>,
    stdin: Option<String>,
    sinks: [Sink; 2],
}

enum Stage {
    Done(i32),
    Continues(Continuation, [Sink; 2], i32),
}

/// Commands people type that this console does not run, with what to do instead.
const ELSEWHERE: &[(&str, &str)] = &[
    ("ls", "lab files lists the editor's files"),
    ("watch", "kubectl get --watch prints each change as the cluster steps"),
    ("sleep", "time moves only when you Step, or with lab advance DURATION"),
    ("jq", "kubectl get -o jsonpath='{...}' or -o custom-columns=... pick fields"),
    ("yq", "kubectl get -o jsonpath='{...}' or -o custom-columns=... pick fields"),
    ("clear", "Ctrl+L clears the console"),
    ("history", "Up and Down go through the lines you ran"),
    ("vi", "the editor next to the console edits files; kubectl edit opens an object there"),
    ("vim", "the editor next to the console edits files; kubectl edit opens an object there"),
    ("nano", "the editor next to the console edits files; kubectl edit opens an object there"),
    ("curl", "the lab has no network; kubectl talks to the in-page API server"),
    ("wget", "the lab has no network; kubectl talks to the in-page API server"),
    ("helm", "this console runs kubectl and lab commands"),
    ("kustomize", "this console runs kubectl and lab commands"),
    ("docker", "this console runs kubectl and lab commands"),
    ("minikube", "this console runs kubectl and lab commands"),
    ("kind", "this console runs kubectl and lab commands"),
    ("exit", "the console stays open; ^C stops what kubectl is still doing"),
];

/// Shell utilities that would make sense after a pipe but are not here.
const NOT_HERE: &[&str] = &[
    "xargs", "sed", "tr", "uniq", "tee", "less", "more", "column", "paste", "diff", "base64", "printf", "find", "cd",
    "pwd", "rm", "cp", "mv", "touch", "mkdir", "env", "source", ".", "read", "alias", "date", "bash", "sh", "zsh",
    "which", "man", "test", "[",
];

fn not_supported(name: &str) -> String {
    match ELSEWHERE.iter().find(|(n, _)| *n == name) {
        Some((_, hint)) => format!("{name}: not supported in this console; {hint}\n"),
        None if NOT_HERE.contains(&name) => {
            format!("{name}: not supported in this console; supported after a pipe: {}\n", filters::SUPPORTED)
        }
        None => format!(
            "{name}: command not found (this console runs kubectl, lab and echo, and after a pipe {})\n",
            filters::SUPPORTED
        ),
    }
}

/// Appends another output's pieces (and an opened edit) without touching the exit status.
fn append(term: &mut Output, more: Output) {
    for (s, t) in more.chunks {
        match s {
            Stream::Stdout => term.out(t),
            Stream::Stderr => term.err(t),
        }
    }
    if more.edit.is_some() {
        term.edit = more.edit;
    }
}

fn negated(negate: bool, status: i32) -> i32 {
    if negate {
        i32::from(status == 0)
    } else {
        status
    }
}

impl Console {
    /// Runs a script: complete command by complete command, each parsed just before it runs (a
    /// syntax error on a later line leaves the earlier ones run). When a command keeps running,
    /// returns its job, holding the rest of the text.
    pub(super) fn run_text(&mut self, api: &mut dyn Cluster, text: &str, term: &mut Output) -> Option<Job> {
        let mut rest = text;
        while !rest.trim().is_empty() {
            let (list, used) = match shell::parse(rest) {
                Ok(p) => p,
                Err(e) => {
                    term.err(CmdError::Plain(e.to_string()).render());
                    self.status = 2;
                    return None;
                }
            };
            if used == 0 {
                break;
            }
            let after = &rest[used.min(rest.len())..];
            if let Flow::Blocked(mut job) = self.run_list(api, &list, term) {
                job.then.text = after.to_string();
                return Some(*job);
            }
            rest = after;
        }
        None
    }

    fn run_list(&mut self, api: &mut dyn Cluster, list: &[AndOr], term: &mut Output) -> Flow {
        let mut status = self.status;
        for (i, ao) in list.iter().enumerate() {
            match self.run_and_or(api, &ao.first, &ao.rest, term) {
                Flow::Done(s) => status = s,
                Flow::Blocked(mut job) => {
                    job.then.list = list[i + 1..].to_vec();
                    return Flow::Blocked(job);
                }
            }
        }
        Flow::Done(status)
    }

    /// Runs `first`, then each of `rest` whose connector lets it (`&&` after success, `||` after
    /// failure; a skipped pipeline leaves the status as it was).
    fn run_and_or(
        &mut self,
        api: &mut dyn Cluster,
        first: &Pipeline,
        rest: &[(bool, Pipeline)],
        term: &mut Output,
    ) -> Flow {
        let mut status = match self.run_pipeline_resumed(api, first, term) {
            Flow::Done(s) => s,
            Flow::Blocked(mut job) => {
                job.then.and_or = rest.to_vec();
                return Flow::Blocked(job);
            }
        };
        for (i, (and, p)) in rest.iter().enumerate() {
            if *and != (status == 0) {
                continue;
            }
            match self.run_pipeline_resumed(api, p, term) {
                Flow::Done(s) => status = s,
                Flow::Blocked(mut job) => {
                    job.then.and_or = rest[i + 1..].to_vec();
                    return Flow::Blocked(job);
                }
            }
        }
        Flow::Done(status)
    }

    /// A pipeline, then (outside `$(...)`) what running watches and waits print after it.
    fn run_pipeline_resumed(&mut self, api: &mut dyn Cluster, p: &Pipeline, term: &mut Output) -> Flow {
        let flow = self.run_pipeline(api, p, term);
        if self.subst_depth == 0 {
            let more = self.resume(api);
            append(term, more);
        }
        flow
    }

    fn run_pipeline(&mut self, api: &mut dyn Cluster, p: &Pipeline, term: &mut Output) -> Flow {
        let n = p.commands.len();
        let mut input: Option<String> = None;
        let mut status = 0;
        let mut i = 0;
        while i < n {
            let last = i + 1 == n;
            let sinks = [
                if last { Sink::Term(Stream::Stdout) } else { Sink::Pipe },
                if !last && p.pipe_stderr.get(i).copied().unwrap_or(false) {
                    Sink::Pipe
                } else {
                    Sink::Term(Stream::Stderr)
                },
            ];
            let prepared = match self.prepare(api, &p.commands[i], sinks, term) {
                Ok(prep) => prep,
                Err(s) => {
                    status = s;
                    input = if last { None } else { Some(String::new()) };
                    i += 1;
                    continue;
                }
            };
            let mut pipe = String::new();
            match self.run_prepared(api, prepared, input.take(), &mut pipe, term) {
                Stage::Done(s) => status = s,
                Stage::Continues(what, sinks, s) => {
                    if last {
                        return Flow::Blocked(Box::new(Job {
                            what,
                            sinks,
                            tail: Vec::new(),
                            negate: p.negate,
                            then: Rest::default(),
                        }));
                    }
                    // The filters after it read its output as it comes.
                    match self.build_tail(api, &p.commands[i + 1..], &p.pipe_stderr[i + 1..], term) {
                        Ok(mut tail) => {
                            let mut job =
                                Job { what, sinks, tail: Vec::new(), negate: p.negate, then: Rest::default() };
                            self.feed_tail(&mut tail, &pipe, term);
                            job.tail = tail;
                            return Flow::Blocked(Box::new(job));
                        }
                        Err(reason) => {
                            // Stopped: the rest of the pipeline reads what it printed so far.
                            self.stop(api, &what);
                            term.err(CmdError::Plain(reason).render());
                            status = s;
                        }
                    }
                }
            }
            input = if last { None } else { Some(pipe) };
            i += 1;
        }
        let status = negated(p.negate, status);
        self.status = status;
        Flow::Done(status)
    }

    /// The filters after a command that keeps running, ready to be fed; or why they cannot be.
    fn build_tail(
        &mut self,
        api: &mut dyn Cluster,
        cmds: &[Simple],
        pipe_stderr: &[bool],
        term: &mut Output,
    ) -> Result<Vec<TailStage>, String> {
        let mut tail = Vec::new();
        for (k, cmd) in cmds.iter().enumerate() {
            let last = k + 1 == cmds.len();
            let sinks = [
                if last { Sink::Term(Stream::Stdout) } else { Sink::Pipe },
                if !last && pipe_stderr.get(k).copied().unwrap_or(false) {
                    Sink::Pipe
                } else {
                    Sink::Term(Stream::Stderr)
                },
            ];
            let prep = self
                .prepare(api, cmd, sinks, term)
                .map_err(|_| "the command after the pipe could not start".to_string())?;
            let name = prep.args.first().cloned().unwrap_or_default();
            if !filters::NAMES.contains(&name.as_str()) || prep.stdin.is_some() {
                return Err(format!(
                    "this console can pipe a command that keeps running (a watch, a wait) only into {}; it was stopped",
                    filters::SUPPORTED
                ));
            }
            match Filter::new(&name, &prep.args[1..], &self.files, None) {
                Ok(filter) => tail.push(TailStage { filter, sinks: prep.sinks }),
                Err(u) => {
                    term.err(u.message);
                    return Err(format!("{name} could not start; the command before it was stopped"));
                }
            }
        }
        Ok(tail)
    }

    /// Feeds text into the first stage of a tail; each stage's output flows into the next.
    fn feed_tail(&mut self, tail: &mut [TailStage], text: &str, term: &mut Output) {
        let Some((first, rest)) = tail.split_first_mut() else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let mut o = Output::default();
        first.filter.feed(text, &mut o);
        let mut pipe = String::new();
        self.route(o, &first.sinks, &mut pipe, term);
        self.feed_tail(rest, &pipe, term);
    }

    /// Ends the input of a tail: each stage finishes, and what it prints flows on. Returns the
    /// last stage's status.
    fn finish_tail(&mut self, tail: &mut [TailStage], term: &mut Output) -> i32 {
        let mut status = 0;
        for k in 0..tail.len() {
            let mut o = Output::default();
            status = tail[k].filter.finish(&mut o);
            let mut pipe = String::new();
            let sinks = tail[k].sinks.clone();
            self.route(o, &sinks, &mut pipe, term);
            self.feed_tail(&mut tail[k + 1..], &pipe, term);
        }
        status
    }

    /// Sends what a command printed where its descriptors point.
    fn route(&mut self, o: Output, sinks: &[Sink; 2], pipe: &mut String, term: &mut Output) {
        if o.edit.is_some() {
            term.edit = o.edit;
        }
        for (stream, text) in o.chunks {
            let sink = match stream {
                Stream::Stdout => &sinks[0],
                Stream::Stderr => &sinks[1],
            };
            match sink {
                Sink::Term(Stream::Stdout) => term.out(text),
                Sink::Term(Stream::Stderr) => term.err(text),
                Sink::Pipe => pipe.push_str(&text),
                Sink::File(name) => {
                    let f = self.files.entry(name.clone()).or_default();
                    if f.len() + text.len() <= MAX_EXPANSION * 4 {
                        f.push_str(&text);
                    }
                }
                Sink::Null => {}
            }
        }
    }

    /// Expands a command's words and does its redirections. On failure (the message is printed)
    /// returns the status.
    fn prepare(
        &mut self,
        api: &mut dyn Cluster,
        cmd: &Simple,
        mut sinks: [Sink; 2],
        term: &mut Output,
    ) -> Result<Prepared, i32> {
        self.subst_status = None;
        let fail = |term: &mut Output, msg: String| {
            term.err(CmdError::Plain(msg).render());
            1
        };
        let mut args = Vec::new();
        let declaration = cmd.words.first().and_then(Word::literal).is_some_and(|w| w == "export");
        for (k, w) in cmd.words.iter().enumerate() {
            // `export NAME=$(...)` is not split, as for an assignment.
            let split = !(declaration
                && k > 0
                && w.parts.first().is_some_and(|p| matches!(p, Part::Lit(s) if s.contains('='))));
            match self.expand(api, w, split, term) {
                Ok(fields) => args.extend(fields),
                Err(e) => return Err(fail(term, e)),
            }
        }
        let mut assigns = Vec::new();
        for (name, w) in &cmd.assigns {
            match self.expand(api, w, false, term) {
                Ok(mut v) => assigns.push((name.clone(), v.pop().unwrap_or_default())),
                Err(e) => return Err(fail(term, e)),
            }
        }
        let mut stdin = None;
        for r in &cmd.redirects {
            let target =
                |this: &mut Console, api: &mut dyn Cluster, w: &Word, term: &mut Output| -> Result<String, String> {
                    let v = this.expand(api, w, true, term)?;
                    match v.as_slice() {
                        [one] if !one.is_empty() => Ok(one.strip_prefix("./").unwrap_or(one).to_string()),
                        [_] => Err(": No such file or directory".into()),
                        _ => Err(format!("{}: ambiguous redirect", w.literal().unwrap_or_else(|| "$...".into()))),
                    }
                };
            let fd = usize::from(r.fd.min(2));
            match &r.op {
                RedirOp::In(w) => {
                    let name = target(self, api, w, term).map_err(|e| fail(term, e))?;
                    match self.files.get(&name) {
                        Some(t) => stdin = Some(t.clone()),
                        None if name == "/dev/null" => stdin = Some(String::new()),
                        None => return Err(fail(term, format!("{name}: No such file or directory"))),
                    }
                }
                RedirOp::HereDoc(w) => {
                    let v = self.expand(api, w, false, term).map_err(|e| fail(term, e))?;
                    stdin = Some(v.concat());
                }
                RedirOp::HereString(w) => {
                    let v = self.expand(api, w, false, term).map_err(|e| fail(term, e))?;
                    stdin = Some(format!("{}\n", v.concat()));
                }
                RedirOp::Out(w) | RedirOp::Append(w) | RedirOp::Both(w) | RedirOp::BothAppend(w) => {
                    let name = target(self, api, w, term).map_err(|e| fail(term, e))?;
                    let append = matches!(r.op, RedirOp::Append(_) | RedirOp::BothAppend(_));
                    let sink = match name.as_str() {
                        "/dev/null" => Sink::Null,
                        "/dev/stdout" => sinks[0].clone(),
                        "/dev/stderr" => sinks[1].clone(),
                        _ => {
                            if fd == 0 {
                                return Err(fail(
                                    term,
                                    format!("{name}: standard input cannot be redirected to a file"),
                                ));
                            }
                            if append {
                                self.files.entry(name.clone()).or_default();
                            } else {
                                self.files.insert(name.clone(), String::new());
                            }
                            Sink::File(name)
                        }
                    };
                    if matches!(r.op, RedirOp::Both(_) | RedirOp::BothAppend(_)) {
                        sinks = [sink.clone(), sink];
                    } else if fd > 0 {
                        sinks[fd - 1] = sink;
                    }
                }
                RedirOp::Dup(to) => {
                    if fd > 0 {
                        sinks[fd - 1] = sinks[usize::from(*to).clamp(1, 2) - 1].clone();
                    }
                }
            }
        }
        Ok(Prepared { args, assigns, stdin, sinks })
    }

    /// Runs a prepared command. Its standard input is the pipe (or its own redirection).
    fn run_prepared(
        &mut self,
        api: &mut dyn Cluster,
        prep: Prepared,
        input: Option<String>,
        pipe: &mut String,
        term: &mut Output,
    ) -> Stage {
        let Prepared { args, assigns, stdin, sinks } = prep;
        let stdin = stdin.or(input);
        let Some((name, rest)) = args.split_first() else {
            // Only assignments (and redirections): they set shell variables.
            for (k, v) in assigns {
                if self.vars.len() < MAX_VARS || self.vars.contains_key(&k) {
                    self.vars.insert(k, v);
                }
            }
            return Stage::Done(self.subst_status.unwrap_or(0));
        };
        let mut o = Output::default();
        let mut cont = None;
        match name.as_str() {
            "kubectl" | "k" => cont = self.kubectl(api, rest, stdin.as_deref(), &mut o),
            "lab" => self.lab(api, rest, stdin.as_deref(), &mut o),
            "^C" => self.interrupt(api),
            "echo" => echo(rest, &mut o),
            "true" | ":" => {}
            "false" => o.exit_code = 1,
            "export" => {
                if rest.is_empty() {
                    for (k, v) in &self.vars {
                        o.out(format!("declare -x {k}=\"{}\"\n", v.replace('\\', "\\\\").replace('"', "\\\"")));
                    }
                }
                for a in rest {
                    match a.split_once('=') {
                        Some((k, v)) if valid_name(k) => {
                            if self.vars.len() < MAX_VARS || self.vars.contains_key(k) {
                                self.vars.insert(k.to_string(), v.to_string());
                            }
                        }
                        None if valid_name(a) => {}
                        _ => {
                            o.err(format!("export: `{a}': not a valid identifier\n"));
                            o.exit_code = 1;
                        }
                    }
                }
            }
            "unset" => {
                for a in rest {
                    self.vars.remove(a);
                }
            }
            f if filters::NAMES.contains(&f) => {
                o.exit_code = filters::run(f, rest, stdin.as_deref(), &self.files, &mut o);
            }
            other => {
                o.err(not_supported(other));
                o.exit_code = 127;
            }
        }
        let status = o.exit_code;
        self.route(o, &sinks, pipe, term);
        match cont {
            Some(c) => Stage::Continues(c, sinks, status),
            None => Stage::Done(status),
        }
    }

    /// Expands a word: `split` divides unquoted expansion results at blanks and drops a word
    /// that expands to nothing (as bash does for arguments); without it (assignments,
    /// here-documents) the result is one string.
    fn expand(
        &mut self,
        api: &mut dyn Cluster,
        w: &Word,
        split: bool,
        term: &mut Output,
    ) -> Result<Vec<String>, String> {
        let mut fields = Vec::new();
        let mut cur = String::new();
        let mut has = false;
        let too_long =
            || format!("the expansion is too long (over {MAX_EXPANSION} characters); this console stops there");
        for part in &w.parts {
            let (value, quoted) = match part {
                Part::Lit(s) | Part::Quoted(s) => {
                    cur.push_str(s);
                    has = true;
                    if cur.len() > MAX_EXPANSION {
                        return Err(too_long());
                    }
                    continue;
                }
                Part::Var { name, quoted } => (self.vars.get(name).cloned().unwrap_or_default(), *quoted),
                Part::Status { quoted } => (self.status.to_string(), *quoted),
                Part::Subst { list, quoted } => (self.substitute(api, list, term), *quoted),
            };
            if value.len() + cur.len() > MAX_EXPANSION {
                return Err(too_long());
            }
            if quoted || !split {
                cur.push_str(&value);
                has |= quoted || !value.is_empty();
                continue;
            }
            for c in value.chars() {
                if c == ' ' || c == '\t' || c == '\n' {
                    if has {
                        fields.push(std::mem::take(&mut cur));
                        has = false;
                    }
                } else {
                    cur.push(c);
                    has = true;
                }
            }
        }
        if has || !split {
            fields.push(cur);
        }
        if fields.iter().map(String::len).sum::<usize>() > MAX_EXPANSION {
            return Err(too_long());
        }
        Ok(fields)
    }

    /// `$(...)`: runs the list with its standard output captured (trailing newlines removed);
    /// its standard error goes to the terminal. Shell variables set inside do not survive it (a
    /// subshell's), files and the cluster do.
    fn substitute(&mut self, api: &mut dyn Cluster, list: &List, term: &mut Output) -> String {
        let vars = self.vars.clone();
        let mut inner = Output::default();
        self.subst_depth += 1;
        let flow = self.run_list(api, list, &mut inner);
        self.subst_depth -= 1;
        self.vars = vars;
        let status = match flow {
            Flow::Done(s) => s,
            Flow::Blocked(job) => {
                self.stop(api, &job.what);
                inner.err(
                    CmdError::Plain(format!(
                        "this console cannot wait inside $(...), and stopped the command that was {}: run it on its own line",
                        job.what.describe()
                    ))
                    .render(),
                );
                1
            }
        };
        let mut captured = String::new();
        for (s, t) in std::mem::take(&mut inner.chunks) {
            match s {
                Stream::Stdout if captured.len() <= MAX_EXPANSION => captured.push_str(&t),
                Stream::Stdout => {}
                Stream::Stderr => term.err(t),
            }
        }
        if inner.edit.is_some() {
            term.edit = inner.edit;
        }
        self.status = status;
        self.subst_status = Some(status);
        while captured.ends_with('\n') {
            captured.pop();
        }
        captured
    }

    /// Stops what a job's command keeps doing (its watch).
    pub(super) fn stop(&mut self, api: &mut dyn Cluster, what: &Continuation) {
        if let Continuation::Watch(w) = what {
            api.stop_watch(w.id);
        }
    }

    /// Lets every job's command print what happened since it last ran, through its filters;
    /// a job whose command finished runs the rest of its line. Returns what all of it printed.
    pub fn resume(&mut self, api: &mut dyn Cluster) -> Output {
        let mut term = Output::default();
        if self.resume_depth >= MAX_RESUME_DEPTH {
            return term;
        }
        self.resume_depth += 1;
        let jobs = std::mem::take(&mut self.pending);
        let mut keep = Vec::new();
        for mut job in jobs {
            let mut o = Output::default();
            let mut done = super::console::advance(api, &mut job.what, &mut o);
            let cont_status = o.exit_code;
            let wrote = !o.chunks.is_empty();
            let mut pipe = String::new();
            let sinks = job.sinks.clone();
            // Writing into a pipe whose reader has exited ends the writer (SIGPIPE).
            let reader_gone = job.tail.iter().any(|t| t.filter.closed());
            self.route(o, &sinks, &mut pipe, &mut term);
            if reader_gone && wrote && !done {
                self.stop(api, &job.what);
                done = true;
            }
            let mut tail = std::mem::take(&mut job.tail);
            self.feed_tail(&mut tail, &pipe, &mut term);
            job.tail = tail;
            if !done {
                keep.push(job);
                continue;
            }
            let status = if job.tail.is_empty() {
                cont_status
            } else {
                let mut tail = std::mem::take(&mut job.tail);
                self.finish_tail(&mut tail, &mut term)
            };
            let status = negated(job.negate, status);
            self.status = status;
            if let Some(more) = self.run_rest(api, job.then, status, &mut term) {
                keep.push(more);
            }
        }
        // Jobs started while resuming (by the rest of a line) come first: they are newer.
        self.pending.extend(keep);
        self.resume_depth -= 1;
        term
    }

    /// Runs the rest of a command line after its job finished with `status`; returns the job
    /// that blocks it again, if one does.
    fn run_rest(&mut self, api: &mut dyn Cluster, rest: Rest, status: i32, term: &mut Output) -> Option<Job> {
        let mut status = status;
        for (i, (and, p)) in rest.and_or.iter().enumerate() {
            if *and != (status == 0) {
                continue;
            }
            match self.run_pipeline_resumed(api, p, term) {
                Flow::Done(s) => status = s,
                Flow::Blocked(mut job) => {
                    job.then.and_or = rest.and_or[i + 1..].to_vec();
                    job.then.list = rest.list;
                    job.then.text = rest.text;
                    return Some(*job);
                }
            }
        }
        if let Flow::Blocked(mut job) = self.run_list(api, &rest.list, term) {
            job.then.text = rest.text;
            return Some(*job);
        }
        self.run_text(api, &rest.text, term)
    }
}

fn valid_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// bash's `echo`: `-n` (no newline), `-e` (backslash escapes), `-E`; an argument is an option
/// only when it is made of those letters.
fn echo(args: &[String], out: &mut Output) {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let Some(flags) = a.strip_prefix('-') else { break };
        if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        i += 1;
    }
    let mut text = args[i..].join(" ");
    if escapes {
        let mut s = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                s.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => s.push('\n'),
                Some('t') => s.push('\t'),
                Some('r') => s.push('\r'),
                Some('\\') => s.push('\\'),
                Some('c') => {
                    newline = false;
                    break;
                }
                Some(o) => {
                    s.push('\\');
                    s.push(o);
                }
                None => s.push('\\'),
            }
        }
        text = s;
    }
    if newline {
        text.push('\n');
    }
    out.out(text);
}
