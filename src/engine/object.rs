//! Objects are JSON values (`serde_json::Value` with insertion order kept), exactly as the API
//! server stores and serves them. [`ObjectExt`] reads and writes the common `metadata` fields
//! without a typed struct per kind, so patches, JSONPath and printing see the same object.
//! What caches, watch events and notifications share is the immutable, compact form of the same
//! JSON ([`Shared`], a [`Frozen`](super::frozen::Frozen) tree), which `ObjectExt` reads too.

use std::borrow::BorrowMut;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An object as the API server's watch events and lists hand it out and as informer caches and
/// handler notifications keep it: immutable and shared, so that every process caching the same
/// version of an object holds one copy, and the world's snapshots copy pointers, not objects.
/// The object is a [`Frozen`](super::frozen::Frozen) tree (a fifth of a `Value`'s memory); code
/// that modifies it takes a `to_value()` copy first.
pub type Shared = std::sync::Arc<super::frozen::Frozen>;

/// The shared, immutable form of an object (a [`Frozen`](super::frozen::Frozen) copy of a `Value`
/// or of a reference to one), for code that builds a cached object or a notification itself:
/// the one place such an object is made (watch events and lists hand theirs out already shared).
pub fn share(obj: impl Into<super::frozen::Frozen>) -> Shared {
    std::sync::Arc::new(obj.into())
}

/// One entry of `metadata.ownerReferences` (kubernetes-semantics.md §4.1).
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
/// `serde_json::Value` (what verbs and writers build) and a [`Frozen`](super::frozen::Frozen) tree (what caches, watch
/// events and notifications share). `Map` is the form's object type; `meta_mut` exists for
/// `Value` only (a `Frozen` is immutable: take `to_value()` first).
pub trait ObjectExt {
    /// The form's JSON object type (`Map<String, Value>` or [`Obj`](super::frozen::Obj)).
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
    /// The informer cache key: `namespace/name`, or `name` for cluster-scoped objects
    /// (`MetaNamespaceKeyFunc`, kubernetes-semantics.md §2.2).
    fn key(&self) -> String {
        match self.namespace() {
            Some(ns) => format!("{ns}/{}", self.name()),
            None => self.name().to_string(),
        }
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
}
