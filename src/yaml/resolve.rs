//! Plain-scalar typing, as go-yaml v2's `resolve.go` does it (read there; sigs.k8s.io/yaml uses
//! go-yaml v2 for both directions, so kubectl inherits all of this):
//! - YAML 1.1 booleans survive: `y Y yes Yes YES true True TRUE on On ON` and the `n/no/false/off`
//!   family; nulls are `""`, `~`, `null`, `Null`, `NULL`; `.inf`, `-.inf`, `.nan` in three casings.
//! - The first character picks the path: a sign or digit tries, in order, a timestamp
//!   (`2006-1-2`, `2006-1-2T15:4:5.999999999Z07:00`, lower-case `t`, or a space and no zone, as Go's
//!   `time.Parse` reads those layouts), then Go's `ParseInt(s, 0, 64)` with `_` removed (so `012` is
//!   octal 10, `0x1F`, `0o17`, `0b101` work), then `ParseUint`, then a float matching
//!   `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (so `08` is the float 8 and `1e400`,
//!   out of range, stays a string); `.` tries a float; anything else is a string.
//! - A timestamp decoded into an untyped value stays the original string (go-yaml's "backward
//!   compatibility" rule), but the emitter still quotes such strings: `"2024-01-01"`.

/// What a plain scalar resolves to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    /// A timestamp: decoded as the string it is, but not plain-safe on output.
    Timestamp,
    Str,
}

pub(crate) fn resolve(s: &str) -> Resolved {
    resolve_as(s, true)
}

/// `resolve`, with timestamps tried or not: go-yaml tries them only for untagged scalars and
/// `!!timestamp` (so `!!int 2024-01-01` fails as a `!!str`).
pub(crate) fn resolve_as(s: &str, timestamps: bool) -> Resolved {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let first = s.as_bytes()[0];
    match first {
        b'.' => {
            if is_yaml_float(s) {
                if let Some(f) = parse_float(s) {
                    return Resolved::Float(f);
                }
            }
            Resolved::Str
        }
        b'+' | b'-' | b'0'..=b'9' => {
            if timestamps && is_timestamp(s) {
                return Resolved::Timestamp;
            }
            let plain: String = s.chars().filter(|&c| c != '_').collect();
            if let Some(r) = parse_go_int(&plain) {
                return r;
            }
            if is_yaml_float(&plain) {
                if let Some(f) = parse_float(&plain) {
                    return Resolved::Float(f);
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` then `ParseUint(s, 0, 64)` (underscores already removed).
fn parse_go_int(s: &str) -> Option<Resolved> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        if magnitude <= i64::MAX as u64 + 1 {
            return Some(Resolved::Int((magnitude as i128).wrapping_neg() as i64));
        }
        return None;
    }
    if magnitude <= i64::MAX as u64 {
        Some(Resolved::Int(magnitude as i64))
    } else if s.starts_with('+') {
        // ParseUint takes no sign.
        None
    } else {
        Some(Resolved::Uint(magnitude))
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// go-yaml's `parseTimestamp`: the four layouts it tries, read the way Go's `time.Parse` reads
/// them (1- or 2-digit month, day, hour, minute, second; optional fraction; ranges checked).
pub(crate) fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: u32 = s[..4].parse().unwrap_or(0);
    let mut i = 5;
    // Go's getnum: one digit, or two when the second is a digit too.
    let num = |i: &mut usize| -> Option<u32> {
        let d0 = *b.get(*i).filter(|c| c.is_ascii_digit())?;
        *i += 1;
        let mut n = u32::from(d0 - b'0');
        if let Some(d1) = b.get(*i).filter(|c| c.is_ascii_digit()) {
            n = n * 10 + u32::from(d1 - b'0');
            *i += 1;
        }
        Some(n)
    };
    let lit = |i: &mut usize, c: u8| -> Option<()> { (b.get(*i) == Some(&c)).then(|| *i += 1) };
    let mut check = || -> Option<()> {
        let month = num(&mut i)?;
        if !(1..=12).contains(&month) {
            return None;
        }
        lit(&mut i, b'-')?;
        let day = num(&mut i)?;
        let leap = (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400);
        let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month as usize - 1];
        if day < 1 || day > days {
            return None;
        }
        if i == b.len() {
            return Some(());
        }
        let sep = b[i];
        if !matches!(sep, b'T' | b't' | b' ') {
            return None;
        }
        i += 1;
        let hour = num(&mut i)?;
        lit(&mut i, b':')?;
        let minute = num(&mut i)?;
        lit(&mut i, b':')?;
        let second = num(&mut i)?;
        if hour >= 24 || minute >= 60 || second >= 60 {
            return None;
        }
        if i + 1 < b.len() && (b[i] == b'.' || b[i] == b',') && b[i + 1].is_ascii_digit() {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if sep == b' ' {
            return (i == b.len()).then_some(());
        }
        if b.get(i) == Some(&b'Z') {
            return (i + 1 == b.len()).then_some(());
        }
        // ±hh:mm
        let z = &b[i..];
        if z.len() != 6 || !(z[0] == b'+' || z[0] == b'-') || z[3] != b':' {
            return None;
        }
        let two =
            |x: &[u8]| x.iter().all(u8::is_ascii_digit).then(|| u32::from(x[0] - b'0') * 10 + u32::from(x[1] - b'0'));
        let (hh, mm) = (two(&z[1..3])?, two(&z[4..6])?);
        (hh <= 24 && mm <= 60).then_some(())
    };
    check().is_some()
}

/// go-yaml's `isBase60Float` (`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`): the encoder
/// quotes such strings (`"1:20"`) although the decoder no longer reads them as numbers.
pub(crate) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i >= b.len() || !b[i].is_ascii_digit() {
        return false;
    }
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while i < b.len() && b[i] == b':' {
        i += 1;
        // [0-5]?[0-9]: one or two digits, a two-digit group starting with 0-5.
        let d1 = b.get(i).is_some_and(u8::is_ascii_digit);
        let d2 = b.get(i + 1).is_some_and(u8::is_ascii_digit);
        if d1 && d2 && b[i] <= b'5' {
            i += 2;
        } else if d1 {
            i += 1;
        } else {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// Go's `strconv.FormatFloat(f, 'g', -1, bits)` for finite `f`: shortest digits, in `%e` form
/// (`1e+06`, `1.5e-07`, two exponent digits at least) when the decimal exponent is below -4 or at
/// least 6 (Go's rule for shortest precision), plain decimal otherwise.
pub(crate) fn format_go_g(f: f64, single: bool) -> String {
    let (mut digits, mut exp) = shortest_digits(f);
    if single {
        (digits, exp) = shortest_f32_digits(f as f32, &digits, exp);
    }
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if digits.is_empty() {
        out.push('0');
        return out;
    }
    if !(-4..6).contains(&exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
        return out;
    }
    // Decimal form: place the point `exp + 1` digits in.
    let point = exp + 1;
    if point <= 0 {
        out.push_str("0.");
        for _ in 0..-point {
            out.push('0');
        }
        out.push_str(&digits);
    } else if point as usize >= digits.len() {
        out.push_str(&digits);
        for _ in 0..(point as usize - digits.len()) {
            out.push('0');
        }
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

/// 2^63 and 2^64 as floats: the int64 and uint64 bounds Go's number parsing checks against.
pub(crate) const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
pub(crate) const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// A float matching go-yaml's float pattern, parsed as Go's `ParseFloat` would: correctly
/// rounded, and out of range is no float (so `1e400` stays a string). serde_json's parser gives
/// the first guess (the page then carries one float parser, not two); its fast path may be one
/// unit in the last place off, so the guess is checked against the exact decimal value and
/// moved to the nearest float (ties to even).
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    let s = s.strip_prefix('+').unwrap_or(s);
    let (neg, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, ""),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let int = int.trim_start_matches('0');
    let mut json = String::with_capacity(s.len() + 3);
    json.push_str(if int.is_empty() { "0" } else { int });
    if !frac.is_empty() {
        json.push('.');
        json.push_str(frac);
    }
    if !exponent.is_empty() {
        json.push('e');
        json.push_str(exponent);
    }
    let guess = serde_json::from_str::<f64>(&json).ok().filter(|f| f.is_finite())?;
    let digits: Vec<u8> = format!("{int}{frac}").bytes().map(|b| b - b'0').skip_while(|&d| d == 0).collect();
    let e10 = exponent.parse::<i64>().ok().unwrap_or(0).clamp(-100_000, 100_000) - frac.len() as i64;
    let exact = if digits.is_empty() || digits.len() > 800 { guess } else { nearest(guess, &digits, e10) };
    exact.is_finite().then_some(if neg { -exact } else { exact })
}

/// Moves `guess` (positive) to the float nearest `digits × 10^e10`.
fn nearest(mut guess: f64, digits: &[u8], e10: i64) -> f64 {
    for _ in 0..4 {
        let up = f64::from_bits(guess.to_bits() + 1);
        match cmp_to_midpoint(digits, e10, guess, up) {
            std::cmp::Ordering::Greater => {
                guess = up;
                continue;
            }
            std::cmp::Ordering::Equal if guess.to_bits() & 1 == 1 => return up,
            _ => {}
        }
        if guess == 0.0 {
            return guess;
        }
        let down = f64::from_bits(guess.to_bits() - 1);
        match cmp_to_midpoint(digits, e10, down, guess) {
            std::cmp::Ordering::Less => guess = down,
            std::cmp::Ordering::Equal if guess.to_bits() & 1 == 1 => return down,
            _ => return guess,
        }
    }
    guess
}

/// Compares `digits × 10^e10` with the midpoint of two adjacent positive floats, exactly.
fn cmp_to_midpoint(digits: &[u8], e10: i64, a: f64, b: f64) -> std::cmp::Ordering {
    let parts = |f: f64| {
        let bits = f.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1 << 52) - 1);
        if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp - 1075)
        }
    };
    let ((ma, ka), (mb, kb)) = (parts(a), parts(b));
    let k = ka.min(kb);
    // midpoint = (ma·2^(ka-k) + mb·2^(kb-k)) · 2^(k-1)
    let mut mid = Big::from(ma);
    mid.shl((ka - k) as usize);
    let mut other = Big::from(mb);
    other.shl((kb - k) as usize);
    mid.add(&other);
    let q = k - 1;
    let mut lhs = Big::from(0);
    for &d in digits {
        lhs.mul_add(10, u32::from(d));
    }
    if e10 >= 0 {
        lhs.mul_pow10(e10 as usize);
    } else {
        mid.mul_pow10((-e10) as usize);
    }
    if q >= 0 {
        mid.shl(q as usize);
    } else {
        lhs.shl((-q) as usize);
    }
    lhs.cmp(&mid)
}

/// A little unsigned big integer (base 2^32, least significant limb first, no trailing zeros).
struct Big(Vec<u32>);

impl Big {
    fn from(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }
    fn mul_pow10(&mut self, mut n: usize) {
        while n > 0 {
            let step = n.min(9);
            self.mul_add(10u32.pow(step as u32), 0);
            n -= step;
        }
    }
    fn shl(&mut self, bits: usize) {
        if self.0.is_empty() {
            return;
        }
        let (limbs, rest) = (bits / 32, bits % 32);
        if rest > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = (*limb << rest) | carry;
                carry = *limb >> (32 - rest);
                *limb = v;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }
    fn add(&mut self, other: &Big) {
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            if i == self.0.len() {
                self.0.push(0);
            }
            let v = u64::from(self.0[i]) + u64::from(other.0.get(i).copied().unwrap_or(0)) + carry;
            self.0[i] = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }
    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

/// The shortest decimal digits that read back as `f` (no leading or trailing zeros; empty for
/// zero) and the decimal exponent of the first digit, taken from serde_json's own float printer.
fn shortest_digits(f: f64) -> (String, i32) {
    let text = serde_json::Number::from_f64(f.abs()).map(|n| n.to_string()).unwrap_or_default();
    let (mantissa, e) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().unwrap_or(0)),
        None => (text.as_str(), 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int}{frac}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_string();
    let exp = int.len() as i32 - 1 - lead as i32 + e;
    (digits, exp)
}

/// Go's `FormatFloat(f, 'g', -1, 32)` digits: the fewest significant digits that still read back
/// as the same float32.
fn shortest_f32_digits(target: f32, digits: &str, exp: i32) -> (String, i32) {
    for precision in 1..=digits.len().min(9) {
        let (rounded, e) = round_digits(digits, exp, precision);
        let text = format!("0.{rounded}e{}", e + 1);
        if serde_json::from_str::<f64>(&text).is_ok_and(|v| v as f32 == target) {
            return (rounded.trim_end_matches('0').to_string(), e);
        }
    }
    (digits.to_string(), exp)
}

/// Rounds a digit string (half up) to `precision` digits, carrying into the exponent.
fn round_digits(digits: &str, exp: i32, precision: usize) -> (String, i32) {
    let mut d: Vec<u8> = digits.bytes().take(precision).collect();
    if digits.as_bytes().get(precision).is_some_and(|&c| c >= b'5') {
        let mut i = d.len();
        loop {
            if i == 0 {
                d.insert(0, b'1');
                d.truncate(precision);
                return (String::from_utf8_lossy(&d).into_owned(), exp + 1);
            }
            i -= 1;
            if d[i] == b'9' {
                d[i] = b'0';
            } else {
                d[i] += 1;
                break;
            }
        }
    }
    (String::from_utf8_lossy(&d).into_owned(), exp)
}
