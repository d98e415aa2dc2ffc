//! JSON manifests, as kubectl reads them: when a stream starts with `{`, apimachinery's
//! `YAMLOrJSONDecoder` hands it to Go's `json.Decoder`, which reads values one after another.
//! serde_json builds the values; this checker walks the text first with the state machine of Go's
//! `encoding/json` scanner (`scanner.go`), so a broken file gets Go's words and offsets:
//! `json: offset 7: invalid character '}' looking for beginning of value`, or `unexpected EOF`.
//! The offset counts the stream's bytes up to and including the offending one. Values need no
//! separator: the decoder's "after top-level value" complaint is dropped when the next value
//! starts (Go's `stateEndTop` reports it on the next call, which `Decode` never makes).

/// The byte ranges of the stream's values up to its first syntax error, and Go's words for that
/// error with the byte index it points at.
pub(crate) fn split(text: &str) -> (Vec<Span>, Option<GoError>) {
    let mut s = Checker { b: text.as_bytes(), i: 0 };
    let mut spans = Vec::new();
    loop {
        s.space();
        if s.i >= s.b.len() {
            return (spans, None);
        }
        let start = s.i;
        if let Err(e) = s.value() {
            return (spans, Some(e));
        }
        spans.push((start, s.i));
    }
}

struct Checker<'a> {
    b: &'a [u8],
    i: usize,
}

/// A value's byte range in the stream.
pub(crate) type Span = (usize, usize);
/// Go's message and the byte index it points at.
pub(crate) type GoError = (String, usize);

type R = Result<(), GoError>;

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's `quoteChar`: the byte as a one-character Go literal.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".to_string(),
        b'"' => "'\"'".to_string(),
        0x07 => "'\\a'".to_string(),
        0x08 => "'\\b'".to_string(),
        0x0c => "'\\f'".to_string(),
        b'\n' => "'\\n'".to_string(),
        b'\r' => "'\\r'".to_string(),
        b'\t' => "'\\t'".to_string(),
        0x0b => "'\\v'".to_string(),
        b'\\' => "'\\\\'".to_string(),
        0x20..=0x7e => format!("'{}'", c as char),
        0x00..=0x1f | 0x7f => format!("'\\x{c:02x}'"),
        0x80..=0x9f | 0xad => format!("'\\u{:04x}'", c),
        _ => format!("'{}'", char::from(c)),
    }
}

impl Checker<'_> {
    fn invalid(&self, c: u8, context: &str) -> GoError {
        let offset = self.i + 1;
        (format!("json: offset {offset}: invalid character {} {context}", quote_char(c)), self.i)
    }

    fn eof(&self) -> GoError {
        ("unexpected EOF".to_string(), self.i)
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
    }

    /// The next non-space byte, or `unexpected EOF`.
    fn next_token(&mut self) -> Result<u8, GoError> {
        self.space();
        self.peek().ok_or_else(|| self.eof())
    }

    fn value(&mut self) -> R {
        let c = self.next_token()?;
        match c {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal("true"),
            b'f' => self.literal("false"),
            b'n' => self.literal("null"),
            _ => Err(self.invalid(c, "looking for beginning of value")),
        }
    }

    fn object(&mut self) -> R {
        self.i += 1;
        let mut first = true;
        loop {
            let c = self.next_token()?;
            if first && c == b'}' {
                self.i += 1;
                return Ok(());
            }
            if c != b'"' {
                return Err(self.invalid(c, "looking for beginning of object key string"));
            }
            self.string()?;
            let c = self.next_token()?;
            if c != b':' {
                return Err(self.invalid(c, "after object key"));
            }
            self.i += 1;
            self.value()?;
            let c = self.next_token()?;
            self.i += 1;
            match c {
                b',' => first = false,
                b'}' => return Ok(()),
                _ => {
                    self.i -= 1;
                    return Err(self.invalid(c, "after object key:value pair"));
                }
            }
        }
    }

    fn array(&mut self) -> R {
        self.i += 1;
        if self.next_token()? == b']' {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.value()?;
            let c = self.next_token()?;
            self.i += 1;
            match c {
                b',' => {}
                b']' => return Ok(()),
                _ => {
                    self.i -= 1;
                    return Err(self.invalid(c, "after array element"));
                }
            }
        }
    }

    fn string(&mut self) -> R {
        self.i += 1;
        loop {
            let c = self.peek().ok_or_else(|| self.eof())?;
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(());
                }
                b'\\' => {
                    self.i += 1;
                    let e = self.peek().ok_or_else(|| self.eof())?;
                    match e {
                        b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => self.i += 1,
                        b'u' => {
                            self.i += 1;
                            for _ in 0..4 {
                                let h = self.peek().ok_or_else(|| self.eof())?;
                                if !h.is_ascii_hexdigit() {
                                    return Err(self.invalid(h, "in \\u hexadecimal character escape"));
                                }
                                self.i += 1;
                            }
                        }
                        _ => return Err(self.invalid(e, "in string escape code")),
                    }
                }
                0x00..=0x1f => return Err(self.invalid(c, "in string literal")),
                _ => self.i += 1,
            }
        }
    }

    fn number(&mut self) -> R {
        let digits = |s: &mut Checker| {
            while s.peek().is_some_and(|c| c.is_ascii_digit()) {
                s.i += 1;
            }
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
            match self.peek() {
                Some(b'0'..=b'9') => {}
                Some(c) => return Err(self.invalid(c, "in numeric literal")),
                None => return Err(self.eof()),
            }
        }
        if self.peek() == Some(b'0') {
            self.i += 1;
        } else {
            digits(self);
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            match self.peek() {
                Some(b'0'..=b'9') => digits(self),
                Some(c) => return Err(self.invalid(c, "after decimal point in numeric literal")),
                None => return Err(self.eof()),
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            match self.peek() {
                Some(b'0'..=b'9') => digits(self),
                Some(c) => return Err(self.invalid(c, "in exponent of numeric literal")),
                None => return Err(self.eof()),
            }
        }
        Ok(())
    }

    fn literal(&mut self, word: &str) -> R {
        for &want in word.as_bytes() {
            let c = self.peek().ok_or_else(|| self.eof())?;
            if c != want {
                let context = format!("in literal {word} (expecting {})", quote_char(want));
                return Err(self.invalid(c, &context));
            }
            self.i += 1;
        }
        Ok(())
    }
}
