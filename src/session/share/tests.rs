//! Share codes round-trip every kind of intent, stay small, and refuse every malformed code with
//! a typed error (never a panic).

use super::*;
use crate::engine::world::Fault;
use crate::session::lesson::start;

/// Everything the learner can see of a session, for comparing an original with its restoration.
fn picture(s: &Session) -> String {
    let mut out = String::new();
    let w = s.world();
    out.push_str(&format!("position {} of {}\n", w.position(), w.branch_len()));
    out.push_str(&format!("now {:?}\n", w.now()));
    out.push_str(&format!("rv {}\n", w.api().resource_version()));
    for r in w.history() {
        out.push_str(&format!("{} {} {}\n", r.number, r.actor, r.sentence));
    }
    for p in w.pending() {
        out.push_str(&format!("pending {p:?}\n"));
    }
    out.push_str(&s.transcript().text());
    for b in s.buffers() {
        out.push_str(&format!("buffer {} {:?} {:?}\n", b.name, b.text, b.origin));
    }
    out.push_str(&format!("active {} selected {:?}\n", s.active_buffer(), s.selected()));
    out.push_str(&format!("timeline {} {:?}\n", s.timeline().current(), s.timeline().branches()));
    if let Some(v) = s.lesson_view() {
        out.push_str(&format!("lesson {} current {} complete {}\n", v.slug, v.current, v.complete));
        for step in v.steps {
            for g in step.goals {
                out.push_str(&format!("goal {} {}\n", g.id, g.met));
            }
        }
    }
    out
}

/// The state of every object, as `kubectl get` would read it.
fn objects(s: &mut Session) -> String {
    s.console_submit("kubectl get all,ns,nodes,leases -A -o yaml").stdout().to_string()
}

fn round_trip(s: &Session) -> Session {
    let code = s.share_code();
    let back = restore(&code).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(picture(&back), picture(s), "the restored session differs");
    assert_eq!(back.share_code(), code, "a restored session shares the same code");
    back
}

#[test]
fn a_fresh_sandbox_round_trips_and_its_code_is_tiny() {
    let s = Session::sandbox();
    let code = s.share_code();
    assert!(code.starts_with("1."), "{code}");
    assert!(code.len() < 24, "{code}");
    round_trip(&s);
}

#[test]
fn steps_console_lines_settles_faults_and_going_back_round_trip() {
    let mut s = Session::sandbox();
    s.console_submit("kubectl create deployment web --image=nginx --replicas=3");
    for _ in 0..7 {
        s.step();
    }
    s.settle_slice(5);
    s.settle_slice(5);
    s.settle_cancel();
    s.step_back();
    s.step_back();
    let pending = s.pending();
    assert!(!pending.is_empty());
    s.run_pending(pending.len() as u64 - 1).expect("the last pending action runs");
    s.fault(Fault::RestartProcess("kube-scheduler".into())).expect("the scheduler restarts");
    s.run_until_idle();
    s.goto(4);
    s.step();
    s.console_submit("kubectl scale deployment web --replicas=1");
    s.console_submit("lab settle");
    s.clear_console();
    s.console_submit("kubectl get pods");
    let mut back = round_trip(&s);
    assert_eq!(objects(&mut back), objects(&mut s));
}

#[test]
fn runs_of_steps_are_one_intent() {
    let mut s = Session::sandbox();
    s.console_submit("kubectl create deployment web --image=nginx --replicas=3");
    for _ in 0..50 {
        s.step();
    }
    assert_eq!(s.share_log().ops.len(), 2, "{:?}", s.share_log().ops);
    assert_eq!(s.share_log().ops[1], Op::Step(50));
    let code = s.share_code();
    assert!(code.len() < 120, "{} characters: {code}", code.len());
    round_trip(&s);
}

#[test]
fn editor_typing_apply_edit_and_a_409_round_trip() {
    let mut s = Session::sandbox();
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n";
    // Typing, one keystroke at a time: only the last text is kept.
    for end in 1..=manifest.len() {
        s.editor_set_text(0, &manifest[..end]);
    }
    let out = s.editor_apply(0);
    assert_eq!(out.exit_code, 0, "{}", out.terminal());
    assert_eq!(s.share_log().ops.iter().filter(|o| matches!(o, Op::Text { .. })).count(), 1);
    // Typing between steps: one intent per tab until something reads the tabs.
    for k in 0..20 {
        s.editor_set_text(0, &format!("{manifest}# edit {k}\n"));
        s.step();
    }
    let texts = |s: &Session| s.share_log().ops.iter().filter(|o| matches!(o, Op::Text { .. })).count();
    assert_eq!(texts(&s), 2, "{:?}", s.share_log().ops);
    round_trip(&s);
    s.edit_object("configmap", Some("default"), "settings");
    let edit = s.active_buffer();
    s.console_submit("kubectl label configmap settings team=a");
    let text = s.buffers()[edit].text.replace("a: \"1\"", "a: \"2\"");
    s.editor_set_text(edit, &text);
    let out = s.editor_apply(edit);
    assert_ne!(out.exit_code, 0, "a stale edit gets 409: {}", out.terminal());
    s.editor_reapply(edit);
    s.open_file("second.yaml", "kind: Nothing\n");
    s.select_buffer(0);
    s.close_buffer(2);
    s.select_object("ConfigMap", "default/settings");
    let mut back = round_trip(&s);
    assert_eq!(objects(&mut back), objects(&mut s));
}

fn lesson(slug: &str) -> Session {
    start(slug, &crate::lessons::Progress::new()).expect("the lesson exists").expect("the lesson starts")
}

#[test]
fn a_lesson_with_goals_met_by_show_me_round_trips() {
    let mut s = lesson("reconcile-loop");
    let actions = s.begin_show_me(0).expect("show me starts");
    assert!(!actions.is_empty());
    for a in &actions {
        s.play_action(a).expect("the solution plays");
    }
    assert!(!s.goals_met().is_empty(), "the solution meets goals");
    let code = s.share_code();
    let back = round_trip(&s);
    assert_eq!(back.lesson().map(|r| r.checker.met()), s.lesson().map(|r| r.checker.met()));
    assert!(code.len() < 400, "{} characters: {code}", code.len());
}

#[test]
fn goals_met_before_the_session_started_travel_with_the_code() {
    let mut progress = crate::lessons::Progress::new();
    progress.record("reconcile-loop", &["pod-deleted".to_string()], 0);
    let s = start("reconcile-loop", &progress).expect("exists").expect("starts");
    assert!(s.lesson().is_some_and(|r| r.checker.is_met("pod-deleted")));
    let back = restore(&s.share_code()).expect("restores");
    assert!(back.lesson().is_some_and(|r| r.checker.is_met("pod-deleted")), "restored without saved progress");
}

#[test]
fn goals_restored_after_opening_a_link_are_kept_and_shared_again() {
    let s = lesson("reconcile-loop");
    let mut opened = restore(&s.share_code()).expect("restores");
    // The opener had met the first goal before: their saved progress is kept.
    opened.restore_goals(&["pod-deleted".to_string(), "no-such-goal".to_string()]);
    assert!(opened.lesson().is_some_and(|r| r.checker.is_met("pod-deleted")));
    assert_eq!(opened.share_log().ops, vec![Op::Goals(vec!["pod-deleted".into()])]);
    // Already met: nothing more is logged.
    opened.restore_goals(&["pod-deleted".to_string()]);
    assert_eq!(opened.share_log().ops.len(), 1);
    opened.console_submit("kubectl get pods");
    let again = round_trip(&opened);
    assert!(again.lesson().is_some_and(|r| r.checker.is_met("pod-deleted")));
    // In the sandbox there are no goals to restore.
    let mut sandbox = Session::sandbox();
    sandbox.restore_goals(&["pod-deleted".to_string()]);
    assert!(sandbox.share_log().ops.is_empty());
}

#[test]
fn a_lesson_reset_and_open_in_sandbox_round_trip() {
    let mut s = lesson("conflicts");
    s.console_submit("kubectl get deploy");
    s.step();
    s.reset_lesson(false).expect("resets");
    s.step();
    let s = s.into_sandbox();
    assert!(s.lesson().is_none());
    let back = round_trip(&s);
    assert!(back.lesson().is_none());
}

#[test]
fn every_prefix_and_every_altered_character_is_refused_without_a_panic() {
    let mut s = Session::sandbox();
    s.console_submit("kubectl create deployment web --image=nginx --replicas=2");
    s.step();
    s.fault(Fault::FailApi { process: "kube-scheduler".into(), duration: std::time::Duration::from_secs(30) })
        .expect("a known process");
    let code = s.share_code();
    for end in 0..code.len() {
        assert!(decode(&code[..end]).is_err(), "the prefix {:?} decoded", &code[..end]);
    }
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for i in 2..code.len() {
        let original = code.as_bytes()[i] as char;
        for c in alphabet.chars().filter(|c| *c != original).step_by(7) {
            let mut altered = code.clone();
            altered.replace_range(i..=i, &c.to_string());
            if let Ok(shared) = decode(&altered) {
                // The last character carries unused low bits: changing only those is harmless.
                assert_eq!(shared, decode(&code).expect("valid"), "{altered} decoded differently");
            }
        }
    }
}

#[test]
fn malformed_codes_get_clear_errors() {
    assert_eq!(decode(""), Err(ShareError::Empty));
    assert_eq!(decode("AAAA"), Err(ShareError::UnknownVersion("AAAA".into())));
    assert_eq!(decode("2.AAAA"), Err(ShareError::UnknownVersion("2".into())));
    assert_eq!(decode("1.AA<script>"), Err(ShareError::NotBase64 { at: 4 }));
    assert_eq!(decode("1.AA"), Err(ShareError::Truncated));
    let long = format!("1.{}", "A".repeat(MAX_CODE_LEN));
    assert_eq!(decode(&long), Err(ShareError::TooLong { len: MAX_CODE_LEN + 2 }));
    // A multi-byte character where the version goes is named, not sliced in half.
    assert!(matches!(decode("é.AAAA"), Err(ShareError::UnknownVersion(_))));
    let text = ShareError::Truncated.to_string();
    assert_eq!(
        text,
        "This share link could not be opened: the state code is cut short (was the whole link copied?). \
         Showing the starting state instead."
    );
}

fn hand_made(start: Start, ops: Vec<Op>, check: Check) -> String {
    encode_shared(&Shared { log: ShareLog { start, ops }, check })
}

const NO_CHECK: Check = Check { position: 0, resource_version: 0, goals_met: 0 };

#[test]
fn hand_made_codes_round_trip_through_bytes() {
    let ops = vec![
        Op::Step(3),
        Op::Run(2),
        Op::Settle { slice: 40, count: 2 },
        Op::SettleCancel,
        Op::Back(1),
        Op::Goto(u64::MAX),
        Op::Fault(Fault::Cloud(Some(crate::engine::cloud::CloudFault::Hanging))),
        Op::Fault(Fault::ClockJump(std::time::Duration::from_millis(1500))),
        Op::Fault(Fault::BuggyOperator(true)),
        Op::Fault(Fault::BreakWatch { process: "p".into(), kind: "Pod".into() }),
        Op::Fault(Fault::Freeze("kube-controller-manager-a".into())),
        Op::Fault(Fault::Thaw("kube-controller-manager-a".into())),
        Op::Fault(Fault::Revoke("deployment-controller".into())),
        Op::Fault(Fault::Grant("deployment-controller".into())),
        Op::Console("kubectl get pods # ünïcode".into()),
        Op::Clear,
        Op::Text { buffer: 1, text: "a\nb".into() },
        Op::Select(0),
        Op::Open { name: "x.yaml".into(), text: String::new() },
        Op::Close(3),
        Op::Apply(1),
        Op::Reload(1),
        Op::Refresh(1),
        Op::SelectObject { kind: "Pod".into(), key: "default/a".into() },
        Op::Reset { forget: true },
        Op::ToSandbox,
        Op::Goals(vec!["pod-deleted".into(), String::new()]),
    ];
    let start = Start::Lesson { slug: "conflicts".into(), goals: vec!["a".into(), "b".into()] };
    let check = Check { position: 7, resource_version: u64::MAX, goals_met: 2 };
    let code = hand_made(start.clone(), ops.clone(), check);
    assert_eq!(decode(&code), Ok(Shared { log: ShareLog { start, ops }, check }));
}

#[test]
fn too_much_work_is_refused_before_replay() {
    let code = hand_made(Start::Sandbox { seed: 1 }, vec![Op::Step(u32::MAX)], NO_CHECK);
    assert_eq!(decode(&code), Err(ShareError::TooMuchWork));
    let many = vec![Op::Clear; MAX_OPS + 1];
    let code = hand_made(Start::Sandbox { seed: 1 }, many, NO_CHECK);
    assert_eq!(decode(&code), Err(ShareError::TooMuchWork));
    let slices = vec![Op::Settle { slice: 40, count: u32::MAX }];
    assert_eq!(decode(&hand_made(Start::Sandbox { seed: 1 }, slices, NO_CHECK)), Err(ShareError::TooMuchWork));
    let backs = vec![Op::Back(u32::MAX)];
    assert_eq!(decode(&hand_made(Start::Sandbox { seed: 1 }, backs, NO_CHECK)), Err(ShareError::TooMuchWork));
    // A run until idle is logged with the steps it took, and those count: a huge one is refused
    // before it replays (a hot loop would otherwise run for ever).
    let huge = vec![Op::Settle { slice: u64::MAX, count: 1 }];
    assert_eq!(decode(&hand_made(Start::Sandbox { seed: 1 }, huge, NO_CHECK)), Err(ShareError::TooMuchWork));
    // A thousand replicas converging (about 38,000 steps) shares.
    let settles = vec![Op::Settle { slice: 40_000, count: 1 }];
    assert!(decode(&hand_made(Start::Sandbox { seed: 1 }, settles, NO_CHECK)).is_ok());
}

#[test]
fn console_lines_that_step_are_bounded_by_the_steps_they_take() {
    // Three runs of `lab step 500`: refused during replay once over the limit (the same check
    // as restore's 200,000, at a size a test runs quickly).
    let ops = vec![Op::Console("lab step 500".into()); 3];
    let code = hand_made(Start::Sandbox { seed: 1 }, ops, NO_CHECK);
    assert!(decode(&code).is_ok(), "the code itself is well-formed");
    assert!(matches!(restore_within(&code, 1200), Err(ShareError::TooMuchWork)));
    assert!(matches!(restore_within(&code, 1600), Err(ShareError::Diverged)), "under the limit it replays");
}

#[test]
fn an_unknown_lesson_or_a_different_result_is_refused() {
    let code = hand_made(Start::Lesson { slug: "no-such-lesson".into(), goals: vec![] }, vec![], NO_CHECK);
    assert!(matches!(restore(&code), Err(ShareError::UnknownLesson(s)) if s == "no-such-lesson"));
    let code = hand_made(Start::Sandbox { seed: 1 }, vec![Op::Step(3)], NO_CHECK);
    assert!(matches!(restore(&code), Err(ShareError::Diverged)));
}

#[test]
fn replaying_nonsense_intents_does_not_panic() {
    // Indices out of range, unknown processes, jumps past the end: each intent is refused by the
    // session as it would be from the page, and the check then decides.
    let ops = vec![
        Op::Run(1_000_000),
        Op::Goto(u64::MAX),
        Op::Back(5),
        Op::Fault(Fault::KillProcess("nobody".into())),
        Op::Text { buffer: 99, text: "x".into() },
        Op::Select(99),
        Op::Close(99),
        Op::Apply(99),
        Op::Reload(99),
        Op::Refresh(99),
        Op::Reset { forget: false },
        Op::ToSandbox,
        Op::Console("lab step 5".into()),
    ];
    let code = hand_made(Start::Sandbox { seed: 7 }, ops, NO_CHECK);
    assert!(matches!(restore(&code), Err(ShareError::Diverged)));
}

#[test]
fn the_share_hash_names_the_route_and_carries_the_code() {
    let s = lesson("conflicts");
    let hash = s.share_hash();
    assert!(hash.starts_with("#/lessons/conflicts?state=1."), "{hash}");
    assert_eq!(state_param(&hash), Some(s.share_code().as_str()));
    assert_eq!(crate::session::lesson::Route::parse(&hash), crate::session::lesson::Route::Lesson("conflicts".into()));
    assert_eq!(state_param("#/sandbox?x=1&state=1.AB"), Some("1.AB"));
    assert_eq!(state_param("#/sandbox"), None);
    assert!(Session::sandbox().share_hash().starts_with("#/sandbox?state=1."));
}

mod fuzz {
    use super::super::{base64url, decode, fnv1a};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        /// Any text at all: decoded or refused, never a panic.
        #[test]
        fn any_text_is_decoded_or_refused(text in ".{0,200}") {
            let _ = decode(&text);
        }

        /// Any payload with a valid checksum (so the parser itself is exercised, not only the
        /// checksum): decoded or refused, never a panic, and never an absurd allocation.
        #[test]
        fn any_checksummed_payload_is_decoded_or_refused(mut bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let sum = fnv1a(&bytes);
            bytes.extend_from_slice(&sum.to_le_bytes());
            let _ = decode(&format!("1.{}", base64url(&bytes)));
        }
    }
}

/// Every lesson played through "Show me", step after step: its share code rebuilds it, and stays
/// well within a URL (the figures are printed: `cargo test share_codes_of_whole_lessons -- --nocapture`).
#[test]
fn share_codes_of_whole_lessons() {
    for (slug, _) in crate::lessons::LESSON_FILES {
        let mut s = lesson(slug);
        let steps = s.lesson_view().expect("a lesson").steps.len();
        for i in 0..steps {
            let actions = s.begin_show_me(i).expect("show me starts");
            for a in &actions {
                s.play_action(a).unwrap_or_else(|e| panic!("{slug} step {i}: {e}"));
            }
        }
        let code = s.share_code();
        println!(
            "{slug:<20} {:>5} steps, {:>3} intents, share code {:>5} characters",
            s.world().position(),
            s.share_log().ops.len(),
            code.len()
        );
        assert!(code.len() < 8 * 1024, "{slug}: {} characters", code.len());
        let back = restore(&code).unwrap_or_else(|e| panic!("{slug}: {e}"));
        assert_eq!(picture(&back), picture(&s), "{slug}");
    }
}
