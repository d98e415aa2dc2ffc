//! PATCH (apiserver `pkg/endpoints/handlers/patch.go`, `patchResource`): the patch is applied to
//! the *stored* object, and the result goes through the update path. A patch that does not mention
//! `metadata.resourceVersion` therefore never conflicts; one that sets it makes it a
//! precondition. A PATCH carries no uid precondition, so a changed uid fails validation
//! as immutable.
//!
//! - JSON merge patch (RFC 7386): objects merge, `null` deletes, everything else replaces.
//! - JSON patch (RFC 6902): add, remove, replace, move, copy, test. A malformed patch document is
//!   a 400; an operation that does not apply is a 422 whose message is the generic one the
//!   apiserver sends (`errors.NewGenericServerResponse(422, ...)` drops the library's text):
//!   `the server rejected our request due to an error in our request`.
//! - Strategic merge patch, for the built-in kinds (custom resources answer 415 as the real
//!   server does): lists with a patch merge key merge by it (`containers`, `env`, `volumes`
//!   by `name`; `ownerReferences` by `uid`; `ports` by `containerPort`; `conditions` by `type`;
//!   `volumeMounts` by `mountPath`), `finalizers` merges as a set, `$patch: delete` removes a list
//!   element or a map, `$patch: replace` replaces, and `$deleteFromPrimitiveList/<field>` removes
//!   values from a set-like list, `$setElementOrder/<field>` orders a merged list, and
//!   `$retainKeys` clears the keys of a map it does not list (kubectl apply sends it when a
//!   Deployment's `strategy` changes to Recreate, so `rollingUpdate` goes). Other lists replace.

use serde_json::{Map, Value};

use super::decode::{decode, FieldValidation};
use super::schema::{self, DecodeError};
use super::store::kind_index;
use super::strategy::UpdateMode;
use super::validation::FieldError;
use super::ApiServer;
use crate::engine::kinds::Kind;
use crate::engine::status::{Reason, Status};

/// A patch document.
#[derive(Clone, Debug, PartialEq)]
pub enum Patch {
    /// `application/merge-patch+json`.
    Merge(Value),
    /// `application/json-patch+json`: an array of operations.
    Json(Value),
    /// `application/strategic-merge-patch+json`.
    Strategic(Value),
}

/// Which endpoint a patch targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subresource {
    /// The main resource.
    Main,
    /// `/status`.
    Status,
}

/// RFC 7386 merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            if let Value::Object(t) = target {
                for (k, v) in p {
                    if v.is_null() {
                        t.shift_remove(k);
                    } else {
                        merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// Why a JSON patch failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonPatchError {
    /// The document is not a list of operations (400).
    Malformed(String),
    /// An operation does not apply (422).
    DoesNotApply(String),
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn split_pointer(path: &str) -> Result<Vec<String>, JsonPatchError> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    if !path.starts_with('/') {
        return Err(JsonPatchError::DoesNotApply(format!("invalid path {path:?}")));
    }
    Ok(path[1..].split('/').map(unescape).collect())
}

fn parent_mut<'a>(doc: &'a mut Value, tokens: &[String]) -> Result<&'a mut Value, JsonPatchError> {
    let mut cur = doc;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get_mut(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| JsonPatchError::DoesNotApply(format!("doc is missing path: {t:?}")))?;
    }
    Ok(cur)
}

fn get_at(doc: &Value, path: &str) -> Result<Value, JsonPatchError> {
    let tokens = split_pointer(path)?;
    let mut cur = doc;
    for t in &tokens {
        cur = match cur {
            Value::Object(m) => m.get(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(|| JsonPatchError::DoesNotApply(format!("doc is missing path: {path:?}")))?;
    }
    Ok(cur.clone())
}

fn add_at(doc: &mut Value, path: &str, value: Value) -> Result<(), JsonPatchError> {
    let tokens = split_pointer(path)?;
    let Some((last, parents)) = tokens.split_last() else {
        *doc = value;
        return Ok(());
    };
    match parent_mut(doc, parents)? {
        Value::Object(m) => {
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            let i = if last == "-" { a.len() } else { last.parse::<usize>().map_err(|_| bad_index(path))? };
            if i > a.len() {
                return Err(bad_index(path));
            }
            a.insert(i, value);
            Ok(())
        }
        _ => Err(JsonPatchError::DoesNotApply(format!("doc is missing path: {path:?}"))),
    }
}

fn bad_index(path: &str) -> JsonPatchError {
    JsonPatchError::DoesNotApply(format!("invalid index in path {path:?}"))
}

fn remove_at(doc: &mut Value, path: &str) -> Result<Value, JsonPatchError> {
    let tokens = split_pointer(path)?;
    let Some((last, parents)) = tokens.split_last() else {
        return Err(JsonPatchError::DoesNotApply("cannot remove the whole document".into()));
    };
    let missing = || JsonPatchError::DoesNotApply(format!("doc is missing path: {path:?}"));
    match parent_mut(doc, parents)? {
        Value::Object(m) => m.shift_remove(last).ok_or_else(missing),
        Value::Array(a) => {
            let i = last.parse::<usize>().map_err(|_| bad_index(path))?;
            if i >= a.len() {
                return Err(missing());
            }
            Ok(a.remove(i))
        }
        _ => Err(missing()),
    }
}

/// RFC 6902 JSON patch.
pub fn json_patch(doc: &mut Value, ops: &Value) -> Result<(), JsonPatchError> {
    let ops = ops.as_array().ok_or_else(|| {
        JsonPatchError::Malformed("json: cannot unmarshal object into Go value of type jsonpatch.Patch".into())
    })?;
    for op in ops {
        let s = |k: &str| op.get(k).and_then(Value::as_str);
        let path = s("path").ok_or_else(|| JsonPatchError::DoesNotApply("missing path".into()))?;
        let value = || op.get("value").cloned().ok_or_else(|| JsonPatchError::DoesNotApply("missing value".into()));
        match s("op").unwrap_or("") {
            "add" => add_at(doc, path, value()?)?,
            "remove" => {
                remove_at(doc, path)?;
            }
            "replace" => {
                remove_at(doc, path)?;
                add_at(doc, path, value()?)?;
            }
            "move" => {
                let from = s("from").ok_or_else(|| JsonPatchError::DoesNotApply("missing from".into()))?;
                let v = remove_at(doc, from)?;
                add_at(doc, path, v)?;
            }
            "copy" => {
                let from = s("from").ok_or_else(|| JsonPatchError::DoesNotApply("missing from".into()))?;
                let v = get_at(doc, from)?;
                add_at(doc, path, v)?;
            }
            "test" => {
                let v = get_at(doc, path)?;
                if v != value()? {
                    return Err(JsonPatchError::DoesNotApply("testing value failed".into()));
                }
            }
            other => return Err(JsonPatchError::Malformed(format!("Unexpected kind: {other}"))),
        }
    }
    Ok(())
}

/// The patch merge key of a list field in the built-in types, or `Some("")` for a set-like
/// list of scalars (`finalizers`); `None`: the list is replaced.
fn merge_key(field: &str) -> Option<&'static str> {
    match field {
        "containers" | "initContainers" | "volumes" | "env" | "imagePullSecrets" => Some("name"),
        "ownerReferences" => Some("uid"),
        "ports" => Some("containerPort"),
        "volumeMounts" => Some("mountPath"),
        "conditions" => Some("type"),
        "finalizers" => Some(""),
        _ => None,
    }
}

const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";

/// Strategic merge patch of one map.
fn strategic_merge(target: &mut Value, patch: &Value) -> Result<(), String> {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return Ok(());
    };
    match p.get("$patch").and_then(Value::as_str) {
        Some("replace") => {
            let mut v = patch.clone();
            if let Some(m) = v.as_object_mut() {
                m.shift_remove("$patch");
            }
            *target = v;
            return Ok(());
        }
        Some("delete") => {
            *target = Value::Object(Map::new());
            return Ok(());
        }
        Some(other) => return Err(format!("Unknown patch type: {other} in map: {patch}")),
        None => {}
    }
    let retain: Option<Vec<String>> = match p.get("$retainKeys") {
        None => None,
        Some(Value::Array(keys)) => Some(keys.iter().filter_map(|k| k.as_str().map(str::to_string)).collect()),
        Some(other) => return Err(format!("invalid retainKeys directive: {other}")),
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { return Ok(()) };
    // The lists a `$setElementOrder` will order, as they were before the merge (the server order
    // the stored-only elements keep).
    let server_orders: Vec<(String, Vec<Value>)> = p
        .keys()
        .filter_map(|k| k.strip_prefix(SET_ELEMENT_ORDER))
        .map(|field| {
            let key = merge_key(field).unwrap_or("");
            let before = t.get(field).and_then(Value::as_array).cloned().unwrap_or_default();
            (field.to_string(), before.iter().map(|x| element_id(x, key)).collect())
        })
        .collect();
    for (k, v) in p {
        if let Some(field) = k.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
            let remove: Vec<Value> = v.as_array().cloned().unwrap_or_default();
            if let Some(Value::Array(list)) = t.get_mut(field) {
                list.retain(|x| !remove.contains(x));
            }
            continue;
        }
        if k.starts_with(SET_ELEMENT_ORDER) || k == "$retainKeys" {
            continue;
        }
        if v.is_null() {
            t.shift_remove(k);
            continue;
        }
        match (merge_key(k), v) {
            (Some(key), Value::Array(items)) => {
                let cur = t.entry(k.clone()).or_insert_with(|| Value::Array(Vec::new()));
                if !cur.is_array() {
                    *cur = Value::Array(Vec::new());
                }
                if let Value::Array(list) = cur {
                    merge_list(list, items, key)?;
                }
            }
            (_, Value::Object(_)) => {
                let cur = t.entry(k.clone()).or_insert(Value::Null);
                strategic_merge(cur, v)?;
                if v.get("$patch").and_then(Value::as_str) == Some("delete") {
                    t.shift_remove(k);
                }
            }
            _ => {
                t.insert(k.clone(), v.clone());
            }
        }
    }
    // `$setElementOrder/<field>` (sent by kubectl apply): the listed elements in that order,
    // with the elements only the stored list has slotted back in by their old positions
    // (strategicpatch `normalizeElementOrder` + `mergeSortedSlice`).
    for (field, server_order) in &server_orders {
        let Some(Value::Array(order)) = p.get(&format!("{SET_ELEMENT_ORDER}{field}")) else { continue };
        let Some(Value::Array(list)) = t.get_mut(field.as_str()) else { continue };
        let key = merge_key(field).unwrap_or("");
        let order_ids: Vec<Value> = order.iter().map(|o| element_id(o, key)).collect();
        let (mut listed, server_only): (Vec<Value>, Vec<Value>) =
            std::mem::take(list).into_iter().partition(|x| order_ids.contains(&element_id(x, key)));
        crate::sort::sort_by_key(&mut listed, |x| order_ids.iter().position(|o| *o == element_id(x, key)));
        *list = merge_sorted(server_only, listed, server_order, key);
    }
    if let Some(keep) = retain {
        t.retain(|k, _| keep.iter().any(|x| x == k));
    }
    Ok(())
}

/// What identifies a list element: its merge key's value, or the element itself in a set-like
/// list of scalars (`key` empty).
fn element_id(x: &Value, key: &str) -> Value {
    if key.is_empty() {
        x.clone()
    } else {
        x.get(key).cloned().unwrap_or(Value::Null)
    }
}

/// `mergeSortedSlice`: merges the stored-only elements (`left`, in stored order) into the
/// ordered patch elements (`right`): a left element goes first when both it and the right one
/// held positions in the stored list and its position was earlier.
fn merge_sorted(left: Vec<Value>, right: Vec<Value>, server_order: &[Value], key: &str) -> Vec<Value> {
    let pos = |x: &Value| server_order.iter().position(|o| *o == element_id(x, key));
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
    loop {
        let take_left = match (l.peek(), r.peek()) {
            (None, None) => return out,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => matches!((pos(a), pos(b)), (Some(i), Some(j)) if i < j),
        };
        out.extend(if take_left { l.next() } else { r.next() });
    }
}

fn merge_list(list: &mut Vec<Value>, items: &[Value], key: &str) -> Result<(), String> {
    if key.is_empty() {
        for item in items {
            if !list.contains(item) {
                list.push(item.clone());
            }
        }
        return Ok(());
    }
    for item in items {
        let id =
            item.get(key).cloned().ok_or_else(|| format!("map: {item} does not contain declared merge key: {key}"))?;
        let pos = list.iter().position(|x| x.get(key) == Some(&id));
        let delete = item.get("$patch").and_then(Value::as_str) == Some("delete");
        match (pos, delete) {
            (Some(i), true) => {
                list.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => strategic_merge(&mut list[i], item)?,
            (None, false) => {
                let mut v = Value::Null;
                strategic_merge(&mut v, item)?;
                list.push(v);
            }
        }
    }
    Ok(())
}

/// Applies a strategic merge patch (public for the kubectl console's `apply`/`patch` previews).
pub fn strategic_merge_patch(target: &mut Value, patch: &Value) -> Result<(), String> {
    strategic_merge(target, patch)
}

/// Go's `%+v` of a decoded JSON value (`map[string]interface{}`), as the strategic-merge path
/// shows the patch in its errors: `map[spec:map[replicass:3]]`.
pub fn go_sprint(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(a) => format!("[{}]", a.iter().map(go_sprint).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            let parts: Vec<String> = keys.iter().map(|k| format!("{k}:{}", go_sprint(&m[*k]))).collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// The patched object as the JSON-patch library re-encodes it (top-level keys sorted).
fn patched_json(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            let parts: Vec<String> = keys.iter().map(|k| format!("{}:{}", Value::from(k.as_str()), m[*k])).collect();
            format!("{{{}}}", parts.join(","))
        }
        other => other.to_string(),
    }
}

impl ApiServer {
    /// PATCH the main resource or `/status`, with `fieldValidation=Strict` (see
    /// [`ApiServer::patch_with`]).
    pub fn patch(
        &mut self,
        kind: &Kind,
        ns: Option<&str>,
        name: &str,
        patch: &Patch,
        sub: Subresource,
    ) -> Result<Value, Status> {
        self.patch_with(kind, ns, name, patch, sub, FieldValidation::Strict).map(|(v, _)| v)
    }

    /// PATCH with an explicit `fieldValidation`; returns the object and the warnings
    /// (`unknown field "spec.replicass"`) the server would send in `Warning` headers.
    ///
    /// Strict rejects unknown fields with the patch handler's 422:
    /// ` "" is invalid: patch: Invalid value: "<patched object or patch>": strict decoding error: unknown field "spec.replicass"`
    /// (`errors.NewInvalid(schema.GroupKind{}, "", ...)`, apiserver `handlers/patch.go`).
    pub fn patch_with(
        &mut self,
        kind: &Kind,
        ns: Option<&str>,
        name: &str,
        patch: &Patch,
        sub: Subresource,
        validation: FieldValidation,
    ) -> Result<(Value, Vec<String>), Status> {
        if sub == Subresource::Status && !kind.status_subresource {
            return Err(Status::new(Reason::NotFound, "the server could not find the requested resource"));
        }
        let key = Self::key(kind, ns, name);
        debug_assert_eq!(key.0, kind_index(kind));
        let old = self.store.get_shared(&key).ok_or_else(|| Status::not_found(kind, name))?;
        let mut new = old.to_value();
        match patch {
            Patch::Merge(p) => {
                if !p.is_object() {
                    return Err(Status::new(
                        Reason::BadRequest,
                        "error decoding patch: json: cannot unmarshal into Go value of type map[string]interface {}",
                    ));
                }
                merge_patch(&mut new, p);
            }
            Patch::Json(ops) => match json_patch(&mut new, ops) {
                Ok(()) => {}
                Err(JsonPatchError::Malformed(m)) => return Err(Status::new(Reason::BadRequest, m)),
                Err(JsonPatchError::DoesNotApply(_)) => {
                    return Err(Status::new(
                        Reason::Invalid,
                        "the server rejected our request due to an error in our request",
                    ))
                }
            },
            Patch::Strategic(p) => {
                if kind.group == "example.com" {
                    return Err(Status::new(
                        Reason::UnsupportedMediaType,
                        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
                    ));
                }
                if !p.is_object() {
                    return Err(Status::new(
                        Reason::BadRequest,
                        "json: cannot unmarshal into Go value of type map[string]interface {}",
                    ));
                }
                strategic_merge(&mut new, p).map_err(|m| Status::new(Reason::BadRequest, m))?;
            }
        }
        // The patched object keeps its identity: kind and apiVersion from the stored object.
        if let Some(m) = new.as_object_mut() {
            m.insert("apiVersion".into(), Value::from(kind.api_version()));
            m.insert("kind".into(), Value::from(kind.kind));
        }
        let shown = || match patch {
            Patch::Strategic(p) => go_sprint(p),
            _ => patched_json(&new),
        };
        let mut warnings = Vec::new();
        match schema::strict_decode(kind, &new) {
            Ok(()) => {}
            Err(DecodeError::Unknown(fields)) if validation != FieldValidation::Strict => {
                if validation == FieldValidation::Warn {
                    warnings.extend(fields.iter().map(|f| format!("unknown field {f:?}")));
                }
                schema::prune_unknown(&mut new, schema::root(kind));
            }
            Err(e @ DecodeError::Unknown(_)) | Err(e @ DecodeError::Type { .. }) if kind.group != "example.com" => {
                let fe = FieldError::invalid("patch", &shown(), e.message());
                return Err(Status {
                    name: String::new(),
                    group: String::new(),
                    kind: String::new(),
                    causes: vec![fe.cause()],
                    ..Status::new(Reason::Invalid, format!(" \"\" is invalid: patch: {}", fe.body()))
                });
            }
            Err(_) => decode(kind, &new)?,
        }
        let mode = match sub {
            Subresource::Main => UpdateMode::Main,
            Subresource::Status => UpdateMode::Status,
        };
        let out = self.update_existing(kind, key, old, new, mode, false)?;
        Ok((out, warnings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(v: &Value) -> Vec<&str> {
        v["containers"].as_array().map(|a| a.iter().filter_map(|c| c["name"].as_str()).collect()).unwrap_or_default()
    }

    #[test]
    fn set_element_order_keeps_stored_only_elements_in_their_place() {
        // A container only the server has (added by another client) stays where it was.
        let mut live = json!({"containers": [{"name": "debug"}, {"name": "a"}]});
        let patch =
            json!({"$setElementOrder/containers": [{"name": "a"}, {"name": "b"}], "containers": [{"name": "b"}]});
        strategic_merge(&mut live, &patch).expect("merges");
        assert_eq!(names(&live), ["debug", "a", "b"]);
        let mut live = json!({"containers": [{"name": "a"}, {"name": "debug"}, {"name": "c"}]});
        let patch = json!({"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}]});
        strategic_merge(&mut live, &patch).expect("merges");
        // mergeSortedSlice: "debug" (stored at 1) goes before "c" (stored at 2).
        assert_eq!(names(&live), ["debug", "c", "a"]);
    }

    #[test]
    fn apply_directives_delete_and_reorder() {
        let mut live = json!({"containers": [{"name": "a", "env": [{"name": "X"}, {"name": "Y"}]}, {"name": "b"}],
            "finalizers": ["f1", "f2"], "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}});
        let patch = json!({
            "$setElementOrder/containers": [{"name": "a"}],
            "containers": [{"name": "a", "$setElementOrder/env": [{"name": "Y"}], "env": [{"$patch": "delete", "name": "X"}]},
                           {"$patch": "delete", "name": "b"}],
            "$deleteFromPrimitiveList/finalizers": ["f1"],
            "strategy": {"$retainKeys": ["type"], "type": "Recreate"}
        });
        strategic_merge(&mut live, &patch).expect("merges");
        assert_eq!(
            live,
            json!({"containers": [{"name": "a", "env": [{"name": "Y"}]}], "finalizers": ["f2"], "strategy": {"type": "Recreate"}})
        );
    }
}
