//! `kubectl scale`.

use super::{done, fetch, select, OUTPUT_NAME};
use crate::engine::apiserver::{Patch, Subresource};
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{CmdCtx, CmdError, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed, SELECTOR};
use serde_json::{json, Value};

/// `kubectl scale` flags.
pub const SCALE_FLAGS: &[FlagSpec] = &[
    flag("replicas", None, FlagKind::Int, "The new desired number of replicas. Required."),
    flag("current-replicas", None, FlagKind::Int, "Precondition for current size. Requires that the current size of the resource match this value in order to scale."),
    flag("resource-version", None, FlagKind::Str, "Precondition for resource version."),
    SELECTOR,
    flag("all", None, FlagKind::Bool, "Select all resources in the namespace of the specified resource types."),
    flag("filename", Some('f'), FlagKind::List, "Filename or '-' identifying the resource to set a new size."),
    OUTPUT_NAME,
];

/// `kubectl scale --replicas=N` (kubectl pkg/cmd/scale): prints `deployment.apps/web scaled`;
/// unlike the other writing verbs it stops at the first object that fails.
pub fn scale(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let Some(replicas) = p.int("replicas") else {
        return out.fail(CmdError::Plain("required flag(s) \"replicas\" not set".into()));
    };
    if replicas < 0 {
        return out.fail(CmdError::Plain(
            "The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0".into(),
        ));
    }
    let objs = match select(api, ctx, p, "scale", &p.args) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    for (source, kind, ns, name) in objs {
        if !matches!(kind.kind, "Deployment" | "ReplicaSet") {
            out.fail(CmdError::Raw(format!(
                "Error from server (NotFound): the server could not find the requested resource ({} {name}/scale)",
                kind.resource
            )));
            return;
        }
        let current = match fetch(api, kind, ns.as_deref(), &name, &source, "scaling") {
            Ok(o) => o,
            Err(e) => {
                out.fail(e);
                return;
            }
        };
        if let Some(expected) = p.int("current-replicas").filter(|c| *c >= 0) {
            let actual = current.pointer("/spec/replicas").and_then(Value::as_i64).unwrap_or(1);
            if actual != expected {
                return out.fail(CmdError::Plain(format!("Expected replicas to be {expected}, was {actual}")));
            }
        }
        let mut patch = json!({"spec": {"replicas": replicas}});
        if let Some(rv) = p.str("resource-version") {
            patch["metadata"] = json!({"resourceVersion": rv});
        }
        match api.patch(kind, ns.as_deref(), &name, &Patch::Merge(patch), Subresource::Main) {
            Ok(o) => done(out, p, kind, &o, "scaled"),
            Err(e) => return out.fail(e.into()),
        }
    }
}
