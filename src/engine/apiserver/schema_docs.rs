//! The descriptions the API server publishes with its schema ([`super::schema`]), as a real one
//! publishes them in its OpenAPI document, for `kubectl explain`: one entry per Go type of the
//! schema (keyed by its `go_name`), with each field's description, whether the OpenAPI schema
//! marks it required (a Go field without `omitempty` or `+optional`), its enum values (Go types
//! marked `+enum`, values sorted as the OpenAPI generator sorts them), and the type name explain
//! shows for a field the schema keeps opaque ([`super::schema::Ty::Any`]).
//!
//! The texts are written for the lab, short and in its own words; they are not copied from
//! Kubernetes' API documentation. Required marks and enums follow `k8s.io/api` v0.34.0
//! (`core/v1/types.go`, `apps/v1/types.go`, `coordination/v1/types.go`) and
//! `k8s.io/apimachinery` (`meta/v1/types.go`).

/// A Go type's description and its fields'.
#[derive(Debug)]
pub struct TypeDoc {
    /// The Go type (the schema's `go_name`).
    pub go_name: &'static str,
    /// What the type is.
    pub text: &'static str,
    /// Its fields.
    pub fields: &'static [FieldDoc],
}

/// One field's description.
#[derive(Debug)]
pub struct FieldDoc {
    /// The JSON name.
    pub name: &'static str,
    /// What the field means.
    pub text: &'static str,
    /// Whether OpenAPI lists it as required.
    pub required: bool,
    /// Its enum values, if its Go type is an enum.
    pub enums: &'static [&'static str],
    /// The type explain shows when the schema keeps the field opaque.
    pub ty: Option<&'static str>,
}

const fn f(name: &'static str, text: &'static str) -> FieldDoc {
    FieldDoc { name, text, required: false, enums: &[], ty: None }
}

const fn req(name: &'static str, text: &'static str) -> FieldDoc {
    FieldDoc { name, text, required: true, enums: &[], ty: None }
}

const fn en(name: &'static str, enums: &'static [&'static str], text: &'static str) -> FieldDoc {
    FieldDoc { name, text, required: false, enums, ty: None }
}

/// A field the schema keeps opaque, with the type name the real OpenAPI gives it.
const fn ty(name: &'static str, ty: &'static str, text: &'static str) -> FieldDoc {
    FieldDoc { name, text, required: false, enums: &[], ty: Some(ty) }
}

/// The sentence added to opaque fields: their inner fields are not modeled.
const NOT_LISTED: &str = " The lab keeps this field as written and does not list its fields.";

const API_VERSION: FieldDoc = f(
    "apiVersion",
    "The version of the schema the object is written in, as group/version (plain v1 for the core group). The server converts versions it knows and rejects others.",
);
const KIND: FieldDoc = f(
    "kind",
    "The type of the object, in CamelCase (Pod, Deployment). The server can infer it from the URL the request is sent to; it cannot be changed.",
);
const METADATA: FieldDoc = f(
    "metadata",
    "Standard object metadata: the name, namespace, labels and annotations, owners and finalizers, and what the server records (uid, resourceVersion, generation, timestamps).",
);

const TAINT_EFFECTS: &[&str] = &["NoExecute", "NoSchedule", "PreferNoSchedule"];

/// Every type of the schema, described.
pub static DOCS: &[TypeDoc] = &[
    // ---- meta/v1 ----
    TypeDoc {
        go_name: "OwnerReference",
        text: "OwnerReference names an object that owns this one, in the same namespace (or cluster-scoped). The garbage collector deletes an object once all its owners are gone.",
        fields: &[
            req("apiVersion", "The owner's API version."),
            req("kind", "The owner's kind."),
            req("name", "The owner's name."),
            req("uid", "The owner's uid: an owner deleted and recreated under the same name is a different owner."),
            f("controller", "Whether this owner is the managing controller. At most one owner reference is the controller; controllers adopt and release objects through it."),
            f("blockOwnerDeletion", "When true, and the owner is deleted with foreground cascading, the owner is not removed until this object is gone."),
        ],
    },
    TypeDoc {
        go_name: "ObjectMeta",
        text: "ObjectMeta is the metadata every persisted object has.",
        fields: &[
            f("name", "The object's name, unique within its namespace for its kind. It cannot be changed. Required when creating, unless generateName is set."),
            f("generateName", "A prefix from which the server makes a unique name when name is empty (a ReplicaSet's pods get theirs this way)."),
            f("namespace", "The namespace the object lives in. Empty for cluster-scoped kinds; defaults to the request's namespace for namespaced ones. It cannot be changed."),
            f("selfLink", "Deprecated and no longer set by the server."),
            f("uid", "A unique identity the server assigns at creation. An object recreated under the same name gets a new uid. Read-only."),
            f("resourceVersion", "An opaque version the server changes on every write. Clients send it back to detect conflicting writes (a mismatch is a 409 Conflict) and watch from it. Read-only."),
            f("generation", "A number the server increases when the desired state (usually spec) changes. Controllers report the generation they acted on in status.observedGeneration. Read-only."),
            f("creationTimestamp", "When the server created the object (RFC 3339, UTC). Read-only."),
            f("deletionTimestamp", "When the object was asked to be deleted. Set by the server on a graceful delete or while finalizers remain; the object stays readable until its finalizers are removed and its grace period is over. Read-only."),
            f("deletionGracePeriodSeconds", "The seconds the object is allowed to terminate gracefully, set with deletionTimestamp. Read-only."),
            f("labels", "Key/value pairs that identify the object. Label selectors (kubectl get -l, a Deployment's selector) match on them."),
            f("annotations", "Key/value pairs for tools and people: not used to select objects (kubectl apply keeps its last-applied configuration in one)."),
            f("ownerReferences", "The objects this one depends on. When every owner is gone, the garbage collector deletes this object (unless it was orphaned)."),
            f("finalizers", "Keys that must be removed before the object is deleted from storage. While any remain, a delete only sets deletionTimestamp; the controllers that own them clean up and then remove them."),
            ty("managedFields", "[]ManagedFieldsEntry", "Which manager last set which fields (server-side apply's bookkeeping). The lab does not track field managers."),
        ],
    },
    TypeDoc {
        go_name: "LabelSelectorRequirement",
        text: "A label selector requirement: a key, an operator and values.",
        fields: &[
            req("key", "The label key the requirement applies to."),
            req("operator", "How the key relates to the values: In, NotIn, Exists or DoesNotExist."),
            f("values", "The values. Required (non-empty) for In and NotIn, empty for Exists and DoesNotExist."),
        ],
    },
    TypeDoc {
        go_name: "LabelSelector",
        text: "A label selector: the requirements are ANDed. An empty selector matches every object; a missing one matches none.",
        fields: &[
            f("matchLabels", "Labels that must all be present with these values (each is the same as an In requirement with one value)."),
            f("matchExpressions", "Requirements that must all hold."),
        ],
    },
    TypeDoc {
        go_name: "Condition",
        text: "Condition is one aspect of an object's current state, in the form custom resources use.",
        fields: &[
            req("type", "The condition's type, in CamelCase (Ready, Available)."),
            req("status", "True, False or Unknown."),
            f("observedGeneration", "The metadata.generation the condition was set from."),
            req("lastTransitionTime", "When the status last changed."),
            req("reason", "A CamelCase reason for the last transition, for programs."),
            req("message", "A human-readable message about the transition. May be empty."),
        ],
    },
    // ---- core/v1: pods ----
    TypeDoc {
        go_name: "ContainerPort",
        text: "ContainerPort is a network port of one container.",
        fields: &[
            f("name", "A name for the port, unique in the pod (an IANA service name), which other objects can refer to."),
            f("hostPort", "The port to expose on the node's address. Most pods do not need it."),
            req("containerPort", "The port number on the pod's IP address (1 to 65535)."),
            en("protocol", &["SCTP", "TCP", "UDP"], "The protocol: UDP, TCP or SCTP. Defaults to TCP."),
            f("hostIP", "The node address to bind hostPort to."),
        ],
    },
    TypeDoc {
        go_name: "ObjectFieldSelector",
        text: "ObjectFieldSelector selects a field of the pod, for an environment variable or a downward API file.",
        fields: &[
            f("apiVersion", "The version of the schema the field path is in. Defaults to v1."),
            req("fieldPath", "The field to read (metadata.name, metadata.namespace, spec.nodeName, status.podIP ...)."),
        ],
    },
    TypeDoc {
        go_name: "ResourceFieldSelector",
        text: "ResourceFieldSelector selects a container's resource request or limit.",
        fields: &[
            f("containerName", "The container, required for volumes; optional for environment variables (the container itself)."),
            req("resource", "The resource to read: limits.cpu, limits.memory, requests.cpu, requests.memory ..."),
            f("divisor", "The unit the value is given in. Defaults to 1."),
        ],
    },
    TypeDoc {
        go_name: "ConfigMapKeySelector",
        text: "A key of a ConfigMap in the pod's namespace.",
        fields: &[
            f("name", "The ConfigMap's name."),
            req("key", "The key to read."),
            f("optional", "Whether the ConfigMap or its key may be missing."),
        ],
    },
    TypeDoc {
        go_name: "EnvVarSource",
        text: "EnvVarSource is where an environment variable's value comes from.",
        fields: &[
            f("fieldRef", "A field of the pod."),
            f("resourceFieldRef", "A resource request or limit of the container."),
            f("configMapKeyRef", "A key of a ConfigMap."),
            ty("secretKeyRef", "SecretKeySelector", "A key of a Secret in the pod's namespace (its name, key and optional, as for configMapKeyRef). The lab does not serve Secrets."),
            ty("fileKeyRef", "FileKeySelector", "A key of an env file in a volume (alpha)."),
        ],
    },
    TypeDoc {
        go_name: "EnvVar",
        text: "EnvVar is one environment variable of a container.",
        fields: &[
            req("name", "The variable's name."),
            f("value", "The value. $(VAR) refers to variables defined before it; $$(VAR) escapes that. Defaults to empty."),
            f("valueFrom", "Where the value comes from, instead of value."),
        ],
    },
    TypeDoc {
        go_name: "ConfigMapEnvSource",
        text: "A ConfigMap whose keys become environment variables.",
        fields: &[f("name", "The ConfigMap's name."), f("optional", "Whether the ConfigMap may be missing.")],
    },
    TypeDoc {
        go_name: "EnvFromSource",
        text: "EnvFromSource is a set of environment variables taken from a ConfigMap or a Secret.",
        fields: &[
            f("prefix", "A prefix added to each key to make the variable's name."),
            f("configMapRef", "The ConfigMap to read."),
            ty("secretRef", "SecretEnvSource", "The Secret to read (its name and optional, as for configMapRef). The lab does not serve Secrets."),
        ],
    },
    TypeDoc {
        go_name: "Capabilities",
        text: "Linux capabilities to add to or drop from a container.",
        fields: &[f("add", "Capabilities to add."), f("drop", "Capabilities to drop.")],
    },
    TypeDoc {
        go_name: "SecurityContext",
        text: "SecurityContext holds the security settings of one container; they override the pod's for this container.",
        fields: &[
            f("capabilities", "The capabilities to add or drop."),
            f("privileged", "Whether the container runs privileged (like root on the node). Defaults to false."),
            ty("seLinuxOptions", "SELinuxOptions", "The SELinux context for the container."),
            ty("windowsOptions", "WindowsSecurityContextOptions", "Settings for Windows containers."),
            f("runAsUser", "The user ID the container's process runs as."),
            f("runAsGroup", "The group ID the container's process runs as."),
            f("runAsNonRoot", "When true, the kubelet refuses to start the container as user 0."),
            f("readOnlyRootFilesystem", "Whether the container's root filesystem is read-only. Defaults to false."),
            f("allowPrivilegeEscalation", "Whether a process may gain more privileges than its parent."),
            en("procMount", &["Default", "Unmasked"], "How /proc is mounted: Default (masked paths) or Unmasked."),
            ty("seccompProfile", "SeccompProfile", "The seccomp profile of the container."),
            ty("appArmorProfile", "AppArmorProfile", "The AppArmor profile of the container."),
        ],
    },
    TypeDoc {
        go_name: "PodSecurityContext",
        text: "PodSecurityContext holds security settings for every container of the pod (a container's own securityContext overrides them).",
        fields: &[
            ty("seLinuxOptions", "SELinuxOptions", "The SELinux context for every container."),
            ty("windowsOptions", "WindowsSecurityContextOptions", "Settings for Windows containers."),
            f("runAsUser", "The user ID the containers' processes run as."),
            f("runAsGroup", "The group ID the containers' processes run as."),
            f("runAsNonRoot", "When true, the kubelet refuses to start a container as user 0."),
            ty("supplementalGroups", "[]integer", "Extra group IDs for the first process of each container."),
            en("supplementalGroupsPolicy", &["Merge", "Strict"], "How supplementary groups are computed: Merge (with the image's /etc/group) or Strict."),
            f("fsGroup", "A group ID that owns the pod's volumes and is added to every container's processes."),
            ty("sysctls", "[]Sysctl", "Namespaced kernel parameters set for the pod."),
            en("fsGroupChangePolicy", &["Always", "OnRootMismatch"], "When volume ownership is changed to fsGroup: Always, or OnRootMismatch."),
            ty("seccompProfile", "SeccompProfile", "The seccomp profile for every container."),
            ty("appArmorProfile", "AppArmorProfile", "The AppArmor profile for every container."),
            f("seLinuxChangePolicy", "How the SELinux label is applied to volumes: Recursive or MountOption."),
        ],
    },
    TypeDoc {
        go_name: "KeyToPath",
        text: "KeyToPath maps a key to a file path in a volume.",
        fields: &[
            req("key", "The key to project."),
            req("path", "The relative path of the file (no .. element, not absolute)."),
            f("mode", "The file's permission bits (0 to 0777). Defaults to the volume's defaultMode."),
        ],
    },
    TypeDoc {
        go_name: "HostPathVolumeSource",
        text: "A file or directory of the node, mounted into the pod.",
        fields: &[
            req("path", "The path on the node."),
            en(
                "type",
                &["", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"],
                "What must be at the path. Empty (the default) checks nothing.",
            ),
        ],
    },
    TypeDoc {
        go_name: "EmptyDirVolumeSource",
        text: "An empty directory that lives as long as the pod.",
        fields: &[
            f("medium", "Where it is stored: empty for the node's disk, Memory for a tmpfs."),
            f("sizeLimit", "The most the volume may hold."),
        ],
    },
    TypeDoc {
        go_name: "SecretVolumeSource",
        text: "A Secret's keys as files.",
        fields: &[
            f("secretName", "The Secret's name, in the pod's namespace."),
            f("items", "Which keys to project, and to which paths. Without it, every key becomes a file named after it."),
            f("defaultMode", "The files' permission bits (0 to 0777). Defaults to 0644."),
            f("optional", "Whether the Secret or its keys may be missing."),
        ],
    },
    TypeDoc {
        go_name: "PersistentVolumeClaimVolumeSource",
        text: "A PersistentVolumeClaim in the pod's namespace, mounted as a volume.",
        fields: &[
            req("claimName", "The claim's name."),
            f("readOnly", "Whether to mount it read-only. Defaults to false."),
        ],
    },
    TypeDoc {
        go_name: "DownwardAPIVolumeSource",
        text: "Fields of the pod written as files.",
        fields: &[
            ty("items", "[]DownwardAPIVolumeFile", "The files and the fields they hold."),
            f("defaultMode", "The files' permission bits (0 to 0777). Defaults to 0644."),
        ],
    },
    TypeDoc {
        go_name: "ConfigMapVolumeSource",
        text: "A ConfigMap's keys as files.",
        fields: &[
            f("name", "The ConfigMap's name."),
            f("items", "Which keys to project, and to which paths. Without it, every key becomes a file named after it."),
            f("defaultMode", "The files' permission bits (0 to 0777). Defaults to 0644."),
            f("optional", "Whether the ConfigMap or its keys may be missing."),
        ],
    },
    TypeDoc {
        go_name: "ResourceRequirements",
        text: "The compute resources a container asks for (requests) and may not exceed (limits).",
        fields: &[
            f("limits", "The most of each resource the container may use."),
            f("requests", "What the container needs, used by the scheduler to pick a node. Defaults to the limits when only they are set."),
            ty("claims", "[]ResourceClaim", "Dynamically allocated resources the container uses (DRA)."),
        ],
    },
    TypeDoc {
        go_name: "VolumeMount",
        text: "VolumeMount mounts a volume of the pod into a container.",
        fields: &[
            req("name", "The volume, by its name in the pod's volumes."),
            f("readOnly", "Whether the mount is read-only. Defaults to false."),
            f("recursiveReadOnly", "Whether a read-only mount is read-only recursively: Disabled, IfPossible or Enabled."),
            req("mountPath", "Where the volume appears in the container. It must not contain ':'."),
            f("subPath", "A path inside the volume to mount instead of its root."),
            en("mountPropagation", &["Bidirectional", "HostToContainer", "None"], "How mounts propagate between the node and the container. Defaults to None."),
            f("subPathExpr", "Like subPath, with $(VAR) expanded from the container's environment."),
        ],
    },
    TypeDoc {
        go_name: "ExecAction",
        text: "A command run in the container.",
        fields: &[f("command", "The command and its arguments, run directly (not in a shell). Exit status 0 is success.")],
    },
    TypeDoc {
        go_name: "HTTPGetAction",
        text: "An HTTP GET request.",
        fields: &[
            f("path", "The path to request."),
            req("port", "The port, by number or by the name of a container port."),
            f("host", "The host to connect to. Defaults to the pod's IP."),
            en("scheme", &["HTTP", "HTTPS"], "HTTP or HTTPS. Defaults to HTTP."),
            ty("httpHeaders", "[]HTTPHeader", "Extra request headers."),
        ],
    },
    TypeDoc {
        go_name: "TCPSocketAction",
        text: "A TCP connection attempt.",
        fields: &[
            req("port", "The port, by number or by the name of a container port."),
            f("host", "The host to connect to. Defaults to the pod's IP."),
        ],
    },
    TypeDoc {
        go_name: "Probe",
        text: "Probe is a check the kubelet runs on a container to learn whether it is alive, ready or started.",
        fields: &[
            f("exec", "Run a command in the container."),
            f("httpGet", "Send an HTTP GET request."),
            f("tcpSocket", "Open a TCP connection."),
            ty("grpc", "GRPCAction", "Call the gRPC health-checking service."),
            f("initialDelaySeconds", "Seconds after the container starts before the first probe."),
            f("timeoutSeconds", "Seconds after which a probe times out. Defaults to 1."),
            f("periodSeconds", "How often to probe, in seconds. Defaults to 10."),
            f("successThreshold", "Consecutive successes after a failure for the probe to succeed. Defaults to 1 (and must be 1 for liveness and startup probes)."),
            f("failureThreshold", "Consecutive failures for the probe to fail. Defaults to 3."),
            f("terminationGracePeriodSeconds", "The grace period used when a failed liveness or startup probe kills the container, instead of the pod's."),
        ],
    },
    TypeDoc {
        go_name: "Container",
        text: "A single application container to run in a pod.",
        fields: &[
            req("name", "The container's name, unique in the pod (a DNS label). It cannot be changed."),
            f("image", "The container image to run."),
            f("command", "The entrypoint, run without a shell; replaces the image's ENTRYPOINT. $(VAR) refers to the container's environment. It cannot be changed."),
            f("args", "The arguments of the entrypoint; replace the image's CMD. $(VAR) refers to the container's environment. It cannot be changed."),
            f("workingDir", "The working directory. Defaults to the image's."),
            f("ports", "The ports the container listens on. Informational: a port not listed is reachable too."),
            f("envFrom", "ConfigMaps and Secrets whose keys become environment variables (env wins on a duplicate key)."),
            f("env", "The environment variables."),
            f("resources", "The compute resources the container requests and is limited to."),
            ty("resizePolicy", "[]ContainerResizePolicy", "Whether changing a resource in place restarts the container."),
            f("restartPolicy", "For init containers: Always makes it a sidecar that runs alongside the pod's containers."),
            f("volumeMounts", "The pod's volumes to mount into the container."),
            ty("volumeDevices", "[]VolumeDevice", "Block devices the container uses."),
            f("livenessProbe", "A check that restarts the container when it fails."),
            f("readinessProbe", "A check that takes the pod out of service while it fails."),
            f("startupProbe", "A check that holds the other probes until the container has started."),
            ty("lifecycle", "Lifecycle", "Actions to run after the container starts and before it stops."),
            f("terminationMessagePath", "The file whose content becomes the container's termination message. Defaults to /dev/termination-log."),
            en("terminationMessagePolicy", &["FallbackToLogsOnError", "File"], "Where the termination message comes from: File (the default), or FallbackToLogsOnError."),
            en("imagePullPolicy", &["Always", "IfNotPresent", "Never"], "When to pull the image: Always, Never or IfNotPresent. Defaults to Always for a :latest or untagged image, else IfNotPresent."),
            f("securityContext", "The container's security settings."),
            f("stdin", "Whether the container keeps a standard input open. Defaults to false."),
            f("stdinOnce", "Whether standard input is closed after the first attach."),
            f("tty", "Whether the container gets a terminal (with stdin). Defaults to false."),
        ],
    },
    TypeDoc {
        go_name: "Toleration",
        text: "A toleration lets a pod be scheduled on (or stay on) a node whose taint it matches.",
        fields: &[
            f("key", "The taint key it matches; empty matches every key (with operator Exists)."),
            en("operator", &["Equal", "Exists"], "Equal (the default) compares the value; Exists matches any value."),
            f("value", "The taint value to match with Equal."),
            en("effect", TAINT_EFFECTS, "The taint effect to match; empty matches every effect."),
            f("tolerationSeconds", "For NoExecute: how long the pod stays bound after the taint appears. Unset means for ever."),
        ],
    },
    TypeDoc {
        go_name: "Volume",
        text: "Volume is a named volume of the pod that its containers can mount. Exactly one source is set.",
        fields: &[
            req("name", "The volume's name, unique in the pod (a DNS label)."),
            f("hostPath", "A file or directory of the node."),
            f("emptyDir", "A directory that starts empty and lives as long as the pod."),
            f("secret", "A Secret's keys as files."),
            f("persistentVolumeClaim", "A PersistentVolumeClaim in the pod's namespace."),
            f("downwardAPI", "Fields of the pod as files."),
            f("configMap", "A ConfigMap's keys as files."),
            ty("projected", "ProjectedVolumeSource", "Several sources (Secrets, ConfigMaps, the downward API, a service account token) in one directory."),
            ty("csi", "CSIVolumeSource", "An inline volume of a CSI driver."),
            ty("ephemeral", "EphemeralVolumeSource", "A volume provisioned for the pod and deleted with it."),
            ty("image", "ImageVolumeSource", "The content of an OCI image or artifact, read-only."),
        ],
    },
    TypeDoc {
        go_name: "PodSpec",
        text: "PodSpec is the desired state of a pod: its containers, volumes and scheduling constraints.",
        fields: &[
            f("volumes", "Volumes the pod's containers can mount."),
            f("initContainers", "Containers that run one after the other, each to completion, before the pod's containers start (or alongside them, as sidecars, with restartPolicy Always)."),
            req("containers", "The containers of the pod; at least one. Containers cannot be added or removed."),
            en("restartPolicy", &["Always", "Never", "OnFailure"], "When the kubelet restarts a container that exits: Always (the default), OnFailure or Never."),
            f("terminationGracePeriodSeconds", "Seconds a pod gets to stop after being asked to: the kubelet sends SIGTERM, then SIGKILL when the time is up. Defaults to 30."),
            f("activeDeadlineSeconds", "Seconds the pod may be active before the kubelet fails it."),
            en("dnsPolicy", &["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"], "How the pod's DNS is set up. Defaults to ClusterFirst."),
            f("nodeSelector", "Labels a node must have for the pod to be scheduled there."),
            f("serviceAccountName", "The ServiceAccount the pod runs as. Defaults to default."),
            f("serviceAccount", "Deprecated alias of serviceAccountName."),
            f("automountServiceAccountToken", "Whether a service account token is mounted."),
            f("nodeName", "The node the pod runs on. The scheduler sets it by binding the pod; a pod created with it set skips the scheduler."),
            f("hostNetwork", "Whether the pod uses the node's network namespace. Defaults to false."),
            f("hostPID", "Whether the pod uses the node's process namespace. Defaults to false."),
            f("hostIPC", "Whether the pod uses the node's IPC namespace. Defaults to false."),
            f("shareProcessNamespace", "Whether the pod's containers share one process namespace. Defaults to false."),
            f("securityContext", "Security settings for every container of the pod."),
            ty("imagePullSecrets", "[]LocalObjectReference", "Secrets holding credentials to pull the images."),
            f("hostname", "The pod's hostname. Defaults to a value derived from its name."),
            f("subdomain", "A subdomain for the pod's fully qualified name."),
            ty("affinity", "Affinity", "Node affinity and pod (anti-)affinity rules for scheduling."),
            f("schedulerName", "The scheduler that places the pod. Defaults to default-scheduler."),
            f("tolerations", "The taints the pod tolerates."),
            ty("hostAliases", "[]HostAlias", "Extra entries for the pod's /etc/hosts."),
            f("priorityClassName", "The PriorityClass that gives the pod its priority."),
            f("priority", "The pod's priority, set by admission from priorityClassName. Higher wins when the scheduler must preempt."),
            ty("dnsConfig", "PodDNSConfig", "DNS settings added to those of dnsPolicy."),
            ty("readinessGates", "[]PodReadinessGate", "Extra conditions that must be True for the pod to be ready."),
            f("runtimeClassName", "The RuntimeClass to run the pod with."),
            f("enableServiceLinks", "Whether Services are injected into the environment as variables. Defaults to true."),
            en("preemptionPolicy", &["Never", "PreemptLowerPriority"], "Whether the pod may preempt lower-priority pods: PreemptLowerPriority (the default) or Never."),
            f("overhead", "Resources the runtime uses for the pod, on top of its containers'."),
            ty("topologySpreadConstraints", "[]TopologySpreadConstraint", "How the pods of a set spread across zones, nodes and other topology domains."),
        ],
    },
    TypeDoc {
        go_name: "PodCondition",
        text: "PodCondition is one aspect of a pod's state.",
        fields: &[
            req("type", "The condition: PodScheduled, Initialized, ContainersReady, Ready, PodReadyToStartContainers ..."),
            f("observedGeneration", "The pod's metadata.generation the condition was set from."),
            req("status", "True, False or Unknown."),
            ty("lastProbeTime", "string", "When the condition was last probed."),
            f("lastTransitionTime", "When the status last changed."),
            f("reason", "A CamelCase reason for the last transition."),
            f("message", "A human-readable message about the last transition."),
        ],
    },
    TypeDoc {
        go_name: "PodStatus",
        text: "PodStatus is the most recently observed state of a pod, written by the scheduler and the kubelet.",
        fields: &[
            f("observedGeneration", "The pod's metadata.generation the kubelet last acted on."),
            en("phase", &["Failed", "Pending", "Running", "Succeeded", "Unknown"], "A summary of where the pod is in its life: Pending (accepted, not all containers started), Running, Succeeded, Failed or Unknown."),
            f("conditions", "The pod's conditions (PodScheduled, Ready ...)."),
            f("message", "A human-readable message about why the pod is in this state."),
            f("reason", "A CamelCase reason for the pod's state (Evicted ...)."),
            f("nominatedNodeName", "The node the scheduler preempted pods on to make room for this one."),
            f("hostIP", "The IP address of the node the pod runs on."),
            ty("hostIPs", "[]HostIP", "The IP addresses of the node (one per family)."),
            f("podIP", "The pod's IP address."),
            ty("podIPs", "[]PodIP", "The pod's IP addresses (one per family)."),
            f("startTime", "When the kubelet accepted the pod, before pulling images."),
            ty("initContainerStatuses", "[]ContainerStatus", "The state of each init container."),
            ty("containerStatuses", "[]ContainerStatus", "The state of each container: waiting, running or terminated, ready, restart count, image."),
            en("qosClass", &["BestEffort", "Burstable", "Guaranteed"], "The quality of service class, from the containers' requests and limits."),
            ty("ephemeralContainerStatuses", "[]ContainerStatus", "The state of each ephemeral container."),
        ],
    },
    TypeDoc {
        go_name: "PodTemplateSpec",
        text: "PodTemplateSpec describes the pods a controller creates.",
        fields: &[
            f("metadata", "The metadata given to each pod: its labels must match the controller's selector."),
            f("spec", "The pods' desired state."),
        ],
    },
    TypeDoc {
        go_name: "Pod",
        text: "Pod is a group of containers that run together on one node. It is created by a client or a controller, scheduled onto a node, and run there by the kubelet.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("spec", "The pod's desired state."),
            f("status", "The pod's most recently observed state. Read-only for clients; written by the scheduler and the kubelet."),
        ],
    },
    // ---- core/v1: the rest ----
    TypeDoc {
        go_name: "NamespaceSpec",
        text: "NamespaceSpec is the desired state of a namespace.",
        fields: &[f("finalizers", "Finalizers that must be removed before the namespace is deleted; kubernetes is the namespace controller's, removed once every object inside is gone.")],
    },
    TypeDoc {
        go_name: "NamespaceCondition",
        text: "NamespaceCondition is one aspect of a namespace's state.",
        fields: &[
            req("type", "The condition (NamespaceDeletionContentFailure, NamespaceFinalizersRemaining ...)."),
            req("status", "True, False or Unknown."),
            f("lastTransitionTime", "When the status last changed."),
            f("reason", "A CamelCase reason for the last transition."),
            f("message", "A human-readable message about the last transition."),
        ],
    },
    TypeDoc {
        go_name: "NamespaceStatus",
        text: "NamespaceStatus is the most recently observed state of a namespace.",
        fields: &[
            en("phase", &["Active", "Terminating"], "Active, or Terminating once deleted (while its content is removed)."),
            f("conditions", "The namespace's conditions, set while it is being deleted."),
        ],
    },
    TypeDoc {
        go_name: "Namespace",
        text: "Namespace gives names a scope: namespaced objects of the same kind have unique names within a namespace. Deleting a namespace deletes everything in it.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("spec", "The namespace's desired state (its finalizers)."),
            f("status", "The namespace's most recently observed state."),
        ],
    },
    TypeDoc {
        go_name: "Taint",
        text: "A taint keeps pods that do not tolerate it off a node.",
        fields: &[
            req("key", "The taint key."),
            f("value", "The taint value."),
            FieldDoc { name: "effect", text: "What happens to pods that do not tolerate it: NoSchedule, PreferNoSchedule or NoExecute.", required: true, enums: TAINT_EFFECTS, ty: None },
            f("timeAdded", "When a NoExecute taint was added."),
        ],
    },
    TypeDoc {
        go_name: "NodeSpec",
        text: "NodeSpec is how a node is configured.",
        fields: &[
            f("podCIDR", "The range of pod IP addresses assigned to the node."),
            f("podCIDRs", "The ranges of pod IP addresses assigned to the node (one per family)."),
            f("providerID", "The node's ID at its cloud provider."),
            f("unschedulable", "When true, the scheduler places no new pods on the node (kubectl cordon sets it; kubectl uncordon clears it). Pods already there keep running."),
            f("taints", "The node's taints."),
        ],
    },
    TypeDoc {
        go_name: "NodeCondition",
        text: "NodeCondition is one aspect of a node's state, reported by its kubelet.",
        fields: &[
            req("type", "The condition: Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable."),
            req("status", "True, False or Unknown (the node controller sets Unknown when the kubelet stops reporting)."),
            f("lastHeartbeatTime", "When the kubelet last reported the condition."),
            f("lastTransitionTime", "When the status last changed."),
            f("reason", "A CamelCase reason for the last transition."),
            f("message", "A human-readable message about the last transition."),
        ],
    },
    TypeDoc {
        go_name: "NodeAddress",
        text: "An address of a node.",
        fields: &[req("type", "Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS."), req("address", "The address.")],
    },
    TypeDoc {
        go_name: "DaemonEndpoint",
        text: "A port a daemon of the node listens on.",
        fields: &[req("Port", "The port number.")],
    },
    TypeDoc {
        go_name: "NodeDaemonEndpoints",
        text: "The ports the node's daemons listen on.",
        fields: &[f("kubeletEndpoint", "The kubelet's port.")],
    },
    TypeDoc {
        go_name: "NodeSystemInfo",
        text: "NodeSystemInfo identifies a node's machine and software, as its kubelet reports them.",
        fields: &[
            req("machineID", "The machine ID (from /etc/machine-id)."),
            req("systemUUID", "The system UUID reported by the firmware."),
            req("bootID", "The boot ID; it changes when the node reboots."),
            req("kernelVersion", "The kernel version (uname -r)."),
            req("osImage", "The operating system image (from /etc/os-release)."),
            req("containerRuntimeVersion", "The container runtime and its version."),
            req("kubeletVersion", "The kubelet's version."),
            req("kubeProxyVersion", "Deprecated: not reliable."),
            req("operatingSystem", "The operating system (linux, windows)."),
            req("architecture", "The CPU architecture (amd64, arm64)."),
            ty("swap", "NodeSwapStatus", "The node's swap memory."),
            ty("features", "NodeFeatures", "Features the node's kubelet and runtime support."),
        ],
    },
    TypeDoc {
        go_name: "NodeStatus",
        text: "NodeStatus is the most recently observed state of a node, reported by its kubelet.",
        fields: &[
            f("capacity", "The node's total resources (cpu, memory, pods ...)."),
            f("allocatable", "The resources available to pods: capacity minus what the system reserves. The scheduler places pods within it."),
            en("phase", &["Pending", "Running", "Terminated"], "Deprecated: not set by current kubelets."),
            f("conditions", "The node's conditions (Ready, MemoryPressure ...)."),
            f("addresses", "The node's addresses."),
            f("daemonEndpoints", "The ports of the node's daemons."),
            f("nodeInfo", "The node's machine and software."),
            ty("images", "[]ContainerImage", "The images on the node."),
        ],
    },
    TypeDoc {
        go_name: "Node",
        text: "Node is a machine that runs pods. Its kubelet registers it and reports its status; the scheduler places pods on it.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("spec", "How the node is configured (unschedulable, taints)."),
            f("status", "The node's most recently observed state."),
        ],
    },
    TypeDoc {
        go_name: "ConfigMap",
        text: "ConfigMap holds configuration data as key/value pairs, for pods to read as environment variables or files.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("immutable", "When true, data and binaryData cannot be changed (only the object deleted and recreated)."),
            f("data", "UTF-8 configuration data. Keys are made of letters, digits, -, _ and ."),
            f("binaryData", "Binary configuration data, base64-encoded. Its keys must not repeat those of data."),
        ],
    },
    TypeDoc {
        go_name: "ObjectReference",
        text: "ObjectReference points to an object.",
        fields: &[
            f("kind", "The object's kind."),
            f("namespace", "The object's namespace."),
            f("name", "The object's name."),
            f("uid", "The object's uid."),
            f("apiVersion", "The object's API version."),
            f("resourceVersion", "The object's resourceVersion the reference was made from."),
            f("fieldPath", "A field inside the object (spec.containers{name} for a container)."),
        ],
    },
    TypeDoc {
        go_name: "EventSource",
        text: "The component that reported an event.",
        fields: &[f("component", "The reporting component (kubelet, deployment-controller ...)."), f("host", "The node it ran on.")],
    },
    TypeDoc {
        go_name: "Event",
        text: "Event is a report of something that happened to an object: a controller's or the kubelet's action, or a failure. Events expire after a while (an hour by default).",
        fields: &[
            API_VERSION,
            KIND,
            FieldDoc { required: true, ..METADATA },
            req("involvedObject", "The object the event is about."),
            f("reason", "A short CamelCase reason (Scheduled, Pulled, ScalingReplicaSet ...)."),
            f("message", "A human-readable description."),
            f("source", "The component that reported it (deprecated: see reportingComponent)."),
            ty("firstTimestamp", "string", "When the event was first recorded."),
            ty("lastTimestamp", "string", "When it was most recently recorded."),
            f("count", "How many times it was recorded (repeats are counted, not duplicated)."),
            f("type", "Normal or Warning."),
            ty("eventTime", "string", "When the event was first observed, in microseconds."),
            ty("series", "EventSeries", "Data about a series of repeated events."),
            f("action", "What the reporter did or failed to do."),
            f("related", "A second object involved (the node of a scheduling event)."),
            f("reportingComponent", "The controller that reported the event (kubernetes.io/... for built-in ones)."),
            f("reportingInstance", "The instance of the controller (its pod or host)."),
        ],
    },
    // ---- apps/v1 ----
    TypeDoc {
        go_name: "RollingUpdateDeployment",
        text: "How a rolling update proceeds.",
        fields: &[
            f("maxUnavailable", "How many pods may be unavailable during the update, as a number or a percentage of replicas (rounded down). Defaults to 25%. It cannot be 0 when maxSurge is 0."),
            f("maxSurge", "How many pods may be created above the desired number during the update, as a number or a percentage of replicas (rounded up). Defaults to 25%."),
        ],
    },
    TypeDoc {
        go_name: "DeploymentStrategy",
        text: "DeploymentStrategy says how a Deployment replaces old pods with new ones.",
        fields: &[
            en("type", &["Recreate", "RollingUpdate"], "Recreate (stop all old pods, then start new ones) or RollingUpdate (the default)."),
            f("rollingUpdate", "The rolling update's parameters, when type is RollingUpdate."),
        ],
    },
    TypeDoc {
        go_name: "DeploymentSpec",
        text: "DeploymentSpec is the desired state of a Deployment.",
        fields: &[
            f("replicas", "The desired number of pods. Defaults to 1."),
            req("selector", "The label selector of the pods the Deployment manages. It must match the template's labels and cannot be changed in apps/v1."),
            req("template", "The pods to create. Changing it (but not replicas) starts a rollout to a new ReplicaSet."),
            f("strategy", "How old pods are replaced by new ones."),
            f("minReadySeconds", "Seconds a new pod must be ready, without a container crashing, before it counts as available. Defaults to 0."),
            f("revisionHistoryLimit", "How many old ReplicaSets are kept for rollbacks. Defaults to 10."),
            f("paused", "Whether the rollout is paused: template changes wait until it is resumed."),
            f("progressDeadlineSeconds", "Seconds a rollout may go without progress before the Progressing condition turns False with ProgressDeadlineExceeded. Defaults to 600."),
        ],
    },
    TypeDoc {
        go_name: "DeploymentCondition",
        text: "DeploymentCondition is one aspect of a Deployment's state.",
        fields: &[
            req("type", "Available, Progressing or ReplicaFailure."),
            req("status", "True, False or Unknown."),
            f("lastUpdateTime", "When the condition was last updated."),
            f("lastTransitionTime", "When the status last changed."),
            f("reason", "A CamelCase reason (NewReplicaSetAvailable, MinimumReplicasAvailable, ProgressDeadlineExceeded ...)."),
            f("message", "A human-readable message about the condition."),
        ],
    },
    TypeDoc {
        go_name: "DeploymentStatus",
        text: "DeploymentStatus is the most recently observed state of a Deployment, written by the deployment controller.",
        fields: &[
            f("observedGeneration", "The metadata.generation the controller last acted on. While it is lower than the generation, the status is stale."),
            f("replicas", "The pods of all its ReplicaSets, not counting terminating ones."),
            f("updatedReplicas", "The pods of the newest ReplicaSet (the current template)."),
            f("readyReplicas", "The pods with a Ready condition."),
            f("availableReplicas", "The pods ready for at least minReadySeconds."),
            f("unavailableReplicas", "The desired pods that are not available: missing or not ready yet."),
            f("terminatingReplicas", "The pods being deleted (with a deletionTimestamp) that have not gone yet."),
            f("conditions", "The Deployment's conditions: Available and Progressing."),
            f("collisionCount", "How many times a new ReplicaSet's name collided; it changes the hash in the name."),
        ],
    },
    TypeDoc {
        go_name: "Deployment",
        text: "Deployment manages ReplicaSets to run a number of identical pods and to roll out changes to them declaratively.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("spec", "The Deployment's desired state."),
            f("status", "The Deployment's most recently observed state."),
        ],
    },
    TypeDoc {
        go_name: "ReplicaSetSpec",
        text: "ReplicaSetSpec is the desired state of a ReplicaSet.",
        fields: &[
            f("replicas", "The desired number of pods. Defaults to 1."),
            f("minReadySeconds", "Seconds a new pod must be ready before it counts as available. Defaults to 0."),
            req("selector", "The label selector of the pods the ReplicaSet counts and adopts. It must match the template's labels."),
            f("template", "The pods to create when there are too few."),
        ],
    },
    TypeDoc {
        go_name: "ReplicaSetCondition",
        text: "ReplicaSetCondition is one aspect of a ReplicaSet's state.",
        fields: &[
            req("type", "ReplicaFailure, set when pods cannot be created or deleted."),
            req("status", "True, False or Unknown."),
            f("lastTransitionTime", "When the status last changed."),
            f("reason", "A CamelCase reason for the last transition."),
            f("message", "A human-readable message about the last transition."),
        ],
    },
    TypeDoc {
        go_name: "ReplicaSetStatus",
        text: "ReplicaSetStatus is the most recently observed state of a ReplicaSet, written by the replicaset controller.",
        fields: &[
            req("replicas", "The pods it counts, not counting terminating ones."),
            f("fullyLabeledReplicas", "The pods whose labels match the template's."),
            f("readyReplicas", "The pods with a Ready condition."),
            f("availableReplicas", "The pods ready for at least minReadySeconds."),
            f("terminatingReplicas", "The pods being deleted that have not gone yet."),
            f("observedGeneration", "The metadata.generation the controller last acted on."),
            f("conditions", "The ReplicaSet's conditions."),
        ],
    },
    TypeDoc {
        go_name: "ReplicaSet",
        text: "ReplicaSet keeps a number of pods matching its selector running, creating and deleting pods from its template. Deployments manage ReplicaSets; they are rarely made directly.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("spec", "The ReplicaSet's desired state."),
            f("status", "The ReplicaSet's most recently observed state."),
        ],
    },
    // ---- coordination.k8s.io/v1 ----
    TypeDoc {
        go_name: "LeaseSpec",
        text: "LeaseSpec is who holds a lease, and until when.",
        fields: &[
            f("holderIdentity", "The current holder's identity (for leader election, the leading process)."),
            f("leaseDurationSeconds", "How long others must wait after renewTime before they may take the lease."),
            f("acquireTime", "When the current holder acquired the lease."),
            f("renewTime", "When the holder last renewed the lease."),
            f("leaseTransitions", "How many times the lease changed holders."),
            f("strategy", "How a new holder is chosen when coordinated leader election is used (OldestEmulationVersion)."),
            f("preferredHolder", "The holder the coordinator asks the current one to give way to."),
        ],
    },
    TypeDoc {
        go_name: "Lease",
        text: "Lease is a lock with a holder and an expiry: leader election (kube-controller-manager's leader) and node heartbeats use them.",
        fields: &[API_VERSION, KIND, METADATA, f("spec", "The lease's holder and timing.")],
    },
    // ---- example.com/v1 Bucket: the CRD's schema ----
    TypeDoc {
        go_name: "BucketSpec",
        text: "What bucket the lab's bucket controller should keep in the simulated cloud.",
        fields: &[
            f("region", "The cloud region the bucket is created in. A bucket does not move: a later change is reported in the Ready condition (RegionImmutable), not applied."),
            f("versioning", "Whether the bucket keeps object versions; changes are applied to the bucket."),
        ],
    },
    TypeDoc {
        go_name: "BucketStatus",
        text: "What the bucket controller last observed of the bucket.",
        fields: &[
            f("observedGeneration", "The metadata.generation the controller last acted on."),
            f("observedResourceVersion", "The metadata.resourceVersion the controller last reconciled. Only the operator's buggy build (lab buggy-operator on) writes it: every write of it changes the resourceVersion it records, so the operator reconciles its own writes for ever."),
            f("url", "The bucket's address in the simulated cloud, once created."),
            f("conditions", "The bucket's conditions: Ready, with the cloud's errors as its reason and message."),
        ],
    },
    TypeDoc {
        go_name: "Bucket",
        text: "Bucket is a custom resource of the lab: a storage bucket in its simulated cloud, kept by the bucket controller, which uses a finalizer to delete the cloud bucket before the object goes.",
        fields: &[
            API_VERSION,
            KIND,
            METADATA,
            f("spec", "The bucket wanted."),
            f("status", "The bucket observed."),
        ],
    },
];

/// The description of Go type `go_name`.
pub fn type_doc(go_name: &str) -> Option<&'static TypeDoc> {
    DOCS.iter().find(|t| t.go_name == go_name)
}

/// The description of field `name` of Go type `go_name`.
pub fn field_doc(go_name: &str, name: &str) -> Option<&'static FieldDoc> {
    type_doc(go_name)?.fields.iter().find(|f| f.name == name)
}

/// The description of a field's scalar type that OpenAPI publishes as a schema of its own
/// (`IntOrString`, `Quantity`), which explain adds after the field's (the template's
/// `description` follows the field's `allOf` and a map's `additionalProperties`).
pub fn scalar_type_doc(ty: &super::schema::Ty) -> Option<&'static str> {
    use super::schema::Ty;
    match ty {
        Ty::IntOrString => Some("IntOrString holds either an integer or a string, such as 1 or \"25%\"."),
        Ty::Quantity | Ty::QuantityMap => Some(
            "Quantity is a decimal number with an optional unit suffix: 500m is half a CPU, 128Mi is 128 mebibytes.",
        ),
        _ => None,
    }
}

/// The text added to a field the schema keeps opaque ([`NOT_LISTED`]).
pub fn not_listed() -> &'static str {
    NOT_LISTED
}
