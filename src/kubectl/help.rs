//! `kubectl help`, `kubectl <verb> --help`, `lab help`, and the unknown-command error with
//! cobra's "Did you mean this?" suggestions (Levenshtein distance ≤ 2, as cobra computes them).

use super::flags::FlagSpec;
use super::{describe, get, mutate, rollout};

/// A subcommand (`rollout status`, `create deployment`).
pub struct Sub {
    /// Its name.
    pub name: &'static str,
    /// One-line description.
    pub short: &'static str,
    /// The usage line after `kubectl `.
    pub usage: &'static str,
    /// Its flags.
    pub flags: &'static [FlagSpec],
    /// Other names (`ns` for `namespace`).
    pub aliases: &'static [&'static str],
}

/// A top-level kubectl command the console runs.
pub struct Command {
    /// The verb.
    pub name: &'static str,
    /// kubectl's one-line description.
    pub short: &'static str,
    /// The usage line after `kubectl `.
    pub usage: &'static str,
    /// Its flags (the global ones are added).
    pub flags: &'static [FlagSpec],
    /// Subcommands, if any.
    pub subcommands: &'static [Sub],
    /// A few examples.
    pub examples: &'static str,
}

/// Every kubectl command of the console, in `kubectl help` order.
pub static COMMANDS: &[Command] = &[
    Command {
        name: "create",
        short: "Create a resource from a file or from stdin",
        usage: "create -f FILENAME",
        flags: mutate::CREATE_FLAGS,
        subcommands: &[
            Sub { aliases: &["ns"], name: "namespace", short: "Create a namespace with the specified name", usage: "create namespace NAME", flags: mutate::CREATE_NS_FLAGS },
            Sub { aliases: &["deploy"], name: "deployment", short: "Create a deployment with the specified name", usage: "create deployment NAME --image=image [--replicas=N]", flags: mutate::CREATE_DEPLOY_FLAGS },
            Sub { aliases: &["cm"], name: "configmap", short: "Create a config map from a local file, directory or literal value", usage: "create configmap NAME [--from-literal=key1=value1]", flags: mutate::CREATE_CM_FLAGS },
        ],
        examples: "  # Create a deployment using the data in web.yaml\n  kubectl create -f web.yaml\n\n  # Create a namespace\n  kubectl create namespace demo\n",
    },
    Command {
        name: "run",
        short: "Run a particular image on the cluster",
        usage: "run NAME --image=image [--port=port] [--labels=key=value] [--restart=Always|OnFailure|Never] [--dry-run=client]",
        flags: mutate::RUN_FLAGS,
        subcommands: &[],
        examples: "  # Start a nginx pod\n  kubectl run nginx --image=nginx\n\n  # Print the pod's manifest without creating it\n  kubectl run nginx --image=nginx --dry-run=client -o yaml\n",
    },
    Command {
        name: "get",
        short: "Display one or many resources",
        usage: "get [(-o|--output=)json|yaml|name|wide|custom-columns=...|jsonpath=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]",
        flags: get::FLAGS,
        subcommands: &[],
        examples: "  # List all pods in ps output format\n  kubectl get pods\n\n  # List deployments with more information\n  kubectl get deploy -o wide\n\n  # Print one field\n  kubectl get deploy web -o jsonpath='{.status.observedGeneration}'\n\n  # Watch a deployment, one line per change\n  kubectl get deploy web --watch --output-watch-events\n",
    },
    Command {
        name: "edit",
        short: "Edit a resource on the server",
        usage: "edit (RESOURCE/NAME | -f FILENAME)",
        flags: mutate::EDIT_FLAGS,
        subcommands: &[],
        examples: "  # Open the deployment named 'web' in the editor; saving sends it with the\n  # resourceVersion it was loaded with\n  kubectl edit deploy/web\n",
    },
    Command {
        name: "delete",
        short: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
        usage: "delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)])",
        flags: mutate::DELETE_FLAGS,
        subcommands: &[],
        examples: "  # Delete a deployment; its ReplicaSets and pods are deleted in the background\n  kubectl delete deploy web\n\n  # Delete and keep the dependents\n  kubectl delete deploy web --cascade=orphan\n",
    },
    Command {
        name: "rollout",
        short: "Manage the rollout of a resource",
        usage: "rollout SUBCOMMAND",
        flags: &[],
        subcommands: &[
            Sub { aliases: &[], name: "history", short: "View rollout history", usage: "rollout history (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::HISTORY_FLAGS },
            Sub { aliases: &[], name: "pause", short: "Mark the provided resource as paused", usage: "rollout pause RESOURCE", flags: rollout::PAUSE_FLAGS },
            Sub { aliases: &[], name: "restart", short: "Restart a resource", usage: "rollout restart RESOURCE", flags: rollout::RESTART_FLAGS },
            Sub { aliases: &[], name: "resume", short: "Resume a paused resource", usage: "rollout resume RESOURCE", flags: rollout::PAUSE_FLAGS },
            Sub { aliases: &[], name: "status", short: "Show the status of the rollout", usage: "rollout status (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::STATUS_FLAGS },
            Sub { aliases: &[], name: "undo", short: "Undo a previous rollout", usage: "rollout undo (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::UNDO_FLAGS },
        ],
        examples: "  # Roll back to the previous deployment\n  kubectl rollout undo deployment/web\n\n  # Watch the rollout status of a deployment\n  kubectl rollout status deployment/web\n",
    },
    Command {
        name: "set",
        short: "Set specific features on objects",
        usage: "set SUBCOMMAND",
        flags: &[],
        subcommands: &[Sub {
            aliases: &[],
            name: "image",
            short: "Update the image of a pod template",
            usage: "set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
            flags: mutate::SET_IMAGE_FLAGS,
        }],
        examples: "  # Start a rolling update: set the nginx container's image\n  kubectl set image deployment/web nginx=nginx:1.28\n",
    },
    Command {
        name: "scale",
        short: "Set a new size for a deployment, replica set, or replication controller",
        usage: "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
        flags: mutate::SCALE_FLAGS,
        subcommands: &[],
        examples: "  # Scale a deployment named 'web' to 5\n  kubectl scale --replicas=5 deployment/web\n",
    },
    Command {
        name: "describe",
        short: "Show details of a specific resource or group of resources",
        usage: "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
        flags: describe::FLAGS,
        subcommands: &[],
        examples: "  # Describe a deployment, with its events\n  kubectl describe deploy web\n",
    },
    Command {
        name: "events",
        short: "List events",
        usage: "events [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file] [--for TYPE/NAME] [--watch] [--event=Normal,Warning]",
        flags: super::events::FLAGS,
        subcommands: &[],
        examples: "  # List recent events in the default namespace\n  kubectl events\n\n  # List recent events in all namespaces\n  kubectl events --all-namespaces\n\n  # List recent events for the specified pod\n  kubectl events --for pod/web-pod-13je7\n\n  # List recent only events in given event types\n  kubectl events --types=Warning,Normal\n",
    },
    Command {
        name: "apply",
        short: "Apply a configuration to a resource by file name or stdin",
        usage: "apply (-f FILENAME | -k DIRECTORY)",
        flags: mutate::APPLY_FLAGS,
        subcommands: &[Sub {
            aliases: &[],
            name: "view-last-applied",
            short: "View the latest last-applied-configuration annotations of a resource/object",
            usage: "apply view-last-applied (TYPE [NAME | -l label] | TYPE/NAME | -f FILENAME)",
            flags: mutate::VIEW_LAST_APPLIED_FLAGS,
        }, Sub {
            aliases: &[],
            name: "set-last-applied",
            short: "Set the last-applied-configuration annotation on a live object to match the contents of a file",
            usage: "apply set-last-applied -f FILENAME",
            flags: mutate::SET_LAST_APPLIED_FLAGS,
        }],
        examples: "  # Apply the configuration in web.yaml\n  kubectl apply -f web.yaml\n\n  # Apply a manifest given inline\n  kubectl apply -f - <<EOF\n  ...\n  EOF\n",
    },
    Command {
        name: "patch",
        short: "Update fields of a resource",
        usage: "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
        flags: mutate::PATCH_FLAGS,
        subcommands: &[],
        examples: "  # Remove every finalizer of a config map (JSON patch)\n  kubectl patch cm cm --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'\n\n  # Change the replicas with a merge patch\n  kubectl patch deploy web --type=merge -p '{\"spec\":{\"replicas\":2}}'\n",
    },
    Command {
        name: "label",
        short: "Update the labels on a resource",
        usage: "label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
        flags: mutate::META_FLAGS,
        subcommands: &[],
        examples: "  # Add a label; 'tier-' removes it\n  kubectl label deploy web tier=frontend\n",
    },
    Command {
        name: "annotate",
        short: "Update the annotations on a resource",
        usage: "annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
        flags: mutate::META_FLAGS,
        subcommands: &[],
        examples: "  # Add an annotation; 'note-' removes it\n  kubectl annotate deploy web note=hello\n",
    },
    Command {
        name: "wait",
        short: "Experimental: Wait for a specific condition on one or many resources",
        usage: "wait ([-f FILENAME] | resource.group/resource.name | resource.group [(-l label | --all)]) [--for=delete|--for condition=available|--for=jsonpath='{}'[=value]]",
        flags: super::wait::FLAGS,
        subcommands: &[],
        examples: "  # Wait for the deployment 'web' to become available (virtual time)\n  kubectl wait --for=condition=Available deploy/web\n\n  # Wait for a pod to be deleted\n  kubectl wait --for=delete pod/busybox1 --timeout=60s\n",
    },
    Command {
        name: "version",
        short: "Print the client and server version information",
        usage: "version",
        flags: &[],
        subcommands: &[],
        examples: "  # Print the client and server versions\n  kubectl version\n",
    },
    Command {
        name: "api-resources",
        short: "Print the supported API resources on the server",
        usage: "api-resources [flags]",
        flags: &[],
        subcommands: &[],
        examples: "  # Print the supported API resources\n  kubectl api-resources\n",
    },
    Command {
        name: "config",
        short: "Modify kubeconfig files",
        usage: "config set-context --current --namespace=NAME",
        flags: &[
            super::flags::flag("current", None, super::flags::FlagKind::Bool, "Modify the current context"),
        ],
        subcommands: &[],
        examples: "  # Make 'demo' the console's namespace\n  kubectl config set-context --current --namespace=demo\n",
    },
];

/// Finds a command by name.
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// The end of `kubectl help` and of usage errors at the root.
pub fn root_usage() -> String {
    "Usage:\n  kubectl [flags] [options]\n\nUse \"kubectl <command> --help\" for more information about a given command.\nUse \"lab help\" for the simulation's own commands.\n".into()
}

/// `kubectl help`.
pub fn root() -> String {
    let group = |title: &str, names: &[&str]| -> String {
        let mut s = format!("{title}:\n");
        for n in names {
            if let Some(c) = find(n) {
                s.push_str(&format!("  {:<15} {}\n", c.name, c.short));
            }
        }
        s.push('\n');
        s
    };
    let mut s = String::from(
        "kubectl controls the Kubernetes cluster manager.\n\n Find more information at: https://kubernetes.io/docs/reference/kubectl/\n\n",
    );
    s.push_str(&group("Basic Commands (Beginner)", &["create", "run", "set"]));
    s.push_str(&group("Basic Commands (Intermediate)", &["get", "edit", "delete"]));
    s.push_str(&group("Deploy Commands", &["rollout", "scale"]));
    s.push_str(&group("Troubleshooting and Debugging Commands", &["describe"]));
    s.push_str(&group("Advanced Commands", &["apply", "patch", "wait"]));
    s.push_str(&group("Settings Commands", &["label", "annotate"]));
    s.push_str(&group("Other Commands", &["api-resources", "config", "version"]));
    s.push_str(&root_usage());
    s
}

fn options(flags: &[FlagSpec]) -> String {
    let mut s = String::from("Options:\n");
    for f in flags.iter().chain(super::console::GLOBAL_FLAGS) {
        let name = match f.short {
            Some(c) => format!("-{c}, --{}", f.long),
            None => format!("    --{}", f.long),
        };
        s.push_str(&format!("    {name}:\n\t{}\n\n", f.help));
    }
    s
}

/// `kubectl <verb> --help`.
pub fn command_help(c: &Command) -> String {
    let mut s = format!("{}.\n\n", c.short);
    if !c.subcommands.is_empty() {
        s.push_str("Available Commands:\n");
        for sub in c.subcommands {
            s.push_str(&format!("  {:<12} {}\n", sub.name, sub.short));
        }
        s.push('\n');
    }
    s.push_str(&format!("Examples:\n{}\n", c.examples));
    if !c.flags.is_empty() || c.subcommands.is_empty() {
        s.push_str(&options(c.flags));
    }
    s.push_str(&format!("Usage:\n  kubectl {} [options]\n", c.usage));
    s
}

/// `kubectl <verb> <sub> --help`.
pub fn subcommand_help(c: &Command, sub: &Sub) -> String {
    format!("{}.\n\n{}Usage:\n  kubectl {} [options]\n", sub.short, options(sub.flags), sub.usage)
        .replace(&format!("kubectl {} {}", c.name, c.name), &format!("kubectl {}", c.name))
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// cobra's unknown-command error, with suggestions.
pub fn unknown_command(verb: &str) -> String {
    let mut s = format!("error: unknown command \"{verb}\" for \"kubectl\"");
    let mut suggestions: Vec<&str> = COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| levenshtein(&verb.to_lowercase(), n) <= 2 || n.starts_with(&verb.to_lowercase()))
        .collect();
    // cobra sorts commands by name.
    crate::sort::sort(&mut suggestions);
    if !suggestions.is_empty() {
        s.push_str("\n\nDid you mean this?\n");
        for n in suggestions {
            s.push_str(&format!("\t{n}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_like_cobra() {
        assert_eq!(
            unknown_command("gett"),
            "error: unknown command \"gett\" for \"kubectl\"\n\nDid you mean this?\n\tget\n\tset\n"
        );
        assert_eq!(unknown_command("frobnicate"), "error: unknown command \"frobnicate\" for \"kubectl\"");
    }

    #[test]
    fn every_command_has_help() {
        for c in COMMANDS {
            assert!(command_help(c).contains(&format!("kubectl {}", c.usage)), "{}", c.name);
        }
        assert!(root().contains("  get             Display one or many resources\n"));
    }
}
