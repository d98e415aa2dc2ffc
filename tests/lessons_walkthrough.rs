//! For every lesson: load its file, build its world, follow its own solutions through the real
//! `Console` and `World` (the calls the page makes), and check that every goal is met right after
//! its step's solution, so that the lesson completes ([`lessons::verify`]).

use reconcile_lab::lessons::{self, LessonRun};

fn walk(slug: &str) {
    let lesson = lessons::lesson(slug).expect("listed").expect("parses");
    if let Err(e) = lessons::verify(&lesson) {
        panic!("{slug}: {e}");
    }
}

/// The learner's path through the challenges: Reset before each puzzle, goals kept, complete.
#[test]
fn challenges_complete_with_reset_between_puzzles() {
    let lesson = lessons::lesson("challenges").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    for i in 0..lesson.steps.len() {
        run.reset().expect("resets");
        run.play_solution(i).unwrap_or_else(|e| panic!("puzzle {}: {e}", i + 1));
        assert!(run.checker.step_done(i), "puzzle {} not done", i + 1);
    }
    assert!(run.checker.complete());
    assert_eq!(run.checker.current_step(), lesson.steps.len());
}

#[test]
fn reconcile_loop() {
    walk("reconcile-loop");
}

#[test]
fn list_and_watch() {
    walk("list-and-watch");
}

#[test]
fn missed_events() {
    walk("missed-events");
}

#[test]
fn work_queue() {
    walk("work-queue");
}

#[test]
fn conflicts() {
    walk("conflicts");
}

#[test]
fn generation() {
    walk("generation");
}

#[test]
fn garbage_collection() {
    walk("garbage-collection");
}

#[test]
fn finalizers() {
    walk("finalizers");
}

#[test]
fn leader_election() {
    walk("leader-election");
}

#[test]
fn challenges() {
    walk("challenges");
}

/// The lessons with a walkthrough test above; a new lesson file needs one.
const WALKED: [&str; 10] = [
    "reconcile-loop",
    "list-and-watch",
    "missed-events",
    "work-queue",
    "conflicts",
    "generation",
    "garbage-collection",
    "finalizers",
    "leader-election",
    "challenges",
];

#[test]
fn every_lesson_has_a_walkthrough() {
    let slugs: Vec<&str> = lessons::LESSON_FILES.iter().map(|(s, _)| *s).collect();
    assert_eq!(slugs, WALKED);
}
