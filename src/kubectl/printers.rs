//! kubectl's human-readable printers: the per-kind table columns of `kubectl get` (with `-o wide`,
//! `-A`, `--show-labels`, `--output-watch-events`) and the `-o name` form
//! (kubernetes-semantics.md §8.1-§8.5; k/k pkg/printers/internalversion/printers.go).

use super::table::{human_duration, TabWriter};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;
use serde_json::Value;

/// How a table is printed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// `-o wide`: the extra (priority 1) columns.
    pub wide: bool,
    /// `-A`: a NAMESPACE column first.
    pub with_namespace: bool,
    /// `--show-labels`: a LABELS column last.
    pub show_labels: bool,
    /// `--output-watch-events`: an EVENT column first.
    pub watch_events: bool,
    /// Several kinds in one `get`: names print as `kind.group/name`.
    pub with_kind: bool,
    /// `-L key,...`: one column per label key (header: the key's last path segment, upper-cased).
    pub label_columns: Vec<String>,
}

/// The `-o name` form: `deployment.apps/web`, `pod/web-x2b9k` (cli-runtime printers/name.go).
pub fn name_of(kind: &Kind, obj: &Value) -> String {
    format!("{}/{}", kind.name_prefix(), obj.name())
}

/// The column headers of a kind's table, upper-cased as kubectl prints them.
pub fn headers(kind: &Kind, opts: &TableOptions) -> Vec<String> {
    let mut cols: Vec<&str> = match kind.kind {
        "Pod" => vec!["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        "Deployment" => vec!["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        "ReplicaSet" => vec!["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
        "Namespace" => vec!["NAME", "STATUS", "AGE"],
        "Node" => vec!["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
        "ConfigMap" => vec!["NAME", "DATA", "AGE"],
        "Lease" => vec!["NAME", "HOLDER", "AGE"],
        "Event" if opts.wide => vec![
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SUBOBJECT",
            "SOURCE",
            "MESSAGE",
            "FIRST SEEN",
            "COUNT",
            "NAME",
        ],
        "Event" => vec!["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
        _ => vec!["NAME", "AGE"],
    };
    if opts.wide {
        match kind.kind {
            "Pod" => cols.extend(["IP", "NODE", "NOMINATED NODE", "READINESS GATES"]),
            "Deployment" | "ReplicaSet" => cols.extend(["CONTAINERS", "IMAGES", "SELECTOR"]),
            "Node" => cols.extend(["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"]),
            _ => {}
        }
    }
    let mut out: Vec<String> = cols.into_iter().map(String::from).collect();
    if opts.with_namespace {
        out.insert(0, "NAMESPACE".into());
    }
    if opts.watch_events {
        out.insert(0, "EVENT".into());
    }
    for key in &opts.label_columns {
        out.push(key.rsplit('/').next().unwrap_or(key).to_uppercase());
    }
    if opts.show_labels {
        out.push("LABELS".into());
    }
    out
}

/// `translateTimestampSince`: the AGE of an RFC 3339 timestamp, `<unknown>` when unset.
pub fn age(timestamp: Option<&str>, now: Time) -> String {
    match timestamp.and_then(Time::parse_rfc3339) {
        Some(t) => human_duration(now.millis_since(t)),
        None => "<unknown>".into(),
    }
}

fn s<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or("")
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

fn int(v: &Value, path: &[&str]) -> i64 {
    at(v, path).and_then(Value::as_i64).unwrap_or(0)
}

fn or_none(s: &str) -> String {
    if s.is_empty() {
        "<none>".into()
    } else {
        s.to_string()
    }
}

/// `labels.FormatLabels`: `k=v` pairs sorted by key, `<none>` when empty.
pub fn format_labels(labels: Option<&serde_json::Map<String, Value>>) -> String {
    let mut pairs: Vec<String> = labels
        .map(|m| m.iter().map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or(""))).collect())
        .unwrap_or_default();
    crate::sort::sort(&mut pairs);
    if pairs.is_empty() {
        "<none>".into()
    } else {
        pairs.join(",")
    }
}

/// `metav1.FormatLabelSelector`: requirements sorted by key, `<none>` for an empty selector.
pub fn format_label_selector(sel: Option<&Value>) -> String {
    let Some(sel) = sel else { return "<none>".into() };
    let mut reqs: Vec<(String, String)> = Vec::new();
    if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in m {
            reqs.push((k.clone(), format!("{k}={}", v.as_str().unwrap_or(""))));
        }
    }
    if let Some(exprs) = sel.get("matchExpressions").and_then(Value::as_array) {
        for e in exprs {
            let key = s(e, &["key"]);
            let mut values: Vec<&str> = e
                .get("values")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            crate::sort::sort(&mut values);
            let text = match s(e, &["operator"]) {
                "In" => format!("{key} in ({})", values.join(",")),
                "NotIn" => format!("{key} notin ({})", values.join(",")),
                "Exists" => key.to_string(),
                "DoesNotExist" => format!("!{key}"),
                other => format!("{key} {other}"),
            };
            reqs.push((key.to_string(), text));
        }
    }
    crate::sort::sort(&mut reqs);
    if reqs.is_empty() {
        "<none>".into()
    } else {
        reqs.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(",")
    }
}

fn containers_and_images(pod_spec: Option<&Value>) -> (String, String) {
    let list = pod_spec.and_then(|p| p.get("containers")).and_then(Value::as_array);
    let names: Vec<&str> = list.map(|a| a.iter().map(|c| s(c, &["name"])).collect()).unwrap_or_default();
    let images: Vec<&str> = list.map(|a| a.iter().map(|c| s(c, &["image"])).collect()).unwrap_or_default();
    (names.join(","), images.join(","))
}

/// `printPod`'s READY, STATUS and RESTARTS cells.
fn pod_cells(pod: &Value, now: Time) -> (String, String, String) {
    let total = at(pod, &["spec", "containers"]).and_then(Value::as_array).map_or(0, Vec::len);
    let mut ready = 0;
    let mut restarts = 0;
    let mut last_restart: Option<Time> = None;
    let mut reason = s(pod, &["status", "phase"]).to_string();
    if !s(pod, &["status", "reason"]).is_empty() {
        reason = s(pod, &["status", "reason"]).to_string();
    }
    let mut has_running = false;
    let statuses = at(pod, &["status", "containerStatuses"]).and_then(Value::as_array).cloned().unwrap_or_default();
    for c in statuses.iter().rev() {
        restarts += int(c, &["restartCount"]);
        if let Some(t) =
            at(c, &["lastState", "terminated", "finishedAt"]).and_then(Value::as_str).and_then(Time::parse_rfc3339)
        {
            if last_restart.is_none_or(|l| t > l) {
                last_restart = Some(t);
            }
        }
        let waiting = s(c, &["state", "waiting", "reason"]);
        let terminated = at(c, &["state", "terminated"]);
        if !waiting.is_empty() {
            reason = waiting.to_string();
        } else if let Some(t) = terminated.filter(|t| !s(t, &["reason"]).is_empty()) {
            reason = s(t, &["reason"]).to_string();
        } else if let Some(t) = terminated {
            reason = match int(t, &["signal"]) {
                0 => format!("ExitCode:{}", int(t, &["exitCode"])),
                sig => format!("Signal:{sig}"),
            };
        } else if c.get("ready").and_then(Value::as_bool) == Some(true) && at(c, &["state", "running"]).is_some() {
            has_running = true;
            ready += 1;
        }
    }
    if reason == "Completed" && has_running {
        let ready_cond = at(pod, &["status", "conditions"])
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| s(c, &["type"]) == "Ready" && s(c, &["status"]) == "True"));
        reason = if ready_cond { "Running".into() } else { "NotReady".into() };
    }
    // A deleted pod shows Terminating until the kubelet writes its terminal phase; then the
    // containers' own reason (Completed, Error) shows (kubectl printers.go `printPod`:
    // `!podutil.IsPodPhaseTerminal`).
    let phase = s(pod, &["status", "phase"]);
    if pod.is_deleting() && s(pod, &["status", "reason"]) == "NodeLost" {
        reason = "Unknown".into();
    } else if pod.is_deleting() && phase != "Succeeded" && phase != "Failed" {
        reason = "Terminating".into();
    }
    let restarts_cell = match last_restart {
        Some(t) => format!("{restarts} ({} ago)", human_duration(now.millis_since(t))),
        None => restarts.to_string(),
    };
    (format!("{ready}/{total}"), reason, restarts_cell)
}

/// `printNode`'s STATUS: the Ready condition, plus `SchedulingDisabled`.
fn node_status(node: &Value) -> String {
    let ready = at(node, &["status", "conditions"])
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| s(c, &["type"]) == "Ready"))
        .map(|c| s(c, &["status"]));
    let mut status = match ready {
        Some("True") => "Ready".to_string(),
        Some("False") => "NotReady".to_string(),
        _ => "Unknown".to_string(),
    };
    if at(node, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    status
}

fn node_roles(node: &Value) -> String {
    let mut roles: Vec<String> = node
        .labels()
        .map(|l| {
            l.iter()
                .filter_map(|(k, v)| {
                    if let Some(r) = k.strip_prefix("node-role.kubernetes.io/") {
                        Some(r.to_string())
                    } else if k == "kubernetes.io/role" {
                        v.as_str().map(String::from)
                    } else {
                        None
                    }
                })
                .filter(|r| !r.is_empty())
                .collect()
        })
        .unwrap_or_default();
    crate::sort::sort(&mut roles);
    roles.dedup();
    or_none(&roles.join(","))
}

/// `printEvent`'s cells.
fn event_cells(ev: &Value, now: Time, wide: bool) -> Vec<String> {
    let first = if s(ev, &["firstTimestamp"]).is_empty() {
        age(Some(s(ev, &["eventTime"])).filter(|t| !t.is_empty()), now)
    } else {
        age(Some(s(ev, &["firstTimestamp"])), now)
    };
    let mut last =
        if s(ev, &["lastTimestamp"]).is_empty() { first.clone() } else { age(Some(s(ev, &["lastTimestamp"])), now) };
    let mut count = int(ev, &["count"]);
    if let Some(series) = ev.get("series").filter(|v| v.is_object()) {
        last = age(Some(s(series, &["lastObservedTime"])), now);
        count = int(series, &["count"]);
    } else if count == 0 {
        count = 1;
    }
    let kind = s(ev, &["involvedObject", "kind"]).to_ascii_lowercase();
    let name = s(ev, &["involvedObject", "name"]);
    let target = if name.is_empty() { kind } else { format!("{kind}/{name}") };
    let message = s(ev, &["message"]).trim().to_string();
    if wide {
        let mut source = s(ev, &["source", "component"]).to_string();
        if source.is_empty() {
            source = s(ev, &["reportingComponent"]).to_string();
        }
        let mut host = s(ev, &["source", "host"]);
        if host.is_empty() {
            host = s(ev, &["reportingInstance"]);
        }
        if !host.is_empty() {
            source = format!("{source}, {host}");
        }
        vec![
            last,
            s(ev, &["type"]).into(),
            s(ev, &["reason"]).into(),
            target,
            s(ev, &["involvedObject", "fieldPath"]).into(),
            source,
            message,
            first,
            count.to_string(),
            ev.name().into(),
        ]
    } else {
        vec![last, s(ev, &["type"]).into(), s(ev, &["reason"]).into(), target, message]
    }
}

/// One object's cells, in the order of [`headers`] (without EVENT).
pub fn cells(kind: &Kind, obj: &Value, now: Time, opts: &TableOptions) -> Vec<String> {
    let created = obj.meta().and_then(|m| m.get("creationTimestamp")).and_then(Value::as_str);
    let age_cell = age(created, now);
    let name = if opts.with_kind { name_of(kind, obj) } else { obj.name().to_string() };
    let mut row: Vec<String> = match kind.kind {
        "Pod" => {
            let (ready, status, restarts) = pod_cells(obj, now);
            let mut r = vec![name, ready, status, restarts, age_cell];
            if opts.wide {
                r.push(or_none(s(obj, &["status", "podIP"])));
                r.push(or_none(s(obj, &["spec", "nodeName"])));
                r.push(or_none(s(obj, &["status", "nominatedNodeName"])));
                r.push("<none>".into());
            }
            r
        }
        "Deployment" | "ReplicaSet" => {
            let desired = int(obj, &["spec", "replicas"]);
            let mut r = if kind.kind == "Deployment" {
                vec![
                    name,
                    format!("{}/{desired}", int(obj, &["status", "readyReplicas"])),
                    int(obj, &["status", "updatedReplicas"]).to_string(),
                    int(obj, &["status", "availableReplicas"]).to_string(),
                    age_cell,
                ]
            } else {
                vec![
                    name,
                    desired.to_string(),
                    int(obj, &["status", "replicas"]).to_string(),
                    int(obj, &["status", "readyReplicas"]).to_string(),
                    age_cell,
                ]
            };
            if opts.wide {
                let (c, i) = containers_and_images(at(obj, &["spec", "template", "spec"]));
                r.extend([c, i, format_label_selector(at(obj, &["spec", "selector"]))]);
            }
            r
        }
        "Namespace" => vec![name, s(obj, &["status", "phase"]).into(), age_cell],
        "Node" => {
            let mut r = vec![
                name,
                node_status(obj),
                node_roles(obj),
                age_cell,
                s(obj, &["status", "nodeInfo", "kubeletVersion"]).into(),
            ];
            if opts.wide {
                let addr = |t: &str| {
                    at(obj, &["status", "addresses"])
                        .and_then(Value::as_array)
                        .and_then(|a| a.iter().find(|x| s(x, &["type"]) == t))
                        .map_or("<none>".to_string(), |x| s(x, &["address"]).to_string())
                };
                let unknown = |k: &str| {
                    let v = s(obj, &["status", "nodeInfo", k]);
                    if v.is_empty() {
                        "<unknown>".to_string()
                    } else {
                        v.to_string()
                    }
                };
                r.extend([
                    addr("InternalIP"),
                    addr("ExternalIP"),
                    unknown("osImage"),
                    unknown("kernelVersion"),
                    unknown("containerRuntimeVersion"),
                ]);
            }
            r
        }
        "ConfigMap" => {
            let n = |k: &str| obj.get(k).and_then(Value::as_object).map_or(0, serde_json::Map::len);
            vec![name, (n("data") + n("binaryData")).to_string(), age_cell]
        }
        "Lease" => vec![name, s(obj, &["spec", "holderIdentity"]).into(), age_cell],
        "Event" => event_cells(obj, now, opts.wide),
        _ => vec![name, age_cell],
    };
    if opts.with_namespace {
        row.insert(0, obj.namespace().unwrap_or("").to_string());
    }
    for key in &opts.label_columns {
        row.push(obj.label(key).unwrap_or("").to_string());
    }
    if opts.show_labels {
        row.push(format_labels(obj.labels()));
    }
    row
}

/// `formattedEventType`: the EVENT cell, padded to eight characters.
pub fn event_cell(event_type: &str) -> String {
    format!("{event_type:<8}")
}

/// Prints a table (header, then one row per object) through `tw`, whose widths persist.
pub fn print_table(
    tw: &mut TabWriter,
    kind: &Kind,
    objs: &[Value],
    now: Time,
    opts: &TableOptions,
    header: bool,
    event: Option<&str>,
) -> String {
    let mut rows = Vec::new();
    if header {
        rows.push(headers(kind, opts));
    }
    for o in objs {
        let mut r = cells(kind, o, now, opts);
        if opts.watch_events {
            r.insert(0, event_cell(event.unwrap_or("ADDED")));
        }
        rows.push(r);
    }
    tw.format(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn kind(n: &str) -> &'static Kind {
        Kind::lookup(n).expect("a served kind")
    }

    #[test]
    fn deployment_table_and_wide() {
        let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {"b": "2", "app": "web"}},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}},
            "status": {"readyReplicas": 3, "updatedReplicas": 3, "availableReplicas": 3}});
        let now = Time::START.after(Duration::from_secs(12));
        let mut tw = TabWriter::new();
        let t =
            print_table(&mut tw, kind("deploy"), std::slice::from_ref(&d), now, &TableOptions::default(), true, None);
        assert_eq!(t, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    3/3     3            3           12s\n");
        let opts = TableOptions { wide: true, with_namespace: true, show_labels: true, ..Default::default() };
        let t = print_table(&mut TabWriter::new(), kind("deploy"), &[d], now, &opts, true, None);
        assert_eq!(t, "NAMESPACE   NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES       SELECTOR   LABELS\ndefault     web    3/3     3            3           12s   nginx        nginx:1.27   app=web    app=web,b=2\n");
    }

    #[test]
    fn pod_status_and_watch_events() {
        let p = json!({"metadata": {"name": "web-x", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Pending"}});
        let opts = TableOptions { watch_events: true, ..Default::default() };
        let t = print_table(
            &mut TabWriter::new(),
            kind("po"),
            std::slice::from_ref(&p),
            Time::START,
            &opts,
            true,
            Some("MODIFIED"),
        );
        assert_eq!(
            t,
            "EVENT      NAME    READY   STATUS    RESTARTS   AGE\nMODIFIED   web-x   0/1     Pending   0          0s\n"
        );
        let mut gone = p.clone();
        gone["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        assert_eq!(cells(kind("po"), &gone, Time::START, &TableOptions::default())[2], "Terminating");
        assert_eq!(name_of(kind("po"), &p), "pod/web-x");
    }

    #[test]
    fn selectors_format_like_apimachinery() {
        let sel = json!({"matchLabels": {"tier": "db"}, "matchExpressions": [{"key": "env", "operator": "In", "values": ["b", "a"]}]});
        assert_eq!(format_label_selector(Some(&sel)), "env in (a,b),tier=db");
        assert_eq!(format_label_selector(Some(&json!({}))), "<none>");
    }
}
