//! What kubectl keeps doing after a command printed its output ([`Continuation`]): a `delete`
//! waiting for its objects to go, a `get --watch` (with its [`WatchState`]), a `wait`, a
//! `rollout status`. The console keeps them and resumes them as the world advances.

use super::table::TabWriter;
use crate::engine::apiserver::WatchId;
use crate::engine::kinds::Kind;

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
