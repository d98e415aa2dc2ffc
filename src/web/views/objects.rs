//! The "Objects" region: every stored object by kind; the selected one's YAML with its key fields
//! marked, and how they changed at the latest step.

use leptos::prelude::*;

use super::{Item, Rows, WorldSource};
use crate::views::objects::{
    key_field_changes, object_detail, object_groups, FieldChange, KindGroup, ObjectDetail, ObjectRow,
};
use crate::views::touched_by_last_step;

/// The selected object: `(kind, namespace/name)`.
type Selection = Option<(String, String)>;

/// "Objects": a list of everything in the cluster, and the selected object's YAML.
#[component]
pub fn Objects(
    /// The world to show.
    source: WorldSource,
    /// The selected object, `(kind, namespace/name)`.
    #[prop(into)]
    selected: Signal<Selection>,
    /// Selects an object.
    on_select: Callback<(String, String)>,
    /// "Edit": loads the selected object into the editor (as `kubectl edit` does, so that saving
    /// it after the cluster moved on gets the real 409). Called with `(kind, key)`.
    #[prop(optional, into)]
    on_edit: Option<Callback<(String, String)>>,
) -> impl IntoView {
    let groups = source.memo(|w| object_groups(w, &touched_by_last_step(w.history())));
    let detail = source.memo(move |w| {
        let sel = selected.get();
        sel.and_then(|(kind, key)| object_detail(w, &kind, &key))
    });
    // The selected object's key-field changes since the previous recomputation (a step, a
    // command), or since it was selected.
    let changes = Memo::new(move |prev: Option<&(Option<ObjectDetail>, Vec<FieldChange>)>| {
        let now = detail.get();
        let before = prev.and_then(|(d, _)| d.as_ref());
        let changes = match (&now, before) {
            (Some(n), Some(b)) if n.kind == b.kind && n.key == b.key => key_field_changes(Some(&b.object), &n.object),
            _ => Vec::new(),
        };
        (now, changes)
    });
    let kinds = Memo::new(move |_| groups.with(|gs| gs.iter().map(|g| Item::Text(g.kind.clone())).collect::<Vec<_>>()));
    let group = UnsyncCallback::new(move |item: Item| match item {
        Item::Text(kind) => view! { <Group kind groups selected on_select /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <Show
            when=move || !groups.with(Vec::is_empty)
            fallback=|| view! { <p class="panel__empty">"The API server stores no object yet."</p> }
        >
            <div class="objects">
                <nav class="objects__list" aria-label="Stored objects">
                    // One block per kind, kept across steps; inside it, only the rows that changed
                    // are rebuilt (keying a block by its whole value rebuilt a hundred rows a step).
                    <Rows items=kinds render=group />
                </nav>
                <div class="objects__detail">
                    {move || match changes.with(|(d, _)| d.clone()) {
                        None => view! {
                            <p class="panel__empty">"Select an object to see its YAML, with the fields the control loop reads and writes marked."</p>
                        }
                            .into_any(),
                        Some(d) => view! { <Detail detail=d changes=changes.with(|(_, c)| c.clone()) on_edit /> }.into_any(),
                    }}
                </div>
            </div>
        </Show>
    }
}

#[component]
fn Group(
    kind: String,
    groups: Memo<Vec<KindGroup>>,
    selected: Signal<Selection>,
    on_select: Callback<(String, String)>,
) -> impl IntoView {
    let label = kind.clone();
    let (k1, k2) = (kind.clone(), kind.clone());
    let heading = move || {
        groups.with(|gs| {
            let total = gs.iter().find(|g| g.kind == k1).map_or(0, |g| g.rows.total);
            format!("{k1} ({})", crate::views::thousands(total))
        })
    };
    let note = move || groups.with(|gs| gs.iter().find(|g| g.kind == k2).and_then(|g| g.rows.note()));
    let rows = Memo::new(move |_| {
        groups.with(|gs| {
            gs.iter()
                .find(|g| g.kind == kind)
                .map(|g| g.rows.items.iter().cloned().map(Item::Object).collect())
                .unwrap_or_default()
        })
    });
    let line = UnsyncCallback::new(move |item: Item| match item {
        Item::Object(row) => view! { <ObjectLine row selected on_select /> }.into_any(),
        _ => ().into_any(),
    });
    view! {
        <div class="objects__group" role="group" aria-label=label>
            <h3 class="views__subtitle">{heading}</h3>
            <ul class="objects__rows">
                <Rows items=rows render=line />
            </ul>
            {move || note().map(|n| view! { <p class="views__cap-note">{n}</p> })}
        </div>
    }
}

#[component]
fn ObjectLine(row: ObjectRow, selected: Signal<Selection>, on_select: Callback<(String, String)>) -> impl IntoView {
    let id = (row.kind.clone(), row.key.clone());
    let id_for_pressed = id.clone();
    let pressed = move || if selected.with(|s| s.as_ref() == Some(&id_for_pressed)) { "true" } else { "false" };
    let label = format!("{} {}", row.kind, row.key);
    let extra = format!(
        " rv {}{}{}",
        row.resource_version,
        if row.terminating { " · Terminating" } else { "" },
        if row.touched { " · changed at this step" } else { "" },
    );
    view! {
        <li>
            <button
                type="button"
                class="objects__row"
                class:objects__row--touched=row.touched
                aria-pressed=pressed
                on:click=move |_| on_select.run(id.clone())
            >
                <span class="views__mono">{label}</span>
                <span class="views__muted">{extra}</span>
            </button>
        </li>
    }
}

#[component]
fn Detail(
    detail: ObjectDetail,
    changes: Vec<FieldChange>,
    on_edit: Option<Callback<(String, String)>>,
) -> impl IntoView {
    let title = format!("{} {}", detail.kind, detail.key);
    let label = format!("YAML of {title}");
    let (kind, key) = (detail.kind.clone(), detail.key.clone());
    let yaml = detail.yaml();
    let copy = Callback::new(move |()| yaml.clone());
    view! {
        <div class="objects__yaml" role="group" aria-label=label>
            <h3 class="views__subtitle">{title.clone()}</h3>
            {on_edit
                .map(|cb| {
                    view! {
                        <button
                            type="button"
                            class="objects__edit"
                            on:click=move |_| cb.run((kind.clone(), key.clone()))
                        >
                            "Edit"
                        </button>
                    }
                })}
            <crate::web::copy::CopyButton text=copy label=format!("Copy YAML of {title}") visible="Copy YAML" />
            {(!changes.is_empty())
                .then(|| {
                    view! {
                        <div class="objects__changes">
                            <p>"Changed at this step:"</p>
                            <ul>
                                {changes
                                    .into_iter()
                                    .map(|c| {
                                        view! {
                                            <li class="views__mono">{format!("{}: {} → {}", c.field, c.before, c.after)}</li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                        </div>
                    }
                })}
            <pre class="yaml">
                {detail
                    .lines
                    .into_iter()
                    .map(|l| match l.field {
                        Some(_) => view! { <mark class="yaml__line yaml__line--key">{l.text}</mark> }.into_any(),
                        None => view! { <span class="yaml__line">{l.text}</span> }.into_any(),
                    })
                    .collect_view()}
            </pre>
            <p class="views__muted">"Marked lines (highlighted, with a bar): resourceVersion, generation, observedGeneration, finalizers, deletionTimestamp, ownerReferences."</p>
        </div>
    }
}
