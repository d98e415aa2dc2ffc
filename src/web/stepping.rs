//! The stepping controls (Step, Play/Pause, Speed, Step back, Run until idle), their keyboard
//! shortcuts, and the narration of the current step. The session decides what a step is; this
//! only sends intents and shows what came back.

use gloo_timers::callback::Interval;
use leptos::prelude::*;

use super::shortcuts::{self, Target};
use super::state::{use_lab, Lab, Part};
use crate::session::pacer::Pacer;
use crate::session::Tick;

/// The page's clock for pacing, in milliseconds.
fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// One animation frame of Run until idle: a slice of steps sized by time ([`Pacer`]), then the
/// next frame, until the run ends or is stopped. The narration redraws from the session's
/// changes after the slice, so at most once per frame however many steps the slice took; the
/// world's views at most every `pacer::REDRAW_MS`, and at once when the run ends or is paused.
/// `run` is this run's number: a frame of a run that was paused (and perhaps started again) ends
/// it there.
fn settle_frame(lab: Lab, settling: RwSignal<bool>, runs: StoredValue<(u64, Pacer), LocalStorage>, run: u64) {
    // `try_`: a frame can come after the page left the lab (a route change disposes the signals).
    // A run stopped by Pause or Step back needs no redraw here: the intent that stopped it went
    // through `Lab::act`, which redraws what the quiet slices held back.
    if settling.try_get_untracked() != Some(true) || runs.try_with_value(|r| r.0) != Some(run) {
        return;
    }
    let started = now_ms();
    let steps = runs.with_value(|r| r.1.plan(started));
    let before = lab.read_untracked(|s| s.world().position());
    let done = lab.act_quietly(|s| s.settle_slice(steps)).is_some();
    let taken = lab.read_untracked(|s| s.world().position()).saturating_sub(before);
    let ended = now_ms();
    runs.update_value(|r| r.1.done(started, ended, taken as u64));
    if done || runs.try_update_value(|r| r.1.redraw_due(ended)).unwrap_or(true) {
        lab.catch_up();
    }
    if done {
        settling.set(false);
    } else {
        request_animation_frame(move || settle_frame(lab, settling, runs, run));
    }
}

/// Play's speeds, in steps per second: the Speed slider picks one by index.
pub const SPEEDS: [u32; 6] = [1, 2, 4, 8, 15, 30];

/// The toolbar with every stepping control and the narration line under it.
#[component]
pub fn Stepper(
    /// Start playing at once (the embed's `autoplay=1`).
    #[prop(optional)]
    autoplay: bool,
) -> impl IntoView {
    let lab = use_lab();
    let playing = RwSignal::new(autoplay);
    let speed = RwSignal::new(2usize);
    let settling = RwSignal::new(false);
    let timer: StoredValue<Option<Interval>, LocalStorage> = StoredValue::new_local(None);
    let runs: StoredValue<(u64, Pacer), LocalStorage> = StoredValue::new_local((0, Pacer::new()));

    // Run until idle, one slice per animation frame, so the page keeps answering input (and
    // redraws once a frame) meanwhile.
    Effect::new(move |_| {
        if settling.get() {
            let run = runs.with_value(|r| r.0) + 1;
            runs.set_value((run, Pacer::new()));
            request_animation_frame(move || settle_frame(lab, settling, runs, run));
        }
    });

    // Play: one tick per interval; the session says when the cluster went idle.
    Effect::new(move |_| {
        let on = playing.get();
        let per_second = SPEEDS[speed.get().min(SPEEDS.len() - 1)];
        timer.set_value(None);
        if on {
            let tick = Interval::new(1000 / per_second, move || {
                if lab.act(|s| s.play_tick()) == Tick::Idle {
                    playing.set(false);
                }
            });
            timer.set_value(Some(tick));
        }
    });

    let step = move || {
        lab.act(|s| s.step());
    };
    let back = move || {
        playing.set(false);
        if settling.get_untracked() {
            // Going back ends the run until idle (the next one starts afresh).
            settling.set(false);
            lab.act(|s| s.settle_cancel());
        }
        lab.act(|s| s.step_back());
    };
    let toggle = move || {
        if settling.get_untracked() {
            settling.set(false);
            lab.act(|s| s.settle_cancel());
        } else {
            playing.update(|p| *p = !*p);
        }
    };
    let settle = move |_| {
        playing.set(false);
        settling.set(true);
    };

    // The shortcuts (listed in the "Keyboard shortcuts" dialog, src/web/shortcuts.rs): they keep
    // working after a click on a control (Step keeps focus), never while typing.
    shortcuts::track_focus_modality();
    let keys = window_event_listener(leptos::ev::keydown, move |ev| {
        let target = shortcuts::target(&ev);
        if !shortcuts::plain(&ev) || target == Target::Typing {
            return;
        }
        match ev.key().as_str() {
            // On a button the keyboard reached, Space presses that button, as everywhere.
            " " if target == Target::Control && !shortcuts::pointer_focus() => {}
            " " => {
                ev.prevent_default();
                toggle();
            }
            "ArrowRight" => {
                ev.prevent_default();
                step();
            }
            "ArrowLeft" => {
                ev.prevent_default();
                back();
            }
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());

    let at_start = Memo::new(move |_| lab.read(Part::Timeline, |s| s.timeline().current() == 0));

    view! {
        // Each control shows its key: aria-keyshortcuts for assistive technology, a tooltip, and a
        // visible key cap (hidden from the accessible name, which stays "Step").
        <div class="stepper" role="toolbar" aria-label="Stepping">
            <button
                type="button"
                class="stepper__button"
                on:click=move |_| step()
                aria-keyshortcuts="ArrowRight"
                title="Step (Right arrow)"
            >
                "Step"
                <kbd class="key-hint" aria-hidden="true">"→"</kbd>
            </button>
            <Show
                when=move || playing.get() || settling.get()
                fallback=move || view! {
                    <button type="button" class="stepper__button" on:click=move |_| toggle() aria-keyshortcuts="Space" title="Play (Space)">
                        "Play"
                        <kbd class="key-hint" aria-hidden="true">"Space"</kbd>
                    </button>
                }
            >
                <button type="button" class="stepper__button stepper__button--on" on:click=move |_| toggle() aria-keyshortcuts="Space" title="Pause (Space)">
                    "Pause"
                    <kbd class="key-hint" aria-hidden="true">"Space"</kbd>
                </button>
            </Show>
            <button
                type="button"
                class="stepper__button"
                on:click=move |_| back()
                aria-keyshortcuts="ArrowLeft"
                title="Step back (Left arrow)"
                aria-disabled=move || if at_start.get() { "true" } else { "false" }
            >
                "Step back"
                <kbd class="key-hint" aria-hidden="true">"←"</kbd>
            </button>
            <button type="button" class="stepper__button" on:click=settle>"Run until idle"</button>
            <label class="stepper__speed">
                "Speed"
                <input
                    type="range"
                    min="0"
                    max=(SPEEDS.len() - 1).to_string()
                    step="1"
                    prop:value=move || speed.get().to_string()
                    aria-valuetext=move || format!("{} steps per second", SPEEDS[speed.get().min(SPEEDS.len() - 1)])
                    on:input=move |ev| {
                        if let Ok(v) = event_target_value(&ev).parse::<usize>() {
                            speed.set(v.min(SPEEDS.len() - 1));
                        }
                    }
                />
                <span class="stepper__speed-value">
                    {move || format!("{}/s", SPEEDS[speed.get().min(SPEEDS.len() - 1)])}
                </span>
            </label>
        </div>
        <Narration />
    }
}

/// The current step's sentence and actor, announced politely, and the last notice.
#[component]
pub fn Narration() -> impl IntoView {
    let lab = use_lab();
    let line = Memo::new(move |_| {
        lab.read(Part::Timeline, |s| {
            s.narration().map(|n| (format!("Step {}", n.number), n.actor, n.sentence, n.calls))
        })
    });
    let notice = Memo::new(move |_| lab.read(Part::Notice, |s| s.notice().map(str::to_string)));
    view! {
        <div class="narration" role="status" aria-live="polite" aria-label="Narration">
            {move || match line.get() {
                None => view! {
                    <p class="narration__line">"No step yet. Run a command in the console, then Step."</p>
                }.into_any(),
                Some((number, actor, sentence, calls)) => view! {
                    <p class="narration__line">
                        <strong class="narration__number">{number}</strong>
                        " · "
                        <span class="narration__actor">{actor}</span>
                        ": "
                        <span class="narration__sentence">{sentence}</span>
                    </p>
                    <ul class="narration__calls">
                        {calls.into_iter().map(|c| view! { <li>{c}</li> }).collect_view()}
                    </ul>
                }.into_any(),
            }}
            {move || notice.get().map(|n| view! { <p class="narration__notice">{n}</p> })}
        </div>
    }
}
