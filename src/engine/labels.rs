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
        let value = labels.and_then(|l| l.get(&self.key)).map(|v| v.as_str().unwrap_or(""));
        match self.operator {
            Operator::Equals | Operator::DoubleEquals | Operator::In => {
                value.is_some_and(|v| self.values.iter().any(|x| x == v))
            }
            Operator::NotEquals | Operator::NotIn => value.is_none_or(|v| !self.values.iter().any(|x| x == v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
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
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Selector { requirements, nothing: false }
    }

    /// Parses kubectl's selector syntax (`labels.Parse`). Errors carry apimachinery's wording.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let mut p = Parser { tokens: lex(text)?, pos: 0 };
        let mut requirements = Vec::new();
        loop {
            match p.peek() {
                Token::End => break,
                Token::Ident(_) | Token::Bang => {}
                other => {
                    return Err(format!("found '{}', expected: !, identifier, or 'end of string'", other.literal()))
                }
            }
            requirements.push(p.requirement()?);
            match p.next() {
                Token::End => break,
                Token::Comma => {
                    if matches!(p.peek(), Token::End) {
                        return Err("found '', expected: identifier after ','".to_string());
                    }
                }
                other => return Err(format!("found '{}', expected: ',' or 'end of string'", other.literal())),
            }
        }
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
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
                validate_key(k)?;
                validate_value(v)?;
                requirements.push(Requirement { key: k.clone(), operator: Operator::Equals, values: vec![v.into()] });
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
                values.sort();
                values.dedup();
                requirements.push(new_requirement(key, operator, values)?);
            }
        }
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
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

/// `labels.NewRequirement`: checks the key, the values and their count for the operator.
fn new_requirement(key: &str, operator: Operator, values: Vec<String>) -> Result<Requirement, String> {
    validate_key(key)?;
    match operator {
        Operator::In | Operator::NotIn if values.is_empty() => {
            return Err("for 'in', 'notin' operators, values set can't be empty".to_string())
        }
        Operator::Equals | Operator::DoubleEquals | Operator::NotEquals if values.len() != 1 => {
            return Err("exact-match compatibility requires one single value".to_string())
        }
        Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
            return Err("values set must be empty for exists and does not exist".to_string())
        }
        _ => {}
    }
    for v in &values {
        validate_value(v)?;
    }
    Ok(Requirement { key: key.to_string(), operator, values })
}

fn validate_key(key: &str) -> Result<(), String> {
    let errs = crate::engine::apiserver::validation::qualified_name_errors(key);
    if let Some(e) = errs.first() {
        return Err(format!("key: Invalid value: {key:?}: {e}"));
    }
    Ok(())
}

fn validate_value(value: &str) -> Result<(), String> {
    let errs = crate::engine::apiserver::validation::label_value_errors(value);
    if let Some(e) = errs.first() {
        return Err(format!("values[0][key]: Invalid value: {value:?}: {e}"));
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Ident(String),
    Bang,
    Eq,
    DoubleEq,
    NotEq,
    In,
    NotIn,
    Open,
    Close,
    Comma,
    Gt,
    Lt,
    End,
}

impl Token {
    fn literal(&self) -> String {
        match self {
            Token::Ident(s) => s.clone(),
            Token::Bang => "!".into(),
            Token::Eq => "=".into(),
            Token::DoubleEq => "==".into(),
            Token::NotEq => "!=".into(),
            Token::In => "in".into(),
            Token::NotIn => "notin".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Comma => ",".into(),
            Token::Gt => ">".into(),
            Token::Lt => "<".into(),
            Token::End => String::new(),
        }
    }
}

/// The selector lexer (`labels.Lexer`): identifiers run until whitespace or a special character.
fn lex(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let special = |c: char| matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if special(c) {
            let two: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let (tok, len) = match two.as_str() {
                "==" => (Token::DoubleEq, 2),
                "!=" => (Token::NotEq, 2),
                _ => match c {
                    '=' => (Token::Eq, 1),
                    '!' => (Token::Bang, 1),
                    '(' => (Token::Open, 1),
                    ')' => (Token::Close, 1),
                    ',' => (Token::Comma, 1),
                    '>' => (Token::Gt, 1),
                    _ => (Token::Lt, 1),
                },
            };
            out.push(tok);
            i += len;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && !special(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        out.push(match word.as_str() {
            "in" => Token::In,
            "notin" => Token::NotIn,
            _ => Token::Ident(word),
        });
    }
    out.push(Token::End);
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Token {
        self.tokens.get(self.pos).cloned().unwrap_or(Token::End)
    }

    fn next(&mut self) -> Token {
        let t = self.peek();
        self.pos += 1;
        t
    }

    fn requirement(&mut self) -> Result<Requirement, String> {
        let (key, negated) = match self.next() {
            Token::Bang => match self.next() {
                Token::Ident(k) => (k, true),
                other => return Err(format!("found '{}', expected: identifier", other.literal())),
            },
            Token::Ident(k) => (k, false),
            other => return Err(format!("found '{}', expected: !, identifier, or 'end of string'", other.literal())),
        };
        if negated {
            return new_requirement(&key, Operator::DoesNotExist, Vec::new());
        }
        if matches!(self.peek(), Token::End | Token::Comma) {
            return new_requirement(&key, Operator::Exists, Vec::new());
        }
        let operator = match self.next() {
            Token::Eq => Operator::Equals,
            Token::DoubleEq => Operator::DoubleEquals,
            Token::NotEq => Operator::NotEquals,
            Token::In => Operator::In,
            Token::NotIn => Operator::NotIn,
            Token::Gt | Token::Lt => return Err("the lab does not support the gt and lt operators".to_string()),
            other => return Err(format!("found '{}', expected: in, notin, =, ==, !=, gt, lt", other.literal())),
        };
        let mut values = match operator {
            Operator::In | Operator::NotIn => self.value_set()?,
            _ => match self.peek() {
                Token::Ident(v) => {
                    self.pos += 1;
                    vec![v]
                }
                // `key=` selects the empty value.
                Token::End | Token::Comma => vec![String::new()],
                other => return Err(format!("found '{}', expected: identifier", other.literal())),
            },
        };
        values.sort();
        values.dedup();
        new_requirement(&key, operator, values)
    }

    fn value_set(&mut self) -> Result<Vec<String>, String> {
        match self.next() {
            Token::Open => {}
            other => return Err(format!("found '{}', expected: '('", other.literal())),
        }
        let mut values = Vec::new();
        loop {
            match self.next() {
                Token::Ident(v) => {
                    values.push(v);
                    match self.next() {
                        Token::Comma => continue,
                        Token::Close => break,
                        other => return Err(format!("found '{}', expected: ',' or ')'", other.literal())),
                    }
                }
                // `in ()` and `in (a,)` hold the empty value, as in labels.parseValues.
                Token::Close => {
                    values.push(String::new());
                    break;
                }
                Token::Comma => values.push(String::new()),
                other => return Err(format!("found '{}', expected: ',', ')' or identifier", other.literal())),
            }
        }
        Ok(values)
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
        assert_eq!(Selector::parse("app=web,").unwrap_err(), "found '', expected: identifier after ','");
        assert_eq!(Selector::parse("app in (a").unwrap_err(), "found '', expected: ',' or ')'");
        assert_eq!(Selector::parse("=x").unwrap_err(), "found '=', expected: !, identifier, or 'end of string'");
        assert!(Selector::parse("bad key!=x").is_err());
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
