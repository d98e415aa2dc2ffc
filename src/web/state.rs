//! The one place the page holds the [`Session`], and how panels read it.
//!
//! ```ignore
//! let lab = use_lab();
//! // An intent: runs on the session, then bumps only the signals whose parts changed.
//! let on_click = move |_| { lab.act(|s| s.step()); };
//! // A panel's view model: recomputed when its part changes; a Memo with a PartialEq model
//! // stops the change there when the panel's rows came out the same.
//! let rows = Memo::new(move |_| lab.read(Part::Cluster, |s| rows_of(s)));
//! view! { <For each=move || rows.get() key=|r| r.key.clone() let:r> ... </For> }
//! ```
//!
//! Rules (see also `src/web/mod.rs`): never call [`Lab::act`] from inside [`Lab::read`] (the
//! session is borrowed); read through the narrowest [`Part`]; keep view models small, owned,
//! `PartialEq` values with stable keys.

use leptos::prelude::*;

use crate::session::{Changes, Session};

/// Provided by the embed (src/web/embed.rs): true when `readonly=1` (no console input, no
/// editing). It lives here, with the other shared context, so that the console and the editor
/// read it without importing the embed, which mounts them.
#[derive(Clone, Copy, Debug)]
pub struct ReadOnly(pub bool);

/// Whether a component sits in a read-only embed.
pub fn read_only() -> bool {
    use_context::<ReadOnly>().is_some_and(|r| r.0)
}

/// A part of the session a panel can depend on; each has its own signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The world (objects, watches, caches, queues, leases, cloud, pending actions, narration).
    Cluster,
    /// The Timeline.
    Timeline,
    /// The console transcript and kubectl's waiting state.
    Transcript,
    /// The editor's buffers.
    Editor,
    /// The selected object.
    Selection,
    /// The status line and lesson goals.
    Notice,
}

/// The session and one version signal per [`Part`]. `Copy`: pass it into any closure.
#[derive(Clone, Copy)]
pub struct Lab {
    session: StoredValue<Session, LocalStorage>,
    cluster: RwSignal<u64>,
    timeline: RwSignal<u64>,
    transcript: RwSignal<u64>,
    editor: RwSignal<u64>,
    selection: RwSignal<u64>,
    notice: RwSignal<u64>,
}

impl Lab {
    /// Wraps a session (call once, in the root component, then [`provide`]).
    pub fn new(session: Session) -> Lab {
        super::recovery::checkpoint(&session);
        let c = session.changes();
        Lab {
            session: StoredValue::new_local(session),
            cluster: RwSignal::new(c.cluster),
            timeline: RwSignal::new(c.timeline),
            transcript: RwSignal::new(c.transcript),
            editor: RwSignal::new(c.editor),
            selection: RwSignal::new(c.selection),
            notice: RwSignal::new(c.notice),
        }
    }

    fn signal(&self, part: Part) -> RwSignal<u64> {
        match part {
            Part::Cluster => self.cluster,
            Part::Timeline => self.timeline,
            Part::Transcript => self.transcript,
            Part::Editor => self.editor,
            Part::Selection => self.selection,
            Part::Notice => self.notice,
        }
    }

    /// Sends an intent to the session; then bumps the signal of every part whose counter moved
    /// (and no other, so unrelated panels do not re-render).
    pub fn act<R>(&self, f: impl FnOnce(&mut Session) -> R) -> R {
        self.act_then(true, f)
    }

    /// Like [`Lab::act`], but the world's parts ([`Part::Cluster`], [`Part::Timeline`]) keep their
    /// signals where they were: the panels that draw the world wait for [`Lab::catch_up`]. Run
    /// until idle uses it between its redraws (`session::pacer`); every other part is told at once
    /// (the narration's progress line, the console, lesson goals).
    pub fn act_quietly<R>(&self, f: impl FnOnce(&mut Session) -> R) -> R {
        self.act_then(false, f)
    }

    /// Tells the world's panels what [`Lab::act_quietly`] held back (any [`Lab::act`] does too).
    pub fn catch_up(&self) {
        self.act(|_| ());
    }

    fn act_then<R>(&self, world_too: bool, f: impl FnOnce(&mut Session) -> R) -> R {
        let mut before = Changes::default();
        let mut after = Changes::default();
        let r = self
            .session
            .try_update_value(|s| {
                // The state after every intent that changed it is kept outside the instance,
                // so that a panic in the next one loses nothing (src/web/recovery.rs): written
                // after the page painted it, or here, before anything else can happen.
                super::recovery::flush(s);
                before = s.changes();
                super::panic::test_trigger();
                let r = f(s);
                after = s.changes();
                r
            })
            .expect("the session lives as long as the page");
        // Quiet intents (Run until idle's slices) leave the checkpoint to the next redraw.
        super::recovery::after_intent(self.session, after != before, !world_too);
        let bump = |moved: bool, sig: RwSignal<u64>, v: u64| {
            if moved {
                sig.set(v);
            }
        };
        if world_too {
            // Compared with the signal, not with `before`: an intent after quiet ones (Pause
            // during a run until idle) also redraws what they held back.
            bump(self.cluster.get_untracked() != after.cluster, self.cluster, after.cluster);
            bump(self.timeline.get_untracked() != after.timeline, self.timeline, after.timeline);
        }
        bump(after.transcript != before.transcript, self.transcript, after.transcript);
        bump(after.editor != before.editor, self.editor, after.editor);
        bump(after.selection != before.selection, self.selection, after.selection);
        bump(after.notice != before.notice, self.notice, after.notice);
        r
    }

    /// Reads the session and subscribes the calling effect or memo to `part`.
    pub fn read<R>(&self, part: Part, f: impl FnOnce(&Session) -> R) -> R {
        self.signal(part).track();
        self.read_untracked(f)
    }

    /// Reads the session without subscribing (event handlers).
    pub fn read_untracked<R>(&self, f: impl FnOnce(&Session) -> R) -> R {
        self.session.with_value(f)
    }

    /// Subscribes to several parts at once (for a view model that combines them).
    pub fn track(&self, parts: &[Part]) {
        for p in parts {
            self.signal(*p).track();
        }
    }
}

/// Makes `lab` available to every component below (call in the root component).
pub fn provide(lab: Lab) {
    provide_context(lab);
}

/// The page's [`Lab`], provided by the shell.
pub fn use_lab() -> Lab {
    expect_context::<Lab>()
}
