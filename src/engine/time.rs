//! Virtual time. Nothing in the engine reads the host clock: every instant comes from the
//! world's virtual clock, so the same inputs give the same run.
//!
//! Formats follow apimachinery: `metav1.Time` serializes as RFC 3339 with second precision
//! (`2026-01-01T00:00:00Z`, `pkg/apis/meta/v1/time.go`, `Time.MarshalJSON`); `metav1.MicroTime`
//! (Lease times) with six fractional digits (`2026-01-01T00:00:00.000000Z`, `micro_time.go`,
//! `MicroTime.MarshalJSON`).

use std::fmt;
use std::time::Duration;

/// An instant of virtual time: milliseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Where every new world's clock starts: 2026-01-01T00:00:00Z.
    pub const START: Time = Time(1_767_225_600_000);

    /// Milliseconds since the epoch.
    pub fn millis(self) -> u64 {
        self.0
    }

    /// This instant plus a duration.
    #[must_use]
    pub fn after(self, d: Duration) -> Time {
        Time(self.0.saturating_add(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)))
    }

    /// The duration from `earlier` to `self` (zero if `earlier` is later).
    pub fn since(self, earlier: Time) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }

    /// Signed milliseconds from `earlier` to `self`.
    pub fn millis_since(self, earlier: Time) -> i64 {
        self.0 as i64 - earlier.0 as i64
    }

    /// RFC 3339 with second precision, as `metav1.Time` marshals (`2026-01-01T00:00:00Z`).
    pub fn rfc3339(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        if !(0..=9999).contains(&y) {
            return format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z");
        }
        // Written digit by digit: every object written carries timestamps, and `format!` cost
        // more than the rest of making one.
        let mut out = String::with_capacity(20);
        push_digits(&mut out, y as u64, 4);
        for (sep, v) in [('-', u64::from(mo)), ('-', u64::from(d)), ('T', h), (':', mi), (':', s)] {
            out.push(sep);
            push_digits(&mut out, v, 2);
        }
        out.push('Z');
        out
    }

    /// RFC 3339 with microseconds, as `metav1.MicroTime` marshals (`2026-01-01T00:00:00.000000Z`).
    pub fn rfc3339_micro(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        let micros = (self.0 % 1000) * 1000;
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{micros:06}Z")
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (UTC only, as the engine writes it).
    pub fn parse_rfc3339(s: &str) -> Option<Time> {
        let b = s.as_bytes();
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u64> { s.get(r)?.parse::<u64>().ok() };
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        let rest = &s[19..];
        let (frac, tail) = match rest.strip_prefix('.') {
            Some(f) => {
                let digits = f.bytes().take_while(u8::is_ascii_digit).count();
                if digits == 0 {
                    return None;
                }
                let mut ms = 0u64;
                for (i, c) in f[..digits].bytes().take(3).enumerate() {
                    ms += u64::from(c - b'0') * [100, 10, 1][i];
                }
                (ms, &f[digits..])
            }
            None => (0, rest),
        };
        if tail != "Z" {
            return None;
        }
        let days = days_from_civil(y as i64, mo as u32, d as u32);
        let secs = days.checked_mul(86_400)? + (h * 3600 + mi * 60 + sec) as i64;
        u64::try_from(secs).ok().map(|s| Time(s * 1000 + frac))
    }

    fn civil(self) -> (i64, u32, u32, u64, u64, u64) {
        let secs = self.0 / 1000;
        let days = (secs / 86_400) as i64;
        let rem = secs % 86_400;
        let (y, m, d) = civil_from_days(days);
        (y, m, d, rem / 3600, (rem % 3600) / 60, rem % 60)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rfc3339())
    }
}

/// `n` in decimal, zero-padded to `width` digits (`n` has at most `width` digits).
pub(crate) fn push_digits(out: &mut String, n: u64, width: u32) {
    for i in (0..width).rev() {
        out.push(char::from(b'0' + ((n / 10u64.pow(i)) % 10) as u8));
    }
}

// Howard Hinnant's days-from-civil algorithms (public-domain arithmetic on the proleptic
// Gregorian calendar).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Parses a Go-style duration as kubectl and `lab advance` accept it: `30s`, `2m`, `1h30m`,
/// `500ms`, `1.5s`. A bare number is refused (Go's `time.ParseDuration` refuses it too, except 0).
pub fn parse_duration(s: &str) -> Option<Duration> {
    if s == "0" {
        return Some(Duration::ZERO);
    }
    let mut total_ms: f64 = 0.0;
    let mut rest = s;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let n = rest.bytes().take_while(|c| c.is_ascii_digit() || *c == b'.').count();
        if n == 0 {
            return None;
        }
        let value: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let u = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
        let unit_ms = match &rest[..u] {
            "ms" => 1.0,
            "s" => 1000.0,
            "m" => 60_000.0,
            "h" => 3_600_000.0,
            _ => return None,
        };
        rest = &rest[u..];
        total_ms += value * unit_ms;
    }
    if !total_ms.is_finite() || total_ms > 1e15 {
        return None;
    }
    Some(Duration::from_millis(total_ms.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_new_year_2026() {
        assert_eq!(Time::START.rfc3339(), "2026-01-01T00:00:00Z");
        for ms in [0, 951_782_400_000, 1_767_225_600_000, 1_767_225_600_000 + 86_399_999, 253_402_300_799_000] {
            let t = Time(ms);
            let (y, mo, d, h, mi, s) = t.civil();
            assert_eq!(t.rfc3339(), format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z"));
        }
        assert_eq!(Time::START.after(Duration::from_millis(1_500)).rfc3339_micro(), "2026-01-01T00:00:01.500000Z");
    }

    #[test]
    fn round_trips() {
        for t in [0u64, 951_782_400_000, Time::START.0 + 86_399_999, 4_102_444_800_000] {
            let t = Time(t - t % 1000);
            assert_eq!(Time::parse_rfc3339(&t.rfc3339()), Some(t));
        }
        assert_eq!(
            Time::parse_rfc3339("2024-02-29T12:34:56.789000Z").unwrap().rfc3339_micro(),
            "2024-02-29T12:34:56.789000Z"
        );
        assert_eq!(Time::parse_rfc3339("2024-02-29 12:34:56Z"), None);
        assert_eq!(Time::parse_rfc3339("garbage"), None);
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("10"), None);
        assert_eq!(parse_duration("5x"), None);
        assert_eq!(parse_duration(""), None);
    }
}
