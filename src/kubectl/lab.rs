//! `lab`: the console's commands for what kubectl cannot express: stepping the simulation,
//! looking inside controllers (queues, informer caches) and injecting faults.
//!
//! Only `lab` commands (and the page's stepping controls) move the simulation; each step is
//! printed as its record's sentence, and after every step the console's pending kubectl work
//! (watches, waiting deletes, `rollout status`) gets to print, so rows appear where they happen.

use super::cluster::Cluster;
use super::cmd::{CmdError, Output};
use super::console::Console;
use crate::engine::cloud::CloudFault;
use crate::engine::kinds::Kind;
use crate::engine::object::ObjectExt;
use crate::engine::time::{parse_duration, Time};
use crate::engine::world::{fmt_duration, Fault, Process, SettleRun, Settled, StepRecord, World};
use std::time::Duration;

/// The most steps one `lab step N` runs (`lab settle` has no cap: it runs to idle or to a hot
/// loop's verdict).
pub const STEP_CAP: u64 = 5_000;

/// The longest `lab advance` (issue 10: a bounded run, refused politely beyond it).
pub const MAX_ADVANCE: Duration = Duration::from_secs(3600);

/// `lab help`.
pub fn help() -> String {
    "lab: the simulation's own commands (kubectl never advances time; these do).\n\n\
Stepping:\n\
  lab step [N]                 Run the next N actions (default 1), one line per step\n\
  lab settle                   Run until only periodic work (lease renewals) remains\n\
  lab advance DURATION         Move the clock forward (e.g. 30s, 2m), running what falls due\n\
  lab next                     List the actions that can happen next\n\
  lab run ID                   Run one action from `lab next` out of order\n\
  lab back                     Undo the last step (the learner's inputs are replayed)\n\
  lab time                     Show the virtual clock\n\n\
Looking inside:\n\
  lab processes                The control plane's processes (running, leading)\n\
  lab queue CONTROLLER         A controller's work queue (waiting, processing, delayed keys)\n\
  lab cache CONTROLLER [KIND]  An informer cache next to the API server's objects\n\
  lab cloud                    The external cloud's buckets (outside the cluster), leaked ones marked\n\n\
Faults:\n\
  lab break-watch PROCESS KIND    lab expire-history\n\
  lab stop|kill|start|restart PROCESS\n\
  lab fail-api PROCESS DURATION   lab conflict PROCESS\n\
  lab partition PROCESS           lab heal PROCESS\n\
  lab freeze PROCESS              lab thaw PROCESS        (a paused VM: its clock stands still)\n\
  lab revoke CONTROLLER           lab grant CONTROLLER    (its RBAC permissions: calls get 403)\n\
  lab fail-image IMAGE            lab fix-image IMAGE\n\
  lab pause-kubelets              lab resume-kubelets     lab slow-kubelets FACTOR\n\
  lab clock-jump DURATION\n\
  lab fail-cloud                  lab hang-cloud          lab fix-cloud\n\
  lab buggy-operator on|off       Redeploy the Bucket operator with a bug that makes a hot loop\n\n\
World:\n\
  lab seed N                   Start over with another seed\n\
  lab reset                    Start over with the same seed\n\n\
Console:\n\
  lab save-edit <<EOF ... EOF  Save the object opened by `kubectl edit` (a PUT with the loaded resourceVersion)\n\
  lab cancel-edit              Close the open edit without saving\n\
  lab files                    List the editor buffers that -f NAME can read\n\
  lab waiting                  Show what kubectl is still waiting for (watches, deletes)\n\
  ^C                           Stop running watches and waits\n"
        .into()
}

fn step_line(r: &StepRecord) -> String {
    format!("step {}: {}\n", r.number, r.sentence)
}

fn elapsed(t: Time) -> String {
    fmt_duration(t.since(Time::START))
}

fn need<'a>(args: &'a [String], i: usize, what: &str) -> Result<&'a str, CmdError> {
    args.get(i).map(String::as_str).ok_or_else(|| CmdError::Plain(format!("missing {what}; see \"lab help\"")))
}

fn duration(s: &str) -> Result<Duration, CmdError> {
    parse_duration(s)
        .ok_or_else(|| CmdError::Plain(format!("invalid duration {s:?}: use a Go duration such as 30s, 2m or 1h30m")))
}

/// Finds the process running a controller (the leader's copy when replicated), or a process by name.
fn process_with<'a>(world: &'a World, name: &str) -> Option<(&'a Process, Option<usize>)> {
    let want = name.trim_end_matches("-controller");
    let mut found = None;
    for p in world.processes() {
        if p.name == name {
            return Some((p, None));
        }
        if let Some(i) = p.slots.iter().position(|s| s.controller.name().trim_end_matches("-controller") == want) {
            if p.active() || found.is_none() {
                found = Some((p, Some(i)));
            }
        }
    }
    found
}

impl Console {
    /// Runs a `lab` command.
    pub(crate) fn lab(&mut self, cluster: &mut dyn Cluster, args: &[String], stdin: Option<&str>, out: &mut Output) {
        let verb = args.first().map(String::as_str).unwrap_or("help");
        match verb {
            "help" => return out.out(help()),
            "save-edit" => {
                let text = match (stdin, args.get(1).map(String::as_str), args.get(2)) {
                    (Some(t), _, _) => t.to_string(),
                    (None, Some("-f"), Some(name)) => match self.files.get(name) {
                        Some(t) => t.clone(),
                        None => return out.fail(CmdError::Plain(format!("the path \"{name}\" does not exist"))),
                    },
                    _ => {
                        return out
                            .fail(CmdError::Plain("lab save-edit needs the edited object: <<EOF or -f FILE".into()))
                    }
                };
                let o = self.save_edit(cluster, &text);
                return out.extend(o);
            }
            "cancel-edit" => {
                if self.open_edit.take().is_some() {
                    out.err("Edit cancelled, no changes made.\n");
                }
                return;
            }
            "files" => {
                for name in self.files.keys() {
                    out.out(format!("{name}\n"));
                }
                return;
            }
            "waiting" => {
                for w in self.waiting() {
                    out.out(format!("{w}\n"));
                }
                return;
            }
            _ => {}
        }
        if cluster.world().is_none() {
            return out.fail(CmdError::Plain(format!("lab {verb}: this console has no simulation attached")));
        }
        if let Err(e) = self.lab_world(cluster, verb, args, out) {
            out.fail(e);
        }
    }

    fn lab_world(
        &mut self,
        cluster: &mut dyn Cluster,
        verb: &str,
        args: &[String],
        out: &mut Output,
    ) -> Result<(), CmdError> {
        let Some(world) = cluster.world() else { return Ok(()) };
        let fault = |r: Result<StepRecord, String>, out: &mut Output| -> Result<(), CmdError> {
            let r = r.map_err(CmdError::Plain)?;
            out.out(step_line(&r));
            Ok(())
        };
        match verb {
            "step" => {
                let n: u64 = match args.get(1) {
                    Some(s) => s.parse().map_err(|_| CmdError::Plain(format!("invalid step count {s:?}")))?,
                    None => 1,
                };
                // Lease renewals never run out, so an unbounded count never returned (and kept
                // every step in the history).
                if n > STEP_CAP {
                    return Err(CmdError::Plain(format!(
                        "lab step runs at most {STEP_CAP} steps at a time; use lab settle to run until idle"
                    )));
                }
                for _ in 0..n {
                    let Some(world) = cluster.world() else { break };
                    match world.step() {
                        Some(r) => out.out(step_line(&r)),
                        None => {
                            out.out(
                                "Nothing can happen now: everything left waits for a timer (lab next, lab advance).\n",
                            );
                            break;
                        }
                    }
                    let more = self.resume(cluster);
                    out.extend(more);
                }
            }
            "settle" => {
                let before = world.now();
                // No step cap: it runs until the cluster is idle or a hot loop shows (the verdict
                // names it), whatever the cluster's size.
                let settled = if self.pending.is_empty() {
                    SettleRun::run_to_end(world)
                } else {
                    // kubectl is watching or waiting: step one at a time so that what it prints
                    // appears where it happens.
                    let mut run = SettleRun::new();
                    loop {
                        let Some(world) = cluster.world() else { break Settled::Idle { steps: run.steps() } };
                        let r = run.run(world, 1);
                        let more = self.resume(cluster);
                        out.extend(more);
                        if !matches!(r, Settled::Working { .. }) {
                            break r;
                        }
                    }
                };
                let Some(world) = cluster.world() else { return Ok(()) };
                match settled {
                    Settled::HotLoop { explanation, .. } => out.out(format!("{explanation}\n")),
                    Settled::Idle { steps } | Settled::Working { steps } => {
                        let spent = world.now().since(before);
                        out.out(format!("Settled after {steps} steps ({} of virtual time).\n", fmt_duration(spent)));
                    }
                }
            }
            "advance" => {
                let d = duration(need(args, 1, "a duration")?)?;
                // Lease renewals fall due every 2 s for ever, so an unbounded advance never returned.
                if d > MAX_ADVANCE {
                    return Err(CmdError::Plain(format!(
                        "lab advance moves the clock at most {} at a time",
                        fmt_duration(MAX_ADVANCE)
                    )));
                }
                let records = world.advance(d);
                out.out(format!(
                    "Advanced {} to +{}: {} steps ran.\n",
                    fmt_duration(d),
                    elapsed(world.now()),
                    records.len()
                ));
            }
            "next" => {
                let now = world.now();
                let pending = world.pending();
                if pending.is_empty() {
                    out.out("Nothing is pending.\n");
                }
                for p in pending {
                    let when =
                        if p.at <= now { "now".to_string() } else { format!("in {}", fmt_duration(p.at.since(now))) };
                    let mark = if p.runnable { "" } else { " (after the earlier events of its watch)" };
                    out.out(format!("{:>4}  {when:<10} {}: {}{mark}\n", p.id, p.actor, p.description));
                }
            }
            "run" => {
                let id: u64 = need(args, 1, "an action id (see lab next)")?
                    .parse()
                    .map_err(|_| CmdError::Plain("the action id is a number (see lab next)".into()))?;
                let r = world.run(id).map_err(CmdError::Plain)?;
                out.out(step_line(&r));
            }
            "back" => {
                if world.step_back() {
                    out.out(format!("Back to step {}.\n", world.position()));
                } else {
                    out.out("Already at the beginning.\n");
                }
            }
            "time" => out.out(format!("{} (+{})\n", world.now().rfc3339(), elapsed(world.now()))),
            "processes" => {
                for p in world.processes() {
                    let state = match (p.running, p.leading(), p.elector.is_some()) {
                        (false, _, _) => "stopped",
                        (true, true, _) => "running, leader",
                        (true, false, true) => "running, standby",
                        (true, false, false) => "running",
                    };
                    let mut extra = if p.partitioned { ", partitioned" } else { "" }.to_string();
                    if p.frozen_since.is_some() {
                        extra.push_str(", frozen");
                    }
                    out.out(format!("{:<28} {state}{extra}\n", p.name));
                }
            }
            "queue" => {
                let name = need(args, 1, "a controller name (deployment, replicaset, ...)")?;
                let (p, slot) = process_with(world, name)
                    .ok_or_else(|| CmdError::Plain(format!("no controller or process named {name:?}")))?;
                let Some(si) = slot else {
                    return Err(CmdError::Plain(format!("{name} is a process; name one of its controllers")));
                };
                let q = p.slots[si].queue();
                let now = world.now();
                let list = |keys: Vec<String>| if keys.is_empty() { "(none)".to_string() } else { keys.join(", ") };
                out.out(format!("{} in {}\n", p.slots[si].controller.name(), p.name));
                out.out(format!("  waiting:    {}\n", list(q.waiting_keys().cloned().collect())));
                let dirty: Vec<&String> = q.dirty_while_processing().collect();
                let held =
                    q.processing_keys().map(|k| if dirty.contains(&k) { format!("{k} (dirty)") } else { k.clone() });
                out.out(format!("  processing: {}\n", list(held.collect())));
                let delayed: Vec<String> = q
                    .delayed_keys()
                    .into_iter()
                    .map(|k| format!("{} (in {})", k.key, fmt_duration(k.ready_at.since(now))))
                    .collect();
                out.out(format!("  delayed:    {}\n", list(delayed)));
            }
            "cache" => {
                let name = need(args, 1, "a controller or process name")?;
                let (p, _) = process_with(world, name)
                    .ok_or_else(|| CmdError::Plain(format!("no controller or process named {name:?}")))?;
                let kinds: Vec<&'static Kind> = match args.get(2) {
                    Some(k) => vec![super::resources::lookup(k)?],
                    None => p.caches.stores().into_iter().filter_map(|(k, _)| Kind::by_kind(k)).collect(),
                };
                let mut rows = vec![vec!["KIND".to_string(), "KEY".into(), "CACHED RV".into(), "SERVER RV".into()]];
                for kind in kinds {
                    let empty = std::collections::BTreeMap::new();
                    let cached = p.caches.store(kind.kind).unwrap_or(&empty);
                    let server = world.api().list(kind, None, &crate::engine::labels::Selector::everything());
                    let mut keys: Vec<String> = cached.keys().map(|k| k.to_string()).collect();
                    if let Ok(l) = &server {
                        keys.extend(l.items.iter().map(|o| o.key()));
                    }
                    crate::sort::sort(&mut keys);
                    keys.dedup();
                    for key in keys {
                        let c = cached.get(key.as_str()).map_or("-".to_string(), |o| o.resource_version().to_string());
                        let s = server
                            .as_ref()
                            .ok()
                            .and_then(|l| l.items.iter().find(|o| o.key() == key))
                            .map_or("-".to_string(), |o| o.resource_version().to_string());
                        rows.push(vec![kind.kind.to_string(), key, c, s]);
                    }
                }
                out.out(format!("informer caches of {}\n", p.name));
                out.out(super::table::TabWriter::new().format(&rows));
            }
            "break-watch" => {
                let (p, k) = (need(args, 1, "a process")?, need(args, 2, "a kind")?);
                let kind = super::resources::lookup(k)?;
                fault(world.fault(Fault::BreakWatch { process: p.into(), kind: kind.kind.into() }), out)?;
            }
            "expire-history" => fault(world.fault(Fault::ExpireHistory), out)?,
            "stop" => fault(world.fault(Fault::StopProcess(need(args, 1, "a process")?.into())), out)?,
            "kill" => fault(world.fault(Fault::KillProcess(need(args, 1, "a process")?.into())), out)?,
            "start" => fault(world.fault(Fault::StartProcess(need(args, 1, "a process")?.into())), out)?,
            "restart" => fault(world.fault(Fault::RestartProcess(need(args, 1, "a process")?.into())), out)?,
            "fail-api" => {
                let p = need(args, 1, "a process")?.to_string();
                let d = duration(need(args, 2, "a duration")?)?;
                fault(world.fault(Fault::FailApi { process: p, duration: d }), out)?;
            }
            "conflict" => fault(world.fault(Fault::ConflictNextWrite(need(args, 1, "a process")?.into())), out)?,
            "partition" => fault(world.fault(Fault::Partition(need(args, 1, "a process")?.into())), out)?,
            "heal" => fault(world.fault(Fault::Heal(need(args, 1, "a process")?.into())), out)?,
            "freeze" => fault(world.fault(Fault::Freeze(need(args, 1, "a process")?.into())), out)?,
            "thaw" => fault(world.fault(Fault::Thaw(need(args, 1, "a process")?.into())), out)?,
            "revoke" | "grant" => {
                let name = need(args, 1, "a controller (deployment, replicaset, ...)")?;
                // `deployment` and `deployment-controller` name the same controller, as for `lab queue`.
                let full = match process_with(world, name) {
                    Some((p, Some(si))) => p.slots[si].controller.name().to_string(),
                    _ => name.to_string(),
                };
                let f = if verb == "revoke" { Fault::Revoke(full) } else { Fault::Grant(full) };
                fault(world.fault(f), out)?;
            }
            "fail-image" => fault(world.fault(Fault::FailImage(need(args, 1, "an image")?.into())), out)?,
            "fix-image" => fault(world.fault(Fault::FixImage(need(args, 1, "an image")?.into())), out)?,
            "cloud" => out.out(world.cloud_table()),
            "fail-cloud" => fault(world.cloud_fault(Some(CloudFault::Failing)), out)?,
            "hang-cloud" => fault(world.cloud_fault(Some(CloudFault::Hanging)), out)?,
            "fix-cloud" => fault(world.cloud_fault(None), out)?,
            "buggy-operator" => {
                let on = match need(args, 1, "on or off")? {
                    "on" => true,
                    "off" => false,
                    other => return Err(CmdError::Plain(format!("lab buggy-operator takes on or off, not {other:?}"))),
                };
                fault(world.fault(Fault::BuggyOperator(on)), out)?;
            }
            "pause-kubelets" => fault(world.pause_kubelets(), out)?,
            "resume-kubelets" => fault(world.resume_kubelets(), out)?,
            "slow-kubelets" => {
                let f: u32 = need(args, 1, "a factor")?
                    .parse()
                    .map_err(|_| CmdError::Plain("the factor is a whole number (1: normal speed)".into()))?;
                fault(world.fault(Fault::SlowKubelets(f)), out)?;
            }
            "clock-jump" => fault(world.fault(Fault::ClockJump(duration(need(args, 1, "a duration")?)?)), out)?,
            "seed" | "reset" => {
                let seed = if verb == "seed" {
                    need(args, 1, "a seed")?
                        .parse()
                        .map_err(|_| CmdError::Plain("the seed is a whole number".into()))?
                } else {
                    world.seed()
                };
                *world = World::new(seed);
                self.pending.clear();
                self.open_edit = None;
                out.out(format!("A new cluster with seed {seed}.\n"));
            }
            other => {
                return Err(CmdError::Plain(format!("unknown lab command \"{other}\"; see \"lab help\"")));
            }
        }
        Ok(())
    }
}
