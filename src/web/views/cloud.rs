//! The "Cloud" region.

use leptos::prelude::*;

use super::{items, Item, Rows, WorldSource};
use crate::views::cloud::cloud_buckets;

/// "Cloud": the external buckets, each marked LEAKED in words when no Bucket object owns it.
#[component]
pub fn Cloud(
    /// The world to show.
    source: WorldSource,
) -> impl IntoView {
    let buckets = source.memo(cloud_buckets);
    let bucket = UnsyncCallback::new(|item: Item| match item {
        Item::Bucket(b) => view! {
            <tr class=if b.leaked { "cloud__row cloud__row--leaked" } else { "cloud__row" }>
                <td class="views__mono">{b.name}</td>
                <td>{b.region}</td>
                <td>{b.state}</td>
                <td>
                    {if b.leaked {
                        view! {
                            <span class="views__icon" aria-hidden="true">"⚠"</span>
                            " LEAKED"
                        }
                            .into_any()
                    } else {
                        view! { <span class="views__mono">{format!("Bucket uid {}", b.owner_uid)}</span> }.into_any()
                    }}
                </td>
            </tr>
        }
        .into_any(),
        _ => ().into_any(),
    });
    view! {
        <Show
            when=move || !buckets.with(Vec::is_empty)
            fallback=|| view! {
                <p class="panel__empty">
                    "The cloud holds no bucket. Create a Bucket object and step: the Bucket controller creates its external bucket here."
                </p>
            }
        >
            <p class="views__state">
                {move || {
                    let leaked = buckets.with(|b| b.iter().filter(|b| b.leaked).count());
                    match leaked {
                        0 => "No bucket is leaked.".to_string(),
                        1 => "1 bucket is leaked: its Bucket object is gone, so nothing will delete it.".to_string(),
                        n => format!("{n} buckets are leaked: their Bucket objects are gone, so nothing will delete them."),
                    }
                }}
            </p>
            <div class="views__scroll">
                <table class="views__table">
                    <thead>
                        <tr>
                            <th scope="col">"Bucket"</th>
                            <th scope="col">"Region"</th>
                            <th scope="col">"State"</th>
                            <th scope="col">"Owner"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <Rows items=items(buckets, Item::Bucket) render=bucket />
                    </tbody>
                </table>
            </div>
        </Show>
    }
}
