//! Which component fills which region. A region without one shows its empty-state sentence.

use leptos::prelude::*;

/// The view for the region titled `title`, or None while it has none yet.
pub fn body(title: &str) -> Option<AnyView> {
    match title {
        "What happens next" => Some(view! { <super::next::WhatHappensNext /> }.into_any()),
        "Timeline" => Some(view! { <super::timeline::Timeline /> }.into_any()),
        "Console" => Some(view! { <super::console::ConsoleView /> }.into_any()),
        "Editor" => Some(view! { <super::editor::EditorView /> }.into_any()),
        // The machinery views (src/web/views/).
        _ => super::views::region_body(title),
    }
}
