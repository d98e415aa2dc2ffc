//! Saved progress: per lesson, the goals met and the current step, as versioned JSON that the
//! page keeps in the browser's local storage.
//!
//! Decoding never panics: corrupt, oversized, old-format or future-format data is a
//! [`ProgressError`] whose text the page shows in a notice before starting fresh.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::format::MAX_SLUG_LEN;

/// The format written by this version. Bump it when the shape changes.
pub const PROGRESS_VERSION: u32 = 1;
/// The largest saved record accepted (local storage is small; anything bigger is not ours).
pub const MAX_PROGRESS_BYTES: usize = 64 * 1024;
/// At most this many lessons in one record.
pub const MAX_LESSONS: usize = 100;
/// At most this many goals per lesson.
pub const MAX_GOALS: usize = 200;

/// Everything saved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    /// Always [`PROGRESS_VERSION`] when written.
    pub version: u32,
    /// By lesson slug.
    pub lessons: BTreeMap<String, LessonProgress>,
}

/// One lesson's progress.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LessonProgress {
    /// Ids of the goals met, sorted.
    pub goals_met: Vec<String>,
    /// The step the learner is on (0-based).
    pub current_step: usize,
}

/// Why saved progress could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgressError {
    /// More than [`MAX_PROGRESS_BYTES`].
    TooLarge(usize),
    /// Not JSON, or not the expected shape.
    Corrupt(String),
    /// Saved by an older version of the page (or with no version at all).
    OldFormat(Option<u64>),
    /// Saved by a newer version of the page.
    NewerFormat(u64),
    /// Well-formed but out of bounds.
    Invalid(String),
}

impl fmt::Display for ProgressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgressError::TooLarge(n) => write!(
                f,
                "Saved progress is {n} bytes, more than the {MAX_PROGRESS_BYTES} this page accepts; starting fresh."
            ),
            ProgressError::Corrupt(e) => write!(f, "Saved progress could not be read ({e}); starting fresh."),
            ProgressError::OldFormat(Some(v)) => {
                write!(f, "Saved progress is in an old format (version {v}); starting fresh.")
            }
            ProgressError::OldFormat(None) => write!(f, "Saved progress is in an old format; starting fresh."),
            ProgressError::NewerFormat(v) => write!(
                f,
                "Saved progress was written by a newer version of Reconcile Lab (format {v}); starting fresh."
            ),
            ProgressError::Invalid(e) => write!(f, "Saved progress is not valid ({e}); starting fresh."),
        }
    }
}

impl std::error::Error for ProgressError {}

impl Progress {
    /// An empty record of the current version.
    pub fn new() -> Progress {
        Progress { version: PROGRESS_VERSION, lessons: BTreeMap::new() }
    }

    /// The JSON the page saves.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }

    /// Reads saved JSON. See [`ProgressError`] for what is refused.
    pub fn decode(text: &str) -> Result<Progress, ProgressError> {
        if text.len() > MAX_PROGRESS_BYTES {
            return Err(ProgressError::TooLarge(text.len()));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| ProgressError::Corrupt(e.to_string()))?;
        let Some(obj) = value.as_object() else {
            return Err(ProgressError::Corrupt("not a JSON object".into()));
        };
        match obj.get("version") {
            None => return Err(ProgressError::OldFormat(None)),
            Some(v) => match v.as_u64() {
                Some(v) if v == u64::from(PROGRESS_VERSION) => {}
                Some(v) if v < u64::from(PROGRESS_VERSION) => return Err(ProgressError::OldFormat(Some(v))),
                Some(v) => return Err(ProgressError::NewerFormat(v)),
                None => return Err(ProgressError::Corrupt("version is not a number".into())),
            },
        }
        let p: Progress = serde_json::from_value(value).map_err(|e| ProgressError::Corrupt(e.to_string()))?;
        p.validate()?;
        Ok(p)
    }

    fn validate(&self) -> Result<(), ProgressError> {
        if self.lessons.len() > MAX_LESSONS {
            return Err(ProgressError::Invalid(format!("{} lessons, at most {MAX_LESSONS}", self.lessons.len())));
        }
        for (slug, l) in &self.lessons {
            if slug.is_empty() || slug.len() > MAX_SLUG_LEN {
                return Err(ProgressError::Invalid(format!("lesson name {slug:?}")));
            }
            if l.goals_met.len() > MAX_GOALS {
                return Err(ProgressError::Invalid(format!("{} goals for {slug}", l.goals_met.len())));
            }
            if l.goals_met.iter().any(|g| g.is_empty() || g.len() > MAX_SLUG_LEN) {
                return Err(ProgressError::Invalid(format!("a goal name in {slug}")));
            }
            if l.current_step > MAX_GOALS {
                return Err(ProgressError::Invalid(format!("step {} in {slug}", l.current_step)));
            }
        }
        Ok(())
    }

    /// What can still be used of a record that [`Progress::decode`] refused: the lessons whose
    /// entries are well-formed and in bounds, and how many were dropped. `None` when the record
    /// is not of this version at all (too large, not JSON, not an object, another version, or no
    /// `lessons` object): there is nothing to keep then.
    pub fn salvage(text: &str) -> Option<(Progress, usize)> {
        if text.len() > MAX_PROGRESS_BYTES {
            return None;
        }
        let value: Value = serde_json::from_str(text).ok()?;
        let obj = value.as_object()?;
        if obj.get("version").and_then(Value::as_u64) != Some(u64::from(PROGRESS_VERSION)) {
            return None;
        }
        let lessons = obj.get("lessons")?.as_object()?;
        let mut kept = Progress::new();
        let mut dropped = 0;
        for (slug, entry) in lessons {
            let one = serde_json::from_value::<LessonProgress>(entry.clone()).ok().and_then(|l| {
                let mut p = Progress::new();
                p.lessons.insert(slug.clone(), l);
                p.validate().ok().map(|()| p)
            });
            match one {
                Some(p) if kept.lessons.len() < MAX_LESSONS => kept.lessons.extend(p.lessons),
                _ => dropped += 1,
            }
        }
        Some((kept, dropped))
    }

    /// Records a lesson's progress (goals sorted and deduplicated).
    pub fn record(&mut self, slug: &str, goals_met: &[String], current_step: usize) {
        let mut goals: Vec<String> = goals_met.to_vec();
        crate::sort::sort(&mut goals);
        goals.dedup();
        self.lessons.insert(slug.to_string(), LessonProgress { goals_met: goals, current_step });
    }

    /// A lesson's progress, if any.
    pub fn lesson(&self, slug: &str) -> Option<&LessonProgress> {
        self.lessons.get(slug)
    }
}
