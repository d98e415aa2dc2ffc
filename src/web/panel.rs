//! One labelled region of the page.

use leptos::prelude::*;

/// A region of the page: a `<section role="region">` named by its heading, so that tests and
/// screen readers find it by role and accessible name (for example `region "Work queues"`).
///
/// Invariant: `title` is unique on the page; it is the region's accessible name and the source of
/// its heading id.
#[component]
pub fn Panel(
    /// The region's accessible name and visible heading, e.g. "Work queues".
    title: &'static str,
    /// What the region shows; while the engine has nothing for it, a sentence saying what will
    /// appear once the learner acts.
    children: Children,
) -> impl IntoView {
    let heading_id = format!("panel-{}", slug(title));
    let labelled_by = heading_id.clone();
    // Marked when the current step touched this region (an outline and a word, not colour alone).
    let lab = super::state::use_lab();
    let touched = Memo::new(move |_| {
        lab.read(super::state::Part::Timeline, |s| {
            s.narration().is_some_and(|n| n.panels.iter().any(|p| p.title() == title))
        })
    });
    view! {
        <section
            class="panel"
            class:panel--touched=move || touched.get()
            role="region"
            aria-labelledby=labelled_by
            id=format!("region-{}", slug(title))
            tabindex="-1"
        >
            <h2 class="panel__title" id=heading_id>
                {title}
                <Show when=move || touched.get()>
                    <span class="panel__touched">" · changed in this step"</span>
                </Show>
            </h2>
            <div class="panel__body">{children()}</div>
        </section>
    }
}

/// An empty region's explanation: what will appear there, and what makes it appear.
#[component]
pub fn EmptyState(
    /// One or two sentences, true today, about what this region will show.
    text: &'static str,
) -> impl IntoView {
    view! { <p class="panel__empty">{text}</p> }
}

/// `"Informer caches"` -> `"informer-caches"`: a stable id fragment for a panel title.
pub fn slug(title: &str) -> String {
    title.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect()
}

/// Scrolls the region titled `title` into view and moves focus to it (the map's "details" buttons).
pub fn reveal(title: &str) {
    use wasm_bindgen::JsCast;
    let Some(el) = document().get_element_by_id(&format!("region-{}", slug(title))) else { return };
    if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
        el.scroll_into_view();
        let _ = el.focus();
    }
}
