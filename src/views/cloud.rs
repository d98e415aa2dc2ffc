//! "Cloud": the external system's buckets (outside the API server) and which ones leaked: a
//! bucket whose `Bucket` object is gone without the controller's cleanup, because someone removed
//! the `example.com/bucket` finalizer by hand (apiserver
//! `pkg/registry/generic/registry/store.go`, `Delete`: an object without finalizers goes at once).

use std::collections::BTreeSet;

use crate::engine::world::World;

/// One external bucket.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CloudBucketView {
    /// The bucket's name in the cloud.
    pub name: String,
    /// `eu-west-1`.
    pub region: String,
    /// `Creating`, `Ready`, `Deleting`.
    pub state: &'static str,
    /// Its URL.
    pub url: String,
    /// The uid of the `Bucket` object that owns it.
    pub owner_uid: String,
    /// No live `Bucket` object owns it.
    pub leaked: bool,
}

/// Every bucket in the cloud now, by name.
pub fn cloud_buckets(world: &World) -> Vec<CloudBucketView> {
    let leaked: BTreeSet<String> = crate::sort::btree_set(world.leaked_buckets().into_iter().map(|b| b.name));
    world
        .cloud()
        .buckets(world.now())
        .into_iter()
        .map(|b| CloudBucketView {
            url: b.url(),
            leaked: leaked.contains(&b.name),
            name: b.name,
            region: b.region,
            state: b.state.as_str(),
            owner_uid: b.owner_uid,
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::apiserver::Patch;
    use crate::engine::kinds::Kind;
    use serde_json::json;

    pub(crate) fn bucket(name: &str) -> serde_json::Value {
        json!({"apiVersion": "example.com/v1", "kind": "Bucket", "metadata": {"name": name, "namespace": "default"},
               "spec": {"region": "eu-west-1", "versioning": false}})
    }

    #[test]
    fn a_bucket_whose_finalizer_is_removed_by_hand_leaks() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        w.create(bucket("photos")).unwrap();
        w.run_until_idle(5000);
        w.advance(std::time::Duration::from_secs(10));
        w.run_until_idle(5000);
        let b = cloud_buckets(&w);
        assert_eq!(b.len(), 1, "{b:?}");
        assert!(!b[0].leaked);
        // Stop the controllers, delete, and strip the finalizer by hand.
        for p in ["kube-controller-manager-a", "kube-controller-manager-b"] {
            let _ = w.stop_process(p);
        }
        let bk = Kind::by_kind("Bucket").unwrap();
        let _ = w.delete(bk, Some("default"), "photos", Default::default());
        w.patch(bk, Some("default"), "photos", Patch::Merge(json!({"metadata": {"finalizers": null}}))).unwrap();
        let b = cloud_buckets(&w);
        assert_eq!(b.len(), 1);
        assert!(b[0].leaked, "{b:?}");
    }
}
