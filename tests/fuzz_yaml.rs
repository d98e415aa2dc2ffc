//! Fuzzing the manifest path (issue 10): YAML and JSON text, valid manifests mutated byte by byte
//! and line by line, deep nesting, alias bombs and random bytes go through
//! `yaml::parse_documents_partial` (what `kubectl apply -f` uses) and every decoded manifest is
//! sent to a fresh API server with `create`, then `update`. Properties: no panic; bounded time per
//! input; a refused create or update leaves the server unchanged (same resourceVersion, same
//! objects); the emitter's output for anything accepted parses back to the same value.
//!
//! Budget: `FUZZ_CASES` cases (default 64); failures are saved under `tests/regressions/`.

mod fuzzing;

use std::time::Duration;

use proptest::prelude::*;
use reconcile_lab::engine::apiserver::ApiServer;
use reconcile_lab::engine::kinds::KINDS;
use reconcile_lab::engine::labels::Selector;
use reconcile_lab::yaml;
use serde_json::Value;

fn config() -> ProptestConfig {
    fuzzing::config("tests/regressions/fuzz_yaml.proptest-regressions", fuzzing::cases(), 300)
}

const PER_INPUT: Duration = Duration::from_secs(5);

const SEEDS: &[&str] = &[
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        ports:\n        - containerPort: 80\n",
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: default\n  annotations:\n    a: \"1\"\ndata:\n  key: |\n    line one\n    line two\n  other: 'quoted'\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n",
    "apiVersion: example.com/v1\nkind: Bucket\nmetadata:\n  name: b1\n  finalizers: [example.com/bucket]\nspec:\n  region: eu-west-1\n  versioning: yes\n",
    "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\", \"ownerReferences\": [{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"name\": \"c\", \"uid\": \"u\", \"controller\": true}]}, \"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"x\"}]}}",
    "base: &b\n  apiVersion: v1\n  kind: ConfigMap\nobj:\n  <<: *b\n  metadata: {name: merged}\n",
    "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, generateName: rs-}\nspec: {replicas: 0x10, selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}}\n",
];

#[derive(Clone, Debug)]
enum Edit {
    DeleteByte(usize),
    InsertByte(usize, u8),
    DuplicateLine(usize),
    DeleteLine(usize),
    Indent(usize, usize),
    InsertText(usize, &'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    let snippets = proptest::sample::select(
        &[
            ": ",
            "- ",
            "---\n",
            "...\n",
            "&a ",
            "*a",
            "<<: ",
            "!!binary ",
            "!!int ",
            "{",
            "}",
            "[",
            "]",
            "'",
            "\"",
            "\\",
            "#",
            "|\n",
            ">-\n",
            "\t",
            "\u{feff}",
            "%YAML 1.2\n",
            "? ",
            "~",
            "null",
            ".inf",
            "0o17",
            "1e400",
            "-9223372036854775809",
            "\r\n",
            "\u{85}",
            "é",
        ][..],
    );
    prop_oneof![
        (any::<usize>()).prop_map(Edit::DeleteByte),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::InsertByte(i, b)),
        (any::<usize>()).prop_map(Edit::DuplicateLine),
        (any::<usize>()).prop_map(Edit::DeleteLine),
        (any::<usize>(), 0usize..6).prop_map(|(i, n)| Edit::Indent(i, n)),
        (any::<usize>(), snippets).prop_map(|(i, s)| Edit::InsertText(i, s)),
    ]
}

fn mutate(seed: &str, edits: &[Edit]) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    for e in edits {
        let lines: Vec<usize> = std::iter::once(0)
            .chain(bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').map(|(i, _)| i + 1))
            .collect();
        let line_at = |i: usize| lines[i % lines.len()];
        let line_end =
            |start: usize| bytes[start..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |p| start + p + 1);
        match e {
            Edit::DeleteByte(i) if !bytes.is_empty() => {
                bytes.remove(i % bytes.len());
            }
            Edit::InsertByte(i, b) => {
                let at = i % (bytes.len() + 1);
                bytes.insert(at, *b);
            }
            Edit::DuplicateLine(i) => {
                let s = line_at(*i);
                let e = line_end(s);
                let copy = bytes[s..e].to_vec();
                bytes.splice(s..s, copy);
            }
            Edit::DeleteLine(i) => {
                let s = line_at(*i);
                let e = line_end(s);
                bytes.drain(s..e);
            }
            Edit::Indent(i, n) => {
                let s = line_at(*i);
                bytes.splice(s..s, std::iter::repeat_n(b' ', *n));
            }
            Edit::InsertText(i, t) => {
                let at = i % (bytes.len() + 1);
                bytes.splice(at..at, t.bytes());
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Whether a document can come back unchanged through YAML: not with a NEL or a lone CR in a
/// key or a string, which YAML's line folding turns into a space or a line feed (as it does
/// through kubectl; `src/yaml/tests.rs` pins that folding).
fn round_trippable(v: &Value) -> bool {
    let plain = |s: &str| !s.contains('\u{85}') && !s.contains('\r');
    match v {
        Value::String(s) => plain(s),
        Value::Array(a) => a.iter().all(round_trippable),
        Value::Object(m) => m.iter().all(|(k, v)| plain(k) && round_trippable(v)),
        _ => true,
    }
}

fn server_state(api: &ApiServer) -> (u64, Vec<Value>) {
    let mut objs = Vec::new();
    for k in KINDS {
        objs.extend(api.list(k, None, &Selector::everything()).map(|l| l.items).unwrap_or_default());
    }
    (api.resource_version(), objs)
}

/// The manifest path with its properties; returns how many objects were created.
fn apply_text(text: &str) -> usize {
    let started = fuzzing::CpuTimer::start();
    let (docs, _err) = yaml::parse_documents_partial(text);
    let mut api = ApiServer::new(1);
    let mut created = 0;
    for doc in docs {
        let printed = yaml::to_yaml(&doc);
        let back =
            yaml::parse_value(&printed).unwrap_or_else(|e| panic!("to_yaml output does not parse: {e}\n{printed}"));
        if round_trippable(&doc) {
            assert_eq!(back, doc, "to_yaml does not round-trip:\n{printed}");
        }
        let before = server_state(&api);
        match api.create(doc.clone()) {
            Ok(obj) => {
                created += 1;
                let before = server_state(&api);
                let mut changed = obj.clone();
                changed["metadata"]["labels"] = serde_json::json!({"fuzz": "yes"});
                if api.update(changed).is_err() {
                    assert!(server_state(&api) == before, "a refused update changed the server");
                }
            }
            Err(_) => assert!(server_state(&api) == before, "a refused create changed the server"),
        }
    }
    let took = started.elapsed();
    assert!(took < PER_INPUT, "{} bytes took {took:?}", text.len());
    created
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_manifests(seed in proptest::sample::select(SEEDS), edits in proptest::collection::vec(edit(), 0..8)) {
        apply_text(&mutate(seed, &edits));
    }

    #[test]
    fn random_text(text in any::<String>()) {
        apply_text(&text);
    }

    #[test]
    fn yaml_shaped_text(text in "([a-z]{0,3}(: |- |:|\n|  |\\{|\\}|\\[|\\]|,|'|\"|&a |\\*a|<<|#|\\|)){0,40}") {
        apply_text(&text);
    }
}

#[test]
fn the_seeds_are_accepted() {
    let created: usize = SEEDS.iter().map(|s| apply_text(s)).sum();
    assert!(created >= 5, "only {created} seed manifests were created");
}

/// Deep nesting and alias expansion are refused quickly instead of exhausting the stack or memory.
#[test]
fn hostile_shapes_are_bounded() {
    for text in [
        "[".repeat(100_000),
        "{a: ".repeat(50_000),
        "- ".repeat(50_000),
        (0..100_000).map(|i| format!("{}a:\n", " ".repeat(i % 200))).collect(),
        "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n".to_string(),
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n", "a".repeat(1 << 20)),
        "---\n".repeat(100_000),
    ] {
        apply_text(&text);
    }
}
