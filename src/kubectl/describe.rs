//! `kubectl describe` for the lab's kinds (kubectl pkg/describe/describe.go), ending with the
//! object's Events. Output goes through Go's tabwriter as kubectl configures it for describe
//! (`minwidth=0, tabwidth=8, padding=2, padchar=' '`), whose column blocks are runs of
//! consecutive lines that have the column.

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed, ALL_NAMESPACES, SELECTOR};
use super::printers::{age, format_label_selector};
use super::resources::{self, Target};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;
use serde_json::Value;

/// `kubectl describe` flags.
pub const FLAGS: &[FlagSpec] = &[
    SELECTOR,
    ALL_NAMESPACES,
    flag(
        "show-events",
        None,
        FlagKind::Bool,
        "If true, display events related to the described object. Defaults to true.",
    ),
];

/// Go's `text/tabwriter` with padchar ' ' and no flags: cells are tab-terminated; a column's
/// width is the widest cell of its block (consecutive lines having that column) plus padding.
pub fn go_tabwriter(text: &str, minwidth: usize, padding: usize) -> String {
    let lines: Vec<Vec<&str>> = text.split_terminator('\n').map(|l| l.split('\t').collect()).collect();
    let mut out = String::new();
    let mut widths = Vec::new();
    format_block(&lines, &mut widths, 0, lines.len(), minwidth, padding, &mut out);
    out
}

fn format_block(
    lines: &[Vec<&str>],
    widths: &mut Vec<usize>,
    mut line0: usize,
    line1: usize,
    minwidth: usize,
    padding: usize,
    out: &mut String,
) {
    let column = widths.len();
    let mut this = line0;
    while this < line1 {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        write_lines(lines, widths, line0, this, out);
        line0 = this;
        let mut width = minwidth;
        while this < line1 && column + 1 < lines[this].len() {
            width = width.max(lines[this][column].chars().count() + padding);
            this += 1;
        }
        widths.push(width);
        format_block(lines, widths, line0, this, minwidth, padding, out);
        widths.pop();
        line0 = this;
    }
    write_lines(lines, widths, line0, line1, out);
}

fn write_lines(lines: &[Vec<&str>], widths: &[usize], from: usize, to: usize, out: &mut String) {
    for line in &lines[from..to] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if j + 1 < line.len() && j < widths.len() {
                out.extend(std::iter::repeat_n(' ', widths[j].saturating_sub(cell.chars().count())));
            }
        }
        out.push('\n');
    }
}

/// `time.RFC1123Z` in UTC: `Thu, 01 Jan 2026 00:00:00 +0000`.
pub fn rfc1123z(ts: &str) -> String {
    let Some(t) = Time::parse_rfc3339(ts) else { return ts.to_string() };
    let days = t.millis() / 86_400_000;
    let weekday = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"][(days % 7) as usize];
    let r = t.rfc3339();
    let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        [r[5..7].parse::<usize>().unwrap_or(1).clamp(1, 12) - 1];
    format!("{weekday}, {} {month} {} {} +0000", &r[8..10], &r[0..4], &r[11..19])
}

fn s<'a>(v: &'a Value, p: &str) -> &'a str {
    v.pointer(p).and_then(Value::as_str).unwrap_or("")
}

fn i(v: &Value, p: &str) -> i64 {
    v.pointer(p).and_then(Value::as_i64).unwrap_or(0)
}

fn or_none(x: &str) -> &str {
    if x.is_empty() {
        "<none>"
    } else {
        x
    }
}

/// `printLabelsMultiline` / `printAnnotationsMultiline` (the last-applied annotation is skipped).
fn multiline(w: &mut String, indent: &str, title: &str, map: Option<&serde_json::Map<String, Value>>, sep: &str) {
    let mut pairs: Vec<(String, String)> = map
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.as_str() != super::mutate::LAST_APPLIED)
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    crate::sort::sort(&mut pairs);
    w.push_str(&format!("{indent}{title}:\t"));
    if pairs.is_empty() {
        w.push_str("<none>\n");
        return;
    }
    for (n, (k, v)) in pairs.iter().enumerate() {
        // kubectl passes the indent as part of the title, so continuation lines start at the tab.
        if n > 0 {
            w.push('\t');
        }
        w.push_str(&format!("{k}{sep}{v}\n"));
    }
}

/// The `Pod Template:` section shared by Deployment, ReplicaSet and `rollout history`.
pub fn pod_template(tpl: &Value) -> String {
    go_tabwriter(&pod_template_raw(tpl), 0, 2)
}

/// [`pod_template`] before alignment, for describers that align a whole object at once, and
/// for `rollout history --revision`, which prints it with its tabs as they are.
pub fn pod_template_raw(tpl: &Value) -> String {
    let mut w = String::from("Pod Template:\n");
    multiline(&mut w, "  ", "Labels", tpl.pointer("/metadata/labels").and_then(Value::as_object), "=");
    if tpl.pointer("/metadata/annotations").and_then(Value::as_object).is_some_and(|a| !a.is_empty()) {
        multiline(&mut w, "  ", "Annotations", tpl.pointer("/metadata/annotations").and_then(Value::as_object), ": ");
    }
    w.push_str("  Containers:\n");
    for c in tpl.pointer("/spec/containers").and_then(Value::as_array).cloned().unwrap_or_default() {
        container(&mut w, &c, "   ", None);
    }
    w.push_str("  Volumes:\t<none>\n");
    w.push_str("  Node-Selectors:\t<none>\n");
    w.push_str("  Tolerations:\t<none>\n");
    w
}

fn container(w: &mut String, c: &Value, indent: &str, status: Option<&Value>) {
    w.push_str(&format!("{indent}{}:\n", s(c, "/name")));
    // Container fields are at LEVEL_2 (four spaces) in both the pod and the template form.
    let inner = "    ";
    if let Some(st) = status {
        w.push_str(&format!("{inner}Container ID:\t{}\n", s(st, "/containerID")));
    }
    w.push_str(&format!("{inner}Image:\t{}\n", s(c, "/image")));
    if let Some(st) = status {
        w.push_str(&format!("{inner}Image ID:\t{}\n", s(st, "/imageID")));
    }
    let port = c
        .pointer("/ports/0")
        .map(|p| {
            format!("{}/{}", i(p, "/containerPort"), p.pointer("/protocol").and_then(Value::as_str).unwrap_or("TCP"))
        })
        .unwrap_or_else(|| "<none>".into());
    w.push_str(&format!("{inner}Port:\t{port}\n"));
    w.push_str(&format!(
        "{inner}Host Port:\t{}\n",
        if port == "<none>" { "<none>".to_string() } else { "0/TCP".into() }
    ));
    if let Some(st) = status {
        let (state, since) = if let Some(r) = st.pointer("/state/running") {
            ("Running".to_string(), Some(("Started", s(r, "/startedAt").to_string())))
        } else if let Some(wt) = st.pointer("/state/waiting") {
            (format!("Waiting\n{inner}  Reason:\t{}", s(wt, "/reason")), None)
        } else if let Some(t) = st.pointer("/state/terminated") {
            (
                format!(
                    "Terminated\n{inner}  Reason:\t{}\n{inner}  Exit Code:\t{}",
                    s(t, "/reason"),
                    i(t, "/exitCode")
                ),
                None,
            )
        } else {
            ("Waiting".to_string(), None)
        };
        w.push_str(&format!("{inner}State:\t{state}\n"));
        if let Some((label, at)) = since {
            w.push_str(&format!("{inner}  {label}:\t{}\n", rfc1123z(&at)));
        }
        w.push_str(&format!("{inner}Ready:\t{}\n", st.get("ready").and_then(Value::as_bool).unwrap_or(false)));
        w.push_str(&format!("{inner}Restart Count:\t{}\n", i(st, "/restartCount")));
    }
    w.push_str(&format!("{inner}Environment:\t<none>\n"));
    // describeContainerVolumes: sorted by mount path, `PATH from NAME (ro|rw)`.
    let mut mounts = c.pointer("/volumeMounts").and_then(Value::as_array).cloned().unwrap_or_default();
    if mounts.is_empty() {
        w.push_str(&format!("{inner}Mounts:\t<none>\n"));
    } else {
        crate::sort::sort_by(&mut mounts, |a, b| s(a, "/mountPath").cmp(s(b, "/mountPath")));
        w.push_str(&format!("{inner}Mounts:\n"));
        for m in &mounts {
            let ro = if m.get("readOnly").and_then(Value::as_bool) == Some(true) { "ro" } else { "rw" };
            w.push_str(&format!("{inner}  {} from {} ({ro})\n", s(m, "/mountPath"), s(m, "/name")));
        }
    }
}

/// `describeVolumes` for the volume kinds pods get here (projected service-account volumes,
/// config maps, emptyDir).
fn volumes(w: &mut String, pod: &Value) {
    let vols = pod.pointer("/spec/volumes").and_then(Value::as_array).cloned().unwrap_or_default();
    if vols.is_empty() {
        w.push_str("Volumes:\t<none>\n");
        return;
    }
    w.push_str("Volumes:\n");
    for v in &vols {
        w.push_str(&format!("  {}:\n", s(v, "/name")));
        if let Some(p) = v.get("projected") {
            w.push_str("    Type:\tProjected (a volume that contains injected data from multiple sources)\n");
            for src in p.get("sources").and_then(Value::as_array).cloned().unwrap_or_default() {
                if let Some(t) = src.get("serviceAccountToken") {
                    w.push_str(&format!("    TokenExpirationSeconds:\t{}\n", i(t, "/expirationSeconds")));
                } else if let Some(cm) = src.get("configMap") {
                    let optional =
                        cm.get("optional").and_then(Value::as_bool).map_or("<nil>".to_string(), |b| b.to_string());
                    w.push_str(&format!(
                        "    ConfigMapName:\t{}\n    ConfigMapOptional:\t{optional}\n",
                        s(cm, "/name")
                    ));
                } else if src.get("downwardAPI").is_some() {
                    w.push_str("    DownwardAPI:\ttrue\n");
                }
            }
        } else if let Some(cm) = v.get("configMap") {
            let optional = cm.get("optional").and_then(Value::as_bool).map_or("<nil>".to_string(), |b| b.to_string());
            w.push_str(&format!(
                "    Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t{}\n    Optional:\t{optional}\n",
                s(cm, "/name")
            ));
        } else if v.get("emptyDir").is_some() {
            w.push_str("    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t\n    SizeLimit:\t<unset>\n");
        }
    }
}

/// `printPodTolerationsMultiline`.
fn tolerations(w: &mut String, pod: &Value) {
    let ts = pod.pointer("/spec/tolerations").and_then(Value::as_array).cloned().unwrap_or_default();
    w.push_str("Tolerations:\t");
    if ts.is_empty() {
        w.push_str("<none>\n");
        return;
    }
    for (n, t) in ts.iter().enumerate() {
        if n > 0 {
            w.push('\t');
        }
        let (key, value, effect) = (s(t, "/key"), s(t, "/value"), s(t, "/effect"));
        let mut line = key.to_string();
        if !value.is_empty() {
            line.push_str(&format!("={value}"));
        }
        if !effect.is_empty() {
            line.push_str(&format!(":{effect}"));
        }
        if s(t, "/operator") == "Exists" && value.is_empty() {
            line.push_str(if key.is_empty() && effect.is_empty() { "op=Exists" } else { " op=Exists" });
        }
        if let Some(secs) = t.get("tolerationSeconds").and_then(Value::as_i64) {
            line.push_str(&format!(" for {secs}s"));
        }
        w.push_str(&line);
        w.push('\n');
    }
}

/// `DescribeEvents`: the object's events, oldest first, or `Events: <none>`; unaligned, as it
/// goes through the describer's one tabwriter (so `Events:\t<none>` lines up with the tab
/// lines just above it, as on a real cluster).
fn events(api: &dyn Cluster, obj: &Value, now: Time) -> String {
    let Some(ev_kind) = Kind::lookup("events") else { return String::new() };
    let ns = obj.namespace().unwrap_or("default");
    let mut evs: Vec<Value> = api
        .list(ev_kind, Some(ns), &Selector::everything())
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| {
            s(e, "/involvedObject/uid") == obj.uid()
                || (s(e, "/involvedObject/uid").is_empty()
                    && s(e, "/involvedObject/name") == obj.name()
                    && s(e, "/involvedObject/kind") == obj.kind())
        })
        .collect();
    if evs.is_empty() {
        return "Events:\t<none>\n".into();
    }
    let first_seen = |e: &Value| -> String {
        let t = if s(e, "/eventTime").is_empty() { s(e, "/firstTimestamp") } else { s(e, "/eventTime") };
        t.to_string()
    };
    crate::sort::sort_by_key(&mut evs, |e| {
        let last = if s(e, "/lastTimestamp").is_empty() { first_seen(e) } else { s(e, "/lastTimestamp").to_string() };
        Time::parse_rfc3339(&last).unwrap_or_default()
    });
    let mut w = String::from("Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n");
    for e in &evs {
        let first = age(Some(first_seen(e).as_str()).filter(|t| !t.is_empty()), now);
        let count = i(e, "/count");
        let interval = if let Some(series) = e.get("series").filter(|x| x.is_object()) {
            format!("{} (x{} over {first})", age(Some(s(series, "/lastObservedTime")), now), i(series, "/count"))
        } else if count > 1 {
            format!("{} (x{count} over {first})", age(Some(s(e, "/lastTimestamp")), now))
        } else {
            first
        };
        let mut source = s(e, "/source/component").to_string();
        if source.is_empty() {
            source = s(e, "/reportingComponent").to_string();
        }
        w.push_str(&format!(
            "  {}\t{}\t{interval}\t{source}\t{}\n",
            s(e, "/type"),
            s(e, "/reason"),
            s(e, "/message").trim()
        ));
    }
    w
}

fn header(w: &mut String, obj: &Value, namespaced: bool) {
    w.push_str(&format!("Name:\t{}\n", obj.name()));
    if namespaced {
        w.push_str(&format!("Namespace:\t{}\n", obj.namespace().unwrap_or("")));
    }
}

fn conditions(w: &mut String, obj: &Value, with_times: bool) {
    let conds = obj.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    if conds.is_empty() {
        return;
    }
    w.push_str("Conditions:\n");
    if with_times {
        w.push_str("  Type\tStatus\tLastTransitionTime\tReason\tMessage\n  ----\t------\t------------------\t------\t-------\n");
        for c in &conds {
            w.push_str(&format!(
                "  {}\t{}\t{}\t{}\t{}\n",
                s(c, "/type"),
                s(c, "/status"),
                rfc1123z(s(c, "/lastTransitionTime")),
                s(c, "/reason"),
                s(c, "/message")
            ));
        }
    } else {
        w.push_str("  Type\tStatus\tReason\n  ----\t------\t------\n");
        for c in &conds {
            w.push_str(&format!("  {}\t{}\t{}\n", s(c, "/type"), s(c, "/status"), s(c, "/reason")));
        }
    }
}

fn describe_one(api: &dyn Cluster, kind: &Kind, obj: &Value, now: Time, show_events: bool) -> String {
    let mut w = String::new();
    header(&mut w, obj, kind.namespaced);
    let labels = obj.labels();
    let annotations = obj.meta().and_then(|m| m.get("annotations")).and_then(Value::as_object);
    let created = rfc1123z(obj.meta().and_then(|m| m.get("creationTimestamp")).and_then(Value::as_str).unwrap_or(""));
    let mut tail = String::new();
    match kind.kind {
        "Deployment" => {
            w.push_str(&format!("CreationTimestamp:\t{created}\n"));
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            w.push_str(&format!("Selector:\t{}\n", format_label_selector(obj.pointer("/spec/selector"))));
            let (want, upd, tot, avail, unavail) = (
                i(obj, "/spec/replicas"),
                i(obj, "/status/updatedReplicas"),
                i(obj, "/status/replicas"),
                i(obj, "/status/availableReplicas"),
                i(obj, "/status/unavailableReplicas"),
            );
            w.push_str(&format!(
                "Replicas:\t{want} desired | {upd} updated | {tot} total | {avail} available | {unavail} unavailable\n"
            ));
            let strategy = obj.pointer("/spec/strategy/type").and_then(Value::as_str).unwrap_or("RollingUpdate");
            w.push_str(&format!("StrategyType:\t{strategy}\n"));
            w.push_str(&format!("MinReadySeconds:\t{}\n", i(obj, "/spec/minReadySeconds")));
            if strategy == "RollingUpdate" {
                let ru = |k: &str| -> String {
                    match obj.pointer(&format!("/spec/strategy/rollingUpdate/{k}")) {
                        Some(Value::String(x)) => x.clone(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => "25%".into(),
                    }
                };
                w.push_str(&format!(
                    "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
                    ru("maxUnavailable"),
                    ru("maxSurge")
                ));
            }
            w.push_str(&pod_template_raw(obj.pointer("/spec/template").unwrap_or(&Value::Null)));
            conditions(&mut w, obj, false);
            let (old, new) = deployment_replicasets(api, obj);
            w.push_str(&format!(
                "OldReplicaSets:\t{}\n",
                if old.is_empty() { "<none>".to_string() } else { old.join(", ") }
            ));
            w.push_str(&format!("NewReplicaSet:\t{}\n", new.unwrap_or_else(|| "<none>".into())));
        }
        "ReplicaSet" => {
            w.push_str(&format!("Selector:\t{}\n", format_label_selector(obj.pointer("/spec/selector"))));
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            if let Some(r) = obj.controller_ref() {
                w.push_str(&format!("Controlled By:\t{}/{}\n", r.kind, r.name));
            }
            w.push_str(&format!(
                "Replicas:\t{} current / {} desired\n",
                i(obj, "/status/replicas"),
                i(obj, "/spec/replicas")
            ));
            w.push_str("Pods Status:\t");
            let (running, waiting, succeeded, failed) = pod_phases(api, obj);
            w.push_str(&format!("{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"));
            w.push_str(&pod_template_raw(obj.pointer("/spec/template").unwrap_or(&Value::Null)));
            conditions(&mut w, obj, false);
        }
        "Pod" => {
            w.push_str(&format!("Priority:\t{}\n", i(obj, "/spec/priority")));
            w.push_str(&format!("Service Account:\t{}\n", or_none(s(obj, "/spec/serviceAccountName"))));
            let node = s(obj, "/spec/nodeName");
            w.push_str(&format!(
                "Node:\t{}\n",
                if node.is_empty() { "<none>".into() } else { format!("{node}/{}", s(obj, "/status/hostIP")) }
            ));
            let start = s(obj, "/status/startTime");
            if !start.is_empty() {
                w.push_str(&format!("Start Time:\t{}\n", rfc1123z(start)));
            }
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            let status = if obj.is_deleting() {
                format!("Terminating (lasts {})", age(obj.deletion_timestamp(), now))
            } else {
                s(obj, "/status/phase").to_string()
            };
            w.push_str(&format!("Status:\t{status}\n"));
            if obj.is_deleting() {
                w.push_str(&format!(
                    "Termination Grace Period:\t{}s\n",
                    obj.meta().and_then(|m| m.get("deletionGracePeriodSeconds")).and_then(Value::as_i64).unwrap_or(30)
                ));
            }
            w.push_str(&format!("IP:\t{}\n", s(obj, "/status/podIP")));
            match obj.pointer("/status/podIPs").and_then(Value::as_array).filter(|a| !a.is_empty()) {
                None => w.push_str("IPs:\t<none>\n"),
                Some(ips) => {
                    w.push_str("IPs:\n");
                    for ip in ips {
                        w.push_str(&format!("  IP:\t{}\n", s(ip, "/ip")));
                    }
                }
            }
            if let Some(r) = obj.controller_ref() {
                w.push_str(&format!("Controlled By:\t{}/{}\n", r.kind, r.name));
            }
            w.push_str("Containers:\n");
            let statuses =
                obj.pointer("/status/containerStatuses").and_then(Value::as_array).cloned().unwrap_or_default();
            for c in obj.pointer("/spec/containers").and_then(Value::as_array).cloned().unwrap_or_default() {
                let st = statuses.iter().find(|x| s(x, "/name") == s(&c, "/name"));
                container(&mut w, &c, "  ", st.or(Some(&Value::Null)));
            }
            // Pod conditions: `Type\tStatus` with kubectl's trailing spaces.
            let conds = obj.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
            if !conds.is_empty() {
                tail.push_str("Conditions:\n  Type\tStatus\n");
                for c in &conds {
                    tail.push_str(&format!("  {} \t{} \n", s(c, "/type"), s(c, "/status")));
                }
            }
            volumes(&mut tail, obj);
            tail.push_str(&format!("QoS Class:\t{}\n", or_none(s(obj, "/status/qosClass"))));
            multiline(
                &mut tail,
                "",
                "Node-Selectors",
                obj.pointer("/spec/nodeSelector").and_then(Value::as_object),
                "=",
            );
            tolerations(&mut tail, obj);
        }
        "ConfigMap" => {
            // ConfigMapDescriber: each key, a `----` rule, the value and a blank line; binary
            // keys with their decoded size.
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            w.push_str("\nData\n====\n");
            let sorted = |path: &str| -> Vec<(String, String)> {
                let mut v: Vec<(String, String)> = obj
                    .pointer(path)
                    .and_then(Value::as_object)
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string())).collect())
                    .unwrap_or_default();
                crate::sort::sort(&mut v);
                v
            };
            for (k, v) in sorted("/data") {
                w.push_str(&format!("{k}:\n----\n{v}\n\n"));
            }
            w.push_str("\nBinaryData\n====\n");
            for (k, v) in sorted("/binaryData") {
                let padding = v.bytes().rev().take_while(|b| *b == b'=').count();
                w.push_str(&format!("{k}: {} bytes\n", (v.len() / 4 * 3).saturating_sub(padding)));
            }
            w.push('\n');
        }
        "Node" => {
            describe_node(api, &mut w, obj, now);
            if show_events {
                w.push_str(&events(api, obj, now));
            }
            return go_tabwriter(&w, 0, 2);
        }
        "Namespace" => {
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            w.push_str(&format!("Status:\t{}\n", s(obj, "/status/phase")));
            let conds = obj.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
            if !conds.is_empty() {
                w.push_str("Conditions:\n  Type\tStatus\tLastTransitionTime\tReason\tMessage\n  ----\t------\t------------------\t------\t-------\n");
                for c in &conds {
                    w.push_str(&format!(
                        "  {}\t{}\t{}\t{}\t{}\n",
                        s(c, "/type"),
                        s(c, "/status"),
                        rfc1123z(s(c, "/lastTransitionTime")),
                        s(c, "/reason"),
                        s(c, "/message")
                    ));
                }
            }
            w.push('\n');
            w.push_str("No resource quota.\n\nNo LimitRange resource.\n");
            return go_tabwriter(&w, 0, 2);
        }
        "Lease" => {
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            w.push_str("API Version:\tcoordination.k8s.io/v1\nKind:\tLease\n");
            generic_fields(&mut w, obj);
        }
        _ => {
            multiline(&mut w, "", "Labels", labels, "=");
            multiline(&mut w, "", "Annotations", annotations, ": ");
            w.push_str(&format!("API Version:\t{}\nKind:\t{}\n", obj.api_version(), obj.kind()));
            generic_fields(&mut w, obj);
        }
    }
    // kubectl's describers write everything through one tabwriter (`tabbedString`).
    w.push_str(&tail);
    // --show-events=false: no Events section at all (the describers get no event list).
    if show_events {
        w.push_str(&events(api, obj, now));
    }
    go_tabwriter(&w, 0, 2)
}

/// A CPU quantity in millicores (`"4"`, `"250m"`, `"0.5"`).
fn cpu_millis(q: &str) -> i64 {
    match q.strip_suffix('m') {
        Some(m) => m.parse().unwrap_or(0),
        None => q.parse::<f64>().map(|c| (c * 1000.0).round() as i64).unwrap_or(0),
    }
}

/// A memory quantity in bytes (`"64Mi"`, `"8021960Ki"`, `"128M"`, `"1000"`).
fn bytes(q: &str) -> i64 {
    const SUFFIXES: &[(&str, i64)] = &[
        ("Ki", 1 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ];
    for (suffix, factor) in SUFFIXES {
        if let Some(n) = q.strip_suffix(suffix) {
            return n.parse::<i64>().unwrap_or(0).saturating_mul(*factor);
        }
    }
    q.parse().unwrap_or(0)
}

/// `Quantity.String()` of a CPU amount: whole cores, or millicores.
fn cpu_text(millis: i64) -> String {
    if millis % 1000 == 0 {
        (millis / 1000).to_string()
    } else {
        format!("{millis}m")
    }
}

/// `Quantity.String()` of a memory amount: the largest binary suffix that divides it when the
/// amounts were written in binary units, else the largest decimal one.
fn bytes_text(n: i64, binary: bool) -> String {
    let units: &[(&str, i64)] = if binary {
        &[("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10)]
    } else {
        &[("T", 1_000_000_000_000), ("G", 1_000_000_000), ("M", 1_000_000), ("k", 1_000)]
    };
    if n == 0 {
        return "0".into();
    }
    for (suffix, factor) in units {
        if n % factor == 0 {
            return format!("{}{suffix}", n / factor);
        }
    }
    n.to_string()
}

/// `resourcehelper.PodRequestsAndLimits` for CPU and memory: the containers' sum, or the
/// largest init container's when that is larger. Returns (cpu req, cpu limit, mem req, mem
/// limit) in millicores and bytes, and whether memory was written in binary units.
fn pod_requests_and_limits(pod: &Value) -> ([i64; 4], bool) {
    let mut binary = false;
    let mut amounts = |c: &Value| -> [i64; 4] {
        let q = |path: &str| s(c, path).to_string();
        for path in ["/resources/requests/memory", "/resources/limits/memory"] {
            binary |= q(path).ends_with('i');
        }
        [
            cpu_millis(&q("/resources/requests/cpu")),
            cpu_millis(&q("/resources/limits/cpu")),
            bytes(&q("/resources/requests/memory")),
            bytes(&q("/resources/limits/memory")),
        ]
    };
    let list = |path: &str| pod.pointer(path).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut total = [0i64; 4];
    for c in list("/spec/containers") {
        let a = amounts(&c);
        for k in 0..4 {
            total[k] += a[k];
        }
    }
    for c in list("/spec/initContainers") {
        let a = amounts(&c);
        for k in 0..4 {
            total[k] = total[k].max(a[k]);
        }
    }
    (total, binary)
}

/// `int64(float64(part) / float64(whole) * 100)`, 0 when the whole is 0.
fn percent(part: i64, whole: i64) -> i64 {
    if whole == 0 {
        0
    } else {
        (part as f64 / whole as f64 * 100.0) as i64
    }
}

/// kubectl's `NodeDescriber` (`describeNode`, `describeNodeLease`, `describeNodeResource`):
/// roles from `node-role.kubernetes.io/*` labels, the node's Lease in `kube-node-lease`, the
/// conditions table (each cell but the last followed by a space, as kubectl writes it),
/// addresses, capacity and allocatable sorted by name, System Info, then the node's pods that
/// have not terminated (every namespace) with their requests and limits as a share of
/// allocatable, the totals, and the events. Quantities print as `Quantity.String()` would for
/// the whole-unit amounts the lab uses.
fn describe_node(api: &dyn Cluster, w: &mut String, node: &Value, now: Time) {
    let name = node.name();
    let labels = node.labels();
    let mut roles: Vec<String> = labels
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| match k.strip_prefix("node-role.kubernetes.io/") {
                    Some(role) if !role.is_empty() => Some(role.to_string()),
                    _ if k == "kubernetes.io/role" && v.as_str().is_some_and(|v| !v.is_empty()) => {
                        v.as_str().map(String::from)
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    crate::sort::sort(&mut roles);
    roles.dedup();
    w.push_str(&format!("Roles:\t{}\n", if roles.is_empty() { "<none>".to_string() } else { roles.join(",") }));
    multiline(w, "", "Labels", labels, "=");
    multiline(w, "", "Annotations", node.meta().and_then(|m| m.get("annotations")).and_then(Value::as_object), ": ");
    w.push_str(&format!("CreationTimestamp:\t{}\n", rfc1123z(s(node, "/metadata/creationTimestamp"))));
    let mut taints: Vec<String> = node
        .pointer("/spec/taints")
        .and_then(Value::as_array)
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    let (key, value, effect) = (s(t, "/key"), s(t, "/value"), s(t, "/effect"));
                    let sort_key = format!("{effect},{key}");
                    let text =
                        if value.is_empty() { format!("{key}:{effect}") } else { format!("{key}={value}:{effect}") };
                    (sort_key, text)
                })
                .collect::<Vec<_>>()
        })
        .map(|mut v| {
            crate::sort::sort(&mut v);
            v.into_iter().map(|(_, t)| t).collect()
        })
        .unwrap_or_default();
    if taints.is_empty() {
        taints.push("<none>".into());
    }
    w.push_str(&format!("Taints:\t{}\n", taints.join("\n\t")));
    let unschedulable = node.pointer("/spec/unschedulable").and_then(Value::as_bool).unwrap_or(false);
    w.push_str(&format!("Unschedulable:\t{unschedulable}\n"));
    let lease = Kind::lookup("leases").map(|k| api.get(k, Some("kube-node-lease"), name).map_err(|e| e.message));
    match lease {
        Some(Ok(lease)) => {
            let or_unset = |path: &str, time: bool| match s(&lease, path) {
                "" => "<unset>".to_string(),
                v if time => rfc1123z(v),
                v => v.to_string(),
            };
            w.push_str("Lease:\n");
            w.push_str(&format!("  HolderIdentity:\t{}\n", or_unset("/spec/holderIdentity", false)));
            w.push_str(&format!("  AcquireTime:\t{}\n", or_unset("/spec/acquireTime", true)));
            w.push_str(&format!("  RenewTime:\t{}\n", or_unset("/spec/renewTime", true)));
        }
        Some(Err(message)) => w.push_str(&format!("Lease:\tFailed to get lease: {message}\n")),
        None => {}
    }
    let conds = node.pointer("/status/conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    if !conds.is_empty() {
        w.push_str("Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
        w.push_str("  ----\t------\t-----------------\t------------------\t------\t-------\n");
        for c in &conds {
            w.push_str(&format!(
                "  {} \t{} \t{} \t{} \t{} \t{}\n",
                s(c, "/type"),
                s(c, "/status"),
                rfc1123z(s(c, "/lastHeartbeatTime")),
                rfc1123z(s(c, "/lastTransitionTime")),
                s(c, "/reason"),
                s(c, "/message")
            ));
        }
    }
    w.push_str("Addresses:\n");
    for a in node.pointer("/status/addresses").and_then(Value::as_array).cloned().unwrap_or_default() {
        w.push_str(&format!("  {}:\t{}\n", s(&a, "/type"), s(&a, "/address")));
    }
    let resource_list = |w: &mut String, title: &str, path: &str| {
        let Some(list) = node.pointer(path).and_then(Value::as_object).filter(|m| !m.is_empty()) else { return };
        w.push_str(&format!("{title}:\n"));
        let mut names: Vec<&String> = list.keys().collect();
        crate::sort::sort(&mut names);
        for n in names {
            w.push_str(&format!("  {n}:\t{}\n", super::gojson::scalar_text(&list[n.as_str()])));
        }
    };
    resource_list(w, "Capacity", "/status/capacity");
    resource_list(w, "Allocatable", "/status/allocatable");
    w.push_str("System Info:\n");
    for (label, field) in [
        ("Machine ID", "machineID"),
        ("System UUID", "systemUUID"),
        ("Boot ID", "bootID"),
        ("Kernel Version", "kernelVersion"),
        ("OS Image", "osImage"),
        ("Operating System", "operatingSystem"),
        ("Architecture", "architecture"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
        ("Kube-Proxy Version", "kubeProxyVersion"),
    ] {
        w.push_str(&format!("  {label}:\t{}\n", s(node, &format!("/status/nodeInfo/{field}"))));
    }
    if !s(node, "/spec/podCIDR").is_empty() {
        w.push_str(&format!("PodCIDR:\t{}\n", s(node, "/spec/podCIDR")));
    }
    if let Some(cidrs) = node.pointer("/spec/podCIDRs").and_then(Value::as_array).filter(|a| !a.is_empty()) {
        let cidrs: Vec<&str> = cidrs.iter().filter_map(Value::as_str).collect();
        w.push_str(&format!("PodCIDRs:\t{}\n", cidrs.join(",")));
    }
    if !s(node, "/spec/providerID").is_empty() {
        w.push_str(&format!("ProviderID:\t{}\n", s(node, "/spec/providerID")));
    }
    // describeNodeResource: pods bound here and not Succeeded or Failed, in every namespace.
    let pods: Vec<Value> = Kind::lookup("pods")
        .and_then(|k| api.list(k, None, &Selector::everything()).ok())
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| s(p, "/spec/nodeName") == name && !matches!(s(p, "/status/phase"), "Succeeded" | "Failed"))
        .collect();
    let alloc = if node.pointer("/status/allocatable").and_then(Value::as_object).is_some_and(|m| !m.is_empty()) {
        "/status/allocatable"
    } else {
        "/status/capacity"
    };
    let alloc_cpu =
        cpu_millis(&super::gojson::scalar_text(node.pointer(&format!("{alloc}/cpu")).unwrap_or(&Value::Null)));
    let alloc_mem =
        bytes(&super::gojson::scalar_text(node.pointer(&format!("{alloc}/memory")).unwrap_or(&Value::Null)));
    w.push_str(&format!("Non-terminated Pods:\t({} in total)\n", pods.len()));
    w.push_str("  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
    w.push_str("  ---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
    let mut totals = [0i64; 4];
    let mut binary = false;
    for p in &pods {
        let ([cr, cl, mr, ml], bin) = pod_requests_and_limits(p);
        binary |= bin;
        for (t, v) in totals.iter_mut().zip([cr, cl, mr, ml]) {
            *t += v;
        }
        w.push_str(&format!(
            "  {}\t{}\t\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{}\n",
            p.namespace().unwrap_or(""),
            p.name(),
            cpu_text(cr),
            percent(cr, alloc_cpu),
            cpu_text(cl),
            percent(cl, alloc_cpu),
            bytes_text(mr, bin),
            percent(mr, alloc_mem),
            bytes_text(ml, bin),
            percent(ml, alloc_mem),
            age(p.meta().and_then(|m| m.get("creationTimestamp")).and_then(Value::as_str), now)
        ));
    }
    w.push_str("Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
    w.push_str("  Resource\tRequests\tLimits\n  --------\t--------\t------\n");
    let [cr, cl, mr, ml] = totals;
    w.push_str(&format!(
        "  cpu\t{} ({}%)\t{} ({}%)\n",
        cpu_text(cr),
        percent(cr, alloc_cpu),
        cpu_text(cl),
        percent(cl, alloc_cpu)
    ));
    w.push_str(&format!(
        "  memory\t{} ({}%)\t{} ({}%)\n",
        bytes_text(mr, binary),
        percent(mr, alloc_mem),
        bytes_text(ml, binary),
        percent(ml, alloc_mem)
    ));
    w.push_str("  ephemeral-storage\t0 (0%)\t0 (0%)\n");
}

/// The generic describer (used for custom resources and Leases): metadata, then every other
/// top-level field, nested with two-space indents and capitalised keys.
fn generic_fields(w: &mut String, obj: &Value) {
    let meta = obj.meta().cloned().unwrap_or_default();
    w.push_str("Metadata:\n");
    let mut keys: Vec<&String> =
        meta.keys().filter(|k| !matches!(k.as_str(), "name" | "namespace" | "labels" | "annotations")).collect();
    crate::sort::sort(&mut keys);
    for k in keys {
        field(w, 1, k, &meta[k.as_str()]);
    }
    if let Some(m) = obj.as_object() {
        let mut keys: Vec<&String> =
            m.keys().filter(|k| !matches!(k.as_str(), "apiVersion" | "kind" | "metadata")).collect();
        crate::sort::sort(&mut keys);
        for k in keys {
            field(w, 0, k, &m[k.as_str()]);
        }
    }
}

/// `smartLabelFor`: `creationTimestamp` → `Creation Timestamp`, `uid` → `UID`; names with
/// characters other than letters and `-` are kept as they are.
pub fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_alphabetic() && c != '-') {
        return field.to_string();
    }
    // camelcase.Split: a new part starts at each upper-case letter after a lower-case one, and
    // before the last capital of an upper-case run followed by a lower-case letter.
    let chars: Vec<char> = field.chars().collect();
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (idx, &c) in chars.iter().enumerate() {
        let prev = idx.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(idx + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| p.is_lowercase() || (p.is_uppercase() && next.is_some_and(char::is_lowercase)));
        if boundary && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
        .into_iter()
        .map(|p| {
            let upper = p.to_uppercase();
            if ["API", "URL", "UID", "OSB", "GUID"].contains(&upper.as_str()) {
                upper
            } else {
                let mut cs = p.chars();
                cs.next().map(|f| f.to_uppercase().chain(cs).collect()).unwrap_or_default()
            }
        })
        .collect::<Vec<String>>()
        .join(" ")
}

fn field(w: &mut String, level: usize, key: &str, v: &Value) {
    let indent = "  ".repeat(level);
    let title = smart_label(key);
    match v {
        Value::Object(m) => {
            w.push_str(&format!("{indent}{title}:\n"));
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            for k in keys {
                field(w, level + 1, k, &m[k.as_str()]);
            }
        }
        Value::Array(a) => {
            w.push_str(&format!("{indent}{title}:\n"));
            for item in a {
                match item {
                    Value::Object(m) => {
                        let mut keys: Vec<&String> = m.keys().collect();
                        crate::sort::sort(&mut keys);
                        for k in keys {
                            field(w, level + 1, k, &m[k.as_str()]);
                        }
                    }
                    other => w.push_str(&format!("{indent}  {}\n", super::gojson::scalar_text(other))),
                }
            }
        }
        other => w.push_str(&format!("{indent}{title}:\t{}\n", super::gojson::scalar_text(other))),
    }
}

fn deployment_replicasets(api: &dyn Cluster, d: &Value) -> (Vec<String>, Option<String>) {
    let Some(rs_kind) = Kind::lookup("replicasets") else { return (Vec::new(), None) };
    let ns = d.namespace().unwrap_or("default");
    let rss: Vec<Value> = api
        .list(rs_kind, Some(ns), &Selector::everything())
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|rs| rs.controller_ref().is_some_and(|r| r.uid == d.uid()))
        .collect();
    let describe = |rs: &Value| {
        format!("{} ({}/{} replicas created)", rs.name(), i(rs, "/status/replicas"), i(rs, "/spec/replicas"))
    };
    let mut tpl = d.pointer("/spec/template").cloned().unwrap_or(Value::Null);
    if let Some(l) = tpl.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        l.remove("pod-template-hash");
    }
    let mut new = None;
    let mut old = Vec::new();
    for rs in &rss {
        let mut rt = rs.pointer("/spec/template").cloned().unwrap_or(Value::Null);
        if let Some(l) = rt.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
            l.remove("pod-template-hash");
        }
        if rt == tpl && new.is_none() {
            new = Some(describe(rs));
        } else if i(rs, "/spec/replicas") > 0 || i(rs, "/status/replicas") > 0 {
            old.push(describe(rs));
        }
    }
    (old, new)
}

fn pod_phases(api: &dyn Cluster, rs: &Value) -> (usize, usize, usize, usize) {
    let Some(pod_kind) = Kind::lookup("pods") else { return (0, 0, 0, 0) };
    let pods = api
        .list(pod_kind, rs.namespace(), &Selector::everything())
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.controller_ref().is_some_and(|r| r.uid == rs.uid()));
    let mut counts = (0, 0, 0, 0);
    for p in pods {
        match s(&p, "/status/phase") {
            "Running" => counts.0 += 1,
            "Succeeded" => counts.2 += 1,
            "Failed" => counts.3 += 1,
            _ => counts.1 += 1,
        }
    }
    counts
}

/// `kubectl describe TYPE [NAME...]`.
pub fn run(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let targets = match resources::resolve(&p.args, false) {
        Ok(t) if !t.is_empty() => t,
        Ok(_) => {
            out.err("You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n");
            return out
                .fail(CmdError::Usage { cmd: "describe".into(), msg: "Required resource not specified.".into() });
        }
        Err(e) => return out.fail(e),
    };
    let now = api.now();
    let show_events = p.str("show-events") != Some("false");
    let all_ns = p.bool("all-namespaces");
    let selector = match p.str("selector").map(Selector::parse).transpose() {
        Ok(s) => s.unwrap_or_else(Selector::everything),
        Err(e) => return out.fail(CmdError::Plain(e)),
    };
    let mut first = true;
    let mut any = false;
    for t in targets {
        let (kind, objs) = match &t {
            Target::Named(k, name) => {
                let ns = if k.namespaced { Some(ctx.ns) } else { None };
                match api.get(k, ns, name) {
                    Ok(o) => (*k, vec![o]),
                    Err(e) => {
                        out.fail(e.into());
                        continue;
                    }
                }
            }
            Target::All(k) => {
                let ns = if k.namespaced && !all_ns { Some(ctx.ns) } else { None };
                match api.list(k, ns, &selector) {
                    Ok(l) => (*k, l.items),
                    Err(e) => {
                        out.fail(e.into());
                        continue;
                    }
                }
            }
        };
        for o in objs {
            if !first {
                out.out("\n\n");
            }
            first = false;
            any = true;
            out.out(describe_one(api, kind, &o, now, show_events));
        }
    }
    if !any && out.exit_code == 0 {
        if all_ns {
            out.err("No resources found\n");
        } else {
            out.err(format!("No resources found in {} namespace.\n", ctx.ns));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabwriter_blocks() {
        let t =
            go_tabwriter("Name:\tweb\nNamespace:\tdefault\nPod Template:\n  Labels:\tapp=web\n  Containers:\n", 0, 2);
        assert_eq!(t, "Name:       web\nNamespace:  default\nPod Template:\n  Labels:  app=web\n  Containers:\n");
    }

    #[test]
    fn smart_labels() {
        assert_eq!(smart_label("creationTimestamp"), "Creation Timestamp");
        assert_eq!(smart_label("uid"), "UID");
        assert_eq!(smart_label("apiVersion"), "API Version");
        assert_eq!(smart_label("leaseDurationSeconds"), "Lease Duration Seconds");
        assert_eq!(smart_label("podIPs"), "Pod I Ps");
        assert_eq!(smart_label("x.y"), "x.y");
    }

    #[test]
    fn rfc1123z_weekdays() {
        assert_eq!(rfc1123z("2026-01-01T00:00:00Z"), "Thu, 01 Jan 2026 00:00:00 +0000");
        assert_eq!(rfc1123z("2026-03-15T12:34:56Z"), "Sun, 15 Mar 2026 12:34:56 +0000");
    }
}
