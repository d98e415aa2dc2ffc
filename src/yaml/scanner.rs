//! The token scanner: text in, YAML tokens out, with the same simple-key and indentation rules as
//! libyaml (which go-yaml v2, under sigs.k8s.io/yaml and so under kubectl, is a translation of).
//!
//! Why a faithful scanner rather than a line-based reader: kubectl's error messages (`mapping values
//! are not allowed in this context`, `could not find expected ':'`, ...) come from these exact rules,
//! and so does the set of inputs that are accepted. The rules, as read in go-yaml v2's
//! `scannerc.go`:
//! - a *simple key* (a key without `?`) is remembered where a scalar, flow collection, anchor or tag
//!   starts while `simple_key_allowed`; a later `:` turns it into `KEY`, inserted before it, and opens
//!   a block mapping (`BLOCK-MAPPING-START`) if its column is deeper than the current indentation;
//! - a simple key is *required* when it starts at the current indentation in block context: if it
//!   then goes stale (a line break, or 1024 characters) the scanner fails with `could not find
//!   expected ':'`;
//! - `:` without a usable simple key in block context is only legal where a simple key would be
//!   (`mapping values are not allowed in this context`), likewise `-` (`block sequence entries are
//!   not allowed in this context`);
//! - a token starting left of the current indentation closes block collections (`BLOCK-END`).
//!
//! Tokens are produced lazily, as the parser asks for them, so that errors surface in the same order
//! as in go-yaml (which reports the first error it meets and never looks further).

use std::collections::VecDeque;

/// A position in the input: character index, 0-based line and 0-based column (in characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub index: usize,
    pub line: usize,
    pub column: usize,
}

/// How a scalar was written; only "plain or not" matters for typing, the rest for tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    StreamStart,
    StreamEnd,
    /// `%YAML major.minor`. Directives are scanned only to fail as kubectl does: its reader cuts
    /// the `---` that would have to follow them, so a document with one never parses.
    VersionDirective(u32, u32),
    /// `%TAG handle prefix` (the handle).
    TagDirective(String),
    DocStart,
    DocEnd,
    BlockSeqStart,
    BlockMapStart,
    BlockEnd,
    FlowSeqStart,
    FlowSeqEnd,
    FlowMapStart,
    FlowMapEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias(String),
    Anchor(String),
    /// Handle (`!`, `!!`, or empty for verbatim `!<...>`) and suffix.
    Tag(String, String),
    Scalar(String, Style),
}

/// A token's kind without its payload: what the parser looks at before it takes a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum K {
    StreamStart,
    StreamEnd,
    VersionDirective,
    TagDirective,
    DocStart,
    DocEnd,
    BlockSeqStart,
    BlockMapStart,
    BlockEnd,
    FlowSeqStart,
    FlowSeqEnd,
    FlowMapStart,
    FlowMapEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias,
    Anchor,
    Tag,
    Scalar,
}

impl Tok {
    fn k(&self) -> K {
        match self {
            Tok::StreamStart => K::StreamStart,
            Tok::StreamEnd => K::StreamEnd,
            Tok::VersionDirective(..) => K::VersionDirective,
            Tok::TagDirective(_) => K::TagDirective,
            Tok::DocStart => K::DocStart,
            Tok::DocEnd => K::DocEnd,
            Tok::BlockSeqStart => K::BlockSeqStart,
            Tok::BlockMapStart => K::BlockMapStart,
            Tok::BlockEnd => K::BlockEnd,
            Tok::FlowSeqStart => K::FlowSeqStart,
            Tok::FlowSeqEnd => K::FlowSeqEnd,
            Tok::FlowMapStart => K::FlowMapStart,
            Tok::FlowMapEnd => K::FlowMapEnd,
            Tok::BlockEntry => K::BlockEntry,
            Tok::FlowEntry => K::FlowEntry,
            Tok::Key => K::Key,
            Tok::Value => K::Value,
            Tok::Alias(_) => K::Alias,
            Tok::Anchor(_) => K::Anchor,
            Tok::Tag(..) => K::Tag,
            Tok::Scalar(..) => K::Scalar,
        }
    }
}

/// The next token's kind and start, as the parser peeks at it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Peeked {
    pub kind: K,
    pub start: Mark,
}

#[derive(Debug)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: Mark,
}

/// A scanner or parser failure, with the two marks go-yaml keeps. go-yaml's message shows only
/// the problem (never libyaml's "while scanning ..." context), with a line chosen from the marks
/// (see `chunk_error` in `mod.rs`).
/// Boxed, so that results carrying it stay small.
pub(crate) type Failure = Box<FailureData>;

#[derive(Clone, Debug)]
pub(crate) struct FailureData {
    pub problem: String,
    pub problem_mark: Mark,
    pub context_mark: Mark,
    /// Scanner errors report `problem_mark.line + 1`, parser errors `problem_mark.line` (go-yaml's
    /// `parser.fail`).
    pub scanner: bool,
}

#[derive(Clone, Copy, Default)]
struct SimpleKey {
    possible: bool,
    required: bool,
    token_number: usize,
    mark: Mark,
}

/// The deepest flow or block nesting accepted: deeper input is refused with an error rather than
/// allowed to exhaust the stack (go-yaml refuses at 10000; we are in a browser, so lower).
pub const MAX_DEPTH: usize = 100;

pub(crate) struct Scanner {
    text: Vec<char>,
    pos: usize,
    mark: Mark,
    /// Invariant: `tokens[0]` has number `tokens_parsed`.
    tokens: VecDeque<Token>,
    tokens_parsed: usize,
    stream_start_produced: bool,
    stream_end_produced: bool,
    indent: isize,
    /// Invariant: strictly increasing, and every entry is less than `indent`.
    indents: Vec<isize>,
    simple_key_allowed: bool,
    /// Invariant (once the stream has started): one slot per flow level plus one for the block
    /// context, `simple_keys.len() == flow_level + 1`.
    simple_keys: Vec<SimpleKey>,
    /// go-yaml's `simple_keys_by_tok`: token number -> level of a possible simple key. Kept with
    /// go-yaml's exact bookkeeping, quirks included: closing a flow collection deletes the entry
    /// of the token that opened it, so `[]` and `{}` stop counting as a pending simple key.
    /// Not an invariant: an entry may outlive its level (go-yaml deletes only the closing level's
    /// current key), so lookups check the level is still there. Entries for tokens already handed
    /// to the parser are dropped, which keeps this list as short as the token queue.
    simple_keys_by_tok: Vec<(usize, usize)>,
    flow_level: usize,
}

pub(crate) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}
fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}
fn is_breakz(c: char) -> bool {
    is_break(c) || c == '\0'
}
fn is_blankz(c: char) -> bool {
    is_blank(c) || is_breakz(c)
}
fn is_alpha(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

type R<T> = Result<T, Failure>;

impl Scanner {
    /// `text` must already be free of the characters go-yaml's reader refuses (see `mod.rs`).
    pub fn new(text: &str) -> Scanner {
        let mut chars: Vec<char> = text.chars().collect();
        if chars.first() == Some(&'\u{feff}') {
            chars.remove(0);
        }
        Scanner {
            text: chars,
            pos: 0,
            mark: Mark::default(),
            tokens: VecDeque::new(),
            tokens_parsed: 0,
            stream_start_produced: false,
            stream_end_produced: false,
            indent: -1,
            indents: Vec::new(),
            simple_key_allowed: false,
            simple_keys: Vec::new(),
            simple_keys_by_tok: Vec::new(),
            flow_level: 0,
        }
    }

    /// Checks the invariants stated on the fields (for tests).
    #[cfg(test)]
    pub fn invariants_hold(&self) -> bool {
        let indents_ok =
            self.indents.windows(2).all(|w| w[0] < w[1]) && self.indents.last().is_none_or(|&i| i < self.indent);
        let keys_ok = !self.stream_start_produced || self.simple_keys.len() == self.flow_level + 1;
        let queue_ok = self.simple_keys_by_tok.iter().all(|&(n, _)| n + 1 >= self.tokens_parsed);
        indents_ok && keys_ok && queue_ok
    }

    fn ch(&self, k: usize) -> char {
        self.text.get(self.pos + k).copied().unwrap_or('\0')
    }

    fn skip(&mut self) {
        self.pos += 1;
        self.mark.index += 1;
        self.mark.column += 1;
    }

    fn skip_line(&mut self) {
        if self.ch(0) == '\r' && self.ch(1) == '\n' {
            self.pos += 2;
            self.mark.index += 2;
        } else if is_break(self.ch(0)) {
            self.pos += 1;
            self.mark.index += 1;
        } else {
            return;
        }
        self.mark.column = 0;
        self.mark.line += 1;
    }

    fn read(&mut self, s: &mut String) {
        s.push(self.ch(0));
        self.skip();
    }

    /// Reads a line break, normalizing CR, CRLF and NEL to LF (LS and PS are kept).
    fn read_line(&mut self, s: &mut String) {
        let c = self.ch(0);
        match c {
            '\r' | '\n' | '\u{85}' => s.push('\n'),
            '\u{2028}' | '\u{2029}' => s.push(c),
            _ => return,
        }
        self.skip_line();
    }

    fn scanner_error(&self, context_mark: Mark, problem: &str) -> Failure {
        Box::new(FailureData { problem: problem.to_string(), problem_mark: self.mark, context_mark, scanner: true })
    }

    /// The next token's kind and start, without consuming it.
    pub fn peek(&mut self) -> R<Peeked> {
        self.fetch_more_tokens()?;
        // fetch_more_tokens leaves at least one token queued.
        match self.tokens.front() {
            Some(t) => Ok(Peeked { kind: t.kind.k(), start: t.start }),
            None => Err(self.scanner_error(self.mark, "unexpected end of tokens")),
        }
    }

    /// Consumes the next token.
    pub fn next(&mut self) -> R<Token> {
        self.fetch_more_tokens()?;
        let t = self.tokens.pop_front().ok_or_else(|| self.scanner_error(self.mark, "unexpected end of tokens"))?;
        self.tokens_parsed += 1;
        if t.kind == Tok::StreamEnd {
            self.stream_end_produced = true;
        }
        Ok(t)
    }

    fn fetch_more_tokens(&mut self) -> R<()> {
        if self.stream_end_produced && !self.tokens.is_empty() {
            return Ok(());
        }
        loop {
            if !self.tokens.is_empty() {
                // More tokens are needed while the head token may still become a simple key.
                // Entries for tokens already handed out can never be asked for again.
                let head = self.tokens_parsed;
                self.simple_keys_by_tok.retain(|&(n, _)| n >= head);
                match self.simple_keys_by_tok.iter().find(|&&(n, _)| n == head).map(|&(_, level)| level) {
                    None => break,
                    Some(level) => {
                        if level >= self.simple_keys.len() || !self.simple_key_is_valid(level)? {
                            break;
                        }
                    }
                }
            }
            if self.stream_end_produced || self.tokens.back().is_some_and(|t| t.kind == Tok::StreamEnd) {
                break;
            }
            self.fetch_next_token()?;
        }
        Ok(())
    }

    fn simple_key_is_valid(&mut self, i: usize) -> R<bool> {
        let key = self.simple_keys[i];
        if !key.possible {
            return Ok(false);
        }
        if key.mark.line < self.mark.line || key.mark.index + 1024 < self.mark.index {
            if key.required {
                return Err(self.scanner_error(key.mark, "could not find expected ':'"));
            }
            self.simple_keys[i].possible = false;
            return Ok(false);
        }
        Ok(true)
    }

    fn push(&mut self, kind: Tok, start: Mark) {
        self.tokens.push_back(Token { kind, start });
    }

    /// go-yaml's `yaml_insert_token`: at a position in the queue, or at the end when the token
    /// number is already consumed.
    fn insert(&mut self, number: usize, kind: Tok, start: Mark) {
        match number.checked_sub(self.tokens_parsed) {
            Some(at) if at <= self.tokens.len() => self.tokens.insert(at, Token { kind, start }),
            _ => self.tokens.push_back(Token { kind, start }),
        }
    }

    fn fetch_next_token(&mut self) -> R<()> {
        if !self.stream_start_produced {
            self.stream_start_produced = true;
            self.simple_key_allowed = true;
            self.simple_keys.push(SimpleKey::default());
            self.push(Tok::StreamStart, self.mark);
            return Ok(());
        }
        self.scan_to_next_token();
        self.unroll_indent(self.mark.column as isize);
        let c = self.ch(0);
        if c == '\0' && self.pos >= self.text.len() {
            return self.fetch_stream_end();
        }
        if self.mark.column == 0 && c == '%' {
            self.unroll_indent(-1);
            self.remove_simple_key()?;
            self.simple_key_allowed = false;
            return self.scan_directive();
        }
        let at_doc_indicator = |s: &Scanner, ch: char| {
            s.mark.column == 0 && s.ch(0) == ch && s.ch(1) == ch && s.ch(2) == ch && is_blankz(s.ch(3))
        };
        if at_doc_indicator(self, '-') || at_doc_indicator(self, '.') {
            let kind = if c == '-' { Tok::DocStart } else { Tok::DocEnd };
            self.unroll_indent(-1);
            self.remove_simple_key()?;
            self.simple_key_allowed = false;
            let start = self.mark;
            self.skip();
            self.skip();
            self.skip();
            self.push(kind, start);
            return Ok(());
        }
        let next = self.ch(1);
        match c {
            '[' => return self.fetch_flow_collection_start(Tok::FlowSeqStart),
            '{' => return self.fetch_flow_collection_start(Tok::FlowMapStart),
            ']' => return self.fetch_flow_collection_end(Tok::FlowSeqEnd),
            '}' => return self.fetch_flow_collection_end(Tok::FlowMapEnd),
            ',' => {
                self.remove_simple_key()?;
                self.simple_key_allowed = true;
                let start = self.mark;
                self.skip();
                self.push(Tok::FlowEntry, start);
                return Ok(());
            }
            '-' if is_blankz(next) => return self.fetch_block_entry(),
            '?' if self.flow_level > 0 || is_blankz(next) => return self.fetch_key(),
            ':' if self.flow_level > 0 || is_blankz(next) => return self.fetch_value(),
            '*' => return self.fetch_anchor(true),
            '&' => return self.fetch_anchor(false),
            '!' => return self.fetch_tag(),
            '|' if self.flow_level == 0 => return self.fetch_block_scalar(true),
            '>' if self.flow_level == 0 => return self.fetch_block_scalar(false),
            '\'' => return self.fetch_flow_scalar(true),
            '"' => return self.fetch_flow_scalar(false),
            _ => {}
        }
        let indicator = is_blankz(c) || "-?:,[]{}#&*!|>'\"%@`".contains(c);
        if !indicator
            || (c == '-' && !is_blank(next))
            || (self.flow_level == 0 && (c == '?' || c == ':') && !is_blankz(next))
        {
            return self.fetch_plain_scalar();
        }
        Err(self.scanner_error(self.mark, "found character that cannot start any token"))
    }

    fn scan_directive(&mut self) -> R<()> {
        let start = self.mark;
        self.skip();
        let mut name = String::new();
        while is_alpha(self.ch(0)) {
            self.read(&mut name);
        }
        if name.is_empty() {
            return Err(self.scanner_error(start, "could not find expected directive name"));
        }
        if !is_blankz(self.ch(0)) {
            return Err(self.scanner_error(start, "found unexpected non-alphabetical character"));
        }
        let skip_blanks = |s: &mut Scanner| {
            while is_blank(s.ch(0)) {
                s.skip();
            }
        };
        let kind = match name.as_str() {
            "YAML" => {
                skip_blanks(self);
                let major = self.version_number(start)?;
                if self.ch(0) != '.' {
                    return Err(self.scanner_error(start, "did not find expected digit or '.' character"));
                }
                self.skip();
                let minor = self.version_number(start)?;
                Tok::VersionDirective(major, minor)
            }
            "TAG" => {
                skip_blanks(self);
                if self.ch(0) != '!' {
                    return Err(self.scanner_error(start, "did not find expected '!'"));
                }
                let mut handle = String::new();
                self.read(&mut handle);
                while is_alpha(self.ch(0)) {
                    self.read(&mut handle);
                }
                if self.ch(0) == '!' {
                    self.read(&mut handle);
                } else if handle != "!" {
                    return Err(self.scanner_error(start, "did not find expected '!'"));
                }
                if !is_blank(self.ch(0)) {
                    return Err(self.scanner_error(start, "did not find expected whitespace"));
                }
                skip_blanks(self);
                let mut prefix = String::new();
                self.scan_tag_uri(&mut prefix);
                if prefix.is_empty() {
                    return Err(self.scanner_error(start, "did not find expected tag URI"));
                }
                if !is_blankz(self.ch(0)) {
                    return Err(self.scanner_error(start, "did not find expected whitespace or line break"));
                }
                Tok::TagDirective(handle)
            }
            _ => return Err(self.scanner_error(start, "found unknown directive name")),
        };
        skip_blanks(self);
        if self.ch(0) == '#' {
            while !is_breakz(self.ch(0)) {
                self.skip();
            }
        }
        if !is_breakz(self.ch(0)) {
            return Err(self.scanner_error(start, "did not find expected comment or line break"));
        }
        self.skip_line();
        self.push(kind, start);
        Ok(())
    }

    fn version_number(&mut self, start: Mark) -> R<u32> {
        let mut value = 0;
        let mut length = 0;
        while let Some(d) = self.ch(0).to_digit(10) {
            length += 1;
            if length > 2 {
                return Err(self.scanner_error(start, "found extremely long version number"));
            }
            value = value * 10 + d;
            self.skip();
        }
        if length == 0 {
            return Err(self.scanner_error(start, "did not find expected version number"));
        }
        Ok(value)
    }

    fn fetch_stream_end(&mut self) -> R<()> {
        if self.mark.column != 0 {
            self.mark.column = 0;
            self.mark.line += 1;
        }
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        self.push(Tok::StreamEnd, self.mark);
        Ok(())
    }

    fn scan_to_next_token(&mut self) {
        loop {
            while self.ch(0) == ' ' || ((self.flow_level > 0 || !self.simple_key_allowed) && self.ch(0) == '\t') {
                self.skip();
            }
            if self.ch(0) == '#' {
                while !is_breakz(self.ch(0)) {
                    self.skip();
                }
            }
            if is_break(self.ch(0)) {
                self.skip_line();
                if self.flow_level == 0 {
                    self.simple_key_allowed = true;
                }
            } else {
                break;
            }
        }
    }

    fn save_simple_key(&mut self) -> R<()> {
        let required = self.flow_level == 0 && self.indent == self.mark.column as isize;
        if self.simple_key_allowed {
            let key = SimpleKey {
                possible: true,
                required,
                token_number: self.tokens_parsed + self.tokens.len(),
                mark: self.mark,
            };
            self.remove_simple_key()?;
            if let Some(last) = self.simple_keys.last_mut() {
                *last = key;
            }
            let level = self.simple_keys.len() - 1;
            self.forget_key(key.token_number);
            self.simple_keys_by_tok.push((key.token_number, level));
        }
        Ok(())
    }

    fn forget_key(&mut self, number: usize) {
        self.simple_keys_by_tok.retain(|&(n, _)| n != number);
    }

    fn remove_simple_key(&mut self) -> R<()> {
        if let Some(key) = self.simple_keys.last_mut() {
            if key.possible {
                if key.required {
                    let mark = key.mark;
                    return Err(self.scanner_error(mark, "could not find expected ':'"));
                }
                key.possible = false;
                let number = key.token_number;
                self.forget_key(number);
            }
        }
        Ok(())
    }

    fn roll_indent(&mut self, column: usize, number: Option<usize>, kind: Tok, mark: Mark) -> R<()> {
        if self.flow_level > 0 {
            return Ok(());
        }
        if self.indent < column as isize {
            self.indents.push(self.indent);
            self.indent = column as isize;
            if self.indents.len() > MAX_DEPTH {
                return Err(self.scanner_error(mark, &format!("exceeded max depth of {MAX_DEPTH}")));
            }
            match number {
                Some(n) => self.insert(n, kind, mark),
                None => self.push(kind, mark),
            }
        }
        Ok(())
    }

    fn unroll_indent(&mut self, column: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > column {
            self.push(Tok::BlockEnd, self.mark);
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    fn fetch_flow_collection_start(&mut self, kind: Tok) -> R<()> {
        self.save_simple_key()?;
        let mark = self.mark;
        self.simple_keys.push(SimpleKey {
            token_number: self.tokens_parsed + self.tokens.len(),
            mark,
            ..Default::default()
        });
        self.flow_level += 1;
        if self.flow_level > MAX_DEPTH {
            return Err(self.scanner_error(mark, &format!("exceeded max depth of {MAX_DEPTH}")));
        }
        self.simple_key_allowed = true;
        self.skip();
        self.push(kind, mark);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, kind: Tok) -> R<()> {
        self.remove_simple_key()?;
        if self.flow_level > 0 {
            self.flow_level -= 1;
            if let Some(popped) = self.simple_keys.pop() {
                self.forget_key(popped.token_number);
            }
        }
        self.simple_key_allowed = false;
        let mark = self.mark;
        self.skip();
        self.push(kind, mark);
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> R<()> {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return Err(
                    self.scanner_error(Mark::default(), "block sequence entries are not allowed in this context")
                );
            }
            self.roll_indent(self.mark.column, None, Tok::BlockSeqStart, self.mark)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let mark = self.mark;
        self.skip();
        self.push(Tok::BlockEntry, mark);
        Ok(())
    }

    fn fetch_key(&mut self) -> R<()> {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return Err(self.scanner_error(Mark::default(), "mapping keys are not allowed in this context"));
            }
            self.roll_indent(self.mark.column, None, Tok::BlockMapStart, self.mark)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = self.flow_level == 0;
        let mark = self.mark;
        self.skip();
        self.push(Tok::Key, mark);
        Ok(())
    }

    fn fetch_value(&mut self) -> R<()> {
        let i = self.simple_keys.len() - 1;
        if self.simple_key_is_valid(i)? {
            let key = self.simple_keys[i];
            self.insert(key.token_number, Tok::Key, key.mark);
            self.roll_indent(key.mark.column, Some(key.token_number), Tok::BlockMapStart, key.mark)?;
            self.simple_keys[i].possible = false;
            self.forget_key(key.token_number);
            self.simple_key_allowed = false;
        } else {
            if self.flow_level == 0 {
                if !self.simple_key_allowed {
                    return Err(self.scanner_error(Mark::default(), "mapping values are not allowed in this context"));
                }
                self.roll_indent(self.mark.column, None, Tok::BlockMapStart, self.mark)?;
            }
            self.simple_key_allowed = self.flow_level == 0;
        }
        let mark = self.mark;
        self.skip();
        self.push(Tok::Value, mark);
        Ok(())
    }

    fn fetch_anchor(&mut self, alias: bool) -> R<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        let mut name = String::new();
        while is_alpha(self.ch(0)) {
            self.read(&mut name);
        }
        let c = self.ch(0);
        if name.is_empty() || !(is_blankz(c) || "?:,]}%@`".contains(c)) {
            return Err(self.scanner_error(start, "did not find expected alphabetic or numeric character"));
        }
        self.push(if alias { Tok::Alias(name) } else { Tok::Anchor(name) }, start);
        Ok(())
    }

    fn fetch_tag(&mut self) -> R<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let (handle, suffix);
        if self.ch(1) == '<' {
            self.skip();
            self.skip();
            let mut s = String::new();
            self.scan_tag_uri(&mut s);
            if self.ch(0) != '>' || s.is_empty() {
                return Err(self.scanner_error(start, "did not find the expected '>'"));
            }
            self.skip();
            handle = String::new();
            suffix = s;
        } else {
            // A handle is `!`, `!!` or `!word!`; without the closing `!` the word is the suffix.
            let mut h = String::from("!");
            self.skip();
            while is_alpha(self.ch(0)) {
                self.read(&mut h);
            }
            if self.ch(0) == '!' {
                self.read(&mut h);
                let mut s = String::new();
                self.scan_tag_uri(&mut s);
                handle = h;
                suffix = s;
            } else {
                let mut s = h[1..].to_string();
                self.scan_tag_uri(&mut s);
                handle = "!".to_string();
                suffix = s;
            }
        }
        let c = self.ch(0);
        if !(is_blankz(c) || (self.flow_level > 0 && c == ',')) {
            return Err(self.scanner_error(start, "did not find expected whitespace or line break"));
        }
        self.push(Tok::Tag(handle, suffix), start);
        Ok(())
    }

    fn scan_tag_uri(&mut self, s: &mut String) {
        while is_alpha(self.ch(0))
            || ";/?:@&=+$.%!~*'()".contains(self.ch(0))
            || (self.flow_level == 0 && "[],".contains(self.ch(0)))
        {
            self.read(s);
        }
    }

    fn fetch_block_scalar(&mut self, literal: bool) -> R<()> {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start = self.mark;
        self.skip();
        let mut chomping = 0i8;
        let mut increment = 0usize;
        let mut read_chomp = |s: &mut Scanner| {
            if s.ch(0) == '+' || s.ch(0) == '-' {
                chomping = if s.ch(0) == '+' { 1 } else { -1 };
                s.skip();
                true
            } else {
                false
            }
        };
        let chomp_first = read_chomp(self);
        if self.ch(0).is_ascii_digit() {
            if self.ch(0) == '0' {
                return Err(self.scanner_error(start, "found an indentation indicator equal to 0"));
            }
            increment = self.ch(0) as usize - '0' as usize;
            self.skip();
            if !chomp_first {
                read_chomp(self);
            }
        }
        while is_blank(self.ch(0)) {
            self.skip();
        }
        if self.ch(0) == '#' {
            while !is_breakz(self.ch(0)) {
                self.skip();
            }
        }
        if !is_breakz(self.ch(0)) {
            return Err(self.scanner_error(start, "did not find expected comment or line break"));
        }
        self.skip_line();
        let mut indent = 0usize;
        if increment > 0 {
            indent = if self.indent >= 0 { self.indent as usize + increment } else { increment };
        }
        let mut s = String::new();
        let mut leading_break = String::new();
        let mut trailing_breaks = String::new();
        self.block_scalar_breaks(&mut indent, &mut trailing_breaks, start)?;
        let mut leading_blank = false;
        while self.mark.column == indent && self.pos < self.text.len() {
            let trailing_blank = is_blank(self.ch(0));
            if !literal && !leading_blank && !trailing_blank && leading_break.starts_with('\n') {
                if trailing_breaks.is_empty() {
                    s.push(' ');
                }
            } else {
                s.push_str(&leading_break);
            }
            leading_break.clear();
            s.push_str(&trailing_breaks);
            trailing_breaks.clear();
            leading_blank = is_blank(self.ch(0));
            while !is_breakz(self.ch(0)) {
                self.read(&mut s);
            }
            if self.pos >= self.text.len() {
                break;
            }
            self.read_line(&mut leading_break);
            self.block_scalar_breaks(&mut indent, &mut trailing_breaks, start)?;
        }
        if chomping != -1 {
            s.push_str(&leading_break);
        }
        if chomping == 1 {
            s.push_str(&trailing_breaks);
        }
        self.push(Tok::Scalar(s, if literal { Style::Literal } else { Style::Folded }), start);
        Ok(())
    }

    fn block_scalar_breaks(&mut self, indent: &mut usize, breaks: &mut String, start: Mark) -> R<()> {
        let mut max_indent = 0;
        loop {
            while (*indent == 0 || self.mark.column < *indent) && self.ch(0) == ' ' {
                self.skip();
            }
            max_indent = max_indent.max(self.mark.column);
            if (*indent == 0 || self.mark.column < *indent) && self.ch(0) == '\t' {
                return Err(self.scanner_error(start, "found a tab character where an indentation space is expected"));
            }
            if !is_break(self.ch(0)) {
                break;
            }
            self.read_line(breaks);
        }
        if *indent == 0 {
            *indent = max_indent.max((self.indent + 1).max(1) as usize);
        }
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, single: bool) -> R<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        self.skip();
        let mut s = String::new();
        let mut leading_break = String::new();
        let mut trailing_breaks = String::new();
        let mut whitespaces = String::new();
        loop {
            let c0 = self.ch(0);
            if self.mark.column == 0
                && (c0 == '-' || c0 == '.')
                && self.ch(1) == c0
                && self.ch(2) == c0
                && is_blankz(self.ch(3))
            {
                return Err(self.scanner_error(start, "found unexpected document indicator"));
            }
            if self.pos >= self.text.len() {
                return Err(self.scanner_error(start, "found unexpected end of stream"));
            }
            let mut leading_blanks = false;
            while !is_blankz(self.ch(0)) {
                let c = self.ch(0);
                if single && c == '\'' && self.ch(1) == '\'' {
                    s.push('\'');
                    self.skip();
                    self.skip();
                } else if (single && c == '\'') || (!single && c == '"') {
                    break;
                } else if !single && c == '\\' && is_break(self.ch(1)) {
                    self.skip();
                    self.skip_line();
                    leading_blanks = true;
                    break;
                } else if !single && c == '\\' {
                    let mut code_length = 0;
                    match self.ch(1) {
                        '0' => s.push('\0'),
                        'a' => s.push('\x07'),
                        'b' => s.push('\x08'),
                        't' | '\t' => s.push('\t'),
                        'n' => s.push('\n'),
                        'v' => s.push('\x0b'),
                        'f' => s.push('\x0c'),
                        'r' => s.push('\r'),
                        'e' => s.push('\x1b'),
                        ' ' => s.push(' '),
                        '"' => s.push('"'),
                        '\'' => s.push('\''),
                        '\\' => s.push('\\'),
                        'N' => s.push('\u{85}'),
                        '_' => s.push('\u{a0}'),
                        'L' => s.push('\u{2028}'),
                        'P' => s.push('\u{2029}'),
                        'x' => code_length = 2,
                        'u' => code_length = 4,
                        'U' => code_length = 8,
                        _ => return Err(self.scanner_error(start, "found unknown escape character")),
                    }
                    self.skip();
                    self.skip();
                    if code_length > 0 {
                        let mut value: u32 = 0;
                        for k in 0..code_length {
                            let Some(d) = self.ch(k).to_digit(16) else {
                                return Err(self.scanner_error(start, "did not find expected hexdecimal number"));
                            };
                            value = (value << 4) + d;
                        }
                        let Some(ch) = char::from_u32(value) else {
                            return Err(self.scanner_error(start, "found invalid Unicode character escape code"));
                        };
                        s.push(ch);
                        for _ in 0..code_length {
                            self.skip();
                        }
                    }
                } else {
                    self.read(&mut s);
                }
            }
            let c = self.ch(0);
            if (single && c == '\'') || (!single && c == '"') {
                break;
            }
            while is_blank(self.ch(0)) || is_break(self.ch(0)) {
                if is_blank(self.ch(0)) {
                    if leading_blanks {
                        self.skip();
                    } else {
                        self.read(&mut whitespaces);
                    }
                } else if !leading_blanks {
                    whitespaces.clear();
                    self.read_line(&mut leading_break);
                    leading_blanks = true;
                } else {
                    self.read_line(&mut trailing_breaks);
                }
            }
            if leading_blanks {
                fold(&mut s, &mut leading_break, &mut trailing_breaks);
            } else {
                s.push_str(&whitespaces);
                whitespaces.clear();
            }
        }
        self.skip();
        let style = if single { Style::SingleQuoted } else { Style::DoubleQuoted };
        self.push(Tok::Scalar(s, style), start);
        Ok(())
    }

    fn fetch_plain_scalar(&mut self) -> R<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.mark;
        let indent = self.indent + 1;
        let mut s = String::new();
        let mut leading_break = String::new();
        let mut trailing_breaks = String::new();
        let mut whitespaces = String::new();
        let mut leading_blanks = false;
        loop {
            let c0 = self.ch(0);
            if self.mark.column == 0
                && (c0 == '-' || c0 == '.')
                && self.ch(1) == c0
                && self.ch(2) == c0
                && is_blankz(self.ch(3))
            {
                break;
            }
            if c0 == '#' {
                break;
            }
            while !is_blankz(self.ch(0)) {
                let c = self.ch(0);
                if (c == ':' && is_blankz(self.ch(1))) || (self.flow_level > 0 && ",?[]{}".contains(c)) {
                    break;
                }
                if leading_blanks || !whitespaces.is_empty() {
                    if leading_blanks {
                        fold(&mut s, &mut leading_break, &mut trailing_breaks);
                        leading_blanks = false;
                    } else {
                        s.push_str(&whitespaces);
                        whitespaces.clear();
                    }
                }
                self.read(&mut s);
            }
            if !(is_blank(self.ch(0)) || is_break(self.ch(0))) {
                break;
            }
            while is_blank(self.ch(0)) || is_break(self.ch(0)) {
                if is_blank(self.ch(0)) {
                    if leading_blanks && (self.mark.column as isize) < indent && self.ch(0) == '\t' {
                        return Err(self.scanner_error(start, "found a tab character that violates indentation"));
                    }
                    if leading_blanks {
                        self.skip();
                    } else {
                        self.read(&mut whitespaces);
                    }
                } else if !leading_blanks {
                    whitespaces.clear();
                    self.read_line(&mut leading_break);
                    leading_blanks = true;
                } else {
                    self.read_line(&mut trailing_breaks);
                }
            }
            if self.flow_level == 0 && (self.mark.column as isize) < indent {
                break;
            }
        }
        self.push(Tok::Scalar(s, Style::Plain), start);
        if leading_blanks {
            self.simple_key_allowed = true;
        }
        Ok(())
    }
}

/// Line folding shared by plain and quoted scalars: one line break becomes a space, more breaks are
/// kept minus the first.
fn fold(s: &mut String, leading_break: &mut String, trailing_breaks: &mut String) {
    if leading_break.starts_with('\n') {
        if trailing_breaks.is_empty() {
            s.push(' ');
        } else {
            s.push_str(trailing_breaks);
        }
    } else {
        s.push_str(leading_break);
        s.push_str(trailing_breaks);
    }
    leading_break.clear();
    trailing_breaks.clear();
}
