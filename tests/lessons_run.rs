//! The lesson player: the page's own actions (apply, edit, step, step until, settle), console
//! lines with `$(...)` (run by the console itself, as when typed), expected failures and setup
//! errors.

use reconcile_lab::lessons::{format, Action, LessonRun, PlayError};

const LESSON: &str = r#"# Player

slug: player
summary: Exercises every solution action.

## Setup

```console
lab settle
```

## File cm.yaml

```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  colour: blue
```

## Step: Apply and edit

Instruction: Apply cm.yaml, then change the colour.

Goal created: The ConfigMap exists.
Check: exists configmap settings

Goal green: The colour is green.
Check: field configmap settings .data.colour == green

```solution
apply cm.yaml
edit cm.yaml <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  colour: green
EOF
apply cm.yaml
```

## Step: Step and settle

Instruction: Create a Deployment and step until it is ready.

Goal rs-made: The Deployment controller made a ReplicaSet.
Check: count replicasets -l app=api == 1

Goal ready: The Deployment api is ready.
Check: field deployment api .status.readyReplicas == 1

```solution
kubectl create deployment api --image=nginx
step 3
step until count replicasets -l app=api == 1
settle
```

## Step: Substitution

Instruction: Label the Pod of api.

Goal labelled: The Pod of api has the label seen=yes.
Check: count pods -l app=api,seen=yes == 1

```solution
kubectl label pod $(kubectl get pods -l app=api -o jsonpath='{.items[0].metadata.name}') seen=yes
kubectl get configmap nothing-here  # expect failure
```
"#;

#[test]
fn every_action_plays_through_the_console_and_world() {
    let lesson = format::parse(LESSON).expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    assert_eq!(run.console.files.get("cm.yaml").map(String::as_str), Some(lesson.files[0].1.as_str()));
    let p = run.play_solution(0).expect("step 1");
    assert_eq!(p[0].output, "configmap/settings created\n");
    assert_eq!(p[0].newly_met, vec!["created".to_string()]);
    assert_eq!(p[2].output, "configmap/settings configured\n");
    assert_eq!(p[2].newly_met, vec!["green".to_string()]);
    let p = run.play_solution(1).expect("step 2");
    assert_eq!(p[1].output.lines().count(), 3, "step 3 prints three records:\n{}", p[1].output);
    assert!(p[1].output.starts_with("step "), "{}", p[1].output);
    assert!(p[3].output.starts_with("Settled after "), "{}", p[3].output);
    assert!(run.checker.is_met("rs-made") && run.checker.is_met("ready"));
    let p = run.play_solution(2).expect("step 3");
    assert!(p[0].output.starts_with("pod/api-") && p[0].output.ends_with(" labeled\n"), "{}", p[0].output);
    assert_eq!(p[1].exit_code, 1);
    assert!(run.checker.complete());
    assert!(matches!(run.play_solution(3), Err(PlayError::NoStep(3))));
}

#[test]
fn failures_stop_show_me_with_the_output() {
    let lesson = format::parse(LESSON).expect("parses");
    let mut run = LessonRun::start(&lesson).expect("starts");
    let e = run.play(&Action::Console("kubectl get deployment nope".into())).expect_err("404");
    assert!(e.to_string().contains("Error from server (NotFound)"), "{e}");
    let e = run.play(&Action::Console("kubectl get configmaps  # expect failure".into())).expect_err("succeeded");
    assert!(matches!(e, PlayError::Action { .. }), "{e}");
    let e = run.play(&Action::Console("kubectl delete pod $(kubectl get pods -o name".into())).expect_err("unclosed");
    assert!(e.to_string().contains("unexpected end of line while looking for matching `)'"), "{e}");
    let e = run.play(&Action::Console("kubectl delete pod $(kubectl get pod nope)".into())).expect_err("inner");
    assert!(e.to_string().contains("NotFound"), "{e}");
    let never = reconcile_lab::lessons::goal::parse_check("exists deployment never").expect("parses");
    let e = run.play(&Action::StepUntil(never)).expect_err("never");
    assert!(matches!(e, PlayError::StepUntil { .. }), "{e}");
}

#[test]
fn a_failing_setup_line_stops_the_lesson_with_its_output() {
    let lesson = format::parse(&LESSON.replace("lab settle\n```", "kubectl get deployment nope\n```")).expect("parses");
    match LessonRun::start(&lesson) {
        Err(PlayError::Setup { line, output }) => {
            assert_eq!(line, "kubectl get deployment nope");
            assert!(output.contains("NotFound"), "{output}");
        }
        Ok(_) => panic!("setup should fail"),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn verify_passes_a_good_lesson_and_names_what_is_wrong_with_a_bad_one() {
    use reconcile_lab::lessons::{verify, VerifyError};
    assert_eq!(verify(&format::parse(LESSON).expect("parses")), Ok(()));
    // A solution that does not reach its goal.
    let lazy = format::parse(&LESSON.replace("kubectl create deployment api --image=nginx\n", "")).expect("parses");
    match verify(&lazy) {
        Err(VerifyError::Play { step: 1, error: PlayError::StepUntil { .. } }) => {}
        other => panic!("{other:?}"),
    }
    let wrong = format::parse(&LESSON.replace("  colour: green\nEOF", "  colour: red\nEOF")).expect("parses");
    match verify(&wrong) {
        Err(e @ VerifyError::GoalNotMet { step: 0, .. }) => {
            assert!(e.to_string().starts_with("step 1: goal green is not met after its solution\n"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    // A goal that holds before the learner does anything.
    let early = format::parse(&LESSON.replace("Check: exists configmap settings", "Check: exists namespace default"))
        .expect("parses");
    assert_eq!(verify(&early), Err(VerifyError::MetTooEarly(vec!["created".into()])));
}

/// Issue 20: the reconcile-loop lesson's solution line, typed into the console (not played by
/// "Show me"), deletes a pod of web: `$(...)` is the console's own, the same path "Show me" takes.
#[test]
fn the_reconcile_loop_solution_typed_into_the_console_works() {
    let lesson = reconcile_lab::lessons::lesson("reconcile-loop").expect("exists").expect("parses");
    let step = lesson.steps.iter().position(|s| s.goals.iter().any(|g| g.id == "pod-deleted")).expect("the step");
    let mut run = LessonRun::start(&lesson).expect("starts");
    for i in 0..step {
        run.play_solution(i).expect("earlier steps");
    }
    let line = "kubectl delete pod $(kubectl get pods -l app=web -o jsonpath='{.items[0].metadata.name}')";
    assert!(
        lesson.steps[step].solution.iter().any(|a| matches!(a, Action::Console(l) if l == line)),
        "the lesson's solution is the line typed here"
    );
    let played = run.execute(line);
    assert_eq!(played.exit_code, 0, "{}", played.output);
    assert!(
        played.output.starts_with("pod \"web-") && played.output.ends_with("\" deleted from default namespace\n"),
        "{}",
        played.output
    );
    assert!(played.newly_met.contains(&"pod-deleted".to_string()), "{:?}", played.newly_met);
}
