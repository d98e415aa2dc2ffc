//! `to_yaml`: what `kubectl get -o yaml` prints. kubectl marshals the object to JSON, and
//! sigs.k8s.io/yaml's `JSONToYAML` reads that JSON with go-yaml v2 and marshals it again with
//! go-yaml v2's emitter (`emitterc.go`, read there). What follows from that path:
//! - map keys are sorted with go-yaml's "natural" order (digit runs compare as numbers, a letter
//!   sorts after a non-letter): `a2` before `a10`;
//! - block style everywhere, two-space indentation, sequences inside a mapping not indented
//!   (`finalizers:\n- a`); empty collections in flow style, `{}` and `[]`;
//! - a string is plain unless it would read back as something else (`"1"`, `"true"`, `"y"`,
//!   `"null"`, `""`, timestamps such as `"2024-01-01"`, base-60 numbers such as `"1:20"`): then
//!   double-quoted; a plain string the emitter's analysis refuses (leading/trailing space, `: `,
//!   ` #`, a leading indicator) is single-quoted, or double-quoted when it holds characters
//!   needing escapes (tabs, control characters, anything beyond the Basic Multilingual Plane);
//!   a string with a line break is a literal block (`|`, `|-`, `|+`, with an indentation hint when
//!   it starts with a space), unless a trailing space or special character forces double quotes;
//! - long plain and quoted strings are folded at spaces once the line passes 80 columns
//!   (go-yaml v2.4's default width, which kubectl does not change); keys are never folded, and a
//!   key longer than 128 bytes or spanning lines is written in the `? key` form;
//! - numbers: integers as they are; a float as Go's JSON prints it, then as go-yaml reads and
//!   re-prints it (an integral float becomes an integer, others `FormatFloat(f, 'g', -1, 64)`:
//!   `0.5`, `1.5e+06`, `1e-05`).

use serde_json::{Map, Value};
use std::cmp::Ordering;

use super::resolve::{format_go_g, is_base60_float, resolve, Resolved, TWO_POW_63, TWO_POW_64};

const BEST_INDENT: isize = 2;
const BEST_WIDTH: usize = 80;

#[derive(Clone, Copy, PartialEq)]
enum ScalarStyle {
    Plain,
    Single,
    Double,
    Literal,
}

/// The emitter's analysis of one scalar (`yaml_emitter_analyze_scalar`).
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

struct Emitter {
    out: String,
    column: usize,
    indent: isize,
    indents: Vec<isize>,
    whitespace: bool,
    indention: bool,
    mapping_context: bool,
    simple_key_context: bool,
}

/// Renders one value (an object, usually) exactly as `kubectl get -o yaml` does.
pub fn to_yaml(value: &Value) -> String {
    let mut e = Emitter {
        out: String::new(),
        column: 0,
        indent: -1,
        indents: Vec::new(),
        whitespace: true,
        indention: true,
        mapping_context: false,
        simple_key_context: false,
    };
    e.node(value, false, false);
    // Document end (implicit). go-yaml's encoder clears `open_ended` before the stream end, so
    // no `...` ever follows, even after a `|+` block.
    e.write_indent();
    e.out
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, indicator: &str, need_whitespace: bool, is_whitespace: bool, is_indention: bool) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn node(&mut self, value: &Value, mapping: bool, simple_key: bool) {
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match value {
            Value::Null => self.scalar("null", ScalarStyle::Plain),
            Value::Bool(b) => self.scalar(if *b { "true" } else { "false" }, ScalarStyle::Plain),
            Value::Number(n) => self.scalar(&number_text(n), ScalarStyle::Plain),
            Value::String(s) => self.string(s),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => {
                let indentless = self.mapping_context && !self.indention;
                self.increase_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, false, false);
                }
                self.pop_indent();
            }
            Value::Object(map) => {
                self.increase_indent(false, false);
                for (k, v) in sorted_entries(map, natural_cmp) {
                    self.write_indent();
                    if simple_key_ok(k) {
                        self.node(&Value::String(k.clone()), true, true);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        self.node(&Value::String(k.clone()), true, false);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    self.node(v, true, false);
                }
                self.pop_indent();
            }
        }
    }

    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.increase_indent(true, false);
        self.pop_indent();
        self.write_indicator(close, false, false, false);
    }

    /// go-yaml's `stringv`: quote what would resolve to another type, literal for line breaks.
    fn string(&mut self, s: &str) {
        let folded;
        let s = if s.contains('\u{85}') && !self.simple_key_context {
            folded = fold_nel(s);
            folded.as_str()
        } else {
            s
        };
        let style = if s.contains('\n') {
            ScalarStyle::Literal
        } else if resolve_is_str(s) && !is_base60_float(s) {
            ScalarStyle::Plain
        } else {
            ScalarStyle::Double
        };
        self.scalar(s, style);
    }

    fn scalar(&mut self, value: &str, requested: ScalarStyle) {
        let a = analyze(value);
        let mut style = requested;
        if self.simple_key_context && a.multiline {
            style = ScalarStyle::Double;
        }
        if style == ScalarStyle::Plain && (!a.block_plain_allowed || (value.is_empty() && self.simple_key_context)) {
            style = ScalarStyle::Single;
        }
        if style == ScalarStyle::Single && !a.single_quoted_allowed {
            style = ScalarStyle::Double;
        }
        if style == ScalarStyle::Literal && (!a.block_allowed || self.simple_key_context) {
            style = ScalarStyle::Double;
        }
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            ScalarStyle::Plain => self.write_plain(value, allow_breaks),
            ScalarStyle::Single => self.write_single(value, allow_breaks),
            ScalarStyle::Double => self.write_double(value, allow_breaks),
            ScalarStyle::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && chars.get(i + 1) != Some(&' ') {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                // Plain scalars never hold line breaks here (they go to literal or quoted styles).
                self.put(c);
                self.indention = false;
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                    && chars[i + 1] != ' '
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_double(&mut self, value: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let esc = match c {
                    '\0' => Some('0'),
                    '\x07' => Some('a'),
                    '\x08' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\x0b' => Some('v'),
                    '\x0c' => Some('f'),
                    '\r' => Some('r'),
                    '\x1b' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match esc {
                    Some(e) => self.put(e),
                    None => {
                        let v = c as u32;
                        let (letter, width) = if v <= 0xff {
                            ('x', 2)
                        } else if v <= 0xffff {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(letter);
                        for ch in format!("{v:0width$X}").chars() {
                            self.put(ch);
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i + 1 < chars.len() {
                    self.write_indent();
                    if chars[i + 1] == ' ' {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        let chars: Vec<char> = value.chars().collect();
        // Block scalar hints: an indentation indicator when the text starts with a space or a
        // break; `-` when it does not end with a break, `+` when it ends with two or more.
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            self.write_indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let n = chars.len();
        let chomp = if n == 0 || !is_break(chars[n - 1]) {
            Some("-")
        } else if n == 1 || is_break(chars[n - 2]) {
            Some("+")
        } else {
            None
        };
        if let Some(h) = chomp {
            self.write_indicator(h, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    breaks = false;
                }
                self.put(c);
                self.indention = false;
            }
        }
    }
}

/// kubectl prints JSON, which leaves NEL (U+0085) raw, and go-yaml reads that JSON back: inside
/// a quoted scalar a raw NEL is a line break, so it is folded like one (spaces around it dropped,
/// one break becomes a space, `n` breaks become `n - 1` line feeds).
fn fold_nel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{85}' {
            out.push(c);
            continue;
        }
        // Go's JSON escapes tabs (`\t`), so only spaces are raw blanks next to the break.
        while out.ends_with(' ') {
            out.pop();
        }
        let mut breaks = 1;
        while let Some(&n) = chars.peek() {
            match n {
                ' ' => {}
                '\u{85}' => breaks += 1,
                _ => break,
            }
            chars.next();
        }
        if breaks == 1 {
            out.push(' ');
        } else {
            out.extend(std::iter::repeat_n('\n', breaks - 1));
        }
    }
    out
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's `is_printable`: LF, printable ASCII, and the rest of the Basic Multilingual Plane
/// except surrogates, U+FEFF, U+FFFE and U+FFFF. Characters beyond it are *not* printable.
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0a
        || (0x20..=0x7e).contains(&v)
        || (0xa0..=0xd7ff).contains(&v)
        || ((0xe000..=0xfffd).contains(&v) && v != 0xfeff)
}

/// `yaml_emitter_analyze_scalar`, for the flags the block context uses.
fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = value.chars().collect();
    let n = chars.len();
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) = (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i + 1 >= n || matches!(chars[i + 1], ' ' | '\t') || is_break(chars[i + 1]);
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%' | '@' | '`' => {
                    block_indicators = true
                }
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if i + 1 == n {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + 1 == n {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// Whether go-yaml's resolver reads `s`, unquoted, as a string.
fn resolve_is_str(s: &str) -> bool {
    resolve(s) == Resolved::Str
}

/// `yaml_emitter_check_simple_key` for a string key: at most 128 bytes and on one line.
fn simple_key_ok(k: &str) -> bool {
    k.len() <= 128 && !k.chars().any(is_break)
}

/// How a JSON number comes out of `json.Marshal` → go-yaml decode → go-yaml encode.
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f.fract() == 0.0 && f.abs() < 1e21 {
        // Go's JSON prints it without a fraction, so go-yaml reads an integer if it fits.
        if (-TWO_POW_63..TWO_POW_63).contains(&f) {
            return (f as i64).to_string();
        }
        if (0.0..TWO_POW_64).contains(&f) {
            return (f as u64).to_string();
        }
    }
    format_go_g(f, false)
}

/// A map's entries in key order, by `cmp`: a small bottom-up merge sort, so that one sort
/// serves both orders this module needs (go-yaml's and Go's `%#v`) at little wasm cost, in
/// O(n log n) even for a ConfigMap with thousands of keys.
pub(crate) fn sorted_entries(map: &Map<String, Value>, cmp: fn(&str, &str) -> Ordering) -> Vec<(&String, &Value)> {
    let mut a: Vec<(&String, &Value)> = map.iter().collect();
    let mut b = a.clone();
    let n = a.len();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j) = (start, mid);
            for slot in &mut b[start..end] {
                if j >= end || (i < mid && cmp(a[i].0, a[j].0) != Ordering::Greater) {
                    *slot = a[i];
                    i += 1;
                } else {
                    *slot = a[j];
                    j += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut a, &mut b);
        width *= 2;
    }
    a
}

/// go-yaml v2's `keyList.Less` for two string keys.
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    if natural_less(a, b) {
        Ordering::Less
    } else if natural_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// Go's `unicode.IsLetter`: exact for ASCII; beyond it, the letter blocks of the common scripts
/// (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, CJK, kana, Hangul) count as letters and
/// symbols, punctuation and emoji do not. A full Unicode table would cost the page kilobytes for
/// the order of keys that are rare in Kubernetes objects.
fn is_letter(c: char) -> bool {
    const RANGES: [(u32, u32); 17] = [
        (0xaa, 0xaa),
        (0xb5, 0xb5),
        (0xba, 0xba),
        (0xc0, 0xd6),
        (0xd8, 0xf6),
        (0xf8, 0x2af),
        (0x370, 0x3ff),
        (0x400, 0x52f),
        (0x531, 0x587),
        (0x5d0, 0x5ea),
        (0x620, 0x64a),
        (0x1e00, 0x1fff),
        (0x3041, 0x30ff),
        (0x3400, 0x4dbf),
        (0x4e00, 0x9fff),
        (0xac00, 0xd7a3),
        (0xff21, 0xff5a),
    ];
    let v = c as u32;
    c.is_ascii_alphabetic() || (v > 0x7f && RANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&v)))
}

fn natural_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = is_letter(ar[i]);
        let bl = is_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn): (i64, i64) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}
