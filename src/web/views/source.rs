//! Where the views read the world from.

use leptos::prelude::*;

use crate::engine::world::World;

type Reader = Box<dyn Fn(&mut dyn FnMut(&World))>;

/// A handle the panels read the world through: a signal that changes whenever the world does,
/// and a function that lends the world to a closure. Copy, so every panel can hold one.
#[derive(Clone, Copy)]
pub struct WorldSource {
    version: Signal<u64>,
    read: StoredValue<Reader, LocalStorage>,
}

impl WorldSource {
    /// `version` changes on every change of the world; `read(f)` calls `f` with the world.
    pub fn new(version: Signal<u64>, read: impl Fn(&mut dyn FnMut(&World)) + 'static) -> WorldSource {
        WorldSource { version, read: StoredValue::new_local(Box::new(read)) }
    }

    /// A memo of `model(world)`, recomputed when the version changes; it notifies its readers only
    /// when the model differs from the last one.
    pub fn memo<T>(self, model: impl Fn(&World) -> T + Send + Sync + 'static) -> Memo<T>
    where
        T: PartialEq + Default + Send + Sync + 'static,
    {
        Memo::new(move |_| {
            self.version.track();
            let mut out = None;
            self.read.with_value(|read| read(&mut |w: &World| out = Some(model(w))));
            out.unwrap_or_default()
        })
    }
}
