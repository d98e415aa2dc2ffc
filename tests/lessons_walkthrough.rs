//! For every lesson: load its file, build its world, follow its own solutions through the real
//! `Console` and `World` (the calls the page makes), and check that every goal is met.

use reconcile_lab::lessons::{self, LessonRun};

/// Plays a lesson's steps in order. Returns the goals the engine cannot evaluate yet.
fn walk(slug: &str) -> Vec<String> {
    let lesson = lessons::lesson(slug).expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).unwrap_or_else(|e| panic!("{slug}: {e}"));
    let early = run.check();
    assert!(early.is_empty(), "{slug}: goals met before the learner did anything: {early:?}");
    let mut unavailable = Vec::new();
    for (i, step) in lesson.steps.iter().enumerate() {
        let mut transcript = String::new();
        for action in &step.solution {
            match run.play(action) {
                Ok(p) => transcript.push_str(&format!("> {action:?}\n{}", p.output)),
                Err(e) => panic!("{slug} step {} ({}): {e}\n{transcript}", i + 1, step.title),
            }
        }
        for g in &step.goals {
            let missing = g.check.unavailable();
            if !missing.is_empty() {
                unavailable.push(format!("{slug}/{}: {}", g.id, missing.join(", ")));
                continue;
            }
            assert!(
                run.checker.is_met(&g.id),
                "{slug} step {} ({}): goal {} not met after its solution\n{transcript}",
                i + 1,
                step.title,
                g.id
            );
        }
    }
    if unavailable.is_empty() {
        assert!(run.checker.complete(), "{slug}: not complete");
        assert_eq!(run.checker.current_step(), lesson.steps.len());
    }
    unavailable
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
    let unavailable = walk("missed-events");
    // The edge-triggered contrast controller is not in the engine yet (issue 4, gc branch).
    assert_eq!(unavailable, vec!["missed-events/edge-drifted: edge-drift".to_string()]);
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
fn leader_election() {
    assert!(walk("leader-election").is_empty());
}
