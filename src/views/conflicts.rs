//! The Conflicts view: every 409 in the step records, shown as two writers (apiserver
//! `pkg/registry/generic/registry/store.go`, `Update`: an update whose resourceVersion is not the
//! stored one fails with 409 Conflict "the object has been modified; please apply your changes to
//! the latest version and try again"). The winner is the last earlier write to the same object that
//! succeeded; the loser's next step shows what it did next (re-read and retried, requeued with
//! back-off, gave up).

use crate::engine::world::{CallTarget, StepRecord, Verb, World};

use super::recent;

/// Conflicts shown (the newest).
pub const CONFLICTS_SHOWN: usize = 20;

/// One 409.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConflictView {
    /// The step that got the 409.
    pub step: u64,
    /// The object both wrote (prints `Deployment default/web`).
    pub target: CallTarget,
    /// Who lost: `deployment-controller (kube-controller-manager-a)`, `kubectl`, ...
    pub loser: String,
    /// The resourceVersion the loser sent.
    pub loser_rv: u64,
    /// Who had written the stored version (if the records still show it).
    pub winner: Option<String>,
    /// The resourceVersion stored when the loser wrote (the winner's), if known.
    pub stored_rv: Option<u64>,
    /// The step of the winning write, if known.
    pub winner_step: Option<u64>,
    /// What the loser did next: the sentence of its next step, if it has taken one.
    pub loser_next: Option<String>,
}

/// Every 409 in the recent records, newest last.
pub fn conflicts(world: &World) -> Vec<ConflictView> {
    conflicts_in(recent(world.history()))
}

/// [`conflicts`] over any slice of records (oldest first).
pub fn conflicts_in(history: &[StepRecord]) -> Vec<ConflictView> {
    let mut out = Vec::new();
    for (i, r) in history.iter().enumerate() {
        for call in r.calls.iter().filter(|c| c.code == 409 && c.verb != Verb::Create) {
            let winner = history[..=i].iter().rev().find_map(|w| {
                let c =
                    w.calls.iter().rev().find(|c| {
                        c.target == call.target && c.code < 300 && c.resource_version > 0 && !c.verb.is_read()
                    })?;
                // The loser's own successful write earlier in this step is not the winner.
                (w.number != r.number || c.resource_version > call.sent_resource_version).then_some((w, c))
            });
            let loser_next = history[i + 1..]
                .iter()
                .find(|n| n.actor == r.actor)
                .map(|n| format!("step {}: {}", n.number, n.sentence));
            // The lab's injected writer (`lab conflict`, `WorldApi::maybe_conflict`) writes inside
            // the loser's own step: it is "another client", not the loser.
            let writer = |w: &StepRecord, c: &crate::engine::world::ApiCall| {
                if c.verb == crate::engine::world::Verb::PatchByAnotherClient {
                    "another client".to_string()
                } else {
                    w.actor.to_string()
                }
            };
            out.push(ConflictView {
                step: r.number,
                target: call.target.clone(),
                loser: r.actor.to_string(),
                loser_rv: call.sent_resource_version,
                winner: winner.map(|(w, c)| writer(w, c)),
                stored_rv: winner.map(|(_, c)| c.resource_version),
                winner_step: winner.map(|(w, _)| w.number),
                loser_next,
            });
        }
    }
    let skip = out.len().saturating_sub(CONFLICTS_SHOWN);
    out.drain(..skip);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kinds::Kind;
    use crate::engine::time::Time;
    use crate::engine::world::{ActionKind, Actor, ApiCall};

    fn rec(number: u64, actor: Actor, calls: Vec<ApiCall>, sentence: &str) -> StepRecord {
        StepRecord {
            number,
            time: Time::START,
            actor,
            action: ActionKind::Reconcile,
            delivered: None,
            work: None,
            objects: Vec::new(),
            calls,
            sentence: sentence.into(),
            revision: 0,
        }
    }

    fn call(verb: Verb, sent: u64, code: u16, rv: u64) -> ApiCall {
        ApiCall {
            verb,
            target: CallTarget::object(Kind::by_kind("Deployment").expect("served"), Some("default"), "web"),
            sent_resource_version: sent,
            stored_resource_version: 0,
            code,
            resource_version: rv,
            error: (code >= 400).then(|| "conflict".to_string()),
        }
    }

    #[test]
    fn a_409_names_both_writers_and_what_the_loser_did_next() {
        let ctrl = Actor::Controller { process: "kcm-a".into(), controller: "deployment-controller".into() };
        let user = Actor::User("kubectl".into());
        let h = vec![
            rec(1, user.clone(), vec![call(Verb::Update, 10, 200, 12)], "kubectl scaled"),
            rec(2, ctrl.clone(), vec![call(Verb::UpdateStatus, 10, 409, 0)], "conflict"),
            rec(3, user, vec![], "other"),
            rec(4, ctrl, vec![call(Verb::UpdateStatus, 12, 200, 13)], "re-read and retried"),
        ];
        let c = conflicts_in(&h);
        assert_eq!(c.len(), 1);
        let c = &c[0];
        assert_eq!(c.step, 2);
        assert_eq!(c.loser, "deployment-controller (kcm-a)");
        assert_eq!(c.loser_rv, 10);
        assert_eq!(c.winner.as_deref(), Some("kubectl"));
        assert_eq!(c.stored_rv, Some(12));
        assert_eq!(c.winner_step, Some(1));
        assert_eq!(c.loser_next.as_deref(), Some("step 4: re-read and retried"));
    }

    #[test]
    fn an_injected_conflict_in_the_world_shows_up() {
        let mut w = World::new(1);
        w.run_until_idle(2000);
        w.create(super::super::watch::tests::deployment("web", 1)).unwrap();
        w.run_until_idle(5000);
        let leader = w.processes().iter().find(|p| p.leading()).unwrap().name.clone();
        w.conflict_next_write(&leader).unwrap();
        let dk = crate::engine::kinds::Kind::by_kind("Deployment").unwrap();
        let mut d = w.api().get(dk, Some("default"), "web").unwrap();
        d["spec"]["replicas"] = 2.into();
        w.update(d).unwrap();
        w.run_until_idle(5000);
        let c = conflicts(&w);
        assert!(!c.is_empty(), "the armed conflict produced a 409");
        let first = &c[0];
        assert!(first.stored_rv.is_some_and(|s| s > first.loser_rv), "{first:?}");
        assert_eq!(first.winner.as_deref(), Some("another client"), "the injected writer, not the loser: {first:?}");
        assert!(first.loser_next.is_some());
    }
}
