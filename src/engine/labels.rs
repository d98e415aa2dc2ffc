//! Label selectors, as apimachinery's `pkg/labels` parses, prints and matches them.
//!
//! The grammar is the one `kubectl get -l` accepts: comma-separated requirements, each one of
//! `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, `key` (exists) and
//! `!key` (does not exist). Like `labels.Parse`, requirements are kept sorted by key and value sets
//! sorted, so [`Selector`]'s `Display` is the canonical string (`labels.Selector.String()`).
//! `metav1.LabelSelector` objects (`matchLabels` + `matchExpressions`) convert through
//! [`Selector::from_label_selector`], as `metav1.LabelSelectorAsSelector` does.

use std::fmt;

use serde_json::{Map, Value};

use crate::engine::apiserver::validation;
use crate::engine::frozen::Obj;

/// A requirement's operator (`selection.Operator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `key=value`.
    Equals,
    /// `key==value`.
    DoubleEquals,
    /// `key!=value`: also matches objects without the key.
    NotEquals,
    /// `key in (a,b)`.
    In,
    /// `key notin (a,b)`: also matches objects without the key.
    NotIn,
    /// `key`.
    Exists,
    /// `!key`.
    DoesNotExist,
    /// `key>1`: the label's value, as an integer, is greater.
    GreaterThan,
    /// `key<1`: the label's value, as an integer, is smaller.
    LessThan,
}

/// One requirement: a key, an operator and (for all but the existence operators) values.
///
/// Invariant: `values` is sorted and free of duplicates; it holds exactly one value for
/// `Equals`, `DoubleEquals` and `NotEquals`, at least one for `In`/`NotIn`, none otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The label key.
    pub key: String,
    /// The operator.
    pub operator: Operator,
    /// The values, sorted.
    pub values: Vec<String>,
}

impl Requirement {
    /// Whether a label set satisfies this requirement (`Requirement.Matches`).
    pub fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        self.matches_value(labels.and_then(|l| l.get(&self.key)).map(|v| v.as_str().unwrap_or("")))
    }

    /// Whether the label's value (`None`: the label is absent) satisfies this requirement.
    pub fn matches_value(&self, value: Option<&str>) -> bool {
        match self.operator {
            Operator::Equals | Operator::DoubleEquals | Operator::In => {
                value.is_some_and(|v| self.values.iter().any(|x| x == v))
            }
            Operator::NotEquals | Operator::NotIn => value.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let (Some(v), Some(bound)) = (value, self.values.first()) else { return false };
                match (v.parse::<i64>(), bound.parse::<i64>()) {
                    (Ok(v), Ok(b)) => {
                        (self.operator == Operator::GreaterThan && v > b)
                            || (self.operator == Operator::LessThan && v < b)
                    }
                    _ => false,
                }
            }
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let joined = || self.values.join(",");
        match self.operator {
            Operator::Equals => write!(f, "{}={}", self.key, joined()),
            Operator::DoubleEquals => write!(f, "{}=={}", self.key, joined()),
            Operator::NotEquals => write!(f, "{}!={}", self.key, joined()),
            Operator::In => write!(f, "{} in ({})", self.key, joined()),
            Operator::NotIn => write!(f, "{} notin ({})", self.key, joined()),
            Operator::Exists => write!(f, "{}", self.key),
            Operator::DoesNotExist => write!(f, "!{}", self.key),
            Operator::GreaterThan => write!(f, "{}>{}", self.key, joined()),
            Operator::LessThan => write!(f, "{}<{}", self.key, joined()),
        }
    }
}

/// A label selector: the conjunction of its requirements.
///
/// Invariant: `requirements` is sorted by key (stable, so several requirements on one key keep
/// their order), as `labels.Parse` and `LabelSelectorAsSelector` leave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    requirements: Vec<Requirement>,
    /// `labels.Nothing()`: matches no object (a nil `metav1.LabelSelector`).
    nothing: bool,
}

impl Default for Selector {
    fn default() -> Self {
        Selector::everything()
    }
}

impl Selector {
    /// Matches every object (`labels.Everything()`).
    pub fn everything() -> Selector {
        Selector { requirements: Vec::new(), nothing: false }
    }

    /// Matches no object (`labels.Nothing()`).
    pub fn nothing() -> Selector {
        Selector { requirements: Vec::new(), nothing: true }
    }

    /// Whether this selector matches everything.
    pub fn is_everything(&self) -> bool {
        !self.nothing && self.requirements.is_empty()
    }

    /// The requirements, sorted by key.
    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// Whether a label set satisfies every requirement.
    pub fn matches(&self, labels: Option<&Map<String, Value>>) -> bool {
        !self.nothing && self.requirements.iter().all(|r| r.matches(labels))
    }

    /// [`Selector::matches`] for a cached object's labels (`ObjectExt::labels` of a [`Frozen`](crate::engine::frozen::Frozen)).
    pub fn matches_frozen(&self, labels: Option<&Obj>) -> bool {
        let value = |k: &str| labels.and_then(|l| l.get(k)).map(|v| v.as_str().unwrap_or(""));
        !self.nothing && self.requirements.iter().all(|r| r.matches_value(value(&r.key)))
    }

    /// A selector of `key=value` requirements (`labels.SelectorFromSet`).
    pub fn from_set(set: &Map<String, Value>) -> Selector {
        let mut requirements: Vec<Requirement> = set
            .iter()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                operator: Operator::Equals,
                values: vec![v.as_str().unwrap_or("").to_string()],
            })
            .collect();
        crate::sort::sort_by(&mut requirements, |a, b| a.key.cmp(&b.key));
        Selector { requirements, nothing: false }
    }

    /// Parses kubectl's selector syntax (`labels.Parse`). Errors carry apimachinery's wording,
    /// including its quirks (`found '%s' expected: '('` has no colon; the operator list reads
    /// `'=', '!=', '==', 'in', notin'`).
    pub fn parse(text: &str) -> Result<Selector, String> {
        let mut p = Parser { tokens: lex(text), pos: 0 };
        let mut requirements = Vec::new();
        loop {
            let (tok, lit) = p.lookahead(true);
            match tok {
                Tok::Ident | Tok::Bang => {
                    let r = p.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    let (t, l) = p.consume(true);
                    match t {
                        Tok::End => break,
                        Tok::Comma => {
                            let (t2, l2) = p.lookahead(true);
                            if t2 != Tok::Ident && t2 != Tok::Bang {
                                return Err(format!("found '{l2}', expected: identifier after ','"));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Tok::End => break,
                _ => return Err(format!("found '{lit}', expected: !, identifier, or 'end of string'")),
            }
        }
        crate::sort::sort_by(&mut requirements, |a, b| a.key.cmp(&b.key));
        Ok(Selector { requirements, nothing: false })
    }

    /// Converts a `metav1.LabelSelector` (`metav1.LabelSelectorAsSelector`): `null` matches
    /// nothing, `{}` matches everything.
    pub fn from_label_selector(sel: &Value) -> Result<Selector, String> {
        let obj = match sel {
            Value::Null => return Ok(Selector::nothing()),
            Value::Object(o) => o,
            _ => return Err("a label selector must be an object".to_string()),
        };
        let mut requirements = Vec::new();
        if let Some(ml) = obj.get("matchLabels").and_then(Value::as_object) {
            for (k, v) in ml {
                let v = v.as_str().unwrap_or("");
                requirements.push(new_requirement(k, Operator::Equals, vec![v.to_string()])?);
            }
        }
        if let Some(exprs) = obj.get("matchExpressions").and_then(Value::as_array) {
            for e in exprs {
                let key = e.get("key").and_then(Value::as_str).unwrap_or("");
                let op = e.get("operator").and_then(Value::as_str).unwrap_or("");
                let mut values: Vec<String> = e
                    .get("values")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
                let operator = match op {
                    "In" => Operator::In,
                    "NotIn" => Operator::NotIn,
                    "Exists" => Operator::Exists,
                    "DoesNotExist" => Operator::DoesNotExist,
                    _ => return Err(format!("{op:?} is not a valid label selector operator")),
                };
                crate::sort::sort(&mut values);
                values.dedup();
                requirements.push(new_requirement(key, operator, values)?);
            }
        }
        crate::sort::sort_by(&mut requirements, |a, b| a.key.cmp(&b.key));
        Ok(Selector { requirements, nothing: false })
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// `labels.NewRequirement`: checks the key, the number of values for the operator, and each
/// value; all problems are reported together as field errors (`values[0][app]: Invalid value: ...`).
fn new_requirement(key: &str, operator: Operator, values: Vec<String>) -> Result<Requirement, String> {
    let mut errs: Vec<String> = Vec::new();
    if let Some(e) = key_error(key) {
        errs.push(e);
    }
    let quoted = || validation::go_string_slice(&values.iter().map(String::as_str).collect::<Vec<_>>());
    match operator {
        Operator::In | Operator::NotIn if values.is_empty() => errs.push(format!(
            "values: Invalid value: {}: for 'in', 'notin' operators, values set can't be empty",
            quoted()
        )),
        Operator::Equals | Operator::DoubleEquals | Operator::NotEquals if values.len() != 1 => errs
            .push(format!("values: Invalid value: {}: exact-match compatibility requires one single value", quoted())),
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => errs.push(format!(
            "values: Invalid value: {}: values set must be empty for exists and does not exist",
            quoted()
        )),
        Operator::GreaterThan | Operator::LessThan => {
            if values.len() != 1 {
                errs.push(format!(
                    "values: Invalid value: {}: for 'Gt', 'Lt' operators, exactly one value is required",
                    quoted()
                ));
            }
            for (i, v) in values.iter().enumerate() {
                if v.parse::<i64>().is_err() {
                    errs.push(format!(
                        "values[{i}]: Invalid value: {}: for 'Gt', 'Lt' operators, the value must be an integer",
                        validation::go_quote(v)
                    ));
                }
            }
        }
        _ => {}
    }
    for (i, v) in values.iter().enumerate() {
        let e = validation::label_value_errors(v);
        if !e.is_empty() {
            errs.push(format!("values[{i}][{key}]: Invalid value: {}: {}", validation::go_quote(v), e.join("; ")));
        }
    }
    match errs.len() {
        0 => Ok(Requirement { key: key.to_string(), operator, values }),
        1 => Err(errs.remove(0)),
        _ => Err(format!("[{}]", errs.join(", "))),
    }
}

/// `validateLabelKey`: `key: Invalid value: "bad key": <reasons joined by "; ">`.
fn key_error(key: &str) -> Option<String> {
    let errs = validation::qualified_name_errors(key);
    (!errs.is_empty()).then(|| format!("key: Invalid value: {}: {}", validation::go_quote(key), errs.join("; ")))
}

/// The lexer's tokens (`labels.Token`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    End,
    Close,
    Comma,
    Bang,
    DoubleEq,
    Eq,
    Gt,
    Ident,
    In,
    Lt,
    NotEq,
    NotIn,
    Open,
    Error,
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

fn special_token(s: &str) -> Option<Tok> {
    Some(match s {
        ")" => Tok::Close,
        "," => Tok::Comma,
        "!" => Tok::Bang,
        "==" => Tok::DoubleEq,
        "=" => Tok::Eq,
        ">" => Tok::Gt,
        "<" => Tok::Lt,
        "!=" => Tok::NotEq,
        "(" => Tok::Open,
        _ => return None,
    })
}

/// `labels.Lexer`: whitespace separates; runs of special characters form the longest known
/// token; anything else is an identifier (or the keywords `in` and `notin`).
fn lex(text: &str) -> Vec<(Tok, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        while i < chars.len() && matches!(chars[i], ' ' | '\t' | '\r' | '\n') {
            i += 1;
        }
        if i >= chars.len() {
            out.push((Tok::End, String::new()));
            return out;
        }
        if is_special(chars[i]) {
            let mut buf = String::new();
            let mut last: Option<(Tok, String)> = None;
            while i < chars.len() && is_special(chars[i]) {
                buf.push(chars[i]);
                match special_token(&buf) {
                    Some(t) => {
                        last = Some((t, buf.clone()));
                        i += 1;
                    }
                    None if last.is_some() => break,
                    None => i += 1,
                }
            }
            out.push(last.unwrap_or_else(|| (Tok::Error, format!("error expected: keyword found '{buf}'"))));
            continue;
        }
        let start = i;
        while i < chars.len() && !is_special(chars[i]) && !matches!(chars[i], ' ' | '\t' | '\r' | '\n') {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        let tok = match word.as_str() {
            "in" => Tok::In,
            "notin" => Tok::NotIn,
            _ => Tok::Ident,
        };
        out.push((tok, word));
    }
}

struct Parser {
    tokens: Vec<(Tok, String)>,
    pos: usize,
}

impl Parser {
    /// The next token; in a values context `in` and `notin` read as identifiers.
    fn lookahead(&self, values: bool) -> (Tok, String) {
        let (t, l) = self.tokens.get(self.pos).cloned().unwrap_or((Tok::End, String::new()));
        match t {
            Tok::In | Tok::NotIn if values => (Tok::Ident, l),
            _ => (t, l),
        }
    }

    fn consume(&mut self, values: bool) -> (Tok, String) {
        let t = self.lookahead(values);
        self.pos += 1;
        t
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        // parseKeyAndInferOperator
        let mut operator = None;
        let (mut tok, mut key) = self.consume(true);
        if tok == Tok::Bang {
            operator = Some(Operator::DoesNotExist);
            (tok, key) = self.consume(true);
        }
        if tok != Tok::Ident {
            return Err(format!("found '{key}', expected: identifier"));
        }
        if let Some(e) = key_error(&key) {
            return Err(e);
        }
        if matches!(self.lookahead(true).0, Tok::End | Tok::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        if let Some(op) = operator {
            return new_requirement(&key, op, Vec::new());
        }
        // parseOperator
        let (tok, lit) = self.consume(false);
        let operator = match tok {
            Tok::In => Operator::In,
            Tok::Eq => Operator::Equals,
            Tok::DoubleEq => Operator::DoubleEquals,
            Tok::Gt => Operator::GreaterThan,
            Tok::Lt => Operator::LessThan,
            Tok::NotIn => Operator::NotIn,
            Tok::NotEq => Operator::NotEquals,
            _ => return Err(format!("found '{lit}', expected: '=', '!=', '==', 'in', notin'")),
        };
        let mut values = match operator {
            Operator::In | Operator::NotIn => self.values()?,
            _ => self.exact_value()?,
        };
        crate::sort::sort(&mut values);
        values.dedup();
        new_requirement(&key, operator, values)
    }

    /// `parseValues`.
    fn values(&mut self) -> Result<Vec<String>, String> {
        let (tok, lit) = self.consume(true);
        if tok != Tok::Open {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.lookahead(true);
        match tok {
            Tok::Ident | Tok::Comma => {
                let s = self.identifiers()?;
                if self.consume(true).0 != Tok::Close {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(s)
            }
            Tok::Close => {
                self.consume(true);
                Ok(vec![String::new()])
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    /// `parseIdentifiersList`.
    fn identifiers(&mut self) -> Result<Vec<String>, String> {
        let mut s: Vec<String> = Vec::new();
        loop {
            let (tok, lit) = self.consume(true);
            match tok {
                Tok::Ident => {
                    s.push(lit);
                    let (t2, l2) = self.lookahead(true);
                    match t2 {
                        Tok::Comma => continue,
                        Tok::Close => return Ok(s),
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                    }
                }
                Tok::Comma => {
                    if s.is_empty() {
                        s.push(String::new());
                    }
                    let (t2, _) = self.lookahead(true);
                    if t2 == Tok::Close {
                        s.push(String::new());
                        return Ok(s);
                    }
                    if t2 == Tok::Comma {
                        self.consume(true);
                        s.push(String::new());
                    }
                }
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    /// `parseExactValue`.
    fn exact_value(&mut self) -> Result<Vec<String>, String> {
        if matches!(self.lookahead(true).0, Tok::End | Tok::Comma) {
            return Ok(vec![String::new()]);
        }
        let (tok, lit) = self.consume(true);
        if tok == Tok::Ident {
            return Ok(vec![lit]);
        }
        Err(format!("found '{lit}', expected: identifier"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn parses_every_operator_and_prints_canonically() {
        let s = Selector::parse("tier!=db,app=web, env in (b,a),!x,y").unwrap();
        assert_eq!(s.to_string(), "app=web,env in (a,b),tier!=db,!x,y");
        let l = labels(json!({"app": "web", "env": "a", "y": ""}));
        assert!(s.matches(Some(&l)));
        let l2 = labels(json!({"app": "web", "env": "a", "y": "", "x": "1"}));
        assert!(!s.matches(Some(&l2)));
        assert!(!s.matches(None));
        assert!(Selector::parse("").unwrap().is_everything());
        assert_eq!(Selector::parse("a notin (x)").unwrap().to_string(), "a notin (x)");
        assert!(Selector::parse("a notin (x)").unwrap().matches(None));
        assert_eq!(Selector::parse("a==b").unwrap().to_string(), "a==b");
    }

    #[test]
    fn parse_errors_use_apimachinery_wording() {
        let err = |t: &str| Selector::parse(t).unwrap_err();
        assert_eq!(err("app=web,"), "found '', expected: identifier after ','");
        assert_eq!(err("app in (a"), "unable to parse requirement: found '', expected: ',' or ')'");
        assert_eq!(err("app in a"), "unable to parse requirement: found 'a' expected: '('");
        assert_eq!(err("=x"), "found '=', expected: !, identifier, or 'end of string'");
        assert_eq!(err("invalid=label=value"), "found '=', expected: ',' or 'end of string'");
        assert_eq!(err("app=web 1"), "found '1', expected: ',' or 'end of string'");
        assert_eq!(
            err("bad key!=x"),
            "unable to parse requirement: found 'key', expected: '=', '!=', '==', 'in', notin'"
        );
        assert_eq!(err("a=b c"), "found 'c', expected: ',' or 'end of string'");
        assert_eq!(err("a=b!"), "found '!', expected: ',' or 'end of string'");
        assert!(err("k=bad value!").starts_with("found"));
        assert_eq!(
            err("x/y/z"),
            "unable to parse requirement: key: Invalid value: \"x/y/z\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        );
        assert_eq!(
            err("a>x"),
            "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer"
        );
        assert_eq!(
            err("a=-bad-"),
            "unable to parse requirement: values[0][a]: Invalid value: \"-bad-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        );
    }

    #[test]
    fn greater_less_and_empty_values() {
        let s = Selector::parse("gen>2,tier in (,a)").unwrap();
        assert_eq!(s.to_string(), "gen>2,tier in (,a)");
        let l = labels(json!({"gen": "3", "tier": ""}));
        assert!(s.matches(Some(&l)));
        assert!(!s.matches(Some(&labels(json!({"gen": "x", "tier": ""})))));
        assert!(Selector::parse("gen<2").unwrap().matches(Some(&labels(json!({"gen": "1"})))));
        assert_eq!(Selector::parse("a in ()").unwrap().to_string(), "a in ()");
        assert!(Selector::parse("env in (in, notin)").unwrap().matches(Some(&labels(json!({"env": "notin"})))));
    }

    #[test]
    fn label_selector_objects() {
        let s = Selector::from_label_selector(&json!({"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]}))
        .unwrap();
        assert_eq!(s.to_string(), "app=web,tier notin (db)");
        assert!(!Selector::from_label_selector(&Value::Null).unwrap().matches(Some(&Map::new())));
        assert!(Selector::from_label_selector(&json!({})).unwrap().matches(None));
        assert_eq!(
            Selector::from_label_selector(&json!({"matchExpressions": [{"key": "a", "operator": "Has"}]})).unwrap_err(),
            "\"Has\" is not a valid label selector operator"
        );
    }
}
