//! The kubelets of the cluster's nodes, as one agent that acts for each pod's node (records name
//! the node). A bound pod goes Pending (`ContainerCreating`) after [`KubeletConfig::create_delay`],
//! then Running and Ready after [`KubeletConfig::start_delay`]; an image marked as failing never
//! starts (`ErrImagePull`, then `ImagePullBackOff`). A pod with a `deletionTimestamp` is stopped
//! and, once its grace period is over (or [`KubeletConfig::stop_after`], if shorter), deleted for
//! good with grace period 0 and a uid precondition, as the kubelet's status manager does
//! (kubernetes-semantics.md §3.5: graceful deletion).
//!
//! Status fields are written the way the kubelet writes them (k/k `pkg/kubelet/kubelet_pods.go`
//! `generateAPIPodStatus`, `status/generate.go`): the five pod conditions with
//! `ContainersNotReady` / `containers with unready status: [web]` while not ready, `hostIP`,
//! `podIP`, `startTime`, `qosClass`, and one `containerStatuses` entry per container.
//! Differences: no probes, no restarts, no container IDs from a real runtime (they are derived from
//! the pod uid).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::util::{pod_condition, str_at};
use super::{Caches, Controller, Ctx, DeleteOpts, Enqueue, Notification, Outcome};
use crate::engine::frozen::Frozen;
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
    /// How long containers take to stop after a graceful delete; `None`: the whole grace period.
    pub stop_after: Option<Duration>,
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
            stop_after: None,
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
}

impl Kubelet {
    /// Kubelets with the given settings.
    pub fn new(config: KubeletConfig) -> Kubelet {
        Kubelet { config, ..Kubelet::default() }
    }

    fn scaled(&self, d: Duration) -> Duration {
        d * self.config.slowdown.max(1)
    }

    fn node_index(node: &str) -> u32 {
        node.rsplit('-').next().and_then(|n| n.parse().ok()).unwrap_or(0)
    }
}

fn containers(pod: &Value) -> Vec<(String, String)> {
    pod.pointer("/spec/containers")
        .and_then(Value::as_array)
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

fn cond(ctype: &str, status: &str, t: &str, reason: Option<&str>, message: Option<&str>) -> Value {
    let mut c = Map::new();
    c.insert("type".into(), json!(ctype));
    c.insert("status".into(), json!(status));
    c.insert("lastProbeTime".into(), Value::Null);
    c.insert("lastTransitionTime".into(), json!(t));
    if let Some(r) = reason {
        c.insert("reason".into(), json!(r));
    }
    if let Some(m) = message {
        c.insert("message".into(), json!(m));
    }
    Value::Object(c)
}

/// Keeps a condition's `lastTransitionTime` when its status did not change.
fn keep_transition(old: &Value, mut c: Value) -> Value {
    if let Some(prev) = pod_condition(old, c["type"].as_str().unwrap_or("")) {
        if prev["status"] == c["status"] {
            c["lastTransitionTime"] = prev["lastTransitionTime"].clone();
        }
    }
    c
}

impl Kubelet {
    /// The status a kubelet writes; `state` is `creating`, `pull-error`, `backoff` or `running`.
    fn status(&mut self, pod: &Value, state: &str, now: Time) -> Value {
        let t = now.rfc3339();
        let node = str_at(pod, "/spec/nodeName").to_string();
        let idx = Self::node_index(&node);
        let start =
            pod.pointer("/status/startTime").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| t.clone());
        let cs = containers(pod);
        let names: Vec<&str> = cs.iter().map(|(n, _)| n.as_str()).collect();
        let unready = format!("containers with unready status: [{}]", names.join(" "));
        let running = state == "running";
        let ready_s = if running { "True" } else { "False" };
        let (r_reason, r_msg) =
            if running { (None, None) } else { (Some("ContainersNotReady"), Some(unready.as_str())) };
        let sandbox = if state == "creating" { "False" } else { "True" };
        let sched_t =
            pod_condition(pod, "PodScheduled").and_then(|c| c["lastTransitionTime"].as_str()).unwrap_or(&t).to_string();
        let conditions = vec![
            keep_transition(pod, cond("PodReadyToStartContainers", sandbox, &t, None, None)),
            keep_transition(pod, cond("Initialized", "True", &t, None, None)),
            keep_transition(pod, cond("Ready", ready_s, &t, r_reason, r_msg)),
            keep_transition(pod, cond("ContainersReady", ready_s, &t, r_reason, r_msg)),
            cond("PodScheduled", "True", &sched_t, None, None),
        ];
        let statuses: Vec<Value> = cs
            .iter()
            .enumerate()
            .map(|(i, (name, image))| {
                let full = normalize_image(image);
                let state_v = match state {
                    "running" => json!({"running": {"startedAt": t}}),
                    "pull-error" => json!({"waiting": {"reason": "ErrImagePull",
                        "message": format!("failed to pull and unpack image \"{full}\": not found")}}),
                    "backoff" => json!({"waiting": {"reason": "ImagePullBackOff",
                        "message": format!("Back-off pulling image \"{image}\"")}}),
                    _ => json!({"waiting": {"reason": "ContainerCreating"}}),
                };
                let mut s = Map::new();
                s.insert("name".into(), json!(name));
                s.insert("state".into(), state_v);
                s.insert("lastState".into(), json!({}));
                s.insert("ready".into(), json!(running));
                s.insert("restartCount".into(), json!(0));
                s.insert("image".into(), json!(if running { full.clone() } else { image.clone() }));
                s.insert(
                    "imageID".into(),
                    json!(if running { format!("{full}@sha256:{:064x}", i + 1) } else { String::new() }),
                );
                if running {
                    let uid: String = pod.uid().chars().filter(char::is_ascii_hexdigit).collect();
                    s.insert("containerID".into(), json!(format!("containerd://{uid}{i:0>32}")));
                }
                s.insert("started".into(), json!(running));
                Value::Object(s)
            })
            .collect();
        let mut st = Map::new();
        st.insert("phase".into(), json!(if running { "Running" } else { "Pending" }));
        st.insert("conditions".into(), Value::Array(conditions));
        let host_ip = format!("10.0.0.{}", 10 + idx);
        st.insert("hostIP".into(), json!(host_ip));
        st.insert("hostIPs".into(), json!([{"ip": host_ip}]));
        if running {
            let ip = match pod.pointer("/status/podIP").and_then(Value::as_str) {
                Some(ip) => ip.to_string(),
                None => {
                    let n = self.next_ip.entry(node.clone()).or_insert(1);
                    *n += 1;
                    format!("10.244.{idx}.{}", *n)
                }
            };
            st.insert("podIP".into(), json!(ip));
            st.insert("podIPs".into(), json!([{"ip": ip}]));
        }
        st.insert("startTime".into(), json!(start));
        st.insert("containerStatuses".into(), Value::Array(statuses));
        st.insert("qosClass".into(), json!("BestEffort"));
        Value::Object(st)
    }

    /// Writes the pod's status for `state` (the pod, a copy of the cached one, is consumed by
    /// the write), then records the container events.
    fn write_status(&mut self, mut pod: Value, state: &str, ctx: &mut Ctx<'_>) -> Result<(), String> {
        let status = self.status(&pod, state, ctx.now);
        let list = containers(&pod);
        // What the events name (their involvedObject): the pod as the kubelet read it.
        let involved = json!({"apiVersion": pod.api_version(), "kind": pod.kind(), "metadata": {
            "name": pod.name(), "namespace": pod.namespace(), "uid": pod.uid(),
            "resourceVersion": pod.resource_version().to_string()}});
        let involved = &involved;
        pod["status"] = status;
        ctx.api.update_status(pod).map_err(|e| e.message)?;
        // The container events the kubelet records on the pod (k/k `pkg/kubelet/images/
        // image_manager.go`, `kuberuntime/kuberuntime_container.go`).
        let pull = self.scaled(self.config.start_delay);
        for (name, image) in list {
            match state {
                "creating" => {
                    ctx.event("kubelet", involved, "Normal", "Pulling", &format!("Pulling image \"{image}\""))
                }
                "running" => {
                    let d = go_duration(pull);
                    let size = image_size(&image);
                    let pulled = format!("Successfully pulled image \"{image}\" in {d} ({d} including waiting). Image size: {size} bytes.");
                    ctx.event("kubelet", involved, "Normal", "Pulled", &pulled);
                    ctx.event("kubelet", involved, "Normal", "Created", &format!("Created container: {name}"));
                    ctx.event("kubelet", involved, "Normal", "Started", &format!("Started container {name}"));
                }
                "pull-error" => ctx.event("kubelet", involved, "Warning", "Failed", "Error: ErrImagePull"),
                "backoff" => ctx.event("kubelet", involved, "Warning", "Failed", "Error: ImagePullBackOff"),
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

fn waiting_reason(pod: &Value) -> Option<&str> {
    pod.pointer("/status/containerStatuses/0/state/waiting/reason").and_then(Value::as_str)
}

impl Controller for Kubelet {
    fn name(&self) -> &'static str {
        "kubelet"
    }

    fn watches(&self) -> &'static [&'static Kind] {
        static W: std::sync::OnceLock<[&'static Kind; 1]> = std::sync::OnceLock::new();
        W.get_or_init(|| [kind("Pod")])
    }

    fn handle(&mut self, _k: &'static Kind, n: &Notification, _cache: &Caches, now: Time) -> Vec<Enqueue> {
        match n {
            Notification::Add(p) | Notification::Update(_, p) => {
                if str_at(&**p, "/spec/nodeName").is_empty() {
                    return Vec::new();
                }
                if let Notification::Update(old, new) = n {
                    // Our own status writes and resyncs need no new work; a new deletionTimestamp does.
                    if old.is_deleting() == new.is_deleting() && !str_at(&**old, "/spec/nodeName").is_empty() {
                        return Vec::new();
                    }
                }
                self.seen.entry(p.key()).or_insert(now);
                vec![Enqueue::Now(p.key())]
            }
            Notification::Delete { obj, .. } => {
                self.seen.remove(&obj.key());
                Vec::new()
            }
        }
    }

    fn reconcile(&mut self, key: &str, ctx: &mut Ctx<'_>) -> Outcome {
        let Some(pod) = ctx.cache.get(kind("Pod"), key).map(Frozen::to_value) else { return Outcome::Done };
        if str_at(&pod, "/spec/nodeName").is_empty() {
            return Outcome::Done;
        }
        let now = ctx.now;
        if let Some(ts) = pod.deletion_timestamp().and_then(Time::parse_rfc3339) {
            // deletionTimestamp = time of the DELETE + grace period.
            let grace =
                pod.meta().and_then(|m| m.get("deletionGracePeriodSeconds")).and_then(Value::as_i64).unwrap_or(0);
            let deleted_at = Time(ts.millis().saturating_sub(grace.max(0) as u64 * 1000));
            let stop = match self.config.stop_after {
                Some(s) => deleted_at.after(self.scaled(s)).min(ts),
                None => ts,
            };
            if now < stop {
                return Outcome::RequeueAfter(stop.since(now));
            }
            let opts = DeleteOpts {
                grace_period_seconds: Some(0),
                precondition_uid: Some(pod.uid().to_string()),
                ..DeleteOpts::default()
            };
            return match ctx.api.delete(kind("Pod"), pod.namespace(), pod.name(), &opts) {
                Ok(_) => Outcome::Done,
                Err(e) if e.code() == 404 || e.code() == 409 => Outcome::Done,
                Err(e) => Outcome::Err(e.message),
            };
        }
        let seen = *self.seen.entry(key.to_string()).or_insert(now);
        let waiting = waiting_reason(&pod).map(str::to_string);
        let result = match waiting.as_deref() {
            _ if str_at(&pod, "/status/phase") == "Running" => return Outcome::Done,
            None if pod.pointer("/status/startTime").is_none() => {
                let due = seen.after(self.scaled(self.config.create_delay));
                if now < due {
                    return Outcome::RequeueAfter(due.since(now));
                }
                self.write_status(pod, "creating", ctx).map(|()| Some(self.scaled(self.config.start_delay)))
            }
            Some("ContainerCreating") | None => {
                let started = str_at(&pod, "/status/startTime");
                let due = Time::parse_rfc3339(started).unwrap_or(now).after(self.scaled(self.config.start_delay));
                if now < due {
                    return Outcome::RequeueAfter(due.since(now));
                }
                let fails = containers(&pod).iter().any(|(_, i)| self.config.failing_images.contains(i));
                if fails {
                    let image = containers(&pod).into_iter().find(|(_, i)| self.config.failing_images.contains(i));
                    let image = image.map(|(_, i)| i).unwrap_or_default();
                    let msg = format!(
                        "Failed to pull image \"{image}\": failed to pull and unpack image \"{}\": not found",
                        normalize_image(&image)
                    );
                    ctx.event("kubelet", &pod, "Warning", "Failed", &msg);
                    self.write_status(pod, "pull-error", ctx).map(|()| Some(self.scaled(Duration::from_secs(5))))
                } else {
                    self.write_status(pod, "running", ctx).map(|()| None)
                }
            }
            Some("ErrImagePull") => {
                let image = containers(&pod).into_iter().find(|(_, i)| self.config.failing_images.contains(i));
                match image {
                    Some((_, image)) => {
                        ctx.event("kubelet", &pod, "Normal", "BackOff", &format!("Back-off pulling image \"{image}\""));
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
                let fails = containers(&pod).iter().any(|(_, i)| self.config.failing_images.contains(i));
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

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::FakeApi;
    use super::*;
    use crate::engine::object::share;

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
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default", "uid": "abc"},
            "spec": {"nodeName": "node-2", "containers": [{"name": "web", "image": "nginx"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "True", "lastProbeTime": null,
                        "lastTransitionTime": Time::START.rfc3339()}]}});
        let mut k = Kubelet::new(KubeletConfig::default());
        let mut api = FakeApi::default();
        let mut cache = Caches::default();
        cache.insert(pod.clone());
        assert_eq!(k.handle(kind("Pod"), &Notification::Add(share(&pod)), &cache, Time::START).len(), 1);
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
}
