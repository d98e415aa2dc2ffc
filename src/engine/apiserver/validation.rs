//! Validation: the 422 `Invalid` answers, with apimachinery's field errors and messages
//! (`pkg/util/validation`, `pkg/util/validation/field`, `pkg/api/validation/objectmeta.go`,
//! and the apps/core validators for the fields learners touch).
//!
//! A [`FieldError`] renders as `field.Error` does: `<path>: <body>`, where the body is
//! `Invalid value: <value>: <detail>`, `Required value`, `Forbidden: <detail>`, and so on.
//! Values render as Go's `%v`/`%q` would for numbers and strings (apimachinery
//! `pkg/util/validation/field/errors.go`, `Error.ErrorBody`).

use serde_json::{Map, Value};

use crate::engine::frozen::Frozen;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Cause, Status};

/// `field.ErrorType`: the cause reason on the wire and the body's first words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// `FieldValueInvalid`, "Invalid value".
    Invalid,
    /// `FieldValueRequired`, "Required value".
    Required,
    /// `FieldValueForbidden`, "Forbidden".
    Forbidden,
    /// `FieldValueDuplicate`, "Duplicate value".
    Duplicate,
    /// `FieldValueNotSupported`, "Unsupported value".
    NotSupported,
}

/// One field error (`field.Error`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The kind of error.
    pub error_type: ErrorType,
    /// The field path, e.g. `spec.replicas` or `spec.template.spec.containers[0].name`.
    pub field: String,
    /// The offending value, already rendered (`"web"`, `-1`), when the type shows one.
    pub value: Option<String>,
    /// The detail after the value.
    pub detail: String,
}

impl FieldError {
    /// `field.Invalid` with a string value (rendered `%q`).
    pub fn invalid(field: impl Into<String>, value: &str, detail: impl Into<String>) -> FieldError {
        FieldError::invalid_raw(field, go_quote(value), detail)
    }

    /// `field.Invalid` with a value already rendered.
    pub fn invalid_raw(field: impl Into<String>, value: String, detail: impl Into<String>) -> FieldError {
        FieldError { error_type: ErrorType::Invalid, field: field.into(), value: Some(value), detail: detail.into() }
    }

    /// `field.Required`.
    pub fn required(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError { error_type: ErrorType::Required, field: field.into(), value: None, detail: detail.into() }
    }

    /// `field.Forbidden`.
    pub fn forbidden(field: impl Into<String>, detail: impl Into<String>) -> FieldError {
        FieldError { error_type: ErrorType::Forbidden, field: field.into(), value: None, detail: detail.into() }
    }

    /// `field.Duplicate` with a string value.
    pub fn duplicate(field: impl Into<String>, value: &str) -> FieldError {
        FieldError {
            error_type: ErrorType::Duplicate,
            field: field.into(),
            value: Some(go_quote(value)),
            detail: String::new(),
        }
    }

    /// `field.NotSupported` with the list of supported values.
    pub fn not_supported(field: impl Into<String>, value: &str, supported: &[&str]) -> FieldError {
        let list: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
        FieldError {
            error_type: ErrorType::NotSupported,
            field: field.into(),
            value: Some(go_quote(value)),
            detail: format!("supported values: {}", list.join(", ")),
        }
    }

    /// `ErrorBody()`: the message without the field path.
    pub fn body(&self) -> String {
        let head = match self.error_type {
            ErrorType::Invalid => "Invalid value",
            ErrorType::Required => "Required value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotSupported => "Unsupported value",
        };
        let mut s = match &self.value {
            Some(v) => format!("{head}: {v}"),
            None => head.to_string(),
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// The `details.causes` entry.
    pub fn cause(&self) -> Cause {
        let reason = match self.error_type {
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::NotSupported => "FieldValueNotSupported",
        };
        Cause { reason: reason.to_string(), message: self.body(), field: self.field.clone() }
    }
}

/// `NewInvalid` from a list of field errors (empty list: `Ok`).
pub fn check(kind: &Kind, name: &str, errs: Vec<FieldError>) -> Result<(), Status> {
    if errs.is_empty() {
        return Ok(());
    }
    Err(Status::invalid(kind, name, errs.iter().map(FieldError::cause).collect()))
}

/// Go's `%q` for a string: double quotes, with `\"`, `\\` and control characters escaped.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%#v` of a `[]string`: `[]string{"a", "b"}`.
pub fn go_string_slice(items: &[&str]) -> String {
    let inner: Vec<String> = items.iter().map(|s| go_quote(s)).collect();
    format!("[]string{{{}}}", inner.join(", "))
}

// ---- apimachinery pkg/util/validation ----

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

/// `validation.RegexError`: note the double space before each "or", exactly as upstream.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

fn is_alnum_lower(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && is_alnum_lower(b[0])
        && is_alnum_lower(b[b.len() - 1])
        && b.iter().all(|&c| is_alnum_lower(c) || c == b'-')
}

/// `IsDNS1123Label`.
pub fn dns1123_label_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !is_dns1123_label(s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS1123_LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !s.split('.').all(is_dns1123_label) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

const QUALIFIED_NAME_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// `IsQualifiedName`: label keys, annotation keys, finalizer names.
pub fn qualified_name_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(dns1123_subdomain_errors(prefix).into_iter().map(|m| format!("prefix part {m}")));
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// `IsValidLabelValue`.
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

// ---- pkg/api/validation/objectmeta.go ----

/// Which name rule a kind's `metadata.name` follows.
pub(crate) fn name_errors(kind: &Kind, name: &str, prefix: bool) -> Vec<String> {
    // `maskTrailingDash`: a generateName may end in '-' (the suffix follows it).
    let masked;
    let name = if prefix && name.len() > 1 && name.ends_with('-') {
        masked = format!("{}a", &name[..name.len() - 1]);
        masked.as_str()
    } else {
        name
    };
    if kind.kind == "Namespace" {
        dns1123_label_errors(name)
    } else {
        dns1123_subdomain_errors(name)
    }
}

/// `ValidateObjectMeta` for create (and the parts of it that also apply on update).
pub fn validate_object_meta(kind: &Kind, obj: &Value, errs: &mut Vec<FieldError>) {
    let meta = obj.meta();
    let get = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str).unwrap_or("");
    let generate_name = get("generateName");
    if !generate_name.is_empty() {
        for m in name_errors(kind, generate_name, true) {
            errs.push(FieldError::invalid("metadata.generateName", generate_name, m));
        }
    }
    let name = get("name");
    if name.is_empty() {
        errs.push(FieldError::required("metadata.name", "name or generateName is required"));
    } else {
        for m in name_errors(kind, name, false) {
            errs.push(FieldError::invalid("metadata.name", name, m));
        }
    }
    if kind.namespaced {
        let ns = get("namespace");
        if ns.is_empty() {
            errs.push(FieldError::required("metadata.namespace", ""));
        } else {
            for m in dns1123_label_errors(ns) {
                errs.push(FieldError::invalid("metadata.namespace", ns, m));
            }
        }
    }
    if let Some(labels) = meta.and_then(|m| m.get("labels")).and_then(Value::as_object) {
        validate_labels(labels, "metadata.labels", errs);
    }
    if let Some(annotations) = meta.and_then(|m| m.get("annotations")).and_then(Value::as_object) {
        for k in annotations.keys() {
            for m in qualified_name_errors(&k.to_ascii_lowercase()) {
                errs.push(FieldError::invalid("metadata.annotations", k, m));
            }
        }
    }
    validate_owner_references(obj, errs);
    validate_finalizers(kind, obj, errs);
}

/// `ValidateLabels`: keys are qualified names, values valid label values.
pub fn validate_labels(labels: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    for (k, v) in labels {
        for m in qualified_name_errors(k) {
            errs.push(FieldError::invalid(path, k, m));
        }
        let v = v.as_str().unwrap_or("");
        for m in label_value_errors(v) {
            errs.push(FieldError::invalid(path, v, m));
        }
    }
}

/// `ValidateOwnerReferences` (apimachinery `pkg/api/validation/objectmeta.go`): required fields, no
/// Event owner, at most one controller reference.
fn validate_owner_references(obj: &Value, errs: &mut Vec<FieldError>) {
    let Some(refs) = obj.meta().and_then(|m| m.get("ownerReferences")).and_then(Value::as_array) else {
        return;
    };
    let mut controller = String::new();
    for r in refs {
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("");
        let (api_version, kind, name, uid) = (s("apiVersion"), s("kind"), s("name"), s("uid"));
        // schema.FromAPIVersionAndKind: the version is what follows the last '/'.
        let version = api_version.rsplit('/').next().unwrap_or("");
        if version.is_empty() {
            errs.push(FieldError::invalid(
                "metadata.ownerReferences.apiVersion",
                api_version,
                "version must not be empty",
            ));
        }
        if kind.is_empty() {
            errs.push(FieldError::invalid("metadata.ownerReferences.kind", kind, "must not be empty"));
        }
        if name.is_empty() {
            errs.push(FieldError::invalid("metadata.ownerReferences.name", name, "must not be empty"));
        }
        if uid.is_empty() {
            errs.push(FieldError::invalid("metadata.ownerReferences.uid", uid, "must not be empty"));
        }
        // BannedOwners: core and events.k8s.io Events; the gvk prints as `/v1, Kind=Event`.
        if kind == "Event" && (api_version == "v1" || api_version == "events.k8s.io/v1") {
            let group = if api_version == "v1" { "" } else { "events.k8s.io" };
            errs.push(FieldError::invalid_raw(
                "metadata.ownerReferences",
                go_owner_ref(r),
                format!("{group}/v1, Kind=Event is disallowed from being an owner"),
            ));
        }
        if r.get("controller").and_then(Value::as_bool) == Some(true) {
            let current = format!("{kind}/{name}");
            if controller.is_empty() {
                controller = current;
            } else {
                errs.push(FieldError::invalid_raw(
                    "metadata.ownerReferences",
                    go_owner_refs(refs),
                    format!(
                        "Only one reference can have Controller set to true. Found \"true\" in references for {controller} and {current}"
                    ),
                ));
            }
        }
    }
}

/// Go's `%#v` of a `v1.OwnerReference`. Deviation: Go prints the `*bool` fields as pointer
/// addresses (`(*bool)(0xc000...)`), which no two runs share; the lab prints the value.
fn go_owner_ref(r: &Value) -> String {
    let bool_ptr = |v: Option<&Value>| match v.and_then(Value::as_bool) {
        Some(b) => format!("(*bool)({b})"),
        None => "(*bool)(nil)".to_string(),
    };
    let s = |k: &str| go_quote(r.get(k).and_then(Value::as_str).unwrap_or(""));
    format!(
        "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, BlockOwnerDeletion:{}}}",
        s("apiVersion"),
        s("kind"),
        s("name"),
        s("uid"),
        bool_ptr(r.get("controller")),
        bool_ptr(r.get("blockOwnerDeletion"))
    )
}

/// Go's `%#v` of a `[]v1.OwnerReference`, as the controller-ref error shows the value.
fn go_owner_refs(refs: &[Value]) -> String {
    let items: Vec<String> = refs.iter().map(go_owner_ref).collect();
    format!("[]v1.OwnerReference{{{}}}", items.join(", "))
}

/// The finalizers every kind accepts without a domain prefix (types.go: "must be qualified
/// name unless defined here").
pub const STANDARD_FINALIZERS: &[&str] = &["orphan", "foregroundDeletion", "kubernetes"];

/// `ValidateFinalizers` (apimachinery): qualified names (path `metadata.finalizers`), never both
/// GC finalizers (apimachinery `pkg/api/validation/objectmeta.go`, `ValidateObjectMetaAccessor`);
/// then, for built-in kinds only, core's `validateKubeFinalizerName` (path
/// `metadata.finalizers[i]`): a name without a `/` must be a standard one. Custom resources skip
/// that last rule.
fn validate_finalizers(kind: &Kind, obj: &Value, errs: &mut Vec<FieldError>) {
    let finalizers = obj.finalizers();
    for f in &finalizers {
        for m in qualified_name_errors(f) {
            errs.push(FieldError::invalid("metadata.finalizers", f, m));
        }
    }
    if finalizers.contains(&"orphan") && finalizers.contains(&"foregroundDeletion") {
        errs.push(FieldError::invalid_raw(
            "metadata.finalizers",
            go_string_slice(&finalizers),
            "finalizer orphan and foregroundDeletion cannot be both set",
        ));
    }
    if kind.group.ends_with(".com") {
        return;
    }
    for (i, f) in finalizers.iter().enumerate() {
        if !f.contains('/') && !STANDARD_FINALIZERS.contains(f) {
            errs.push(FieldError::invalid(
                format!("metadata.finalizers[{i}]"),
                f,
                "name is neither a standard finalizer name nor is it fully qualified",
            ));
        }
    }
}

/// `ValidateObjectMetaUpdate`: immutable system fields and `ValidateNoNewFinalizers`
/// (apimachinery `pkg/api/validation/objectmeta.go`, `ValidateObjectMetaAccessorUpdate`).
pub fn validate_object_meta_update(new: &Value, old: &Frozen, errs: &mut Vec<FieldError>) {
    for field in ["name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"] {
        let n = new.meta().and_then(|m| m.get(field)).unwrap_or(&Value::Null);
        let o = old.meta().and_then(|m| m.get(field)).unwrap_or(&Frozen::Null);
        if o != n {
            let rendered = match n {
                Value::String(s) => go_quote(s),
                Value::Null => "null".to_string(),
                other => other.to_string(),
            };
            errs.push(FieldError::invalid_raw(format!("metadata.{field}"), rendered, "field is immutable"));
        }
    }
    if new.generation() < old.generation() {
        errs.push(FieldError::invalid_raw(
            "metadata.generation",
            new.generation().to_string(),
            "must not be decremented",
        ));
    }
    if old.is_deleting() {
        let old_f = old.finalizers();
        let added: Vec<&str> = new.finalizers().into_iter().filter(|f| !old_f.contains(f)).collect();
        if !added.is_empty() {
            errs.push(FieldError::forbidden(
                "metadata.finalizers",
                format!(
                    "no new finalizers can be added if the object is being deleted, found new finalizers {}",
                    go_string_slice(&added)
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_messages_match_apimachinery() {
        assert_eq!(
            dns1123_subdomain_errors("Web"),
            vec!["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"]
        );
        assert_eq!(
            dns1123_label_errors("a.b"),
            vec!["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert!(dns1123_subdomain_errors("web-1.example").is_empty());
        assert_eq!(
            qualified_name_errors("bad key"),
            vec!["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]
        );
        assert!(qualified_name_errors("example.com/x").is_empty());
        assert_eq!(label_value_errors(&"a".repeat(64)), vec!["must be no more than 63 characters"]);
    }

    #[test]
    fn field_error_bodies() {
        assert_eq!(
            FieldError::invalid_raw("spec.replicas", "-1".into(), "must be greater than or equal to 0").body(),
            "Invalid value: -1: must be greater than or equal to 0"
        );
        assert_eq!(
            FieldError::required("metadata.name", "name or generateName is required").body(),
            "Required value: name or generateName is required"
        );
        assert_eq!(FieldError::required("spec.selector", "").body(), "Required value");
        assert_eq!(go_string_slice(&["a", "b"]), "[]string{\"a\", \"b\"}");
    }
}
