//! The session's behaviour, natively: what each intent does to the world, the timeline, the
//! transcript and the editor, and which change counters move.

use super::*;

fn create_web(s: &mut Session) -> Output {
    s.console_submit("kubectl create deployment web --image=nginx --replicas=3")
}

#[test]
fn a_new_sandbox_has_one_empty_file_and_no_steps() {
    let s = Session::sandbox();
    assert_eq!(s.buffers().len(), 1);
    assert_eq!(s.buffers()[0].name, "manifest.yaml");
    assert_eq!(s.timeline().current(), 0);
    assert!(s.narration().is_none());
    assert!(s.transcript().blocks().next().is_none());
}

#[test]
fn a_console_line_is_recorded_with_its_output_and_moves_the_counters() {
    let mut s = Session::sandbox();
    let before = s.changes();
    let out = create_web(&mut s);
    assert_eq!(out.exit_code, 0, "{}", out.terminal());
    assert_eq!(out.stdout(), "deployment.apps/web created\n");
    assert!(s.transcript().text().starts_with("$ kubectl create deployment web"));
    let after = s.changes();
    assert!(after.transcript > before.transcript);
    assert!(after.cluster > before.cluster);
    assert!(after.timeline > before.timeline, "the user call is a step");
    assert_eq!(after.editor, before.editor, "the editor did not change");
}

#[test]
fn steps_are_narrated_and_the_timeline_grows() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    let n = s.timeline().current();
    assert!(s.step());
    assert_eq!(s.timeline().current(), n + 1);
    assert_eq!(s.timeline().len(), n + 1);
    let narration = s.narration().expect("a step was taken");
    assert_eq!(narration.number as usize, n + 1);
    assert!(!narration.sentence.is_empty());
    assert!(!narration.actor.is_empty());
}

#[test]
fn run_until_idle_converges_to_three_running_pods() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    match s.run_until_idle() {
        Settled::Idle { steps } => assert!(steps > 10),
        other => panic!("{other:?}"),
    }
    assert!(s.notice().is_some_and(|n| n.starts_with("Settled after")));
    let out = s.console_submit("kubectl get pods");
    let running = out.stdout().lines().filter(|l| l.contains("Running")).count();
    assert_eq!(running, 3, "{}", out.stdout());
    assert_eq!(s.play_tick(), Tick::Idle, "Play pauses once only lease renewals remain");
}

#[test]
fn step_back_keeps_the_future_and_acting_there_starts_a_branch() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    for _ in 0..5 {
        s.step();
    }
    let end = s.timeline().current();
    assert!(s.step_back());
    assert!(s.step_back());
    assert_eq!(s.timeline().current(), end - 2);
    assert_eq!(s.timeline().len(), end, "the future stays visible");
    assert!(s.timeline().in_past());
    s.goto(end);
    assert_eq!(s.timeline().current(), end);
    assert!(s.timeline().branches().is_empty(), "going forward again is the same branch");
    s.goto(end - 3);
    s.console_submit("kubectl scale deployment web --replicas=1");
    assert_eq!(s.timeline().branches(), &[Branch { from: end - 3, dropped: 3 }]);
    assert_eq!(s.timeline().len(), s.timeline().current());
    assert!(!s.timeline().in_past());
}

#[test]
fn the_timeline_matches_the_world_history_after_every_intent() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    let check = |s: &Session| {
        let t = s.timeline();
        assert!(t.current() <= t.len());
        assert_eq!(t.current(), s.world().position());
        assert_eq!(t.len(), s.world().branch_len().max(t.current()));
        let held: Vec<_> = (1..=t.current()).filter_map(|n| t.get(s.world(), n).cloned()).collect();
        assert_eq!(held, s.world().history());
    };
    for i in 0..30 {
        match i % 7 {
            0 | 1 | 2 | 4 => {
                s.step();
            }
            3 => {
                s.step_back();
            }
            5 => s.goto(i / 2),
            _ => {
                s.console_submit("kubectl get pods");
            }
        }
        check(&s);
    }
}

#[test]
fn run_pending_runs_that_action_and_faults_are_offered() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    let pending = s.pending();
    assert!(pending.len() > 1, "{pending:?}");
    let last = pending.last().expect("pending").clone();
    s.run_pending(last.id).expect("runnable");
    assert_eq!(s.world().history().last().map(|r| r.actor.clone()), Some(last.actor));
    assert!(s.run_pending(10_000).is_err());
    let informer = s.pending().into_iter().find(|p| p.action == ActionKind::DeliverEvent);
    if let Some(p) = informer {
        let faults = faults_for(&p);
        let brk = faults.iter().find(|f| f.label == "Break this watch").expect("offered");
        s.fault(brk.fault.clone()).expect("the world accepts it");
        assert_eq!(s.world().history().last().map(|r| r.action), Some(ActionKind::Fault));
    }
}

#[test]
fn a_stale_edit_gets_the_real_409_and_reload_and_reapply_succeeds() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    s.run_until_idle();
    let out = s.console_submit("kubectl edit deployment/web");
    assert_eq!(out.exit_code, 0, "{}", out.terminal());
    let i = s.active_buffer();
    assert_eq!(s.buffers()[i].name, "deployment.apps/web");
    let loaded = s.buffers()[i].loaded_resource_version().expect("an edit").to_string();
    // The cluster moves on.
    s.console_submit("kubectl label deployment web tier=front");
    let edited = s.buffers()[i].text.replace("replicas: 3", "replicas: 2");
    s.editor_set_text(i, &edited);
    let out = s.editor_apply(i);
    assert_eq!(out.exit_code, 1);
    assert!(out.stderr().contains("Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"), "{}", out.stderr());
    assert!(s.buffers()[i].conflict);
    assert_eq!(s.buffers()[i].loaded_resource_version(), Some(loaded.as_str()));
    let out = s.editor_reapply(i);
    assert_eq!(out.exit_code, 0, "{}", out.terminal());
    assert!(!s.buffers()[i].conflict);
    let spec = s.console_submit("kubectl get deploy web -o jsonpath={.spec.replicas}");
    assert_eq!(spec.stdout(), "2");
    assert_ne!(s.buffers()[i].loaded_resource_version(), Some(loaded.as_str()));
}

#[test]
fn an_editor_file_applies_like_kubectl_apply() {
    let mut s = Session::sandbox();
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n";
    s.editor_set_text(0, text);
    assert_eq!(s.buffers()[0].diagnostic, None);
    let out = s.editor_apply(0);
    assert_eq!(out.stdout(), "configmap/settings created\n", "{}", out.terminal());
    assert!(s.transcript().text().contains("$ kubectl apply -f manifest.yaml"));
}

#[test]
fn parse_errors_are_shown_at_their_line_and_column() {
    let mut s = Session::sandbox();
    s.editor_set_text(0, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n");
    let d = s.buffers()[0].diagnostic.clone().expect("an error");
    assert!(d.line >= 4, "{d:?}");
    s.editor_set_text(0, "apiVersion: v1\nmetadata:\n  name: x\n");
    let d = s.buffers()[0].diagnostic.clone().expect("an error");
    assert!(d.message.starts_with("Object 'Kind' is missing in '"), "{d:?}");
}

#[test]
fn a_live_watch_prints_as_the_world_steps() {
    let mut s = Session::sandbox();
    s.console_submit("kubectl get pods --watch");
    assert_eq!(s.waiting().len(), 1);
    let blocks = s.transcript().blocks().len();
    create_web(&mut s);
    s.run_until_idle();
    assert!(s.transcript().blocks().len() > blocks + 1, "live output joined the transcript");
    assert!(s.transcript().text().contains("Running"), "{}", s.transcript().text());
    s.clear_console();
    assert_eq!(s.transcript().blocks().len(), 0);
    assert_eq!(s.waiting().len(), 1, "Ctrl+L clears the screen, the watch keeps running");
}

#[test]
fn a_waiting_delete_is_shown_as_waiting() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    s.run_until_idle();
    s.console_submit("kubectl delete deployment web --cascade=foreground");
    let waiting = s.waiting();
    assert_eq!(waiting, vec!["waiting for deployment.apps/web to be deleted".to_string()]);
    s.run_until_idle();
    assert!(s.waiting().is_empty());
}

#[test]
fn history_and_completion() {
    let mut s = Session::sandbox();
    s.console_submit("kubectl get pods");
    s.console_submit("kubectl get nodes");
    assert_eq!(s.history_up("kub").as_deref(), Some("kubectl get nodes"));
    assert_eq!(s.history_up("").as_deref(), Some("kubectl get pods"));
    assert_eq!(s.history_up(""), None);
    assert_eq!(s.history_down().as_deref(), Some("kubectl get nodes"));
    assert_eq!(s.history_down().as_deref(), Some("kub"), "back to the draft");
    assert_eq!(s.complete("kubectl appl").line, "kubectl apply ");
    let c = s.complete("kubectl get node");
    assert!(c.line.starts_with("kubectl get node"), "{c:?}");
    assert_eq!(s.complete("kubectl get nodes node-").candidates.len(), 3);
}

#[test]
fn narration_names_the_panels_a_step_touched() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    let n = s.narration().expect("the create is a step");
    assert!(n.panels.contains(&PanelId::Objects), "{n:?}");
    assert!(n.objects.iter().any(|o| o == "Deployment default/web"), "{n:?}");
    let mut saw_queue = false;
    for _ in 0..40 {
        s.step();
        let n = s.narration().expect("stepped");
        saw_queue |= n.panels.contains(&PanelId::WorkQueues);
    }
    assert!(saw_queue);
}

#[test]
fn overlong_lines_are_refused_politely() {
    let mut s = Session::sandbox();
    let out = s.console_submit(&"x".repeat(MAX_LINE + 1));
    assert_eq!(out.exit_code, 1);
    assert!(out.stderr().contains("at most"));
}

#[test]
fn console_written_files_become_tabs() {
    let mut s = Session::sandbox();
    s.console_submit("cat > cm.yaml <<EOF\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nEOF");
    assert!(s.buffers().iter().any(|b| b.name == "cm.yaml" && b.text.contains("kind: ConfigMap")));
}

#[test]
fn lessons_check_goals_after_page_intents() {
    let lesson = crate::lessons::lesson("reconcile-loop").expect("exists").expect("parses");
    let run = LessonRun::start(&lesson).expect("starts");
    let s = Session::with_engine(Engine::Lesson(run));
    assert!(s.lesson().is_some());
    assert!(!s.buffers().is_empty());
}

/// Issue 20: the reconcile-loop solution typed into the page's console (the learner's path)
/// deletes a pod, and the transcript shows the line as typed.
#[test]
fn a_lesson_solution_with_command_substitution_runs_from_the_console() {
    let lesson = crate::lessons::lesson("reconcile-loop").expect("exists").expect("parses");
    let mut s = Session::with_engine(Engine::Lesson(LessonRun::start(&lesson).expect("starts")));
    s.run_until_idle();
    let line = "kubectl delete pod $(kubectl get pods -l app=web -o jsonpath='{.items[0].metadata.name}')";
    let out = s.console_submit(line);
    assert_eq!(out.exit_code, 0, "{}", out.terminal());
    assert!(out.stdout().starts_with("pod \"web-"), "{}", out.terminal());
    assert!(s.transcript().text().contains(&format!("$ {line}\npod \"web-")), "{}", s.transcript().text());
}

#[test]
fn highlighting_covers_every_byte() {
    for line in ["  name: web # the name", "- name: a", "---", "# c", "key: \"a # b\"", "  image: nginx:1.27", "é: ü"]
    {
        let joined: String = editor::highlight_line(line).iter().map(|(_, t)| *t).collect();
        assert_eq!(joined, line);
    }
    assert_eq!(editor::highlight_line("a: b")[0], (editor::Token::Key, "a"));
    assert_eq!(editor::newline_indent("spec:\n  template:", 17), "\n    ");
    assert_eq!(editor::newline_indent("é", 1), "\n");
    assert_eq!(
        editor::with_resource_version("metadata:\n  resourceVersion: \"12\"\n", "40").as_deref(),
        Some("metadata:\n  resourceVersion: \"40\"\n")
    );
}

#[test]
fn run_until_idle_in_slices_reaches_the_same_state() {
    let mut whole = Session::sandbox();
    create_web(&mut whole);
    let Settled::Idle { steps } = whole.run_until_idle() else { panic!("hot loop") };
    let mut sliced = Session::sandbox();
    create_web(&mut sliced);
    let mut slices = 0;
    let done = loop {
        slices += 1;
        if let Some(done) = sliced.settle_slice(7) {
            break done;
        }
        assert!(sliced.notice().is_some_and(|n| n.starts_with("Running until idle")));
    };
    assert_eq!(done, Settled::Idle { steps });
    assert!(slices > 2);
    assert_eq!(sliced.world().history(), whole.world().history());
}

/// Record `n` of the timeline, by the world's own numbering.
fn number_of(s: &Session, n: usize) -> Option<u64> {
    s.timeline().get(s.world(), n).map(|r| r.number)
}

#[test]
fn with_a_history_limit_the_timeline_numbers_steps_and_replays_forgotten_ones() {
    let mut s = Session::sandbox();
    s.parts().0.set_history_limit(Some(50));
    create_web(&mut s);
    while s.timeline().current() < 300 {
        s.step();
    }
    let end = s.timeline().current();
    let t = s.timeline();
    assert_eq!(t.len(), end);
    assert_eq!(t.first_kept(s.world()), end - 49, "the newest 50 records are kept");
    assert_eq!(number_of(&s, end - 50), None, "older ones are forgotten");
    assert_eq!(number_of(&s, end - 49), Some((end - 49) as u64));
    assert_eq!(number_of(&s, end), Some(end as u64));
    let last = s.timeline().get(s.world(), end).cloned();
    // Far back: the step comes back by replay; the later ones stay counted, the newest held.
    s.goto(10);
    assert_eq!(s.timeline().current(), 10);
    assert_eq!(s.timeline().len(), end, "the future stays counted");
    assert!(s.timeline().in_past());
    assert_eq!(number_of(&s, 10), Some(10), "replayed");
    assert_eq!(number_of(&s, 11), None, "forgotten before the jump: replayed when selected");
    assert_eq!(s.timeline().get(s.world(), end).cloned(), last, "the newest records stay visible");
    // Forward again: the same branch, the same records.
    s.goto(end - 20);
    assert_eq!(s.timeline().current(), end - 20);
    assert_eq!(number_of(&s, end - 20), Some((end - 20) as u64));
    assert_eq!(s.timeline().get(s.world(), end).cloned(), last);
    s.goto(end);
    assert_eq!(s.timeline().get(s.world(), end).cloned(), last);
    assert!(s.timeline().branches().is_empty());
    // Back a little with Step back, then act: a new branch drops the rest.
    assert!(s.step_back());
    assert_eq!(s.timeline().current(), end - 1);
    assert_eq!(s.timeline().get(s.world(), end).cloned(), last);
    s.goto(100);
    s.step();
    assert_eq!(s.timeline().branches(), &[Branch { from: 100, dropped: end - 100 }]);
    assert_eq!(s.timeline().len(), 101);
    assert_eq!(number_of(&s, 101), Some(101));
}

#[test]
fn a_snapshot_budget_keeps_few_snapshots_and_going_back_still_gives_the_same_steps() {
    let mut s = Session::sandbox();
    s.parts().0.set_snapshot_every(10);
    create_web(&mut s);
    while s.timeline().current() < 200 {
        s.step();
    }
    let many = s.world().snapshot_steps();
    assert!(many.len() > 10, "{many:?}");
    let at_120 = s.timeline().get(s.world(), 120).cloned();
    let last = s.timeline().get(s.world(), 200).cloned();
    // A budget below one snapshot's stored bytes: only the initial and the newest stay.
    s.parts().0.set_snapshot_budget(Some(1));
    assert_eq!(s.world().snapshot_steps(), vec![0, *many.last().expect("newest")]);
    s.goto(119);
    s.goto(120);
    assert_eq!(s.timeline().get(s.world(), 120).cloned(), at_120, "replayed from the start, the same step");
    s.goto(200);
    assert_eq!(s.timeline().get(s.world(), 200).cloned(), last);
    // A budget of a few snapshots keeps that many, spread out.
    s.parts().0.set_snapshot_budget(None);
    while s.timeline().current() < 400 {
        s.step();
    }
    let one = s.world().api().stored_bytes();
    s.parts().0.set_snapshot_budget(Some(one * 5));
    let kept = s.world().snapshot_steps();
    assert!(kept.len() <= 6 && kept.len() >= 3, "{kept:?}");
    assert_eq!(kept[0], 0);
}

#[test]
fn lab_back_in_the_console_keeps_the_future_visible() {
    let mut s = Session::sandbox();
    s.parts().0.set_history_limit(Some(5));
    create_web(&mut s);
    for _ in 0..10 {
        s.step();
    }
    let end = s.timeline().current();
    let last = s.timeline().get(s.world(), end).cloned();
    let out = s.console_submit("lab back");
    assert!(out.chunks.iter().any(|c| c.1 == format!("Back to step {}.\n", end - 1)), "{out:?}");
    assert_eq!(s.timeline().current(), end - 1);
    assert_eq!(s.timeline().len(), end);
    assert_eq!(s.timeline().get(s.world(), end).cloned(), last);
    assert!(s.timeline().branches().is_empty());
}

/// The buggy operator's hot loop stops at the same step with the same verdict whether Run until
/// idle runs in one call or in the page's slices, and a share code of the sliced session (the
/// run logged as one intent with the steps it took) replays to the same place.
#[test]
fn a_hot_loop_is_caught_at_the_same_step_in_slices_and_shares() {
    let start = |s: &mut Session| {
        s.console_submit("kubectl create -f - <<EOF\napiVersion: example.com/v1\nkind: Bucket\nmetadata:\n  name: photos\nspec:\n  region: eu-west-1\nEOF");
        let Settled::Idle { .. } = s.run_until_idle() else { panic!("a new Bucket settles") };
        s.console_submit("lab buggy-operator on");
    };
    let mut whole = Session::sandbox();
    start(&mut whole);
    let verdict = whole.run_until_idle();
    let Settled::HotLoop { explanation, .. } = &verdict else { panic!("a hot loop: {verdict:?}") };
    assert!(
        explanation.starts_with("Hot loop: bucket-controller (bucket-operator) reconciled default/photos"),
        "{explanation}"
    );
    let mut sliced = Session::sandbox();
    start(&mut sliced);
    let done = loop {
        if let Some(done) = sliced.settle_slice(13) {
            break done;
        }
    };
    assert_eq!(done, verdict);
    assert_eq!(sliced.world().history(), whole.world().history());
    assert_eq!(sliced.notice(), Some(explanation.as_str()));
    let code = sliced.share_code();
    let restored = share::restore(&code).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(restored.world().position(), sliced.world().position());
}

/// A share code made while Run until idle is still going (its steps not yet logged as an
/// intent) rebuilds the run so far, and the rebuilt session's code is the same code.
#[test]
fn a_share_code_made_during_run_until_idle_rebuilds_the_run_so_far() {
    let mut s = Session::sandbox();
    create_web(&mut s);
    assert_eq!(s.settle_slice(5), None, "still running after five steps");
    assert_eq!(s.settle_slice(4), None, "still running after nine");
    let code = s.share_code();
    let restored = share::restore(&code).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(restored.world().position(), s.world().position());
    assert_eq!(restored.world().history(), s.world().history());
    assert_eq!(restored.share_code(), code);
}
