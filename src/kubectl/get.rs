//! `kubectl get`: tables, `-o wide|name|json|yaml|jsonpath=|custom-columns=`, `--watch`
//! (kubectl `pkg/cmd/get/get.go`, `GetOptions.Run`).

use super::cluster::Cluster;
use super::cmd::{CmdCtx, CmdError, Output};
use super::flags::{flag, FlagKind, FlagSpec, Parsed, ALL_NAMESPACES};
use super::jsonpath::JsonPath;
use super::printers::{self, TableOptions};
use super::resources::{self, Target};
use super::table::TabWriter;
use super::watch::{print_event, WatchPrinter, WatchState};
use super::{gojson, manifest};
use crate::engine::apiserver::{FieldSelector, WatchFrom};
use crate::engine::kinds::{Kind, KINDS};
use crate::engine::labels::Selector;
use crate::engine::object::ObjectExt;
use crate::engine::status::Reason;
use serde_json::{json, Value};

/// The flags of `kubectl get`.
pub const FLAGS: &[FlagSpec] = &[
    ALL_NAMESPACES,
    flag(
        "output",
        Some('o'),
        FlagKind::Str,
        "Output format: json, yaml, name, wide, jsonpath=..., jsonpath-as-json=..., custom-columns=...",
    ),
    flag("selector", Some('l'), FlagKind::Str, "Selector (label query) to filter on, e.g. -l key1=value1,key2=value2."),
    flag("show-labels", None, FlagKind::Bool, "When printing, show all labels as the last column."),
    flag("watch", Some('w'), FlagKind::Bool, "After listing/getting the requested object, watch for changes."),
    flag(
        "watch-only",
        None,
        FlagKind::Bool,
        "Watch for changes to the requested object(s), without listing/getting first.",
    ),
    flag(
        "output-watch-events",
        None,
        FlagKind::Bool,
        "Output watch event objects when --watch or --watch-only is used.",
    ),
    flag(
        "no-headers",
        None,
        FlagKind::Bool,
        "When using the default or custom-column output format, don't print headers.",
    ),
    flag(
        "ignore-not-found",
        None,
        FlagKind::Bool,
        "If set to true, suppresses NotFound error for specific objects that do not exist.",
    ),
    flag(
        "filename",
        Some('f'),
        FlagKind::List,
        "Filename or '-' (the here-document) identifying the resources to get.",
    ),
    flag(
        "sort-by",
        None,
        FlagKind::Str,
        "If non-empty, sort list types using this field specification (a JSONPath expression).",
    ),
    flag(
        "label-columns",
        Some('L'),
        FlagKind::List,
        "Accepts a comma separated list of labels that are going to be presented as columns.",
    ),
    flag(
        "field-selector",
        None,
        FlagKind::Str,
        "Selector (field query) to filter on, e.g. --field-selector status.phase=Running.",
    ),
];

/// A parsed `-o` value.
#[derive(Clone, Debug)]
pub enum Format {
    /// The default table.
    Table,
    /// `-o wide`.
    Wide,
    /// `-o name`.
    Name,
    /// `-o json`.
    Json,
    /// `-o yaml`.
    Yaml,
    /// `-o jsonpath=...`.
    JsonPath(JsonPath),
    /// `-o jsonpath-as-json=...`.
    JsonPathAsJson(JsonPath),
    /// `-o custom-columns=HEADER:path,...`.
    CustomColumns(Vec<(String, JsonPath)>),
}

/// Parses `-o`. Errors are kubectl's.
pub fn parse_format(o: Option<&str>) -> Result<Format, CmdError> {
    let Some(o) = o else { return Ok(Format::Table) };
    let (name, arg) = match o.split_once('=') {
        Some((n, a)) => (n, Some(a)),
        None => (o, None),
    };
    let jsonpath = |a: Option<&str>| -> Result<JsonPath, CmdError> {
        let a = a
            .filter(|a| !a.is_empty())
            .ok_or_else(|| CmdError::Plain("template format specified but no template given".into()))?;
        JsonPath::parse(a).map_err(|e| CmdError::Plain(format!("error parsing jsonpath {a}, {e}\n")))
    };
    Ok(match name {
        "" => Format::Table,
        "wide" => Format::Wide,
        "name" => Format::Name,
        "json" => Format::Json,
        "yaml" => Format::Yaml,
        "jsonpath" => Format::JsonPath(jsonpath(arg)?),
        "jsonpath-as-json" => Format::JsonPathAsJson(jsonpath(arg)?),
        "custom-columns" => Format::CustomColumns(parse_custom_columns(arg.unwrap_or(""))?),
        _ => {
            return Err(CmdError::Plain(format!(
                "unable to match a printer suitable for the output format \"{o}\", allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml"
            )))
        }
    })
}

/// `-o custom-columns=NAME:.metadata.name,...` (cli-runtime customcolumn.go): each path is a
/// relaxed JSONPath (`.a.b`, `a.b`, `{.a.b}`).
fn parse_custom_columns(spec: &str) -> Result<Vec<(String, JsonPath)>, CmdError> {
    if spec.is_empty() {
        return Err(CmdError::Plain("custom-columns format specified but no custom columns given".into()));
    }
    let mut cols = Vec::new();
    for part in spec.split(',') {
        let Some((header, path)) = part.split_once(':') else {
            return Err(CmdError::Plain(format!(
                "unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>"
            )));
        };
        let inner = path.strip_prefix('{').unwrap_or(path);
        let inner = inner.strip_suffix('}').unwrap_or(inner);
        if inner.is_empty() && !path.is_empty() || inner.contains(['{', '}']) {
            return Err(CmdError::Plain(
                "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'".into(),
            ));
        }
        let relaxed = if inner.starts_with('.') { format!("{{{inner}}}") } else { format!("{{.{inner}}}") };
        let jp = JsonPath::parse(&relaxed).map_err(|e| CmdError::Plain(e.to_string()))?;
        cols.push((header.to_string(), jp));
    }
    Ok(cols)
}

fn custom_column_rows(cols: &[(String, JsonPath)], objs: &[Value], header: bool) -> Result<Vec<Vec<String>>, CmdError> {
    let mut rows = Vec::new();
    if header {
        rows.push(cols.iter().map(|(h, _)| h.clone()).collect());
    }
    for o in objs {
        let mut row = Vec::new();
        for (_, jp) in cols {
            let values = jp.find(o).map_err(CmdError::Plain)?;
            if values.is_empty() {
                row.push("<none>".to_string());
            } else {
                row.push(values.iter().map(gojson::go_v).collect::<Vec<_>>().join(","));
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// `--sort-by`: orders objects by a relaxed JSONPath (kubectl pkg/cmd/get/sorter.go): numbers
/// numerically, strings in natural order (digit runs compare as numbers); objects without the
/// field come first. A field no object has is an error.
fn sort_by(objs: &mut [Value], field: &str) -> Result<(), CmdError> {
    let inner = field.trim_start_matches('{').trim_end_matches('}');
    let relaxed = if inner.starts_with('.') { format!("{{{inner}}}") } else { format!("{{.{inner}}}") };
    let jp =
        JsonPath::parse(&relaxed).map_err(|e| CmdError::Plain(format!("error parsing jsonpath {relaxed}, {e}")))?;
    let mut keyed: Vec<(Option<Value>, Value)> = Vec::new();
    for o in objs.iter() {
        let v = jp.find(o).map_err(CmdError::Plain)?;
        keyed.push((v.into_iter().next(), o.clone()));
    }
    if !keyed.is_empty() && keyed.iter().all(|(k, _)| k.is_none()) {
        return Err(CmdError::Plain(format!("couldn't find any field with path \"{relaxed}\" in the list of objects")));
    }
    crate::sort::sort_by(&mut keyed, |(a, _), (b, _)| compare_keys(a.as_ref(), b.as_ref()));
    for (slot, (_, o)) in objs.iter_mut().zip(keyed) {
        *slot = o;
    }
    Ok(())
}

fn compare_keys(a: Option<&Value>, b: Option<&Value>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            x.as_f64().partial_cmp(&y.as_f64()).unwrap_or(Ordering::Equal)
        }
        (Some(Value::String(x)), Some(Value::String(y))) => natural_cmp(x, y),
        (Some(x), Some(y)) => gojson::compact(x).cmp(&gojson::compact(y)),
    }
}

/// Natural order: runs of digits compare by value, everything else by character.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return std::cmp::Ordering::Equal,
            (None, Some(_)) => return std::cmp::Ordering::Less,
            (Some(_), None) => return std::cmp::Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let take = |it: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                    let mut s = String::new();
                    while let Some(c) = it.peek().copied().filter(char::is_ascii_digit) {
                        s.push(c);
                        it.next();
                    }
                    s
                };
                let (m, n) = (take(&mut x), take(&mut y));
                let (mt, nt) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let ord = mt.len().cmp(&nt.len()).then_with(|| mt.cmp(nt));
                if ord != std::cmp::Ordering::Equal {
                    return ord;
                }
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                x.next();
                y.next();
            }
        }
    }
}

/// The `List` kubectl prints for several objects in `-o json|yaml|jsonpath`.
pub fn list_of(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}})
}

/// The objects of one kind found by a `get`, in server order.
struct Found {
    kind: &'static Kind,
    objects: Vec<Value>,
}

/// get.go's `Complete` warnings and `Validate` errors, which come before anything is fetched
/// (the missing-resource error is checked later, once `-f` was read).
fn check_flags(p: &Parsed, out: &mut Output) -> Result<(), CmdError> {
    let sort_by = p.str("sort-by").is_some_and(|s| !s.is_empty());
    if p.bool("watch") && sort_by {
        out.err("warning: --watch requested, --sort-by will be ignored for watch events received\n");
    } else if p.bool("watch-only") && sort_by {
        out.err("warning: --watch-only requested, --sort-by will be ignored\n");
    }
    let output = p.str("output").unwrap_or("");
    if p.bool("show-labels") && !output.is_empty() && output != "wide" {
        return Err(CmdError::Plain(format!("--show-labels option cannot be used with {output} printer")));
    }
    if p.bool("output-watch-events") && !(p.bool("watch") || p.bool("watch-only")) {
        return Err(CmdError::Plain(
            "--output-watch-events option can only be used with --watch or --watch-only".into(),
        ));
    }
    Ok(())
}

/// Runs `kubectl get`; returns the watch to keep running for `--watch`.
pub fn run(api: &mut dyn Cluster, ctx: &CmdCtx<'_>, p: &Parsed, out: &mut Output) -> Option<WatchState> {
    if let Err(e) = check_flags(p, out) {
        out.fail(e);
        return None;
    }
    let format = match parse_format(p.str("output")) {
        Ok(f) => f,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    let all_ns = p.bool("all-namespaces");
    let selector = match p.str("selector").map(Selector::parse).transpose() {
        Ok(s) => s.unwrap_or_else(Selector::everything),
        Err(e) => {
            out.fail(CmdError::Plain(e));
            return None;
        }
    };
    let fields = match p.str("field-selector").map(FieldSelector::parse).transpose() {
        Ok(f) => f.unwrap_or_else(FieldSelector::everything),
        Err(e) => {
            out.fail(CmdError::Plain(e));
            return None;
        }
    };
    let mut targets = match resources::resolve(&p.args, true) {
        Ok(t) => t,
        Err(e) => {
            out.fail(e);
            return None;
        }
    };
    if !p.list("filename").is_empty() {
        match ctx.read_files(&p.list("filename")).and_then(|files| super::mutate::objects_from_files(ctx, &files)) {
            Ok(objs) => {
                targets.extend(objs.into_iter().map(|(_, kind, obj)| Target::Named(kind, obj.name().to_string())))
            }
            Err(e) => {
                out.fail(e);
                return None;
            }
        }
    }
    if targets.is_empty() {
        out.err("You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n");
        out.fail(CmdError::Usage {
            cmd: "get".into(),
            msg: "Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).".into(),
        });
        return None;
    }
    if all_ns && targets.iter().any(|t| matches!(t, Target::Named(..))) {
        out.fail(CmdError::Plain("a resource cannot be retrieved by name across all namespaces".into()));
        return None;
    }
    if p.has("selector") && targets.iter().any(|t| matches!(t, Target::Named(..))) {
        out.fail(CmdError::Plain("name cannot be provided when a selector is specified".into()));
        return None;
    }
    let single_named = targets.len() == 1 && matches!(targets[0], Target::Named(..));
    let ns_for = |k: &Kind| -> Option<String> { (k.namespaced && !all_ns).then(|| ctx.ns.to_string()) };

    // Fetch.
    let mut found: Vec<Found> = Vec::new();
    let mut errors: Vec<CmdError> = Vec::new();
    let mut list_rv = 0;
    for t in &targets {
        let kind = t.kind();
        let objs = match t {
            Target::All(k) => match api.server().list_filtered(k, ns_for(k).as_deref(), &selector, &fields) {
                Ok(l) => {
                    list_rv = l.resource_version;
                    l.items
                }
                Err(mut e) => {
                    // cli-runtime selector.go names the list it could not make.
                    if matches!(e.reason, Reason::BadRequest | Reason::NotFound) {
                        let gvr = format!("{}/{}, Resource={}", k.group, k.version, k.resource);
                        let (ls, fs) = (p.str("selector").unwrap_or(""), p.str("field-selector").unwrap_or(""));
                        e.message = if ls.is_empty() && fs.is_empty() {
                            format!("Unable to list {gvr:?}: {}", e.message)
                        } else {
                            format!(
                                "Unable to find {gvr:?} that match label selector {ls:?}, field selector {fs:?}: {}",
                                e.message
                            )
                        };
                    }
                    errors.push(e.into());
                    continue;
                }
            },
            Target::Named(k, name) => {
                match api.get(k, ns_for(k).as_deref().or(Some(ctx.ns)).filter(|_| k.namespaced), name) {
                    Ok(o) => vec![o],
                    Err(e) if p.bool("ignore-not-found") && e.reason == crate::engine::status::Reason::NotFound => {
                        continue
                    }
                    Err(e) => {
                        errors.push(e.into());
                        continue;
                    }
                }
            }
        };
        match found.iter_mut().find(|f| std::ptr::eq(f.kind, kind)) {
            Some(f) => f.objects.extend(objs),
            None => found.push(Found { kind, objects: objs }),
        }
    }
    found.retain(|f| !f.objects.is_empty() || p.bool("watch") || p.bool("watch-only"));
    if let Some(field) = p.str("sort-by") {
        for f in &mut found {
            if let Err(e) = sort_by(&mut f.objects, field) {
                out.fail(e);
                return None;
            }
        }
    }
    let now = api.now();

    let watching = p.bool("watch") || p.bool("watch-only");
    if !watching {
        // kubectl's trackingWriter: "No resources found" only when the table printer printed
        // nothing; the other printers (printGeneric) print the empty List or nothing at all.
        let before = out.stdout().len();
        print_found(&found, &format, p, all_ns, single_named, now, out);
        let human = matches!(format, Format::Table | Format::Wide);
        let written = !human || out.stdout().len() > before;
        for e in errors {
            out.fail(e);
        }
        if !written && out.exit_code == 0 && !p.bool("ignore-not-found") {
            let namespaced = targets.iter().all(|t| t.kind().namespaced);
            if namespaced && !all_ns {
                out.err(format!("No resources found in {} namespace.\n", ctx.ns));
            } else {
                out.err("No resources found\n");
            }
        }
        return None;
    }

    // --watch: one kind only.
    if found.len() > 1 || targets.iter().any(|t| !std::ptr::eq(t.kind(), targets[0].kind())) {
        out.fail(CmdError::Plain("you may only specify a single resource type".into()));
        return None;
    }
    if let Some(e) = errors.into_iter().next() {
        out.fail(e);
        return None;
    }
    let kind = targets[0].kind();
    let name = match &targets[0] {
        Target::Named(_, n) => Some(n.clone()),
        Target::All(_) => None,
    };
    let events = p.bool("output-watch-events");
    let opts = table_options(&format, p, all_ns, false, events);
    let mut printer = match &format {
        Format::Table | Format::Wide => WatchPrinter::Table(TabWriter::new(), opts.clone()),
        Format::Name => WatchPrinter::Name,
        Format::Json => WatchPrinter::Json,
        Format::Yaml => WatchPrinter::Yaml,
        Format::JsonPath(jp) | Format::JsonPathAsJson(jp) => WatchPrinter::JsonPath(jp.clone()),
        Format::CustomColumns(_) => WatchPrinter::Table(TabWriter::new(), opts),
    };
    let mut header_done = false;
    if !p.bool("watch-only") {
        for o in found.first().map(|f| f.objects.as_slice()).unwrap_or(&[]) {
            print_event(&mut printer, kind, o, "ADDED", events, &mut header_done, now, out);
        }
    }
    let ns = ns_for(kind);
    let (from, start_rv) = match &name {
        Some(_) => (WatchFrom::Any, api.resource_version()),
        None => (WatchFrom::Exact(list_rv), 0),
    };
    let id = match api.server_mut().watch_filtered(kind, ns.as_deref(), selector, fields, from) {
        Ok(id) => id,
        Err(e) => {
            out.fail(e.into());
            return None;
        }
    };
    let where_ = match &ns {
        Some(n) => format!(" in {n}"),
        None => String::new(),
    };
    let what = match &name {
        Some(n) => format!("{}/{n}", kind.name_prefix()),
        None => kind.group_resource(),
    };
    Some(WatchState {
        id,
        kind,
        name,
        printer,
        events,
        skip_initial_added: start_rv > 0,
        start_rv,
        header_done,
        description: format!("watching {what}{where_} (Ctrl-C to stop)"),
    })
}

fn table_options(format: &Format, p: &Parsed, all_ns: bool, with_kind: bool, events: bool) -> TableOptions {
    TableOptions {
        wide: matches!(format, Format::Wide),
        with_namespace: all_ns,
        show_labels: p.bool("show-labels"),
        label_columns: p
            .list("label-columns")
            .iter()
            .flat_map(|l| l.split(','))
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect(),
        watch_events: events,
        with_kind,
    }
}

fn print_found(
    found: &[Found],
    format: &Format,
    p: &Parsed,
    all_ns: bool,
    single_named: bool,
    now: crate::engine::time::Time,
    out: &mut Output,
) {
    let all: Vec<Value> = found.iter().flat_map(|f| f.objects.iter().cloned()).collect();
    let data = || if single_named && all.len() == 1 { all[0].clone() } else { list_of(all.clone()) };
    match format {
        Format::Table | Format::Wide => {
            let with_kind = found.len() > 1;
            for (i, f) in found.iter().enumerate() {
                if f.objects.is_empty() {
                    continue;
                }
                // get.go's separatorWriter: a blank line between tables, unless --no-headers.
                if i > 0 && !p.bool("no-headers") {
                    out.out("\n");
                }
                let opts = table_options(format, p, all_ns, with_kind, false);
                out.out(printers::print_table(
                    &mut TabWriter::new(),
                    f.kind,
                    &f.objects,
                    now,
                    &opts,
                    !p.bool("no-headers"),
                    None,
                ));
            }
        }
        Format::Name => {
            for f in found {
                for o in &f.objects {
                    out.out(format!("{}\n", printers::name_of(f.kind, o)));
                }
            }
        }
        Format::Json => out.out(format!("{}\n", gojson::indented(&data()))),
        Format::Yaml => out.out(manifest::to_yaml(&data())),
        Format::JsonPath(jp) => match jp.print(&data()) {
            Ok(t) => out.out(t),
            Err(e) => out.fail(CmdError::Plain(e)),
        },
        Format::JsonPathAsJson(jp) => match jp.find(&data()) {
            Ok(vals) => out.out(format!("{}\n", gojson::indented(&Value::Array(vals)))),
            Err(e) => out.fail(CmdError::Plain(e)),
        },
        Format::CustomColumns(cols) => match custom_column_rows(cols, &all, !p.bool("no-headers")) {
            // The header is printed even for an empty list (CustomColumnsPrinter).
            Ok(rows) => out.out(TabWriter::new().format(&rows)),
            Err(e) => out.fail(e),
        },
    }
}

/// `kubectl api-resources`.
pub fn api_resources(p: &Parsed, out: &mut Output) {
    let mut kinds: Vec<&Kind> = KINDS.iter().collect();
    crate::sort::sort_by_key(&mut kinds, |k| (k.group, k.resource));
    let mut rows =
        vec![vec!["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"].into_iter().map(String::from).collect()];
    for k in kinds {
        if p.str("output") == Some("name") {
            continue;
        }
        rows.push(vec![
            k.resource.to_string(),
            k.short_names.join(","),
            k.api_version(),
            k.namespaced.to_string(),
            k.kind.to_string(),
        ]);
    }
    out.out(TabWriter::new().format(&rows));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_and_sort_by() {
        assert_eq!(natural_cmp("web-2", "web-10"), std::cmp::Ordering::Less);
        assert_eq!(natural_cmp("a", "a"), std::cmp::Ordering::Equal);
        let mut objs = vec![json!({"n": "b", "x": 10}), json!({"n": "a", "x": 9}), json!({"n": "c"})];
        sort_by(&mut objs, ".x").unwrap();
        let names: Vec<&str> = objs.iter().map(|o| o["n"].as_str().unwrap()).collect();
        assert_eq!(names, ["c", "a", "b"]);
        assert!(sort_by(&mut objs, "{.nope}").is_err());
    }
}
