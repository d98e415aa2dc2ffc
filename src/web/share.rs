//! The Share button, and opening a shared link (`#/sandbox?state=CODE`,
//! `#/lessons/<slug>?state=CODE`). The code itself is [`crate::session::share`]'s, tested
//! natively; this only reads the location, copies a URL and shows what happened.

use leptos::prelude::*;

use super::state::use_lab;
use crate::session::share::{restore, state_param, MAX_CODE_LEN};
use crate::session::Session;

/// What the location's `?state=` gave.
pub enum FromLink {
    /// The location carries no share code.
    Nothing,
    /// The session the code rebuilds.
    Session(Box<Session>),
    /// The code could not be opened: the notice to show over the default state.
    Bad(String),
}

/// Reads the share code in the location hash and rebuilds its session. `lesson`: the lesson
/// route being opened (its code must be for that lesson), or None for the sandbox.
pub fn from_link(lesson: Option<&str>) -> FromLink {
    let hash = window().location().hash().unwrap_or_default();
    let Some(code) = state_param(&hash) else { return FromLink::Nothing };
    let r = restore(code);
    // The code has been read: the address goes back to the plain route, so that a reload keeps
    // what the learner does next instead of replaying the link again.
    forget_link(&hash);
    match r {
        Ok(s) => match (lesson, s.lesson().map(|r| r.lesson.slug.as_str())) {
            (Some(want), Some(have)) if want == have => FromLink::Session(Box::new(s)),
            (None, None) => FromLink::Session(Box::new(s)),
            _ => FromLink::Bad(
                "This share link could not be opened: its state is for another page of Reconcile Lab. Showing \
                 the starting state instead."
                    .into(),
            ),
        },
        Err(e) => FromLink::Bad(e.to_string()),
    }
}

/// Replaces the address's hash by its route without the query (no new history entry, no
/// `hashchange`).
fn forget_link(hash: &str) {
    let route = hash.split_once('?').map_or(hash, |(r, _)| r);
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(route));
    }
}

/// The URL of the full page (index.html next to this page, so it works under any sub-path) with
/// this hash.
pub fn full_page_url(hash: &str) -> String {
    let loc = window().location();
    let origin = loc.origin().unwrap_or_default();
    let path = loc.pathname().unwrap_or_default();
    let dir = path.rfind('/').map_or("/", |i| &path[..=i]);
    format!("{origin}{dir}{hash}")
}

/// A notice shown above the page when a share link could not be opened.
#[component]
pub fn ShareNotice(
    /// The notice (a [`crate::session::ShareError`]'s text).
    text: String,
) -> impl IntoView {
    let shown = RwSignal::new(true);
    view! {
        <Show when=move || shown.get()>
            <div class="site-notice" role="status">
                <p>{text.clone()}</p>
                <button type="button" on:click=move |_| shown.set(false)>
                    "Dismiss"
                </button>
            </div>
        </Show>
    }
}

/// The Share button: shows the link to this state in a read-only field and copies it.
#[component]
pub fn ShareButton() -> impl IntoView {
    let lab = use_lab();
    let link = RwSignal::new(None::<String>);
    let status = RwSignal::new(String::new());
    let share = move |_| {
        let hash = lab.read_untracked(|s| s.share_hash());
        let code_len = state_param(&hash).map_or(0, str::len);
        if code_len > MAX_CODE_LEN {
            link.set(None);
            status.set(format!(
                "This session is too long to share as a link ({code_len} characters of state; a link holds at most \
                 {MAX_CODE_LEN}). Reset, or start from a shorter session, to share it."
            ));
            return;
        }
        let url = full_page_url(&hash);
        link.set(Some(url.clone()));
        status.set("Copying the link…".into());
        let clipboard = window().navigator().clipboard();
        let promise = clipboard.write_text(&url);
        leptos::task::spawn_local(async move {
            let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
            status.set(if copied {
                "Link copied. Opening it rebuilds this cluster, step and lesson progress.".into()
            } else {
                "The browser did not allow copying: select the link and copy it.".into()
            });
        });
    };
    let select_all = move |ev: leptos::ev::FocusEvent| {
        use wasm_bindgen::JsCast;
        if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
            input.select();
        }
    };
    view! {
        <div class="share">
            <button type="button" class="stepper__button share__button" on:click=share>
                "Share"
            </button>
            <Show when=move || link.get().is_some()>
                <label class="share__link">
                    "Share link"
                    <input
                        type="text"
                        class="share__url"
                        readonly=true
                        prop:value=move || link.get().unwrap_or_default()
                        on:focus=select_all
                    />
                </label>
            </Show>
            <p class="share__status" role="status">
                {move || status.get()}
            </p>
        </div>
    }
}
