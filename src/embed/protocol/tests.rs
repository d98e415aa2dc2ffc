//! The protocol: what is a request, what is refused (and that refusing changes nothing), what is
//! ignored, and that `run` answers exactly what the console printed.

use serde_json::json;

use super::*;

fn req(v: Value) -> Request {
    match parse(&v) {
        Incoming::Request(r) => r,
        other => panic!("{v} gave {other:?}"),
    }
}

fn refused(v: Value) -> (Value, String) {
    match parse(&v) {
        Incoming::Refuse { id, error } => (id, error),
        other => panic!("{v} gave {other:?}"),
    }
}

#[test]
fn the_four_requests_parse() {
    assert_eq!(
        req(json!({"source": "reconcile-lab", "type": "run", "id": 1, "command": "kubectl get pods"})),
        Request::Run { id: json!(1), command: "kubectl get pods".into() }
    );
    assert_eq!(
        req(json!({"source": "reconcile-lab", "type": "step", "id": "a", "count": 3, "version": 1})),
        Request::Step { id: json!("a"), count: 3 }
    );
    assert_eq!(req(json!({"source": "reconcile-lab", "type": "step"})), Request::Step { id: Value::Null, count: 1 });
    assert_eq!(req(json!({"source": "reconcile-lab", "type": "reset", "id": 2})), Request::Reset { id: json!(2) });
    assert_eq!(
        req(json!({"source": "reconcile-lab", "type": "load", "id": 3, "manifests": "kind: X\n"})),
        Request::Load { id: json!(3), manifests: "kind: X\n".into() }
    );
}

#[test]
fn other_messages_are_ignored() {
    for v in [
        json!(null),
        json!("run"),
        json!(42),
        json!([1, 2]),
        json!({"type": "run", "command": "kubectl get pods"}),
        json!({"source": "someone-else", "type": "run", "command": "x"}),
        json!({"source": ["reconcile-lab"], "type": "run"}),
        json!({"source": "reconcile-lab", "type": "ready"}),
        json!({"source": "reconcile-lab", "type": "result", "id": 1, "ok": true, "output": ""}),
        json!({"source": "reconcile-lab", "type": "resize", "height": 10}),
        json!({"source": "reconcile-lab", "type": "goal", "lesson": "x", "goal": "y"}),
        // The start view's own messages (public/boot.js), echoed back.
        json!({"source": "reconcile-lab", "type": "standby"}),
        json!({"source": "reconcile-lab", "type": "loading", "loaded": 10, "total": 100}),
        json!({"source": "reconcile-lab", "type": "error", "message": "x", "retry": true}),
    ] {
        assert_eq!(parse(&v), Incoming::Ignore, "{v}");
    }
    assert_eq!(parse_text("not json"), Incoming::Ignore);
}

#[test]
fn malformed_requests_are_refused_with_a_reason() {
    let base = |extra: Value| {
        let mut m = json!({"source": "reconcile-lab", "id": 7});
        for (k, v) in extra.as_object().expect("an object") {
            m[k] = v.clone();
        }
        m
    };
    let cases = [
        (json!({"type": 5}), "type must be a string"),
        (json!({"type": "explode"}), "unknown message type \"explode\""),
        (json!({"type": "run"}), "command is missing"),
        (json!({"type": "run", "command": 12}), "command must be a string"),
        (json!({"type": "run", "command": "x".repeat(MAX_LINE + 1)}), "command is 65537 bytes long; the most is 65536"),
        (json!({"type": "step", "count": 0}), "count must be a whole number from 1 to 1000"),
        (json!({"type": "step", "count": 1001}), "count must be a whole number from 1 to 1000"),
        (json!({"type": "step", "count": -1}), "count must be a whole number from 1 to 1000"),
        (json!({"type": "step", "count": 1.5}), "count must be a whole number from 1 to 1000"),
        (json!({"type": "step", "count": "3"}), "count must be a whole number from 1 to 1000"),
        (json!({"type": "load", "manifests": {"kind": "Pod"}}), "manifests must be a string"),
        (json!({"type": "load", "manifests": "x".repeat(MAX_MANIFESTS + 1)}), "manifests is 262145 bytes long"),
        (json!({"type": "run", "command": "x", "version": 2}), "this embed speaks version 1 of the protocol"),
    ];
    for (extra, expected) in cases {
        let (id, error) = refused(base(extra.clone()));
        assert_eq!(id, json!(7), "{extra}");
        assert!(error.starts_with(expected), "{extra}: {error}");
    }
    let (id, error) = refused(json!({"source": "reconcile-lab", "type": "run", "id": {"a": 1}, "command": "x"}));
    assert_eq!((id, error.as_str()), (Value::Null, "id must be a string or a number"));
    let (id, _) = refused(json!({"source": "reconcile-lab", "type": "run", "id": "i".repeat(201), "command": "x"}));
    assert_eq!(id, Value::Null);
    let huge = format!(
        "{{\"source\":\"reconcile-lab\",\"type\":\"run\",\"id\":1,\"command\":\"{}\"}}",
        "x".repeat(MAX_MESSAGE_BYTES)
    );
    assert!(matches!(parse_text(&huge), Incoming::Refuse { id: Value::Null, .. }));
}

#[test]
fn run_answers_exactly_what_the_console_printed() {
    let mut embedded = Session::sandbox();
    let mut typed = Session::sandbox();
    for line in [
        "kubectl create deployment web --image=nginx --replicas=2",
        "lab settle",
        "kubectl get pods",
        "kubectl get nope",
    ] {
        let r = req(json!({"source": "reconcile-lab", "type": "run", "id": 1, "command": line}));
        let outcome = execute(&mut embedded, &r, Session::sandbox);
        let out = typed.console_submit(line);
        assert_eq!(outcome.output, out.terminal(), "{line}");
        assert_eq!(outcome.ok, out.exit_code == 0, "{line}");
    }
    assert_eq!(embedded.transcript().text(), typed.transcript().text());
}

#[test]
fn step_reset_and_load_act_on_the_session() {
    let mut s = Session::sandbox();
    let load = req(json!({"source": "reconcile-lab", "type": "load", "id": 1,
        "manifests": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: |\n    RECONCILE_LAB_EOF\n"}));
    let o = execute(&mut s, &load, Session::sandbox);
    // The text contains the usual delimiter as a line (in a block scalar): the here-document
    // still ends where the text does.
    assert_eq!(o, RequestResult { ok: true, output: "configmap/a created\nconfigmap/b created\n".into() });
    let got = s.console_submit("kubectl get cm b -o jsonpath={.data.x}");
    assert_eq!(got.stdout(), "RECONCILE_LAB_EOF\n");
    let clean = req(json!({"source": "reconcile-lab", "type": "load", "id": 2,
        "manifests": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"}));
    let o = execute(&mut s, &clean, Session::sandbox);
    assert_eq!(o, RequestResult { ok: true, output: "configmap/c created\n".into() });
    s.console_submit("kubectl create deployment web --image=nginx");
    let before = s.world().position();
    let o = execute(&mut s, &req(json!({"source": "reconcile-lab", "type": "step", "count": 3})), Session::sandbox);
    assert!(o.ok);
    assert_eq!(s.world().position(), before + 3);
    assert_eq!(o.output.lines().count(), 3, "{}", o.output);
    assert!(o.output.starts_with(&format!("Step {} · ", before + 1)), "{}", o.output);
    let o = execute(&mut s, &req(json!({"source": "reconcile-lab", "type": "reset"})), Session::sandbox);
    assert!(o.ok);
    assert_eq!(s.world().position(), 0);
    assert!(s.transcript().blocks().next().is_none());
}

#[test]
fn answers_carry_source_type_and_version() {
    assert_eq!(ready(), json!({"source": "reconcile-lab", "type": "ready", "version": 1}));
    assert_eq!(
        refusal(&json!(4), "count must be a whole number from 1 to 1000"),
        json!({"source": "reconcile-lab", "type": "result", "version": 1, "id": 4, "ok": false,
               "output": "error: count must be a whole number from 1 to 1000\n"})
    );
    assert_eq!(resize(120)["height"], json!(120));
    assert_eq!(
        goal("conflicts", "g1"),
        json!({"source": "reconcile-lab", "type": "goal", "version": 1, "lesson": "conflicts", "goal": "g1"})
    );
}
