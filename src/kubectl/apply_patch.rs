//! The patch client-side `kubectl apply` sends: a three-way merge of the last-applied
//! configuration (original), the manifest (modified) and the live object (current)
//! (kubectl `pkg/cmd/apply/patcher.go` `patchSimple`).
//!
//! - Built-in kinds get a **strategic merge patch** (apimachinery
//!   `strategicpatch.CreateThreeWayMergePatch`): `delta` is the diff from current to modified
//!   without deletions, `deletions` the diff from original to modified with only deletions, and
//!   the patch is `deletions` with `delta` merged into it. Lists with a patch merge key
//!   (containers and env by `name`, ports by `containerPort`, ...) are diffed element by element,
//!   so server defaults inside an element (`imagePullPolicy`, `protocol: TCP`) are no change;
//!   an element gone from the manifest becomes `{"$patch":"delete", <key>: <value>}`, a value
//!   gone from a set-like list (`metadata.finalizers`) goes to `$deleteFromPrimitiveList/<field>`,
//!   and a merged list whose content or order changes carries `$setElementOrder/<field>` (the
//!   manifest's keys in its order). Fields tagged `retainKeys` (a Deployment's `strategy`, a pod
//!   volume) carry `$retainKeys`: the manifest's keys, so the server clears the others. Other
//!   lists are replaced whole when they differ. An explicit `null` in the manifest is sent (it
//!   clears the field: kubernetes#40630).
//! - Custom resources (Bucket) get a **JSON merge patch** (apimachinery
//!   `jsonmergepatch.CreateThreeWayJSONMergePatch`): additions and changes from current to
//!   modified (nulls dropped), plus the nulls of original to modified; lists are replaced whole.
//!
//! An empty patch `{}` means `unchanged`: kubectl sends nothing.
//!
//! The patch tags (`patchStrategy`, `patchMergeKey`) are those of the Go types in
//! `k8s.io/api` for the fields the lab models ([`TAGS`]); the field types come from the API
//! server's schema tables, so the walk knows which struct a nested map or list element is.
//! Fields the schema types as free-form are diffed as plain maps whose lists replace.

use serde_json::{Map, Value};

use crate::engine::apiserver::schema::{self, Struct, Ty};
use crate::engine::kinds::Kind;

const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

/// `(Go struct, JSON field, patchMergeKey, retainKeys)`: `Some(key)` merges a list of structs
/// by that key, `Some("")` merges a list of scalars as a set, `None` is no list strategy.
const TAGS: &[(&str, &str, Option<&str>, bool)] = &[
    ("ObjectMeta", "ownerReferences", Some("uid"), false),
    ("ObjectMeta", "finalizers", Some(""), false),
    ("PodSpec", "volumes", Some("name"), true),
    ("PodSpec", "initContainers", Some("name"), false),
    ("PodSpec", "containers", Some("name"), false),
    ("PodSpec", "imagePullSecrets", Some("name"), false),
    ("Container", "ports", Some("containerPort"), false),
    ("Container", "env", Some("name"), false),
    ("Container", "volumeMounts", Some("mountPath"), false),
    ("PodStatus", "conditions", Some("type"), false),
    ("NamespaceStatus", "conditions", Some("type"), false),
    ("DeploymentStatus", "conditions", Some("type"), false),
    ("ReplicaSetStatus", "conditions", Some("type"), false),
    ("DeploymentSpec", "strategy", None, true),
];

/// What the patch walk knows about one field.
#[derive(Clone, Copy)]
struct FieldMeta {
    /// The list merge key (see [`TAGS`]).
    merge_key: Option<&'static str>,
    /// `patchStrategy:"retainKeys"`.
    retain_keys: bool,
    /// The struct of the field's value (or of its list elements), when the schema has one.
    child: Option<&'static Struct>,
}

fn field_meta(st: Option<&'static Struct>, field: &str) -> FieldMeta {
    let Some(st) = st else { return FieldMeta { merge_key: None, retain_keys: false, child: None } };
    let child = st.fields.iter().find(|p| p.name == field).and_then(|p| match &p.ty {
        Ty::Obj(s) | Ty::List(s) => Some(*s),
        _ => None,
    });
    let tag = TAGS.iter().find(|(s, f, _, _)| *s == st.go_name && *f == field);
    FieldMeta { merge_key: tag.and_then(|t| t.2), retain_keys: tag.is_some_and(|t| t.3), child }
}

/// Go's `reflect.TypeOf` of a decoded JSON value, as the diff compares them (every number is
/// a `float64`).
fn go_kind(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Number(_) => 2,
        Value::String(_) => 3,
        Value::Array(_) => 4,
        Value::Object(_) => 5,
    }
}

/// `reflect.DeepEqual` of two decoded values (numbers compared as `float64`).
fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| deep_equal(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| deep_equal(v, w)))
        }
        _ => a == b,
    }
}

/// `fmt.Sprintf("%v", v)`, the text lists are sorted and matched by.
fn key_text(v: &Value) -> String {
    super::gojson::go_v(v)
}

#[derive(Clone, Copy)]
struct DiffOptions {
    ignore_changes_and_additions: bool,
    ignore_deletions: bool,
    build_retain_keys: bool,
}

/// `diffMaps`: the strategic patch from `original` to `modified` (within the options).
fn diff_maps(
    original: &Map<String, Value>,
    modified: &Map<String, Value>,
    st: Option<&'static Struct>,
    opts: DiffOptions,
) -> Result<Map<String, Value>, String> {
    let mut patch = Map::new();
    let mut retain: Vec<Value> = Vec::new();
    for (key, mv) in modified {
        if opts.build_retain_keys && !mv.is_null() {
            retain.push(Value::String(key.clone()));
        }
        let Some(ov) = original.get(key) else {
            if !opts.ignore_changes_and_additions {
                patch.insert(key.clone(), mv.clone());
            }
            continue;
        };
        if go_kind(ov) != go_kind(mv) {
            if !opts.ignore_changes_and_additions {
                patch.insert(key.clone(), mv.clone());
            }
            continue;
        }
        match (ov, mv) {
            (Value::Object(o), Value::Object(m)) => {
                let meta = field_meta(st, key);
                let sub = diff_maps(o, m, meta.child, DiffOptions { build_retain_keys: meta.retain_keys, ..opts })?;
                if !sub.is_empty() {
                    patch.insert(key.clone(), Value::Object(sub));
                }
            }
            (Value::Array(o), Value::Array(m)) => diff_slice(key, o, m, &mut patch, st, opts)?,
            _ => {
                if !opts.ignore_changes_and_additions && !deep_equal(ov, mv) {
                    patch.insert(key.clone(), mv.clone());
                }
            }
        }
    }
    if !opts.ignore_deletions {
        for key in original.keys() {
            if !modified.contains_key(key) {
                patch.insert(key.clone(), Value::Null);
            }
        }
    }
    // `hasAdditionalNewField`: original has a non-null field the manifest does not.
    let additional = original.iter().any(|(k, v)| !v.is_null() && !modified.contains_key(k));
    if !retain.is_empty() && (!patch.is_empty() || additional) {
        crate::sort::sort_by_key(&mut retain, key_text);
        patch.insert(RETAIN_KEYS.into(), Value::Array(retain));
    }
    Ok(patch)
}

/// `handleSliceDiff`: merged lists element by element, other lists replaced when different.
fn diff_slice(
    key: &str,
    original: &[Value],
    modified: &[Value],
    patch: &mut Map<String, Value>,
    st: Option<&'static Struct>,
    opts: DiffOptions,
) -> Result<(), String> {
    let meta = field_meta(st, key);
    let Some(merge_key) = meta.merge_key else {
        if !opts.ignore_changes_and_additions
            && !deep_equal(&Value::Array(original.to_vec()), &Value::Array(modified.to_vec()))
        {
            patch.insert(key.into(), Value::Array(modified.to_vec()));
        }
        return Ok(());
    };
    let opts = DiffOptions { build_retain_keys: meta.retain_keys, ..opts };
    let of_maps = original.iter().chain(modified).next().is_some_and(Value::is_object);
    let (add, delete, order) = if of_maps {
        diff_lists_of_maps(original, modified, merge_key, meta.child, opts)?
    } else {
        diff_lists_of_scalars(original, modified, opts)
    };
    if !add.is_empty() {
        patch.insert(key.into(), Value::Array(add));
    }
    if !delete.is_empty() {
        patch.insert(format!("{DELETE_FROM_PRIMITIVE_LIST}{key}"), Value::Array(delete));
    }
    if !order.is_empty() {
        patch.insert(format!("{SET_ELEMENT_ORDER}{key}"), Value::Array(order));
    }
    Ok(())
}

fn merge_key_of<'a>(item: &'a Value, key: &str) -> Result<&'a Value, String> {
    match item {
        Value::Object(m) => m
            .get(key)
            .ok_or_else(|| format!("map: {} does not contain declared merge key: {key}", super::gojson::go_v(item))),
        other => Err(format!("expected map[string]interface {{}}, but got {}", super::gojson::go_type(other))),
    }
}

type ListDiff = (Vec<Value>, Vec<Value>, Vec<Value>);

/// One step of the walk over two lists sorted by their keys' text.
enum Pair {
    /// The key is in both lists: (original, modified).
    Both(Value, Value),
    /// Only the modified list has it.
    Added(Value),
    /// Only the original list has it.
    Removed(Value),
}

/// The merge walk `diffListsOfMaps` and `diffListsOfScalars` share: both lists sorted by key
/// text (`sortMergeListsByNameArray`, `sortScalars`), then paired up.
fn sorted_pairs(mut orig: Vec<(String, Value)>, mut modi: Vec<(String, Value)>) -> Vec<Pair> {
    crate::sort::sort_by(&mut orig, |a, b| a.0.cmp(&b.0));
    crate::sort::sort_by(&mut modi, |a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    let (mut o, mut m) = (orig.into_iter().peekable(), modi.into_iter().peekable());
    loop {
        let pair = match (o.peek(), m.peek()) {
            (None, None) => return out,
            (Some(a), Some(b)) if a.0 == b.0 => {
                Pair::Both(o.next().map(|x| x.1).unwrap_or_default(), m.next().map(|x| x.1).unwrap_or_default())
            }
            (None, Some(_)) => Pair::Added(m.next().map(|x| x.1).unwrap_or_default()),
            (Some(a), Some(b)) if a.0 > b.0 => Pair::Added(m.next().map(|x| x.1).unwrap_or_default()),
            _ => Pair::Removed(o.next().map(|x| x.1).unwrap_or_default()),
        };
        out.push(pair);
    }
}

/// `diffListsOfMaps` + `diffLists`: (patch items in the manifest's order, then delete
/// directives; no primitive deletions; the `$setElementOrder` list).
fn diff_lists_of_maps(
    original: &[Value],
    modified: &[Value],
    key: &str,
    child: Option<&'static Struct>,
    opts: DiffOptions,
) -> Result<ListDiff, String> {
    let keyed = |list: &[Value]| -> Result<Vec<(String, Value)>, String> {
        list.iter().map(|item| merge_key_of(item, key).map(|k| (key_text(k), item.clone()))).collect()
    };
    let mut items = Vec::new();
    let mut deletions = Vec::new();
    for pair in sorted_pairs(keyed(original)?, keyed(modified)?) {
        match pair {
            Pair::Both(Value::Object(o), Value::Object(m)) => {
                let mut sub = diff_maps(&o, &m, child, opts)?;
                if !sub.is_empty() {
                    sub.insert(key.into(), merge_key_of(&Value::Object(m), key)?.clone());
                    items.push(Value::Object(sub));
                }
            }
            Pair::Both(..) => {}
            Pair::Added(m) if !opts.ignore_changes_and_additions => items.push(m),
            Pair::Removed(o) if !opts.ignore_deletions => {
                let mut directive = Map::new();
                directive.insert("$patch".into(), Value::from("delete"));
                directive.insert(key.into(), merge_key_of(&o, key)?.clone());
                deletions.push(Value::Object(directive));
            }
            Pair::Added(_) | Pair::Removed(_) => {}
        }
    }
    // `normalizeSliceOrder`: patch items in the manifest's order.
    let position = |item: &Value| {
        let k = item.get(key).map(key_text);
        modified.iter().position(|m| m.get(key).map(key_text) == k).unwrap_or(usize::MAX)
    };
    crate::sort::sort_by_key(&mut items, position);
    items.extend(deletions);
    let order_same = original.len() == modified.len()
        && original.iter().zip(modified).all(|(o, m)| o.get(key).map(key_text) == m.get(key).map(key_text));
    let mut order = Vec::new();
    if (!opts.ignore_changes_and_additions && (!items.is_empty() || !order_same))
        || (!opts.ignore_deletions && !items.is_empty())
    {
        for m in modified {
            let mut only_key = Map::new();
            only_key.insert(key.into(), merge_key_of(m, key)?.clone());
            order.push(Value::Object(only_key));
        }
    }
    Ok((items, Vec::new(), order))
}

/// `diffListsOfScalars` + `diffLists`: (additions in the manifest's order, deletions, the
/// `$setElementOrder` list).
fn diff_lists_of_scalars(original: &[Value], modified: &[Value], opts: DiffOptions) -> ListDiff {
    let keyed = |list: &[Value]| list.iter().map(|x| (key_text(x), x.clone())).collect();
    let (mut add, mut delete) = (Vec::new(), Vec::new());
    for pair in sorted_pairs(keyed(original), keyed(modified)) {
        match pair {
            Pair::Added(m) if !opts.ignore_changes_and_additions => add.push(m),
            Pair::Removed(o) if !opts.ignore_deletions => delete.push(o),
            _ => {}
        }
    }
    crate::sort::sort_by_key(&mut add, |x| modified.iter().position(|m| deep_equal(m, x)).unwrap_or(usize::MAX));
    let changed = !deep_equal(&Value::Array(original.to_vec()), &Value::Array(modified.to_vec()));
    let order = if (!opts.ignore_deletions && !delete.is_empty()) || (!opts.ignore_changes_and_additions && changed) {
        modified.to_vec()
    } else {
        Vec::new()
    };
    (add, delete, order)
}

/// `mergeMap(deletions, delta)` as `CreateThreeWayMergePatch` calls it (parallel lists are not
/// merged, nulls are kept): the delta wins where both set a value.
fn merge_patches(into: &mut Map<String, Value>, delta: Map<String, Value>, st: Option<&'static Struct>) {
    for (key, dv) in delta {
        if key == RETAIN_KEYS || key.starts_with(SET_ELEMENT_ORDER) {
            into.entry(key).or_insert(dv);
            continue;
        }
        let meta = field_meta(st, &key);
        match (into.get_mut(&key), dv) {
            (Some(Value::Object(existing)), Value::Object(d)) => merge_patches(existing, d, meta.child),
            (Some(Value::Array(existing)), Value::Array(d)) if meta.merge_key.is_some_and(|k| !k.is_empty()) => {
                let k = meta.merge_key.unwrap_or_default();
                merge_lists(existing, d, k, meta.child);
            }
            (_, dv) => {
                into.insert(key, dv);
            }
        }
    }
}

/// Merges delta list items into the deletion patch's items by merge key: the delta's items
/// first (in its order), then the items only the deletions have (`mergeSlice` +
/// `normalizeElementOrder`).
fn merge_lists(existing: &mut Vec<Value>, delta: Vec<Value>, key: &str, child: Option<&'static Struct>) {
    let mut rest = std::mem::take(existing);
    for item in delta {
        let id = item.get(key).map(key_text);
        let found = rest.iter().position(|x| x.get("$patch").is_none() && x.get(key).map(key_text) == id);
        match (found, item) {
            (Some(i), Value::Object(d)) => {
                let mut merged = rest.remove(i);
                if let Value::Object(m) = &mut merged {
                    merge_patches(m, d, child);
                }
                existing.push(merged);
            }
            (_, item) => existing.push(item),
        }
    }
    existing.extend(rest);
}

/// The strategic three-way patch for a built-in kind; an empty object when nothing would
/// change. Errors are the strategic-patch library's texts (a list item without its merge key).
pub fn three_way_strategic(
    kind: &Kind,
    original: Option<&Value>,
    modified: &Value,
    current: &Value,
) -> Result<Value, String> {
    let empty = Map::new();
    let as_map = |v: Option<&Value>| v.and_then(Value::as_object).cloned().unwrap_or_else(|| empty.clone());
    let root = Some(schema::root(kind));
    let (o, m, c) = (as_map(original), as_map(Some(modified)), as_map(Some(current)));
    let delta_opts =
        DiffOptions { ignore_changes_and_additions: false, ignore_deletions: true, build_retain_keys: false };
    let delta = diff_maps(&c, &m, root, delta_opts)?;
    let del_opts =
        DiffOptions { ignore_changes_and_additions: true, ignore_deletions: false, build_retain_keys: false };
    let mut patch = diff_maps(&o, &m, root, del_opts)?;
    merge_patches(&mut patch, delta, root);
    Ok(Value::Object(patch))
}

/// evanphx/json-patch `CreateMergePatch`: what turns `a` into `b` (removed keys as null,
/// differing lists whole).
fn merge_diff(a: &Map<String, Value>, b: &Map<String, Value>) -> Map<String, Value> {
    let mut into = Map::new();
    for (key, bv) in b {
        match (a.get(key), bv) {
            (None, _) => {
                into.insert(key.clone(), bv.clone());
            }
            (Some(av), _) if go_kind(av) != go_kind(bv) => {
                into.insert(key.clone(), bv.clone());
            }
            (Some(Value::Object(ao)), Value::Object(bo)) => {
                let d = merge_diff(ao, bo);
                if !d.is_empty() {
                    into.insert(key.clone(), Value::Object(d));
                }
            }
            (Some(av), _) => {
                if !deep_equal(av, bv) {
                    into.insert(key.clone(), bv.clone());
                }
            }
        }
    }
    for key in a.keys() {
        if !b.contains_key(key) {
            into.insert(key.clone(), Value::Null);
        }
    }
    into
}

/// `keepOrDeleteNullInObj`: only the nulls (`keep_null`), or everything but them; explicitly
/// empty maps are values (kept when not keeping nulls); maps left empty are dropped.
fn keep_or_delete_null(m: &Map<String, Value>, keep_null: bool) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, v) in m {
        match v {
            Value::Null if keep_null => {
                out.insert(key.clone(), Value::Null);
            }
            Value::Null => {}
            // An empty map under keep_null falls through and yields nothing.
            Value::Object(sub) if sub.is_empty() && !keep_null => {
                out.insert(key.clone(), v.clone());
            }
            Value::Object(sub) => {
                let f = keep_or_delete_null(sub, keep_null);
                if !f.is_empty() {
                    out.insert(key.clone(), Value::Object(f));
                }
            }
            _ if !keep_null => {
                out.insert(key.clone(), v.clone());
            }
            _ => {}
        }
    }
    out
}

/// The JSON merge three-way patch kubectl sends for kinds it has no Go type for (custom
/// resources); an empty object when nothing would change.
pub fn three_way_json(original: Option<&Value>, modified: &Value, current: &Value) -> Value {
    let empty = Map::new();
    let as_map = |v: Option<&Value>| v.and_then(Value::as_object).cloned().unwrap_or_else(|| empty.clone());
    let (o, m, c) = (as_map(original), as_map(Some(modified)), as_map(Some(current)));
    let add_and_change = keep_or_delete_null(&merge_diff(&c, &m), false);
    let mut patch = Value::Object(keep_or_delete_null(&merge_diff(&o, &m), true));
    // `jsonpatch.MergePatch(deletePatch, addAndChangePatch)`: RFC 7386 on the deletions.
    crate::engine::apiserver::patch::merge_patch(&mut patch, &Value::Object(add_and_change));
    patch
}

/// Removes every `null` map value, at any depth (kubectl ≥ 1.31 does this to the object
/// client-side apply creates, so an explicit null means "no such field" on create as it
/// does on update: kubernetes#125646). The last-applied annotation keeps them.
pub fn prune_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(prune_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy() -> &'static Kind {
        Kind::by_kind("Deployment").expect("deployments are served")
    }

    #[test]
    fn unchanged_when_live_only_adds_defaults() {
        let m = json!({"metadata": {"name": "web"}, "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": "nginx", "ports": [{"containerPort": 80}]}]}}}});
        let live = json!({"metadata": {"name": "web", "uid": "u", "creationTimestamp": "2026-01-01T00:00:00Z"}, "spec": {"replicas": 3, "strategy": {"type": "RollingUpdate"}, "template": {"spec": {"containers": [{"name": "c", "image": "nginx", "imagePullPolicy": "Always", "ports": [{"containerPort": 80, "protocol": "TCP"}]}]}}}, "status": {"replicas": 3}});
        assert_eq!(three_way_strategic(deploy(), Some(&m), &m, &live), Ok(json!({})));
    }

    #[test]
    fn changes_and_deletions() {
        let orig = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"replicas": 3}});
        let m = json!({"metadata": {"labels": {"a": "1"}}, "spec": {"replicas": 5}});
        let live = json!({"metadata": {"labels": {"a": "1", "b": "2", "c": "3"}}, "spec": {"replicas": 3}});
        assert_eq!(
            three_way_strategic(deploy(), Some(&orig), &m, &live),
            Ok(json!({"spec": {"replicas": 5}, "metadata": {"labels": {"b": null}}}))
        );
        // Without an original nothing is deleted (the live "c" stays either way).
        assert_eq!(three_way_strategic(deploy(), None, &m, &live), Ok(json!({"spec": {"replicas": 5}})));
    }

    #[test]
    fn containers_merge_by_name_with_delete_directives_and_order() {
        let c = |name: &str, image: &str| json!({"name": name, "image": image});
        let spec = |cs: Value| json!({"spec": {"template": {"spec": {"containers": cs}}}});
        let orig = spec(json!([c("a", "nginx:1"), c("b", "busybox")]));
        let m = spec(json!([c("a", "nginx:2")]));
        let live = spec(json!([
            {"name": "a", "image": "nginx:1", "imagePullPolicy": "IfNotPresent"},
            {"name": "b", "image": "busybox", "imagePullPolicy": "Always"}
        ]));
        let got = three_way_strategic(deploy(), Some(&orig), &m, &live).expect("a patch");
        assert_eq!(
            got,
            spec(json!([{"image": "nginx:2", "name": "a"}, {"$patch": "delete", "name": "b"}]))
                .pointer("/spec")
                .map(|s| {
                    let mut s = s.clone();
                    s["template"]["spec"]["$setElementOrder/containers"] = json!([{"name": "a"}]);
                    json!({"spec": s})
                })
                .expect("built")
        );
    }

    #[test]
    fn env_removal_nests_inside_the_container() {
        let spec = |env: Value| json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x", "env": env}]}}}});
        let orig = spec(json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]));
        let m = spec(json!([{"name": "A", "value": "1"}]));
        let got = three_way_strategic(deploy(), Some(&orig), &m, &orig).expect("a patch");
        assert_eq!(
            got,
            json!({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "a"}],
                "containers": [{"$setElementOrder/env": [{"name": "A"}], "env": [{"$patch": "delete", "name": "B"}], "name": "a"}]
            }}}})
        );
    }

    #[test]
    fn finalizers_use_the_primitive_deletion_list() {
        let orig = json!({"metadata": {"finalizers": ["a", "b"]}});
        let m = json!({"metadata": {"finalizers": ["a"]}});
        let got = three_way_strategic(deploy(), Some(&orig), &m, &orig).expect("a patch");
        assert_eq!(
            got,
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"], "$setElementOrder/finalizers": ["a"]}})
        );
    }

    #[test]
    fn strategy_change_retains_only_the_manifest_keys() {
        let live = json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}}}});
        let m = json!({"spec": {"strategy": {"type": "Recreate"}}});
        let got = three_way_strategic(deploy(), Some(&m), &m, &live).expect("a patch");
        assert_eq!(got, json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}));
    }

    #[test]
    fn a_merged_list_item_without_its_key_is_an_error() {
        let live = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}});
        let m = json!({"spec": {"template": {"spec": {"containers": [{"image": "y"}]}}}});
        assert_eq!(
            three_way_strategic(deploy(), None, &m, &live),
            Err("map: map[image:y] does not contain declared merge key: name".into())
        );
    }

    #[test]
    fn explicit_nulls_are_sent_and_pruned_on_create() {
        let live = json!({"spec": {"paused": true}});
        let m = json!({"spec": {"paused": null}});
        assert_eq!(three_way_strategic(deploy(), None, &m, &live), Ok(json!({"spec": {"paused": null}})));
        let mut created = json!({"a": null, "b": {"c": null, "d": 1}, "e": [{"f": null}]});
        prune_nulls(&mut created);
        assert_eq!(created, json!({"b": {"d": 1}, "e": [{}]}));
    }

    #[test]
    fn json_merge_three_way_for_custom_resources() {
        let orig = json!({"spec": {"region": "eu", "versioning": true}});
        let m = json!({"spec": {"region": "us"}});
        let live = json!({"spec": {"region": "eu", "versioning": true}, "status": {"url": "x"}});
        assert_eq!(three_way_json(Some(&orig), &m, &live), json!({"spec": {"region": "us", "versioning": null}}));
        assert_eq!(three_way_json(Some(&m), &m, &json!({"spec": {"region": "us"}})), json!({}));
    }
}
