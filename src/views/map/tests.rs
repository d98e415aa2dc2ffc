use super::motion::chip_key;
use super::*;
use crate::engine::kinds::Kind;
use crate::engine::world::World;
use serde_json::json;

fn deployment(name: &str, replicas: u32) -> serde_json::Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                                 "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

/// A world whose informers have listed and whose controller manager leads.
fn settled(seed: u64) -> World {
    let mut w = World::new(seed);
    w.run_until_idle(2000);
    w
}

/// Every geometric promise of the picture: boxes do not overlap, parts sit inside their
/// process, chips inside their row, labels fit their box, everything inside the drawing.
fn check_layout(cp: &ControlPlane) {
    let canvas = Rect { x: 0, y: 0, w: cp.width, h: cp.height };
    let api = cp.api.as_ref().expect("an API server");
    let mut boxes: Vec<(String, Rect)> = vec![("api".into(), api.rect), ("kubectl".into(), cp.user.rect)];
    boxes.extend(cp.processes.iter().map(|p| (p.frame.part.id(), p.frame.rect)));
    boxes.extend(cp.cloud.iter().map(|c| ("cloud".to_string(), c.rect)));
    for (i, (a, ra)) in boxes.iter().enumerate() {
        assert!(canvas.contains(ra), "{a} {ra:?} outside the drawing {canvas:?}");
        for (b, rb) in &boxes[i + 1..] {
            assert!(!ra.overlaps(rb), "{a} {ra:?} overlaps {b} {rb:?}");
        }
    }
    let fits = |labels: &[Label], within: Rect, what: &str| {
        for l in labels {
            let right = l.x + text_width(l.text.chars().count(), l.style.px());
            // Two pixels clear of the right edge: the box's stroke.
            assert!(
                l.x >= within.x && right <= within.right() - 2,
                "{what}: label {:?} ({right}) past {within:?}",
                l.text
            );
            assert!(
                l.y - l.style.px() >= within.y - 2 && l.y <= within.bottom(),
                "{what}: label {:?} at {} outside {within:?}",
                l.text,
                l.y
            );
        }
    };
    fits(&api.labels, api.rect, "api");
    fits(&cp.user.labels, cp.user.rect, "kubectl");
    if let Some(c) = &cp.cloud {
        fits(&c.labels, c.rect, "cloud");
    }
    for p in &cp.processes {
        let frame = p.frame.rect;
        let id = p.frame.part.id();
        let mut inner: Vec<(String, Rect)> = Vec::new();
        inner.extend(p.informers.iter().map(|t| (t.part.id(), t.rect)));
        inner.extend(p.queues.iter().map(|q| (q.node.part.id(), q.node.rect)));
        // The frame's own labels (name, state) stay clear of its parts.
        for l in &p.frame.labels {
            let r = Rect {
                x: l.x,
                y: l.y - l.style.px(),
                w: text_width(l.text.chars().count(), l.style.px()),
                h: l.style.px(),
            };
            for (n, ri) in &inner {
                assert!(!r.overlaps(ri), "{id}: label {:?} {r:?} overlaps {n} {ri:?}", l.text);
            }
        }
        fits(&p.frame.labels, frame, &id);
        for (i, (a, ra)) in inner.iter().enumerate() {
            assert!(frame.contains(ra), "{a} {ra:?} outside its process {frame:?}");
            for (b, rb) in &inner[i + 1..] {
                assert!(!ra.overlaps(rb), "{a} {ra:?} overlaps {b} {rb:?}");
            }
        }
        for t in &p.informers {
            fits(&t.labels, t.rect, &t.part.id());
        }
        for q in &p.queues {
            let row = q.node.rect;
            fits(&q.node.labels, row, &q.node.part.id());
            let label_end = q
                .node
                .labels
                .iter()
                .map(|l| l.x + text_width(l.text.chars().count(), l.style.px()))
                .max()
                .unwrap_or(row.x);
            for (i, c) in q.chips.iter().enumerate() {
                assert!(row.contains(&c.rect), "chip {:?} {:?} outside its row {row:?}", c.text, c.rect);
                assert!(c.rect.x >= label_end, "chip {:?} over the row's label", c.text);
                assert!(text_width(c.text.chars().count(), SMALL_PX) + 8 <= c.rect.w, "chip text {:?} fits", c.text);
                for d in &q.chips[i + 1..] {
                    assert!(!c.rect.overlaps(&d.rect), "chips {:?} and {:?} overlap", c.text, d.text);
                }
            }
        }
    }
    // Badges sit on their line, clear of every box and of each other.
    let badges: Vec<&Badge> = cp.streams.iter().filter_map(|s| s.badge.as_ref()).collect();
    for (i, b) in badges.iter().enumerate() {
        assert!(canvas.contains(&b.rect), "badge {:?} outside", b.text);
        assert!(text_width(b.text.chars().count(), SMALL_PX) + 6 <= b.rect.w, "badge text {:?} fits", b.text);
        for c in &badges[i + 1..] {
            assert!(!b.rect.overlaps(&c.rect), "badges {:?} and {:?} overlap", b.text, c.text);
        }
        if cp.stacked {
            // On a strip, the badge sits at the end of the strip's own line: clear of its text.
            let s = cp.streams.iter().find(|s| s.badge.as_ref() == Some(*b)).expect("its stream");
            let strip = cp.node(&s.part).expect("its informer");
            for l in &strip.labels {
                let end = l.x + text_width(l.text.chars().count(), l.style.px());
                assert!(end <= b.rect.x, "badge {:?} over the strip's text {:?}", b.text, l.text);
            }
        } else {
            for (n, r) in &boxes {
                assert!(!b.rect.overlaps(r), "badge {:?} {:?} overlaps {n} {r:?}", b.text, b.rect);
            }
        }
    }
    // Streams join the API server to their informer.
    for s in &cp.streams {
        let t = cp.node(&s.part).expect("a stream's informer is drawn").rect;
        let (x, y) = *s.points.last().unwrap();
        assert!(x >= t.x && x <= t.right() && y >= t.y && y <= t.bottom(), "{} ends at its tile", s.part.id());
        let (x0, y0) = s.points[0];
        assert!(y0 == api.rect.y || y0 == api.rect.bottom(), "{} starts at the API server ({x0},{y0})", s.part.id());
    }
    // Ids are unique.
    let ids: BTreeSet<String> = cp.parts().iter().map(MapPart::id).collect();
    assert_eq!(ids.len(), cp.parts().len(), "unique part ids");
}

const WIDTHS: [i32; 6] = [320, 360, 600, 760, 900, 1300];

#[test]
fn the_layout_never_overlaps_at_any_width_and_any_step() {
    let mut w = settled(1);
    w.create(deployment("web", 3)).unwrap();
    let mut checked = 0;
    for i in 0..400 {
        if i % 7 == 0 {
            for width in WIDTHS {
                check_layout(&control_plane(&w, width));
                checked += 1;
            }
        }
        if w.step().is_none() {
            break;
        }
    }
    // With every process in a state of its own.
    w.start_process(crate::engine::world::POD_COUNTERS).unwrap();
    w.partition("kube-scheduler").unwrap();
    w.kill_process("kubelet").unwrap();
    w.run_until_idle(500);
    for width in WIDTHS {
        check_layout(&control_plane(&w, width));
    }
    assert!(checked > 100);
}

#[test]
fn it_names_the_api_server_and_every_process_with_its_state() {
    let w = settled(1);
    let cp = control_plane(&w, 1000);
    let names: Vec<&str> = cp.processes.iter().map(|p| p.frame.part.process().unwrap()).collect();
    assert_eq!(
        names,
        [
            "kube-controller-manager-a",
            "kube-controller-manager-b",
            "kube-scheduler",
            "kubelet",
            "bucket-operator",
            "pod-counters"
        ]
    );
    assert!(cp.api.as_ref().unwrap().name.starts_with("API server: "));
    let state = |name: &str| cp.processes.iter().find(|p| p.frame.part.process() == Some(name)).unwrap();
    let a = state("kube-controller-manager-a");
    let b = state("kube-controller-manager-b");
    let (leader, standby) = if a.state == ProcessState::Leading { (a, b) } else { (b, a) };
    assert_eq!(leader.state, ProcessState::Leading);
    assert!(leader.frame.name.contains("leader, acting · holds the Lease, "), "{}", leader.frame.name);
    assert!(leader.frame.name.contains("s left"), "{}", leader.frame.name);
    assert_eq!(standby.state, ProcessState::Standby);
    assert!(standby.informers.is_empty() && standby.queues.is_empty());
    assert!(standby.frame.name.contains("standby · Lease: control-plane-"), "{}", standby.frame.name);
    // The leader runs the four controllers of kube-controller-manager, each with its queue, and
    // one informer per kind the garbage collector and the others watch.
    let queues: Vec<String> = leader.queues.iter().map(|q| q.node.part.id()).collect();
    assert_eq!(queues.len(), 4, "{queues:?}");
    assert!(leader.informers.iter().any(|t| t.name.starts_with("Deployment informer of kube-controller-manager-")));
    let kubelet = state("kubelet");
    assert!(kubelet.frame.name.contains("nodes: node-1, node-2, node-3"), "{}", kubelet.frame.name);
    let counters = state("pod-counters");
    assert_eq!(counters.state, ProcessState::Stopped);
    assert!(counters.frame.labels.iter().any(|l| l.text == "stopped"), "the word, not a colour");
    assert!(cp.cloud.as_ref().is_some_and(|c| c.name.starts_with("External cloud")));
    // Every informer has its stream.
    let tiles: usize = cp.processes.iter().map(|p| p.informers.len()).sum();
    assert_eq!(cp.streams.len(), tiles);
    assert!(cp.streams.iter().all(|s| s.state == WatchState::Open));
}

#[test]
fn crashed_stopped_and_partitioned_processes_look_it() {
    let mut w = settled(1);
    w.kill_process("kube-scheduler").unwrap();
    w.stop_process("bucket-operator").unwrap();
    w.partition("kubelet").unwrap();
    let cp = control_plane(&w, 1000);
    let p = |name: &str| cp.processes.iter().find(|p| p.frame.part.process() == Some(name)).unwrap();
    assert_eq!(p("kube-scheduler").state, ProcessState::Crashed);
    assert!(p("kube-scheduler").frame.look.contains("map__node--crashed"));
    assert!(p("kube-scheduler").frame.labels.iter().any(|l| l.text.starts_with("crashed")));
    assert_eq!(p("bucket-operator").state, ProcessState::Stopped);
    let kubelet = p("kubelet");
    assert!(kubelet.partitioned && kubelet.frame.look.contains("map__node--partitioned"));
    assert!(kubelet.frame.name.contains("partitioned"));
    let s = cp.streams.iter().find(|s| s.part.process() == Some("kubelet")).unwrap();
    assert_eq!(s.state, WatchState::Broken, "a partitioned process's watch is not open");
    assert!(s.badge.is_some(), "its state is written on the line");
    // Step back to before the faults: the picture is the one of that moment.
    let before = control_plane(&settled(1), 1000);
    w.step_back();
    w.step_back();
    w.step_back();
    assert_eq!(control_plane(&w, 1000), before, "the picture is a function of the state");
}

/// Steps until `f` holds for the record; returns the record.
fn step_until(w: &mut World, what: &str, f: impl Fn(&StepRecord) -> bool) -> StepRecord {
    for _ in 0..3000 {
        let r = w.step().unwrap_or_else(|| panic!("nothing to step before {what}"));
        if f(&r) {
            return r;
        }
    }
    panic!("never: {what}");
}

#[test]
fn a_delivered_event_travels_to_its_informer_and_the_cache_row_changes() {
    let mut w = settled(1);
    w.create(deployment("web", 1)).unwrap();
    let before = control_plane(&w, 1000);
    let flying = before.streams.iter().find(|s| s.in_flight > 0).expect("the ADDED event is in flight");
    assert_eq!(flying.badge.as_ref().unwrap().text, "1 ▼");
    let r = step_until(&mut w, "the Deployment's event is delivered", |r| r.action == ActionKind::DeliverEvent);
    let cp = control_plane(&w, 1000);
    let step = cp.step.as_ref().unwrap();
    assert_eq!(step.number, r.number);
    let Actor::Informer { process, kind } = &r.actor else { panic!() };
    let part = MapPart::Informer { process: process.clone(), kind: kind.clone() };
    let tile = cp.node(&part).unwrap();
    assert!(tile.changed);
    assert_eq!(step.tokens.len(), 1);
    let t = &step.tokens[0];
    assert_eq!(t.look, "event");
    assert!(t.text.starts_with("ADDED "), "{}", t.text);
    let api = cp.api.as_ref().unwrap().rect;
    assert!(t.from.1 == api.y || t.from.1 == api.bottom(), "from the API server");
    assert!(tile.rect.x <= t.to.0 && t.to.0 <= tile.rect.right(), "to the tile");
    assert!(step.caption.contains("travelled from the API server to the Deployment informer"), "{}", step.caption);
    assert!(tile.labels.iter().any(|l| l.text == "1 cached"), "{:?}", tile.labels);
    assert!(cp.text.iter().any(|t| t.text.starts_with(&format!("Step {}: ", r.number))));
}

#[test]
fn a_key_added_three_times_merges_into_one_waiting_entry_and_says_so() {
    let mut w = settled(1);
    w.create(deployment("web", 1)).unwrap();
    w.run_until_idle(5000);
    let dk = Kind::by_kind("Deployment").unwrap();
    for n in 2..5 {
        let mut d = w.api().get(dk, Some("default"), "web").unwrap();
        d["spec"]["replicas"] = n.into();
        w.update(d).unwrap();
    }
    // Deliver and handle the three events, taking nothing.
    let mut last = None;
    loop {
        let p = w.pending();
        let Some(next) = p.iter().find(|p| matches!(p.action, ActionKind::DeliverEvent | ActionKind::RunHandler))
        else {
            break;
        };
        last = Some(w.run(next.id).unwrap());
    }
    let r = last.unwrap();
    assert_eq!(r.action, ActionKind::RunHandler);
    let cp = control_plane(&w, 1000);
    let q = cp
        .processes
        .iter()
        .flat_map(|p| &p.queues)
        .find(|q| matches!(&q.node.part, MapPart::Queue { controller, .. } if controller == "deployment-controller"))
        .unwrap();
    // One waiting entry (the deployment controller's progress-deadline check may also hold the
    // key in the delaying queue: that is a different list).
    let waiting: Vec<&Chip> =
        q.chips.iter().filter(|c| c.key == "default/web" && c.state != ChipState::Delayed).collect();
    assert_eq!(waiting.len(), 1, "{:?}", q.chips);
    let chip = waiting[0];
    assert_eq!(chip.state, ChipState::Waiting);
    assert_eq!(chip.text, "web ×3");
    assert!(q.node.name.contains("default/web (waiting, 3 adds merged into one)"), "{}", q.node.name);
    let step = cp.step.as_ref().unwrap();
    if matches!(&r.actor, Actor::Controller { controller, .. } if controller == "deployment-controller") {
        assert!(
            step.caption
                .contains("default/web was already waiting: the queue merged the add into it (3 adds, one entry)"),
            "{}",
            step.caption
        );
        assert!(chip.changed);
        assert_eq!(step.tokens[0].look, "key");
    }
}

#[test]
fn a_take_and_a_reconcile_move_the_key_and_the_calls_come_back_with_their_codes() {
    let mut w = settled(1);
    w.create(deployment("web", 2)).unwrap();
    let take = step_until(&mut w, "the deployment worker takes default/web", |r| {
        r.action == ActionKind::TakeKey && r.worked_key() == Some("default/web")
    });
    let cp = control_plane(&w, 1000);
    let q = cp.processes.iter().flat_map(|p| &p.queues).find(|q| q.node.changed).unwrap();
    let chip = q.chips.iter().find(|c| c.key == "default/web").unwrap();
    assert_eq!(chip.state, ChipState::Processing);
    assert_eq!(chip.text, "▶ web");
    assert!(chip.changed);
    assert!(cp.step.as_ref().unwrap().caption.contains("took default/web from its queue (Get)"));
    let _ = take;
    let r = w.step().unwrap();
    assert_eq!(r.action, ActionKind::Reconcile);
    let cp = control_plane(&w, 1000);
    let step = cp.step.as_ref().unwrap();
    let calls: Vec<&Token> = step.tokens.iter().filter(|t| t.look == "call").collect();
    let replies: Vec<&Token> = step.tokens.iter().filter(|t| t.look == "reply").collect();
    assert!(calls.iter().any(|t| t.text.starts_with("CREATE ReplicaSet web-")), "{:?}", step.tokens);
    assert!(replies.iter().any(|t| t.text == "201"), "{:?}", step.tokens);
    // A reply leaves when its call arrives, back the way it came.
    assert_eq!(replies[0].delay_ms, calls[0].delay_ms + TRAVEL_MS);
    assert_eq!((replies[0].from, replies[0].to), (calls[0].to, calls[0].from));
    assert!(cp.api.as_ref().unwrap().changed);
    assert!(step.caption.contains("CREATE ReplicaSet default/web-"), "{}", step.caption);
    assert!(step.caption.contains("goes out as watch events"), "{}", step.caption);
    assert!(step.tokens.iter().any(|t| t.look == "event"), "the new version goes out on the streams");
    assert!(cp.streams.iter().any(|s| s.changed && s.in_flight > 0));
}

#[test]
fn a_409_shows_both_writers_and_both_resource_versions() {
    let mut w = settled(1);
    w.create(deployment("web", 1)).unwrap();
    w.run_until_idle(5000);
    let leader = w.processes().iter().find(|p| p.leading()).unwrap().name.clone();
    w.conflict_next_write(&leader).unwrap();
    let dk = Kind::by_kind("Deployment").unwrap();
    let mut d = w.api().get(dk, Some("default"), "web").unwrap();
    d["spec"]["replicas"] = 2.into();
    w.update(d).unwrap();
    step_until(&mut w, "a 409", |r| r.calls.iter().any(|c| c.code == 409));
    let cp = control_plane(&w, 1000);
    let c = cp.conflict.as_ref().expect("the 409 is in the picture");
    assert!(c.stored_rv > c.sent_rv, "{c:?}");
    assert!(c.winner.is_some(), "{c:?}");
    assert!(c.loser.contains(&leader));
    let sentence = c.sentence();
    assert!(sentence.starts_with("409 Conflict on "), "{sentence}");
    assert!(
        sentence.contains(&format!("sent rv {}", c.sent_rv))
            && sentence.contains(&format!("stored rv {} was written by", c.stored_rv)),
        "{sentence}"
    );
    let api = cp.api.as_ref().unwrap();
    assert!(api.look.contains("map__node--conflict"));
    assert!(api.labels.iter().any(|l| l.text.starts_with("409 Conflict on ")), "{:?}", api.labels);
    assert!(api.name.contains(&sentence));
    // Nothing of it is cut off at any width: both writers and both resourceVersions are read
    // on the picture itself.
    for width in [320, 360, 480, WIDE_MIN, 800, 1000, 1300] {
        let cp = control_plane(&w, width);
        check_layout(&cp);
        let api = cp.api.as_ref().unwrap();
        let said: Vec<&str> = api.labels.iter().map(|l| l.text.as_str()).collect();
        assert!(said.iter().all(|t| !t.ends_with('…')), "{width}: {said:?}");
        let said = said.join(" ");
        for part in [format!("sent rv {}", c.sent_rv), format!("stored rv {}", c.stored_rv), "409 Conflict on".into()] {
            assert!(said.contains(&part), "{width}: {part} in {said}");
        }
    }
    let step = cp.step.as_ref().unwrap();
    assert!(step.tokens.iter().any(|t| t.look == "error" && t.text == "409 Conflict"));
    assert!(
        step.caption.contains(&format!("→ 409 Conflict (sent rv {}, stored rv {})", c.sent_rv, c.stored_rv)),
        "{}",
        step.caption
    );
    // The calls leave the leader at its right edge: their labels stay off the standby's box.
    let standby = cp.processes.iter().find(|p| !p.frame.name.contains(&leader) && p.frame.name.contains("standby"));
    let standby = standby.expect("a standby replica").frame.rect;
    for t in &step.tokens {
        let w = t.label_width();
        for (x, y) in [t.from, t.via, t.to] {
            let bx = if t.label_left { x - 6 - w } else { x + 6 };
            let label = Rect { x: bx, y: y - 8, w, h: 16 };
            assert!(!label.overlaps(&standby), "token {:?} at {:?} over the standby {standby:?}", t.text, (x, y));
        }
    }
}

#[test]
fn at_a_thousand_pods_it_shows_counts_and_a_few_keys() {
    let mut w = settled(1);
    w.create(deployment("web", 1000)).unwrap();
    // Run until the pods exist and many keys wait.
    let pod = Kind::by_kind("Pod").unwrap();
    while w.api().count(pod) < 1000 {
        w.step().unwrap();
    }
    for _ in 0..3000 {
        w.step();
    }
    for width in [360, 1000] {
        let cp = control_plane(&w, width);
        check_layout(&cp);
        let chips: usize = cp.processes.iter().flat_map(|p| &p.queues).map(|q| q.chips.len()).sum();
        assert!(chips < 60, "{chips} chips");
        assert!(cp.text.len() < 40, "the text grows with the processes, not the pods: {}", cp.text.len());
        let api = cp.api.as_ref().unwrap();
        assert!(api.labels[0].text.contains(" objects") || width < WIDE_MIN, "{:?}", api.labels);
        let tile = cp
            .processes
            .iter()
            .flat_map(|p| &p.informers)
            .find(|t| matches!(&t.part, MapPart::Informer { kind, .. } if kind == "Pod"))
            .unwrap();
        assert!(tile.name.contains("1,0"), "{}", tile.name);
    }
    let cp = control_plane(&w, 1000);
    let more = cp.processes.iter().flat_map(|p| &p.queues).flat_map(|q| &q.chips).find(|c| c.state == ChipState::More);
    assert!(more.is_some_and(|c| c.text.starts_with('+')), "the keys that do not fit are counted");
}

#[test]
fn selecting_filters_what_the_panels_show() {
    let kcm = MapPart::Process("kube-controller-manager-a".into());
    assert!(kcm.shows_informer("kube-controller-manager-a", "Pod"));
    assert!(!kcm.shows_informer("kube-scheduler", "Pod"));
    assert!(kcm.shows_queue("kube-controller-manager-a", "deployment-controller"));
    let inf = MapPart::Informer { process: "kube-scheduler".into(), kind: "Pod".into() };
    assert!(inf.shows_informer("kube-scheduler", "Pod"));
    assert!(!inf.shows_informer("kube-scheduler", "Node"));
    let q = MapPart::Queue { process: "kube-controller-manager-a".into(), controller: "replicaset-controller".into() };
    assert!(!q.shows_queue("kube-controller-manager-a", "deployment-controller"));
    assert!(q.shows_informer("kubelet", "Pod"), "a queue does not filter the streams");
    assert!(q.filters("Work queues") && !q.filters("Watch events"));
    assert!(MapPart::ApiServer.shows_queue("x", "y") && !MapPart::ApiServer.filters("Work queues"));
    assert_eq!(inf.id(), "informer-kube-scheduler-pod");
    assert_eq!(inf.detail_regions(), &["Watch events", "Informer caches"]);
}

#[test]
fn text_helpers() {
    assert_eq!(fit("kube-controller-manager-a", text_width(10, 11), 11), "kube-cont…");
    assert_eq!(fit("short", 500, 11), "short");
    assert_eq!(
        wrap("standby · Lease: control-plane-a, 13.8s left", 20),
        vec!["standby · Lease:", "control-plane-a,", "13.8s left"]
    );
    assert_eq!(short_duration(Duration::from_millis(1459)), "1.5s");
    assert_eq!(short_duration(Duration::from_millis(800)), "800ms");
    assert_eq!(short_duration(Duration::from_secs(15)), "15s");
    assert_eq!(chip_key("default/web"), "web");
    assert_eq!(chip_key("attemptToDelete ReplicaSet default/web-5d4f 2b05-x"), "delete web-5d4f");
}

#[test]
fn on_a_narrow_screen_the_api_server_and_the_informer_strips_say_it_all() {
    let w = settled(1);
    let cp = control_plane(&w, 328);
    assert!(cp.stacked);
    check_layout(&cp);
    // The API server's box grows to say what its store holds and its watch history, whole.
    let api: Vec<&str> = cp.api.as_ref().unwrap().labels.iter().map(|l| l.text.as_str()).collect();
    assert!(api.iter().all(|t| !t.ends_with('…')), "{api:?}");
    assert!(api.join(" ").contains("events per kind"), "{api:?}");
    let strips: Vec<&Node> = cp.processes.iter().flat_map(|p| &p.informers).collect();
    assert!(strips.len() > 5);
    for t in strips {
        let said = &t.labels[0].text;
        assert!(!said.ends_with('…') && said.contains("cached") && said.contains("rv "), "{said}");
    }
}
