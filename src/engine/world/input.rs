//! What drives the World from outside, as its log records it: a user's API call ([`UserCall`],
//! answered by a [`UserResult`]), a [`Fault`], and the logged [`Input`]s whose replay reproduces
//! a run.

use std::time::Duration;

use serde_json::Value;

use crate::engine::apiserver::{DeleteOptions, Deleted, Patch, Subresource};
use crate::engine::cloud::CloudFault;
use crate::engine::kinds::Kind;
use crate::engine::time::Time;

/// A fault the world can inject (each also has its own method on [`World`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A process's watch for a kind breaks: undelivered events are lost; the reflector watches
    /// again from its last resourceVersion after a back-off (and relists if that is too old).
    BreakWatch { process: String, kind: String },
    /// The API server forgets its event history: every older resourceVersion becomes "too old", as
    /// when kube-apiserver's watch cache window (or, without the watch cache, etcd's compaction)
    /// has moved past it.
    ExpireHistory,
    /// A clean stop. A controller-manager leader keeps its Lease (kube-controller-manager runs its
    /// election without `ReleaseOnCancel`): the standby waits for it to expire.
    StopProcess(String),
    /// A crash: nothing is released.
    KillProcess(String),
    /// Start a stopped process.
    StartProcess(String),
    /// Kill and start again.
    RestartProcess(String),
    /// The process's API calls fail (500) for a while.
    FailApi { process: String, duration: Duration },
    /// Before the process's next write, another client writes the same object (so it gets 409).
    ConflictNextWrite(String),
    /// Cut the process off from the API server (its watches break, calls fail).
    Partition(String),
    /// Reconnect it.
    Heal(String),
    /// Every kubelet delay is multiplied by this factor (1: normal speed).
    SlowKubelets(u32),
    /// Pods using this image never start (`ErrImagePull`).
    FailImage(String),
    /// The image can be pulled again.
    FixImage(String),
    /// The clock jumps forward without anything running in between.
    ClockJump(Duration),
    /// The process is suspended (a paused VM, a stopped process): nothing of it runs, and its own
    /// clock stands still, until [`Fault::Thaw`]. A leader frozen past its Lease's expiry still
    /// believes it leads when it thaws: client-go's leader election has no fencing.
    Freeze(String),
    /// A frozen process runs again, its clock as if no time had passed.
    Thaw(String),
    /// A kube-controller-manager controller loses its RBAC permissions (as if the
    /// ClusterRoleBinding of its service account were deleted): its API calls get 403 Forbidden.
    /// Its informers, which use the process's own credentials, keep working.
    Revoke(String),
    /// Its permissions are back.
    Grant(String),
    /// The external cloud fails every call (503) or hangs (operations never complete); `None`
    /// ends the fault.
    Cloud(Option<CloudFault>),
    /// The Bucket operator is redeployed with its buggy build (`true`: it records the
    /// resourceVersion it reconciled in status, a hot loop; see `controllers::bucket`) or the
    /// fixed one (`false`). A redeploy restarts the process.
    BuggyOperator(bool),
}

/// A user's API call, as kubectl or the editor makes it.
#[derive(Clone, Debug)]
pub enum UserCall {
    /// POST.
    Create(Value),
    /// PUT.
    Update(Value),
    /// PUT /status.
    UpdateStatus(Value),
    /// PUT namespaces/x/finalize.
    FinalizeNamespace(Value),
    /// PATCH.
    Patch { kind: &'static Kind, namespace: Option<String>, name: String, patch: Patch, subresource: Subresource },
    /// DELETE.
    Delete { kind: &'static Kind, namespace: Option<String>, name: String, options: DeleteOptions },
}

/// What a user call returned.
#[derive(Clone, Debug)]
pub enum UserResult {
    /// The object written.
    Object(Value),
    /// The result of a DELETE.
    Deleted(Deleted),
}

impl UserResult {
    /// The object the call returned: the written object, or a deleted object's last state.
    pub fn into_object(self) -> Value {
        match self {
            UserResult::Object(v) | UserResult::Deleted(Deleted::Gone(v) | Deleted::Pending(v)) => v,
        }
    }

    /// The call's result as a DELETE's: a written object means it is still there, being deleted.
    pub fn into_deleted(self) -> Deleted {
        match self {
            UserResult::Deleted(d) => d,
            UserResult::Object(v) => Deleted::Pending(v),
        }
    }
}

/// A logged input: each gives exactly one record, and replaying them reproduces the run. `Step`
/// and `Run(id)` choose a pending action (the first, or the one listed under `id`); the others
/// act from outside the processes (see `schedule.rs`, "An action, stage by stage").
///
/// One is logged per step, so a converged 10,000-replica Deployment logs about 400,000: the rare
/// large ones are boxed to keep each at 16 bytes (unboxed, a `UserCall` made every input about
/// 170 bytes: some 70 MB of `Step`s).
#[derive(Clone, Debug)]
pub(super) enum Input {
    Step,
    Run(usize),
    User(Box<(String, UserCall)>),
    Fault(Box<Fault>),
    Clock(Time),
}

const _: () = assert!(std::mem::size_of::<Input>() <= 16, "an input is logged per step: keep it small");
