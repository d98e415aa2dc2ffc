//! `awk`, for the programs people pipe kubectl into: `[PATTERN] { print EXPR, ... }` rules,
//! `BEGIN` and `END`, `-F`, `NR`, `NF` and `$N` (see [`AWK_SUBSET`]).

use super::{usage, Usage};
use crate::kubectl::cmd::Output;
use crate::kubectl::regex::{Anchoring, Regex, Syntax};

/// What awk's message says it runs.
const AWK_SUBSET: &str = "this console's awk runs [PATTERN] {print ...} programs only, such as '{print $1}', 'NR>1 {print $1, $NF}', '/Running/ {print $1}', '$3==\"Running\"' or 'END {print NR}'";

/// A parsed awk program and its record count.
#[derive(Clone, Debug)]
pub(super) struct Awk {
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
    pub(super) fn parse(program: &str, fs: char) -> Result<Awk, Usage> {
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

    pub(super) fn record(&mut self, line: &str, out: &mut Output) {
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

    pub(super) fn end(&mut self, out: &mut Output) {
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
