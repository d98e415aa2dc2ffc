use super::strict::{At, Walk};
use super::*;
use serde_json::json;

fn kind(k: &str) -> &'static Kind {
    Kind::lookup(k).unwrap()
}

#[test]
fn unknown_fields_are_listed_with_paths() {
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"replicass": 3, "template": {"spec": {"containers": [{"name": "a", "imagee": "x"}]}}}});
    assert_eq!(
        strict_decode(kind("deploy"), &d).unwrap_err().message(),
        "strict decoding error: unknown field \"spec.replicass\", unknown field \"spec.template.spec.containers[0].imagee\""
    );
}

#[test]
fn wrong_types_use_encoding_json_wording() {
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": "3"}});
    assert_eq!(
        strict_decode(kind("deploy"), &d).unwrap_err().message(),
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    );
    let p = json!({"spec": {"containers": [{"name": "a", "image": 5}]}});
    assert_eq!(
        strict_decode(kind("po"), &p).unwrap_err().message(),
        "json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string"
    );
}

#[test]
fn defaults_and_order() {
    let mut d = json!({"spec": {"template": {"spec": {"containers": [{"image": "nginx", "name": "c"}]}}},
        "metadata": {"name": "web"}, "kind": "Deployment", "apiVersion": "apps/v1"});
    apply_defaults(&mut d, root(kind("deploy")));
    apply_kind_defaults(kind("deploy"), &mut d);
    normalize(&mut d, root(kind("deploy")));
    let keys: Vec<&String> = d.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec", "status"]);
    assert_eq!(d["spec"]["replicas"], 1);
    assert_eq!(
        d["spec"]["strategy"],
        json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}})
    );
    let c = &d["spec"]["template"]["spec"]["containers"][0];
    let ckeys: Vec<&String> = c.as_object().unwrap().keys().collect();
    assert_eq!(
        ckeys,
        ["name", "image", "resources", "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy"]
    );
    assert_eq!(c["imagePullPolicy"], "Always");
    assert_eq!(d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"], 30);
}

/// The previous, straightforward forms of the three walks every write makes (rebuild every
/// map; build both paths for every field), kept as the reference the faster ones must match.
mod reference {
    use super::super::strict::is_int;
    use super::super::*;

    pub fn apply_defaults(obj: &mut Value, st: &'static Struct) {
        let Some(m) = obj.as_object_mut() else { return };
        for f in st.fields {
            if !m.contains_key(f.name) || m.get(f.name).is_some_and(Value::is_null) {
                let v = match f.def {
                    Def::No => continue,
                    Def::Int(i) => Value::from(i),
                    Def::Str(s) => Value::from(s),
                    Def::Bool(b) => Value::from(b),
                    Def::Empty => Value::Object(Map::new()),
                    Def::Null => Value::Null,
                };
                m.insert(f.name.to_string(), v);
            }
            match (&f.ty, m.get_mut(f.name)) {
                (Ty::Obj(inner), Some(v)) => apply_defaults(v, inner),
                (Ty::List(inner), Some(Value::Array(items))) => {
                    for item in items {
                        apply_defaults(item, inner);
                    }
                }
                _ => {}
            }
        }
    }

    pub fn normalize(obj: &mut Value, st: &'static Struct) {
        let Some(m) = obj.as_object_mut() else { return };
        let mut old = std::mem::take(m);
        for f in st.fields {
            if let Some(mut v) = old.shift_remove(f.name) {
                if v.is_null() {
                    if matches!(f.def, Def::Null) {
                        m.insert(f.name.to_string(), v);
                    }
                    continue;
                }
                match &f.ty {
                    Ty::Obj(inner) => normalize(&mut v, inner),
                    Ty::StrMap | Ty::QuantityMap => {
                        if let Value::Object(map) = &mut v {
                            map.sort_keys();
                        }
                    }
                    Ty::List(inner) => {
                        if let Value::Array(items) = &mut v {
                            for item in items {
                                normalize(item, inner);
                            }
                        }
                    }
                    _ => {}
                }
                m.insert(f.name.to_string(), v);
            }
        }
        for (k, v) in old {
            if !v.is_null() {
                m.insert(k, v);
            }
        }
    }

    pub struct Walk {
        pub unknown: Vec<String>,
        pub type_error: Option<(String, String)>,
    }

    impl Walk {
        pub fn check_struct(&mut self, obj: &Map<String, Value>, st: &'static Struct, go_path: &str, path: &str) {
            for (k, v) in obj {
                let child_go = if go_path.is_empty() { k.clone() } else { format!("{go_path}.{k}") };
                let child = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match st.fields.iter().find(|f| f.name == k) {
                    None => self.unknown.push(child),
                    Some(f) => self.check_value(v, &f.ty, &child_go, &child),
                }
            }
        }

        fn err(&mut self, go_path: &str, path: &str) {
            self.type_error.get_or_insert((go_path.to_string(), path.to_string()));
        }

        fn check_value(&mut self, v: &Value, ty: &Ty, go_path: &str, path: &str) {
            if v.is_null() {
                return;
            }
            let ok = match ty {
                Ty::Str => v.is_string(),
                Ty::Int32 => is_int(v, true),
                Ty::Int64 => is_int(v, false),
                Ty::Bool => v.is_boolean(),
                Ty::IntOrString => v.is_string() || is_int(v, true),
                Ty::Quantity => v.is_string() || v.is_number(),
                Ty::Any => true,
                Ty::StrMap => match v.as_object() {
                    Some(m) => {
                        if m.values().any(|x| !x.is_string() && !x.is_null()) {
                            self.err(go_path, path);
                        }
                        true
                    }
                    None => false,
                },
                Ty::QuantityMap => match v.as_object() {
                    Some(m) => {
                        if m.values().any(|x| !x.is_string() && !x.is_number()) {
                            self.err(go_path, path);
                        }
                        true
                    }
                    None => false,
                },
                Ty::StrList => match v.as_array() {
                    Some(a) => {
                        if a.iter().any(|x| !x.is_string()) {
                            self.err(go_path, path);
                        }
                        true
                    }
                    None => false,
                },
                Ty::Obj(inner) => match v.as_object() {
                    Some(m) => {
                        self.check_struct(m, inner, go_path, path);
                        true
                    }
                    None => false,
                },
                Ty::List(inner) => match v.as_array() {
                    Some(a) => {
                        for (i, item) in a.iter().enumerate() {
                            let item_path = format!("{path}[{i}]");
                            match item.as_object() {
                                Some(m) => self.check_struct(m, inner, go_path, &item_path),
                                None if item.is_null() => {}
                                None => self.err(go_path, &item_path),
                            }
                        }
                        true
                    }
                    None => false,
                },
            };
            if !ok {
                self.err(go_path, path);
            }
        }
    }
}

/// A random object shaped by a schema: some of its fields, in a random order, some `null`,
/// some unknown keys anywhere, maps with unsorted keys, now and then a value of a wrong type.
fn arbitrary(rng: &mut crate::engine::rand::Rng, st: &'static Struct, depth: u32) -> Value {
    let mut fields: Vec<&Prop> = st.fields.iter().filter(|_| rng.below(3) > 0).collect();
    for i in (1..fields.len()).rev() {
        if rng.below(4) == 0 {
            fields.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    let mut m = Map::new();
    for f in fields {
        if rng.below(8) == 0 {
            m.insert(format!("x{}", rng.below(3)), json!(rng.below(2) == 0));
        }
        let v = match rng.below(12) {
            0 => Value::Null,
            1 => json!([1, "a"]),
            _ => match &f.ty {
                Ty::Str => json!("s"),
                Ty::Int32 | Ty::Int64 | Ty::IntOrString => json!(3),
                Ty::Bool => json!(true),
                Ty::Quantity => json!("1Gi"),
                Ty::StrMap | Ty::QuantityMap => json!({"b": "1", "a": "2", "c": null}),
                Ty::StrList => json!(["a", "b"]),
                Ty::Any => json!({"z": 1, "a": null}),
                Ty::Obj(inner) if depth < 5 => arbitrary(rng, inner, depth + 1),
                Ty::List(inner) if depth < 5 => {
                    Value::Array((0..rng.below(3)).map(|_| arbitrary(rng, inner, depth + 1)).collect())
                }
                _ => json!({}),
            },
        };
        m.insert(f.name.to_string(), v);
    }
    Value::Object(m)
}

#[test]
fn the_walks_match_their_reference_on_arbitrary_objects() {
    let mut rng = crate::engine::rand::Rng::new(7);
    for kind_name in ["Pod", "Deployment", "ReplicaSet", "Event", "Namespace", "Node", "Lease", "ConfigMap"] {
        let st = root(Kind::by_kind(kind_name).unwrap());
        for _ in 0..200 {
            let obj = arbitrary(&mut rng, st, 0);
            let (mut a, mut b) = (obj.clone(), obj.clone());
            normalize(&mut a, st);
            reference::normalize(&mut b, st);
            assert_eq!(a.to_string(), b.to_string(), "normalize of {obj}");
            // Normalizing twice changes nothing.
            normalize(&mut a, st);
            assert_eq!(a.to_string(), b.to_string(), "normalize again of {obj}");
            let (mut a, mut b) = (obj.clone(), obj.clone());
            apply_defaults(&mut a, st);
            reference::apply_defaults(&mut b, st);
            assert_eq!(a.to_string(), b.to_string(), "defaults of {obj}");
            let mut w = Walk { unknown: Vec::new(), type_error: None };
            let mut r = reference::Walk { unknown: Vec::new(), type_error: None };
            if let Some(m) = obj.as_object() {
                w.check_struct(m, st, &At::ROOT, &At::ROOT);
                r.check_struct(m, st, "", "");
            }
            assert_eq!(w.unknown, r.unknown, "unknown fields of {obj}");
            let paths = w.type_error.map(|e| match e {
                DecodeError::Type { go_path, path, .. } => (go_path, path),
                DecodeError::Unknown(_) => Default::default(),
            });
            assert_eq!(paths.is_some(), r.type_error.is_some(), "type error of {obj}");
            if let (Some(p), Some(q)) = (&paths, &r.type_error) {
                assert_eq!(p, q, "type error path of {obj}");
            }
        }
    }
}

#[test]
fn pull_policy() {
    assert_eq!(image_pull_policy("nginx"), "Always");
    assert_eq!(image_pull_policy("nginx:latest"), "Always");
    assert_eq!(image_pull_policy("nginx:1.27"), "IfNotPresent");
    assert_eq!(image_pull_policy("localhost:5000/app"), "Always");
    assert_eq!(image_pull_policy("nginx@sha256:abc"), "IfNotPresent");
}
