//! Reading saved progress back from the browser without ever failing, and without losing more
//! than the unreadable part (issue 10, "Saved data").
//!
//! The page reads its local storage into a [`Stored`] and calls [`load`]; whatever is there
//! (nothing, a record of this version, a record with some broken lessons, garbage, megabytes,
//! another version's format, or a storage that throws), the result is progress to start from
//! and, when something was not as expected, a notice in words a learner understands:
//!
//! - a record of this version: used as it is, no notice;
//! - a record of this version with some lessons' entries broken (wrong types, out of bounds):
//!   the other lessons are kept, and the notice says how many were dropped;
//! - anything else unreadable: fresh progress; the unreadable text is kept aside under
//!   [`UNREADABLE_KEY`] (when it is small enough to be ours: a later version, or a person, can
//!   still read it) before the next save replaces it;
//! - a storage that refuses to be read or written ([`UNAVAILABLE`], [`NOT_SAVED`]): progress
//!   lasts as long as the page, and the page says so.
//!
//! Plain Rust (the page's `src/web/storage.rs` does the browser calls), tested below.

use crate::lessons::progress::{Progress, ProgressError, MAX_PROGRESS_BYTES};

pub use super::lesson::{PROGRESS_KEY, UNREADABLE_PROGRESS};

/// Where an unreadable record is kept before the next save replaces it.
pub const UNREADABLE_KEY: &str = "reconcile-lab.progress.unreadable";

/// The notice when the browser refuses its storage altogether (disabled, or blocked for this site).
pub const UNAVAILABLE: &str = "This browser does not let Reconcile Lab use its storage, so your progress lasts only \
                               until you leave the page.";

/// The notice when a save is refused (quota exceeded, storage disabled meanwhile).
pub const NOT_SAVED: &str = "Your progress could not be saved: the browser's storage refused it (it may be full). \
                             It lasts until you leave the page.";

/// Said after [`UNREADABLE_PROGRESS`] when the unreadable text was kept aside.
pub const KEPT_ASIDE: &str =
    "The unreadable copy is kept in this browser under reconcile-lab.progress.unreadable; nothing else was changed.";

/// What reading the progress key gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored<'a> {
    /// Nothing saved yet.
    Nothing,
    /// The saved text.
    Text(&'a str),
    /// The storage threw (disabled, blocked, or a browser that has none).
    Unavailable,
}

/// Progress to start from, and what to tell the learner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// The progress to start from (fresh when nothing usable was saved).
    pub progress: Progress,
    /// What the page says about the saved data, if anything was wrong.
    pub notice: Option<String>,
    /// An unreadable record to copy to [`UNREADABLE_KEY`] before anything is saved (the page
    /// then appends [`KEPT_ASIDE`] to the notice if that copy succeeded).
    pub keep_aside: Option<String>,
}

/// Why a record could not be used, as the second sentence of the notice.
fn why(e: &ProgressError) -> String {
    match e {
        ProgressError::TooLarge(n) => {
            format!("It is {n} bytes, more than the {MAX_PROGRESS_BYTES} this page ever writes.")
        }
        ProgressError::Corrupt(e) => format!("It is not what this page writes ({e})."),
        ProgressError::OldFormat(_) => "It was written by an older version of Reconcile Lab.".into(),
        ProgressError::NewerFormat(v) => format!("It was written by a newer version of Reconcile Lab (format {v})."),
        ProgressError::Invalid(e) => format!("It holds values this page does not accept ({e})."),
    }
}

/// Reads saved progress. Never fails; see the module documentation for each case.
pub fn load(stored: Stored<'_>) -> Loaded {
    let text = match stored {
        Stored::Nothing => return Loaded { progress: Progress::new(), notice: None, keep_aside: None },
        Stored::Unavailable => {
            return Loaded { progress: Progress::new(), notice: Some(UNAVAILABLE.into()), keep_aside: None }
        }
        Stored::Text(t) => t,
    };
    let err = match Progress::decode(text) {
        Ok(p) => return Loaded { progress: p, notice: None, keep_aside: None },
        Err(e) => e,
    };
    match Progress::salvage(text) {
        Some((progress, dropped)) if dropped > 0 || !progress.lessons.is_empty() => {
            let kept = match progress.lessons.len() {
                0 => "nothing else was saved".to_string(),
                1 => "the progress of the other lesson was kept".to_string(),
                n => format!("the progress of the other {n} lessons was kept"),
            };
            let notice = match dropped {
                0 => {
                    "Saved progress held fields this page does not know; they were dropped and your lessons' progress \
                      was kept."
                        .to_string()
                }
                1 => format!("Saved progress of 1 lesson could not be read and was dropped; {kept}."),
                n => format!("Saved progress of {n} lessons could not be read and was dropped; {kept}."),
            };
            return Loaded { progress, notice: Some(notice), keep_aside: Some(text.to_string()) };
        }
        _ => {}
    }
    let keep_aside = (text.len() <= MAX_PROGRESS_BYTES).then(|| text.to_string());
    Loaded { progress: Progress::new(), notice: Some(format!("{UNREADABLE_PROGRESS} {}", why(&err))), keep_aside }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_saved_is_fresh_progress_without_a_notice() {
        assert_eq!(load(Stored::Nothing), Loaded { progress: Progress::new(), notice: None, keep_aside: None });
    }

    #[test]
    fn a_good_record_is_used_as_it_is() {
        let mut p = Progress::new();
        p.record("conflicts", &["b".into(), "a".into()], 1);
        let text = p.encode();
        assert_eq!(load(Stored::Text(&text)), Loaded { progress: p, notice: None, keep_aside: None });
    }

    #[test]
    fn storage_that_throws_gives_the_notice() {
        let l = load(Stored::Unavailable);
        assert_eq!((l.progress, l.notice.as_deref(), l.keep_aside), (Progress::new(), Some(UNAVAILABLE), None));
    }

    #[test]
    fn unreadable_records_start_fresh_say_why_and_are_kept_aside() {
        let cases: [(&str, &str); 9] = [
            ("{not json", "It is not what this page writes"),
            ("null", "It is not what this page writes (not a JSON object)"),
            ("[1,2]", "It is not what this page writes (not a JSON object)"),
            (r#"{"version":"1","lessons":{}}"#, "version is not a number"),
            (r#"{"version":1,"lessons":[]}"#, "It is not what this page writes"),
            (r#"{"lessons":{}}"#, "It was written by an older version of Reconcile Lab."),
            (r#"{"version":0,"lessons":{}}"#, "It was written by an older version of Reconcile Lab."),
            (r#"{"version":7,"lessons":{}}"#, "It was written by a newer version of Reconcile Lab (format 7)."),
            (r#"{"version":1,"lessons":{},"extra":true}"#, "unknown field `extra`"),
        ];
        for (text, reason) in cases {
            let l = load(Stored::Text(text));
            assert_eq!(l.progress, Progress::new(), "{text}");
            let notice = l.notice.unwrap_or_default();
            assert!(notice.starts_with(UNREADABLE_PROGRESS), "{text}: {notice}");
            assert!(notice.contains(reason), "{text}: {notice}");
            assert_eq!(l.keep_aside.as_deref(), Some(text));
        }
    }

    #[test]
    fn megabytes_are_refused_without_parsing_and_not_copied() {
        let big = format!("{{\"version\":1,\"lessons\":{{\"a\":{}}}}}", "1".repeat(5 << 20));
        let l = load(Stored::Text(&big));
        assert_eq!(l.progress, Progress::new());
        assert!(l.notice.unwrap_or_default().contains(&format!("It is {} bytes", big.len())));
        assert_eq!(l.keep_aside, None);
    }

    #[test]
    fn broken_lessons_are_dropped_and_the_others_kept() {
        let text = r#"{"version":1,"lessons":{
            "generation":{"goals_met":["gen-two"],"current_step":1},
            "conflicts":{"goals_met":"all of them","current_step":-1},
            "finalizers":{"goals_met":[""],"current_step":0}}}"#;
        let l = load(Stored::Text(text));
        let mut want = Progress::new();
        want.record("generation", &["gen-two".into()], 1);
        assert_eq!(l.progress, want);
        assert_eq!(
            l.notice.as_deref(),
            Some("Saved progress of 2 lessons could not be read and was dropped; the progress of the other lesson was kept.")
        );
        assert_eq!(l.keep_aside.as_deref(), Some(text));
        let one = r#"{"version":1,"lessons":{"x":{"goals_met":[1],"current_step":0}}}"#;
        assert_eq!(
            load(Stored::Text(one)).notice.as_deref(),
            Some("Saved progress of 1 lesson could not be read and was dropped; nothing else was saved.")
        );
        let extra =
            r#"{"version":1,"lessons":{"generation":{"goals_met":["gen-two"],"current_step":1}},"theme":"dark"}"#;
        let l = load(Stored::Text(extra));
        assert_eq!(l.progress, want);
        assert!(l.notice.unwrap_or_default().starts_with("Saved progress held fields this page does not know;"));
    }
}
