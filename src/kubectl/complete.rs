//! Tab completion for the console: verbs, subcommands, flags, resource types and object names
//! (as kubectl's own `__complete` offers them), from what the API server holds right now.

use super::cluster::Cluster;
use super::commands::{self, COMMANDS};
use super::console::Console;
use super::flags::{FlagSpec, GLOBAL_FLAGS};
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;

/// The `lab` verbs, for completion.
const LAB_VERBS: &[&str] = &[
    "advance",
    "back",
    "break-watch",
    "buggy-operator",
    "cache",
    "cancel-edit",
    "clock-jump",
    "cloud",
    "conflict",
    "expire-history",
    "fail-api",
    "fail-cloud",
    "fail-image",
    "files",
    "fix-cloud",
    "fix-image",
    "freeze",
    "grant",
    "hang-cloud",
    "heal",
    "help",
    "kill",
    "next",
    "partition",
    "pause-kubelets",
    "processes",
    "queue",
    "reset",
    "restart",
    "resume-kubelets",
    "revoke",
    "run",
    "save-edit",
    "seed",
    "settle",
    "slow-kubelets",
    "start",
    "step",
    "stop",
    "thaw",
    "time",
    "waiting",
];

/// The text after the last shell operator of `line` (quotes are not looked into: this is a
/// typing aid), and whether that operator was a pipe.
fn last_command(line: &str) -> (bool, &str) {
    let mut cut = 0;
    let mut piped = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let two = &b[i..(i + 2).min(b.len())];
        if two == b"&&" || two == b"||" || two == b"$(" {
            cut = i + 2;
            piped = false;
            i += 2;
            continue;
        }
        if b[i] == b'|' || b[i] == b';' {
            cut = i + 1;
            piped = b[i] == b'|';
        }
        i += 1;
    }
    (piped, &line[cut..])
}

fn matching(candidates: impl IntoIterator<Item = String>, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = candidates.into_iter().filter(|c| c.starts_with(prefix)).collect();
    crate::sort::sort(&mut v);
    v.dedup();
    v
}

impl Console {
    /// The possible completions of the last word of `line` (the whole word, not the rest of
    /// it), sorted. An empty list means nothing fits.
    pub fn complete(&self, cluster: &dyn Cluster, line: &str) -> Vec<String> {
        // Only the command being typed counts: what follows the last `|`, `;`, `&&`, `||` or `$(`.
        let (piped, line) = last_command(line);
        let mut words: Vec<&str> = line.split_whitespace().collect();
        if line.is_empty() || line.ends_with(char::is_whitespace) {
            words.push("");
        }
        let Some((&last, before)) = words.split_last() else { return Vec::new() };
        match before.first().copied() {
            None if piped => matching(super::filters::NAMES.iter().map(|s| s.to_string()), last),
            None => matching(["kubectl", "lab", "echo"].map(String::from), last),
            Some("lab") if before.len() == 1 => matching(LAB_VERBS.iter().map(|s| s.to_string()), last),
            Some("kubectl" | "k") => self.complete_kubectl(cluster, &before[1..], last),
            _ => Vec::new(),
        }
    }

    fn complete_kubectl(&self, cluster: &dyn Cluster, before: &[&str], last: &str) -> Vec<String> {
        let Some(&verb) = before.first() else {
            return matching(COMMANDS.iter().map(|c| c.name.to_string()), last);
        };
        let Some(cmd) = commands::find(verb) else { return Vec::new() };
        let positional: Vec<&str> = before[1..].iter().copied().filter(|w| !w.starts_with('-')).collect();
        let mut resource_args = cmd.resource_args;
        let mut flags: Vec<&FlagSpec> = cmd.flags.iter().collect();
        let mut args = positional.as_slice();
        if !cmd.subcommands.is_empty() {
            match positional.first().and_then(|p| cmd.subcommands.iter().find(|s| s.name == *p)) {
                Some(sub) => {
                    resource_args = sub.resource_args;
                    flags = sub.flags.iter().collect();
                    args = &positional[1..];
                }
                None if !last.starts_with('-') => {
                    return matching(cmd.subcommands.iter().map(|s| s.name.to_string()), last);
                }
                None => {}
            }
        }
        if let Some(flag) = last.strip_prefix("--") {
            let all = flags.iter().copied().chain(GLOBAL_FLAGS.iter());
            return matching(all.map(|f| format!("--{}", f.long)), &format!("--{flag}"));
        }
        // `-n NAMESPACE`: namespace names.
        if matches!(before.last(), Some(&"-n") | Some(&"--namespace")) {
            return self.names(cluster, "namespaces", None, last);
        }
        if !resource_args {
            return Vec::new();
        }
        let ns = before
            .windows(2)
            .find(|w| w[0] == "-n" || w[0] == "--namespace")
            .map(|w| w[1].to_string())
            .unwrap_or_else(|| self.namespace.clone());
        match args.first() {
            None => {
                if let Some((ty, name)) = last.split_once('/') {
                    return self.names(cluster, ty, Some(&ns), name).into_iter().map(|n| format!("{ty}/{n}")).collect();
                }
                let mut types: Vec<String> = Vec::new();
                for k in KINDS {
                    types.push(k.resource.to_string());
                    types.extend(k.short_names.iter().map(|s| s.to_string()));
                }
                matching(types, last)
            }
            Some(ty) if !ty.contains('/') => self.names(cluster, ty, Some(&ns), last),
            Some(_) => Vec::new(),
        }
    }

    fn names(&self, cluster: &dyn Cluster, ty: &str, ns: Option<&str>, prefix: &str) -> Vec<String> {
        let Some(kind) = Kind::lookup(ty) else { return Vec::new() };
        let ns = if kind.namespaced { ns } else { None };
        match cluster.list(kind, ns, &Selector::everything()) {
            Ok(l) => matching(l.items.iter().map(|o| o.name().to_string()), prefix),
            Err(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::apiserver::ApiServer;
    use crate::kubectl::Console;

    #[test]
    fn completes_verbs_types_names_and_flags() {
        let mut api = ApiServer::new(1);
        let mut c = Console::new();
        c.execute(&mut api, "kubectl create deployment web --image=nginx");
        c.execute(&mut api, "kubectl create deployment worker --image=nginx");
        assert_eq!(c.complete(&api, "kub"), ["kubectl"]);
        assert_eq!(c.complete(&api, "kubectl ge"), ["get"]);
        assert_eq!(c.complete(&api, "kubectl get dep"), ["deploy", "deployments"]);
        assert_eq!(c.complete(&api, "kubectl get deploy w"), ["web", "worker"]);
        assert_eq!(c.complete(&api, "kubectl get deploy/we"), ["deploy/web"]);
        assert_eq!(c.complete(&api, "kubectl get pods --wat"), ["--watch", "--watch-only"]);
        assert_eq!(c.complete(&api, "kubectl rollout st"), ["status"]);
        assert_eq!(c.complete(&api, "kubectl rollout status deploy "), ["web", "worker"]);
        assert_eq!(c.complete(&api, "kubectl get pods -n kube-s"), ["kube-system"]);
        assert_eq!(c.complete(&api, "lab se"), ["seed", "settle"]);
        assert_eq!(c.complete(&api, "kubectl get pods | gr"), ["grep"]);
        assert_eq!(
            c.complete(&api, "kubectl get pods | "),
            ["awk", "cat", "cut", "grep", "head", "sort", "tail", "wc"]
        );
        assert_eq!(c.complete(&api, "echo $(kubectl get deploy w"), ["web", "worker"]);
        assert_eq!(c.complete(&api, "kubectl get ns && kubectl ex"), ["exec", "explain", "expose"]);
        assert_eq!(c.complete(&api, "kubectl cord"), ["cordon"]);
        assert!(c.complete(&api, "kubectl frob ").is_empty());
    }
}
