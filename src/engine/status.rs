//! `metav1.Status`: the API server's errors, with Kubernetes' exact reasons, codes and messages
//! (kubernetes-semantics.md §3). Every constructor here formats its message the way
//! apimachinery's `pkg/api/errors` does, so kubectl can print it unchanged.

use serde_json::{json, Value};

use super::kinds::Kind;

/// `metav1.StatusReason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// 404.
    NotFound,
    /// 409, create of an existing name.
    AlreadyExists,
    /// 409, optimistic-concurrency failure or failed precondition.
    Conflict,
    /// 422, validation failed.
    Invalid,
    /// 403, e.g. namespace lifecycle admission.
    Forbidden,
    /// 410, watch or list from a resourceVersion older than the history window.
    Expired,
    /// 400.
    BadRequest,
    /// 405.
    MethodNotAllowed,
    /// 504, e.g. "Too large resource version".
    Timeout,
    /// 500.
    InternalError,
    /// 503.
    ServiceUnavailable,
    /// 429.
    TooManyRequests,
    /// 500 with an empty reason: an error that is not a typed API error upstream
    /// (`ErrorToAPIStatus`' fallback), e.g. "resourceVersion should not be set on objects to be created".
    Unknown,
    /// 415, e.g. a strategic merge patch of a custom resource.
    UnsupportedMediaType,
}

impl Reason {
    /// The reason as it appears on the wire and in `Error from server (<Reason>)`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::NotFound => "NotFound",
            Reason::AlreadyExists => "AlreadyExists",
            Reason::Conflict => "Conflict",
            Reason::Invalid => "Invalid",
            Reason::Forbidden => "Forbidden",
            Reason::Expired => "Expired",
            Reason::BadRequest => "BadRequest",
            Reason::MethodNotAllowed => "MethodNotAllowed",
            Reason::Timeout => "Timeout",
            Reason::InternalError => "InternalError",
            Reason::ServiceUnavailable => "ServiceUnavailable",
            Reason::TooManyRequests => "TooManyRequests",
            Reason::Unknown => "",
            Reason::UnsupportedMediaType => "UnsupportedMediaType",
        }
    }

    /// The HTTP code that goes with the reason.
    pub fn code(self) -> u16 {
        match self {
            Reason::NotFound => 404,
            Reason::AlreadyExists | Reason::Conflict => 409,
            Reason::Invalid => 422,
            Reason::Forbidden => 403,
            Reason::Expired => 410,
            Reason::BadRequest => 400,
            Reason::MethodNotAllowed => 405,
            Reason::Timeout => 504,
            Reason::InternalError => 500,
            Reason::ServiceUnavailable => 503,
            Reason::TooManyRequests => 429,
            Reason::Unknown => 500,
            Reason::UnsupportedMediaType => 415,
        }
    }
}

/// One `details.causes` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cause {
    /// The cause type, e.g. `FieldValueInvalid`, `NamespaceTerminating`.
    pub reason: String,
    /// The cause message, e.g. `Invalid value: -1: must be greater than or equal to 0`.
    pub message: String,
    /// The field path, e.g. `spec.replicas`.
    pub field: String,
}

/// A failed API call (`metav1.Status` with `status: Failure`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    /// Machine-readable reason.
    pub reason: Reason,
    /// Human-readable message, exactly as kube-apiserver words it.
    pub message: String,
    /// `details.name`.
    pub name: String,
    /// `details.group`.
    pub group: String,
    /// `details.kind`: note this is usually the *resource* (`deployments`), as upstream does.
    pub kind: String,
    /// `details.causes`.
    pub causes: Vec<Cause>,
}

impl Status {
    /// A status with no details.
    pub fn new(reason: Reason, message: impl Into<String>) -> Status {
        Status {
            reason,
            message: message.into(),
            name: String::new(),
            group: String::new(),
            kind: String::new(),
            causes: Vec::new(),
        }
    }

    /// The HTTP code.
    pub fn code(&self) -> u16 {
        self.reason.code()
    }

    /// `errors.HasStatusCause`: whether `details.causes` has one with this reason, such as
    /// `NamespaceTerminating` (apimachinery `pkg/api/errors/errors.go`).
    pub fn has_cause(&self, reason: &str) -> bool {
        self.causes.iter().any(|c| c.reason == reason)
    }

    /// `NewNotFound`: `deployments.apps "web" not found`.
    pub fn not_found(kind: &Kind, name: &str) -> Status {
        Status {
            name: name.to_string(),
            group: kind.group.to_string(),
            kind: kind.resource.to_string(),
            ..Status::new(Reason::NotFound, format!("{} \"{name}\" not found", kind.group_resource()))
        }
    }

    /// `NewAlreadyExists`: `deployments.apps "web" already exists`.
    pub fn already_exists(kind: &Kind, name: &str) -> Status {
        Status {
            name: name.to_string(),
            group: kind.group.to_string(),
            kind: kind.resource.to_string(),
            ..Status::new(Reason::AlreadyExists, format!("{} \"{name}\" already exists", kind.group_resource()))
        }
    }

    /// `NewConflict` with the given cause text:
    /// `Operation cannot be fulfilled on deployments.apps "web": <cause>`.
    pub fn conflict_with(group_resource: &str, group: &str, resource: &str, name: &str, cause: &str) -> Status {
        Status {
            name: name.to_string(),
            group: group.to_string(),
            kind: resource.to_string(),
            ..Status::new(
                Reason::Conflict,
                format!("Operation cannot be fulfilled on {group_resource} \"{name}\": {cause}"),
            )
        }
    }

    /// The optimistic-lock conflict (kubernetes-semantics.md §3.3, TV-13).
    pub fn conflict(kind: &Kind, name: &str) -> Status {
        Status::conflict_with(
            &kind.group_resource(),
            kind.group,
            kind.resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// `NewInvalid`: `Deployment.apps "web" is invalid: <field errors joined by ", ">`.
    /// Each cause's message is the field error without its field path (`Invalid value: ...`).
    pub fn invalid(kind: &Kind, name: &str, causes: Vec<Cause>) -> Status {
        let text: Vec<String> = causes.iter().map(|c| format!("{}: {}", c.field, c.message)).collect();
        let joined = if text.len() == 1 { text[0].clone() } else { format!("[{}]", text.join(", ")) };
        Status {
            name: name.to_string(),
            group: kind.group.to_string(),
            kind: kind.kind.to_string(),
            causes,
            ..Status::new(Reason::Invalid, format!("{} \"{name}\" is invalid: {joined}", kind.group_kind()))
        }
    }

    /// `NewForbidden`: `pods "p" is forbidden: <why>`.
    pub fn forbidden(kind: &Kind, name: &str, why: &str) -> Status {
        Status {
            name: name.to_string(),
            group: kind.group.to_string(),
            kind: kind.resource.to_string(),
            ..Status::new(Reason::Forbidden, format!("{} \"{name}\" is forbidden: {why}", kind.group_resource()))
        }
    }

    /// 410 Expired for a watch or list from a compacted resourceVersion:
    /// `too old resource version: <requested> (<oldest available - 1>)`.
    pub fn expired(requested: u64, oldest: u64) -> Status {
        Status::new(Reason::Expired, format!("too old resource version: {requested} ({oldest})"))
    }

    /// The Status as JSON, as the API server sends it.
    pub fn to_json(&self) -> Value {
        let mut v =
            json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": self.message});
        if self.reason != Reason::Unknown {
            v["reason"] = json!(self.reason.as_str());
        }
        let mut details = serde_json::Map::new();
        if !self.name.is_empty() {
            details.insert("name".into(), json!(self.name));
        }
        if !self.group.is_empty() {
            details.insert("group".into(), json!(self.group));
        }
        if !self.kind.is_empty() {
            details.insert("kind".into(), json!(self.kind));
        }
        if !self.causes.is_empty() {
            let causes: Vec<Value> = self
                .causes
                .iter()
                .map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field}))
                .collect();
            details.insert("causes".into(), Value::Array(causes));
        }
        if !details.is_empty() {
            v["details"] = Value::Object(details);
        }
        v["code"] = json!(self.code());
        v
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Status {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_match_kubernetes() {
        let d = Kind::lookup("deploy").unwrap();
        assert_eq!(
            Status::conflict(d, "web").message,
            "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again"
        );
        assert_eq!(Status::not_found(d, "web").message, "deployments.apps \"web\" not found");
        let j = Status::conflict(d, "web").to_json();
        assert_eq!(j["details"]["kind"], "deployments");
        assert_eq!(j["code"], 409);
        let cm = Kind::lookup("cm").unwrap();
        let s = Status::invalid(cm, "cm", vec![Cause {
            reason: "FieldValueForbidden".into(),
            message: "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"example.com/y\"}".into(),
            field: "metadata.finalizers".into(),
        }]);
        assert_eq!(s.message, "ConfigMap \"cm\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"example.com/y\"}");
    }
}
