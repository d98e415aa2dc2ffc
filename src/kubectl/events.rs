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
use super::cmd::{CmdCtx, CmdError, Output};
use super::event_printer::{event_time, EventRows};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use super::resources;
use super::watch::{self, WatchPrinter, WatchState};
use crate::engine::apiserver::{FieldSelector, WatchFrom};
use crate::engine::kinds::Kind;
use crate::engine::labels::Selector;

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

/// `kubectl events`; with `--watch`, the running watch (every current event as the watch's
/// initial ADDED, in the API server's order, then each new one).
pub fn run(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Option<WatchState> {
    let rows = EventRows::new(p.bool("all-namespaces"), !p.bool("no-headers"));
    list_or_watch(api, ctx, p, out, rows)
}

fn list_or_watch(
    api: &mut dyn Cluster,
    ctx: &CmdCtx<'_>,
    p: &Parsed,
    out: &mut Output,
    mut rows: EventRows,
) -> Option<WatchState> {
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
        watch::resume(api, &mut state, out);
        return Some(state);
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

    #[test]
    fn for_needs_a_name() {
        assert_eq!(decode_for("web").map(|_| ()).unwrap_err().render(), "error: --for must be in resource/name form\n");
        assert_eq!(
            decode_for("widgets/w").map(|_| ()).unwrap_err().render(),
            "error: no matches for /, Resource=widgets\n"
        );
        assert_eq!(decode_for("deploy/web").map(|(k, n)| (k.kind, n)).ok(), Some(("Deployment", "web".to_string())));
    }
}
