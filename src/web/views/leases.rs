//! The "Leases" region: Leases and the replicas that compete for them.

use leptos::prelude::*;

use super::{items, Item, Rows, WorldSource};
use crate::views::leases::{leases, replicas};

/// "Leases": each Lease's holder, renew time and transitions, and which controller-manager
/// replica acts.
#[component]
pub fn Leases(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let lease_rows = source.memo(leases);
    let replica_rows = source.memo(replicas);
    let lease = UnsyncCallback::new(|item: Item| match item {
        Item::Lease(l) => view! {
            <tr>
                <td class="views__mono">{l.key}</td>
                <td class="views__mono">{l.holder}</td>
                <td class="views__mono">{l.renew_time}</td>
                <td>{l.transitions}</td>
            </tr>
        }
        .into_any(),
        _ => ().into_any(),
    });
    let replica = UnsyncCallback::new(|item: Item| match item {
        Item::Replica(r) => view! {
            <li class=if r.acting { "leases__replica leases__replica--acting" } else { "leases__replica" }>
                <span class="views__icon" aria-hidden="true">{if r.acting { "●" } else { "○" }}</span>
                " "
                <strong>{r.process}</strong>
                {format!(": {}", r.state)}
                <span class="views__muted views__mono">{format!(" ({})", r.identity)}</span>
            </li>
        }
        .into_any(),
        _ => ().into_any(),
    });
    view! {
        <Show
            when=move || !lease_rows.with(Vec::is_empty)
            fallback=|| view! {
                <p class="panel__empty">
                    "No Lease exists yet. Step the cluster: the controller-manager replicas compete for the Lease kube-system/kube-controller-manager, and its holder appears here."
                </p>
            }
        >
            <div class="views__scroll">
                <table class="views__table">
                    <thead>
                        <tr>
                            <th scope="col">"Lease"</th>
                            <th scope="col">"Holder"</th>
                            <th scope="col">"Renew time"</th>
                            <th scope="col">"Transitions"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <Rows items=items(lease_rows, Item::Lease) render=lease />
                    </tbody>
                </table>
            </div>
        </Show>
        <ul class="leases__replicas" aria-label="Controller-manager replicas">
            <Rows items=items(replica_rows, Item::Replica) render=replica />
        </ul>
    }
}
