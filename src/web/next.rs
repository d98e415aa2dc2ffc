//! "What happens next": the pending actions in the order Step takes them, each runnable next,
//! with the faults that can be applied from there.

use leptos::prelude::*;

use super::state::{use_lab, Part};
use crate::engine::world::fmt_duration;
use crate::session::{faults_for, FaultOption};

/// The most pending actions listed (the rest are counted).
const SHOWN: usize = 40;

#[derive(Clone, Debug, PartialEq)]
struct Row {
    /// What the row is and shows, not where it is: the actor, the description, which of the
    /// identical ones, when and whether it can run now (a pending action's `id` is its position
    /// in the list, so it changes whenever an action ahead of it runs; a key with the id in it
    /// rebuilt every row at every step).
    key: String,
    id: u64,
    when: String,
    actor: String,
    description: String,
    runnable: bool,
    faults: Vec<FaultOption>,
}

/// The region's body.
#[component]
pub fn WhatHappensNext() -> impl IntoView {
    let lab = use_lab();
    let rows = Memo::new(move |_| {
        lab.read(Part::Cluster, |s| {
            let now = s.world().now();
            let pending = s.pending();
            let total = pending.len();
            let mut seen: Vec<String> = Vec::new();
            let rows: Vec<Row> = pending
                .into_iter()
                .take(SHOWN)
                .map(|p| {
                    let when = if p.at <= now { "now".into() } else { format!("in {}", fmt_duration(p.at.since(now))) };
                    let what = format!("{}|{}", p.actor, p.description);
                    let n = seen.iter().filter(|s| **s == what).count();
                    seen.push(what.clone());
                    Row {
                        // What the row shows besides is in the key too, so that a row whose time
                        // or runnability changed is drawn again.
                        key: format!("{what}|{n}|{when}|{}", p.runnable),
                        id: p.id,
                        when,
                        actor: p.actor.to_string(),
                        description: p.description.clone(),
                        runnable: p.runnable,
                        faults: faults_for(&p),
                    }
                })
                .collect();
            (rows, total)
        })
    });
    view! {
        <Show
            when=move || !rows.with(|(r, _)| r.is_empty())
            fallback=|| view! {
                <p class="panel__empty">
                    "Nothing is pending. Create or change an object in the console or the editor, and the actions the cluster takes next appear here in order."
                </p>
            }
        >
            <ol class="next">
                <For each=move || rows.get().0 key=|r| r.key.clone() let:row>
                    <NextRow row=row rows />
                </For>
            </ol>
            {move || {
                let (shown, total) = rows.with(|(r, t)| (r.len(), *t));
                (total > shown).then(|| view! { <p class="next__more">{format!("and {} more", total - shown)}</p> })
            }}
        </Show>
    }
}

/// One pending action. The row stays while its action waits unchanged (its key says what it
/// shows); its id, which is its position in the list, is read when Run this next is clicked.
#[component]
fn NextRow(row: Row, rows: Memo<(Vec<Row>, usize)>) -> impl IntoView {
    let lab = use_lab();
    let key = row.key.clone();
    view! {
        <li class="next__item">
            <p class="next__what">
                <span class="next__when">{row.when}</span>
                " "
                <span class="next__actor">{row.actor}</span>
                ": "
                <span class="next__description">{row.description}</span>
            </p>
            <div class="next__actions">
                {row.runnable.then(|| view! {
                    <button type="button" class="next__run" on:click=move |_| {
                        let id = rows.with_untracked(|(all, _)| all.iter().find(|r| r.key == key).map(|r| r.id));
                        if let Some(id) = id {
                            let _ = lab.act(|s| s.run_pending(id));
                        }
                    }>"Run this next"</button>
                })}
                {row.faults.into_iter().map(|f| {
                    let label = f.label.clone();
                    let fault = f.fault.clone();
                    view! {
                        <button type="button" class="next__fault" on:click=move |_| {
                            let _ = lab.act(|s| s.fault(fault.clone()));
                        }>{label}</button>
                    }
                }).collect_view()}
            </div>
        </li>
    }
}
