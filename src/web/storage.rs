//! The browser's local storage, as the page uses it for saved progress: every call may throw
//! (storage disabled or blocked for the site, quota exceeded, a browser without it), and none of
//! that may stop the page. What the data means is decided natively in
//! [`crate::session::saved`]; this file only makes the calls and maps their failures.

use leptos::prelude::window;

use crate::lessons::Progress;
use crate::session::saved::{self, Loaded, Stored, KEPT_ASIDE, PROGRESS_KEY, UNREADABLE_KEY};

fn local() -> Option<web_sys::Storage> {
    // `window.localStorage` itself throws a SecurityError when the site may not use storage.
    window().local_storage().ok().flatten()
}

/// Reads saved progress; keeps an unreadable record aside (under [`UNREADABLE_KEY`]) before any
/// save can replace it, and says so in the notice only if that worked.
pub fn load_progress() -> Loaded {
    let storage = local();
    let text = match &storage {
        None => Err(()),
        Some(s) => s.get_item(PROGRESS_KEY).map_err(|_| ()),
    };
    let mut loaded = saved::load(match &text {
        Err(()) => Stored::Unavailable,
        Ok(None) => Stored::Nothing,
        Ok(Some(t)) => Stored::Text(t),
    });
    if let (Some(s), Some(copy)) = (&storage, loaded.keep_aside.take()) {
        if s.set_item(UNREADABLE_KEY, &copy).is_ok() {
            if let Some(n) = loaded.notice.as_mut() {
                n.push(' ');
                n.push_str(KEPT_ASIDE);
            }
        }
    }
    loaded
}

/// Writes progress; `false` when the browser refused (the caller tells the learner once).
pub fn save_progress(progress: &Progress) -> bool {
    local().is_some_and(|s| s.set_item(PROGRESS_KEY, &progress.encode()).is_ok())
}
