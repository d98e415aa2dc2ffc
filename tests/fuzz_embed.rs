//! Fuzzing the embed's messages and query (issue 10): every field a hostile or careless host page
//! controls. Inputs: random JSON values (deep, wide, every type), messages shaped like the
//! protocol's with random types in every field, huge strings, unknown types, random text and
//! damaged JSON text as it arrives from `postMessage`, and random `embed.html` query strings.
//!
//! Properties, through the same calls the page makes (`src/web/embed.rs`: `parse_text`, then
//! `execute` for a request): no panic, no hang (a time bound per message), a bounded answer;
//! a message that is ignored or refused leaves the session exactly as it was (its share code, the
//! record of everything it did, is unchanged); a refusal always answers with an error; a `step`
//! that cannot step, or a `load` that applied nothing, leaves the cluster unchanged. The query
//! parser never fails and the session it asks for starts within the time bound.
//!
//! Budget: `FUZZ_CASES` cases per property (default 64); failures are saved under
//! `tests/regressions/`.

mod fuzzing;

use std::time::Duration;

use proptest::prelude::*;
use reconcile_lab::embed::params::parse_query;
use reconcile_lab::embed::protocol::{
    execute, parse, parse_text, refusal, result, Incoming, Request, MAX_MANIFESTS, MAX_MESSAGE_BYTES, MAX_STEP_COUNT,
    SOURCE,
};
use reconcile_lab::session::{Session, MAX_LINE};
use serde_json::{json, Map, Value};

/// The most CPU time one message may take in an unoptimized build ([`fuzzing::CpuTimer`]).
const TIME_BOUND: Duration = Duration::from_secs(20);

fn config() -> ProptestConfig {
    fuzzing::config("tests/regressions/fuzz_embed.proptest-regressions", fuzzing::cases(), 200)
}

/// What the page does with a message's JSON text: classify, then refuse or run. Returns the
/// answer it would post (None: ignored).
fn handle(s: &mut Session, text: &str) -> Option<Value> {
    match parse_text(text) {
        Incoming::Ignore => None,
        Incoming::Refuse { id, error } => Some(refusal(&id, &error)),
        Incoming::Request(r) => {
            let outcome = execute(s, &r, Session::sandbox);
            Some(result(r.id(), &outcome))
        }
    }
}

/// A session with something in it: a Deployment, a few steps.
fn session() -> Session {
    let mut s = Session::sandbox();
    s.console_submit("kubectl create deployment web --image=nginx --replicas=2");
    for _ in 0..8 {
        s.step();
    }
    s
}

/// Everything observable that a message could change: the share code (every intent since the
/// start, and the resulting position and resourceVersion) and the transcript.
fn fingerprint(s: &Session) -> (String, String) {
    (s.share_code(), s.transcript().text())
}

/// Runs one message through [`handle`] and checks the properties that hold for any message.
fn check(s: &mut Session, text: &str) -> Result<(), TestCaseError> {
    let before = fingerprint(s);
    let rv = s.world().api().resource_version();
    let incoming = parse_text(text);
    let t = fuzzing::CpuTimer::start();
    let answer = handle(s, text);
    prop_assert!(t.elapsed() < TIME_BOUND, "took {:?}", t.elapsed());
    match incoming {
        Incoming::Ignore => {
            prop_assert!(answer.is_none());
            prop_assert!(fingerprint(s) == before, "an ignored message changed the session");
        }
        Incoming::Refuse { error, .. } => {
            prop_assert!(!error.is_empty());
            prop_assert!(error.len() < 300, "a short error: {}", error);
            let a = answer.expect("a refusal is answered");
            prop_assert_eq!(&a["ok"], &json!(false));
            prop_assert!(a["id"].is_null() || a["id"].is_string() || a["id"].is_number());
            prop_assert!(fingerprint(s) == before, "a refused message changed the session");
        }
        Incoming::Request(r) => {
            let a = answer.expect("a request is answered");
            prop_assert_eq!(&a["source"], &json!(SOURCE));
            prop_assert_eq!(&a["type"], &json!("result"));
            let output = a["output"].as_str().unwrap_or_default();
            prop_assert!(output.len() < 8 << 20, "output of {} bytes", output.len());
            let ok = a["ok"].as_bool().expect("ok is a boolean");
            match &r {
                Request::Step { count, .. } => prop_assert!(*count >= 1 && *count <= MAX_STEP_COUNT),
                Request::Run { command, .. } => prop_assert!(command.len() <= MAX_LINE),
                Request::Load { manifests, .. } => {
                    prop_assert!(manifests.len() <= MAX_MANIFESTS);
                    let applied = output
                        .lines()
                        .any(|l| l.ends_with(" created") || l.ends_with(" configured") || l.ends_with(" unchanged"));
                    if !ok && !applied {
                        prop_assert_eq!(s.world().api().resource_version(), rv, "a failed load wrote:\n{}", output);
                    }
                }
                Request::Reset { .. } => prop_assert!(ok),
            }
            if let Request::Step { .. } = r {
                if !ok {
                    prop_assert_eq!(s.world().api().resource_version(), rv);
                }
            }
        }
    }
    Ok(())
}

// ----- strategies -----

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        "[ -~]{0,30}".prop_map(Value::String),
        any::<String>().prop_map(Value::String),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,8}", inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn kind() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop_oneof![Just("run"), Just("step"), Just("reset"), Just("load")].prop_map(|k| json!(k)),
        1 => prop_oneof![Just("ready"), Just("result"), Just("resize"), Just("goal"), Just("standby"), Just("start")]
            .prop_map(|k| json!(k)),
        1 => "[a-zA-Z]{0,12}".prop_map(Value::String),
        1 => scalar(),
    ]
}

fn command() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop_oneof![
            Just("kubectl get pods"),
            Just("kubectl scale deployment web --replicas=3"),
            Just("kubectl delete deployment web"),
            Just("kubectl get deploy web -o jsonpath={.status.replicas}"),
            Just("lab step 3"),
            Just("lab processes"),
            Just("kubectl nonsense"),
            Just("kubectl get pod <script>alert(1)</script>"),
        ]
        .prop_map(|c| json!(c)),
        2 => "[ -~]{0,60}".prop_map(Value::String),
        1 => scalar(),
        1 => (1usize..4).prop_map(|k| json!("x".repeat(MAX_LINE - 2 + k))),
    ]
}

fn manifests() -> impl Strategy<Value = Value> {
    let good = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n";
    prop_oneof![
        2 => Just(json!(good)),
        2 => (any::<usize>(), "[ -~\n]{0,20}").prop_map(move |(at, junk)| {
            let at = at % (good.len() + 1);
            json!(format!("{}{junk}{}", &good[..at], &good[at..]))
        }),
        2 => "[ -~\n:{}\\[\\]-]{0,120}".prop_map(Value::String),
        1 => Just(json!("kind: Pod\n---\n---\n: :\n")),
        1 => Just(json!(format!("{good}---\n{good}"))),
        1 => Just(json!("x".repeat(MAX_MANIFESTS + 1))),
        1 => scalar(),
    ]
}

/// A message shaped like the protocol's, with any field possibly of the wrong type or missing.
fn message() -> impl Strategy<Value = Value> {
    (
        prop_oneof![8 => Just(json!(SOURCE)), 1 => scalar()],
        prop::option::of(kind()),
        prop::option::of(prop_oneof![
            4 => any::<u32>().prop_map(|n| json!(n)),
            2 => "[a-z0-9-]{0,20}".prop_map(Value::String),
            1 => Just(json!("i".repeat(201))),
            1 => any_json(),
        ]),
        prop::option::of(prop_oneof![Just(json!(1)), scalar()]),
        prop::option::of(command()),
        prop::option::of(prop_oneof![
            4 => (0u64..12).prop_map(|n| json!(n)),
            1 => Just(json!(MAX_STEP_COUNT + 1)),
            1 => scalar(),
        ]),
        prop::option::of(manifests()),
        prop::option::of(("[a-z]{1,8}", any_json())),
    )
        .prop_map(|(source, kind, id, version, command, count, manifests, extra)| {
            let mut m = Map::new();
            m.insert("source".into(), source);
            for (k, v) in [
                ("type", kind),
                ("id", id),
                ("version", version),
                ("command", command),
                ("count", count),
                ("manifests", manifests),
            ] {
                if let Some(v) = v {
                    m.insert(k.into(), v);
                }
            }
            if let Some((k, v)) = extra {
                m.entry(k).or_insert(v);
            }
            Value::Object(m)
        })
}

#[derive(Clone, Debug)]
enum Damage {
    Cut(usize),
    Insert(usize, char),
    Remove(usize),
}

fn damage_text(text: &str, d: &Damage) -> String {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut out = chars.clone();
    match d {
        Damage::Cut(i) => out.truncate(i % (n + 1)),
        Damage::Insert(i, c) => out.insert(i % (n + 1), *c),
        Damage::Remove(i) => {
            if n > 0 {
                out.remove(i % n);
            }
        }
    }
    out.into_iter().collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_json_value_is_classified_without_running(v in any_json()) {
        // `parse` never runs anything, so classification alone must be total.
        let _ = parse(&v);
        let mut s = session();
        check(&mut s, &v.to_string())?;
    }

    #[test]
    fn protocol_shaped_messages_with_wrong_types(msgs in prop::collection::vec(message(), 1..4)) {
        let mut s = session();
        for m in &msgs {
            check(&mut s, &m.to_string())?;
        }
    }

    #[test]
    fn damaged_and_random_text(
        base in message(),
        damages in prop::collection::vec(
            prop_oneof![
                any::<usize>().prop_map(Damage::Cut),
                (any::<usize>(), any::<char>()).prop_map(|(i, c)| Damage::Insert(i, c)),
                any::<usize>().prop_map(Damage::Remove),
            ],
            0..4,
        ),
        random in any::<String>(),
    ) {
        let mut text = base.to_string();
        for d in &damages {
            text = damage_text(&text, d);
        }
        let mut s = session();
        check(&mut s, &text)?;
        check(&mut s, &random)?;
    }

    #[test]
    fn random_embed_queries_never_fail(query in prop_oneof![
        "[ -~]{0,120}",
        prop::collection::vec(
            (
                prop_oneof![
                    Just("lesson"), Just("step"), Just("state"), Just("panels"), Just("theme"),
                    Just("readonly"), Just("autoplay"), Just("x"),
                ],
                prop_oneof!["[ -~]{0,30}", "[a-z,]{0,40}", "[0-9]{1,22}", Just("%ZZ".to_string()), Just("%C3%28".to_string())],
            ),
            0..8,
        )
        .prop_map(|kv| kv.into_iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")),
    ]) {
        let t = fuzzing::CpuTimer::start();
        let c = parse_query(&query);
        let (s, _) = c.session();
        prop_assert!(t.elapsed() < TIME_BOUND, "took {:?}", t.elapsed());
        prop_assert!(!c.panels.is_empty());
        prop_assert!(c.notices.iter().all(|n| n.len() < 300));
        let _ = s.share_code();
    }
}

#[test]
fn huge_and_deep_messages_are_refused_or_ignored_at_once() {
    let mut s = session();
    let before = fingerprint(&s);
    let huge_command = json!({"source": SOURCE, "type": "run", "id": 1, "command": "k".repeat(MAX_LINE + 1)});
    let huge_manifests = json!({"source": SOURCE, "type": "load", "id": 2, "manifests": "m".repeat(MAX_MANIFESTS + 1)});
    let over = json!({"source": SOURCE, "type": "run", "id": 3, "command": "x".repeat(MAX_MESSAGE_BYTES)});
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object =
        format!("{{\"source\":\"{SOURCE}\",\"type\":\"run\",\"x\":{}1{}}}", "[".repeat(5_000), "]".repeat(5_000));
    for (text, refused) in [
        (huge_command.to_string(), true),
        (huge_manifests.to_string(), true),
        (over.to_string(), true),
        ("x".repeat(50 << 20), true),
        (deep, false),
        (deep_object, false),
    ] {
        let t = fuzzing::CpuTimer::start();
        let answer = handle(&mut s, &text);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        match answer {
            Some(a) => {
                assert!(refused, "{a}");
                assert_eq!(a["ok"], json!(false));
                assert!(a["output"].as_str().is_some_and(|o| o.starts_with("error: ")), "{a}");
            }
            None => assert!(!refused, "{:.80}", text),
        }
    }
    assert!(fingerprint(&s) == before, "refused messages changed nothing");
}

#[test]
fn a_refused_message_answers_with_its_id_and_a_request_runs() {
    // The properties above cannot pass by refusing everything: a well-formed request runs.
    let mut s = session();
    let a = handle(
        &mut s,
        &json!({"source": SOURCE, "type": "run", "id": "a", "command": "kubectl get deploy web -o name"}).to_string(),
    )
    .expect("answered");
    assert_eq!(
        (a["id"].clone(), a["ok"].clone(), a["output"].clone()),
        (json!("a"), json!(true), json!("deployment.apps/web\n"))
    );
    let a = handle(&mut s, &json!({"source": SOURCE, "type": "step", "id": 7, "count": "3"}).to_string())
        .expect("answered");
    assert_eq!((a["id"].clone(), a["ok"].clone()), (json!(7), json!(false)));
    assert!(a["output"].as_str().is_some_and(|o| o.contains("count must be a whole number")), "{a}");
}

#[test]
fn start_is_for_the_start_view_and_changes_nothing_once_the_app_runs() {
    // `start` loads the app from embed.html's start view (public/boot.js, docs/embed.md); the app
    // itself neither answers nor changes anything, whatever the message carries.
    let mut s = session();
    let before = fingerprint(&s);
    for m in [
        json!({"source": SOURCE, "type": "start"}),
        json!({"source": SOURCE, "type": "start", "version": 1, "id": "x"}),
        json!({"source": SOURCE, "type": "standby", "version": 1}),
    ] {
        assert_eq!(handle(&mut s, &m.to_string()), None, "{m}");
    }
    assert!(fingerprint(&s) == before);
    // A version the embed does not speak is still refused, start or not.
    let a = handle(&mut s, &json!({"source": SOURCE, "type": "start", "version": 2, "id": 1}).to_string());
    assert_eq!(a.map(|a| a["ok"].clone()), Some(json!(false)));
}
