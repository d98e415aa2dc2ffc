//! The picture built from the world: the API server, each process's box, its streams.

use super::facts::*;
use super::layout::*;
use super::motion::*;
use super::*;
use crate::engine::kinds::KINDS;
use crate::views::conflicts::conflicts_in;

// ----- building the picture -----

/// The picture for `world`, laid out for `width` pixels (the drawing may be wider when the
/// content needs it: the page scales it down then).
pub fn control_plane(world: &World, width: i32) -> ControlPlane {
    let stacked = width < WIDE_MIN;
    let lease = lease_record(world);
    let facts = process_facts(world, lease.as_ref());
    let history = recent(world.history());
    let last = history.last();
    let has_cloud = facts.iter().any(|f| f.p.name == crate::engine::world::BUCKET_OPERATOR);
    let conflict = last.and_then(|r| last_conflict(history, r));
    // The API server's second line: what its store holds kind by kind (the kinds that have
    // objects) and its watch history, or the last step's 409.
    let rv = world.api().resource_version();
    let (limit, floors) = world.api().watch_history();
    let oldest = floors.iter().map(|(_, f)| *f).max().unwrap_or(0);
    let history_words = if oldest > 0 {
        format!("watch history: last {limit} events per kind; a watch from before rv {oldest} may get 410")
    } else {
        format!("watch history: last {limit} events per kind")
    };
    let stored: Vec<String> = KINDS
        .iter()
        .map(|k| (k.kind, world.api().count(k)))
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {}", thousands(n)))
        .collect();
    let stored = stored.join(", ");
    let line2 = match &conflict {
        Some(c) => (c.sentence(), LabelStyle::Alert),
        None => (format!("{stored} · {history_words}"), LabelStyle::Muted),
    };
    let place = if stacked {
        // The etcd line, then the second line wrapped whole (the box is as narrow as the
        // stacked API server's): a 409's writers are the point of the step, never cut off.
        let inner = width.max(NARROW_MIN) - 2 * MARGIN - USER_W - GAP - 2 * PAD;
        let lines = wrap(&line2.0, chars_in(inner, TEXT_PX)).len();
        place_stacked(&facts, width, has_cloud, 1 + lines.min(8))
    } else {
        place_wide(&facts, width, has_cloud)
    };

    // The keys shown on chips whose handler adds are counted.
    let mut wanted = BTreeSet::new();
    for f in &facts {
        for q in &f.queues {
            for k in q.held.iter().chain(&q.front) {
                wanted.insert((f.p.name.clone(), q.controller.clone(), k.clone()));
            }
        }
    }
    let adds = adds_since_taken(history, &wanted);

    let mut out = ControlPlane { width: place.width, height: place.height, stacked, ..ControlPlane::default() };

    // The API server.
    let objects: usize = KINDS.iter().map(|k| world.api().count(k)).sum();
    out.conflict = conflict.clone();
    let api_rect = place.api;
    let inner = api_rect.w - 2 * PAD;
    let mut api_labels = vec![Label {
        x: api_rect.x + PAD,
        y: api_rect.y + PAD + 11,
        text: fit(&format!("API server · {} objects · resourceVersion {rv}", thousands(objects)), inner, TITLE_PX),
        style: LabelStyle::Title,
    }];
    let line2 = vec![line2];
    if stacked {
        // The box grew to the lines below the title.
        let mut lines: Vec<(String, LabelStyle)> =
            vec![(format!("etcd: {} objects, rv {rv}", thousands(objects)), LabelStyle::Text)];
        lines.extend(line2.iter().flat_map(|(t, s)| wrap(t, chars_in(inner, TEXT_PX)).into_iter().map(|l| (l, *s))));
        api_labels[0].text = "API server".to_string();
        for (i, (t, s)) in lines.into_iter().take(place.api_lines).enumerate() {
            api_labels.push(Label {
                x: api_rect.x + PAD,
                y: api_rect.y + PAD + 11 + TITLE_LINE + LINE * i as i32,
                text: fit(&t, inner, TEXT_PX),
                style: s,
            });
        }
    } else if let Some(c) = &conflict {
        // The headline beside the title, the writers on the line below: the whole sentence
        // fits where one line of it would be cut.
        let (head, writers) = (c.headline(), format!("{}.", c.writers()));
        let title_w = text_width(api_labels[0].text.chars().count(), TITLE_PX) + INLINE_GAP;
        api_labels.push(Label {
            x: api_rect.x + PAD + title_w,
            y: api_rect.y + PAD + 11,
            text: fit(&head, inner - title_w, TEXT_PX),
            style: LabelStyle::Alert,
        });
        api_labels.push(Label {
            x: api_rect.x + PAD,
            y: api_rect.y + PAD + 11 + TITLE_LINE,
            text: fit(&writers, inner, TEXT_PX),
            style: LabelStyle::Alert,
        });
    } else {
        for (t, s) in line2 {
            api_labels.push(Label {
                x: api_rect.x + PAD,
                y: api_rect.y + PAD + 11 + TITLE_LINE,
                text: fit(&t, inner, TEXT_PX),
                style: s,
            });
        }
    }
    let api_name = match &conflict {
        Some(c) => format!(
            "API server: {} objects, resourceVersion {rv}; {history_words}. {}",
            thousands(objects),
            c.sentence()
        ),
        None => format!(
            "API server: {} objects, resourceVersion {rv}; {history_words}. Stored: {stored}.",
            thousands(objects)
        ),
    };
    out.api = Some(Node {
        part: MapPart::ApiServer,
        rect: api_rect,
        labels: api_labels,
        look: if conflict.is_some() { "map__node--api map__node--conflict".into() } else { "map__node--api".into() },
        name: api_name.clone(),
        changed: false,
    });
    out.text.push(TextItem { depth: 0, text: api_name });
    out.user = Decoration {
        rect: place.user,
        labels: vec![
            Label {
                x: place.user.x + PAD,
                y: place.user.y + PAD + 11,
                text: "kubectl".into(),
                style: LabelStyle::Title,
            },
            Label {
                x: place.user.x + PAD,
                y: place.user.y + PAD + 11 + TITLE_LINE,
                text: "(you)".into(),
                style: LabelStyle::Muted,
            },
        ],
    };

    // The processes.
    for (i, f) in facts.iter().enumerate() {
        let rect = place.boxes[i];
        let above = place.above[i];
        out.processes.push(process_node(f, rect, above, stacked, &adds));
        let node = out.processes.last().expect("just pushed");
        out.text.push(TextItem { depth: 0, text: node.frame.name.clone() });
        for q in &node.queues {
            out.text.push(TextItem { depth: 1, text: q.node.name.clone() });
        }
        for t in &node.informers {
            out.text.push(TextItem { depth: 1, text: t.name.clone() });
        }
        // Streams: one per informer.
        for (k, (t, inf)) in node.informers.iter().zip(&f.informers).enumerate() {
            out.streams.push(stream(t, k, inf, node.frame.rect, api_rect, above, stacked));
        }
    }

    // The cloud.
    if let (Some(rect), Some(bi)) =
        (place.cloud, facts.iter().position(|f| f.p.name == crate::engine::world::BUCKET_OPERATOR))
    {
        let buckets = world.cloud().buckets(world.now());
        let leaked = world.leaked_buckets().len();
        let inner = rect.w - 2 * PAD;
        let mut lines = vec![format!("{} bucket{}", buckets.len(), if buckets.len() == 1 { "" } else { "s" })];
        if leaked > 0 {
            lines.push(format!("{leaked} leaked"));
        }
        let mut labels = vec![Label {
            x: rect.x + PAD,
            y: rect.y + PAD + 11,
            text: fit("external cloud", inner, TITLE_PX),
            style: LabelStyle::Title,
        }];
        for (k, l) in lines.iter().enumerate() {
            let style = if k == 1 { LabelStyle::Alert } else { LabelStyle::Text };
            labels.push(Label {
                x: rect.x + PAD,
                y: rect.y + PAD + 11 + TITLE_LINE + LINE * k as i32,
                text: fit(l, inner, TEXT_PX),
                style,
            });
        }
        let name = format!("External cloud, outside the cluster: {}.", lines.join(", "));
        out.text.push(TextItem { depth: 0, text: name.clone() });
        out.cloud = Some(Node {
            part: MapPart::Cloud,
            rect,
            labels,
            look: if leaked > 0 { "map__node--cloud map__node--leaked".into() } else { "map__node--cloud".into() },
            name,
            changed: false,
        });
        let b = place.boxes[bi];
        out.cloud_link = Some(if stacked {
            (b.x + 24, b.bottom(), rect.x + 24, rect.y)
        } else {
            (b.right(), rect.cy(), rect.x, rect.cy())
        });
    }

    // What the last step moved.
    if let Some(r) = last {
        let change = step_change(&out, r, world);
        mark_changed(&mut out, &change, r);
        out.text.push(TextItem { depth: 0, text: format!("Step {}: {}", change.number, change.caption) });
        out.step = Some(change);
    }
    out
}

/// The last step's 409, with both writers (from [`conflicts_in`] over the recent records).
pub(super) fn last_conflict(history: &[StepRecord], last: &StepRecord) -> Option<ConflictNote> {
    if !last.calls.iter().any(|c| c.code == 409 && c.verb != Verb::Create) {
        return None;
    }
    let c = conflicts_in(history).into_iter().rev().find(|c| c.step == last.number)?;
    let stored = last
        .calls
        .iter()
        .find(|x| x.code == 409 && x.target == c.target)
        .map(|x| x.stored_resource_version)
        .filter(|s| *s > 0)
        .or(c.stored_rv)
        .unwrap_or(0);
    Some(ConflictNote {
        target: c.target,
        loser: c.loser,
        sent_rv: c.loser_rv,
        stored_rv: stored,
        winner: c.winner,
        winner_step: c.winner_step,
    })
}

pub(super) fn process_node(
    f: &ProcessFacts,
    rect: Rect,
    above: bool,
    stacked: bool,
    adds: &BTreeMap<(String, String, String), usize>,
) -> ProcessNode {
    let inner = rect.w - 2 * PAD;
    let head = header(f, inner);
    let x = rect.x + PAD;
    // Vertical order: informers face the API server (below a box above it, above a box below it;
    // in the stacked arrangement, after the queues, fed from the trunk on the left).
    let tiles_h = if f.informers.is_empty() {
        0
    } else if stacked {
        4 + STRIP_H * f.informers.len() as i32
    } else {
        4 + TILE_H
    };
    let queues_h = if f.queues.is_empty() { 0 } else { 4 + ROW_H * f.queues.len() as i32 };
    let head_h = head.height();
    let (head_y, queues_y, tiles_y) = if above || stacked {
        let head_y = rect.y + PAD;
        (head_y, head_y + head_h + 4, head_y + head_h + queues_h + 4)
    } else {
        let tiles_y = rect.y + PAD;
        (tiles_y + tiles_h, tiles_y + tiles_h + head_h + 4, tiles_y)
    };
    let mut labels =
        vec![Label { x, y: head_y + 12, text: fit(&head.title, inner, TITLE_PX), style: LabelStyle::Title }];
    if let Some((t, s)) = &head.inline {
        let at = x + text_width(head.title.chars().count(), TITLE_PX) + INLINE_GAP;
        labels.push(Label { x: at, y: head_y + 12, text: fit(t, x + inner - at, TEXT_PX), style: *s });
    }
    for (k, (t, s)) in head.lines.iter().enumerate() {
        labels.push(Label {
            x,
            y: head_y + TITLE_LINE + 11 + LINE * k as i32,
            text: fit(t, inner, TEXT_PX),
            style: *s,
        });
    }
    let mut look = format!("map__node--process map__node--{}", f.state.word());
    if f.p.partitioned {
        look.push_str(" map__node--partitioned");
    }
    let mut name = format!("{}: {}", f.p.name, head.words());
    if !name.ends_with('.') {
        name.push('.');
    }
    if !f.informers.is_empty() {
        name.push_str(&format!(" {} informer{}", f.informers.len(), if f.informers.len() == 1 { "" } else { "s" }));
        name.push_str(&format!(", {} work queue{}.", f.queues.len(), if f.queues.len() == 1 { "" } else { "s" }));
    }
    let frame = Node { part: MapPart::Process(f.p.name.clone()), rect, labels, look, name, changed: false };

    // Queues.
    let queues = f
        .queues
        .iter()
        .enumerate()
        .map(|(k, q)| {
            let row = Rect { x, y: queues_y + ROW_H * k as i32, w: inner, h: ROW_H };
            queue_node(f, q, row, adds)
        })
        .collect();

    // Informers.
    let mut informers = Vec::new();
    let mut tx = x;
    for (k, inf) in f.informers.iter().enumerate() {
        let part = MapPart::Informer { process: f.p.name.clone(), kind: inf.kind.to_string() };
        let lines = tile_lines(inf);
        let (tile, labels) = if stacked {
            let tile = Rect { x, y: tiles_y + 4 + STRIP_H * k as i32, w: inner, h: STRIP_H - 2 };
            // Room for the in-flight badge at the strip's end only when there is one; then
            // the compact form keeps the rv in view rather than cutting it.
            let badge = match inf.state {
                WatchState::Open => inf.in_flight > 0,
                WatchState::Stopped => false,
                _ => true,
            };
            let badge_room = if badge { text_width(11, SMALL_PX) + 8 } else { 0 };
            let room = tile.w - 8 - badge_room;
            let full = format!("{} · {} · {}", lines[0], lines[1], lines[2]);
            let compact = format!("{} {} {}", lines[0], lines[1], lines[2]);
            let text = if text_width(full.chars().count(), TEXT_PX) <= room { full } else { compact };
            (
                tile,
                vec![Label { x: tile.x + 4, y: tile.y + 12, text: fit(&text, room, TEXT_PX), style: LabelStyle::Text }],
            )
        } else {
            let w = tile_width(inf);
            let tile = Rect { x: tx, y: tiles_y + if above { 4 } else { 0 }, w, h: TILE_H - 4 };
            tx += w + TILE_GAP;
            let labels = lines
                .iter()
                .enumerate()
                .map(|(j, l)| Label {
                    x: tile.x + PAD,
                    y: tile.y + 12 + 12 * j as i32,
                    text: fit(l, tile.w - 2 * PAD, TEXT_PX),
                    style: if j == 0 { LabelStyle::Title } else { LabelStyle::Text },
                })
                .collect();
            (tile, labels)
        };
        let in_flight = if inf.in_flight > 0 {
            format!(", {} event{} in flight", inf.in_flight, if inf.in_flight == 1 { "" } else { "s" })
        } else {
            String::new()
        };
        let name = format!(
            "{} informer of {}: {} cached, last resourceVersion {}, {}{in_flight}.",
            inf.kind,
            f.p.name,
            thousands(inf.cached),
            inf.rv,
            inf.words
        );
        let look = match inf.state {
            WatchState::Open => "map__node--informer",
            WatchState::Listing => "map__node--informer map__node--listing",
            WatchState::Broken => "map__node--informer map__node--broken",
            WatchState::Stopped => "map__node--informer map__node--stopped",
        };
        // The tile's own labels use the title style for the kind only when there is room.
        let mut labels = labels;
        if stacked {
            labels[0].style = LabelStyle::Text;
        }
        informers.push(Node { part, rect: tile, labels, look: look.into(), name, changed: false });
    }
    ProcessNode { frame, state: f.state, partitioned: f.p.partitioned, informers, queues }
}

pub(super) fn queue_node(
    f: &ProcessFacts,
    q: &QueueFacts,
    row: Rect,
    adds: &BTreeMap<(String, String, String), usize>,
) -> QueueNode {
    let part = MapPart::Queue { process: f.p.name.clone(), controller: q.controller.clone() };
    let label_w = queue_label_w(f);
    let label = fit(&q.queue, label_w - 4, TEXT_PX);
    let busy = format!("{}/{} busy", q.held.len(), q.workers);
    let labels = vec![
        Label { x: row.x + 2, y: row.y + 14, text: label, style: LabelStyle::Text },
        Label { x: row.x + 2 + label_w, y: row.y + 14, text: busy.clone(), style: LabelStyle::Muted },
    ];
    let adds_of = |k: &str| adds.get(&(f.p.name.clone(), q.controller.clone(), k.to_string())).copied().unwrap_or(0);
    // The chips, in the order they are drawn.
    let mut all: Vec<(String, String, ChipState)> = Vec::new();
    for k in &q.held {
        let dirty = q.dirty.contains(k);
        let text = if dirty { format!("▶ {} +dirty", chip_key(k)) } else { format!("▶ {}", chip_key(k)) };
        all.push((k.clone(), text, if dirty { ChipState::Dirty } else { ChipState::Processing }));
    }
    for k in &q.front {
        let mut text = chip_key(k);
        let n = adds_of(k);
        if n > 1 {
            text.push_str(&format!(" ×{n}"));
        }
        if let Some(r) = q.requeues.get(k) {
            text.push_str(&format!(" ↻{r}"));
        }
        all.push((k.clone(), text, ChipState::Waiting));
    }
    for (k, left, r) in &q.delayed {
        let mut text = format!("{} in {}", chip_key(k), short_duration(*left));
        if *r > 0 {
            text.push_str(&format!(" ↻{r}"));
        }
        all.push((k.clone(), text, ChipState::Delayed));
    }
    let total = q.held.len() + q.waiting + q.delayed_total;
    let mut chips = Vec::new();
    let mut cx = row.x + 2 + label_w + QUEUE_COUNT_W;
    let end = row.right();
    let chip_w = |t: &str| text_width(t.chars().count(), SMALL_PX) + 8;
    for (k, (key, text, state)) in all.iter().enumerate() {
        let text = fit(text, text_width(20, SMALL_PX), SMALL_PX);
        let w = chip_w(&text);
        let rest = total - k;
        let more_w = if rest > 1 { chip_w(&format!("+{}", thousands(rest - 1))) + CHIP_GAP } else { 0 };
        if cx + w + more_w > end {
            break;
        }
        chips.push(Chip {
            key: key.clone(),
            rect: Rect { x: cx, y: row.y + 2, w, h: CHIP_H },
            text,
            state: *state,
            changed: false,
        });
        cx += w + CHIP_GAP;
    }
    let hidden = total - chips.len();
    if hidden > 0 {
        let text = format!("+{}", thousands(hidden));
        let w = chip_w(&text);
        if cx + w <= end {
            chips.push(Chip {
                key: String::new(),
                rect: Rect { x: cx, y: row.y + 2, w, h: CHIP_H },
                text,
                state: ChipState::More,
                changed: false,
            });
        }
    }
    // The accessible name: counts, then the keys shown.
    let mut name = format!(
        "{} work queue ({} in {}): {} waiting, {} processing ({} of {} workers busy)",
        q.controller,
        q.queue,
        f.p.name,
        thousands(q.waiting),
        q.held.len(),
        q.held.len(),
        q.workers
    );
    if !q.dirty.is_empty() {
        name.push_str(&format!(", {} dirty (added again while processing)", q.dirty.len()));
    }
    name.push_str(&format!(", {} delayed", thousands(q.delayed_total)));
    let shown: Vec<String> = chips
        .iter()
        .filter(|c| c.state != ChipState::More)
        .map(|c| {
            let words = match c.state {
                ChipState::Processing => "processing".to_string(),
                ChipState::Dirty => "processing, dirty".to_string(),
                ChipState::Delayed => "delayed".to_string(),
                _ => {
                    let n = adds_of(&c.key);
                    if n > 1 {
                        format!("waiting, {n} adds merged into one")
                    } else {
                        "waiting".to_string()
                    }
                }
            };
            format!("{} ({words})", c.key)
        })
        .collect();
    if !shown.is_empty() {
        name.push_str(&format!(". Keys: {}", shown.join(", ")));
        if hidden > 0 {
            name.push_str(&format!(", and {} more", thousands(hidden)));
        }
    }
    name.push('.');
    QueueNode { node: Node { part, rect: row, labels, look: "map__node--queue".into(), name, changed: false }, chips }
}

pub(super) fn stream(
    tile: &Node,
    index: usize,
    inf: &InformerFacts,
    frame: Rect,
    api: Rect,
    above: bool,
    stacked: bool,
) -> Stream {
    let t = tile.rect;
    let points = if stacked {
        let trunk = MARGIN + TRUNK / 2;
        vec![(trunk, api.bottom()), (trunk, t.cy()), (t.x, t.cy())]
    } else if above {
        vec![(t.cx(), api.y), (t.cx(), t.bottom())]
    } else {
        vec![(t.cx(), api.bottom()), (t.cx(), t.y)]
    };
    let text = match inf.state {
        WatchState::Open if inf.in_flight > 0 => Some(format!("{} ▼", thousands(inf.in_flight))),
        WatchState::Open => None,
        WatchState::Stopped => None,
        _ => Some(inf.short.clone()),
    };
    let badge = text.map(|text| {
        if stacked {
            let text = fit(&text, text_width(11, SMALL_PX), SMALL_PX);
            let w = text_width(text.chars().count(), SMALL_PX) + 6;
            return Badge { rect: Rect { x: t.right() - w - 2, y: t.y + 1, w, h: 14 }, text };
        }
        // Neighbouring tiles' badges sit at two heights in the lane, so that a badge wider than
        // its tile never meets its neighbour's (every second tile shares a height).
        let text = fit(&text, 2 * (text_width(TILE_W_CHARS, TEXT_PX) + 2 * PAD) + TILE_GAP - 8, SMALL_PX);
        let w = text_width(text.chars().count(), SMALL_PX) + 6;
        let mid = if above { (api.y + frame.bottom()) / 2 } else { (api.bottom() + frame.y) / 2 };
        let y = if index.is_multiple_of(2) { mid - 13 } else { mid + 1 };
        Badge { rect: Rect { x: t.cx() - w / 2, y, w, h: 13 }, text }
    });
    Stream { part: tile.part.clone(), points, state: inf.state, in_flight: inf.in_flight, badge, changed: false }
}
