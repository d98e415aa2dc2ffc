//! "Objects": everything stored in the API server, grouped by kind, and one object's YAML (as
//! `kubectl get -o yaml` prints it, via `yaml::to_yaml`) with the fields that carry the control
//! loop's bookkeeping marked: resourceVersion, generation, observedGeneration, finalizers,
//! deletionTimestamp and ownerReferences (kubernetes-semantics.md §3: resourceVersion and
//! generation; §4: ownerReferences; §5: finalizers and deletionTimestamp).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::engine::kinds::{Kind, KINDS};
use crate::engine::world::World;

use super::{object_key, Capped};

/// Rows shown per kind.
pub const ROWS_PER_KIND: usize = 100;

/// The fields marked in the YAML, by their key.
pub const KEY_FIELDS: [&str; 6] =
    ["resourceVersion", "generation", "observedGeneration", "finalizers", "deletionTimestamp", "ownerReferences"];

/// One object in the list.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectRow {
    /// `Pod`.
    pub kind: String,
    /// `default/web-abc` (or `node-1` for cluster-scoped kinds).
    pub key: String,
    /// `metadata.resourceVersion`.
    pub resource_version: u64,
    /// Whether it is being deleted.
    pub terminating: bool,
    /// Whether the latest step touched it.
    pub touched: bool,
}

/// One kind's objects.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KindGroup {
    /// `Pod`.
    pub kind: String,
    /// The objects, by key.
    pub rows: Capped<ObjectRow>,
}

/// Every object, grouped by kind in the order of the kinds table; empty kinds are left out.
pub fn object_groups(world: &World, touched: &[(String, String)]) -> Vec<KindGroup> {
    let touched: BTreeSet<(&str, &str)> =
        crate::sort::btree_set(touched.iter().map(|(k, key)| (k.as_str(), key.as_str())));
    let mut out = Vec::new();
    for kind in KINDS {
        let total = world.api().count(kind);
        if total == 0 {
            continue;
        }
        let rows = world
            .api()
            .list_metadata(kind, None)
            .take(ROWS_PER_KIND)
            .map(|(ns, name, m)| {
                let key = object_key(ns, name);
                ObjectRow {
                    touched: touched.contains(&(kind.kind, key.as_str())),
                    kind: kind.kind.to_string(),
                    key,
                    resource_version: m.resource_version,
                    terminating: m.deleting,
                }
            })
            .collect();
        out.push(KindGroup { kind: kind.kind.to_string(), rows: Capped { items: rows, total } });
    }
    out
}

/// One line of YAML; `field` names the key field it belongs to, if any.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct YamlLine {
    /// The line, without its newline.
    pub text: String,
    /// One of [`KEY_FIELDS`] when the line is that field or part of its value.
    pub field: Option<&'static str>,
}

/// How a key field changed between two versions of an object.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldChange {
    /// One of [`KEY_FIELDS`].
    pub field: &'static str,
    /// The value before (compact JSON), or `(unset)`.
    pub before: String,
    /// The value after, or `(unset)`.
    pub after: String,
}

/// The selected object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectDetail {
    /// `Deployment`.
    pub kind: String,
    /// `default/web`.
    pub key: String,
    /// The object as `-o yaml` prints it, line by line.
    pub lines: Vec<YamlLine>,
    /// The object itself (for the editor's "Edit").
    pub object: Value,
}

impl ObjectDetail {
    /// The YAML as `kubectl get -o yaml` prints it (what the page's Copy button copies).
    pub fn yaml(&self) -> String {
        self.lines.iter().flat_map(|l| [l.text.as_str(), "\n"]).collect()
    }
}

/// Looks an object up by kind and `namespace/name` key.
pub fn find_object(world: &World, kind: &str, key: &str) -> Option<Value> {
    let k: &Kind = Kind::by_kind(kind)?;
    let (ns, name) = match key.split_once('/') {
        Some((ns, name)) if k.namespaced => (Some(ns), name),
        _ => (None, key),
    };
    world.api().get(k, ns, name).ok()
}

/// The detail of one object, or `None` if it no longer exists.
pub fn object_detail(world: &World, kind: &str, key: &str) -> Option<ObjectDetail> {
    let object = find_object(world, kind, key)?;
    let yaml = crate::yaml::to_yaml(&object);
    Some(ObjectDetail { kind: kind.into(), key: key.into(), lines: mark_key_fields(&yaml), object })
}

/// Splits YAML into lines and marks each key field's line and the lines of its value (those
/// indented deeper, or list items at the same indent, as `-o yaml` prints sequences).
pub fn mark_key_fields(yaml: &str) -> Vec<YamlLine> {
    let mut out = Vec::new();
    let mut open: Option<(&'static str, usize)> = None;
    for line in yaml.lines() {
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        if let Some((field, at)) = open {
            let inside = indent > at || (indent == at && body.starts_with("- "));
            if inside && !body.is_empty() {
                out.push(YamlLine { text: line.into(), field: Some(field) });
                continue;
            }
            open = None;
        }
        let body_key = body.strip_prefix("- ").unwrap_or(body);
        let field = KEY_FIELDS.iter().copied().find(|f| body_key.strip_prefix(f).is_some_and(|r| r.starts_with(':')));
        if let Some(f) = field {
            open = Some((f, indent));
        }
        out.push(YamlLine { text: line.into(), field });
    }
    out
}

/// The key fields' values in an object, by field.
fn key_values(obj: &Value) -> [Option<&Value>; 6] {
    let m = &obj["metadata"];
    [
        m.get("resourceVersion"),
        m.get("generation"),
        obj.get("status").and_then(|s| s.get("observedGeneration")),
        m.get("finalizers"),
        m.get("deletionTimestamp"),
        m.get("ownerReferences"),
    ]
}

/// How the key fields differ from `before` to `after` (both versions of one object).
pub fn key_field_changes(before: Option<&Value>, after: &Value) -> Vec<FieldChange> {
    let show = |v: Option<&Value>| v.map_or_else(|| "(unset)".to_string(), |v| v.to_string());
    let b = before.map(key_values).unwrap_or([None; 6]);
    let a = key_values(after);
    KEY_FIELDS
        .iter()
        .enumerate()
        .filter(|(i, _)| b[*i] != a[*i])
        .map(|(i, f)| FieldChange { field: f, before: show(b[i]), after: show(a[i]) })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_fields_and_their_values_are_marked() {
        let yaml = "metadata:\n  finalizers:\n  - example.com/bucket\n  generation: 2\n  name: x\n  ownerReferences:\n  - apiVersion: v1\n    kind: ReplicaSet\n  resourceVersion: \"12\"\nstatus:\n  observedGeneration: 1\n";
        let lines = mark_key_fields(yaml);
        let got: Vec<(&str, Option<&str>)> = lines.iter().map(|l| (l.text.trim(), l.field)).collect();
        assert_eq!(
            got,
            vec![
                ("metadata:", None),
                ("finalizers:", Some("finalizers")),
                ("- example.com/bucket", Some("finalizers")),
                ("generation: 2", Some("generation")),
                ("name: x", None),
                ("ownerReferences:", Some("ownerReferences")),
                ("- apiVersion: v1", Some("ownerReferences")),
                ("kind: ReplicaSet", Some("ownerReferences")),
                ("resourceVersion: \"12\"", Some("resourceVersion")),
                ("status:", None),
                ("observedGeneration: 1", Some("observedGeneration")),
            ]
        );
    }

    #[test]
    fn changes_of_key_fields() {
        let a = json!({"metadata": {"resourceVersion": "5", "generation": 1}, "status": {"observedGeneration": 1}});
        let b = json!({"metadata": {"resourceVersion": "7", "generation": 2, "deletionTimestamp": "2026-01-01T00:00:00Z"},
                       "status": {"observedGeneration": 1}});
        let c = key_field_changes(Some(&a), &b);
        let fields: Vec<&str> = c.iter().map(|c| c.field).collect();
        assert_eq!(fields, vec!["resourceVersion", "generation", "deletionTimestamp"]);
        assert_eq!((c[0].before.as_str(), c[0].after.as_str()), ("\"5\"", "\"7\""));
        assert_eq!(c[2].before, "(unset)");
        assert!(key_field_changes(Some(&b), &b).is_empty());
        assert_eq!(key_field_changes(None, &b).len(), 4);
    }

    #[test]
    fn the_world_lists_and_details_objects() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        w.create(super::super::watch::tests::deployment("web", 1)).unwrap();
        let touched = super::super::touched_by_last_step(w.history());
        let groups = object_groups(&w, &touched);
        let kinds: Vec<&str> = groups.iter().map(|g| g.kind.as_str()).collect();
        assert!(kinds.contains(&"Namespace") && kinds.contains(&"Deployment") && kinds.contains(&"Lease"), "{kinds:?}");
        let d = groups.iter().find(|g| g.kind == "Deployment").unwrap();
        assert_eq!(d.rows.items[0].key, "default/web");
        assert!(d.rows.items[0].touched, "the create was the last step");
        let detail = object_detail(&w, "Deployment", "default/web").unwrap();
        assert!(detail.lines.iter().any(|l| l.field == Some("resourceVersion")));
        assert!(detail.lines.iter().any(|l| l.field == Some("generation") && l.text.trim() == "generation: 1"));
        assert_eq!(detail.yaml(), crate::yaml::to_yaml(&detail.object), "Copy gives what -o yaml prints");
        assert!(object_detail(&w, "Namespace", "default").is_some());
        assert!(object_detail(&w, "Deployment", "default/nope").is_none());
        assert!(object_detail(&w, "NoSuchKind", "x").is_none());
    }
}
