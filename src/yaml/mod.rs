//! YAML reading and writing for manifests, as kubectl reads them and prints them.
//!
//! kubectl reads `-f` files with apimachinery's `YAMLOrJSONDecoder` and prints `-o yaml` with
//! sigs.k8s.io/yaml, both over go-yaml v2 (v2.4). This module reproduces that path with code of
//! our own: a scanner and parser that follow go-yaml's (libyaml's) rules token for token, so the
//! same inputs are accepted and the same errors come out with the same line numbers, and an
//! emitter that follows go-yaml's emitter. Its expected outputs were checked against go-yaml
//! v2.4 itself, run on the same inputs (a few thousand generated cases, reading and writing).
//!
//! # API
//! - [`parse_documents`]`(text) -> Result<Vec<Value>, YamlError>`: every manifest in a file, as
//!   kubectl would send it. Documents are split on lines starting with `---` (apimachinery's
//!   `YAMLReader`; anything but a comment after the `---` is `invalid Yaml document separator`);
//!   each is read as go-yaml's `Unmarshal` reads it (its first document; text after `...` is
//!   ignored), typed as go-yaml v2 types scalars (YAML 1.1 `yes/no/on/off/y/n`, `012` is octal,
//!   `0x1F`, `1_000`, `~`; see `resolve`), then converted as sigs.k8s.io/yaml and Kubernetes do:
//!   non-string keys become strings (`1`, `true`, `.inf`), an integral number becomes an integer
//!   (`1.0` reads as `1`, as kubectl sends it), `.inf`/`.nan` values are refused by the JSON step.
//!   Empty and `null` documents are skipped, as kubectl skips them. A stream whose first
//!   non-space character is `{` is read as a stream of JSON values, as kubectl does.
//!   Duplicate keys: kubectl's decoder is go-yaml's non-strict one, so the last value wins,
//!   silently (real kubectl 1.34 behaviour; the server never sees the duplicate).
//! - [`parse_documents_strict`]: the same, but duplicate keys are an error worded as go-yaml's
//!   strict mode words it (`yaml: unmarshal errors:\n  line 5: key "replicas" already set in
//!   map`): for the page's editor, which should point them out.
//! - [`parse_documents_partial`]`(text) -> (Vec<Value>, Option<YamlError>)`: the manifests
//!   before the first error and the error. kubectl decodes lazily, so `apply -f` and `create -f`
//!   act on the objects that precede a broken document, then report it.
//! - [`parse_value`]`(text) -> Result<Value, YamlError>`: one value, as `YAMLToJSON` reads a
//!   `patch -p` argument: the first document, `null` when empty, no line-based splitting.
//! - [`to_yaml`]`(value) -> String`: byte for byte what `kubectl get -o yaml` prints for that value
//!   (keys sorted in go-yaml's order, quoting, literal blocks, folding at 80 columns, Go's number
//!   formats; see `emitter`). A `List` is just a value the caller builds. The caller need not sort.
//! - [`YamlError`]: `Display` (= `message`) is the text kubectl prints after
//!   `error: error parsing FILE: `, for example `error converting YAML to JSON: yaml: line 3:
//!   mapping values are not allowed in this context`. As in kubectl, the line in the message counts
//!   from the start of the document (after its `---`), and go-yaml's parser errors name the line
//!   *before* the problem (its 0-based count); `line` and `column` (1-based, in the whole text) are
//!   where the problem really is, for the editor to underline.
//!
//! Anchors, aliases (with go-yaml's "excessive aliasing" guard), merge keys `<<`, `!!binary`,
//! and the tags `!!str !!int !!float !!bool !!null !!timestamp` work as in go-yaml; unknown tags
//! leave a scalar a string; `%YAML`/`%TAG` directives fail as they do in kubectl (its reader
//! removes the `---` they need). Nesting deeper than [`MAX_DEPTH`] is refused with an error
//! instead of exhausting the stack; alias expansion is bounded; time is linear in the input.
//!
//! # Known differences from kubectl
//! - Go's `unicode.IsLetter` (key order) is approximated by the letter blocks of common scripts.
//! - go-yaml decodes while walking a finished node tree; we decode while parsing, keeping the
//!   first decoding error until the parse ends. So the precedence of errors is go-yaml's
//!   (syntax, then decoding, then duplicates, then JSON conversion), but among several decoding
//!   errors in one document a merge-key error can be reported after an error inside the value.
//! - kubectl's `-o yaml` reads its own JSON back with go-yaml, which takes a raw NEL (U+0085)
//!   inside a JSON string for a line break: values are folded the same way here, but a map key
//!   holding NEL (which makes kubectl fail) is printed as `"\N"`.
//!
//! # Size
//! In a wasm32 release build (opt-level z, LTO, wasm-opt -Oz), a throwaway cdylib that parses and
//! prints a manifest measured 59.2 KB gzipped with this module against 20.4 KB for serde_json alone
//! doing the same with JSON: about 39 KB gzipped for the YAML path (go-yaml's rules are not small;
//! some of it, such as serde_json's typed-error formatting, the page pays for anyway), against
//! about 49 KB for serde_yaml_ng (toolchain.md's figures).

mod emitter;
mod json_stream;
mod parser;
mod resolve;
mod scanner;
#[cfg(test)]
mod tests;

pub use emitter::to_yaml;
pub use scanner::MAX_DEPTH;

use serde_json::Value;
use std::fmt;

use parser::DocError;

/// A manifest that could not be read, worded as kubectl words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// What kubectl prints after `error parsing FILE: `.
    pub message: String,
    /// 1-based line in the whole text where the problem was found (0 when it has no place).
    pub line: usize,
    /// 1-based column (in characters) on that line (0 when it has no place).
    pub column: usize,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for YamlError {}

/// Reads every manifest in `text` the way `kubectl apply -f` does (duplicate keys: last wins).
pub fn parse_documents(text: &str) -> Result<Vec<Value>, YamlError> {
    whole(parse(text, false))
}

/// Like [`parse_documents`], but a duplicate key is an error (go-yaml's strict wording).
pub fn parse_documents_strict(text: &str) -> Result<Vec<Value>, YamlError> {
    whole(parse(text, true))
}

/// The manifests read before the first error, and that error. kubectl decodes a file lazily,
/// document by document, so `kubectl apply -f` and `create -f` act on the objects that precede a
/// broken document and then report it; this gives the console what it needs to do the same.
pub fn parse_documents_partial(text: &str) -> (Vec<Value>, Option<YamlError>) {
    parse(text, false)
}

fn whole((docs, error): (Vec<Value>, Option<YamlError>)) -> Result<Vec<Value>, YamlError> {
    match error {
        Some(e) => Err(e),
        None => Ok(docs),
    }
}

/// One YAML (or JSON) value, as sigs.k8s.io/yaml's `YAMLToJSON` reads it: the first document of
/// the text, no `---` splitting by lines, `null` for an empty text. This is what kubectl applies to
/// `patch -p`, `--overrides` and the like.
pub fn parse_value(text: &str) -> Result<Value, YamlError> {
    let chunk = Chunk { text: text.to_string(), first_line: 0 };
    check_characters(&chunk)?;
    parser::parse_document(&chunk.text, false).map_err(|e| chunk_error(&chunk, *e))
}

const CONVERTING: &str = "error converting YAML to JSON: ";

fn parse(text: &str, strict: bool) -> (Vec<Value>, Option<YamlError>) {
    if text.trim_start().starts_with('{') {
        return parse_json_stream(text);
    }
    let mut docs = Vec::new();
    let (chunks, split_error) = split_documents(text);
    for chunk in chunks {
        let parsed = check_characters(&chunk)
            .and_then(|()| parser::parse_document(&chunk.text, strict).map_err(|e| chunk_error(&chunk, *e)));
        match parsed {
            Ok(value) if value.is_null() => {}
            Ok(value) => docs.push(value),
            Err(e) => return (docs, Some(e)),
        }
    }
    (docs, split_error)
}

/// One document's text and the 0-based line of the whole text where it starts.
struct Chunk {
    text: String,
    first_line: usize,
}

/// apimachinery's `YAMLReader`: lines are read without their `\n` or `\r\n` and given back a
/// `\n`; a line starting with `---` ends the document and may only be followed by a comment.
/// Returns the documents before a bad separator, and its error.
fn split_documents(text: &str) -> (Vec<Chunk>, Option<YamlError>) {
    let mut chunks = Vec::new();
    let mut current = Chunk { text: String::new(), first_line: 0 };
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        // bufio's ReadLine drops "\n" or "\r\n", never a lone "\r".
        let line = match raw.strip_suffix('\n') {
            Some(l) => l.strip_suffix('\r').unwrap_or(l),
            None => raw,
        };
        if let Some(rest) = line.strip_prefix("---") {
            let trimmed = rest.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                // The reader fails at once: the document it was collecting is never decoded.
                let error = YamlError {
                    message: format!("invalid Yaml document separator: {trimmed}"),
                    line: n + 1,
                    column: 1,
                };
                return (chunks, Some(error));
            }
            if !current.text.is_empty() {
                chunks.push(current);
            }
            current = Chunk { text: String::new(), first_line: n + 1 };
            continue;
        }
        if current.text.is_empty() {
            current.first_line = n;
        }
        current.text.push_str(line);
        current.text.push('\n');
    }
    if !current.text.is_empty() {
        chunks.push(current);
    }
    (chunks, None)
}

/// go-yaml's reader refuses control characters (`yaml: control characters are not allowed`).
fn check_characters(chunk: &Chunk) -> Result<(), YamlError> {
    for (n, line) in chunk.text.split('\n').enumerate() {
        for (col, c) in line.chars().enumerate() {
            let v = c as u32;
            let ok = v == 0x09
                || v == 0x0d
                || (0x20..=0x7e).contains(&v)
                || v == 0x85
                || (0xa0..=0xd7ff).contains(&v)
                || (0xe000..=0xfffd).contains(&v)
                || v >= 0x10000;
            if !ok {
                return Err(YamlError {
                    message: format!("{CONVERTING}yaml: control characters are not allowed"),
                    line: chunk.first_line + n + 1,
                    column: col + 1,
                });
            }
        }
    }
    Ok(())
}

fn chunk_error(chunk: &Chunk, e: DocError) -> YamlError {
    let place = |m: scanner::Mark| (chunk.first_line + m.line + 1, m.column + 1);
    let (message, (line, column)) = match e {
        DocError::Syntax(f) => {
            // go-yaml's `parser.fail`: scanner errors report the 1-based line of the problem,
            // parser errors the 0-based one (so one less), and a problem on the first line falls
            // back to the context's line or to no line at all.
            let n = if f.problem_mark.line != 0 {
                Some(f.problem_mark.line + usize::from(f.scanner))
            } else if f.context_mark.line != 0 {
                Some(f.context_mark.line)
            } else {
                None
            };
            let text = match n {
                Some(n) => format!("{CONVERTING}yaml: line {n}: {}", f.problem),
                None => format!("{CONVERTING}yaml: {}", f.problem),
            };
            (text, place(f.problem_mark))
        }
        DocError::Decode(m, at) => (format!("{CONVERTING}yaml: {m}"), place(at)),
        DocError::Unmarshal(lines, at) => {
            let mut text = format!("{CONVERTING}yaml: unmarshal errors:");
            for l in lines {
                text.push_str("\n  ");
                text.push_str(&l);
            }
            (text, place(at))
        }
        DocError::Convert(m, at) => (format!("{CONVERTING}{m}"), place(at)),
    };
    YamlError { message, line, column }
}

/// A JSON stream, as `json.Decoder` reads it: values one after another; `null`s skipped; integers
/// beyond int64 become floats, as Kubernetes' number conversion makes them.
fn parse_json_stream(text: &str) -> (Vec<Value>, Option<YamlError>) {
    let place = |at: usize| {
        let before = &text.as_bytes()[..at.min(text.len())];
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        let line_start = before.iter().rposition(|&c| c == b'\n').map_or(0, |p| p + 1);
        (line, String::from_utf8_lossy(&before[line_start..]).chars().count() + 1)
    };
    let (spans, error) = json_stream::split(text);
    let error = error.map(|(message, at)| {
        let (line, column) = place(at);
        YamlError { message, line, column }
    });
    let mut docs = Vec::new();
    for (start, end) in spans {
        match serde_json::from_str::<Value>(&text[start..end]) {
            Ok(v) if v.is_null() => {}
            Ok(mut v) => {
                normalize_json_numbers(&mut v);
                docs.push(v);
            }
            // Valid JSON that serde_json still refuses: a number beyond f64's range.
            Err(e) => {
                let (line, column) = place(start);
                return (docs, Some(YamlError { message: e.to_string(), line, column }));
            }
        }
    }
    (docs, error)
}

fn normalize_json_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let (None, Some(num)) = (n.as_i64(), n.as_f64().and_then(serde_json::Number::from_f64)) {
                *n = num;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_json_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_json_numbers),
        _ => {}
    }
}
