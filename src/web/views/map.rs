//! The "Control plane" region: the picture of `views::map`, drawn as inline SVG at the
//! coordinates the model decided, and the way into the other panels (selecting a process, an
//! informer or a queue filters them to it).
//!
//! What moves: the last step's tokens (`views::map::Token`) travel by CSS animation (style/map.css)
//! from one part to another; the state they lead to is already drawn, so Play and Run until idle
//! never wait for them: steps that come faster than the animation get the `map--fast` class, which
//! shortens it. Under `prefers-reduced-motion: reduce` no token is drawn; the parts the step
//! changed keep their dashed outline, and the caption says what moved.
//!
//! Keyboard: one tab stop for the picture (roving tabindex); arrow keys, Home and End move between
//! its parts in reading order, Enter or Space selects, Escape clears the selection. The keys are
//! handled on the part itself (not delegated), so that the page's stepping shortcuts (the arrow
//! keys step) do not also fire (Leptos attaches listeners to their elements here: no delegation).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::{Item, Rows, WorldSource};
use crate::views::map::{control_plane, Chip, ControlPlane, Label, MapPart, Node, Token, NARROW_MIN, TRAVEL_MS};

/// The map's selection, provided by the shell: the panels that are its details filter to it.
#[derive(Clone, Copy)]
pub struct MapSelection(pub RwSignal<Option<MapPart>>);

/// The selection, when the page has a map (the embed's panels have none).
pub fn selection() -> Option<RwSignal<Option<MapPart>>> {
    use_context::<MapSelection>().map(|s| s.0)
}

/// Brings a region into view (switching the narrow screen's tab if needed) and moves focus to it:
/// provided by the shell.
#[derive(Clone, Copy)]
pub struct Reveal(pub Callback<String>);

/// The element id of a part's box.
fn element_id(part: &MapPart) -> String {
    format!("map-{}", part.id())
}

/// Moves keyboard focus to a part's box.
fn focus_part(part: &MapPart) {
    if let Some(el) = document().get_element_by_id(&element_id(part)) {
        // `focus` is the same method on SVG and HTML elements.
        let _ = el.unchecked_ref::<web_sys::HtmlElement>().focus();
    }
}

/// "Control plane": the picture, the selected part's line, and the picture as text.
#[component]
pub fn ControlPlaneMap(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let selected = selection().unwrap_or_else(|| RwSignal::new(None));
    let focused = RwSignal::new(None::<MapPart>);
    // The width the picture is laid out for: the container's, in steps of 8 px (a resize by a
    // pixel does not lay it out again).
    let width = RwSignal::new(1000i32);
    let wrap = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let Some(el) = wrap.get() else { return };
        let measure = {
            let el = el.clone();
            move || {
                let w = (el.client_width() / 8 * 8).max(NARROW_MIN);
                // The observer outlives the map: after a route change takes the map away, its
                // element reports one last size (0) to a signal already disposed. Nothing to lay
                // out then (a plain get would panic and stop the app).
                if width.try_get_untracked().is_some_and(|old| old != w) {
                    width.try_set(w);
                }
            }
        };
        measure();
        let callback = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(measure);
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&el);
        }
        // The observer lives as long as the page's element does.
        callback.forget();
    });
    let scene = source.memo(move |w| control_plane(w, width.get()));

    // Steps that come faster than a token travels (Play at speed, Run until idle): shorter motion.
    let last_step_at = StoredValue::new(0f64);
    let fast = RwSignal::new(false);
    Effect::new(move |_| {
        let number = scene.with(|s| s.step.as_ref().map(|c| c.number));
        if number.is_some() {
            let now = web_sys::js_sys::Date::now();
            fast.set(now - last_step_at.get_value() < f64::from(TRAVEL_MS));
            last_step_at.set_value(now);
        }
    });

    // A stacked picture (a phone's Map tab) is taller than the room between the header and the
    // stepping bar: after a step taken by hand, bring what it changed into view if it is not.
    // Not while steps come faster than the motion (Play, held keys): the page would jump at
    // every step. A wide picture fits the first view, and the learner may have scrolled to
    // another region on purpose.
    // (Not on the first drawing either: opening the page does not scroll it.)
    Effect::new(move |drawn_before: Option<()>| {
        let stepped = scene.with(|s| s.step.is_some() && s.stacked);
        if stepped && drawn_before.is_some() && !fast.get_untracked() {
            request_animation_frame(move || reveal_changed(wrap));
        }
    });

    let view_box = move || scene.with(|s| format!("0 0 {} {}", s.width, s.height));
    let ids = Memo::new(move |_| scene.with(ControlPlane::parts));
    let caption = Memo::new(move |_| scene.with(|s| s.step.as_ref().map(|c| (c.number, c.caption.clone()))));
    view! {
        <div class="map" class:map--fast=move || fast.get() node_ref=wrap>
            <p class="map__caption">
                {move || match caption.get() {
                    Some((n, text)) => view! { <strong>{format!("Step {n}: ")}</strong>{text} }.into_any(),
                    None => "No step yet. Type a kubectl command in the console, then Step: each step moves something here.".into_any(),
                }}
            </p>
            <svg
                class="map__svg"
                class:map__svg--stacked=move || scene.with(|s| s.stacked)
                viewBox=view_box
                role="group"
                aria-label="Control plane map"
            >
                <Streams scene />
                <Decorations scene />
                <For each=move || ids.get() key=MapPart::id let:part>
                    <Part part scene ids selected focused />
                </For>
                <Tokens scene />
            </svg>
            <div class="map__footer">
                <Selection scene selected />
                <details class="map__text">
                    <summary>"Control plane as text"</summary>
                    <Described scene />
                </details>
            </div>
        </div>
    }
}

/// Scrolls the page by the least amount that shows the parts the last step changed between the
/// top of the window and the stepping bar; when they do not fit together, the lowest of them (the
/// API server, one of them at most steps, sits at the top). Does nothing when they are in view
/// or not shown (another tab).
fn reveal_changed(wrap: NodeRef<leptos::html::Div>) {
    const MARGIN: f64 = 8.0;
    let Some(el) = wrap.get_untracked() else { return };
    let Ok(parts) = el.query_selector_all(".map__part--changed") else { return };
    let rects: Vec<web_sys::DomRect> = (0..parts.length())
        .filter_map(|i| parts.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::Element>().ok())
        .map(|e| e.get_bounding_client_rect())
        .filter(|r| r.height() > 0.0)
        .collect();
    let (Some(top), Some(lowest)) =
        (rects.iter().map(|r| r.top()).reduce(f64::min), rects.iter().max_by(|a, b| a.bottom().total_cmp(&b.bottom())))
    else {
        return;
    };
    let bottom = lowest.bottom();
    let limit = document()
        .query_selector(".stepper-bar")
        .ok()
        .flatten()
        .map(|bar| bar.get_bounding_client_rect().top())
        .unwrap_or_else(|| window().inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0));
    let room = limit - 2.0 * MARGIN;
    // The span to show: all the changed parts, or the lowest alone.
    let (from, to) = if bottom - top <= room { (top, bottom) } else { (lowest.top(), bottom) };
    let dy = if to + MARGIN > limit {
        (to + MARGIN - limit).min(from - MARGIN)
    } else if from < MARGIN {
        from - MARGIN
    } else {
        return;
    };
    window().scroll_by_with_x_and_y(0.0, dy);
}

/// kubectl's box and the line to the cloud: drawn, not selectable.
#[component]
fn Decorations(scene: Memo<ControlPlane>) -> impl IntoView {
    let user = Memo::new(move |_| scene.with(|s| s.user.clone()));
    let link = Memo::new(move |_| scene.with(|s| s.cloud_link));
    view! {
        {move || {
            let u = user.get();
            view! {
                <g class="map__user">
                    <rect class="map__box" x=u.rect.x y=u.rect.y width=u.rect.w height=u.rect.h rx="4" />
                    {labels(&u.labels)}
                </g>
            }
        }}
        {move || link.get().map(|(x1, y1, x2, y2)| view! { <line class="map__link" x1=x1 y1=y1 x2=x2 y2=y2 /> })}
    }
}

fn labels(labels: &[Label]) -> impl IntoView {
    labels.iter().map(|l| view! { <text class=l.style.class() x=l.x y=l.y>{l.text.clone()}</text> }).collect_view()
}

/// The watch streams: one line per informer, with its badge. A step redraws only the streams
/// it changed (the keyed [`Rows`]), not every line.
#[component]
fn Streams(scene: Memo<ControlPlane>) -> impl IntoView {
    let items = Memo::new(move |_| scene.with(|s| s.streams.iter().cloned().map(Item::Stream).collect::<Vec<_>>()));
    let render = UnsyncCallback::new(|item: Item| match item {
        Item::Stream(s) => stream(s).into_any(),
        _ => ().into_any(),
    });
    view! {
        <g class="map__streams" aria-hidden="true">
            <Rows items render />
        </g>
    }
}

fn stream(s: crate::views::map::Stream) -> impl IntoView {
    let class = format!(
        "map__stream map__stream--{}{}",
        match s.state {
            crate::views::map::WatchState::Open => "open",
            crate::views::map::WatchState::Broken => "broken",
            crate::views::map::WatchState::Listing => "listing",
            crate::views::map::WatchState::Stopped => "stopped",
        },
        if s.changed { " map__stream--changed" } else { "" },
    );
    let badge = s.badge.clone().map(|b| {
        view! {
            <g class="map__badge">
                <rect x=b.rect.x y=b.rect.y width=b.rect.w height=b.rect.h rx="7" />
                <text x=b.rect.x + 3 y=b.rect.y + 10>{b.text}</text>
            </g>
        }
    });
    view! {
        <polyline class=class points=s.svg_points() />
        {badge}
    }
}

/// One selectable part: the API server, a process's frame, a queue row, an informer, the cloud.
#[component]
fn Part(
    part: MapPart,
    scene: Memo<ControlPlane>,
    ids: Memo<Vec<MapPart>>,
    selected: RwSignal<Option<MapPart>>,
    focused: RwSignal<Option<MapPart>>,
) -> impl IntoView {
    let p = part.clone();
    let node: Memo<Option<(Node, Vec<Chip>)>> = Memo::new(move |_| {
        scene.with(|s| {
            let chips =
                s.processes.iter().flat_map(|pr| &pr.queues).find(|q| q.node.part == p).map(|q| q.chips.clone());
            s.node(&p).cloned().map(|n| (n, chips.unwrap_or_default()))
        })
    });
    // What the part shows apart from whether the step changed it: a step that only marks or
    // unmarks a part as changed (most parts, most steps) redraws its class, not its box, labels
    // and chips.
    let content =
        Memo::new(move |_| node.with(|n| n.as_ref().map(|(n, chips)| (n.rect, n.labels.clone(), chips.clone()))));
    let (p1, p2, p3, p4, p5) = (part.clone(), part.clone(), part.clone(), part.clone(), part.clone());
    let is_selected = Memo::new(move |_| selected.with(|s| s.as_ref() == Some(&p1)));
    // One tab stop: the focused part, else the selected one, else the first. It reads the list
    // of parts (`ids`, which changes only when a part comes or goes), not the scene: a step that
    // only changes what the parts show costs each part no walk of every part.
    let tab_stop = Memo::new(move |_| {
        let current = focused.get().or_else(|| selected.get());
        ids.with(|parts| match current.filter(|c| parts.contains(c)) {
            Some(c) => c == p2,
            None => parts.first() == Some(&p2),
        })
    });
    let select = move || {
        selected.set(Some(p3.clone()));
        focused.set(Some(p3.clone()));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let parts = ids.get_untracked();
        let Some(i) = parts.iter().position(|x| x == &p4) else { return };
        let last = parts.len().saturating_sub(1);
        let to = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => (i + 1).min(last),
            "ArrowLeft" | "ArrowUp" => i.saturating_sub(1),
            "Home" => 0,
            "End" => last,
            "Enter" | " " => {
                ev.prevent_default();
                ev.stop_propagation();
                selected.set(Some(p4.clone()));
                focused.set(Some(p4.clone()));
                return;
            }
            "Escape" => {
                ev.stop_propagation();
                selected.set(None);
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        ev.stop_propagation();
        focused.set(Some(parts[to].clone()));
        focus_part(&parts[to]);
    };
    view! {
        <g
            id=element_id(&part)
            class=move || {
                node.with(|n| {
                    let Some((n, _)) = n else { return String::new() };
                    let mut c = format!("map__part {}", n.look);
                    if n.changed {
                        c.push_str(" map__part--changed");
                    }
                    if is_selected.get() {
                        c.push_str(" map__part--selected");
                    }
                    c
                })
            }
            role="button"
            tabindex=move || if tab_stop.get() { "0" } else { "-1" }
            aria-pressed=move || if is_selected.get() { "true" } else { "false" }
            aria-label=move || node.with(|n| n.as_ref().map(|(n, _)| n.name.clone()).unwrap_or_default())
            on:click=move |_| select()
            on:focus=move |_| focused.set(Some(p5.clone()))
            on:keydown=on_key
        >
            {move || {
                content.get().map(|(r, part_labels, chips)| {
                    view! {
                        <rect class="map__box" x=r.x y=r.y width=r.w height=r.h rx="4" />
                        {labels(&part_labels)}
                        {chips
                            .into_iter()
                            .map(|c| {
                                let class = if c.changed { format!("{} map__chip--changed", c.state.class()) } else { c.state.class().to_string() };
                                view! {
                                    <g class=class>
                                        <rect x=c.rect.x y=c.rect.y width=c.rect.w height=c.rect.h rx="3" />
                                        <text x=c.rect.x + 4 y=c.rect.y + 12>{c.text}</text>
                                    </g>
                                }
                            })
                            .collect_view()}
                    }
                })
            }}
        </g>
    }
}

/// The last step's tokens: new elements every step, so that their animation starts again. A
/// list rebuilt in place would keep the last step's elements, whose animation has already run to
/// its end (invisible), and only move their coordinates; so the tokens are one row of the views'
/// keyed list ([`Rows`]: no second copy of the keyed diff in the wasm), keyed by the step's
/// number and the width the picture is laid out for.
#[component]
fn Tokens(scene: Memo<ControlPlane>) -> impl IntoView {
    let tokens = Memo::new(move |_| scene.with(|s| s.step.as_ref().map(|c| (c.number, s.width, c.tokens.clone()))));
    let key = Memo::new(move |_| {
        tokens.with(|t| t.iter().map(|(n, w, _)| Item::Text(format!("{n} {w}"))).collect::<Vec<_>>())
    });
    let render = UnsyncCallback::new(move |_: Item| {
        tokens
            .with_untracked(|t| t.iter().flat_map(|(_, _, ts)| ts.iter().cloned().map(token)).collect_view())
            .into_any()
    });
    view! {
        <g class="map__tokens" aria-hidden="true">
            <Rows items=key render />
        </g>
    }
}

fn token(t: Token) -> impl IntoView {
    let w = t.label_width();
    let (x, y) = t.from;
    // The label sits right of the dot, or left of it near the drawing's right edge.
    let bx = if t.label_left { x - 6 - w } else { x + 6 };
    let px = |v: i32| format!("{v}px");
    view! {
        <g
            class=format!("map__token map__token--{}", t.look)
            style:--mx=px(t.via.0 - x)
            style:--my=px(t.via.1 - y)
            style:--dx=px(t.to.0 - x)
            style:--dy=px(t.to.1 - y)
            style:--hop=(t.delay_ms / TRAVEL_MS).to_string()
        >
            <circle class="map__token-dot" cx=x cy=y r="4" />
            {(!t.text.is_empty()).then(|| view! {
                <rect class="map__token-box" x=bx y=y - 8 width=w height="16" rx="3" />
                <text class="map__token-text" x=bx + 4 y=y + 4>{t.text}</text>
            })}
        </g>
    }
}

/// Under the picture: what is selected and where its details are, or how to select.
#[component]
fn Selection(scene: Memo<ControlPlane>, selected: RwSignal<Option<MapPart>>) -> impl IntoView {
    let reveal = use_context::<Reveal>();
    let summary = Memo::new(move |_| selected.get().map(|p| (p.clone(), scene.with(|s| s.summary(&p)))));
    view! {
        <div class="map__selection">
            {move || match summary.get() {
                None => view! {
                    <p class="map__hint">
                        "Select a process, an informer or a queue (click, or Tab then arrow keys and Enter) to see its details."
                    </p>
                }
                .into_any(),
                Some((part, text)) => {
                    let buttons = reveal.map(|r| {
                        part.detail_regions()
                            .iter()
                            .map(|region| {
                                let name = region.to_string();
                                view! {
                                    <button type="button" class="map__jump" on:click=move |_| r.0.run(name.clone())>
                                        {*region}
                                    </button>
                                }
                            })
                            .collect_view()
                    });
                    view! {
                        <p class="map__selected">
                            <strong>"Selected: "</strong>
                            {text}
                        </p>
                        <p class="map__details">
                            {reveal.is_some().then_some("Its details: ")}
                            {buttons}
                            <button type="button" class="map__jump" on:click=move |_| selected.set(None)>
                                "Clear selection"
                            </button>
                        </p>
                    }
                    .into_any()
                }
            }}
        </div>
    }
}

/// The picture in words: the same items, in the same order, updated with it.
#[component]
fn Described(scene: Memo<ControlPlane>) -> impl IntoView {
    let items = Memo::new(move |_| scene.with(|s| s.text.clone()));
    view! {
        <ul class="map__text-list">
            {move || {
                let items = items.get();
                let mut groups: Vec<(String, Vec<String>)> = Vec::new();
                for i in items {
                    match (i.depth, groups.last_mut()) {
                        (0, _) | (_, None) => groups.push((i.text, Vec::new())),
                        (_, Some(g)) => g.1.push(i.text),
                    }
                }
                groups
                    .into_iter()
                    .map(|(head, inner)| {
                        view! {
                            <li>
                                {head}
                                {(!inner.is_empty()).then(|| view! {
                                    <ul>{inner.into_iter().map(|t| view! { <li>{t}</li> }).collect_view()}</ul>
                                })}
                            </li>
                        }
                    })
                    .collect_view()
            }}
        </ul>
    }
}

/// `all`, cut to what the map's selection shows (`keep` returns the item as shown, or `None` to
/// leave it out); all of it when nothing is selected or the page has no map.
pub fn filtered<T>(all: Memo<Vec<T>>, keep: fn(&MapPart, &T) -> Option<T>) -> Memo<Vec<T>>
where
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let selected = selection();
    Memo::new(move |_| {
        let part = selected.and_then(|s| s.get());
        all.with(|v| match &part {
            None => v.clone(),
            Some(p) => v.iter().filter_map(|x| keep(p, x)).collect(),
        })
    })
}

/// In a panel that is one of the map's details: says what the selection leaves out, with a way
/// to show everything again.
#[component]
pub fn FilterNote(
    /// The panel's region name.
    region: &'static str,
) -> impl IntoView {
    let selected = selection();
    let note = move || {
        let part = selected.and_then(|s| s.get()).filter(|p| p.filters(region))?;
        let clear = move |_| {
            if let Some(s) = selected {
                s.set(None);
            }
        };
        Some(view! {
            <p class="map__filter">
                {format!("Showing {} only (selected on the map). ", part.title())}
                <button type="button" class="map__jump" on:click=clear>"Show everything"</button>
            </p>
        })
    };
    view! { {note} }
}
