//! Faults the lab injects ([`Fault`]): [`World::fault`] checks, logs and applies one, and each
//! has its own method ([`World::break_watch`], [`World::stop_process`], ...).

use std::time::Duration;

use super::api::WorldApi;
use super::input::{Fault, Input};
use super::narrate::fmt_duration;
use super::record::{ActionKind, Actor, ApiCall, StepRecord};
use super::topology::{
    controller_manager_controllers, controller_manager_elector, service_account, BUCKET_OPERATOR, KUBELET,
};
use super::{State, World};
use crate::engine::client::ElectionOutcome;
use crate::engine::cloud::CloudFault;
use crate::engine::controllers::bucket::BucketController;
use crate::engine::kinds::Kind;

fn kind_of(name: &str) -> Option<&'static Kind> {
    Kind::by_kind(name).or_else(|| Kind::lookup(name))
}

impl World {
    /// Injects a fault. Errors name an unknown process or kind.
    pub fn fault(&mut self, f: Fault) -> Result<StepRecord, String> {
        self.check_fault(&f)?;
        self.log(Input::Fault(Box::new(f.clone())));
        self.state.loops.fresh_input();
        let r = self.apply_fault(f);
        Ok(self.finish(r))
    }

    fn process_index(&self, name: &str) -> Result<usize, String> {
        self.state
            .processes
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| format!("unknown process \"{name}\" (known: {})", self.process_names().join(", ")))
    }

    fn process_names(&self) -> Vec<String> {
        self.state.processes.iter().map(|p| p.name.clone()).collect()
    }

    fn check_fault(&self, f: &Fault) -> Result<(), String> {
        match f {
            Fault::BreakWatch { process, kind } => {
                let pi = self.process_index(process)?;
                let k = kind_of(kind).ok_or_else(|| format!("unknown kind \"{kind}\""))?;
                let p = &self.state.processes[pi];
                if !p.informers().iter().any(|i| std::ptr::eq(i.kind(), k)) {
                    return Err(format!("{process} has no {} informer running", k.kind));
                }
                Ok(())
            }
            Fault::StopProcess(p)
            | Fault::KillProcess(p)
            | Fault::StartProcess(p)
            | Fault::RestartProcess(p)
            | Fault::ConflictNextWrite(p)
            | Fault::Partition(p)
            | Fault::Heal(p)
            | Fault::Freeze(p)
            | Fault::Thaw(p)
            | Fault::FailApi { process: p, .. } => self.process_index(p).map(|_| ()),
            Fault::Revoke(c) | Fault::Grant(c) => {
                if service_account(c).is_some() {
                    Ok(())
                } else {
                    let names: Vec<&str> = controller_manager_controllers().iter().map(|c| c.name()).collect();
                    Err(format!(
                        "unknown controller \"{c}\": permissions can be revoked from kube-controller-manager's controllers, which each have a service account ({})",
                        names.join(", ")
                    ))
                }
            }
            Fault::BuggyOperator(_) => self.process_index(BUCKET_OPERATOR).map(|_| ()),
            _ => Ok(()),
        }
    }

    /// Applies a checked fault: one function per fault below, each returning its record's
    /// sentence.
    fn apply_fault(&mut self, f: Fault) -> StepRecord {
        let mut calls = Vec::new();
        let sentence = match &f {
            Fault::BreakWatch { process, kind } => self.apply_break_watch(process, kind),
            Fault::ExpireHistory => self.apply_expire_history(),
            Fault::StopProcess(name) => self.apply_stop(name, true, &mut calls),
            Fault::KillProcess(name) => self.apply_stop(name, false, &mut calls),
            Fault::StartProcess(name) => self.apply_start(name, false),
            Fault::RestartProcess(name) => self.apply_start(name, true),
            Fault::FailApi { process, duration } => self.apply_fail_api(process, *duration),
            Fault::ConflictNextWrite(process) => self.apply_conflict_next_write(process),
            Fault::Partition(name) => self.apply_partition(name),
            Fault::Heal(name) => self.apply_heal(name),
            Fault::SlowKubelets(factor) => self.apply_slow_kubelets(*factor),
            Fault::FailImage(image) => self.apply_fail_image(image),
            Fault::FixImage(image) => self.apply_fix_image(image),
            Fault::Cloud(fault) => self.apply_cloud_fault(*fault),
            Fault::ClockJump(d) => self.apply_clock_jump(*d),
            Fault::Freeze(name) => self.apply_freeze(name),
            Fault::Thaw(name) => self.apply_thaw(name),
            Fault::Revoke(controller) => self.apply_revoke(controller),
            Fault::Grant(controller) => self.apply_grant(controller),
            Fault::BuggyOperator(on) => self.apply_buggy_operator(*on),
        };
        self.record(Actor::Lab, ActionKind::Fault, Vec::new(), calls, sentence)
    }

    /// A process's watch of a kind breaks: the events in flight are lost.
    fn apply_break_watch(&mut self, process: &str, kind: &str) -> String {
        let pi = self.process_index(process).unwrap_or(0);
        let k = kind_of(kind);
        let State { api, processes, .. } = &mut self.state;
        let mut lost = None;
        // Only an open watch can break. A reflector that has not listed yet (or is backing
        // off) keeps its plan: turning a pending first list into a watch from
        // resourceVersion 0 would leave the cache empty and never synced.
        // The connection is reset: the events in flight are lost and the stream ends; the
        // informer's next step handles the end (client-go watches again at once).
        for inf in processes[pi].informers().iter().filter(|i| k.is_some_and(|k| std::ptr::eq(i.kind(), k))) {
            if let Some(id) = inf.watch_id().filter(|id| api.watch_is_open(*id)) {
                lost = Some(api.pending_events(id).len());
                api.stop_watch(id);
            }
        }
        match lost {
            Some(lost) => format!("The {kind} watch of {process} broke: {lost} event(s) in flight are lost; the reflector will watch again from its last resourceVersion (at once, as client-go does when a stream ends, unless the watch lasted under a second without an event: then it relists after a back-off)."),
            None => format!("The {kind} informer of {process} has no open watch to break (it has not listed yet, or is backing off); nothing changes."),
        }
    }

    /// The API server forgets its event history.
    fn apply_expire_history(&mut self) -> String {
        self.state.api.expire_history();
        "The API server's window of past events moved on (the watch cache keeps only recent events): a watch from any older resourceVersion now gets 410 Expired.".to_string()
    }

    /// A clean stop (a leader that releases its Lease makes the `calls` that do it;
    /// kube-controller-manager keeps it) or a crash.
    fn apply_stop(&mut self, name: &str, clean: bool, calls: &mut Vec<ApiCall>) -> String {
        let now = self.state.now;
        let pi = self.process_index(name).unwrap_or(0);
        let State { api, processes, .. } = &mut self.state;
        let p = &mut processes[pi];
        let mut released = false;
        let failure = p.failure(now);
        let was_leading = p.leading();
        if let Some(e) = p.elector.as_mut() {
            if clean {
                let mut armed = false;
                let mut wapi = WorldApi { server: api, calls, failure, conflict_armed: &mut armed };
                let step = e.shut_down(&mut wapi, now);
                released = step.outcome == ElectionOutcome::ShutDown { released: true };
            } else {
                e.crash();
            }
        }
        p.stop(api);
        p.running = false;
        p.frozen_since = None;
        match (clean, released) {
            (true, true) => {
                format!("{name} stopped cleanly and released its Lease; its caches and queues are gone.")
            }
            (true, false) if was_leading => format!(
                "{name} stopped cleanly; its caches and queues are gone. It leaves its Lease held (kube-controller-manager does not release it on the way out), so another replica can take over only once the Lease expires."
            ),
            (true, false) => format!("{name} stopped cleanly; its caches and queues are gone."),
            _ => {
                format!("{name} crashed: its caches and queues are gone, and any Lease it held stays until it expires.")
            }
        }
    }

    /// Starts a stopped process (`restart`: stops it first, whatever its state).
    fn apply_start(&mut self, name: &str, restart: bool) -> String {
        let now = self.state.now;
        let pi = self.process_index(name).unwrap_or(0);
        if !restart && self.state.processes[pi].running {
            // Starting what already runs changes nothing: like `systemctl start` of a
            // running unit, the process keeps its identity, its Lease and its caches.
            return format!("{name} is already running; nothing changes.");
        }
        let new_identity = format!("{}_{}", self.state.processes[pi].host, self.state.rng.uuid_v4());
        let State { api, processes, .. } = &mut self.state;
        let p = &mut processes[pi];
        if restart || !p.running {
            p.stop(api);
        }
        p.running = true;
        p.frozen_since = None;
        match p.elector.as_mut() {
            Some(e) => {
                *e = controller_manager_elector(new_identity, now);
                format!("{name} started as a new candidate: it will lead only once it holds the Lease.")
            }
            None => {
                p.start(now, Duration::ZERO);
                format!("{name} started with empty caches: its informers list everything again.")
            }
        }
    }

    /// A process's API calls fail with 500 for a while.
    fn apply_fail_api(&mut self, process: &str, duration: Duration) -> String {
        let now = self.state.now;
        let pi = self.process_index(process).unwrap_or(0);
        self.state.processes[pi].api_fails_until = Some(now.after(duration));
        format!(
            "For the next {}, every API call of {process} fails with 500 (etcdserver: request timed out).",
            fmt_duration(duration)
        )
    }

    /// Another client writes just before the process's next write.
    fn apply_conflict_next_write(&mut self, process: &str) -> String {
        let pi = self.process_index(process).unwrap_or(0);
        self.state.processes[pi].conflict_armed = true;
        format!("Armed: just before {process}'s next write, another client will change the same object, so that write carries a stale resourceVersion.")
    }

    /// Cuts a process off from the API server: its watches break.
    fn apply_partition(&mut self, name: &str) -> String {
        let pi = self.process_index(name).unwrap_or(0);
        let State { api, processes, .. } = &mut self.state;
        let p = &mut processes[pi];
        p.partitioned = true;
        // The connections break; each informer's next step finds its stream ended and
        // tries to watch again, which is refused until the partition heals.
        for inf in p.informers() {
            if let Some(id) = inf.watch_id() {
                api.stop_watch(id);
            }
        }
        format!("{name} is cut off from the API server: its watches break and its calls fail.")
    }

    /// Reconnects a partitioned process.
    fn apply_heal(&mut self, name: &str) -> String {
        let pi = self.process_index(name).unwrap_or(0);
        self.state.processes[pi].partitioned = false;
        format!("{name} can reach the API server again.")
    }

    /// Multiplies every kubelet delay.
    fn apply_slow_kubelets(&mut self, factor: u32) -> String {
        if let Some(c) = self.kubelet_config() {
            c.slowdown = factor.max(1);
        }
        format!("The kubelets now take {}x as long for every transition.", factor.max(1))
    }

    /// Pods using the image never start.
    fn apply_fail_image(&mut self, image: &str) -> String {
        if let Some(c) = self.kubelet_config() {
            c.failing_images.insert(image.to_string());
        }
        format!("The image \"{image}\" can no longer be pulled: new pods using it never start.")
    }

    /// The image can be pulled again.
    fn apply_fix_image(&mut self, image: &str) -> String {
        if let Some(c) = self.kubelet_config() {
            c.failing_images.remove(image);
        }
        // The kubelets' pending image-pull retries were only polling while the image
        // failed; now the next retry starts the pod: real work for `run_until_idle`.
        if let Some(p) = self.state.processes.iter_mut().find(|p| p.name == KUBELET) {
            for slot in &mut p.slots {
                slot.check_keys.clear();
            }
        }
        format!("The image \"{image}\" can be pulled again.")
    }

    /// The external cloud fails, hangs, or works again.
    fn apply_cloud_fault(&mut self, fault: Option<CloudFault>) -> String {
        let now = self.state.now;
        self.state.cloud.set_fault(fault, now);
        match fault {
            Some(CloudFault::Failing) => {
                "The external cloud is failing: every call to it answers 503 ServiceUnavailable.".to_string()
            }
            Some(CloudFault::Hanging) => {
                "The external cloud hangs: it accepts calls, but no bucket operation completes.".to_string()
            }
            None => "The external cloud works again; stalled operations resume.".to_string(),
        }
    }

    /// The clock jumps forward without anything running in between.
    fn apply_clock_jump(&mut self, d: Duration) -> String {
        let now = self.state.now;
        let t = now.after(d);
        self.state.busy = 0;
        self.state.now = t;
        self.state.api.set_now(t);
        format!("The clock jumped forward by {}.", fmt_duration(d))
    }

    /// Freezes a process: nothing of it runs until it is thawed.
    fn apply_freeze(&mut self, name: &str) -> String {
        let now = self.state.now;
        let pi = self.process_index(name).unwrap_or(0);
        let p = &mut self.state.processes[pi];
        if p.frozen_since.is_some() || !p.running {
            return format!("{name} is not running or already frozen; nothing changes.");
        }
        p.frozen_since = Some(now);
        format!("{name} is frozen (a paused VM, a stopped process): nothing of it runs, and its own clock stands still, until it is thawed.")
    }

    /// Lets a frozen process run again, its clock as if no time had passed.
    fn apply_thaw(&mut self, name: &str) -> String {
        let now = self.state.now;
        let pi = self.process_index(name).unwrap_or(0);
        let p = &mut self.state.processes[pi];
        let Some(since) = p.frozen_since.take() else {
            return format!("{name} is not frozen; nothing changes.");
        };
        let d = now.since(since);
        // Its monotonic clock did not count the pause: every time it measures from (when it last
        // saw the Lease change, its next renewal) is that much later, so on its clock no time
        // passed.
        if let Some(e) = p.elector.as_mut() {
            e.suspended_for(d);
        }
        if p.leading() {
            format!("{name} thawed after {}. Its clock did not count the pause, so it still believes it leads: its controllers act at once, and it finds out only when its next renewal fails.", fmt_duration(d))
        } else {
            format!("{name} thawed after {}; its clock did not count the pause.", fmt_duration(d))
        }
    }

    /// A kube-controller-manager controller's calls get 403 Forbidden.
    fn apply_revoke(&mut self, controller: &str) -> String {
        let sa = service_account(controller).unwrap_or_default();
        self.state.revoked.insert(controller.to_string());
        format!("{controller} lost its RBAC permissions (as if the ClusterRoleBinding system:controller:{sa} were deleted): every API call it makes as system:serviceaccount:kube-system:{sa} is refused with 403 Forbidden. Its informers, which use kube-controller-manager's own credentials, keep working.")
    }

    /// A controller's permissions are back.
    fn apply_grant(&mut self, controller: &str) -> String {
        if self.state.revoked.remove(controller) {
            format!("{controller} has its RBAC permissions back: its API calls succeed again.")
        } else {
            format!("{controller} has its RBAC permissions; nothing changes.")
        }
    }

    /// Redeploys the Bucket operator with its buggy build (or the fixed one): like rolling out a
    /// new image of an operator's Deployment, the process restarts with the new code and empty
    /// caches, so its first list queues every Bucket and each is reconciled by the new build.
    fn apply_buggy_operator(&mut self, on: bool) -> String {
        let pi = self.process_index(BUCKET_OPERATOR).unwrap_or(0);
        for slot in &mut self.state.processes[pi].slots {
            if let Some(b) = slot.controller.as_any_mut().downcast_mut::<BucketController>() {
                b.records_resource_version = on;
            }
        }
        let started = self.apply_start(BUCKET_OPERATOR, true);
        let build = if on {
            "a buggy build: it also records the resourceVersion it reconciled in status.observedResourceVersion, so every status write changes what it just recorded"
        } else {
            "the fixed build: status records observedGeneration only"
        };
        format!("{BUCKET_OPERATOR} was redeployed with {build}. {started}")
    }

    /// Makes the external cloud fail, hang, or (with `None`) work again.
    pub fn cloud_fault(&mut self, fault: Option<CloudFault>) -> Result<StepRecord, String> {
        self.fault(Fault::Cloud(fault))
    }

    /// Breaks a process's watch of a kind.
    pub fn break_watch(&mut self, process: &str, kind: &str) -> Result<StepRecord, String> {
        self.fault(Fault::BreakWatch { process: process.into(), kind: kind.into() })
    }

    /// Makes every older resourceVersion "too old".
    pub fn expire_history(&mut self) -> Result<StepRecord, String> {
        self.fault(Fault::ExpireHistory)
    }

    /// Stops a process cleanly (a controller-manager leader keeps its Lease until it expires).
    pub fn stop_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::StopProcess(name.into()))
    }

    /// Kills a process (nothing released).
    pub fn kill_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::KillProcess(name.into()))
    }

    /// Starts a stopped process.
    pub fn start_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::StartProcess(name.into()))
    }

    /// Kills and starts a process.
    pub fn restart_process(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::RestartProcess(name.into()))
    }

    /// Makes a process's API calls fail for a while.
    pub fn fail_api(&mut self, name: &str, d: Duration) -> Result<StepRecord, String> {
        self.fault(Fault::FailApi { process: name.into(), duration: d })
    }

    /// Another client will write between the process's next read and write.
    pub fn conflict_next_write(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::ConflictNextWrite(name.into()))
    }

    /// Cuts a process off from the API server.
    pub fn partition(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Partition(name.into()))
    }

    /// Reconnects a partitioned process.
    pub fn heal(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Heal(name.into()))
    }

    /// Pauses the kubelets (stops their process).
    pub fn pause_kubelets(&mut self) -> Result<StepRecord, String> {
        self.fault(Fault::StopProcess(KUBELET.into()))
    }

    /// Resumes the kubelets.
    pub fn resume_kubelets(&mut self) -> Result<StepRecord, String> {
        self.fault(Fault::StartProcess(KUBELET.into()))
    }

    /// Slows the kubelets down by a factor (1: normal).
    pub fn slow_kubelets(&mut self, factor: u32) -> Result<StepRecord, String> {
        self.fault(Fault::SlowKubelets(factor))
    }

    /// Marks an image as unpullable.
    pub fn fail_image(&mut self, image: &str) -> Result<StepRecord, String> {
        self.fault(Fault::FailImage(image.into()))
    }

    /// Makes an image pullable again.
    pub fn fix_image(&mut self, image: &str) -> Result<StepRecord, String> {
        self.fault(Fault::FixImage(image.into()))
    }

    /// Jumps the clock forward without running anything in between.
    pub fn clock_jump(&mut self, d: Duration) -> Result<StepRecord, String> {
        self.fault(Fault::ClockJump(d))
    }

    /// Freezes a process: nothing of it runs, and its clock stands still, until [`World::thaw`].
    pub fn freeze(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Freeze(name.into()))
    }

    /// Lets a frozen process run again.
    pub fn thaw(&mut self, name: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Thaw(name.into()))
    }

    /// Revokes a kube-controller-manager controller's RBAC permissions (its calls get 403).
    pub fn revoke(&mut self, controller: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Revoke(controller.into()))
    }

    /// Gives a controller its permissions back.
    pub fn grant(&mut self, controller: &str) -> Result<StepRecord, String> {
        self.fault(Fault::Grant(controller.into()))
    }
}
