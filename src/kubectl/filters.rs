//! The text filters that console pipelines feed kubectl's output into: `grep`, `head`, `tail`,
//! `wc`, `sort`, `awk` (simple programs), `cut` and `cat`, with the GNU options people use with
//! kubectl and GNU's output. Files named as arguments are the editor's buffers.
//!
//! Each filter works on a stream: [`Filter::feed`] takes text as it comes (a running
//! `kubectl get --watch` keeps writing), [`Filter::finish`] flushes at the end of input and
//! returns the exit status. `grep`, `cut`, `awk`, `cat` and `head` print line by line (`head`
//! then closes its input, as it exits); `tail`, `sort` and `wc` print at the end.
//!
//! What differs from GNU, on purpose: `sort` compares as `LC_ALL=C` does (byte order; a terminal
//! in a UTF-8 locale collates case and punctuation differently), patterns are matched by
//! [`super::regex`] (no back-references), and `awk` runs only `[PATTERN] {print ...}` programs.

use super::cmd::Output;
use super::regex::{Anchoring, Regex, Syntax};
use std::collections::BTreeMap;

/// The commands this module runs.
pub const NAMES: &[&str] = &["grep", "head", "tail", "wc", "sort", "awk", "cut", "cat"];

/// The filters, as the console's messages list them.
pub const SUPPORTED: &str = "grep, head, tail, wc, sort, awk '{print $N}', cut";

/// A filter refused its command line: the message (with its `name: ` prefix, newline-ended)
/// and the exit status the real tool gives a usage error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    /// What to print on standard error.
    pub message: String,
    /// The exit status.
    pub status: i32,
}

/// A filter ready to read its input.
#[derive(Clone, Debug)]
pub struct Filter {
    name: &'static str,
    op: Op,
    /// Input named on the command line (instead of standard input): (name, text or missing).
    files: Option<Vec<(String, Option<String>)>>,
    /// The end of the input that is not a whole line yet.
    partial: String,
    /// The exit status so far (a missing file operand makes it non-zero).
    status: i32,
    closed: bool,
}

#[derive(Clone, Debug)]
enum Op {
    Cat,
    Grep(Box<Grep>),
    Head { n: u64, all_but: bool, seen: u64, held: std::collections::VecDeque<String> },
    Tail { n: u64, from: bool, seen: u64, held: std::collections::VecDeque<String> },
    Wc(Wc),
    Sort(Box<Sort>),
    Awk(Box<Awk>),
    Cut(Cut),
}

#[derive(Clone, Debug)]
struct Grep {
    re: Regex,
    invert: bool,
    count: bool,
    quiet: bool,
    number: bool,
    /// `-o`: print each match, not the line.
    only: bool,
    /// Prefix lines with the file name (several files).
    names: bool,
    matched: u64,
    line_no: u64,
    current: String,
}

#[derive(Clone, Debug, Default)]
struct Wc {
    lines: bool,
    words: bool,
    chars: bool,
    bytes: bool,
    n_lines: u64,
    n_words: u64,
    n_chars: u64,
    n_bytes: u64,
    in_word: bool,
}

#[derive(Clone, Debug)]
struct Sort {
    reverse: bool,
    numeric: bool,
    unique: bool,
    blanks: bool,
    sep: Option<char>,
    key: Option<Key>,
    lines: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
struct Key {
    start: usize,
    end: Option<usize>,
    numeric: bool,
    reverse: bool,
    blanks: bool,
}

#[derive(Clone, Debug)]
struct Cut {
    fields: bool,
    delim: char,
    list: Vec<(usize, usize)>,
    only_delimited: bool,
}

fn usage(name: &str, status: i32, text: impl AsRef<str>) -> Usage {
    let mut message = format!("{name}: {}", text.as_ref());
    if !message.ends_with('\n') {
        message.push('\n');
    }
    Usage { message, status }
}

/// The exit status each tool gives a usage error.
fn usage_status(name: &str) -> i32 {
    match name {
        "grep" | "sort" | "awk" => 2,
        _ => 1,
    }
}

fn unsupported(name: &str, opt: &str, supported: &str) -> Usage {
    usage(
        name,
        usage_status(name),
        format!("option {opt} is not supported in this console (its {name} takes {supported})"),
    )
}

/// Options as (letter, value) pairs, and the operands.
type Getopt = (Vec<(char, String)>, Vec<String>);

/// Splits `-abc`, `-n5`, `--` and operands the way getopt does for the options in `with_arg`.
fn getopt(name: &str, args: &[String], flags: &str, with_arg: &str, supported: &str) -> Result<Getopt, Usage> {
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if a.starts_with("--") {
            return Err(unsupported(name, a, supported));
        }
        if a.len() < 2 || !a.starts_with('-') {
            operands.push(a.clone());
            continue;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            if with_arg.contains(c) {
                let rest: String = chars[j..].iter().collect();
                let value = if !rest.is_empty() {
                    rest
                } else if let Some(v) = args.get(i) {
                    i += 1;
                    v.clone()
                } else {
                    return Err(usage(
                        name,
                        usage_status(name),
                        format!("option requires an argument -- '{c}'\nTry '{name} --help' for more information."),
                    ));
                };
                opts.push((c, value));
                break;
            } else if flags.contains(c) {
                opts.push((c, String::new()));
            } else {
                return Err(unsupported(name, &format!("-{c}"), supported));
            }
        }
    }
    Ok((opts, operands))
}

/// `head -n N` / `tail -n N` counts, and `-N` written alone.
fn leading_number(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in args {
        let after_n = out.last().is_some_and(|p| p == "-n");
        out.push(match a.strip_prefix('-') {
            Some(d) if !after_n && !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) => format!("-n{d}"),
            _ => a.clone(),
        });
    }
    out
}

fn read_files(
    names: &[String],
    files: &BTreeMap<String, String>,
    stdin: Option<&str>,
) -> Option<Vec<(String, Option<String>)>> {
    if names.is_empty() {
        return None;
    }
    Some(
        names
            .iter()
            .map(|n| {
                let text = if n == "-" { Some(stdin.unwrap_or("").to_string()) } else { files.get(n).cloned() };
                (n.clone(), text)
            })
            .collect(),
    )
}

impl Filter {
    /// Builds the filter `name` from its arguments. `files` are the editor's buffers (for file
    /// operands); `stdin` is what `-` names.
    pub fn new(
        name: &str,
        args: &[String],
        files: &BTreeMap<String, String>,
        stdin: Option<&str>,
    ) -> Result<Filter, Usage> {
        let (name, op, operands) = match name {
            "cat" => {
                let (_, operands) = getopt("cat", args, "", "", "no options")?;
                ("cat", Op::Cat, operands)
            }
            "grep" => {
                let supported = "-v, -i, -c, -E, -F, -e PATTERN, -n, -o, -w, -x, -q, -s, -h, -H";
                let (opts, mut operands) = getopt("grep", args, "vicEFGnowxqshH", "e", supported)?;
                let mut patterns: Vec<String> = Vec::new();
                let (mut invert, mut fold, mut count, mut number, mut quiet) = (false, false, false, false, false);
                let mut only = false;
                let mut syntax = Some(Syntax::Basic);
                let mut anchoring = Anchoring::default();
                let mut names = None;
                for (c, v) in opts {
                    match c {
                        'v' => invert = true,
                        'i' => fold = true,
                        'c' => count = true,
                        'E' => syntax = Some(Syntax::Extended),
                        'G' => syntax = Some(Syntax::Basic),
                        'F' => syntax = None,
                        'n' => number = true,
                        'o' => only = true,
                        'w' => anchoring.word = true,
                        'x' => anchoring.line = true,
                        'q' => quiet = true,
                        'h' => names = Some(false),
                        'H' => names = Some(true),
                        'e' => patterns.push(v),
                        _ => {}
                    }
                }
                let pattern = match patterns.is_empty() {
                    false => patterns.join("\n"),
                    true if !operands.is_empty() => operands.remove(0),
                    true => {
                        return Err(usage(
                            "Usage",
                            2,
                            "grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.",
                        ))
                    }
                };
                // Several patterns on separate lines match any of them.
                let compiled = match syntax {
                    None => {
                        let alts: Vec<&str> = pattern.split('\n').collect();
                        if alts.len() == 1 {
                            Regex::literal(&pattern, fold, anchoring)
                        } else {
                            let escaped: Vec<String> = alts.iter().map(|a| escape_ere(a)).collect();
                            Regex::new(&escaped.join("|"), Syntax::Extended, fold, anchoring)
                        }
                    }
                    Some(s) => {
                        let alts: Vec<&str> = pattern.split('\n').collect();
                        if alts.len() == 1 {
                            Regex::new(&pattern, s, fold, anchoring)
                        } else {
                            let joined: Vec<String> = alts.iter().map(|a| to_ere(a, s)).collect();
                            Regex::new(&joined.join("|"), Syntax::Extended, fold, anchoring)
                        }
                    }
                };
                let re = compiled.map_err(|e| usage("grep", 2, e))?;
                let names = names.unwrap_or(operands.len() > 1);
                let g = Grep {
                    re,
                    invert,
                    count,
                    quiet,
                    number,
                    only,
                    names,
                    matched: 0,
                    line_no: 0,
                    current: String::new(),
                };
                ("grep", Op::Grep(Box::new(g)), operands)
            }
            "head" | "tail" => {
                let head = name == "head";
                let tool = if head { "head" } else { "tail" };
                let (opts, operands) = getopt(tool, &leading_number(args), "", "n", "-n N, -N")?;
                let mut n = 10u64;
                let mut flip = false;
                for (_, v) in opts {
                    let (sign, digits) = match v.chars().next() {
                        Some(s @ ('+' | '-')) => (Some(s), &v[1..]),
                        _ => (None, v.as_str()),
                    };
                    n = digits.parse().map_err(|_| usage(tool, 1, format!("invalid number of lines: ‘{v}’")))?;
                    flip = matches!((head, sign), (true, Some('-')) | (false, Some('+')));
                }
                let op = if head {
                    Op::Head { n, all_but: flip, seen: 0, held: Default::default() }
                } else {
                    Op::Tail { n, from: flip, seen: 0, held: Default::default() }
                };
                (tool, op, operands)
            }
            "wc" => {
                let (opts, operands) = getopt("wc", args, "lwcm", "", "-l, -w, -c, -m")?;
                let mut wc = Wc::default();
                for (c, _) in &opts {
                    match c {
                        'l' => wc.lines = true,
                        'w' => wc.words = true,
                        'c' => wc.bytes = true,
                        'm' => wc.chars = true,
                        _ => {}
                    }
                }
                if opts.is_empty() {
                    wc.lines = true;
                    wc.words = true;
                    wc.bytes = true;
                }
                ("wc", Op::Wc(wc), operands)
            }
            "sort" => {
                let (opts, operands) = getopt("sort", args, "rnubs", "kt", "-r, -n, -u, -b, -k N[,M], -t CHAR")?;
                let mut s = Sort {
                    reverse: false,
                    numeric: false,
                    unique: false,
                    blanks: false,
                    sep: None,
                    key: None,
                    lines: Vec::new(),
                };
                for (c, v) in opts {
                    match c {
                        'r' => s.reverse = true,
                        'n' => s.numeric = true,
                        'u' => s.unique = true,
                        'b' => s.blanks = true,
                        's' => {}
                        't' => {
                            let mut it = v.chars();
                            match (it.next(), it.next()) {
                                (Some(c), None) => s.sep = Some(c),
                                _ => return Err(usage("sort", 2, format!("multi-character tab ‘{v}’"))),
                            }
                        }
                        'k' => s.key = Some(parse_key(&v)?),
                        _ => {}
                    }
                }
                ("sort", Op::Sort(Box::new(s)), operands)
            }
            "cut" => {
                let (opts, operands) = getopt("cut", args, "s", "dfcb", "-d CHAR, -f LIST, -c LIST, -s")?;
                let mut delim = '\t';
                let mut list = None;
                let mut fields = false;
                let mut only_delimited = false;
                for (c, v) in opts {
                    match c {
                        'd' => {
                            let mut it = v.chars();
                            delim = match (it.next(), it.next()) {
                                (Some(c), None) => c,
                                _ => return Err(usage(
                                    "cut",
                                    1,
                                    "the delimiter must be a single character\nTry 'cut --help' for more information.",
                                )),
                            };
                        }
                        'f' => {
                            fields = true;
                            list = Some(parse_list(&v)?);
                        }
                        'c' | 'b' => {
                            fields = false;
                            list = Some(parse_list(&v)?);
                        }
                        's' => only_delimited = true,
                        _ => {}
                    }
                }
                let Some(list) = list else {
                    return Err(usage(
                        "cut",
                        1,
                        "you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.",
                    ));
                };
                ("cut", Op::Cut(Cut { fields, delim, list, only_delimited }), operands)
            }
            "awk" => {
                let mut fs = None;
                let mut rest: Vec<String> = Vec::new();
                let mut i = 0;
                while i < args.len() {
                    let a = &args[i];
                    i += 1;
                    if let Some(v) = a.strip_prefix("-F") {
                        let v = if v.is_empty() {
                            i += 1;
                            args.get(i - 1).cloned().unwrap_or_default()
                        } else {
                            v.to_string()
                        };
                        fs = Some(match v.as_str() {
                            "\\t" | "\t" => '\t',
                            " " => ' ',
                            _ if v.chars().count() == 1 => v.chars().next().unwrap_or(' '),
                            _ => {
                                return Err(usage(
                                    "awk",
                                    2,
                                    format!("-F '{v}': this console's awk takes a single-character field separator"),
                                ))
                            }
                        });
                    } else if a.starts_with('-') && a.len() > 1 && rest.is_empty() {
                        return Err(unsupported("awk", a, "-F CHAR and a program"));
                    } else {
                        rest.push(a.clone());
                        rest.extend(args[i..].iter().cloned());
                        break;
                    }
                }
                let Some(program) = rest.first() else {
                    return Err(usage("usage", 2, "awk [-F fs] 'program' [file ...]"));
                };
                let awk = Awk::parse(program, fs.unwrap_or(' '))?;
                ("awk", Op::Awk(Box::new(awk)), rest[1..].to_vec())
            }
            other => return Err(usage(other, 127, "command not found")),
        };
        let files = read_files(&operands, files, stdin);
        let mut f = Filter { name, op, files, partial: String::new(), status: 0, closed: false };
        if let Op::Head { n: 0, all_but: false, .. } = f.op {
            f.closed = true;
        }
        Ok(f)
    }

    /// Whether the filter has stopped reading (`head` printed its lines, `grep -q` matched):
    /// what writes into it next gets SIGPIPE.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Whether the filter reads its standard input (no file operands).
    pub fn reads_stdin(&self) -> bool {
        self.files.is_none()
    }

    /// Takes more of standard input.
    pub fn feed(&mut self, text: &str, out: &mut Output) {
        if self.files.is_some() || self.closed || text.is_empty() {
            return;
        }
        if let Op::Wc(wc) = &mut self.op {
            wc.count(text);
            return;
        }
        self.partial.push_str(text);
        while let Some(nl) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=nl).collect();
            self.line(&line[..line.len() - 1], true, out);
            if self.closed {
                self.partial.clear();
                return;
            }
        }
    }

    /// The end of the input: prints what waited for it; returns the exit status.
    pub fn finish(&mut self, out: &mut Output) -> i32 {
        let Some(files) = self.files.take() else {
            self.flush(out);
            return self.end_status(out);
        };
        let several = files.len() > 1;
        let width = if several || self.counts() > 1 { wc_width(&files) } else { 1 };
        let mut total = Wc::default();
        let mut first = true;
        for (name, text) in &files {
            let Some(text) = text else {
                out.err(format!("{}: {name}: No such file or directory\n", self.name));
                self.status = if self.name == "grep" { 2 } else { 1 };
                continue;
            };
            match &mut self.op {
                Op::Wc(wc) => {
                    // Each file counts on its own; the total adds them up.
                    let mut one = Wc { n_lines: 0, n_words: 0, n_chars: 0, n_bytes: 0, in_word: false, ..wc.clone() };
                    one.count(text);
                    out.out(one.line(Some(name), width));
                    total.n_lines += one.n_lines;
                    total.n_words += one.n_words;
                    total.n_chars += one.n_chars;
                    total.n_bytes += one.n_bytes;
                }
                Op::Head { .. } | Op::Tail { .. } => {
                    if several {
                        out.out(format!("{}==> {name} <==\n", if first { "" } else { "\n" }));
                    }
                    // Each file is its own input.
                    let mut one = Filter { files: None, partial: String::new(), ..self.clone() };
                    one.feed(text, out);
                    one.flush(out);
                }
                Op::Grep(g) => {
                    g.current = name.clone();
                    g.line_no = 0;
                    let before = g.matched;
                    self.closed = false;
                    self.feed_unchecked(text, out);
                    self.flush_partial(out);
                    if let Op::Grep(g) = &self.op {
                        if g.count && g.names {
                            out.out(format!("{name}:{}\n", g.matched - before));
                        }
                    }
                }
                _ => {
                    self.feed_unchecked(text, out);
                    self.flush_partial(out);
                }
            }
            first = false;
        }
        match &mut self.op {
            Op::Wc(wc) => {
                if several {
                    let mut t = Wc {
                        n_lines: total.n_lines,
                        n_words: total.n_words,
                        n_chars: total.n_chars,
                        n_bytes: total.n_bytes,
                        ..wc.clone()
                    };
                    out.out(t.line(Some("total"), width));
                }
                self.status
            }
            Op::Head { .. } | Op::Tail { .. } => self.status,
            _ => {
                self.flush(out);
                self.end_status(out)
            }
        }
    }

    /// How many counts `wc` prints (0 for the other filters).
    fn counts(&self) -> usize {
        match &self.op {
            Op::Wc(wc) => [wc.lines, wc.words, wc.chars, wc.bytes].iter().filter(|b| **b).count(),
            _ => 0,
        }
    }

    fn feed_unchecked(&mut self, text: &str, out: &mut Output) {
        self.partial.push_str(text);
        while let Some(nl) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=nl).collect();
            self.line(&line[..line.len() - 1], true, out);
            if self.closed {
                self.partial.clear();
                return;
            }
        }
    }

    fn flush_partial(&mut self, out: &mut Output) {
        if !self.partial.is_empty() && !self.closed {
            let last = std::mem::take(&mut self.partial);
            self.line(&last, false, out);
        }
        self.partial.clear();
    }

    /// End of standard input: the last line without its newline, then what waited.
    fn flush(&mut self, out: &mut Output) {
        self.flush_partial(out);
        match &mut self.op {
            Op::Head { held, .. } => held.clear(),
            Op::Tail { held, from: false, .. } => {
                for l in held.drain(..) {
                    out.out(l);
                }
            }
            Op::Sort(s) => {
                let lines = std::mem::take(&mut s.lines);
                for l in s.sorted(lines) {
                    out.out(l);
                    out.out("\n");
                }
            }
            Op::Wc(wc) => {
                // Standard input is not a regular file: GNU wc pads to 7 unless it prints one count.
                let single_count = [wc.lines, wc.words, wc.chars, wc.bytes].iter().filter(|b| **b).count() == 1;
                let line = wc.line(None, if single_count { 1 } else { 7 });
                out.out(line);
            }
            Op::Awk(a) => a.end(out),
            _ => {}
        }
    }

    fn end_status(&mut self, out: &mut Output) -> i32 {
        if let Op::Grep(g) = &self.op {
            if g.count && !g.names {
                out.out(format!("{}\n", g.matched));
            }
            if self.status != 0 && !(g.quiet && g.matched > 0) {
                return self.status;
            }
            return if g.matched > 0 { 0 } else { 1 };
        }
        self.status
    }

    /// One line of input (`nl`: it ended with a newline).
    fn line(&mut self, line: &str, nl: bool, out: &mut Output) {
        let end = if nl { "\n" } else { "" };
        match &mut self.op {
            Op::Cat => {
                out.out(line);
                out.out(end);
            }
            Op::Grep(g) => {
                g.line_no += 1;
                if g.re.is_match(line) != g.invert {
                    g.matched += 1;
                    if g.quiet {
                        self.closed = true;
                        return;
                    }
                    if g.count {
                        return;
                    }
                    let mut prefix = String::new();
                    if g.names {
                        prefix.push_str(&g.current);
                        prefix.push(':');
                    }
                    if g.number {
                        prefix.push_str(&format!("{}:", g.line_no));
                    }
                    if !g.only {
                        out.out(format!("{prefix}{line}\n"));
                    } else if !g.invert {
                        // Each non-empty match on its own line, left to right.
                        let chars: Vec<char> = line.chars().collect();
                        let mut at = 0;
                        while let Some((s, e)) = g.re.find(&chars, at) {
                            if e > s {
                                let m: String = chars[s..e].iter().collect();
                                out.out(format!("{prefix}{m}\n"));
                            }
                            at = if e > s { e } else { s + 1 };
                            if at > chars.len() {
                                break;
                            }
                        }
                    }
                }
            }
            Op::Head { n, all_but, seen, held } => {
                if *all_but {
                    held.push_back(format!("{line}{end}"));
                    if held.len() as u64 > *n {
                        if let Some(l) = held.pop_front() {
                            out.out(l);
                        }
                    }
                } else {
                    out.out(line);
                    out.out(end);
                    *seen += 1;
                    if *seen >= *n {
                        self.closed = true;
                    }
                }
            }
            Op::Tail { n, from, seen, held } => {
                *seen += 1;
                if *from {
                    if *seen >= (*n).max(1) {
                        out.out(line);
                        out.out(end);
                    }
                } else if *n > 0 {
                    held.push_back(format!("{line}{end}"));
                    if held.len() as u64 > *n {
                        held.pop_front();
                    }
                }
            }
            Op::Wc(_) => {}
            Op::Sort(s) => s.lines.push(line.to_string()),
            Op::Awk(a) => a.record(line, out),
            Op::Cut(c) => out.out(c.apply(line)),
        }
    }
}

/// The width of wc's columns for file operands: the digits of their total size (GNU wc).
fn wc_width(files: &[(String, Option<String>)]) -> usize {
    let total: usize = files.iter().filter_map(|(_, t)| t.as_ref().map(String::len)).sum();
    total.to_string().len()
}

impl Wc {
    fn count(&mut self, text: &str) {
        self.n_bytes += text.len() as u64;
        for c in text.chars() {
            self.n_chars += 1;
            if c == '\n' {
                self.n_lines += 1;
            }
            if c.is_whitespace() {
                self.in_word = false;
            } else if !self.in_word {
                self.in_word = true;
                self.n_words += 1;
            }
        }
    }

    fn line(&mut self, name: Option<&str>, width: usize) -> String {
        let mut cols = Vec::new();
        for (on, n) in [
            (self.lines, self.n_lines),
            (self.words, self.n_words),
            (self.chars, self.n_chars),
            (self.bytes, self.n_bytes),
        ] {
            if on {
                cols.push(format!("{n:>width$}"));
            }
        }
        let mut s = cols.join(" ");
        if let Some(name) = name {
            s.push(' ');
            s.push_str(name);
        }
        s.push('\n');
        s
    }
}

fn parse_key(v: &str) -> Result<Key, Usage> {
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

    fn sorted(&self, mut lines: Vec<String>) -> Vec<String> {
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
        lines.sort_by(cmp);
        if self.unique {
            lines.dedup_by(|b, a| self.compare(a, b) == std::cmp::Ordering::Equal);
        }
        lines
    }
}

/// `cut`'s LIST: `N`, `N-M`, `N-`, `-M`, comma-separated; 1-based, inclusive.
fn parse_list(v: &str) -> Result<Vec<(usize, usize)>, Usage> {
    let mut out = Vec::new();
    for part in v.split(',') {
        let bad = || usage("cut", 1, format!("invalid field value ‘{part}’\nTry 'cut --help' for more information."));
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (part, None),
        };
        let num = |s: &str| -> Result<Option<usize>, Usage> {
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<usize>() {
                Ok(0) => Err(usage(
                    "cut",
                    1,
                    "fields and positions are numbered from 1\nTry 'cut --help' for more information.",
                )),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(bad()),
            }
        };
        let lo = num(a)?;
        let range = match b {
            None => match lo {
                Some(n) => (n, n),
                None => return Err(bad()),
            },
            Some(b) => {
                let hi = num(b)?;
                if lo.is_none() && hi.is_none() {
                    return Err(usage(
                        "cut",
                        1,
                        "invalid range with no endpoint: -\nTry 'cut --help' for more information.",
                    ));
                }
                let lo = lo.unwrap_or(1);
                let hi = hi.unwrap_or(usize::MAX);
                if hi < lo {
                    return Err(usage("cut", 1, "invalid decreasing range\nTry 'cut --help' for more information."));
                }
                (lo, hi)
            }
        };
        out.push(range);
    }
    Ok(out)
}

impl Cut {
    fn selected(&self, i: usize) -> bool {
        self.list.iter().any(|&(a, b)| a <= i && i <= b)
    }

    fn apply(&self, line: &str) -> String {
        if self.fields {
            if !line.contains(self.delim) {
                return if self.only_delimited { String::new() } else { format!("{line}\n") };
            }
            let picked: Vec<&str> =
                line.split(self.delim).enumerate().filter(|(i, _)| self.selected(i + 1)).map(|(_, f)| f).collect();
            let mut s = picked.join(&self.delim.to_string());
            s.push('\n');
            s
        } else {
            let mut s: String =
                line.chars().enumerate().filter(|(i, _)| self.selected(i + 1)).map(|(_, c)| c).collect();
            s.push('\n');
            s
        }
    }
}

// ---- awk: [PATTERN] { print EXPR, ... } ----

/// What awk's message says it runs.
const AWK_SUBSET: &str = "this console's awk runs [PATTERN] {print ...} programs only, such as '{print $1}', 'NR>1 {print $1, $NF}', '/Running/ {print $1}', '$3==\"Running\"' or 'END {print NR}'";

#[derive(Clone, Debug)]
struct Awk {
    fs: char,
    rules: Vec<Rule>,
    nr: u64,
    last: String,
}

#[derive(Clone, Debug)]
struct Rule {
    when: When,
    /// Each print statement's expressions (comma-separated items, each a concatenation).
    prints: Vec<Vec<Vec<Term>>>,
}

#[derive(Clone, Debug)]
enum When {
    Always,
    Begin,
    End,
    Match(Box<Regex>, bool),
    Compare(Term, Cmp, Term),
    FieldMatch(Term, Box<Regex>, bool),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug)]
enum Term {
    /// `$N` (0 is the record).
    Field(usize),
    /// `$NF`, `$(NF-k)`.
    FieldFromEnd(usize),
    Nr,
    Nf,
    Str(String),
    Num(String),
}

struct AwkLexer<'a> {
    s: &'a [char],
    pos: usize,
}

impl AwkLexer<'_> {
    fn ws(&mut self) {
        while self.s.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        let n = t.chars().count();
        if self.s.len() >= self.pos + n && self.s[self.pos..self.pos + n].iter().copied().eq(t.chars()) {
            self.pos += n;
            true
        } else {
            false
        }
    }
    fn ident(&mut self) -> Option<String> {
        self.ws();
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.s[start..self.pos].iter().collect())
    }
    fn regex(&mut self) -> Option<Result<Regex, String>> {
        self.ws();
        if self.peek() != Some('/') {
            return None;
        }
        self.pos += 1;
        let mut pat = String::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '/' => return Some(Regex::new(&pat, Syntax::Extended, false, Anchoring::default())),
                '\\' if self.peek() == Some('/') => {
                    pat.push('/');
                    self.pos += 1;
                }
                c => pat.push(c),
            }
        }
        Some(Err("unterminated regular expression".into()))
    }
    fn term(&mut self) -> Option<Term> {
        self.ws();
        match self.peek()? {
            '$' => {
                self.pos += 1;
                if self.eat("(") {
                    if self.ident().as_deref() != Some("NF") {
                        return None;
                    }
                    let back = if self.eat("-") {
                        self.ws();
                        let start = self.pos;
                        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                            self.pos += 1;
                        }
                        self.s[start..self.pos].iter().collect::<String>().parse().ok()?
                    } else {
                        0
                    };
                    self.eat(")").then_some(Term::FieldFromEnd(back))
                } else if let Some(id) = self.ident() {
                    if id == "NF" {
                        Some(Term::FieldFromEnd(0))
                    } else {
                        id.parse().ok().map(Term::Field)
                    }
                } else {
                    None
                }
            }
            '"' => {
                self.pos += 1;
                let mut s = String::new();
                while let Some(c) = self.peek() {
                    self.pos += 1;
                    match c {
                        '"' => return Some(Term::Str(s)),
                        '\\' => {
                            let e = self.peek()?;
                            self.pos += 1;
                            s.push(match e {
                                'n' => '\n',
                                't' => '\t',
                                other => other,
                            });
                        }
                        c => s.push(c),
                    }
                }
                None
            }
            c if c.is_ascii_digit() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
                    self.pos += 1;
                }
                Some(Term::Num(self.s[start..self.pos].iter().collect()))
            }
            _ => {
                let save = self.pos;
                match self.ident().as_deref() {
                    Some("NR") => Some(Term::Nr),
                    Some("NF") => Some(Term::Nf),
                    _ => {
                        self.pos = save;
                        None
                    }
                }
            }
        }
    }
    fn cmp(&mut self) -> Option<Cmp> {
        for (t, c) in
            [("==", Cmp::Eq), ("!=", Cmp::Ne), ("<=", Cmp::Le), (">=", Cmp::Ge), ("<", Cmp::Lt), (">", Cmp::Gt)]
        {
            if self.eat(t) {
                return Some(c);
            }
        }
        None
    }
}

impl Awk {
    fn parse(program: &str, fs: char) -> Result<Awk, Usage> {
        let bad = || usage("awk", 2, AWK_SUBSET);
        let chars: Vec<char> = program.chars().collect();
        let mut lx = AwkLexer { s: &chars, pos: 0 };
        let mut rules = Vec::new();
        loop {
            lx.ws();
            if lx.peek().is_none() {
                break;
            }
            if lx.eat(";") {
                continue;
            }
            let save = lx.pos;
            let when = match lx.ident().as_deref() {
                Some("BEGIN") => When::Begin,
                Some("END") => When::End,
                _ => {
                    lx.pos = save;
                    let negate = lx.eat("!");
                    if let Some(re) = lx.regex() {
                        When::Match(Box::new(re.map_err(|e| usage("awk", 2, e))?), negate)
                    } else if negate {
                        return Err(bad());
                    } else if let Some(left) = lx.term() {
                        if lx.eat("!~") || { false } {
                            let re = lx.regex().ok_or_else(bad)?.map_err(|e| usage("awk", 2, e))?;
                            When::FieldMatch(left, Box::new(re), false)
                        } else if lx.eat("~") {
                            let re = lx.regex().ok_or_else(bad)?.map_err(|e| usage("awk", 2, e))?;
                            When::FieldMatch(left, Box::new(re), true)
                        } else {
                            let op = lx.cmp().ok_or_else(bad)?;
                            let right = lx.term().ok_or_else(bad)?;
                            When::Compare(left, op, right)
                        }
                    } else {
                        When::Always
                    }
                }
            };
            let mut prints = Vec::new();
            if lx.eat("{") {
                loop {
                    if lx.eat("}") {
                        break;
                    }
                    if lx.eat(";") {
                        continue;
                    }
                    if lx.ident().as_deref() != Some("print") {
                        return Err(bad());
                    }
                    let mut items: Vec<Vec<Term>> = Vec::new();
                    let mut current: Vec<Term> = Vec::new();
                    loop {
                        lx.ws();
                        match lx.peek() {
                            Some(';') | Some('}') | None => break,
                            Some(',') => {
                                lx.pos += 1;
                                items.push(std::mem::take(&mut current));
                            }
                            _ => current.push(lx.term().ok_or_else(bad)?),
                        }
                    }
                    if !current.is_empty() || !items.is_empty() {
                        items.push(current);
                    }
                    prints.push(items);
                }
            } else if matches!(when, When::Begin | When::End | When::Always) {
                return Err(bad());
            } else {
                // A pattern alone prints the record.
                prints.push(Vec::new());
            }
            rules.push(Rule { when, prints });
        }
        if rules.is_empty() {
            return Err(bad());
        }
        Ok(Awk { fs, rules, nr: 0, last: String::new() })
    }

    fn fields<'a>(&self, record: &'a str) -> Vec<&'a str> {
        if self.fs == ' ' {
            record.split([' ', '\t', '\n']).filter(|f| !f.is_empty()).collect()
        } else {
            record.split(self.fs).collect()
        }
    }

    fn value(&self, t: &Term, record: &str, fields: &[&str]) -> String {
        match t {
            Term::Field(0) => record.to_string(),
            Term::Field(n) => fields.get(n - 1).map(|s| s.to_string()).unwrap_or_default(),
            Term::FieldFromEnd(k) => {
                if *k == 0 && fields.is_empty() {
                    return record.to_string();
                }
                match fields.len().checked_sub(*k) {
                    Some(0) => record.to_string(),
                    Some(i) => fields[i - 1].to_string(),
                    None => String::new(),
                }
            }
            Term::Nr => self.nr.to_string(),
            Term::Nf => fields.len().to_string(),
            Term::Str(s) | Term::Num(s) => s.clone(),
        }
    }

    fn run_rule(&self, rule: &Rule, record: &str, out: &mut Output) {
        let fields = self.fields(record);
        let hit = match &rule.when {
            When::Always | When::Begin | When::End => true,
            When::Match(re, negate) => re.is_match(record) != *negate,
            When::FieldMatch(t, re, want) => re.is_match(&self.value(t, record, &fields)) == *want,
            When::Compare(a, op, b) => {
                let (x, y) = (self.value(a, record, &fields), self.value(b, record, &fields));
                let ord = match (x.trim().parse::<f64>(), y.trim().parse::<f64>()) {
                    (Ok(p), Ok(q)) => p.partial_cmp(&q).unwrap_or(std::cmp::Ordering::Equal),
                    _ => x.cmp(&y),
                };
                use std::cmp::Ordering::*;
                match op {
                    Cmp::Eq => ord == Equal,
                    Cmp::Ne => ord != Equal,
                    Cmp::Lt => ord == Less,
                    Cmp::Le => ord != Greater,
                    Cmp::Gt => ord == Greater,
                    Cmp::Ge => ord != Less,
                }
            }
        };
        if !hit {
            return;
        }
        for items in &rule.prints {
            let line = if items.is_empty() {
                record.to_string()
            } else {
                let parts: Vec<String> = items
                    .iter()
                    .map(|concat| concat.iter().map(|t| self.value(t, record, &fields)).collect())
                    .collect();
                parts.join(" ")
            };
            out.out(line);
            out.out("\n");
        }
    }

    fn record(&mut self, line: &str, out: &mut Output) {
        if self.nr == 0 {
            for r in self.rules.iter().filter(|r| matches!(r.when, When::Begin)) {
                self.run_rule(r, "", out);
            }
        }
        self.nr += 1;
        for r in self.rules.iter().filter(|r| !matches!(r.when, When::Begin | When::End)) {
            self.run_rule(r, line, out);
        }
        self.last = line.to_string();
    }

    fn end(&mut self, out: &mut Output) {
        if self.nr == 0 {
            for r in self.rules.iter().filter(|r| matches!(r.when, When::Begin)) {
                self.run_rule(r, "", out);
            }
        }
        let last = self.last.clone();
        for r in self.rules.iter().filter(|r| matches!(r.when, When::End)) {
            self.run_rule(r, &last, out);
        }
    }
}

/// An ERE matching `text` literally.
fn escape_ere(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if "\\.[]()*+?{}|^$".contains(c) {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// A pattern in `syntax`, respelled as an ERE (to join several patterns with `|`).
fn to_ere(p: &str, syntax: Syntax) -> String {
    if syntax == Syntax::Extended {
        return format!("({p})");
    }
    let mut s = String::from("(");
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(o @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => s.push(o),
                Some(o) => {
                    s.push('\\');
                    s.push(o);
                }
                None => s.push_str("\\\\"),
            },
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                s.push('\\');
                s.push(c);
            }
            c => s.push(c),
        }
    }
    s.push(')');
    s
}

/// Runs a filter over the whole of its input, as a pipeline stage that is not streaming.
/// Returns the exit status.
pub fn run(
    name: &str,
    args: &[String],
    stdin: Option<&str>,
    files: &BTreeMap<String, String>,
    out: &mut Output,
) -> i32 {
    match Filter::new(name, args, files, stdin) {
        Err(u) => {
            out.err(u.message);
            u.status
        }
        Ok(mut f) => {
            f.feed(stdin.unwrap_or(""), out);
            f.finish(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PODS: &str = "NAME          READY   STATUS    RESTARTS   AGE\nweb-7d4b9-a   1/1     Running   0          5m\napi-5c8f6-b   0/1     Pending   0          10s\nweb-7d4b9-c   1/1     Running   2          5m\n";

    fn sh(name: &str, args: &str, input: &str) -> (String, String, i32) {
        let args: Vec<String> = super::super::shell::split_words(args).unwrap();
        let mut files = BTreeMap::new();
        files.insert("web.yaml".to_string(), "a: 1\nb: 2\n".to_string());
        files.insert("two.txt".to_string(), "x\ny\n".to_string());
        let mut out = Output::default();
        let code = run(name, &args, Some(input), &files, &mut out);
        (out.stdout(), out.stderr(), code)
    }

    fn stdout(name: &str, args: &str, input: &str) -> String {
        let (o, e, _) = sh(name, args, input);
        assert_eq!(e, "", "{name} {args}");
        o
    }

    #[test]
    fn grep() {
        assert_eq!(
            stdout("grep", "web", PODS),
            "web-7d4b9-a   1/1     Running   0          5m\nweb-7d4b9-c   1/1     Running   2          5m\n"
        );
        assert_eq!(sh("grep", "nope", PODS), (String::new(), String::new(), 1));
        assert_eq!(stdout("grep", "-c Running", PODS), "2\n");
        assert_eq!(sh("grep", "-c nope", PODS), ("0\n".into(), String::new(), 1));
        assert_eq!(stdout("grep", "-v Running", PODS).lines().count(), 2);
        assert_eq!(stdout("grep", "-i running", PODS).lines().count(), 2);
        assert_eq!(stdout("grep", "-E 'Pending|RESTARTS'", PODS).lines().count(), 2);
        assert_eq!(stdout("grep", "-vc -e NAME -e Pending", PODS), "2\n");
        assert_eq!(stdout("grep", "-n Pending", PODS), "3:api-5c8f6-b   0/1     Pending   0          10s\n");
        assert_eq!(stdout("grep", "-w 1", "a 1/1\nb 11\n"), "a 1/1\n");
        assert_eq!(sh("grep", "-q Running", PODS), (String::new(), String::new(), 0));
        assert_eq!(stdout("grep", "-F '1/1 '", PODS).lines().count(), 2);
        assert_eq!(stdout("grep", "-o 'web-[^ ]*'", PODS), "web-7d4b9-a\nweb-7d4b9-c\n");
        assert_eq!(stdout("grep", "-oE '[0-9]+/[0-9]+'", "1/1 and 0/1\n"), "1/1\n0/1\n");
        assert_eq!(stdout("grep", "b web.yaml", ""), "b: 2\n");
        assert_eq!(stdout("grep", "y web.yaml two.txt", ""), "two.txt:y\n");
        assert_eq!(
            sh("grep", "x nope.yaml", ""),
            (String::new(), "grep: nope.yaml: No such file or directory\n".into(), 2)
        );
        assert_eq!(sh("grep", "'a\\('", "").1, "grep: Unmatched ( or \\(\n");
        assert_eq!(sh("grep", "", "").2, 2);
        assert_eq!(sh("grep", "-P x", "").1, "grep: option -P is not supported in this console (its grep takes -v, -i, -c, -E, -F, -e PATTERN, -n, -o, -w, -x, -q, -s, -h, -H)\n");
        // The last line without a newline gets one.
        assert_eq!(stdout("grep", "b", "a\nb"), "b\n");
    }

    #[test]
    fn head_and_tail() {
        assert_eq!(stdout("head", "-n 2", PODS).lines().count(), 2);
        assert_eq!(stdout("head", "-1", PODS), "NAME          READY   STATUS    RESTARTS   AGE\n");
        assert_eq!(stdout("head", "-n -3", PODS).lines().count(), 1);
        assert_eq!(stdout("tail", "-n 1", PODS), "web-7d4b9-c   1/1     Running   2          5m\n");
        assert_eq!(stdout("tail", "-2", PODS).lines().count(), 2);
        assert_eq!(stdout("tail", "-n +2", PODS).lines().count(), 3);
        assert_eq!(stdout("head", "", &"x\n".repeat(20)).lines().count(), 10);
        assert_eq!(stdout("tail", "-n1", "a\nb"), "b");
        assert_eq!(stdout("head", "web.yaml two.txt", ""), "==> web.yaml <==\na: 1\nb: 2\n\n==> two.txt <==\nx\ny\n");
        assert_eq!(sh("head", "-n x", "").1, "head: invalid number of lines: ‘x’\n");
    }

    #[test]
    fn wc() {
        assert_eq!(stdout("wc", "-l", PODS), "4\n");
        assert_eq!(stdout("wc", "", "hi there\n"), "      1       2       9\n");
        assert_eq!(stdout("wc", "-lw", "a b\nc"), "      1       3\n");
        assert_eq!(stdout("wc", "-l web.yaml", ""), "2 web.yaml\n");
        assert_eq!(stdout("wc", "web.yaml two.txt", ""), " 2  4 10 web.yaml\n 2  2  4 two.txt\n 4  6 14 total\n");
    }

    #[test]
    fn sort() {
        assert_eq!(stdout("sort", "", "b\na\nB\n"), "B\na\nb\n");
        assert_eq!(stdout("sort", "-r", "b\na\nc\n"), "c\nb\na\n");
        assert_eq!(stdout("sort", "-n", "10\n9\n-1\nx\n"), "-1\nx\n9\n10\n");
        assert_eq!(stdout("sort", "-k2 -n", "a 3\nb 1\nc 2\n"), "b 1\nc 2\na 3\n");
        assert_eq!(stdout("sort", "-k2,2nr", "a 3\nb 1\nc 2\n"), "a 3\nc 2\nb 1\n");
        assert_eq!(stdout("sort", "-t: -k2", "a:z\nb:y\n"), "b:y\na:z\n");
        assert_eq!(stdout("sort", "-u", "b\na\nb\n"), "a\nb\n");
        // Without -b the key keeps its leading blanks, as GNU sort's does.
        assert_eq!(stdout("sort", "-k2", "x   b\ny a\n"), "x   b\ny a\n");
        assert_eq!(stdout("sort", "-b -k2", "x   b\ny a\n"), "y a\nx   b\n");
        assert_eq!(sh("sort", "-k0", "").2, 2);
    }

    #[test]
    fn awk() {
        assert_eq!(stdout("awk", "'{print $1}'", PODS), "NAME\nweb-7d4b9-a\napi-5c8f6-b\nweb-7d4b9-c\n");
        assert_eq!(stdout("awk", "'NR>1 {print $1, $NF}'", PODS), "web-7d4b9-a 5m\napi-5c8f6-b 10s\nweb-7d4b9-c 5m\n");
        assert_eq!(stdout("awk", "'/Pending/ {print $1}'", PODS), "api-5c8f6-b\n");
        assert_eq!(stdout("awk", "'$3==\"Running\" {print $1}'", PODS), "web-7d4b9-a\nweb-7d4b9-c\n");
        assert_eq!(
            stdout("awk", "'$4 > 0'", PODS),
            "NAME          READY   STATUS    RESTARTS   AGE\nweb-7d4b9-c   1/1     Running   2          5m\n"
        );
        assert_eq!(stdout("awk", "'{print $(NF-1) \"-\" $2}'", "a b c\n"), "b-b\n");
        assert_eq!(stdout("awk", "'END {print NR}'", PODS), "4\n");
        assert_eq!(stdout("awk", "-F: '{print $2}'", "a:b\n"), "b\n");
        assert_eq!(stdout("awk", "'{print}'", " x  y \n"), " x  y \n");
        assert_eq!(stdout("awk", "'{print $9}'", "a\n"), "\n");
        assert!(sh("awk", "'{x=1}'", "").1.contains("this console's awk runs [PATTERN] {print ...} programs only"));
        assert_eq!(sh("awk", "'{x=1}'", "").2, 2);
    }

    #[test]
    fn cut() {
        assert_eq!(stdout("cut", "-d' ' -f1", PODS), "NAME\nweb-7d4b9-a\napi-5c8f6-b\nweb-7d4b9-c\n");
        assert_eq!(stdout("cut", "-d/ -f2", "pod/web\nnone\n"), "web\nnone\n");
        assert_eq!(stdout("cut", "-s -d/ -f2", "pod/web\nnone\n"), "web\n");
        assert_eq!(stdout("cut", "-c1-3,5", "abcdef\n"), "abce\n");
        assert_eq!(stdout("cut", "-d, -f2-", "a,b,c\n"), "b,c\n");
        assert_eq!(sh("cut", "-f0", "").2, 1);
        assert!(sh("cut", "", "").1.starts_with("cut: you must specify a list"));
    }

    #[test]
    fn streaming_head_closes() {
        let mut out = Output::default();
        let mut f = Filter::new("head", &["-n".into(), "2".into()], &BTreeMap::new(), None).unwrap();
        f.feed("a\nb", &mut out);
        assert!(!f.closed());
        f.feed("\nc\n", &mut out);
        assert!(f.closed());
        assert_eq!(out.stdout(), "a\nb\n");
        let mut g = Filter::new("grep", &["x".into()], &BTreeMap::new(), None).unwrap();
        let mut out = Output::default();
        g.feed("ax\nb", &mut out);
        assert_eq!(out.stdout(), "ax\n");
        g.feed("x\n", &mut out);
        assert_eq!(out.stdout(), "ax\nbx\n");
        assert_eq!(g.finish(&mut out), 0);
    }
}
