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

use super::{recent, thousands};
use crate::engine::client::leaderelection::LeaderElectionRecord;
use crate::engine::client::ReflectorState;
use crate::engine::kinds::Kind;
use crate::engine::world::{ActionKind, Actor, ApiCall, CallTarget, Process, StepRecord, Verb, World};

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
    /// The object both wrote (prints `Deployment default/web`).
    pub target: CallTarget,
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

mod build;
mod facts;
mod layout;
mod motion;

pub use build::control_plane;
pub use layout::{NARROW_MIN, WIDE_MIN};
pub use motion::{MAX_TOKENS, TRAVEL_MS};

#[cfg(test)]
mod tests;
