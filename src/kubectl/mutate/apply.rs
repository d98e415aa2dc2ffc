//! `kubectl apply` (client-side apply with its last-applied annotation) and its subcommands
//! `apply view-last-applied` and `apply set-last-applied`.

use super::{
    check_dry_run, create_or_dry, done, dry_run, ns_of, objects_from_files, select, set_last_applied, DRY_RUN,
    LAST_APPLIED, OUTPUT_NAME_YAML_JSON,
};
use crate::engine::apiserver::{Patch, Subresource};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::Reason;
use crate::kubectl::apply_patch;
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{with_source, CmdCtx, CmdError, Deferred, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed, SELECTOR};
use crate::kubectl::gojson;
use crate::kubectl::manifest;
use serde_json::{json, Map, Value};

/// `kubectl apply` flags.
pub const APPLY_FLAGS: &[FlagSpec] = &[
    flag(
        "filename",
        Some('f'),
        FlagKind::List,
        "The files that contain the configurations to apply ('-' is the here-document).",
    ),
    OUTPUT_NAME_YAML_JSON,
    DRY_RUN,
];

/// `kubectl apply -f` (client-side): create with the last-applied annotation, or send the
/// three-way patch of [`apply_patch`]; prints `created`, `configured` or `unchanged`.
pub fn apply(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let names = p.list("filename");
    if names.is_empty() {
        return out.fail(CmdError::Usage { cmd: "apply".into(), msg: "must specify one of -f and -k".into() });
    }
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let objs = match ctx.read_files(&names).and_then(|f| objects_from_files(ctx, &f)) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    if objs.is_empty() {
        return out.fail(CmdError::Plain("no objects passed to apply".into()));
    }
    let mut errs = Deferred::default();
    // With -o yaml|json kubectl prints the objects after all of them were applied, and only if
    // none failed: one object as itself, several as a List (`printObjects`).
    let mut applied = Applied::new(p);
    for (source, kind, mut obj) in objs {
        set_last_applied(&mut obj);
        let ns = ns_of(kind, obj.namespace()).map(String::from);
        let name = obj.name().to_string();
        let current = match api.get(kind, ns.as_deref(), &name) {
            Ok(c) => c,
            Err(e) if e.reason == Reason::NotFound => {
                apply_patch::prune_nulls(&mut obj);
                match create_or_dry(api, p, obj) {
                    Ok(created) => applied.done(out, p, kind, created, "created"),
                    Err(e) => errs.push(with_source("creating", &source, e).into()),
                }
                continue;
            }
            Err(e) => {
                errs.push(with_source("retrieving current configuration of", &source, e).into());
                continue;
            }
        };
        // applyOneObject: under --dry-run=client an existing object is neither diffed nor
        // warned about; kubectl prints the live object as `configured (dry run)`.
        if dry_run(p) {
            applied.done(out, p, kind, current, "configured");
            continue;
        }
        let original: Option<Value> = current.annotation(LAST_APPLIED).and_then(|s| serde_json::from_str(s).ok());
        if original.is_none() {
            out.err(format!(
                "Warning: resource {}/{name} is missing the {LAST_APPLIED} annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n",
                kind.resource
            ));
        }
        // kubectl has Go types (and so patch strategies) for the built-in kinds only; a custom
        // resource gets a JSON merge patch (patcher.go `patchSimple`).
        let custom = kind.group == "example.com";
        let patch = if custom {
            apply_patch::three_way_json(original.as_ref(), &obj, &current)
        } else {
            match apply_patch::three_way_strategic(kind, original.as_ref(), &obj, &current) {
                Ok(patch) => patch,
                Err(e) => {
                    // patchSimple's `creating patch with:` error (each document as kubectl holds
                    // it: the annotation's text, the others as runtime.Encode writes them), wrapped
                    // by Patch (`patching`) and by applyOneObject (`applying patch:` with no patch).
                    let original_text = current.annotation(LAST_APPLIED).unwrap_or("").to_string();
                    errs.push(CmdError::Plain(format!(
                        "error when applying patch:\n\nto:\n{}\nfor: \"{source}\": error when patching \"{source}\": creating patch with:\noriginal:\n{original_text}\nmodified:\n{}\n\ncurrent:\n{}\n\nfor: {e}",
                        info_text(kind, &name, ns.as_deref()),
                        gojson::compact(&obj),
                        gojson::compact(&current)
                    )));
                    continue;
                }
            }
        };
        if patch.as_object().is_some_and(Map::is_empty) {
            warn_if_deleting(out, &current);
            applied.done(out, p, kind, current, "unchanged");
            continue;
        }
        let patch_text = gojson::compact(&patch);
        let patch = if custom { Patch::Merge(patch) } else { Patch::Strategic(patch) };
        match api.patch(kind, ns.as_deref(), &name, &patch, Subresource::Main) {
            Ok(patched) => {
                warn_if_deleting(out, &patched);
                applied.done(out, p, kind, patched, "configured");
            }
            Err(e) => {
                // kubectl apply: the patcher's `error when patching`, wrapped with the patch and
                // the resource.Info it was sent to (`applying patch:\n%s\nto:\n%v\nfor:`).
                let info = info_text(kind, &name, ns.as_deref());
                let inner = with_source("patching", &source, e);
                errs.push(
                    with_source(&format!("applying patch:\n{patch_text}\nto:\n{info}\nfor:"), &source, inner).into(),
                );
            }
        }
    }
    if errs.is_empty() {
        applied.print(out);
    }
    errs.report(out);
}

/// `resource.Info`'s `String()`: the mapping, then the name and namespace.
fn info_text(kind: &Kind, name: &str, ns: Option<&str>) -> String {
    format!(
        "Resource: \"{g}/{v}, Resource={r}\", GroupVersionKind: \"{g}/{v}, Kind={k}\"\nName: \"{name}\", Namespace: \"{n}\"",
        g = kind.group,
        v = kind.version,
        r = kind.resource,
        k = kind.kind,
        n = ns.unwrap_or("")
    )
}

/// `WarnIfDeleting`, after apply's patch (or its empty patch) came back.
fn warn_if_deleting(out: &mut Output, obj: &Value) {
    if obj.is_deleting() {
        out.err(format!("Warning: Detected changes to resource {} which is currently being deleted.\n", obj.name()));
    }
}

/// What `kubectl apply` prints per object: the operation line now, or, with `-o yaml|json`,
/// the object later (see [`Applied::print`]).
struct Applied {
    /// `-o yaml` or `-o json` (anything else prints operation lines).
    format: Option<String>,
    objects: Vec<Value>,
}

impl Applied {
    fn new(p: &Parsed) -> Applied {
        let format = p.str("output").filter(|o| matches!(*o, "yaml" | "json")).map(String::from);
        Applied { format, objects: Vec::new() }
    }

    fn done(&mut self, out: &mut Output, p: &Parsed, kind: &Kind, obj: Value, operation: &str) {
        if self.format.is_some() {
            self.objects.push(obj);
        } else {
            done(out, p, kind, &obj, operation);
        }
    }

    /// `printObjects`: the one object, or a `List` of them (`metadata: {}` as the typed
    /// `corev1.List` encodes its empty ListMeta).
    fn print(mut self, out: &mut Output) {
        let obj = match self.objects.len() {
            0 => return,
            1 => self.objects.remove(0),
            _ => json!({"apiVersion": "v1", "items": self.objects, "kind": "List", "metadata": {}}),
        };
        match self.format.as_deref() {
            Some("json") => out.out(format!("{}\n", gojson::indented(&obj))),
            Some(_) => out.out(manifest::to_yaml(&obj)),
            None => {}
        }
    }
}

/// `kubectl apply view-last-applied` flags.
pub const VIEW_LAST_APPLIED_FLAGS: &[FlagSpec] = &[
    flag("output", Some('o'), FlagKind::Str, "Output format. Must be one of (yaml, json)"),
    flag("all", None, FlagKind::Bool, "Select all resources in the namespace of the specified resource types"),
    flag(
        "filename",
        Some('f'),
        FlagKind::List,
        "Filename, directory, or URL to files that contains the last-applied-configuration annotations",
    ),
    SELECTOR,
];

/// `kubectl apply view-last-applied` (kubectl `apply_view_last_applied.go`): the
/// last-applied-configuration annotation of each object, as YAML (`yaml.JSONToYAML`: keys
/// sorted) or as JSON indented by two spaces (`json.Indent` keeps the annotation's trailing
/// newline). Nothing prints unless every object was read: an object without the annotation
/// is skipped silently when named by argument (`AddSourceToErr` with a nil error returns nil),
/// and is an error whose text ends in `<nil>` when read from a file, as kubectl words it.
pub fn view_last_applied(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let objs = match select(api, ctx, p, "view-last-applied", &p.args) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    let mut configs = Vec::new();
    for (source, kind, ns, name) in objs {
        let obj = match api.get(kind, ns.as_deref(), &name) {
            Ok(o) => o,
            Err(e) => return out.fail(e.into()),
        };
        match obj.annotation(LAST_APPLIED) {
            Some(text) => configs.push(text.to_string()),
            None if source.is_empty() => {}
            None => {
                return out.fail(CmdError::Plain(format!(
                "error when no last-applied-configuration annotation found on resource: {name}\n \"{source}\": <nil>"
            )))
            }
        }
    }
    for text in configs {
        match p.str("output").unwrap_or("yaml") {
            "json" => out.out(gojson::indent_text(&text, "  ")),
            "yaml" => match serde_json::from_str::<Value>(&text) {
                Ok(config) => out.out(manifest::to_yaml(&config)),
                Err(e) => return out.fail(CmdError::Plain(format!("error converting JSON to YAML: {e}"))),
            },
            other => {
                return out.fail(CmdError::Usage {
                    cmd: "apply view-last-applied".into(),
                    msg: format!("Unexpected -o output mode: {other}, the flag 'output' must be one of yaml|json"),
                })
            }
        }
    }
}

/// `kubectl apply set-last-applied` flags.
pub const SET_LAST_APPLIED_FLAGS: &[FlagSpec] = &[
    flag(
        "filename",
        Some('f'),
        FlagKind::List,
        "Filename, directory, or URL to files that contains the last-applied-configuration annotations",
    ),
    flag(
        "create-annotation",
        None,
        FlagKind::Bool,
        "Will create 'last-applied-configuration' annotations if current objects doesn't have one",
    ),
    OUTPUT_NAME_YAML_JSON,
    DRY_RUN,
];

/// `kubectl apply set-last-applied -f FILE` (kubectl `apply_set_last_applied.go`): sets the
/// annotation to the file's object, changing nothing else. The stored text is the object as
/// `editor.GetApplyPatch` encodes it: compact JSON with sorted keys, without the empty
/// `annotations` and the trailing newline `apply` writes, so a later `apply` sees the
/// difference. Every object is checked before any is patched; one that is missing, or has no
/// annotation without `--create-annotation`, stops the command.
pub fn set_last_applied_cmd(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    let names = p.list("filename");
    if names.is_empty() {
        return out.fail(CmdError::Usage {
            cmd: "apply set-last-applied".into(),
            msg: "must specify one of -f and -k".into(),
        });
    }
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let objs = match ctx.read_files(&names).and_then(|f| objects_from_files(ctx, &f)) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    let mut patches = Vec::new();
    for (_, kind, obj) in objs {
        let ns = ns_of(kind, obj.namespace()).map(String::from);
        let name = obj.name().to_string();
        let current = match api.get(kind, ns.as_deref(), &name) {
            Ok(c) => c,
            Err(e) => return out.fail(e.into()),
        };
        let text = gojson::compact(&obj);
        match current.annotation(LAST_APPLIED) {
            None if !p.bool("create-annotation") => {
                return out.fail(CmdError::Plain(format!(
                    "no last-applied-configuration annotation found on resource: {name}, to create the annotation, run the command with --create-annotation"
                )))
            }
            Some(old) if old == text => out.out(format!("set-last-applied {name}: no changes required.\n")),
            _ => patches.push((kind, ns, name, current, text)),
        }
    }
    for (kind, ns, name, current, text) in patches {
        let patch = json!({"metadata": {"annotations": {LAST_APPLIED: text}}});
        if dry_run(p) {
            done(out, p, kind, &current, "configured");
            continue;
        }
        match api.patch(kind, ns.as_deref(), &name, &Patch::Merge(patch), Subresource::Main) {
            Ok(o) => done(out, p, kind, &o, "configured"),
            Err(e) => return out.fail(e.into()),
        }
    }
}
