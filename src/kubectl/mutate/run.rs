//! `kubectl run` (the `run-pod/v1` generator).

use super::create::{create_generated, save_config, with_namespace};
use super::{check_dry_run, DRY_RUN, OUTPUT_NAME_YAML_JSON};
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{CmdCtx, CmdError, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed};
use serde_json::{json, Map};

/// `kubectl run` flags.
pub const RUN_FLAGS: &[FlagSpec] = &[
    flag("image", None, FlagKind::Str, "The image for the container to run."),
    flag("restart", None, FlagKind::Str, "The restart policy for this Pod. Legal values [Always, OnFailure, Never]."),
    flag(
        "labels",
        Some('l'),
        FlagKind::Str,
        "Comma separated labels to apply to the pod. Will override previous values.",
    ),
    flag("port", None, FlagKind::Int, "The port that this container exposes."),
    OUTPUT_NAME_YAML_JSON,
    DRY_RUN,
];

/// `kubectl run NAME --image=IMAGE`: a Pod labelled `run=NAME` with one container named NAME
/// (kubectl pkg/cmd/run, generator `run-pod/v1`).
pub fn run_pod(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let Some(name) = p.args.first() else {
        return out.fail(CmdError::Usage { cmd: "run".into(), msg: "NAME is required for run".into() });
    };
    let Some(image) = p.str("image").filter(|i| !i.is_empty()) else {
        return out.fail(CmdError::Plain("required flag(s) \"image\" not set".into()));
    };
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let restart = p.str("restart").unwrap_or("Always");
    if !matches!(restart, "Always" | "OnFailure" | "Never") {
        return out.fail(CmdError::Plain(format!("invalid restart policy: {restart}")));
    }
    let mut labels = Map::new();
    match p.str("labels") {
        Some(l) => {
            for pair in l.split(',') {
                let Some((k, v)) = pair.split_once('=') else {
                    return out.fail(CmdError::Plain(format!("invalid label spec: {pair}")));
                };
                labels.insert(k.to_string(), json!(v));
            }
        }
        None => {
            labels.insert("run".into(), json!(name));
        }
    }
    let mut container = json!({"image": image, "name": name, "resources": {}});
    if let Some(port) = p.int("port") {
        container["ports"] = json!([{"containerPort": port}]);
    }
    let obj = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"labels": labels, "name": name},
        "spec": {"containers": [container], "dnsPolicy": "ClusterFirst", "restartPolicy": restart},
        "status": {}
    });
    create_generated(api, p, out, "pods", with_namespace(save_config(obj, p, "pods"), ctx, p));
}
