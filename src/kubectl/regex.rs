//! A small regular-expression matcher for the console's `grep` and `awk`: POSIX basic (BRE,
//! `grep`'s default) and extended (ERE, `grep -E`, awk) syntax with GNU grep's common
//! extensions, compiled to a Thompson NFA and run as a Pike VM, so matching time is linear in the
//! line whatever the pattern (no backtracking blow-up on `(a*)*b`).
//!
//! Supported: literals, `.`, bracket expressions (`[a-z]`, `[^0-9]`, `[]x]`, the classes
//! `[:alpha:]`, `[:digit:]`, `[:alnum:]`, `[:upper:]`, `[:lower:]`, `[:space:]`, `[:blank:]`,
//! `[:punct:]`, `[:xdigit:]`), anchors `^` and `$`, repetition `*`, `+`, `?`, `{n}`, `{n,}`,
//! `{n,m}`, alternation `|`, groups `( )` (in BRE spelled `\(`, `\)`, `\{`, `\}`, `\|`, `\+`,
//! `\?`, as GNU grep spells them), and `\w`, `\W`, `\s`, `\S`, `\b`, `\B`, `\<`, `\>`.
//! Matching is by characters, case-sensitive unless asked. Back-references (`\1`) are refused
//! with a message rather than matched wrongly.

/// Which syntax a pattern is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// POSIX basic (grep without -E).
    Basic,
    /// POSIX extended (grep -E, awk).
    Extended,
}

/// The most instructions a compiled pattern may have (repetition counts multiply a pattern).
const MAX_PROGRAM: usize = 20_000;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Char(char),
    Any,
    Class(Class),
    Bol,
    Eol,
    WordBoundary(bool),
    WordStart,
    WordEnd,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
    Group(Box<Node>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
    named: Vec<Named>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Alpha,
    Digit,
    Alnum,
    Upper,
    Lower,
    Space,
    Blank,
    Punct,
    Xdigit,
    Word,
}

impl Named {
    fn matches(self, c: char) -> bool {
        match self {
            Named::Alpha => c.is_alphabetic(),
            Named::Digit => c.is_ascii_digit(),
            Named::Alnum => c.is_alphanumeric(),
            Named::Upper => c.is_uppercase(),
            Named::Lower => c.is_lowercase(),
            Named::Space => c.is_whitespace(),
            Named::Blank => c == ' ' || c == '\t',
            Named::Punct => c.is_ascii_punctuation(),
            Named::Xdigit => c.is_ascii_hexdigit(),
            Named::Word => is_word(c),
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Class {
    fn matches(&self, c: char, fold: bool) -> bool {
        let test =
            |c: char| self.ranges.iter().any(|&(a, b)| a <= c && c <= b) || self.named.iter().any(|n| n.matches(c));
        let hit = test(c) || (fold && (test(lower(c)) || c.to_uppercase().any(test)));
        hit != self.negated
    }
}

fn lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

#[derive(Clone, Debug)]
enum Inst {
    Char(char),
    Any,
    Class(Box<Class>),
    Split(usize, usize),
    Jmp(usize),
    Bol,
    Eol,
    WordBoundary(bool),
    WordStart,
    WordEnd,
    /// The character before is not a word character (for `grep -w`).
    NotWordBefore,
    /// The character after is not a word character (for `grep -w`).
    NotWordAfter,
    Match,
}

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Regex {
    prog: Vec<Inst>,
    fold: bool,
}

struct Parser<'a> {
    s: &'a [char],
    pos: usize,
    syntax: Syntax,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    /// Whether the next token is the operator `op` (`|`, `(`, `)`, `{`, `+`, `?`) in this syntax.
    fn at_op(&self, op: char) -> bool {
        match self.syntax {
            Syntax::Extended => self.peek() == Some(op),
            Syntax::Basic => self.peek() == Some('\\') && self.s.get(self.pos + 1) == Some(&op),
        }
    }

    fn eat_op(&mut self, op: char) -> bool {
        if self.at_op(op) {
            self.pos += if self.syntax == Syntax::Basic { 2 } else { 1 };
            true
        } else {
            false
        }
    }

    fn alt(&mut self, depth: usize) -> Result<Node, String> {
        if depth > 100 {
            return Err("parentheses nested too deeply".into());
        }
        let mut branches = vec![self.concat(depth)?];
        while self.eat_op('|') {
            branches.push(self.concat(depth)?);
        }
        Ok(if branches.len() == 1 { branches.remove(0) } else { Node::Alt(branches) })
    }

    fn concat(&mut self, depth: usize) -> Result<Node, String> {
        let mut items: Vec<Node> = Vec::new();
        let start = self.pos;
        loop {
            if self.peek().is_none() || self.at_op('|') || self.at_op(')') {
                break;
            }
            let first = self.pos == start;
            let atom = self.atom(depth, first)?;
            let atom = self.repeats(atom)?;
            items.push(atom);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Node::Concat(items) })
    }

    fn repeats(&mut self, mut atom: Node) -> Result<Node, String> {
        loop {
            if self.peek() == Some('*') {
                self.pos += 1;
                atom = Node::Repeat(Box::new(atom), 0, None);
            } else if self.eat_op('+') {
                atom = Node::Repeat(Box::new(atom), 1, None);
            } else if self.eat_op('?') {
                atom = Node::Repeat(Box::new(atom), 0, Some(1));
            } else if self.at_op('{') {
                let save = self.pos;
                self.eat_op('{');
                match self.interval()? {
                    Some((lo, hi)) => atom = Node::Repeat(Box::new(atom), lo, hi),
                    None => {
                        // GNU grep -E takes a `{` that does not start an interval literally.
                        self.pos = save;
                        return Ok(atom);
                    }
                }
            } else {
                return Ok(atom);
            }
        }
    }

    /// `n}`, `n,}`, `n,m}` after `{` (or `\{`).
    fn interval(&mut self) -> Result<Option<(u32, Option<u32>)>, String> {
        let num = |p: &mut Parser| -> Option<u32> {
            let start = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            let s: String = p.s[start..p.pos].iter().collect();
            s.parse().ok()
        };
        let lo = num(self);
        let comma = self.peek() == Some(',');
        let hi = if comma {
            self.pos += 1;
            num(self)
        } else {
            lo
        };
        let closed = match self.syntax {
            Syntax::Extended => self.peek() == Some('}'),
            Syntax::Basic => self.peek() == Some('\\') && self.s.get(self.pos + 1) == Some(&'}'),
        };
        // `{,n}` means `{0,n}` (GNU); `{}` and `{,}` without numbers are not intervals.
        let Some(lo) = lo.or(if comma && hi.is_some() { Some(0) } else { None }) else {
            if self.syntax == Syntax::Basic {
                return Err("invalid content of \\{\\}".into());
            }
            return Ok(None);
        };
        if !closed {
            if self.syntax == Syntax::Basic {
                return Err("unmatched \\{".into());
            }
            return Ok(None);
        }
        self.pos += if self.syntax == Syntax::Basic { 2 } else { 1 };
        if hi.is_some_and(|h| h < lo) {
            return Err("invalid content of \\{\\}".into());
        }
        if lo > 1000 || hi.is_some_and(|h| h > 1000) {
            return Err("regular expression too big".into());
        }
        Ok(Some((lo, hi)))
    }

    fn atom(&mut self, depth: usize, first: bool) -> Result<Node, String> {
        let Some(c) = self.peek() else { return Err("unexpected end of pattern".into()) };
        if self.eat_op('(') {
            let inner = self.alt(depth + 1)?;
            if !self.eat_op(')') {
                return Err("Unmatched ( or \\(".into());
            }
            return Ok(Node::Group(Box::new(inner)));
        }
        self.pos += 1;
        Ok(match c {
            '.' => Node::Any,
            '^' if first || self.syntax == Syntax::Extended => Node::Bol,
            '$' if self.peek().is_none() || self.syntax == Syntax::Extended || self.at_op(')') || self.at_op('|') => {
                Node::Eol
            }
            '*' if first => Node::Char('*'),
            '[' => self.bracket()?,
            ')' if self.syntax == Syntax::Extended => return Err("Unmatched ) or \\)".into()),
            '\\' => {
                let Some(e) = self.peek() else { return Err("Trailing backslash".into()) };
                self.pos += 1;
                match e {
                    'w' | 'W' => Node::Class(Class { negated: e == 'W', ranges: Vec::new(), named: vec![Named::Word] }),
                    's' | 'S' => {
                        Node::Class(Class { negated: e == 'S', ranges: Vec::new(), named: vec![Named::Space] })
                    }
                    'b' => Node::WordBoundary(true),
                    'B' => Node::WordBoundary(false),
                    '<' => Node::WordStart,
                    '>' => Node::WordEnd,
                    '1'..='9' => return Err("back-references (\\1) are not supported in this console".into()),
                    ')' | '}' if self.syntax == Syntax::Basic => {
                        return Err(if e == ')' { "Unmatched ) or \\)".into() } else { "unmatched \\}".into() })
                    }
                    other => Node::Char(other),
                }
            }
            other => Node::Char(other),
        })
    }

    fn bracket(&mut self) -> Result<Node, String> {
        let mut class = Class { negated: false, ranges: Vec::new(), named: Vec::new() };
        if self.peek() == Some('^') {
            class.negated = true;
            self.pos += 1;
        }
        let mut first = true;
        loop {
            let Some(c) = self.peek() else { return Err("Unmatched [, [^, [:, [., or [=".into()) };
            if c == ']' && !first {
                self.pos += 1;
                break;
            }
            first = false;
            if c == '[' && self.s.get(self.pos + 1) == Some(&':') {
                let rest: String = self.s[self.pos + 2..].iter().collect();
                let Some(end) = rest.find(":]") else { return Err("Unmatched [, [^, [:, [., or [=".into()) };
                let name = &rest[..end];
                let named = match name {
                    "alpha" => Named::Alpha,
                    "digit" => Named::Digit,
                    "alnum" => Named::Alnum,
                    "upper" => Named::Upper,
                    "lower" => Named::Lower,
                    "space" => Named::Space,
                    "blank" => Named::Blank,
                    "punct" => Named::Punct,
                    "xdigit" => Named::Xdigit,
                    _ => return Err("invalid character class".into()),
                };
                class.named.push(named);
                self.pos += 2 + name.chars().count() + 2;
                continue;
            }
            self.pos += 1;
            if self.peek() == Some('-') && self.s.get(self.pos + 1).is_some_and(|&n| n != ']') {
                let hi = self.s[self.pos + 1];
                if hi < c {
                    return Err("Invalid range end".into());
                }
                self.pos += 2;
                class.ranges.push((c, hi));
            } else {
                class.ranges.push((c, c));
            }
        }
        Ok(Node::Class(class))
    }
}

struct Compiler {
    prog: Vec<Inst>,
}

impl Compiler {
    fn emit(&mut self, i: Inst) -> Result<usize, String> {
        if self.prog.len() >= MAX_PROGRAM {
            return Err("regular expression too big".into());
        }
        self.prog.push(i);
        Ok(self.prog.len() - 1)
    }

    fn node(&mut self, n: &Node, fold: bool) -> Result<(), String> {
        match n {
            Node::Char(c) => {
                self.emit(Inst::Char(if fold { lower(*c) } else { *c }))?;
            }
            Node::Any => {
                self.emit(Inst::Any)?;
            }
            Node::Class(c) => {
                self.emit(Inst::Class(Box::new(c.clone())))?;
            }
            Node::Bol => {
                self.emit(Inst::Bol)?;
            }
            Node::Eol => {
                self.emit(Inst::Eol)?;
            }
            Node::WordBoundary(b) => {
                self.emit(Inst::WordBoundary(*b))?;
            }
            Node::WordStart => {
                self.emit(Inst::WordStart)?;
            }
            Node::WordEnd => {
                self.emit(Inst::WordEnd)?;
            }
            Node::Group(inner) => self.node(inner, fold)?,
            Node::Concat(items) => {
                for i in items {
                    self.node(i, fold)?;
                }
            }
            Node::Alt(branches) => {
                let mut jumps = Vec::new();
                for (k, b) in branches.iter().enumerate() {
                    if k + 1 < branches.len() {
                        let split = self.emit(Inst::Split(0, 0))?;
                        self.node(b, fold)?;
                        jumps.push(self.emit(Inst::Jmp(0))?);
                        let next = self.prog.len();
                        self.prog[split] = Inst::Split(split + 1, next);
                    } else {
                        self.node(b, fold)?;
                    }
                }
                let end = self.prog.len();
                for j in jumps {
                    self.prog[j] = Inst::Jmp(end);
                }
            }
            Node::Repeat(inner, lo, hi) => {
                for _ in 0..*lo {
                    self.node(inner, fold)?;
                }
                match hi {
                    None => {
                        // x*: L: split body, end; body; jmp L
                        let split = self.emit(Inst::Split(0, 0))?;
                        self.node(inner, fold)?;
                        self.emit(Inst::Jmp(split))?;
                        let end = self.prog.len();
                        self.prog[split] = Inst::Split(split + 1, end);
                    }
                    Some(hi) => {
                        let mut splits = Vec::new();
                        for _ in *lo..*hi {
                            splits.push(self.emit(Inst::Split(0, 0))?);
                            self.node(inner, fold)?;
                        }
                        let end = self.prog.len();
                        for s in splits {
                            self.prog[s] = Inst::Split(s + 1, end);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// How a match must sit in the line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anchoring {
    /// `grep -w`: the match is a whole word.
    pub word: bool,
    /// `grep -x`: the match is the whole line.
    pub line: bool,
}

impl Regex {
    /// Compiles `pattern`. The error is the reason, as grep words it after `grep: `.
    pub fn new(pattern: &str, syntax: Syntax, fold: bool, anchoring: Anchoring) -> Result<Regex, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut p = Parser { s: &chars, pos: 0, syntax };
        let node = p.alt(0)?;
        if p.pos < chars.len() {
            return Err("Unmatched ) or \\)".into());
        }
        Regex::compile(&node, fold, anchoring)
    }

    /// A pattern matching `text` literally (grep -F).
    pub fn literal(text: &str, fold: bool, anchoring: Anchoring) -> Result<Regex, String> {
        let node = Node::Concat(text.chars().map(Node::Char).collect());
        Regex::compile(&node, fold, anchoring)
    }

    /// The program for a parsed pattern: the anchors `-x` or `-w` ask for around it, then Match.
    fn compile(node: &Node, fold: bool, anchoring: Anchoring) -> Result<Regex, String> {
        let mut c = Compiler { prog: Vec::new() };
        if anchoring.line {
            c.emit(Inst::Bol)?;
        } else if anchoring.word {
            c.emit(Inst::NotWordBefore)?;
        }
        c.node(node, fold)?;
        if anchoring.line {
            c.emit(Inst::Eol)?;
        } else if anchoring.word {
            c.emit(Inst::NotWordAfter)?;
        }
        c.emit(Inst::Match)?;
        Ok(Regex { prog: c.prog, fold })
    }

    /// Whether the pattern matches anywhere in `line` (one line, without its newline).
    pub fn is_match(&self, line: &str) -> bool {
        let chars: Vec<char> = line.chars().collect();
        let n = self.prog.len();
        let mut clist: Vec<usize> = Vec::with_capacity(n);
        let mut nlist: Vec<usize> = Vec::with_capacity(n);
        let mut seen = vec![usize::MAX; n];
        for i in 0..=chars.len() {
            // A new thread starts at every position: the search is unanchored.
            if self.add(&mut clist, &mut seen, 0, i, &chars, true) {
                return true;
            }
            let Some(&c) = chars.get(i) else { break };
            let c_cmp = if self.fold { lower(c) } else { c };
            nlist.clear();
            for &pc in &clist {
                let ok = match &self.prog[pc] {
                    Inst::Char(x) => *x == c_cmp,
                    Inst::Any => true,
                    Inst::Class(cl) => cl.matches(c, self.fold),
                    _ => false,
                };
                if ok && self.add(&mut nlist, &mut seen, pc + 1, i + 1, &chars, true) {
                    return true;
                }
            }
            std::mem::swap(&mut clist, &mut nlist);
        }
        false
    }

    /// The leftmost-longest match in `chars` starting at or after `from`, as (start, end)
    /// character positions (POSIX's rule, which grep -o follows).
    pub fn find(&self, chars: &[char], from: usize) -> Option<(usize, usize)> {
        let n = self.prog.len();
        let mut clist: Vec<(usize, usize)> = Vec::with_capacity(n);
        let mut nlist: Vec<(usize, usize)> = Vec::with_capacity(n);
        let mut seen = vec![usize::MAX; n];
        let mut best: Option<(usize, usize)> = None;
        for i in from..=chars.len() {
            // Threads carried over come first: an earlier start wins a tie (leftmost).
            if best.is_none() {
                self.add_from(&mut clist, &mut seen, 0, i, chars, i, &mut best);
            }
            if clist.is_empty() && best.is_some() {
                break;
            }
            let Some(&c) = chars.get(i) else { break };
            let c_cmp = if self.fold { lower(c) } else { c };
            nlist.clear();
            for &(pc, start) in &clist {
                if best.is_some_and(|(s, _)| start > s) {
                    continue;
                }
                let ok = match &self.prog[pc] {
                    Inst::Char(x) => *x == c_cmp,
                    Inst::Any => true,
                    Inst::Class(cl) => cl.matches(c, self.fold),
                    _ => false,
                };
                if ok {
                    self.add_from(&mut nlist, &mut seen, pc + 1, i + 1, chars, start, &mut best);
                }
            }
            std::mem::swap(&mut clist, &mut nlist);
        }
        best
    }

    /// [`Regex::add`] for [`Regex::find`]: threads carry their start; reaching Match records
    /// the match if it starts earlier, or as early and ends later, than the best so far.
    #[allow(clippy::too_many_arguments)]
    fn add_from(
        &self,
        list: &mut Vec<(usize, usize)>,
        seen: &mut [usize],
        pc: usize,
        i: usize,
        chars: &[char],
        start: usize,
        best: &mut Option<(usize, usize)>,
    ) {
        let mut reached = Vec::new();
        if self.add(&mut reached, seen, pc, i, chars, false) {
            let better = match *best {
                None => true,
                Some((s, e)) => start < s || (start == s && i > e),
            };
            if better {
                *best = Some((start, i));
            }
        }
        list.extend(reached.into_iter().map(|pc| (pc, start)));
    }

    /// Adds the thread at `pc` (and what it reaches without reading a character) for position
    /// `i`; returns whether it reaches Match (at once when `early`, else after adding the rest).
    fn add(&self, list: &mut Vec<usize>, seen: &mut [usize], pc: usize, i: usize, chars: &[char], early: bool) -> bool {
        let mut matched = false;
        let mut stack = vec![pc];
        while let Some(pc) = stack.pop() {
            if seen[pc] == i {
                continue;
            }
            seen[pc] = i;
            let before = i.checked_sub(1).and_then(|k| chars.get(k)).copied();
            let after = chars.get(i).copied();
            let wb = before.is_some_and(is_word);
            let wa = after.is_some_and(is_word);
            match &self.prog[pc] {
                Inst::Match if early => return true,
                Inst::Match => matched = true,
                Inst::Jmp(t) => stack.push(*t),
                Inst::Split(a, b) => {
                    stack.push(*b);
                    stack.push(*a);
                }
                Inst::Bol => {
                    if i == 0 {
                        stack.push(pc + 1);
                    }
                }
                Inst::Eol => {
                    if i == chars.len() {
                        stack.push(pc + 1);
                    }
                }
                Inst::WordBoundary(want) => {
                    if (wb != wa) == *want {
                        stack.push(pc + 1);
                    }
                }
                Inst::WordStart => {
                    if !wb && wa {
                        stack.push(pc + 1);
                    }
                }
                Inst::WordEnd => {
                    if wb && !wa {
                        stack.push(pc + 1);
                    }
                }
                Inst::NotWordBefore => {
                    if !wb {
                        stack.push(pc + 1);
                    }
                }
                Inst::NotWordAfter => {
                    if !wa {
                        stack.push(pc + 1);
                    }
                }
                _ => list.push(pc),
            }
        }
        matched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, syntax: Syntax, line: &str) -> bool {
        Regex::new(p, syntax, false, Anchoring::default()).unwrap_or_else(|e| panic!("{p}: {e}")).is_match(line)
    }

    fn bre(p: &str, line: &str) -> bool {
        m(p, Syntax::Basic, line)
    }

    fn ere(p: &str, line: &str) -> bool {
        m(p, Syntax::Extended, line)
    }

    #[test]
    fn basic_syntax() {
        assert!(bre("web", "pod/web-1"));
        assert!(!bre("api", "pod/web-1"));
        assert!(bre("web-.*1", "web-abc-1"));
        assert!(bre("^NAME", "NAME  READY"));
        assert!(!bre("^READY", "NAME  READY"));
        assert!(bre("Running$", "web  1/1  Running"));
        assert!(bre("a\\|b", "xbx"));
        assert!(!bre("a|b", "xbx"));
        assert!(bre("a|b", "a|b"));
        assert!(bre("\\(ab\\)\\{2\\}", "xababx"));
        assert!(!bre("\\(ab\\)\\{2\\}", "xabx"));
        assert!(bre("x+", "x+"));
        assert!(bre("x\\+", "xxx"));
        assert!(bre("*a", "*a"));
        assert!(bre("a$b", "a$b"));
        assert!(bre("[0-9][0-9]*/[0-9]", "web 1/1"));
        assert!(bre("[[:digit:]]", "a1"));
        assert!(!bre("[^a-z]", "abc"));
        assert!(bre("[]a]", "]"));
        assert!(bre("\\.yaml", "web.yaml"));
        assert!(!bre("\\.yaml", "webxyaml"));
    }

    #[test]
    fn extended_syntax() {
        assert!(ere("web|api", "api-1"));
        assert!(ere("(Running|Pending)$", "x Pending"));
        assert!(ere("^[a-z]+-[0-9a-z]{5}$", "web-7f9c2"));
        assert!(!ere("^[a-z]+-[0-9a-z]{5}$", "web-7f9c"));
        assert!(ere("colou?r", "color"));
        assert!(ere("a{,2}b", "b"));
        assert!(ere("x{", "x{"));
        assert!(ere("\\bweb\\b", "a web b"));
        assert!(!ere("\\bweb\\b", "webs"));
        assert!(ere("\\<web", "x web"));
        assert!(ere("\\w+\\s\\S", "ab c"));
    }

    #[test]
    fn case_words_and_lines() {
        let fold = Regex::new("running", Syntax::Basic, true, Anchoring::default()).unwrap();
        assert!(fold.is_match("Running"));
        let fold = Regex::new("[A-C]x", Syntax::Basic, true, Anchoring::default()).unwrap();
        assert!(fold.is_match("bX"));
        let word = Regex::new("web", Syntax::Basic, false, Anchoring { word: true, line: false }).unwrap();
        assert!(word.is_match("deploy web ready"));
        assert!(word.is_match("web"));
        // `-` is not a word character: `web-1` holds the word `web`, `webs` and `web1` do not.
        assert!(!word.is_match("webs web1"));
        assert!(word.is_match("webs web-1"));
        let line = Regex::new("a.c", Syntax::Basic, false, Anchoring { word: false, line: true }).unwrap();
        assert!(line.is_match("abc"));
        assert!(!line.is_match("abcd"));
        let lit = Regex::literal("a.c", false, Anchoring::default()).unwrap();
        assert!(!lit.is_match("abc"));
        assert!(lit.is_match("xa.cx"));
    }

    #[test]
    fn leftmost_longest() {
        let find = |p: &str, line: &str| {
            let chars: Vec<char> = line.chars().collect();
            Regex::new(p, Syntax::Extended, false, Anchoring::default())
                .unwrap()
                .find(&chars, 0)
                .map(|(s, e)| chars[s..e].iter().collect::<String>())
        };
        assert_eq!(find("a|ab", "xabc").as_deref(), Some("ab"));
        assert_eq!(find("web-[a-z0-9]+", "pod/web-7f9c2 x").as_deref(), Some("web-7f9c2"));
        assert_eq!(find("b*", "abbb").as_deref(), Some(""));
        assert_eq!(find("[0-9]+", "a 12 345").as_deref(), Some("12"));
        assert_eq!(find("z", "abc"), None);
    }

    #[test]
    fn errors_and_limits() {
        for (p, s) in [
            ("a\\(b", Syntax::Basic),
            ("(a", Syntax::Extended),
            ("a)", Syntax::Extended),
            ("[a", Syntax::Basic),
            ("a\\", Syntax::Basic),
            ("\\(a\\)\\1", Syntax::Basic),
            ("[z-a]", Syntax::Basic),
            ("a{1001}", Syntax::Extended),
            ("[[:nope:]]", Syntax::Basic),
        ] {
            assert!(Regex::new(p, s, false, Anchoring::default()).is_err(), "{p}");
        }
        assert!(Regex::new("(((a{1000}){1000}){1000})", Syntax::Extended, false, Anchoring::default()).is_err());
        // Linear time: a pattern that makes backtracking matchers explode.
        let r = Regex::new("(a*)*b", Syntax::Extended, false, Anchoring::default()).unwrap();
        assert!(!r.is_match(&"a".repeat(5_000)));
    }
}
