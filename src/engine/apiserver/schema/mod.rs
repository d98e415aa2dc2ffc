//! The known fields of every served kind, as data: one table per Go struct, fields in the Go
//! struct's order, each with its type and its default. Three things read it:
//!
//! - strict decoding (`fieldValidation=Strict`, which kubectl sends by default): an unknown field
//!   is a 400 `BadRequest` worded as the apiserver's `transformDecodeError` words it,
//!   `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicass"`
//!   (apiserver `endpoints/handlers/rest.go`; the field list is `runtime.NewStrictDecodingError`'s,
//!   joined with ", "; paths as sigs.k8s.io/json writes them, with `[i]` for list items); a value
//!   of the wrong JSON type is encoding/json's
//!   `json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`;
//! - defaulting (`SetDefaults_*` in `pkg/apis/{apps,core}/v1/defaults.go`);
//! - output order: objects leave the server with their keys in Go struct order, as
//!   `encoding/json` writes a typed object (apiVersion, kind, metadata, spec, status).
//!
//! Only the fields learners meet are listed; anything else in a manifest is an unknown field,
//! as it would be for a misspelled one. Free-form corners (`affinity`, volume sources, container
//! statuses written by the kubelet) are [`Ty::Any`].

use serde_json::{Map, Value};

use crate::engine::frozen::{intern, Frozen, Key};
use crate::engine::kinds::Kind;

mod strict;

pub use strict::{prune_unknown, strict_decode, DecodeError};

/// A field's type.
#[derive(Debug)]
pub enum Ty {
    /// `string`.
    Str,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `bool`.
    Bool,
    /// `intstr.IntOrString` (`maxSurge: 25%` or `1`).
    IntOrString,
    /// `resource.Quantity` (`"500m"` or `1`).
    Quantity,
    /// `map[string]string` (labels, annotations, data).
    StrMap,
    /// `map[ResourceName]Quantity`.
    QuantityMap,
    /// `[]string`.
    StrList,
    /// Anything: not checked, not defaulted, not reordered.
    Any,
    /// A nested struct.
    Obj(&'static Struct),
    /// A list of structs.
    List(&'static Struct),
}

/// A field's default, applied when the field is absent.
#[derive(Debug)]
pub enum Def {
    /// No default.
    No,
    /// An integer.
    Int(i64),
    /// A string.
    Str(&'static str),
    /// A boolean.
    Bool(bool),
    /// An empty object, then the nested struct's own defaults (Go's non-pointer structs).
    Empty,
    /// `null`, kept on output: a non-pointer `metav1.Time` without `omitempty`
    /// (`lastProbeTime: null` in pod conditions).
    Null,
}

/// One field of a struct.
#[derive(Debug)]
pub struct Prop {
    /// The JSON name.
    pub name: &'static str,
    /// The type.
    pub ty: Ty,
    /// The default.
    pub def: Def,
}

/// A Go struct: its name (for decode errors) and its fields in declaration order.
#[derive(Debug)]
pub struct Struct {
    /// The Go type name, e.g. `DeploymentSpec`.
    pub go_name: &'static str,
    /// The fields, in Go declaration order (which is the wire order).
    pub fields: &'static [Prop],
}

const fn p(name: &'static str, ty: Ty) -> Prop {
    Prop { name, ty, def: Def::No }
}

const fn d(name: &'static str, ty: Ty, def: Def) -> Prop {
    Prop { name, ty, def }
}

// ---- meta/v1 ----

static OWNER_REFERENCE: Struct = Struct {
    go_name: "OwnerReference",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("name", Ty::Str),
        p("uid", Ty::Str),
        p("controller", Ty::Bool),
        p("blockOwnerDeletion", Ty::Bool),
    ],
};

/// `metav1.ObjectMeta`, in the order the brief and the apiserver write it.
pub static OBJECT_META: Struct = Struct {
    go_name: "ObjectMeta",
    fields: &[
        p("name", Ty::Str),
        p("generateName", Ty::Str),
        p("namespace", Ty::Str),
        p("selfLink", Ty::Str),
        p("uid", Ty::Str),
        p("resourceVersion", Ty::Str),
        p("generation", Ty::Int64),
        p("creationTimestamp", Ty::Str),
        p("deletionTimestamp", Ty::Str),
        p("deletionGracePeriodSeconds", Ty::Int64),
        p("labels", Ty::StrMap),
        p("annotations", Ty::StrMap),
        p("ownerReferences", Ty::List(&OWNER_REFERENCE)),
        p("finalizers", Ty::StrList),
        p("managedFields", Ty::Any),
    ],
};

static LABEL_SELECTOR_REQUIREMENT: Struct = Struct {
    go_name: "LabelSelectorRequirement",
    fields: &[p("key", Ty::Str), p("operator", Ty::Str), p("values", Ty::StrList)],
};

static LABEL_SELECTOR: Struct = Struct {
    go_name: "LabelSelector",
    fields: &[p("matchLabels", Ty::StrMap), p("matchExpressions", Ty::List(&LABEL_SELECTOR_REQUIREMENT))],
};

static CONDITION: Struct = Struct {
    go_name: "Condition",
    fields: &[
        p("type", Ty::Str),
        p("status", Ty::Str),
        p("observedGeneration", Ty::Int64),
        p("lastTransitionTime", Ty::Str),
        p("reason", Ty::Str),
        p("message", Ty::Str),
    ],
};

// ---- core/v1: pods ----

static CONTAINER_PORT: Struct = Struct {
    go_name: "ContainerPort",
    fields: &[
        p("name", Ty::Str),
        p("hostPort", Ty::Int32),
        p("containerPort", Ty::Int32),
        d("protocol", Ty::Str, Def::Str("TCP")),
        p("hostIP", Ty::Str),
    ],
};

static OBJECT_FIELD_SELECTOR: Struct = Struct {
    go_name: "ObjectFieldSelector",
    fields: &[d("apiVersion", Ty::Str, Def::Str("v1")), p("fieldPath", Ty::Str)],
};

static RESOURCE_FIELD_SELECTOR: Struct = Struct {
    go_name: "ResourceFieldSelector",
    fields: &[p("containerName", Ty::Str), p("resource", Ty::Str), p("divisor", Ty::Quantity)],
};

static KEY_SELECTOR: Struct = Struct {
    go_name: "ConfigMapKeySelector",
    fields: &[p("name", Ty::Str), p("key", Ty::Str), p("optional", Ty::Bool)],
};

static ENV_VAR_SOURCE: Struct = Struct {
    go_name: "EnvVarSource",
    fields: &[
        p("fieldRef", Ty::Obj(&OBJECT_FIELD_SELECTOR)),
        p("resourceFieldRef", Ty::Obj(&RESOURCE_FIELD_SELECTOR)),
        p("configMapKeyRef", Ty::Obj(&KEY_SELECTOR)),
        p("secretKeyRef", Ty::Obj(&KEY_SELECTOR)),
        p("fileKeyRef", Ty::Any),
    ],
};

static ENV_VAR: Struct = Struct {
    go_name: "EnvVar",
    fields: &[p("name", Ty::Str), p("value", Ty::Str), p("valueFrom", Ty::Obj(&ENV_VAR_SOURCE))],
};

static LOCAL_REF_OPTIONAL: Struct =
    Struct { go_name: "ConfigMapEnvSource", fields: &[p("name", Ty::Str), p("optional", Ty::Bool)] };

static ENV_FROM_SOURCE: Struct = Struct {
    go_name: "EnvFromSource",
    fields: &[
        p("prefix", Ty::Str),
        p("configMapRef", Ty::Obj(&LOCAL_REF_OPTIONAL)),
        p("secretRef", Ty::Obj(&LOCAL_REF_OPTIONAL)),
    ],
};

static CAPABILITIES: Struct =
    Struct { go_name: "Capabilities", fields: &[p("add", Ty::StrList), p("drop", Ty::StrList)] };

static SECURITY_CONTEXT: Struct = Struct {
    go_name: "SecurityContext",
    fields: &[
        p("capabilities", Ty::Obj(&CAPABILITIES)),
        p("privileged", Ty::Bool),
        p("seLinuxOptions", Ty::Any),
        p("windowsOptions", Ty::Any),
        p("runAsUser", Ty::Int64),
        p("runAsGroup", Ty::Int64),
        p("runAsNonRoot", Ty::Bool),
        p("readOnlyRootFilesystem", Ty::Bool),
        p("allowPrivilegeEscalation", Ty::Bool),
        p("procMount", Ty::Str),
        p("seccompProfile", Ty::Any),
        p("appArmorProfile", Ty::Any),
    ],
};

static POD_SECURITY_CONTEXT: Struct = Struct {
    go_name: "PodSecurityContext",
    fields: &[
        p("seLinuxOptions", Ty::Any),
        p("windowsOptions", Ty::Any),
        p("runAsUser", Ty::Int64),
        p("runAsGroup", Ty::Int64),
        p("runAsNonRoot", Ty::Bool),
        p("supplementalGroups", Ty::Any),
        p("supplementalGroupsPolicy", Ty::Str),
        p("fsGroup", Ty::Int64),
        p("sysctls", Ty::Any),
        p("fsGroupChangePolicy", Ty::Str),
        p("seccompProfile", Ty::Any),
        p("appArmorProfile", Ty::Any),
        p("seLinuxChangePolicy", Ty::Str),
    ],
};

static KEY_TO_PATH: Struct =
    Struct { go_name: "KeyToPath", fields: &[p("key", Ty::Str), p("path", Ty::Str), p("mode", Ty::Int32)] };

static HOST_PATH: Struct =
    Struct { go_name: "HostPathVolumeSource", fields: &[p("path", Ty::Str), d("type", Ty::Str, Def::Str(""))] };

static EMPTY_DIR: Struct =
    Struct { go_name: "EmptyDirVolumeSource", fields: &[p("medium", Ty::Str), p("sizeLimit", Ty::Quantity)] };

static SECRET_VOLUME: Struct = Struct {
    go_name: "SecretVolumeSource",
    fields: &[
        p("secretName", Ty::Str),
        p("items", Ty::List(&KEY_TO_PATH)),
        d("defaultMode", Ty::Int32, Def::Int(420)),
        p("optional", Ty::Bool),
    ],
};

static PVC_VOLUME: Struct = Struct {
    go_name: "PersistentVolumeClaimVolumeSource",
    fields: &[p("claimName", Ty::Str), p("readOnly", Ty::Bool)],
};

static DOWNWARD_API_VOLUME: Struct = Struct {
    go_name: "DownwardAPIVolumeSource",
    fields: &[p("items", Ty::Any), d("defaultMode", Ty::Int32, Def::Int(420))],
};

static CONFIG_MAP_VOLUME: Struct = Struct {
    go_name: "ConfigMapVolumeSource",
    fields: &[
        p("name", Ty::Str),
        p("items", Ty::List(&KEY_TO_PATH)),
        d("defaultMode", Ty::Int32, Def::Int(420)),
        p("optional", Ty::Bool),
    ],
};

static RESOURCES: Struct = Struct {
    go_name: "ResourceRequirements",
    fields: &[p("limits", Ty::QuantityMap), p("requests", Ty::QuantityMap), p("claims", Ty::Any)],
};

static VOLUME_MOUNT: Struct = Struct {
    go_name: "VolumeMount",
    fields: &[
        p("name", Ty::Str),
        p("readOnly", Ty::Bool),
        p("recursiveReadOnly", Ty::Str),
        p("mountPath", Ty::Str),
        p("subPath", Ty::Str),
        p("mountPropagation", Ty::Str),
        p("subPathExpr", Ty::Str),
    ],
};

static EXEC_ACTION: Struct = Struct { go_name: "ExecAction", fields: &[p("command", Ty::StrList)] };

static HTTP_GET: Struct = Struct {
    go_name: "HTTPGetAction",
    fields: &[
        p("path", Ty::Str),
        p("port", Ty::IntOrString),
        p("host", Ty::Str),
        d("scheme", Ty::Str, Def::Str("HTTP")),
        p("httpHeaders", Ty::Any),
    ],
};

static TCP_SOCKET: Struct =
    Struct { go_name: "TCPSocketAction", fields: &[p("port", Ty::IntOrString), p("host", Ty::Str)] };

static PROBE: Struct = Struct {
    go_name: "Probe",
    fields: &[
        p("exec", Ty::Obj(&EXEC_ACTION)),
        p("httpGet", Ty::Obj(&HTTP_GET)),
        p("tcpSocket", Ty::Obj(&TCP_SOCKET)),
        p("grpc", Ty::Any),
        p("initialDelaySeconds", Ty::Int32),
        d("timeoutSeconds", Ty::Int32, Def::Int(1)),
        d("periodSeconds", Ty::Int32, Def::Int(10)),
        d("successThreshold", Ty::Int32, Def::Int(1)),
        d("failureThreshold", Ty::Int32, Def::Int(3)),
        p("terminationGracePeriodSeconds", Ty::Int64),
    ],
};

static CONTAINER: Struct = Struct {
    go_name: "Container",
    fields: &[
        p("name", Ty::Str),
        p("image", Ty::Str),
        p("command", Ty::StrList),
        p("args", Ty::StrList),
        p("workingDir", Ty::Str),
        p("ports", Ty::List(&CONTAINER_PORT)),
        p("envFrom", Ty::List(&ENV_FROM_SOURCE)),
        p("env", Ty::List(&ENV_VAR)),
        d("resources", Ty::Obj(&RESOURCES), Def::Empty),
        p("resizePolicy", Ty::Any),
        p("restartPolicy", Ty::Str),
        p("volumeMounts", Ty::List(&VOLUME_MOUNT)),
        p("volumeDevices", Ty::Any),
        p("livenessProbe", Ty::Obj(&PROBE)),
        p("readinessProbe", Ty::Obj(&PROBE)),
        p("startupProbe", Ty::Obj(&PROBE)),
        p("lifecycle", Ty::Any),
        d("terminationMessagePath", Ty::Str, Def::Str("/dev/termination-log")),
        d("terminationMessagePolicy", Ty::Str, Def::Str("File")),
        p("imagePullPolicy", Ty::Str),
        p("securityContext", Ty::Obj(&SECURITY_CONTEXT)),
        p("stdin", Ty::Bool),
        p("stdinOnce", Ty::Bool),
        p("tty", Ty::Bool),
    ],
};

static TOLERATION: Struct = Struct {
    go_name: "Toleration",
    fields: &[
        p("key", Ty::Str),
        p("operator", Ty::Str),
        p("value", Ty::Str),
        p("effect", Ty::Str),
        p("tolerationSeconds", Ty::Int64),
    ],
};

static VOLUME: Struct = Struct {
    go_name: "Volume",
    fields: &[
        // The VolumeSource fields learners use, in its Go order.
        p("name", Ty::Str),
        p("hostPath", Ty::Obj(&HOST_PATH)),
        p("emptyDir", Ty::Obj(&EMPTY_DIR)),
        p("secret", Ty::Obj(&SECRET_VOLUME)),
        p("persistentVolumeClaim", Ty::Obj(&PVC_VOLUME)),
        p("downwardAPI", Ty::Obj(&DOWNWARD_API_VOLUME)),
        p("configMap", Ty::Obj(&CONFIG_MAP_VOLUME)),
        p("projected", Ty::Any),
        p("csi", Ty::Any),
        p("ephemeral", Ty::Any),
        p("image", Ty::Any),
    ],
};

static POD_SPEC: Struct = Struct {
    go_name: "PodSpec",
    fields: &[
        p("volumes", Ty::List(&VOLUME)),
        p("initContainers", Ty::List(&CONTAINER)),
        p("containers", Ty::List(&CONTAINER)),
        d("restartPolicy", Ty::Str, Def::Str("Always")),
        d("terminationGracePeriodSeconds", Ty::Int64, Def::Int(30)),
        p("activeDeadlineSeconds", Ty::Int64),
        d("dnsPolicy", Ty::Str, Def::Str("ClusterFirst")),
        p("nodeSelector", Ty::StrMap),
        p("serviceAccountName", Ty::Str),
        p("serviceAccount", Ty::Str),
        p("automountServiceAccountToken", Ty::Bool),
        p("nodeName", Ty::Str),
        p("hostNetwork", Ty::Bool),
        p("hostPID", Ty::Bool),
        p("hostIPC", Ty::Bool),
        p("shareProcessNamespace", Ty::Bool),
        d("securityContext", Ty::Obj(&POD_SECURITY_CONTEXT), Def::Empty),
        p("imagePullSecrets", Ty::Any),
        p("hostname", Ty::Str),
        p("subdomain", Ty::Str),
        p("affinity", Ty::Any),
        d("schedulerName", Ty::Str, Def::Str("default-scheduler")),
        p("tolerations", Ty::List(&TOLERATION)),
        p("hostAliases", Ty::Any),
        p("priorityClassName", Ty::Str),
        p("priority", Ty::Int32),
        p("dnsConfig", Ty::Any),
        p("readinessGates", Ty::Any),
        p("runtimeClassName", Ty::Str),
        p("enableServiceLinks", Ty::Bool),
        p("preemptionPolicy", Ty::Str),
        p("overhead", Ty::QuantityMap),
        p("topologySpreadConstraints", Ty::Any),
    ],
};

static POD_CONDITION: Struct = Struct {
    go_name: "PodCondition",
    fields: &[
        p("type", Ty::Str),
        p("observedGeneration", Ty::Int64),
        p("status", Ty::Str),
        d("lastProbeTime", Ty::Any, Def::Null),
        p("lastTransitionTime", Ty::Str),
        p("reason", Ty::Str),
        p("message", Ty::Str),
    ],
};

static POD_STATUS: Struct = Struct {
    go_name: "PodStatus",
    fields: &[
        p("observedGeneration", Ty::Int64),
        p("phase", Ty::Str),
        p("conditions", Ty::List(&POD_CONDITION)),
        p("message", Ty::Str),
        p("reason", Ty::Str),
        p("nominatedNodeName", Ty::Str),
        p("hostIP", Ty::Str),
        p("hostIPs", Ty::Any),
        p("podIP", Ty::Str),
        p("podIPs", Ty::Any),
        p("startTime", Ty::Str),
        p("initContainerStatuses", Ty::Any),
        p("containerStatuses", Ty::Any),
        p("qosClass", Ty::Str),
        p("ephemeralContainerStatuses", Ty::Any),
    ],
};

static POD_TEMPLATE_SPEC: Struct = Struct {
    go_name: "PodTemplateSpec",
    fields: &[p("metadata", Ty::Obj(&OBJECT_META)), p("spec", Ty::Obj(&POD_SPEC))],
};

static POD: Struct = Struct {
    go_name: "Pod",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("spec", Ty::Obj(&POD_SPEC), Def::Empty),
        p("status", Ty::Obj(&POD_STATUS)),
    ],
};

// ---- core/v1: the rest ----

static NAMESPACE_SPEC: Struct = Struct { go_name: "NamespaceSpec", fields: &[p("finalizers", Ty::StrList)] };

static NAMESPACE_CONDITION: Struct = Struct {
    go_name: "NamespaceCondition",
    fields: &[
        p("type", Ty::Str),
        p("status", Ty::Str),
        p("lastTransitionTime", Ty::Str),
        p("reason", Ty::Str),
        p("message", Ty::Str),
    ],
};

static NAMESPACE_STATUS: Struct = Struct {
    go_name: "NamespaceStatus",
    fields: &[p("phase", Ty::Str), p("conditions", Ty::List(&NAMESPACE_CONDITION))],
};

static NAMESPACE: Struct = Struct {
    go_name: "Namespace",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("spec", Ty::Obj(&NAMESPACE_SPEC), Def::Empty),
        d("status", Ty::Obj(&NAMESPACE_STATUS), Def::Empty),
    ],
};

static TAINT: Struct = Struct {
    go_name: "Taint",
    fields: &[p("key", Ty::Str), p("value", Ty::Str), p("effect", Ty::Str), p("timeAdded", Ty::Str)],
};

static NODE_SPEC: Struct = Struct {
    go_name: "NodeSpec",
    fields: &[
        p("podCIDR", Ty::Str),
        p("podCIDRs", Ty::StrList),
        p("providerID", Ty::Str),
        p("unschedulable", Ty::Bool),
        p("taints", Ty::List(&TAINT)),
    ],
};

static NODE_CONDITION: Struct = Struct {
    go_name: "NodeCondition",
    fields: &[
        p("type", Ty::Str),
        p("status", Ty::Str),
        p("lastHeartbeatTime", Ty::Str),
        p("lastTransitionTime", Ty::Str),
        p("reason", Ty::Str),
        p("message", Ty::Str),
    ],
};

static NODE_ADDRESS: Struct = Struct { go_name: "NodeAddress", fields: &[p("type", Ty::Str), p("address", Ty::Str)] };

static DAEMON_ENDPOINT: Struct = Struct { go_name: "DaemonEndpoint", fields: &[d("Port", Ty::Int32, Def::Int(0))] };

static DAEMON_ENDPOINTS: Struct =
    Struct { go_name: "NodeDaemonEndpoints", fields: &[d("kubeletEndpoint", Ty::Obj(&DAEMON_ENDPOINT), Def::Empty)] };

/// `NodeSystemInfo`: its string fields have no omitempty, so a node always shows them.
static NODE_SYSTEM_INFO: Struct = Struct {
    go_name: "NodeSystemInfo",
    fields: &[
        d("machineID", Ty::Str, Def::Str("")),
        d("systemUUID", Ty::Str, Def::Str("")),
        d("bootID", Ty::Str, Def::Str("")),
        d("kernelVersion", Ty::Str, Def::Str("")),
        d("osImage", Ty::Str, Def::Str("")),
        d("containerRuntimeVersion", Ty::Str, Def::Str("")),
        d("kubeletVersion", Ty::Str, Def::Str("")),
        d("kubeProxyVersion", Ty::Str, Def::Str("")),
        d("operatingSystem", Ty::Str, Def::Str("")),
        d("architecture", Ty::Str, Def::Str("")),
        p("swap", Ty::Any),
        p("features", Ty::Any),
    ],
};

static NODE_STATUS: Struct = Struct {
    go_name: "NodeStatus",
    fields: &[
        p("capacity", Ty::QuantityMap),
        p("allocatable", Ty::QuantityMap),
        p("phase", Ty::Str),
        p("conditions", Ty::List(&NODE_CONDITION)),
        p("addresses", Ty::List(&NODE_ADDRESS)),
        d("daemonEndpoints", Ty::Obj(&DAEMON_ENDPOINTS), Def::Empty),
        d("nodeInfo", Ty::Obj(&NODE_SYSTEM_INFO), Def::Empty),
        p("images", Ty::Any),
    ],
};

static NODE: Struct = Struct {
    go_name: "Node",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("spec", Ty::Obj(&NODE_SPEC), Def::Empty),
        d("status", Ty::Obj(&NODE_STATUS), Def::Empty),
    ],
};

static CONFIG_MAP: Struct = Struct {
    go_name: "ConfigMap",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        p("immutable", Ty::Bool),
        p("data", Ty::StrMap),
        p("binaryData", Ty::StrMap),
    ],
};

static OBJECT_REFERENCE: Struct = Struct {
    go_name: "ObjectReference",
    fields: &[
        p("kind", Ty::Str),
        p("namespace", Ty::Str),
        p("name", Ty::Str),
        p("uid", Ty::Str),
        p("apiVersion", Ty::Str),
        p("resourceVersion", Ty::Str),
        p("fieldPath", Ty::Str),
    ],
};

static EVENT_SOURCE: Struct = Struct { go_name: "EventSource", fields: &[p("component", Ty::Str), p("host", Ty::Str)] };

static EVENT: Struct = Struct {
    go_name: "Event",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("involvedObject", Ty::Obj(&OBJECT_REFERENCE), Def::Empty),
        p("reason", Ty::Str),
        p("message", Ty::Str),
        d("source", Ty::Obj(&EVENT_SOURCE), Def::Empty),
        // Zero metav1.Time/MicroTime marshal as null; the reporting fields have no omitempty.
        d("firstTimestamp", Ty::Any, Def::Null),
        d("lastTimestamp", Ty::Any, Def::Null),
        p("count", Ty::Int32),
        p("type", Ty::Str),
        d("eventTime", Ty::Any, Def::Null),
        p("series", Ty::Any),
        p("action", Ty::Str),
        p("related", Ty::Obj(&OBJECT_REFERENCE)),
        d("reportingComponent", Ty::Str, Def::Str("")),
        d("reportingInstance", Ty::Str, Def::Str("")),
    ],
};

// ---- apps/v1 ----

static ROLLING_UPDATE_DEPLOYMENT: Struct = Struct {
    go_name: "RollingUpdateDeployment",
    fields: &[p("maxUnavailable", Ty::IntOrString), p("maxSurge", Ty::IntOrString)],
};

static DEPLOYMENT_STRATEGY: Struct = Struct {
    go_name: "DeploymentStrategy",
    fields: &[d("type", Ty::Str, Def::Str("RollingUpdate")), p("rollingUpdate", Ty::Obj(&ROLLING_UPDATE_DEPLOYMENT))],
};

static DEPLOYMENT_SPEC: Struct = Struct {
    go_name: "DeploymentSpec",
    fields: &[
        d("replicas", Ty::Int32, Def::Int(1)),
        p("selector", Ty::Obj(&LABEL_SELECTOR)),
        d("template", Ty::Obj(&POD_TEMPLATE_SPEC), Def::Empty),
        d("strategy", Ty::Obj(&DEPLOYMENT_STRATEGY), Def::Empty),
        p("minReadySeconds", Ty::Int32),
        d("revisionHistoryLimit", Ty::Int32, Def::Int(10)),
        p("paused", Ty::Bool),
        d("progressDeadlineSeconds", Ty::Int32, Def::Int(600)),
    ],
};

static DEPLOYMENT_CONDITION: Struct = Struct {
    go_name: "DeploymentCondition",
    fields: &[
        p("type", Ty::Str),
        p("status", Ty::Str),
        p("lastUpdateTime", Ty::Str),
        p("lastTransitionTime", Ty::Str),
        p("reason", Ty::Str),
        p("message", Ty::Str),
    ],
};

static DEPLOYMENT_STATUS: Struct = Struct {
    go_name: "DeploymentStatus",
    fields: &[
        p("observedGeneration", Ty::Int64),
        p("replicas", Ty::Int32),
        p("updatedReplicas", Ty::Int32),
        p("readyReplicas", Ty::Int32),
        p("availableReplicas", Ty::Int32),
        p("unavailableReplicas", Ty::Int32),
        p("terminatingReplicas", Ty::Int32),
        p("conditions", Ty::List(&DEPLOYMENT_CONDITION)),
        p("collisionCount", Ty::Int32),
    ],
};

static DEPLOYMENT: Struct = Struct {
    go_name: "Deployment",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("spec", Ty::Obj(&DEPLOYMENT_SPEC), Def::Empty),
        d("status", Ty::Obj(&DEPLOYMENT_STATUS), Def::Empty),
    ],
};

static REPLICA_SET_SPEC: Struct = Struct {
    go_name: "ReplicaSetSpec",
    fields: &[
        d("replicas", Ty::Int32, Def::Int(1)),
        p("minReadySeconds", Ty::Int32),
        p("selector", Ty::Obj(&LABEL_SELECTOR)),
        d("template", Ty::Obj(&POD_TEMPLATE_SPEC), Def::Empty),
    ],
};

static REPLICA_SET_CONDITION: Struct = Struct {
    go_name: "ReplicaSetCondition",
    fields: &[
        p("type", Ty::Str),
        p("status", Ty::Str),
        p("lastTransitionTime", Ty::Str),
        p("reason", Ty::Str),
        p("message", Ty::Str),
    ],
};

static REPLICA_SET_STATUS: Struct = Struct {
    go_name: "ReplicaSetStatus",
    fields: &[
        // `replicas` has no omitempty: a new ReplicaSet reads `status: {replicas: 0}`.
        d("replicas", Ty::Int32, Def::Int(0)),
        p("fullyLabeledReplicas", Ty::Int32),
        p("readyReplicas", Ty::Int32),
        p("availableReplicas", Ty::Int32),
        p("terminatingReplicas", Ty::Int32),
        p("observedGeneration", Ty::Int64),
        p("conditions", Ty::List(&REPLICA_SET_CONDITION)),
    ],
};

static REPLICA_SET: Struct = Struct {
    go_name: "ReplicaSet",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("spec", Ty::Obj(&REPLICA_SET_SPEC), Def::Empty),
        d("status", Ty::Obj(&REPLICA_SET_STATUS), Def::Empty),
    ],
};

// ---- coordination.k8s.io/v1 ----

static LEASE_SPEC: Struct = Struct {
    go_name: "LeaseSpec",
    fields: &[
        p("holderIdentity", Ty::Str),
        p("leaseDurationSeconds", Ty::Int32),
        p("acquireTime", Ty::Str),
        p("renewTime", Ty::Str),
        p("leaseTransitions", Ty::Int32),
        p("strategy", Ty::Str),
        p("preferredHolder", Ty::Str),
    ],
};

static LEASE: Struct = Struct {
    go_name: "Lease",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        d("spec", Ty::Obj(&LEASE_SPEC), Def::Empty),
    ],
};

// ---- example.com/v1 Bucket (a custom resource: its CRD's structural schema) ----

static BUCKET_SPEC: Struct =
    Struct { go_name: "BucketSpec", fields: &[p("region", Ty::Str), p("versioning", Ty::Bool)] };

static BUCKET_STATUS: Struct = Struct {
    go_name: "BucketStatus",
    fields: &[
        p("observedGeneration", Ty::Int64),
        // Only the buggy build of the operator writes it (controllers::bucket, `lab buggy-operator`).
        p("observedResourceVersion", Ty::Str),
        p("url", Ty::Str),
        p("conditions", Ty::List(&CONDITION)),
    ],
};

static BUCKET: Struct = Struct {
    go_name: "Bucket",
    fields: &[
        p("apiVersion", Ty::Str),
        p("kind", Ty::Str),
        p("metadata", Ty::Obj(&OBJECT_META)),
        p("spec", Ty::Obj(&BUCKET_SPEC)),
        p("status", Ty::Obj(&BUCKET_STATUS)),
    ],
};

/// The struct of one of `st`'s fields, if that field is a nested struct.
pub fn field_struct(st: &'static Struct, name: &str) -> Option<&'static Struct> {
    match st.fields.iter().find(|f| f.name == name)?.ty {
        Ty::Obj(inner) => Some(inner),
        _ => None,
    }
}

/// The top-level struct of a kind.
pub fn root(kind: &Kind) -> &'static Struct {
    match kind.kind {
        "Namespace" => &NAMESPACE,
        "Node" => &NODE,
        "Pod" => &POD,
        "ConfigMap" => &CONFIG_MAP,
        "Event" => &EVENT,
        "Deployment" => &DEPLOYMENT,
        "ReplicaSet" => &REPLICA_SET,
        "Lease" => &LEASE,
        _ => &BUCKET,
    }
}

// ---- defaults and order ----

/// Applies the schema's defaults to absent (or `null`) fields, recursively. Only the fields
/// that have a default or nested structs are looked up: every write of every object runs this.
pub fn apply_defaults(obj: &mut Value, st: &'static Struct) {
    let Some(m) = obj.as_object_mut() else { return };
    for f in st.fields {
        let default = match f.def {
            Def::No => None,
            Def::Int(i) => Some(Value::from(i)),
            Def::Str(s) => Some(Value::from(s)),
            Def::Bool(b) => Some(Value::from(b)),
            Def::Empty => Some(Value::Object(Map::new())),
            Def::Null => Some(Value::Null),
        };
        let nested = matches!(f.ty, Ty::Obj(_) | Ty::List(_));
        if default.is_none() && !nested {
            continue;
        }
        let v = match (m.get_mut(f.name), default) {
            (Some(v), _) if !v.is_null() => v,
            (_, None) => continue,
            (Some(v), Some(d)) => {
                *v = d;
                v
            }
            (None, Some(d)) => {
                m.insert(f.name.to_string(), d);
                match m.get_mut(f.name) {
                    Some(v) => v,
                    None => continue,
                }
            }
        };
        match (&f.ty, v) {
            (Ty::Obj(inner), v) => apply_defaults(v, inner),
            (Ty::List(inner), Value::Array(items)) => {
                for item in items {
                    apply_defaults(item, inner);
                }
            }
            _ => {}
        }
    }
}

/// Reorders keys into the schema's (Go struct) order, sorts map keys (Go maps marshal sorted)
/// and drops `null` fields, as a typed
/// decode-then-encode round trip would; unknown keys (only under [`Ty::Any`]) keep their place
/// after the known ones.
///
/// Every write normalizes the whole object, and almost every object written is already in
/// order (it came from the store), so a map is rebuilt only when it is not; either way each
/// known field is then normalized in place.
pub fn normalize(obj: &mut Value, st: &'static Struct) {
    let Some(m) = obj.as_object_mut() else { return };
    if !in_order(m, st) {
        let old = std::mem::take(m);
        let mut entries: Vec<(usize, String, Value)> = Vec::with_capacity(old.len());
        for (k, v) in old {
            match st.fields.iter().position(|f| f.name == k) {
                Some(i) if !v.is_null() || matches!(st.fields[i].def, Def::Null) => entries.push((i, k, v)),
                None if !v.is_null() => entries.push((usize::MAX, k, v)),
                _ => {}
            }
        }
        // Stable: unknown keys keep their order after the known ones.
        crate::sort::sort_by_key(&mut entries, |e| e.0);
        for (_, k, v) in entries {
            m.insert(k, v);
        }
    }
    let mut from = 0;
    for (k, v) in m.iter_mut() {
        // Known keys are in schema order now: look for each after the previous one.
        let Some(i) = st.fields[from..].iter().position(|f| f.name == k) else { continue };
        let f = &st.fields[from + i];
        from += i + 1;
        match &f.ty {
            Ty::Obj(inner) => normalize(v, inner),
            // Go maps marshal with their keys sorted.
            Ty::StrMap | Ty::QuantityMap => {
                if let Value::Object(map) = v {
                    if !map.keys().is_sorted() {
                        map.sort_keys();
                    }
                }
            }
            Ty::List(inner) => {
                if let Value::Array(items) = v {
                    for item in items {
                        normalize(item, inner);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Sets `key` among an object's entries, kept in `st`'s order: in place when it is there, else
/// before the first entry the schema orders after it (unknown keys last, as [`normalize`] puts
/// them). Entries already in that order stay in it.
pub fn set_in_order(entries: &mut Vec<(Key, Frozen)>, st: &'static Struct, key: &str, value: Frozen) {
    if let Some(entry) = entries.iter_mut().find(|(k, _)| &**k == key) {
        entry.1 = value;
        return;
    }
    let rank = |k: &str| st.fields.iter().position(|f| f.name == k).unwrap_or(usize::MAX);
    let mine = rank(key);
    let at = entries.iter().position(|(k, _)| rank(k) > mine).unwrap_or(entries.len());
    entries.insert(at, (intern(key), value));
}

/// Whether a tree is already what a write stores for it: strict decoding accepts it,
/// [`apply_defaults`] adds nothing and [`normalize`] changes nothing (known keys only, in schema
/// order, none `null` unless its default is `null`, every defaulted field present). Conservative:
/// it answers `false` for any field type it does not check ([`Ty::IntOrString`], quantities),
/// and the caller then takes the general path, which settles the question.
pub fn is_canonical(v: &Frozen, st: &'static Struct) -> bool {
    let Some(entries) = v.as_object() else { return false };
    let mut from = 0;
    for (k, x) in entries.iter() {
        let Some(i) = st.fields[from..].iter().position(|f| f.name == k) else { return false };
        // A field skipped over that has a default would be added by `apply_defaults`.
        if st.fields[from..from + i].iter().any(|f| !matches!(f.def, Def::No)) {
            return false;
        }
        let f = &st.fields[from + i];
        from += i + 1;
        let ok = match (&f.ty, x) {
            (_, Frozen::Null) => matches!(f.def, Def::Null),
            (Ty::Any, _) => true,
            (Ty::Str, x) => x.is_string(),
            (Ty::Bool, x) => x.as_bool().is_some(),
            (Ty::Int64, x) => x.as_i64().is_some(),
            (Ty::Int32, x) => x.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
            // `normalize` sorts a map's keys; strict decoding wants strings.
            (Ty::StrMap, x) => {
                x.as_object().is_some_and(|m| m.iter().all(|(_, v)| v.is_string()) && m.keys().is_sorted())
            }
            (Ty::StrList, x) => x.as_array().is_some_and(|items| items.iter().all(Frozen::is_string)),
            (Ty::Obj(inner), x) => is_canonical(x, inner),
            (Ty::List(inner), x) => x.as_array().is_some_and(|items| items.iter().all(|i| is_canonical(i, inner))),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    st.fields[from..].iter().all(|f| matches!(f.def, Def::No))
}

/// Whether a map already has the order and content [`normalize`] gives it: known keys in
/// schema order and none `null` (unless its default is `null`), then unknown keys, none `null`.
fn in_order(m: &Map<String, Value>, st: &'static Struct) -> bool {
    let mut from = 0;
    let mut unknown_seen = false;
    for (k, v) in m {
        match st.fields[from..].iter().position(|f| f.name == k) {
            Some(i) => {
                let f = &st.fields[from + i];
                if unknown_seen || (v.is_null() && !matches!(f.def, Def::Null)) {
                    return false;
                }
                from += i + 1;
            }
            None => {
                // An earlier known field out of order, or an unknown one.
                if v.is_null() || st.fields[..from].iter().any(|f| f.name == k) {
                    return false;
                }
                unknown_seen = true;
            }
        }
    }
    true
}

/// The kind-specific defaults that are not constants (`SetDefaults_Deployment`'s rolling update
/// parameters, `SetDefaults_Container`'s image pull policy), after [`apply_defaults`].
pub fn apply_kind_defaults(kind: &Kind, obj: &mut Value) {
    match kind.kind {
        "Deployment" => {
            if let Some(strategy) = obj.pointer_mut("/spec/strategy").and_then(Value::as_object_mut) {
                if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate") {
                    let ru = strategy.entry("rollingUpdate").or_insert_with(|| Value::Object(Map::new()));
                    if let Some(ru) = ru.as_object_mut() {
                        for key in ["maxUnavailable", "maxSurge"] {
                            if ru.get(key).is_none_or(Value::is_null) {
                                ru.insert(key.to_string(), Value::from("25%"));
                            }
                        }
                    }
                }
            }
            if let Some(spec) = obj.pointer_mut("/spec/template/spec") {
                pod_spec_defaults(spec);
            }
        }
        "ReplicaSet" => {
            if let Some(spec) = obj.pointer_mut("/spec/template/spec") {
                pod_spec_defaults(spec);
            }
        }
        "Pod" => {
            if let Some(spec) = obj.get_mut("spec") {
                pod_spec_defaults(spec);
                pod_only_defaults(spec);
            }
        }
        _ => {}
    }
}

/// `SetDefaults_Container`'s `imagePullPolicy`: `Always` for `:latest` or an untagged image,
/// else `IfNotPresent` (a digest counts as a tag).
pub fn image_pull_policy(image: &str) -> &'static str {
    let last = image.rsplit('/').next().unwrap_or(image);
    if image.contains('@') {
        return "IfNotPresent";
    }
    match last.rsplit_once(':') {
        Some((_, "latest")) | None => "Always",
        Some(_) => "IfNotPresent",
    }
}

fn pod_spec_defaults(spec: &mut Value) {
    for list in ["initContainers", "containers"] {
        if let Some(Value::Array(cs)) = spec.get_mut(list) {
            for c in cs {
                let image = c.get("image").and_then(Value::as_str).unwrap_or("").to_string();
                if let Some(c) = c.as_object_mut() {
                    if c.get("imagePullPolicy").is_none_or(Value::is_null) {
                        c.insert("imagePullPolicy".into(), Value::from(image_pull_policy(&image)));
                    }
                }
            }
        }
    }
}

/// Defaults a Pod gets but a pod template does not: `SetDefaults_Pod` (`enableServiceLinks`) and
/// the admission plugins every cluster runs (ServiceAccount, Priority, DefaultTolerationSeconds).
fn pod_only_defaults(spec: &mut Value) {
    let Some(m) = spec.as_object_mut() else { return };
    let mut set = |k: &str, v: Value| {
        if m.get(k).is_none_or(Value::is_null) {
            m.insert(k.to_string(), v);
        }
    };
    set("serviceAccountName", Value::from("default"));
    set("serviceAccount", Value::from("default"));
    set("priority", Value::from(0));
    set("enableServiceLinks", Value::from(true));
    set("preemptionPolicy", Value::from("PreemptLowerPriority"));
    let tolerations = m.entry("tolerations").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(ts) = tolerations {
        for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
            let present = ts.iter().any(|t| {
                t.get("key").and_then(Value::as_str) == Some(key)
                    && t.get("effect").and_then(Value::as_str).is_none_or(|e| e == "NoExecute")
            });
            if !present {
                ts.push(serde_json::json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
            }
        }
    }
}

#[cfg(test)]
mod tests;
