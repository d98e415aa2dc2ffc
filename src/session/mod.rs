//! The page's core: one [`Session`] holds the simulated cluster ([`World`]), the kubectl
//! [`Console`] (or a [`LessonRun`], which holds both), the editor buffers, the console transcript
//! and the learner's selection, and offers every intent the page sends (Step, Play, Step back,
//! a Timeline jump, "Run this next", a fault, a console line, an editor Apply).
//!
//! The page never decides what the cluster does: components read the views below and call the
//! intents. Plain Rust, tested natively (`cargo test session`).
//!
//! Change tracking: each intent bumps the counters of [`Changes`] for the parts it changed, so
//! the page re-renders only the panels that read those parts (see `src/web/mod.rs`).

pub mod console;
pub mod editor;
pub mod lesson;
pub mod pacer;
pub mod recovery;
pub mod saved;
pub mod share;
pub mod timeline;

use crate::engine::world::{ActionKind, Actor, Fault, PendingAction, SettleRun, Settled, StepRecord, World};
use crate::kubectl::cmd::{Output, Stream};
use crate::kubectl::Console;
use crate::lessons::LessonRun;

pub use console::{Block, BlockKind, Completion, HistoryCursor, Transcript};
pub use editor::{Buffer, Diagnostic, Origin};
pub use share::{Op, ShareError, ShareLog};
pub use timeline::{Branch, Timeline, HISTORY_LIMIT, SNAPSHOT_BUDGET};

/// The seed of the sandbox's world.
pub const SANDBOX_SEED: u64 = 1;

/// The most characters a console line may have; longer input is refused politely.
pub use crate::kubectl::console::MAX_LINE;

/// The regions of the page a step can touch (for the narration's highlight).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PanelId {
    /// "What happens next".
    WhatHappensNext,
    /// "Timeline".
    Timeline,
    /// "Watch events".
    WatchEvents,
    /// "Informer caches".
    InformerCaches,
    /// "Work queues".
    WorkQueues,
    /// "Conflicts" (inside the Work queues group on the page).
    Conflicts,
    /// "Owner graph".
    OwnerGraph,
    /// "Objects".
    Objects,
    /// "Leases".
    Leases,
    /// "Cloud".
    Cloud,
    /// "Editor".
    Editor,
    /// "Console".
    Console,
}

impl PanelId {
    /// The region's accessible name, exactly as the page labels it.
    pub fn title(self) -> &'static str {
        match self {
            PanelId::WhatHappensNext => "What happens next",
            PanelId::Timeline => "Timeline",
            PanelId::WatchEvents => "Watch events",
            PanelId::InformerCaches => "Informer caches",
            PanelId::WorkQueues => "Work queues",
            PanelId::Conflicts => "Conflicts",
            PanelId::OwnerGraph => "Owner graph",
            PanelId::Objects => "Objects",
            PanelId::Leases => "Leases",
            PanelId::Cloud => "Cloud",
            PanelId::Editor => "Editor",
            PanelId::Console => "Console",
        }
    }
}

/// The panels a step record touched: where its action happened and where its API calls land.
pub fn touched_panels(r: &StepRecord) -> Vec<PanelId> {
    use PanelId::*;
    let mut v = match r.action {
        ActionKind::List | ActionKind::Rewatch => vec![WatchEvents, InformerCaches],
        ActionKind::Resync => vec![InformerCaches, WorkQueues],
        ActionKind::DeliverEvent => vec![WatchEvents, InformerCaches],
        ActionKind::RunHandler | ActionKind::QueueTimer => vec![WorkQueues],
        ActionKind::TakeKey | ActionKind::Reconcile => vec![WorkQueues],
        ActionKind::LeaseTick => vec![Leases],
        ActionKind::Clock => vec![],
        ActionKind::UserCall => vec![WatchEvents],
        ActionKind::Fault => vec![],
    };
    let writes = r.calls.iter().any(|c| !c.verb.is_read());
    if writes {
        v.extend([Objects, OwnerGraph, WatchEvents]);
    }
    if r.calls.iter().any(|c| c.code == 409) {
        v.push(Conflicts);
    }
    if r.objects.iter().any(|o| o.kind == "Lease") {
        v.push(Leases);
    }
    if r.objects.iter().any(|o| o.kind == "Bucket")
        || matches!(&r.actor, Actor::Controller { controller, .. } if controller.contains("bucket"))
    {
        v.push(Cloud);
    }
    if r.action == ActionKind::Fault {
        match &r.actor {
            Actor::Informer { .. } => v.extend([WatchEvents, InformerCaches]),
            _ => v.extend([WatchEvents, InformerCaches, WorkQueues, Leases]),
        }
    }
    crate::sort::sort(&mut v);
    v.dedup();
    v
}

/// The narration of one step: its sentence, its actor, and what it touched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Narration {
    /// 1-based step number.
    pub number: u64,
    /// Who acted, e.g. `deployment-controller (kube-controller-manager-a)`.
    pub actor: String,
    /// The record's sentence.
    pub sentence: String,
    /// The regions it touched (highlighted by the page with a marker, not colour alone).
    pub panels: Vec<PanelId>,
    /// `Kind namespace/name` of each object involved.
    pub objects: Vec<String>,
    /// Each API call, as `UPDATE ReplicaSet default/web-x → 409 (...)`.
    pub calls: Vec<String>,
}

impl Narration {
    /// The narration of a record.
    pub fn of(r: &StepRecord) -> Narration {
        Narration {
            number: r.number,
            actor: r.actor.to_string(),
            sentence: r.sentence.clone(),
            panels: touched_panels(r),
            objects: r.objects.iter().map(|o| format!("{} {}", o.kind, o.key)).collect(),
            calls: r.calls.iter().map(ToString::to_string).collect(),
        }
    }
}

/// A fault the learner can apply from a pending action ("What happens next").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultOption {
    /// The button's label, e.g. "Break this watch".
    pub label: String,
    /// The fault.
    pub fault: Fault,
}

/// The faults that make sense right before `p` runs: break the informer's watch, restart or
/// partition the process, make its next write conflict, fail its API calls.
pub fn faults_for(p: &PendingAction) -> Vec<FaultOption> {
    let opt = |label: &str, fault| FaultOption { label: label.to_string(), fault };
    match &p.actor {
        Actor::Informer { process, kind } => {
            let mut v = Vec::new();
            if matches!(p.action, ActionKind::DeliverEvent) {
                v.push(opt("Break this watch", Fault::BreakWatch { process: process.clone(), kind: kind.clone() }));
            }
            v.push(opt("Restart this process", Fault::RestartProcess(process.clone())));
            v
        }
        Actor::Controller { process, .. } => vec![
            opt("Fail this write", Fault::ConflictNextWrite(process.clone())),
            opt(
                "Fail its API calls for 30s",
                Fault::FailApi { process: process.clone(), duration: std::time::Duration::from_secs(30) },
            ),
            opt("Restart this controller", Fault::RestartProcess(process.clone())),
        ],
        Actor::LeaderElector { process } => vec![
            opt("Kill this process", Fault::KillProcess(process.clone())),
            opt("Partition this process", Fault::Partition(process.clone())),
        ],
        Actor::User(_) | Actor::Lab => Vec::new(),
    }
}

/// Counters bumped by every intent, one per part of the page. A counter that did not move means
/// the panels reading that part need not re-render.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The world: objects, watches, caches, queues, leases, cloud, pending actions.
    pub cluster: u64,
    /// The Timeline (records, position, branches).
    pub timeline: u64,
    /// The console transcript and what kubectl is waiting for.
    pub transcript: u64,
    /// The editor's buffers and active tab.
    pub editor: u64,
    /// The selected object.
    pub selection: u64,
    /// The status line (notices, lesson goals).
    pub notice: u64,
}

impl Changes {
    /// The sum: moves whenever anything moved.
    pub fn total(&self) -> u64 {
        self.cluster + self.timeline + self.transcript + self.editor + self.selection + self.notice
    }
}

/// The cluster with its console: a sandbox, or a lesson (whose `LessonRun` owns both).
// A LessonRun is large and there is one session: boxing it would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Engine {
    /// The sandbox.
    Sandbox {
        /// The simulated cluster.
        world: World,
        /// The kubectl session.
        console: Console,
    },
    /// A guided lesson.
    Lesson(LessonRun),
}

/// What Play did on one tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tick {
    /// One step ran.
    Stepped,
    /// Only periodic work (lease renewals) remains: Play pauses.
    Idle,
}

/// The page's one object. See the module documentation.
pub struct Session {
    engine: Engine,
    timeline: Timeline,
    transcript: Transcript,
    history_cursor: HistoryCursor,
    buffers: Vec<Buffer>,
    /// Index into `buffers` (meaningless while it is empty).
    active: usize,
    next_buffer: u64,
    selected: Option<(String, String)>,
    notice: Option<String>,
    goals_met: Vec<String>,
    /// The run until idle in progress ([`Session::settle_slice`]), if any.
    settle: Option<SettleRun>,
    /// Steps of that run not yet in the share log: a run is logged as one intent when it ends
    /// or before the next intent, not a slice per animation frame.
    settle_unlogged: u64,
    changes: Changes,
    /// Every intent since the session started: what its share code carries (see [`share`]).
    log: ShareLog,
    /// Editor tabs typed in since their text was last logged, in the order first typed in.
    dirty: Vec<u32>,
}

impl Session {
    /// The sandbox: a fresh world from [`SANDBOX_SEED`] and one empty editor file.
    pub fn sandbox() -> Session {
        Session::with_engine(Engine::Sandbox { world: World::new(SANDBOX_SEED), console: Console::new() })
    }

    /// A session over an engine (a sandbox world or a started lesson).
    pub fn with_engine(engine: Engine) -> Session {
        let mut s = Session {
            engine,
            timeline: Timeline::default(),
            transcript: Transcript::default(),
            history_cursor: HistoryCursor::default(),
            buffers: Vec::new(),
            active: 0,
            next_buffer: 1,
            selected: None,
            notice: None,
            goals_met: Vec::new(),
            settle: None,
            settle_unlogged: 0,
            changes: Changes::default(),
            log: ShareLog::new(share::Start::Sandbox { seed: 0 }),
            dirty: Vec::new(),
        };
        s.log.start = match &s.engine {
            Engine::Sandbox { world, .. } => share::Start::Sandbox { seed: world.seed() },
            Engine::Lesson(run) => share::Start::Lesson { slug: run.lesson.slug.clone(), goals: run.checker.met() },
        };
        let files: Vec<(String, String)> = s.console().files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        for (name, text) in files {
            s.add_buffer(&name, &text, Origin::File);
        }
        if s.buffers.is_empty() {
            s.add_buffer("manifest.yaml", "", Origin::File);
        }
        s.active = 0;
        // Bound the records kept in memory (going back to a forgotten one replays it).
        s.parts().0.set_history_limit(Some(HISTORY_LIMIT));
        s.parts().0.set_snapshot_budget(Some(SNAPSHOT_BUDGET));
        s.sync_timeline();
        s
    }

    // ----- read-only views -----

    /// The world.
    pub fn world(&self) -> &World {
        match &self.engine {
            Engine::Sandbox { world, .. } => world,
            Engine::Lesson(run) => &run.world,
        }
    }

    /// The kubectl session.
    pub fn console(&self) -> &Console {
        match &self.engine {
            Engine::Sandbox { console, .. } => console,
            Engine::Lesson(run) => &run.console,
        }
    }

    /// The lesson in play, if any.
    pub fn lesson(&self) -> Option<&LessonRun> {
        match &self.engine {
            Engine::Lesson(run) => Some(run),
            Engine::Sandbox { .. } => None,
        }
    }

    fn parts(&mut self) -> (&mut World, &mut Console) {
        match &mut self.engine {
            Engine::Sandbox { world, console } => (world, console),
            Engine::Lesson(run) => (&mut run.world, &mut run.console),
        }
    }

    /// The change counters.
    pub fn changes(&self) -> Changes {
        self.changes
    }

    /// What can happen next, in order.
    pub fn pending(&self) -> Vec<PendingAction> {
        self.world().pending()
    }

    /// The Timeline.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The narration of the step the learner stands on (None at the start).
    pub fn narration(&self) -> Option<Narration> {
        self.world().history().last().map(Narration::of)
    }

    /// The console transcript.
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// What kubectl is still doing (`watching pods in default`, a waiting delete).
    pub fn waiting(&self) -> Vec<String> {
        self.console().waiting()
    }

    /// The editor's buffers, in tab order.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The active tab's index.
    pub fn active_buffer(&self) -> usize {
        self.active.min(self.buffers.len().saturating_sub(1))
    }

    /// The selected object, `(kind, namespace/name)`.
    pub fn selected(&self) -> Option<&(String, String)> {
        self.selected.as_ref()
    }

    /// The last notice (what an intent did that is not a step: "Settled after 12 steps.").
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Lesson goals met so far in this session, in the order they were met.
    pub fn goals_met(&self) -> &[String] {
        &self.goals_met
    }

    // ----- stepping intents -----

    /// Step: runs the first pending action. False when nothing can happen now.
    pub fn step(&mut self) -> bool {
        self.record(Op::Step(1));
        let (world, _) = self.parts();
        let stepped = world.step().is_some();
        if stepped {
            self.notice = None;
        } else {
            self.notice = Some("Nothing can happen now: everything left waits for a timer.".into());
        }
        self.after_world(true);
        stepped
    }

    /// One tick of Play: a step, or [`Tick::Idle`] when only periodic work remains (Play pauses).
    pub fn play_tick(&mut self) -> Tick {
        // The world's own test of idleness (periodic work, a partitioned process's retries, pure
        // deadline checks): `run_until_idle` with a cap of 0 steps nothing and says Idle or not.
        let (world, _) = self.parts();
        if matches!(world.run_until_idle(0), Settled::Idle { .. }) {
            self.notice = Some("Paused: the cluster is idle (only lease renewals remain).".into());
            self.changes.notice += 1;
            return Tick::Idle;
        }
        if self.step() {
            Tick::Stepped
        } else {
            Tick::Idle
        }
    }

    /// "Run this next": runs the pending action with this id.
    pub fn run_pending(&mut self, id: u64) -> Result<(), String> {
        self.record(Op::Run(id));
        let (world, _) = self.parts();
        let r = world.run(id);
        self.notice = r.as_ref().err().cloned();
        self.after_world(true);
        r.map(|_| ())
    }

    /// Run until idle, in one call: steps until only periodic work remains or a hot loop shows
    /// (no step cap: see [`SettleRun`]). While kubectl watches or waits, it steps one at a time
    /// so the output appears where it happens.
    pub fn run_until_idle(&mut self) -> Settled {
        loop {
            if let Some(done) = self.settle_slice(u64::MAX) {
                return done;
            }
        }
    }

    /// Run until idle, a slice at a time (the page runs one slice per animation frame, sized by
    /// time: [`pacer`]): takes up to `slice` steps of the run in progress (starting one if none
    /// is). Returns the outcome once the cluster is idle or a hot loop shows, None while there is
    /// more to do; meanwhile the notice says how far it got and what remains.
    pub fn settle_slice(&mut self, slice: u64) -> Option<Settled> {
        let mut run = self.settle.take().unwrap_or_default();
        let before = run.steps();
        let r = self.settle_some(&mut run, slice.max(1));
        self.settle_unlogged += run.steps() - before;
        let done = match r {
            Settled::Working { .. } => None,
            done => Some(done),
        };
        self.notice = Some(match &done {
            // The console's words ("Settled after 38135 steps"): plain digits in both.
            Some(Settled::Idle { steps } | Settled::Working { steps }) => format!("Settled after {steps} steps."),
            Some(Settled::HotLoop { explanation, .. }) => explanation.clone(),
            None => {
                let left = self.world().remaining().to_string();
                let steps = crate::engine::world::fmt_count(run.steps() as usize);
                if left.is_empty() {
                    format!("Running until idle: {steps} steps so far.")
                } else {
                    format!("Running until idle: {steps} steps so far · {left}.")
                }
            }
        });
        if done.is_some() {
            self.flush_settle();
        } else {
            self.settle = Some(run);
        }
        self.after_world(true);
        done
    }

    /// Whether a run until idle is in progress.
    pub fn settling(&self) -> bool {
        self.settle.is_some()
    }

    /// Stops a sliced run until idle (the learner pressed Pause): the next one starts afresh.
    pub fn settle_cancel(&mut self) {
        if self.settle.is_some() || self.settle_unlogged > 0 {
            self.record(Op::SettleCancel);
            self.settle = None;
            self.notice = Some("Paused.".into());
            self.changes.notice += 1;
        }
    }

    /// Logs the steps of the run until idle so far as one intent (replaying it takes the same
    /// steps: the run stops where it stopped, or goes on from there in the next one).
    pub(super) fn flush_settle(&mut self) {
        if self.settle_unlogged > 0 {
            self.log.push(Op::Settle { slice: self.settle_unlogged, count: 1 });
            self.settle_unlogged = 0;
        }
    }

    fn settle_some(&mut self, run: &mut SettleRun, cap: u64) -> Settled {
        let (world, console) = self.parts();
        if console.pending.is_empty() {
            return run.run(world, cap);
        }
        let start = run.steps();
        let mut out = Output::default();
        let result = loop {
            let (world, console) = self.parts();
            let r = run.run(world, 1);
            out.extend(console.resume(world));
            if !matches!(r, Settled::Working { .. }) || run.steps() - start >= cap {
                break r;
            }
        };
        self.transcript.live(&out);
        self.changes.transcript += 1;
        result
    }

    /// Step back: returns to the state before the current step. False at the start.
    pub fn step_back(&mut self) -> bool {
        self.record(Op::Back(1));
        let at = self.world().position();
        self.leave_for(at.saturating_sub(1));
        let (world, _) = self.parts();
        let back = world.step_back();
        self.notice = (!back).then(|| "Already at the beginning.".to_string());
        self.after_world(false);
        back
    }

    /// A Timeline jump: the state right after step `n` (0: the start), on the same branch.
    pub fn goto(&mut self, n: usize) {
        self.record(Op::Goto(n as u64));
        self.leave_for(n);
        let (world, _) = self.parts();
        world.goto(n);
        self.notice = None;
        self.after_world(false);
    }

    /// Applies a fault ("What happens next", or a lab control).
    pub fn fault(&mut self, f: Fault) -> Result<(), String> {
        self.record(Op::Fault(f.clone()));
        let (world, _) = self.parts();
        let r = world.fault(f);
        self.notice = r.as_ref().err().cloned();
        self.after_world(true);
        r.map(|_| ())
    }

    // ----- console intents -----

    /// Runs one console line (kubectl or lab), as typed. An edit (`kubectl edit`) opens in the
    /// editor as a new tab.
    pub fn console_submit(&mut self, line: &str) -> Output {
        self.history_cursor.reset();
        if line.len() > MAX_LINE {
            let mut out = Output::default();
            out.err(format!("error: {}\n", crate::kubectl::console::line_too_long(line.len())));
            out.exit_code = 1;
            self.transcript.command(&line[..editor::floor_char_boundary(line, 200)], &out);
            self.changes.transcript += 1;
            return out;
        }
        self.record(Op::Console(line.to_string()));
        self.sync_files();
        if line.split_whitespace().eq(["lab", "back"]) {
            // `lab back` jumps back a step: the timeline keeps the record the world drops.
            let at = self.world().position();
            self.leave_for(at.saturating_sub(1));
        }
        let (world, console) = self.parts();
        let out = console.execute(world, line);
        self.transcript.command(line, &out);
        self.changes.transcript += 1;
        if let Some(edit) = &out.edit {
            let name = format!("{}/{}", edit.kind.name_prefix(), edit.name);
            let text = edit.yaml.clone();
            self.open_buffer(&name, &text, Origin::Edit(edit.clone()));
        }
        self.import_files();
        self.after_world(false);
        out
    }

    /// Up in the console input: the previous line run (None at the oldest).
    pub fn history_up(&mut self, current: &str) -> Option<String> {
        let history = self.console().history.clone();
        self.history_cursor.up(&history, current)
    }

    /// Down in the console input: the next line, then what was being typed.
    pub fn history_down(&mut self) -> Option<String> {
        let history = self.console().history.clone();
        self.history_cursor.down(&history)
    }

    /// Tab in the console input.
    pub fn complete(&self, line: &str) -> Completion {
        let candidates = self.console().complete(self.world(), line);
        console::complete_line(line, candidates)
    }

    /// Ctrl+L: clears the transcript.
    pub fn clear_console(&mut self) {
        self.record(Op::Clear);
        self.transcript.clear();
        self.changes.transcript += 1;
    }

    // ----- editor intents -----

    /// Selects a tab.
    pub fn select_buffer(&mut self, i: usize) {
        if i < self.buffers.len() && i != self.active {
            self.record(Op::Select(i as u32));
            self.active = i;
            self.changes.editor += 1;
        }
    }

    /// Opens a new editor file (or selects it, if one has that name) with `text`.
    pub fn open_file(&mut self, name: &str, text: &str) {
        self.record(Op::Open { name: name.to_string(), text: text.to_string() });
        self.open_buffer(name, text, Origin::File);
    }

    /// The learner typed: the buffer's new text (re-checked for errors).
    pub fn editor_set_text(&mut self, i: usize, text: &str) {
        if let Some(b) = self.buffers.get_mut(i) {
            if b.text != text {
                b.set_text(text);
                // Logged when it matters (see `record`), so edits between steps cost one intent.
                if !self.dirty.contains(&(i as u32)) {
                    self.dirty.push(i as u32);
                }
                self.changes.editor += 1;
            }
        }
    }

    /// Closes a tab (the last one is replaced by an empty file).
    pub fn close_buffer(&mut self, i: usize) {
        if i < self.buffers.len() {
            self.record(Op::Close(i as u32));
            self.buffers.remove(i);
            if self.buffers.is_empty() {
                self.add_buffer("manifest.yaml", "", Origin::File);
            }
            self.active = self.active.min(self.buffers.len() - 1);
            self.changes.editor += 1;
        }
    }

    /// Apply: a file runs `kubectl apply -f NAME`; an edit saves with the resourceVersion it was
    /// loaded with (a stale one gets 409 Conflict: then [`Session::editor_reapply`] is offered).
    pub fn editor_apply(&mut self, i: usize) -> Output {
        let Some(b) = self.buffers.get(i).cloned() else { return Output::default() };
        let out = match &b.origin {
            Origin::File => return self.console_submit(&format!("kubectl apply -f {}", b.name)),
            Origin::Edit(session) => {
                self.record(Op::Apply(i as u32));
                let (world, console) = self.parts();
                console.open_edit = Some(session.clone());
                let out = console.save_edit(world, &b.text);
                self.transcript.command(&format!("kubectl edit {} (saved from the editor)", b.name), &out);
                self.changes.transcript += 1;
                out
            }
        };
        let conflict = out.exit_code != 0 && out.stderr().contains("the object has been modified");
        if out.exit_code == 0 {
            self.refresh_edit(i, false);
        }
        if let Some(buf) = self.buffers.get_mut(i) {
            buf.conflict = conflict;
        }
        self.changes.editor += 1;
        self.after_world(false);
        out
    }

    /// Reload: replaces an edit buffer's text with the object as it is now (its current
    /// resourceVersion), discarding the learner's changes.
    pub fn editor_reload(&mut self, i: usize) {
        self.record(Op::Reload(i as u32));
        self.refresh_edit(i, true);
        self.changes.editor += 1;
    }

    /// "Reload and re-apply": keeps the learner's text, moves its resourceVersion to the
    /// object's current one, and applies again (what a person does after a 409).
    pub fn editor_reapply(&mut self, i: usize) -> Output {
        self.editor_refresh(i);
        self.editor_apply(i)
    }

    /// The first half of "Reload and re-apply": the edit tab keeps its text with the object's
    /// current resourceVersion.
    fn editor_refresh(&mut self, i: usize) {
        self.record(Op::Refresh(i as u32));
        self.refresh_edit(i, false);
    }

    /// Points an edit buffer at the object's current resourceVersion; with `replace_text`, also
    /// reloads its text. A gone object leaves the buffer as it is, with a notice.
    fn refresh_edit(&mut self, i: usize, replace_text: bool) {
        let Some(Buffer { origin: Origin::Edit(session), .. }) = self.buffers.get(i).cloned() else { return };
        let current = self.world().api().get(session.kind, session.namespace.as_deref(), &session.name);
        let Ok(obj) = current else {
            self.notice = Some(format!("{}/{} no longer exists.", session.kind.name_prefix(), session.name));
            self.changes.notice += 1;
            return;
        };
        let rv = obj.get("metadata").and_then(|m| m.get("resourceVersion")).and_then(|v| v.as_str()).unwrap_or("");
        let rv = rv.to_string();
        let b = &mut self.buffers[i];
        let mut fresh = session.clone();
        fresh.resource_version = rv.clone();
        if replace_text {
            fresh.yaml = crate::yaml::to_yaml(&obj);
            b.set_text(&fresh.yaml.clone());
        } else if let Some(t) = editor::with_resource_version(&b.text, &rv) {
            b.set_text(&t);
        }
        b.origin = Origin::Edit(fresh);
        b.conflict = false;
    }

    fn add_buffer(&mut self, name: &str, text: &str, origin: Origin) {
        let id = self.next_buffer;
        self.next_buffer += 1;
        self.buffers.push(Buffer::new(id, name, text, origin));
        self.active = self.buffers.len() - 1;
        self.changes.editor += 1;
    }

    fn open_buffer(&mut self, name: &str, text: &str, origin: Origin) {
        match self.buffers.iter().position(|b| b.name == name) {
            Some(i) => {
                let b = &mut self.buffers[i];
                b.set_text(text);
                b.origin = origin;
                b.conflict = false;
                self.active = i;
                self.changes.editor += 1;
            }
            None => self.add_buffer(name, text, origin),
        }
    }

    /// The console reads `-f NAME` from its files: give it the editor's file buffers.
    fn sync_files(&mut self) {
        let files: Vec<(String, String)> = self
            .buffers
            .iter()
            .filter(|b| b.origin == Origin::File)
            .map(|b| (b.name.clone(), b.text.clone()))
            .collect();
        let (_, console) = self.parts();
        for (name, text) in files {
            console.set_file(&name, &text);
        }
    }

    /// Files written by the console (`cat > FILE <<EOF`) appear as editor tabs.
    fn import_files(&mut self) {
        let files: Vec<(String, String)> = self.console().files.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        for (name, text) in files {
            match self.buffers.iter().position(|b| b.name == name && b.origin == Origin::File) {
                Some(i) if self.buffers[i].text != text => {
                    self.buffers[i].set_text(&text);
                    self.changes.editor += 1;
                }
                Some(_) => {}
                None => {
                    let keep = self.active;
                    self.add_buffer(&name, &text, Origin::File);
                    self.active = keep;
                }
            }
        }
    }

    // ----- selection -----

    /// Selects an object (`kind`, `namespace/name` or `name`) for the Objects panel.
    pub fn select_object(&mut self, kind: &str, key: &str) {
        let sel = Some((kind.to_string(), key.to_string()));
        if self.selected != sel {
            self.record(Op::SelectObject { kind: kind.to_string(), key: key.to_string() });
            self.selected = sel;
            self.changes.selection += 1;
        }
    }

    /// The "Edit" action on an object: opens it in the editor as `kubectl edit` does.
    pub fn edit_object(&mut self, resource: &str, namespace: Option<&str>, name: &str) -> Output {
        let line = match namespace {
            Some(ns) => format!("kubectl edit {resource}/{name} -n {ns}"),
            None => format!("kubectl edit {resource}/{name}"),
        };
        self.console_submit(&line)
    }

    // ----- bookkeeping -----

    /// Before a jump to step `n`: the timeline keeps the records the world will drop.
    fn leave_for(&mut self, n: usize) {
        let world = match &self.engine {
            Engine::Sandbox { world, .. } => world,
            Engine::Lesson(run) => &run.world,
        };
        self.timeline.before_goto(world, n);
    }

    fn sync_timeline(&mut self) {
        let world = match &self.engine {
            Engine::Sandbox { world, .. } => world,
            Engine::Lesson(run) => &run.world,
        };
        if self.timeline.sync(world) {
            self.changes.timeline += 1;
        }
    }

    /// After the world may have changed: kubectl prints what its watches and waits saw, the
    /// timeline catches up, lesson goals are checked. `resume` is false when the intent already
    /// resumed the console (console lines do).
    fn after_world(&mut self, resume: bool) {
        if resume {
            let (world, console) = self.parts();
            if !console.pending.is_empty() {
                let out = console.resume(world);
                if !out.chunks.is_empty() {
                    self.transcript.live(&out);
                    self.changes.transcript += 1;
                }
            }
        }
        self.changes.cluster += 1;
        self.sync_timeline();
        if let Engine::Lesson(run) = &mut self.engine {
            let met = run.check();
            if !met.is_empty() {
                self.goals_met.extend(met);
            }
        }
        self.changes.notice += 1;
    }
}

/// A printable stream name (`stdout`/`stderr`) for the page's classes and tests.
pub fn stream_name(s: Stream) -> &'static str {
    match s {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
    }
}

#[cfg(test)]
mod tests;
