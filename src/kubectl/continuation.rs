//! What kubectl keeps doing after a command printed its output ([`Continuation`]): a `delete`
//! waiting for its objects to go, a `get --watch` or `events --watch`, a `wait`, a `rollout
//! status`. Each verb returns its own state; the command table wraps it in a `Continuation`,
//! and the console keeps them and resumes them as the world advances.

use super::mutate::delete::DeletionTarget;
use super::rollout::StatusWait;
use super::wait::WaitState;
use super::watch::WatchState;

/// What kubectl keeps doing after a command printed its output.
#[derive(Clone, Debug)]
pub enum Continuation {
    /// `kubectl delete` waiting until each deleted object is really gone (`--wait=true`).
    WaitForDeletion(Vec<DeletionTarget>),
    /// `kubectl get --watch` or `kubectl events --watch`, printing one row per event until
    /// interrupted.
    Watch(Box<WatchState>),
    /// `kubectl wait --for=...`.
    Wait(Box<WaitState>),
    /// `kubectl rollout status` waiting for the rollout to finish.
    RolloutStatus(StatusWait),
}

impl From<Vec<DeletionTarget>> for Continuation {
    fn from(targets: Vec<DeletionTarget>) -> Continuation {
        Continuation::WaitForDeletion(targets)
    }
}

impl From<WatchState> for Continuation {
    fn from(watch: WatchState) -> Continuation {
        Continuation::Watch(Box::new(watch))
    }
}

impl From<WaitState> for Continuation {
    fn from(wait: WaitState) -> Continuation {
        Continuation::Wait(Box::new(wait))
    }
}

impl From<StatusWait> for Continuation {
    fn from(wait: StatusWait) -> Continuation {
        Continuation::RolloutStatus(wait)
    }
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
            Continuation::RolloutStatus(s) => format!("waiting for deployment \"{}\" rollout to finish", s.name),
        }
    }
}
