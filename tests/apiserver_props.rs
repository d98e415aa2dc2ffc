//! Property test: random creates, updates with random (sometimes stale) resourceVersions,
//! patches, deletes with random propagation policies and finalizer removals, while watches with
//! random start points and selectors run and are drained at random moments.
//!
//! Invariants checked:
//! - resourceVersions strictly increase (the global counter, and the events of every watch after
//!   its synthetic initial ADDED events);
//! - every watch sees each change at most once and in order, or ends with exactly one ERROR (410);
//! - replaying a watch's events onto its start state reproduces the store's current state as
//!   that watch sees it (its kind, namespace and selector);
//! - no call panics, whatever it is given.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

use std::collections::BTreeMap;

use proptest::prelude::*;
use reconcile_lab::engine::apiserver::{
    ApiServer, DeleteOptions, EventType, FieldSelector, Patch, Propagation, Subresource, WatchEvent, WatchFrom, WatchId,
};
use reconcile_lab::engine::frozen::Frozen;
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::ObjectExt;
use serde_json::{json, Value};

const KINDS: [&str; 2] = ["cm", "po"];
const NAMES: [&str; 4] = ["a", "b", "c", "d"];

#[derive(Clone, Debug)]
enum Op {
    Create { kind: usize, name: usize, app: bool, finalizer: bool },
    Update { kind: usize, name: usize, stale: u64, app: bool },
    MergeLabel { kind: usize, name: usize, app: bool, with_rv: Option<u64> },
    JsonPatchAnnotation { kind: usize, name: usize, value: u8 },
    AddFinalizer { kind: usize, name: usize },
    RemoveFinalizers { kind: usize, name: usize },
    Delete { kind: usize, name: usize, policy: u8, precondition: Option<u64> },
    Watch { kind: usize, from: u8, back: u64, selector: u8 },
    Deliver { watch: usize, n: usize },
    SetHistory { n: usize },
    Expire,
}

fn op() -> impl Strategy<Value = Op> {
    let k = 0..KINDS.len();
    let n = 0..NAMES.len();
    prop_oneof![
        4 => (k.clone(), n.clone(), any::<bool>(), any::<bool>()).prop_map(|(kind, name, app, finalizer)| Op::Create { kind, name, app, finalizer }),
        2 => (k.clone(), n.clone(), 0..3u64, any::<bool>()).prop_map(|(kind, name, stale, app)| Op::Update { kind, name, stale, app }),
        2 => (k.clone(), n.clone(), any::<bool>(), proptest::option::of(0..3u64)).prop_map(|(kind, name, app, with_rv)| Op::MergeLabel { kind, name, app, with_rv }),
        1 => (k.clone(), n.clone(), any::<u8>()).prop_map(|(kind, name, value)| Op::JsonPatchAnnotation { kind, name, value }),
        1 => (k.clone(), n.clone()).prop_map(|(kind, name)| Op::AddFinalizer { kind, name }),
        2 => (k.clone(), n.clone()).prop_map(|(kind, name)| Op::RemoveFinalizers { kind, name }),
        3 => (k.clone(), n.clone(), 0..4u8, proptest::option::of(0..2u64)).prop_map(|(kind, name, policy, precondition)| Op::Delete { kind, name, policy, precondition }),
        2 => (k, 0..3u8, 0..12u64, 0..4u8).prop_map(|(kind, from, back, selector)| Op::Watch { kind, from, back, selector }),
        3 => (0..8usize, 0..6usize).prop_map(|(watch, n)| Op::Deliver { watch, n }),
        1 => (1..20usize).prop_map(|n| Op::SetHistory { n }),
        1 => Just(Op::Expire),
    ]
}

fn kind(i: usize) -> &'static Kind {
    Kind::lookup(KINDS[i]).expect("kind")
}

fn manifest(k: usize, name: &str, app: bool, finalizer: bool) -> Value {
    let mut meta = json!({"name": name, "namespace": "default", "labels": {"app": if app { "a" } else { "b" }}});
    if finalizer {
        meta["finalizers"] = json!(["example.com/hold"]);
    }
    if k == 0 {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": "v"}})
    } else {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    }
}

struct WatchRun {
    id: WatchId,
    kind: usize,
    selector: Selector,
    fields: FieldSelector,
    /// The state the watch starts from (empty for Now/Any: their ADDED events rebuild it).
    state: BTreeMap<String, Value>,
    /// How many synthetic ADDED events come first (their RVs are not ordered).
    initial: usize,
    seen: usize,
    last_rv: u64,
    errored: bool,
    /// The revision the watch starts after.
    start_rv: u64,
    /// (type, name, resourceVersion) of every event after the initial ones.
    events: Vec<(EventType, String, u64)>,
}

impl WatchRun {
    fn apply(&mut self, ev: WatchEvent) -> Result<(), TestCaseError> {
        prop_assert!(!self.errored, "an event after ERROR");
        if ev.event_type == EventType::Error {
            prop_assert_eq!(self.seen, 0, "ERROR must be the only event");
            prop_assert_eq!(&ev.object["code"], &json!(410));
            self.errored = true;
            self.seen += 1;
            return Ok(());
        }
        let rv = ev.object.resource_version();
        if self.seen >= self.initial {
            prop_assert!(rv > self.last_rv, "event RVs must strictly increase: {} after {}", rv, self.last_rv);
            self.last_rv = rv;
            self.events.push((ev.event_type, ev.object.name().to_string(), rv));
        }
        self.seen += 1;
        let key = ev.object.name().to_string();
        match ev.event_type {
            EventType::Added => {
                prop_assert!(self.state.insert(key, ev.object).is_none(), "ADDED of an object the watch already had");
            }
            EventType::Modified => {
                prop_assert!(
                    self.state.insert(key, ev.object).is_some(),
                    "MODIFIED of an object the watch did not have"
                );
            }
            EventType::Deleted => {
                prop_assert!(self.state.remove(&key).is_some(), "DELETED of an object the watch did not have");
            }
            _ => {}
        }
        Ok(())
    }
}

/// The store as a watch on `kind` with `sel` and `fields` sees it.
fn visible(s: &ApiServer, k: usize, sel: &Selector, fields: &FieldSelector) -> BTreeMap<String, Value> {
    s.list_filtered(kind(k), Some("default"), sel, fields)
        .map(|l| l.items.into_iter().map(|o| (o.name().to_string(), o)).collect())
        .unwrap_or_default()
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut s = ApiServer::new(42);
    let mut watches: Vec<WatchRun> = Vec::new();
    // The visible state per (kind) after every revision, to give Exact watches their start state.
    let mut history: BTreeMap<u64, [BTreeMap<String, Value>; 2]> = BTreeMap::new();
    let all = (Selector::everything(), FieldSelector::everything());
    let snapshot = |s: &ApiServer| [visible(s, 0, &all.0, &all.1), visible(s, 1, &all.0, &all.1)];
    history.insert(s.resource_version(), snapshot(&s));
    let mut last_rv = s.resource_version();
    let everything = || (Selector::everything(), FieldSelector::everything());
    let oracles = [0, 1].map(|k| s.watch(kind(k), Some("default"), everything().0, WatchFrom::Exact(last_rv)));
    for op in ops {
        match op {
            Op::Create { kind: k, name, app, finalizer } => {
                let _ = s.create(manifest(k, NAMES[name], app, finalizer));
            }
            Op::Update { kind: k, name, stale, app } => {
                if let Ok(mut o) = s.get(kind(k), Some("default"), NAMES[name]) {
                    let rv = o.resource_version().saturating_sub(stale);
                    o["metadata"]["resourceVersion"] = json!(rv.to_string());
                    o["metadata"]["labels"]["app"] = json!(if app { "a" } else { "b" });
                    let res = s.update(o);
                    if stale > 0 {
                        prop_assert!(res.is_err(), "a stale update must conflict");
                    }
                }
            }
            Op::MergeLabel { kind: k, name, app, with_rv } => {
                let mut p = json!({"metadata": {"labels": {"app": if app { "a" } else { "b" }}}});
                if let Some(back) = with_rv {
                    p["metadata"]["resourceVersion"] = json!(s.resource_version().saturating_sub(back).to_string());
                }
                let _ = s.patch(kind(k), Some("default"), NAMES[name], &Patch::Merge(p), Subresource::Main);
            }
            Op::JsonPatchAnnotation { kind: k, name, value } => {
                let p = json!([{"op": "add", "path": "/metadata/annotations", "value": {"v": value.to_string()}}]);
                let _ = s.patch(kind(k), Some("default"), NAMES[name], &Patch::Json(p), Subresource::Main);
            }
            Op::AddFinalizer { kind: k, name } => {
                let p = json!({"metadata": {"finalizers": ["example.com/more"]}});
                let _ = s.patch(kind(k), Some("default"), NAMES[name], &Patch::Strategic(p), Subresource::Main);
            }
            Op::RemoveFinalizers { kind: k, name } => {
                let p = json!({"metadata": {"finalizers": null}});
                let _ = s.patch(kind(k), Some("default"), NAMES[name], &Patch::Merge(p), Subresource::Main);
            }
            Op::Delete { kind: k, name, policy, precondition } => {
                let propagation_policy = match policy {
                    0 => None,
                    1 => Some(Propagation::Background),
                    2 => Some(Propagation::Foreground),
                    _ => Some(Propagation::Orphan),
                };
                let current = s.get(kind(k), Some("default"), NAMES[name]).map(|o| o.resource_version()).unwrap_or(0);
                let opts = DeleteOptions {
                    propagation_policy,
                    preconditions_resource_version: precondition.map(|b| current.saturating_sub(b).to_string()),
                    ..Default::default()
                };
                let _ = s.delete(kind(k), Some("default"), NAMES[name], &opts);
            }
            Op::Watch { kind: k, from, back, selector } => {
                let sel = match selector {
                    0 | 3 => Selector::everything(),
                    1 => Selector::parse("app=a").expect("selector"),
                    _ => Selector::parse("app notin (a)").expect("selector"),
                };
                let fields = match selector {
                    3 => FieldSelector::parse("metadata.name!=b").expect("fields"),
                    _ => FieldSelector::everything(),
                };
                let start_rv = match from {
                    0 | 1 => s.resource_version(),
                    _ => s.resource_version().saturating_sub(back),
                };
                let (wf, state, initial) = match from {
                    0 => (WatchFrom::Now, BTreeMap::new(), visible(&s, k, &sel, &fields).len()),
                    1 => (WatchFrom::Any, BTreeMap::new(), visible(&s, k, &sel, &fields).len()),
                    _ => {
                        let rv = s.resource_version().saturating_sub(back);
                        let start = history.range(..=rv).next_back().map(|(_, st)| st[k].clone()).unwrap_or_default();
                        let start = start
                            .into_iter()
                            .filter(|(_, o)| sel.matches(o.labels()) && fields.matches(kind(k), &Frozen::from(o)))
                            .collect();
                        (WatchFrom::Exact(rv), start, 0)
                    }
                };
                let id = s.watch_filtered(kind(k), Some("default"), sel.clone(), fields.clone(), wf).expect("watch");
                watches.push(WatchRun {
                    id,
                    kind: k,
                    selector: sel,
                    fields,
                    state,
                    initial,
                    seen: 0,
                    last_rv: 0,
                    errored: false,
                    start_rv,
                    events: Vec::new(),
                });
            }
            Op::Deliver { watch, n } => {
                if let Some(w) = watches.get_mut(watch) {
                    for _ in 0..n {
                        match s.next_event(w.id) {
                            Some(ev) => w.apply(ev)?,
                            None => break,
                        }
                    }
                }
            }
            Op::SetHistory { n } => s.set_history_limit(n),
            Op::Expire => s.expire_history(),
        }
        let rv = s.resource_version();
        prop_assert!(rv >= last_rv, "the global revision went backwards");
        if rv > last_rv {
            history.insert(rv, snapshot(&s));
        }
        last_rv = rv;
    }
    for w in &mut watches {
        while let Some(ev) = s.next_event(w.id) {
            w.apply(ev)?;
        }
        if !w.errored {
            prop_assert_eq!(&w.state, &visible(&s, w.kind, &w.selector, &w.fields), "replay differs from the store");
        }
    }
    let oracle_events: Vec<Vec<WatchEvent>> =
        oracles.iter().map(|id| std::iter::from_fn(|| s.next_event(*id)).collect()).collect();
    for w in watches.iter().filter(|w| !w.errored) {
        let k = kind(w.kind);
        let passes = |o: &Value| w.selector.matches(o.labels()) && w.fields.matches(k, &Frozen::from(o));
        let mut state: BTreeMap<String, Value> = BTreeMap::new();
        let mut expected = Vec::new();
        for ev in &oracle_events[w.kind] {
            let name = ev.object.name().to_string();
            let rv = ev.object.resource_version();
            let cur = (ev.event_type != EventType::Deleted).then(|| ev.object.clone());
            if rv > w.start_rv {
                let p = state.get(&name).is_some_and(passes);
                let c = cur.as_ref().is_some_and(passes);
                let t = match (ev.event_type, p, c) {
                    (EventType::Added, _, true) | (EventType::Modified, false, true) => Some(EventType::Added),
                    (EventType::Modified, true, true) => Some(EventType::Modified),
                    (EventType::Modified, true, false) | (EventType::Deleted, true, _) => Some(EventType::Deleted),
                    _ => None,
                };
                if let Some(t) = t {
                    expected.push((t, name.clone(), rv));
                }
            }
            match cur {
                Some(o) => state.insert(name, o),
                None => state.remove(&name),
            };
        }
        prop_assert_eq!(&w.events, &expected, "the watch's events differ from the oracle's");
    }
    // Every stored object's RV is at most the global revision, and all are distinct.
    let mut rvs: Vec<u64> = s.all_objects().map(|o| o.resource_version()).collect();
    prop_assert!(rvs.iter().all(|r| *r <= s.resource_version()));
    rvs.sort_unstable();
    let n = rvs.len();
    rvs.dedup();
    prop_assert_eq!(n, rvs.len(), "two objects share a resourceVersion");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn watches_replay_to_the_store(ops in proptest::collection::vec(op(), 1..80)) {
        run(ops)?;
    }

    #[test]
    fn arbitrary_json_never_panics(v in arbitrary_json(3)) {
        let mut s = ApiServer::new(1);
        let _ = s.create(v.clone());
        let _ = s.update(v.clone());
        let _ = s.update_status(v.clone());
        let _ = s.finalize_namespace(v.clone());
        let cm = Kind::lookup("cm").expect("cm");
        s.create(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})).expect("create");
        for p in [Patch::Merge(v.clone()), Patch::Json(v.clone()), Patch::Strategic(v.clone())] {
            let _ = s.patch(cm, Some("default"), "x", &p, Subresource::Main);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Pods with any grace period, bound or not, deleted any number of times with any options:
    /// never a panic, and a pod is gone once deleted with grace 0 and no finalizers.
    #[test]
    fn pod_deletion_never_panics(
        grace in proptest::option::of(any::<i64>()),
        bound in any::<bool>(),
        deletes in proptest::collection::vec((proptest::option::of(any::<i64>()), 0..4u8), 1..5),
    ) {
        let mut s = ApiServer::new(3);
        let mut p = manifest(1, "p", true, false);
        if let Some(g) = grace {
            p["spec"]["terminationGracePeriodSeconds"] = json!(g);
        }
        if s.create(p).is_ok() {
            if bound {
                s.bind("default", "p", "node-1").expect("bind");
            }
            for (g, policy) in deletes {
                let propagation_policy = match policy {
                    0 => None,
                    1 => Some(Propagation::Background),
                    2 => Some(Propagation::Foreground),
                    _ => Some(Propagation::Orphan),
                };
                let _ = s.delete(kind(1), Some("default"), "p", &DeleteOptions { propagation_policy, grace_period_seconds: g, ..Default::default() });
            }
            let zero = DeleteOptions { grace_period_seconds: Some(0), propagation_policy: Some(Propagation::Background), ..Default::default() };
            let _ = s.delete(kind(1), Some("default"), "p", &zero);
            prop_assert!(s.get(kind(1), Some("default"), "p").is_err());
        }
    }
}

/// A valid manifest of each kind, for the mutation test below.
fn valid_manifests() -> Vec<Value> {
    vec![
        manifest(0, "c", true, false),
        manifest(1, "p", true, true),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "a"}}, "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}},
                "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i", "ports": [{"containerPort": 80}]}]}}}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r", "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": "u", "controller": true}]},
            "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["a"]}]},
                "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}}),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-9"}, "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]}}),
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"}, "spec": {"holderIdentity": "x", "leaseDurationSeconds": 15}}),
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p"}}),
        json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": "b"}, "spec": {"region": "eu", "versioning": true}}),
    ]
}

/// Every object and array position of a value, as JSON pointers.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, c)| pointers(c, format!("{at}/{k}"), out)),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| pointers(c, format!("{at}/{i}"), out)),
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// A valid manifest with one value replaced by arbitrary JSON, then created, updated and
    /// patched: every call answers, none panics, and what is stored reads back.
    #[test]
    fn mutated_manifests_never_panic(which in 0..9usize, at in any::<proptest::sample::Index>(), v in arbitrary_json(2)) {
        let mut s = ApiServer::new(9);
        let mut m = valid_manifests()[which].clone();
        let mut ptrs = Vec::new();
        pointers(&m, String::new(), &mut ptrs);
        let ptr = ptrs[at.index(ptrs.len())].clone();
        if let Some(slot) = m.pointer_mut(&ptr) {
            *slot = v.clone();
        }
        if let Ok(created) = s.create(m.clone()) {
            let k = Kind::for_object(created.api_version(), created.kind()).expect("kind");
            let ns = created.namespace().map(str::to_string);
            prop_assert_eq!(s.get(k, ns.as_deref(), created.name()).ok(), Some(created.clone()));
            let _ = s.update(created.clone());
            let _ = s.update_status(created.clone());
            let _ = s.patch(k, ns.as_deref(), created.name(), &Patch::Merge(json!({"spec": v.clone()})), Subresource::Main);
            let _ = s.patch(k, ns.as_deref(), created.name(), &Patch::Strategic(json!({"metadata": {"labels": v.clone()}})), Subresource::Main);
            let _ = s.delete(k, ns.as_deref(), created.name(), &DeleteOptions::default());
        }
    }
}

fn arbitrary_json(depth: u32) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-zA-Z0-9/:.$-]{0,8}".prop_map(Value::from),
        prop_oneof![
            Just("apiVersion"),
            Just("kind"),
            Just("metadata"),
            Just("name"),
            Just("v1"),
            Just("ConfigMap"),
            Just("Pod"),
            Just("apps/v1"),
            Just("Deployment"),
            Just("op"),
            Just("add"),
            Just("path"),
            Just("/metadata")
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(depth, 32, 6, |inner| {
        let key = prop_oneof![
            Just("apiVersion".to_string()),
            Just("kind".to_string()),
            Just("metadata".to_string()),
            Just("name".to_string()),
            Just("spec".to_string()),
            Just("finalizers".to_string()),
            Just("containers".to_string()),
            Just("$patch".to_string()),
            Just("op".to_string()),
            Just("path".to_string()),
            Just("value".to_string()),
            "[a-z]{1,4}".prop_map(|s| s)
        ];
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((key, inner), 0..5).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}
