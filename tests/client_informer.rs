//! The reflector and shared informer against the real miniature API server:
//! client-go's `tools/cache/reflector.go` (`ListAndWatch`), `delta_fifo.go` (`Replace`, `Resync`)
//! and `shared_informer.go` (`HandleDeltas`): the initial list, resync, relists after missed
//! events.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

use std::time::Duration;

use reconcile_lab::engine::apiserver::{ApiServer, DeleteOptions, EventType};
use reconcile_lab::engine::apiserver::{PendingEvent, WatchId};
use reconcile_lab::engine::client::informer::{
    DeletedFinalStateUnknown, DeletedObject, HandlerId, Informer, InformerStep, ListerWatcher, Notification,
    ReflectorState, SharedInformerFactory, SharedList,
};
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::engine::object::share;
use reconcile_lab::engine::object::{ObjectExt, Shared};
use reconcile_lab::engine::rand::Rng;
use reconcile_lab::engine::status::{Reason, Status};
use reconcile_lab::engine::time::Time;
use serde_json::{json, Value};

fn cm_kind() -> &'static Kind {
    Kind::lookup("cm").expect("configmaps are served")
}

fn cm(name: &str, value: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}, "data": {"v": value}})
}

fn set_value(api: &mut ApiServer, name: &str, value: &str) -> Shared {
    let mut obj = api.get(cm_kind(), Some("default"), name).expect("exists");
    obj["data"]["v"] = json!(value);
    share(api.update(obj).expect("update succeeds"))
}

fn delete(api: &mut ApiServer, name: &str) {
    api.delete(cm_kind(), Some("default"), name, &DeleteOptions::default()).expect("delete succeeds");
}

/// Every queued call of handler `h`, popped.
fn drain(inf: &mut Informer, h: HandlerId) -> Vec<Notification> {
    std::iter::from_fn(|| inf.pop_notification(h)).collect()
}

/// Delivers every queued watch event.
fn deliver_all(inf: &mut Informer, api: &mut ApiServer, now: Time, rng: &mut Rng) -> Vec<InformerStep> {
    std::iter::from_fn(|| inf.deliver_next(api, now, rng)).collect()
}

/// The informer's cache equals the server's state for the kind.
fn assert_cache_matches(inf: &Informer, api: &ApiServer) {
    let server = api.list(cm_kind(), None, &Selector::everything()).expect("list");
    let cached: Vec<Value> = inf.indexer().list().map(|o| o.to_value()).collect();
    let mut server_items: Vec<Value> = server.items;
    server_items.sort_by_key(|o| o.key());
    assert_eq!(cached, server_items);
    inf.indexer().check_invariants().expect("indexes are consistent");
}

struct Setup {
    api: ApiServer,
    rng: Rng,
    now: Time,
}

fn setup() -> Setup {
    let mut api = ApiServer::new(1);
    api.set_now(Time::START);
    Setup { api, rng: Rng::new(9), now: Time::START }
}

/// client-go `shared_informer.go` `HandleDeltas` (isInInitialList): the initial list becomes
/// `OnAdd(obj, true)` in list order, then HasSynced.
#[test]
fn tv07_initial_list() {
    let Setup { mut api, mut rng, now } = setup();
    let a = share(api.create(cm("a", "1")).unwrap());
    let b = share(api.create(cm("b", "1")).unwrap());
    assert!(a.resource_version() < b.resource_version());

    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    let h = inf.add_event_handler("configmap-controller", now);
    assert!(!inf.has_synced());
    let step = inf.list_and_watch(&mut api, now, &mut rng);
    assert!(matches!(step, InformerStep::Listed { relist: false, .. }), "{step:?}");
    assert!(inf.has_synced());
    assert!(!inf.handler_synced(h), "the handler has not run its initial adds yet");
    let calls = drain(&mut inf, h);
    let defaults: Vec<&Notification> = calls.iter().filter(|n| n.key().starts_with("default/")).collect();
    assert_eq!(
        defaults,
        vec![
            &Notification::Add { obj: a.clone(), in_initial_list: true },
            &Notification::Add { obj: b, in_initial_list: true }
        ]
    );
    assert!(inf.handler_synced(h));
    let keys: Vec<String> = inf.indexer().in_namespace("default").iter().map(|o| o.key()).collect();
    assert_eq!(keys, vec!["default/a", "default/b"]);
    assert!(matches!(inf.state(), ReflectorState::Watching(_)));
    assert_eq!(inf.last_sync_resource_version(), api.resource_version());

    // Afterwards, watch events arrive one at a time, cache first.
    let c = share(api.create(cm("c", "1")).unwrap());
    let steps = deliver_all(&mut inf, &mut api, now, &mut rng);
    assert_eq!(
        steps,
        vec![InformerStep::Event {
            event_type: EventType::Added,
            key: "default/c".into(),
            resource_version: c.resource_version()
        }]
    );
    assert_eq!(inf.indexer().get("default/c"), Some(&c));
    assert_eq!(drain(&mut inf, h), vec![Notification::Add { obj: c, in_initial_list: false }]);
    assert_cache_matches(&inf, &api);
}

/// Updates and deletes through the watch: `OnUpdate(old, new)`, `OnDelete(final state)`.
#[test]
fn watch_updates_and_deletes() {
    let Setup { mut api, mut rng, now } = setup();
    let a1 = share(api.create(cm("a", "1")).unwrap());
    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    let h = inf.add_event_handler("h", now);
    inf.list_and_watch(&mut api, now, &mut rng);
    drain(&mut inf, h);
    let a2 = set_value(&mut api, "a", "2");
    delete(&mut api, "a");
    let steps = deliver_all(&mut inf, &mut api, now, &mut rng);
    assert_eq!(steps.len(), 2);
    let calls = drain(&mut inf, h);
    assert_eq!(calls[0], Notification::Update { old: a1, new: a2.clone() });
    match &calls[1] {
        Notification::Delete(DeletedObject::Final(obj)) => assert_eq!(obj.key(), "default/a"),
        other => panic!("expected a final-state delete, got {other:?}"),
    }
    assert!(inf.indexer().get("default/a").is_none());
    assert_cache_matches(&inf, &api);
}

/// client-go `delta_fifo.go` `Resync`: resync every 30 s for 65 s gives two rounds of
/// `OnUpdate(x, x)`; a handler with resync 0 gets nothing.
#[test]
fn tv08_resync() {
    let Setup { mut api, mut rng, now } = setup();
    share(api.create(cm("a", "1")).unwrap());
    share(api.create(cm("b", "1")).unwrap());
    let mut inf = Informer::new(cm_kind(), Duration::from_secs(30));
    let resyncing = inf.add_event_handler("resyncing", now);
    let quiet = inf.add_event_handler_with_resync("quiet", Duration::ZERO, now);
    inf.list_and_watch(&mut api, now, &mut rng);
    drain(&mut inf, resyncing);
    drain(&mut inf, quiet);
    let objects = inf.indexer().len();
    assert!(objects >= 2);

    let end = now.after(Duration::from_secs(65));
    let mut rounds = 0;
    while let Some(at) = inf.next_resync_at().filter(|t| *t <= end) {
        match inf.resync(at) {
            Some(InformerStep::Resync { handlers, objects: n }) => {
                assert_eq!(handlers, vec![resyncing]);
                assert_eq!(n, objects);
                rounds += 1;
            }
            other => panic!("expected a resync, got {other:?}"),
        }
    }
    assert_eq!(rounds, 2, "resyncs at 30 s and 60 s");
    let calls = drain(&mut inf, resyncing);
    assert_eq!(calls.len(), 2 * objects);
    for n in &calls {
        match n {
            Notification::Update { old, new } => assert_eq!(old, new, "a resync update carries the same object"),
            other => panic!("expected a resync update, got {other:?}"),
        }
    }
    assert!(calls.iter().all(Notification::is_sync));
    assert!(drain(&mut inf, quiet).is_empty());
}

/// A relist after a 410 (client-go `delta_fifo.go` `Replace`), up to the relist: {a, b, c} cached;
/// while the watch is down b is updated, c deleted and the history expired; the re-watch from the
/// last synced version gets one ERROR (410 Expired), the reflector backs off, then relists.
fn tv09_scenario(default_resync: Duration) -> (Informer, HandlerId, [Shared; 4], InformerStep) {
    let Setup { mut api, mut rng, mut now } = setup();
    let a = share(api.create(cm("a", "1")).unwrap());
    let b2 = share(api.create(cm("b", "1")).unwrap());
    let c3 = share(api.create(cm("c", "1")).unwrap());
    let mut inf = Informer::new(cm_kind(), default_resync);
    let h = inf.add_event_handler_with_resync("no-resync", Duration::ZERO, now);
    inf.list_and_watch(&mut api, now, &mut rng);
    drain(&mut inf, h);
    let synced_at = inf.last_sync_resource_version();
    assert_eq!(synced_at, c3.resource_version());

    if !default_resync.is_zero() {
        // One resync check has run: the no-resync handler is no longer in the syncing set.
        now = now.after(default_resync);
        inf.resync(now);
        assert!(drain(&mut inf, h).is_empty());
    }

    let b5 = set_value(&mut api, "b", "2");
    delete(&mut api, "c");
    api.expire_history();
    // The watch ends; the reflector watches again from c's version, which is now too old.
    inf.rewatch(&mut api, now, &mut rng);
    let step = inf.deliver_next(&mut api, now, &mut rng).expect("an ERROR event");
    let retry_at = match &step {
        InformerStep::WatchError { code, message, retry_at } => {
            assert_eq!(*code, 410);
            assert!(message.starts_with(&format!("too old resource version: {synced_at} (")), "{message}");
            *retry_at
        }
        other => panic!("expected a 410, got {other:?}"),
    };
    assert_eq!(inf.relist_at(), Some(retry_at));
    let waited = retry_at.since(now);
    assert!(waited >= Duration::from_millis(800) && waited < Duration::from_millis(1600), "{waited:?}");
    assert!(inf.deliver_next(&mut api, now, &mut rng).is_none(), "no watch while backing off");
    // Nothing was notified yet: the cache still holds the old state.
    assert!(drain(&mut inf, h).is_empty());
    assert_eq!(inf.indexer().get("default/c"), Some(&c3));

    let listed = inf.list_and_watch(&mut api, retry_at, &mut rng);
    assert_cache_matches(&inf, &api);
    (inf, h, [a, b2, b5, c3], listed)
}

/// client-go `delta_fifo.go` `Replace` (a relist after a 410): for a handler outside the syncing
/// set, the relist gives `OnUpdate(b@rv2, b@rv5)` and `OnDelete(DeletedFinalStateUnknown{default/c,
/// c@rv3})`, and nothing for the unchanged a. Tombstones come first (the in-order RealFIFO).
#[test]
fn tv09_missed_delete_and_410() {
    let (mut inf, h, [_a, b2, b5, c3], listed) = tv09_scenario(Duration::from_secs(30));
    match listed {
        InformerStep::Listed { relist, updated, tombstones, unchanged, added, .. } => {
            assert!(relist);
            assert_eq!(updated, vec!["default/b"]);
            assert_eq!(tombstones, vec!["default/c"]);
            assert!(added.is_empty());
            assert!(unchanged >= 1);
        }
        other => panic!("expected a relist, got {other:?}"),
    }
    let calls: Vec<Notification> = drain(&mut inf, h).into_iter().filter(|n| n.key().starts_with("default/")).collect();
    assert_eq!(
        calls,
        vec![
            Notification::Delete(DeletedObject::Unknown(DeletedFinalStateUnknown { key: "default/c".into(), obj: c3 })),
            Notification::Update { old: b2, new: b5 },
        ]
    );
}

/// client-go `delta_fifo.go` `Replace` (a relist after a 410) in an informer without any resync:
/// client-go never runs a resync check there, so its listeners stay in the syncing set they were
/// put in when added, and the unchanged a comes back as `OnUpdate(a, a)` (shared_informer.go
/// `addListener`, `distribute`). "No callback for a" holds only once a resync check has taken the
/// handler out of that set.
#[test]
fn tv09_without_resync_unchanged_objects_come_back_as_sync_updates() {
    let (mut inf, h, [a, b2, b5, c3], _) = tv09_scenario(Duration::ZERO);
    let calls: Vec<Notification> = drain(&mut inf, h).into_iter().filter(|n| n.key().starts_with("default/")).collect();
    assert_eq!(
        calls,
        vec![
            Notification::Delete(DeletedObject::Unknown(DeletedFinalStateUnknown { key: "default/c".into(), obj: c3 })),
            Notification::Update { old: a.clone(), new: a },
            Notification::Update { old: b2, new: b5 },
        ]
    );
}

/// client-go `delta_fifo.go` `Replace` (keyed by name): a deleted and re-created under the same
/// name while disconnected is one update from the old uid to the new one, not a delete and an add.
#[test]
fn tv10_recreate_during_a_gap() {
    let Setup { mut api, mut rng, now } = setup();
    let old = share(api.create(cm("a", "1")).unwrap());
    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    let h = inf.add_event_handler("h", now);
    inf.list_and_watch(&mut api, now, &mut rng);
    drain(&mut inf, h);

    // The connection breaks: events in flight are lost, the reflector relists after back-off.
    let broken = inf.break_watch(&mut api, now, &mut rng).expect("a watch was open");
    let InformerStep::WatchBroken { retry_at } = broken else { panic!("expected WatchBroken, got {broken:?}") };
    delete(&mut api, "a");
    let new = share(api.create(cm("a", "2")).unwrap());
    assert_ne!(old.uid(), new.uid());
    inf.list_and_watch(&mut api, retry_at, &mut rng);
    let calls: Vec<Notification> = drain(&mut inf, h).into_iter().filter(|n| n.key() == "default/a").collect();
    assert_eq!(calls, vec![Notification::Update { old, new }]);
}

/// The API server drops the stream (`ApiServer::break_watch`): events already queued are still
/// delivered, then the reflector watches again from its last resourceVersion without relisting,
/// and the server replays what it missed from its history.
#[test]
fn dropped_stream_is_rewatched_from_the_last_resource_version() {
    let Setup { mut api, mut rng, now } = setup();
    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    let h = inf.add_event_handler("h", now);
    inf.list_and_watch(&mut api, now, &mut rng);
    drain(&mut inf, h);
    let later = now.after(Duration::from_secs(5));
    let a = share(api.create(cm("a", "1")).unwrap());
    let id = inf.watch_id().expect("watching");
    api.break_watch(id);
    let b = share(api.create(cm("b", "1")).unwrap());
    assert!(!inf.watch_ended(&api), "a's event is still queued");
    let step = inf.deliver_next(&mut api, later, &mut rng);
    assert!(matches!(step, Some(InformerStep::Event { ref key, .. }) if key == "default/a"), "{step:?}");
    assert!(inf.watch_ended(&api));
    let step = inf.deliver_next(&mut api, later, &mut rng);
    assert_eq!(step, Some(InformerStep::Rewatched { resource_version: a.resource_version() }));
    assert_ne!(inf.watch_id(), Some(id));
    let step = inf.deliver_next(&mut api, later, &mut rng);
    assert!(matches!(step, Some(InformerStep::Event { ref key, .. }) if key == "default/b"), "{step:?}");
    let calls = drain(&mut inf, h);
    assert_eq!(
        calls,
        vec![
            Notification::Add { obj: a, in_initial_list: false },
            Notification::Add { obj: b, in_initial_list: false }
        ]
    );
    assert_cache_matches(&inf, &api);
}

/// A watch that ends within a second having delivered nothing is an error ("very short watch"):
/// the reflector backs off and relists.
#[test]
fn very_short_watch_backs_off_and_relists() {
    let Setup { mut api, mut rng, now } = setup();
    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    inf.list_and_watch(&mut api, now, &mut rng);
    api.break_watch(inf.watch_id().expect("watching"));
    let step = inf.deliver_next(&mut api, now.after(Duration::from_millis(500)), &mut rng);
    assert!(matches!(step, Some(InformerStep::WatchBroken { .. })), "{step:?}");
    assert!(inf.relist_at().is_some());
}

/// The API server as a partitioned process sees it: lists and watches fail when cut off.
struct Flaky<'a> {
    api: &'a mut ApiServer,
    fail_list: bool,
    fail_watch: bool,
}

fn timeout() -> Status {
    Status::new(Reason::InternalError, "dial tcp 10.96.0.1:443: i/o timeout")
}

impl ListerWatcher for Flaky<'_> {
    fn list(&mut self, kind: &'static Kind) -> Result<SharedList, Status> {
        if self.fail_list {
            return Err(timeout());
        }
        ListerWatcher::list(self.api, kind)
    }
    fn watch(&mut self, kind: &'static Kind, rv: u64) -> Result<WatchId, Status> {
        if self.fail_watch {
            return Err(timeout());
        }
        ListerWatcher::watch(self.api, kind, rv)
    }
    fn next_event(&mut self, id: WatchId) -> Option<PendingEvent> {
        ListerWatcher::next_event(self.api, id)
    }
    fn watch_is_open(&self, id: WatchId) -> bool {
        ListerWatcher::watch_is_open(self.api, id)
    }
    fn has_pending_events(&self, id: WatchId) -> bool {
        ListerWatcher::has_pending_events(self.api, id)
    }
    fn stop_watch(&mut self, id: WatchId) {
        ListerWatcher::stop_watch(self.api, id)
    }
}

/// Failed lists back off 800 ms, 1.6 s, 3.2 s ... (each with up to 100% jitter); a list whose
/// watch cannot be opened also backs off and lists again; once the server is reachable the
/// informer catches up with a relist.
#[test]
fn failed_list_and_watch_backs_off_then_catches_up() {
    let Setup { mut api, mut rng, now } = setup();
    share(api.create(cm("a", "1")).unwrap());
    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    let h = inf.add_event_handler("h", now);
    let mut t = now;
    let mut base = Duration::from_millis(800);
    for _ in 0..4 {
        let mut flaky = Flaky { api: &mut api, fail_list: true, fail_watch: true };
        let step = inf.list_and_watch(&mut flaky, t, &mut rng);
        let InformerStep::ListFailed { message, retry_at } = &step else { panic!("expected ListFailed, got {step:?}") };
        assert_eq!(message, "dial tcp 10.96.0.1:443: i/o timeout");
        let waited = retry_at.since(t);
        assert!(waited >= base && waited < base * 2, "{waited:?} not in [{base:?}, 2x)");
        assert!(step.describe("configmaps").starts_with("The configmaps informer could not list"));
        assert!(!inf.has_synced());
        t = *retry_at;
        base *= 2;
    }
    // The list gets through but the watch does not: the cache is filled, then another back-off.
    let mut flaky = Flaky { api: &mut api, fail_list: false, fail_watch: true };
    let step = inf.list_and_watch(&mut flaky, t, &mut rng);
    assert!(matches!(&step, InformerStep::Listed { watch_failed: Some(_), .. }), "{step:?}");
    assert!(inf.has_synced());
    assert_eq!(drain(&mut inf, h).len(), inf.indexer().len());
    let retry_at = inf.relist_at().expect("backing off");
    share(api.create(cm("b", "1")).unwrap());
    let step = inf.list_and_watch(&mut api, retry_at, &mut rng);
    assert!(matches!(&step, InformerStep::Listed { relist: true, watch_failed: None, .. }), "{step:?}");
    assert!(matches!(inf.state(), ReflectorState::Watching(_)));
    assert_eq!(drain(&mut inf, h).iter().filter(|n| n.key() == "default/b").count(), 1);
    assert_cache_matches(&inf, &api);
}

/// A handler added to a running informer is replayed the cache as initial adds.
#[test]
fn late_handler_gets_the_cache_replayed() {
    let Setup { mut api, mut rng, now } = setup();
    share(api.create(cm("a", "1")).unwrap());
    let mut inf = Informer::new(cm_kind(), Duration::ZERO);
    inf.list_and_watch(&mut api, now, &mut rng);
    let late = inf.add_event_handler("late", now);
    assert!(!inf.handler_synced(late));
    let calls = drain(&mut inf, late);
    assert_eq!(calls.len(), inf.indexer().len());
    assert!(calls.iter().all(|n| matches!(n, Notification::Add { in_initial_list: true, .. })));
    assert!(inf.handler_synced(late));
}

/// Shared informers: one per kind per process, several handlers each; stopping closes watches.
#[test]
fn shared_informer_factory() {
    let Setup { mut api, mut rng, now } = setup();
    share(api.create(cm("a", "1")).unwrap());
    let mut factory = SharedInformerFactory::new(Duration::ZERO);
    let h1 = factory.informer_for(cm_kind()).add_event_handler("first", now);
    let h2 = factory.informer_for(cm_kind()).add_event_handler("second", now);
    assert_ne!(h1, h2);
    assert_eq!(factory.iter().count(), 1, "one informer per kind");
    assert!(!factory.has_synced());
    let steps = factory.start(&mut api, now, &mut rng);
    assert_eq!(steps.len(), 1);
    assert!(factory.has_synced());
    assert!(factory.start(&mut api, now, &mut rng).is_empty(), "started informers are not listed again");
    let inf = factory.get_mut("configmaps").expect("the configmaps informer");
    assert_eq!(drain(inf, h1).len(), drain(inf, h2).len());
    factory.shutdown(&mut api);
    let inf = factory.get("configmaps").expect("still there");
    assert_eq!(*inf.state(), ReflectorState::Stopped);
    assert!(inf.watch_id().is_none());
}

#[derive(Clone, Debug)]
enum Op {
    Create(u8),
    Update(u8),
    Delete(u8),
    Deliver,
    Break,
    Expire,
    Rewatch,
    ServerBreak,
    Advance(u16),
    PopSome(u8),
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        (0u8..6).prop_map(Op::Create),
        (0u8..6).prop_map(Op::Update),
        (0u8..6).prop_map(Op::Delete),
        Just(Op::Deliver),
        Just(Op::Deliver),
        Just(Op::Deliver),
        Just(Op::Break),
        Just(Op::Expire),
        Just(Op::Rewatch),
        Just(Op::ServerBreak),
        (0u16..40_000).prop_map(Op::Advance),
        (0u8..8).prop_map(Op::PopSome),
    ]
}

/// What a handler knows, built only from its notifications; checks that each call is consistent
/// with the previous ones (an update's `old` is the last state the handler was given).
fn apply(model: &mut std::collections::BTreeMap<String, Shared>, n: Notification) -> Result<(), String> {
    match n {
        Notification::Add { obj, .. } => {
            if model.insert(obj.key(), obj.clone()).is_some() {
                return Err(format!("Add for known key {}", obj.key()));
            }
        }
        Notification::Update { old, new } => {
            let prev = model.insert(new.key(), new.clone());
            if prev.as_ref() != Some(&old) {
                return Err(format!("Update for {} whose old is not the last state given", new.key()));
            }
        }
        Notification::Delete(d) => {
            let prev = model.remove(&d.key());
            if prev.is_none() {
                return Err(format!("Delete for unknown key {}", d.key()));
            }
            if let DeletedObject::Unknown(t) = &d {
                if prev.as_ref() != Some(&t.obj) {
                    return Err(format!("tombstone for {} does not carry the last known state", t.key));
                }
            }
        }
    }
    Ok(())
}

proptest::proptest! {
    /// Random writes, deliveries and faults, then settle: the cache equals the server, and a
    /// handler that only saw the notifications knows exactly the server's objects.
    #[test]
    fn cache_and_handlers_converge_after_faults(ops in proptest::collection::vec(op(), 1..120), seed in 0u64..1000) {
        let mut api = ApiServer::new(seed);
        let mut now = Time::START;
        api.set_now(now);
        let mut rng = Rng::new(seed);
        let mut inf = Informer::new(cm_kind(), Duration::from_secs(30));
        let h = inf.add_event_handler("h", now);
        inf.list_and_watch(&mut api, now, &mut rng);
        let mut model = std::collections::BTreeMap::new();
        let name = |i: u8| format!("cm-{i}");
        for o in ops {
            match o {
                Op::Create(i) => { let _ = api.create(cm(&name(i), "0")); }
                Op::Update(i) => {
                    if let Ok(mut obj) = api.get(cm_kind(), Some("default"), &name(i)) {
                        obj["data"]["v"] = json!(format!("{}", now.millis()));
                        let _ = api.update(obj);
                    }
                }
                Op::Delete(i) => { let _ = api.delete(cm_kind(), Some("default"), &name(i), &DeleteOptions::default()); }
                Op::Deliver => { inf.deliver_next(&mut api, now, &mut rng); }
                Op::Break => { inf.break_watch(&mut api, now, &mut rng); }
                Op::Expire => api.expire_history(),
                Op::Rewatch => { inf.rewatch(&mut api, now, &mut rng); }
                Op::ServerBreak => { if let Some(id) = inf.watch_id() { api.break_watch(id); } }
                Op::Advance(ms) => {
                    now = now.after(Duration::from_millis(u64::from(ms)));
                    api.set_now(now);
                    if inf.relist_at().is_some_and(|t| t <= now) { inf.list_and_watch(&mut api, now, &mut rng); }
                    while inf.next_resync_at().is_some_and(|t| t <= now) { inf.resync(now); }
                }
                Op::PopSome(n) => {
                    for _ in 0..n {
                        if let Some(x) = inf.pop_notification(h) { apply(&mut model, x).map_err(proptest::test_runner::TestCaseError::fail)?; }
                    }
                }
            }
            inf.indexer().check_invariants().map_err(proptest::test_runner::TestCaseError::fail)?;
        }
        // Settle: finish any back-off, deliver everything, run every handler call.
        for _ in 0..100 {
            if let Some(t) = inf.relist_at() { now = now.max(t); api.set_now(now); inf.list_and_watch(&mut api, now, &mut rng); }
            while inf.deliver_next(&mut api, now, &mut rng).is_some() {}
            if inf.relist_at().is_none() { break; }
        }
        while let Some(x) = inf.pop_notification(h) { apply(&mut model, x).map_err(proptest::test_runner::TestCaseError::fail)?; }
        assert_cache_matches(&inf, &api);
        let server: std::collections::BTreeMap<String, Shared> =
            api.list(cm_kind(), None, &Selector::everything()).unwrap().items.into_iter().map(|o| (o.key(), share(o))).collect();
        proptest::prop_assert_eq!(model, server);
    }
}
