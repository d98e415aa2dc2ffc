//! For every lesson: load its file, build its world, follow its own solutions through the real
//! `Console` and `World` (the calls the page makes), and check that every goal is met.
//!
//! Steps are played in order in one world, as a learner would. Puzzles are independent: each one
//! is played from a fresh start (the page's Reset, which keeps the goals met), and the goals it
//! meets are restored into the main run.

use reconcile_lab::lessons::{self, LessonRun, Played};

fn play_all(run: &mut LessonRun, slug: &str, i: usize) -> String {
    let step = run.lesson.steps[i].clone();
    let mut transcript = String::new();
    for action in &step.solution {
        match run.play(action) {
            Ok(Played { output, .. }) => transcript.push_str(&format!("> {action:?}\n{output}")),
            Err(e) => panic!("{slug} step {} ({}): {e}\n{transcript}", i + 1, step.title),
        }
    }
    transcript
}

/// Plays every step of a lesson and checks each goal right after its step's solution.
fn walk(slug: &str) {
    let lesson = lessons::lesson(slug).expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).unwrap_or_else(|e| panic!("{slug}: {e}"));
    let early = run.check();
    assert!(early.is_empty(), "{slug}: goals met before the learner did anything: {early:?}");
    for (i, step) in lesson.steps.iter().enumerate() {
        let (transcript, met) = if step.puzzle {
            let mut fresh = LessonRun::start(&lesson).expect("starts");
            let t = play_all(&mut fresh, slug, i);
            (t, fresh.checker.met())
        } else {
            let t = play_all(&mut run, slug, i);
            (t, run.checker.met())
        };
        for g in &step.goals {
            assert!(
                met.contains(&g.id),
                "{slug} step {} ({}): goal {} not met after its solution\n{transcript}",
                i + 1,
                step.title,
                g.id
            );
        }
        run.checker.restore(met.iter().map(String::as_str));
    }
    assert!(run.checker.complete(), "{slug}: not complete");
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
