//! What the last step moved: tokens from part to part, and the parts it changed.

use super::layout::MARGIN;
use super::*;

// ----- the step's change -----

/// Handler adds of each wanted `(process, controller, key)` since a worker last took the key,
/// in one pass over the recent records (newest first).
pub(super) fn adds_since_taken(
    history: &[StepRecord],
    wanted: &BTreeSet<(String, String, String)>,
) -> BTreeMap<(String, String, String), usize> {
    let mut counts: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    if wanted.is_empty() {
        return counts;
    }
    let mut closed: BTreeSet<(String, String, String)> = BTreeSet::new();
    for r in history.iter().rev() {
        let Actor::Controller { process, controller } = &r.actor else { continue };
        let Some(work) = &r.work else { continue };
        match r.action {
            ActionKind::TakeKey => {
                if let Some(k) = &work.key {
                    let id = (process.clone(), controller.clone(), k.clone());
                    if wanted.contains(&id) {
                        closed.insert(id);
                    }
                }
            }
            ActionKind::RunHandler => {
                for k in &work.added {
                    let id = (process.clone(), controller.clone(), k.clone());
                    if wanted.contains(&id) && !closed.contains(&id) {
                        *counts.entry(id).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
        if closed.len() == wanted.len() {
            break;
        }
    }
    counts
}

/// `default/web` -> `web`; a garbage collector key (`attemptToDelete ReplicaSet default/web-x
/// <uid>`) -> `delete web-x`: what fits on a chip. The full key is in its accessible name.
pub(super) fn chip_key(key: &str) -> String {
    let parts: Vec<&str> = key.split(' ').collect();
    let (prefix, object) = if parts.len() >= 3 {
        (format!("{} ", parts[0].trim_start_matches("attemptTo").to_ascii_lowercase()), parts[2])
    } else {
        (String::new(), key)
    };
    let name = object.rsplit('/').next().unwrap_or(object);
    format!("{prefix}{name}")
}

/// The first call's verb and the target's kind and name, short: `UPDATE ReplicaSet web-x`.
pub(super) fn call_text(c: &ApiCall) -> String {
    let target = match &c.target {
        CallTarget::Object { kind, name, .. } => format!("{kind} {name}"),
        CallTarget::Collection { kind, .. } => format!("{kind} *"),
        other => other.to_string(),
    };
    format!("{} {target}", c.verb)
}

/// Where a part's box is, or the API server's centre.
pub(super) fn anchor(cp: &ControlPlane, part: &MapPart) -> Rect {
    cp.node(part).map(|n| n.rect).or(cp.api.as_ref().map(|a| a.rect)).unwrap_or_default()
}

/// The point on the API server's edge facing `r`.
pub(super) fn api_edge(cp: &ControlPlane, r: Rect) -> (i32, i32) {
    let a = cp.api.as_ref().map(|a| a.rect).unwrap_or_default();
    let x = r.cx().clamp(a.x + 4, a.right() - 4);
    if cp.stacked {
        (a.x + 4, a.bottom())
    } else if r.bottom() <= a.y {
        (x, a.y)
    } else {
        (x, a.bottom())
    }
}

/// The point on `r`'s edge facing the API server.
pub(super) fn edge_facing_api(cp: &ControlPlane, r: Rect) -> (i32, i32) {
    let a = cp.api.as_ref().map(|a| a.rect).unwrap_or_default();
    if cp.stacked {
        (r.x, r.y + 8)
    } else if r.bottom() <= a.y {
        (r.cx(), r.bottom())
    } else {
        (r.cx(), r.y)
    }
}

pub(super) fn mid(a: (i32, i32), b: (i32, i32)) -> (i32, i32) {
    ((a.0 + b.0) / 2, (a.1 + b.1) / 2)
}

pub(super) fn straight(from: (i32, i32), to: (i32, i32), text: String, look: &'static str, delay_ms: u32) -> Token {
    let text = fit(&text, text_width(TOKEN_CHARS, SMALL_PX), SMALL_PX);
    Token { from, via: mid(from, to), to, text, look, delay_ms, label_left: false }
}

/// A call from `from` to `to` leaving after `delay_ms`, and its reply (`reply`, an error's look
/// when `code` is one) leaving as the call lands.
fn round_trip(
    tokens: &mut Vec<Token>,
    from: (i32, i32),
    to: (i32, i32),
    call: String,
    reply: String,
    code: u16,
    delay_ms: u32,
) {
    tokens.push(straight(from, to, call, "call", delay_ms));
    tokens.push(straight(to, from, reply, reply_look(code), delay_ms + TRAVEL_MS));
}

/// A reply's look: an error (4xx, 5xx) or a plain reply.
fn reply_look(code: u16) -> &'static str {
    if code >= 400 {
        "error"
    } else {
        "reply"
    }
}

/// How long a token takes to travel (the CSS animation's duration; keep in step with
/// `style/map.css`), and so when a reply may leave.
pub const TRAVEL_MS: u32 = 600;

/// What the step moved, where, from its record and the picture's coordinates.
pub(super) fn step_change(cp: &ControlPlane, r: &StepRecord, world: &World) -> StepChange {
    let mut change = step_moves(cp, r, world);
    change.tokens.truncate(MAX_TOKENS);
    // A label goes on the right of its dot unless, along its way, it would cross the drawing's
    // right edge or a box that is neither where it starts nor where it ends (a call leaving a
    // process at its right edge would otherwise cover its neighbour's text).
    let mut boxes: Vec<Rect> = cp.processes.iter().map(|p| p.frame.rect).collect();
    boxes.extend(cp.api.iter().map(|n| n.rect));
    boxes.extend(cp.cloud.iter().map(|n| n.rect));
    boxes.push(cp.user.rect);
    let holds =
        |r: &Rect, (x, y): (i32, i32)| x >= r.x - 2 && x <= r.right() + 2 && y >= r.y - 2 && y <= r.bottom() + 2;
    for t in &mut change.tokens {
        let xs = [t.from.0, t.via.0, t.to.0];
        let ys = [t.from.1, t.via.1, t.to.1];
        let (left, right) = (*xs.iter().min().unwrap_or(&0), *xs.iter().max().unwrap_or(&0));
        let (top, bottom) = (*ys.iter().min().unwrap_or(&0) - 8, *ys.iter().max().unwrap_or(&0) + 8);
        let w = t.label_width();
        let crossed = |x: i32, x_end: i32| {
            let sweep = Rect { x, y: top, w: x_end - x, h: bottom - top };
            boxes.iter().filter(|b| sweep.overlaps(b) && !holds(b, t.from) && !holds(b, t.to)).count()
        };
        let off_right = right + 6 + w > cp.width - MARGIN;
        let off_left = left - 6 - w < MARGIN;
        let on_right = crossed(left + 6, right + 6 + w);
        let on_left = crossed(left - 6 - w, right - 6);
        t.label_left = !off_left && (off_right || on_left < on_right);
    }
    change
}

pub(super) fn step_moves(cp: &ControlPlane, r: &StepRecord, world: &World) -> StepChange {
    let mut tokens = Vec::new();
    let mut changed = Vec::new();
    let mut streams = Vec::new();
    let caption;
    match (&r.action, &r.actor) {
        (ActionKind::DeliverEvent, Actor::Informer { process, kind }) => {
            let part = MapPart::Informer { process: process.clone(), kind: kind.clone() };
            let d = r.delivered.as_ref();
            let (ty, key, rv) =
                d.map(|d| (d.event_type.as_str(), d.key.clone(), d.resource_version)).unwrap_or(("", String::new(), 0));
            let text = match d.and_then(|d| d.error.as_ref()) {
                Some((code, _)) => format!("ERROR {code}"),
                None if ty == "BOOKMARK" => format!("BOOKMARK rv {rv}"),
                None => format!("{ty} {}", chip_key(&key)),
            };
            if let Some(s) = cp.streams.iter().find(|s| s.part == part) {
                let from = s.points[0];
                let to = *s.points.last().unwrap_or(&from);
                let via = if s.points.len() > 2 { s.points[1] } else { mid(from, to) };
                let look = if d.is_some_and(|d| d.error.is_some()) { "error" } else { "event" };
                tokens.push(Token { via, ..straight(from, to, text, look, 0) });
            }
            let cached = world
                .process(process)
                .and_then(|p| p.informers().iter().find(|i| i.kind().kind == kind))
                .map_or(0, |i| i.indexer().len());
            let cached = format!("{} cached", thousands(cached));
            caption = match d.and_then(|d| d.error.clone()) {
                Some((code, message)) => format!("The {kind} watch of {process} delivered ERROR {code} ({message}): the reflector must list again."),
                None => format!("Watch event {ty} {kind} {key} (rv {rv}) travelled from the API server to the {kind} informer of {process}; its cache ({cached}) now holds rv {rv}, and its handlers are queued."),
            };
            streams.push(part.clone());
            changed.push(part);
        }
        (ActionKind::List | ActionKind::Rewatch, Actor::Informer { process, kind }) => {
            let part = MapPart::Informer { process: process.clone(), kind: kind.clone() };
            let t = anchor(cp, &part);
            let (a, b) = (edge_facing_api(cp, t), api_edge(cp, t));
            let list = r.calls.iter().find(|c| c.verb == Verb::List);
            let verb = list.map_or("WATCH", |c| c.verb.as_str());
            tokens.push(straight(a, b, format!("{verb} {kind}"), "call", 0));
            let reply = list.map(|c| {
                if c.code < 300 {
                    format!("{} rv {}", c.code, c.resource_version)
                } else {
                    c.code.to_string()
                }
            });
            if let Some(reply) = reply {
                tokens.push(straight(b, a, reply, reply_look(list.map_or(0, |c| c.code)), TRAVEL_MS));
            }
            caption = format!(
                "The {kind} informer of {process} {}.",
                match list {
                    Some(c) if c.code < 300 => format!(
                        "listed at resourceVersion {} (LIST → {}), filled its cache and opened its watch",
                        c.resource_version, c.code
                    ),
                    Some(c) => format!("tried to list: LIST → {}", c.code),
                    None => "opened its watch again".to_string(),
                }
            );
            changed.push(part);
        }
        (ActionKind::Resync, Actor::Informer { process, kind }) => {
            let part = MapPart::Informer { process: process.clone(), kind: kind.clone() };
            caption = format!("The {kind} informer of {process} resynced: its handlers hear OnUpdate for every cached object (no API call).");
            changed.push(part);
        }
        (ActionKind::RunHandler, Actor::Controller { process, controller }) => {
            let queue = MapPart::Queue { process: process.clone(), controller: controller.clone() };
            let kind = r.objects.first().map(|o| o.kind.clone()).unwrap_or_default();
            let informer = MapPart::Informer { process: process.clone(), kind: kind.clone() };
            let work = r.work.as_ref();
            let added: Vec<String> = work.map(|w| w.added.clone()).unwrap_or_default();
            let delayed: Vec<String> = work
                .map(|w| w.delayed.iter().map(|(k, d)| format!("{k} (in {})", short_duration(*d))).collect())
                .unwrap_or_default();
            let (ti, tq) = (anchor(cp, &informer), anchor(cp, &queue));
            let from =
                if cp.stacked { (ti.x + 12, ti.cy()) } else { (ti.cx(), if ti.y > tq.y { ti.y } else { ti.bottom() }) };
            let object = r.objects.first().map(|o| format!("{} {}", o.kind, o.key)).unwrap_or_default();
            let q = cp
                .processes
                .iter()
                .find(|p| p.frame.part == MapPart::Process(process.clone()))
                .and_then(|p| p.queues.iter().find(|q| q.node.part == queue));
            // To the chip of the first key added (where it landed or merged), else the row.
            let landed = added.first().and_then(|k| q.and_then(|q| q.chips.iter().find(|c| &c.key == k)));
            let to = landed.map_or((tq.x + tq.w / 3, tq.cy()), |c| (c.rect.x + 4, c.rect.cy()));
            if added.is_empty() && delayed.is_empty() {
                tokens.push(straight(from, mid(from, to), "no key".into(), "key", 0));
                caption = format!("The {controller} handler saw {object} and queued nothing.");
            } else {
                let first = added
                    .first()
                    .cloned()
                    .or_else(|| work.and_then(|w| w.delayed.first().map(|(k, _)| k.clone())))
                    .unwrap_or_default();
                let extra = added.len() + delayed.len() - 1;
                let label = if extra > 0 { format!("{} +{extra}", chip_key(&first)) } else { chip_key(&first) };
                tokens.push(straight(from, to, label, "key", 0));
                let mut fates = Vec::new();
                for k in &added {
                    let fate = match q.and_then(|q| q.chips.iter().find(|c| &c.key == k)) {
                        Some(c) if c.state == ChipState::Dirty => {
                            format!("{k} is being processed, so it is marked dirty: it runs once more after Done")
                        }
                        Some(c) if c.text.contains('×') => {
                            let n = c.text.rsplit('×').next().unwrap_or("").split(' ').next().unwrap_or("").to_string();
                            format!("{k} was already waiting: the queue merged the add into it ({n} adds, one entry)")
                        }
                        _ if q.is_some_and(|q| q.chips.iter().any(|c| c.key == *k)) => format!("{k} joined the queue"),
                        _ => format!("{k} is in the queue"),
                    };
                    fates.push(fate);
                }
                for d in &delayed {
                    fates.push(format!("{d} waits in the delaying queue"));
                }
                caption = format!("The {controller} handler saw {object}: {}.", fates.join("; "));
            }
            changed.push(informer);
            changed.push(queue);
        }
        (ActionKind::TakeKey, Actor::Controller { process, controller }) => {
            let queue = MapPart::Queue { process: process.clone(), controller: controller.clone() };
            let key = r.worked_key().unwrap_or_default().to_string();
            let tq = anchor(cp, &queue);
            let chip = cp
                .processes
                .iter()
                .flat_map(|p| &p.queues)
                .find(|q| q.node.part == queue)
                .and_then(|q| q.chips.iter().find(|c| c.key == key))
                .map(|c| c.rect);
            let to = chip.map_or((tq.x + 120, tq.cy()), |c| (c.x + 4, c.cy()));
            let from = (tq.right() - 30, tq.cy());
            tokens.push(straight(from, to, format!("Get {}", chip_key(&key)), "key", 0));
            caption = format!("A {controller} worker took {key} from its queue (Get): it is processing until its reconcile calls Done.");
            changed.push(queue);
        }
        (ActionKind::Reconcile, Actor::Controller { process, controller }) => {
            let queue = MapPart::Queue { process: process.clone(), controller: controller.clone() };
            let tq = anchor(cp, &queue);
            let key = r.worked_key().unwrap_or_default().to_string();
            let proc_rect = anchor(cp, &MapPart::Process(process.clone()));
            let port = (proc_rect.right() - 10, tq.cy());
            let mut said = Vec::new();
            for (k, c) in r.calls.iter().filter(|c| !c.target.is_event()).take(4).enumerate() {
                let delay = (k as u32) * TRAVEL_MS * 2;
                let (target, is_cloud) = if matches!(c.verb, Verb::Cloud(_)) {
                    (cp.cloud.as_ref().map(|n| (n.rect.x + 8, n.rect.cy())), true)
                } else {
                    (None, false)
                };
                let edge = if cp.stacked { api_edge(cp, proc_rect) } else { (port.0, api_edge(cp, proc_rect).1) };
                let to = target.unwrap_or(edge);
                let from = if is_cloud { (proc_rect.right() - 4, proc_rect.cy()) } else { port };
                let code = if c.code == 409 { "409 Conflict".to_string() } else { c.code.to_string() };
                round_trip(&mut tokens, from, to, call_text(c), code, c.code, delay);
                // A 409 says both resourceVersions instead of the API server's message (the
                // picture's API server names both writers; the Watch events and Conflicts
                // panels keep the message): the caption stays within two lines.
                match &cp.conflict {
                    Some(n) if c.code == 409 && c.target == n.target => said.push(format!(
                        "{} {} → 409 Conflict (sent rv {}, stored rv {})",
                        c.verb, c.target, n.sent_rv, n.stored_rv
                    )),
                    _ => said.push(c.to_string()),
                }
            }
            let n = r.calls.iter().filter(|c| !c.target.is_event()).count();
            if n > 4 {
                said.push(format!("and {} more", n - 4));
            }
            let did = if said.is_empty() { "made no write".to_string() } else { said.join("; ") };
            let mut cap = format!("The {controller} worker reconciled {key}: {did}.");
            if r.work.as_ref().is_some_and(|w| w.requeued_dirty) {
                cap.push_str(&format!(" {key} was dirty, so Done put it back in the queue once."));
            } else {
                cap.push_str(" Done: the key left the processing set.");
            }
            caption = cap;
            changed.push(queue);
            if n > 0 {
                changed.push(MapPart::ApiServer);
            }
            if r.calls.iter().any(|c| matches!(c.verb, Verb::Cloud(_))) {
                changed.push(MapPart::Cloud);
            }
        }
        (ActionKind::QueueTimer, Actor::Controller { process, controller }) => {
            let queue = MapPart::Queue { process: process.clone(), controller: controller.clone() };
            let keys = r.work.as_ref().map(|w| w.added.join(", ")).unwrap_or_default();
            caption = format!(
                "A delayed key of {controller} is due: {keys} moved from the delaying queue back into the queue."
            );
            changed.push(queue);
        }
        (ActionKind::LeaseTick, Actor::LeaderElector { process }) => {
            let part = MapPart::Process(process.clone());
            let p = anchor(cp, &part);
            let from = edge_facing_api(cp, Rect { x: p.right() - 24, w: 16, ..p });
            let to = api_edge(cp, Rect { x: p.right() - 24, w: 16, ..p });
            for (k, c) in r.calls.iter().take(2).enumerate() {
                round_trip(&mut tokens, from, to, call_text(c), c.code.to_string(), c.code, k as u32 * TRAVEL_MS * 2);
            }
            caption = format!("Leader election in {process}: {}", r.sentence);
            changed.push(part);
            if !r.calls.is_empty() {
                changed.push(MapPart::ApiServer);
            }
        }
        (ActionKind::UserCall, _) => {
            let u = cp.user.rect;
            let a = cp.api.as_ref().map(|a| a.rect).unwrap_or_default();
            let (from, to) = ((u.right(), u.cy()), (a.x, u.cy().clamp(a.y, a.bottom())));
            for (k, c) in r.calls.iter().take(2).enumerate() {
                round_trip(&mut tokens, from, to, call_text(c), c.code.to_string(), c.code, k as u32 * TRAVEL_MS * 2);
            }
            let calls: Vec<String> = r.calls.iter().map(ToString::to_string).collect();
            caption = if calls.is_empty() {
                r.sentence.clone()
            } else {
                format!("{} called the API server: {}.", r.actor, calls.join("; "))
            };
            changed.push(MapPart::ApiServer);
        }
        _ => {
            // A fault or a clock move: the processes its sentence names changed.
            caption = r.sentence.clone();
            for p in &cp.processes {
                if p.frame.part.process().is_some_and(|name| r.sentence.contains(name)) {
                    changed.push(p.frame.part.clone());
                }
            }
        }
    }
    // A write goes out again as watch events: every open stream of the written kinds now has
    // them in flight.
    let written: BTreeSet<&str> = r
        .calls
        .iter()
        .filter(|c| c.code < 300 && !c.verb.is_read() && !matches!(c.verb, Verb::Cloud(_)))
        .filter_map(|c| c.target.kind())
        .collect();
    if !written.is_empty() {
        let start = tokens.iter().map(|t| t.delay_ms).max().unwrap_or(0);
        let mut fanned = 0;
        for s in cp.streams.iter().filter(|s| s.state == WatchState::Open && s.in_flight > 0) {
            let MapPart::Informer { kind, .. } = &s.part else { continue };
            if !written.contains(kind.as_str()) {
                continue;
            }
            streams.push(s.part.clone());
            let from = s.points[0];
            let to =
                s.badge.as_ref().map_or(mid(from, *s.points.last().unwrap_or(&from)), |b| (b.rect.cx(), b.rect.cy()));
            tokens.push(straight(from, to, String::new(), "event", start));
            fanned += 1;
        }
        if fanned > 0 {
            let rv = r.calls.iter().filter(|c| c.code < 300).map(|c| c.resource_version).max().unwrap_or(0);
            return StepChange {
                number: r.number,
                caption: format!(
                    "{caption} The new version (rv {rv}) goes out as watch events on {fanned} stream{}.",
                    if fanned == 1 { "" } else { "s" }
                ),
                tokens,
                changed,
                streams,
            };
        }
    }
    StepChange { number: r.number, caption, tokens, changed, streams }
}

/// The most tokens a step sends (a write to a kind every process watches fans out to several
/// streams; more would say nothing more).
pub const MAX_TOKENS: usize = 24;

/// Marks the boxes and streams the step changed.
pub(super) fn mark_changed(cp: &mut ControlPlane, change: &StepChange, r: &StepRecord) {
    let changed = &change.changed;
    if let Some(api) = cp.api.as_mut() {
        api.changed = changed.contains(&api.part);
    }
    if let Some(c) = cp.cloud.as_mut() {
        c.changed = changed.contains(&c.part);
    }
    let worked = r.worked_key().map(str::to_string);
    let added: Vec<String> = r.work.as_ref().map(|w| w.added.clone()).unwrap_or_default();
    for p in &mut cp.processes {
        p.frame.changed = changed.contains(&p.frame.part);
        for t in &mut p.informers {
            t.changed = changed.contains(&t.part);
        }
        for q in &mut p.queues {
            q.node.changed = changed.contains(&q.node.part);
            if q.node.changed {
                for c in &mut q.chips {
                    c.changed = worked.as_deref() == Some(c.key.as_str()) || added.contains(&c.key);
                }
            }
        }
    }
    for s in &mut cp.streams {
        s.changed = change.streams.contains(&s.part);
    }
}
