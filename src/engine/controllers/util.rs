//! Small helpers the controllers share, each the counterpart of a Kubernetes helper named in its
//! doc comment (`k8s.io/kubernetes/pkg/api/v1/pod`, `pkg/controller/controller_utils.go`,
//! apimachinery's `intstr` and `metav1.LabelSelectorAsSelector`).

use serde_json::{Map, Value};

use crate::engine::frozen::Json;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// RFC 7386 JSON merge patch: objects merge key by key, `null` removes, anything else replaces.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Some(p) = patch.as_object() else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Some(t) = target.as_object_mut() {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// `metav1.LabelSelectorAsSelector(sel).Matches(labels)`: `matchLabels` and `matchExpressions`
/// (`In`, `NotIn`, `Exists`, `DoesNotExist`). An empty selector matches everything; a missing
/// (null) selector is treated as matching nothing, as the workload controllers do.
/// An unknown operator matches nothing (the API server validates operators on write).
/// `labels` is the object's `metadata.labels` (either form: `obj.at("/metadata/labels")`).
pub fn selector_matches(selector: Option<&impl Json>, labels: Option<&impl Json>) -> bool {
    let Some(sel) = selector.filter(|s| s.count().is_some() && s.items().is_none()) else {
        return false;
    };
    let label = |k: &str| labels.and_then(|l| l.field(k)).and_then(Json::text);
    if let Some(ml) = sel.field("matchLabels") {
        for (k, v) in ml.pairs() {
            if label(k) != v.text() {
                return false;
            }
        }
    }
    if let Some(exprs) = sel.field("matchExpressions").and_then(Json::items) {
        for e in exprs {
            let key = e.field("key").and_then(Json::text).unwrap_or("");
            let values: Vec<&str> = e
                .field("values")
                .and_then(Json::items)
                .map(|a| a.iter().filter_map(Json::text).collect())
                .unwrap_or_default();
            let ok = match e.field("operator").and_then(Json::text).unwrap_or("") {
                "In" => label(key).is_some_and(|v| values.contains(&v)),
                "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
                "Exists" => label(key).is_some(),
                "DoesNotExist" => label(key).is_none(),
                _ => false,
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// Whether a selector selects nothing at all (`selector.Empty()` in the Deployment controller:
/// an empty selector would select every pod, so the controller refuses it).
pub fn selector_is_empty(selector: Option<&impl Json>) -> bool {
    let Some(sel) = selector else { return true };
    let n = |k: &str| sel.field(k).and_then(Json::count).unwrap_or(0);
    n("matchLabels") == 0 && n("matchExpressions") == 0
}

/// `spec.replicas` (the API server defaults it to 1).
pub fn spec_replicas(obj: &impl Json) -> i64 {
    obj.at("/spec/replicas").and_then(Json::int).unwrap_or(1)
}

/// An integer at a JSON pointer, 0 when absent.
pub fn int_at(obj: &impl Json, ptr: &str) -> i64 {
    obj.at(ptr).and_then(Json::int).unwrap_or(0)
}

/// A string at a JSON pointer, "" when absent.
pub fn str_at<'a, J: Json>(obj: &'a J, ptr: &str) -> &'a str {
    obj.at(ptr).and_then(Json::text).unwrap_or("")
}

/// `intstr.GetScaledValueFromIntOrPercent`: an integer, or a percentage of `total` rounded up or
/// down. Malformed values count as 0 (validation rejects them on write).
pub fn scaled_value(v: Option<&impl Json>, total: i64, round_up: bool) -> i64 {
    let Some(v) = v else { return 0 };
    let Some(s) = v.text() else { return v.int().unwrap_or(0) };
    let Some(p) = s.strip_suffix('%').and_then(|p| p.parse::<i64>().ok()) else {
        return s.parse().unwrap_or(0);
    };
    let prod = p * total;
    if round_up {
        (prod + 99).div_euclid(100)
    } else {
        prod.div_euclid(100)
    }
}

/// The pod's condition of a type, if any.
pub fn pod_condition<'a, J: Json>(pod: &'a J, ctype: &str) -> Option<&'a J> {
    // Field by field rather than a JSON Pointer: a ReplicaSet's sync asks this of every pod.
    pod.field("status")
        .and_then(|s| s.field("conditions"))
        .and_then(Json::items)
        .and_then(|cs| cs.iter().find(|c| c.field("type").and_then(Json::text) == Some(ctype)))
}

/// `podutil.IsPodReady`: the `Ready` condition is `True`.
pub fn is_pod_ready(pod: &impl Json) -> bool {
    pod_condition(pod, "Ready").and_then(|c| c.field("status")).and_then(Json::text) == Some("True")
}

/// `podutil.IsPodAvailable`: ready, and ready for at least `minReadySeconds`.
pub fn is_pod_available(pod: &impl Json, min_ready_seconds: i64, now: Time) -> bool {
    readiness(pod, min_ready_seconds, now).1
}

/// [`is_pod_ready`] and [`is_pod_available`] together, from one look-up of the `Ready`
/// condition (a ReplicaSet's status counts both for every pod it owns).
pub fn readiness(pod: &impl Json, min_ready_seconds: i64, now: Time) -> (bool, bool) {
    let Some(ready) = pod_condition(pod, "Ready").filter(|c| c.field("status").and_then(Json::text) == Some("True"))
    else {
        return (false, false);
    };
    if min_ready_seconds <= 0 {
        return (true, true);
    }
    let since = ready.field("lastTransitionTime").and_then(Json::text).and_then(Time::parse_rfc3339);
    (true, since.is_some_and(|t| now.millis_since(t) >= min_ready_seconds * 1000))
}

/// `controller.IsPodActive`: not Succeeded, not Failed, and not being deleted.
pub fn is_pod_active(pod: &(impl Json + ObjectExt)) -> bool {
    let phase = pod.field("status").and_then(|s| s.field("phase")).and_then(Json::text).unwrap_or("");
    phase != "Succeeded" && phase != "Failed" && !pod.is_deleting()
}

/// The owner reference with `controller: true` whose uid is `uid`.
pub fn is_controlled_by(obj: &impl ObjectExt, uid: &str) -> bool {
    obj.controller_uid() == Some(uid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_follows_rfc7386() {
        let mut v = json!({"a": 1, "b": {"c": 2, "d": 3}});
        merge_patch(&mut v, &json!({"b": {"c": null, "e": 4}, "f": [1]}));
        assert_eq!(v, json!({"a": 1, "b": {"d": 3, "e": 4}, "f": [1]}));
    }

    #[test]
    fn selectors() {
        let f = |v: Value| crate::engine::frozen::Frozen::from(v);
        let labels = f(json!({"app": "web", "tier": "fe"}));
        let l = Some(&labels);
        assert!(selector_matches(Some(&f(json!({"matchLabels": {"app": "web"}}))), l));
        assert!(!selector_matches(Some(&f(json!({"matchLabels": {"app": "db"}}))), l));
        let e = f(json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["fe", "be"]},
                                            {"key": "x", "operator": "DoesNotExist"}]}));
        assert!(selector_matches(Some(&e), l));
        assert!(!selector_matches(None::<&Value>, l));
        assert!(selector_is_empty(Some(&f(json!({})))));
        assert!(selector_matches(Some(&json!({"matchLabels": {"app": "web"}})), Some(&json!({"app": "web"}))));
        assert!(!selector_matches(Some(&json!({"matchLabels": {"app": "web"}})), None::<&Value>));
    }

    #[test]
    fn percentages_round_like_intstr() {
        let pct = json!("25%");
        assert_eq!(scaled_value(Some(&pct), 3, true), 1);
        assert_eq!(scaled_value(Some(&pct), 3, false), 0);
        assert_eq!(scaled_value(Some(&pct), 10, true), 3);
        assert_eq!(scaled_value(Some(&pct), 10, false), 2);
        assert_eq!(scaled_value(Some(&crate::engine::frozen::Frozen::from(json!(2))), 10, false), 2);
        assert_eq!(scaled_value(Some(&crate::engine::frozen::Frozen::from(json!("25%"))), 10, true), 3);
    }
}
