//! JSON and value text the way kubectl's Go code writes them.
//!
//! kubectl decodes objects into `map[string]interface{}` (unstructured), so `encoding/json`
//! writes map keys sorted and escapes `<`, `>`, `&`, U+2028 and U+2029. `-o json` is that
//! output re-indented with four spaces (cli-runtime printers/json.go); JSONPath prints maps and
//! slices compactly (client-go util/jsonpath `PrintResults`); the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation is the compact form plus `\n`.
//! Error messages that dump a value use Go's `%v` / `%#v` renderings, also here.

use serde_json::Value;

/// Compact JSON with sorted keys (`json.Marshal` of an unstructured value).
pub fn compact(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v, None, 0);
    out
}

/// Compact JSON with the keys in the value's own order (`json.Marshal` of a typed Go struct,
/// once the value's keys are in the struct's field order).
pub fn compact_in_order(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Array(a) => {
            out.push('[');
            out.push_str(&a.iter().map(compact_in_order).collect::<Vec<_>>().join(","));
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(&mut out, k);
                out.push(':');
                out.push_str(&compact_in_order(x));
            }
            out.push('}');
        }
        scalar => write(&mut out, scalar, None, 0),
    }
    out
}

/// `json.Indent(dst, src, "", indent)`: re-indents JSON text as it stands (keys keep their
/// order, strings their escapes); whitespace between tokens is dropped, except what trails the
/// value, which is kept; `{}` and `[]` stay on one line.
pub fn indent_text(src: &str, indent: &str) -> String {
    let body = src.trim_end();
    let trailing = &src[body.len()..];
    let mut out = String::new();
    let mut depth = 0usize;
    let mut need_indent = false;
    let mut in_string = false;
    let mut escaped = false;
    for c in body.trim_start().chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        }
        if need_indent && c != '}' && c != ']' {
            need_indent = false;
            depth += 1;
            newline(&mut out, Some(indent), depth);
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                need_indent = true;
            }
            ',' => {
                out.push(c);
                newline(&mut out, Some(indent), depth);
            }
            ':' => out.push_str(": "),
            '}' | ']' => {
                if need_indent {
                    // An empty object or array.
                    need_indent = false;
                } else {
                    depth = depth.saturating_sub(1);
                    newline(&mut out, Some(indent), depth);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push_str(trailing);
    out
}

/// JSON indented with four spaces and sorted keys, without a trailing newline
/// (`json.MarshalIndent(obj, "", "    ")`).
pub fn indented(v: &Value) -> String {
    let mut out = String::new();
    write(&mut out, v, Some("    "), 0);
    out
}

fn newline(out: &mut String, indent: Option<&str>, depth: usize) {
    if let Some(ind) = indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(ind);
        }
    }
}

fn write(out: &mut String, v: &Value, indent: Option<&str>, depth: usize) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => string(out, s),
        Value::Array(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write(out, x, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Object(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return;
            }
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                string(out, k);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write(out, &m[k.as_str()], indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push('}');
        }
    }
}

/// A JSON string literal as Go's encoder escapes it (HTML-safe).
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A scalar printed as text (`fmt.Fprint` of the decoded value): strings bare, numbers and
/// booleans as Go prints them; `null` as `<nil>`.
pub fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => compact(other),
    }
}

/// The Go type name of a decoded JSON value, as `%v` of `reflect.Type` prints it.
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `%v` of a decoded value: `map[a:1 b:[x y]]`, keys sorted.
pub fn go_v(v: &Value) -> String {
    match v {
        Value::Array(a) => format!("[{}]", a.iter().map(go_v).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            let parts: Vec<String> = keys.iter().map(|k| format!("{k}:{}", go_v(&m[k.as_str()]))).collect();
            format!("map[{}]", parts.join(" "))
        }
        other => scalar_text(other),
    }
}

/// Go's `%#v` of a decoded value: `map[string]interface {}{"a":1, "b":[]interface {}{"x"}}`.
pub fn go_sharp_v(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::String(s) => {
            let mut out = String::new();
            string(&mut out, s);
            out
        }
        Value::Array(a) => format!("[]interface {{}}{{{}}}", a.iter().map(go_sharp_v).collect::<Vec<_>>().join(", ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            crate::sort::sort(&mut keys);
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", go_sharp_v(&Value::String((*k).clone())), go_sharp_v(&m[k.as_str()])))
                .collect();
            format!("map[string]interface {{}}{{{}}}", parts.join(", "))
        }
        other => scalar_text(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn indent_text_is_json_indent() {
        assert_eq!(
            indent_text("{\"b\":[1,{}],\"a\":\"x, y: {\\\"z\\\"}\",\"c\":[]}\n", "  "),
            "{\n  \"b\": [\n    1,\n    {}\n  ],\n  \"a\": \"x, y: {\\\"z\\\"}\",\n  \"c\": []\n}\n"
        );
        assert_eq!(
            compact_in_order(&serde_json::json!({"kind": "A", "apiVersion": "v1", "x": "<"})),
            "{\"kind\":\"A\",\"apiVersion\":\"v1\",\"x\":\"\\u003c\"}"
        );
    }

    #[test]
    fn sorted_and_html_escaped() {
        let v = json!({"kind": "Pod", "apiVersion": "v1", "m": {"b": [], "a": {}}, "s": "<a&b>"});
        assert_eq!(compact(&v), r#"{"apiVersion":"v1","kind":"Pod","m":{"a":{},"b":[]},"s":"\u003ca\u0026b\u003e"}"#);
        assert_eq!(
            indented(&json!({"b": [1, 2], "a": "x"})),
            "{\n    \"a\": \"x\",\n    \"b\": [\n        1,\n        2\n    ]\n}"
        );
    }

    #[test]
    fn go_renderings() {
        let v = json!({"b": ["x", 1], "a": null});
        assert_eq!(go_v(&v), "map[a:<nil> b:[x 1]]");
        assert_eq!(go_sharp_v(&v), r#"map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{"x", 1}}"#);
        assert_eq!(go_type(&json!(1.5)), "float64");
    }
}
