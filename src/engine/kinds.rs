//! The resource kinds the miniature API server serves, and the per-kind rules that differ
//! between them (each kind's `pkg/registry/<group>/<kind>/strategy.go` upstream).

/// How `metadata.generation` behaves for a kind (the kind's strategy, e.g. k/k
/// `pkg/registry/apps/deployment/strategy.go`, `PrepareForUpdate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// No generation at all (Namespace, ConfigMap, Lease, Node, Event): the field is omitted.
    None,
    /// +1 on any change to `.spec` (ReplicaSet, Pod since KEP-5067).
    Spec,
    /// +1 on any change to `.spec` or to `metadata.annotations` (Deployment).
    SpecAndAnnotations,
    /// +1 on any change outside `metadata` (custom resources; status is already dropped
    /// from main-resource writes because the kind has a status subresource).
    NonMetadata,
}

/// The propagation policy a raw DELETE without one gets (the kind's strategy's
/// `DefaultGarbageCollectionPolicy`; apiserver `pkg/registry/generic/registry/store.go`,
/// `deletionFinalizersForGarbageCollection`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultPropagation {
    /// Dependents are deleted in the background.
    Background,
    /// Dependents are orphaned (ReplicationController, Job; none of ours).
    Orphan,
}

/// One served kind with its rules. All kinds are static: the list is [`KINDS`].
#[derive(Debug, PartialEq, Eq)]
pub struct Kind {
    /// `kind`, e.g. `Deployment`.
    pub kind: &'static str,
    /// API group, empty for the core group.
    pub group: &'static str,
    /// API version within the group, e.g. `v1`.
    pub version: &'static str,
    /// Plural resource name, e.g. `deployments`.
    pub resource: &'static str,
    /// Singular resource name, e.g. `deployment`.
    pub singular: &'static str,
    /// kubectl short names, e.g. `deploy`.
    pub short_names: &'static [&'static str],
    /// Namespaced (true) or cluster-scoped (false).
    pub namespaced: bool,
    /// How generation is kept.
    pub generation: Generation,
    /// Whether the kind has a `/status` subresource (main-resource writes then ignore status).
    pub status_subresource: bool,
    /// Whether a PUT without `metadata.resourceVersion` is allowed (last writer wins).
    /// False for custom resources (the strategy's `AllowUnconditionalUpdate`;
    /// apiextensions-apiserver `pkg/registry/customresource/strategy.go`).
    pub unconditional_update: bool,
    /// Whether DELETE is graceful (Pods: deletionTimestamp in the future, the kubelet deletes).
    pub graceful: bool,
    /// Whether a DELETE that removes the object answers with the object (true) or a Status.
    pub return_deleted_object: bool,
    /// The GC policy of a DELETE that names none.
    pub default_propagation: DefaultPropagation,
}

impl Kind {
    /// `apps/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The GroupResource string used in most messages: `deployments.apps`, or `pods` for core.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.resource.to_string()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }

    /// The GroupKind string used in Invalid messages: `Deployment.apps`, or `Pod` for core.
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.to_string()
        } else {
            format!("{}.{}", self.kind, self.group)
        }
    }

    /// The `-o name` prefix: `deployment.apps`, or `pod` for core.
    pub fn name_prefix(&self) -> String {
        let lower = self.kind.to_ascii_lowercase();
        if self.group.is_empty() {
            lower
        } else {
            format!("{lower}.{}", self.group)
        }
    }

    /// Whether `metadata.generation` is kept for this kind.
    pub fn has_generation(&self) -> bool {
        self.generation != Generation::None
    }

    /// Looks a kind up the way kubectl resolves a resource argument: plural, singular, short
    /// name or kind (any case), optionally qualified with the group (`deployments.apps`).
    pub fn lookup(name: &str) -> Option<&'static Kind> {
        let name = name.to_ascii_lowercase();
        let (base, group) = match name.split_once('.') {
            Some((b, g)) => (b.to_string(), Some(g.to_string())),
            None => (name.clone(), None),
        };
        KINDS.iter().find(|k| {
            let matches_name = k.resource == base
                || k.singular == base
                || k.kind.eq_ignore_ascii_case(&base)
                || k.short_names.contains(&base.as_str());
            matches_name && group.as_deref().is_none_or(|g| g == k.group)
        })
    }

    /// Finds the kind of an object from its `apiVersion` and `kind`.
    pub fn for_object(api_version: &str, kind: &str) -> Option<&'static Kind> {
        KINDS.iter().find(|k| k.kind == kind && k.api_version() == api_version)
    }

    /// Finds a kind by its `kind` name alone (`Deployment`).
    pub fn by_kind(kind: &str) -> Option<&'static Kind> {
        KINDS.iter().find(|k| k.kind == kind)
    }
}

#[allow(clippy::too_many_arguments)] // one argument per column of the KINDS table
const fn builtin(
    kind: &'static str,
    group: &'static str,
    resource: &'static str,
    singular: &'static str,
    short_names: &'static [&'static str],
    namespaced: bool,
    generation: Generation,
    status_subresource: bool,
) -> Kind {
    Kind {
        kind,
        group,
        version: "v1",
        resource,
        singular,
        short_names,
        namespaced,
        generation,
        status_subresource,
        unconditional_update: true,
        graceful: false,
        return_deleted_object: false,
        default_propagation: DefaultPropagation::Background,
    }
}

/// Every kind the miniature serves. Order is the order `kubectl api-resources` would list them
/// in within this lab (core first, then by group).
pub static KINDS: &[Kind] = &[
    Kind {
        return_deleted_object: true,
        ..builtin("Namespace", "", "namespaces", "namespace", &["ns"], false, Generation::None, true)
    },
    Kind {
        return_deleted_object: true,
        ..builtin("Node", "", "nodes", "node", &["no"], false, Generation::None, true)
    },
    Kind {
        graceful: true,
        return_deleted_object: true,
        ..builtin("Pod", "", "pods", "pod", &["po"], true, Generation::Spec, true)
    },
    builtin("ConfigMap", "", "configmaps", "configmap", &["cm"], true, Generation::None, false),
    builtin("Event", "", "events", "event", &["ev"], true, Generation::None, false),
    builtin("Deployment", "apps", "deployments", "deployment", &["deploy"], true, Generation::SpecAndAnnotations, true),
    builtin("ReplicaSet", "apps", "replicasets", "replicaset", &["rs"], true, Generation::Spec, true),
    builtin("Lease", "coordination.k8s.io", "leases", "lease", &[], true, Generation::None, false),
    Kind {
        unconditional_update: false,
        ..builtin("Bucket", "example.com", "buckets", "bucket", &[], true, Generation::NonMetadata, true)
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        for n in ["deploy", "deployments", "Deployment", "deployment.apps", "deployments.apps"] {
            assert_eq!(Kind::lookup(n).map(|k| k.kind), Some("Deployment"), "{n}");
        }
        assert_eq!(Kind::lookup("po").map(|k| k.kind), Some("Pod"));
        assert_eq!(Kind::lookup("buckets.example.com").map(|k| k.kind), Some("Bucket"));
        assert_eq!(Kind::lookup("deploy.core"), None);
        assert_eq!(Kind::lookup("widgets"), None);
    }

    #[test]
    fn names() {
        let d = Kind::lookup("deploy").unwrap();
        assert_eq!(d.api_version(), "apps/v1");
        assert_eq!(d.group_resource(), "deployments.apps");
        assert_eq!(d.group_kind(), "Deployment.apps");
        assert_eq!(d.name_prefix(), "deployment.apps");
        let p = Kind::lookup("pods").unwrap();
        assert_eq!((p.group_resource().as_str(), p.name_prefix().as_str()), ("pods", "pod"));
        assert_eq!(Kind::for_object("coordination.k8s.io/v1", "Lease").map(|k| k.resource), Some("leases"));
    }
}
