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

mod awk;
mod cut;
mod sort;
#[cfg(test)]
mod tests;
mod wc;

use super::cmd::Output;
use super::regex::{Anchoring, Regex, Syntax};
use awk::Awk;
use cut::{parse_list, Cut};
use sort::{parse_key, Sort};
use std::collections::BTreeMap;
use wc::{wc_width, Wc};

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
    utility: Utility,
    /// Input named on the command line (instead of standard input): (name, text or missing).
    files: Option<Vec<(String, Option<String>)>>,
    /// The end of the input that is not a whole line yet.
    partial: String,
    /// The exit status so far (a missing file operand makes it non-zero).
    status: i32,
    closed: bool,
}

/// The utility a filter runs, with its options and what it has read so far.
#[derive(Clone, Debug)]
enum Utility {
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
        let (name, utility, operands) = match name {
            "cat" => {
                let (_, operands) = getopt("cat", args, "", "", "no options")?;
                ("cat", Utility::Cat, operands)
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
                ("grep", Utility::Grep(Box::new(g)), operands)
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
                let utility = if head {
                    Utility::Head { n, all_but: flip, seen: 0, held: Default::default() }
                } else {
                    Utility::Tail { n, from: flip, seen: 0, held: Default::default() }
                };
                (tool, utility, operands)
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
                ("wc", Utility::Wc(wc), operands)
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
                ("sort", Utility::Sort(Box::new(s)), operands)
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
                ("cut", Utility::Cut(Cut { fields, delim, list, only_delimited }), operands)
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
                ("awk", Utility::Awk(Box::new(awk)), rest[1..].to_vec())
            }
            other => return Err(usage(other, 127, "command not found")),
        };
        let files = read_files(&operands, files, stdin);
        let mut f = Filter { name, utility, files, partial: String::new(), status: 0, closed: false };
        if let Utility::Head { n: 0, all_but: false, .. } = f.utility {
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
        if let Utility::Wc(wc) = &mut self.utility {
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
            match &mut self.utility {
                Utility::Wc(wc) => {
                    // Each file counts on its own; the total adds them up.
                    let mut one = Wc { n_lines: 0, n_words: 0, n_chars: 0, n_bytes: 0, in_word: false, ..wc.clone() };
                    one.count(text);
                    out.out(one.line(Some(name), width));
                    total.n_lines += one.n_lines;
                    total.n_words += one.n_words;
                    total.n_chars += one.n_chars;
                    total.n_bytes += one.n_bytes;
                }
                Utility::Head { .. } | Utility::Tail { .. } => {
                    if several {
                        out.out(format!("{}==> {name} <==\n", if first { "" } else { "\n" }));
                    }
                    // Each file is its own input.
                    let mut one = Filter { files: None, partial: String::new(), ..self.clone() };
                    one.feed(text, out);
                    one.flush(out);
                }
                Utility::Grep(g) => {
                    g.current = name.clone();
                    g.line_no = 0;
                    let before = g.matched;
                    self.closed = false;
                    self.feed_unchecked(text, out);
                    self.flush_partial(out);
                    if let Utility::Grep(g) = &self.utility {
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
        match &mut self.utility {
            Utility::Wc(wc) => {
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
            Utility::Head { .. } | Utility::Tail { .. } => self.status,
            _ => {
                self.flush(out);
                self.end_status(out)
            }
        }
    }

    /// How many counts `wc` prints (0 for the other filters).
    fn counts(&self) -> usize {
        match &self.utility {
            Utility::Wc(wc) => [wc.lines, wc.words, wc.chars, wc.bytes].iter().filter(|b| **b).count(),
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
        match &mut self.utility {
            Utility::Head { held, .. } => held.clear(),
            Utility::Tail { held, from: false, .. } => {
                for l in held.drain(..) {
                    out.out(l);
                }
            }
            Utility::Sort(s) => {
                let lines = std::mem::take(&mut s.lines);
                for l in s.sorted(lines) {
                    out.out(l);
                    out.out("\n");
                }
            }
            Utility::Wc(wc) => {
                // Standard input is not a regular file: GNU wc pads to 7 unless it prints one count.
                let single_count = [wc.lines, wc.words, wc.chars, wc.bytes].iter().filter(|b| **b).count() == 1;
                let line = wc.line(None, if single_count { 1 } else { 7 });
                out.out(line);
            }
            Utility::Awk(a) => a.end(out),
            _ => {}
        }
    }

    fn end_status(&mut self, out: &mut Output) -> i32 {
        if let Utility::Grep(g) = &self.utility {
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
        match &mut self.utility {
            Utility::Cat => {
                out.out(line);
                out.out(end);
            }
            Utility::Grep(g) => {
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
            Utility::Head { n, all_but, seen, held } => {
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
            Utility::Tail { n, from, seen, held } => {
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
            Utility::Wc(_) => {}
            Utility::Sort(s) => s.lines.push(line.to_string()),
            Utility::Awk(a) => a.record(line, out),
            Utility::Cut(c) => out.out(c.apply(line)),
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
