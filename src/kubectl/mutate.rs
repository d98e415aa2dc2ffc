//! The writing verbs: `create`, `apply`, `delete`, `scale`, `patch`, `label`, `annotate` and
//! `edit`, with kubectl's operation messages (kubernetes-semantics.md §8.4, TV-46).

use super::apply_patch;
use super::cluster::Cluster;
use super::cmd::{server_error, with_source, CmdError, Ctx, Deferred, EditSession, Output};
use super::continuation::{Continuation, DeletionTarget};
use super::flags::{flag, FlagKind, FlagSpec, Parsed, ALL_NAMESPACES, SELECTOR};
use super::gojson;
use super::manifest;
use super::printers;
use super::resources::{self, Target};
use crate::engine::apiserver::{schema, DeleteOptions, Deleted, Patch, Propagation, Subresource};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Reason, Status};
use serde_json::{json, Map, Value};

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

/// `kubectl create` flags.
pub const CREATE_FLAGS: &[FlagSpec] = &[
    flag("filename", Some('f'), FlagKind::List, "Filename or '-' (the here-document) to use to create the resource."),
    OUTPUT_NAME,
    SAVE_CONFIG,
];
/// `kubectl create namespace` flags.
pub const CREATE_NS_FLAGS: &[FlagSpec] = &[OUTPUT_NAME_YAML_JSON, DRY_RUN, SAVE_CONFIG];
/// `kubectl create deployment` flags.
pub const CREATE_DEPLOY_FLAGS: &[FlagSpec] = &[
    flag(
        "image",
        None,
        FlagKind::List,
        "Image names to run. A deployment can have multiple images set for multi-container pod.",
    ),
    flag("replicas", Some('r'), FlagKind::Int, "Number of replicas to create. Default is 1."),
    flag("port", None, FlagKind::Int, "The containerPort that this deployment exposes."),
    OUTPUT_NAME_YAML_JSON,
    DRY_RUN,
    SAVE_CONFIG,
];
/// `kubectl create configmap` flags.
pub const CREATE_CM_FLAGS: &[FlagSpec] = &[
    flag(
        "from-literal",
        None,
        FlagKind::List,
        "Specify a key and literal value to insert in configmap (i.e. mykey=somevalue).",
    ),
    OUTPUT_NAME,
    DRY_RUN,
    SAVE_CONFIG,
];
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
/// `kubectl edit` flags.
pub const EDIT_FLAGS: &[FlagSpec] =
    &[flag("output", Some('o'), FlagKind::Str, "Output format: yaml (the default) or json.")];

/// The objects of the `-f` sources: (source, kind, object with its namespace filled in).
pub fn objects_from_files(
    ctx: &Ctx<'_>,
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

/// `kubectl create -f`.
pub fn create(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
    let names = p.list("filename");
    if names.is_empty() {
        if let Some(sub) = p.args.first() {
            return out.fail(CmdError::Raw(format!(
                "error: unknown command \"{sub}\" for \"kubectl create\"\nSee 'kubectl create -h' for help and examples"
            )));
        }
        return out.fail(CmdError::Plain("must specify one of -f and -k".into()));
    }
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let objs = match ctx.read_files(&names).and_then(|f| objects_from_files(ctx, &f)) {
        Ok(o) => o,
        Err(e) => return out.fail(e),
    };
    let mut errs = Deferred::default();
    for (source, kind, mut obj) in objs {
        if p.bool("save-config") {
            set_last_applied(&mut obj);
        }
        match create_or_dry(api, p, obj) {
            Ok(created) => done(out, p, kind, &created, "created"),
            Err(e) => errs.push(with_source("creating", &source, e).into()),
        }
    }
    errs.report(out);
}

/// `kubectl create namespace NAME`.
pub fn create_namespace(api: &mut dyn Cluster, _ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
    let name = match exactly_one_name(p, "create namespace") {
        Ok(n) => n,
        Err(e) => return out.fail(e),
    };
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": {}, "status": {}});
    create_generated(api, p, out, "namespaces", save_config(obj, p, "namespaces"));
}

/// The NAME of `kubectl create <generator> NAME`.
fn exactly_one_name<'a>(p: &'a Parsed, cmd: &str) -> Result<&'a str, CmdError> {
    match p.args.as_slice() {
        [name] => Ok(name),
        args => {
            Err(CmdError::Usage { cmd: cmd.into(), msg: format!("exactly one NAME is required, got {}", args.len()) })
        }
    }
}

/// Sends (or, under `--dry-run=client`, shows) an object a generator built (`create
/// namespace|deployment|configmap`, `run`) and prints `<kind>/<name> created`.
fn create_generated(api: &mut dyn Cluster, p: &Parsed, out: &mut Output, resource: &str, obj: Value) {
    match create_or_dry(api, p, obj) {
        Ok(o) => done(out, p, resources_kind(resource), &o, "created"),
        Err(e) => out.fail(e.into()),
    }
}

/// `--save-config` on a generator (`create namespace|deployment|configmap`): the annotation
/// holds the typed object as kubectl encodes it (`CreateOrUpdateAnnotation` with the default
/// JSON encoder): Go struct field order with `kind` before `apiVersion`, no empty
/// `annotations` (omitempty), newline-terminated; and before the namespace is filled in for the
/// request, since the generator sets it only under `-n`.
fn save_config(mut obj: Value, p: &Parsed, resource: &str) -> Value {
    if !p.bool("save-config") {
        return obj;
    }
    let kind = resources_kind(resource);
    let mut typed = obj.clone();
    schema::normalize(&mut typed, schema::root(kind));
    if let Some(m) = typed.as_object_mut() {
        let api_version = m.shift_remove("apiVersion");
        let kind_name = m.shift_remove("kind");
        let rest = std::mem::take(m);
        m.extend(kind_name.map(|k| ("kind".to_string(), k)));
        m.extend(api_version.map(|v| ("apiVersion".to_string(), v)));
        m.extend(rest);
    }
    let text = format!("{}\n", gojson::compact_in_order(&typed));
    let mut annotations = Map::new();
    annotations.insert(LAST_APPLIED.into(), Value::String(text));
    obj.meta_mut().insert("annotations".into(), Value::Object(annotations));
    obj
}

fn resources_kind(name: &str) -> &'static Kind {
    // Every name passed here is one of the lab's served kinds.
    Kind::lookup(name).unwrap_or(&crate::engine::kinds::KINDS[0])
}

/// `kubectl create deployment NAME --image=... [--replicas=N]`
/// (kubectl pkg/cmd/create/create_deployment.go: labels `app=NAME`, one container per image,
/// named after the image's last path element without tag or digest).
pub fn create_deployment(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
    let images = p.list("image");
    if images.is_empty() {
        return out.fail(CmdError::Plain("required flag(s) \"image\" not set".into()));
    }
    let name = match exactly_one_name(p, "create deployment") {
        Ok(n) => n,
        Err(e) => return out.fail(e),
    };
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let mut containers = Vec::new();
    for image in &images {
        let last = image.rsplit('/').next().unwrap_or(image);
        let base = last.split(':').next().unwrap_or(last);
        let base = base.split('@').next().unwrap_or(base);
        let mut c = json!({"image": image, "name": base, "resources": {}});
        if let Some(port) = p.int("port") {
            c["ports"] = json!([{"containerPort": port}]);
        }
        containers.push(c);
    }
    let obj = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"labels": {"app": name}, "name": name},
        "spec": {
            "replicas": p.int("replicas").unwrap_or(1),
            "selector": {"matchLabels": {"app": name}},
            "strategy": {},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}}
        },
        "status": {}
    });
    create_generated(api, p, out, "deployments", with_namespace(save_config(obj, p, "deployments"), ctx, p));
}

/// The generators of `kubectl create <kind>` set `metadata.namespace` only when `-n` was given
/// (the request path names it otherwise). The lab's API takes the namespace from the object, so
/// it is added for the real call; a dry run shows the object as kubectl builds it.
fn with_namespace(mut obj: Value, ctx: &Ctx<'_>, p: &Parsed) -> Value {
    if ctx.explicit_ns || !dry_run(p) {
        obj.meta_mut().insert("namespace".into(), json!(ctx.ns));
    }
    obj
}

/// `kubectl create configmap NAME --from-literal=k=v...`.
pub fn create_configmap(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
    let name = match exactly_one_name(p, "create configmap") {
        Ok(n) => n,
        Err(e) => return out.fail(e),
    };
    let mut data = Map::new();
    for lit in p.list("from-literal") {
        let Some((k, v)) = lit.split_once('=') else {
            return out.fail(CmdError::Plain(format!("invalid literal source {lit}, expected key=value")));
        };
        data.insert(k.to_string(), json!(v));
    }
    if let Err(e) = check_dry_run(p) {
        return out.fail(e);
    }
    let mut obj = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
    if !data.is_empty() {
        obj["data"] = Value::Object(data);
    }
    create_generated(api, p, out, "configmaps", with_namespace(save_config(obj, p, "configmaps"), ctx, p));
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

/// `kubectl apply -f` (client-side): create with the last-applied annotation, or send the
/// three-way patch of [`apply_patch`]; prints `created`, `configured` or `unchanged`.
pub fn apply(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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
pub fn view_last_applied(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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
pub fn set_last_applied_cmd(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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

/// One object a verb acts on: (source file or "", kind, namespace, name).
type Selected = (String, &'static Kind, Option<String>, String);

/// Lists the targets of a verb that takes `TYPE NAME`, `TYPE/NAME`, `-l`, `--all` or `-f`.
/// Returns (source, kind, namespace, name) for each object.
fn select(
    api: &dyn Cluster,
    ctx: &Ctx<'_>,
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

/// `kubectl delete`: prints `<kind.group> "<name>" deleted from <ns> namespace` (v1.34; no
/// namespace part for cluster-scoped objects) after each DELETE, then waits while finalizers
/// or graceful deletion keep an object (kubernetes-semantics.md §8.4, TV-18, TV-30).
pub fn delete(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) -> Option<Continuation> {
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
    (!waiting.is_empty()).then_some(Continuation::WaitForDeletion(waiting))
}

/// `kubectl scale --replicas=N` (kubectl pkg/cmd/scale): prints `deployment.apps/web scaled`;
/// unlike the other writing verbs it stops at the first object that fails.
pub fn scale(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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

/// `kubectl patch -p ... [--type strategic|merge|json]`: `patched`, or `patched (no change)`
/// when the object came back identical.
pub fn patch(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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
pub fn label_or_annotate(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output, field: MetaField) {
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

/// `kubectl edit TYPE NAME`: opens the object in the page's editor (prints nothing).
pub fn edit(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) -> Option<EditSession> {
    let targets = match resources::resolve(&p.args, false) {
        Ok(t) => t,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    let (kind, name) = match targets.as_slice() {
        [Target::Named(k, n)] => (*k, n.clone()),
        [] => {
            out.fail(CmdError::Usage {
                cmd: "edit".into(),
                msg: "You must provide one or more resources by argument or filename.".into(),
            });
            return None;
        }
        _ => {
            out.fail(CmdError::Plain("this console edits one object at a time: kubectl edit TYPE NAME".into()));
            return None;
        }
    };
    let ns = ns_of(kind, Some(ctx.ns)).map(String::from);
    match api.get(kind, ns.as_deref(), &name) {
        Ok(obj) => Some(EditSession {
            kind,
            namespace: ns,
            name,
            resource_version: obj.resource_version().to_string(),
            yaml: manifest::to_yaml(&obj),
        }),
        Err(e) => {
            out.fail(e.into());
            None
        }
    }
}

/// Saves an edit as a PUT carrying the loaded resourceVersion (see [`EditSession`]).
pub fn save_edit(api: &mut dyn Cluster, session: &EditSession, text: &str, out: &mut Output) {
    let mut obj = match manifest::parse_objects(text) {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        Ok(_) => return out.fail(CmdError::Plain("the edited file must hold exactly one object".into())),
        Err(e) => return out.fail(CmdError::Plain(format!("error parsing edited object: {e}"))),
    };
    let loaded = manifest::parse_objects(&session.yaml).ok().and_then(|mut v| v.pop());
    if loaded.as_ref() == Some(&obj) {
        out.err("Edit cancelled, no changes made.\n");
        return;
    }
    if obj.name() != session.name {
        return out.fail(CmdError::Plain(format!(
            "At least one of apiVersion, kind and name was changed\nThe edited file failed validation: metadata.name: Invalid value: {:?}: field is immutable",
            obj.name()
        )));
    }
    if obj.meta().and_then(|m| m.get("resourceVersion")).is_none() {
        obj.meta_mut().insert("resourceVersion".into(), json!(session.resource_version));
    }
    match api.update(obj) {
        Ok(o) => out.out(format!("{} edited\n", printers::name_of(session.kind, &o))),
        Err(e) => out.fail(CmdError::Raw(server_error(&e))),
    }
}

/// `kubectl set image` flags.
pub const SET_IMAGE_FLAGS: &[FlagSpec] = &[ALL_IN_NAMESPACE, SELECTOR, OUTPUT_NAME];

/// `kubectl set image TYPE/NAME CONTAINER=IMAGE...` (`*` names every container): prints
/// `deployment.apps/web image updated` (kubectl pkg/cmd/set/set_image.go).
pub fn set_image(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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
pub fn run_pod(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
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
