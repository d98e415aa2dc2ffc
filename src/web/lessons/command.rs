//! A command in a lesson's text (`kubectl scale deployment web --replicas=5`) as a button that
//! puts it into the console input, where the learner reads, edits and runs it (it does not run
//! by itself: the lesson asks the learner to type, and Show me is the button that acts).
//! Which code spans are commands: [`crate::session::lesson::is_console_command`].

use leptos::prelude::*;

/// The button: looks like the code it holds; its name says what pressing it does.
#[component]
pub fn Command(
    /// The command line.
    code: String,
) -> impl IntoView {
    let label = format!("Put {code} in the console");
    let line = code.clone();
    view! {
        <button
            type="button"
            class="lesson__command"
            aria-label=label
            title="Put in the console"
            on:click=move |_| {
                super::super::console::put_in_console(&line);
            }
        >
            <code>{code}</code>
        </button>
    }
}
