//! The kubelets of the cluster's nodes, as one agent that acts for each pod's node (records name
//! the node). A bound pod goes Pending (`ContainerCreating`) after [`KubeletConfig::create_delay`],
//! then Running and Ready after [`KubeletConfig::start_delay`]; an image marked as failing never
//! starts (`ErrImagePull`, then `ImagePullBackOff`).
//!
//! A pod with a `deletionTimestamp` stops the way the 1.34 kubelet stops it (k/k
//! `pkg/kubelet/kubelet.go` `SyncTerminatingPod`, `kuberuntime/kuberuntime_container.go`
//! `killContainer`, `status/status_manager.go` `TerminatePod` and `canBeDeleted`): at once, a
//! `Killing` event ("Stopping container web") for each running container, which gets SIGTERM.
//! The lab runs no processes, so how long a container takes to exit is a property of its image
//! ([`KubeletConfig::sigterm_exit`]): most images exit on SIGTERM ([`KubeletConfig::stop_delay`],
//! a second), while the images of [`KubeletConfig::ignore_sigterm`] (busybox, whose `sleep`
//! runs as PID 1 with no signal handler) run on until the grace period ends and are killed
//! (SIGKILL, exit code 137). Then the kubelet writes the terminal status: the containers
//! `terminated` (`Completed`, exit 0, or `Error`, 137; a container that never started
//! `ContainerStatusUnknown`), `Ready` and `ContainersReady` `False` (`PodCompleted` or
//! `PodFailed`), phase `Succeeded` when every container exited 0, else `Failed`; and only then
//! deletes the pod for good, with grace period 0 and a uid precondition.
//!
//! Status fields are written the way the kubelet writes them (k/k `pkg/kubelet/kubelet_pods.go`
//! `generateAPIPodStatus`, `status/generate.go`): the five pod conditions with
//! `ContainersNotReady` / `containers with unready status: [web]` while not ready, `hostIP`,
//! `podIP`, `startTime`, `qosClass`, `observedGeneration` (feature gate
//! `PodObservedGenerationTracking`, beta and on in 1.34), and one `containerStatuses` entry per
//! container. Differences: no probes, no restarts, no container IDs from a real runtime (they are
//! derived from the pod uid).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::util::{pod_condition, str_at};
use super::{Caches, Controller, Ctx, DeleteOpts, Enqueue, Outcome, ResourceEvent};
use crate::engine::frozen::Json;
use crate::engine::frozen::{intern, Frozen};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

fn kind(k: &str) -> &'static Kind {
    Kind::by_kind(k).expect("built-in kind")
}

/// How often a pod in `ImagePullBackOff` tries its image again (the kubelet's back-off grows
/// from 10 s to 5 min; a fixed period keeps the lab simple).
pub const IMAGE_PULL_RETRY: Duration = Duration::from_secs(20);

/// How fast the kubelets work, and which images fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubeletConfig {
    /// From binding to the first status (`ContainerCreating`).
    pub create_delay: Duration,
    /// From `ContainerCreating` to Running and Ready.
    pub start_delay: Duration,
    /// How long a container that exits on SIGTERM takes to stop (nginx: well under a second;
    /// with the kubelet's own work the pod is gone about a second after its deletion).
    pub stop_delay: Duration,
    /// Images (by repository name, any registry and tag) whose containers ignore SIGTERM and are
    /// killed when the grace period ends: `busybox` by default, whose `sleep` runs as PID 1.
    pub ignore_sigterm: BTreeSet<String>,
    /// Images that cannot be pulled (the pod never becomes ready).
    pub failing_images: BTreeSet<String>,
    /// Every delay is multiplied by this (the "slow kubelets" fault); 1 is normal speed.
    pub slowdown: u32,
}

impl Default for KubeletConfig {
    fn default() -> Self {
        KubeletConfig {
            create_delay: Duration::from_millis(500),
            start_delay: Duration::from_secs(2),
            stop_delay: Duration::from_secs(1),
            ignore_sigterm: BTreeSet::from(["busybox".to_string()]),
            failing_images: BTreeSet::new(),
            slowdown: 1,
        }
    }
}

/// The kubelets.
#[derive(Clone, Debug, Default)]
pub struct Kubelet {
    /// Settings (kept across restarts: they describe the nodes, not the process's memory).
    pub config: KubeletConfig,
    /// When each pod was first seen bound (lost on restart).
    seen: BTreeMap<String, Time>,
    /// Pod IPs handed out per node.
    next_ip: BTreeMap<String, u32>,
    /// When the kubelet began to stop each deleted pod (sent SIGTERM; lost on restart, when the
    /// new kubelet stops the pod again).
    killing: BTreeMap<String, Time>,
}

impl Kubelet {
    /// Kubelets with the given settings.
    pub fn new(config: KubeletConfig) -> Kubelet {
        Kubelet { config, ..Kubelet::default() }
    }

    /// When the pod under `key` was first seen bound, `now` if this is the first time (a key is
    /// copied only then).
    fn first_seen(&mut self, key: &str, now: Time) -> Time {
        match self.seen.get(key) {
            Some(t) => *t,
            None => {
                self.seen.insert(key.to_string(), now);
                now
            }
        }
    }

    fn scaled(&self, d: Duration) -> Duration {
        d * self.config.slowdown.max(1)
    }

    fn node_index(node: &str) -> u32 {
        node.rsplit('-').next().and_then(|n| n.parse().ok()).unwrap_or(0)
    }
}

impl KubeletConfig {
    /// How long a container of this image takes to exit after SIGTERM; `None` when it ignores
    /// SIGTERM and runs until the grace period ends (then SIGKILL).
    pub fn sigterm_exit(&self, image: &str) -> Option<Duration> {
        let full = normalize_image(image);
        let path = full.split(['@']).next().unwrap_or(&full);
        let repo = path.rsplit_once(':').filter(|(_, tag)| !tag.contains('/')).map_or(path, |(r, _)| r);
        let name = repo.rsplit('/').next().unwrap_or(repo);
        if self.ignore_sigterm.contains(name) {
            None
        } else {
            Some(self.stop_delay)
        }
    }
}

fn containers(pod: &impl Json) -> Vec<(String, String)> {
    pod.at("/spec/containers")
        .and_then(Json::items)
        .map(|cs| cs.iter().map(|c| (str_at(c, "/name").to_string(), str_at(c, "/image").to_string())).collect())
        .unwrap_or_default()
}

/// Docker Hub normalisation, as container runtimes report `image`: `nginx` →
/// `docker.io/library/nginx:latest`.
pub fn normalize_image(image: &str) -> String {
    let (name, tagged) = match image.rsplit_once('/') {
        Some((_, last)) => (image.to_string(), last.contains(':') || last.contains('@')),
        None => (image.to_string(), image.contains(':') || image.contains('@')),
    };
    let with_repo = match name.split_once('/') {
        None => format!("docker.io/library/{name}"),
        Some((host, _)) if host.contains('.') || host.contains(':') || host == "localhost" => name,
        Some(_) => format!("docker.io/{name}"),
    };
    if tagged {
        with_repo
    } else {
        format!("{with_repo}:latest")
    }
}

/// An integer node.
fn int(n: i64) -> Frozen {
    u64::try_from(n).map_or(Frozen::NegInt(n), Frozen::PosInt)
}

/// An array node.
fn array(items: Vec<Frozen>) -> Frozen {
    Frozen::Array(items.into())
}

/// `{"ip": ip}` lists (`hostIPs`, `podIPs`).
fn ips(ip: Frozen) -> Frozen {
    array(vec![Frozen::object([("ip", ip)])])
}

/// A pod condition in the order Go marshals `PodCondition`. `generation`: the pod's
/// `metadata.generation` the kubelet computed it from, as `observedGeneration` after `type`
/// (`PodObservedGenerationTracking`, beta and on by default in 1.34: pkg/features/kube_features.go);
/// 0 for none (the scheduler's `PodScheduled`). `t`: its `lastTransitionTime`.
fn cond(ctype: &str, generation: i64, status: &str, t: Frozen, reason: Option<&str>, message: Option<&str>) -> Frozen {
    let mut c = Vec::with_capacity(7);
    c.push(("type", Frozen::string(ctype)));
    if generation > 0 {
        c.push(("observedGeneration", int(generation)));
    }
    c.push(("status", Frozen::string(status)));
    c.push(("lastProbeTime", Frozen::Null));
    c.push(("lastTransitionTime", t));
    if let Some(r) = reason {
        c.push(("reason", Frozen::string(r)));
    }
    if let Some(m) = message {
        c.push(("message", Frozen::string(m)));
    }
    Frozen::object(c)
}

/// The `lastTransitionTime` of a condition of type `ctype` going to `status` at `t`: the old
/// one's when its status does not change.
fn transition(old: &Frozen, ctype: &str, status: &str, t: &Frozen) -> Frozen {
    match pod_condition(old, ctype) {
        Some(prev) if prev.get("status").and_then(Frozen::as_str) == Some(status) => {
            prev.get("lastTransitionTime").cloned().unwrap_or_default()
        }
        _ => t.clone(),
    }
}

/// A kubelet-owned condition: [`cond`] with the pod's generation and [`transition`]'s time.
fn owned_cond(
    pod: &Frozen,
    ctype: &str,
    status: &str,
    t: &Frozen,
    reason: Option<&str>,
    message: Option<&str>,
) -> Frozen {
    cond(ctype, pod.generation(), status, transition(pod, ctype, status, t), reason, message)
}

/// `obj` (an object, or `null` for an empty one) with each of `fields` set: in place, or added
/// last (as `serde_json`'s `obj[key] = value`), in one copy of its entries. Anything else is
/// returned as it is.
fn set(obj: &Frozen, fields: Vec<(&str, Frozen)>) -> Frozen {
    let mut entries = match obj {
        Frozen::Null => Vec::with_capacity(fields.len()),
        Frozen::Object(o) => {
            let mut entries = Vec::with_capacity(o.len() + fields.len());
            entries.extend(o.entries().iter().cloned());
            entries
        }
        other => return other.clone(),
    };
    for (key, value) in fields {
        match entries.iter_mut().find(|(k, _)| &**k == key) {
            Some(entry) => entry.1 = value,
            None => entries.push((intern(key), value)),
        }
    }
    Frozen::from_entries(entries)
}

impl Kubelet {
    /// The status a kubelet writes; `state` is `creating`, `pull-error`, `backoff` or `running`.
    /// Built as the stored tree directly, in the order Go marshals `PodStatus`.
    fn status(&mut self, pod: &Frozen, state: &str, now: Time) -> Frozen {
        let t = Frozen::string(&now.rfc3339());
        let node = str_at(pod, "/spec/nodeName").to_string();
        let idx = Self::node_index(&node);
        let start = pod.pointer("/status/startTime").filter(|s| s.is_string()).cloned().unwrap_or_else(|| t.clone());
        let cs = containers(pod);
        let names: Vec<&str> = cs.iter().map(|(n, _)| n.as_str()).collect();
        let unready = format!("containers with unready status: [{}]", names.join(" "));
        let running = state == "running";
        let ready_s = if running { "True" } else { "False" };
        let (r_reason, r_msg) =
            if running { (None, None) } else { (Some("ContainersNotReady"), Some(unready.as_str())) };
        let sandbox = if state == "creating" { "False" } else { "True" };
        let sched_t = pod_condition(pod, "PodScheduled")
            .and_then(|c| c.get("lastTransitionTime"))
            .filter(|t| t.is_string())
            .cloned()
            .unwrap_or_else(|| t.clone());
        let g = pod.generation();
        let conditions = vec![
            owned_cond(pod, "PodReadyToStartContainers", sandbox, &t, None, None),
            owned_cond(pod, "Initialized", "True", &t, None, None),
            owned_cond(pod, "Ready", ready_s, &t, r_reason, r_msg),
            owned_cond(pod, "ContainersReady", ready_s, &t, r_reason, r_msg),
            cond("PodScheduled", 0, "True", sched_t, None, None),
        ];
        let statuses: Vec<Frozen> = cs
            .iter()
            .enumerate()
            .map(|(i, (name, image))| {
                let full = normalize_image(image);
                let waiting = |reason: &str, message: Option<String>| {
                    let mut w = vec![("reason", Frozen::string(reason))];
                    if let Some(m) = message {
                        w.push(("message", Frozen::string(&m)));
                    }
                    Frozen::object([("waiting", Frozen::object(w))])
                };
                let state_v = match state {
                    "running" => Frozen::object([("running", Frozen::object([("startedAt", t.clone())]))]),
                    "pull-error" => {
                        waiting("ErrImagePull", Some(format!("failed to pull and unpack image \"{full}\": not found")))
                    }
                    "backoff" => waiting("ImagePullBackOff", Some(format!("Back-off pulling image \"{image}\""))),
                    _ => waiting("ContainerCreating", None),
                };
                let mut s = Vec::with_capacity(9);
                s.push(("name", Frozen::string(name)));
                s.push(("state", state_v));
                s.push(("lastState", Frozen::object(Vec::new())));
                s.push(("ready", Frozen::Bool(running)));
                s.push(("restartCount", int(0)));
                s.push(("image", Frozen::string(if running { &full } else { image })));
                let image_id = if running { format!("{full}@sha256:{:064x}", i + 1) } else { String::new() };
                s.push(("imageID", Frozen::string(&image_id)));
                if running {
                    let uid: String = pod.uid().chars().filter(char::is_ascii_hexdigit).collect();
                    s.push(("containerID", Frozen::string(&format!("containerd://{uid}{i:0>32}"))));
                }
                s.push(("started", Frozen::Bool(running)));
                Frozen::object(s)
            })
            .collect();
        let mut st = Vec::with_capacity(10);
        if g > 0 {
            st.push(("observedGeneration", int(g)));
        }
        st.push(("phase", Frozen::string(if running { "Running" } else { "Pending" })));
        st.push(("conditions", array(conditions)));
        let host_ip = Frozen::string(&format!("10.0.0.{}", 10 + idx));
        st.push(("hostIP", host_ip.clone()));
        st.push(("hostIPs", ips(host_ip)));
        if running {
            let ip = match pod.pointer("/status/podIP").filter(|ip| ip.is_string()) {
                Some(ip) => ip.clone(),
                None => {
                    let n = self.next_ip.entry(node.clone()).or_insert(1);
                    *n += 1;
                    Frozen::string(&format!("10.244.{idx}.{}", *n))
                }
            };
            st.push(("podIP", ip.clone()));
            st.push(("podIPs", ips(ip)));
        }
        st.push(("startTime", start));
        st.push(("containerStatuses", array(statuses)));
        st.push(("qosClass", Frozen::string("BestEffort")));
        Frozen::object(st)
    }

    /// The terminal status the kubelet writes once every container has stopped
    /// (`generateAPIPodStatus` with `podIsTerminal`, then the status manager's `TerminatePod`):
    /// each container `terminated` with its exit code (`killed`: SIGKILL at the end of the grace
    /// period), one that never ran `ContainerStatusUnknown`; `Ready` and `ContainersReady`
    /// `False` with `PodCompleted` or `PodFailed` (status/generate.go
    /// `generateContainersReadyConditionForTerminalPhase`); the sandbox gone; phase `Succeeded`
    /// when every container exited 0, else `Failed`. Built on the pod's status tree: what it
    /// does not change stays the stored nodes.
    fn terminal_status(pod: &Frozen, killed: bool, now: Time) -> Frozen {
        let t = Frozen::string(&now.rfc3339());
        // `null` for none: `set` makes an object of it.
        let old = pod.get("status").filter(|s| s.is_object()).cloned().unwrap_or_default();
        let list = |field: &str| old.get(field).and_then(Frozen::as_array).unwrap_or_default();
        let mut all_zero = true;
        let statuses: Vec<Frozen> = list("containerStatuses")
            .iter()
            .map(|c| {
                let terminated = match c.pointer("/state/running/startedAt").filter(|s| s.is_string()) {
                    Some(started) => {
                        let (code, reason) = if killed { (137, "Error") } else { (0, "Completed") };
                        all_zero &= code == 0;
                        let mut term = Vec::with_capacity(5);
                        term.push(("exitCode", int(code)));
                        term.push(("reason", Frozen::string(reason)));
                        term.push(("startedAt", started.clone()));
                        term.push(("finishedAt", t.clone()));
                        if let Some(id) = c.get("containerID") {
                            term.push(("containerID", id.clone()));
                        }
                        Frozen::object(term)
                    }
                    None => {
                        all_zero = false;
                        Frozen::object(vec![
                            ("exitCode", int(137)),
                            ("reason", Frozen::string("ContainerStatusUnknown")),
                            (
                                "message",
                                Frozen::string("The container could not be located when the pod was terminated"),
                            ),
                        ])
                    }
                };
                set(
                    c,
                    vec![
                        ("state", Frozen::object([("terminated", terminated)])),
                        ("ready", Frozen::Bool(false)),
                        ("started", Frozen::Bool(false)),
                    ],
                )
            })
            .collect();
        let phase = if all_zero && !statuses.is_empty() { "Succeeded" } else { "Failed" };
        let reason = if phase == "Succeeded" { "PodCompleted" } else { "PodFailed" };
        let conditions: Vec<Frozen> = list("conditions")
            .iter()
            .map(|c| match c.get("type").and_then(Frozen::as_str).unwrap_or("") {
                "PodReadyToStartContainers" => owned_cond(pod, "PodReadyToStartContainers", "False", &t, None, None),
                ctype @ ("Ready" | "ContainersReady") => owned_cond(pod, ctype, "False", &t, Some(reason), None),
                _ => c.clone(),
            })
            .collect();
        let g = pod.generation();
        let mut fields = Vec::with_capacity(4);
        if g > 0 {
            fields.push(("observedGeneration", int(g)));
        }
        fields.push(("phase", Frozen::string(phase)));
        fields.push(("conditions", array(conditions)));
        fields.push(("containerStatuses", array(statuses)));
        set(&old, fields)
    }

    /// A deleted pod: SIGTERM (a `Killing` event per running container), wait for the containers
    /// to exit (or the grace period to end), write the terminal status, then delete the pod for
    /// good (the status manager's `syncPod`: `canBeDeleted`, then DELETE with grace period 0 and
    /// a uid precondition).
    fn stop(&mut self, key: &str, pod: &Frozen, grace_end: Time, ctx: &mut Ctx<'_>) -> Outcome {
        let now = ctx.now;
        let running: Vec<(String, String)> = pod
            .pointer("/status/containerStatuses")
            .and_then(Frozen::as_array)
            .map(|cs| {
                cs.iter()
                    .filter(|c| c.pointer("/state/running").is_some())
                    .map(|c| {
                        let name = str_at(c, "/name").to_string();
                        let image = containers(pod).into_iter().find(|(n, _)| *n == name).map(|(_, i)| i);
                        (name, image.unwrap_or_default())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let started = match self.killing.get(key) {
            Some(t) => *t,
            None => {
                self.killing.insert(key.to_string(), now);
                // killContainer: "Stopping container <name>" (reason Killing), before SIGTERM.
                for (name, _) in &running {
                    ctx.event("kubelet", pod, "Normal", "Killing", &format!("Stopping container {name}"));
                }
                now
            }
        };
        // Every container has exited once the slowest has; one that ignores SIGTERM is killed
        // when the grace period ends.
        let mut exit_at = started;
        let mut killed = false;
        for (_, image) in &running {
            let at = match self.config.sigterm_exit(image) {
                Some(d) => started.after(self.scaled(d)),
                None => grace_end,
            };
            if at >= grace_end {
                killed = true;
            }
            exit_at = exit_at.max(at.min(grace_end));
        }
        if now < exit_at {
            return Outcome::RequeueAfter(exit_at.since(now));
        }
        let terminal = matches!(str_at(pod, "/status/phase"), "Succeeded" | "Failed");
        if !terminal {
            // A pod the kubelet never wrote a status for gets the one it would have generated.
            let status = if pod.pointer("/status/containerStatuses").is_none() {
                let generated = self.status(pod, "creating", now);
                let generated = set(pod, vec![("status", generated)]);
                Self::terminal_status(&generated, killed, now)
            } else {
                Self::terminal_status(pod, killed, now)
            };
            if let Err(e) = ctx.api.update_status_of(pod, status) {
                return if e.code() == 404 { Outcome::Done } else { Outcome::Err(e.message) };
            }
        }
        let opts = DeleteOpts {
            grace_period_seconds: Some(0),
            precondition_uid: Some(pod.uid().to_string()),
            ..DeleteOpts::default()
        };
        match ctx.api.delete(kind("Pod"), pod.namespace(), pod.name(), &opts) {
            Ok(_) => Outcome::Done,
            Err(e) if e.code() == 404 || e.code() == 409 => Outcome::Done,
            Err(e) => Outcome::Err(e.message),
        }
    }

    fn write_status(&mut self, pod: &Frozen, state: &str, ctx: &mut Ctx<'_>) -> Result<(), String> {
        let status = self.status(pod, state, ctx.now);
        ctx.api.update_status_of(pod, status).map_err(|e| e.message)?;
        // The container events the kubelet records on the pod (k/k `pkg/kubelet/images/
        // image_manager.go`, `kuberuntime/kuberuntime_container.go`).
        let pull = self.scaled(self.config.start_delay);
        for (name, image) in containers(pod) {
            match state {
                "creating" => ctx.event("kubelet", pod, "Normal", "Pulling", &format!("Pulling image \"{image}\"")),
                "running" => {
                    let d = go_duration(pull);
                    let size = image_size(&image);
                    let pulled = format!("Successfully pulled image \"{image}\" in {d} ({d} including waiting). Image size: {size} bytes.");
                    ctx.event("kubelet", pod, "Normal", "Pulled", &pulled);
                    ctx.event("kubelet", pod, "Normal", "Created", &format!("Created container: {name}"));
                    ctx.event("kubelet", pod, "Normal", "Started", &format!("Started container {name}"));
                }
                "pull-error" => ctx.event("kubelet", pod, "Warning", "Failed", "Error: ErrImagePull"),
                "backoff" => ctx.event("kubelet", pod, "Warning", "Failed", "Error: ImagePullBackOff"),
                _ => {}
            }
        }
        Ok(())
    }
}

/// Go's `time.Duration.String()` for the durations the kubelet prints: `500ms`, `2s`, `1.5s`, `2m0s`.
pub fn go_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let (m, rest_ms) = (ms / 60_000, ms % 60_000);
    let secs = if rest_ms % 1000 == 0 {
        format!("{}s", rest_ms / 1000)
    } else {
        let frac = format!("{:03}", rest_ms % 1000);
        format!("{}.{}s", rest_ms / 1000, frac.trim_end_matches('0'))
    };
    if m == 0 {
        secs
    } else {
        format!("{m}m{secs}")
    }
}

/// A stable, plausible image size in bytes (the lab has no registry to ask).
fn image_size(image: &str) -> u64 {
    let h = image.bytes().fold(2_166_136_261u32, |h, b| (h ^ u32::from(b)).wrapping_mul(16_777_619));
    40_000_000 + u64::from(h % 40_000_000)
}

fn waiting_reason(pod: &impl Json) -> Option<&str> {
    pod.at("/status/containerStatuses/0/state/waiting/reason").and_then(Json::text)
}

impl Controller for Kubelet {
    fn name(&self) -> &'static str {
        "kubelet"
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static W: std::sync::OnceLock<[&'static Kind; 1]> = std::sync::OnceLock::new();
        W.get_or_init(|| [kind("Pod")])
    }

    fn handle(&mut self, _k: &'static Kind, n: &ResourceEvent, _cache: &Caches, now: Time) -> Vec<Enqueue> {
        match n {
            ResourceEvent::Add(p) | ResourceEvent::Update(_, p) => {
                if str_at(&**p, "/spec/nodeName").is_empty() {
                    return Vec::new();
                }
                if let ResourceEvent::Update(old, new) = n {
                    // Our own status writes and resyncs need no new work; a new deletionTimestamp does.
                    if old.is_deleting() == new.is_deleting() && !str_at(&**old, "/spec/nodeName").is_empty() {
                        return Vec::new();
                    }
                }
                let key = p.key();
                self.first_seen(&key, now);
                vec![Enqueue::Now(key)]
            }
            ResourceEvent::Delete { obj, .. } => {
                let key = obj.key();
                self.seen.remove(key.as_str());
                self.killing.remove(key.as_str());
                Vec::new()
            }
        }
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        // Read from the cache's shared tree; only a status write copies the pod (client-go's
        // `DeepCopy` before a change).
        let cache = ctx.cache;
        let Some(pod) = cache.get(kind("Pod"), key) else { return Outcome::Done };
        if str_at(pod, "/spec/nodeName").is_empty() {
            return Outcome::Done;
        }
        let now = ctx.now;
        // deletionTimestamp = time of the DELETE + grace period: when SIGKILL comes.
        if let Some(grace_end) = pod.deletion_timestamp().and_then(Time::parse_rfc3339) {
            return self.stop(key, pod, grace_end, ctx);
        }
        let seen = self.first_seen(key, now);
        let result = match waiting_reason(pod) {
            _ if str_at(pod, "/status/phase") == "Running" => return Outcome::Done,
            None if pod.pointer("/status/startTime").is_none() => {
                let due = seen.after(self.scaled(self.config.create_delay));
                if now < due {
                    return Outcome::RequeueAfter(due.since(now));
                }
                self.write_status(pod, "creating", ctx).map(|()| Some(self.scaled(self.config.start_delay)))
            }
            Some("ContainerCreating") | None => {
                let started = str_at(pod, "/status/startTime");
                let due = Time::parse_rfc3339(started).unwrap_or(now).after(self.scaled(self.config.start_delay));
                if now < due {
                    return Outcome::RequeueAfter(due.since(now));
                }
                let fails = containers(pod).iter().any(|(_, i)| self.config.failing_images.contains(i));
                if fails {
                    let image = containers(pod).into_iter().find(|(_, i)| self.config.failing_images.contains(i));
                    let image = image.map(|(_, i)| i).unwrap_or_default();
                    let msg = format!(
                        "Failed to pull image \"{image}\": failed to pull and unpack image \"{}\": not found",
                        normalize_image(&image)
                    );
                    ctx.event("kubelet", pod, "Warning", "Failed", &msg);
                    self.write_status(pod, "pull-error", ctx).map(|()| Some(self.scaled(Duration::from_secs(5))))
                } else {
                    self.write_status(pod, "running", ctx).map(|()| None)
                }
            }
            Some("ErrImagePull") => {
                let image = containers(pod).into_iter().find(|(_, i)| self.config.failing_images.contains(i));
                match image {
                    Some((_, image)) => {
                        ctx.event("kubelet", pod, "Normal", "BackOff", &format!("Back-off pulling image \"{image}\""));
                        if let Err(e) = self.write_status(pod, "backoff", ctx) {
                            return Outcome::Err(e);
                        }
                        return Outcome::CheckAfter(self.scaled(IMAGE_PULL_RETRY));
                    }
                    // The image was fixed meanwhile: start.
                    None => self.write_status(pod, "running", ctx).map(|()| None),
                }
            }
            Some(_) => {
                let fails = containers(pod).iter().any(|(_, i)| self.config.failing_images.contains(i));
                if fails {
                    // The image pull back-off: try again later (counted as periodic work).
                    return Outcome::CheckAfter(self.scaled(IMAGE_PULL_RETRY));
                } else {
                    self.write_status(pod, "running", ctx).map(|()| None)
                }
            }
        };
        match result {
            Ok(Some(d)) => Outcome::RequeueAfter(d),
            Ok(None) => Outcome::Done,
            Err(e) => Outcome::Err(e),
        }
    }

    fn boxed_clone(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn restarted(&self) -> Box<dyn Controller> {
        Box::new(Kubelet::new(self.config.clone()))
    }

    /// A failed sync is tried again after the pod worker's back-off, and never given up.
    fn rate_limiter(&self) -> crate::engine::client::RateLimiter<String> {
        crate::engine::client::RateLimiter::kubelet_pod_worker()
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeApi;
    use super::*;
    use crate::engine::object::share;
    use serde_json::{json, Value};

    #[test]
    fn durations_print_like_go() {
        assert_eq!(go_duration(Duration::from_millis(500)), "500ms");
        assert_eq!(go_duration(Duration::from_secs(2)), "2s");
        assert_eq!(go_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(go_duration(Duration::from_secs(120)), "2m0s");
        assert_eq!(go_duration(Duration::from_millis(61_250)), "1m1.25s");
    }

    #[test]
    fn images_normalise_like_containerd() {
        assert_eq!(normalize_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(normalize_image("nginx:1.27"), "docker.io/library/nginx:1.27");
        assert_eq!(normalize_image("bitnami/nginx"), "docker.io/bitnami/nginx:latest");
        assert_eq!(normalize_image("registry.k8s.io/pause:3.10"), "registry.k8s.io/pause:3.10");
    }

    #[test]
    fn a_bound_pod_goes_creating_then_running() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "abc", "generation": 1},
            "spec": {"nodeName": "node-2", "containers": [{"name": "web", "image": "nginx"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": null,
                        "lastTransitionTime": Time::START.rfc3339()}]}});
        let mut k = Kubelet::new(KubeletConfig::default());
        let mut api = FakeApi::default();
        let mut cache = Caches::default();
        cache.insert(pod.clone());
        assert_eq!(k.handle(kind("Pod"), &ResourceEvent::Add(share(&pod)), &cache, Time::START).len(), 1);
        let mut seq = 0;
        let mut ctx = Ctx { now: Time::START, cache: &cache, api: &mut api, event_seq: &mut seq };
        assert_eq!(k.reconcile("default/p", &mut ctx), Outcome::RequeueAfter(Duration::from_millis(500)));
        let t1 = Time::START.after(Duration::from_millis(500));
        let mut ctx = Ctx { now: t1, cache: &cache, api: &mut api, event_seq: &mut seq };
        assert_eq!(k.reconcile("default/p", &mut ctx), Outcome::RequeueAfter(Duration::from_secs(2)));
        let creating = api.objects.values().find(|o| o.kind() == "Pod").unwrap().clone();
        assert_eq!(waiting_reason(&creating), Some("ContainerCreating"));
        assert_eq!(creating["status"]["conditions"][2]["message"], "containers with unready status: [web]");
        let mut cache2 = Caches::default();
        cache2.insert(creating.clone());
        let t2 = t1.after(Duration::from_secs(2));
        let mut ctx = Ctx { now: t2, cache: &cache2, api: &mut api, event_seq: &mut seq };
        assert_eq!(k.reconcile("default/p", &mut ctx), Outcome::Done);
        let running = api.objects.values().find(|o| o.kind() == "Pod").unwrap();
        assert_eq!(running["status"]["phase"], "Running");
        assert_eq!(running["status"]["podIP"], "10.244.2.2");
        assert!(super::super::util::is_pod_ready(running));
        assert_eq!(running["status"]["conditions"][4]["lastTransitionTime"], Time::START.rfc3339());
        // PodObservedGenerationTracking (beta, on in 1.34): the status and each condition the
        // kubelet owns name the generation they were computed from; PodScheduled, the scheduler's, is
        // left as the scheduler wrote it.
        assert_eq!(running["status"]["observedGeneration"], 1);
        let observed: Vec<(&str, &Value)> = running["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["type"].as_str().unwrap(), &c["observedGeneration"]))
            .collect();
        assert!(
            observed.iter().all(|(t, g)| if *t == "PodScheduled" { g.is_null() } else { **g == 1 }),
            "{observed:?}"
        );
        let mut events = api.events();
        crate::sort::sort(&mut events);
        assert_eq!(
            events,
            vec![
                "Created Created container: web".to_string(),
                "Pulled Successfully pulled image \"nginx\" in 2s (2s including waiting). Image size: 51612879 bytes."
                    .into(),
                "Pulling Pulling image \"nginx\"".into(),
                "Started Started container web".into(),
            ]
        );
    }
    fn running_pod(image: &str, deleted_at: Time, grace: u64) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "uid": "abc", "generation": 1,
                "deletionTimestamp": deleted_at.after(Duration::from_secs(grace)).rfc3339(),
                "deletionGracePeriodSeconds": grace},
            "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": image}]},
            "status": {"phase": "Running",
                "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": Time::START.rfc3339()}],
                "containerStatuses": [{"name": "web", "state": {"running": {"startedAt": Time::START.rfc3339()}},
                    "ready": true, "restartCount": 0, "started": true, "containerID": "containerd://1"}]}})
    }

    fn stop_run(image: &str, grace: u64) -> (Vec<(u64, Outcome)>, FakeApi) {
        let t0 = Time::START.after(Duration::from_secs(60));
        let pod = running_pod(image, t0, grace);
        let mut k = Kubelet::new(KubeletConfig::default());
        let mut api = FakeApi::default();
        api.put(pod.clone());
        let mut cache = Caches::default();
        cache.insert(pod);
        let mut seq = 0;
        let mut now = t0;
        let mut outcomes = Vec::new();
        loop {
            let mut ctx = Ctx { now, cache: &cache, api: &mut api, event_seq: &mut seq };
            let out = k.reconcile("default/p", &mut ctx);
            outcomes.push((now.since(t0).as_millis() as u64, out.clone()));
            match out {
                Outcome::RequeueAfter(d) => now = now.after(d),
                _ => break,
            }
        }
        (outcomes, api)
    }

    /// SyncTerminatingPod: a Killing event at once, nginx exits on SIGTERM (a second), then the
    /// terminal status (Succeeded, Completed, not Ready) and only then the DELETE.
    #[test]
    fn a_deleted_pod_stops_then_goes() {
        let (outcomes, api) = stop_run("nginx:1.27", 30);
        assert_eq!(outcomes, vec![(0, Outcome::RequeueAfter(Duration::from_secs(1))), (1000, Outcome::Done)]);
        assert_eq!(api.events(), vec!["Killing Stopping container web".to_string()]);
        assert_eq!(api.calls, vec!["update_status Pod p", "delete Pod p"]);
        let (outcomes, _) = stop_run("busybox:1.36", 30);
        assert_eq!(outcomes, vec![(0, Outcome::RequeueAfter(Duration::from_secs(30))), (30_000, Outcome::Done)]);
    }

    /// Every status the kubelet builds, of a pod as the API server stores it, is already in the
    /// form a status write stores ([`schema::is_canonical`]), so the write stores the tree as
    /// it is ([`crate::engine::apiserver::ApiServer::update_status_of`]) instead of going the
    /// general way through a `Value`.
    #[test]
    fn the_statuses_written_are_stored_as_built() {
        use crate::engine::apiserver::{schema, ApiServer};
        let status_schema = schema::field_struct(schema::root(kind("Pod")), "status").expect("PodStatus");
        let mut server = ApiServer::new(1);
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "web", "image": "nginx"}, {"name": "side", "image": "busybox:1.36"}]}});
        server.create(pod).expect("create");
        let bound = server.bind("default", "p", "node-1").expect("bind");
        let mut k = Kubelet::new(KubeletConfig::default());
        let mut pod = (*bound).clone();
        for state in ["creating", "pull-error", "backoff", "running"] {
            let status = k.status(&pod, state, Time::START);
            assert!(schema::is_canonical(&status, status_schema), "{state}: {status}");
            pod = set(&pod, vec![("status", status)]);
        }
        for killed in [false, true] {
            let status = Kubelet::terminal_status(&pod, killed, Time::START);
            assert!(schema::is_canonical(&status, status_schema), "terminal: {status}");
        }
        // A status that is not: a defaulted field left out (`lastProbeTime` of a condition).
        let status = k.status(&pod, "running", Time::START);
        let conditions = status["conditions"].as_array().expect("conditions");
        let mut first: Vec<(&str, Frozen)> =
            conditions[0].as_object().expect("condition").iter().map(|(k, v)| (k, v.clone())).collect();
        first.retain(|(k, _)| *k != "lastProbeTime");
        let broken = set(&status, vec![("conditions", array(vec![Frozen::object(first)]))]);
        assert!(!schema::is_canonical(&broken, status_schema));
    }

    #[test]
    fn terminal_status_reports_how_containers_ended() {
        let pod = Frozen::from(&running_pod("nginx", Time::START, 30));
        let t = Time::START.after(Duration::from_secs(1));
        let done = Kubelet::terminal_status(&pod, false, t).to_value();
        assert_eq!(done["phase"], "Succeeded");
        assert_eq!(done["observedGeneration"], 1);
        assert_eq!(done["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
        assert_eq!(done["containerStatuses"][0]["ready"], false);
        assert_eq!(done["conditions"][0]["reason"], "PodCompleted");
        assert_eq!(done["conditions"][0]["status"], "False");
        let killed = Kubelet::terminal_status(&pod, true, t).to_value();
        assert_eq!(killed["phase"], "Failed");
        assert_eq!(killed["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
        assert_eq!(killed["containerStatuses"][0]["state"]["terminated"]["reason"], "Error");
        assert_eq!(killed["conditions"][0]["reason"], "PodFailed");
        let config = KubeletConfig::default();
        assert_eq!(config.sigterm_exit("docker.io/library/busybox:1.36"), None);
        assert_eq!(config.sigterm_exit("busybox"), None);
        assert_eq!(config.sigterm_exit("nginx"), Some(Duration::from_secs(1)));
    }
}
