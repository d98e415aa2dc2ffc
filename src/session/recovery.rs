//! What the page keeps outside the WebAssembly instance after every successful intent, so that a
//! panic loses nothing the learner did (issue 10, "Panic safety").
//!
//! In the browser a panic aborts (`panic = "abort"`): once the panic hook has run, the instance is
//! dead and nothing can be asked of the [`Session`] any more. So after every intent the page writes
//! a [`Checkpoint`] to the tab's session storage: a small head (the route, the share code of this
//! state and the link that opens it, where the learner stands, the last console lines) and the step log
//! in chunks of [`CHUNK`] steps, of which only the chunks that changed are rewritten (a step
//! appends to the last chunk; stepping back and acting drops the later ones). The page's crash
//! panel (`public/boot.js`) reads them back with plain JavaScript to offer **Export state** and
//! **Reload from last good step**.
//!
//! Plain Rust, tested below; `src/web/recovery.rs` does the storage calls.

use super::share::state_param;
use super::Session;
use crate::engine::world::StepRecord;

/// The session-storage key of the head (JSON, see [`Recorder::checkpoint`]).
pub const HEAD_KEY: &str = "reconcile-lab.recovery";
/// The prefix of the step-log chunk keys: chunk `i` holds steps `i * CHUNK + 1 ..= (i + 1) * CHUNK`.
pub const CHUNK_PREFIX: &str = "reconcile-lab.recovery.log.";
/// Steps per chunk.
pub const CHUNK: usize = 100;
/// Only the last this-many chunks are kept (5,000 steps), so a long session cannot fill the
/// storage; the head says how many earlier steps were left out.
pub const MAX_CHUNKS: usize = 50;
/// The head keeps the last this-many console lines.
pub const MAX_COMMANDS: usize = 100;
/// The format of the head, for the crash panel.
pub const RECOVERY_VERSION: u32 = 1;

/// One line of the step log.
pub fn log_line(r: &StepRecord) -> String {
    format!("{:>5}  {}  {}: {}", r.number, r.time, r.actor, r.sentence)
}

/// What to write after an intent: the head, and the chunk keys to set or remove.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoint {
    /// The new head, when it changed.
    pub head: Option<String>,
    /// `(chunk index, Some(text))` to write, `(chunk index, None)` to remove.
    pub chunks: Vec<(usize, Option<String>)>,
}

impl Checkpoint {
    /// The storage key of chunk `i`.
    pub fn key(i: usize) -> String {
        format!("{CHUNK_PREFIX}{i}")
    }

    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.head.is_none() && self.chunks.is_empty()
    }
}

/// Keeps the step log's lines and what was last written, so that a checkpoint writes only what
/// changed.
///
/// Invariant: `lines[i]` is [`log_line`] of step `base + i + 1` of the timeline as last seen
/// (only the lines of the chunks in storage are kept: the log in memory stays as small as the
/// one in storage however many steps were taken), and chunks `first_chunk..written` hold exactly
/// those lines.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    lines: Vec<String>,
    /// The number of steps before `lines[0]` (a multiple of [`CHUNK`]).
    base: usize,
    /// Chunks `first_chunk..written` exist in storage.
    first_chunk: usize,
    written: usize,
    head: String,
    branches_seen: usize,
}

impl Recorder {
    /// A recorder that has written nothing yet.
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// What changed since the last checkpoint. `route` is the page's location hash (`#/sandbox`).
    pub fn checkpoint(&mut self, s: &Session, route: &str) -> Checkpoint {
        let t = s.timeline();
        let len = t.len();
        let seen = self.base + self.lines.len();
        let line = |n: usize| match t.get(s.world(), n) {
            Some(r) => log_line(r),
            None => format!("{n} (not kept in memory)"),
        };
        // Records only change at the end: a step appends, acting after stepping back starts a
        // branch that replaces the later ones (a new session, after Reset, has fewer branches).
        // So the lines still valid are those before any new branch, found by walking back from
        // the end. (A step whose record is no longer held in memory is taken as unchanged.)
        let branches = t.branches();
        let mut keep = seen.min(len);
        if branches.len() < self.branches_seen {
            keep = 0;
        }
        for b in branches.get(self.branches_seen..).unwrap_or_default() {
            keep = keep.min(b.from);
        }
        self.branches_seen = branches.len();
        while keep > self.base {
            match t.get(s.world(), keep) {
                Some(r) if self.lines[keep - self.base - 1] != log_line(r) => keep -= 1,
                _ => break,
            }
        }
        let mut out = Checkpoint::default();
        if keep < seen || len > seen {
            let chunks = len.div_ceil(CHUNK);
            let first = chunks.saturating_sub(MAX_CHUNKS);
            // The chunks to write: from the first changed one, and the whole window if it moved
            // back (a branch from before it).
            let start = if first < self.first_chunk { first } else { (keep / CHUNK).max(first) };
            if start * CHUNK >= self.base && keep >= self.base {
                self.lines.truncate(keep - self.base);
                self.lines.extend((keep + 1..=len).map(line));
            } else {
                self.base = start * CHUNK;
                self.lines = (self.base + 1..=len).map(line).collect();
            }
            // Chunks that left the window, or that no longer exist after a branch.
            for i in self.first_chunk..self.written {
                if i < first || i >= chunks {
                    out.chunks.push((i, None));
                }
            }
            for i in start..chunks {
                let end = ((i + 1) * CHUNK).min(len);
                out.chunks.push((i, Some(self.lines[i * CHUNK - self.base..end - self.base].join("\n"))));
            }
            // Lines of chunks that left the window are not needed any more.
            if first * CHUNK > self.base {
                self.lines.drain(..first * CHUNK - self.base);
                self.base = first * CHUNK;
            }
            self.first_chunk = first;
            self.written = chunks;
        }
        let head = self.head_json(s, route);
        if head != self.head {
            self.head.clone_from(&head);
            out.head = Some(head);
        }
        out
    }

    fn head_json(&self, s: &Session, route: &str) -> String {
        let history = &s.console().history;
        // The link that rebuilds this state (`#/sandbox?state=CODE`), and its code.
        let share_hash = s.share_hash();
        let share = state_param(&share_hash);
        let commands = &history[history.len().saturating_sub(MAX_COMMANDS)..];
        serde_json::json!({
            "version": RECOVERY_VERSION,
            "route": route,
            "share": share,
            "shareHash": share_hash,
            "seed": s.world().seed(),
            "lesson": s.lesson().map(|l| l.lesson.slug.clone()),
            "step": s.timeline().current(),
            "steps": self.base + self.lines.len(),
            "firstChunk": self.first_chunk,
            "chunks": self.written,
            "commands": commands,
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Applies a checkpoint to a map standing in for session storage.
    fn apply(store: &mut std::collections::BTreeMap<String, String>, c: Checkpoint) {
        if let Some(h) = c.head {
            store.insert(HEAD_KEY.into(), h);
        }
        for (i, text) in c.chunks {
            match text {
                Some(t) => store.insert(Checkpoint::key(i), t),
                None => store.remove(&Checkpoint::key(i)),
            };
        }
    }

    /// The step log as the crash panel rebuilds it from storage.
    fn log(store: &std::collections::BTreeMap<String, String>) -> Vec<String> {
        let head: Value = serde_json::from_str(&store[HEAD_KEY]).unwrap();
        let (first, n) = (head["firstChunk"].as_u64().unwrap(), head["chunks"].as_u64().unwrap());
        (first..n)
            .flat_map(|i| store[&Checkpoint::key(i as usize)].lines().map(String::from).collect::<Vec<_>>())
            .collect()
    }

    fn all_lines(s: &Session) -> Vec<String> {
        (1..=s.timeline().len()).map(|n| log_line(s.timeline().get(s.world(), n).expect("held"))).collect()
    }

    #[test]
    fn the_log_in_storage_follows_steps_step_back_and_branches() {
        let mut s = Session::sandbox();
        let mut r = Recorder::new();
        let mut store = Default::default();
        apply(&mut store, r.checkpoint(&s, "#/sandbox"));
        s.console_submit("kubectl create deployment web --image=nginx --replicas=2");
        for _ in 0..(CHUNK + 30) {
            s.step();
            apply(&mut store, r.checkpoint(&s, "#/sandbox"));
        }
        assert_eq!(log(&store), all_lines(&s));
        assert!(all_lines(&s).len() > CHUNK, "the log spans two chunks");
        // A step rewrites only the last chunk.
        s.step();
        let c = r.checkpoint(&s, "#/sandbox");
        assert_eq!(c.chunks.iter().map(|(i, _)| *i).collect::<Vec<_>>(), vec![all_lines(&s).len().div_ceil(CHUNK) - 1]);
        apply(&mut store, c);
        // Back across the chunk boundary, then act: a new branch; the log is the new branch.
        for _ in 0..40 {
            s.step_back();
        }
        s.console_submit("kubectl scale deployment web --replicas=1");
        s.step();
        apply(&mut store, r.checkpoint(&s, "#/sandbox"));
        assert_eq!(log(&store), all_lines(&s));
        let head: Value = serde_json::from_str(&store[HEAD_KEY]).unwrap();
        assert_eq!(head["step"], s.timeline().current());
        assert_eq!(head["commands"][1], "kubectl scale deployment web --replicas=1");
        assert_eq!(head["route"], "#/sandbox");
        // The share code kept is this state's: it rebuilds the same step and objects.
        let back = crate::session::share::restore(head["share"].as_str().unwrap()).unwrap();
        assert_eq!(back.timeline().current(), s.timeline().current());
        assert_eq!(back.world().api().resource_version(), s.world().api().resource_version());
        // Nothing changed, nothing written.
        assert!(r.checkpoint(&s, "#/sandbox").is_empty());
    }

    #[test]
    fn only_the_last_chunks_are_kept() {
        let mut s = Session::sandbox();
        s.console_submit("kubectl create deployment web --image=nginx --replicas=3");
        let mut r = Recorder::new();
        let mut store = Default::default();
        while s.timeline().len() < (MAX_CHUNKS + 2) * CHUNK {
            s.console_submit("lab advance 10s");
            s.run_until_idle();
            apply(&mut store, r.checkpoint(&s, "#/sandbox"));
        }
        let lines = all_lines(&s);
        let kept = log(&store);
        assert_eq!(kept.len(), lines.len() - (lines.len().div_ceil(CHUNK) - MAX_CHUNKS) * CHUNK);
        assert!(lines.ends_with(&kept));
        assert_eq!(store.keys().filter(|k| k.starts_with(CHUNK_PREFIX)).count(), MAX_CHUNKS);
        let head: Value = serde_json::from_str(&store[HEAD_KEY]).unwrap();
        assert_eq!(head["share"], s.share_code());
        assert_eq!(head["shareHash"], format!("#/sandbox?state={}", s.share_code()));
        // The recorder keeps only the window's lines in memory.
        assert_eq!(r.lines.len(), kept.len());
        assert_eq!(head["steps"], lines.len());
        // A branch from before the window: the window moves back and is the new branch's tail.
        s.goto(CHUNK + 7);
        s.step();
        apply(&mut store, r.checkpoint(&s, "#/sandbox"));
        let lines = all_lines(&s);
        assert_eq!(lines.len(), CHUNK + 8);
        assert_eq!(log(&store), lines);
        assert_eq!(store.keys().filter(|k| k.starts_with(CHUNK_PREFIX)).count(), 2);
    }
}
