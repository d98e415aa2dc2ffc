//! `kubectl label` and `kubectl annotate`.

use super::{done, fetch, select, ALL_IN_NAMESPACE, FILENAME_TO_UPDATE, OUTPUT_NAME};
use crate::engine::apiserver::{Patch, Subresource};
use crate::engine::object::ObjectExt;
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{CmdCtx, CmdError, Deferred, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed, SELECTOR};
use serde_json::{json, Map, Value};

/// `kubectl label` / `annotate` flags.
pub const META_FLAGS: &[FlagSpec] = &[
    flag(
        "overwrite",
        None,
        FlagKind::Bool,
        "If true, allow labels (annotations) to be overwritten, otherwise reject updates that overwrite existing ones.",
    ),
    ALL_IN_NAMESPACE,
    SELECTOR,
    flag(
        "resource-version",
        None,
        FlagKind::Str,
        "If non-empty, the update will only succeed if this is the current resource-version for the object.",
    ),
    FILENAME_TO_UPDATE,
    OUTPUT_NAME,
];

/// Which metadata map `label` / `annotate` change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetaField {
    /// `kubectl label`.
    Labels,
    /// `kubectl annotate`.
    Annotations,
}

/// `kubectl label` / `kubectl annotate`: `key=value` sets, `key-` removes; an existing key with
/// another value needs `--overwrite` (kubectl pkg/cmd/label, pkg/cmd/annotate).
pub fn label_or_annotate(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output, field: MetaField) {
    let (word, key) = match field {
        MetaField::Labels => ("label", "labels"),
        MetaField::Annotations => ("annotation", "annotations"),
    };
    let (pairs, res_args): (Vec<String>, Vec<String>) =
        p.args.iter().cloned().partition(|a| a.contains('=') || (a.ends_with('-') && a.len() > 1));
    let verb = if field == MetaField::Labels { "label" } else { "annotate" };
    if pairs.is_empty() {
        return out.fail(CmdError::Usage { cmd: verb.into(), msg: format!("at least one {word} update is required") });
    }
    let mut set: Vec<(String, String)> = Vec::new();
    let mut remove: Vec<String> = Vec::new();
    for pair in &pairs {
        if let Some((k, v)) = pair.split_once('=') {
            set.push((k.to_string(), v.to_string()));
        } else {
            remove.push(pair.trim_end_matches('-').to_string());
        }
    }
    let objs = match select(api, ctx, p, verb, &res_args) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    let mut errs = Deferred::default();
    for (source, kind, ns, name) in objs {
        let current = match fetch(api, kind, ns.as_deref(), &name, &source, "labeling") {
            Ok(o) => o,
            Err(e) => {
                errs.push(e);
                continue;
            }
        };
        let old: Map<String, Value> =
            current.meta().and_then(|m| m.get(key)).and_then(Value::as_object).cloned().unwrap_or_default();
        if !p.bool("overwrite") {
            let mut taken = Vec::new();
            for (k, v) in &set {
                if let Some(cur) = old.get(k).and_then(Value::as_str) {
                    if cur != v {
                        taken.push(format!("'{k}' already has a value ({cur}), and --overwrite is false"));
                    }
                }
            }
            if !taken.is_empty() {
                errs.push(CmdError::Plain(taken.join(", ")));
                continue;
            }
        }
        let mut new = old.clone();
        let mut patch_map = Map::new();
        for (k, v) in &set {
            new.insert(k.clone(), json!(v));
            patch_map.insert(k.clone(), json!(v));
        }
        for k in &remove {
            if new.remove(k).is_none() && field == MetaField::Labels {
                out.out(format!("label {k:?} not found.\n"));
            }
            patch_map.insert(k.clone(), Value::Null);
        }
        let op = match field {
            MetaField::Annotations => "annotated",
            MetaField::Labels if new == old => "not labeled",
            MetaField::Labels if !p.bool("overwrite") && new.len() < old.len() => "unlabeled",
            MetaField::Labels => "labeled",
        };
        if new == old {
            done(out, p, kind, &current, op);
            continue;
        }
        let mut meta = json!({ key: patch_map });
        if let Some(rv) = p.str("resource-version") {
            meta["resourceVersion"] = json!(rv);
        }
        match api.patch(kind, ns.as_deref(), &name, &Patch::Merge(json!({"metadata": meta})), Subresource::Main) {
            Ok(o) => done(out, p, kind, &o, op),
            Err(e) => errs.push(e.into()),
        }
    }
    errs.report(out);
}
