//! Fuzzing kubectl's JSONPath templates (issue 10): random templates built from the grammar's
//! pieces (fields, `[n]`, `[*]`, slices, `..`, filters, `range`/`end`, quoted literals) and from
//! raw text run over a real Deployment and a List. Properties: no panic; bounded time and output;
//! `parse` accepting a template means `execute`, `find` and `print` return (text or error), and
//! `print` wraps every execution error in kubectl's debugging dump.
//!
//! Budget: `FUZZ_CASES` cases (default 64); failures are saved under `tests/regressions/`.

mod fuzzing;

use std::time::Duration;

use proptest::prelude::*;
use reconcile_lab::kubectl::jsonpath::JsonPath;
use serde_json::{json, Value};

fn config() -> ProptestConfig {
    fuzzing::config("tests/regressions/fuzz_jsonpath.proptest-regressions", fuzzing::cases() * 4, 500)
}

fn data() -> Value {
    let pod = |n: &str, ready: &str| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n, "namespace": "default",
            "labels": {"app": "web", "a.b/c": "d"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "u", "controller": true}]},
            "spec": {"containers": [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}], "podIP": null}})
    };
    json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
        "items": [pod("web-a", "True"), pod("web-b", "False"), pod("web-c", "True")],
        "numbers": [1, 2.5, -3, 1e300], "empty": [], "nested": [[[[1]]]], "text": "a\"b\\c{}"})
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "{.",
    ".",
    "..",
    "items",
    "metadata",
    "name",
    "labels",
    "a\\.b/c",
    "['a.b/c']",
    "status",
    "conditions",
    "type",
    "[0]",
    "[1]",
    "[-1]",
    "[*]",
    "[1:]",
    "[:2]",
    "[0:3:2]",
    "[-2:]",
    "[::-1]",
    "[9999999999999]",
    "[?(@.type==\"Ready\")]",
    "[?(@.status=='True')]",
    "[?(@.x>1)]",
    "[?(@.name)]",
    "[?(!@.name)]",
    "[?(@.a<=@.b)]",
    "range",
    "{range .items[*]}",
    "{end}",
    "end",
    "\"lit\"",
    "'lit'",
    "{\"\\n\"}",
    "{'\\t'}",
    "\\n",
    " ",
    "@",
    "$",
    "$.",
    "numbers",
    "nested",
    "text",
    "empty",
    "{.items[*].metadata.name}",
    "{.kind}",
    "{{",
    "}}",
    "[",
    "]",
    "(",
    ")",
    "?",
    "==",
    "!=",
    ",",
    "containers",
    "ports",
    "containerPort",
    "podIP",
    "{@}",
    "{$}",
    "{..name}",
    "{.items[?(@.metadata.name==\"web-b\")].status.phase}",
    "\u{1F600}",
    "\u{0}",
    "{.items[0].metadata.labels.app}",
];

fn template() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(proptest::sample::select(PIECES), 0..16).prop_map(|p| p.concat()),
        1 => any::<String>(),
        1 => "[{}\\[\\]().@$?*:'\"a-z0-9 =!<>-]{0,40}",
    ]
}

fn check(t: &str) {
    check_within(t, Duration::from_secs(2));
}

/// The properties, with a bound on the CPU time an unoptimized build may take ([`fuzzing::CpuTimer`]).
fn check_within(t: &str, bound: Duration) {
    let started = fuzzing::CpuTimer::start();
    let d = data();
    if let Ok(jp) = JsonPath::parse(t) {
        assert_eq!(jp.raw(), t);
        let executed = jp.execute(&d);
        let _ = jp.find(&d);
        match jp.print(&d) {
            Ok(text) => {
                assert!(text.len() < 1 << 20, "{t:?} printed {} bytes", text.len());
                assert_eq!(Ok(text), executed, "print and execute disagree on {t:?}");
            }
            Err(e) => {
                assert!(e.starts_with("error executing jsonpath "), "{t:?}: {e}");
                assert!(executed.is_err(), "print failed where execute did not: {t:?}");
            }
        }
    }
    let took = started.elapsed();
    assert!(took < bound, "{t:.80?} took {took:?}");
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_templates(t in template()) {
        check(&t);
    }
}

#[test]
fn known_templates_work() {
    let d = data();
    let run = |t: &str| JsonPath::parse(t).and_then(|j| j.execute(&d));
    assert_eq!(run("{.items[*].metadata.name}").as_deref(), Ok("web-a web-b web-c"));
    assert_eq!(run("{.items[?(@.status.conditions[0].status==\"False\")].metadata.name}").as_deref(), Ok("web-b"));
    assert_eq!(run("{range .items[*]}{.metadata.name}{\"\\n\"}{end}").as_deref(), Ok("web-a\nweb-b\nweb-c\n"));
    assert!(run("{.items[0].metadata.name").is_err());
    for t in ["{", "}", "{range}", "{end}", "{[", "{.items[", "{.items[?(@", "{..}", "{.items[::0]}"] {
        check(t);
    }
}

/// Deep nesting and long templates stay fast and small: thousands of unclosed `{range}`s
/// overflowed the stack and repeated `..` exhausted memory before src/kubectl/jsonpath.rs bounded
/// range nesting and the number of values a step may hold.
#[test]
fn hostile_templates_are_bounded() {
    for t in [
        "{".repeat(50_000),
        format!("{{{}}}", "[".repeat(50_000)),
        format!("{{{}}}", ".a".repeat(50_000)),
        "{range .items[*]}".repeat(5_000),
        format!("{{.items[?({}@.x)]}}", "(".repeat(10_000)),
        format!("{{{}}}", "..".repeat(20_000)),
    ] {
        check_within(&t, Duration::from_secs(15));
    }
}
