//! kubectl's event printer (kubectl `pkg/cmd/events/event_printer.go`, `EventPrinter`): the
//! `LAST SEEN TYPE REASON OBJECT MESSAGE` table of `kubectl events`, listed or watched.

use serde_json::Value;

use super::printers::age;
use super::table::TabWriter;
use crate::engine::object::ObjectExt;
use crate::engine::time::Time;

fn text<'a>(v: &'a Value, path: &str) -> &'a str {
    v.pointer(path).and_then(Value::as_str).unwrap_or("")
}

/// The time `kubectl events` sorts by.
pub(super) fn event_time(e: &Value) -> Option<Time> {
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

/// kubectl's `EventPrinter` as a watch uses it: the header once, then rows through one
/// tabwriter whose column widths only grow (`RememberWidths`), `--types` applied per event.
#[derive(Clone, Debug)]
pub struct EventRows {
    writer: TabWriter,
    /// `-A`: a NAMESPACE column.
    pub(super) all_namespaces: bool,
    headers: bool,
    /// `--types`, sorted and deduplicated (empty: every type).
    pub(super) types: Vec<String>,
}

impl EventRows {
    /// A printer with no `--types` filter yet.
    pub fn new(all_namespaces: bool, headers: bool) -> EventRows {
        EventRows { writer: TabWriter::new(), all_namespaces, headers, types: Vec::new() }
    }

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

    pub(super) fn wanted(&self, e: &Value) -> bool {
        self.types.is_empty() || self.types.iter().any(|t| t.eq_ignore_ascii_case(text(e, "/type")))
    }

    /// The text for some events (the header first, the first time anything prints).
    pub(super) fn print_all(&mut self, events: &[Value], now: Time) -> String {
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
    fn cells_are_cut_at_line_breaks() {
        assert_eq!(escape_cell("one\ntwo"), "one...");
        assert_eq!(escape_cell("plain"), "plain");
    }
}
