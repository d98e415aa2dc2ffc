//! `kubectl explain`: the documentation of a resource and its fields, from the schema the API
//! server holds ([`crate::engine::apiserver::schema`], described by
//! [`crate::engine::apiserver::schema_docs`]), printed as kubectl 1.34 prints it.
//!
//! The format is kubectl's `plaintext` template (kubectl `pkg/explain/v2/templates/plaintext.tmpl`,
//! v0.34.0) rendered over the server's OpenAPI v3 document: `GROUP:` (not for the core group),
//! `KIND:`, `VERSION:` and a blank line; for a field path, `FIELD: name <type>` (with `ENUM:`
//! values) and two line breaks; `DESCRIPTION:` (the field's description, then its type's, each
//! wrapped at 76 columns as go-wordwrap wraps, indented 4, ending with a line of 4 spaces);
//! `FIELDS:` with each field as `name<TAB><type>`, ` -required-`, an `enum:` line of at most four
//! values, and its description wrapped at 78 minus the indent; fields sorted by name (the
//! template ranges over a map). `--recursive` prints names and types only, nested by two spaces.
//! Types are named as the template's `typeGuess` names them: `string`, `integer`, `boolean`,
//! `[]X`, `map[string]X`, a referenced type's name (`IntOrString`, `Quantity`, `ObjectMeta`), or
//! `Object` for a custom resource's inline objects.
//!
//! Errors are kubectl's: an unknown resource, a field that does not exist (after the header,
//! which the template has already written: kubectl 1.34 prints it to standard output before it
//! fails), an API version the server does not serve (kubectl `pkg/explain/v2/explain.go`,
//! `printModelDescriptionWithGenerator`) or does not serve this resource in (the template's
//! `throw`), and the argument checks of kubectl `pkg/cmd/explain/explain.go` (`Validate`).

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed};
use crate::engine::apiserver::schema::{self, Prop, Struct, Ty};
use crate::engine::apiserver::schema_docs::{self, FieldDoc};
use crate::engine::kinds::{Kind, KINDS};

/// `kubectl explain` flags (kubectl `pkg/cmd/explain/explain.go`, `AddFlags`).
pub const FLAGS: &[FlagSpec] = &[
    flag("recursive", None, FlagKind::Bool, "Print the fields of fields (Currently only 1 level deep)"),
    flag(
        "api-version",
        None,
        FlagKind::Str,
        "Get different explanations for particular API version (API group/version)",
    ),
    flag("output", Some('o'), FlagKind::Str, "Format in which to render the schema (plaintext, plaintext-openapiv2)"),
];

/// `kubectl explain TYPE[.FIELD...]`.
pub fn run(_api: &mut dyn Cluster, _ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) {
    match p.args.len() {
        0 => {
            return out.fail(CmdError::Plain(
                "You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n"
                    .into(),
            ))
        }
        1 => {}
        _ => return out.fail(CmdError::Plain("We accept only this format: explain RESOURCE\n".into())),
    }
    let arg = p.args[0].strip_suffix('.').unwrap_or(&p.args[0]);
    let api_version = p.str("api-version").filter(|v| !v.is_empty());
    let (kind, fields) = match resolve(arg, api_version.is_none()) {
        Ok(r) => r,
        Err(e) => return out.fail(e),
    };
    let (group, version) = match api_version {
        None => (kind.group.to_string(), kind.version.to_string()),
        Some(av) => match av.split('/').collect::<Vec<_>>().as_slice() {
            [v] => (String::new(), v.to_string()),
            [g, v] => (g.to_string(), v.to_string()),
            _ => return out.fail(CmdError::Plain(format!("unexpected GroupVersion string: {av}"))),
        },
    };
    let gvr = format!("{group}/{version}, Resource={}", kind.resource);
    if !KINDS.iter().any(|k| k.group == group && k.version == version) {
        return out.fail(CmdError::Plain(format!("couldn't find resource for \"{gvr}\"")));
    }
    if kind.group != group || kind.version != version {
        return out.fail(CmdError::Plain(format!("GVR ({gvr}) not found in OpenAPI schema")));
    }
    match p.str("output") {
        None | Some("plaintext") => {}
        Some("plaintext-openapiv2") => {
            return out.fail(CmdError::Plain(
                "this console prints explain's plaintext format only (the OpenAPI v3 one kubectl uses by default)"
                    .into(),
            ))
        }
        Some(other) => return out.fail(CmdError::Plain(format!("unrecognized format: {other}"))),
    }
    let mut text = String::new();
    if !kind.group.is_empty() {
        text.push_str(&format!("GROUP:      {}\n", kind.group));
    }
    text.push_str(&format!("KIND:       {}\nVERSION:    {}\n\n", kind.kind, kind.version));
    let crd = kind.kind == "Bucket";
    let recursive = p.bool("recursive");
    match explain(schema::root(kind), &fields, crd, recursive) {
        Some(body) => {
            text.push_str(&body);
            text.push('\n');
            out.out(text);
        }
        None => {
            // The template has written the header when the field path fails.
            out.out(text);
            let last = fields.last().copied().unwrap_or_default();
            out.fail(CmdError::Plain(format!("field \"{last}\" does not exist")));
        }
    }
}

/// The kind and the field path of `TYPE.FIELD...` (kubectl `pkg/explain/explain.go`,
/// `SplitAndParseResourceRequestWithMatchingPrefix` when `prefix`: `deployments.apps.spec` is
/// `spec` of `deployments.apps`; else `SplitAndParseResourceRequest`).
fn resolve(arg: &str, prefix: bool) -> Result<(&'static Kind, Vec<&str>), CmdError> {
    let parts: Vec<&str> = arg.split('.').collect();
    let resource = parts[0];
    let kind = Kind::lookup(resource)
        .filter(|_| !resource.is_empty())
        .ok_or_else(|| CmdError::Plain(format!("the server doesn't have a resource type \"{resource}\"")))?;
    let group_resource = kind.group_resource();
    let fields: Vec<&str> = match arg.strip_prefix(group_resource.as_str()) {
        Some(rest) if prefix => rest.split('.').skip(1).collect(),
        _ => parts[1..].to_vec(),
    };
    // The path is parsed as a JSONPath: `..` and `[...]` are not field names.
    if fields.iter().any(|f| f.is_empty() || f.contains(['[', ']', '*', '@', '?', '(', ')'])) {
        return Err(CmdError::Plain("invalid jsonpath syntax, first node must be field node".into()));
    }
    Ok((kind, fields))
}

/// What follows the header: the output for the field path, or None when it does not exist.
fn explain(root: &'static Struct, path: &[&str], crd: bool, recursive: bool) -> Option<String> {
    let mut s = String::new();
    let Some((last, parents)) = path.split_last() else {
        let desc = schema_docs::type_doc(root.go_name).map(|d| format!("{}\n", d.text)).unwrap_or_default();
        description(&mut s, &desc);
        fields(&mut s, root, crd, recursive);
        return Some(s);
    };
    let mut st = root;
    for name in parents {
        let prop = st.fields.iter().find(|f| f.name == *name)?;
        st = match prop.ty {
            Ty::Obj(inner) | Ty::List(inner) => inner,
            _ => return None,
        };
    }
    let prop = st.fields.iter().find(|f| f.name == *last)?;
    let doc = schema_docs::field_doc(st.go_name, prop.name);
    s.push_str(&format!("FIELD: {} <{}>\n", prop.name, type_name(prop, doc, crd)));
    if let Some(d) = doc.filter(|d| !d.enums.is_empty()) {
        s.push_str("ENUM:");
        for v in d.enums {
            s.push_str("\n    ");
            s.push_str(if v.is_empty() { "\"\"" } else { v });
        }
    }
    s.push_str("\n\n");
    let mut desc = String::new();
    if let Some(d) = doc {
        desc.push_str(d.text);
        if d.ty.is_some_and(|t| t != "string" && t != "[]integer") {
            desc.push_str(schema_docs::not_listed());
        }
        desc.push('\n');
    }
    if let Some(t) = schema_docs::scalar_type_doc(&prop.ty) {
        desc.push_str(t);
        desc.push('\n');
    }
    if let Ty::Obj(inner) | Ty::List(inner) = &prop.ty {
        // A custom resource's own objects are inline schemas, without a type description; its
        // metadata is still ObjectMeta.
        let inline = crd && inner.go_name != "ObjectMeta";
        if let Some(t) = schema_docs::type_doc(inner.go_name).filter(|_| !inline) {
            desc.push_str(t.text);
            desc.push('\n');
        }
    }
    description(&mut s, &desc);
    if let Ty::Obj(inner) | Ty::List(inner) = prop.ty {
        fields(&mut s, inner, crd, recursive);
    }
    Some(s)
}

/// `DESCRIPTION:` and the text (or `<empty>`), wrapped at 76 and indented 4.
fn description(s: &mut String, text: &str) {
    s.push_str("DESCRIPTION:\n");
    let text = if text.is_empty() { "<empty>" } else { text };
    s.push_str(&indent(4, &wrap(text, 76)));
    s.push('\n');
}

/// `FIELDS:` and the fields of `st` (nothing when it has none).
fn fields(s: &mut String, st: &'static Struct, crd: bool, recursive: bool) {
    if st.fields.is_empty() {
        return;
    }
    s.push_str("FIELDS:\n");
    field_list(s, st, 1, crd, recursive, 0);
}

fn field_list(s: &mut String, st: &'static Struct, level: usize, crd: bool, recursive: bool, depth: usize) {
    if depth > 32 {
        return;
    }
    let mut props: Vec<&Prop> = st.fields.iter().collect();
    crate::sort::sort_by_key(&mut props, |p| p.name.as_bytes());
    let pad = level * 2;
    for prop in props {
        let doc = schema_docs::field_doc(st.go_name, prop.name);
        s.push_str(&" ".repeat(pad));
        s.push_str(prop.name);
        s.push_str(&format!("\t<{}>", type_name(prop, doc, crd)));
        if doc.is_some_and(|d| d.required) {
            s.push_str(" -required-");
        }
        if let Some(d) = doc.filter(|d| !d.enums.is_empty()) {
            s.push('\n');
            s.push_str(&" ".repeat(pad));
            s.push_str("enum: ");
            for (i, v) in d.enums.iter().enumerate() {
                if i >= 4 {
                    s.push_str(", ....");
                    break;
                }
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(if v.is_empty() { "\"\"" } else { v });
            }
        }
        s.push('\n');
        if recursive {
            if let Ty::Obj(inner) | Ty::List(inner) = prop.ty {
                field_list(s, inner, level + 1, crd, recursive, depth + 1);
            }
        } else {
            let text = doc.map(|d| d.text).unwrap_or("<no description>");
            s.push_str(&indent(pad + 2, &wrap(text, 78 - pad)));
            s.push_str("\n\n");
        }
    }
}

/// The template's `typeGuess` for a field.
fn type_name(prop: &Prop, doc: Option<&FieldDoc>, crd: bool) -> String {
    let object = |s: &Struct| {
        if crd && s.go_name != "ObjectMeta" {
            "Object".to_string()
        } else {
            s.go_name.to_string()
        }
    };
    match &prop.ty {
        Ty::Str => "string".into(),
        Ty::Int32 | Ty::Int64 => "integer".into(),
        Ty::Bool => "boolean".into(),
        Ty::IntOrString => "IntOrString".into(),
        Ty::Quantity => "Quantity".into(),
        Ty::StrMap => "map[string]string".into(),
        Ty::QuantityMap => "map[string]Quantity".into(),
        Ty::StrList => "[]string".into(),
        Ty::Any => doc.and_then(|d| d.ty).unwrap_or("Object").to_string(),
        Ty::Obj(s) => doc.and_then(|d| d.ty).map(String::from).unwrap_or_else(|| object(s)),
        Ty::List(s) => format!("[]{}", object(s)),
    }
}

fn indent(n: usize, text: &str) -> String {
    let pad = " ".repeat(n);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

/// go-wordwrap's `WrapString` (what kubectl's `wrap` template function uses): words are kept
/// whole, a line breaks before the word that would pass `lim` characters (the spaces before it
/// dropped), and existing line breaks stay.
pub fn wrap(s: &str, lim: usize) -> String {
    let mut buf = String::with_capacity(s.len());
    let mut current = 0usize;
    let mut word = String::new();
    let mut space = String::new();
    let (mut word_len, mut space_len) = (0usize, 0usize);
    for c in s.chars() {
        if c == '\n' {
            buf.push_str(&space);
            space.clear();
            space_len = 0;
            if current + word_len > lim && word_len < lim {
                buf.push('\n');
            }
            buf.push_str(&word);
            word.clear();
            word_len = 0;
            buf.push('\n');
            current = 0;
        } else if c.is_whitespace() && c != '\u{a0}' {
            if space.is_empty() || !word.is_empty() {
                current += space_len + word_len;
                buf.push_str(&space);
                space.clear();
                space_len = 0;
                buf.push_str(&word);
                word.clear();
                word_len = 0;
            }
            space.push(c);
            space_len += 1;
        } else {
            word.push(c);
            word_len += 1;
            if current + space_len + word_len > lim && word_len < lim {
                buf.push('\n');
                current = 0;
                space.clear();
                space_len = 0;
            }
        }
    }
    if word.is_empty() {
        if current + space_len <= lim {
            buf.push_str(&space);
        }
    } else {
        buf.push_str(&space);
        buf.push_str(&word);
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_like_go_wordwrap() {
        assert_eq!(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(wrap("aaa bbb\nccc", 20), "aaa bbb\nccc");
        assert_eq!(wrap("a b\n", 10), "a b\n");
        assert_eq!(wrap("averyveryverylongword x", 5), "averyveryverylongword\nx");
        assert_eq!(indent(4, "a\nb\n"), "    a\n    b\n    ");
    }

    /// Every field of every type of the schema has a description, and every description names
    /// a field the schema has: the docs and the schema do not drift apart.
    #[test]
    fn the_schema_is_documented() {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack: Vec<&'static Struct> = KINDS.iter().map(schema::root).collect();
        while let Some(st) = stack.pop() {
            if !seen.insert(st.go_name) {
                continue;
            }
            let doc = schema_docs::type_doc(st.go_name).unwrap_or_else(|| panic!("no description of {}", st.go_name));
            for p in st.fields {
                assert!(
                    schema_docs::field_doc(st.go_name, p.name).is_some(),
                    "no description of {}.{}",
                    st.go_name,
                    p.name
                );
                if let Ty::Obj(inner) | Ty::List(inner) = p.ty {
                    stack.push(inner);
                }
            }
            for f in doc.fields {
                assert!(st.fields.iter().any(|p| p.name == f.name), "{}.{} is not in the schema", st.go_name, f.name);
            }
        }
        for d in schema_docs::DOCS {
            assert!(seen.contains(d.go_name), "{} is described but not in the schema", d.go_name);
        }
    }
}
