//! `kubectl wait --for=condition=X|delete|jsonpath='{...}'=V` (kubectl pkg/cmd/wait): prints
//! `<kind.group>/<name> condition met` for each object once its condition holds. Like every
//! wait in the console it is a continuation: the world advancing makes it finish, and the
//! timeout (default 30s) is measured on the virtual clock.

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::jsonpath::JsonPath;
use super::resources::{self, Target};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::status::Reason;
use crate::engine::time::{parse_duration, Time};
use serde_json::Value;
use std::time::Duration;

/// `kubectl wait` flags.
pub const FLAGS: &[FlagSpec] = &[
    flag("for", None, FlagKind::Str, "The condition to wait on: [delete|condition=condition-name[=condition-value]|jsonpath='{JSONPath expression}'=[JSONPath value]]."),
    flag("timeout", None, FlagKind::Str, "The length of time to wait before giving up (virtual time). Defaults to 30s."),
    flag("selector", Some('l'), FlagKind::Str, "Selector (label query) to filter on."),
    flag("all", None, FlagKind::Bool, "Select all resources in the namespace of the specified resource types."),
];

/// What `--for` asks.
#[derive(Clone, Debug)]
pub enum WaitFor {
    /// `--for=delete`: the object is gone (or replaced by another with the same name).
    Delete,
    /// `--for=condition=Type[=value]`: `status.conditions[type=Type].status == value` (default `True`).
    Condition(String, String),
    /// `--for=jsonpath='{...}'=value` (or without `=value`: the field exists).
    JsonPath(JsonPath, Option<String>),
}

/// One object being waited for.
#[derive(Clone, Debug)]
pub struct WaitTarget {
    /// Its kind.
    pub kind: &'static Kind,
    /// Its namespace.
    pub namespace: Option<String>,
    /// Its name.
    pub name: String,
    /// Its uid when the wait started (for `--for=delete`).
    pub uid: String,
}

/// A running `kubectl wait`.
#[derive(Clone, Debug)]
pub struct WaitState {
    /// The condition.
    pub condition: WaitFor,
    /// The objects not yet done.
    pub targets: Vec<WaitTarget>,
    /// When it gives up.
    pub deadline: Time,
    /// The timeout as typed, for the message.
    pub timeout: Duration,
}

fn parse_for(s: &str) -> Result<WaitFor, CmdError> {
    if s.eq_ignore_ascii_case("delete") {
        return Ok(WaitFor::Delete);
    }
    if let Some(rest) = s.strip_prefix("condition=") {
        let (ty, value) = match rest.split_once('=') {
            Some((t, v)) => (t, v),
            None => (rest, "true"),
        };
        return Ok(WaitFor::Condition(ty.to_string(), value.to_string()));
    }
    if let Some(rest) = s.strip_prefix("jsonpath=") {
        let (expr, value) = match rest.rfind("}=") {
            Some(i) => (&rest[..=i], Some(rest[i + 2..].to_string())),
            None => (rest, None),
        };
        let jp = JsonPath::parse(expr).map_err(|e| CmdError::Plain(format!("error parsing jsonpath {expr}, {e}")))?;
        return Ok(WaitFor::JsonPath(jp, value));
    }
    Err(CmdError::Plain(format!("unrecognized condition: {s:?}")))
}

/// Whether the condition holds for the object (None: the object is gone).
fn met(cond: &WaitFor, obj: Option<&Value>, uid: &str) -> bool {
    match (cond, obj) {
        (WaitFor::Delete, None) => true,
        (WaitFor::Delete, Some(o)) => o.uid() != uid,
        (_, None) => false,
        (WaitFor::Condition(ty, value), Some(o)) => {
            o.pointer("/status/conditions").and_then(Value::as_array).is_some_and(|cs| {
                cs.iter().any(|c| {
                    c.get("type").and_then(Value::as_str).is_some_and(|t| t.eq_ignore_ascii_case(ty))
                        && c.get("status").and_then(Value::as_str).is_some_and(|s| s.eq_ignore_ascii_case(value))
                })
            })
        }
        (WaitFor::JsonPath(jp, value), Some(o)) => match jp.find(o) {
            Ok(vals) => match value {
                None => !vals.is_empty(),
                Some(v) => vals.len() == 1 && super::gojson::scalar_text(&vals[0]) == *v,
            },
            Err(_) => false,
        },
    }
}

/// Runs `kubectl wait`; returns the continuation when something is still awaited.
pub fn run(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Option<WaitState> {
    let Some(for_) = p.str("for") else {
        out.fail(CmdError::Plain("--for must be set to one of: [delete|condition=condition-name[=condition-value]|jsonpath='{JSONPath expression}'=[JSONPath value]]".into()));
        return None;
    };
    let condition = match parse_for(for_) {
        Ok(c) => c,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    let timeout = match p.str("timeout").map(|t| parse_duration(t).ok_or(t)) {
        None => Duration::from_secs(30),
        Some(Ok(d)) => d,
        Some(Err(t)) => {
            out.fail(CmdError::Plain(format!(
                "invalid argument {t:?} for \"--timeout\" flag: time: invalid duration {t:?}"
            )));
            return None;
        }
    };
    let targets = match resources::resolve(&p.args, false) {
        Ok(t) if !t.is_empty() => t,
        Ok(_) => {
            out.fail(CmdError::Plain("resource(s) were provided, but no name was specified".into()));
            return None;
        }
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    let mut waiting = Vec::new();
    for t in targets {
        let kind = t.kind();
        let ns = kind.namespaced.then(|| ctx.ns.to_string());
        let objs: Vec<Value> = match &t {
            Target::Named(_, name) => match api.get(kind, ns.as_deref(), name) {
                Ok(o) => vec![o],
                // Already gone: `--for=delete` ignores NotFound and has nothing to print.
                Err(e) if e.reason == Reason::NotFound && matches!(condition, WaitFor::Delete) => continue,
                Err(e) => {
                    out.fail(e.into());
                    continue;
                }
            },
            Target::All(_) => {
                let sel = match p.str("selector").map(Selector::parse).transpose() {
                    Ok(s) => s.unwrap_or_else(Selector::everything),
                    Err(e) => {
                        out.fail(CmdError::Plain(e));
                        return None;
                    }
                };
                if !p.has("selector") && !p.bool("all") {
                    out.fail(CmdError::Plain("resource(s) were provided, but no name was specified".into()));
                    return None;
                }
                match api.list(kind, ns.as_deref(), &sel) {
                    Ok(l) => l.items,
                    Err(e) => {
                        out.fail(e.into());
                        continue;
                    }
                }
            }
        };
        for o in objs {
            waiting.push(WaitTarget {
                kind,
                namespace: o.namespace().map(String::from),
                name: o.name().to_string(),
                uid: o.uid().to_string(),
            });
        }
    }
    let mut state = WaitState { condition, targets: waiting, deadline: api.now().after(timeout), timeout };
    if resume(api, &mut state, out) {
        None
    } else {
        Some(state)
    }
}

/// Prints `condition met` for every target whose condition now holds, and the timeout error
/// once the virtual clock passes the deadline. True when the wait is over.
pub fn resume(api: &mut dyn Cluster, w: &mut WaitState, out: &mut Output) -> bool {
    let now = api.now();
    let cond = w.condition.clone();
    w.targets.retain(|t| {
        let obj = api.get(t.kind, t.namespace.as_deref(), &t.name).ok();
        if met(&cond, obj.as_ref(), &t.uid) {
            out.out(format!("{}/{} condition met\n", t.kind.name_prefix(), t.name));
            false
        } else {
            true
        }
    });
    if w.targets.is_empty() {
        return true;
    }
    if now >= w.deadline {
        for t in &w.targets {
            out.fail(CmdError::Plain(format!("timed out waiting for the condition on {}/{}", t.kind.resource, t.name)));
        }
        return true;
    }
    false
}

/// The page's description of a running wait.
pub fn describe(w: &WaitState) -> String {
    let names: Vec<String> = w.targets.iter().map(|t| format!("{}/{}", t.kind.name_prefix(), t.name)).collect();
    let what = match &w.condition {
        WaitFor::Delete => "deletion".to_string(),
        WaitFor::Condition(t, v) => format!("condition {t}={v}"),
        WaitFor::JsonPath(jp, v) => format!("{}{}", jp.raw(), v.as_ref().map(|v| format!("={v}")).unwrap_or_default()),
    };
    format!("waiting for {what} on {} (timeout {})", names.join(", "), crate::engine::world::fmt_duration(w.timeout))
}
