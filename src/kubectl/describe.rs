//! `kubectl describe` for the lab's kinds (kubectl pkg/describe/describe.go), ending with the
//! object's Events. Output goes through Go's tabwriter as kubectl configures it for describe
//! (`minwidth=0, tabwidth=8, padding=2, padchar=' '`), whose column blocks are runs of
//! consecutive lines that have the column.

use super::cluster::Cluster;
use super::console::{CmdError, Ctx, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::printers::{age, format_label_selector};
use super::resources::{self, Target};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;
use serde_json::Value;

/// `kubectl describe` flags.
pub const FLAGS: &[FlagSpec] = &[
    flag("selector", Some('l'), FlagKind::Str, "Selector (label query) to filter on."),
    flag(
        "all-namespaces",
        Some('A'),
        FlagKind::Bool,
        "If present, list the requested object(s) across all namespaces.",
    ),
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
        if n > 0 {
            w.push_str(&format!("{indent}\t"));
        }
        w.push_str(&format!("{k}{sep}{v}\n"));
    }
}

/// The `Pod Template:` section shared by Deployment, ReplicaSet and `rollout history`.
pub fn pod_template(tpl: &Value) -> String {
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
    go_tabwriter(&w, 0, 2)
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

/// `DescribeEvents`: the object's events, oldest first, or `Events: <none>`.
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
        return go_tabwriter("Events:\t<none>\n", 0, 2);
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
    go_tabwriter(&w, 0, 2)
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

fn describe_one(api: &dyn Cluster, kind: &Kind, obj: &Value, now: Time) -> String {
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
            let mut out = go_tabwriter(&w, 0, 2);
            out.push_str(&pod_template(obj.pointer("/spec/template").unwrap_or(&Value::Null)));
            let mut rest = String::new();
            conditions(&mut rest, obj, false);
            let (old, new) = deployment_replicasets(api, obj);
            rest.push_str(&format!(
                "OldReplicaSets:\t{}\n",
                if old.is_empty() { "<none>".to_string() } else { old.join(", ") }
            ));
            rest.push_str(&format!("NewReplicaSet:\t{}\n", new.unwrap_or_else(|| "<none>".into())));
            out.push_str(&go_tabwriter(&rest, 0, 2));
            out.push_str(&events(api, obj, now));
            return out;
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
            let mut out = go_tabwriter(&w, 0, 2);
            out.push_str(&pod_template(obj.pointer("/spec/template").unwrap_or(&Value::Null)));
            let mut rest = String::new();
            conditions(&mut rest, obj, false);
            out.push_str(&go_tabwriter(&rest, 0, 2));
            out.push_str(&events(api, obj, now));
            return out;
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
    let mut out = go_tabwriter(&w, 0, 2);
    out.push_str(&go_tabwriter(&tail, 0, 2));
    out.push_str(&events(api, obj, now));
    out
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
pub fn run(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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
            out.out(describe_one(api, kind, &o, now));
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
