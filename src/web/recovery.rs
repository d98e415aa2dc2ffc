//! Keeps the learner's state outside the WebAssembly instance after every successful intent, so
//! that a panic loses nothing (issue 10): once the page has painted what the intent changed, or
//! before the next intent if that comes first ([`after_intent`], [`flush`]), [`checkpoint`]
//! writes what [`crate::session::recovery::Recorder`] says changed to the tab's session storage,
//! where the crash panel of `public/boot.js` reads it with plain JavaScript once the instance is
//! dead.
//!
//! Storage that throws (disabled, full) only means there is less to recover: the page goes on.

use std::cell::{Cell, RefCell};
use std::time::Duration;

use leptos::prelude::{request_animation_frame, set_timeout, window, LocalStorage, StoredValue, WithValue};

use crate::session::recovery::{Checkpoint, Recorder, HEAD_KEY};
use crate::session::Session;

thread_local! {
    /// `None` until the first checkpoint of this page load, which also clears what an earlier
    /// page in this tab left.
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
    /// Whether an intent asked for a checkpoint ([`checkpoint_soon`]) not yet written.
    static PENDING: Cell<bool> = const { Cell::new(false) };
    /// Whether quiet intents changed the session since the last checkpoint was asked for
    /// ([`after_intent`]).
    static HELD: Cell<bool> = const { Cell::new(false) };
}

fn session_storage() -> Option<web_sys::Storage> {
    window().session_storage().ok().flatten()
}

/// Removes every key an earlier page load in this tab wrote.
fn clear(store: &web_sys::Storage) {
    let n = store.length().unwrap_or(0);
    let ours: Vec<String> =
        (0..n).filter_map(|i| store.key(i).ok().flatten()).filter(|k| k.starts_with(HEAD_KEY)).collect();
    for k in ours {
        let _ = store.remove_item(&k);
    }
}

/// Writes what changed since the last checkpoint. Called by [`super::state::Lab`] when a session
/// is created and after every intent that changed something.
pub fn checkpoint(s: &Session) {
    let Some(store) = session_storage() else { return };
    RECORDER.with(|cell| {
        // A checkpoint from inside a checkpoint cannot happen; if it did, skipping it is safe.
        let Ok(mut slot) = cell.try_borrow_mut() else { return };
        let recorder = slot.get_or_insert_with(|| {
            clear(&store);
            Recorder::new()
        });
        let route = window().location().hash().unwrap_or_default();
        let c = recorder.checkpoint(s, &route);
        // Chunks first, then the head that names them.
        for (i, text) in c.chunks {
            let _ = match text {
                Some(t) => store.set_item(&Checkpoint::key(i), &t),
                None => store.remove_item(&Checkpoint::key(i)),
            };
        }
        if let Some(head) = c.head {
            let _ = store.set_item(HEAD_KEY, &head);
        }
    });
}

/// Asks for a [`checkpoint`] of `session` once the page has painted what the intent changed, and
/// in any case before the next intent runs ([`flush`], which every intent calls first): a panic
/// can only happen in an intent, so the state after the last intent that succeeded is in storage
/// whenever one does. Written in the step's frame, the checkpoint delayed it by about a
/// millisecond at scale (a `setItem` of up to 18 KB).
fn checkpoint_soon(session: StoredValue<Session, LocalStorage>) {
    HELD.with(|h| h.set(false));
    if PENDING.with(|p| p.replace(true)) {
        return;
    }
    // A timeout set in an animation frame runs after that frame is painted.
    request_animation_frame(move || {
        set_timeout(
            move || {
                if !super::panic::panicked() && PENDING.with(|p| p.replace(false)) {
                    session.try_with_value(checkpoint);
                }
            },
            Duration::ZERO,
        );
    });
}

/// After an intent: asks for a checkpoint ([`checkpoint_soon`]) if it `changed` the session, or
/// if quiet intents changed it since the last one asked. A quiet intent (a slice of Run until
/// idle between two redraws of the world's views) asks for none: the next intent that redraws
/// does. A panic in a slice then finds the state of the run's last redraw in storage, or the
/// state before the run: the run is one press of a button, and pressing it again redoes it step
/// for step. Asked for after every slice, the checkpoints of a 1,000-pod run made 413 storage
/// calls writing 7 MB; now about 50 writing 0.9 MB (BENCHMARKS.md, item 24).
pub fn after_intent(session: StoredValue<Session, LocalStorage>, changed: bool, quiet: bool) {
    if quiet {
        if changed {
            HELD.with(|h| h.set(true));
        }
    } else if changed || HELD.with(Cell::get) {
        checkpoint_soon(session);
    }
}

/// Writes the checkpoint [`checkpoint_soon`] asked for, if it is not written yet.
pub fn flush(s: &Session) {
    if PENDING.with(|p| p.replace(false)) {
        checkpoint(s);
    }
}
