//! The console's side of the session: the transcript the page shows, input history (Up/Down)
//! and Tab completion. The commands themselves run in [`crate::kubectl::Console`].

use crate::kubectl::cmd::{Output, Stream};

/// The most blocks the transcript keeps; older ones scroll away (a terminal's scrollback).
pub const SCROLLBACK: usize = 400;

/// What a block of the transcript is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// A line the learner ran (typed, or sent by the editor's Apply), with its output.
    Command(String),
    /// Output kubectl printed later, while the world stepped (`--watch` rows, a finished wait).
    Live,
}

/// One block of the transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Stable id (the page keys the transcript by it).
    pub id: u64,
    /// A command or live output.
    pub kind: BlockKind,
    /// The printed pieces, in terminal order.
    pub chunks: Vec<(Stream, String)>,
    /// The exit status (0 for live output).
    pub exit_code: i32,
}

/// The console transcript.
///
/// Invariant: ids strictly increase from front to back; at most [`SCROLLBACK`] blocks.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    blocks: std::collections::VecDeque<Block>,
    next_id: u64,
}

impl Transcript {
    /// The blocks, oldest first.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = &Block> + ExactSizeIterator {
        self.blocks.iter()
    }

    /// Adds a command and its output.
    pub fn command(&mut self, line: &str, out: &Output) {
        self.push(BlockKind::Command(line.to_string()), out.chunks.clone(), out.exit_code);
    }

    /// Adds live output; nothing for an empty output. Consecutive live output joins one block.
    pub fn live(&mut self, out: &Output) {
        if out.chunks.is_empty() {
            return;
        }
        if let Some(last) = self.blocks.back_mut().filter(|b| b.kind == BlockKind::Live) {
            for (s, t) in &out.chunks {
                match last.chunks.last_mut() {
                    Some((ls, lt)) if ls == s => lt.push_str(t),
                    _ => last.chunks.push((*s, t.clone())),
                }
            }
            // A changed block needs a new key so the page re-renders it.
            last.id = self.next_id;
            self.next_id += 1;
            return;
        }
        self.push(BlockKind::Live, out.chunks.clone(), 0);
    }

    fn push(&mut self, kind: BlockKind, chunks: Vec<(Stream, String)>, exit_code: i32) {
        self.blocks.push_back(Block { id: self.next_id, kind, chunks, exit_code });
        self.next_id += 1;
        while self.blocks.len() > SCROLLBACK {
            self.blocks.pop_front();
        }
    }

    /// Ctrl+L: clears the screen (running watches keep running, as in a terminal).
    pub fn clear(&mut self) {
        self.blocks.clear();
    }

    /// Everything shown, as a terminal would show it (`$ ` before each command).
    pub fn text(&self) -> String {
        let mut s = String::new();
        for b in &self.blocks {
            if let BlockKind::Command(line) = &b.kind {
                s.push_str("$ ");
                s.push_str(line);
                s.push('\n');
            }
            for (_, t) in &b.chunks {
                s.push_str(t);
            }
        }
        s
    }
}

/// Up/Down through the lines run so far, keeping what was being typed (a shell's history).
///
/// Invariant: `pos <= len` of the history it is used with; `pos == len` means "the draft".
#[derive(Clone, Debug, Default)]
pub struct HistoryCursor {
    pos: Option<usize>,
    draft: String,
}

impl HistoryCursor {
    /// Up: the previous line, or None at the oldest.
    pub fn up(&mut self, history: &[String], current: &str) -> Option<String> {
        let pos = match self.pos {
            None => {
                self.draft = current.to_string();
                history.len()
            }
            Some(p) => p,
        };
        if pos == 0 {
            return None;
        }
        self.pos = Some(pos - 1);
        history.get(pos - 1).cloned()
    }

    /// Down: the next line, then the draft; None when already at the draft.
    pub fn down(&mut self, history: &[String]) -> Option<String> {
        let pos = self.pos?;
        if pos + 1 >= history.len() {
            self.pos = None;
            return Some(std::mem::take(&mut self.draft));
        }
        self.pos = Some(pos + 1);
        history.get(pos + 1).cloned()
    }

    /// A line was run or edited: the next Up starts from the newest again.
    pub fn reset(&mut self) {
        self.pos = None;
        self.draft.clear();
    }
}

/// What Tab did to the input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The new input line.
    pub line: String,
    /// The candidates to list when more than one fits (a shell lists them on a second Tab; we
    /// list them at once).
    pub candidates: Vec<String>,
}

/// Completes the last word of `line` from `candidates` (the whole words that fit): one candidate
/// replaces the word and adds a space; several extend it to their longest common prefix.
pub fn complete_line(line: &str, candidates: Vec<String>) -> Completion {
    let word_start = line.rfind(char::is_whitespace).map_or(0, |i| i + 1);
    let head = &line[..word_start];
    match candidates.as_slice() {
        [] => Completion { line: line.to_string(), candidates },
        [one] => Completion { line: format!("{head}{one} "), candidates: Vec::new() },
        many => {
            let mut prefix = many[0].clone();
            for c in &many[1..] {
                let common = prefix.chars().zip(c.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum();
                prefix.truncate(common);
            }
            let word = &line[word_start..];
            let line = if prefix.len() > word.len() { format!("{head}{prefix}") } else { line.to_string() };
            Completion { line, candidates }
        }
    }
}
