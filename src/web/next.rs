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
            let rows: Vec<Row> = pending
                .into_iter()
                .take(SHOWN)
                .map(|p| Row {
                    key: format!("{}|{}|{}", p.id, p.actor, p.description),
                    id: p.id,
                    when: if p.at <= now { "now".into() } else { format!("in {}", fmt_duration(p.at.since(now))) },
                    actor: p.actor.to_string(),
                    description: p.description.clone(),
                    runnable: p.runnable,
                    faults: faults_for(&p),
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
                    <NextRow row=row />
                </For>
            </ol>
            {move || {
                let (shown, total) = rows.with(|(r, t)| (r.len(), *t));
                (total > shown).then(|| view! { <p class="next__more">{format!("and {} more", total - shown)}</p> })
            }}
        </Show>
    }
}

#[component]
fn NextRow(row: Row) -> impl IntoView {
    let lab = use_lab();
    let id = row.id;
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
                        let _ = lab.act(|s| s.run_pending(id));
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
