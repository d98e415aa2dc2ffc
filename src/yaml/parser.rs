//! The parser and composer: tokens in, one `serde_json::Value` out, by the grammar of go-yaml v2's
//! `parserc.go` (written here as recursive descent; each function is one of its states) and the
//! typing of its `decode.go` into `interface{}`, followed by sigs.k8s.io/yaml's JSON conversion
//! and Kubernetes' number rule (`jsonutil.ConvertMapNumbers`: a number is an int64 when it has no
//! fraction and fits, else a float64). As in `yaml.Unmarshal`, only the first YAML document of the
//! text is read; anything after a `...` is ignored.

use serde_json::{Map, Number, Value};

use super::emitter::sorted_entries;
use super::resolve::{format_go_g, resolve, resolve_as, Resolved, TWO_POW_63};
use super::scanner::{Failure, FailureData, Mark, Scanner, Style, Tok, K, MAX_DEPTH};

/// Why one document failed, before it is worded for the user (see `YamlError`).
#[derive(Debug)]
pub(crate) enum DocError {
    /// A scanner or parser error: `yaml: line N: problem`.
    Syntax(Failure),
    /// A decoder error without a line: `yaml: <message>`.
    Decode(String, Mark),
    /// Strict duplicate keys: `yaml: unmarshal errors:\n  line N: key "k" already set in map`.
    Unmarshal(Vec<String>, Mark),
    /// A conversion error after YAML decoding (`json: unsupported value: +Inf`, map keys).
    Convert(String, Mark),
}

type R<T> = Result<T, Box<DocError>>;

impl From<Failure> for Box<DocError> {
    fn from(f: Failure) -> Box<DocError> {
        Box::new(DocError::Syntax(f))
    }
}

struct Parser {
    sc: Scanner,
    /// Anchored nodes already read, by name (a later anchor of the same name replaces it).
    anchors: Map<String, Value>,
    /// Anchors whose node is still being read: an alias to one of them is recursive.
    anchors_in_progress: Vec<String>,
    strict: bool,
    duplicates: Vec<String>,
    first_duplicate: Option<Mark>,
    decode_error: Option<DocError>,
    convert_error: Option<DocError>,
    /// Set while a mapping key is read.
    key_context: bool,
    depth: usize,
    /// go-yaml's alias-expansion accounting ("document contains excessive aliasing").
    decode_count: usize,
    alias_count: usize,
}

/// A parsed node: its value, where it started, and whether it is the plain merge key `<<`.
struct Node {
    value: Value,
    start: Mark,
    merge_key: bool,
}

fn parser_error(context_mark: Mark, problem: &str, problem_mark: Mark) -> Box<DocError> {
    Box::new(DocError::Syntax(Box::new(FailureData {
        problem: problem.to_string(),
        problem_mark,
        context_mark,
        scanner: false,
    })))
}

/// Parses the first document of `text`; `Value::Null` when it holds none.
pub(crate) fn parse_document(text: &str, strict: bool) -> R<Value> {
    let mut p = Parser {
        sc: Scanner::new(text),
        anchors: Map::new(),
        anchors_in_progress: Vec::new(),
        strict,
        duplicates: Vec::new(),
        first_duplicate: None,
        decode_error: None,
        convert_error: None,
        key_context: false,
        depth: 0,
        decode_count: 0,
        alias_count: 0,
    };
    p.sc.next()?; // STREAM-START
    let value = match p.sc.peek()?.kind {
        K::StreamEnd => Value::Null,
        K::VersionDirective | K::TagDirective | K::DocStart => {
            let mut version_seen = false;
            let mut handles: Vec<String> = Vec::new();
            while matches!(p.sc.peek()?.kind, K::VersionDirective | K::TagDirective) {
                let tok = p.sc.next()?;
                let problem = match tok.kind {
                    Tok::VersionDirective(..) if version_seen => Some("found duplicate %YAML directive"),
                    Tok::VersionDirective(major, minor) if (major, minor) != (1, 1) => {
                        Some("found incompatible YAML document")
                    }
                    Tok::TagDirective(handle) if handles.contains(&handle) => Some("found duplicate %TAG directive"),
                    Tok::TagDirective(handle) => {
                        handles.push(handle);
                        None
                    }
                    _ => {
                        version_seen = true;
                        None
                    }
                };
                if let Some(problem) = problem {
                    return Err(parser_error(Mark::default(), problem, tok.start));
                }
            }
            let tok = p.sc.peek()?;
            if tok.kind != K::DocStart {
                return Err(parser_error(Mark::default(), "did not find expected <document start>", tok.start));
            }
            p.sc.next()?;
            match p.sc.peek()?.kind {
                K::VersionDirective | K::TagDirective | K::DocStart | K::DocEnd | K::StreamEnd => Value::Null,
                _ => p.node(true, false)?.value,
            }
        }
        _ => p.node(true, false)?.value,
    };
    // go-yaml asks for the document end, which makes the scanner read one more token.
    p.sc.peek()?;
    if let Some(e) = p.decode_error {
        return Err(Box::new(e));
    }
    if !p.duplicates.is_empty() {
        return Err(Box::new(DocError::Unmarshal(p.duplicates, p.first_duplicate.unwrap_or_default())));
    }
    match p.convert_error {
        Some(e) => Err(Box::new(e)),
        None => Ok(value),
    }
}

impl Parser {
    fn node(&mut self, block: bool, indentless_sequence: bool) -> R<Node> {
        let first = self.sc.peek()?;
        let start = first.start;
        if first.kind == K::Alias {
            if let Tok::Alias(name) = self.sc.next()?.kind {
                let value = self.alias(&name, start)?;
                return Ok(Node { value, start, merge_key: false });
            }
        }
        // Properties: an anchor and a tag, in either order, at most one of each.
        let mut anchor = None;
        let mut tag = None;
        loop {
            let kind = self.sc.peek()?.kind;
            if !((kind == K::Anchor && anchor.is_none()) || (kind == K::Tag && tag.is_none())) {
                break;
            }
            let tok = self.sc.next()?;
            match tok.kind {
                Tok::Anchor(name) => anchor = Some(name),
                Tok::Tag(handle, suffix) => {
                    tag = Some(match handle.as_str() {
                        "!!" => format!("tag:yaml.org,2002:{suffix}"),
                        "!" | "" => format!("{handle}{suffix}"),
                        _ => return Err(parser_error(start, "found undefined tag handle", tok.start)),
                    });
                }
                _ => {}
            }
        }
        let tok = self.sc.peek()?;
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(parser_error(start, &format!("exceeded max depth of {MAX_DEPTH}"), tok.start));
        }
        if let Some(name) = &anchor {
            self.anchors_in_progress.push(name.clone());
        }
        let mut merge_key = false;
        let value = match tok.kind {
            K::BlockEntry if indentless_sequence => self.indentless_sequence()?,
            K::Scalar => {
                let Tok::Scalar(text, style) = self.sc.next()?.kind else {
                    return Err(parser_error(start, "did not find expected node content", tok.start));
                };
                merge_key = style == Style::Plain && tag.is_none() && text == "<<";
                self.scalar(&text, style, tag.as_deref(), tok.start)?
            }
            K::FlowSeqStart => self.flow_sequence()?,
            K::FlowMapStart => self.flow_mapping()?,
            K::BlockSeqStart if block => self.block_sequence()?,
            K::BlockMapStart if block => self.block_mapping()?,
            _ if anchor.is_some() || tag.is_some() => self.scalar("", Style::Plain, tag.as_deref(), tok.start)?,
            _ => {
                return Err(parser_error(start, "did not find expected node content", tok.start));
            }
        };
        self.depth -= 1;
        self.decode_count += 1;
        if let Some(name) = anchor {
            self.anchors_in_progress.pop();
            self.anchors.insert(name, value.clone());
        }
        Ok(Node { value, start, merge_key })
    }

    /// go-yaml builds the whole node tree before decoding it, and sigs.k8s.io/yaml converts to JSON
    /// only after that: so a syntax error anywhere wins over a decoding error met earlier, which
    /// wins over duplicate keys, which win over a JSON conversion error. Such errors are kept here
    /// (the first of each kind) and parsing goes on.
    fn fail_later(&mut self, e: DocError) -> Value {
        let slot = if matches!(e, DocError::Convert(..)) { &mut self.convert_error } else { &mut self.decode_error };
        slot.get_or_insert(e);
        Value::Null
    }

    fn alias(&mut self, name: &str, at: Mark) -> R<Value> {
        if self.anchors_in_progress.iter().any(|n| n == name) {
            return Ok(self.fail_later(DocError::Decode(format!("anchor '{name}' value contains itself"), at)));
        }
        let value = match self.anchors.get(name) {
            None => return Err(Box::new(DocError::Decode(format!("unknown anchor '{name}' referenced"), at))),
            // Once aliasing is found excessive, stop copying (the error is already recorded).
            Some(_) if self.decode_error.is_some() => return Ok(Value::Null),
            Some(v) => v.clone(),
        };
        let size = count_nodes(&value);
        self.alias_count += size;
        self.decode_count += size;
        let (a, d) = (self.alias_count as f64, self.decode_count as f64);
        let allowed = if d <= 400_000.0 {
            0.99
        } else if d >= 4_000_000.0 {
            0.10
        } else {
            0.99 - 0.89 * ((d - 400_000.0) / 3_600_000.0)
        };
        if (self.alias_count > 100 && self.decode_count > 1000 && a / d > allowed) || self.decode_count > 4_000_000 {
            return Ok(self.fail_later(DocError::Decode("document contains excessive aliasing".to_string(), at)));
        }
        Ok(value)
    }

    /// One scalar as go-yaml decodes it into `interface{}`, then as JSON and Kubernetes see it.
    fn scalar(&mut self, text: &str, style: Style, tag: Option<&str>, at: Mark) -> R<Value> {
        const STR: &str = "tag:yaml.org,2002:str";
        let resolved = match tag {
            None if style == Style::Plain => resolve(text),
            None => Resolved::Str,
            Some(STR) => Resolved::Str,
            Some(
                t @ ("tag:yaml.org,2002:int"
                | "tag:yaml.org,2002:float"
                | "tag:yaml.org,2002:bool"
                | "tag:yaml.org,2002:null"
                | "tag:yaml.org,2002:timestamp"),
            ) => {
                let want = &t["tag:yaml.org,2002:".len()..];
                let r = resolve_as(text, want == "timestamp");
                let rtag = match r {
                    Resolved::Null => "null",
                    Resolved::Bool(_) => "bool",
                    Resolved::Int(_) | Resolved::Uint(_) => "int",
                    Resolved::Float(_) => "float",
                    Resolved::Timestamp => "timestamp",
                    Resolved::Str => "str",
                };
                if rtag != want && !(want == "float" && rtag == "int") {
                    return Ok(
                        self.fail_later(DocError::Decode(format!("cannot decode !!{rtag} `{text}` as a !!{want}"), at))
                    );
                }
                match (want, r) {
                    ("float", Resolved::Int(i)) => Resolved::Float(i as f64),
                    (_, r) => r,
                }
            }
            Some("tag:yaml.org,2002:binary") => {
                return Ok(match decode_base64(text) {
                    Some(bytes) => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
                    None => self.fail_later(DocError::Decode("!!binary value contains invalid base64 data".into(), at)),
                });
            }
            // Tags go-yaml cannot resolve leave the text as a string.
            Some(_) => Resolved::Str,
        };
        Ok(match resolved {
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => Value::Bool(b),
            Resolved::Int(i) => Value::from(i),
            Resolved::Uint(u) => Value::from(u as f64),
            // A key is turned into a string directly, without the JSON step (sigs.k8s.io/yaml).
            Resolved::Float(f) if self.key_context && !f.is_finite() => Value::String(
                if f.is_nan() {
                    ".nan"
                } else if f > 0.0 {
                    ".inf"
                } else {
                    "-.inf"
                }
                .to_string(),
            ),
            Resolved::Float(f) => match json_float(f) {
                Ok(v) => v,
                Err(m) => self.fail_later(DocError::Convert(m, at)),
            },
            Resolved::Timestamp | Resolved::Str => Value::String(text.to_string()),
        })
    }

    fn block_sequence(&mut self) -> R<Value> {
        let start = self.sc.next()?.start; // BLOCK-SEQUENCE-START
        let mut items = Vec::new();
        loop {
            let tok = self.sc.peek()?;
            match tok.kind {
                K::BlockEntry => {
                    let entry = self.sc.next()?;
                    match self.sc.peek()?.kind {
                        K::BlockEntry | K::BlockEnd => items.push(self.empty_at(entry.start)),
                        _ => items.push(self.node(true, false)?.value),
                    }
                }
                K::BlockEnd => {
                    self.sc.next()?;
                    return Ok(Value::Array(items));
                }
                _ => return Err(parser_error(start, "did not find expected '-' indicator", tok.start)),
            }
        }
    }

    fn indentless_sequence(&mut self) -> R<Value> {
        let mut items = Vec::new();
        while self.sc.peek()?.kind == K::BlockEntry {
            let entry = self.sc.next()?;
            match self.sc.peek()?.kind {
                K::BlockEntry | K::Key | K::Value | K::BlockEnd => items.push(self.empty_at(entry.start)),
                _ => items.push(self.node(true, false)?.value),
            }
        }
        Ok(Value::Array(items))
    }

    fn empty_at(&mut self, _at: Mark) -> Value {
        self.decode_count += 1;
        Value::Null
    }

    fn block_mapping(&mut self) -> R<Value> {
        let start = self.sc.next()?.start; // BLOCK-MAPPING-START
        let mut map = MapBuilder::default();
        loop {
            let tok = self.sc.peek()?;
            match tok.kind {
                K::Key => {
                    let key_tok = self.sc.next()?;
                    self.key_context = true;
                    let key = match self.sc.peek()?.kind {
                        K::Key | K::Value | K::BlockEnd => self.empty_node(key_tok.start),
                        _ => self.node(true, true)?,
                    };
                    self.key_context = false;
                    self.check_key(&key);
                    let tok = self.sc.peek()?;
                    let value = if tok.kind == K::Value {
                        self.sc.next()?;
                        match self.sc.peek()?.kind {
                            K::Key | K::Value | K::BlockEnd => self.empty_node(tok.start),
                            _ => self.node(true, true)?,
                        }
                    } else {
                        self.empty_node(tok.start)
                    };
                    self.entry(&mut map, key, value)?;
                }
                K::BlockEnd => {
                    self.sc.next()?;
                    return Ok(Value::Object(map.map));
                }
                _ => return Err(parser_error(start, "did not find expected key", tok.start)),
            }
        }
    }

    fn empty_node(&mut self, start: Mark) -> Node {
        Node { value: self.empty_at(start), start, merge_key: false }
    }

    fn flow_sequence(&mut self) -> R<Value> {
        let start = self.sc.next()?.start; // [
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let mut tok = self.sc.peek()?;
            if tok.kind == K::FlowSeqEnd {
                self.sc.next()?;
                return Ok(Value::Array(items));
            }
            if !first {
                if tok.kind != K::FlowEntry {
                    return Err(parser_error(start, "did not find expected ',' or ']'", tok.start));
                }
                self.sc.next()?;
                tok = self.sc.peek()?;
            }
            first = false;
            match tok.kind {
                K::FlowSeqEnd => {}
                K::Key => {
                    // A single-pair mapping inside a flow sequence: `[a: 1]` or `[? a : 1]`.
                    self.sc.next()?;
                    self.key_context = true;
                    let key = match self.sc.peek()?.kind {
                        K::Value | K::FlowEntry | K::FlowSeqEnd => self.empty_node(tok.start),
                        _ => self.node(false, false)?,
                    };
                    self.key_context = false;
                    self.check_key(&key);
                    let vt = self.sc.peek()?;
                    let value = if vt.kind == K::Value {
                        self.sc.next()?;
                        match self.sc.peek()?.kind {
                            K::FlowEntry | K::FlowSeqEnd => self.empty_node(vt.start),
                            _ => self.node(false, false)?,
                        }
                    } else {
                        self.empty_node(vt.start)
                    };
                    let mut map = MapBuilder::default();
                    self.entry(&mut map, key, value)?;
                    items.push(Value::Object(map.map));
                }
                _ => items.push(self.node(false, false)?.value),
            }
        }
    }

    fn flow_mapping(&mut self) -> R<Value> {
        let start = self.sc.next()?.start; // {
        let mut map = MapBuilder::default();
        let mut first = true;
        loop {
            let mut tok = self.sc.peek()?;
            if tok.kind == K::FlowMapEnd {
                self.sc.next()?;
                return Ok(Value::Object(map.map));
            }
            if !first {
                if tok.kind != K::FlowEntry {
                    return Err(parser_error(start, "did not find expected ',' or '}'", tok.start));
                }
                self.sc.next()?;
                tok = self.sc.peek()?;
            }
            first = false;
            match tok.kind {
                K::FlowMapEnd => {}
                K::Key => {
                    self.sc.next()?;
                    let next = self.sc.peek()?;
                    self.key_context = true;
                    let key = match next.kind {
                        K::Value | K::FlowEntry | K::FlowMapEnd => self.empty_node(next.start),
                        _ => self.node(false, false)?,
                    };
                    self.key_context = false;
                    self.check_key(&key);
                    let value = self.flow_mapping_value()?;
                    self.entry(&mut map, key, value)?;
                }
                _ => {
                    // A key with no value: `{a, b}`.
                    self.key_context = true;
                    let key = self.node(false, false)?;
                    self.key_context = false;
                    self.check_key(&key);
                    let at = self.sc.peek()?.start;
                    let value = self.empty_node(at);
                    self.entry(&mut map, key, value)?;
                }
            }
        }
    }

    fn flow_mapping_value(&mut self) -> R<Node> {
        let tok = self.sc.peek()?;
        if tok.kind == K::Value {
            self.sc.next()?;
            let next = self.sc.peek()?;
            if next.kind != K::FlowEntry && next.kind != K::FlowMapEnd {
                return self.node(false, false);
            }
            return Ok(self.empty_node(next.start));
        }
        Ok(self.empty_node(tok.start))
    }

    /// Adds one key/value pair, applying merge keys (`<<`) as go-yaml v2 does: the merged map's
    /// entries are set when the `<<` is met, so later keys override them, earlier ones do not.
    fn entry(&mut self, map: &mut MapBuilder, key: Node, value: Node) -> R<()> {
        if key.merge_key {
            let sources = match value.value {
                Value::Object(m) => vec![m],
                Value::Array(items) => {
                    let mut maps = Vec::new();
                    for item in items.into_iter().rev() {
                        match item {
                            Value::Object(m) => maps.push(m),
                            _ => {
                                self.fail_later(merge_error(value.start));
                                return Ok(());
                            }
                        }
                    }
                    maps
                }
                _ => {
                    self.fail_later(merge_error(value.start));
                    return Ok(());
                }
            };
            for m in sources {
                for (k, v) in m {
                    let repr = go_syntax(&Value::String(k.clone()));
                    if self.first_time(map, repr, value.start) {
                        map.map.insert(k, v);
                    }
                }
            }
            return Ok(());
        }
        if matches!(key.value, Value::Array(_) | Value::Object(_)) {
            // Already reported by `check_key`.
            return Ok(());
        }
        let repr = if key.value.is_null() { "<nil>".to_string() } else { go_syntax(&key.value) };
        if !self.first_time(map, repr, value.start) {
            return Ok(());
        }
        match key_string(&key.value) {
            Some(k) => {
                map.map.insert(k, value.value);
            }
            None => {
                let shown = if value.value.is_null() { "<nil>".to_string() } else { go_syntax(&value.value) };
                let m = format!("unsupported map key of type: <nil>, key: <nil>, value: {shown}");
                self.fail_later(DocError::Convert(m, key.start));
            }
        }
        Ok(())
    }

    /// go-yaml refuses a mapping or sequence as a key when it decodes the key, before the value.
    fn check_key(&mut self, key: &Node) {
        if matches!(key.value, Value::Array(_) | Value::Object(_)) {
            self.fail_later(DocError::Decode(format!("invalid map key: {}", go_syntax(&key.value)), key.start));
        }
    }

    /// Strict mode's duplicate check, on the key as go-yaml decoded it (so `1` and `"1"` differ).
    fn first_time(&mut self, map: &mut MapBuilder, repr: String, at: Mark) -> bool {
        if !self.strict {
            return true;
        }
        if map.seen.contains_key(&repr) {
            self.duplicates.push(format!("line {}: key {repr} already set in map", at.line + 1));
            self.first_duplicate.get_or_insert(at);
            return false;
        }
        map.seen.insert(repr, Value::Null);
        true
    }
}

#[derive(Default)]
struct MapBuilder {
    map: Map<String, Value>,
    /// Keys met so far, as go-yaml prints them (`"a"`, `1`, `<nil>`), for strict mode.
    seen: Map<String, Value>,
}

fn merge_error(at: Mark) -> DocError {
    DocError::Decode("map merge requires map or sequence of maps as the value".to_string(), at)
}

/// sigs.k8s.io/yaml turns non-string keys into strings: ints in decimal, floats as Go's
/// `FormatFloat(f, 'g', -1, 32)`, booleans as `true`/`false`; other keys are refused.
fn key_string(key: &Value) -> Option<String> {
    match key {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match n.as_i64() {
            Some(i) => i.to_string(),
            None => format_go_g(n.as_f64().unwrap_or(0.0), true),
        }),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Go's `%#v` of a decoded YAML value, as go-yaml and sigs.k8s.io/yaml print it in key errors.
fn go_syntax(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".to_string(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Bool(_) | Value::Number(_) => v.to_string(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(go_syntax).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = sorted_entries(map, |a, b| a.cmp(b))
                .into_iter()
                .map(|(k, v)| format!("{}:{}", go_syntax(&Value::String(k.clone())), go_syntax(v)))
                .collect();
            format!("map[interface {{}}]interface {{}}{{{}}}", inner.join(", "))
        }
    }
}

/// Standard base64 with padding, line breaks ignored (Go's `base64.StdEncoding` as go-yaml uses it).
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let clean: Vec<u8> = text.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    for (n, quad) in clean.chunks(4).enumerate() {
        let last = n + 1 == clean.len() / 4;
        let mut acc = 0u32;
        let mut pad = 0;
        for (i, &b) in quad.iter().enumerate() {
            let v = match b {
                b'A'..=b'Z' => b - b'A',
                b'a'..=b'z' => b - b'a' + 26,
                b'0'..=b'9' => b - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                b'=' if last && i >= 2 => {
                    pad += 1;
                    0
                }
                _ => return None,
            };
            if pad > 0 && b != b'=' {
                return None;
            }
            acc = (acc << 6) | u32::from(v);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - pad]);
    }
    Some(out)
}

/// A float as `json.Marshal` prints it and Kubernetes reads it back: an integral value below
/// 1e21 is printed without a fraction and so becomes an int64 when it fits.
fn json_float(f: f64) -> Result<Value, String> {
    if f.is_nan() {
        return Err("json: unsupported value: NaN".to_string());
    }
    if f.is_infinite() {
        return Err(format!("json: unsupported value: {}Inf", if f > 0.0 { "+" } else { "-" }));
    }
    if f.fract() == 0.0 && f.abs() < TWO_POW_63 {
        return Ok(Value::from(f as i64));
    }
    Ok(Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null))
}

fn count_nodes(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(count_nodes).sum::<usize>(),
        Value::Object(m) => 1 + m.values().map(|v| 1 + count_nodes(v)).sum::<usize>(),
        _ => 1,
    }
}
