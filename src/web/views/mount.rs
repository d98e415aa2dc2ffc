//! Where the views meet the page core: a [`WorldSource`] over the shell's [`Lab`], and the body
//! of each region this module owns.

use leptos::prelude::*;

use super::{
    Cloud, ControlPlaneMap, InformerCaches, Leases, Objects, OwnerGraph, WatchEvents, WorkQueues, WorldSource,
};
use crate::engine::kinds::Kind;
use crate::web::state::{use_lab, Lab, Part};

/// The world of the page's session, versioned by its cluster counter.
pub fn source(lab: Lab) -> WorldSource {
    let version = Signal::derive(move || lab.read(Part::Cluster, |s| s.changes().cluster));
    WorldSource::new(version, move |f| lab.read_untracked(|s| f(s.world())))
}

/// The body of the region named `title`, if it is one of the machinery views; `None` otherwise.
/// Call inside the shell (it reads the provided [`Lab`]).
pub fn region_body(title: &str) -> Option<AnyView> {
    let lab = use_lab();
    let source = source(lab);
    Some(match title {
        "Control plane" => view! { <ControlPlaneMap source /> }.into_any(),
        "Watch events" => view! { <WatchEvents source /> }.into_any(),
        "Informer caches" => view! { <InformerCaches source /> }.into_any(),
        "Work queues" => view! { <WorkQueues source /> }.into_any(),
        "Owner graph" => view! { <OwnerGraph source /> }.into_any(),
        "Objects" => {
            let selected = Signal::derive(move || lab.read(Part::Selection, |s| s.selected().cloned()));
            let on_select =
                Callback::new(move |(kind, key): (String, String)| lab.act(|s| s.select_object(&kind, &key)));
            let on_edit = Callback::new(move |(kind, key): (String, String)| {
                let Some(k) = Kind::by_kind(&kind) else { return };
                let (ns, name) = match key.split_once('/') {
                    Some((ns, name)) if k.namespaced => (Some(ns.to_string()), name.to_string()),
                    _ => (None, key.clone()),
                };
                lab.act(|s| s.edit_object(k.resource, ns.as_deref(), &name));
            });
            view! { <Objects source selected on_select on_edit /> }.into_any()
        }
        "Leases" => view! { <Leases source /> }.into_any(),
        "Cloud" => view! { <Cloud source /> }.into_any(),
        _ => return None,
    })
}
