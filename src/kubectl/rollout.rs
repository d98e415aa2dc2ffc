//! `kubectl rollout status|history|undo|restart|pause|resume` for Deployments (kubectl pkg/cmd/rollout,
//! pkg/polymorphichelpers: `DeploymentStatusViewer`, `DeploymentHistoryViewer`,
//! `DeploymentRollbacker`, `defaultObjectRestarter`).

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::resources::{self, Target};
use crate::engine::apiserver::{Patch, Subresource};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use serde_json::{json, Value};

/// The revision annotation the deployment controller keeps on ReplicaSets.
const REVISION: &str = "deployment.kubernetes.io/revision";
/// The annotation `kubectl rollout history` shows as CHANGE-CAUSE.
const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";

/// `rollout status` flags.
pub const STATUS_FLAGS: &[FlagSpec] = &[
    flag("watch", Some('w'), FlagKind::Bool, "Watch the status of the rollout until it's done. Defaults to true."),
    flag("revision", None, FlagKind::Int, "Pin to a specific revision for showing its status."),
];
/// `rollout history` flags.
pub const HISTORY_FLAGS: &[FlagSpec] =
    &[flag("revision", None, FlagKind::Int, "See the details, including podTemplate of the revision specified.")];
/// `rollout undo` flags.
pub const UNDO_FLAGS: &[FlagSpec] =
    &[flag("to-revision", None, FlagKind::Int, "The revision to rollback to. Default to 0 (last revision).")];
/// `rollout restart` flags.
pub const RESTART_FLAGS: &[FlagSpec] = &[];

fn deployment_target(p: &Parsed, cmd: &str) -> Result<(&'static Kind, String), CmdError> {
    let targets = resources::resolve(&p.args, false)?;
    match targets.as_slice() {
        [Target::Named(k, n)] if k.kind == "Deployment" => Ok((*k, n.clone())),
        [Target::Named(k, n)] => {
            Err(CmdError::Plain(format!("no {cmd} viewer has been implemented for \"{}\"/{n}", k.group_kind())))
        }
        [] => Err(CmdError::Usage { cmd: format!("rollout {cmd}"), msg: "required resource not specified".into() }),
        _ => Err(CmdError::Plain(
            "this console handles one deployment at a time: kubectl rollout ... deployment/NAME".into(),
        )),
    }
}

fn i(v: &Value, p: &str) -> i64 {
    v.pointer(p).and_then(Value::as_i64).unwrap_or(0)
}

/// `DeploymentStatusViewer.Status`: the line to print and whether the rollout is done.
pub fn status_line(d: &Value) -> Result<(String, bool), String> {
    let name = d.name();
    if d.generation() <= i(d, "/status/observedGeneration") {
        let timed_out = d.pointer("/status/conditions").and_then(Value::as_array).is_some_and(|cs| {
            cs.iter().any(|c| c["type"] == "Progressing" && c["reason"] == "ProgressDeadlineExceeded")
        });
        if timed_out {
            return Err(format!("deployment {name:?} exceeded its progress deadline"));
        }
        let replicas = d.pointer("/spec/replicas").and_then(Value::as_i64);
        let updated = i(d, "/status/updatedReplicas");
        if let Some(r) = replicas.filter(|r| updated < *r) {
            return Ok((format!("Waiting for deployment {name:?} rollout to finish: {updated} out of {r} new replicas have been updated...\n"), false));
        }
        let total = i(d, "/status/replicas");
        if total > updated {
            return Ok((
                format!(
                    "Waiting for deployment {name:?} rollout to finish: {} old replicas are pending termination...\n",
                    total - updated
                ),
                false,
            ));
        }
        let available = i(d, "/status/availableReplicas");
        if available < updated {
            return Ok((format!("Waiting for deployment {name:?} rollout to finish: {available} of {updated} updated replicas are available...\n"), false));
        }
        return Ok((format!("deployment {name:?} successfully rolled out\n"), true));
    }
    Ok(("Waiting for deployment spec update to be observed...\n".into(), false))
}

/// A `rollout status` waiting for the rollout to finish.
#[derive(Clone, Debug)]
pub struct StatusWait {
    /// Namespace of the deployment.
    pub namespace: String,
    /// Its name.
    pub name: String,
    /// The last line printed (each new state prints once).
    pub last: String,
}

/// `kubectl rollout status deployment/NAME`: prints the current state and, unless done (or
/// `--watch=false`), keeps waiting ([`StatusWait`]) to print each new state once.
pub fn status(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Option<StatusWait> {
    let (kind, name) = match deployment_target(p, "status") {
        Ok(t) => t,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    let d = match api.get(kind, Some(ctx.ns), &name) {
        Ok(d) => d,
        Err(e) => {
            out.fail(e.into());
            return None;
        }
    };
    match status_line(&d) {
        Err(e) => {
            out.fail(CmdError::Plain(e));
            None
        }
        Ok((line, true)) => {
            out.out(line);
            None
        }
        Ok((line, false)) => {
            out.out(&line);
            if p.str("watch") == Some("false") {
                return None;
            }
            Some(StatusWait { namespace: ctx.ns.to_string(), name, last: line })
        }
    }
}

/// Prints new `rollout status` lines; true when the rollout finished (or failed).
pub fn resume_status(api: &mut dyn Cluster, wait: &mut StatusWait, out: &mut Output) -> bool {
    let StatusWait { namespace, name, last } = wait;
    let Some(kind) = Kind::lookup("deployments") else { return true };
    let d = match api.get(kind, Some(namespace), name) {
        Ok(d) => d,
        Err(e) => {
            out.fail(e.into());
            return true;
        }
    };
    match status_line(&d) {
        Err(e) => {
            out.fail(CmdError::Plain(e));
            true
        }
        Ok((line, done)) => {
            if line != *last {
                out.out(&line);
                *last = line;
            }
            done
        }
    }
}

/// The ReplicaSets a deployment controls (by controllerRef uid), with their revisions.
fn owned_replicasets(api: &dyn Cluster, d: &Value, ns: &str) -> Vec<(i64, Value)> {
    let Some(rs_kind) = Kind::lookup("replicasets") else { return Vec::new() };
    let Ok(list) = api.list(rs_kind, Some(ns), &Selector::everything()) else { return Vec::new() };
    let mut out: Vec<(i64, Value)> = list
        .items
        .into_iter()
        .filter(|rs| rs.controller_ref().is_some_and(|r| r.uid == d.uid()))
        .map(|rs| (rs.annotation(REVISION).and_then(|r| r.parse().ok()).unwrap_or(0), rs))
        .collect();
    crate::sort::sort_by_key(&mut out, |(r, _)| *r);
    out
}

/// `kubectl rollout history deployment/NAME`.
pub fn history(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let (kind, name) = match deployment_target(p, "history") {
        Ok(t) => t,
        Err(e) => return out.fail(e),
    };
    let d = match api.get(kind, Some(ctx.ns), &name) {
        Ok(d) => d,
        Err(e) => return out.fail(e.into()),
    };
    let rss = owned_replicasets(api, &d, ctx.ns);
    if let Some(rev) = p.int("revision").filter(|r| *r > 0) {
        let Some((_, rs)) = rss.iter().find(|(r, _)| *r == rev) else {
            return out.fail(CmdError::Plain("unable to find the specified revision".into()));
        };
        // DeploymentHistoryViewer: the ReplicaSet's template with its change-cause added to the
        // template's annotations, written by DescribePodTemplate straight into a buffer (no
        // tabwriter: the tabs stay), then through the name printer, which adds a newline.
        let mut tpl = rs.pointer("/spec/template").cloned().unwrap_or(json!({}));
        if let Some(cause) = rs.annotation(CHANGE_CAUSE).filter(|c| !c.is_empty()) {
            tpl.meta_mut()
                .entry("annotations")
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .map(|a| a.insert(CHANGE_CAUSE.into(), json!(cause)));
        }
        out.out(format!("deployment.apps/{name} with revision #{rev}\n"));
        out.out(super::describe::pod_template_raw(&tpl));
        out.out("\n");
        return;
    }
    let mut body = String::from("REVISION  CHANGE-CAUSE\n");
    for (rev, rs) in rss.iter().filter(|(r, _)| *r > 0) {
        let cause = rs.annotation(CHANGE_CAUSE).unwrap_or("<none>");
        body.push_str(&format!("{rev:<10}{cause}\n"));
    }
    out.out(format!("deployment.apps/{name} \n{body}\n"));
}

/// `kubectl rollout undo deployment/NAME [--to-revision=N]`: copies the chosen revision's pod
/// template (without `pod-template-hash`) back into the deployment.
pub fn undo(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let (kind, name) = match deployment_target(p, "undo") {
        Ok(t) => t,
        Err(e) => return out.fail(e),
    };
    let d = match api.get(kind, Some(ctx.ns), &name) {
        Ok(d) => d,
        Err(e) => return out.fail(e.into()),
    };
    let rss = owned_replicasets(api, &d, ctx.ns);
    let to = p.int("to-revision").unwrap_or(0);
    let target = if to == 0 {
        // The previous revision: the highest revision below the current maximum.
        let max = rss.iter().map(|(r, _)| *r).max().unwrap_or(0);
        rss.iter().filter(|(r, _)| *r < max).max_by_key(|(r, _)| *r)
    } else {
        rss.iter().find(|(r, _)| *r == to)
    };
    let Some((rev, rs)) = target else {
        let msg = if to == 0 {
            format!("no rollout history found for deployment {name:?}")
        } else {
            format!("unable to find specified revision {to} in history")
        };
        return out.fail(CmdError::Plain(msg));
    };
    // `DeploymentRollbacker.Rollback`: a paused Deployment is refused after the revision is
    // found and before the template is compared (polymorphichelpers/rollback.go).
    if d.pointer("/spec/paused").and_then(Value::as_bool).unwrap_or(false) {
        return out.fail(CmdError::Plain(
            "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"
                .into(),
        ));
    }
    let mut tpl = rs.pointer("/spec/template").cloned().unwrap_or(json!({}));
    if let Some(labels) = tpl.pointer_mut("/metadata/labels").and_then(Value::as_object_mut) {
        labels.remove("pod-template-hash");
    }
    if d.pointer("/spec/template") == Some(&tpl) {
        out.out(format!("deployment.apps/{name} skipped rollback (current template already matches revision {rev})\n"));
        return;
    }
    // The deployment keeps its own bookkeeping annotations and takes the revision's others
    // (its change-cause, for instance): kubectl's `annotationsToSkip`.
    const SKIP: &[&str] = &[
        super::mutate::LAST_APPLIED,
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    ];
    let mut annotations = serde_json::Map::new();
    let own = d.pointer("/metadata/annotations").and_then(Value::as_object).cloned().unwrap_or_default();
    for (k, v) in own.iter().filter(|(k, _)| SKIP.contains(&k.as_str())) {
        annotations.insert(k.clone(), v.clone());
    }
    let theirs = rs.pointer("/metadata/annotations").and_then(Value::as_object).cloned().unwrap_or_default();
    for (k, v) in theirs.iter().filter(|(k, _)| !SKIP.contains(&k.as_str())) {
        annotations.insert(k.clone(), v.clone());
    }
    let patch = json!([
        {"op": "replace", "path": "/spec/template", "value": tpl},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations}
    ]);
    match api.patch(kind, Some(ctx.ns), &name, &Patch::Json(patch), Subresource::Main) {
        Ok(_) => out.out(format!("deployment.apps/{name} rolled back\n")),
        Err(e) => out.fail(e.into()),
    }
}

/// `kubectl rollout restart deployment/NAME`: sets the pod template annotation
/// `kubectl.kubernetes.io/restartedAt` to now, which starts a new rollout.
pub fn restart(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let (kind, name) = match deployment_target(p, "restart") {
        Ok(t) => t,
        Err(e) => return out.fail(e),
    };
    let now = api.now().rfc3339();
    let patch =
        json!({"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": now}}}}});
    match api.patch(kind, Some(ctx.ns), &name, &Patch::Strategic(patch), Subresource::Main) {
        Ok(_) => out.out(format!("deployment.apps/{name} restarted\n")),
        Err(e) => out.fail(e.into()),
    }
}

/// `rollout pause` and `rollout resume` flags.
pub const PAUSE_FLAGS: &[FlagSpec] = &[];

/// `kubectl rollout pause|resume deployment/NAME` (kubectl `pkg/cmd/rollout/rollout_pause.go`
/// `RunPause`, `rollout_resume.go` `RunResume`, with `polymorphichelpers.defaultObjectPauser` /
/// `defaultObjectResumer`): a strategic merge patch of `spec.paused`. Pausing a paused Deployment
/// (or resuming one that is not paused) is the helper's error, `is already paused` / `is not
/// paused`, printed as `error: deployments.apps "web" is already paused`; any other kind cannot
/// be paused (`pausing is not supported`).
pub fn pause(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    pause_or_resume(api, ctx, p, out, true);
}

/// `kubectl rollout resume`: see [`pause_or_resume`].
pub fn resume(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    pause_or_resume(api, ctx, p, out, false);
}

fn pause_or_resume(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output, pause: bool) {
    let targets = match resources::resolve(&p.args, false) {
        Ok(t) => t,
        Err(e) => return out.fail(e),
    };
    if targets.is_empty() {
        return out.fail(CmdError::Plain("required resource not specified".into()));
    }
    let mut errors = Vec::new();
    for target in targets {
        let Target::Named(kind, name) = target else {
            errors.push("this console handles named resources only: kubectl rollout pause deployment/NAME".into());
            continue;
        };
        let obj = match api.get(kind, Some(ctx.ns), &name) {
            Ok(o) => o,
            Err(e) => return out.fail(e.into()),
        };
        let resource = kind.group_resource();
        let (verb, done) = if pause { ("pausing", "paused") } else { ("resuming", "resumed") };
        if kind.kind != "Deployment" {
            errors.push(format!("{resource} {name:?} {verb} is not supported"));
            continue;
        }
        let paused = obj.pointer("/spec/paused").and_then(Value::as_bool).unwrap_or(false);
        if paused == pause {
            let why = if pause { "is already paused" } else { "is not paused" };
            errors.push(format!("{resource} {name:?} {why}"));
            continue;
        }
        let patch = json!({"spec": {"paused": if pause { json!(true) } else { Value::Null }}});
        match api.patch(kind, Some(ctx.ns), &name, &Patch::Strategic(patch), Subresource::Main) {
            Ok(_) => out.out(format!("{}/{name} {done}\n", kind.name_prefix())),
            Err(e) => errors.push(format!("failed to patch: {}", e.message)),
        }
    }
    if !errors.is_empty() {
        // utilerrors.NewAggregate: one error prints alone, several as a bracketed list.
        let msg = if errors.len() == 1 { errors.remove(0) } else { format!("[{}]", errors.join(", ")) };
        out.fail(CmdError::Plain(msg));
    }
}
