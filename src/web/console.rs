//! The Console region: the transcript (plain text nodes, never `inner_html`) with a Copy button
//! on each block's output, what kubectl is still waiting for, and the input line with history
//! (Up/Down), Tab completion and Ctrl+L. A lesson's commands can be put into the input
//! ([`put_in_console`]).

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::{use_lab, Part};
use crate::session::{stream_name, Block, BlockKind};

/// The console input's element id (a page has one console).
const INPUT_ID: &str = "console-input";

/// Puts `line` into the console input as if typed (it does not run): on a narrow screen the
/// console's section is shown first; focus goes to the input with the cursor at the end, so the
/// learner reads, edits and presses Enter. False when there is no console input to write to (a
/// read-only embed).
pub fn put_in_console(line: &str) -> bool {
    let Some(input) =
        document().get_element_by_id(INPUT_ID).and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return false;
    };
    if input.disabled() {
        return false;
    }
    input.set_value(line);
    // The console's own input handler keeps its state in step (Leptos listens at the document:
    // the event must bubble).
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    if let Ok(ev) = web_sys::Event::new_with_event_init_dict("input", &init) {
        let _ = input.dispatch_event(&ev);
    }
    // On a narrow screen the console may sit in a hidden tab panel: its tab shows it.
    if let Ok(Some(panel)) = input.closest("[role=tabpanel][hidden]") {
        let selector = format!("[role=tab][aria-controls=\"{}\"]", panel.id());
        if let Ok(Some(tab)) = document().query_selector(&selector) {
            if let Ok(tab) = tab.dyn_into::<web_sys::HtmlElement>() {
                tab.click();
            }
        }
    }
    // After the panel has been shown (the tab's change renders on the next frame).
    let end = line.encode_utf16().count() as u32;
    request_animation_frame(move || {
        let _ = input.focus();
        let _ = input.set_selection_range(end, end);
    });
    true
}

/// A block's printed text, both streams in terminal order (what Copy copies).
fn printed(block: &Block) -> String {
    block.chunks.iter().map(|(_, text)| text.as_str()).collect()
}

/// The region's body.
#[component]
pub fn ConsoleView() -> impl IntoView {
    let lab = use_lab();
    let read_only = super::state::read_only();
    let input = RwSignal::new(String::new());
    let candidates = RwSignal::new(Vec::<String>::new());
    let screen = NodeRef::<html::Div>::new();
    let blocks: Memo<Vec<Block>> =
        Memo::new(move |_| lab.read(Part::Transcript, |s| s.transcript().blocks().cloned().collect()));
    let waiting = Memo::new(move |_| lab.read(Part::Transcript, |s| s.waiting()));
    Effect::new(move |_| {
        blocks.track();
        if let Some(el) = screen.get() {
            el.set_scroll_top(el.scroll_height());
        }
    });
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        if ev.ctrl_key() && key.eq_ignore_ascii_case("l") {
            ev.prevent_default();
            lab.act(|s| s.clear_console());
            return;
        }
        if ev.ctrl_key() && key.eq_ignore_ascii_case("c") && !waiting.with_untracked(Vec::is_empty) {
            ev.prevent_default();
            lab.act(|s| s.console_submit("^C"));
            return;
        }
        match key.as_str() {
            "Enter" => {
                ev.prevent_default();
                let line = input.get_untracked();
                input.set(String::new());
                candidates.set(Vec::new());
                lab.act(|s| s.console_submit(&line));
            }
            "ArrowUp" => {
                ev.prevent_default();
                if let Some(l) = lab.act(|s| s.history_up(&input.get_untracked())) {
                    input.set(l);
                }
            }
            "ArrowDown" => {
                ev.prevent_default();
                if let Some(l) = lab.act(|s| s.history_down()) {
                    input.set(l);
                }
            }
            "Tab" if !ev.shift_key() => {
                let line = input.get_untracked();
                if line.trim().is_empty() {
                    return; // let Tab move focus on, as everywhere else
                }
                ev.prevent_default();
                let c = lab.read_untracked(|s| s.complete(&line));
                input.set(c.line);
                candidates.set(c.candidates);
            }
            _ => {}
        }
    };
    view! {
        <div class="console__screen" node_ref=screen role="log" aria-label="Console output">
            <Show when=move || blocks.with(Vec::is_empty)>
                <p class="panel__empty">
                    "Type a kubectl or lab command below and press Enter, for example "
                    <code>"kubectl create deployment web --image=nginx --replicas=3"</code>
                    ". Up and Down recall earlier lines, Tab completes, Ctrl+L clears."
                </p>
            </Show>
            <For each=move || blocks.get() key=|b| b.id let:block>
                <div class="console__block" class:console__block--failed=block.exit_code != 0>
                    <div class="console__block-head">
                        {match &block.kind {
                            BlockKind::Command(line) => Some(view! {
                                <div class="console__command">
                                    <span class="console__prompt" aria-hidden="true">"$ "</span>
                                    {line.clone()}
                                </div>
                            }),
                            BlockKind::Live => None,
                        }}
                        {(!printed(&block).is_empty()).then(|| {
                            let id = block.id;
                            let label = match &block.kind {
                                BlockKind::Command(line) => format!("Copy the output of {line}"),
                                BlockKind::Live => "Copy this output".to_string(),
                            };
                            // What the block shows when pressed (live output may have grown).
                            let text = Callback::new(move |()| {
                                lab.read_untracked(|s| s.transcript().blocks().find(|b| b.id == id).map(printed))
                                    .unwrap_or_default()
                            });
                            view! { <super::copy::CopyButton text=text label=label /> }
                        })}
                    </div>
                    <pre class="console__output">
                        {block.chunks.iter().map(|(stream, text)| view! {
                            <span class=format!("console__{}", stream_name(*stream))>{text.clone()}</span>
                        }).collect_view()}
                    </pre>
                </div>
            </For>
        </div>
        {move || {
            let w = waiting.get();
            (!w.is_empty()).then(|| view! {
                <p class="console__waiting" role="status">
                    <span aria-hidden="true">"⏳ "</span>
                    {format!("kubectl is still running: {}. Step to see what it prints; Ctrl+C stops it.", w.join("; "))}
                </p>
            })
        }}
        {move || {
            let c = candidates.get();
            (!c.is_empty()).then(|| view! { <p class="console__candidates">{c.join("  ")}</p> })
        }}
        <div class="console__input-row">
            <span class="console__prompt" aria-hidden="true">"$"</span>
            <input
                type="text"
                class="console__input"
                id=INPUT_ID
                aria-label="Console input"
                autocomplete="off"
                autocapitalize="off"
                spellcheck="false"
                placeholder=if read_only { "Read-only" } else { "kubectl get pods" }
                disabled=read_only
                prop:value=move || input.get()
                on:input=move |ev| input.set(event_target_value(&ev))
                on:keydown=on_keydown
            />
        </div>
    }
}
