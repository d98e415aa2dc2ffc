//! Strict decoding (`fieldValidation=Strict`) against the schema's tables: the unknown fields of
//! an object, with their paths, or the first value of the wrong JSON type, worded as the
//! apiserver and encoding/json word them (see the parent module).

use serde_json::{Map, Value};

use super::{root, Struct, Ty};
use crate::engine::kinds::Kind;

/// What strict decoding found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A value of the wrong JSON type (the first one, as encoding/json reports it).
    Type {
        /// The JSON type found: `string`, `number`, `number 1.5`, `bool`, `array`, `object`.
        found: String,
        /// The Go struct holding the field.
        go_struct: &'static str,
        /// The dotted field path without list indexes (`spec.template.spec.containers.image`).
        go_path: String,
        /// The Go type expected: `int32`, `v1.DeploymentSpec`, `[]v1.Container`.
        go_type: String,
        /// The field path with list indexes, for custom-resource (OpenAPI) errors.
        path: String,
        /// The OpenAPI type name expected, for custom-resource errors: `string`, `integer`...
        openapi_type: &'static str,
        /// The OpenAPI type name found.
        openapi_found: &'static str,
    },
    /// Unknown fields, in document order (`spec.replicass`, `spec.template.spec.containers[0].imagee`).
    Unknown(Vec<String>),
}

impl DecodeError {
    /// The text after `... cannot be handled as a Deployment: `.
    pub fn message(&self) -> String {
        match self {
            DecodeError::Type { found, go_struct, go_path, go_type, .. } => {
                format!("json: cannot unmarshal {found} into Go struct field {go_struct}.{go_path} of type {go_type}")
            }
            DecodeError::Unknown(fields) => {
                let parts: Vec<String> = fields.iter().map(|f| format!("unknown field \"{f}\"")).collect();
                format!("strict decoding error: {}", parts.join(", "))
            }
        }
    }
}

fn json_type(v: &Value) -> String {
    match v {
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
        Value::Null => "null".into(),
    }
}

fn openapi_json_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::Bool(_) => "boolean",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

fn go_type(ty: &Ty) -> String {
    match ty {
        Ty::Str => "string".into(),
        Ty::Int32 => "int32".into(),
        Ty::Int64 => "int64".into(),
        Ty::Bool => "bool".into(),
        Ty::IntOrString => "intstr.IntOrString".into(),
        Ty::Quantity => "resource.Quantity".into(),
        Ty::StrMap => "map[string]string".into(),
        Ty::QuantityMap => "v1.ResourceList".into(),
        Ty::StrList => "[]string".into(),
        Ty::Any => "interface {}".into(),
        Ty::Obj(s) => format!("v1.{}", s.go_name),
        Ty::List(s) => format!("[]v1.{}", s.go_name),
    }
}

fn openapi_type(ty: &Ty) -> &'static str {
    match ty {
        Ty::Str => "string",
        Ty::Int32 | Ty::Int64 => "integer",
        Ty::Bool => "boolean",
        Ty::StrList | Ty::List(_) => "array",
        _ => "object",
    }
}

pub(super) fn is_int(v: &Value, bits32: bool) -> bool {
    match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) => !bits32 || i32::try_from(i).is_ok(),
            None => false,
        },
        _ => false,
    }
}

/// Where the walk is, as a chain of segments up to the root: the two spellings of the path
/// (`go_path` without list indexes, `path` with them) are built only for an error, not for every
/// field of every object written (which allocated two strings per field).
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    parent: Option<&'a At<'a>>,
    seg: Seg<'a>,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(&'a str),
    Index(usize),
}

impl<'a> At<'a> {
    pub(super) const ROOT: At<'static> = At { parent: None, seg: Seg::Root };

    fn key(&'a self, k: &'a str) -> At<'a> {
        At { parent: Some(self), seg: Seg::Key(k) }
    }

    fn index(&'a self, i: usize) -> At<'a> {
        At { parent: Some(self), seg: Seg::Index(i) }
    }

    fn segs(&self) -> Vec<Seg<'a>> {
        let mut out = vec![self.seg];
        let mut at = self.parent;
        while let Some(a) = at {
            out.push(a.seg);
            at = a.parent;
        }
        out.reverse();
        out
    }

    /// The dotted path without list indexes (`spec.template.spec.containers.image`): each key
    /// joined to what precedes it with a dot, unless that is empty.
    fn go_path(&self) -> String {
        let mut out = String::new();
        for seg in self.segs() {
            if let Seg::Key(k) = seg {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
        }
        out
    }

    /// The path with list indexes (`spec.template.spec.containers[0].image`).
    fn path(&self) -> String {
        let mut out = String::new();
        for seg in self.segs() {
            match seg {
                Seg::Root => {}
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

pub(super) struct Walk {
    pub(super) unknown: Vec<String>,
    pub(super) type_error: Option<DecodeError>,
}

impl Walk {
    /// `go_at` is where the Go path stands (a list item's fields keep the list's Go path), `at`
    /// where the indexed path stands.
    fn type_err(&mut self, v: &Value, st: &'static Struct, go_at: &At<'_>, at: &At<'_>, ty: &Ty) {
        if self.type_error.is_none() {
            // encoding/json names the literal only when a number does not fit a numeric field.
            let found = match (v, ty) {
                (Value::Number(n), Ty::Int32 | Ty::Int64 | Ty::IntOrString) => format!("number {n}"),
                _ => json_type(v),
            };
            self.type_error = Some(DecodeError::Type {
                found,
                go_struct: st.go_name,
                go_path: go_at.go_path(),
                go_type: go_type(ty),
                path: at.path(),
                openapi_type: openapi_type(ty),
                openapi_found: openapi_json_type(v),
            });
        }
    }

    pub(super) fn check_struct(&mut self, obj: &Map<String, Value>, st: &'static Struct, go_at: &At<'_>, at: &At<'_>) {
        for (k, v) in obj {
            let child_go = go_at.key(k);
            let child = at.key(k);
            match st.fields.iter().find(|f| f.name == k) {
                None => self.unknown.push(child.path()),
                Some(f) => self.check_value(v, &f.ty, st, &child_go, &child),
            }
        }
    }

    fn check_value(&mut self, v: &Value, ty: &Ty, st: &'static Struct, go_at: &At<'_>, at: &At<'_>) {
        if v.is_null() {
            return;
        }
        let ok = match ty {
            Ty::Str => v.is_string(),
            Ty::Int32 => is_int(v, true),
            Ty::Int64 => is_int(v, false),
            Ty::Bool => v.is_boolean(),
            Ty::IntOrString => v.is_string() || is_int(v, true),
            Ty::Quantity => v.is_string() || v.is_number(),
            Ty::Any => true,
            Ty::StrMap => match v.as_object() {
                Some(m) => {
                    for val in m.values() {
                        if !val.is_string() && !val.is_null() {
                            self.type_err(val, st, go_at, at, &Ty::Str);
                        }
                    }
                    true
                }
                None => false,
            },
            Ty::QuantityMap => match v.as_object() {
                Some(m) => {
                    for val in m.values() {
                        if !val.is_string() && !val.is_number() {
                            self.type_err(val, st, go_at, at, &Ty::Quantity);
                        }
                    }
                    true
                }
                None => false,
            },
            Ty::StrList => match v.as_array() {
                Some(a) => {
                    for val in a {
                        if !val.is_string() {
                            self.type_err(val, st, go_at, at, &Ty::Str);
                        }
                    }
                    true
                }
                None => false,
            },
            Ty::Obj(inner) => match v.as_object() {
                Some(m) => {
                    self.check_struct(m, inner, go_at, at);
                    true
                }
                None => false,
            },
            Ty::List(inner) => match v.as_array() {
                Some(a) => {
                    for (i, item) in a.iter().enumerate() {
                        let item_at = at.index(i);
                        match item.as_object() {
                            Some(m) => self.check_struct(m, inner, go_at, &item_at),
                            None if item.is_null() => {}
                            None => self.type_err(item, st, go_at, &item_at, &Ty::Obj(inner)),
                        }
                    }
                    true
                }
                None => false,
            },
        };
        if !ok {
            self.type_err(v, st, go_at, at, ty);
        }
    }
}

/// Strict decoding of a whole object against its kind's schema.
pub fn strict_decode(kind: &Kind, obj: &Value) -> Result<(), DecodeError> {
    let st = root(kind);
    let mut w = Walk { unknown: Vec::new(), type_error: None };
    match obj.as_object() {
        Some(m) => w.check_struct(m, st, &At::ROOT, &At::ROOT),
        None => {
            return Err(DecodeError::Type {
                found: json_type(obj),
                go_struct: st.go_name,
                go_path: String::new(),
                go_type: format!("v1.{}", st.go_name),
                path: String::new(),
                openapi_type: "object",
                openapi_found: openapi_json_type(obj),
            })
        }
    }
    if let Some(e) = w.type_error {
        return Err(e);
    }
    if !w.unknown.is_empty() {
        return Err(DecodeError::Unknown(w.unknown));
    }
    Ok(())
}

/// Drops unknown fields (what a typed decode does under `fieldValidation=Warn` or `Ignore`).
pub fn prune_unknown(obj: &mut Value, st: &'static Struct) {
    let Some(m) = obj.as_object_mut() else { return };
    m.retain(|k, _| st.fields.iter().any(|f| f.name == k));
    for f in st.fields {
        match (&f.ty, m.get_mut(f.name)) {
            (Ty::Obj(inner), Some(v)) => prune_unknown(v, inner),
            (Ty::List(inner), Some(Value::Array(items))) => {
                for item in items {
                    prune_unknown(item, inner);
                }
            }
            _ => {}
        }
    }
}
