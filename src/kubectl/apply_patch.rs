//! The patch `kubectl apply` (client-side) sends: a three-way merge of the last-applied
//! configuration (original), the manifest (modified) and the live object (current)
//! (kubectl pkg/cmd/apply/patcher.go; apimachinery jsonmergepatch `CreateThreeWayJSONMergePatch`).
//!
//! `patch = deletions(original → modified) + changes(current → modified)`:
//! - deletions: fields the last apply set and this manifest no longer has become `null`;
//! - changes: fields of the manifest whose value differs from the live object (nulls in the
//!   manifest are dropped here: only deletions delete).
//!
//! Lists: strategic merge patch diffs lists with merge keys element by element, so server-set
//! defaults inside list elements (a container's `imagePullPolicy`) are not changes. Here a list
//! counts as unchanged when it has as many elements as the live one and each manifest element
//! is contained in the live element at the same position; a changed list is sent whole, as a
//! JSON merge patch (which replaces lists). An empty patch `{}` means `unchanged`.

use serde_json::{Map, Value};

/// The three-way patch; an empty object when nothing would change.
pub fn three_way(original: Option<&Value>, modified: &Value, current: &Value) -> Value {
    let mut patch = changes(current, modified);
    if let Some(orig) = original {
        merge_into(&mut patch, deletions(orig, modified));
    }
    patch
}

/// Fields of `modified` that differ from `current` (objects recursed, nulls skipped).
fn changes(current: &Value, modified: &Value) -> Value {
    let mut out = Map::new();
    let (Some(cur), Some(m)) = (current.as_object(), modified.as_object()) else {
        return Value::Object(out);
    };
    for (k, mv) in m {
        if mv.is_null() {
            continue;
        }
        match cur.get(k) {
            None | Some(Value::Null) => {
                out.insert(k.clone(), mv.clone());
            }
            Some(cv) => match (cv, mv) {
                (Value::Object(_), Value::Object(_)) => {
                    let d = changes(cv, mv);
                    if d.as_object().is_some_and(|o| !o.is_empty()) {
                        out.insert(k.clone(), d);
                    }
                }
                (Value::Array(ca), Value::Array(ma)) => {
                    if !list_contained(ma, ca) {
                        out.insert(k.clone(), mv.clone());
                    }
                }
                _ => {
                    if cv != mv {
                        out.insert(k.clone(), mv.clone());
                    }
                }
            },
        }
    }
    Value::Object(out)
}

/// Whether every element of `m` is contained in the element of `c` at the same position.
fn list_contained(m: &[Value], c: &[Value]) -> bool {
    m.len() == c.len() && m.iter().zip(c).all(|(m, c)| contained(m, c))
}

/// Whether `m` is `c`, or (for objects) every non-null field of `m` is contained in `c`.
pub fn contained(m: &Value, c: &Value) -> bool {
    match (m, c) {
        (Value::Object(mo), Value::Object(co)) => {
            mo.iter().all(|(k, mv)| mv.is_null() || co.get(k).is_some_and(|cv| contained(mv, cv)))
        }
        (Value::Array(ma), Value::Array(ca)) => list_contained(ma, ca),
        _ => m == c,
    }
}

/// Fields of `original` that `modified` drops (or sets to null), as nulls.
fn deletions(original: &Value, modified: &Value) -> Value {
    let mut out = Map::new();
    let Some(o) = original.as_object() else { return Value::Object(out) };
    let empty = Map::new();
    let m = modified.as_object().unwrap_or(&empty);
    for (k, ov) in o {
        match m.get(k) {
            None | Some(Value::Null) if !ov.is_null() => {
                out.insert(k.clone(), Value::Null);
            }
            Some(mv @ Value::Object(_)) if ov.is_object() => {
                let d = deletions(ov, mv);
                if d.as_object().is_some_and(|o| !o.is_empty()) {
                    out.insert(k.clone(), d);
                }
            }
            _ => {}
        }
    }
    Value::Object(out)
}

fn merge_into(dst: &mut Value, src: Value) {
    let (Some(d), Value::Object(s)) = (dst.as_object_mut(), src) else { return };
    for (k, v) in s {
        match d.get_mut(&k) {
            Some(existing) if existing.is_object() && v.is_object() => merge_into(existing, v),
            Some(_) => {}
            None => {
                d.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unchanged_when_live_only_adds_defaults() {
        let m = json!({"metadata": {"name": "web", "creationTimestamp": null}, "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}}}, "status": {}});
        let live = json!({"metadata": {"name": "web", "uid": "u", "creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Always"}]}}}, "status": {"replicas": 3}});
        assert_eq!(three_way(Some(&m), &m, &live), json!({}));
    }

    #[test]
    fn changes_and_deletions() {
        let orig = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"replicas": 3}});
        let m = json!({"metadata": {"labels": {"a": "1"}}, "spec": {"replicas": 5}});
        let live = json!({"metadata": {"labels": {"a": "1", "b": "2", "c": "3"}}, "spec": {"replicas": 3}});
        assert_eq!(
            three_way(Some(&orig), &m, &live),
            json!({"spec": {"replicas": 5}, "metadata": {"labels": {"b": null}}})
        );
        // Without an original nothing is deleted (the live "c" stays either way).
        assert_eq!(three_way(None, &m, &live), json!({"spec": {"replicas": 5}}));
        let img = json!({"spec": {"containers": [{"name": "c", "image": "nginx:2"}]}});
        let live =
            json!({"spec": {"containers": [{"name": "c", "image": "nginx:1", "imagePullPolicy": "IfNotPresent"}]}});
        assert_eq!(three_way(None, &img, &live), img);
    }
}
