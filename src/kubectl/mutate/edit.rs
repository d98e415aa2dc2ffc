//! `kubectl edit` (opens the object in the page's editor) and saving the edit.

use super::ns_of;
use crate::engine::object::ObjectExt;
use crate::kubectl::cluster::Cluster;
use crate::kubectl::cmd::{server_error, CmdCtx, CmdError, EditSession, Output};
use crate::kubectl::flags::{flag, FlagKind, FlagSpec, Parsed};
use crate::kubectl::manifest;
use crate::kubectl::printers;
use crate::kubectl::resources::{self, Target};
use serde_json::json;

/// `kubectl edit` flags.
pub const EDIT_FLAGS: &[FlagSpec] =
    &[flag("output", Some('o'), FlagKind::Str, "Output format: yaml (the default) or json.")];

/// `kubectl edit TYPE NAME`: opens the object in the page's editor (prints nothing).
pub fn edit(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Option<EditSession> {
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
