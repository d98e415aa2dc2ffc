//! "Control plane": the whole control plane as one picture (issue 16). The API server and its
//! store in the middle; every process around it (both kube-controller-manager replicas with who
//! leads and the Lease's time left, kube-scheduler, the kubelets with their nodes,
//! bucket-operator with the external cloud beside it, pod-counters once started), each showing
//! its informers (kind, cache size, last resourceVersion, watch state) and its controllers' work
//! queues (keys as chips: waiting, processing, dirty, delayed); one watch stream from the API
//! server to each informer, with its events in flight; and what the last step moved.
//!
//! This module decides everything the picture shows, coordinates included, as plain data: the
//! component in `web::map` draws rectangles, lines and text where it is told to and adds nothing.
//! So the layout is deterministic and tested here (no two boxes overlap, every label fits its box),
//! and so is "what this step changed" ([`StepChange`]), derived from the step's record: a watch
//! event travels from the API server to one informer (`ActionKind::DeliverEvent`), a handler's key
//! lands in a queue or merges into the key already waiting there (client-go's work queue
//! de-duplicates: `util/workqueue/queue.go`, `Add` on a key in the dirty set is a no-op), a
//! worker takes a key (`Get`), a reconcile's calls go to the API server and come back with their
//! status code, a 409 names both writers and both resourceVersions.
//!
//! Two arrangements: wide (the API server as a bar across the middle, the leader-elected
//! controller managers above it, the other processes below, each informer's stream a vertical
//! line) and stacked (for narrow screens: the API server on top, the processes one under another,
//! each informer a strip fed from a trunk on the left). Text is monospace and measured by an upper
//! bound of its advance, so that a label that fits here fits in the browser.
//!
//! Cost: proportional to the processes, informers and queues, never to the objects: counts come
//! from the stores' lengths and the API server's per-kind counts, a queue shows at most the keys
//! that fit its row ("+997" for the rest), and the handler adds behind a merged key are counted for
//! the shown keys only, in one pass over the recent records.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::conflicts::conflicts_in;
use super::{recent, thousands};
use crate::engine::client::leaderelection::LeaderElectionRecord;
use crate::engine::client::ReflectorState;
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::world::{ActionKind, Actor, ApiCall, Process, StepRecord, Verb, World};

// ----- geometry and text -----

/// A rectangle in the picture's coordinates (CSS pixels at scale 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rect {
    /// Left.
    pub x: i32,
    /// Top.
    pub y: i32,
    /// Width.
    pub w: i32,
    /// Height.
    pub h: i32,
}

impl Rect {
    /// `x + w`.
    pub fn right(&self) -> i32 {
        self.x + self.w
    }

    /// `y + h`.
    pub fn bottom(&self) -> i32 {
        self.y + self.h
    }

    /// The horizontal centre.
    pub fn cx(&self) -> i32 {
        self.x + self.w / 2
    }

    /// The vertical centre.
    pub fn cy(&self) -> i32 {
        self.y + self.h / 2
    }

    /// Whether the two share any area (touching edges do not count).
    pub fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.right() && o.x < self.right() && self.y < o.bottom() && o.y < self.bottom()
    }

    /// Whether `o` lies wholly inside.
    pub fn contains(&self, o: &Rect) -> bool {
        o.x >= self.x && o.y >= self.y && o.right() <= self.right() && o.bottom() <= self.bottom()
    }
}

/// Font size of process names (bold), in pixels.
pub const TITLE_PX: i32 = 12;
/// Font size of every other label, in pixels.
pub const TEXT_PX: i32 = 11;
/// Font size of queue chips and badges, in pixels.
pub const SMALL_PX: i32 = 10;
/// An upper bound of a monospace glyph's advance, in hundredths of the font size (DejaVu Sans
/// Mono and Menlo: 60.2, Consolas: 55).
const ADVANCE: i32 = 62;

/// The width `chars` characters take at `px`.
pub fn text_width(chars: usize, px: i32) -> i32 {
    (chars as i32 * px * ADVANCE + 99) / 100
}

/// How many characters fit in `width` at `px`.
fn chars_in(width: i32, px: i32) -> usize {
    (width.max(0) * 100 / (px * ADVANCE)) as usize
}

/// `text`, cut with "…" to fit `width` at `px`.
pub fn fit(text: &str, width: i32, px: i32) -> String {
    let room = chars_in(width, px);
    let n = text.chars().count();
    if n <= room {
        return text.to_string();
    }
    if room == 0 {
        return String::new();
    }
    let mut s: String = text.chars().take(room - 1).collect();
    s.push('…');
    s
}

/// `text` broken into lines of at most `chars` characters, at spaces where it can.
fn wrap(text: &str, chars: usize) -> Vec<String> {
    let chars = chars.max(4);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let need = line.chars().count() + usize::from(!line.is_empty()) + word.chars().count();
        if need > chars && !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        while line.chars().count() > chars {
            let head: String = line.chars().take(chars).collect();
            let rest: String = line.chars().skip(chars).collect();
            lines.push(head);
            line = rest;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// `1459 ms` -> `"1.5s"`, `800` -> `"800ms"`, `75_000` -> `"1m15s"`.
pub fn short_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        let s = format!("{:.1}", ms as f64 / 1000.0);
        format!("{}s", s.trim_end_matches(".0"))
    } else {
        format!("{}m{}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

// ----- the picture's parts -----

/// A part of the picture the learner can select (click, or Enter/Space): its details are the
/// page's panels, filtered to it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MapPart {
    /// The API server and its store.
    ApiServer,
    /// A process (`kube-controller-manager-a`).
    Process(String),
    /// One informer of a process.
    Informer {
        /// `kube-scheduler`.
        process: String,
        /// `Pod`.
        kind: String,
    },
    /// One controller's work queue.
    Queue {
        /// `kube-controller-manager-a`.
        process: String,
        /// `deployment-controller`.
        controller: String,
    },
    /// The external cloud beside bucket-operator.
    Cloud,
}

impl MapPart {
    /// A stable id (for keyed lists and element ids): letters, digits and dashes only.
    pub fn id(&self) -> String {
        let raw = match self {
            MapPart::ApiServer => "api-server".to_string(),
            MapPart::Process(p) => format!("process-{p}"),
            MapPart::Informer { process, kind } => format!("informer-{process}-{kind}"),
            MapPart::Queue { process, controller } => format!("queue-{process}-{controller}"),
            MapPart::Cloud => "cloud".to_string(),
        };
        raw.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
    }

    /// What it is, in words: `Pod informer of kube-scheduler`.
    pub fn title(&self) -> String {
        match self {
            MapPart::ApiServer => "the API server".to_string(),
            MapPart::Process(p) => p.clone(),
            MapPart::Informer { process, kind } => format!("{kind} informer of {process}"),
            MapPart::Queue { process, controller } => format!("{controller} work queue in {process}"),
            MapPart::Cloud => "the external cloud".to_string(),
        }
    }

    /// The process it belongs to, if any.
    pub fn process(&self) -> Option<&str> {
        match self {
            MapPart::Process(p) | MapPart::Informer { process: p, .. } | MapPart::Queue { process: p, .. } => Some(p),
            MapPart::ApiServer | MapPart::Cloud => None,
        }
    }

    /// The page's regions that hold this part's details, most specific first.
    pub fn detail_regions(&self) -> &'static [&'static str] {
        match self {
            MapPart::ApiServer => &["Objects", "Owner graph", "Watch events"],
            MapPart::Process(p) if p.starts_with("kube-controller-manager") => {
                &["Work queues", "Informer caches", "Watch events", "Leases"]
            }
            MapPart::Process(p) if p == crate::engine::world::BUCKET_OPERATOR => {
                &["Work queues", "Informer caches", "Watch events", "Cloud"]
            }
            MapPart::Process(_) => &["Work queues", "Informer caches", "Watch events"],
            MapPart::Informer { .. } => &["Watch events", "Informer caches"],
            MapPart::Queue { .. } => &["Work queues"],
            MapPart::Cloud => &["Cloud", "Objects"],
        }
    }

    /// Whether a panel filtered to this part shows the watch stream or cache of `process`'s
    /// informer for `kind`.
    pub fn shows_informer(&self, process: &str, kind: &str) -> bool {
        match self {
            MapPart::Process(p) => p == process,
            MapPart::Informer { process: p, kind: k } => p == process && k == kind,
            MapPart::ApiServer | MapPart::Queue { .. } | MapPart::Cloud => true,
        }
    }

    /// Whether a panel filtered to this part shows the queue of `controller` in `process`.
    pub fn shows_queue(&self, process: &str, controller: &str) -> bool {
        match self {
            MapPart::Process(p) | MapPart::Informer { process: p, .. } => p == process,
            MapPart::Queue { process: p, controller: c } => p == process && c == controller,
            MapPart::ApiServer | MapPart::Cloud => true,
        }
    }

    /// Whether a panel filtered to this part leaves anything out (so that it says so).
    pub fn filters(&self, region: &str) -> bool {
        matches!(
            (self, region),
            (MapPart::Process(_) | MapPart::Informer { .. }, "Watch events" | "Informer caches" | "Work queues")
                | (MapPart::Queue { .. }, "Work queues")
        )
    }
}

/// Where a process is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProcessState {
    /// Running (no leader election).
    Running,
    /// Holds the Lease: its controllers act.
    Leading,
    /// Running, waiting for the Lease: no informers, no queues.
    Standby,
    /// Stopped cleanly (or never started).
    Stopped,
    /// Killed: nothing released.
    Crashed,
}

impl ProcessState {
    /// The word the picture prints.
    pub fn word(self) -> &'static str {
        match self {
            ProcessState::Running => "running",
            ProcessState::Leading => "leader",
            ProcessState::Standby => "standby",
            ProcessState::Stopped => "stopped",
            ProcessState::Crashed => "crashed",
        }
    }
}

/// What an informer's reflector is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WatchState {
    /// Its first list is due.
    Listing,
    /// Watching: the stream is open.
    Open,
    /// The stream ended or broke; the reflector watches again or relists (after a back-off).
    Broken,
    /// Stopped with its process.
    Stopped,
}

/// How a label is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LabelStyle {
    /// A process or box name: bold, [`TITLE_PX`].
    Title,
    /// Plain, [`TEXT_PX`].
    Text,
    /// Secondary, [`TEXT_PX`].
    Muted,
    /// Emphasised: a state that needs attention (409, crashed, broken), [`TEXT_PX`], bold.
    Alert,
}

impl LabelStyle {
    /// Its font size.
    pub fn px(self) -> i32 {
        match self {
            LabelStyle::Title => TITLE_PX,
            _ => TEXT_PX,
        }
    }

    /// Its CSS modifier (`map__label--title`).
    pub fn class(self) -> &'static str {
        match self {
            LabelStyle::Title => "map__label map__label--title",
            LabelStyle::Text => "map__label",
            LabelStyle::Muted => "map__label map__label--muted",
            LabelStyle::Alert => "map__label map__label--alert",
        }
    }
}

/// One line of text: `y` is its baseline.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Left.
    pub x: i32,
    /// Baseline.
    pub y: i32,
    /// What it says (already cut to fit).
    pub text: String,
    /// How it is drawn.
    pub style: LabelStyle,
}

/// A box of the picture.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// What selecting it selects.
    pub part: MapPart,
    /// Where it is.
    pub rect: Rect,
    /// Its lines of text.
    pub labels: Vec<Label>,
    /// CSS modifiers (`map__node--leading map__node--partitioned`): every state is also in its
    /// words, never in colour alone.
    pub look: String,
    /// Its accessible name: everything the box shows, in a sentence.
    pub name: String,
    /// Whether the last step changed it.
    pub changed: bool,
}

/// A queue key's state, as its chip shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChipState {
    /// In the queue, waiting for a worker.
    Waiting,
    /// Held by a worker (`Get`, not yet `Done`).
    Processing,
    /// Held by a worker and added again meanwhile: it runs once more after `Done`.
    Dirty,
    /// Waiting out `AddAfter` or a back-off.
    Delayed,
    /// "+997": the keys that did not fit.
    More,
}

impl ChipState {
    /// Its CSS modifier.
    pub fn class(self) -> &'static str {
        match self {
            ChipState::Waiting => "map__chip map__chip--waiting",
            ChipState::Processing => "map__chip map__chip--processing",
            ChipState::Dirty => "map__chip map__chip--dirty",
            ChipState::Delayed => "map__chip map__chip--delayed",
            ChipState::More => "map__chip map__chip--more",
        }
    }
}

/// One key in a queue row.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Chip {
    /// The full key (`default/web`), or "" for [`ChipState::More`].
    pub key: String,
    /// Where it is.
    pub rect: Rect,
    /// What it says: `▶ web`, `web ×3`, `web in 1.6s`, `+997`.
    pub text: String,
    /// Its state.
    pub state: ChipState,
    /// Whether the last step put it there or changed it.
    pub changed: bool,
}

/// A controller's queue, as one row inside its process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QueueNode {
    /// The row itself (its label and counts).
    pub node: Node,
    /// The keys that fit, processing first, then waiting (next to be taken first), then delayed.
    pub chips: Vec<Chip>,
}

/// A process and everything inside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProcessNode {
    /// The frame, with the name and state.
    pub frame: Node,
    /// Where it is.
    pub state: ProcessState,
    /// Cut off from the API server.
    pub partitioned: bool,
    /// Its informers, one per kind.
    pub informers: Vec<Node>,
    /// Its controllers' queues.
    pub queues: Vec<QueueNode>,
}

/// A small box of text on a line (events in flight, a stream's state).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Badge {
    /// Where it is.
    pub rect: Rect,
    /// `3 ▼`, `broken`, `relist 1.2s`.
    pub text: String,
}

/// One informer's watch stream, from the API server to the informer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Stream {
    /// The informer.
    pub part: MapPart,
    /// The line's points, from the API server's end to the informer's.
    pub points: Vec<(i32, i32)>,
    /// Its state (an open stream is drawn solid, a broken one dashed).
    pub state: WatchState,
    /// Events queued at the API server for this watch, not yet delivered.
    pub in_flight: usize,
    /// The count in flight, or the state when it is not open.
    pub badge: Option<Badge>,
    /// Whether the last step delivered on it or queued an event for it.
    pub changed: bool,
}

impl Stream {
    /// The SVG `points` attribute.
    pub fn svg_points(&self) -> String {
        self.points.iter().map(|(x, y)| format!("{x},{y}")).collect::<Vec<_>>().join(" ")
    }
}

/// Something travelling during the last step, from one part to another (CSS moves it; with
/// reduced motion it is not drawn, and the parts it reached are highlighted instead).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    /// Where it starts.
    pub from: (i32, i32),
    /// A point it passes halfway (the start and the end, for a straight move, meet here).
    pub via: (i32, i32),
    /// Where it stops.
    pub to: (i32, i32),
    /// `MODIFIED web rv 346`, `UPDATE → 409`.
    pub text: String,
    /// `event`, `key`, `call`, `reply`, `error`: its CSS modifier.
    pub look: &'static str,
    /// When it starts, after the step, in milliseconds (a reply leaves after its call arrives).
    pub delay_ms: u32,
    /// Whether its label is drawn on the left of its dot (near the drawing's right edge).
    pub label_left: bool,
}

/// The most characters a token's label shows.
pub const TOKEN_CHARS: usize = 26;

impl Token {
    /// The width of its label's box.
    pub fn label_width(&self) -> i32 {
        text_width(self.text.chars().count(), SMALL_PX) + 8
    }
}

/// What the last step changed, derived from its record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StepChange {
    /// The step's number.
    pub number: u64,
    /// One sentence saying what moved where (the picture's caption).
    pub caption: String,
    /// What travels.
    pub tokens: Vec<Token>,
    /// The parts it changed.
    pub changed: Vec<MapPart>,
    /// The informers whose stream it delivered on, or queued a new event on.
    pub streams: Vec<MapPart>,
}

/// A 409 Conflict of the last step: both writers, both resourceVersions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConflictNote {
    /// `Deployment default/web`.
    pub target: String,
    /// The writer that got 409.
    pub loser: String,
    /// The resourceVersion it sent.
    pub sent_rv: u64,
    /// The one stored (written by the winner).
    pub stored_rv: u64,
    /// Who wrote the stored version, if the records still show it.
    pub winner: Option<String>,
    /// At which step.
    pub winner_step: Option<u64>,
}

impl ConflictNote {
    /// The sentence the picture shows.
    pub fn sentence(&self) -> String {
        format!("{}: {}.", self.headline(), self.writers())
    }

    /// `409 Conflict on ReplicaSet default/web-5d4f`.
    pub fn headline(&self) -> String {
        format!("409 Conflict on {}", self.target)
    }

    /// Who sent which resourceVersion, and who wrote the stored one.
    pub fn writers(&self) -> String {
        let won = match (&self.winner, self.winner_step) {
            (Some(w), Some(s)) => format!("stored rv {} was written by {w} at step {s}", self.stored_rv),
            _ => format!("stored rv is {}", self.stored_rv),
        };
        format!("{} sent rv {}; {won}", self.loser, self.sent_rv)
    }
}

/// One line of the picture's text equivalent.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextItem {
    /// 0 for a process or the API server, 1 for what is inside.
    pub depth: u8,
    /// The line.
    pub text: String,
}

/// A box that is drawn but not selectable (kubectl, the user).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Decoration {
    /// Where it is.
    pub rect: Rect,
    /// Its text.
    pub labels: Vec<Label>,
}

/// The whole picture.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ControlPlane {
    /// The drawing's width (its `viewBox`): at least the width asked for, more when the content
    /// needs it (the page then scales it down).
    pub width: i32,
    /// The drawing's height.
    pub height: i32,
    /// Whether this is the stacked arrangement (narrow screens).
    pub stacked: bool,
    /// The API server (`None` only in [`ControlPlane::default`]).
    pub api: Option<Node>,
    /// kubectl: where the learner's calls come from.
    pub user: Decoration,
    /// The processes, in the world's order.
    pub processes: Vec<ProcessNode>,
    /// The external cloud, beside bucket-operator.
    pub cloud: Option<Node>,
    /// The line from bucket-operator to the cloud: x1, y1, x2, y2.
    pub cloud_link: Option<(i32, i32, i32, i32)>,
    /// One per informer.
    pub streams: Vec<Stream>,
    /// What the last step moved.
    pub step: Option<StepChange>,
    /// The last step's 409, if it got one.
    pub conflict: Option<ConflictNote>,
    /// The picture in words, in the same order.
    pub text: Vec<TextItem>,
}

impl ControlPlane {
    /// Every selectable part, in reading order (the order arrow keys move through): the API
    /// server, then each process followed by its queues and its informers, then the cloud.
    pub fn parts(&self) -> Vec<MapPart> {
        let mut out: Vec<MapPart> = self.api.iter().map(|n| n.part.clone()).collect();
        for p in &self.processes {
            out.push(p.frame.part.clone());
            out.extend(p.queues.iter().map(|q| q.node.part.clone()));
            out.extend(p.informers.iter().map(|i| i.part.clone()));
        }
        out.extend(self.cloud.iter().map(|c| c.part.clone()));
        out
    }

    /// Every selectable box, in [`ControlPlane::parts`] order.
    pub fn nodes(&self) -> Vec<&Node> {
        let mut out: Vec<&Node> = self.api.iter().collect();
        for p in &self.processes {
            out.push(&p.frame);
            out.extend(p.queues.iter().map(|q| &q.node));
            out.extend(p.informers.iter());
        }
        out.extend(self.cloud.iter());
        out
    }

    /// The box of a part.
    pub fn node(&self, part: &MapPart) -> Option<&Node> {
        self.nodes().into_iter().find(|n| &n.part == part)
    }

    /// A short description of a part for the selection line: what it holds now.
    pub fn summary(&self, part: &MapPart) -> String {
        self.node(part)
            .map(|n| n.name.clone())
            .unwrap_or_else(|| format!("{} is not in the picture now.", part.title()))
    }
}

// ----- facts read from the world -----

struct InformerFacts {
    kind: &'static str,
    cached: usize,
    rv: u64,
    state: WatchState,
    /// `relist 1.2s`, `broken`, `lists next`: at most 11 characters.
    short: String,
    /// `watching from resourceVersion 12`.
    words: String,
    in_flight: usize,
}

struct QueueFacts {
    controller: String,
    queue: String,
    workers: usize,
    held: Vec<String>,
    dirty: BTreeSet<String>,
    waiting: usize,
    /// The first waiting keys, in the order `Get` hands them out.
    front: Vec<String>,
    /// Delayed keys, soonest first: key, time left, retries.
    delayed: Vec<(String, Duration, u32)>,
    delayed_total: usize,
    requeues: BTreeMap<String, u32>,
}

struct ProcessFacts<'w> {
    p: &'w Process,
    state: ProcessState,
    /// Words after the state: `Lease held, 13.8s left`, `partitioned`.
    status: String,
    informers: Vec<InformerFacts>,
    queues: Vec<QueueFacts>,
    nodes: Vec<String>,
    note: Option<&'static str>,
}

/// Keys a queue row can show at most (the row cuts further to what fits).
const KEYS_READ: usize = 12;

/// Whether `name`'s last stop, in the recent records, was a crash (`lab kill`), from the fault's
/// sentence (`World::fault`: "{name} crashed: ...", "{name} stopped cleanly ...").
fn crashed(history: &[StepRecord], name: &str) -> bool {
    for r in history.iter().rev().filter(|r| r.action == ActionKind::Fault) {
        if let Some(rest) = r.sentence.strip_prefix(name) {
            if rest.starts_with(" crashed") {
                return true;
            }
            if rest.starts_with(" stopped") || rest.starts_with(" started") {
                return false;
            }
        }
    }
    false
}

/// The controller-manager Lease as recorded on the server.
fn lease_record(world: &World) -> Option<LeaderElectionRecord> {
    let kind = Kind::by_kind("Lease")?;
    let lease = world.api().get(kind, Some("kube-system"), "kube-controller-manager").ok()?;
    Some(LeaderElectionRecord::from_lease_spec(lease.get("spec")?))
}

/// `control-plane-a_2f6c…` -> `control-plane-a`: the host half of an identity.
fn host_of(identity: &str) -> &str {
    identity.split('_').next().unwrap_or(identity)
}

fn informer_facts(world: &World, p: &Process) -> Vec<InformerFacts> {
    let now = world.now();
    p.informers()
        .iter()
        .map(|inf| {
            let rv = inf.last_sync_resource_version();
            let (state, short, words, in_flight) = match *inf.state() {
                ReflectorState::NotStarted => {
                    (WatchState::Listing, "lists next".to_string(), "has not listed yet: it lists next".to_string(), 0)
                }
                ReflectorState::Watching(id) if world.api().watch_is_open(id) && !p.partitioned => {
                    let n = world.api().pending_events(id).len();
                    (WatchState::Open, "watching".to_string(), format!("watching from resourceVersion {rv}"), n)
                }
                ReflectorState::Watching(id) => {
                    let n = world.api().pending_events(id).len();
                    (WatchState::Broken, "ended".to_string(), "its watch ended: it watches again next".to_string(), n)
                }
                ReflectorState::BackingOff { until } => {
                    let left = until.since(now);
                    let short = if left.is_zero() {
                        "relist now".to_string()
                    } else {
                        format!("relist {}", short_duration(left))
                    };
                    let words = if left.is_zero() {
                        "its watch broke: it relists now".to_string()
                    } else {
                        format!("its watch broke: it relists in {}", short_duration(left))
                    };
                    (WatchState::Broken, short, words, 0)
                }
                ReflectorState::RewatchAt { until } => {
                    let left = until.since(now);
                    (
                        WatchState::Broken,
                        format!("rewatch {}", short_duration(left)),
                        format!(
                            "its watch broke: it watches again from resourceVersion {rv} in {}",
                            short_duration(left)
                        ),
                        0,
                    )
                }
                ReflectorState::Stopped => (WatchState::Stopped, "stopped".to_string(), "stopped".to_string(), 0),
            };
            InformerFacts { kind: inf.kind().kind, cached: inf.indexer().len(), rv, state, short, words, in_flight }
        })
        .collect()
}

fn queue_facts(world: &World, p: &Process) -> Vec<QueueFacts> {
    let now = world.now();
    p.slots
        .iter()
        .map(|slot| {
            let q = slot.queue();
            let held: Vec<String> = slot.held().iter().map(|(_, k)| k.clone()).collect();
            let dirty: BTreeSet<String> = crate::sort::btree_set(q.dirty_while_processing().cloned());
            let front: Vec<String> = q.waiting_keys().take(KEYS_READ).cloned().collect();
            let all_delayed = q.delayed_keys();
            let delayed_total = all_delayed.len();
            let delayed: Vec<(String, Duration, u32)> =
                all_delayed.into_iter().take(KEYS_READ).map(|d| (d.key, d.ready_at.since(now), d.requeues)).collect();
            let mut requeues = BTreeMap::new();
            for k in held.iter().chain(&front) {
                let n = q.num_requeues(k);
                if n > 0 {
                    requeues.insert(k.clone(), n);
                }
            }
            QueueFacts {
                controller: slot.controller.name().to_string(),
                queue: q.name().to_string(),
                workers: slot.workers,
                held,
                dirty,
                waiting: q.len(),
                front,
                delayed,
                delayed_total,
                requeues,
            }
        })
        .collect()
}

fn process_facts<'w>(world: &'w World, lease: Option<&LeaderElectionRecord>) -> Vec<ProcessFacts<'w>> {
    let now = world.now();
    let history = recent(world.history());
    world
        .processes()
        .iter()
        .map(|p| {
            let state = match (&p.elector, p.running) {
                (_, false) if crashed(history, &p.name) => ProcessState::Crashed,
                (_, false) => ProcessState::Stopped,
                (Some(e), true) if e.is_leading() => ProcessState::Leading,
                (Some(_), true) => ProcessState::Standby,
                (None, true) => ProcessState::Running,
            };
            let mut status: Vec<String> = Vec::new();
            if let (Some(e), Some(l)) = (&p.elector, lease) {
                let expires = l.renew_time.after(Duration::from_secs(l.lease_duration_seconds.max(0) as u64));
                let left = if expires > now { short_duration(expires.since(now)) } else { "expired".to_string() };
                if l.holder_identity.is_empty() {
                    if p.running {
                        status.push("Lease free".to_string());
                    }
                } else if l.holder_identity == e.identity() {
                    status.push(if expires > now {
                        format!("holds the Lease, {left} left")
                    } else {
                        "its Lease expired".to_string()
                    });
                } else if p.running {
                    let held = if expires > now { format!("{left} left") } else { "expired".to_string() };
                    status.push(format!("Lease: {}, {held}", host_of(&l.holder_identity)));
                }
            }
            if p.partitioned {
                status.push("partitioned".to_string());
            }
            if let Some(until) = p.api_fails_until.filter(|t| *t > now) {
                status.push(format!("calls fail (500) for {}", short_duration(until.since(now))));
            }
            if p.conflict_armed {
                status.push("next write meets a 409".to_string());
            }
            let nodes = if p.name == crate::engine::world::KUBELET {
                Kind::by_kind("Node")
                    .map(|k| world.api().list_metadata(k, None).map(|(_, name, _)| name.to_string()).collect())
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let note = match state {
                ProcessState::Standby => Some("no informers or queues until it leads"),
                ProcessState::Stopped if p.name == crate::engine::world::POD_COUNTERS => {
                    Some("lab start pod-counters starts it")
                }
                ProcessState::Stopped | ProcessState::Crashed => Some("caches and queues are gone"),
                _ => None,
            };
            let active = p.active();
            ProcessFacts {
                p,
                state,
                status: status.join(", "),
                informers: if p.running { informer_facts(world, p) } else { Vec::new() },
                queues: if active { queue_facts(world, p) } else { Vec::new() },
                nodes,
                note,
            }
        })
        .collect()
}

// ----- layout -----

/// Below this width the picture is stacked (one process under another).
pub const WIDE_MIN: i32 = 640;
/// The narrowest picture drawn; a narrower space scales it down.
pub const NARROW_MIN: i32 = 300;
const MARGIN: i32 = 6;
const PAD: i32 = 6;
const GAP: i32 = 12;
const TITLE_LINE: i32 = 16;
const LINE: i32 = 14;
const TILE_W_CHARS: usize = 9;
const TILE_H: i32 = 44;
const TILE_GAP: i32 = 5;
const STRIP_H: i32 = 18;
const ROW_H: i32 = 19;
const CHIP_H: i32 = 16;
const CHIP_GAP: i32 = 4;
const LANE: i32 = 28;
const API_H: i32 = 46;
const USER_W: i32 = 66;
const TRUNK: i32 = 16;
const QUEUE_LABEL_CHARS: usize = 17;
const QUEUE_COUNT_W: i32 = 66;
/// Room for at least two keys beside a queue's name.
const QUEUE_CHIPS_MIN_W: i32 = 120;
const CLOUD_W: i32 = 128;

/// A tile's three lines.
fn tile_lines(f: &InformerFacts) -> [String; 3] {
    [f.kind.to_string(), format!("{} cached", thousands(f.cached)), format!("rv {}", f.rv)]
}

fn tile_width(f: &InformerFacts) -> i32 {
    let [kind, cached, rv] = tile_lines(f);
    let text = cached.chars().count().max(rv.chars().count()).max(TILE_W_CHARS);
    text_width(text, TEXT_PX).max(text_width(kind.chars().count(), TITLE_PX)) + 2 * PAD + 2
}

/// What a process box shows above or below its informers and queues.
struct Header {
    title: String,
    /// The state, on the title's line when it fits there.
    inline: Option<(String, LabelStyle)>,
    /// The lines under the title.
    lines: Vec<(String, LabelStyle)>,
}

impl Header {
    /// Its height.
    fn height(&self) -> i32 {
        TITLE_LINE + LINE * self.lines.len() as i32
    }

    /// Every line, the inline one first, for the accessible name.
    fn words(&self) -> String {
        self.inline.iter().chain(&self.lines).map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// The space between a title and the state written after it on the same line.
const INLINE_GAP: i32 = 10;

fn header(f: &ProcessFacts, inner: i32) -> Header {
    let mut state = f.state.word().to_string();
    if f.state == ProcessState::Leading {
        state.push_str(", acting");
    }
    let status = if f.status.is_empty() { state } else { format!("{state} · {}", f.status) };
    let style = match f.state {
        ProcessState::Crashed | ProcessState::Stopped => LabelStyle::Alert,
        _ if f.p.partitioned => LabelStyle::Alert,
        _ => LabelStyle::Text,
    };
    let chars = chars_in(inner, TEXT_PX);
    let title_w = text_width(f.p.name.chars().count(), TITLE_PX);
    let fits_inline = title_w + INLINE_GAP + text_width(status.chars().count(), TEXT_PX) <= inner;
    let (inline, mut lines): (_, Vec<(String, LabelStyle)>) = if fits_inline {
        (Some((status, style)), Vec::new())
    } else {
        (None, wrap(&status, chars).into_iter().map(|l| (l, style)).collect())
    };
    if let Some(note) = f.note {
        lines.extend(wrap(note, chars).into_iter().map(|l| (l, LabelStyle::Muted)));
    }
    if !f.nodes.is_empty() {
        let nodes = format!("nodes: {}", f.nodes.join(", "));
        lines.extend(wrap(&nodes, chars).into_iter().map(|l| (l, LabelStyle::Muted)));
    }
    Header { title: f.p.name.clone(), inline, lines }
}

/// The width of a process's queue-name column: its longest queue name, at most
/// [`QUEUE_LABEL_CHARS`] characters.
fn queue_label_w(f: &ProcessFacts) -> i32 {
    let chars = f.queues.iter().map(|q| q.queue.chars().count()).max().unwrap_or(0).min(QUEUE_LABEL_CHARS);
    text_width(chars, TEXT_PX) + 4
}

/// The narrowest a process box can be, wide arrangement.
fn min_width(f: &ProcessFacts) -> i32 {
    let title = text_width(f.p.name.chars().count(), TITLE_PX);
    let tiles: i32 = f.informers.iter().map(tile_width).sum::<i32>() + TILE_GAP * (f.informers.len() as i32 - 1).max(0);
    let queues = if f.queues.is_empty() { 0 } else { queue_label_w(f) + QUEUE_COUNT_W + QUEUE_CHIPS_MIN_W };
    let nodes =
        if f.nodes.is_empty() { 0 } else { text_width(f.nodes.join(", ").chars().count().min(30) + 7, TEXT_PX) };
    title.max(tiles).max(queues).max(nodes).max(text_width(18, TEXT_PX)) + 2 * PAD
}

/// Its height once its width is known (`stacked`: informers as strips, one per line).
fn box_height(f: &ProcessFacts, w: i32, stacked: bool) -> i32 {
    let head = header(f, w - 2 * PAD);
    let mut h = PAD + head.height();
    if !f.queues.is_empty() {
        h += 4 + ROW_H * f.queues.len() as i32;
    }
    if !f.informers.is_empty() {
        h += 4 + if stacked { STRIP_H * f.informers.len() as i32 } else { TILE_H };
    }
    h + PAD
}

/// Places the boxes: each process's rect, the API server's, kubectl's and the cloud's.
struct Placement {
    width: i32,
    height: i32,
    api: Rect,
    user: Rect,
    boxes: Vec<Rect>,
    /// Whether each box's informers face down (it sits above the API server).
    above: Vec<bool>,
    cloud: Option<Rect>,
    /// Lines of text below the API server's title (stacked: two, more for a 409).
    api_lines: usize,
}

fn place_wide(facts: &[ProcessFacts], width: i32, has_cloud: bool) -> Placement {
    let n = facts.len();
    let above: Vec<bool> = facts.iter().map(|f| f.p.elector.is_some()).collect();
    let bucket = facts.iter().position(|f| f.p.name == crate::engine::world::BUCKET_OPERATOR);
    // Each row's columns: (process index or None for the cloud, min width).
    let mut rows: [Vec<(Option<usize>, i32)>; 2] = [Vec::new(), Vec::new()];
    for (i, f) in facts.iter().enumerate() {
        rows[usize::from(!above[i])].push((Some(i), min_width(f)));
        if has_cloud && Some(i) == bucket {
            rows[usize::from(!above[i])].push((None, CLOUD_W));
        }
    }
    let need = |row: &Vec<(Option<usize>, i32)>| -> i32 {
        row.iter().map(|c| c.1).sum::<i32>() + GAP * (row.len() as i32 - 1).max(0) + 2 * MARGIN
    };
    let canvas = width.max(need(&rows[0])).max(need(&rows[1])).max(WIDE_MIN);
    let mut boxes = vec![Rect::default(); n];
    let mut cloud = None;
    let mut row_h = [0, 0];
    // Widths: the extra space shared in proportion to each column's need (the cloud keeps its own).
    let mut widths: [Vec<i32>; 2] = [Vec::new(), Vec::new()];
    for r in 0..2 {
        let row = &rows[r];
        let stretch: i32 = row.iter().filter(|c| c.0.is_some()).map(|c| c.1).sum();
        let extra = canvas - need(row);
        let mut given = 0;
        for (k, c) in row.iter().enumerate() {
            let w = match c.0 {
                Some(_) if stretch > 0 => {
                    let last = row.iter().skip(k + 1).all(|c| c.0.is_none());
                    let share = if last { extra - given } else { (extra as i64 * c.1 as i64 / stretch as i64) as i32 };
                    given += share;
                    c.1 + share
                }
                _ => c.1,
            };
            widths[r].push(w);
            if let Some(i) = c.0 {
                row_h[r] = row_h[r].max(box_height(&facts[i], w, false));
            }
        }
    }
    let api_y = MARGIN + row_h[0] + if rows[0].is_empty() { 0 } else { LANE };
    let below_y = api_y + API_H + LANE;
    for r in 0..2 {
        let mut x = MARGIN;
        for (k, c) in rows[r].iter().enumerate() {
            let w = widths[r][k];
            match c.0 {
                Some(i) => {
                    let h = box_height(&facts[i], w, false);
                    let y = if r == 0 { MARGIN + row_h[0] - h } else { below_y };
                    boxes[i] = Rect { x, y, w, h };
                }
                None => {
                    let h = (row_h[1]).clamp(TITLE_LINE + 3 * LINE + 2 * PAD, 120);
                    cloud = Some(Rect {
                        x,
                        y: below_y + TILE_H + 4,
                        w,
                        h: h.min(row_h[1] - TILE_H - 4).max(TITLE_LINE + 3 * LINE + 2 * PAD),
                    });
                }
            }
            x += w + GAP;
        }
    }
    let height = below_y + row_h[1] + MARGIN;
    let user = Rect { x: MARGIN, y: api_y, w: USER_W, h: API_H };
    let api = Rect { x: MARGIN + USER_W + GAP, y: api_y, w: canvas - 2 * MARGIN - USER_W - GAP, h: API_H };
    Placement { width: canvas, height: height.max(api.bottom() + MARGIN), api, user, boxes, above, cloud, api_lines: 1 }
}

fn place_stacked(facts: &[ProcessFacts], width: i32, has_cloud: bool, api_lines: usize) -> Placement {
    let canvas = width.max(NARROW_MIN);
    let api_lines = api_lines.max(2);
    let api_h = API_H + LINE * (api_lines as i32 - 1);
    let user = Rect { x: MARGIN, y: MARGIN, w: USER_W, h: api_h };
    let api = Rect { x: MARGIN + USER_W + GAP, y: MARGIN, w: canvas - 2 * MARGIN - USER_W - GAP, h: api_h };
    let x = MARGIN + TRUNK;
    let w = canvas - MARGIN - x;
    let mut y = api.bottom() + GAP;
    let mut boxes = Vec::new();
    let mut cloud = None;
    for f in facts {
        let h = box_height(f, w, true);
        boxes.push(Rect { x, y, w, h });
        y += h + GAP;
        if has_cloud && f.p.name == crate::engine::world::BUCKET_OPERATOR {
            let h = TITLE_LINE + 2 * LINE + 2 * PAD;
            cloud = Some(Rect { x, y, w, h });
            y += h + GAP;
        }
    }
    Placement {
        width: canvas,
        height: y - GAP + MARGIN,
        api,
        user,
        above: vec![false; facts.len()],
        boxes,
        cloud,
        api_lines,
    }
}

// ----- the step's change -----

/// Handler adds of each wanted `(process, controller, key)` since a worker last took the key,
/// in one pass over the recent records (newest first).
fn adds_since_taken(
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
fn chip_key(key: &str) -> String {
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
fn call_text(c: &ApiCall) -> String {
    let target = match c.target.split_once(' ') {
        Some((kind, key)) => format!("{kind} {}", key.rsplit('/').next().unwrap_or(key)),
        None => c.target.clone(),
    };
    format!("{} {target}", c.verb)
}

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
fn last_conflict(history: &[StepRecord], last: &StepRecord) -> Option<ConflictNote> {
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

fn process_node(
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

fn queue_node(
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

fn stream(
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

/// Where a part's box is, or the API server's centre.
fn anchor(cp: &ControlPlane, part: &MapPart) -> Rect {
    cp.node(part).map(|n| n.rect).or(cp.api.as_ref().map(|a| a.rect)).unwrap_or_default()
}

/// The point on the API server's edge facing `r`.
fn api_edge(cp: &ControlPlane, r: Rect) -> (i32, i32) {
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
fn edge_facing_api(cp: &ControlPlane, r: Rect) -> (i32, i32) {
    let a = cp.api.as_ref().map(|a| a.rect).unwrap_or_default();
    if cp.stacked {
        (r.x, r.y + 8)
    } else if r.bottom() <= a.y {
        (r.cx(), r.bottom())
    } else {
        (r.cx(), r.y)
    }
}

fn mid(a: (i32, i32), b: (i32, i32)) -> (i32, i32) {
    ((a.0 + b.0) / 2, (a.1 + b.1) / 2)
}

fn straight(from: (i32, i32), to: (i32, i32), text: String, look: &'static str, delay_ms: u32) -> Token {
    let text = fit(&text, text_width(TOKEN_CHARS, SMALL_PX), SMALL_PX);
    Token { from, via: mid(from, to), to, text, look, delay_ms, label_left: false }
}

/// How long a token takes to travel (the CSS animation's duration; keep in step with
/// `style/map.css`), and so when a reply may leave.
pub const TRAVEL_MS: u32 = 600;

/// What the step moved, where, from its record and the picture's coordinates.
fn step_change(cp: &ControlPlane, r: &StepRecord, world: &World) -> StepChange {
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

fn step_moves(cp: &ControlPlane, r: &StepRecord, world: &World) -> StepChange {
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
                tokens.push(straight(
                    b,
                    a,
                    reply,
                    if list.is_some_and(|c| c.code >= 400) { "error" } else { "reply" },
                    TRAVEL_MS,
                ));
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
            for (k, c) in r.calls.iter().filter(|c| !c.target.starts_with("Event ")).take(4).enumerate() {
                let delay = (k as u32) * TRAVEL_MS * 2;
                let (target, is_cloud) = if matches!(c.verb, Verb::Cloud(_)) {
                    (cp.cloud.as_ref().map(|n| (n.rect.x + 8, n.rect.cy())), true)
                } else {
                    (None, false)
                };
                let edge = if cp.stacked { api_edge(cp, proc_rect) } else { (port.0, api_edge(cp, proc_rect).1) };
                let to = target.unwrap_or(edge);
                let from = if is_cloud { (proc_rect.right() - 4, proc_rect.cy()) } else { port };
                tokens.push(straight(from, to, call_text(c), "call", delay));
                let code = if c.code == 409 { "409 Conflict".to_string() } else { c.code.to_string() };
                tokens.push(straight(to, from, code, if c.code >= 400 { "error" } else { "reply" }, delay + TRAVEL_MS));
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
            let n = r.calls.iter().filter(|c| !c.target.starts_with("Event ")).count();
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
                let delay = k as u32 * TRAVEL_MS * 2;
                tokens.push(straight(from, to, call_text(c), "call", delay));
                tokens.push(straight(
                    to,
                    from,
                    c.code.to_string(),
                    if c.code >= 400 { "error" } else { "reply" },
                    delay + TRAVEL_MS,
                ));
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
                let delay = k as u32 * TRAVEL_MS * 2;
                tokens.push(straight(from, to, call_text(c), "call", delay));
                tokens.push(straight(
                    to,
                    from,
                    c.code.to_string(),
                    if c.code >= 400 { "error" } else { "reply" },
                    delay + TRAVEL_MS,
                ));
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
        .filter_map(|c| c.target.split(' ').next())
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
fn mark_changed(cp: &mut ControlPlane, change: &StepChange, r: &StepRecord) {
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

#[cfg(test)]
mod tests;
