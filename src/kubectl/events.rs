//! `kubectl events` (kubectl `pkg/cmd/events/events.go`, `event_printer.go`, 1.34).
//!
//! Unlike `kubectl get events`, which prints the API server's list order (by key, that is by
//! event name `<object>.<hex time>`) through the server-side table columns, `kubectl events`:
//! - lists the namespace's (or, with `-A`, every namespace's) core/v1 Events, with
//!   `--for TYPE/NAME` as the field selector `involvedObject.kind=<Kind>,involvedObject.name=NAME`;
//! - keeps only `--types` (Normal, Warning; compared case-insensitively);
//! - sorts them by time (`eventTime`: `series.lastObservedTime`, else `lastTimestamp`, else
//!   `eventTime`). kubectl uses `sort.Sort`, which for up to twelve events is an insertion sort
//!   and so keeps the list order of events with equal times; this sort is stable for every
//!   length (Go's pattern-defeating quicksort may order ties differently beyond twelve);
//! - prints its own table: `LAST SEEN TYPE REASON OBJECT MESSAGE` where LAST SEEN is the
//!   first-seen age, or `<last seen> (x<count> over <first seen>)` for repeated events, and
//!   OBJECT is `Kind/name` with the kind as the API spells it (`Deployment/web`);
//! - an empty result is `No events found in <ns> namespace.` (or `No events found.` with `-A`)
//!   on stderr.

use serde_json::Value;

use super::cluster::Cluster;
use super::cmd::{CmdError, Ctx, Output};
use super::continuation::{Continuation, WatchPrinter, WatchState};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::printers::age;
use super::resources;
use super::table::TabWriter;
use crate::engine::apiserver::{FieldSelector, WatchFrom};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

/// `kubectl events` flags.
pub const FLAGS: &[FlagSpec] = &[
    flag(
        "all-namespaces",
        Some('A'),
        FlagKind::Bool,
        "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.",
    ),
    flag("for", None, FlagKind::Str, "Filter events to only those pertaining to the specified resource."),
    flag("types", None, FlagKind::List, "Output only events of given types."),
    flag("no-headers", None, FlagKind::Bool, "When using the default output format, don't print headers."),
    flag("watch", Some('w'), FlagKind::Bool, "After listing the requested events, watch for more events."),
    flag("output", Some('o'), FlagKind::Str, "Output format. This console prints the default table only."),
];

fn text<'a>(v: &'a Value, path: &str) -> &'a str {
    v.pointer(path).and_then(Value::as_str).unwrap_or("")
}

/// The time `kubectl events` sorts by.
fn event_time(e: &Value) -> Option<Time> {
    let series = e.get("series").filter(|s| s.is_object());
    let raw = match series {
        Some(s) => text(s, "/lastObservedTime"),
        None if !text(e, "/lastTimestamp").is_empty() => text(e, "/lastTimestamp"),
        None => text(e, "/eventTime"),
    };
    Time::parse_rfc3339(raw)
}

/// `getInterval`: the LAST SEEN cell.
fn interval(e: &Value, now: Time) -> String {
    let event_time = text(e, "/eventTime");
    let first =
        if event_time.is_empty() { age(Some(text(e, "/firstTimestamp")), now) } else { age(Some(event_time), now) };
    let count = e.get("count").and_then(Value::as_i64).unwrap_or(0);
    match e.get("series").filter(|s| s.is_object()) {
        Some(s) => {
            let n = s.get("count").and_then(Value::as_i64).unwrap_or(0);
            format!("{} (x{n} over {first})", age(Some(text(s, "/lastObservedTime")), now))
        }
        None if count > 1 => format!("{} (x{count} over {first})", age(Some(text(e, "/lastTimestamp")), now)),
        None => first,
    }
}

/// `escapeCell`: a cell is cut at its first line break (`\f`, `\n`, `\r`) and marked `...`.
fn escape_cell(s: &str) -> String {
    match s.find(['\x0c', '\n', '\r']) {
        Some(i) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// `--for TYPE/NAME` → the kind and the name (`decodeResourceTypeName`).
fn decode_for(s: &str) -> Result<(&'static Kind, String), CmdError> {
    let Some((resource, name)) = s.split_once('/') else {
        return Err(CmdError::Plain("--for must be in resource/name form".into()));
    };
    if name.contains('/') {
        return Err(CmdError::Plain("arguments in resource/name form may not have more than one slash".into()));
    }
    // The REST mapper's `NoResourceMatchError` for an unknown resource.
    let kind =
        resources::lookup(resource).map_err(|_| CmdError::Plain(format!("no matches for /, Resource={resource}")))?;
    Ok((kind, name.to_string()))
}

/// kubectl's `EventPrinter` as a watch uses it: the header once, then rows through one
/// tabwriter whose column widths only grow (`RememberWidths`), `--types` applied per event.
#[derive(Clone, Debug)]
pub struct EventRows {
    writer: TabWriter,
    all_namespaces: bool,
    headers: bool,
    types: Vec<String>,
}

impl EventRows {
    fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = Vec::new();
        if self.all_namespaces {
            h.push("NAMESPACE".into());
        }
        h.extend(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"].map(String::from));
        h
    }

    fn row(&self, e: &Value, now: Time) -> Vec<String> {
        let mut row = Vec::new();
        if self.all_namespaces {
            row.push(e.namespace().unwrap_or("").to_string());
        }
        row.push(interval(e, now));
        row.push(escape_cell(text(e, "/type")));
        row.push(escape_cell(text(e, "/reason")));
        row.push(format!(
            "{}/{}",
            escape_cell(text(e, "/involvedObject/kind")),
            escape_cell(text(e, "/involvedObject/name"))
        ));
        row.push(escape_cell(text(e, "/message").trim()));
        row
    }

    fn wanted(&self, e: &Value) -> bool {
        self.types.is_empty() || self.types.iter().any(|t| t.eq_ignore_ascii_case(text(e, "/type")))
    }

    /// The text for some events (the header first, the first time anything prints).
    fn print_all(&mut self, events: &[Value], now: Time) -> String {
        let mut rows = Vec::new();
        if self.headers {
            rows.push(self.header());
            self.headers = false;
        }
        rows.extend(events.iter().filter(|e| self.wanted(e)).map(|e| self.row(e, now)));
        if rows.is_empty() {
            return String::new();
        }
        self.writer.format(&rows)
    }

    /// One watched event's row (nothing for a type `--types` leaves out).
    pub fn print(&mut self, e: &Value, now: Time) -> String {
        if !self.wanted(e) {
            return String::new();
        }
        self.print_all(std::slice::from_ref(e), now)
    }
}

/// `kubectl events`; with `--watch`, the running watch (every current event as the watch's
/// initial ADDED, in the API server's order, then each new one).
pub fn run(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) -> Option<Continuation> {
    let rows = EventRows {
        writer: TabWriter::new(),
        all_namespaces: p.bool("all-namespaces"),
        headers: !p.bool("no-headers"),
        types: Vec::new(),
    };
    list_or_watch(api, ctx, p, out, rows)
}

fn list_or_watch(
    api: &mut dyn Cluster,
    ctx: &Ctx<'_>,
    p: &Parsed,
    out: &mut Output,
    mut rows: EventRows,
) -> Option<Continuation> {
    let for_object = match p.str("for").filter(|f| !f.is_empty()).map(decode_for).transpose() {
        Ok(f) => f,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    let mut types: Vec<String> = p.list("types").iter().flat_map(|t| t.split(',')).map(String::from).collect();
    crate::sort::sort(&mut types);
    types.dedup();
    if types.iter().any(|t| !t.eq_ignore_ascii_case("Normal") && !t.eq_ignore_ascii_case("Warning")) {
        out.fail(CmdError::Plain("valid --types are Normal or Warning".into()));
        return None;
    }
    rows.types = types;
    if p.str("output").is_some_and(|o| !o.is_empty()) {
        out.fail(CmdError::Plain(
            "this console prints kubectl events as a table only; use kubectl get events -o yaml|json".into(),
        ));
        return None;
    }
    let all_ns = rows.all_namespaces;
    let fields = match &for_object {
        Some((kind, name)) => {
            FieldSelector::parse(&format!("involvedObject.kind={},involvedObject.name={name}", kind.kind))
        }
        None => Ok(FieldSelector::everything()),
    };
    let fields = match fields {
        Ok(f) => f,
        Err(e) => {
            out.fail(CmdError::Plain(e));
            return None;
        }
    };
    let ev_kind = Kind::by_kind("Event")?;
    let ns = if all_ns { None } else { Some(ctx.ns) };
    if p.bool("watch") {
        // runWatch: a watch with no resourceVersion, so the current events come first as ADDED.
        let id = match api.server_mut().watch_filtered(ev_kind, ns, Selector::everything(), fields, WatchFrom::Now) {
            Ok(id) => id,
            Err(e) => {
                out.fail(e.into());
                return None;
            }
        };
        let mut state = WatchState {
            id,
            kind: ev_kind,
            name: None,
            printer: WatchPrinter::Events(rows),
            events: false,
            skip_initial_added: false,
            start_rv: 0,
            header_done: false,
            description: format!(
                "watching events{} (Ctrl-C to stop)",
                ns.map(|n| format!(" in {n}")).unwrap_or_default()
            ),
        };
        super::get::resume_watch(api, &mut state, out);
        return Some(Continuation::Watch(Box::new(state)));
    }
    let list = match api.server().list_filtered(ev_kind, ns, &Selector::everything(), &fields) {
        Ok(l) => l,
        Err(e) => {
            out.fail(e.into());
            return None;
        }
    };
    let mut events: Vec<Value> = list.items.into_iter().filter(|e| rows.wanted(e)).collect();
    if events.is_empty() {
        if all_ns {
            out.err("No events found.\n");
        } else {
            out.err(format!("No events found in {} namespace.\n", ctx.ns));
        }
        return None;
    }
    crate::sort::sort_by_key(&mut events, event_time);
    out.out(rows.print_all(&events, api.now()));
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn interval_shows_repeats() {
        let now = Time::parse_rfc3339("2026-01-01T00:10:00Z").expect("a time");
        let once =
            json!({"firstTimestamp": "2026-01-01T00:09:00Z", "lastTimestamp": "2026-01-01T00:09:00Z", "count": 1});
        assert_eq!(interval(&once, now), "60s");
        let many =
            json!({"firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:09:30Z", "count": 4});
        assert_eq!(interval(&many, now), "30s (x4 over 10m)");
        let new_api = json!({"eventTime": "2026-01-01T00:09:58.000000Z", "firstTimestamp": null});
        assert_eq!(interval(&new_api, now), "2s");
        assert_eq!(interval(&json!({}), now), "<unknown>");
    }

    #[test]
    fn cells_are_cut_at_line_breaks_and_for_needs_a_name() {
        assert_eq!(escape_cell("one\ntwo"), "one...");
        assert_eq!(escape_cell("plain"), "plain");
        assert_eq!(decode_for("web").map(|_| ()).unwrap_err().render(), "error: --for must be in resource/name form\n");
        assert_eq!(
            decode_for("widgets/w").map(|_| ()).unwrap_err().render(),
            "error: no matches for /, Resource=widgets\n"
        );
        assert_eq!(decode_for("deploy/web").map(|(k, n)| (k.kind, n)).ok(), Some(("Deployment", "web".to_string())));
    }
}
