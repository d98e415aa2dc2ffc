//! `kubectl create -f` and the generators `create namespace`, `create deployment` and
//! `create configmap`.

use super::{
    check_dry_run, create_or_dry, done, dry_run, objects_from_files, set_last_applied, DRY_RUN, LAST_APPLIED,
    OUTPUT_NAME, OUTPUT_NAME_YAML_JSON, SAVE_CONFIG,
};
use crate::engine::apiserver::schema;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{with_source, CmdCtx, CmdError, Deferred, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed};
use crate::kubectl::gojson;
use serde_json::{json, Map, Value};

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

/// `kubectl create -f`.
pub fn create(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
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
pub fn create_namespace(api: &mut dyn Cluster, _ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
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
pub(super) fn create_generated(api: &mut dyn Cluster, p: &Parsed, out: &mut Output, resource: &str, obj: Value) {
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
pub(super) fn save_config(mut obj: Value, p: &Parsed, resource: &str) -> Value {
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
pub fn create_deployment(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
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
pub(super) fn with_namespace(mut obj: Value, ctx: &CmdCtx<'_>, p: &Parsed) -> Value {
    if ctx.explicit_ns || !dry_run(p) {
        obj.meta_mut().insert("namespace".into(), json!(ctx.ns));
    }
    obj
}

/// `kubectl create configmap NAME --from-literal=k=v...`.
pub fn create_configmap(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
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
