//! The embed's message protocol, version [`VERSION`] (documented for authors in `docs/embed.md`).
//!
//! Every message is a JSON object with `source: "reconcile-lab"` and a `type`.
//! - Host to embed: `{type: "run", id, command}`, `{type: "step", id, count}`,
//!   `{type: "reset", id}`, `{type: "load", id, manifests}`; and `{type: "start"}`, which only
//!   the start view acts on (public/boot.js loads the app; here it is ignored).
//! - Embed to host: `{type: "ready"}`, `{type: "result", id, ok, output}`, `{type: "resize",
//!   height}`, `{type: "goal", lesson, goal}`; before the app runs, the start view's
//!   `{type: "standby"}`, `resize`, `{type: "loading", loaded, total}` while the app downloads,
//!   and `{type: "error", message, retry}` when it could not start (or, `retry: false`, when it
//!   stopped on an internal error). Each also carries `version`. The last two were added to
//!   version 1 compatibly (a host ignores the types it does not know); `public/boot.js` posts
//!   them, as it posts `standby`, since no wasm runs then.
//!
//! Everything a host sends is untrusted: [`parse`] is total over any JSON value and decides,
//! before anything runs, whether the message is ignored (not ours), refused (an error result,
//! nothing changes) or a [`Request`]; [`execute`] then runs a request on the session.

use serde_json::{json, Value};

use crate::session::{Session, MAX_LINE};

/// The protocol version this embed speaks (a host may send `version`; any other value is
/// refused).
pub const VERSION: u64 = 1;

/// The `source` of every message of this protocol, both ways.
pub const SOURCE: &str = "reconcile-lab";

/// The longest message (as JSON text) the page passes to [`parse`]; longer ones are refused
/// before parsing.
pub const MAX_MESSAGE_BYTES: usize = 512 * 1024;

/// The longest request id: a string of at most this many characters, or a number.
pub const MAX_ID_CHARS: usize = 200;

/// The most steps one `step` request may take.
pub const MAX_STEP_COUNT: u64 = 1000;

/// The longest `load` manifests text.
pub const MAX_MANIFESTS: usize = 256 * 1024;

/// A host's request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Run one console line (kubectl or lab), as if typed.
    Run {
        /// The request id (echoed in the result).
        id: Value,
        /// The line.
        command: String,
    },
    /// Take `count` steps.
    Step {
        /// The request id.
        id: Value,
        /// How many (1 to [`MAX_STEP_COUNT`]).
        count: u64,
    },
    /// Back to the embed's starting state.
    Reset {
        /// The request id.
        id: Value,
    },
    /// Apply manifests (YAML, `---`-separated) like `kubectl apply -f -`.
    Load {
        /// The request id.
        id: Value,
        /// The YAML text.
        manifests: String,
    },
}

impl Request {
    /// The request's id.
    pub fn id(&self) -> &Value {
        match self {
            Request::Run { id, .. } | Request::Step { id, .. } | Request::Reset { id } | Request::Load { id, .. } => id,
        }
    }
}

/// What to do with an incoming message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Incoming {
    /// Not a request of this protocol (another script's message, or one of the embed's own
    /// kinds): ignored silently.
    Ignore,
    /// A request to run.
    Request(Request),
    /// A message of this protocol that cannot be run: answer `result` with `ok: false` and this
    /// error, change nothing.
    Refuse {
        /// The id to answer with (`null` when the message had none, or an unusable one).
        id: Value,
        /// Why.
        error: String,
    },
}

/// A usable id: a string of at most [`MAX_ID_CHARS`] characters or a number; absent is `null`.
fn read_id(msg: &serde_json::Map<String, Value>) -> Result<Value, String> {
    match msg.get("id") {
        None | Some(Value::Null) => Ok(Value::Null),
        Some(Value::Number(n)) => Ok(Value::Number(n.clone())),
        Some(Value::String(s)) if s.chars().count() <= MAX_ID_CHARS => Ok(Value::String(s.clone())),
        Some(Value::String(_)) => Err(format!("id is longer than {MAX_ID_CHARS} characters")),
        Some(_) => Err("id must be a string or a number".into()),
    }
}

fn text_field<'a>(msg: &'a serde_json::Map<String, Value>, name: &str, max: usize) -> Result<&'a str, String> {
    match msg.get(name) {
        Some(Value::String(s)) if s.len() <= max => Ok(s),
        Some(Value::String(s)) => Err(format!("{name} is {} bytes long; the most is {max}", s.len())),
        Some(_) => Err(format!("{name} must be a string")),
        None => Err(format!("{name} is missing")),
    }
}

/// Classifies a message. Total over every JSON value; never runs anything.
pub fn parse(msg: &Value) -> Incoming {
    let Some(obj) = msg.as_object() else { return Incoming::Ignore };
    if obj.get("source").and_then(Value::as_str) != Some(SOURCE) {
        return Incoming::Ignore;
    }
    let refuse = |id: Value, error: String| Incoming::Refuse { id, error };
    let id = match read_id(obj) {
        Ok(id) => id,
        Err(e) => return refuse(Value::Null, e),
    };
    let Some(kind) = obj.get("type").and_then(Value::as_str) else {
        return refuse(id, "type must be a string".into());
    };
    match obj.get("version") {
        None => {}
        Some(v) if v.as_u64() == Some(VERSION) => {}
        Some(_) => return refuse(id, format!("this embed speaks version {VERSION} of the protocol")),
    }
    let request = match kind {
        // The embed's own messages (a host echoing them, or a page embedding itself); `standby`,
        // `loading` and `error` are posted by public/boot.js, around the app's start.
        "ready" | "result" | "resize" | "goal" | "standby" | "loading" | "error" => return Incoming::Ignore,
        // `start` asks the start view (public/boot.js) to load the app; once the app runs, it
        // has nothing to do and no result (docs/embed.md).
        "start" => return Incoming::Ignore,
        "run" => text_field(obj, "command", MAX_LINE).map(|c| Request::Run { id: id.clone(), command: c.to_string() }),
        "step" => match obj.get("count") {
            None | Some(Value::Null) => Ok(Request::Step { id: id.clone(), count: 1 }),
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_STEP_COUNT).contains(&n) => Ok(Request::Step { id: id.clone(), count: n }),
                _ => Err(format!("count must be a whole number from 1 to {MAX_STEP_COUNT}")),
            },
        },
        "reset" => Ok(Request::Reset { id: id.clone() }),
        "load" => text_field(obj, "manifests", MAX_MANIFESTS)
            .map(|m| Request::Load { id: id.clone(), manifests: m.to_string() }),
        other => Err(format!("unknown message type {:?}", other.chars().take(40).collect::<String>())),
    };
    match request {
        Ok(r) => Incoming::Request(r),
        Err(e) => refuse(id, e),
    }
}

/// Classifies a message that arrived as JSON text (what the page has after `JSON.stringify`).
pub fn parse_text(text: &str) -> Incoming {
    if text.len() > MAX_MESSAGE_BYTES {
        // Too long to read for an id: answered with a null id.
        return Incoming::Refuse { id: Value::Null, error: format!("message longer than {MAX_MESSAGE_BYTES} bytes") };
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => parse(&v),
        Err(_) => Incoming::Ignore,
    }
}

/// What a request did: the `result` message's `ok` and `output`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestResult {
    /// False on an error.
    pub ok: bool,
    /// For `run`: exactly what the console printed (both streams, in order).
    pub output: String,
}

/// A here-document delimiter that no line of `text` equals.
fn delimiter(text: &str) -> String {
    let mut d = "RECONCILE_LAB_EOF".to_string();
    while text.lines().any(|l| l.trim() == d) {
        d.push('_');
    }
    d
}

/// Runs a request on the session. `reset` builds the embed's starting session.
pub fn execute(session: &mut Session, request: &Request, reset: impl FnOnce() -> Session) -> RequestResult {
    match request {
        Request::Run { command, .. } => {
            let out = session.console_submit(command);
            RequestResult { ok: out.exit_code == 0, output: out.terminal() }
        }
        Request::Step { count, .. } => {
            let mut output = String::new();
            let mut taken = 0;
            for _ in 0..*count {
                if !session.step() {
                    break;
                }
                taken += 1;
                if let Some(n) = session.narration() {
                    output.push_str(&format!("Step {} · {}: {}\n", n.number, n.actor, n.sentence));
                }
            }
            if taken < *count {
                output.push_str(session.notice().unwrap_or("Nothing can happen now."));
                output.push('\n');
            }
            RequestResult { ok: taken > 0, output }
        }
        Request::Reset { .. } => {
            session.replace_with(reset());
            RequestResult { ok: true, output: String::new() }
        }
        Request::Load { manifests, .. } => {
            let d = delimiter(manifests);
            let body = manifests.strip_suffix('\n').unwrap_or(manifests);
            let out = session.console_submit(&format!("kubectl apply -f - <<'{d}'\n{body}\n{d}"));
            RequestResult { ok: out.exit_code == 0, output: out.terminal() }
        }
    }
}

/// `{source, type: "ready", version}`.
pub fn ready() -> Value {
    json!({"source": SOURCE, "type": "ready", "version": VERSION})
}

/// `{source, type: "result", version, id, ok, output}`.
pub fn result(id: &Value, r: &RequestResult) -> Value {
    json!({"source": SOURCE, "type": "result", "version": VERSION, "id": id, "ok": r.ok, "output": r.output})
}

/// The result of a refused message.
pub fn refusal(id: &Value, error: &str) -> Value {
    result(id, &RequestResult { ok: false, output: format!("error: {error}\n") })
}

/// `{source, type: "resize", version, height}` (CSS pixels, rounded up).
pub fn resize(height: u32) -> Value {
    json!({"source": SOURCE, "type": "resize", "version": VERSION, "height": height})
}

/// `{source, type: "goal", version, lesson, goal}` when a lesson goal is met.
pub fn goal(lesson: &str, goal: &str) -> Value {
    json!({"source": SOURCE, "type": "goal", "version": VERSION, "lesson": lesson, "goal": goal})
}

#[cfg(test)]
mod tests;
