//! Guided lessons in the page: hash routes (`#/` home, `#/lessons/<slug>`, `#/sandbox`) and the
//! lesson panel next to the cluster views (step text, goals, Hint, Show me, Reset, Open in
//! sandbox, "Lesson complete").
//!
//! The home page is not rendered here: it is plain HTML in `index.html` (generated from the
//! catalog by [`crate::site`]), shown by `public/boot.js` on the home route, which also keeps the
//! site navigation's `aria-current` and moves focus on a route change. Once started, the app
//! renders nothing on `#/` but the saved-progress notice, and keeps the home's progress lines
//! current ([`show_progress`]).
//!
//! The components only show [`crate::session::lesson`]'s view model and send intents; the
//! session checks the goals after every intent that touches the world.

use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;

use super::state::{provide, use_lab, Lab, Part};
use crate::lessons::{Action, Progress};
use crate::session::lesson::{blocks, inline, is_console_command, start, summaries, Block, Inline, LessonView, Route};

mod command;
use crate::session::saved::{NOT_SAVED, UNAVAILABLE};
use crate::session::Session;

/// How long "Show me" waits between two actions, so the learner sees each one land.
const SHOW_ME_PAUSE: Duration = Duration::from_millis(300);

/// What every route shares: saved progress, the notice about unreadable progress, and a
/// session handed from a lesson to the sandbox ("Open in sandbox").
#[derive(Clone, Copy)]
struct Site {
    progress: RwSignal<Progress>,
    notice: RwSignal<Option<String>>,
    handoff: StoredValue<Option<Session>, LocalStorage>,
}

/// Writes progress to local storage. A full or refused storage is not an error: progress then
/// lasts as long as the page, and the notice says so (once, unless it said so already).
fn save(site: Site, progress: &Progress) {
    let told = site.notice.with_untracked(|n| matches!(n.as_deref(), Some(NOT_SAVED | UNAVAILABLE)));
    if !super::storage::save_progress(progress) && !told {
        site.notice.set(Some(NOT_SAVED.to_string()));
    }
}

fn current_route() -> Route {
    Route::parse(&window().location().hash().unwrap_or_default())
}

fn go(route: &Route) {
    let _ = window().location().set_hash(&route.hash());
}

/// Writes each lesson's progress line into the static home page (`index.html`'s
/// `progress-<slug>` elements, made by [`crate::site`]) as text, never as markup.
fn show_progress(progress: &Progress) {
    let doc = document();
    for l in summaries(progress) {
        if let Some(line) = doc.get_element_by_id(&format!("progress-{}", l.slug)) {
            let text = l.progress();
            if line.text_content().as_deref() != Some(text.as_str()) {
                line.set_text_content(Some(&text));
            }
        }
    }
}

/// The app's part of the page: the saved-progress notice, then the route's content (nothing on
/// the home route, which is index.html's static view).
#[component]
pub fn App() -> impl IntoView {
    let loaded = super::storage::load_progress();
    let site = Site {
        progress: RwSignal::new(loaded.progress),
        notice: RwSignal::new(loaded.notice),
        handoff: StoredValue::new_local(None),
    };
    let route = RwSignal::new(current_route());
    let listener = window_event_listener(leptos::ev::hashchange, move |_| route.set(current_route()));
    on_cleanup(move || listener.remove());
    Effect::new(move |_| site.progress.with(show_progress));
    view! {
        <Show when=move || site.notice.get().is_some()>
            <div class="site-notice" role="status">
                <p>{move || site.notice.get()}</p>
                <button type="button" on:click=move |_| site.notice.set(None)>
                    "Dismiss"
                </button>
            </div>
        </Show>
        {move || match route.get() {
            Route::Home => ().into_any(),
            Route::Lesson(slug) => view! { <LessonPage site=site slug=slug /> }.into_any(),
            Route::Sandbox => view! { <SandboxPage site=site /> }.into_any(),
            Route::NotFound(_) => {
                view! {
                    <main class="lessons-home">
                        <h1>"No such page"</h1>
                        <p>
                            <a href="#/">"Back to the lessons"</a>
                        </p>
                    </main>
                }
                    .into_any()
            }
        }}
    }
}

/// Renders lesson Markdown inline pieces. Every string is a text node or an attribute value; a
/// link's target is one the lesson format allows (`markdown::link_target`: `http(s)` or
/// relative), and an external one opens in a new tab without access to this page, so the
/// learner's cluster stays as it is.
fn inlines(pieces: Vec<Inline>) -> impl IntoView {
    pieces
        .into_iter()
        .map(|p| match p {
            Inline::Text(t) => t.into_any(),
            Inline::Code(t) if is_console_command(&t) => view! { <command::Command code=t /> }.into_any(),
            Inline::Code(t) => view! { <code>{t}</code> }.into_any(),
            Inline::Strong(t) => view! { <strong>{t}</strong> }.into_any(),
            Inline::Link { text, href, external: true } => view! {
                <a href=href target="_blank" rel="noopener noreferrer">
                    {text}
                    <span class="views__visually-hidden">" (opens in a new tab)"</span>
                </a>
            }
            .into_any(),
            Inline::Link { text, href, external: false } => view! { <a href=href>{text}</a> }.into_any(),
        })
        .collect_view()
}

/// The items of a lesson list.
fn list_items(items: Vec<Vec<Inline>>) -> impl IntoView {
    items.into_iter().map(|i| view! { <li>{inlines(i)}</li> }).collect_view()
}

/// Renders lesson Markdown: paragraphs, lists, figures (an SVG of `lessons/figures/`, copied
/// into the site by Trunk, with its alt text and caption) and code blocks.
fn prose(text: &str) -> impl IntoView {
    blocks(text)
        .into_iter()
        .map(|b| match b {
            Block::Paragraph(p) => view! { <p>{inlines(p)}</p> }.into_any(),
            Block::List { start: None, items } => {
                view! { <ul class="lesson__list">{list_items(items)}</ul> }.into_any()
            }
            Block::List { start: Some(n), items } => {
                view! { <ol class="lesson__list" start=n>{list_items(items)}</ol> }.into_any()
            }
            Block::Figure { src, alt, caption } => view! {
                <figure class="lesson__figure">
                    <img class="lesson__figure-img" src=src alt=alt />
                    {(!caption.is_empty()).then(|| view! { <figcaption>{inlines(caption)}</figcaption> })}
                </figure>
            }
            .into_any(),
            Block::Code(t) => view! { <pre class="lesson__code"><code>{t}</code></pre> }.into_any(),
        })
        .collect_view()
}

/// The sandbox: the session handed over by "Open in sandbox", or a fresh cluster.
#[component]
fn SandboxPage(site: Site) -> impl IntoView {
    let (shared, bad) = match super::share::from_link(None) {
        super::share::FromLink::Session(s) => (Some(*s), None),
        super::share::FromLink::Bad(e) => (None, Some(e)),
        super::share::FromLink::Nothing => (None, None),
    };
    let session =
        shared.or_else(|| site.handoff.try_update_value(Option::take).flatten()).unwrap_or_else(Session::sandbox);
    provide(Lab::new(session));
    view! {
        {bad.map(|text| view! { <super::share::ShareNotice text=text /> })}
        <super::shell::Shell />
    }
}

/// A lesson: its panel next to the cluster views.
#[component]
fn LessonPage(site: Site, slug: String) -> impl IntoView {
    let (shared, bad) = match super::share::from_link(Some(&slug)) {
        super::share::FromLink::Session(mut s) => {
            // The goals this learner had met stay met (saved progress is never lost to a link).
            if let Some(saved) = site.progress.get_untracked().lesson(&slug) {
                s.restore_goals(&saved.goals_met);
            }
            (Some(Ok(*s)), None)
        }
        super::share::FromLink::Bad(e) => (None, Some(e)),
        super::share::FromLink::Nothing => (None, None),
    };
    let started = shared.or_else(|| start(&slug, &site.progress.get_untracked()));
    let notice = bad.map(|text| view! { <super::share::ShareNotice text=text /> });
    let page = match started {
        None => view! {
            <main class="lessons-home">
                <h1>"No such lesson"</h1>
                <p>
                    <a href="#/">"Back to the lessons"</a>
                </p>
            </main>
        }
        .into_any(),
        Some(Err(e)) => view! {
            <main class="lessons-home">
                <h1>"This lesson could not start"</h1>
                <p>{e}</p>
                <p>
                    <a href="#/">"Back to the lessons"</a>
                </p>
            </main>
        }
        .into_any(),
        Some(Ok(session)) => {
            let lab = Lab::new(session);
            provide(lab);
            // Progress is saved after every change of the goals (the Notice part moves after
            // every intent that touches the world).
            Effect::new(move |_| {
                let mut p = site.progress.get_untracked();
                lab.read(Part::Notice, |s| s.save_lesson(&mut p));
                if p != site.progress.get_untracked() {
                    save(site, &p);
                    site.progress.set(p);
                }
            });
            view! {
                <div class="lesson-page">
                    <LessonPanel site=site />
                    <div class="lesson-page__lab">
                        <super::shell::Shell />
                    </div>
                </div>
            }
            .into_any()
        }
    };
    view! {
        {notice}
        {page}
    }
}

/// Plays "Show me" actions one at a time, pausing between them; stops at the first that does
/// not go as the lesson expects, or when the page left the lesson (its signals are gone).
fn play_from(lab: Lab, actions: Rc<Vec<Action>>, k: usize, playing: RwSignal<bool>, error: RwSignal<Option<String>>) {
    if playing.try_get_untracked() != Some(true) {
        return;
    }
    let Some(a) = actions.get(k) else {
        playing.set(false);
        return;
    };
    if let Err(e) = lab.act(|s| s.play_action(a)) {
        error.set(Some(e));
        playing.set(false);
        return;
    }
    set_timeout(move || play_from(lab, actions, k + 1, playing, error), SHOW_ME_PAUSE);
}

/// The lesson's text and controls.
#[component]
fn LessonPanel(site: Site) -> impl IntoView {
    let lab = use_lab();
    let view_model: Memo<Option<LessonView>> = Memo::new(move |_| lab.read(Part::Notice, |s| s.lesson_view()));
    let current = Memo::new(move |_| view_model.get().map_or(0, |v| v.current));
    // The step on screen follows the first unfinished step; the step list can pick another.
    let shown = RwSignal::new(current.get_untracked());
    let hints = RwSignal::new(0usize);
    Effect::new(move |_| {
        let c = current.get();
        if view_model.get_untracked().is_some_and(|v| c < v.steps.len()) {
            shown.set(c);
            hints.set(0);
        }
    });
    let playing = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let show_me = move |_| {
        if playing.get_untracked() {
            return;
        }
        error.set(None);
        let i = shown.get_untracked();
        match lab.act(|s| s.begin_show_me(i)) {
            Ok(actions) => {
                playing.set(true);
                play_from(lab, Rc::new(actions), 0, playing, error);
            }
            Err(e) => error.set(Some(e)),
        }
    };
    let reset = move |_| {
        if let Err(e) = lab.act(|s| s.reset_lesson(false)) {
            error.set(Some(e));
        }
    };
    let start_over = move |_| {
        if let Err(e) = lab.act(|s| s.reset_lesson(true)) {
            error.set(Some(e));
        }
        shown.set(0);
        hints.set(0);
    };
    let open_in_sandbox = move |_| {
        let taken = lab.act(|s| std::mem::replace(s, Session::sandbox()));
        site.handoff.set_value(Some(taken.into_sandbox()));
        go(&Route::Sandbox);
    };
    let step =
        move || view_model.get().and_then(|v| v.steps.get(shown.get().min(v.steps.len().saturating_sub(1))).cloned());
    let complete = move || view_model.get().is_some_and(|v| v.complete);
    view! {
        <aside class="lesson" aria-labelledby="lesson-title">
            <p class="lesson__back">
                <a href="#/">"All lessons"</a>
            </p>
            <h1 class="lesson__title" id="lesson-title">
                {move || view_model.get().map(|v| v.title).unwrap_or_default()}
            </h1>
            <details class="lesson__intro">
                <summary>"Introduction"</summary>
                {move || view_model.get().map(|v| prose(&v.intro))}
            </details>
            <nav class="lesson__steps" aria-label="Lesson steps">
                <ol>
                    {move || {
                        view_model
                            .get()
                            .map(|v| {
                                v.steps
                                    .iter()
                                    .enumerate()
                                    .map(|(i, s)| {
                                        let done = s.goals.iter().all(|g| g.met);
                                        let label = format!(
                                            "{}{}",
                                            s.title,
                                            if done { " (done)" } else if i == v.current { " (current)" } else { "" },
                                        );
                                        view! {
                                            <li>
                                                <button
                                                    type="button"
                                                    class="lesson__step-link"
                                                    aria-current=move || (shown.get() == i).then_some("step")
                                                    on:click=move |_| {
                                                        shown.set(i);
                                                        hints.set(0);
                                                    }
                                                >
                                                    {label}
                                                </button>
                                            </li>
                                        }
                                    })
                                    .collect_view()
                            })
                    }}
                </ol>
            </nav>
            {move || {
                step()
                    .map(|s| {
                        let n = shown.get() + 1;
                        let revealed: Vec<String> = s.hints.iter().take(hints.get()).cloned().collect();
                        let more_hints = hints.get() < s.hints.len();
                        view! {
                            <section class="lesson__step" aria-labelledby="lesson-step-title">
                                <h2 id="lesson-step-title">
                                    {format!("{} {n}: {}", if s.puzzle { "Puzzle" } else { "Step" }, s.title)}
                                </h2>
                                {prose(&s.explanation)}
                                {(!s.instruction.is_empty())
                                    .then(|| {
                                        view! {
                                            <div class="lesson__instruction">
                                                <h3>"Instruction"</h3>
                                                {prose(&s.instruction)}
                                            </div>
                                        }
                                    })}
                                <h3 id="lesson-goals">"Goals"</h3>
                                <ul class="lesson__goals" aria-labelledby="lesson-goals">
                                    {s
                                        .goals
                                        .iter()
                                        .map(|g| {
                                            view! {
                                                <li class="lesson__goal" class:lesson__goal--met=g.met>
                                                    <span class="lesson__goal-mark" aria-hidden="true">
                                                        {if g.met { "✓" } else { "○" }}
                                                    </span>
                                                    <span class="lesson__goal-state">
                                                        {if g.met { "Met: " } else { "Not met yet: " }}
                                                    </span>
                                                    {inlines(inline(&g.text))}
                                                </li>
                                            }
                                        })
                                        .collect_view()}
                                </ul>
                                {(!revealed.is_empty())
                                    .then(|| {
                                        view! {
                                            <ol class="lesson__hints" aria-label="Hints">
                                                {revealed
                                                    .into_iter()
                                                    .map(|h| view! { <li>{inlines(inline(&h))}</li> })
                                                    .collect_view()}
                                            </ol>
                                        }
                                    })}
                                <div class="lesson__controls">
                                    <button
                                        type="button"
                                        disabled=!more_hints
                                        on:click=move |_| hints.update(|h| *h += 1)
                                    >
                                        "Hint"
                                    </button>
                                    <button
                                        type="button"
                                        disabled=move || playing.get() || !s.has_solution
                                        on:click=show_me
                                    >
                                        {move || if playing.get() { "Showing…" } else { "Show me" }}
                                    </button>
                                </div>
                            </section>
                        }
                    })
            }}
            <div class="lesson__controls">
                <button type="button" on:click=reset>
                    "Reset"
                </button>
                <button type="button" on:click=start_over>
                    "Start over (forget progress)"
                </button>
                <button type="button" on:click=open_in_sandbox>
                    "Open in sandbox"
                </button>
            </div>
            <Show when=move || error.get().is_some()>
                <p class="lesson__error" role="alert">
                    {move || error.get()}
                </p>
            </Show>
            <p class="lesson__complete" role="status" aria-live="polite">
                {move || if complete() { "Lesson complete" } else { "" }}
            </p>
            {move || {
                complete()
                    .then(|| {
                        view_model
                            .get()
                            .and_then(|v| v.next)
                            .map(|(slug, title)| {
                                view! {
                                    <p class="lesson__next">
                                        <a href=format!("#/lessons/{slug}")>{format!("Next lesson: {title}")}</a>
                                    </p>
                                }
                                    .into_any()
                            })
                            .unwrap_or_else(|| {
                                view! {
                                    <p class="lesson__next">
                                        <a href="#/">"Back to all lessons"</a>
                                    </p>
                                }
                                    .into_any()
                            })
                    })
            }}
        </aside>
    }
}
