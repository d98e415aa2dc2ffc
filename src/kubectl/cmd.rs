//! What every kubectl command shares with the console that runs it: the context it runs in
//! ([`CmdCtx`]: namespace, here-document, editor buffers), what it prints ([`Output`], on which
//! [`Stream`]), how it fails ([`CmdError`], printed as kubectl's `CheckErr` prints it, and
//! [`Deferred`] for verbs that visit several objects), and the object `kubectl edit` opens
//! ([`EditSession`]). The verbs import these from here, not from the console that dispatches
//! to them.

use crate::engine::kinds::Kind;
use crate::engine::status::{Reason, Status};
use std::collections::BTreeMap;

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
/// `Error from server (<Reason>): <message>` (kubectl `pkg/cmd/util/helpers.go`,
/// `StandardErrorMessage`).
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

impl CmdError {
    pub(super) fn fix_root(self) -> CmdError {
        match self {
            CmdError::Flag { msg, .. } => CmdError::Raw(format!("error: {msg}\nSee 'kubectl --help' for usage.")),
            other => other,
        }
    }
}

/// An object opened by `kubectl edit`: the page shows `yaml` in its editor and later calls
/// [`Console::save_edit`](super::Console::save_edit) with the edited text. The save is a PUT carrying `resource_version`,
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

/// What a command needs from the session.
pub struct CmdCtx<'a> {
    /// The namespace in effect (`-n` or the session's).
    pub ns: &'a str,
    /// Whether `-n` was given (then a manifest's own namespace must match it).
    pub explicit_ns: bool,
    /// The here-document, for `-f -`.
    pub stdin: Option<&'a str>,
    /// The editor buffers, for `-f NAME`.
    pub files: &'a BTreeMap<String, String>,
}

impl CmdCtx<'_> {
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
