//! Per-kind strategies: what create and update do to an object before it is stored
//! (`PrepareForCreate`, `PrepareForUpdate`, the status and finalize strategies), the
//! `metadata.generation` rules, and each kind's own validation
//! (k/k `pkg/registry/*/strategy.go`, `PrepareForCreate`, `PrepareForUpdate`, `Validate`).

use serde_json::{Map, Value};

use super::validation::{go_quote, validate_labels, FieldError};
use crate::engine::frozen::Frozen;
use crate::engine::kinds::{Generation, Kind};
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;

/// Which endpoint an update came through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateMode {
    /// PUT/PATCH of the main resource: status is kept from the stored object.
    Main,
    /// PUT/PATCH of `/status`: spec (and for some kinds more) is kept from the stored object.
    Status,
    /// PUT `namespaces/x/finalize`: only `spec.finalizers` may change.
    Finalize,
}

fn take(obj: &Value, key: &str) -> Option<Value> {
    obj.get(key).cloned()
}

/// `set(new, key, old[key])`, without copying when `new` already holds exactly the stored value
/// (a status write sends back the spec it read: copying it over itself was most of the
/// strategy's cost). The same result either way ([`Frozen::same_as`]).
fn keep_old(new: &mut Value, old: &Frozen, key: &str) {
    if let (Some(o), Some(n)) = (old.get(key), new.get(key)) {
        if o.same_as(n) {
            return;
        }
    }
    set(new, key, old.get(key).map(Frozen::to_value));
}

fn set(obj: &mut Value, key: &str, v: Option<Value>) {
    if let Some(m) = obj.as_object_mut() {
        match v {
            Some(v) => {
                m.insert(key.to_string(), v);
            }
            None => {
                m.shift_remove(key);
            }
        }
    }
}

/// `PrepareForCreate`: status reset, generation 1, namespace phase and finalizer.
pub fn prepare_for_create(kind: &Kind, obj: &mut Value) {
    if kind.has_generation() {
        obj.meta_mut().insert("generation".into(), Value::from(1));
    } else {
        obj.meta_mut().shift_remove("generation");
    }
    match kind.kind {
        "Deployment" | "ReplicaSet" => set(obj, "status", Some(Value::Object(Map::new()))),
        "Bucket" => set(obj, "status", None),
        "Pod" => {
            add_service_account_volume(obj);
            let qos = qos_class(obj);
            set(obj, "status", Some(serde_json::json!({"phase": "Pending", "qosClass": qos})));
        }
        "Namespace" => {
            set_namespace_name_label(obj);
            set(obj, "status", Some(serde_json::json!({"phase": "Active"})));
            let spec = obj.as_object_mut().map(|m| m.entry("spec").or_insert_with(|| Value::Object(Map::new())));
            if let Some(Value::Object(spec)) = spec {
                let f = spec.entry("finalizers").or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = f {
                    if !list.iter().any(|v| v.as_str() == Some("kubernetes")) {
                        list.push(Value::from("kubernetes"));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The namespace strategy always sets `kubernetes.io/metadata.name: <name>` (k/k
/// `pkg/registry/core/namespace/strategy.go`, GA since 1.22).
fn set_namespace_name_label(obj: &mut Value) {
    let name = obj.name().to_string();
    if name.is_empty() {
        return;
    }
    let meta = obj.meta_mut();
    let labels = meta.entry("labels").or_insert_with(|| Value::Object(Map::new()));
    if !labels.is_object() {
        *labels = Value::Object(Map::new());
    }
    if let Value::Object(l) = labels {
        l.insert("kubernetes.io/metadata.name".into(), Value::from(name));
    }
}

/// The ServiceAccount admission plugin's projected token volume, `kube-api-access-<5 chars>`,
/// mounted read-only at `/var/run/secrets/kubernetes.io/serviceaccount` in every container
/// (k/k `plugin/pkg/admission/serviceaccount/admission.go`). The suffix is drawn from
/// Kubernetes' alphabet like the real one, but derived from the pod's uid rather than from the
/// server's random source, so that adding it changed no other generated name or uid.
fn add_service_account_volume(pod: &mut Value) {
    if pod.pointer("/spec/automountServiceAccountToken") == Some(&Value::Bool(false)) {
        return;
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in pod.uid().bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let alphabet = crate::engine::rand::ALPHANUMS;
    let suffix: String = (0..5).map(|i| alphabet[((h >> (i * 12)) % alphabet.len() as u64) as usize] as char).collect();
    let name = format!("kube-api-access-{suffix}");
    let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) else { return };
    let mount = serde_json::json!({"name": name, "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"});
    for list in ["initContainers", "containers"] {
        if let Some(Value::Array(cs)) = spec.get_mut(list) {
            for c in cs {
                if let Some(c) = c.as_object_mut() {
                    let mounts = c.entry("volumeMounts").or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(m) = mounts {
                        if !m.iter().any(|x| x.get("mountPath") == mount.get("mountPath")) {
                            m.push(mount.clone());
                        }
                    }
                }
            }
        }
    }
    let volume = serde_json::json!({"name": name, "projected": {"sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}
    ], "defaultMode": 420}});
    let volumes = spec.entry("volumes").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(v) = volumes {
        v.push(volume);
    }
}

/// `qos.GetPodQOS`, simplified to the three answers: no requests or limits anywhere is
/// BestEffort; limits equal to requests for cpu and memory in every container is Guaranteed.
fn qos_class(pod: &Value) -> &'static str {
    let containers = pod.pointer("/spec/containers").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut any = false;
    let mut guaranteed = !containers.is_empty();
    for c in &containers {
        let limits = c.pointer("/resources/limits").and_then(Value::as_object);
        let requests = c.pointer("/resources/requests").and_then(Value::as_object);
        if limits.is_some_and(|l| !l.is_empty()) || requests.is_some_and(|r| !r.is_empty()) {
            any = true;
        }
        for res in ["cpu", "memory"] {
            let l = limits.and_then(|l| l.get(res));
            let r = requests.and_then(|r| r.get(res)).or(l);
            if l.is_none() || l != r {
                guaranteed = false;
            }
        }
    }
    if !any {
        "BestEffort"
    } else if guaranteed {
        "Guaranteed"
    } else {
        "Burstable"
    }
}

/// `PrepareForUpdate` of the endpoint's strategy: copies from `old` what this endpoint may not
/// change, then bumps generation per the kind's rule (the kind's `PrepareForUpdate`).
/// `new`'s generation has already been reset to the stored one (`BeforeUpdate`).
pub fn prepare_for_update(kind: &Kind, mode: UpdateMode, new: &mut Value, old: &Frozen) {
    match mode {
        UpdateMode::Main => {
            if kind.status_subresource {
                keep_old(new, old, "status");
            }
            if kind.kind == "Namespace" {
                let old_finalizers = old.pointer("/spec/finalizers").map(Frozen::to_value);
                if let Some(Value::Object(spec)) = new.get_mut("spec") {
                    match old_finalizers {
                        Some(f) => spec.insert("finalizers".into(), f),
                        None => spec.shift_remove("finalizers"),
                    };
                }
            }
        }
        UpdateMode::Status => match kind.kind {
            // Custom resources: only status comes from the request (status_strategy.go).
            "Bucket" => {
                let status = take(new, "status");
                *new = old.to_value();
                set(new, "status", status);
            }
            // Deployment: spec and labels are kept; annotations may change
            // (`deploymentStatusStrategy.PrepareForUpdate`,
            // kubernetes/pkg/registry/apps/deployment/strategy.go).
            "Deployment" => {
                keep_old(new, old, "spec");
                let labels = old.meta().and_then(|m| m.get("labels")).map(Frozen::to_value);
                match labels {
                    Some(l) => new.meta_mut().insert("labels".into(), l),
                    None => new.meta_mut().shift_remove("labels"),
                };
            }
            // podStatusStrategy: spec and ownerReferences stay; a missing qosClass is backfilled.
            "Pod" => {
                keep_old(new, old, "spec");
                match old.meta().and_then(|m| m.get("ownerReferences")).map(Frozen::to_value) {
                    Some(r) => new.meta_mut().insert("ownerReferences".into(), r),
                    None => new.meta_mut().shift_remove("ownerReferences"),
                };
                let qos = old.pointer("/status/qosClass").map(Frozen::to_value);
                if let (Some(Value::Object(st)), Some(q)) = (new.get_mut("status"), qos) {
                    if st.get("qosClass").and_then(Value::as_str).is_none_or(str::is_empty) {
                        st.insert("qosClass".into(), q);
                    }
                }
            }
            _ => keep_old(new, old, "spec"),
        },
        UpdateMode::Finalize => {
            keep_old(new, old, "status");
        }
    }
    if kind.kind == "Namespace" {
        set_namespace_name_label(new);
    }
    if mode == UpdateMode::Main && generation_changes(kind, new, old) {
        let g = old.generation().saturating_add(1);
        new.meta_mut().insert("generation".into(), Value::from(g));
    }
}

fn generation_changes(kind: &Kind, new: &Value, old: &Frozen) -> bool {
    // Whether two optional fields differ (absent on one side only counts), as `Value` equality.
    let differ = |n: Option<&Value>, o: Option<&Frozen>| match (n, o) {
        (None, None) => false,
        (Some(n), Some(o)) => o != n,
        _ => true,
    };
    let spec_differs = || differ(new.get("spec"), old.get("spec"));
    let annotations =
        || differ(new.meta().and_then(|m| m.get("annotations")), old.meta().and_then(|m| m.get("annotations")));
    match kind.generation {
        Generation::None => false,
        Generation::Spec => spec_differs(),
        Generation::SpecAndAnnotations => spec_differs() || annotations(),
        Generation::NonMetadata => {
            // Every top-level field but metadata, apiVersion and kind, compared as maps.
            let skip = |k: &str| matches!(k, "metadata" | "apiVersion" | "kind");
            let empty = serde_json::Map::new();
            let n = new.as_object().unwrap_or(&empty);
            let o: Vec<(&str, &Frozen)> =
                old.as_object().map(|m| m.iter().filter(|(k, _)| !skip(k)).collect()).unwrap_or_default();
            let n_len = n.keys().filter(|k| !skip(k)).count();
            n_len != o.len() || o.iter().any(|(k, ov)| n.get(*k).is_none_or(|nv| *ov != nv))
        }
    }
}

/// Go's `%#v` of a `map[string]string` (keys sorted, as fmt prints maps).
fn go_string_map(m: Option<&Map<String, Value>>) -> String {
    let Some(m) = m else { return "map[string]string(nil)".to_string() };
    let mut pairs: Vec<(&String, &str)> = m.iter().map(|(k, v)| (k, v.as_str().unwrap_or(""))).collect();
    crate::sort::sort(&mut pairs);
    let inner: Vec<String> = pairs.iter().map(|(k, v)| format!("{}:{}", go_quote(k), go_quote(v))).collect();
    format!("map[string]string{{{}}}", inner.join(", "))
}

fn int_at(obj: &Value, ptr: &str) -> Option<i64> {
    obj.pointer(ptr).and_then(Value::as_i64)
}

/// `ValidatePodSpec` for the fields the lab uses: containers required, each with a unique
/// name and an image; restartPolicy one of the three.
fn validate_pod_spec(spec: Option<&Value>, path: &str, errs: &mut Vec<FieldError>) {
    let containers = spec.and_then(|s| s.get("containers")).and_then(Value::as_array);
    match containers {
        None => errs.push(FieldError::required(format!("{path}.containers"), "")),
        Some(cs) if cs.is_empty() => errs.push(FieldError::required(format!("{path}.containers"), "")),
        Some(cs) => {
            let mut seen: Vec<&str> = Vec::new();
            for (i, c) in cs.iter().enumerate() {
                let name = c.get("name").and_then(Value::as_str).unwrap_or("");
                let cpath = format!("{path}.containers[{i}]");
                if name.is_empty() {
                    errs.push(FieldError::required(format!("{cpath}.name"), ""));
                } else if seen.contains(&name) {
                    errs.push(FieldError::duplicate(format!("{cpath}.name"), name));
                } else {
                    for m in super::validation::dns1123_label_errors(name) {
                        errs.push(FieldError::invalid(format!("{cpath}.name"), name, m));
                    }
                }
                seen.push(name);
                if c.get("image").and_then(Value::as_str).unwrap_or("").trim().is_empty() {
                    errs.push(FieldError::required(format!("{cpath}.image"), ""));
                }
            }
        }
    }
    if let Some(rp) = spec.and_then(|s| s.get("restartPolicy")).and_then(Value::as_str) {
        if !["Always", "OnFailure", "Never"].contains(&rp) {
            errs.push(FieldError::not_supported(
                format!("{path}.restartPolicy"),
                rp,
                &["Always", "OnFailure", "Never"],
            ));
        }
    }
    if let Some(g) = spec.and_then(|s| s.get("terminationGracePeriodSeconds")).and_then(Value::as_i64) {
        if g < 0 {
            errs.push(FieldError::invalid_raw(
                format!("{path}.terminationGracePeriodSeconds"),
                g.to_string(),
                "must be greater than or equal to 0",
            ));
        }
    }
}

/// The selector/template/replicas checks shared by Deployments and ReplicaSets
/// (`ValidateDeploymentSpec`, `ValidateReplicaSetSpec`).
fn validate_workload_spec(obj: &Value, errs: &mut Vec<FieldError>) {
    if let Some(r) = int_at(obj, "/spec/replicas") {
        if r < 0 {
            errs.push(FieldError::invalid_raw("spec.replicas", r.to_string(), "must be greater than or equal to 0"));
        }
    }
    if let Some(r) = int_at(obj, "/spec/minReadySeconds") {
        if r < 0 {
            errs.push(FieldError::invalid_raw(
                "spec.minReadySeconds",
                r.to_string(),
                "must be greater than or equal to 0",
            ));
        }
    }
    match obj.pointer("/spec/selector") {
        None | Some(Value::Null) => errs.push(FieldError::required("spec.selector", "")),
        Some(sel) => match Selector::from_label_selector(sel) {
            Err(e) => errs.push(FieldError::invalid_raw("spec.selector", "{}".into(), e)),
            Ok(s) if s.is_everything() => errs.push(FieldError::invalid_raw(
                "spec.selector",
                format!(
                    "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}",
                    go_string_map(sel.get("matchLabels").and_then(Value::as_object))
                ),
                "empty selector is invalid for deployment",
            )),
            Ok(s) => {
                let labels = obj.pointer("/spec/template/metadata/labels").and_then(Value::as_object);
                if !s.matches(labels) {
                    errs.push(FieldError::invalid_raw(
                        "spec.template.metadata.labels",
                        go_string_map(labels),
                        "`selector` does not match template `labels`",
                    ));
                }
            }
        },
    }
    if let Some(labels) = obj.pointer("/spec/template/metadata/labels").and_then(Value::as_object) {
        validate_labels(labels, "spec.template.metadata.labels", errs);
    }
    validate_pod_spec(obj.pointer("/spec/template/spec"), "spec.template.spec", errs);
    if let Some(rp) = obj.pointer("/spec/template/spec/restartPolicy").and_then(Value::as_str) {
        if rp != "Always" && ["OnFailure", "Never"].contains(&rp) {
            errs.push(FieldError::not_supported("spec.template.spec.restartPolicy", rp, &["Always"]));
        }
    }
}

fn percent_digits(s: &str) -> Option<&str> {
    s.strip_suffix('%').filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
}

/// `ValidatePositiveIntOrPercent` (apps validation).
fn validate_int_or_percent(v: &Value, path: &str, errs: &mut Vec<FieldError>) {
    match v {
        Value::String(s) if percent_digits(s).is_none() => errs.push(FieldError::invalid(
            path,
            s,
            "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        )),
        Value::Number(n) if n.as_i64().is_some_and(|i| i < 0) => {
            errs.push(FieldError::invalid_raw(path, n.to_string(), "must be greater than or equal to 0"))
        }
        _ => {}
    }
}

/// The kind's own `Validate` (create and update).
pub fn validate(kind: &Kind, obj: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    match kind.kind {
        "Deployment" => {
            validate_workload_spec(obj, &mut errs);
            let st = obj.pointer("/spec/strategy/type").and_then(Value::as_str).unwrap_or("");
            match st {
                "RollingUpdate" => {
                    // ValidateRollingUpdateDeployment's order: both formats, both-zero, then 100%.
                    for field in ["maxUnavailable", "maxSurge"] {
                        let path = format!("spec.strategy.rollingUpdate.{field}");
                        if let Some(v) = obj.pointer(&format!("/spec/strategy/rollingUpdate/{field}")) {
                            validate_int_or_percent(v, &path, &mut errs);
                        }
                    }
                    let is_zero = |p: &str| match obj.pointer(p) {
                        Some(Value::Number(n)) => n.as_i64() == Some(0),
                        Some(Value::String(s)) => s == "0%" || s == "0",
                        _ => false,
                    };
                    if is_zero("/spec/strategy/rollingUpdate/maxUnavailable")
                        && is_zero("/spec/strategy/rollingUpdate/maxSurge")
                    {
                        errs.push(FieldError::invalid_raw(
                            "spec.strategy.rollingUpdate.maxUnavailable",
                            "0".into(),
                            "may not be 0 when `maxSurge` is 0",
                        ));
                    }
                    // IsNotMoreThan100Percent
                    if let Some(Value::String(p)) = obj.pointer("/spec/strategy/rollingUpdate/maxUnavailable") {
                        if percent_digits(p).and_then(|d| d.parse::<u64>().ok()).is_some_and(|n| n > 100) {
                            errs.push(FieldError::invalid(
                                "spec.strategy.rollingUpdate.maxUnavailable",
                                p,
                                "must not be greater than 100%",
                            ));
                        }
                    }
                }
                "Recreate" => {
                    if obj.pointer("/spec/strategy/rollingUpdate").is_some_and(|v| !v.is_null()) {
                        errs.push(FieldError::forbidden(
                            "spec.strategy.rollingUpdate",
                            "may not be specified when strategy `type` is 'Recreate'",
                        ));
                    }
                }
                other => {
                    errs.push(FieldError::not_supported("spec.strategy.type", other, &["Recreate", "RollingUpdate"]))
                }
            }
            if let Some(r) = int_at(obj, "/spec/revisionHistoryLimit") {
                if r < 0 {
                    errs.push(FieldError::invalid_raw(
                        "spec.revisionHistoryLimit",
                        r.to_string(),
                        "must be greater than or equal to 0",
                    ));
                }
            }
        }
        "ReplicaSet" => validate_workload_spec(obj, &mut errs),
        "Pod" => validate_pod_spec(obj.get("spec"), "spec", &mut errs),
        "Lease" => {
            if let Some(d) = int_at(obj, "/spec/leaseDurationSeconds") {
                if d <= 0 {
                    errs.push(FieldError::invalid_raw(
                        "spec.leaseDurationSeconds",
                        d.to_string(),
                        "must be greater than 0",
                    ));
                }
            }
            if let Some(t) = int_at(obj, "/spec/leaseTransitions") {
                if t < 0 {
                    errs.push(FieldError::invalid_raw(
                        "spec.leaseTransitions",
                        t.to_string(),
                        "must be greater than or equal to 0",
                    ));
                }
            }
        }
        _ => {}
    }
    errs
}

/// The fields `ValidatePodUpdate` lets a pod update change (k/k `pkg/apis/core/validation`).
pub const POD_UPDATABLE_FIELDS: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// `ValidatePodUpdate`: the pod spec is immutable except for [`POD_UPDATABLE_FIELDS`]. The
/// real message continues with a `cmp.Diff` of the internal `core.PodSpec`, which the lab does
/// not reproduce. Deviation: setting `spec.nodeName` on an unbound pod is allowed here, so that
/// a scheduler written as an update keeps working; [`super::ApiServer::bind`] is the faithful way.
fn validate_pod_update(new: &Value, old: &Frozen, errs: &mut Vec<FieldError>) {
    let old_spec = old.get("spec").map(Frozen::to_value);
    let (Some(new_spec), Some(old_spec)) = (new.get("spec"), old_spec.as_ref()) else { return };
    let mut munged = new_spec.clone();
    let Some(m) = munged.as_object_mut() else { return };
    for list in ["containers", "initContainers"] {
        if let (Some(Value::Array(nc)), Some(Value::Array(oc))) = (m.get_mut(list), old_spec.get(list)) {
            if nc.len() == oc.len() {
                for (n, o) in nc.iter_mut().zip(oc) {
                    if let (Some(n), Some(img)) = (n.as_object_mut(), o.get("image")) {
                        n.insert("image".into(), img.clone());
                    }
                }
            }
        }
    }
    for field in ["activeDeadlineSeconds", "terminationGracePeriodSeconds"] {
        match old_spec.get(field) {
            Some(v) => m.insert(field.into(), v.clone()),
            None => m.shift_remove(field),
        };
    }
    // Tolerations may only be added to.
    let old_tol = old_spec.get("tolerations").and_then(Value::as_array).cloned().unwrap_or_default();
    if let Some(Value::Array(nt)) = m.get("tolerations") {
        if old_tol.iter().all(|t| nt.contains(t)) {
            match old_spec.get("tolerations") {
                Some(v) => m.insert("tolerations".into(), v.clone()),
                None => m.shift_remove("tolerations"),
            };
        }
    }
    let old_node = old_spec.get("nodeName").and_then(Value::as_str).unwrap_or("");
    if old_node.is_empty() {
        match old_spec.get("nodeName") {
            Some(v) => m.insert("nodeName".into(), v.clone()),
            None => m.shift_remove("nodeName"),
        };
    }
    if munged != *old_spec {
        errs.push(FieldError::forbidden(
            "spec",
            format!("pod updates may not change fields other than {POD_UPDATABLE_FIELDS}"),
        ));
    }
}

/// The kind's own `ValidateUpdate` additions: immutable selectors, the pod spec rule.
pub fn validate_update(kind: &Kind, new: &Value, old: &Frozen) -> Vec<FieldError> {
    let mut errs = validate(kind, new);
    if kind.kind == "Pod" {
        validate_pod_update(new, old, &mut errs);
    }
    let selector_changed = match (new.pointer("/spec/selector"), old.pointer("/spec/selector")) {
        (None, None) => false,
        (Some(n), Some(o)) => o != n,
        _ => true,
    };
    if matches!(kind.kind, "Deployment" | "ReplicaSet") && selector_changed {
        let sel = new.pointer("/spec/selector");
        errs.push(FieldError::invalid_raw(
            "spec.selector",
            format!(
                "v1.LabelSelector{{MatchLabels:{}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}",
                go_string_map(sel.and_then(|s| s.get("matchLabels")).and_then(Value::as_object))
            ),
            "field is immutable",
        ));
    }
    errs
}
