//! The writing verbs: `create`, `apply`, `delete`, `scale`, `patch`, `label`, `annotate` and
//! `edit`, with kubectl's operation messages (cli-runtime `pkg/printers/name.go`,
//! `NamePrinter.PrintObj`).
//!
//! One module per verb ([`create`], [`apply`], [`delete`], [`scale`], [`patch`], [`label`]
//! (with `annotate`), [`edit`], [`set_image`], [`run`]); this one holds what they share: reading
//! `-f` sources, selecting the objects a command names, `--dry-run`, and the operation line.

pub mod apply;
pub mod create;
pub mod delete;
pub mod edit;
pub mod label;
pub mod patch;
pub mod run;
pub mod scale;
pub mod set_image;

use super::cluster::Cluster;
use super::cmd::{with_source, CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::gojson;
use super::manifest;
use super::printers;
use super::resources::{self, Target};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::status::Status;
use serde_json::{json, Value};

/// The annotation client-side apply keeps the last applied manifest in.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

// Flags several writing verbs share, with kubectl's help texts.
const DRY_RUN: FlagSpec = flag(
    "dry-run",
    None,
    FlagKind::Str,
    "Must be \"none\" or \"client\". If client strategy, only print the object that would be sent.",
);
const SAVE_CONFIG: FlagSpec = flag(
    "save-config",
    None,
    FlagKind::Bool,
    "If true, the configuration of current object will be saved in its annotation. Otherwise, the annotation will be unchanged. This flag is useful when you want to perform kubectl apply on this object in the future.",
);
const OUTPUT_NAME: FlagSpec = flag("output", Some('o'), FlagKind::Str, "Output format: name.");
const OUTPUT_NAME_YAML_JSON: FlagSpec = flag("output", Some('o'), FlagKind::Str, "Output format: name, yaml or json.");
const FILENAME_TO_UPDATE: FlagSpec =
    flag("filename", Some('f'), FlagKind::List, "Filename or '-' identifying the resource to update.");
const ALL_IN_NAMESPACE: FlagSpec =
    flag("all", None, FlagKind::Bool, "Select all resources, in the namespace of the specified resource types.");

/// The objects of the `-f` sources: (source, kind, object with its namespace filled in).
pub fn objects_from_files(
    ctx: &CmdCtx<'_>,
    files: &[(String, String)],
) -> Result<Vec<(String, &'static Kind, Value)>, CmdError> {
    let mut out = Vec::new();
    for (source, text) in files {
        let objs =
            manifest::parse_objects(text).map_err(|e| CmdError::Plain(format!("error parsing {source}: {e}")))?;
        for mut obj in objs {
            let (api_version, kind_name) = (obj.api_version().to_string(), obj.kind().to_string());
            if kind_name.is_empty() {
                return Err(CmdError::Plain(format!(
                    "unable to decode \"{source}\": Object 'Kind' is missing in '{}'",
                    gojson::compact(&obj)
                )));
            }
            let Some(kind) = Kind::for_object(&api_version, &kind_name) else {
                return Err(CmdError::Plain(format!(
                    "resource mapping not found for name: \"{}\" namespace: \"{}\" from \"{source}\": no matches for kind \"{kind_name}\" in version \"{api_version}\"\nensure CRDs are installed first",
                    obj.name(),
                    obj.namespace().unwrap_or("")
                )));
            };
            if kind.namespaced {
                match obj.namespace().map(String::from) {
                    None => {
                        obj.meta_mut().insert("namespace".into(), json!(ctx.ns));
                    }
                    Some(ns) if ctx.explicit_ns && ns != ctx.ns => {
                        return Err(CmdError::Plain(format!(
                            "the namespace from the provided object \"{ns}\" does not match the namespace \"{}\". You must pass '--namespace={ns}' to perform this operation.",
                            ctx.ns
                        )));
                    }
                    Some(_) => {}
                }
            }
            out.push((source.clone(), kind, obj));
        }
    }
    Ok(out)
}

fn ns_of<'a>(kind: &Kind, obj_or_ctx: Option<&'a str>) -> Option<&'a str> {
    if kind.namespaced {
        obj_or_ctx
    } else {
        None
    }
}

/// Prints `<kind.group>/<name> <operation>` (with ` (dry run)` under `--dry-run=client`), or
/// the object with `-o name|yaml|json` (cli-runtime's operation printers).
fn done(out: &mut Output, p: &Parsed, kind: &Kind, obj: &Value, operation: &str) {
    let name = printers::name_of(kind, obj);
    match p.str("output") {
        Some("name") => out.out(format!("{name}\n")),
        Some("yaml") => out.out(manifest::to_yaml(obj)),
        Some("json") => out.out(format!("{}\n", gojson::indented(obj))),
        _ if dry_run(p) => out.out(format!("{name} {operation} (dry run)\n")),
        _ => out.out(format!("{name} {operation}\n")),
    }
}

/// Whether `--dry-run=client` was asked for (validated by [`check_dry_run`]).
fn dry_run(p: &Parsed) -> bool {
    p.str("dry-run") == Some("client")
}

/// kubectl's `--dry-run` values; the lab has no server-side dry run.
fn check_dry_run(p: &Parsed) -> Result<(), CmdError> {
    match p.str("dry-run") {
        None | Some("none") | Some("client") => Ok(()),
        Some("server") => {
            Err(CmdError::Plain("--dry-run=server is not simulated in this lab; use --dry-run=client".into()))
        }
        Some(other) => Err(CmdError::Plain(format!(
            "Invalid dry-run value ({other}). Must be \"none\", \"server\", or \"client\"."
        ))),
    }
}

/// POST, unless `--dry-run=client`: then the object as it would be sent.
#[allow(clippy::result_large_err)] // the API contract's error type (see engine::apiserver)
fn create_or_dry(api: &mut dyn Cluster, p: &Parsed, obj: Value) -> Result<Value, Status> {
    if dry_run(p) {
        Ok(obj)
    } else {
        api.create(obj)
    }
}

/// Sets the last-applied annotation as `GetModifiedConfiguration(obj, annotate=true)` does:
/// the object with its other annotations (an empty map if none) serialized compactly with
/// sorted keys and a trailing newline.
fn set_last_applied(obj: &mut Value) {
    let mut annotations =
        obj.meta().and_then(|m| m.get("annotations")).and_then(Value::as_object).cloned().unwrap_or_default();
    annotations.remove(LAST_APPLIED);
    obj.meta_mut().insert("annotations".into(), Value::Object(annotations.clone()));
    let text = format!("{}\n", gojson::compact(obj));
    annotations.insert(LAST_APPLIED.into(), Value::String(text));
    obj.meta_mut().insert("annotations".into(), Value::Object(annotations));
}

/// GETs an object a verb is about to change; the error says `error when <verb> "<source>":`
/// when the object came from a file.
fn fetch(
    api: &dyn Cluster,
    kind: &Kind,
    ns: Option<&str>,
    name: &str,
    source: &str,
    verb: &str,
) -> Result<Value, CmdError> {
    api.get(kind, ns, name).map_err(|e| with_source(verb, source, e).into())
}

/// One object a verb acts on: (source file or "", kind, namespace, name).
type Selected = (String, &'static Kind, Option<String>, String);

/// Lists the targets of a verb that takes `TYPE NAME`, `TYPE/NAME`, `-l`, `--all` or `-f`.
/// Returns (source, kind, namespace, name) for each object.
fn select(
    api: &dyn Cluster,
    ctx: &CmdCtx<'_>,
    p: &Parsed,
    verb: &str,
    args: &[String],
) -> Result<Vec<Selected>, CmdError> {
    let mut out = Vec::new();
    let files = p.list("filename");
    if !files.is_empty() {
        for (source, kind, obj) in objects_from_files(ctx, &ctx.read_files(&files)?)? {
            out.push((source, kind, ns_of(kind, obj.namespace()).map(String::from), obj.name().to_string()));
        }
        return Ok(out);
    }
    let targets = resources::resolve(args, verb == "delete")?;
    if targets.is_empty() {
        return Err(CmdError::Plain(match verb {
            "delete" | "view-last-applied" => "You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'".into(),
            "label" | "annotate" => "one or more resources must be specified as <resource> <name> or <resource>/<name>".into(),
            _ => "you must specify the type of resource".to_string(),
        }));
    }
    let selector = match p.str("selector") {
        Some(s) => Some(Selector::parse(s).map_err(CmdError::Plain)?),
        None => None,
    };
    let all_ns = p.bool("all-namespaces");
    for t in targets {
        match t {
            Target::Named(kind, name) => {
                if selector.is_some() {
                    return Err(CmdError::Plain("name cannot be provided when a selector is specified".into()));
                }
                out.push((String::new(), kind, ns_of(kind, Some(ctx.ns)).map(String::from), name));
            }
            Target::All(kind) => {
                if selector.is_none() && !p.bool("all") {
                    return Err(CmdError::Plain("resource(s) were provided, but no name was specified".into()));
                }
                let ns = if all_ns { None } else { ns_of(kind, Some(ctx.ns)) };
                let sel = selector.clone().unwrap_or_else(Selector::everything);
                let list = api.list(kind, ns, &sel)?;
                for o in list.items {
                    out.push((String::new(), kind, o.namespace().map(String::from), o.name().to_string()));
                }
            }
        }
    }
    Ok(out)
}
