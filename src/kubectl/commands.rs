//! Every kubectl command the console runs, in one table ([`COMMANDS`]): each verb's name and
//! aliases, its help (summary, usage, examples, where `kubectl help` lists it), its flags, what it
//! runs, and its subcommands. The console dispatches from this table, and `kubectl help`,
//! `kubectl <verb> --help` ([`super::help`]) and tab completion read it: adding a verb is one
//! entry here plus its module.

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, EditSession, Output};
use super::continuation::Continuation;
use super::flags::{self, FlagSpec, Parsed};
use super::mutate::{apply, create, delete, edit, label, patch, run, scale, set_image};
use super::{admin, describe, events, explain, get, rollout, wait};

/// What a command runs, given the cluster, the session's context, the parsed flags and
/// arguments, and where it prints; each kind says what it may leave to the console.
#[derive(Clone, Copy)]
pub enum Run {
    /// Prints, and that is all.
    Plain(fn(&mut dyn Cluster, &CmdCtx<'_>, &Parsed, &mut Output)),
    /// May keep running (a watch, a wait): the verb returns its own state, which the table
    /// wraps (`.map(Continuation::from)`).
    Continues(fn(&mut dyn Cluster, &CmdCtx<'_>, &Parsed, &mut Output) -> Option<Continuation>),
    /// May open an object in the page's editor.
    Edits(fn(&mut dyn Cluster, &CmdCtx<'_>, &Parsed, &mut Output) -> Option<EditSession>),
    /// Leaves any [`Handoff`].
    Custom(fn(&mut dyn Cluster, &CmdCtx<'_>, &Parsed, &mut Output) -> Handoff),
    /// A verb of kubectl the lab does not model: it answers with this text (after `error: `,
    /// exit status 1), whatever its arguments and flags; `--help` still shows its help.
    Unmodeled(&'static str),
}

impl Run {
    /// Runs the command; returns what it leaves to the console.
    pub fn call(self, api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Handoff {
        match self {
            Run::Plain(f) => {
                f(api, ctx, p, out);
                Handoff::None
            }
            Run::Continues(f) => f(api, ctx, p, out).map_or(Handoff::None, Handoff::Continue),
            Run::Edits(f) => f(api, ctx, p, out).map_or(Handoff::None, Handoff::Edit),
            Run::Custom(f) => f(api, ctx, p, out),
            Run::Unmodeled(text) => {
                out.fail(CmdError::Plain(text.to_string()));
                Handoff::None
            }
        }
    }
}

/// What a command hands back to the console besides what it printed.
pub enum Handoff {
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
    /// Cluster Management Commands.
    ClusterManagement,
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
    pub const ALL: [Group; 8] = [
        Group::BasicBeginner,
        Group::BasicIntermediate,
        Group::Deploy,
        Group::ClusterManagement,
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
            Group::ClusterManagement => "Cluster Management Commands",
            Group::Troubleshooting => "Troubleshooting and Debugging Commands",
            Group::Advanced => "Advanced Commands",
            Group::Settings => "Settings Commands",
            Group::Other => "Other Commands",
        }
    }
}

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
        run: Some(Run::Plain(create::create)),
        short: "Create a resource from a file or from stdin",
        usage: "create -f FILENAME",
        flags: create::CREATE_FLAGS,
        subcommands: &[
            Sub { aliases: &["ns"], name: "namespace", short: "Create a namespace with the specified name", usage: "create namespace NAME", flags: create::CREATE_NS_FLAGS, resource_args: false, run: Run::Plain(create::create_namespace) },
            Sub { aliases: &["deploy"], name: "deployment", short: "Create a deployment with the specified name", usage: "create deployment NAME --image=image [--replicas=N]", flags: create::CREATE_DEPLOY_FLAGS, resource_args: false, run: Run::Plain(create::create_deployment) },
            Sub { aliases: &["cm"], name: "configmap", short: "Create a config map from a local file, directory or literal value", usage: "create configmap NAME [--from-literal=key1=value1]", flags: create::CREATE_CM_FLAGS, resource_args: false, run: Run::Plain(create::create_configmap) },
        ],
        examples: "  # Create a deployment using the data in web.yaml\n  kubectl create -f web.yaml\n\n  # Create a namespace\n  kubectl create namespace demo\n",
    },
    unmodeled("expose", Group::BasicBeginner, "Take a replication controller, service, deployment or pod and expose it as a new Kubernetes service", "expose (-f FILENAME | TYPE NAME) [--port=port] [--protocol=TCP|UDP|SCTP] [--target-port=number-or-name] [--name=name] [--external-ip=external-ip-of-service] [--type=type]", admin::EXPOSE),
    Command {
        name: "run",
        aliases: &[],
        group: Some(Group::BasicBeginner),
        resource_args: false,
        run: Some(Run::Plain(run::run_pod)),
        short: "Run a particular image on the cluster",
        usage: "run NAME --image=image [--port=port] [--labels=key=value] [--restart=Always|OnFailure|Never] [--dry-run=client]",
        flags: run::RUN_FLAGS,
        subcommands: &[],
        examples: "  # Start a nginx pod\n  kubectl run nginx --image=nginx\n\n  # Print the pod's manifest without creating it\n  kubectl run nginx --image=nginx --dry-run=client -o yaml\n",
    },
    Command {
        name: "explain",
        aliases: &[],
        group: Some(Group::BasicIntermediate),
        resource_args: true,
        run: Some(Run::Plain(explain::run)),
        short: "Get documentation for a resource",
        usage: "explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [-o|--output=plaintext|plaintext-openapiv2]",
        flags: explain::FLAGS,
        subcommands: &[],
        examples: "  # Get the documentation of the resource and its fields\n  kubectl explain pods\n\n  # Get all the fields in the resource\n  kubectl explain pods --recursive\n\n  # Get the explanation for deployment in supported api versions\n  kubectl explain deployments --api-version=apps/v1\n\n  # Get the documentation of a specific field of a resource\n  kubectl explain pods.spec.containers\n",
    },
    Command {
        name: "get",
        aliases: &[],
        group: Some(Group::BasicIntermediate),
        resource_args: true,
        run: Some(Run::Continues(|api, ctx, p, out| get::run(api, ctx, p, out).map(Continuation::from))),
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
        run: Some(Run::Edits(edit::edit)),
        short: "Edit a resource on the server",
        usage: "edit (RESOURCE/NAME | -f FILENAME)",
        flags: edit::EDIT_FLAGS,
        subcommands: &[],
        examples: "  # Open the deployment named 'web' in the editor; saving sends it with the\n  # resourceVersion it was loaded with\n  kubectl edit deploy/web\n",
    },
    Command {
        name: "delete",
        aliases: &[],
        group: Some(Group::BasicIntermediate),
        resource_args: true,
        run: Some(Run::Continues(|api, ctx, p, out| delete::delete(api, ctx, p, out).map(Continuation::from))),
        short: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
        usage: "delete ([-f FILENAME] | TYPE [(NAME | -l label | --all)])",
        flags: delete::DELETE_FLAGS,
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
            Sub { aliases: &[], name: "status", short: "Show the status of the rollout", usage: "rollout status (TYPE NAME | TYPE/NAME) [flags]", flags: rollout::STATUS_FLAGS, resource_args: true, run: Run::Continues(|api, ctx, p, out| rollout::status(api, ctx, p, out).map(Continuation::from)) },
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
            flags: set_image::SET_IMAGE_FLAGS,
            resource_args: true,
            run: Run::Plain(set_image::set_image),
        }],
        examples: "  # Start a rolling update: set the nginx container's image\n  kubectl set image deployment/web nginx=nginx:1.28\n",
    },
    Command {
        name: "scale",
        aliases: &[],
        group: Some(Group::Deploy),
        resource_args: true,
        run: Some(Run::Plain(scale::scale)),
        short: "Set a new size for a deployment, replica set, or replication controller",
        usage: "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
        flags: scale::SCALE_FLAGS,
        subcommands: &[],
        examples: "  # Scale a deployment named 'web' to 5\n  kubectl scale --replicas=5 deployment/web\n",
    },
    unmodeled("autoscale", Group::Deploy, "Auto-scale a deployment, replica set, stateful set, or replication controller", "autoscale (-f FILENAME | TYPE NAME | TYPE/NAME) [--min=MINPODS] --max=MAXPODS [--cpu=CPU] [--memory=MEMORY]", admin::AUTOSCALE),
    unmodeled("certificate", Group::ClusterManagement, "Modify certificate resources", "certificate SUBCOMMAND", admin::CERTIFICATE),
    Command {
        name: "cluster-info",
        aliases: &[],
        group: Some(Group::ClusterManagement),
        resource_args: false,
        run: Some(Run::Plain(admin::cluster_info)),
        short: "Display cluster information",
        usage: "cluster-info",
        flags: &[],
        subcommands: &[Sub {
            aliases: &[],
            name: "dump",
            short: "Dump relevant information for debugging and diagnosis",
            usage: "cluster-info dump",
            flags: &[],
            resource_args: false,
            run: Run::Unmodeled(admin::CLUSTER_INFO_DUMP),
        }],
        examples: "  # Print the address of the control plane and cluster services\n  kubectl cluster-info\n",
    },
    unmodeled("top", Group::ClusterManagement, "Display resource (CPU/memory) usage", "top", admin::TOP),
    Command {
        name: "cordon",
        aliases: &[],
        group: Some(Group::ClusterManagement),
        resource_args: false,
        run: Some(Run::Plain(admin::cordon)),
        short: "Mark node as unschedulable",
        usage: "cordon NODE",
        flags: admin::CORDON_FLAGS,
        subcommands: &[],
        examples: "  # Mark node \"foo\" as unschedulable\n  kubectl cordon foo\n",
    },
    Command {
        name: "uncordon",
        aliases: &[],
        group: Some(Group::ClusterManagement),
        resource_args: false,
        run: Some(Run::Plain(admin::uncordon)),
        short: "Mark node as schedulable",
        usage: "uncordon NODE",
        flags: admin::CORDON_FLAGS,
        subcommands: &[],
        examples: "  # Mark node \"foo\" as schedulable\n  kubectl uncordon foo\n",
    },
    unmodeled("drain", Group::ClusterManagement, "Drain node in preparation for maintenance", "drain NODE", admin::DRAIN),
    unmodeled("taint", Group::ClusterManagement, "Update the taints on one or more nodes", "taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N", admin::TAINT),
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
    unmodeled("logs", Group::Troubleshooting, "Print the logs for a container in a pod", "logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]", admin::LOGS),
    unmodeled("attach", Group::Troubleshooting, "Attach to a running container", "attach (POD | TYPE/NAME) -c CONTAINER", admin::NO_PROCESSES),
    unmodeled("exec", Group::Troubleshooting, "Execute a command in a container", "exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]", admin::NO_PROCESSES),
    unmodeled("port-forward", Group::Troubleshooting, "Forward one or more local ports to a pod", "port-forward TYPE/NAME [options] [LOCAL_PORT:]REMOTE_PORT [...[LOCAL_PORT_N:]REMOTE_PORT_N]", admin::PORT_FORWARD),
    unmodeled("proxy", Group::Troubleshooting, "Run a proxy to the Kubernetes API server", "proxy [--port=PORT] [--www=static-dir] [--www-prefix=prefix] [--api-prefix=prefix]", admin::PROXY),
    unmodeled("cp", Group::Troubleshooting, "Copy files and directories to and from containers", "cp <file-spec-src> <file-spec-dest>", admin::NO_PROCESSES),
    unmodeled("auth", Group::Troubleshooting, "Inspect authorization", "auth", admin::AUTH),
    unmodeled("debug", Group::Troubleshooting, "Create debugging sessions for troubleshooting workloads and nodes", "debug (POD | TYPE[[.VERSION].GROUP]/NAME) [ -- COMMAND [args...] ]", admin::DEBUG),
    Command {
        name: "events",
        aliases: &[],
        group: Some(Group::Troubleshooting),
        resource_args: false,
        run: Some(Run::Continues(|api, ctx, p, out| events::run(api, ctx, p, out).map(Continuation::from))),
        short: "List events",
        usage: "events [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file] [--for TYPE/NAME] [--watch] [--event=Normal,Warning]",
        flags: events::FLAGS,
        subcommands: &[],
        examples: "  # List recent events in the default namespace\n  kubectl events\n\n  # List recent events in all namespaces\n  kubectl events --all-namespaces\n\n  # List recent events for the specified pod\n  kubectl events --for pod/web-pod-13je7\n\n  # List recent only events in given event types\n  kubectl events --types=Warning,Normal\n",
    },
    unmodeled("diff", Group::Advanced, "Diff the live version against a would-be applied version", "diff -f FILENAME", admin::DIFF),
    Command {
        name: "apply",
        aliases: &[],
        group: Some(Group::Advanced),
        resource_args: false,
        run: Some(Run::Plain(apply::apply)),
        short: "Apply a configuration to a resource by file name or stdin",
        usage: "apply (-f FILENAME | -k DIRECTORY)",
        flags: apply::APPLY_FLAGS,
        subcommands: &[Sub {
            aliases: &[],
            name: "view-last-applied",
            short: "View the latest last-applied-configuration annotations of a resource/object",
            usage: "apply view-last-applied (TYPE [NAME | -l label] | TYPE/NAME | -f FILENAME)",
            flags: apply::VIEW_LAST_APPLIED_FLAGS,
            resource_args: true,
            run: Run::Plain(apply::view_last_applied),
        }, Sub {
            aliases: &[],
            name: "set-last-applied",
            short: "Set the last-applied-configuration annotation on a live object to match the contents of a file",
            usage: "apply set-last-applied -f FILENAME",
            flags: apply::SET_LAST_APPLIED_FLAGS,
            resource_args: false,
            run: Run::Plain(apply::set_last_applied_cmd),
        }],
        examples: "  # Apply the configuration in web.yaml\n  kubectl apply -f web.yaml\n\n  # Apply a manifest given inline\n  kubectl apply -f - <<EOF\n  ...\n  EOF\n",
    },
    Command {
        name: "patch",
        aliases: &[],
        group: Some(Group::Advanced),
        resource_args: true,
        run: Some(Run::Plain(patch::patch)),
        short: "Update fields of a resource",
        usage: "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
        flags: patch::PATCH_FLAGS,
        subcommands: &[],
        examples: "  # Remove every finalizer of a config map (JSON patch)\n  kubectl patch cm cm --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'\n\n  # Change the replicas with a merge patch\n  kubectl patch deploy web --type=merge -p '{\"spec\":{\"replicas\":2}}'\n",
    },
    unmodeled("replace", Group::Advanced, "Replace a resource by file name or stdin", "replace -f FILENAME", admin::REPLACE),
    Command {
        name: "label",
        aliases: &[],
        group: Some(Group::Settings),
        resource_args: true,
        run: Some(Run::Plain(|api, ctx, p, out| label::label_or_annotate(api, ctx, p, out, label::MetaField::Labels))),
        short: "Update the labels on a resource",
        usage: "label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
        flags: label::META_FLAGS,
        subcommands: &[],
        examples: "  # Add a label; 'tier-' removes it\n  kubectl label deploy web tier=frontend\n",
    },
    Command {
        name: "annotate",
        aliases: &[],
        group: Some(Group::Settings),
        resource_args: true,
        run: Some(Run::Plain(|api, ctx, p, out| label::label_or_annotate(api, ctx, p, out, label::MetaField::Annotations))),
        short: "Update the annotations on a resource",
        usage: "annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
        flags: label::META_FLAGS,
        subcommands: &[],
        examples: "  # Add an annotation; 'note-' removes it\n  kubectl annotate deploy web note=hello\n",
    },
    unmodeled("completion", Group::Settings, "Output shell completion code for the specified shell (bash, zsh, fish, or powershell)", "completion SHELL", admin::COMPLETION),
    Command {
        name: "wait",
        aliases: &[],
        group: Some(Group::Advanced),
        resource_args: true,
        run: Some(Run::Continues(|api, ctx, p, out| wait::run(api, ctx, p, out).map(Continuation::from))),
        short: "Experimental: Wait for a specific condition on one or many resources",
        usage: "wait ([-f FILENAME] | resource.group/resource.name | resource.group [(-l label | --all)]) [--for=delete|--for condition=available|--for=jsonpath='{}'[=value]]",
        flags: wait::FLAGS,
        subcommands: &[],
        examples: "  # Wait for the deployment 'web' to become available (virtual time)\n  kubectl wait --for=condition=Available deploy/web\n\n  # Wait for a pod to be deleted\n  kubectl wait --for=delete pod/busybox1 --timeout=60s\n",
    },
    unmodeled("kustomize", Group::Advanced, "Build a kustomization target from a directory or URL", "kustomize DIR", admin::KUSTOMIZE),
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
        name: "api-versions",
        aliases: &[],
        group: Some(Group::Other),
        resource_args: false,
        run: Some(Run::Plain(admin::api_versions)),
        short: "Print the supported API versions on the server, in the form of \"group/version\"",
        usage: "api-versions",
        flags: &[],
        subcommands: &[],
        examples: "  # Print the supported API versions\n  kubectl api-versions\n",
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
        name: "options",
        aliases: &[],
        // kubectl's help leaves it out of the groups (ActsAsRootCommand's filters).
        group: None,
        resource_args: false,
        run: Some(Run::Plain(|_, _, _, out| out.out(flags::global_options()))),
        short: "Print the list of flags inherited by all commands",
        usage: "options",
        flags: &[],
        subcommands: &[],
        examples: "  # Print flags inherited by all commands\n  kubectl options\n",
    },
    unmodeled("plugin", Group::Other, "Provides utilities for interacting with plugins", "plugin [flags]", admin::PLUGIN),
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

/// A kubectl verb the lab answers in words (see [`Run::Unmodeled`] and [`admin`]).
const fn unmodeled(
    name: &'static str,
    group: Group,
    short: &'static str,
    usage: &'static str,
    text: &'static str,
) -> Command {
    Command {
        name,
        aliases: &[],
        group: Some(group),
        resource_args: false,
        run: Some(Run::Unmodeled(text)),
        short,
        usage,
        flags: &[],
        subcommands: &[],
        examples: "",
    }
}

/// Finds a command by name or alias.
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name || c.aliases.contains(&name))
}

/// `kubectl config set-context --current --namespace=X` and `view --minify` are the two
/// config commands the console understands (they change the session's namespace).
fn config(p: &Parsed, out: &mut Output) -> Handoff {
    let mut handoff = Handoff::None;
    match p.args.first().map(String::as_str) {
        Some("set-context") if p.args.get(1).map(String::as_str) == Some("--current") || p.has("current") => {
            if let Some(ns) = p.str("namespace") {
                handoff = Handoff::SetNamespace(ns.to_string());
            }
            out.out("Context \"reconcile-lab\" modified.\n");
        }
        _ => out.fail(CmdError::Plain(
            "this console supports only: kubectl config set-context --current --namespace=NAME".into(),
        )),
    }
    handoff
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is the only list of verbs: names and aliases are unique, and a command without
    /// its own run has subcommands.
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
        }
    }

    /// Every verb of kubectl 1.34's `kubectl help` is in the table: run for real, or answered in
    /// words. None of them gets "unknown command".
    #[test]
    fn every_real_verb_is_known() {
        let verbs = [
            "create",
            "expose",
            "run",
            "set",
            "explain",
            "get",
            "edit",
            "delete",
            "rollout",
            "scale",
            "autoscale",
            "certificate",
            "cluster-info",
            "top",
            "cordon",
            "uncordon",
            "drain",
            "taint",
            "describe",
            "logs",
            "attach",
            "exec",
            "port-forward",
            "proxy",
            "cp",
            "auth",
            "debug",
            "events",
            "diff",
            "apply",
            "patch",
            "replace",
            "wait",
            "kustomize",
            "label",
            "annotate",
            "completion",
            "api-resources",
            "api-versions",
            "config",
            "plugin",
            "version",
            // Not listed by `kubectl help`, but a command of kubectl all the same.
            "options",
        ];
        for v in verbs {
            let c = find(v).unwrap_or_else(|| panic!("{v} is not in the table"));
            if let Some(Run::Unmodeled(text)) = c.run {
                assert!(text.len() > 40, "{v}");
            }
        }
    }
}
