//! Exact cases for the reader and the writer. Expected texts were checked against go-yaml v2.4
//! (the library under sigs.k8s.io/yaml and kubectl) run on the same inputs.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn one(text: &str) -> Value {
    let docs = parse_documents(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(docs.len(), 1, "{text:?}");
    docs.into_iter().next().unwrap_or(Value::Null)
}

fn err(text: &str) -> String {
    match parse_documents_strict(text) {
        Ok(v) => panic!("{text:?} parsed as {v:?}"),
        Err(e) => e.message,
    }
}

#[test]
fn block_and_flow_collections() {
    assert_eq!(
        one("a: 1\nb: [1, 2, {c: d}]\ne: {f: g, h: [i]}\n"),
        json!({"a": 1, "b": [1, 2, {"c": "d"}], "e": {"f": "g", "h": ["i"]}})
    );
    // Sequences not indented under their key, and indented ones.
    assert_eq!(one("a:\n- 1\n- 2\nb:\n  - x\n  - z\n"), json!({"a": [1, 2], "b": ["x", "z"]}));
    assert_eq!(one("- - a\n  - b\n- - c\n"), json!([["a", "b"], ["c"]]));
    assert_eq!(one("-\n  a: 1\n- b\n"), json!([{"a": 1}, "b"]));
    assert_eq!(one("a:    \n  - x\n  -\n  - z\n"), json!({"a": ["x", null, "z"]}));
    assert_eq!(one("? complex\n: value\n"), json!({"complex": "value"}));
    assert_eq!(one("a: [a: 1, b]\n"), json!({"a": [{"a": 1}, "b"]}));
    assert_eq!(one("a: {? b, c: }\n"), json!({"a": {"b": null, "c": null}}));
}

#[test]
fn comments_and_documents() {
    assert_eq!(one("a: b #c\n#d\ne: f#g\n"), json!({"a": "b", "e": "f#g"}));
    let docs = parse_documents("---\na: 1\n--- # second\n# only a comment\n---\nnull\n---\nb: 2\n").unwrap();
    assert_eq!(docs, vec![json!({"a": 1}), json!({"b": 2})]);
    // `...` ends the document; go-yaml reads no further.
    assert_eq!(one("a: 1\n...\nb: : :\n"), json!({"a": 1}));
    assert_eq!(parse_documents("# nothing\n\n").unwrap(), Vec::<Value>::new());
    let e = parse_documents("a: 1\n--- x\nb: 2\n").unwrap_err();
    assert_eq!((e.message.as_str(), e.line), ("invalid Yaml document separator: x", 2));
    // CRLF line ends are read as LF.
    assert_eq!(one("a: |\r\n  x\r\n  y\r\nb: 2\r\n"), json!({"a": "x\ny\n", "b": 2}));
}

#[test]
fn scalars_and_escapes() {
    assert_eq!(
        one("a: 'it''s'\nb: \"tab\\there\\u00e9\\x41\"\nc: plain multi\n  line scalar\nd: \"dq\n  multi\"\n"),
        json!({"a": "it's", "b": "tab\there\u{e9}A", "c": "plain multi line scalar", "d": "dq multi"})
    );
    assert_eq!(one("a: \"x\n\n  y\"\n"), json!({"a": "x\ny"}));
    assert_eq!(one("a: \"\\N\\_\\L\\P\\e\\0\"\n"), json!({"a": "\u{85}\u{a0}\u{2028}\u{2029}\u{1b}\u{0}"}));
}

#[test]
fn block_scalars() {
    let v = one("x: |\n  line1\n  line2\nf: >\n  folded\n  text\n\n  para\nz: |-\n  keep\nw: |+\n  plus\n\nv: end\n");
    assert_eq!(v, json!({"x": "line1\nline2\n", "f": "folded text\npara\n", "z": "keep", "w": "plus\n\n", "v": "end"}));
    assert_eq!(one("a: >-\n  x\n   y\n  z\n"), json!({"a": "x\n y\nz"}));
    assert_eq!(one("a: |2\n    x\n   y\n"), json!({"a": "  x\n y\n"}));
    assert_eq!(one("a: |-2\n   x\n"), json!({"a": " x"}));
}

#[test]
fn scalar_typing_follows_go_yaml_v2() {
    let v = one(concat!(
        "[~, null, Null, NULL, '', yes, no, on, off, y, n, true, False, 012, 0x1F, 0o17, 0b101, 1_000, +12, -0,",
        " 08, 1e3, 1.0, 1.5, .5, 1e400, 2024-01-01, 9223372036854775807, 9223372036854775808, 3:25, +.5, 0x, 1.5.5]"
    ));
    let expected = json!([
        null,
        null,
        null,
        null,
        "",
        true,
        false,
        true,
        false,
        true,
        false,
        true,
        false,
        10,
        31,
        15,
        5,
        1000,
        12,
        0,
        8,
        1000,
        1,
        1.5,
        0.5,
        "1e400",
        "2024-01-01",
        9223372036854775807_i64,
        9223372036854775808.0_f64,
        "3:25",
        0.5,
        "0x",
        "1.5.5"
    ]);
    assert_eq!(v, expected);
    // Non-string keys become strings (sigs.k8s.io/yaml), `yes` first becomes `true`.
    assert_eq!(
        one("1: a\n2.5: b\ntrue: c\nyes: d\n"),
        json!({"1": "a", "2.5": "b", "true": "d"}),
        "a later duplicate wins outside strict mode"
    );
    assert_eq!(
        one("a: !!str 123\nb: !!int \"42\"\nc: !!float 3\nd: !foo bar\n"),
        json!({"a": "123", "b": 42, "c": 3, "d": "bar"})
    );
    assert_eq!(one("a: !!binary aGVsbG8=\n"), json!({"a": "hello"}));
}

#[test]
fn anchors_aliases_and_merge_keys() {
    let v = one("a: &anc {b: 1, c: 2}\nd: *anc\ne:\n  <<: *anc\n  c: 3\n");
    assert_eq!(v, json!({"a": {"b": 1, "c": 2}, "d": {"b": 1, "c": 2}, "e": {"b": 1, "c": 3}}));
    // go-yaml v2 sets merged keys when it meets `<<`: a merge after a key overrides it.
    assert_eq!(
        one("base: &b {x: 1, z: 2}\nm:\n  z: 9\n  <<: *b\n"),
        json!({"base": {"x": 1, "z": 2}, "m": {"z": 2, "x": 1}})
    );
    assert_eq!(err("a: *nope\n"), "error converting YAML to JSON: yaml: unknown anchor 'nope' referenced");
    assert_eq!(err("a: &x [*x]\n"), "error converting YAML to JSON: yaml: anchor 'x' value contains itself");
    // A billion laughs is refused, quickly.
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let p = i - 1;
        bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
    }
    assert_eq!(err(&bomb), "error converting YAML to JSON: yaml: document contains excessive aliasing");
}

#[test]
fn errors_are_worded_and_numbered_like_go_yaml() {
    let cases = [
        ("a: b: c\n", "yaml: mapping values are not allowed in this context"),
        ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n labels: y\n", "yaml: line 4: did not find expected key"),
        ("a: 1\nb:\n  c: 2\n   d: 3\n", "yaml: line 4: mapping values are not allowed in this context"),
        ("a:\n  - b\n  c: d\n", "yaml: line 2: did not find expected '-' indicator"),
        ("a: [1, 2\n", "yaml: line 1: did not find expected ',' or ']'"),
        ("a: {b: 1\nc: 2\n", "yaml: line 1: did not find expected ',' or '}'"),
        ("a: \"\\q\"\n", "yaml: found unknown escape character"),
        ("a: @foo\n", "yaml: found character that cannot start any token"),
        ("key: \"unterminated\n", "yaml: line 2: found unexpected end of stream"),
        ("a: b\nc\n", "yaml: line 3: could not find expected ':'"),
        ("a: !!int abc\n", "yaml: cannot decode !!str `abc` as a !!int"),
        ("a: |\n  x\n\tb: 1\n", "yaml: line 3: found a tab character where an indentation space is expected"),
        ("- a\nb: 1\n", "yaml: line 1: did not find expected '-' indicator"),
        ("a: b\n- c\n", "yaml: line 1: did not find expected key"),
        ("key:value\nother: 1\n", "yaml: line 2: mapping values are not allowed in this context"),
        ("x: .inf\n", "json: unsupported value: +Inf"),
        ("[a, b]: c\n", "yaml: invalid map key: []interface {}{\"a\", \"b\"}"),
        ("~: 1\n", "unsupported map key of type: <nil>, key: <nil>, value: 1"),
        (
            "a: 1\na: 2\nb:\n  x: 1\n  x: 2\n",
            "yaml: unmarshal errors:\n  line 2: key \"a\" already set in map\n  line 5: key \"x\" already set in map",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(err(text), format!("error converting YAML to JSON: {want}"), "{text:?}");
    }
}

#[test]
fn error_positions_point_into_the_whole_text() {
    // The message counts lines within the document, as kubectl does; `line` counts in the file.
    let e = parse_documents("a: 1\n---\nb: 1\n c: 2\n").unwrap_err();
    assert_eq!(
        e.message,
        "error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"
    );
    assert_eq!((e.line, e.column), (4, 3));
    let e = parse_documents("a: \x01\n").unwrap_err();
    assert_eq!(e.message, "error converting YAML to JSON: yaml: control characters are not allowed");
    assert_eq!((e.line, e.column), (1, 4));
}

#[test]
fn json_streams_are_read_as_json() {
    let docs = parse_documents("{\"kind\": \"A\", \"n\": 1.0}\n{\"kind\": \"B\", \"big\": 18446744073709551615}\nnull")
        .unwrap();
    assert_eq!(docs, vec![json!({"kind": "A", "n": 1.0}), json!({"kind": "B", "big": 18446744073709551615.0_f64})]);
    // Go's json.Decoder reads values back to back, and words errors its own way.
    assert_eq!(
        parse_documents("{\"a\": 1}{\"b\": 2} 3null").unwrap(),
        vec![json!({"a": 1}), json!({"b": 2}), json!(3)]
    );
    let cases = [
        ("{\"a\": }", "json: offset 7: invalid character '}' looking for beginning of value", (1, 7)),
        ("{\"a\": 1,}", "json: offset 9: invalid character '}' looking for beginning of object key string", (1, 9)),
        ("{\"a\" 1}", "json: offset 6: invalid character '1' after object key", (1, 6)),
        ("{\"a\": [1 2]}", "json: offset 10: invalid character '2' after array element", (1, 10)),
        ("{\"a\": 1 \"b\": 2}", "json: offset 9: invalid character '\"' after object key:value pair", (1, 9)),
        ("{\"a\": tru}", "json: offset 10: invalid character '}' in literal true (expecting 'e')", (1, 10)),
        ("{\"a\": \"\\q\"}", "json: offset 9: invalid character 'q' in string escape code", (1, 9)),
        ("{\n  \"a\": 1.}", "json: offset 12: invalid character '}' after decimal point in numeric literal", (2, 10)),
        ("{\"a\": [1, 2", "unexpected EOF", (1, 12)),
    ];
    for (text, want, at) in cases {
        let e = parse_documents(text).unwrap_err();
        assert_eq!((e.message.as_str(), (e.line, e.column)), (want, at), "{text:?}");
    }
}

#[test]
fn depth_is_bounded() {
    let deep = "[".repeat(MAX_DEPTH + 10);
    assert!(err(&deep).contains(&format!("exceeded max depth of {MAX_DEPTH}")));
    let mut nested = String::new();
    for i in 0..MAX_DEPTH + 10 {
        nested.push_str(&" ".repeat(i));
        nested.push_str("a:\n");
    }
    assert!(err(&nested).contains("exceeded max depth"));
    // Within the limit is fine.
    assert_eq!(
        one(&format!("{}{}", "[".repeat(50), "]".repeat(50))).to_string(),
        format!("{}{}", "[".repeat(50), "]".repeat(50))
    );
}

// ---- writing ----

#[test]
fn strings_are_quoted_as_go_yaml_quotes_them() {
    let cases = [
        ("hello", "k: hello\n"),
        ("", "k: \"\"\n"),
        ("1", "k: \"1\"\n"),
        ("1.5", "k: \"1.5\"\n"),
        ("true", "k: \"true\"\n"),
        ("y", "k: \"y\"\n"),
        ("null", "k: \"null\"\n"),
        ("~", "k: \"~\"\n"),
        ("0x1F", "k: \"0x1F\"\n"),
        ("08", "k: \"08\"\n"),
        ("1e400", "k: 1e400\n"),
        ("1:20", "k: \"1:20\"\n"),
        ("2024-01-01", "k: \"2024-01-01\"\n"),
        ("2024-02-30", "k: 2024-02-30\n"),
        ("<<", "k: <<\n"),
        (" lead", "k: ' lead'\n"),
        ("trail ", "k: 'trail '\n"),
        ("a: b", "k: 'a: b'\n"),
        ("a:b", "k: a:b\n"),
        ("- x", "k: '- x'\n"),
        ("-x", "k: -x\n"),
        ("a #b", "k: 'a #b'\n"),
        ("a#b", "k: a#b\n"),
        ("*a", "k: '*a'\n"),
        ("it's", "k: it's\n"),
        ("'q'", "k: '''q'''\n"),
        ("tab\there", "k: \"tab\\there\"\n"),
        ("emoji \u{1F600}", "k: \"emoji \\U0001F600\"\n"),
        ("h\u{e9}llo", "k: h\u{e9}llo\n"),
        ("---", "k: '---'\n"),
    ];
    for (s, want) in cases {
        assert_eq!(to_yaml(&json!({ "k": s })), want, "{s:?}");
    }
}

#[test]
fn multi_line_strings_use_literal_blocks() {
    assert_eq!(to_yaml(&json!({"k": "a\nb"})), "k: |-\n  a\n  b\n");
    assert_eq!(to_yaml(&json!({"k": "a\nb\n"})), "k: |\n  a\n  b\n");
    assert_eq!(to_yaml(&json!({"k": "a\n\n"})), "k: |+\n  a\n\n");
    assert_eq!(to_yaml(&json!({"k": " a\nb\n"})), "k: |2\n   a\n  b\n");
    assert_eq!(to_yaml(&json!({"k": ["a\n\nb"]})), "k:\n- |-\n  a\n\n  b\n");
    // A trailing space before a break rules the block out.
    assert_eq!(to_yaml(&json!({"k": "trail \nx"})), "k: \"trail \\nx\"\n");
    // A multi-line key is written in the explicit form.
    assert_eq!(to_yaml(&json!({"a\nb": 1})), "? |-\n  a\n  b\n: 1\n");
}

#[test]
fn long_strings_fold_at_eighty_columns() {
    let words = vec!["word"; 40].join(" ");
    let y = to_yaml(&json!({ "k": words }));
    assert_eq!(y.lines().next().map(str::len), Some(82));
    assert_eq!(parse_documents(&y).unwrap()[0]["k"], json!(words));
    let long_key = "k".repeat(130);
    assert_eq!(to_yaml(&json!({ long_key.clone(): 1 })), format!("? {long_key}\n: 1\n"));
}

#[test]
fn numbers_print_as_go_prints_them() {
    let v = json!([
        0,
        -1,
        1.5,
        0.5,
        1e6,
        1234567.5,
        123456789.5,
        1e21,
        1e-5,
        0.0001,
        1e-7,
        18446744073709551615_u64,
        1.0,
        2.5e-10
    ]);
    assert_eq!(
        to_yaml(&v),
        "- 0\n- -1\n- 1.5\n- 0.5\n- 1000000\n- 1.2345675e+06\n- 1.234567895e+08\n- 1e+21\n- 1e-05\n- 0.0001\n- 1e-07\n- 18446744073709551615\n- 1\n- 2.5e-10\n"
    );
}

#[test]
fn keys_sort_naturally_and_empty_collections_are_flow() {
    let v =
        json!({"a10": 1, "a2": 2, "b": 3, "B": 4, "_x": 5, "10": 6, "2": 7, "x-y": 8, "xy": 9, "a01": 10, "a001": 11});
    let keys: Vec<String> = to_yaml(&v).lines().map(|l| l.split(':').next().unwrap_or("").to_string()).collect();
    assert_eq!(keys, ["_x", "\"2\"", "\"10\"", "B", "a01", "a001", "a2", "a10", "b", "x-y", "xy"]);
    assert_eq!(to_yaml(&json!({"e": {}, "l": [], "n": null, "t": true})), "e: {}\nl: []\n\"n\": null\nt: true\n");
    assert_eq!(
        to_yaml(&json!([[1, [2, []]], [{}], {"a": [{"b": {"c": []}}]}])),
        "- - 1\n  - - 2\n    - []\n- - {}\n- a:\n  - b:\n      c: []\n"
    );
    assert_eq!(to_yaml(&json!("root")), "root\n");
    assert_eq!(to_yaml(&json!({})), "{}\n");
    assert_eq!(to_yaml(&Value::Null), "null\n");
}

const DEPLOY_JSON: &str = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{"deployment.kubernetes.io/revision":"1","kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"annotations\":{},\"name\":\"web\",\"namespace\":\"default\"},\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{\"containers\":[{\"image\":\"nginx:1.27\",\"name\":\"nginx\"}]}}}}\n"},"creationTimestamp":"2026-11-29T10:00:00Z","generation":1,"name":"web","namespace":"default","resourceVersion":"1234","uid":"5f0c6a8e-3b1d-4c2a-9e7f-0a1b2c3d4e5f"},"spec":{"progressDeadlineSeconds":600,"replicas":3,"revisionHistoryLimit":10,"selector":{"matchLabels":{"app":"web"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","imagePullPolicy":"IfNotPresent","name":"nginx","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}},"status":{"availableReplicas":3,"conditions":[{"lastTransitionTime":"2026-11-29T10:00:05Z","lastUpdateTime":"2026-11-29T10:00:05Z","message":"Deployment has minimum availability.","reason":"MinimumReplicasAvailable","status":"True","type":"Available"},{"lastTransitionTime":"2026-11-29T10:00:00Z","lastUpdateTime":"2026-11-29T10:00:05Z","message":"ReplicaSet \"web-7d4b9c8f6d\" has successfully progressed.","reason":"NewReplicaSetAvailable","status":"True","type":"Progressing"}],"observedGeneration":1,"readyReplicas":3,"replicas":3,"updatedReplicas":3}}"#;

/// `kubectl get -o yaml` for the object above (go-yaml v2.4 via sigs.k8s.io/yaml).
const DEPLOY_YAML: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "1"
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"default"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","name":"nginx"}]}}}}
  creationTimestamp: "2026-11-29T10:00:00Z"
  generation: 1
  name: web
  namespace: default
  resourceVersion: "1234"
  uid: 5f0c6a8e-3b1d-4c2a-9e7f-0a1b2c3d4e5f
spec:
  progressDeadlineSeconds: 600
  replicas: 3
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: web
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: nginx:1.27
        imagePullPolicy: IfNotPresent
        name: nginx
        resources: {}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {}
      terminationGracePeriodSeconds: 30
status:
  availableReplicas: 3
  conditions:
  - lastTransitionTime: "2026-11-29T10:00:05Z"
    lastUpdateTime: "2026-11-29T10:00:05Z"
    message: Deployment has minimum availability.
    reason: MinimumReplicasAvailable
    status: "True"
    type: Available
  - lastTransitionTime: "2026-11-29T10:00:00Z"
    lastUpdateTime: "2026-11-29T10:00:05Z"
    message: ReplicaSet "web-7d4b9c8f6d" has successfully progressed.
    reason: NewReplicaSetAvailable
    status: "True"
    type: Progressing
  observedGeneration: 1
  readyReplicas: 3
  replicas: 3
  updatedReplicas: 3
"#;

const POD_JSON: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2026-11-29T10:00:01Z","generateName":"web-7d4b9c8f6d-","labels":{"app":"web","pod-template-hash":"7d4b9c8f6d"},"name":"web-7d4b9c8f6d-x2k9p","namespace":"default","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"ReplicaSet","name":"web-7d4b9c8f6d","uid":"0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"}],"resourceVersion":"1240","uid":"9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"},"spec":{"containers":[{"args":["--port=8080","--message=hello world, this is a deliberately long argument that goes past eighty columns"],"command":["/bin/sh","-c"],"env":[{"name":"EMPTY","value":""},{"name":"ANSWER","value":"42"},{"name":"FLAG","value":"yes"}],"image":"nginx:1.27","name":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}]}],"nodeName":"node-1","tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300}]},"status":{"phase":"Running","podIP":"10.244.0.5","qosClass":"BestEffort","startTime":"2026-11-29T10:00:01Z"}}"#;

/// `kubectl get -o yaml` for the object above (go-yaml v2.4 via sigs.k8s.io/yaml).
const POD_YAML: &str = r#"apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2026-11-29T10:00:01Z"
  generateName: web-7d4b9c8f6d-
  labels:
    app: web
    pod-template-hash: 7d4b9c8f6d
  name: web-7d4b9c8f6d-x2k9p
  namespace: default
  ownerReferences:
  - apiVersion: apps/v1
    blockOwnerDeletion: true
    controller: true
    kind: ReplicaSet
    name: web-7d4b9c8f6d
    uid: 0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b
  resourceVersion: "1240"
  uid: 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
spec:
  containers:
  - args:
    - --port=8080
    - --message=hello world, this is a deliberately long argument that goes past eighty
      columns
    command:
    - /bin/sh
    - -c
    env:
    - name: EMPTY
      value: ""
    - name: ANSWER
      value: "42"
    - name: FLAG
      value: "yes"
    image: nginx:1.27
    name: nginx
    ports:
    - containerPort: 80
      protocol: TCP
  nodeName: node-1
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
status:
  phase: Running
  podIP: 10.244.0.5
  qosClass: BestEffort
  startTime: "2026-11-29T10:00:01Z"
"#;

const LIST_JSON: &str = r#"{"apiVersion":"v1","items":[{"apiVersion":"v1","data":{"config.yaml":"a: 1\nb: two\n","empty":"","num":"1.5"},"kind":"ConfigMap","metadata":{"finalizers":["example.com/cleanup"],"name":"cfg","namespace":"default"}}],"kind":"List","metadata":{"resourceVersion":""}}"#;

/// `kubectl get -o yaml` for the object above (go-yaml v2.4 via sigs.k8s.io/yaml).
const LIST_YAML: &str = r#"apiVersion: v1
items:
- apiVersion: v1
  data:
    config.yaml: |
      a: 1
      b: two
    empty: ""
    num: "1.5"
  kind: ConfigMap
  metadata:
    finalizers:
    - example.com/cleanup
    name: cfg
    namespace: default
kind: List
metadata:
  resourceVersion: ""
"#;

#[test]
fn real_objects_print_like_kubectl_get_o_yaml() {
    for (json_text, yaml_text) in [(DEPLOY_JSON, DEPLOY_YAML), (POD_JSON, POD_YAML), (LIST_JSON, LIST_YAML)] {
        let v: Value = serde_json::from_str(json_text).unwrap_or(Value::Null);
        assert_eq!(to_yaml(&v), yaml_text);
        // And reading the printed YAML gives the object back.
        assert_eq!(parse_documents(yaml_text).unwrap(), vec![v]);
    }
}

// ---- properties ----

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Non-integral finite floats (integral ones read back as integers, as in kubectl).
        (any::<i32>(), 1..1000u32).prop_map(|(a, b)| json!(f64::from(a) + f64::from(b) / 1024.0 + 1.0 / 4096.0)),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "",
            " ",
            "yes",
            "1",
            "0x10",
            "a: b",
            "- x",
            "#",
            "\n",
            "a\nb\n",
            " x\n",
            "x \n",
            "~",
            "2024-01-01",
            "'",
            "\"",
            "\t",
            "\u{85}",
            "\u{2028}",
            "---",
            "..."
        ])
        .prop_map(|s| Value::String(s.to_string())),
        "[a-z ]{70,120}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("\\PC{0,8}|[a-z0-9]{1,4}|yes|1|", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Strings with NEL or a lone CR cannot come back unchanged through YAML's line folding (nor do
/// they through kubectl); leave them out of the round trip.
fn round_trippable(v: &Value) -> bool {
    match v {
        Value::String(s) => !s.contains('\u{85}') && !s.contains('\r'),
        Value::Array(a) => a.iter().all(round_trippable),
        Value::Object(m) => m.iter().all(|(k, v)| !k.contains('\u{85}') && !k.contains('\r') && round_trippable(v)),
        _ => true,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn to_yaml_then_parse_round_trips(v in arb_json()) {
        prop_assume!(round_trippable(&v));
        let text = to_yaml(&v);
        let back = parse_documents(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let expected = if v.is_null() { vec![] } else { vec![v.clone()] };
        prop_assert_eq!(back, expected, "{}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        let _ = parse_documents(&s);
        let _ = parse_documents_strict(&s);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let s = String::from_utf8_lossy(&bytes);
        let _ = parse_documents(&s);
        let _ = parse_value(&s);
    }

    #[test]
    fn token_soups_never_panic(parts in prop::collection::vec(prop::sample::select(vec![
        "a", "b: ", ":", "- ", "-", "?", " ", "  ", "\n", "\t", "[", "]", "{", "}", ",", "'", "\"", "\\", "|", ">",
        "|-", ">+2", "#", "&x ", "*x", "!!str ", "!t ", "<<: ", "---\n", "...\n", "%YAML 1.1\n", "1", "0x", ".inf", "\r\n",
        "\u{85}", "\u{feff}", "é",
    ]), 0..60)) {
        let text: String = parts.concat();
        let _ = parse_documents(&text);
        let _ = parse_documents_strict(&text);
    }
}

#[test]
fn pathological_inputs_finish_quickly() {
    let started = CpuTimer::start();
    for text in [
        "[".repeat(100_000),
        "{a: ".repeat(50_000),
        "- ".repeat(50_000),
        format!("a: \"{}", "x".repeat(200_000)),
        "a: b\n".repeat(20_000),
        format!("{}: 1", "k".repeat(100_000)),
        "*a ".repeat(10_000),
    ] {
        let _ = parse_documents(&text);
    }
    assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Floats read from YAML are correctly rounded, as Go's `ParseFloat` (and Rust's) are.
    #[test]
    fn floats_are_correctly_rounded(bits in any::<u64>(), digits in "[0-9]{1,25}", point in 0..25usize, exp in -330..310i32) {
        let f = f64::from_bits(bits).abs();
        prop_assume!(f.is_finite());
        let mut cases = vec![format!("{f:e}"), format!("{f:.16e}"), format!("{f:.20e}")];
        let p = point.min(digits.len());
        cases.push(format!("{}.{}e{exp}", &digits[..p], &digits[p..]));
        for text in cases {
            let want = text.parse::<f64>().ok().filter(|v| v.is_finite());
            prop_assert_eq!(super::resolve::parse_float(&text), want, "{}", text);
        }
    }
}

#[test]
fn parse_value_reads_one_value() {
    assert_eq!(parse_value("{\"spec\":{\"replicas\":3}}").unwrap(), json!({"spec": {"replicas": 3}}));
    assert_eq!(parse_value("spec:\n  replicas: 3\n").unwrap(), json!({"spec": {"replicas": 3}}));
    assert_eq!(parse_value("").unwrap(), Value::Null);
    assert_eq!(parse_value("--- a\n--- b\n").unwrap(), json!("a"));
    assert_eq!(
        parse_value("a: b: c").unwrap_err().message,
        "error converting YAML to JSON: yaml: mapping values are not allowed in this context"
    );
}

#[test]
fn big_maps_sort_quickly_and_correctly() {
    let map: serde_json::Map<String, Value> = (0..20_000).rev().map(|i| (format!("key{i}"), json!(i))).collect();
    let started = CpuTimer::start();
    let text = to_yaml(&Value::Object(map));
    assert!(started.elapsed().as_secs() < 5, "took {:?}", started.elapsed());
    let keys: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap_or("")).collect();
    let expected: Vec<String> = (0..20_000).map(|i| format!("key{i}")).collect();
    assert_eq!(keys, expected);
}

#[test]
fn nel_in_values_folds_as_through_kubectls_json() {
    assert_eq!(to_yaml(&json!({"k": "x\u{85}y"})), "k: x y\n");
    assert_eq!(to_yaml(&json!({"k": "a\t\u{85}\u{85}\u{85} b"})), "k: \"a\\t\\n\\nb\"\n");
    assert_eq!(to_yaml(&json!({"k": ["a \u{85} b"]})), "k:\n- a b\n");
}

/// Mistakes learners make, with what kubectl answers (`error: error parsing FILE: ` + this).
#[test]
fn common_mistakes_get_kubectls_messages() {
    let cases = [
        ("spec:\n\treplicas: 3\n", "yaml: line 2: found character that cannot start any token", (2, 1)),
        (
            "spec:\n  replicas:3\n  selector:\n    app: web\n",
            "yaml: line 3: mapping values are not allowed in this context",
            (3, 11),
        ),
        (
            "spec:\n  containers:\n  - name: a\n    image: nginx\n   ports:\n    - 80\n",
            "yaml: line 4: did not find expected key",
            (5, 4),
        ),
        (
            "spec:\n  containers:\n    - name: a\n    -name: b\n",
            "yaml: line 3: did not find expected '-' indicator",
            (4, 5),
        ),
        ("metadata:\n  labels: {app: web\n", "yaml: line 2: did not find expected ',' or '}'", (3, 1)),
        ("data:\n  key: 'single ' quoted'\n", "yaml: line 1: did not find expected key", (2, 18)),
        ("command: [\"sh\", \"-c\", \"echo hi\"\n", "yaml: line 1: did not find expected ',' or ']'", (2, 1)),
    ];
    for (text, want, at) in cases {
        let e = parse_documents(text).unwrap_err();
        assert_eq!(e.message, format!("error converting YAML to JSON: {want}"), "{text:?}");
        assert_eq!((e.line, e.column), at, "{text:?}");
    }
}

proptest! {
    /// The scanner's stated invariants hold after every token, whatever the input.
    #[test]
    fn scanner_invariants_hold(parts in prop::collection::vec(prop::sample::select(vec![
        "a", "b: ", ": ", "- ", "? ", " ", "  ", "\n", "\n  ", "[", "]", "{", "}", ", ", "'x'", "\"y\"", "|\n  t\n",
        "&x ", "*x", "!!str ", "#c", "...\n", "%YAML 1.1\n", "\t",
    ]), 0..50)) {
        let text: String = parts.concat();
        let mut sc = super::scanner::Scanner::new(&text);
        for _ in 0..10_000 {
            match sc.next() {
                Ok(t) if t.kind == super::scanner::Tok::StreamEnd => break,
                Ok(_) => prop_assert!(sc.invariants_hold(), "{:?}", text),
                Err(_) => break,
            }
        }
    }
}

#[test]
fn partial_reads_stop_where_kubectl_stops() {
    let (docs, e) = parse_documents_partial("a: 1\n---\nb: 2\n---\nc: : 3\n---\nd: 4\n");
    assert_eq!(docs, vec![json!({"a": 1}), json!({"b": 2})]);
    assert_eq!(
        e.map(|e| (e.message, e.line)),
        Some(("error converting YAML to JSON: yaml: mapping values are not allowed in this context".to_string(), 5))
    );
    // A bad separator loses the document it ends, as apimachinery's reader does.
    let (docs, e) = parse_documents_partial("a: 1\n---\nb: 2\n--- x\nc: 3\n");
    assert_eq!(docs, vec![json!({"a": 1})]);
    assert_eq!(e.map(|e| e.message), Some("invalid Yaml document separator: x".to_string()));
    let (docs, e) = parse_documents_partial("{\"a\": 1}\n{\"b\": }");
    assert_eq!(docs, vec![json!({"a": 1})]);
    assert!(e.is_some_and(|e| e.message == "json: offset 16: invalid character '}' looking for beginning of value"));
    assert_eq!(parse_documents_partial("a: 1\n"), (vec![json!({"a": 1})], None));
}

/// A stopwatch of the CPU time this thread has used, as `tests/fuzzing/mod.rs`'s `CpuTimer`: the
/// time bounds below catch a runaway parse or sort (quadratic, exponential), and wall time would
/// make them fail on a loaded machine, where the test thread may wait for a core far longer than
/// it runs. Linux's `/proc/thread-self/schedstat` gives the thread's time on a CPU (its first
/// field, in nanoseconds); elsewhere this falls back to wall time.
struct CpuTimer {
    cpu_start: Option<u64>,
    wall_start: std::time::Instant,
}

impl CpuTimer {
    fn thread_cpu_ns() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        text.split_whitespace().next()?.parse().ok()
    }

    fn start() -> CpuTimer {
        CpuTimer { cpu_start: CpuTimer::thread_cpu_ns(), wall_start: std::time::Instant::now() }
    }

    fn elapsed(&self) -> std::time::Duration {
        match (self.cpu_start, CpuTimer::thread_cpu_ns()) {
            (Some(a), Some(b)) => std::time::Duration::from_nanos(b.saturating_sub(a)),
            _ => self.wall_start.elapsed(),
        }
    }
}
