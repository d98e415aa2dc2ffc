//! Manifests in and out: what `-f` reads (YAML or JSON, several documents, `kind: List`) and
//! what `-o yaml` prints. The YAML itself is the `yaml` module's business; this adapter adds
//! kubectl's framing (List unwrapping, `---` separators, error wording).

use serde_json::Value;

/// Reads every object of a manifest: YAML documents or JSON values; a `List` (or any `*List`
/// kind with `items`) is unwrapped as kubectl's builder does. Empty documents are skipped.
pub fn parse_objects(text: &str) -> Result<Vec<Value>, String> {
    let docs = parse_documents(text)?;
    let mut out = Vec::new();
    for d in docs {
        if d.is_null() {
            continue;
        }
        let is_list = d.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List"))
            && d.get("items").is_some_and(Value::is_array);
        if is_list {
            if let Some(items) = d.get("items").and_then(Value::as_array) {
                out.extend(items.iter().cloned());
            }
        } else {
            out.push(d);
        }
    }
    Ok(out)
}

fn parse_documents(text: &str) -> Result<Vec<Value>, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let mut out = Vec::new();
        for v in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
            out.push(v.map_err(|e| format!("error converting YAML to JSON: {e}"))?);
        }
        return Ok(out);
    }
    crate::yaml::parse_documents(text).map_err(|e| e.to_string())
}

/// An object as `-o yaml` prints it (keys sorted, as kubectl's unstructured output is).
pub fn to_yaml(v: &Value) -> String {
    crate::yaml::to_yaml(&sorted(v))
}

/// A copy of `v` with every object's keys in sorted order (Go's map encoding order).
pub fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k.as_str()]))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}
