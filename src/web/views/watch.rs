//! The "Watch events" and "Informer caches" regions.

use leptos::prelude::*;

use super::{Item, Rows, WorldSource};
use crate::views::caches::{process_caches_with, CacheRow, Freshness, ProcessCache, RvMemo};
use crate::views::map::MapPart;
use crate::views::watch::{watch_streams, WatchEventRow, WatchStream};

/// "Watch events": one block per informer, its delivered events then those still in flight.
#[component]
pub fn WatchEvents(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let streams = super::map::filtered(source.memo(watch_streams), |part, s| {
        part.shows_informer(&s.process, &s.kind).then(|| s.clone())
    });
    // Streams with events to show get a block each; those that only listed and have nothing in
    // flight share one line, so that the events stand out.
    let busy = Memo::new(move |_| streams.get().into_iter().filter(is_busy).collect::<Vec<_>>());
    let quiet = Memo::new(move |_| {
        streams.with(|all| {
            all.iter()
                .filter(|s| !is_busy(s))
                .map(|s| format!("{} ({}, {})", s.kind, s.process, s.state))
                .collect::<Vec<_>>()
        })
    });
    let ids = Memo::new(move |_| busy.with(|b| b.iter().map(|s| Item::Text(s.id())).collect::<Vec<_>>()));
    let stream = UnsyncCallback::new(move |item: Item| match item {
        Item::Text(id) => view! { <Stream id busy /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <super::map::FilterNote region="Watch events" />
        <Show
            when=move || !streams.with(Vec::is_empty)
            fallback=|| view! {
                <p class="panel__empty">
                    "No informer is running yet. Step the cluster: the leading controller-manager's informers list each kind, then watch it, and every event they receive appears here."
                </p>
            }
        >
            <div class="views__stack">
                // One block per stream, kept across steps; inside it, only the events that changed
                // are rebuilt.
                <Rows items=ids render=stream />
                <Show when=move || !quiet.with(Vec::is_empty)>
                    <p class="views__state">
                        {move || format!("Listed, no event since: {}.", quiet.get().join("; "))}
                    </p>
                </Show>
            </div>
        </Show>
    }
}

/// Whether a stream has an event beyond its list, or events in flight.
fn is_busy(s: &WatchStream) -> bool {
    s.in_flight_total > 0 || s.delivered.iter().any(|e| e.event_type != "LIST")
}

#[component]
fn Stream(id: String, busy: Memo<Vec<WatchStream>>) -> impl IntoView {
    let title = busy.with_untracked(|b| {
        b.iter().find(|s| s.id() == id).map(|s| format!("{} informer ({})", s.kind, s.process)).unwrap_or_default()
    });
    // What this block shows, read from the panel's model: the block itself stays across steps.
    let part = move |f: fn(&WatchStream) -> Vec<Item>| {
        let id = id.clone();
        Memo::new(move |_| busy.with(|b| b.iter().find(|s| s.id() == id).map(f).unwrap_or_default()))
    };
    let state = part(|s| vec![Item::Text(s.state.clone())]);
    let delivered = part(|s| s.delivered.iter().cloned().map(Item::Event).collect());
    let in_flight = part(|s| s.in_flight.iter().cloned().map(Item::Event).collect());
    let note = part(|s| {
        (s.in_flight_total > s.in_flight.len())
            .then(|| Item::Text(format!("showing {} of {} in flight", s.in_flight.len(), s.in_flight_total)))
            .into_iter()
            .collect()
    });
    let label = title.clone();
    let event = UnsyncCallback::new(|item: Item| match item {
        Item::Event(event) => view! { <Event event /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <div class="watch" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <p class="views__state">{move || text_of(&state.get())}</p>
            <ol class="watch__events" aria-label="Delivered">
                <Rows items=delivered render=event />
            </ol>
            <Show when=move || !in_flight.with(Vec::is_empty)>
                <ol class="watch__events watch__events--in-flight" aria-label="In flight">
                    <Rows items=in_flight render=event />
                </ol>
            </Show>
            {move || (!note.with(Vec::is_empty)).then(|| view! { <p class="views__cap-note">{text_of(&note.get())}</p> })}
        </div>
    }
}

/// The text of a one-item list of [`Item::Text`] (empty otherwise).
fn text_of(items: &[Item]) -> String {
    match items.first() {
        Some(Item::Text(t)) => t.clone(),
        _ => String::new(),
    }
}

#[component]
fn Event(event: WatchEventRow) -> impl IntoView {
    let (status, icon, class) = match event.step {
        Some(_) => ("delivered", "✓", "watch__event"),
        None => ("in flight", "→", "watch__event watch__event--in-flight"),
    };
    let kind_class = format!("watch__type watch__type--{}", event.event_type.to_ascii_lowercase());
    let step = event.step.map(|s| format!(" · step {s}"));
    let rv = (event.resource_version > 0).then(|| format!(" · rv {}", event.resource_version));
    view! {
        <li class=class>
            <span class="views__icon" aria-hidden="true">{icon}</span>
            <span class="views__visually-hidden">{status}" "</span>
            <span class=kind_class>{event.event_type}</span>
            " "
            <span class="watch__key">{event.key}</span>
            <span class="views__muted">{rv}{step}</span>
        </li>
    }
}

/// "Informer caches": each process's stores next to the API server's truth, out-of-date
/// entries first, each marked with an icon and words.
#[component]
pub fn InformerCaches(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    // The resourceVersions already read stay across steps: a step reads only the objects that
    // reached a cache since the last one (RvMemo says why).
    let rvs = StoredValue::new_local(RvMemo::default());
    let caches = source.memo(move |w| rvs.try_update_value(|m| process_caches_with(w, m)).unwrap_or_default());
    // Selected on the map: one process's cache, or the rows of one informer's kind.
    let caches = super::map::filtered(caches, |part, c| match part {
        MapPart::Informer { process, kind } => (process == &c.process).then(|| {
            let mut c = c.clone();
            c.rows.items.retain(|r| &r.kind == kind);
            c
        }),
        MapPart::Process(p) => (p == &c.process).then(|| c.clone()),
        _ => Some(c.clone()),
    });
    let processes = Memo::new(move |_| caches.with(|cs| cs.iter().map(|c| Item::Text(c.process.clone())).collect()));
    let table = UnsyncCallback::new(move |item: Item| match item {
        Item::Text(process) => view! { <ProcessCacheTable process caches /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <super::map::FilterNote region="Informer caches" />
        <Show
            when=move || !caches.with(Vec::is_empty)
            fallback=|| view! {
                <p class="panel__empty">
                    "No informer cache is filled yet. Step the cluster: once an informer lists, its cache appears here next to the API server's objects."
                </p>
            }
        >
            <div class="views__stack">
                // One table per process, kept across steps; inside it, only the rows that changed
                // are rebuilt (keying a table by its whole value rebuilt sixty rows a step).
                <Rows items=processes render=table />
            </div>
        </Show>
    }
}

#[component]
fn ProcessCacheTable(process: String, caches: Memo<Vec<ProcessCache>>) -> impl IntoView {
    let title = format!("Cache of {process}");
    let label = title.clone();
    // What this table shows, read from the panel's model: the table itself stays across steps.
    let part = move |f: fn(&ProcessCache) -> Vec<Item>| {
        let process = process.clone();
        Memo::new(move |_| caches.with(|cs| cs.iter().find(|c| c.process == process).map(f).unwrap_or_default()))
    };
    let summary = part(|c| {
        vec![Item::Text(match c.out_of_date {
            0 => "Every entry matches the API server.".to_string(),
            n => format!("{n} entries differ from the API server."),
        })]
    });
    let rows = part(|c| c.rows.items.iter().cloned().map(Item::Cache).collect());
    let note = part(|c| c.rows.note().map(Item::Text).into_iter().collect());
    let line = UnsyncCallback::new(|item: Item| match item {
        Item::Cache(row) => view! { <CacheLine row /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <div class="cache" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <p class="views__state">{move || text_of(&summary.get())}</p>
            <div class="views__scroll">
                <table class="views__table">
                    <thead>
                        <tr>
                            <th scope="col">"Kind"</th>
                            <th scope="col">"Key"</th>
                            <th scope="col">"Cached rv"</th>
                            <th scope="col">"Server rv"</th>
                            <th scope="col">"State"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <Rows items=rows render=line />
                    </tbody>
                </table>
            </div>
            {move || (!note.with(Vec::is_empty)).then(|| view! { <p class="views__cap-note">{text_of(&note.get())}</p> })}
        </div>
    }
}

#[component]
fn CacheLine(row: CacheRow) -> impl IntoView {
    let rv = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let class = match row.freshness {
        Freshness::Current => "cache__row",
        _ => "cache__row cache__row--differs",
    };
    view! {
        <tr class=class>
            <td>{row.kind}</td>
            <td class="views__mono">{row.key}</td>
            <td class="views__mono">{rv(row.cached_rv)}</td>
            <td class="views__mono">{rv(row.server_rv)}</td>
            <td>
                <span class="views__icon" aria-hidden="true">{row.freshness.icon()}</span>
                " "
                {row.freshness.label()}
            </td>
        </tr>
    }
}
