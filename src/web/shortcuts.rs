//! Keyboard shortcuts a learner can find: the list of every shortcut in a modal dialog (`?`, or
//! the "Keyboard shortcuts" button), and where a key press counts as one of the page's shortcuts.
//!
//! The page's one-key shortcuts (arrows, Space, `?`) work wherever focus is, including on a
//! button just clicked (Step keeps focus after a click), except where keys already mean
//! something: in a text field, the editor, a slider, a tab list, or the open dialog. On a button
//! or link, Space is the control's own (it presses it, as everywhere) when the keyboard put focus
//! there, and the page's when the pointer did: a learner who clicked Step and then presses Space
//! means Play.

use std::cell::Cell;

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Every shortcut of the page, by where it works: `(where, [(keys, what they do)])`. The dialog
/// lists exactly these; each handler is named in the comment beside its group.
pub const SHORTCUTS: [(&str, &[(&str, &str)]); 5] = [
    // src/web/stepping.rs (Stepper) and this module (`?`).
    (
        "Anywhere on the page, except while typing",
        &[
            ("→", "Step"),
            ("←", "Step back"),
            ("Space", "Play or Pause (also stops Run until idle)"),
            ("?", "Show these shortcuts"),
        ],
    ),
    // src/web/console.rs
    (
        "In the console input",
        &[
            ("Enter", "Run the line"),
            ("↑ or ↓", "Earlier or later lines"),
            ("Tab", "Complete the last word (a command, a resource, a name)"),
            ("Ctrl+L", "Clear the console"),
            ("Ctrl+C", "Stop a command that is still running (a watch, a wait)"),
        ],
    ),
    // src/web/editor.rs
    (
        "In the manifest editor",
        &[
            ("Tab", "Indent by two spaces"),
            ("Enter", "New line, keeping the indentation"),
            ("Escape, then Tab", "Leave the editor"),
        ],
    ),
    // src/web/layout.rs (Tabs)
    (
        "In the section tabs (narrow screens)",
        &[("← or →", "Previous or next section"), ("Home or End", "First or last section")],
    ),
    // The native <dialog>.
    ("In this list", &[("Escape", "Close it")]),
];

/// Where a key press lands, for the page's one-key shortcuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A text field, the editor, a slider, a tab, or the open dialog: keys are theirs.
    Typing,
    /// A button or a link: arrows are the page's; Space is the control's unless the pointer put
    /// focus there ([`pointer_focus`]).
    Control,
    /// Anything else (the page itself, a heading, a region).
    Page,
}

/// Classifies a key press by the element it is aimed at.
pub fn target(ev: &web_sys::KeyboardEvent) -> Target {
    let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return Target::Page };
    if el.closest("dialog").ok().flatten().is_some() {
        return Target::Typing;
    }
    let tag = el.tag_name().to_ascii_lowercase();
    let role = el.get_attribute("role").unwrap_or_default();
    let input_type = el.get_attribute("type").unwrap_or_default().to_ascii_lowercase();
    match tag.as_str() {
        "input" if matches!(input_type.as_str(), "button" | "submit" | "reset" | "checkbox" | "radio") => {
            return Target::Control
        }
        "input" | "textarea" | "select" => return Target::Typing,
        _ => {}
    }
    if el.get_attribute("contenteditable").is_some_and(|v| v != "false")
        || matches!(
            role.as_str(),
            "tab"
                | "tablist"
                | "slider"
                | "spinbutton"
                | "textbox"
                | "combobox"
                | "listbox"
                | "option"
                | "menu"
                | "menuitem"
                | "grid"
        )
    {
        return Target::Typing;
    }
    if matches!(tag.as_str(), "button" | "a" | "summary") {
        Target::Control
    } else {
        Target::Page
    }
}

thread_local! {
    /// Whether the last thing that could move focus was the pointer (a click) rather than the
    /// keyboard (Tab).
    static POINTER: Cell<bool> = const { Cell::new(false) };
}

/// Whether the pointer, not the keyboard, put focus where it is.
pub fn pointer_focus() -> bool {
    POINTER.with(Cell::get)
}

/// Follows how focus moves (pointer or Tab) for as long as the calling component lives.
pub fn track_focus_modality() {
    let down = window_event_listener(leptos::ev::pointerdown, |_| POINTER.with(|p| p.set(true)));
    let keys = window_event_listener(leptos::ev::keydown, |ev| {
        if ev.key() == "Tab" {
            POINTER.with(|p| p.set(false));
        }
    });
    on_cleanup(move || {
        down.remove();
        keys.remove();
    });
}

/// Whether a key press is a plain one (no Ctrl, Alt or Meta: those are the browser's).
pub fn plain(ev: &web_sys::KeyboardEvent) -> bool {
    !(ev.ctrl_key() || ev.meta_key() || ev.alt_key())
}

/// The "Keyboard shortcuts" button and its dialog; `?` opens it too. One per page.
#[component]
pub fn Shortcuts() -> impl IntoView {
    let dialog = NodeRef::<html::Dialog>::new();
    let returns_to: StoredValue<Option<web_sys::HtmlElement>, LocalStorage> = StoredValue::new_local(None);
    let open = move || {
        let Some(d) = dialog.get_untracked() else { return };
        if d.open() {
            return;
        }
        let before = document().active_element().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        returns_to.set_value(before);
        // A real modal: the page behind is inert, focus moves in, Escape closes.
        let _ = d.show_modal();
    };
    let close = move || {
        if let Some(d) = dialog.get_untracked() {
            d.close();
        }
    };
    // Focus goes back where it was (the button, or the control the learner pressed `?` on).
    let on_close = move |_| {
        if let Some(el) = returns_to.try_update_value(Option::take).flatten() {
            if el.is_connected() {
                let _ = el.focus();
            }
        }
    };
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "?" && plain(&ev) && target(&ev) != Target::Typing {
            ev.prevent_default();
            open();
        }
    });
    on_cleanup(move || keys.remove());
    view! {
        <button
            type="button"
            class="shortcuts-button"
            aria-haspopup="dialog"
            aria-keyshortcuts="?"
            title="Keyboard shortcuts (?)"
            on:click=move |_| open()
        >
            "Keyboard shortcuts"
            <kbd class="key-hint" aria-hidden="true">"?"</kbd>
        </button>
        <dialog class="shortcuts" node_ref=dialog aria-labelledby="shortcuts-title" on:close=on_close>
            <div class="shortcuts__head">
                <h2 class="shortcuts__title" id="shortcuts-title">"Keyboard shortcuts"</h2>
                <button type="button" class="shortcuts__close" on:click=move |_| close()>
                    "Close"
                </button>
            </div>
            {SHORTCUTS
                .iter()
                .map(|(place, keys)| {
                    view! {
                        <section class="shortcuts__group">
                            <h3 class="shortcuts__place">{*place}</h3>
                            <table class="shortcuts__table">
                                <tbody>
                                    {keys
                                        .iter()
                                        .map(|(key, what)| {
                                            view! {
                                                <tr>
                                                    <th scope="row">
                                                        <kbd>{*key}</kbd>
                                                    </th>
                                                    <td>{*what}</td>
                                                </tr>
                                            }
                                        })
                                        .collect_view()}
                                </tbody>
                            </table>
                        </section>
                    }
                })
                .collect_view()}
        </dialog>
    }
}
