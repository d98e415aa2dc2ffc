//! A command line that keeps running ([`Job`]): what the console holds between steps while a
//! `kubectl get --watch | grep web` or a `kubectl rollout status ... && kubectl get pods` waits.
//! The state only: [`super::console::Console`] keeps the jobs, and [`super::exec`], which runs
//! command lines, builds and resumes them.

use super::cmd::Stream;
use super::continuation::Continuation;
use super::filters::Filter;
use super::shell::{AndOr, Pipeline};

/// Where a command's standard output or error goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Sink {
    /// The terminal, on this stream.
    Term(Stream),
    /// The pipe into the next command.
    Pipe,
    /// An editor buffer (appended to).
    File(String),
    /// `/dev/null`.
    Null,
}

/// A command line that keeps running: kubectl's [`Continuation`], what it pipes into, and what
/// the line runs after it.
#[derive(Clone, Debug)]
pub struct Job {
    /// What kubectl keeps doing.
    pub what: Continuation,
    /// Where the running command's standard output and error go.
    pub(super) sinks: [Sink; 2],
    /// The filters it pipes into, in order.
    pub(super) tail: Vec<TailStage>,
    /// `! pipeline`.
    pub(super) negate: bool,
    /// The rest of the command line.
    pub(super) then: Rest,
}

#[derive(Clone, Debug)]
pub(super) struct TailStage {
    pub(super) filter: Filter,
    pub(super) sinks: [Sink; 2],
}

/// What a command line still has to run after a job: the rest of its and-or list, the rest of
/// its `;` list, and the lines pasted after it.
#[derive(Clone, Debug, Default)]
pub(super) struct Rest {
    pub(super) and_or: Vec<(bool, Pipeline)>,
    pub(super) list: Vec<AndOr>,
    pub(super) text: String,
}
