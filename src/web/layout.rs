//! Which regions are on screen.
//!
//! Wide screens show every region at once. Below [`NARROW_QUERY`] the regions are grouped, and a
//! tablist (the WAI-ARIA "tabs with automatic activation" pattern: arrow keys, Home and End move
//! and select) picks the group on screen. Only then do the groups carry `role="tabpanel"`; on a
//! wide screen there is no tablist, so no tab roles either.

use leptos::prelude::*;
use wasm_bindgen::{closure::Closure, JsCast};

/// The media query under which the page switches to tabs. Keep in step with `style/layout.css`.
pub const NARROW_QUERY: &str = "(max-width: 47.99rem)";

/// A group of regions shown together; on narrow screens, one tab.
pub struct Group {
    /// The tab's label, e.g. "Cluster".
    pub label: &'static str,
    /// A stable id fragment for the tab and its panel.
    pub id: &'static str,
}

/// `true` while the viewport matches [`NARROW_QUERY`]; follows resizes and rotations.
pub fn use_narrow() -> ReadSignal<bool> {
    let mql = window().match_media(NARROW_QUERY).ok().flatten();
    let (narrow, set_narrow) = signal(mql.as_ref().is_some_and(web_sys::MediaQueryList::matches));
    if let Some(mql) = mql {
        let watched = mql.clone();
        let on_change = Closure::<dyn Fn()>::new(move || set_narrow.set(watched.matches()));
        // The page lives as long as the document, so the listener does too.
        let _ = mql.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
        on_change.forget();
    }
    narrow
}

/// The index a key press moves the selection to, per the ARIA tabs pattern (wrapping at both
/// ends), or `None` for keys the tablist does not handle.
pub fn next_tab(key: &str, current: usize, count: usize) -> Option<usize> {
    if count == 0 {
        return None;
    }
    match key {
        "ArrowRight" => Some((current + 1) % count),
        "ArrowLeft" => Some((current + count - 1) % count),
        "Home" => Some(0),
        "End" => Some(count - 1),
        _ => None,
    }
}

/// The tab element's id for a group.
pub fn tab_id(group: &Group) -> String {
    format!("tab-{}", group.id)
}

/// The group element's id (the tab panel, on narrow screens).
pub fn group_id(group: &Group) -> String {
    format!("group-{}", group.id)
}

/// The tablist over `groups`; `selected` is the index of the group on screen.
#[component]
pub fn Tabs(
    /// The groups, in tab order.
    groups: &'static [Group],
    /// The selected group's index.
    selected: RwSignal<usize>,
) -> impl IntoView {
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if let Some(i) = next_tab(&ev.key(), selected.get_untracked(), groups.len()) {
            ev.prevent_default();
            selected.set(i);
            focus_by_id(&tab_id(&groups[i]));
        }
    };
    view! {
        <div class="tabs" role="tablist" aria-label="Page sections" on:keydown=on_keydown>
            {groups
                .iter()
                .enumerate()
                .map(|(i, group)| {
                    let is_selected = move || selected.get() == i;
                    view! {
                        <button
                            type="button"
                            class="tabs__tab"
                            class:tabs__tab--selected=is_selected
                            role="tab"
                            id=tab_id(group)
                            aria-controls=group_id(group)
                            aria-selected=move || if is_selected() { "true" } else { "false" }
                            tabindex=move || if is_selected() { "0" } else { "-1" }
                            on:click=move |_| selected.set(i)
                        >
                            {group.label}
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}

/// Moves keyboard focus to the element with `id`, if it exists and can take focus.
fn focus_by_id(id: &str) {
    if let Some(el) = document().get_element_by_id(id).and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}
