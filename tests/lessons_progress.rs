//! Saved progress: round trip, and every kind of bad saved data is a clear error, never a panic.

use proptest::prelude::*;
use reconcile_lab::engine::kinds::Kind;
use reconcile_lab::lessons::progress::{MAX_GOALS, MAX_PROGRESS_BYTES};
use reconcile_lab::lessons::{self, LessonRun, Progress, ProgressError, PROGRESS_VERSION};

#[test]
fn progress_round_trips_and_restores_a_lesson() {
    let lesson = lessons::lesson("generation").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    run.play_solution(0).expect("step 1");
    run.play_solution(1).expect("step 2");
    let mut p = Progress::new();
    p.record(&lesson.slug, &run.checker.met(), run.checker.current_step());
    let text = p.encode();
    assert_eq!(
        text,
        r#"{"version":1,"lessons":{"generation":{"goals_met":["gen-two","observed-two"],"current_step":2}}}"#
    );
    let back = Progress::decode(&text).expect("decodes");
    assert_eq!(back, p);
    // A reload: a fresh run of the lesson, with the saved goals restored.
    let mut again = LessonRun::start(&lesson).expect("starts");
    let saved = back.lesson("generation").expect("saved");
    again.checker.restore(saved.goals_met.iter().map(String::as_str));
    assert_eq!(again.checker.current_step(), saved.current_step);
    assert!(again.check().is_empty());
    // The same through the player's own calls.
    let mut p2 = Progress::new();
    run.save(&mut p2);
    assert_eq!(p2, p);
    let resumed = LessonRun::resume(&lesson, &Progress::decode(&p2.encode()).expect("decodes")).expect("starts");
    assert_eq!(resumed.checker.met(), run.checker.met());
    let other = LessonRun::resume(&lesson, &Progress::new()).expect("starts");
    assert!(other.checker.met().is_empty());
}

#[test]
fn reset_rebuilds_the_world_and_keeps_the_goals() {
    let lesson = lessons::lesson("conflicts").expect("listed").expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    run.play_solution(0).expect("step 1");
    run.play_solution(1).expect("step 2");
    assert_eq!(
        run.world
            .api()
            .get(Kind::lookup("deploy").expect("kind"), Some("default"), "web")
            .map(|d| d["spec"]["replicas"].clone())
            .ok(),
        Some(4.into())
    );
    run.reset().expect("resets");
    let web = run.world.api().get(Kind::lookup("deploy").expect("kind"), Some("default"), "web").expect("exists");
    assert_eq!(web["spec"]["replicas"], 2, "the world starts over");
    assert_eq!(run.console.files.get("web.yaml"), Some(&lesson.files[0].1), "the editor starts over");
    assert!(run.checker.is_met("got-409") && run.checker.is_met("applied"), "the goals stay");
    assert_eq!(run.checker.current_step(), 2);
}

#[test]
fn record_sorts_and_deduplicates() {
    let mut p = Progress::new();
    p.record("x", &["b".into(), "a".into(), "b".into()], 1);
    assert_eq!(p.lesson("x").map(|l| l.goals_met.clone()), Some(vec!["a".to_string(), "b".to_string()]));
    assert_eq!(PROGRESS_VERSION, p.version);
}

#[test]
fn bad_saved_data_is_a_clear_error() {
    let cases: Vec<(String, &str)> = vec![
        ("".into(), "could not be read"),
        ("{not json".into(), "could not be read"),
        ("[1,2]".into(), "could not be read (not a JSON object)"),
        (r#"{"lessons":{}}"#.into(), "old format; starting fresh"),
        (r#"{"version":0,"lessons":{}}"#.into(), "old format (version 0)"),
        (r#"{"version":7,"lessons":{}}"#.into(), "newer version of Reconcile Lab (format 7)"),
        (r#"{"version":"1","lessons":{}}"#.into(), "version is not a number"),
        (r#"{"version":1,"lessons":{"a":{"goals_met":"x","current_step":0}}}"#.into(), "could not be read"),
        (r#"{"version":1,"lessons":{},"extra":true}"#.into(), "unknown field"),
        (r#"{"version":1,"lessons":{"a":{"goals_met":[""],"current_step":0}}}"#.into(), "not valid (a goal name in a)"),
        (
            r#"{"version":1,"lessons":{"a":{"goals_met":[],"current_step":100000}}}"#.into(),
            "not valid (step 100000 in a)",
        ),
        (
            format!(r#"{{"version":1,"lessons":{{"{}":{{"goals_met":[],"current_step":0}}}}}}"#, "s".repeat(65)),
            "lesson name",
        ),
        (
            format!(
                r#"{{"version":1,"lessons":{{"a":{{"goals_met":[{}],"current_step":0}}}}}}"#,
                vec!["\"g\""; MAX_GOALS + 1].join(",")
            ),
            "201 goals for a",
        ),
        (" ".repeat(MAX_PROGRESS_BYTES + 1), "more than the 65536 this page accepts"),
    ];
    for (text, needle) in cases {
        let e = Progress::decode(&text).expect_err(&text[..text.len().min(80)]);
        let shown = e.to_string();
        assert!(shown.contains(needle), "{shown}");
        assert!(shown.ends_with("starting fresh."), "{shown}");
    }
    assert!(matches!(Progress::decode("{}"), Err(ProgressError::OldFormat(None))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn arbitrary_saved_text_never_panics(s in "\\PC{0,300}") {
        let _ = Progress::decode(&s);
    }

    #[test]
    fn truncated_progress_is_an_error_not_a_panic(cut in 0usize..80) {
        let mut p = Progress::new();
        p.record("reconcile-loop", &["pod-deleted".into(), "pod-replaced".into()], 1);
        let text = p.encode();
        let cut = cut.min(text.len() - 1);
        prop_assert!(Progress::decode(&text[..cut]).is_err());
    }
}
