//! Copy buttons (console output, an object's YAML, the editor's manifest): the text goes to the
//! clipboard through the Clipboard API, and a status line next to the button says "Copied", or,
//! when the browser refuses (no permission, an insecure page), what to do instead.

use std::time::Duration;

use leptos::prelude::*;
use web_sys::js_sys::Reflect;

/// What the status says when the browser refuses to copy.
pub const REFUSED: &str = "The browser did not allow copying: select the text and copy it with Ctrl+C.";

/// How long "Copied" stays.
const COPIED_FOR: Duration = Duration::from_secs(3);

/// Writes `text` to the clipboard; false when the browser refused, or has no Clipboard API here
/// (an insecure page: `navigator.clipboard` is undefined there, and calling it would throw).
pub async fn write_clipboard(text: &str) -> bool {
    let navigator = window().navigator();
    let available = Reflect::get(&navigator, &"clipboard".into()).is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if !available {
        return false;
    }
    let promise = navigator.clipboard().write_text(text);
    wasm_bindgen_futures::JsFuture::from(promise).await.is_ok()
}

/// A "Copy" button and its status line. `text` is read when the button is pressed, so it copies
/// what is on screen then.
#[component]
pub fn CopyButton(
    /// The text to copy.
    text: Callback<(), String>,
    /// The accessible name, which says what is copied ("Copy the output of kubectl get pods");
    /// it starts with the visible text.
    #[prop(into)]
    label: String,
    /// The visible text (default "Copy").
    #[prop(optional)]
    visible: Option<&'static str>,
) -> impl IntoView {
    let status = RwSignal::new(String::new());
    // Which press the status belongs to: a later press owns it, and an earlier timer leaves it.
    let presses = StoredValue::new(0u32);
    let copy = move |_| {
        let text = text.run(());
        let press = presses.get_value().wrapping_add(1);
        presses.set_value(press);
        leptos::task::spawn_local(async move {
            let copied = write_clipboard(&text).await;
            if presses.try_get_value() != Some(press) {
                return;
            }
            status.try_set(if copied { "Copied".to_string() } else { REFUSED.to_string() });
            if copied {
                set_timeout(
                    move || {
                        if presses.try_get_value() == Some(press) {
                            status.try_set(String::new());
                        }
                    },
                    COPIED_FOR,
                );
            }
        });
    };
    view! {
        <span class="copy">
            <button type="button" class="copy__button" aria-label=label on:click=copy>
                {visible.unwrap_or("Copy")}
            </button>
            <span class="copy__status" role="status">
                {move || status.get()}
            </span>
        </span>
    }
}
