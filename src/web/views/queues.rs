//! The "Work queues" region, with the Conflicts view under the queues.

use leptos::prelude::*;

use super::{CapNote, WorldSource};
use crate::views::conflicts::{conflicts, ConflictView};
use crate::views::queues::{queue_views, QueueView};

/// "Work queues": every busy controller's queue (waiting, processing, dirty while processing,
/// delayed with countdown and retries), the idle ones named in one line, then the conflicts.
#[component]
pub fn WorkQueues(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let queues = source.memo(queue_views);
    let busy = Memo::new(move |_| queues.get().into_iter().filter(|q| !q.is_empty()).collect::<Vec<_>>());
    let idle = Memo::new(move |_| {
        queues.with(|qs| qs.iter().filter(|q| q.is_empty()).map(|q| q.controller.clone()).collect::<Vec<_>>())
    });
    let found = conflicts_memo(source);
    view! {
        <Show
            when=move || !queues.with(Vec::is_empty)
            fallback=|| view! {
                <p class="panel__empty">
                    "No controller runs yet. Step the cluster until a controller-manager replica leads: its controllers' queues appear here."
                </p>
            }
        >
            <div class="views__stack">
                <For each=move || busy.get() key=|q| q.clone() let:queue>
                    <Queue queue />
                </For>
                <p class="views__state">
                    {move || {
                        let idle = idle.get();
                        if idle.is_empty() { String::new() } else { format!("Empty queues: {}.", idle.join(", ")) }
                    }}
                </p>
            </div>
        </Show>
        <div class="conflicts" role="group" aria-label="Conflicts">
            <h3 class="views__subtitle">"Conflicts"</h3>
            <Show
                when=move || !found.with(Vec::is_empty)
                fallback=|| view! {
                    <p class="panel__empty">
                        "No write has met a 409 Conflict yet. One appears here when a writer sends a resourceVersion that is no longer the stored one."
                    </p>
                }
            >
                <ol class="conflicts__list">
                    <For each=move || found.get() key=|c| c.clone() let:c>
                        <Conflict c />
                    </For>
                </ol>
            </Show>
        </div>
    }
}

fn conflicts_memo(source: WorldSource) -> Memo<Vec<ConflictView>> {
    source.memo(conflicts)
}

#[component]
fn Queue(queue: QueueView) -> impl IntoView {
    let title = format!("{} queue ({})", queue.controller, queue.process);
    let label = title.clone();
    let waiting = queue
        .waiting
        .items
        .iter()
        .map(|k| {
            let mut s = k.key.clone();
            if k.adds > 1 {
                s.push_str(&format!(" ({} adds collapsed into one)", k.adds));
            }
            if k.requeues > 0 {
                s.push_str(&format!(" (retry {})", k.requeues));
            }
            s
        })
        .collect::<Vec<_>>();
    let processing = queue.processing.items.iter().map(|k| k.key.clone()).collect::<Vec<_>>();
    let dirty = queue.dirty_while_processing.items.clone();
    let delayed = queue
        .delayed
        .items
        .iter()
        .map(|d| {
            let retry = if d.requeues > 0 { format!(", retry {}", d.requeues) } else { String::new() };
            format!("{} (ready {}{retry})", d.key, d.countdown)
        })
        .collect::<Vec<_>>();
    let notes = [queue.waiting.note(), queue.delayed.note()].into_iter().flatten().next();
    view! {
        <div class="queue" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <dl class="queue__lists">
                <KeyList label="Waiting" keys=waiting />
                <KeyList label="Processing" keys=processing />
                <KeyList label="Dirty while processing" keys=dirty />
                <KeyList label="Delayed" keys=delayed />
            </dl>
            <CapNote note=notes />
        </div>
    }
}

#[component]
fn KeyList(label: &'static str, keys: Vec<String>) -> impl IntoView {
    let empty = keys.is_empty();
    view! {
        <div class="queue__list">
            <dt>{label}</dt>
            <dd>
                {if empty {
                    view! { <span class="views__muted">"none"</span> }.into_any()
                } else {
                    view! {
                        <ul class="queue__keys" aria-label=label>
                            {keys.into_iter().map(|k| view! { <li class="queue__key views__mono">{k}</li> }).collect_view()}
                        </ul>
                    }
                        .into_any()
                }}
            </dd>
        </div>
    }
}

#[component]
fn Conflict(c: ConflictView) -> impl IntoView {
    let stored = match (&c.winner, c.stored_rv, c.winner_step) {
        (Some(w), Some(rv), Some(step)) => {
            format!("The stored resourceVersion was {rv}, written by {w} at step {step}.")
        }
        _ => "The write that replaced it is older than the records shown.".to_string(),
    };
    let next = c.loser_next.clone().map_or_else(|| "It has not acted since.".to_string(), |n| format!("Then, {n}"));
    view! {
        <li class="conflicts__item">
            <p>
                <span class="views__icon" aria-hidden="true">"⚠"</span>
                " "
                <strong>{format!("Step {}: 409 Conflict on {}.", c.step, c.target)}</strong>
            </p>
            <p>{format!("{} wrote with resourceVersion {}.", c.loser, c.loser_rv)}" "{stored}</p>
            <p class="views__muted">{next}</p>
        </li>
    }
}
