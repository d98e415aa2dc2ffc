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
use super::console::{CmdError, Ctx, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::printers::age;
use super::resources;
use super::table::TabWriter;
use crate::engine::apiserver::FieldSelector;
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

/// `kubectl events`.
pub fn run(api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) {
    let for_object = match p.str("for").filter(|f| !f.is_empty()).map(decode_for).transpose() {
        Ok(f) => f,
        Err(e) => return out.fail(e),
    };
    let mut types: Vec<String> = p.list("types").iter().flat_map(|t| t.split(',')).map(String::from).collect();
    types.sort();
    types.dedup();
    if types.iter().any(|t| !t.eq_ignore_ascii_case("Normal") && !t.eq_ignore_ascii_case("Warning")) {
        return out.fail(CmdError::Plain("valid --types are Normal or Warning".into()));
    }
    if p.bool("watch") {
        return out.fail(CmdError::Plain(
            "kubectl events --watch is not simulated in this console; use kubectl get events --watch".into(),
        ));
    }
    if p.str("output").is_some_and(|o| !o.is_empty()) {
        return out.fail(CmdError::Plain(
            "this console prints kubectl events as a table only; use kubectl get events -o yaml|json".into(),
        ));
    }
    let all_ns = p.bool("all-namespaces");
    let fields = match &for_object {
        Some((kind, name)) => {
            FieldSelector::parse(&format!("involvedObject.kind={},involvedObject.name={name}", kind.kind))
        }
        None => Ok(FieldSelector::everything()),
    };
    let fields = match fields {
        Ok(f) => f,
        Err(e) => return out.fail(CmdError::Plain(e)),
    };
    let Some(ev_kind) = Kind::by_kind("Event") else { return };
    let ns = if all_ns { None } else { Some(ctx.ns) };
    let list = match api.server().list_filtered(ev_kind, ns, &Selector::everything(), &fields) {
        Ok(l) => l,
        Err(e) => return out.fail(e.into()),
    };
    let mut events: Vec<Value> = list
        .items
        .into_iter()
        .filter(|e| types.is_empty() || types.iter().any(|t| t.eq_ignore_ascii_case(text(e, "/type"))))
        .collect();
    if events.is_empty() {
        if all_ns {
            out.err("No events found.\n");
        } else {
            out.err(format!("No events found in {} namespace.\n", ctx.ns));
        }
        return;
    }
    events.sort_by_key(event_time);
    let now = api.now();
    let mut rows = Vec::new();
    if !p.bool("no-headers") {
        let mut h: Vec<String> = Vec::new();
        if all_ns {
            h.push("NAMESPACE".into());
        }
        h.extend(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"].map(String::from));
        rows.push(h);
    }
    for e in &events {
        let mut row = Vec::new();
        if all_ns {
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
        rows.push(row);
    }
    out.out(TabWriter::new().format(&rows));
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
