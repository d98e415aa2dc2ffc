//! The Editor region: YAML buffers as tabs, a `<textarea>` over a highlighted `<pre>` (no editor
//! library), line numbers, Tab/Enter indentation, the first parse or validation error at its line
//! and column, and Apply (`kubectl apply -f`, or saving a `kubectl edit` with the resourceVersion
//! it was loaded with; a 409 offers "Reload and re-apply").

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::{use_lab, Part};
use crate::session::editor::{floor_char_boundary, highlight_line, newline_indent, Token};
use crate::session::{Buffer, Origin};

fn token_class(t: Token) -> &'static str {
    match t {
        Token::Key => "yaml-key",
        Token::Value => "yaml-value",
        Token::Comment => "yaml-comment",
        Token::Punct => "yaml-punct",
        Token::Plain => "yaml-plain",
    }
}

/// The region's body.
#[component]
pub fn EditorView() -> impl IntoView {
    let lab = use_lab();
    let read_only = super::state::read_only();
    let buffers = Memo::new(move |_| lab.read(Part::Editor, |s| (s.buffers().to_vec(), s.active_buffer())));
    let active = Memo::new(move |_| buffers.with(|(b, i)| b.get(*i).cloned()));
    let text = Memo::new(move |_| active.with(|b| b.as_ref().map(|b| b.text.clone()).unwrap_or_default()));
    let index = move || buffers.with(|(_, i)| *i);

    // Replaces the selection with `insert` and puts the cursor after it.
    let insert_at_cursor = move |area: &web_sys::HtmlTextAreaElement, insert: &str| {
        let value = area.value();
        let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
        let end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
        // The DOM counts UTF-16 units; map them to byte offsets.
        let to_byte = |units: usize| {
            let mut n = 0;
            for (b, c) in value.char_indices() {
                if n >= units {
                    return b;
                }
                n += c.len_utf16();
            }
            value.len()
        };
        let (s, e) = (floor_char_boundary(&value, to_byte(start)), floor_char_boundary(&value, to_byte(end)));
        let (s, e) = (s.min(e), s.max(e));
        let new = format!("{}{}{}", &value[..s], insert, &value[e..]);
        let cursor = (value[..s].encode_utf16().count() + insert.encode_utf16().count()) as u32;
        area.set_value(&new);
        let _ = area.set_selection_range(cursor, cursor);
        let i = index();
        lab.act(|st| st.editor_set_text(i, &new));
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let Some(area) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) else { return };
        match ev.key().as_str() {
            // Tab indents; Escape then Tab leaves the editor (WAI: no keyboard trap).
            "Tab" if !ev.shift_key() && !ev.ctrl_key() => {
                ev.prevent_default();
                insert_at_cursor(&area, "  ");
            }
            "Enter" if !ev.shift_key() && !ev.ctrl_key() => {
                ev.prevent_default();
                let value = area.value();
                let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
                let byte = value
                    .char_indices()
                    .scan(0usize, |n, (b, c)| {
                        let here = *n;
                        *n += c.len_utf16();
                        Some((here, b))
                    })
                    .find(|(u, _)| *u >= start)
                    .map_or(value.len(), |(_, b)| b);
                insert_at_cursor(&area, &newline_indent(&value, byte));
            }
            "Escape" => {
                if let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok()) {
                    let _ = el.blur();
                }
            }
            _ => {}
        }
    };
    let apply = move |_| {
        let i = index();
        lab.act(|s| s.editor_apply(i));
    };
    let tabs = move || -> Vec<(usize, Buffer)> { buffers.get().0.into_iter().enumerate().collect() };
    view! {
        <div class="editor__tabs" role="group" aria-label="Open files">
            <For
                each=tabs
                key=|(i, b)| (*i, b.id, b.name.clone())
                let:item
            >
                {
                    let (i, b) = item;
                    view! {
                        <button
                            type="button"
                            class="editor__tab"
                            aria-pressed=move || if index() == i { "true" } else { "false" }
                            on:click=move |_| lab.act(|s| s.select_buffer(i))
                        >
                            {b.name.clone()}
                        </button>
                    }
                }
            </For>
        </div>
        {move || active.get().map(|b: Buffer| match &b.origin {
            Origin::Edit(session) => Some(view! {
                <p class="editor__origin">
                    {format!("Editing {} as loaded at resourceVersion {}. Apply sends that resourceVersion: if the object changed since, the API server answers 409 Conflict.", b.name, session.resource_version)}
                </p>
            }),
            Origin::File => None,
        })}
        <Show when=move || text.with(String::is_empty)>
            <p class="panel__empty">
                "Write a manifest here and press Apply: it is sent like kubectl apply -f with this file. kubectl edit opens an object here."
            </p>
        </Show>
        <div class="editor__frame">
            <div class="editor__gutter" aria-hidden="true">
                {move || {
                    let err = active.with(|b| b.as_ref().and_then(|b| b.diagnostic.as_ref().map(|d| d.line)));
                    let n = text.with(|t| t.split('\n').count());
                    (1..=n).map(|l| {
                        let bad = err == Some(l);
                        view! { <div class="editor__line-number" class:editor__line-number--error=bad>{if bad { format!("! {l}") } else { l.to_string() }}</div> }
                    }).collect_view()
                }}
            </div>
            <div class="editor__code">
                <pre class="editor__highlight" aria-hidden="true">
                    {move || text.with(|t| t.split('\n').map(|line| view! {
                        <div class="editor__hl-line">
                            {highlight_line(line).into_iter().map(|(tok, s)| view! {
                                <span class=token_class(tok)>{s.to_string()}</span>
                            }).collect_view()}
                            "\u{200b}"
                        </div>
                    }).collect_view())}
                </pre>
                <textarea
                    class="editor__textarea"
                    aria-label="Manifest editor"
                    readonly=read_only
                    spellcheck="false"
                    autocapitalize="off"
                    autocomplete="off"
                    wrap="off"
                    rows=move || (text.with(|t| t.split('\n').count()) + 1).to_string()
                    aria-invalid=move || if active.with(|b| b.as_ref().is_some_and(|b| b.diagnostic.is_some())) { "true" } else { "false" }
                    aria-describedby="editor-diagnostic"
                    prop:value=move || text.get()
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        let i = index();
                        lab.act(|s| s.editor_set_text(i, &v));
                    }
                    on:keydown=on_keydown
                ></textarea>
            </div>
        </div>
        <p class="editor__diagnostic" id="editor-diagnostic" role="status">
            {move || active.with(|b| match b.as_ref().and_then(|b| b.diagnostic.clone()) {
                None => String::new(),
                Some(d) if d.line == 0 => format!("error: {}", d.message),
                Some(d) => format!("Line {}, column {}: {}", d.line, d.column, d.message),
            })}
        </p>
        <div class="editor__actions">
            <button type="button" class="editor__apply" on:click=apply disabled=read_only>"Apply"</button>
            <Show when=move || !text.with(String::is_empty)>
                <super::copy::CopyButton
                    text=Callback::new(move |()| text.get_untracked())
                    label="Copy the manifest"
                />
            </Show>
            {move || active.with(|b| b.as_ref().is_some_and(|b| b.conflict)).then(|| view! {
                <button type="button" class="editor__reapply" on:click=move |_| {
                    let i = index();
                    lab.act(|s| s.editor_reapply(i));
                }>"Reload and re-apply"</button>
            })}
            {move || active.with(|b| b.as_ref().is_some_and(|b| matches!(b.origin, Origin::Edit(_)))).then(|| view! {
                <button type="button" class="editor__reload" on:click=move |_| {
                    let i = index();
                    lab.act(|s| s.editor_reload(i));
                }>"Reload"</button>
            })}
            {move || active.with(|b| b.as_ref().is_some_and(|b| b.conflict)).then(|| view! {
                <p class="editor__conflict" role="alert">
                    "409 Conflict: the object changed since you loaded it. Reload and re-apply keeps your changes and sends them with the current resourceVersion."
                </p>
            })}
        </div>
    }
}
