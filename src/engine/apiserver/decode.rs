//! Decoding a request's object (apiserver `handlers/create.go`, `update.go`, `patch.go`: the
//! serializer's strict decoding, then defaulting): unknown fields and wrong types answer with the
//! apiserver's wording, under the request's `fieldValidation` directive.

use serde_json::Value;

use super::schema::{self, DecodeError};
use super::validation::{self, check, FieldError};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::status::{Reason, Status};

/// `fieldValidation`: what the server does with unknown fields in a request's object (a
/// create, an update, or a patched object).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them and return a warning each (`unknown field "spec.replicass"`): the server's
    /// default when a request names no directive.
    Warn,
    /// Reject the request (422): what kubectl sends for apply, edit, create and replace.
    Strict,
}

/// Strict decoding with the apiserver's error wording (see [`schema`]).
pub(crate) fn decode(kind: &Kind, obj: &Value) -> Result<(), Status> {
    match schema::strict_decode(kind, obj) {
        Ok(()) => Ok(()),
        // Custom resources are validated against their OpenAPI schema instead:
        // `spec.region: Invalid value: "integer": spec.region in body must be of type string: "integer"`.
        Err(DecodeError::Type { path, openapi_type, openapi_found, .. }) if kind.group == "example.com" => {
            let e = FieldError::invalid(
                path.clone(),
                openapi_found,
                format!("{path} in body must be of type {openapi_type}: {}", validation::go_quote(openapi_found)),
            );
            check(kind, obj.name(), vec![e])
        }
        Err(e) => Err(Status::new(
            Reason::BadRequest,
            format!(
                "{} in version {:?} cannot be handled as a {}: {}",
                kind.kind,
                kind.version,
                kind.kind,
                e.message()
            ),
        )),
    }
}

/// Decoding under a `fieldValidation` directive: Strict is [`decode`]; Warn and Ignore drop
/// unknown fields (Warn reports each as `unknown field "spec.replicass"`), but a value of the
/// wrong type is an error whatever the directive.
pub(crate) fn decode_with(kind: &Kind, obj: &mut Value, validation: FieldValidation) -> Result<Vec<String>, Status> {
    if validation != FieldValidation::Strict {
        if let Err(DecodeError::Unknown(fields)) = schema::strict_decode(kind, obj) {
            schema::prune_unknown(obj, schema::root(kind));
            decode(kind, obj)?;
            return Ok(if validation == FieldValidation::Warn {
                fields.iter().map(|f| format!("unknown field {f:?}")).collect()
            } else {
                Vec::new()
            });
        }
    }
    decode(kind, obj).map(|()| Vec::new())
}

/// Defaults (schema constants, then the conditional ones).
pub(crate) fn default(kind: &Kind, obj: &mut Value) {
    schema::apply_defaults(obj, schema::root(kind));
    schema::apply_kind_defaults(kind, obj);
}
