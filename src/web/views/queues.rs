//! The "Work queues" region, with the Conflicts view under the queues.

use leptos::prelude::*;

use super::{items, Item, Rows, WorldSource};
use crate::views::conflicts::{conflicts, ConflictView};
use crate::views::queues::{queue_views, QueueView};

/// "Work queues": every busy controller's queue (waiting, processing, dirty while processing,
/// delayed with countdown and retries), the idle ones named in one line, then the conflicts.
#[component]
pub fn WorkQueues(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let queues = super::map::filtered(source.memo(queue_views), |part, q| {
        part.shows_queue(&q.process, &q.controller).then(|| q.clone())
    });
    let busy = Memo::new(move |_| queues.get().into_iter().filter(|q| !q.is_empty()).collect::<Vec<_>>());
    let idle = Memo::new(move |_| {
        queues.with(|qs| qs.iter().filter(|q| q.is_empty()).map(|q| q.controller.clone()).collect::<Vec<_>>())
    });
    let found = conflicts_memo(source);
    let ids = Memo::new(move |_| busy.with(|b| b.iter().map(|q| Item::Text(q.id())).collect::<Vec<_>>()));
    let conflict = UnsyncCallback::new(|item: Item| match item {
        Item::Conflict(c) => view! { <Conflict c /> }.into_any(),
        _ => ().into_any(),
    });
    let queue = UnsyncCallback::new(move |item: Item| match item {
        Item::Text(id) => view! { <Queue id busy /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <super::map::FilterNote region="Work queues" />
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
                <Rows items=ids render=queue />
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
                    <Rows items=items(found, Item::Conflict) render=conflict />
                </ol>
            </Show>
        </div>
    }
}

fn conflicts_memo(source: WorldSource) -> Memo<Vec<ConflictView>> {
    source.memo(conflicts)
}

/// The texts of one of a queue's four lists (`which`, in the order they are shown), or with
/// `which` 4, the note under them.
fn key_texts(queue: &QueueView, which: usize) -> Vec<Item> {
    let texts: Vec<String> = match which {
        0 => queue
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
            .collect(),
        1 => queue.processing.items.iter().map(|k| k.key.clone()).collect(),
        2 => queue.dirty_while_processing.items.clone(),
        4 => [queue.waiting.note(), queue.delayed.note()].into_iter().flatten().take(1).collect(),
        _ => queue
            .delayed
            .items
            .iter()
            .map(|d| {
                let retry = if d.requeues > 0 { format!(", retry {}", d.requeues) } else { String::new() };
                format!("{} (ready {}{retry})", d.key, d.countdown)
            })
            .collect(),
    };
    texts.into_iter().map(Item::Text).collect()
}

#[component]
fn Queue(id: String, busy: Memo<Vec<QueueView>>) -> impl IntoView {
    let title = busy.with_untracked(|b| {
        b.iter().find(|q| q.id() == id).map(|q| format!("{} queue ({})", q.controller, q.process)).unwrap_or_default()
    });
    let label = title.clone();
    // What this block shows, read from the panel's model: the block itself stays across steps.
    let part = move |which: usize| {
        let id = id.clone();
        Memo::new(move |_| {
            busy.with(|b| b.iter().find(|q| q.id() == id).map(|q| key_texts(q, which)).unwrap_or_default())
        })
    };
    let lists = [0, 1, 2, 3].map(part.clone());
    let note = part(4);
    view! {
        <div class="queue" role="group" aria-label=label>
            <h3 class="views__subtitle">{title}</h3>
            <dl class="queue__lists">
                <KeyList label="Waiting" keys=lists[0] />
                <KeyList label="Processing" keys=lists[1] />
                <KeyList label="Dirty while processing" keys=lists[2] />
                <KeyList label="Delayed" keys=lists[3] />
            </dl>
            {move || note.with(|n| match n.first() {
                Some(Item::Text(t)) => Some(view! { <p class="views__cap-note">{t.clone()}</p> }),
                _ => None,
            })}
        </div>
    }
}

#[component]
fn KeyList(label: &'static str, keys: Memo<Vec<Item>>) -> impl IntoView {
    let key = UnsyncCallback::new(|item: Item| match item {
        Item::Text(k) => view! { <li class="queue__key views__mono">{k}</li> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <div class="queue__list">
            <dt>{label}</dt>
            <dd>
                <Show
                    when=move || !keys.with(Vec::is_empty)
                    fallback=|| view! { <span class="views__muted">"none"</span> }
                >
                    <ul class="queue__keys" aria-label=label>
                        <Rows items=keys render=key />
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
