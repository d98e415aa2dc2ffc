//! Share codes: a compact, versioned text form of a session (its seed or lesson, the goals met
//! when it started, and every intent since), so that opening a shared link rebuilds the exact
//! same cluster, step, editor, transcript and lesson progress.
//!
//! # Why intents and not objects
//! The engine is deterministic: the same seed and the same inputs give the same run (see
//! `engine::world`). So a share code carries the learner's *intents* at the [`Session`] level
//! (a Step, a console line as typed, an editor Apply, a fault, a Timeline jump, ...), not the
//! objects they produced. A console line is a few dozen bytes where the object it creates is a
//! few hundred, and a run of Steps is one number (run-length encoded).
//!
//! # Format (version 1)
//! `1.` followed by the payload in base64url without padding (RFC 4648 section 5, safe in a URL
//! fragment). The payload is bytes:
//! - the start: `0` and the sandbox seed, or `1`, the lesson slug and the goal ids already met
//!   when the session started (saved progress, so the opener sees the same progress);
//! - a check: the world's step position, the API server's resourceVersion and the number of
//!   goals met at the end (a code replayed by a different engine that disagrees is refused, not
//!   shown wrong);
//! - the intents ([`Op`]), each a tag byte and its fields;
//! - an FNV-1a 32-bit checksum of everything before it (catches a mistyped or cut code).
//!
//! Numbers are LEB128 varints, strings a varint length and UTF-8 bytes.
//!
//! # Limits
//! Decoding is total: a corrupt, truncated, oversized ([`MAX_CODE_LEN`]) or unknown-version code
//! is a [`ShareError`] with a clear message, never a panic. Replay is bounded by
//! [`MAX_OPS`] intents and [`MAX_REPLAY_STEPS`] world steps.
//!
//! # What is not carried
//! The console's Up-arrow history of the quiet `$(...)` substitutions of "Show me", the scroll
//! positions, and which tab of a narrow screen is shown.

use std::fmt;
use std::time::Duration;

use super::{Engine, Session};
use crate::engine::cloud::CloudFault;
use crate::engine::world::{Fault, World};
use crate::kubectl::Console;
use crate::lessons::{self, LessonRun};

/// The format version written by [`encode`]; [`decode`] refuses every other one.
pub const VERSION: u32 = 1;

/// The longest share code [`decode`] reads, in characters (64 KiB: far more than a lesson's
/// worth of intents, well under what browsers accept in a URL).
pub const MAX_CODE_LEN: usize = 64 * 1024;

/// The most intents (after run-length encoding) a code may carry.
pub const MAX_OPS: usize = 20_000;

/// The most world steps replaying a code may take (Steps, runs until idle and console lines
/// together), and the most repetitions its run-length encoded intents may ask for.
pub const MAX_REPLAY_STEPS: u64 = 200_000;

/// Where a session started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// A sandbox world from this seed.
    Sandbox {
        /// The world's seed.
        seed: u64,
    },
    /// A lesson, with the goals already met when it started (restored from saved progress).
    Lesson {
        /// The lesson's slug.
        slug: String,
        /// Goal ids met at the start.
        goals: Vec<String>,
    },
}

/// One intent of the learner (or of the page on the learner's behalf), as [`Session`] received
/// it. Replaying them in order on the same start rebuilds the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `count` presses of Step (or steps of "Show me ... until").
    Step(u32),
    /// "Run this next" with a pending action's id.
    Run(u64),
    /// `count` slices of a run until idle, each of at most `slice` steps.
    Settle {
        /// The slice's step cap.
        slice: u64,
        /// How many slices in a row.
        count: u32,
    },
    /// Pause during a run until idle.
    SettleCancel,
    /// `count` presses of Step back.
    Back(u32),
    /// A Timeline jump to the state after step `n`.
    Goto(u64),
    /// A fault.
    Fault(Fault),
    /// A console line, as submitted.
    Console(String),
    /// Ctrl+L.
    Clear,
    /// The editor tab's text became this.
    Text {
        /// The tab.
        buffer: u32,
        /// Its whole text.
        text: String,
    },
    /// A tab was selected.
    Select(u32),
    /// A file was opened in the editor with this text.
    Open {
        /// Its name.
        name: String,
        /// Its text.
        text: String,
    },
    /// A tab was closed.
    Close(u32),
    /// Apply on an edit tab (an Apply on a file tab is its console line).
    Apply(u32),
    /// Reload of an edit tab.
    Reload(u32),
    /// The first half of "Reload and re-apply" (the Apply follows).
    Refresh(u32),
    /// An object was selected in the Objects panel.
    SelectObject {
        /// Its kind.
        kind: String,
        /// `namespace/name` or `name`.
        key: String,
    },
    /// The lesson's Reset (`forget`: also forget the goals met).
    Reset {
        /// Forget the goals met.
        forget: bool,
    },
    /// "Open in sandbox".
    ToSandbox,
    /// Goals marked met from outside the session: the saved progress of the learner who opened
    /// a shared lesson (so opening a link never loses what they had met).
    Goals(Vec<String>),
}

impl Op {
    /// A run-length encoded intent as one intent and a repeat count.
    pub fn repeats(&self) -> (Op, u64) {
        match self {
            Op::Step(n) => (Op::Step(1), u64::from(*n)),
            Op::Back(n) => (Op::Back(1), u64::from(*n)),
            Op::Settle { slice, count } => (Op::Settle { slice: *slice, count: 1 }, u64::from(*count)),
            other => (other.clone(), 1),
        }
    }
}

/// Everything a session has done since it started: what a share code carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareLog {
    /// Where it started.
    pub start: Start,
    /// The intents since, run-length encoded.
    pub ops: Vec<Op>,
}

impl ShareLog {
    /// An empty log from `start`.
    pub fn new(start: Start) -> ShareLog {
        ShareLog { start, ops: Vec::new() }
    }

    /// Appends an intent, merging it into the last one where that replays the same: a run of
    /// Steps, of Step backs or of equal run-until-idle slices, and successive texts of one tab.
    pub fn push(&mut self, op: Op) {
        let merged = match (self.ops.last_mut(), &op) {
            (Some(Op::Step(n)), Op::Step(m)) | (Some(Op::Back(n)), Op::Back(m)) => match n.checked_add(*m) {
                Some(sum) => {
                    *n = sum;
                    true
                }
                None => false,
            },
            (Some(Op::Settle { slice: a, count }), Op::Settle { slice: b, count: m }) if a == b => {
                match count.checked_add(*m) {
                    Some(sum) => {
                        *count = sum;
                        true
                    }
                    None => false,
                }
            }
            (Some(Op::Text { buffer: a, text }), Op::Text { buffer: b, text: new }) if a == b => {
                text.clone_from(new);
                true
            }
            _ => false,
        };
        if !merged {
            self.ops.push(op);
        }
    }
}

/// What a session looked like when its code was made, checked after replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Check {
    /// The world's step position.
    pub position: u64,
    /// The API server's latest resourceVersion.
    pub resource_version: u64,
    /// How many lesson goals were met (0 in a sandbox).
    pub goals_met: u64,
}

impl Check {
    /// The check of a session as it is now.
    pub fn of(s: &Session) -> Check {
        Check {
            position: s.world().position() as u64,
            resource_version: s.world().api().resource_version(),
            goals_met: s.lesson().map_or(0, |r| r.checker.met().len() as u64),
        }
    }
}

/// A decoded share code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    /// The start and the intents.
    pub log: ShareLog,
    /// What the session must look like after replay.
    pub check: Check,
}

/// Why a share code cannot be opened. The text is what the page shows (then the default state).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareError {
    /// Nothing after `state=`.
    Empty,
    /// Longer than [`MAX_CODE_LEN`].
    TooLong {
        /// Its length in characters.
        len: usize,
    },
    /// No `<version>.` prefix, or a version this page does not read.
    UnknownVersion(String),
    /// A character outside base64url.
    NotBase64 {
        /// Its character position.
        at: usize,
    },
    /// The payload ends early (a cut link).
    Truncated,
    /// The checksum or a field is wrong (a mistyped or altered link).
    Corrupt(&'static str),
    /// More than [`MAX_OPS`] intents, or more than [`MAX_REPLAY_STEPS`] steps to replay.
    TooMuchWork,
    /// The code names a lesson this site does not have.
    UnknownLesson(String),
    /// The lesson does not start (a broken lesson file).
    LessonFailed(String),
    /// Replaying gave a different state than the one shared (another version of the engine).
    Diverged,
}

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("This share link could not be opened: ")?;
        match self {
            ShareError::Empty => f.write_str("the state code is empty."),
            ShareError::TooLong { len } => {
                write!(f, "the state code is {len} characters long; the most this page reads is {MAX_CODE_LEN}.")
            }
            ShareError::UnknownVersion(v) => write!(
                f,
                "the state code is not in a format this page reads (version {:?}; this page reads version {VERSION}).",
                v.chars().take(20).collect::<String>()
            ),
            ShareError::NotBase64 { at } => {
                write!(f, "the state code has a character that does not belong in it (at position {at}).")
            }
            ShareError::Truncated => f.write_str("the state code is cut short (was the whole link copied?)."),
            ShareError::Corrupt(what) => write!(f, "the state code is damaged ({what})."),
            ShareError::TooMuchWork => {
                write!(f, "the state code asks for more than {MAX_OPS} actions or {MAX_REPLAY_STEPS} steps to rebuild.")
            }
            ShareError::UnknownLesson(slug) => {
                write!(f, "there is no lesson {:?}.", slug.chars().take(60).collect::<String>())
            }
            ShareError::LessonFailed(e) => write!(f, "the lesson could not start: {e}"),
            ShareError::Diverged => {
                f.write_str("rebuilding it gave a different cluster (it was made by another version of Reconcile Lab).")
            }
        }?;
        f.write_str(" Showing the starting state instead.")
    }
}

impl std::error::Error for ShareError {}

// ----- the share code of a session -----

/// The share code of a session as it is now.
pub fn encode(s: &Session) -> String {
    encode_shared(&Shared { log: s.share_log(), check: Check::of(s) })
}

/// The share code of a decoded (or hand-made) [`Shared`]: `decode(&encode_shared(x)) == Ok(x)`.
pub fn encode_shared(shared: &Shared) -> String {
    let mut w = Writer::default();
    match &shared.log.start {
        Start::Sandbox { seed } => {
            w.byte(0);
            w.varint(*seed);
        }
        Start::Lesson { slug, goals } => {
            w.byte(1);
            w.str(slug);
            w.varint(goals.len() as u64);
            for g in goals {
                w.str(g);
            }
        }
    }
    let check = shared.check;
    w.varint(check.position);
    w.varint(check.resource_version);
    w.varint(check.goals_met);
    w.varint(shared.log.ops.len() as u64);
    for op in &shared.log.ops {
        write_op(&mut w, op);
    }
    let sum = fnv1a(&w.0);
    w.0.extend_from_slice(&sum.to_le_bytes());
    format!("{VERSION}.{}", base64url(&w.0))
}

/// Reads a share code. Total: every malformed input is a [`ShareError`].
pub fn decode(code: &str) -> Result<Shared, ShareError> {
    if code.is_empty() {
        return Err(ShareError::Empty);
    }
    if code.len() > MAX_CODE_LEN {
        return Err(ShareError::TooLong { len: code.chars().count() });
    }
    let Some((version, body)) = code.split_once('.') else {
        return Err(ShareError::UnknownVersion(code.to_string()));
    };
    if version != VERSION.to_string() {
        return Err(ShareError::UnknownVersion(version.to_string()));
    }
    let bytes = unbase64url(body).map_err(|at| ShareError::NotBase64 { at: at + version.len() + 1 })?;
    if bytes.len() < 4 {
        return Err(ShareError::Truncated);
    }
    let (payload, sum) = bytes.split_at(bytes.len() - 4);
    let mut r = Reader { bytes: payload, at: 0 };
    let parsed = read_shared(&mut r);
    if sum != fnv1a(payload).to_le_bytes() {
        // A cut code reads as Truncated, which says more than "damaged".
        return Err(match parsed {
            Err(ShareError::Truncated) => ShareError::Truncated,
            _ => ShareError::Corrupt("checksum"),
        });
    }
    let shared = parsed?;
    if r.at != payload.len() {
        return Err(ShareError::Corrupt("bytes after the last action"));
    }
    Ok(shared)
}

fn read_shared(r: &mut Reader) -> Result<Shared, ShareError> {
    let start = match r.byte()? {
        0 => Start::Sandbox { seed: r.varint()? },
        1 => {
            let slug = r.str()?;
            let n = r.count()?;
            let mut goals = Vec::new();
            for _ in 0..n {
                goals.push(r.str()?);
            }
            Start::Lesson { slug, goals }
        }
        _ => return Err(ShareError::Corrupt("unknown start")),
    };
    let check = Check { position: r.varint()?, resource_version: r.varint()?, goals_met: r.varint()? };
    let n = r.count()?;
    if n > MAX_OPS {
        return Err(ShareError::TooMuchWork);
    }
    let mut ops = Vec::new();
    let mut steps: u64 = 0;
    for _ in 0..n {
        let op = read_op(r)?;
        // A run until idle is logged with the steps it took: no more than a replay may take.
        let op_steps = match &op {
            Op::Settle { slice, count } => slice.saturating_mul(u64::from(*count)),
            other => other.repeats().1,
        };
        steps = steps.saturating_add(op_steps);
        if steps > MAX_REPLAY_STEPS {
            return Err(ShareError::TooMuchWork);
        }
        ops.push(op);
    }
    Ok(Shared { log: ShareLog { start, ops }, check })
}

/// Rebuilds the session a share code describes: starts it, replays its intents, and checks the
/// result. Any error means the page should show its default state and the error's text.
pub fn restore(code: &str) -> Result<Session, ShareError> {
    restore_within(code, MAX_REPLAY_STEPS)
}

/// [`restore`], refusing a code whose replay takes more than `max_steps` world steps.
pub fn restore_within(code: &str, max_steps: u64) -> Result<Session, ShareError> {
    let shared = decode(code)?;
    let mut s = match &shared.log.start {
        Start::Sandbox { seed } => {
            Session::with_engine(Engine::Sandbox { world: World::new(*seed), console: Console::new() })
        }
        Start::Lesson { slug, goals } => {
            let lesson = match lessons::lesson(slug) {
                None => return Err(ShareError::UnknownLesson(slug.clone())),
                Some(Err(e)) => return Err(ShareError::LessonFailed(format!("{e:?}"))),
                Some(Ok(l)) => l,
            };
            let mut run = LessonRun::start(&lesson).map_err(|e| ShareError::LessonFailed(e.to_string()))?;
            run.checker.restore(goals.iter().map(String::as_str));
            Session::with_engine(Engine::Lesson(run))
        }
    };
    let base = s.world().position() as u64;
    for op in &shared.log.ops {
        let (one, times) = op.repeats();
        for _ in 0..times {
            s.replay(&one);
            // A console line (`lab settle`) or a slice of Run until idle steps too: bound the
            // whole replay by the steps it really takes.
            if (s.world().position() as u64).saturating_sub(base) > max_steps {
                return Err(ShareError::TooMuchWork);
            }
        }
    }
    if Check::of(&s) != shared.check {
        return Err(ShareError::Diverged);
    }
    s.notice = Some("Opened from a share link.".into());
    Ok(s)
}

/// The share code in a location hash (`#/sandbox?state=CODE`), if it has one. Other query
/// parameters are ignored; the code is base64url, so it needs no percent-decoding.
pub fn state_param(hash: &str) -> Option<&str> {
    let (_, query) = hash.split_once('?')?;
    query.split('&').find_map(|kv| kv.strip_prefix("state="))
}

impl Session {
    /// Logs an intent. Before one that reads or changes the editor's tabs (a console line reads
    /// them as files), the texts typed since they were last logged are logged first; intents
    /// that only move the world do not need them, so typing between steps costs one intent.
    pub(super) fn record(&mut self, op: Op) {
        // The steps of a run until idle come first: they happened before this intent.
        self.flush_settle();
        let world_only = matches!(
            op,
            Op::Step(_)
                | Op::Run(_)
                | Op::Settle { .. }
                | Op::SettleCancel
                | Op::Back(_)
                | Op::Goto(_)
                | Op::Fault(_)
                | Op::SelectObject { .. }
                | Op::Clear
        );
        if !world_only {
            let texts = self.pending_texts();
            self.dirty.clear();
            for t in texts {
                self.log.push(t);
            }
        }
        self.log.push(op);
    }

    /// The texts typed since they were last logged, as intents.
    fn pending_texts(&self) -> Vec<Op> {
        self.dirty
            .iter()
            .filter_map(|&i| self.buffers.get(i as usize).map(|b| Op::Text { buffer: i, text: b.text.clone() }))
            .collect()
    }

    /// Every intent so far, with the texts typed since they were last logged (what
    /// [`Session::share_code`] encodes).
    pub fn share_log(&self) -> ShareLog {
        let mut log = self.log.clone();
        // A run until idle still going: its steps so far, as `flush_settle` will log them (the
        // replay stops where this run is now, still running).
        if self.settle_unlogged > 0 {
            log.push(Op::Settle { slice: self.settle_unlogged, count: 1 });
        }
        for t in self.pending_texts() {
            log.push(t);
        }
        log
    }

    /// Marks these lesson goals met (ids of other lessons, unknown or already met ones are
    /// ignored), as saved progress does. Logged, so a share code made later rebuilds it.
    pub fn restore_goals(&mut self, ids: &[String]) {
        let Engine::Lesson(run) = &self.engine else { return };
        let known: Vec<String> = run.lesson.steps.iter().flat_map(|s| s.goals.iter().map(|g| g.id.clone())).collect();
        let new: Vec<String> = ids.iter().filter(|id| known.contains(id) && !run.checker.is_met(id)).cloned().collect();
        if new.is_empty() {
            return;
        }
        self.record(Op::Goals(new.clone()));
        if let Engine::Lesson(run) = &mut self.engine {
            run.checker.restore(new.iter().map(String::as_str));
        }
        // Later steps may be open now: check them as after any intent.
        self.after_world(false);
    }

    /// The location hash that opens this session as it is now: `#/lessons/<slug>?state=CODE`
    /// for a lesson, `#/sandbox?state=CODE` otherwise.
    pub fn share_hash(&self) -> String {
        let route = match self.lesson() {
            Some(run) => format!("#/lessons/{}", run.lesson.slug),
            None => "#/sandbox".to_string(),
        };
        format!("{route}?state={}", self.share_code())
    }

    /// The share code of this session as it is now (see [`encode`]).
    pub fn share_code(&self) -> String {
        encode(self)
    }

    /// Plays one logged intent through the same method that logged it (which logs it again).
    fn replay(&mut self, op: &Op) {
        match op {
            Op::Step(n) => {
                for _ in 0..*n {
                    self.step();
                }
            }
            Op::Run(id) => {
                let _ = self.run_pending(*id);
            }
            Op::Settle { slice, count } => {
                for _ in 0..*count {
                    self.settle_slice(*slice);
                }
            }
            Op::SettleCancel => self.settle_cancel(),
            Op::Back(n) => {
                for _ in 0..*n {
                    self.step_back();
                }
            }
            Op::Goto(n) => self.goto(usize::try_from(*n).unwrap_or(usize::MAX)),
            Op::Fault(f) => {
                let _ = self.fault(f.clone());
            }
            Op::Console(line) => {
                self.console_submit(line);
            }
            Op::Clear => self.clear_console(),
            Op::Text { buffer, text } => self.editor_set_text(*buffer as usize, text),
            Op::Select(i) => self.select_buffer(*i as usize),
            Op::Open { name, text } => self.open_file(name, text),
            Op::Close(i) => self.close_buffer(*i as usize),
            Op::Apply(i) => {
                self.editor_apply(*i as usize);
            }
            Op::Reload(i) => self.editor_reload(*i as usize),
            Op::Refresh(i) => self.editor_refresh(*i as usize),
            Op::SelectObject { kind, key } => self.select_object(kind, key),
            Op::Reset { forget } => {
                let _ = self.reset_lesson(*forget);
            }
            Op::ToSandbox => {
                let taken = std::mem::replace(self, Session::sandbox());
                *self = taken.into_sandbox();
            }
            Op::Goals(ids) => self.restore_goals(ids),
        }
    }
}

// ----- intents as bytes -----

fn write_op(w: &mut Writer, op: &Op) {
    match op {
        Op::Step(n) => {
            w.byte(0);
            w.varint(u64::from(*n));
        }
        Op::Run(id) => {
            w.byte(1);
            w.varint(*id);
        }
        Op::Settle { slice, count } => {
            w.byte(2);
            w.varint(*slice);
            w.varint(u64::from(*count));
        }
        Op::SettleCancel => w.byte(3),
        Op::Back(n) => {
            w.byte(4);
            w.varint(u64::from(*n));
        }
        Op::Goto(n) => {
            w.byte(5);
            w.varint(*n);
        }
        Op::Fault(f) => {
            w.byte(6);
            write_fault(w, f);
        }
        Op::Console(line) => {
            w.byte(7);
            w.str(line);
        }
        Op::Clear => w.byte(8),
        Op::Text { buffer, text } => {
            w.byte(9);
            w.varint(u64::from(*buffer));
            w.str(text);
        }
        Op::Select(i) => {
            w.byte(10);
            w.varint(u64::from(*i));
        }
        Op::Open { name, text } => {
            w.byte(11);
            w.str(name);
            w.str(text);
        }
        Op::Close(i) => {
            w.byte(12);
            w.varint(u64::from(*i));
        }
        Op::Apply(i) => {
            w.byte(13);
            w.varint(u64::from(*i));
        }
        Op::Reload(i) => {
            w.byte(14);
            w.varint(u64::from(*i));
        }
        Op::Refresh(i) => {
            w.byte(15);
            w.varint(u64::from(*i));
        }
        Op::SelectObject { kind, key } => {
            w.byte(16);
            w.str(kind);
            w.str(key);
        }
        Op::Reset { forget } => {
            w.byte(17);
            w.byte(u8::from(*forget));
        }
        Op::ToSandbox => w.byte(18),
        Op::Goals(ids) => {
            w.byte(19);
            w.varint(ids.len() as u64);
            for id in ids {
                w.str(id);
            }
        }
    }
}

fn read_op(r: &mut Reader) -> Result<Op, ShareError> {
    Ok(match r.byte()? {
        0 => Op::Step(r.u32()?),
        1 => Op::Run(r.varint()?),
        2 => Op::Settle { slice: r.varint()?, count: r.u32()? },
        3 => Op::SettleCancel,
        4 => Op::Back(r.u32()?),
        5 => Op::Goto(r.varint()?),
        6 => Op::Fault(read_fault(r)?),
        7 => Op::Console(r.str()?),
        8 => Op::Clear,
        9 => Op::Text { buffer: r.u32()?, text: r.str()? },
        10 => Op::Select(r.u32()?),
        11 => Op::Open { name: r.str()?, text: r.str()? },
        12 => Op::Close(r.u32()?),
        13 => Op::Apply(r.u32()?),
        14 => Op::Reload(r.u32()?),
        15 => Op::Refresh(r.u32()?),
        16 => Op::SelectObject { kind: r.str()?, key: r.str()? },
        17 => Op::Reset {
            forget: match r.byte()? {
                0 => false,
                1 => true,
                _ => return Err(ShareError::Corrupt("a flag that is neither 0 nor 1")),
            },
        },
        18 => Op::ToSandbox,
        19 => {
            let n = r.count()?;
            let mut ids = Vec::new();
            for _ in 0..n {
                ids.push(r.str()?);
            }
            Op::Goals(ids)
        }
        _ => return Err(ShareError::Corrupt("an unknown action")),
    })
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn write_fault(w: &mut Writer, f: &Fault) {
    match f {
        Fault::BreakWatch { process, kind } => {
            w.byte(0);
            w.str(process);
            w.str(kind);
        }
        Fault::ExpireHistory => w.byte(1),
        Fault::StopProcess(p) => {
            w.byte(2);
            w.str(p);
        }
        Fault::KillProcess(p) => {
            w.byte(3);
            w.str(p);
        }
        Fault::StartProcess(p) => {
            w.byte(4);
            w.str(p);
        }
        Fault::RestartProcess(p) => {
            w.byte(5);
            w.str(p);
        }
        Fault::FailApi { process, duration } => {
            w.byte(6);
            w.str(process);
            w.varint(millis(*duration));
        }
        Fault::ConflictNextWrite(p) => {
            w.byte(7);
            w.str(p);
        }
        Fault::Partition(p) => {
            w.byte(8);
            w.str(p);
        }
        Fault::Heal(p) => {
            w.byte(9);
            w.str(p);
        }
        Fault::SlowKubelets(n) => {
            w.byte(10);
            w.varint(u64::from(*n));
        }
        Fault::FailImage(i) => {
            w.byte(11);
            w.str(i);
        }
        Fault::FixImage(i) => {
            w.byte(12);
            w.str(i);
        }
        Fault::ClockJump(d) => {
            w.byte(13);
            w.varint(millis(*d));
        }
        Fault::Freeze(p) => {
            w.byte(15);
            w.str(p);
        }
        Fault::Thaw(p) => {
            w.byte(16);
            w.str(p);
        }
        Fault::Revoke(c) => {
            w.byte(17);
            w.str(c);
        }
        Fault::Grant(c) => {
            w.byte(18);
            w.str(c);
        }
        Fault::Cloud(c) => {
            w.byte(14);
            w.byte(match c {
                None => 0,
                Some(CloudFault::Failing) => 1,
                Some(CloudFault::Hanging) => 2,
            });
        }
        Fault::BuggyOperator(on) => {
            w.byte(19);
            w.byte(u8::from(*on));
        }
    }
}

fn read_fault(r: &mut Reader) -> Result<Fault, ShareError> {
    Ok(match r.byte()? {
        0 => Fault::BreakWatch { process: r.str()?, kind: r.str()? },
        1 => Fault::ExpireHistory,
        2 => Fault::StopProcess(r.str()?),
        3 => Fault::KillProcess(r.str()?),
        4 => Fault::StartProcess(r.str()?),
        5 => Fault::RestartProcess(r.str()?),
        6 => Fault::FailApi { process: r.str()?, duration: Duration::from_millis(r.varint()?) },
        7 => Fault::ConflictNextWrite(r.str()?),
        8 => Fault::Partition(r.str()?),
        9 => Fault::Heal(r.str()?),
        10 => Fault::SlowKubelets(r.u32()?),
        11 => Fault::FailImage(r.str()?),
        12 => Fault::FixImage(r.str()?),
        13 => Fault::ClockJump(Duration::from_millis(r.varint()?)),
        14 => Fault::Cloud(match r.byte()? {
            0 => None,
            1 => Some(CloudFault::Failing),
            2 => Some(CloudFault::Hanging),
            _ => return Err(ShareError::Corrupt("an unknown cloud fault")),
        }),
        15 => Fault::Freeze(r.str()?),
        16 => Fault::Thaw(r.str()?),
        17 => Fault::Revoke(r.str()?),
        18 => Fault::Grant(r.str()?),
        19 => Fault::BuggyOperator(match r.byte()? {
            0 => false,
            1 => true,
            _ => return Err(ShareError::Corrupt("an unknown operator build")),
        }),
        _ => return Err(ShareError::Corrupt("an unknown fault")),
    })
}

// ----- bytes -----

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn byte(&mut self, b: u8) {
        self.0.push(b);
    }

    /// LEB128: seven bits a byte, low bits first, the high bit set on every byte but the last.
    fn varint(&mut self, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.0.push(low);
                return;
            }
            self.0.push(low | 0x80);
        }
    }

    fn str(&mut self, s: &str) {
        self.varint(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, ShareError> {
        let b = *self.bytes.get(self.at).ok_or(ShareError::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, ShareError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(ShareError::Corrupt("a number too large"));
            }
            v |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ShareError::Corrupt("a number too long"))
    }

    fn u32(&mut self) -> Result<u32, ShareError> {
        u32::try_from(self.varint()?).map_err(|_| ShareError::Corrupt("a number too large"))
    }

    /// A count of things that follow, each at least one byte long: never more than the bytes left.
    fn count(&mut self) -> Result<usize, ShareError> {
        let n = self.varint()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(ShareError::Truncated);
        }
        Ok(n as usize)
    }

    fn str(&mut self) -> Result<String, ShareError> {
        let n = self.varint()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(ShareError::Truncated);
        }
        let end = self.at + n as usize;
        let s = std::str::from_utf8(&self.bytes[self.at..end])
            .map_err(|_| ShareError::Corrupt("text that is not UTF-8"))?;
        self.at = end;
        Ok(s.to_string())
    }
}

/// FNV-1a, 32 bits: a checksum, not a defence (anyone can make a valid code).
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding (RFC 4648 section 5).
fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// The bytes of base64url text (padding `=` tolerated at the end); the error is the position of
/// the first character that does not belong.
fn unbase64url(text: &str) -> Result<Vec<u8>, usize> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return Err(i),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // One leftover character (6 bits) cannot come from whole bytes.
    if bits == 6 {
        return Err(text.len() - 1);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
