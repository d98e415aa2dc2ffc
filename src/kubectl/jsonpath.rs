//! JSONPath as client-go's `util/jsonpath` has it, and kubectl's `-o jsonpath=` printer
//! (cli-runtime `pkg/printers/jsonpath.go`, `JSONPathPrinter.PrintObj`).
//!
//! A template is literal text with `{...}` actions. Inside an action: `$`/`@` (the current
//! object), `.field` (backslash escapes a dot: `.kubectl\.kubernetes\.io/x`), `.*`, `..`
//! (recursive descent), `[n]` / `[-n]`, `[start:end:step]`, `[*]`, `['key']`, unions `[a,b]`,
//! filters `[?(@.x=="y")]` with `== != < > <= >=` or bare existence, quoted literals with Go
//! escapes (`{"\n"}`), numbers, `true`/`false`, and `{range ...}...{end}`.
//!
//! Output follows `PrintResults`: the results of one action are separated by a single space;
//! maps and lists print as compact JSON with sorted keys; scalars print as text; nothing is
//! added at the end. kubectl sets `AllowMissingKeys(true)`, so a missing field prints nothing,
//! while an index out of range is still an error.

use super::gojson;
use serde_json::Value;

/// One parsed node (client-go `jsonpath/node.go`).
#[derive(Clone, Debug, PartialEq)]
enum Node {
    /// Literal text, outside braces or quoted inside them.
    Text(String),
    /// One `{...}` action: its nodes applied left to right.
    List(Vec<Node>),
    /// `.name`.
    Field(String),
    /// `.*` or `[*]` on a map.
    Wildcard,
    /// `..`.
    Recursive,
    /// `[start:end:step]` (also `[n]`, `[*]`).
    Array([Param; 3]),
    /// `[a,b]`.
    Union(Vec<Vec<Node>>),
    /// `[?(left op right)]`, or `[?(left)]` (`op` = `exists`).
    Filter { left: Vec<Node>, right: Vec<Node>, op: String },
    /// `range`, `end` or another bare word.
    Identifier(String),
    /// A number literal.
    Number(Value),
    /// `true` / `false`.
    Bool(bool),
}

/// One slice parameter (client-go `ParamsEntry`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Param {
    value: i64,
    known: bool,
    derived: bool,
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonPath {
    raw: String,
    nodes: Vec<Node>,
}

struct Parser {
    input: Vec<char>,
    pos: usize,
    start: usize,
}

fn is_terminator(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'),
    }
}

impl Parser {
    fn new(s: &str) -> Parser {
        Parser { input: s.chars().collect(), pos: 0, start: 0 }
    }
    fn peek(&self) -> Option<char> {
        self.input.get(self.pos).copied()
    }
    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += 1;
        c
    }
    fn consume(&mut self) -> String {
        let end = self.pos.min(self.input.len());
        let s: String = self.input[self.start.min(end)..end].iter().collect();
        self.start = self.pos;
        s
    }
    fn rest_starts_with(&self, p: &str) -> bool {
        p.chars().enumerate().all(|(i, c)| self.input.get(self.pos + i) == Some(&c))
    }

    /// `parseText` / `parseLeftDelim` at the top level.
    fn parse_template(&mut self) -> Result<Vec<Node>, String> {
        let mut nodes = Vec::new();
        loop {
            while self.peek().is_some() && self.peek() != Some('{') {
                self.pos += 1;
            }
            let text = self.consume();
            if !text.is_empty() {
                nodes.push(Node::Text(text));
            }
            if self.peek().is_none() {
                return Ok(nodes);
            }
            self.pos += 1;
            self.consume();
            let mut list = Vec::new();
            self.parse_inside_action(&mut list)?;
            nodes.push(Node::List(list));
        }
    }

    fn parse_inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            if self.rest_starts_with("}") {
                self.pos += 1;
                self.consume();
                return Ok(());
            }
            if self.rest_starts_with("[?(") {
                self.parse_filter(cur)?;
                continue;
            }
            if self.rest_starts_with("..") {
                self.pos += 1;
                self.consume();
                cur.push(Node::Recursive);
                continue;
            }
            match self.next() {
                None | Some('\n') | Some('\r') => return Err("unclosed action".into()),
                Some(' ') | Some('@') | Some('$') => {
                    self.consume();
                }
                Some('[') => self.parse_array(cur)?,
                Some(q @ ('"' | '\'')) => self.parse_quote(cur, q)?,
                Some('.') => self.parse_field(cur),
                Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                    self.pos -= 1;
                    self.parse_number(cur)?;
                }
                Some(c) if c.is_alphanumeric() || c == '_' => {
                    self.pos -= 1;
                    self.parse_identifier(cur);
                }
                Some(c) => {
                    return Err(format!("unrecognized character in action: U+{:04X} '{c}'", c as u32));
                }
            }
        }
    }

    fn parse_field(&mut self, cur: &mut Vec<Node>) {
        self.consume();
        loop {
            match self.peek() {
                Some('\\') => self.pos += 2,
                c if is_terminator(c) => break,
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.input.len());
        let value = self.consume();
        if value == "*" {
            cur.push(Node::Wildcard);
        } else {
            cur.push(Node::Field(value.replace('\\', "")));
        }
    }

    fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
        while !is_terminator(self.peek()) {
            self.pos += 1;
        }
        let value = self.consume();
        match value.as_str() {
            "true" => cur.push(Node::Bool(true)),
            "false" => cur.push(Node::Bool(false)),
            _ => cur.push(Node::Identifier(value)),
        }
    }

    fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        let c = self.peek();
        if c == Some('+') || c == Some('-') {
            self.pos += 1;
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E') {
            self.pos += 1;
        }
        let value = self.consume();
        if let Ok(i) = value.parse::<i64>() {
            cur.push(Node::Number(Value::from(i)));
        } else if let Ok(f) = value.parse::<f64>() {
            cur.push(Node::Number(serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)));
        } else {
            return Err(format!("cannot parse number {value}"));
        }
        Ok(())
    }

    fn parse_quote(&mut self, cur: &mut Vec<Node>, end: char) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some('\\') => match self.next() {
                    None | Some('\n') => break,
                    Some(_) => {}
                },
                Some(c) if c == end => break,
                Some(_) => {}
            }
        }
        let value = self.consume();
        let s = unquote_extend(&value).ok_or_else(|| format!("unquote string {value} error invalid syntax"))?;
        cur.push(Node::Text(s));
        Ok(())
    }

    fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated array".into()),
                Some(']') => break,
                Some(_) => {}
            }
        }
        let text = self.consume();
        let inner: String = text.chars().skip(1).take(text.chars().count().saturating_sub(2)).collect();
        let inner = if inner == "*" { ":".to_string() } else { inner };
        let parts: Vec<&str> = inner.split(',').collect();
        if parts.len() > 1 {
            let mut union = Vec::new();
            for p in parts {
                let mut sub = Parser::new(&format!("[{}]}}", p.trim_matches(' ')));
                let mut list = Vec::new();
                sub.parse_inside_action(&mut list)?;
                union.push(list);
            }
            cur.push(Node::Union(union));
            return Ok(());
        }
        if inner.len() >= 2
            && inner.starts_with('\'')
            && inner.ends_with('\'')
            && !inner[1..inner.len() - 1].contains('\'')
        {
            let mut sub = Parser::new(&format!(".{}}}", &inner[1..inner.len() - 1]));
            sub.parse_inside_action(cur)?;
            return Ok(());
        }
        cur.push(Node::Array(parse_slice(&inner)?));
        Ok(())
    }

    fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), String> {
        self.pos += 3;
        self.consume();
        let (mut begin, mut end) = (false, false);
        let mut pair = '"';
        loop {
            let r = self.next();
            match r {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                        continue;
                    }
                    if self.input.get(self.pos.wrapping_sub(2)) != Some(&'\\') && q == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                _ => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let text = self.consume();
        let text: String = text.chars().take(text.chars().count() - 2).collect();
        // `^([^!<>=]+)([!<>=]+)(.+?)$`
        let op_at = text.find(['!', '<', '>', '=']);
        let split = op_at.filter(|&i| i > 0).and_then(|i| {
            let op_len = text[i..].chars().take_while(|c| matches!(c, '!' | '<' | '>' | '=')).count();
            let right = &text[i + op_len..];
            (!right.is_empty()).then(|| (&text[..i], &text[i..i + op_len], right))
        });
        let parse_action = |s: &str| -> Result<Vec<Node>, String> {
            let mut p = Parser::new(&format!("{s}}}"));
            let mut list = Vec::new();
            p.parse_inside_action(&mut list)?;
            Ok(list)
        };
        match split {
            None => cur.push(Node::Filter { left: parse_action(&text)?, right: Vec::new(), op: "exists".into() }),
            Some((l, op, r)) => {
                cur.push(Node::Filter { left: parse_action(l)?, right: parse_action(r)?, op: op.to_string() })
            }
        }
        Ok(())
    }
}

/// `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`, then client-go's defaulting of the three parameters.
fn parse_slice(text: &str) -> Result<[Param; 3], String> {
    let invalid = || format!("invalid array index {text}");
    let pieces: Vec<&str> = text.split(':').collect();
    if pieces.len() > 3 {
        return Err(invalid());
    }
    for p in &pieces {
        let digits = p.strip_prefix('-').unwrap_or(p);
        if !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(invalid());
        }
    }
    let mut params = [Param::default(); 3];
    for i in 0..3 {
        match pieces.get(i) {
            Some(v) if !(v.is_empty() && i == 0) => {
                if v.is_empty() {
                    params[i].known = false;
                } else {
                    params[i].known = true;
                    params[i].value = v.parse().map_err(|_| format!("array index {v} is not a number"))?;
                }
            }
            _ => {
                if i == 1 {
                    params[1] = Param { value: params[0].value + 1, known: true, derived: true };
                }
            }
        }
    }
    Ok(params)
}

/// `UnquoteExtend`: Go's `strconv.Unquote`, also accepting single-quoted strings of any length.
fn unquote_extend(s: &str) -> Option<String> {
    let q = s.chars().next()?;
    if s.chars().count() < 2 || !s.ends_with(q) || !(q == '"' || q == '\'') {
        return None;
    }
    let inner = &s[1..s.len() - 1];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

/// One item of the structured template: text, an action, or a `range` block.
enum Item<'a> {
    Print(&'a [Node]),
    Range(&'a [Node], Vec<Item<'a>>),
}

fn structure(nodes: &[Node]) -> Result<Vec<Item<'_>>, String> {
    fn block<'a>(nodes: &'a [Node], i: &mut usize, depth: usize) -> Result<Vec<Item<'a>>, String> {
        let mut items = Vec::new();
        while *i < nodes.len() {
            let node = &nodes[*i];
            *i += 1;
            match node {
                Node::List(list) => match list.first() {
                    Some(Node::Identifier(w)) if w == "end" => {
                        if depth == 0 {
                            return Err("not in range, nothing to end".into());
                        }
                        return Ok(items);
                    }
                    Some(Node::Identifier(w)) if w == "range" => {
                        // Far deeper than any real template; keeps the recursion bounded.
                        if depth >= 64 {
                            return Err("too many nested ranges".into());
                        }
                        let body = block(nodes, i, depth + 1)?;
                        items.push(Item::Range(&list[1..], body));
                    }
                    _ => items.push(Item::Print(list)),
                },
                other => items.push(Item::Print(std::slice::from_ref(other))),
            }
        }
        Ok(items)
    }
    block(nodes, &mut 0, 0)
}

impl JsonPath {
    /// Parses a template. The error is client-go's parser error (`unclosed action`, ...).
    pub fn parse(template: &str) -> Result<JsonPath, String> {
        let nodes = Parser::new(template).parse_template()?;
        structure(&nodes)?;
        Ok(JsonPath { raw: template.to_string(), nodes })
    }

    /// The template as given.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// Runs the template over `data` and returns the printed text (`Execute` + `PrintResults`).
    pub fn execute(&self, data: &Value) -> Result<String, String> {
        let items = structure(&self.nodes)?;
        let mut out = String::new();
        run(&items, data, &mut out)?;
        Ok(out)
    }

    /// Every value the template yields, in order (`FindResults` flattened): what custom columns
    /// and `-o jsonpath-as-json` print.
    pub fn find(&self, data: &Value) -> Result<Vec<Value>, String> {
        let items = structure(&self.nodes)?;
        let mut out = Vec::new();
        collect(&items, data, &mut out)?;
        Ok(out)
    }

    /// kubectl's `-o jsonpath` printing: the text, or kubectl's error with the debugging dump.
    pub fn print(&self, data: &Value) -> Result<String, String> {
        self.execute(data).map_err(|e| {
            format!(
                "error executing jsonpath {}: Error executing template: {e}. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{}\n\tobject given to jsonpath engine was:\n\t\t{}\n\n",
                go_quote(&self.raw),
                self.raw,
                gojson::go_sharp_v(data)
            )
        })
    }
}

/// Go's `%q` of a string (enough for templates: escapes quotes, backslashes and controls).
fn go_quote(s: &str) -> String {
    let mut out = String::new();
    gojson::string(&mut out, s);
    out.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")
}

fn run(items: &[Item<'_>], data: &Value, out: &mut String) -> Result<(), String> {
    for item in items {
        match item {
            Item::Print(nodes) => {
                let results = eval_list(vec![data.clone()], nodes)?;
                print_results(&results, out);
            }
            Item::Range(path, body) => {
                for v in eval_list(vec![data.clone()], path)? {
                    run(body, &v, out)?;
                }
            }
        }
    }
    Ok(())
}

fn collect(items: &[Item<'_>], data: &Value, out: &mut Vec<Value>) -> Result<(), String> {
    for item in items {
        match item {
            Item::Print(nodes) => out.extend(eval_list(vec![data.clone()], nodes)?),
            Item::Range(path, body) => {
                for v in eval_list(vec![data.clone()], path)? {
                    collect(body, &v, out)?;
                }
            }
        }
    }
    Ok(())
}

fn print_results(results: &[Value], out: &mut String) {
    for (i, r) in results.iter().enumerate() {
        match r {
            Value::Object(_) | Value::Array(_) => out.push_str(&gojson::compact(r)),
            other => out.push_str(&gojson::scalar_text(other)),
        }
        if i + 1 != results.len() {
            out.push(' ');
        }
    }
}

/// The most values one step of a template may hold. client-go has no limit; here a template
/// typed in the page (`{........}`, long unions) must not be able to exhaust the browser's memory:
/// each `..` multiplies the values by the data's depth, so a few dozen of them did.
const MAX_VALUES: usize = 100_000;

fn too_many() -> String {
    format!("the template yields more than {MAX_VALUES} values")
}

fn eval_list(input: Vec<Value>, nodes: &[Node]) -> Result<Vec<Value>, String> {
    let mut cur = input;
    for node in nodes {
        cur = walk(cur, node)?;
        if cur.len() > MAX_VALUES {
            return Err(too_many());
        }
    }
    Ok(cur)
}

fn walk(input: Vec<Value>, node: &Node) -> Result<Vec<Value>, String> {
    match node {
        Node::Text(s) => Ok(vec![Value::String(s.clone())]),
        Node::Number(n) => Ok(vec![n.clone()]),
        Node::Bool(b) => Ok(vec![Value::Bool(*b)]),
        Node::List(list) => eval_list(input, list),
        Node::Field(name) => Ok(input
            .into_iter()
            .filter_map(|v| if name.is_empty() { Some(v) } else { v.get(name.as_str()).cloned() })
            .collect()),
        Node::Wildcard => Ok(input
            .into_iter()
            .flat_map(|v| match v {
                Value::Object(m) => m.into_iter().map(|(_, x)| x).collect(),
                Value::Array(a) => a,
                _ => Vec::new(),
            })
            .collect()),
        Node::Recursive => {
            let mut out = Vec::new();
            recursive(&input, &mut out)?;
            Ok(out)
        }
        Node::Array(params) => eval_array(input, *params),
        Node::Union(lists) => {
            let mut out = Vec::new();
            for l in lists {
                out.extend(eval_list(input.clone(), l)?);
                if out.len() > MAX_VALUES {
                    return Err(too_many());
                }
            }
            Ok(out)
        }
        Node::Filter { left, right, op } => eval_filter(input, left, right, op),
        Node::Identifier(name) => Err(format!("unrecognized identifier {name}")),
    }
}

fn recursive(input: &[Value], out: &mut Vec<Value>) -> Result<(), String> {
    for v in input {
        if out.len() > MAX_VALUES {
            return Err(too_many());
        }
        let children: Vec<Value> = match v {
            Value::Object(m) => m.values().cloned().collect(),
            Value::Array(a) => a.clone(),
            _ => Vec::new(),
        };
        if !children.is_empty() {
            out.push(v.clone());
            recursive(&children, out)?;
        }
    }
    Ok(())
}

fn eval_array(input: Vec<Value>, node: [Param; 3]) -> Result<Vec<Value>, String> {
    let mut result = Vec::new();
    for value in input {
        if value.is_null() {
            continue;
        }
        let Value::Array(a) = &value else {
            return Err(format!("{} is not array or slice", gojson::go_type(&value)));
        };
        let len = a.len() as i64;
        let mut p = node;
        if !p[0].known {
            p[0].value = 0;
        }
        if p[0].value < 0 {
            p[0].value += len;
        }
        if !p[1].known {
            p[1].value = len;
        }
        if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
            p[1].value += len;
        }
        if p[1].value == p[0].value {
            return Ok(result);
        }
        if p[0].value >= len || p[0].value < 0 {
            return Err(format!("array index out of bounds: index {}, length {len}", p[0].value));
        }
        if p[1].value > len || p[1].value < 0 {
            return Err(format!("array index out of bounds: index {}, length {len}", p[1].value - 1));
        }
        if p[0].value > p[1].value {
            return Err(format!("starting index {} is greater than ending index {}", p[0].value, p[1].value));
        }
        let step = if p[2].known {
            if p[2].value <= 0 {
                return Err("step must be > 0".into());
            }
            p[2].value as usize
        } else {
            1
        };
        result.extend(a[p[0].value as usize..p[1].value as usize].iter().step_by(step).cloned());
    }
    Ok(result)
}

fn eval_filter(input: Vec<Value>, left: &[Node], right: &[Node], op: &str) -> Result<Vec<Value>, String> {
    let mut results = Vec::new();
    for value in input {
        let Value::Array(items) = &value else {
            return Err(format!("{} is not array or slice and cannot be filtered", gojson::go_v(&value)));
        };
        for item in items {
            let lefts = eval_list(vec![item.clone()], left);
            if op == "exists" {
                if lefts.is_ok_and(|l| !l.is_empty()) {
                    results.push(item.clone());
                }
                continue;
            }
            let lefts = lefts?;
            let l = match lefts.len() {
                0 => continue,
                1 => &lefts[0],
                _ => return Err("can only compare one element at a time".into()),
            };
            let rights = eval_list(vec![item.clone()], right)?;
            let r = match rights.len() {
                0 => continue,
                1 => &rights[0],
                _ => return Err("can only compare one element at a time".into()),
            };
            if compare(l, r, op)? {
                results.push(item.clone());
            }
        }
    }
    Ok(results)
}

/// text/template's comparison functions: same basic kind only (numbers compare as numbers).
fn compare(l: &Value, r: &Value, op: &str) -> Result<bool, String> {
    use std::cmp::Ordering;
    let ord: Option<Ordering> = match (l, r) {
        (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
        (Value::Number(a), Value::Number(b)) => a.as_f64().zip(b.as_f64()).and_then(|(a, b)| a.partial_cmp(&b)),
        (Value::Bool(a), Value::Bool(b)) => {
            if !matches!(op, "==" | "!=") {
                return Err("invalid type for comparison".into());
            }
            Some(a.cmp(b))
        }
        _ => {
            if matches!(op, "==" | "!=" | "<" | ">" | "<=" | ">=") {
                return Err("incompatible types for comparison".into());
            }
            None
        }
    };
    let Some(ord) = ord else { return Ok(false) };
    match op {
        "==" => Ok(ord == Ordering::Equal),
        "!=" => Ok(ord != Ordering::Equal),
        "<" => Ok(ord == Ordering::Less),
        ">" => Ok(ord == Ordering::Greater),
        "<=" => Ok(ord != Ordering::Greater),
        ">=" => Ok(ord != Ordering::Less),
        other => Err(format!("unrecognized filter operator {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pods() -> Value {
        json!({"apiVersion": "v1", "kind": "List", "items": [
            {"kind": "Pod", "metadata": {"name": "a", "labels": {"app": "web"}, "annotations": {"kubectl.kubernetes.io/x": "y"}},
             "spec": {"containers": [{"name": "c", "image": "nginx:1"}], "replicas": 3}},
            {"kind": "Pod", "metadata": {"name": "b", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "d", "image": "nginx:2"}], "replicas": 5}}
        ]})
    }

    fn run(t: &str) -> String {
        match JsonPath::parse(t) {
            Ok(p) => p.execute(&pods()).unwrap_or_else(|e| format!("ERR {e}")),
            Err(e) => format!("PARSE {e}"),
        }
    }

    #[test]
    fn tv44() {
        assert_eq!(run("{.items[*].metadata.name}"), "a b");
        assert_eq!(run("{.items[0].kind}"), "Pod");
        assert_eq!(run(r#"{range .items[*]}{.metadata.name}{"\n"}{end}"#), "a\nb\n");
        assert_eq!(run("{.items[0].metadata.labels}"), r#"{"app":"web"}"#);
        assert_eq!(run(r#"{.items[?(@.metadata.name=="b")].metadata.name}"#), "b");
        assert_eq!(run("{.items[0].nope}"), "");
        assert_eq!(run("{.items[5]}"), "ERR array index out of bounds: index 5, length 2");
    }

    #[test]
    fn indexes_slices_unions() {
        assert_eq!(run("{.items[-1].metadata.name}"), "b");
        assert_eq!(run("{.items[0:1].metadata.name}"), "a");
        assert_eq!(run("{.items[::2].metadata.name}"), "a");
        assert_eq!(run("{.items[1:].metadata.name}"), "b");
        assert_eq!(run("{.items[0,1].metadata.name}"), "a b");
        assert_eq!(run("{.items[*]['kind']}"), "Pod Pod");
        assert_eq!(run("{$.items[0].metadata.name}"), "a");
        assert_eq!(run("{.items[-3]}"), "ERR array index out of bounds: index -1, length 2");
        assert_eq!(run("{.items[0:0]}"), "");
        assert_eq!(run("{.items[x]}"), "PARSE invalid array index x");
        assert_eq!(run("{.kind[0]}"), "ERR string is not array or slice");
    }

    #[test]
    fn recursive_filters_and_literals() {
        assert_eq!(run("{..image}"), "nginx:1 nginx:2");
        assert_eq!(run("{.items[?(@.spec.replicas>4)].metadata.name}"), "b");
        assert_eq!(run("{.items[?(@.spec.replicas<=3)].metadata.name}"), "a");
        assert_eq!(run("{.items[?(@.spec.replicas!=3)].metadata.name}"), "b");
        assert_eq!(run("{.items[?(@.metadata.annotations)].metadata.name}"), "a");
        assert_eq!(run(r#"{.items[?(@.spec.replicas=="3")]}"#), "ERR incompatible types for comparison");
        assert_eq!(run(r"{.items[0].metadata.annotations.kubectl\.kubernetes\.io/x}"), "y");
        assert_eq!(run(r#"x{'a\tb'}y {.kind}"#), "xa\tby List");
        assert_eq!(run("{.items[0].spec.replicas} {true}"), "3 true");
        assert_eq!(run("{range .items[*]}[{range .spec.containers[*]}{.name}{end}]{end}"), "[c][d]");
    }

    #[test]
    fn parse_errors_word_like_client_go() {
        assert_eq!(run("{.items[*].metadata.name"), "PARSE unclosed action");
        assert_eq!(run("{.items[0}"), "PARSE unterminated array");
        assert_eq!(run("{\"abc}"), "PARSE unterminated quoted string");
        assert_eq!(run("{.a}{end}"), "PARSE not in range, nothing to end");
        assert_eq!(run("{.items[?(@.x==\"y\"}"), "PARSE unterminated filter");
        assert_eq!(run("{#}"), "PARSE unrecognized character in action: U+0023 '#'");
        assert_eq!(run("{foo}"), "ERR unrecognized identifier foo");
    }

    #[test]
    fn kubectl_error_text() {
        let p = JsonPath::parse("{.items[5]}").unwrap();
        let e = p.print(&json!({"items": [1]})).unwrap_err();
        assert!(e.starts_with("error executing jsonpath \"{.items[5]}\": Error executing template: array index out of bounds: index 5, length 1. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.items[5]}\n\tobject given to jsonpath engine was:\n\t\tmap[string]interface {}{\"items\":[]interface {}{1}}\n\n"), "{e}");
    }

    proptest::proptest! {
        /// Any template either parses or is refused with a message; executing never panics.
        #[test]
        fn never_panics(t in "[{}\\[\\]().@$?*:,'\"=!<>a-z0-9 -]{0,24}") {
            if let Ok(p) = JsonPath::parse(&t) {
                let _ = p.execute(&pods());
                let _ = p.find(&pods());
            }
        }
    }
}
