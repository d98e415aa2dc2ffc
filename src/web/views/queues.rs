//! The "Work queues" region, with the Conflicts view under the queues.

use leptos::prelude::*;

use super::{numbered, WorldSource};
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
                // One block per queue, kept across steps; inside it, only the keys that changed
                // are rebuilt.
                <For each=move || busy.with(|b| b.iter().map(QueueView::id).collect::<Vec<_>>()) key=String::clone let:id>
                    <Queue id busy />
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

/// The texts of one queue's four lists, in the order they are shown.
fn key_texts(queue: &QueueView) -> [Vec<String>; 4] {
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
    [waiting, processing, dirty, delayed]
}

#[component]
fn Queue(id: String, busy: Memo<Vec<QueueView>>) -> impl IntoView {
    let queue = Memo::new(move |_| busy.with(|b| b.iter().find(|q| q.id() == id).cloned().unwrap_or_default()));
    let title = queue.with_untracked(|q| format!("{} queue ({})", q.controller, q.process));
    let label = title.clone();
    let texts = Memo::new(move |_| queue.with(key_texts));
    let note = move || queue.with(|q| [q.waiting.note(), q.delayed.note()].into_iter().flatten().next());
    view! {
        <div class="queue" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <dl class="queue__lists">
                <KeyList label="Waiting" texts which=0 />
                <KeyList label="Processing" texts which=1 />
                <KeyList label="Dirty while processing" texts which=2 />
                <KeyList label="Delayed" texts which=3 />
            </dl>
            {move || note().map(|n| view! { <p class="views__cap-note">{n}</p> })}
        </div>
    }
}

/// One of a queue's lists: `texts` holds all four, `which` picks this one.
#[component]
fn KeyList(label: &'static str, texts: Memo<[Vec<String>; 4]>, which: usize) -> impl IntoView {
    let keys = Memo::new(move |_| texts.with(|t| numbered(&t[which])));
    view! {
        <div class="queue__list">
            <dt>{label}</dt>
            <dd>
                <Show
                    when=move || keys.with(|k| !k.is_empty())
                    fallback=|| view! { <span class="views__muted">"none"</span> }
                >
                    <ul class="queue__keys" aria-label=label>
                        <For
                            each=move || keys.get()
                            key=Clone::clone
                            children=|(_, k)| view! { <li class="queue__key views__mono">{k}</li> }
                        />
                    </ul>
                </Show>
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
