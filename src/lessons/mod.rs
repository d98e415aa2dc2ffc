//! Guided lessons, below the page: the lesson file format ([`format`], its text in [`markdown`]), goal checks ([`goal`],
//! [`checker`]), saved progress ([`progress`]) and a lesson in play ([`run`]), natively tested.
//!
//! Lessons are data: the Markdown files in `lessons/` (documented in `docs/lessons.md`) are
//! compiled in by [`catalog`], parsed with [`format::parse`], and played with
//! [`run::LessonRun`], which drives the same `World` and `Console` the page drives. The page
//! calls [`run::LessonRun::check`] after anything it does to the world itself and shows the goals
//! that became met; when [`checker::Checker::complete`] turns true it announces "Lesson complete".

pub mod checker;
pub mod format;
pub mod goal;
pub mod markdown;
pub mod progress;
pub mod run;

pub use checker::Checker;
pub use format::{parse, Action, Goal, Lesson, ParseError, Step};
pub use goal::Check;
pub use progress::{LessonProgress, Progress, ProgressError, PROGRESS_VERSION};
pub use run::{verify, LessonRun, PlayError, Played, VerifyError};

/// The lesson files, in the order the home page lists them: `(slug, Markdown)`.
pub const LESSON_FILES: [(&str, &str); 10] = [
    ("reconcile-loop", include_str!("../../lessons/reconcile-loop.md")),
    ("list-and-watch", include_str!("../../lessons/list-and-watch.md")),
    ("missed-events", include_str!("../../lessons/missed-events.md")),
    ("work-queue", include_str!("../../lessons/work-queue.md")),
    ("conflicts", include_str!("../../lessons/conflicts.md")),
    ("generation", include_str!("../../lessons/generation.md")),
    ("garbage-collection", include_str!("../../lessons/garbage-collection.md")),
    ("finalizers", include_str!("../../lessons/finalizers.md")),
    ("leader-election", include_str!("../../lessons/leader-election.md")),
    ("challenges", include_str!("../../lessons/challenges.md")),
];

/// Every lesson, parsed, in order. A file that does not parse is reported with its slug (the
/// tests make sure none does).
pub fn catalog() -> Vec<Result<Lesson, (String, ParseError)>> {
    LESSON_FILES.iter().map(|(slug, text)| format::parse(text).map_err(|e| (slug.to_string(), e))).collect()
}

/// One lesson by slug.
pub fn lesson(slug: &str) -> Option<Result<Lesson, ParseError>> {
    LESSON_FILES.iter().find(|(s, _)| *s == slug).map(|(_, text)| format::parse(text))
}
