//! Objects are JSON values (`serde_json::Value` with insertion order kept), exactly as the API
//! server stores and serves them. [`ObjectExt`] reads and writes the common `metadata` fields
//! without a typed struct per kind, so patches, JSONPath and printing see the same object.
//! What caches, watch events and notifications share is the immutable, compact form of the same
//! JSON ([`Shared`], a [`Frozen`] tree), which `ObjectExt` reads too.

use std::borrow::BorrowMut;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::frozen::{Frozen, Obj};

/// An object as the API server's watch events and lists hand it out and as informer caches and
/// handler notifications keep it: immutable and shared, so that every process caching the same
/// version of an object holds one copy, and the world's snapshots copy pointers, not objects.
/// The object is a [`Frozen`] tree (a fifth of a `Value`'s memory); code
/// that modifies it takes a `to_value()` copy first.
pub type Shared = std::sync::Arc<Frozen>;

/// An object's key from its namespace and name: `namespace/name`, or `name` for a cluster-scoped
/// object (client-go `tools/cache/store.go`, `MetaNamespaceKeyFunc`).
pub fn meta_namespace_key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        // Joined by hand: `format!` cost several times as much, and every watch event, handler
        // call and reconcile takes a key.
        Some(ns) => {
            let mut key = String::with_capacity(ns.len() + 1 + name.len());
            key.push_str(ns);
            key.push('/');
            key.push_str(name);
            key
        }
        None => name.to_string(),
    }
}

/// The shared, immutable form of an object (a [`Frozen`] copy of a `Value`
/// or of a reference to one), for code that builds a cached object or a notification itself:
/// the one place such an object is made (watch events and lists hand theirs out already shared).
pub fn share(obj: impl Into<Frozen>) -> Shared {
    std::sync::Arc::new(obj.into())
}

/// One entry of `metadata.ownerReferences` (apimachinery `pkg/apis/meta/v1/types.go`,
/// `OwnerReference`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// The owner's `apiVersion`.
    pub api_version: String,
    /// The owner's `kind`.
    pub kind: String,
    /// The owner's name (in the dependent's namespace, for namespaced owners).
    pub name: String,
    /// The owner's uid; a reference whose uid does not match the live owner is dangling.
    pub uid: String,
    /// Whether this owner is the managing controller (at most one reference may say so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    /// Whether the owner's foreground deletion waits for this dependent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
}

impl OwnerReference {
    /// `metav1.NewControllerRef`: controller and blockOwnerDeletion both true.
    pub fn controller_ref(owner: &impl ObjectExt) -> OwnerReference {
        OwnerReference {
            api_version: owner.api_version().to_string(),
            kind: owner.kind().to_string(),
            name: owner.name().to_string(),
            uid: owner.uid().to_string(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }
    }

    /// Whether this reference is the controller reference.
    pub fn is_controller(&self) -> bool {
        self.controller == Some(true)
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Accessors for the fields every Kubernetes object has, for both forms of an object: a
/// `serde_json::Value` (what verbs and writers build) and a [`Frozen`] tree (what caches, watch
/// events and notifications share). `Map` is the form's object type; `meta_mut` exists for
/// `Value` only (a `Frozen` is immutable: take `to_value()` first).
pub trait ObjectExt {
    /// The form's JSON object type (`Map<String, Value>` or [`Obj`]).
    type Map: ?Sized;
    /// `apiVersion`, or "".
    fn api_version(&self) -> &str;
    /// `kind`, or "".
    fn kind(&self) -> &str;
    /// `metadata`, if present.
    fn meta(&self) -> Option<&Self::Map>;
    /// `metadata`, created empty when missing (also turns a non-object `metadata` into one).
    fn meta_mut(&mut self) -> &mut Map<String, Value>
    where
        Self: BorrowMut<Value>,
    {
        let this: &mut Value = self.borrow_mut();
        if !this.is_object() {
            *this = Value::Object(Map::new());
        }
        let obj = this.as_object_mut().expect("made an object above");
        let meta = obj.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        meta.as_object_mut().expect("made an object above")
    }
    /// `metadata.name`, or "".
    fn name(&self) -> &str;
    /// `metadata.namespace`, if set and non-empty.
    fn namespace(&self) -> Option<&str>;
    /// `metadata.uid`, or "".
    fn uid(&self) -> &str;
    /// `metadata.resourceVersion` as a number; 0 when absent or not a number.
    fn resource_version(&self) -> u64;
    /// `metadata.generation`; 0 when absent.
    fn generation(&self) -> i64;
    /// `metadata.labels`, if present.
    fn labels(&self) -> Option<&Self::Map>;
    /// One label's value.
    fn label(&self, key: &str) -> Option<&str>;
    /// One annotation's value.
    fn annotation(&self, key: &str) -> Option<&str>;
    /// `metadata.finalizers` (non-strings skipped).
    fn finalizers(&self) -> Vec<&str>;
    /// Whether `metadata.finalizers` holds `f`.
    fn has_finalizer(&self, f: &str) -> bool {
        self.finalizers().contains(&f)
    }
    /// `metadata.deletionTimestamp`, if set.
    fn deletion_timestamp(&self) -> Option<&str>;
    /// Whether `metadata.deletionTimestamp` is set.
    fn is_deleting(&self) -> bool {
        self.deletion_timestamp().is_some()
    }
    /// `metadata.ownerReferences` (malformed entries skipped).
    fn owner_references(&self) -> Vec<OwnerReference>;
    /// The owner reference with `controller: true`, if any.
    fn controller_ref(&self) -> Option<OwnerReference> {
        self.owner_references().into_iter().find(OwnerReference::is_controller)
    }
    /// The uid of [`ObjectExt::controller_ref`], read in place: a ReplicaSet's sync and the
    /// informers' controller-uid index ask it of every pod, and the whole reference is four
    /// copied strings.
    fn controller_uid(&self) -> Option<&str>;
    /// The informer cache key: `namespace/name`, or `name` for cluster-scoped objects
    /// (client-go `tools/cache/store.go`, `MetaNamespaceKeyFunc`).
    fn key(&self) -> String {
        meta_namespace_key(self.namespace(), self.name())
    }
}

impl ObjectExt for Value {
    type Map = Map<String, Value>;
    fn api_version(&self) -> &str {
        str_at(self, "apiVersion")
    }
    fn kind(&self) -> &str {
        str_at(self, "kind")
    }
    fn meta(&self) -> Option<&Map<String, Value>> {
        self.get("metadata").and_then(Value::as_object)
    }
    fn name(&self) -> &str {
        self.meta().and_then(|m| m.get("name")).and_then(Value::as_str).unwrap_or("")
    }
    fn namespace(&self) -> Option<&str> {
        self.meta().and_then(|m| m.get("namespace")).and_then(Value::as_str).filter(|s| !s.is_empty())
    }
    fn uid(&self) -> &str {
        self.meta().and_then(|m| m.get("uid")).and_then(Value::as_str).unwrap_or("")
    }
    fn resource_version(&self) -> u64 {
        self.meta()
            .and_then(|m| m.get("resourceVersion"))
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }
    fn generation(&self) -> i64 {
        self.meta().and_then(|m| m.get("generation")).and_then(Value::as_i64).unwrap_or(0)
    }
    fn labels(&self) -> Option<&Map<String, Value>> {
        self.meta().and_then(|m| m.get("labels")).and_then(Value::as_object)
    }
    fn label(&self, key: &str) -> Option<&str> {
        self.labels().and_then(|l| l.get(key)).and_then(Value::as_str)
    }
    fn annotation(&self, key: &str) -> Option<&str> {
        self.meta().and_then(|m| m.get("annotations")).and_then(|a| a.get(key)).and_then(Value::as_str)
    }
    fn finalizers(&self) -> Vec<&str> {
        self.meta()
            .and_then(|m| m.get("finalizers"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
    fn deletion_timestamp(&self) -> Option<&str> {
        self.meta().and_then(|m| m.get("deletionTimestamp")).and_then(Value::as_str)
    }
    fn owner_references(&self) -> Vec<OwnerReference> {
        self.meta()
            .and_then(|m| m.get("ownerReferences"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|r| serde_json::from_value(r.clone()).ok()).collect())
            .unwrap_or_default()
    }
    fn controller_uid(&self) -> Option<&str> {
        let list = self.meta().and_then(|m| m.get("ownerReferences")).and_then(Value::as_array)?;
        list.iter()
            .find(|r| serde_json::from_value::<OwnerReference>((*r).clone()).is_ok_and(|o| o.is_controller()))
            .and_then(|r| r.get("uid"))
            .and_then(Value::as_str)
    }
}

impl Frozen {
    fn str_at(&self, key: &str) -> &str {
        self.get(key).and_then(Frozen::as_str).unwrap_or("")
    }
    fn meta_at(&self, key: &str) -> Option<&Frozen> {
        self.get("metadata").and_then(|m| m.get(key))
    }
}

/// The metadata reads, on the cached form (the same answers as `Value`'s; tested below).
impl ObjectExt for Frozen {
    type Map = Obj;
    /// `apiVersion`, or "".
    fn api_version(&self) -> &str {
        self.str_at("apiVersion")
    }
    /// `kind`, or "".
    fn kind(&self) -> &str {
        self.str_at("kind")
    }
    /// `metadata`, if present.
    fn meta(&self) -> Option<&Obj> {
        self.get("metadata").and_then(Frozen::as_object)
    }
    /// `metadata.name`, or "".
    fn name(&self) -> &str {
        self.meta_at("name").and_then(Frozen::as_str).unwrap_or("")
    }
    /// `metadata.namespace`, if set and non-empty.
    fn namespace(&self) -> Option<&str> {
        self.meta_at("namespace").and_then(Frozen::as_str).filter(|s| !s.is_empty())
    }
    /// `metadata.uid`, or "".
    fn uid(&self) -> &str {
        self.meta_at("uid").and_then(Frozen::as_str).unwrap_or("")
    }
    /// `metadata.resourceVersion` as a number; 0 when absent or not a number.
    fn resource_version(&self) -> u64 {
        self.meta_at("resourceVersion").and_then(Frozen::as_str).and_then(|s| s.parse().ok()).unwrap_or(0)
    }
    /// `metadata.generation`; 0 when absent.
    fn generation(&self) -> i64 {
        self.meta_at("generation").and_then(Frozen::as_i64).unwrap_or(0)
    }
    /// `metadata.labels`, if present.
    fn labels(&self) -> Option<&Obj> {
        self.meta_at("labels").and_then(Frozen::as_object)
    }
    /// One label's value.
    fn label(&self, key: &str) -> Option<&str> {
        self.labels().and_then(|l| l.get(key)).and_then(Frozen::as_str)
    }
    /// One annotation's value.
    fn annotation(&self, key: &str) -> Option<&str> {
        self.meta_at("annotations").and_then(|a| a.get(key)).and_then(Frozen::as_str)
    }
    /// `metadata.finalizers` (non-strings skipped).
    fn finalizers(&self) -> Vec<&str> {
        let list = self.meta_at("finalizers").and_then(Frozen::as_array).unwrap_or(&[]);
        list.iter().filter_map(Frozen::as_str).collect()
    }
    /// `metadata.deletionTimestamp`, if set.
    fn deletion_timestamp(&self) -> Option<&str> {
        self.meta_at("deletionTimestamp").and_then(Frozen::as_str)
    }
    /// `metadata.ownerReferences` (malformed entries skipped).
    fn owner_references(&self) -> Vec<OwnerReference> {
        let list = self.meta_at("ownerReferences").and_then(Frozen::as_array).unwrap_or(&[]);
        list.iter().filter_map(owner_reference).map(RefView::into_owned).collect()
    }
    fn controller_uid(&self) -> Option<&str> {
        let list = self.meta_at("ownerReferences").and_then(Frozen::as_array)?;
        list.iter().filter_map(owner_reference).find(|r| r.controller == Some(true)).map(|r| r.uid)
    }
}

/// An `ownerReferences` entry's fields, borrowed from the tree.
struct RefView<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    uid: &'a str,
    controller: Option<bool>,
    block_owner_deletion: Option<bool>,
}

impl RefView<'_> {
    fn into_owned(self) -> OwnerReference {
        OwnerReference {
            api_version: self.api_version.to_string(),
            kind: self.kind.to_string(),
            name: self.name.to_string(),
            uid: self.uid.to_string(),
            controller: self.controller,
            block_owner_deletion: self.block_owner_deletion,
        }
    }
}

/// One `ownerReferences` entry, read as serde reads an [`OwnerReference`] from a `Value` (the
/// four strings required, `controller` and `blockOwnerDeletion` absent, null or a boolean, other
/// fields ignored; anything else is malformed: `None`), without copying the entry.
fn owner_reference(r: &Frozen) -> Option<RefView<'_>> {
    let text = |k: &str| r.get(k).and_then(Frozen::as_str);
    let flag = |k: &str| match r.get(k) {
        None | Some(Frozen::Null) => Ok(None),
        Some(Frozen::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(()),
    };
    r.as_object()?;
    Some(RefView {
        api_version: text("apiVersion")?,
        kind: text("kind")?,
        name: text("name")?,
        uid: text("uid")?,
        controller: flag("controller").ok()?,
        block_owner_deletion: flag("blockOwnerDeletion").ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_metadata() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "p", "namespace": "default", "resourceVersion": "12", "finalizers": ["a", 3, "b"],
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u", "controller": true}]
        }});
        assert_eq!(pod.key(), "default/p");
        assert_eq!(pod.resource_version(), 12);
        assert_eq!(pod.finalizers(), vec!["a", "b"]);
        assert_eq!(pod.controller_ref().map(|r| r.name), Some("rs".to_string()));
        assert!(!pod.is_deleting());
        let mut ns = json!({"kind": "Namespace", "metadata": "broken"});
        ns.meta_mut().insert("name".into(), json!("demo"));
        assert_eq!(ns.key(), "demo");
    }

    /// A pod with every metadata field `ObjectExt` reads, and malformed entries among its
    /// finalizers and owner references.
    fn pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "web-1", "namespace": "default", "uid": "u1", "resourceVersion": "42", "generation": 3,
            "labels": {"app": "web", "pod-template-hash": "abc"}, "annotations": {"a/b": "c"},
            "finalizers": ["x/y", 7, "z"], "deletionTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-rs",
                "controller": true, "blockOwnerDeletion": true}, {"broken": 1},
                {"apiVersion": "v1", "kind": "A", "name": "a", "uid": "ua", "controller": null, "extra": 1},
                {"apiVersion": "v1", "kind": "B", "name": "b", "uid": "ub", "controller": "yes"},
                {"apiVersion": "v1", "kind": "C", "name": "c", "uid": 7}, "not an object"]},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    }

    /// The cached form answers every metadata read as the `Value` it came from.
    #[test]
    fn object_reads_agree_with_value() {
        // Malformed controller references before the well-formed one: skipped.
        let later_controller = json!({"metadata": {"ownerReferences": [
            {"apiVersion": "v1", "kind": "X", "name": "x", "uid": 7, "controller": true},
            {"apiVersion": "v1", "kind": "Y", "name": "y", "uid": "uy", "controller": "yes"},
            {"apiVersion": "v1", "kind": "Z", "name": "z", "uid": "uz"},
            {"apiVersion": "v1", "kind": "W", "name": "w", "uid": "uw", "controller": true}]}});
        assert_eq!(Frozen::from(&later_controller).controller_uid(), Some("uw"));
        let cases = [
            pod(),
            later_controller,
            json!({"kind": "Namespace", "metadata": {"name": "demo", "namespace": ""}}),
            json!(null),
        ];
        for v in cases {
            let f = Frozen::from(&v);
            assert_eq!(f.api_version(), v.api_version());
            assert_eq!(f.kind(), v.kind());
            assert_eq!(f.name(), v.name());
            assert_eq!(f.namespace(), v.namespace());
            assert_eq!(f.uid(), v.uid());
            assert_eq!(f.resource_version(), v.resource_version());
            assert_eq!(f.generation(), v.generation());
            assert_eq!(f.labels().map(Obj::to_map).as_ref(), v.labels());
            assert_eq!(f.label("app"), v.label("app"));
            assert_eq!(f.annotation("a/b"), v.annotation("a/b"));
            assert_eq!(f.finalizers(), v.finalizers());
            assert_eq!(f.has_finalizer("z"), v.has_finalizer("z"));
            assert_eq!(f.deletion_timestamp(), v.deletion_timestamp());
            assert_eq!(f.is_deleting(), v.is_deleting());
            assert_eq!(f.owner_references(), v.owner_references());
            assert_eq!(f.controller_ref(), v.controller_ref());
            assert_eq!(f.controller_uid(), v.controller_uid());
            assert_eq!(f.controller_uid().map(str::to_string), f.controller_ref().map(|r| r.uid));
            assert_eq!(f.key(), v.key());
        }
        assert_eq!(Frozen::from(pod()).key(), "default/web-1");
        assert_eq!(Frozen::from(pod()).owner_references().len(), 2);
    }
}
