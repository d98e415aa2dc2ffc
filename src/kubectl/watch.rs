//! A running `--watch` (kubectl `pkg/cmd/get/get.go` `watch`, `pkg/cmd/events/events.go`
//! `runWatch`): the watch's state, and how each event it delivers prints.

use serde_json::Value;

use super::cluster::Cluster;
use super::cmd::{CmdError, Output};
use super::event_printer::EventRows;
use super::gojson;
use super::jsonpath::JsonPath;
use super::manifest;
use super::printers::{self, TableOptions};
use super::table::TabWriter;
use crate::engine::apiserver::{EventType, WatchId};
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;

/// How a watch prints each event.
#[derive(Clone, Debug)]
pub enum WatchPrinter {
    /// Table rows (widths remembered from the first table).
    Table(TabWriter, TableOptions),
    /// `-o name`.
    Name,
    /// `-o json` (with `--output-watch-events`: compact envelopes).
    Json,
    /// `-o yaml` (documents separated by `---`).
    Yaml,
    /// `-o jsonpath=...`.
    JsonPath(JsonPath),
    /// `kubectl events --watch`: kubectl's event printer, one row per event.
    Events(EventRows),
}

/// A running `kubectl get --watch`.
#[derive(Clone, Debug)]
pub struct WatchState {
    /// The API server watch.
    pub id: WatchId,
    /// The watched kind.
    pub kind: &'static Kind,
    /// Only this object (a named watch), if set.
    pub name: Option<String>,
    /// How events print.
    pub printer: WatchPrinter,
    /// `--output-watch-events`.
    pub events: bool,
    /// A named watch starts at RV "0": its synthetic first ADDED is not printed.
    pub skip_initial_added: bool,
    /// The server's resourceVersion when the watch started (ADDED events at or below it are
    /// the synthetic initial state).
    pub start_rv: u64,
    /// Whether the table header has been printed.
    pub header_done: bool,
    /// What the console shows while it runs: `watching deployments.apps in default`.
    pub description: String,
}

#[allow(clippy::too_many_arguments)]
pub(super) fn print_event(
    printer: &mut WatchPrinter,
    kind: &Kind,
    obj: &Value,
    event: &str,
    events: bool,
    header_done: &mut bool,
    now: crate::engine::time::Time,
    out: &mut Output,
) {
    match printer {
        WatchPrinter::Table(tw, opts) => {
            out.out(printers::print_table(tw, kind, std::slice::from_ref(obj), now, opts, !*header_done, Some(event)));
            *header_done = true;
        }
        WatchPrinter::Name => out.out(format!("{}\n", printers::name_of(kind, obj))),
        WatchPrinter::Json if events => {
            // metav1.WatchEvent is a struct: `type` comes before `object`.
            let mut ty = String::new();
            gojson::string(&mut ty, event);
            out.out(format!("{{\"type\":{ty},\"object\":{}}}\n", gojson::compact(obj)));
        }
        WatchPrinter::Json => out.out(format!("{}\n", gojson::indented(obj))),
        WatchPrinter::Yaml => {
            if *header_done {
                out.out("---\n");
            }
            *header_done = true;
            out.out(manifest::to_yaml(obj));
        }
        WatchPrinter::JsonPath(jp) => match jp.print(obj) {
            Ok(t) => out.out(t),
            Err(e) => out.fail(CmdError::Plain(e)),
        },
        // `kubectl events -w` skips deletions (events expire after an hour) and other types.
        WatchPrinter::Events(rows) if event != "DELETED" => out.out(rows.print(obj, now)),
        WatchPrinter::Events(_) => {}
    }
}

/// Prints the rows for every event queued on a running watch. Returns true when the watch
/// has ended (an ERROR event).
pub fn resume(api: &mut dyn Cluster, w: &mut WatchState, out: &mut Output) -> bool {
    while let Some(ev) = api.next_event(w.id) {
        if ev.event_type == EventType::Error {
            let reason = ev.object.get("reason").and_then(Value::as_str).unwrap_or("");
            let message = ev.object.get("message").and_then(Value::as_str).unwrap_or("");
            out.fail(CmdError::Raw(format!("Error from server ({reason}): {message}")));
            api.stop_watch(w.id);
            return true;
        }
        if ev.event_type == EventType::Bookmark {
            continue;
        }
        if let Some(n) = &w.name {
            if ev.object.name() != n {
                continue;
            }
        }
        if w.skip_initial_added && ev.event_type == EventType::Added && ev.object.resource_version() <= w.start_rv {
            continue;
        }
        let now = api.now();
        let mut header_done = w.header_done;
        print_event(&mut w.printer, w.kind, &ev.object, ev.event_type.as_str(), w.events, &mut header_done, now, out);
        w.header_done = header_done;
    }
    false
}
