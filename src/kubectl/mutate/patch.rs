//! `kubectl patch` (strategic merge, merge and JSON patches).

use super::{done, fetch, select, FILENAME_TO_UPDATE, OUTPUT_NAME};
use crate::engine::apiserver::{Patch, Subresource};
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{CmdCtx, CmdError, Deferred, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed};
use serde_json::Value;

/// `kubectl patch` flags.
pub const PATCH_FLAGS: &[FlagSpec] = &[
    flag("patch", Some('p'), FlagKind::Str, "The patch to be applied to the resource JSON file."),
    flag("type", None, FlagKind::Str, "The type of patch being provided; one of [json merge strategic]."),
    flag(
        "subresource",
        None,
        FlagKind::Str,
        "If specified, patch will operate on the subresource of the requested object (status).",
    ),
    FILENAME_TO_UPDATE,
    OUTPUT_NAME,
];

/// `kubectl patch -p ... [--type strategic|merge|json]`: `patched`, or `patched (no change)`
/// when the object came back identical.
pub fn patch(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let Some(text) = p.str("patch") else {
        return out
            .fail(CmdError::Plain("must specify --patch or --patch-file containing the contents of the patch".into()));
    };
    // kubectl reads -p as YAML (a superset of JSON) and sends it as JSON.
    let parsed = if text.trim_start().starts_with(['[', '{']) {
        serde_json::from_str::<Value>(text).map_err(|e| format!("error converting YAML to JSON: {e}"))
    } else {
        crate::yaml::parse_documents(text).map_err(|e| e.to_string()).and_then(|mut v| {
            if v.len() == 1 {
                Ok(v.remove(0))
            } else {
                Err("error converting YAML to JSON: not a single value".into())
            }
        })
    };
    let body = match parsed {
        Ok(b) => b,
        Err(e) => return out.fail(CmdError::Plain(format!("unable to parse {text:?}: {e}"))),
    };
    let patch = match p.str("type").unwrap_or("strategic") {
        "strategic" => Patch::Strategic(body),
        "merge" => Patch::Merge(body),
        "json" => Patch::Json(body),
        other => {
            return out.fail(CmdError::Plain(format!("--type must be one of [json merge strategic], not {other:?}")))
        }
    };
    let sub = match p.str("subresource") {
        None | Some("") => Subresource::Main,
        Some("status") => Subresource::Status,
        Some(other) => {
            return out
                .fail(CmdError::Plain(format!("invalid subresource value: {other:?}. Must be one of [status scale]")))
        }
    };
    let objs = match select(api, ctx, p, "patch", &p.args) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    let mut errs = Deferred::default();
    for (source, kind, ns, name) in objs {
        let before = match fetch(api, kind, ns.as_deref(), &name, &source, "patching") {
            Ok(o) => o,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        match api.patch(kind, ns.as_deref(), &name, &patch, sub) {
            Ok(after) => {
                let op = if after == before { "patched (no change)" } else { "patched" };
                done(out, p, kind, &after, op);
            }
            Err(e) => errs.push(e.into()),
        }
    }
    errs.report(out);
}
