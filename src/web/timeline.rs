//! The Timeline: every step of the branch, virtualised (only the rows in view exist, so ten
//! thousand steps cost what forty do). Selecting a step jumps there; acting from an earlier step
//! starts a new branch, which the region says in words. Only the newest steps' records are kept
//! in memory (`session::HISTORY_LIMIT`): an older step keeps its number and row, and selecting it
//! replays the world up to it.

use leptos::html;
use leptos::prelude::*;

use super::state::{use_lab, Part};
use crate::engine::time::Time;
use crate::engine::world::fmt_duration;

/// Height of one row in CSS pixels (style/timeline.css keeps rows at exactly this height).
const ROW: f64 = 32.0;
/// Rows rendered above and below the visible ones.
const OVERSCAN: usize = 8;
/// Rows rendered before the list has been measured.
const INITIAL: usize = 40;

#[derive(Clone, Debug, PartialEq)]
struct Row {
    number: usize,
    label: String,
    current: bool,
    future: bool,
}

/// The region's body.
#[component]
pub fn Timeline() -> impl IntoView {
    let lab = use_lab();
    let scroller = NodeRef::<html::Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let height = RwSignal::new(ROW * INITIAL as f64);
    let meta = Memo::new(move |_| {
        lab.read(Part::Timeline, |s| {
            let t = s.timeline();
            let notice = t.branches().last().map(|b| {
                format!(
                    "New branch: you acted at step {}, so the {} later steps of the old branch were dropped.",
                    b.from, b.dropped
                )
            });
            (t.len(), t.current(), notice, t.first_kept(s.world()))
        })
    });
    // The first row rendered moves in steps of OVERSCAN rows: while the list follows the newest
    // step, the scroller moves one row a step, and a window moving with it changed the rendered
    // rows a second time in every step's frame (after the new row itself), which laid the page
    // out twice. The extra OVERSCAN rows at the end keep the rows in view covered.
    let window = Memo::new(move |_| {
        let (len, _, _, _) = meta.get();
        let first = (((scroll_top.get() / ROW) as usize).saturating_sub(OVERSCAN) / OVERSCAN * OVERSCAN).min(len);
        let count = (height.get() / ROW) as usize + 3 * OVERSCAN;
        (first, (first + count).min(len))
    });
    let rows = Memo::new(move |_| {
        let (first, last) = window.get();
        lab.read(Part::Timeline, |s| {
            let t = s.timeline();
            (first + 1..=last)
                .map(|number| {
                    let label = match t.get(s.world(), number) {
                        Some(r) => format!(
                            "{} +{} {}: {}",
                            r.number,
                            fmt_duration(r.time.since(Time::START)),
                            r.actor,
                            r.sentence
                        ),
                        None => format!("{number} (not kept in memory: select to replay it)"),
                    };
                    Row { number, label, current: number == t.current(), future: number > t.current() }
                })
                .collect::<Vec<Row>>()
        })
    });
    // Follow the newest step while the learner stands at the end. In the next animation frame,
    // not here: reading the scroller's height now would force a layout of the whole page in the
    // middle of the step's DOM updates, and the frame would lay it out again (it was the largest
    // item of a step's profile).
    Effect::new(move |_| {
        let (len, current, _, _) = meta.get();
        if current == len {
            request_animation_frame(move || {
                if let Some(el) = scroller.get_untracked() {
                    let bottom = (len as f64 * ROW - el.client_height() as f64).max(0.0);
                    el.set_scroll_top(bottom as i32);
                    scroll_top.set(bottom);
                }
            });
        }
    });
    let on_scroll = move |_| {
        if let Some(el) = scroller.get() {
            scroll_top.set(el.scroll_top() as f64);
            height.set(el.client_height().max(1) as f64);
        }
    };
    view! {
        <p class="timeline__summary">
            {move || {
                let (len, current, _, first_kept) = meta.get();
                let mut text = if len == 0 {
                    "No step has been taken yet.".to_string()
                } else if current < len {
                    format!("At step {current} of {len}: stepping replays the later steps; acting now starts a new branch.")
                } else if len == 1 {
                    "1 step so far.".to_string()
                } else {
                    format!("{len} steps so far.")
                };
                if first_kept > 1 {
                    text.push_str(&format!(
                        " Steps before {first_kept} are not kept in memory: selecting one replays the world up to it."
                    ));
                }
                text
            }}
        </p>
        {move || meta.get().2.map(|n| view! { <p class="timeline__branch" role="status">{n}</p> })}
        <button type="button" class="timeline__start" on:click=move |_| lab.act(|s| s.goto(0))>
            "Go to the start"
        </button>
        <div class="timeline__scroller" node_ref=scroller on:scroll=on_scroll>
            <ol
                class="timeline__list"
                style:height=move || format!("{}px", meta.get().0 as f64 * ROW)
                aria-label="Steps"
            >
                <For each=move || rows.get() key=|r| (r.number, r.current, r.future, r.label.clone()) let:row>
                    <li
                        class="timeline__row"
                        class:timeline__row--future=row.future
                        style:top=format!("{}px", (row.number - 1) as f64 * ROW)
                    >
                        <button
                            type="button"
                            class="timeline__step"
                            aria-current=row.current.then_some("step")
                            title=row.label.clone()
                            on:click=move |_| lab.act(|s| s.goto(row.number))
                        >
                            {row.current.then_some("▶ ")}
                            {row.label.clone()}
                            {row.future.then_some(" (undone)")}
                        </button>
                    </li>
                </For>
            </ol>
        </div>
    }
}
