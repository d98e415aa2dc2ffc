//! kubectl's cluster-level verbs: `cluster-info`, `api-versions`, `cordon` and `uncordon` (the
//! lab's scheduler honours `spec.unschedulable`), and the verbs of a real cluster the lab does
//! not model (`logs`, `exec`, `port-forward`, `top`, `auth`, ...), which answer in words: what
//! the lab has instead and what to try, with exit status 1. None of them says "unknown command":
//! that stays for verbs kubectl does not have.

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed, SELECTOR};
use crate::engine::apiserver::{Patch, Subresource};
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use serde_json::{json, Value};

/// Where `kubectl cluster-info` says the control plane runs: the API server inside this page.
pub const CONTROL_PLANE: &str = "in-page://reconcile-lab/kube-apiserver";

/// `kubectl cluster-info` (kubectl pkg/cmd/clusterinfo, `Run`): the control plane, then one line
/// per cluster service (`kubernetes.io/cluster-service=true` in kube-system: the lab runs none,
/// so no CoreDNS line), then the hint about `dump`.
pub fn cluster_info(_api: &mut dyn Cluster, _ctx: &CmdCtx<'_>, _p: &Parsed, out: &mut Output) {
    out.out(format!(
        "Kubernetes control plane is running at {CONTROL_PLANE}\n\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n"
    ));
}

/// `kubectl api-versions` (kubectl pkg/cmd/apiresources, `RunAPIVersions`): every group/version
/// the server serves, sorted.
pub fn api_versions(_api: &mut dyn Cluster, _ctx: &CmdCtx<'_>, _p: &Parsed, out: &mut Output) {
    let mut versions: Vec<String> = KINDS.iter().map(Kind::api_version).collect();
    crate::sort::sort(&mut versions);
    versions.dedup();
    for v in versions {
        out.out(format!("{v}\n"));
    }
}

/// `kubectl cordon` and `uncordon` flags.
pub const CORDON_FLAGS: &[FlagSpec] = &[
    SELECTOR,
    flag(
        "dry-run",
        None,
        FlagKind::Str,
        "Must be \"none\" or \"client\". If client strategy, only print the object that would be sent.",
    ),
];

/// `kubectl cordon NODE`.
pub fn cordon(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    cordon_or_uncordon(api, ctx, p, out, true);
}

/// `kubectl uncordon NODE`.
pub fn uncordon(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    cordon_or_uncordon(api, ctx, p, out, false);
}

/// kubectl pkg/cmd/drain/drain.go, `RunCordonOrUncordon`: for each node, `node/NAME cordoned` after a
/// patch of `spec.unschedulable` (the two-way merge patch `CordonHelper.PatchOrReplace` sends),
/// or `already cordoned` when there is nothing to change.
fn cordon_or_uncordon(api: &mut dyn Cluster, _ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output, desired: bool) {
    let verb = if desired { "cordon" } else { "uncordon" };
    let selector = p.str("selector");
    if p.args.is_empty() && selector.is_none() {
        return out.fail(CmdError::Usage { cmd: verb.into(), msg: format!("USAGE: {verb} NODE [flags]") });
    }
    if !p.args.is_empty() && selector.is_some_and(|s| !s.is_empty()) {
        return out.fail(CmdError::Usage {
            cmd: verb.into(),
            msg: "cannot specify both a node name and a --selector option".into(),
        });
    }
    let dry = match p.str("dry-run") {
        None | Some("none") => false,
        Some("client") => true,
        Some("server") => {
            return out
                .fail(CmdError::Plain("--dry-run=server is not simulated in this lab; use --dry-run=client".into()))
        }
        Some(other) => {
            return out.fail(CmdError::Plain(format!(
                "Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
            )))
        }
    };
    let Some(nodes_kind) = Kind::lookup("nodes") else { return };
    // The nodes, all found before any is changed (the builder's Infos).
    let mut nodes: Vec<Value> = Vec::new();
    if let Some(sel) = selector {
        let sel = match Selector::parse(sel) {
            Ok(s) => s,
            Err(e) => return out.fail(CmdError::Plain(e)),
        };
        match api.list(nodes_kind, None, &sel) {
            Ok(l) => nodes.extend(l.items),
            Err(e) => return out.fail(e.into()),
        }
    }
    for arg in &p.args {
        let name = match arg.split_once('/') {
            Some((ty, name)) if Kind::lookup(ty).is_some_and(|k| k.kind == "Node") => name,
            Some((ty, _)) => {
                return out.fail(CmdError::Plain(format!("the server doesn't have a resource type \"{ty}\"")))
            }
            None => arg.as_str(),
        };
        match api.get(nodes_kind, None, name) {
            Ok(n) => nodes.push(n),
            Err(e) => return out.fail(e.into()),
        }
    }
    for node in nodes {
        let name = node.name().to_string();
        let current = node.pointer("/spec/unschedulable").and_then(Value::as_bool).unwrap_or(false);
        // The printer carries the dry-run suffix for every line (PrintFlagsWithDryRunStrategy).
        let suffix = if dry { " (dry run)" } else { "" };
        let shown = format!("node/{name}");
        if current == desired {
            out.out(format!("{shown} already {verb}ed{suffix}\n"));
            continue;
        }
        if !dry {
            // Unschedulable has omitempty: uncordoning removes the field.
            let value = if desired { json!(true) } else { Value::Null };
            let patch = Patch::Strategic(json!({"spec": {"unschedulable": value}}));
            if let Err(e) = api.patch(nodes_kind, None, &name, &patch, Subresource::Main) {
                let status = CmdError::from(e).standard_message();
                // Printed and skipped: RunCordonOrUncordon returns nil, so kubectl exits 0.
                out.err(format!("error: unable to {verb} node \"{name}\": {status}\n"));
                continue;
            }
        }
        out.out(format!("{shown} {verb}ed{suffix}\n"));
    }
}

// What the lab says for each kubectl verb it does not model, in place of running it (printed
// after `error: `, exit status 1).

/// `kubectl logs`.
pub const LOGS: &str = "kubectl logs: pods in Reconcile Lab run no processes, so they write no logs. 'kubectl describe pod NAME' shows a pod's state, conditions and events, and 'kubectl events --for pod/NAME' lists what happened to it.";
/// `kubectl attach`, `exec` and `cp`.
pub const NO_PROCESSES: &str = "containers in Reconcile Lab run no processes: there is nothing to attach to, run a command in or copy files from. 'kubectl describe pod NAME' shows each container's state, and 'kubectl get pod NAME -o yaml' its spec and status.";
/// `kubectl debug`.
pub const DEBUG: &str = "kubectl debug adds an ephemeral container (or a copy of the pod) to run tools in, and containers in Reconcile Lab run no processes. 'kubectl describe pod NAME' and 'kubectl events --for pod/NAME' show what happened to a pod.";
/// `kubectl port-forward`.
pub const PORT_FORWARD: &str = "Reconcile Lab has no network: pods have no ports to forward to (their containers' ports are kept as data: 'kubectl get pod NAME -o yaml').";
/// `kubectl proxy`.
pub const PROXY: &str = "kubectl here talks to the lab's API server inside this page; there is no HTTP endpoint to proxy ('kubectl cluster-info' shows where it runs).";
/// `kubectl top`: kubectl's own error first (pkg/cmd/top/top_node.go and top_pod.go, `RunTop`).
pub const TOP: &str = "Metrics API not available: Reconcile Lab runs no metrics-server, and its pods use no CPU or memory. 'kubectl describe node NAME' shows a node's capacity and what its pods request.";
/// `kubectl auth`.
pub const AUTH: &str = "Reconcile Lab has no authentication or authorization: your requests run as a cluster administrator and are allowed ('kubectl auth can-i' would answer yes). RBAC is not modeled, except that 'lab revoke deployment-controller' makes that controller's calls fail with 403 Forbidden.";
/// `kubectl certificate`.
pub const CERTIFICATE: &str = "CertificateSigningRequests are not part of Reconcile Lab: its API server runs inside this page and needs no certificates.";
/// `kubectl taint`.
pub const TAINT: &str = "taints and tolerations are not modeled: the lab's scheduler places a pod on any node that is not cordoned. 'kubectl cordon NODE' marks a node unschedulable, and the scheduler honours it.";
/// `kubectl drain`.
pub const DRAIN: &str = "kubectl drain cordons a node and evicts its pods through the Eviction API, which Reconcile Lab does not model. 'kubectl cordon NODE', then 'kubectl delete pod NAME' for each of its pods, does what drain does (without PodDisruptionBudgets): their controllers replace them on other nodes.";
/// `kubectl expose`.
pub const EXPOSE: &str = "Services are not part of Reconcile Lab (it has no network and no kube-proxy), so kubectl expose has nothing to create.";
/// `kubectl autoscale`.
pub const AUTOSCALE: &str = "HorizontalPodAutoscalers are not part of Reconcile Lab (its pods use no CPU to scale on). 'kubectl scale deployment NAME --replicas=N' changes the desired number of pods.";
/// `kubectl diff`.
pub const DIFF: &str = "kubectl diff asks the server for a dry run of the apply, which Reconcile Lab does not simulate. 'kubectl apply -f FILE --dry-run=client -o yaml' prints the object as it would be sent, and 'kubectl get TYPE NAME -o yaml' the live one.";
/// `kubectl replace`.
pub const REPLACE: &str = "kubectl replace is not available in Reconcile Lab. 'kubectl apply -f FILE' updates an object from a file, and 'kubectl edit TYPE/NAME' sends the whole object back with the resourceVersion it read (a PUT, as replace sends).";
/// `kubectl kustomize`.
pub const KUSTOMIZE: &str = "kustomize builds manifests from a directory, and the lab's files are the editor's tabs, with no directories. Put the manifests in one file (documents separated by ---) and run 'kubectl apply -f FILE'.";
/// `kubectl completion`.
pub const COMPLETION: &str = "the console completes commands, flags, types and names with Tab; there is no shell here to install completion code into.";
/// `kubectl plugin`.
pub const PLUGIN: &str = "Reconcile Lab's kubectl has no plugins: it runs the verbs 'kubectl help' lists, and the lab's own commands are 'lab help'.";
/// `kubectl cluster-info dump`.
pub const CLUSTER_INFO_DUMP: &str = "kubectl cluster-info dump prints every object and log of a cluster. In Reconcile Lab, 'kubectl get TYPE -A -o yaml' prints the objects of a type and 'kubectl events -A' what happened; pods have no logs.";
