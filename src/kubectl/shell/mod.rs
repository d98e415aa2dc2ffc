//! The console's command language: the part of bash that documentation and learners use around
//! kubectl, parsed the way bash parses it, so that commands copied from a terminal run verbatim.
//!
//! [`parse`] reads one complete command (a line, with its here-documents and continuation lines)
//! into a [`List`]; [`super::exec`] runs it. What the grammar covers:
//!
//! - words split on blanks; single quotes (literal), double quotes (`\"`, `\\`, `\$`, `` \` `` and
//!   backslash-newline escapes; `$` expansions inside), a backslash outside quotes escaping the
//!   next character, `$'...'` (ANSI-C escapes `\n`, `\t`, `\r`, `\\`, `\'`, `\"`), `#` comments
//!   at the start of a word, backslash-newline joining lines;
//! - expansions: `$(...)` and `` `...` `` (command substitution, nested to [`MAX_DEPTH`] levels),
//!   `$?`, `$NAME` and `${NAME}` (shell variables), and `$1`..`$9`, `$@`, `$*` (empty: there are
//!   no positional parameters) and `$#` (0);
//! - `NAME=value` assignments (alone they set a shell variable; before a command they are that
//!   command's environment, which no command here reads);
//! - pipelines (`|`, and `|&` which pipes standard error too), `!` negating a pipeline's status,
//!   `&&`, `||`, `;` and newlines; a line may end in `|`, `&&` or `||` and continue on the next;
//! - redirections: `>`, `>>`, `<` (files are the editor's buffers), `2>`, `2>>`, `&>`, `&>>`,
//!   `2>&1`, `>&2`, `/dev/null`, here-documents (`<<EOF`, `<<-EOF`, `<<'EOF'`: the body is
//!   expanded unless the delimiter is quoted, as bash does) and here-strings (`<<< word`).
//!
//! What it refuses, each with a message that says so (never by guessing): control flow (`if`,
//! `for`, `while`, `case`, functions, `{ }`, `[[ ]]`), subshells `( )`, background jobs `&`,
//! arithmetic `$(( ))`, `${NAME...}` operators, and other special parameters. Globbing and tilde
//! expansion are not done: `*`, `?`, `[` and `~` stay as typed (what bash does when no file
//! matches, which is the usual case for a jsonpath).

/// How deeply command substitutions may nest (`$(a $(b $(c ...)))`).
pub const MAX_DEPTH: usize = 16;

/// One complete command: and-or lists separated by `;` (or newlines inside `$(...)`).
pub type List = Vec<AndOr>;

/// Pipelines joined by `&&` and `||` (evaluated left to right, as bash does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// The others, each with its connector: `true` for `&&`, `false` for `||`.
    pub rest: Vec<(bool, Pipeline)>,
}

/// Commands joined by `|`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pipeline {
    /// `! pipeline`: the status is negated.
    pub negate: bool,
    /// The commands, first to last.
    pub commands: Vec<Simple>,
    /// For each `|` (between command i and i+1): whether it was `|&` (standard error too).
    pub pipe_stderr: Vec<bool>,
}

/// One command with its assignments and redirections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Simple {
    /// `NAME=value` words before the command name.
    pub assigns: Vec<(String, Word)>,
    /// The command name and its arguments.
    pub words: Vec<Word>,
    /// Redirections, in the order written (the order matters: `>f 2>&1` is not `2>&1 >f`).
    pub redirects: Vec<Redirect>,
}

/// A word before expansion: its pieces as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Word {
    /// The pieces, in order.
    pub parts: Vec<Part>,
}

/// A piece of a word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// Unquoted text.
    Lit(String),
    /// Quoted text (never split; a quoted empty string is still a word).
    Quoted(String),
    /// `$NAME`, `${NAME}`.
    Var {
        /// The variable's name.
        name: String,
        /// Inside double quotes (not split into several words).
        quoted: bool,
    },
    /// `$?`.
    Status {
        /// Inside double quotes.
        quoted: bool,
    },
    /// `$(...)` or `` `...` ``.
    Subst {
        /// The commands to run.
        list: List,
        /// Inside double quotes.
        quoted: bool,
    },
}

/// A redirection: which file descriptor, and what happens to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// The descriptor (0, 1 or 2).
    pub fd: u8,
    /// What is done.
    pub op: RedirOp,
}

/// What a redirection does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedirOp {
    /// `>` (truncates).
    Out(Word),
    /// `>>`.
    Append(Word),
    /// `<`.
    In(Word),
    /// `&>`: standard output and error to the file.
    Both(Word),
    /// `&>>`.
    BothAppend(Word),
    /// `n>&m`: descriptor n becomes a copy of m.
    Dup(u8),
    /// A here-document: its body, expanded when run unless the delimiter was quoted.
    HereDoc(Word),
    /// `<<< word`: the word and a newline.
    HereString(Word),
}

/// A line the parser cannot read. The text is what the console prints after `error: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellError {
    /// A quote (or `$(`, `` ` ``, `${`) was opened and never closed.
    UnbalancedQuote(char),
    /// `<<` without a delimiter word.
    MissingHereDocDelimiter,
    /// The here-document's closing delimiter line never came.
    UnterminatedHereDoc(String),
    /// bash's `syntax error near unexpected token`.
    Unexpected(String),
    /// The input ended where a command must follow (`kubectl get pods |`).
    UnexpectedEnd,
    /// Something bash has that this console does not; the text says what.
    Unsupported(String),
    /// Command substitutions nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl std::fmt::Display for ShellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShellError::UnbalancedQuote(q) => write!(f, "unexpected end of line while looking for matching `{q}'"),
            ShellError::MissingHereDocDelimiter => {
                f.write_str("syntax error: here-document needs a delimiter after `<<'")
            }
            ShellError::UnterminatedHereDoc(d) => {
                write!(f, "here-document delimited by end-of-file (wanted `{d}')")
            }
            ShellError::Unexpected(t) => write!(f, "syntax error near unexpected token `{t}'"),
            ShellError::UnexpectedEnd => f.write_str("syntax error: unexpected end of file"),
            ShellError::Unsupported(what) => f.write_str(what),
            ShellError::TooDeep => {
                write!(f, "command substitutions are nested too deeply (this console allows {MAX_DEPTH} levels)")
            }
        }
    }
}

/// Words bash reserves at the start of a command, none of which this console runs.
const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "select", "function",
    "{", "}", "[[", "]]",
];

fn control_flow(word: &str) -> ShellError {
    ShellError::Unsupported(format!(
        "{word}: control flow is not supported in this console; it runs command lines: pipes (|), &&, ||, ; and $(...)"
    ))
}

/// Parses the first complete command of `input`: up to the end of its line, plus continuation
/// lines (after a trailing `|`, `&&`, `||` or backslash, or inside quotes and `$(...)`) and its
/// here-documents. Returns the command (empty for a blank or comment line) and how many bytes of
/// `input` it used, so that a caller holding a pasted script can run the rest after it.
pub fn parse(input: &str) -> Result<(List, usize), ShellError> {
    let chars: Vec<char> = input.chars().collect();
    let mut p = Parser { s: &chars, pos: 0, depth: 0, heredocs: Vec::new(), bodies: Vec::new() };
    let mut list = p.list(End::Line)?;
    // The newline that ended the command, then the bodies of its here-documents.
    if p.peek() == Some('\n') {
        p.pos += 1;
        p.read_heredocs()?;
    }
    if let Some(h) = p.heredocs.first() {
        return Err(ShellError::UnterminatedHereDoc(h.delim.clone()));
    }
    fill_list(&mut list, &mut p.bodies);
    let used: usize = chars[..p.pos].iter().map(|c| c.len_utf8()).sum();
    Ok((list, used))
}

/// Splits one line into words with quoting only (no operators, no expansion): what lesson goal
/// checks use, where `>` and `|` are plain words.
pub fn split_words(line: &str) -> Result<Vec<String>, ShellError> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            None | Some('#') => break,
            _ => {}
        }
        let mut word = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                '\'' => loop {
                    match chars.next() {
                        None => return Err(ShellError::UnbalancedQuote('\'')),
                        Some('\'') => break,
                        Some(x) => word.push(x),
                    }
                },
                '"' => loop {
                    match chars.next() {
                        None => return Err(ShellError::UnbalancedQuote('"')),
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            None => return Err(ShellError::UnbalancedQuote('"')),
                            Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                            Some(x) => {
                                word.push('\\');
                                word.push(x);
                            }
                        },
                        Some(x) => word.push(x),
                    }
                },
                '\\' => {
                    if let Some(x) = chars.next() {
                        word.push(x);
                    }
                }
                _ => word.push(c),
            }
        }
        words.push(word);
    }
    Ok(words)
}

/// Where a list ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// At a newline or the end of input (a top-level command).
    Line,
    /// At the `)` closing `$(`.
    Paren,
    /// At the end of input (the text of a backquoted substitution).
    Eof,
}

struct PendingHereDoc {
    delim: String,
    strip_tabs: bool,
    quoted: bool,
    slot: usize,
}

struct Parser<'a> {
    s: &'a [char],
    pos: usize,
    depth: usize,
    heredocs: Vec<PendingHereDoc>,
    /// Here-document bodies by slot, filled when their line ends.
    bodies: Vec<Option<Word>>,
}

/// The placeholder a here-document holds until its body is read: a word whose only part names
/// the slot. [`fill_list`] replaces it.
fn placeholder(slot: usize) -> Word {
    Word { parts: vec![Part::Var { name: format!("\u{0}heredoc{slot}"), quoted: true }] }
}

fn fill_list(list: &mut List, bodies: &mut Vec<Option<Word>>) {
    for ao in list {
        fill_pipeline(&mut ao.first, bodies);
        for (_, p) in &mut ao.rest {
            fill_pipeline(p, bodies);
        }
    }
}

fn fill_pipeline(p: &mut Pipeline, bodies: &mut Vec<Option<Word>>) {
    for c in &mut p.commands {
        for (_, w) in &mut c.assigns {
            fill_word(w, bodies);
        }
        for w in &mut c.words {
            fill_word(w, bodies);
        }
        for r in &mut c.redirects {
            match &mut r.op {
                RedirOp::HereDoc(w) => {
                    let slot = match w.parts.first() {
                        Some(Part::Var { name, .. }) => name.strip_prefix("\u{0}heredoc").and_then(|n| n.parse().ok()),
                        _ => None,
                    };
                    if let Some(body) = slot.and_then(|i: usize| bodies.get_mut(i)).and_then(Option::take) {
                        *w = body;
                    }
                    fill_word(w, bodies);
                }
                RedirOp::Out(w)
                | RedirOp::Append(w)
                | RedirOp::In(w)
                | RedirOp::Both(w)
                | RedirOp::BothAppend(w)
                | RedirOp::HereString(w) => fill_word(w, bodies),
                RedirOp::Dup(_) => {}
            }
        }
    }
}

fn fill_word(w: &mut Word, bodies: &mut Vec<Option<Word>>) {
    for part in &mut w.parts {
        if let Part::Subst { list, .. } = part {
            fill_list(list, bodies);
        }
    }
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Characters that end an unquoted word.
fn is_meta(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '|' | '&' | ';' | '<' | '>' | '(' | ')')
}

/// A word being built: its parts, merging adjacent text of the same kind.
#[derive(Default)]
struct WordBuf {
    parts: Vec<Part>,
}

impl WordBuf {
    fn lit(&mut self, c: char) {
        match self.parts.last_mut() {
            Some(Part::Lit(s)) => s.push(c),
            _ => self.parts.push(Part::Lit(c.to_string())),
        }
    }
    fn quoted(&mut self, text: &str) {
        match self.parts.last_mut() {
            Some(Part::Quoted(s)) => s.push_str(text),
            _ => self.parts.push(Part::Quoted(text.to_string())),
        }
    }
    fn quoted_char(&mut self, c: char) {
        match self.parts.last_mut() {
            Some(Part::Quoted(s)) => s.push(c),
            _ => self.parts.push(Part::Quoted(c.to_string())),
        }
    }
    fn finish(self) -> Word {
        Word { parts: self.parts }
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.s.get(self.pos + n).copied()
    }

    fn starts_with(&self, t: &str) -> bool {
        t.chars().enumerate().all(|(k, c)| self.s.get(self.pos + k) == Some(&c))
    }

    /// Skips blanks, backslash-newlines and a comment (up to, not including, the newline).
    fn blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                Some('#') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// After an operator that needs a command (`|`, `&&`, `||`): blanks and newlines (each
    /// newline reads the here-documents waiting for it).
    fn blanks_and_newlines(&mut self) -> Result<(), ShellError> {
        loop {
            self.blanks();
            if self.peek() == Some('\n') {
                self.pos += 1;
                self.read_heredocs()?;
            } else {
                return Ok(());
            }
        }
    }

    /// Reads the bodies of the here-documents opened on the line that just ended.
    fn read_heredocs(&mut self) -> Result<(), ShellError> {
        for h in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            let mut closed = false;
            while self.pos < self.s.len() {
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                let mut line: String = self.s[start..self.pos].iter().collect();
                if self.peek() == Some('\n') {
                    self.pos += 1;
                }
                if line.ends_with('\r') {
                    line.pop();
                }
                let bare = if h.strip_tabs { line.trim_start_matches('\t') } else { line.as_str() };
                if bare == h.delim {
                    closed = true;
                    break;
                }
                body.push_str(bare);
                body.push('\n');
            }
            if !closed {
                return Err(ShellError::UnterminatedHereDoc(h.delim));
            }
            let word = if h.quoted { Word { parts: vec![Part::Quoted(body)] } } else { self.heredoc_body(&body)? };
            if let Some(slot) = self.bodies.get_mut(h.slot) {
                *slot = Some(word);
            }
        }
        Ok(())
    }

    /// An unquoted here-document's body: `$` expansions and backquotes run; a backslash escapes
    /// only `$`, `` ` ``, `\` and a newline; everything else (quotes included) is literal.
    fn heredoc_body(&mut self, body: &str) -> Result<Word, ShellError> {
        let chars: Vec<char> = body.chars().collect();
        let mut sub = Parser { s: &chars, pos: 0, depth: self.depth, heredocs: Vec::new(), bodies: Vec::new() };
        let mut w = WordBuf::default();
        while let Some(c) = sub.peek() {
            match c {
                '\\' => match sub.peek_at(1) {
                    Some(e @ ('$' | '`' | '\\')) => {
                        w.quoted_char(e);
                        sub.pos += 2;
                    }
                    Some('\n') => sub.pos += 2,
                    _ => {
                        w.quoted_char('\\');
                        sub.pos += 1;
                    }
                },
                '$' => sub.dollar(&mut w, true)?,
                '`' => sub.backquote(&mut w, true)?,
                _ => {
                    w.quoted_char(c);
                    sub.pos += 1;
                }
            }
        }
        let mut word = w.finish();
        fill_word(&mut word, &mut sub.bodies);
        // Nested here-documents inside the body's substitutions are not read (bash reads them
        // from the body; nobody writes that): a pending one is an error, not a silent loss.
        if let Some(h) = sub.heredocs.first() {
            return Err(ShellError::UnterminatedHereDoc(h.delim.clone()));
        }
        Ok(word)
    }

    fn list(&mut self, end: End) -> Result<List, ShellError> {
        let mut list = Vec::new();
        loop {
            self.blanks();
            match self.peek() {
                None => {
                    return match end {
                        End::Paren => Err(ShellError::UnbalancedQuote(')')),
                        _ => Ok(list),
                    }
                }
                Some('\n') => {
                    if end == End::Line {
                        return Ok(list);
                    }
                    self.pos += 1;
                    self.read_heredocs()?;
                    continue;
                }
                Some(')') if end == End::Paren => {
                    self.pos += 1;
                    return Ok(list);
                }
                Some(';') => {
                    // An empty command before `;` is bash's syntax error.
                    let tok = if self.peek_at(1) == Some(';') { ";;" } else { ";" };
                    return Err(ShellError::Unexpected(tok.into()));
                }
                _ => {}
            }
            list.push(self.and_or()?);
            self.blanks();
            match self.peek() {
                Some(';') => {
                    if self.peek_at(1) == Some(';') {
                        return Err(ShellError::Unexpected(";;".into()));
                    }
                    self.pos += 1;
                }
                Some('&') => {
                    return Err(ShellError::Unsupported(
                        "background jobs (&) are not supported in this console; a command that keeps running, such as kubectl get --watch, already lets you type the next one"
                            .into(),
                    ))
                }
                Some('\n') | None => {}
                Some(')') if end == End::Paren => {}
                Some(c) => return Err(ShellError::Unexpected(c.to_string())),
            }
        }
    }

    fn and_or(&mut self) -> Result<AndOr, ShellError> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            self.blanks();
            let and = if self.starts_with("&&") {
                true
            } else if self.starts_with("||") {
                false
            } else {
                return Ok(AndOr { first, rest });
            };
            self.pos += 2;
            self.blanks_and_newlines()?;
            rest.push((and, self.pipeline()?));
        }
    }

    fn pipeline(&mut self) -> Result<Pipeline, ShellError> {
        self.blanks();
        let mut negate = false;
        if self.peek() == Some('!') && self.peek_at(1).is_none_or(|c| c == ' ' || c == '\t') {
            self.pos += 1;
            negate = true;
        }
        let mut commands = vec![self.simple()?];
        let mut pipe_stderr = Vec::new();
        loop {
            self.blanks();
            if self.peek() != Some('|') || self.peek_at(1) == Some('|') {
                return Ok(Pipeline { negate, commands, pipe_stderr });
            }
            self.pos += 1;
            let both = self.peek() == Some('&');
            if both {
                self.pos += 1;
            }
            pipe_stderr.push(both);
            self.blanks_and_newlines()?;
            commands.push(self.simple()?);
        }
    }

    /// The token that cannot start a command here, for the syntax error.
    fn unexpected_here(&self) -> ShellError {
        match self.peek() {
            None => ShellError::UnexpectedEnd,
            Some('\n') => ShellError::Unexpected("newline".into()),
            Some(_) => {
                for t in ["&&", "||", ";;", "|&", "|", "&", ";", "(", ")"] {
                    if self.starts_with(t) {
                        return ShellError::Unexpected(t.into());
                    }
                }
                ShellError::UnexpectedEnd
            }
        }
    }

    fn simple(&mut self) -> Result<Simple, ShellError> {
        let mut cmd = Simple::default();
        loop {
            self.blanks();
            let Some(c) = self.peek() else { break };
            match c {
                '\n' | ';' | '|' | '&' if !(c == '&' && self.peek_at(1) == Some('>')) => break,
                ')' => break,
                '(' => {
                    return Err(ShellError::Unsupported(if cmd.words.is_empty() {
                        "( ... ): subshells are not supported in this console".into()
                    } else {
                        "syntax error near unexpected token `('".into()
                    }))
                }
                _ => {}
            }
            if let Some(r) = self.redirect()? {
                cmd.redirects.push(r);
                continue;
            }
            let start = self.pos;
            let word = self.word()?;
            if cmd.words.is_empty() {
                // Assignments come before the command name.
                if let Some((name, value)) = assignment(&word) {
                    cmd.assigns.push((name, value));
                    continue;
                }
                if let [Part::Lit(w)] = word.parts.as_slice() {
                    if RESERVED.contains(&w.as_str()) {
                        return Err(control_flow(w));
                    }
                }
            }
            if self.pos == start {
                // Nothing was read: a character no rule takes. Never loop on it.
                return Err(ShellError::Unexpected(c.to_string()));
            }
            cmd.words.push(word);
        }
        if cmd.words.is_empty() && cmd.assigns.is_empty() && cmd.redirects.is_empty() {
            return Err(self.unexpected_here());
        }
        Ok(cmd)
    }

    /// A redirection operator at the current position (with its optional descriptor number).
    fn redirect(&mut self) -> Result<Option<Redirect>, ShellError> {
        let save = self.pos;
        let mut digits = String::new();
        while let Some(d) = self.peek().filter(char::is_ascii_digit) {
            digits.push(d);
            self.pos += 1;
        }
        let both = digits.is_empty() && self.starts_with("&>");
        if !both && !matches!(self.peek(), Some('<' | '>')) {
            self.pos = save;
            return Ok(None);
        }
        let fd: Option<u8> = if digits.is_empty() {
            None
        } else {
            match digits.parse::<u8>() {
                Ok(n @ 0..=2) => Some(n),
                _ => {
                    return Err(ShellError::Unsupported(format!(
                        "file descriptor {digits}: this console has only 0, 1 and 2 (standard input, output and error)"
                    )))
                }
            }
        };
        let op = if both {
            self.pos += 2;
            if self.peek() == Some('>') {
                self.pos += 1;
                RedirOp::BothAppend(self.target()?)
            } else {
                RedirOp::Both(self.target()?)
            }
        } else if self.starts_with("<<<") {
            self.pos += 3;
            RedirOp::HereString(self.target()?)
        } else if self.starts_with("<<") {
            self.pos += 2;
            let strip_tabs = self.peek() == Some('-');
            if strip_tabs {
                self.pos += 1;
            }
            self.blanks();
            if self.peek().is_none_or(is_meta) {
                return Err(ShellError::MissingHereDocDelimiter);
            }
            let w = self.word()?;
            let quoted = w.parts.iter().any(|p| !matches!(p, Part::Lit(_)));
            let mut delim = String::new();
            for p in &w.parts {
                match p {
                    Part::Lit(s) | Part::Quoted(s) => delim.push_str(s),
                    // bash takes `$x` in a delimiter literally; so does this.
                    Part::Var { name, .. } => {
                        delim.push('$');
                        delim.push_str(name);
                    }
                    Part::Status { .. } => delim.push_str("$?"),
                    Part::Subst { .. } => return Err(ShellError::Unexpected("$(".into())),
                }
            }
            let slot = self.bodies.len();
            self.bodies.push(None);
            self.heredocs.push(PendingHereDoc { delim, strip_tabs, quoted, slot });
            RedirOp::HereDoc(placeholder(slot))
        } else if self.starts_with(">&") || self.starts_with("<&") {
            let input = self.peek() == Some('<');
            self.pos += 2;
            let mut to = String::new();
            while let Some(d) = self.peek().filter(char::is_ascii_digit) {
                to.push(d);
                self.pos += 1;
            }
            match (input, to.parse::<u8>()) {
                (false, Ok(n @ 1..=2)) => RedirOp::Dup(n),
                (false, Err(_)) if to.is_empty() && fd.is_none() => {
                    // `>&file` is bash's old spelling of `&>file`.
                    RedirOp::Both(self.target()?)
                }
                _ => {
                    let shown: String = self.s[save..self.pos].iter().collect();
                    return Err(ShellError::Unsupported(format!(
                        "{shown}: this console supports the copies 2>&1 and >&2 only"
                    )));
                }
            }
        } else if self.starts_with(">>") {
            self.pos += 2;
            RedirOp::Append(self.target()?)
        } else if self.starts_with(">|") {
            self.pos += 2;
            RedirOp::Out(self.target()?)
        } else if self.peek() == Some('>') {
            self.pos += 1;
            RedirOp::Out(self.target()?)
        } else {
            self.pos += 1;
            if self.peek() == Some('>') {
                return Err(ShellError::Unsupported(
                    "<>: opening a file for reading and writing is not supported".into(),
                ));
            }
            RedirOp::In(self.target()?)
        };
        let default_fd = match op {
            RedirOp::In(_) | RedirOp::HereDoc(_) | RedirOp::HereString(_) => 0,
            _ => 1,
        };
        Ok(Some(Redirect { fd: fd.unwrap_or(default_fd), op }))
    }

    /// The word after a redirection operator.
    fn target(&mut self) -> Result<Word, ShellError> {
        self.blanks();
        match self.peek() {
            None => Err(ShellError::Unexpected("newline".into())),
            Some(c) if is_meta(c) => Err(self.unexpected_here_token()),
            Some(_) => self.word(),
        }
    }

    fn unexpected_here_token(&self) -> ShellError {
        match self.unexpected_here() {
            ShellError::UnexpectedEnd => ShellError::Unexpected(self.peek().map(String::from).unwrap_or_default()),
            e => e,
        }
    }

    /// One word: quoted and unquoted pieces up to a blank or an operator.
    fn word(&mut self) -> Result<Word, ShellError> {
        let mut w = WordBuf::default();
        while let Some(c) = self.peek() {
            if is_meta(c) {
                break;
            }
            match c {
                '\\' => {
                    match self.peek_at(1) {
                        Some('\n') => {}
                        Some(x) => w.quoted_char(x),
                        // A trailing backslash is kept, as bash keeps it.
                        None => w.lit('\\'),
                    }
                    self.pos += 2.min(self.s.len() - self.pos);
                }
                '\'' => {
                    self.pos += 1;
                    let start = self.pos;
                    while self.peek().is_some_and(|c| c != '\'') {
                        self.pos += 1;
                    }
                    if self.peek().is_none() {
                        return Err(ShellError::UnbalancedQuote('\''));
                    }
                    let text: String = self.s[start..self.pos].iter().collect();
                    w.quoted(&text);
                    self.pos += 1;
                }
                '"' => {
                    self.pos += 1;
                    // An empty "" still makes a word.
                    w.quoted("");
                    self.double_quoted(&mut w)?;
                }
                '$' => self.dollar(&mut w, false)?,
                '`' => self.backquote(&mut w, false)?,
                _ => {
                    w.lit(c);
                    self.pos += 1;
                }
            }
        }
        Ok(w.finish())
    }

    fn double_quoted(&mut self, w: &mut WordBuf) -> Result<(), ShellError> {
        loop {
            match self.peek() {
                None => return Err(ShellError::UnbalancedQuote('"')),
                Some('"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some('\\') => {
                    match self.peek_at(1) {
                        None => return Err(ShellError::UnbalancedQuote('"')),
                        Some('\n') => {}
                        Some(e @ ('"' | '\\' | '$' | '`')) => w.quoted_char(e),
                        Some(x) => {
                            w.quoted_char('\\');
                            w.quoted_char(x);
                        }
                    }
                    self.pos += 2;
                }
                Some('$') => self.dollar(w, true)?,
                Some('`') => self.backquote(w, true)?,
                Some(c) => {
                    w.quoted_char(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// `$...` at the current position.
    fn dollar(&mut self, w: &mut WordBuf, quoted: bool) -> Result<(), ShellError> {
        self.pos += 1;
        match self.peek() {
            Some('(') => {
                if self.peek_at(1) == Some('(') {
                    return Err(ShellError::Unsupported(
                        "$((...)): arithmetic is not supported in this console".into(),
                    ));
                }
                self.pos += 1;
                if self.depth >= MAX_DEPTH {
                    return Err(ShellError::TooDeep);
                }
                self.depth += 1;
                let list = self.list(End::Paren)?;
                self.depth -= 1;
                w.parts.push(Part::Subst { list, quoted });
            }
            Some('{') => {
                self.pos += 1;
                let start = self.pos;
                while self.peek().is_some_and(|c| c != '}') {
                    self.pos += 1;
                }
                if self.peek().is_none() {
                    return Err(ShellError::UnbalancedQuote('}'));
                }
                let inner: String = self.s[start..self.pos].iter().collect();
                self.pos += 1;
                if inner == "?" {
                    w.parts.push(Part::Status { quoted });
                } else if inner.chars().next().is_some_and(is_name_start) && inner.chars().all(is_name_char) {
                    w.parts.push(Part::Var { name: inner, quoted });
                } else {
                    return Err(ShellError::Unsupported(format!(
                        "${{{inner}}}: bad substitution (this console expands ${{NAME}} only)"
                    )));
                }
            }
            Some('?') => {
                self.pos += 1;
                w.parts.push(Part::Status { quoted });
            }
            Some(c) if is_name_start(c) => {
                let start = self.pos;
                while self.peek().is_some_and(is_name_char) {
                    self.pos += 1;
                }
                let name: String = self.s[start..self.pos].iter().collect();
                w.parts.push(Part::Var { name, quoted });
            }
            Some('1'..='9' | '@' | '*') => {
                // No positional parameters: these expand to nothing.
                self.pos += 1;
                if quoted {
                    w.quoted("");
                }
            }
            Some('#') => {
                self.pos += 1;
                if quoted {
                    w.quoted("0");
                } else {
                    w.lit('0');
                }
            }
            Some(c @ ('$' | '!' | '-' | '0')) => {
                return Err(ShellError::Unsupported(format!(
                    "${c}: not supported in this console (it expands $?, $NAME, ${{NAME}} and $(...))"
                )))
            }
            Some('\'') if !quoted => {
                self.pos += 1;
                let mut text = String::new();
                loop {
                    match self.peek() {
                        None => return Err(ShellError::UnbalancedQuote('\'')),
                        Some('\'') => {
                            self.pos += 1;
                            break;
                        }
                        Some('\\') => {
                            let e = self.peek_at(1).ok_or(ShellError::UnbalancedQuote('\''))?;
                            match e {
                                'n' => text.push('\n'),
                                't' => text.push('\t'),
                                'r' => text.push('\r'),
                                '\\' | '\'' | '"' => text.push(e),
                                other => {
                                    text.push('\\');
                                    text.push(other);
                                }
                            }
                            self.pos += 2;
                        }
                        Some(c) => {
                            text.push(c);
                            self.pos += 1;
                        }
                    }
                }
                w.quoted(&text);
            }
            Some('"') if !quoted => {
                // `$"..."` (a translated string) is a plain double-quoted string here.
                self.pos += 1;
                w.quoted("");
                self.double_quoted(w)?;
            }
            _ => {
                if quoted {
                    w.quoted_char('$');
                } else {
                    w.lit('$');
                }
            }
        }
        Ok(())
    }

    /// `` `...` ``: the text up to the closing backquote (with `\$`, `` \` `` and `\\`
    /// unescaped) is parsed as a command list.
    fn backquote(&mut self, w: &mut WordBuf, quoted: bool) -> Result<(), ShellError> {
        self.pos += 1;
        let mut text = String::new();
        loop {
            match self.peek() {
                None => return Err(ShellError::UnbalancedQuote('`')),
                Some('`') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => match self.peek_at(1) {
                    Some(e @ ('$' | '`' | '\\')) => {
                        text.push(e);
                        self.pos += 2;
                    }
                    Some('"') if quoted => {
                        text.push('"');
                        self.pos += 2;
                    }
                    _ => {
                        text.push('\\');
                        self.pos += 1;
                    }
                },
                Some(c) => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        if self.depth >= MAX_DEPTH {
            return Err(ShellError::TooDeep);
        }
        let chars: Vec<char> = text.chars().collect();
        let mut sub = Parser { s: &chars, pos: 0, depth: self.depth + 1, heredocs: Vec::new(), bodies: Vec::new() };
        let mut list = sub.list(End::Eof)?;
        if let Some(h) = sub.heredocs.first() {
            return Err(ShellError::UnterminatedHereDoc(h.delim.clone()));
        }
        fill_list(&mut list, &mut sub.bodies);
        w.parts.push(Part::Subst { list, quoted });
        Ok(())
    }
}

/// `NAME=value`: the word's first part is unquoted text starting with a name and `=`.
fn assignment(word: &Word) -> Option<(String, Word)> {
    let Some(Part::Lit(first)) = word.parts.first() else { return None };
    let (name, value) = first.split_once('=')?;
    if !(name.chars().next().is_some_and(is_name_start) && name.chars().all(is_name_char)) {
        return None;
    }
    let mut parts = Vec::new();
    if !value.is_empty() {
        parts.push(Part::Lit(value.to_string()));
    }
    parts.extend(word.parts[1..].iter().cloned());
    Some((name.to_string(), Word { parts }))
}

impl Word {
    /// The word's text when it has no expansions (quotes removed); None when it has some.
    pub fn literal(&self) -> Option<String> {
        let mut s = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(t) | Part::Quoted(t) => s.push_str(t),
                _ => return None,
            }
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests;
