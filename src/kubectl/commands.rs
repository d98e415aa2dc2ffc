//! Every kubectl command the console runs, in one table ([`COMMANDS`]): each verb's name and
//! aliases, its help (summary, usage, examples, where `kubectl help` lists it), its flags, what it
//! runs, and its subcommands. The console dispatches from this table, and `kubectl help`,
//! `kubectl <verb> --help` ([`super::help`]) and tab completion read it: adding a verb is one
//! entry here plus its module.

use super::cluster::Cluster;
use super::cmd::{CmdError, Ctx, EditSession, Output};
use super::continuation::Continuation;
use super::flags::{self, FlagKind, FlagSpec, Parsed};
use super::{describe, events, get, mutate, rollout, wait};

/// What a command runs, given the cluster, the session's context, the parsed flags and
/// arguments, and where it prints; each kind says what it may leave to the console.
#[derive(Clone, Copy)]
pub enum Run {
    /// Prints, and that is all.
    Plain(fn(&mut dyn Cluster, &Ctx<'_>, &Parsed, &mut Output)),
    /// May keep running (a watch, a wait).
    Continues(fn(&mut dyn Cluster, &Ctx<'_>, &Parsed, &mut Output) -> Option<Continuation>),
    /// May open an object in the page's editor.
    Edits(fn(&mut dyn Cluster, &Ctx<'_>, &Parsed, &mut Output) -> Option<EditSession>),
    /// Leaves any [`Effect`].
    Custom(fn(&mut dyn Cluster, &Ctx<'_>, &Parsed, &mut Output) -> Effect),
}

impl Run {
    /// Runs the command; returns what it leaves to the console.
    pub fn call(self, api: &mut dyn Cluster, ctx: &Ctx<'_>, p: &Parsed, out: &mut Output) -> Effect {
        match self {
            Run::Plain(f) => {
                f(api, ctx, p, out);
                Effect::None
            }
            Run::Continues(f) => f(api, ctx, p, out).map_or(Effect::None, Effect::Continue),
            Run::Edits(f) => f(api, ctx, p, out).map_or(Effect::None, Effect::Edit),
            Run::Custom(f) => f(api, ctx, p, out),
        }
    }
}

/// What a command leaves to the console besides what it printed.
pub enum Effect {
    /// Nothing.
    None,
    /// Something kubectl keeps doing (a watch, a wait), resumed as the world advances.
    Continue(Continuation),
    /// An object opened in the page's editor (`kubectl edit`).
    Edit(EditSession),
    /// The session's namespace changes (`kubectl config set-context --current --namespace`).
    SetNamespace(String),
}

/// The groups of `kubectl help`, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Basic Commands (Beginner).
    BasicBeginner,
    /// Basic Commands (Intermediate).
    BasicIntermediate,
    /// Deploy Commands.
    Deploy,
    /// Troubleshooting and Debugging Commands.
    Troubleshooting,
    /// Advanced Commands.
    Advanced,
    /// Settings Commands.
    Settings,
    /// Other Commands.
    Other,
}

impl Group {
    /// Every group, in `kubectl help` order.
    pub const ALL: [Group; 7] = [
        Group::BasicBeginner,
        Group::BasicIntermediate,
        Group::Deploy,
        Group::Troubleshooting,
        Group::Advanced,
        Group::Settings,
        Group::Other,
    ];

    /// The group's heading in `kubectl help`.
    pub fn title(self) -> &'static str {
        match self {
            Group::BasicBeginner => "Basic Commands (Beginner)",
            Group::BasicIntermediate => "Basic Commands (Intermediate)",
            Group::Deploy => "Deploy Commands",
            Group::Troubleshooting => "Troubleshooting and Debugging Commands",
            Group::Advanced => "Advanced Commands",
            Group::Settings => "Settings Commands",
            Group::Other => "Other Commands",
        }
    }
}

/// The flags every kubectl command takes.
pub const GLOBAL_FLAGS: &[FlagSpec] = &[
    flags::flag("namespace", Some('n'), FlagKind::Str, "If present, the namespace scope for this CLI request"),
    flags::flag("help", Some('h'), FlagKind::Bool, "help for this command"),
];

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
    /// Whether its first argument is a resource type (tab completion offers types, then names).
    pub resource_args: bool,
    /// What it runs.
    pub run: Run,
}

/// A top-level kubectl command the console runs.
pub struct Command {
    /// The verb.
    pub name: &'static str,
    /// Other names it answers to.
    pub aliases: &'static [&'static str],
    /// Where `kubectl help` lists it (None: not listed).
    pub group: Option<Group>,
    /// Whether its first argument is a resource type (tab completion offers types, then names).
    pub resource_args: bool,
    /// What it runs without a subcommand (None: it needs one, and prints its help as an error).
    pub run: Option<Run>,
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

/// Every kubectl command of the console. `kubectl help` lists them by [`Group`], in this order.
pub static COMMANDS: &[Command] = &[
    Command {
        name: "create",
        aliases: &[],
        group: Some(Group::BasicBeginner),
        resource_args: false,
        run: Some(Run::Plain(mutate::create)),
        short: "Create a resource from a file or from stdin",
        usage: "create -f FILENAME",
        flags: mutate::CREATE_FLAGS,
        subcommands: &[
            Sub { aliases: &["ns"], name: "namespace", short: "Create a namespace with the specified name", usage: "create namespace NAME", flags: mutate::CREATE_NS_FLAGS, resource_args: false, run: Run::Plain(mutate::create_namespace) },
            Sub { aliases: &["deploy"], name: "deployment", short: "Create a deployment with the specified name", usage: "create deployment NAME --image=image [--replicas=N]", flags: mutate::CREATE_DEPLOY_FLAGS, resource_args: false, run: Run::Plain(mutate::create_deployment) },
            Sub { aliases: &["cm"], name: "configmap", short: "Create a config map from a local file, directory or literal value", usage: "create configmap NAME [--from-literal=key1=value1]", flags: mutate::CREATE_CM_FLAGS, resource_args: false, run: Run::Plain(mutate::create_configmap) },
        ],
        examples: "  # Create a deployment using the data in web.yaml\n  kubectl create -f web.yaml\n\n  # Create a namespace\n  kubectl create namespace demo\n",
    },
    Command {
        name: "run",
        aliases: &[],
        group: Some(Group::BasicBeginner),
        resource_args: false,
        run: Some(Run::Plain(mutate::run_pod)),
        short: "Run a particular image on the cluster",
        usage: "run NAME --image=image [--port=port] [--labels=key=value] [--restart=Always|OnFailure|Never] [--dry-run=client]",
        flags: mutate::RUN_FLAGS,
        subcommands: &[],
        examples: "  # Start a nginx pod\n  kubectl run nginx --image=nginx\n\n  # Print the pod's manifest without creating it\n  kubectl run nginx --image=nginx --dry-run=client -o yaml\n",
    },
    Command {
        name: "get",
        aliases: &[],
        group: Some(Group::BasicIntermediate),
        resource_args: true,
        run: Some(Run::Continues(get::run)),
        short: "Display one or many resources",
        usage: "get [(-o|--output=)json|yaml|name|wide|custom-columns=...|jsonpath=...] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]",
        flags: get::FLAGS,
        subcommands: &[],
        examples: "  # List all pods in ps output format\n  kubectl get pods\n\n  # List deployments with more information\n  kubectl get deploy -o wide\n\n  # Print one field\n  kubectl get deploy web -o jsonpath='{.status.observedGeneration}'\n\n  # Watch a deployment, one line per change\n  kubectl get deploy web --watch --output-watch-events\n",
    },
    Command {
        name: "edit",
        aliases: &[],
        group: Some(Group::BasicIntermediate),
        resource_args: true,
        run: Some(Run::Edits(mutate::edit)),
        short: "Edit a resource on the server",
        usage: "edit (RESOURCE/NAME | -f FILENAME)",
        flags: mutate::EDIT_FLAGS,
        subcommands: &[],
        examples: "  # Open the deployment named 'web' in the editor; saving sends it with the\n  # resourceVersion it was loaded with\n  kubectl edit deploy/web\n",
    },
    Command {
        name: "delete",
        aliases: &[],
        group: Some(Group::BasicIntermediate),
        resource_args: true,
        run: Some(Run::Continues(mutate::delete)),
        short: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
        usage: "delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)])",
        flags: mutate::DELETE_FLAGS,
        subcommands: &[],
        examples: "  # Delete a deployment; its ReplicaSets and pods are deleted in the background\n  kubectl delete deploy web\n\n  # Delete and keep the dependents\n  kubectl delete deploy web --cascade=orphan\n",
    },
    Command {
        name: "rollout",
        aliases: &[],
        group: Some(Group::Deploy),
        resource_args: false,
        run: None,
        short: "Manage the rollout of a resource",
        usage: "rollout SUBCOMMAND",
        flags: &[],
        subcommands: &[
            Sub { aliases: &[], name: "history", short: "View rollout history", usage: "rollout history (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::HISTORY_FLAGS, resource_args: true, run: Run::Plain(rollout::history) },
            Sub { aliases: &[], name: "pause", short: "Mark the provided resource as paused", usage: "rollout pause RESOURCE", flags: rollout::PAUSE_FLAGS, resource_args: true, run: Run::Plain(rollout::pause) },
            Sub { aliases: &[], name: "restart", short: "Restart a resource", usage: "rollout restart RESOURCE", flags: rollout::RESTART_FLAGS, resource_args: true, run: Run::Plain(rollout::restart) },
            Sub { aliases: &[], name: "resume", short: "Resume a paused resource", usage: "rollout resume RESOURCE", flags: rollout::PAUSE_FLAGS, resource_args: true, run: Run::Plain(rollout::resume) },
            Sub { aliases: &[], name: "status", short: "Show the status of the rollout", usage: "rollout status (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::STATUS_FLAGS, resource_args: true, run: Run::Continues(rollout::status) },
            Sub { aliases: &[], name: "undo", short: "Undo a previous rollout", usage: "rollout undo (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::UNDO_FLAGS, resource_args: true, run: Run::Plain(rollout::undo) },
        ],
        examples: "  # Roll back to the previous deployment\n  kubectl rollout undo deployment/web\n\n  # Watch the rollout status of a deployment\n  kubectl rollout status deployment/web\n",
    },
    Command {
        name: "set",
        aliases: &[],
        group: Some(Group::BasicBeginner),
        resource_args: false,
        run: None,
        short: "Set specific features on objects",
        usage: "set SUBCOMMAND",
        flags: &[],
        subcommands: &[Sub {
            aliases: &[],
            name: "image",
            short: "Update the image of a pod template",
            usage: "set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N",
            flags: mutate::SET_IMAGE_FLAGS,
            resource_args: true,
            run: Run::Plain(mutate::set_image),
        }],
        examples: "  # Start a rolling update: set the nginx container's image\n  kubectl set image deployment/web nginx=nginx:1.28\n",
    },
    Command {
        name: "scale",
        aliases: &[],
        group: Some(Group::Deploy),
        resource_args: true,
        run: Some(Run::Plain(mutate::scale)),
        short: "Set a new size for a deployment, replica set, or replication controller",
        usage: "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
        flags: mutate::SCALE_FLAGS,
        subcommands: &[],
        examples: "  # Scale a deployment named 'web' to 5\n  kubectl scale --replicas=5 deployment/web\n",
    },
    Command {
        name: "describe",
        aliases: &[],
        group: Some(Group::Troubleshooting),
        resource_args: true,
        run: Some(Run::Plain(describe::run)),
        short: "Show details of a specific resource or group of resources",
        usage: "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
        flags: describe::FLAGS,
        subcommands: &[],
        examples: "  # Describe a deployment, with its events\n  kubectl describe deploy web\n",
    },
    Command {
        name: "events",
        aliases: &[],
        group: None,
        resource_args: false,
        run: Some(Run::Continues(events::run)),
        short: "List events",
        usage: "events [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file] [--for TYPE/NAME] [--watch] [--event=Normal,Warning]",
        flags: events::FLAGS,
        subcommands: &[],
        examples: "  # List recent events in the default namespace\n  kubectl events\n\n  # List recent events in all namespaces\n  kubectl events --all-namespaces\n\n  # List recent events for the specified pod\n  kubectl events --for pod/web-pod-13je7\n\n  # List recent only events in given event types\n  kubectl events --types=Warning,Normal\n",
    },
    Command {
        name: "apply",
        aliases: &[],
        group: Some(Group::Advanced),
        resource_args: false,
        run: Some(Run::Plain(mutate::apply)),
        short: "Apply a configuration to a resource by file name or stdin",
        usage: "apply (-f FILENAME | -k DIRECTORY)",
        flags: mutate::APPLY_FLAGS,
        subcommands: &[Sub {
            aliases: &[],
            name: "view-last-applied",
            short: "View the latest last-applied-configuration annotations of a resource/object",
            usage: "apply view-last-applied (TYPE [NAME | -l label] | TYPE/NAME | -f FILENAME)",
            flags: mutate::VIEW_LAST_APPLIED_FLAGS,
            resource_args: true,
            run: Run::Plain(mutate::view_last_applied),
        }, Sub {
            aliases: &[],
            name: "set-last-applied",
            short: "Set the last-applied-configuration annotation on a live object to match the contents of a file",
            usage: "apply set-last-applied -f FILENAME",
            flags: mutate::SET_LAST_APPLIED_FLAGS,
            resource_args: false,
            run: Run::Plain(mutate::set_last_applied_cmd),
        }],
        examples: "  # Apply the configuration in web.yaml\n  kubectl apply -f web.yaml\n\n  # Apply a manifest given inline\n  kubectl apply -f - <<EOF\n  ...\n  EOF\n",
    },
    Command {
        name: "patch",
        aliases: &[],
        group: Some(Group::Advanced),
        resource_args: true,
        run: Some(Run::Plain(mutate::patch)),
        short: "Update fields of a resource",
        usage: "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
        flags: mutate::PATCH_FLAGS,
        subcommands: &[],
        examples: "  # Remove every finalizer of a config map (JSON patch)\n  kubectl patch cm cm --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'\n\n  # Change the replicas with a merge patch\n  kubectl patch deploy web --type=merge -p '{\"spec\":{\"replicas\":2}}'\n",
    },
    Command {
        name: "label",
        aliases: &[],
        group: Some(Group::Settings),
        resource_args: true,
        run: Some(Run::Plain(|api, ctx, p, out| mutate::label_or_annotate(api, ctx, p, out, mutate::MetaField::Labels))),
        short: "Update the labels on a resource",
        usage: "label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
        flags: mutate::META_FLAGS,
        subcommands: &[],
        examples: "  # Add a label; 'tier-' removes it\n  kubectl label deploy web tier=frontend\n",
    },
    Command {
        name: "annotate",
        aliases: &[],
        group: Some(Group::Settings),
        resource_args: true,
        run: Some(Run::Plain(|api, ctx, p, out| mutate::label_or_annotate(api, ctx, p, out, mutate::MetaField::Annotations))),
        short: "Update the annotations on a resource",
        usage: "annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
        flags: mutate::META_FLAGS,
        subcommands: &[],
        examples: "  # Add an annotation; 'note-' removes it\n  kubectl annotate deploy web note=hello\n",
    },
    Command {
        name: "wait",
        aliases: &[],
        group: Some(Group::Advanced),
        resource_args: true,
        run: Some(Run::Continues(wait::run)),
        short: "Experimental: Wait for a specific condition on one or many resources",
        usage: "wait ([-f FILENAME] | resource.group/resource.name | resource.group [(-l label | --all)]) [--for=delete|--for condition=available|--for=jsonpath='{}'[=value]]",
        flags: wait::FLAGS,
        subcommands: &[],
        examples: "  # Wait for the deployment 'web' to become available (virtual time)\n  kubectl wait --for=condition=Available deploy/web\n\n  # Wait for a pod to be deleted\n  kubectl wait --for=delete pod/busybox1 --timeout=60s\n",
    },
    Command {
        name: "api-resources",
        aliases: &[],
        group: Some(Group::Other),
        resource_args: false,
        run: Some(Run::Plain(|_, _, p, out| get::api_resources(p, out))),
        short: "Print the supported API resources on the server",
        usage: "api-resources [flags]",
        flags: &[],
        subcommands: &[],
        examples: "  # Print the supported API resources\n  kubectl api-resources\n",
    },
    Command {
        name: "config",
        aliases: &[],
        group: Some(Group::Other),
        resource_args: false,
        run: Some(Run::Custom(|_, _, p, out| config(p, out))),
        short: "Modify kubeconfig files",
        usage: "config set-context --current --namespace=NAME",
        flags: &[
            flags::flag("current", None, flags::FlagKind::Bool, "Modify the current context"),
        ],
        subcommands: &[],
        examples: "  # Make 'demo' the console's namespace\n  kubectl config set-context --current --namespace=demo\n",
    },
    Command {
        name: "version",
        aliases: &[],
        group: Some(Group::Other),
        resource_args: false,
        run: Some(Run::Plain(|_, _, _, out| {
            out.out("Client Version: v1.34.0\nKustomize Version: v5.7.1\nServer Version: v1.34.0\n")
        })),
        short: "Print the client and server version information",
        usage: "version",
        flags: &[],
        subcommands: &[],
        examples: "  # Print the client and server versions\n  kubectl version\n",
    },
];

/// Finds a command by name or alias.
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name || c.aliases.contains(&name))
}

/// `kubectl config set-context --current --namespace=X` and `view --minify` are the two
/// config commands the console understands (they change the session's namespace).
fn config(p: &Parsed, out: &mut Output) -> Effect {
    let mut effect = Effect::None;
    match p.args.first().map(String::as_str) {
        Some("set-context") if p.args.get(1).map(String::as_str) == Some("--current") || p.has("current") => {
            if let Some(ns) = p.str("namespace") {
                effect = Effect::SetNamespace(ns.to_string());
            }
            out.out("Context \"reconcile-lab\" modified.\n");
        }
        _ => out.fail(CmdError::Plain(
            "this console supports only: kubectl config set-context --current --namespace=NAME".into(),
        )),
    }
    effect
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is the only list of verbs: names and aliases are unique, a command without its
    /// own run has subcommands, and `kubectl help` lists every grouped command once.
    #[test]
    fn the_table_is_consistent() {
        let mut names: Vec<&str> = COMMANDS.iter().flat_map(|c| c.aliases.iter().copied().chain([c.name])).collect();
        let n = names.len();
        crate::sort::sort(&mut names);
        names.dedup();
        assert_eq!(names.len(), n, "a name or alias is used twice");
        for c in COMMANDS {
            assert!(c.run.is_some() || !c.subcommands.is_empty(), "{} runs nothing", c.name);
            assert!(find(c.name).is_some_and(|f| std::ptr::eq(f, c)));
            let root = super::super::help::root();
            let listed = root.matches(&format!("\n  {:<15} {}\n", c.name, c.short)).count();
            assert_eq!(listed, usize::from(c.group.is_some()), "{} in kubectl help", c.name);
        }
    }
}
