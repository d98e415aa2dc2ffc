//! `sort`: whole lines or `-k` keys, `-n`, `-r`, `-u`, `-b`, `-t`, compared as `LC_ALL=C` does
//! (byte order).

use super::{usage, Usage};

/// `sort`'s options and the lines it holds until the end of input.
#[derive(Clone, Debug)]
pub(super) struct Sort {
    pub(super) reverse: bool,
    pub(super) numeric: bool,
    pub(super) unique: bool,
    pub(super) blanks: bool,
    pub(super) sep: Option<char>,
    pub(super) key: Option<Key>,
    pub(super) lines: Vec<String>,
}

/// A `-k POS1[,POS2]` key: fields 1-based, with its own `n`, `r`, `b`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Key {
    pub(super) start: usize,
    pub(super) end: Option<usize>,
    pub(super) numeric: bool,
    pub(super) reverse: bool,
    pub(super) blanks: bool,
}

pub(super) fn parse_key(v: &str) -> Result<Key, Usage> {
    let bad = || usage("sort", 2, format!("invalid number at field start: invalid count at start of ‘{v}’"));
    let mut key = Key { start: 0, end: None, numeric: false, reverse: false, blanks: false };
    let (start, end) = match v.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (v, None),
    };
    let field = |s: &str, key: &mut Key| -> Result<usize, Usage> {
        let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        let rest = &s[digits.len()..];
        let rest = match rest.split_once('.') {
            Some((_, r)) if r.chars().all(|c| c.is_ascii_alphabetic()) => {
                return Err(usage(
                    "sort",
                    2,
                    format!("-k {v}: character positions in keys are not supported in this console"),
                ));
            }
            _ => rest,
        };
        for m in rest.chars() {
            match m {
                'n' => key.numeric = true,
                'r' => key.reverse = true,
                'b' => key.blanks = true,
                _ => {
                    return Err(usage(
                        "sort",
                        2,
                        format!("-k {v}: key option ‘{m}’ is not supported in this console (n, r, b are)"),
                    ))
                }
            }
        }
        match digits.parse::<usize>() {
            Ok(0) | Err(_) => Err(bad()),
            Ok(n) => Ok(n),
        }
    };
    key.start = field(start, &mut key)?;
    if let Some(e) = end {
        key.end = Some(field(e, &mut key)?);
    }
    Ok(key)
}

/// GNU sort's fields: without `-t`, each field is its leading blanks and the non-blanks after them.
fn field_spans(line: &str, sep: Option<char>) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    match sep {
        Some(t) => {
            let mut start = 0;
            for (i, c) in line.char_indices() {
                if c == t {
                    spans.push((start, i));
                    start = i + c.len_utf8();
                }
            }
            spans.push((start, line.len()));
        }
        None => {
            let b = line.as_bytes();
            let mut i = 0;
            while i < b.len() {
                let start = i;
                while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                    i += 1;
                }
                while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
                    i += 1;
                }
                spans.push((start, i));
            }
        }
    }
    spans
}

fn numeric_value(s: &str) -> f64 {
    let t = s.trim_start_matches([' ', '\t']);
    let mut end = 0;
    let bytes = t.as_bytes();
    if end < bytes.len() && bytes[end] == b'-' {
        end += 1;
    }
    let digits_start = end;
    while end < bytes.len() && (bytes[end].is_ascii_digit() || bytes[end] == b'.') {
        end += 1;
    }
    if end == digits_start {
        return 0.0;
    }
    t[..end].parse().unwrap_or(0.0)
}

impl Sort {
    fn key_text<'a>(&self, line: &'a str) -> &'a str {
        let Some(k) = self.key else {
            return if self.blanks { line.trim_start_matches([' ', '\t']) } else { line };
        };
        let spans = field_spans(line, self.sep);
        let Some(&(start, _)) = spans.get(k.start - 1) else { return "" };
        let end = match k.end {
            Some(e) => spans.get(e - 1).map_or(line.len(), |s| s.1),
            None => line.len(),
        };
        let text = &line[start..end.max(start)];
        if k.blanks || self.blanks {
            text.trim_start_matches([' ', '\t'])
        } else {
            text
        }
    }

    fn compare(&self, a: &str, b: &str) -> std::cmp::Ordering {
        let numeric = self.numeric || self.key.is_some_and(|k| k.numeric);
        let (ka, kb) = (self.key_text(a), self.key_text(b));
        let ord = if numeric {
            numeric_value(ka).partial_cmp(&numeric_value(kb)).unwrap_or(std::cmp::Ordering::Equal)
        } else {
            ka.as_bytes().cmp(kb.as_bytes())
        };
        if self.key.is_some_and(|k| k.reverse) {
            ord.reverse()
        } else {
            ord
        }
    }

    pub(super) fn sorted(&self, mut lines: Vec<String>) -> Vec<String> {
        let cmp = |a: &String, b: &String| {
            let o = self.compare(a, b);
            // GNU sort's last resort: the whole lines, byte by byte (not with -u).
            let o = if o == std::cmp::Ordering::Equal && !self.unique { a.as_bytes().cmp(b.as_bytes()) } else { o };
            if self.reverse {
                o.reverse()
            } else {
                o
            }
        };
        crate::sort::sort_by(&mut lines, cmp);
        if self.unique {
            lines.dedup_by(|b, a| self.compare(a, b) == std::cmp::Ordering::Equal);
        }
        lines
    }
}
