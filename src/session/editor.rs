//! The editor's buffers: manifest files (applied like `kubectl apply -f FILE`) and objects opened
//! with `kubectl edit` (saved as a PUT carrying the resourceVersion they were loaded with, so a
//! save after the cluster moved on gets the real 409 Conflict, kubernetes-semantics.md on
//! optimistic concurrency).

use crate::kubectl::cmd::EditSession;
use crate::yaml;

/// Where a buffer came from, which decides what Apply does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An editor file: Apply runs `kubectl apply -f NAME`.
    File,
    /// An object opened by `kubectl edit` (or an "Edit" action): Apply saves the edit with the
    /// resourceVersion in `session` (the one loaded, or the one the last save stored).
    Edit(EditSession),
}

/// A problem in a buffer, at a 1-based line and column (0 when it has no place).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line (0: the whole buffer).
    pub line: usize,
    /// 1-based column in characters (0: the whole line).
    pub column: usize,
    /// What kubectl would say.
    pub message: String,
}

/// One tab of the editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Stable id (the page keys tabs by it).
    pub id: u64,
    /// The tab's name: the file name, or `deployment/web` for an edit.
    pub name: String,
    /// The text.
    pub text: String,
    /// What Apply does.
    pub origin: Origin,
    /// The first parse error, if the text does not parse.
    pub diagnostic: Option<Diagnostic>,
    /// The last apply was refused with 409 Conflict: offer "Reload and re-apply".
    pub conflict: bool,
}

impl Buffer {
    /// A buffer with its diagnostic computed.
    pub fn new(id: u64, name: &str, text: &str, origin: Origin) -> Buffer {
        let mut b =
            Buffer { id, name: name.to_string(), text: text.to_string(), origin, diagnostic: None, conflict: false };
        b.diagnostic = diagnose(text);
        b
    }

    /// Replaces the text (each keystroke) and re-checks it.
    pub fn set_text(&mut self, text: &str) {
        if self.text != text {
            self.text = text.to_string();
            self.diagnostic = diagnose(text);
        }
    }

    /// The resourceVersion an edit buffer was loaded with (None for a file).
    pub fn loaded_resource_version(&self) -> Option<&str> {
        match &self.origin {
            Origin::Edit(s) => Some(&s.resource_version),
            Origin::File => None,
        }
    }
}

/// The first problem `kubectl apply` would report for this text: a YAML error at its place, or a
/// document without `kind` or `apiVersion` (kubectl: `Object 'Kind' is missing in '...'`).
pub fn diagnose(text: &str) -> Option<Diagnostic> {
    match yaml::parse_documents(text) {
        Err(e) => Some(Diagnostic { line: e.line, column: e.column, message: e.message }),
        Ok(docs) => docs.iter().find_map(|d| {
            let missing = if d.get("kind").and_then(|k| k.as_str()).is_none_or(str::is_empty) {
                "Kind"
            } else if d.get("apiVersion").and_then(|k| k.as_str()).is_none_or(str::is_empty) {
                "apiVersion"
            } else {
                return None;
            };
            let shown = serde_json::to_string(d).unwrap_or_default();
            Some(Diagnostic { line: 0, column: 0, message: format!("Object '{missing}' is missing in '{shown}'") })
        }),
    }
}

/// `text` with the object's `metadata.resourceVersion` set to `rv`: the first line that sets a
/// `resourceVersion:` key is rewritten in place (keeping its indentation), so the learner's other
/// edits stay as typed. Returns None when the text has no such line.
pub fn with_resource_version(text: &str, rv: &str) -> Option<String> {
    let mut done = false;
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if !done && trimmed.starts_with("resourceVersion:") {
            let indent = &line[..line.len() - trimmed.len()];
            let eol = if line.ends_with('\n') { "\n" } else { "" };
            out.push_str(&format!("{indent}resourceVersion: \"{rv}\"{eol}"));
            done = true;
        } else {
            out.push_str(line);
        }
    }
    done.then_some(out)
}

/// What to insert when the learner presses Enter at byte `at` of `text`: a newline and the
/// current line's indentation, two spaces more after a line ending in `:` (a mapping opens) or a
/// lone `- ` item with a key.
pub fn newline_indent(text: &str, at: usize) -> String {
    let at = floor_char_boundary(text, at);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..at];
    let indent: String = line.chars().take_while(|c| *c == ' ').collect();
    let extra = if line.trim_end().ends_with(':') { "  " } else { "" };
    format!("\n{indent}{extra}")
}

/// The largest char boundary at or below `i` (never panics on a cursor inside a character).
pub fn floor_char_boundary(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One coloured piece of a YAML line, for the highlighted `<pre>` under the textarea.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// A mapping key.
    Key,
    /// A string, number or other scalar value.
    Value,
    /// `#` to the end of the line.
    Comment,
    /// `---`, `- `, `:`, `|` and other punctuation.
    Punct,
    /// Whitespace and anything else.
    Plain,
}

/// Splits one line into coloured pieces. A small, forgiving lexer: colouring must never fail,
/// whatever the learner types (the parser reports the real errors).
pub fn highlight_line(line: &str) -> Vec<(Token, &str)> {
    let mut out = Vec::new();
    let indent = line.len() - line.trim_start().len();
    if indent > 0 {
        out.push((Token::Plain, &line[..indent]));
    }
    let mut rest = &line[indent..];
    if rest.starts_with('#') {
        out.push((Token::Comment, rest));
        return out;
    }
    if rest.starts_with("---") || rest.starts_with("...") {
        out.push((Token::Punct, rest));
        return out;
    }
    while let Some(r) = rest.strip_prefix("- ") {
        out.push((Token::Punct, "- "));
        rest = r;
    }
    // A key: up to the first ": " (or a trailing ':') outside quotes.
    let comment_at = comment_start(rest);
    let (body, comment) = rest.split_at(comment_at);
    let key_end = key_end(body);
    let value = match key_end {
        Some(k) => {
            out.push((Token::Key, &body[..k]));
            out.push((Token::Punct, ":"));
            &body[k + 1..]
        }
        None => body,
    };
    if !value.is_empty() {
        let lead = value.len() - value.trim_start().len();
        if lead > 0 {
            out.push((Token::Plain, &value[..lead]));
        }
        let v = &value[lead..];
        if !v.is_empty() {
            out.push((if v == "|" || v == ">" { Token::Punct } else { Token::Value }, v));
        }
    }
    if !comment.is_empty() {
        out.push((Token::Comment, comment));
    }
    out
}

fn key_end(s: &str) -> Option<usize> {
    if s.starts_with('"') || s.starts_with('\'') || s.starts_with('{') || s.starts_with('[') {
        return None;
    }
    let b = s.as_bytes();
    (0..b.len()).find(|&i| b[i] == b':' && (i + 1 == b.len() || b[i + 1] == b' '))
}

/// Where a `#` comment starts (a `#` after a space, outside quotes), or the length of `s`.
fn comment_start(s: &str) -> usize {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev == ' ' => return i,
            _ => {}
        }
        prev = c;
    }
    s.len()
}
