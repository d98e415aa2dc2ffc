//! Admission: the checks that run before a create is validated and stored.
//!
//! - NamespaceLifecycle (apiserver
//!   `pkg/admission/plugin/namespace/lifecycle/admission.go`): content may not be created in a
//!   namespace that does not exist (404) or is Terminating (403 with a `NamespaceTerminating`
//!   cause); the immortal namespaces refuse deletion (403).
//! - An object-count quota standing in for ResourceQuota: a cap per kind, reported with the
//!   quota admission plugin's wording (`exceeded quota: <name>, requested: <r>=1, used: <r>=<n>,
//!   limited: <r>=<n>`; k/k `plugin/pkg/admission/resourcequota/controller.go`). Pods count as
//!   `pods`, other kinds as `count/<resource>.<group>`, as object-count quotas name them.

use serde_json::Value;

use super::ApiServer;
use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Cause, Status};

/// Namespaces that may never be deleted (`immortalNamespaces`).
pub const IMMORTAL_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public"];

/// The name of the quota that enforces the object cap.
pub const QUOTA_NAME: &str = "object-count";

/// Whether a Namespace is being terminated (`status.phase: Terminating`): NamespaceLifecycle then
/// refuses creates in it.
fn is_terminating(namespace: &Frozen) -> bool {
    namespace.pointer("/status/phase").and_then(Frozen::as_str) == Some("Terminating")
}

impl ApiServer {
    /// NamespaceLifecycle for a create of `obj` (a namespaced kind) in namespace `ns`.
    pub(crate) fn admit_namespace_lifecycle(&self, kind: &Kind, ns: &str, obj: &Value) -> Result<(), Status> {
        if !kind.namespaced {
            return Ok(());
        }
        let ns_kind = Kind::by_kind("Namespace")
            .ok_or_else(|| Status::new(crate::engine::status::Reason::InternalError, "no Namespace kind"))?;
        // The shared form: no decode of the namespace for every create in it.
        let namespace = self.get_shared(ns_kind, None, ns)?;
        if is_terminating(&namespace) {
            // `admission.NewForbidden` names the object, else its generateName, else "Unknown".
            let generate = obj.meta().and_then(|m| m.get("generateName")).and_then(Value::as_str).unwrap_or("");
            let name = match (obj.name(), generate) {
                ("", "") => "Unknown",
                ("", g) => g,
                (n, _) => n,
            };
            let mut s = Status::forbidden(
                kind,
                name,
                &format!("unable to create new content in namespace {ns} because it is being terminated"),
            );
            s.causes.push(Cause {
                reason: "NamespaceTerminating".into(),
                message: format!("namespace {ns} is being terminated"),
                field: "metadata.namespace".into(),
            });
            return Err(s);
        }
        Ok(())
    }

    /// Whether NamespaceLifecycle admits a create in namespace `ns` (it exists and is not
    /// Terminating): [`ApiServer::admit_namespace_lifecycle`]'s `Ok`, without an object.
    pub(crate) fn namespace_is_active(&self, ns: &str) -> bool {
        let Some(ns_kind) = Kind::by_kind("Namespace") else { return false };
        self.get_shared(ns_kind, None, ns).is_ok_and(|n| !is_terminating(&n))
    }

    /// The object-count quota for one more object of `kind` named `name`.
    pub(crate) fn admit_quota(&self, kind: &Kind, name: &str) -> Result<(), Status> {
        let used = self.count(kind);
        if used < self.object_limit {
            return Ok(());
        }
        let resource = if kind.kind == "Pod" { "pods".to_string() } else { format!("count/{}", kind.group_resource()) };
        Err(Status::forbidden(
            kind,
            name,
            &format!(
                "exceeded quota: {QUOTA_NAME}, requested: {resource}=1, used: {resource}={used}, limited: {resource}={}",
                self.object_limit
            ),
        ))
    }
}
