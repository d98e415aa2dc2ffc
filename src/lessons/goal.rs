//! Goal checks: a small vocabulary evaluated against the engine (the API server's objects, the
//! processes, and the world's step records), never against what the learner typed.
//!
//! The vocabulary (documented for authors in `docs/lessons.md`):
//!
//! | check | holds when |
//! |---|---|
//! | `exists KIND [NS/]NAME` | the object exists (namespaced kinds default to `default`) |
//! | `absent KIND [NS/]NAME` | it does not |
//! | `field KIND [NS/]NAME PATH OP VALUE` | the JSONPath (kubectl's, braces optional) compares so |
//! | `condition KIND [NS/]NAME TYPE STATUS` | `status.conditions[type=TYPE].status == STATUS` |
//! | `count KIND [-n NS \| -A] [-l SELECTOR] [where PATH OP VALUE]... OP N` | that many objects match |
//! | `seen [N] FILTER...` | at least N (default 1) step records since the lesson started match |
//! | `process NAME running\|stopped\|leading\|standby` | a control-plane process is in that state |
//! | `not CHECK` | the check does not hold |
//! | `CHECK and CHECK ...` | all hold at once (several `Check:` lines under one goal mean the same) |
//!
//! OP is one of `==`, `!=`, `<`, `<=`, `>`, `>=` (the ordered ones compare numbers; a string
//! holding a number counts as that number). VALUE is one shell word (quotes removed, as in the
//! console) read as JSON (`3`, `true`, `null`, `'["x"]'`) or else taken as a string, or `@PATH`: a
//! field of the same object (`field deploy web .status.observedGeneration == @.metadata.generation`),
//! optionally plus or minus a whole number (`@.status.observedGeneration+2`).
//! A path that finds nothing yields `null`; several results yield an array.
//!
//! Several `seen` parts of one goal (its `Check:` lines, or `and`) form a sequence: each counts
//! only the records after the earlier ones were satisfied ("a Pod was deleted, then the
//! ReplicaSet controller created one"). A `seen` under `not` is not part of the sequence.
//!
//! `seen` filters (all must match one record): `action=` (`list`, `deliver`, `handler`, `take`,
//! `reconcile`, `timer`, `lease`, `rewatch`, `resync`, `clock`, `api`, `fault`), `actor=` (a substring of the
//! actor, e.g. `replicaset-controller`, `kubectl`, `kube-controller-manager-b`), `key=NS/NAME` (an
//! object the step touched, or the work-queue key a worker took or reconciled), `kind=` (an
//! object's kind), `verb=` and `code=` (one API call of the step with that verb and/or HTTP code),
//! `text=` (a substring of the step's sentence), `dirty=yes|no` (a reconcile whose key was, or was
//! not, added again while it was processing, so that `Done` queued it once more).
//!
//! Checks on the world outside the API server:
//!
//! | check | holds when |
//! |---|---|
//! | `no-leaked-buckets` | no external bucket in the cloud has lost its `Bucket` object |
//! | `leaked-bucket [NS/]NAME` | the external bucket of the Bucket `NS/NAME` (default namespace `default`) leaked |
//! | `edge-drift [NS]` | the edge-triggered pod counter's ConfigMap `pod-counter-edge` in NS (default `default`) holds a count that differs from the number of Pods there |

use std::fmt;

use serde_json::{json, Value};

use crate::engine::controllers::bucket;
use crate::engine::controllers::edgetriggered::{PodCounter, Trigger};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::world::{ActionKind, Actor, StepRecord, World};
use crate::kubectl::jsonpath::JsonPath;
use crate::kubectl::shell;

/// A goal's comparison operator (`==`, `!=`, `<`, `<=`, `>`, `>=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparison {
    fn parse(s: &str) -> Option<Comparison> {
        Some(match s {
            "==" | "=" => Comparison::Eq,
            "!=" => Comparison::Ne,
            "<" => Comparison::Lt,
            "<=" => Comparison::Le,
            ">" => Comparison::Gt,
            ">=" => Comparison::Ge,
            _ => return None,
        })
    }

    /// Compares `a OP b`: equality on JSON values, with numbers by value and a string holding a
    /// number taken as that number (ConfigMap `data` values are strings); order on numbers only.
    pub fn compare(self, a: &Value, b: &Value) -> bool {
        let num = |v: &Value| v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()));
        let eq = match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        };
        match self {
            Comparison::Eq => eq,
            Comparison::Ne => !eq,
            _ => match (num(a), num(b)) {
                (Some(x), Some(y)) => match self {
                    Comparison::Lt => x < y,
                    Comparison::Le => x <= y,
                    Comparison::Gt => x > y,
                    _ => x >= y,
                },
                _ => false,
            },
        }
    }
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Comparison::Eq => "==",
            Comparison::Ne => "!=",
            Comparison::Lt => "<",
            Comparison::Le => "<=",
            Comparison::Gt => ">",
            Comparison::Ge => ">=",
        })
    }
}

/// The right-hand side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A literal.
    Value(Value),
    /// Another field of the same object (a JSONPath), plus a whole-number offset
    /// (`@.status.observedGeneration+2`).
    Field(String, i64),
}

/// One object, by kind and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The kind's `kind` (`Deployment`).
    pub kind: &'static str,
    /// Namespace for namespaced kinds (`default` unless given).
    pub namespace: Option<String>,
    /// Name.
    pub name: String,
}

/// `where PATH OP VALUE` inside a `count`.
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    /// JSONPath.
    pub path: String,
    /// Comparison.
    pub op: Comparison,
    /// Right-hand side.
    pub value: Operand,
}

/// What a `seen` check matches in a step record. Every field set must match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordFilter {
    /// `ActionKind::as_str()`.
    pub action: Option<String>,
    /// Substring of the actor's display form.
    pub actor: Option<String>,
    /// A touched object's `ns/name`, or the work-queue key taken or reconciled.
    pub key: Option<String>,
    /// A touched object's kind.
    pub kind: Option<String>,
    /// An API call's verb.
    pub verb: Option<String>,
    /// An API call's HTTP code.
    pub code: Option<u16>,
    /// Substring of the sentence.
    pub text: Option<String>,
    /// `dirty=yes`: a reconcile whose key was added again while it was processing, so that
    /// `Done` queued it once more (`dirty=no`: one whose key was not).
    pub dirty: Option<bool>,
}

/// A control-plane process state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessState {
    /// Running (leading or not).
    Running,
    /// Not running.
    Stopped,
    /// Running and holding the lease.
    Leading,
    /// Running, waiting for the lease.
    Standby,
}

/// One goal check. See the module documentation for the syntax.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// The object exists.
    Exists(Target),
    /// The object does not exist.
    Absent(Target),
    /// A field compares.
    Field { target: Target, path: String, op: Comparison, value: Operand },
    /// A condition has a status.
    Condition { target: Target, condition_type: String, status: String },
    /// A number of objects match.
    Count {
        kind: &'static str,
        namespace: Option<String>,
        selector: String,
        filters: Vec<Filter>,
        op: Comparison,
        n: i64,
    },
    /// Step records matched at least this many times since the lesson started.
    Seen { at_least: u64, filter: RecordFilter },
    /// A process is in a state.
    Process { name: String, state: ProcessState },
    /// Negation.
    Not(Box<Check>),
    /// Conjunction (at one moment).
    All(Vec<Check>),
    /// No external bucket leaked.
    NoLeakedBuckets,
    /// The external bucket of this Bucket object (namespace, name) leaked.
    LeakedBucket { namespace: String, name: String },
    /// The edge-triggered pod counter of a namespace disagrees with the Pods that exist.
    EdgeDrift { namespace: String },
}

fn kind_named(s: &str) -> Result<&'static Kind, String> {
    Kind::by_kind(s).or_else(|| Kind::lookup(s)).ok_or_else(|| format!("unknown kind {s:?}"))
}

fn target(kind: &str, name: &str) -> Result<Target, String> {
    let k = kind_named(kind)?;
    let (namespace, name) = match (k.namespaced, name.split_once('/')) {
        (true, Some((ns, n))) => (Some(ns.to_string()), n.to_string()),
        (true, None) => (Some("default".to_string()), name.to_string()),
        (false, Some(_)) => return Err(format!("{} is cluster-scoped: name it without a namespace", k.kind)),
        (false, None) => (None, name.to_string()),
    };
    if name.is_empty() || namespace.as_deref() == Some("") {
        return Err(format!("{name:?} is not an object name"));
    }
    Ok(Target { kind: k.kind, namespace, name })
}

fn path(s: &str) -> Result<String, String> {
    let p = if s.starts_with('{') { s.to_string() } else { format!("{{{s}}}") };
    JsonPath::parse(&p).map_err(|e| format!("bad path {s:?}: {e}"))?;
    Ok(p)
}

fn operand(s: &str) -> Result<Operand, String> {
    if let Some(p) = s.strip_prefix('@') {
        // `@PATH+N` / `@PATH-N`: the offset is the digits after the last sign.
        if let Some(at) = p.rfind(['+', '-']) {
            let (base, n) = p.split_at(at);
            if n.len() > 1 && n[1..].bytes().all(|b| b.is_ascii_digit()) {
                let n: i64 = n.parse().map_err(|_| format!("offset {n:?} is too large"))?;
                return Ok(Operand::Field(path(base)?, n));
            }
        }
        return Ok(Operand::Field(path(p)?, 0));
    }
    Ok(Operand::Value(serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))))
}

fn op(s: Option<&String>) -> Result<Comparison, String> {
    s.and_then(|s| Comparison::parse(s)).ok_or_else(|| "expected a comparison: ==, !=, <, <=, > or >=".to_string())
}

/// Parses a check (the text after `Check:`, or after `step until`).
pub fn parse_check(text: &str) -> Result<Check, String> {
    if text.len() > 2_000 {
        return Err("the check is too long".into());
    }
    if text.contains('\n') {
        return Err("a check is one line".into());
    }
    let words = shell::split_words(text).map_err(|e| e.to_string())?;
    let mut parts: Vec<Vec<String>> = vec![Vec::new()];
    for w in words {
        if w == "and" {
            parts.push(Vec::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(w);
        }
    }
    let mut checks = Vec::new();
    for p in parts {
        checks.push(parse_one(&p)?);
    }
    Ok(if checks.len() == 1 { checks.remove(0) } else { Check::All(checks) })
}

fn parse_one(w: &[String]) -> Result<Check, String> {
    let Some(verb) = w.first() else { return Err("empty check".into()) };
    let arg = |i: usize, what: &str| w.get(i).ok_or_else(|| format!("{verb}: missing {what}"));
    let no_more = |n: usize| {
        if w.len() > n {
            Err(format!("{verb}: unexpected {:?}", w[n]))
        } else {
            Ok(())
        }
    };
    match verb.as_str() {
        "not" => Ok(Check::Not(Box::new(parse_one(&w[1..])?))),
        "exists" | "absent" => {
            let t = target(arg(1, "a kind")?, arg(2, "a name")?)?;
            no_more(3)?;
            Ok(if verb == "exists" { Check::Exists(t) } else { Check::Absent(t) })
        }
        "field" => {
            let t = target(arg(1, "a kind")?, arg(2, "a name")?)?;
            let p = path(arg(3, "a path")?)?;
            let o = op(w.get(4))?;
            let v = operand(arg(5, "a value")?)?;
            no_more(6)?;
            Ok(Check::Field { target: t, path: p, op: o, value: v })
        }
        "condition" => {
            let t = target(arg(1, "a kind")?, arg(2, "a name")?)?;
            let ty = arg(3, "a condition type")?.clone();
            let st = arg(4, "a status (True, False or Unknown)")?.clone();
            if !["True", "False", "Unknown"].contains(&st.as_str()) {
                return Err(format!("condition: status {st:?} is not True, False or Unknown"));
            }
            no_more(5)?;
            Ok(Check::Condition { target: t, condition_type: ty, status: st })
        }
        "count" => parse_count(w),
        "seen" => parse_seen(w),
        "process" => {
            let name = arg(1, "a process name")?.clone();
            let state = match arg(2, "a state")?.as_str() {
                "running" => ProcessState::Running,
                "stopped" => ProcessState::Stopped,
                "leading" => ProcessState::Leading,
                "standby" => ProcessState::Standby,
                s => return Err(format!("process: unknown state {s:?} (running, stopped, leading, standby)")),
            };
            no_more(3)?;
            Ok(Check::Process { name, state })
        }
        "no-leaked-buckets" => {
            no_more(1)?;
            Ok(Check::NoLeakedBuckets)
        }
        "leaked-bucket" => {
            let t = target("Bucket", arg(1, "a Bucket name")?)?;
            no_more(2)?;
            Ok(Check::LeakedBucket { namespace: t.namespace.unwrap_or_default(), name: t.name })
        }
        "edge-drift" => {
            let namespace = w.get(1).cloned().unwrap_or_else(|| "default".to_string());
            no_more(2)?;
            Ok(Check::EdgeDrift { namespace })
        }
        other => Err(format!(
            "unknown check {other:?} (known: exists, absent, field, condition, count, seen, process, not, no-leaked-buckets, leaked-bucket, edge-drift)"
        )),
    }
}

fn parse_count(w: &[String]) -> Result<Check, String> {
    let kind = kind_named(w.get(1).ok_or("count: missing a kind")?)?;
    let mut namespace = kind.namespaced.then(|| "default".to_string());
    let mut selector = String::new();
    let mut filters = Vec::new();
    let mut i = 2;
    loop {
        match w.get(i).map(String::as_str) {
            Some("-n") if kind.namespaced => {
                namespace = Some(w.get(i + 1).ok_or("count: -n needs a namespace")?.clone());
                i += 2;
            }
            Some("-A") if kind.namespaced => {
                namespace = None;
                i += 1;
            }
            Some("-l") => {
                let s = w.get(i + 1).ok_or("count: -l needs a selector")?;
                Selector::parse(s).map_err(|e| format!("count: bad selector {s:?}: {e}"))?;
                selector = s.clone();
                i += 2;
            }
            Some("where") => {
                let p = path(w.get(i + 1).ok_or("count: where needs a path")?)?;
                let o = op(w.get(i + 2))?;
                let v = operand(w.get(i + 3).ok_or("count: where needs a value")?)?;
                filters.push(Filter { path: p, op: o, value: v });
                i += 4;
            }
            _ => break,
        }
    }
    let o = op(w.get(i))?;
    let n = w
        .get(i + 1)
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or("count: the comparison needs a whole number after it")?;
    if w.len() > i + 2 {
        return Err(format!("count: unexpected {:?}", w[i + 2]));
    }
    Ok(Check::Count { kind: kind.kind, namespace, selector, filters, op: o, n })
}

const ACTIONS: [&str; 12] =
    ["list", "deliver", "handler", "take", "reconcile", "timer", "lease", "rewatch", "resync", "clock", "api", "fault"];

fn parse_seen(w: &[String]) -> Result<Check, String> {
    let mut i = 1;
    let mut at_least = 1;
    if let Some(n) = w.get(1).and_then(|s| s.parse::<u64>().ok()) {
        if n == 0 {
            return Err("seen: a count of 0 always holds; use \"not seen ...\"".into());
        }
        at_least = n;
        i = 2;
    }
    let mut f = RecordFilter::default();
    for word in &w[i..] {
        let Some((k, v)) = word.split_once('=') else {
            return Err(format!("seen: {word:?} is not a KEY=VALUE filter"));
        };
        let v = v.to_string();
        let slot = match k {
            "action" => {
                if !ACTIONS.contains(&v.as_str()) {
                    return Err(format!("seen: unknown action {v:?} (known: {})", ACTIONS.join(", ")));
                }
                &mut f.action
            }
            "actor" => &mut f.actor,
            "key" => &mut f.key,
            "kind" => &mut f.kind,
            "verb" => &mut f.verb,
            "text" => &mut f.text,
            "code" => {
                f.code = Some(v.parse().map_err(|_| format!("seen: code {v:?} is not an HTTP status code"))?);
                continue;
            }
            "dirty" => {
                let d = match v.as_str() {
                    "yes" => true,
                    "no" => false,
                    _ => return Err(format!("seen: dirty is yes or no, not {v:?}")),
                };
                if f.dirty.replace(d).is_some() {
                    return Err("seen: dirty is given twice".into());
                }
                continue;
            }
            _ => return Err(format!("seen: unknown filter {k:?} (action, actor, key, kind, verb, code, text, dirty)")),
        };
        if slot.replace(v).is_some() {
            return Err(format!("seen: {k} is given twice"));
        }
    }
    if f == RecordFilter::default() {
        return Err("seen: give at least one filter".into());
    }
    Ok(Check::Seen { at_least, filter: f })
}

impl RecordFilter {
    /// Whether one step record matches.
    pub fn matches(&self, r: &StepRecord) -> bool {
        if self.action.as_deref().is_some_and(|a| a != r.action.as_str()) {
            return false;
        }
        if let Some(a) = &self.actor {
            let shown = r.actor.to_string();
            let user = matches!(&r.actor, Actor::User(u) if u == a);
            if !user && !shown.contains(a.as_str()) {
                return false;
            }
        }
        if let Some(k) = &self.key {
            let worked = r.worked_key() == Some(k.as_str());
            if !worked && !r.objects.iter().any(|o| &o.key == k) {
                return false;
            }
        }
        if self.kind.as_ref().is_some_and(|k| !r.objects.iter().any(|o| &o.kind == k)) {
            return false;
        }
        if self.verb.is_some() || self.code.is_some() {
            let call = r.calls.iter().any(|c| {
                self.verb.as_ref().is_none_or(|v| c.verb.as_str() == v) && self.code.is_none_or(|code| c.code == code)
            });
            if !call {
                return false;
            }
        }
        if let Some(d) = self.dirty {
            if r.action != ActionKind::Reconcile || r.work.as_ref().is_none_or(|w| w.requeued_dirty != d) {
                return false;
            }
        }
        self.text.as_ref().is_none_or(|t| r.sentence.contains(t.as_str()))
    }
}

fn lookup(world: &World, t: &Target) -> Option<Value> {
    let kind = Kind::by_kind(t.kind)?;
    world.api().get(kind, t.namespace.as_deref(), &t.name).ok()
}

fn find(obj: &Value, path: &str) -> Value {
    let Ok(p) = JsonPath::parse(path) else { return Value::Null };
    match p.find(obj) {
        Ok(mut v) if v.len() == 1 => v.remove(0),
        Ok(v) if v.is_empty() => Value::Null,
        Ok(v) => Value::Array(v),
        Err(_) => Value::Null,
    }
}

fn compare(obj: &Value, p: &str, op: Comparison, rhs: &Operand) -> bool {
    let left = find(obj, p);
    let right = match rhs {
        Operand::Value(v) => v.clone(),
        Operand::Field(q, 0) => find(obj, q),
        Operand::Field(q, n) => match find(obj, q).as_i64().and_then(|v| v.checked_add(*n)) {
            Some(v) => Value::from(v),
            None => return false,
        },
    };
    op.compare(&left, &right)
}

impl Check {
    /// The number of `seen` counters this check needs (see [`Check::eval`]).
    pub fn seen_slots(&self) -> usize {
        match self {
            Check::Seen { .. } => 1,
            Check::Not(c) => c.seen_slots(),
            Check::All(cs) => cs.iter().map(Check::seen_slots).sum(),
            _ => 0,
        }
    }

    /// Counts a new step record into this check's `seen` counters (depth-first order).
    pub fn observe(&self, r: &StepRecord, counters: &mut [u64], slot: &mut usize) {
        match self {
            Check::Seen { filter, .. } => {
                if filter.matches(r) {
                    if let Some(c) = counters.get_mut(*slot) {
                        *c += 1;
                    }
                }
                *slot += 1;
            }
            Check::Not(c) => c.observe(r, counters, slot),
            Check::All(cs) => {
                // The `seen` parts of a conjunction are a sequence: each counts only the records
                // after every earlier `seen` part was satisfied (before this record).
                let mut earlier_done = true;
                for c in cs {
                    match c {
                        Check::Seen { at_least, .. } => {
                            let done_before = counters.get(*slot).is_some_and(|n| n >= at_least);
                            if earlier_done {
                                c.observe(r, counters, slot);
                            } else {
                                *slot += 1;
                            }
                            earlier_done &= done_before;
                        }
                        _ => c.observe(r, counters, slot),
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether the check holds now. `counters` are its `seen` counts (depth-first order).
    pub fn eval(&self, world: &World, counters: &[u64], slot: &mut usize) -> bool {
        match self {
            Check::Exists(t) => lookup(world, t).is_some(),
            Check::Absent(t) => lookup(world, t).is_none(),
            Check::Field { target, path, op, value } => {
                lookup(world, target).is_some_and(|o| compare(&o, path, *op, value))
            }
            Check::Condition { target, condition_type, status } => lookup(world, target).is_some_and(|o| {
                o.pointer("/status/conditions").and_then(Value::as_array).is_some_and(|cs| {
                    cs.iter().any(|c| {
                        c.get("type").and_then(Value::as_str) == Some(condition_type)
                            && c.get("status").and_then(Value::as_str) == Some(status)
                    })
                })
            }),
            Check::Count { kind, namespace, selector, filters, op, n } => {
                let (Some(k), Ok(sel)) = (Kind::by_kind(kind), Selector::parse(selector)) else { return false };
                let Ok(list) = world.api().list(k, namespace.as_deref(), &sel) else { return false };
                let matching =
                    list.items.iter().filter(|o| filters.iter().all(|f| compare(o, &f.path, f.op, &f.value))).count();
                op.compare(&Value::from(matching as i64), &Value::from(*n))
            }
            Check::Seen { at_least, .. } => {
                let c = counters.get(*slot).copied().unwrap_or(0);
                *slot += 1;
                c >= *at_least
            }
            Check::Process { name, state } => world.process(name).is_some_and(|p| match state {
                ProcessState::Running => p.running,
                ProcessState::Stopped => !p.running,
                ProcessState::Leading => p.leading(),
                ProcessState::Standby => p.running && !p.leading(),
            }),
            Check::Not(c) => !c.eval(world, counters, slot),
            Check::All(cs) => {
                // Evaluate every part so that slots stay aligned.
                let mut all = true;
                for c in cs {
                    all &= c.eval(world, counters, slot);
                }
                all
            }
            Check::NoLeakedBuckets => world.leaked_buckets().is_empty(),
            Check::LeakedBucket { namespace, name } => {
                let external = bucket::external_name(&json!({"metadata": {"namespace": namespace, "name": name}}));
                world.leaked_buckets().iter().any(|b| b.name == external)
            }
            Check::EdgeDrift { namespace } => {
                let (Some(cm), Some(pod)) = (Kind::by_kind("ConfigMap"), Kind::by_kind("Pod")) else { return false };
                let edge = PodCounter::new(Trigger::Edge, namespace).config_map_name();
                let stored =
                    world.api().get(cm, Some(namespace), &edge).ok().and_then(|c| PodCounter::stored_count(&c));
                let pods =
                    world.api().list(pod, Some(namespace), &Selector::everything()).map(|l| l.items.len() as i64);
                matches!((stored, pods), (Some(s), Ok(p)) if s != p)
            }
        }
    }
}
