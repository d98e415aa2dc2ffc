//! Goal checks and the checker: what meets a goal, what does not, and that progress sticks.

use reconcile_lab::lessons::{self, goal, Check, Checker, LessonRun};

fn conflicts() -> LessonRun {
    let lesson = lessons::lesson("conflicts").expect("listed").expect("parses");
    LessonRun::start(&lesson).expect("starts")
}

#[test]
fn a_successful_apply_does_not_meet_the_409_goal() {
    let mut run = conflicts();
    // The wrong action: apply without the stale resourceVersion. It succeeds...
    let fresh = run.lesson.files[0].1.replace("  resourceVersion: \"2\"\n", "");
    run.edit("web.yaml", &fresh);
    let p = run.apply("web.yaml");
    assert_eq!(p.exit_code, 0, "{}", p.output);
    assert!(p.newly_met.is_empty(), "{:?}", p.newly_met);
    // ...and even after the cluster settles, no 409 goal is met.
    let p = run.settle();
    assert!(!run.checker.is_met("got-409") && !run.checker.is_met("spec-unchanged"), "{:?}", p.newly_met);
    // The right action meets it, and says so on that very input.
    run.edit("web.yaml", &run.lesson.files[0].1.clone());
    let p = run.apply("web.yaml");
    assert_eq!(p.exit_code, 1, "{}", p.output);
    assert!(p.output.contains("Error from server (Conflict)"), "{}", p.output);
    assert_eq!(p.newly_met, vec!["got-409".to_string()], "spec-unchanged needs replicas 2; the wrong apply set 4");
}

#[test]
fn a_user_409_does_not_meet_the_controller_409_goal() {
    let mut run = conflicts();
    run.play_solution(0).expect("step 1");
    run.play_solution(1).expect("step 2");
    assert!(run.checker.is_met("got-409") && run.checker.is_met("applied"));
    // Another stale apply: a 409 again, but to kubectl, not to the Deployment controller.
    run.edit("web.yaml", &run.lesson.files[0].1.clone());
    assert_eq!(run.apply("web.yaml").exit_code, 1);
    run.settle();
    assert!(!run.checker.is_met("controller-409"));
    // Scaling without the armed conflict converges with no 409 for the controller either.
    run.execute("kubectl scale deployment web --replicas=3");
    run.settle();
    assert!(!run.checker.is_met("controller-409") && !run.checker.is_met("retried"));
    assert!(!run.checker.complete());
}

#[test]
fn goals_stay_met_and_later_steps_wait_their_turn() {
    let lesson = lessons::lesson("reconcile-loop").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    // Doing step 2 first does not tick step 2's goals: step 1 is not done.
    run.execute("kubectl scale deployment web --replicas=3");
    run.settle();
    assert!(run.checker.met().is_empty(), "{:?}", run.checker.met());
    assert_eq!(run.checker.current_step(), 0);
    // Step 1 done: step 2 opens in the same check, and its goals (already true) tick at once.
    let p = run.execute("kubectl delete pod -l app=web");
    assert!(p.newly_met.contains(&"pod-deleted".to_string()));
    let p = run.settle();
    assert_eq!(p.newly_met, vec!["pod-replaced", "desired-three", "actual-three"]);
    assert_eq!(run.checker.current_step(), 2);
    // Undoing the state does not undo progress; stepping back neither.
    run.execute("kubectl scale deployment web --replicas=1");
    run.settle();
    for _ in 0..40 {
        assert!(run.world.step_back());
    }
    assert!(run.check().is_empty());
    assert!(run.checker.is_met("actual-three") && run.checker.is_met("pod-deleted"));
    assert_eq!(run.checker.current_step(), 2);
}

#[test]
fn restored_progress_is_kept_and_unknown_goals_ignored() {
    let lesson = lessons::lesson("generation").expect("listed").expect("parses");
    let run = LessonRun::start(&lesson).expect("starts");
    let mut c = Checker::new(&lesson, &run.world);
    c.restore(["gen-two", "observed-two", "no-such-goal"]);
    assert_eq!(c.met(), vec!["gen-two".to_string(), "observed-two".to_string()]);
    assert_eq!(c.current_step(), 2);
}

#[test]
fn seen_counts_only_what_happened_after_the_lesson_started() {
    let lesson = lessons::lesson("missed-events").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    // The setup created Pods and listed informers: none of that counts.
    assert!(run.check().is_empty());
    let p = run.execute("lab break-watch kube-controller-manager-a Pod");
    assert_eq!(p.newly_met, vec!["watch-broken".to_string()]);
}

fn check(text: &str) -> Check {
    goal::parse_check(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn holds(run: &LessonRun, text: &str) -> bool {
    let c = check(text);
    assert_eq!(c.seen_slots(), 0, "stateless checks only");
    c.eval(&run.world, &[], &mut 0)
}

#[test]
fn the_vocabulary_against_a_real_world() {
    let lesson = lessons::lesson("generation").expect("listed").expect("parses");
    let run = LessonRun::start(&lesson).expect("starts");
    assert!(holds(&run, "exists deploy web"));
    assert!(holds(&run, "exists namespace kube-system"));
    assert!(holds(&run, "absent deployment api"));
    assert!(holds(&run, "field deploy default/web .spec.replicas == 2"));
    assert!(holds(&run, "field deploy web {.spec.replicas} >= 2"));
    assert!(!holds(&run, "field deploy web .spec.replicas > 2"));
    assert!(holds(&run, "field deploy web .metadata.name == web"));
    assert!(holds(&run, "field deploy web .metadata.name == \"web\""));
    assert!(holds(&run, "field deploy web .metadata.labels == '{\"app\":\"web\"}'"));
    assert!(holds(&run, "field deploy web .spec.replicas == \"2\""), "a string holding a number is that number");
    // One result is the value itself, not a one-element array.
    assert!(!holds(&run, "field deploy web .spec.template.spec.containers[*].image == '[\"nginx\"]'"));
    assert!(holds(&run, "field deploy web .spec.template.spec.containers[*].image == nginx"));
    assert!(holds(&run, "field deploy web .spec.template.spec.containers[0].image == nginx"));
    assert!(holds(&run, "field deploy web .metadata.deletionTimestamp == null"));
    assert!(holds(&run, "field deploy web .status.observedGeneration == @.metadata.generation"));
    assert!(holds(&run, "field deploy web .metadata.generation < @.status.observedGeneration+1"));
    assert!(!holds(&run, "field deploy absent .spec.replicas == 2"), "a missing object fails every field check");
    assert!(holds(&run, "condition deploy web Available True"));
    assert!(!holds(&run, "condition deploy web Available False"));
    assert!(holds(&run, "count pods -l app=web == 2"));
    assert!(holds(&run, "count pods -A -l app=web where .status.phase == Running == 2"));
    assert!(holds(&run, "count pods -n kube-system == 0"));
    assert!(holds(&run, "count nodes == 3"));
    assert!(holds(&run, "process kube-controller-manager-a leading"));
    assert!(holds(&run, "process kube-controller-manager-b standby"));
    assert!(holds(&run, "process pod-counters stopped"));
    assert!(!holds(&run, "process nobody running"));
    assert!(holds(&run, "not exists deploy api and exists deploy web"));
    assert!(holds(&run, "no-leaked-buckets"));
    assert!(!holds(&run, "leaked-bucket photos"));
    assert!(!holds(&run, "edge-drift"), "no counter ConfigMap: no drift to report");
}

#[test]
fn seen_filters_match_records() {
    let lesson = lessons::lesson("work-queue").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    run.execute("kubectl scale deployment web --replicas=3");
    run.settle();
    let records = run.world.history().to_vec();
    let count = |text: &str| {
        let c = check(text);
        let mut n = vec![0; c.seen_slots()];
        for r in &records {
            c.observe(r, &mut n, &mut 0);
        }
        n[0]
    };
    assert_eq!(count("seen actor=kubectl verb=PATCH kind=Deployment code=200"), 1);
    assert!(count("seen action=reconcile key=default/web actor=deployment-controller") >= 1);
    assert!(count("seen action=deliver kind=Deployment text=MODIFIED") >= 1);
    assert_eq!(count("seen actor=kubectl code=409"), 0);
    assert_eq!(count("seen action=fault"), 0);
}

#[test]
fn bad_checks_are_refused_with_a_reason() {
    for (text, needle) in [
        ("", "empty check"),
        ("exists", "missing a kind"),
        ("exists deploy", "missing a name"),
        ("exists node default/n1", "cluster-scoped"),
        ("field deploy web .spec.replicas ~ 3", "expected a comparison"),
        ("field deploy web .spec[ == 3", "bad path"),
        ("condition deploy web Available yes", "not True, False or Unknown"),
        ("count pods -l 'a in (' == 1", "bad selector"),
        ("count pods == many", "whole number"),
        ("seen", "at least one filter"),
        ("seen 0 action=list", "always holds"),
        ("seen action=dance", "unknown action"),
        ("seen colour=red", "unknown filter"),
        ("seen code=abc", "not an HTTP status code"),
        ("process a sleeping", "unknown state"),
        ("exists deploy web extra", "unexpected \"extra\""),
        ("exists deploy 'web", "unexpected end of line"),
        ("frobnicate", "unknown check"),
    ] {
        let e = goal::parse_check(text).expect_err(text);
        assert!(e.contains(needle), "{text:?}: {e}");
    }
}

mod props {
    use proptest::prelude::*;
    use reconcile_lab::lessons::{self, goal, LessonRun};

    const TOKENS: &[&str] = &[
        "exists",
        "absent",
        "field",
        "condition",
        "count",
        "seen",
        "process",
        "not",
        "and",
        "no-leaked-buckets",
        "leaked-bucket",
        "edge-drift",
        "deploy",
        "pods",
        "ns",
        "lease",
        "web",
        "default/web",
        "kube-system/x",
        "a/b/c",
        ".spec.replicas",
        "{.metadata.name}",
        ".status.conditions[*].type",
        "..name",
        "[",
        "==",
        "!=",
        "<",
        ">=",
        "3",
        "-1",
        "null",
        "\"x y\"",
        "'[1,2]'",
        "@.metadata.generation",
        "@.x+99999999999999999999",
        "@.y-2",
        "-l",
        "app=web",
        "-n",
        "-A",
        "where",
        "action=list",
        "actor=kubectl",
        "code=409",
        "key=default/web",
        "text=relisted",
        "verb=DELETE",
        "kind=Pod",
        "2",
        "running",
        "leading",
        "True",
        "Available",
        "'",
        "\"",
    ];

    thread_local! {
        static RUN: LessonRun = {
            let lesson = lessons::lesson("reconcile-loop").expect("listed").expect("parses");
            LessonRun::start(&lesson).expect("starts")
        };
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Any sequence of vocabulary words parses or is refused, and what parses evaluates,
        /// without a panic.
        #[test]
        fn checks_never_panic(words in proptest::collection::vec(0usize..TOKENS.len(), 0..10)) {
            let text: Vec<&str> = words.iter().map(|&i| TOKENS[i]).collect();
            if let Ok(c) = goal::parse_check(&text.join(" ")) {
                RUN.with(|run| {
                    let mut counters = vec![0; c.seen_slots()];
                    for r in run.world.history().iter().take(50) {
                        c.observe(r, &mut counters, &mut 0);
                    }
                    let _ = c.eval(&run.world, &counters, &mut 0);
                });
            }
        }

        #[test]
        fn arbitrary_check_text_never_panics(s in "\\PC{0,200}") {
            let _ = goal::parse_check(&s);
        }
    }
}

fn start(slug: &str) -> LessonRun {
    let lesson = lessons::lesson(slug).expect("listed").expect("parses");
    LessonRun::start(&lesson).expect("starts")
}

#[test]
fn a_resumed_watch_is_not_a_relist() {
    let mut run = start("missed-events");
    run.play_solution(0).expect("step 1");
    assert!(run.checker.step_done(0));
    // Step 2's wrong version: break the watch again but keep the history, so the reflector
    // resumes its watch without relisting.
    run.execute("lab break-watch kube-controller-manager-a Pod");
    run.execute("kubectl delete pod -l app=web");
    run.settle();
    assert!(!run.checker.is_met("relisted"), "{:?}", run.checker.met());
    // With the history expired, the same gets a 410 and a relist.
    run.execute("lab break-watch kube-controller-manager-a Pod");
    run.execute("lab expire-history");
    let p = run.settle();
    assert!(p.newly_met.contains(&"relisted".to_string()), "{:?}", p.newly_met);
}

#[test]
fn scaling_with_the_controller_running_shows_no_gap() {
    let mut run = start("generation");
    for i in 0..3 {
        run.play_solution(i).expect("steps 1 to 3");
    }
    // The wrong way: stop only the leader; the standby takes over and catches up.
    run.execute("lab stop kube-controller-manager-a");
    run.execute("kubectl scale deployment web --replicas=4");
    run.settle();
    assert!(!run.checker.is_met("gap"), "{:?}", run.checker.met());
    assert!(!run.checker.complete());
}

#[test]
fn a_proper_delete_leaks_nothing() {
    let mut run = start("finalizers");
    for i in 0..3 {
        run.play_solution(i).expect("steps 1 to 3");
    }
    // The right way out of a stuck delete: start the controller again, not remove the finalizer.
    run.execute("lab start bucket-operator");
    let p = run.settle();
    assert!(p.newly_met.is_empty(), "{:?}", p.newly_met);
    assert!(!run.checker.is_met("leaked"));
    assert!(run.world.leaked_buckets().is_empty());
    assert!(holds(&run, "absent namespace old"));
}

/// Lesson work-queue, "A key added while processing runs once more": scaling twice and settling
/// never interleaves an edit with a held key, so the dirty goal stays unmet; taking the key
/// first and editing while it is processing meets it, and the re-run meets the next goal.
#[test]
fn the_dirty_goal_needs_an_edit_while_the_key_is_processing() {
    let lesson = lessons::lesson("work-queue").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    run.play_solution(0).expect("step 1");
    assert!(run.checker.is_met("one-reconcile"));
    // The wrong way: two edits, each settled.
    for n in [6, 7] {
        run.execute(&format!("kubectl scale deployment web --replicas={n}"));
        run.settle();
    }
    assert!(!run.checker.is_met("dirty-requeued") && !run.checker.is_met("ran-again"));
    // The right way: take the key, edit while it is held, finish.
    run.execute("kubectl scale deployment web --replicas=6");
    let out = run.execute("lab step 4").output;
    assert!(out.contains("took default/web from its work queue (Get)"), "{out}");
    let q = run.execute("lab queue deployment").output;
    assert!(q.contains("processing: default/web\n"), "{q}");
    run.execute("kubectl scale deployment web --replicas=7");
    run.execute("lab step 3");
    let q = run.execute("lab queue deployment").output;
    assert!(q.contains("processing: default/web (dirty)"), "{q}");
    assert!(q.contains("waiting:    (none)"), "a dirty key being processed is not waiting: {q}");
    let p = run.execute("lab step");
    assert!(p.output.contains("added again while it was processing"), "{}", p.output);
    assert_eq!(p.newly_met, vec!["dirty-requeued".to_string()]);
    let p = run.settle();
    assert_eq!(p.newly_met, vec!["ran-again".to_string()]);
}
