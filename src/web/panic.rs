//! What a learner sees when the program panics.
//!
//! `console_error_panic_hook` writes the panic and its stack to the browser console (for whoever
//! debugs it); our hook then shows a friendly sentence in the `#fatal-error` element that
//! `index.html` declares with `role="alert"`, so screen readers announce it too. The text goes
//! through `textContent`, never `innerHTML`: a panic message can contain user input.
//!
//! With `panic = "abort"` the instance is dead once the hook returns (the abort is a trap that
//! surfaces in JavaScript as a `WebAssembly.RuntimeError`). `public/boot.js` sees that error, and
//! turns the alert into the crash panel: **Export state** and **Reload from last good step**, from
//! what [`super::recovery`] kept in session storage after the last intent that succeeded.
//!
//! The browser tests need a real panic: [`test_only_panic_on_next_action`] is a narrow trigger
//! for them, reachable only by a script that imports the page's own module (no control, no console
//! command); the next intent then panics inside the session, as an engine bug would.

use std::cell::Cell;
use std::panic::PanicHookInfo;

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;

thread_local! {
    static PANIC_ON_NEXT_ACTION: Cell<bool> = const { Cell::new(false) };
    static PANICKED: Cell<bool> = const { Cell::new(false) };
}

/// For the browser tests only (`tests/e2e/guard-panic.test.mjs`): the next intent the page sends
/// to the session panics, with the session borrowed, as a bug in the engine would.
#[wasm_bindgen(js_name = testOnlyPanicOnNextAction)]
pub fn test_only_panic_on_next_action() {
    PANIC_ON_NEXT_ACTION.with(|p| p.set(true));
}

/// Whether the program has panicked (the instance is dead: nothing should run on its state).
pub fn panicked() -> bool {
    PANICKED.with(Cell::get)
}

/// Panics if [`test_only_panic_on_next_action`] was called since the last intent.
pub fn test_trigger() {
    if PANIC_ON_NEXT_ACTION.with(|p| p.replace(false)) {
        panic!("a deliberate panic requested by testOnlyPanicOnNextAction (browser tests only)");
    }
}

/// The id of the `role="alert"` element in `index.html` (the boot script uses it as well).
const ALERT_ID: &str = "fatal-error";

/// Installs the console hook and the page hook. Idempotent enough: installing twice only replaces
/// the hook with an identical one.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        // Only the first panic says what went wrong: calls into the dead instance afterwards
        // (a timer, an event) panic again on the state the first one left behind, and must not
        // replace its message, nor the crash panel that boot.js built from it.
        if !PANICKED.with(|p| p.replace(true)) {
            show(&message(info));
        }
    }));
}

/// The sentence shown to the learner, with the panic's own message for a bug report.
fn message(info: &PanicHookInfo<'_>) -> String {
    let detail = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    let place = info.location().map(|l| format!(" ({}:{})", l.file(), l.line())).unwrap_or_default();
    format!(
        "Reconcile Lab stopped because of an internal error, not because of anything you did. \
         Details for a bug report: {detail}{place}"
    )
}

/// Puts `text` into the alert element and makes it visible. Does nothing if the element is
/// missing: a panic hook must never panic itself.
fn show(text: &str) {
    let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(ALERT_ID))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    else {
        return;
    };
    el.set_text_content(Some(text));
    el.set_hidden(false);
}
