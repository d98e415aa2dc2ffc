//! `kubectl set image`.

use super::{done, fetch, select, ALL_IN_NAMESPACE, OUTPUT_NAME};
use crate::engine::apiserver::{Patch, Subresource};
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{CmdCtx, CmdError, Deferred, Output};
use crate::kubectl::flags::{FlagSpec, Parsed, SELECTOR};
use serde_json::{json, Value};

/// `kubectl set image` flags.
pub const SET_IMAGE_FLAGS: &[FlagSpec] = &[ALL_IN_NAMESPACE, SELECTOR, OUTPUT_NAME];

/// `kubectl set image TYPE/NAME CONTAINER=IMAGE...` (`*` names every container): prints
/// `deployment.apps/web image updated` (kubectl pkg/cmd/set/set_image.go).
pub fn set_image(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let (pairs, res_args): (Vec<String>, Vec<String>) = p.args.iter().cloned().partition(|a| a.contains('='));
    if pairs.is_empty() {
        return out
            .fail(CmdError::Usage { cmd: "set image".into(), msg: "at least one image update is required".into() });
    }
    let objs = match select(api, ctx, p, "set image", &res_args) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    let mut errs = Deferred::default();
    for (_, kind, ns, name) in objs {
        let obj = match fetch(api, kind, ns.as_deref(), &name, "", "") {
            Ok(o) => o,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        let base = if kind.kind == "Pod" { "/spec/containers" } else { "/spec/template/spec/containers" };
        let containers = obj.pointer(base).and_then(Value::as_array).cloned().unwrap_or_default();
        let mut ops = Vec::new();
        let mut failed = false;
        for pair in &pairs {
            let (cname, image) = pair.split_once('=').unwrap_or((pair, ""));
            let mut matched = false;
            for (i, c) in containers.iter().enumerate() {
                if cname == "*" || c.get("name").and_then(Value::as_str) == Some(cname) {
                    matched = true;
                    if c.get("image").and_then(Value::as_str) != Some(image) {
                        ops.push(json!({"op": "replace", "path": format!("{base}/{i}/image"), "value": image}));
                    }
                }
            }
            if !matched {
                errs.push(CmdError::Plain(format!("unable to find container named \"{cname}\"")));
                failed = true;
            }
        }
        if failed || ops.is_empty() {
            continue;
        }
        match api.patch(kind, ns.as_deref(), &name, &Patch::Json(Value::Array(ops)), Subresource::Main) {
            Ok(o) => done(out, p, kind, &o, "image updated"),
            Err(e) => errs.push(e.into()),
        }
    }
    errs.report(out);
}
