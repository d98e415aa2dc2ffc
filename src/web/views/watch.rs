//! The "Watch events" and "Informer caches" regions.

use leptos::prelude::*;

use super::{numbered, WorldSource};
use crate::views::caches::{process_caches, CacheRow, Freshness, ProcessCache};
use crate::views::watch::{watch_streams, WatchEventRow, WatchStream};

/// "Watch events": one block per informer, its delivered events then those still in flight.
#[component]
pub fn WatchEvents(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let streams = source.memo(watch_streams);
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
    view! {
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
                <For each=move || busy.with(|b| b.iter().map(WatchStream::id).collect::<Vec<_>>()) key=String::clone let:id>
                    <Stream id busy />
                </For>
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
    let stream = Memo::new(move |_| busy.with(|b| b.iter().find(|s| s.id() == id).cloned().unwrap_or_default()));
    let title = stream.with_untracked(|s| format!("{} informer ({})", s.kind, s.process));
    let label = title.clone();
    let flying_note = move || {
        stream.with(|s| {
            (s.in_flight_total > s.in_flight.len())
                .then(|| format!("showing {} of {} in flight", s.in_flight.len(), s.in_flight_total))
        })
    };
    view! {
        <div class="watch" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <p class="views__state">{move || stream.with(|s| s.state.clone())}</p>
            <ol class="watch__events" aria-label="Delivered">
                <For
                    each=move || stream.with(|s| numbered(&s.delivered))
                    key=Clone::clone
                    children=|(_, event)| view! { <Event event /> }
                />
            </ol>
            <Show when=move || stream.with(|s| s.in_flight_total > 0)>
                <ol class="watch__events watch__events--in-flight" aria-label="In flight">
                    <For
                        each=move || stream.with(|s| numbered(&s.in_flight))
                        key=Clone::clone
                        children=|(_, event)| view! { <Event event /> }
                    />
                </ol>
            </Show>
            {move || flying_note().map(|n| view! { <p class="views__cap-note">{n}</p> })}
        </div>
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
    let caches = source.memo(process_caches);
    view! {
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
                <For
                    each=move || caches.with(|cs| cs.iter().map(|c| c.process.clone()).collect::<Vec<_>>())
                    key=String::clone
                    let:process
                >
                    <ProcessCacheTable process caches />
                </For>
            </div>
        </Show>
    }
}

#[component]
fn ProcessCacheTable(process: String, caches: Memo<Vec<ProcessCache>>) -> impl IntoView {
    let title = format!("Cache of {process}");
    let label = title.clone();
    let cache =
        Memo::new(move |_| caches.with(|cs| cs.iter().find(|c| c.process == process).cloned().unwrap_or_default()));
    let summary = move || {
        cache.with(|c| match c.out_of_date {
            0 => "Every entry matches the API server.".to_string(),
            n => format!("{n} entries differ from the API server."),
        })
    };
    view! {
        <div class="cache" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <p class="views__state">{summary}</p>
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
                        <For
                            each=move || cache.with(|c| numbered(&c.rows.items))
                            key=Clone::clone
                            children=|(_, row)| view! { <CacheLine row /> }
                        />
                    </tbody>
                </table>
            </div>
            {move || cache.with(|c| c.rows.note()).map(|n| view! { <p class="views__cap-note">{n}</p> })}
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
