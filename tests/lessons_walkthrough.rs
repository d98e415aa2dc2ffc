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

/// Plays the first `limit` steps of a lesson. Returns the goals the engine cannot evaluate yet.
fn walk_steps(slug: &str, limit: usize) -> Vec<String> {
    let lesson = lessons::lesson(slug).expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).unwrap_or_else(|e| panic!("{slug}: {e}"));
    let early = run.check();
    assert!(early.is_empty(), "{slug}: goals met before the learner did anything: {early:?}");
    let mut unavailable = Vec::new();
    for (i, step) in lesson.steps.iter().enumerate().take(limit) {
        let (transcript, met) = if step.puzzle {
            let mut fresh = LessonRun::start(&lesson).expect("starts");
            let t = play_all(&mut fresh, slug, i);
            (t, fresh.checker.met())
        } else {
            let t = play_all(&mut run, slug, i);
            (t, run.checker.met())
        };
        for g in &step.goals {
            let missing = g.check.unavailable();
            if !missing.is_empty() {
                unavailable.push(format!("{slug}/{}: {}", g.id, missing.join(", ")));
                continue;
            }
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
    if unavailable.is_empty() && limit >= lesson.steps.len() {
        assert!(run.checker.complete(), "{slug}: not complete");
        assert_eq!(run.checker.current_step(), lesson.steps.len());
    }
    unavailable
}

fn walk(slug: &str) -> Vec<String> {
    walk_steps(slug, usize::MAX)
}

#[test]
fn reconcile_loop() {
    assert!(walk("reconcile-loop").is_empty());
}

#[test]
fn list_and_watch() {
    assert!(walk("list-and-watch").is_empty());
}

#[test]
fn missed_events() {
    assert!(walk("missed-events").is_empty());
}

#[test]
fn work_queue() {
    assert!(walk("work-queue").is_empty());
}

#[test]
fn conflicts() {
    assert!(walk("conflicts").is_empty());
}

#[test]
fn generation() {
    assert!(walk("generation").is_empty());
}

#[test]
fn garbage_collection() {
    assert!(walk("garbage-collection").is_empty());
}

#[test]
fn finalizers() {
    assert!(walk("finalizers").is_empty());
}

#[test]
fn leader_election() {
    assert!(walk("leader-election").is_empty());
}

#[test]
fn challenges() {
    assert!(walk("challenges").is_empty());
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
