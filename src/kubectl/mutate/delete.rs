//! `kubectl delete`, with its cascade (propagation policy) and `--wait`.

use super::select;
use crate::engine::apiserver::{DeleteOptions, Deleted, Propagation};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::Reason;
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{with_source, CmdCtx, CmdError, Deferred, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed, ALL_NAMESPACES, SELECTOR};

/// `kubectl delete` flags.
pub const DELETE_FLAGS: &[FlagSpec] = &[
    flag(
        "filename",
        Some('f'),
        FlagKind::List,
        "Filename or '-' (the here-document) containing the resource to delete.",
    ),
    SELECTOR,
    flag("all", None, FlagKind::Bool, "Delete all resources, in the namespace of the specified resource types."),
    ALL_NAMESPACES,
    flag(
        "cascade",
        None,
        FlagKind::Str,
        "Must be \"background\", \"orphan\", or \"foreground\". Defaults to background.",
    ),
    flag(
        "grace-period",
        None,
        FlagKind::Int,
        "Period of time in seconds given to the resource to terminate gracefully.",
    ),
    flag(
        "now",
        None,
        FlagKind::Bool,
        "If true, resources are signaled for immediate shutdown (same as --grace-period=1).",
    ),
    flag("force", None, FlagKind::Bool, "If true, immediately remove resources from API and bypass graceful deletion."),
    flag("wait", None, FlagKind::Bool, "If true, wait for resources to be gone before returning. Defaults to true."),
    flag("ignore-not-found", None, FlagKind::Bool, "Treat \"resource not found\" as a successful delete."),
    flag("output", Some('o'), FlagKind::Str, "Output mode. Use \"-o name\" for shorter output (resource/name)."),
];

/// One object a waiting delete waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeletionTarget {
    /// Its kind.
    pub kind: &'static Kind,
    /// Its namespace.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// Its uid: an object recreated under the same name is a different object.
    pub uid: String,
}

/// `kubectl delete`: prints `<kind.group> "<name>" deleted from <ns> namespace` (v1.34; no
/// namespace part for cluster-scoped objects) after each DELETE, then waits while finalizers
/// or graceful deletion keep an object (kubectl `pkg/cmd/delete/delete.go`,
/// `DeleteOptions.DeleteResult`).
pub fn delete(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Option<Vec<DeletionTarget>> {
    let propagation = match p.str("cascade").unwrap_or("background") {
        "background" => Propagation::Background,
        "foreground" => Propagation::Foreground,
        "orphan" => Propagation::Orphan,
        "true" => {
            out.err("warning: --cascade=true is deprecated (boolean value) and can be replaced with --cascade=background.\n");
            Propagation::Background
        }
        "false" => {
            out.err(
                "warning: --cascade=false is deprecated (boolean value) and can be replaced with --cascade=orphan.\n",
            );
            Propagation::Orphan
        }
        other => {
            out.fail(CmdError::Plain(format!(
                "invalid cascade value ({other}). Must be \"background\", \"foreground\", or \"orphan\""
            )));
            return None;
        }
    };
    let mut grace = p.int("grace-period").filter(|g| *g >= 0);
    if p.bool("now") {
        grace = Some(1);
    }
    let force = p.bool("force");
    if force && grace.is_none() {
        grace = Some(0);
    }
    if grace == Some(0) && !force {
        grace = Some(1);
    }
    if force {
        out.err("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.\n");
    }
    let objs = match select(api, ctx, p, "delete", &p.args) {
        Ok(o) => o,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    if objs.is_empty() {
        out.out("No resources found\n");
        return None;
    }
    let mut waiting = Vec::new();
    let mut errs = Deferred::default();
    for (source, kind, ns, name) in objs {
        let opts =
            DeleteOptions { propagation_policy: Some(propagation), grace_period_seconds: grace, ..Default::default() };
        match api.delete(kind, ns.as_deref(), &name, &opts) {
            Ok(result) => {
                let (obj, pending) = match &result {
                    Deleted::Gone(o) => (o, false),
                    Deleted::Pending(o) => (o, true),
                };
                if p.str("output") == Some("name") {
                    out.out(format!("{}/{name}\n", kind.name_prefix()));
                } else {
                    let verb = if force { "force deleted" } else { "deleted" };
                    match ns.as_deref() {
                        Some(n) => out.out(format!("{} \"{name}\" {verb} from {n} namespace\n", kind.name_prefix())),
                        None => out.out(format!("{} \"{name}\" {verb}\n", kind.name_prefix())),
                    }
                }
                if pending && !matches!(p.str("wait"), Some("false")) {
                    waiting.push(DeletionTarget {
                        kind,
                        namespace: ns.clone(),
                        name: name.clone(),
                        uid: obj.uid().to_string(),
                    });
                }
            }
            Err(e) if e.reason == Reason::NotFound && p.bool("ignore-not-found") => {}
            Err(e) => errs.push(with_source("deleting", &source, e).into()),
        }
    }
    errs.report(out);
    (!waiting.is_empty()).then_some(waiting)
}
