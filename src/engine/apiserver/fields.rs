//! Field selectors (`kubectl get --field-selector`), as apimachinery's `pkg/fields` parses and
//! matches them, with each kind's selectable fields (`GetAttrs`/`ToSelectableFields` in k/k
//! `pkg/registry/*/strategy.go`; field label conversion in `pkg/apis/*/v1/conversion.go`).
//!
//! The grammar is comma-separated terms `field=value`, `field==value` or `field!=value`
//! (`\,`, `\=` and `\\` escape). A field a kind does not support is a 400
//! `field label not supported: <field>`.

use std::fmt;

use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Reason, Status};

/// One term: a field and a value it must (or must not) equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    /// The field label, e.g. `status.phase`.
    pub field: String,
    /// The value.
    pub value: String,
    /// `!=` rather than `=`.
    pub negated: bool,
}

/// A field selector: the conjunction of its terms, in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector {
    terms: Vec<Term>,
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace(',', "\\,").replace('=', "\\=")
}

impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .terms
            .iter()
            .map(|t| format!("{}{}{}", t.field, if t.negated { "!=" } else { "=" }, escape(&t.value)))
            .collect();
        f.write_str(&parts.join(","))
    }
}

/// Splits on unescaped commas, as `fields.splitTerms` does.
fn split_terms(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            cur.push('\\');
            cur.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == ',' {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    if escaped {
        cur.push('\\');
    }
    out.push(cur);
    out
}

fn unescape(v: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(e @ ('\\' | ',' | '=')) => out.push(e),
                Some(e) => return Err(format!("invalid escape sequence: \\{e}")),
                None => return Err("unterminated escape sequence".to_string()),
            }
        } else if c == ',' || c == '=' {
            return Err(format!("unescaped {c} in value: {v}"));
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

impl FieldSelector {
    /// Matches every object.
    pub fn everything() -> FieldSelector {
        FieldSelector::default()
    }

    /// Whether there are no terms.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The terms.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// `fields.ParseSelector`.
    pub fn parse(text: &str) -> Result<FieldSelector, String> {
        let mut terms = Vec::new();
        for part in split_terms(text) {
            if part.is_empty() {
                continue;
            }
            // `splitTerm`: the first `!=`, `==` or `=` that is not escaped.
            let bytes = part.as_bytes();
            let mut found = None;
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'\\' {
                    i += 2;
                    continue;
                }
                if part[i..].starts_with("!=") {
                    found = Some((i, 2, true));
                } else if part[i..].starts_with("==") {
                    found = Some((i, 2, false));
                } else if bytes[i] == b'=' {
                    found = Some((i, 1, false));
                }
                if found.is_some() {
                    break;
                }
                i += 1;
            }
            let Some((at, len, negated)) = found else {
                return Err(format!("invalid selector: '{text}'; can't understand '{part}'"));
            };
            let value = unescape(&part[at + len..])?;
            terms.push(Term { field: part[..at].to_string(), value, negated });
        }
        Ok(FieldSelector { terms })
    }

    /// Checks every field label against what `kind` can select on (400 otherwise).
    pub fn check(&self, kind: &Kind) -> Result<(), Status> {
        for t in &self.terms {
            if !selectable(kind).contains(&t.field.as_str()) {
                return Err(Status::new(Reason::BadRequest, format!("field label not supported: {}", t.field)));
            }
        }
        Ok(())
    }

    /// Whether an object satisfies every term (a missing field reads as "").
    pub fn matches(&self, kind: &Kind, obj: &Frozen) -> bool {
        self.terms.iter().all(|t| (field_value(kind, obj, &t.field) == t.value) != t.negated)
    }
}

/// The field labels each kind supports.
pub fn selectable(kind: &Kind) -> &'static [&'static str] {
    match kind.kind {
        "Pod" => &[
            "metadata.name",
            "metadata.namespace",
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        "Event" => &[
            "metadata.name",
            "metadata.namespace",
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        "Namespace" => &["metadata.name", "status.phase"],
        "Node" => &["metadata.name", "spec.unschedulable"],
        "ReplicaSet" => &["metadata.name", "metadata.namespace", "status.replicas"],
        _ if kind.namespaced => &["metadata.name", "metadata.namespace"],
        _ => &["metadata.name"],
    }
}

/// An object's value for a field label, as its kind's `GetAttrs` renders it.
fn field_value(kind: &Kind, obj: &Frozen, field: &str) -> String {
    let at = |ptr: &str| obj.pointer(ptr);
    let text = |v: Option<&Frozen>| match v {
        Some(v) if v.is_string() => v.as_str().unwrap_or_default().to_string(),
        Some(v @ (Frozen::Bool(_) | Frozen::PosInt(_) | Frozen::NegInt(_) | Frozen::Float(_))) => v.to_string(),
        _ => String::new(),
    };
    match (kind.kind, field) {
        (_, "metadata.name") => obj.name().to_string(),
        (_, "metadata.namespace") => obj.namespace().unwrap_or("").to_string(),
        ("Pod", "spec.hostNetwork") | ("Node", "spec.unschedulable") => {
            let ptr = format!("/{}", field.replace('.', "/"));
            at(&ptr).and_then(Frozen::as_bool).unwrap_or(false).to_string()
        }
        ("ReplicaSet", "status.replicas") => at("/status/replicas").and_then(Frozen::as_i64).unwrap_or(0).to_string(),
        ("Event", "source") => text(at("/source/component")),
        (_, f) => text(at(&format!("/{}", f.replace('.', "/")))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_and_matches() {
        let pods = Kind::lookup("pods").unwrap();
        let s = FieldSelector::parse("status.phase=Running,spec.nodeName!=node-2").unwrap();
        assert_eq!(s.to_string(), "status.phase=Running,spec.nodeName!=node-2");
        let p = Frozen::from(
            json!({"metadata": {"name": "p"}, "spec": {"nodeName": "node-1"}, "status": {"phase": "Running"}}),
        );
        assert!(s.matches(pods, &p));
        assert!(!FieldSelector::parse("spec.nodeName==node-2").unwrap().matches(pods, &p));
        assert!(FieldSelector::parse("spec.hostNetwork=false").unwrap().matches(pods, &p));
        assert_eq!(FieldSelector::parse("bogus").unwrap_err(), "invalid selector: 'bogus'; can't understand 'bogus'");
        let err = FieldSelector::parse("spec.replicas=1").unwrap().check(Kind::lookup("deploy").unwrap()).unwrap_err();
        assert_eq!((err.code(), err.message.as_str()), (400, "field label not supported: spec.replicas"));
        assert!(FieldSelector::parse("").unwrap().is_empty());
        let ev = Kind::lookup("events").unwrap();
        let e =
            Frozen::from(json!({"involvedObject": {"name": "web"}, "source": {"component": "deployment-controller"}}));
        assert!(FieldSelector::parse("involvedObject.name=web,source=deployment-controller").unwrap().matches(ev, &e));
    }
}
