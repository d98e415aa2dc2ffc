//! `embed.html`: the compact Reconcile Lab for documentation pages. The same wasm as the full
//! page; this component is mounted instead of the site when the page's file is `embed.html`.
//!
//! What it decides is native and tested (`crate::embed`): the query parameters, and which
//! messages are requests. Here: read the location, render the chosen panels, listen for the
//! parent window's messages (and only its), answer to the sender's origin, and post `ready`,
//! `resize` and `goal`.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::js_sys::{Object, JSON};

use super::panel::Panel;
use super::state::{provide, Lab, Part, ReadOnly};
use crate::embed::params::{parse_query, EmbedConfig};
use crate::embed::protocol::{self, Incoming};

/// Whether this page is the embed (its file is `embed.html`, under any path).
pub fn is_embed() -> bool {
    window().location().pathname().is_ok_and(|p| p.ends_with("/embed.html") || p == "embed.html")
}

/// The parent window, when this page is framed (None at the top level).
fn parent() -> Option<web_sys::Window> {
    let me = window();
    let parent = me.parent().ok().flatten()?;
    (!Object::is(&parent, &me)).then_some(parent)
}

/// Posts a protocol message to the parent. `origin`: the origin to deliver to (`*` for the
/// messages that carry nothing private: ready, resize, goal).
fn post(message: &serde_json::Value, origin: &str) {
    let Some(parent) = parent() else { return };
    let Ok(value) = JSON::parse(&message.to_string()) else { return };
    // A sender whose origin is opaque ("null": a sandboxed frame or a file) can only be answered
    // with "*"; it is still the parent window, the only one this page listens to.
    let origin = if origin == "null" { "*" } else { origin };
    let _ = parent.post_message(&value, origin);
}

/// One message event: ignored unless it comes from the parent window; refused or run otherwise.
fn on_message(lab: Lab, config: &EmbedConfig, ev: &web_sys::MessageEvent) {
    let Some(parent) = parent() else { return };
    let from_parent = ev.source().is_some_and(|s| Object::is(&s, &parent));
    if !from_parent {
        return;
    }
    let data = ev.data();
    // Only objects are messages of the protocol; a string or number is someone else's.
    if !data.is_object() {
        return;
    }
    let Ok(text) = JSON::stringify(&data) else { return };
    let text: String = text.into();
    let origin = ev.origin();
    match protocol::parse_text(&text) {
        Incoming::Ignore => {}
        Incoming::Refuse { id, error } => post(&protocol::refusal(&id, &error), &origin),
        Incoming::Request(r) => {
            let answer = lab.act(|s| protocol::execute(s, &r, || config.session().0));
            post(&protocol::result(r.id(), &answer), &origin);
        }
    }
}

/// Posts `resize` whenever the content's height changes.
fn observe_height() {
    let Some(body) = document().body() else { return };
    let last = std::rc::Rc::new(std::cell::Cell::new(0u32));
    let measure = move || {
        let Some(body) = document().body() else { return };
        let h = body.get_bounding_client_rect().height().ceil();
        let h = if h.is_finite() && h > 0.0 { h.min(f64::from(u32::MAX)) as u32 } else { 0 };
        if h != last.get() {
            last.set(h);
            post(&protocol::resize(h), "*");
        }
    };
    measure();
    let callback = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(measure);
    if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
        observer.observe(&body);
    }
    // The observer lives as long as the page.
    callback.forget();
}

/// The embed's page.
#[component]
pub fn Embed() -> impl IntoView {
    let config = parse_query(&window().location().search().unwrap_or_default());
    let (session, error) = config.session();
    let mut notices = config.notices.clone();
    notices.extend(error.map(|e| e.to_string()));
    if let (Some(theme), Some(root)) = (config.theme.attribute(), document().document_element()) {
        let _ = root.set_attribute("data-theme", theme);
    }
    let lab = Lab::new(session);
    provide(lab);
    provide_context(ReadOnly(config.readonly));

    let cfg = config.clone();
    let listener = window_event_listener(leptos::ev::message, move |ev| on_message(lab, &cfg, &ev));
    on_cleanup(move || listener.remove());

    // A lesson goal met: tell the host, once per goal.
    let posted = StoredValue::new(lab.read_untracked(|s| s.goals_met().len()));
    Effect::new(move |_| {
        let (slug, met) =
            lab.read(Part::Notice, |s| (s.lesson().map(|r| r.lesson.slug.clone()), s.goals_met().to_vec()));
        let Some(slug) = slug else { return };
        let from = posted.get_value().min(met.len());
        for g in &met[from..] {
            post(&protocol::goal(&slug, g), "*");
        }
        posted.set_value(met.len());
    });

    // "Open in Reconcile Lab": the full page, next to this one, in the same state.
    let open_href = move || {
        lab.track(&[Part::Cluster, Part::Transcript, Part::Editor, Part::Selection]);
        super::share::full_page_url(&lab.read_untracked(|s| s.share_hash()))
    };

    // The height once laid out. `ready` does not wait for a frame: a browser draws no frames for
    // a frame out of view (a playground far down the page, woken by a Run button), and the
    // requests it answers need none; a timer still runs there.
    request_animation_frame(observe_height);
    set_timeout(move || post(&protocol::ready(), "*"), std::time::Duration::ZERO);

    let panels = config.panels.clone();
    view! {
        <div class="embed" class:embed--readonly=config.readonly>
            {(!notices.is_empty()).then(|| view! {
                <ul class="embed__notices" role="status" aria-label="Embed notices">
                    {notices.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                </ul>
            })}
            <div class="embed__panels">
                {panels.into_iter().map(|title| {
                    let body = super::regions::body(title)
                        .unwrap_or_else(|| view! { <p class="panel__empty">"Nothing to show yet."</p> }.into_any());
                    view! { <Panel title=title>{body}</Panel> }
                }).collect_view()}
            </div>
            <div class="embed__bar">
                <super::stepping::Stepper autoplay=config.autoplay />
                <div class="embed__links">
                    <super::shortcuts::Shortcuts />
                    <super::share::ShareButton />
                    <a class="embed__open" href=open_href target="_blank" rel="noopener">
                        "Open in Reconcile Lab"
                    </a>
                </div>
            </div>
        </div>
    }
}
