//! The Console region: the transcript (plain text nodes, never `inner_html`), what kubectl is
//! still waiting for, and the input line with history (Up/Down), Tab completion and Ctrl+L.

use leptos::html;
use leptos::prelude::*;

use super::state::{use_lab, Part};
use crate::session::{stream_name, Block, BlockKind};

/// The region's body.
#[component]
pub fn ConsoleView() -> impl IntoView {
    let lab = use_lab();
    let read_only = super::embed::read_only();
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
                    {match &block.kind {
                        BlockKind::Command(line) => Some(view! {
                            <div class="console__command">
                                <span class="console__prompt" aria-hidden="true">"$ "</span>
                                {line.clone()}
                            </div>
                        }),
                        BlockKind::Live => None,
                    }}
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
