//! The page shell: the header and every labelled region that later views fill.
//!
//! The region names are a contract: browser tests and screen-reader users find the regions by
//! them. Until a region has a view of the engine, it says what will appear there once the learner
//! acts (never placeholder data).

use leptos::prelude::*;

use super::layout::{group_id, tab_id, use_narrow, Group, Tabs};
use super::panel::{EmptyState, Panel};

/// The groups of regions, in page order (on narrow screens, in tab order). An array of the same
/// length as [`REGIONS`], so that the compiler keeps the two in step.
const GROUPS: [Group; 4] = [
    Group { label: "Map", id: "map" },
    Group { label: "Steps", id: "steps" },
    Group { label: "Cluster", id: "cluster" },
    Group { label: "Commands", id: "commands" },
];

/// A region: its accessible name and what it says while the engine has nothing to show in it.
struct Region {
    title: &'static str,
    empty: &'static str,
}

/// The regions of each group of [`GROUPS`], by index.
///
/// Invariant: every title is unique on the page (it is the region's accessible name).
const REGIONS: [&[Region]; 4] = [
    &[Region {
        title: "Control plane",
        empty: "The API server and every process of the control plane, with their informers, work \
                queues and watch streams, drawn as one picture that moves with each step.",
    }],
    &[
        Region {
            title: "What happens next",
            empty: "The actions the cluster will take next appear here in the order they will run, \
                    once you create or change an object in the console. You can then step through \
                    them one at a time.",
        },
        Region {
            title: "Timeline",
            empty: "Every step taken is recorded here with its virtual time, the component that acted \
                    and a sentence saying what it did. No step has been taken yet.",
        },
    ],
    &[
        Region {
            title: "Watch events",
            empty: "The events each watch has queued (ADDED, MODIFIED, DELETED) appear here, \
                    waiting until they are delivered to an informer.",
        },
        Region {
            title: "Informer caches",
            empty: "Each controller's informer cache appears here, keyed namespace/name, so that you \
                    can see it lag behind the API server and catch up.",
        },
        Region {
            title: "Work queues",
            empty: "Each controller's work queue appears here: keys waiting, keys being processed and \
                    keys waiting out a back-off.",
        },
        Region {
            title: "Owner graph",
            empty: "Objects and their owner references appear here as a graph once a Deployment, a \
                    ReplicaSet or a Pod exists.",
        },
        Region {
            title: "Objects",
            empty: "The objects stored in the API server are listed here by kind, with their \
                    resourceVersion, once the cluster is running.",
        },
        Region {
            title: "Leases",
            empty: "The Lease that the controller-manager replicas compete for appears here, with its \
                    holder, its renew time and its transitions.",
        },
        Region {
            title: "Cloud",
            empty: "Buckets that the Bucket controller creates outside the cluster appear here, \
                    including any left behind when a finalizer is removed by hand.",
        },
    ],
    &[
        Region {
            title: "Console",
            empty: "kubectl commands you run appear here with their output, as kubectl prints it.",
        },
        Region { title: "Editor", empty: "A manifest you open or write appears here, ready to apply to the cluster." },
    ],
];

/// The whole page.
#[component]
pub fn Shell() -> impl IntoView {
    // The page's one session (a sandbox until lessons are routed), shared with every panel.
    // A route (a lesson, or the sandbox) may have provided the session already.
    if use_context::<super::state::Lab>().is_none() {
        super::state::provide(super::state::Lab::new(crate::session::Session::sandbox()));
    }
    let narrow = use_narrow();
    let selected = RwSignal::new(0usize);
    // The map's selection, which the machinery panels filter to, and the way its "details" buttons
    // bring a panel into view (on a narrow screen, by selecting its tab first).
    provide_context(super::views::MapSelection(RwSignal::new(None)));
    provide_context(super::views::Reveal(Callback::new(move |title: String| {
        if let Some(i) = REGIONS.iter().position(|rs| rs.iter().any(|r| r.title == title)) {
            if narrow.get_untracked() {
                selected.set(i);
            }
        }
        // After the tab's panel is shown.
        request_animation_frame(move || super::panel::reveal(&title));
    })));
    view! {
        <header class="site-header">
            <h1 class="site-header__title">"Reconcile Lab"</h1>
            <p class="site-header__tagline">
                "How Kubernetes controllers really work, one event at a time."
            </p>
            <super::shortcuts::Shortcuts />
        </header>
        <Show when=move || narrow.get()>
            <Tabs groups=&GROUPS selected=selected />
        </Show>
        <main class="layout">
            {GROUPS
                .iter()
                .zip(REGIONS)
                .enumerate()
                .map(|(i, (group, regions))| {
                    view! {
                        <div
                            class=format!("layout__group layout__group--{}", group.id)
                            id=group_id(group)
                            role=move || narrow.get().then_some("tabpanel")
                            aria-labelledby=move || narrow.get().then(|| tab_id(group))
                            tabindex=move || narrow.get().then_some("0")
                            hidden=move || narrow.get() && selected.get() != i
                        >
                            {regions
                                .iter()
                                .map(|r| {
                                    let body = super::regions::body(r.title)
                                        .unwrap_or_else(|| view! { <EmptyState text=r.empty /> }.into_any());
                                    view! { <Panel title=r.title>{body}</Panel> }
                                })
                                .collect_view()}
                        </div>
                    }
                })
                .collect_view()}
        </main>
        // After the regions in reading and tab order (the tabs lead straight to their panel), but
        // always in view: a toolbar stuck to the bottom of the window.
        <div class="stepper-bar">
            <super::stepping::Stepper />
            <super::share::ShareButton />
        </div>
    }
}
