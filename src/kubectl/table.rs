//! kubectl's table layout and AGE column (cli-runtime `pkg/printers/tabwriter.go`,
//! `GetNewTabWriter`; apimachinery `pkg/util/duration/duration.go`, `HumanDuration`).
//!
//! cli-runtime prints tables through a tabwriter with `minwidth=6, tabwidth=4, padding=3,
//! padchar=' ', flags=RememberWidths`: every column but the last is `max(widest cell + 3, 6)`
//! wide and the last column is not padded. `RememberWidths` keeps column widths across flushes,
//! which is why the rows of `kubectl get -w` stay aligned with the first table (they may only
//! widen).

use std::time::Duration;

/// The tabwriter of cli-runtime, with remembered widths.
///
/// Invariant: `widths.len()` is the number of columns seen so far minus one (the last column
/// has no width), and a width never shrinks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TabWriter {
    widths: Vec<usize>,
}

/// Minimum cell width including padding (`minwidth`).
const MIN_WIDTH: usize = 6;
/// Spaces after the widest cell of a column (`padding`).
const PADDING: usize = 3;

impl TabWriter {
    /// A writer that has not printed anything yet.
    pub fn new() -> TabWriter {
        TabWriter::default()
    }

    /// Lays out rows (each a list of cells) and returns the text, one `\n`-terminated line per
    /// row. Widths grow to fit these rows and are remembered for the next call.
    pub fn format(&mut self, rows: &[Vec<String>]) -> String {
        for row in rows {
            for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
                let w = (cell.chars().count() + PADDING).max(MIN_WIDTH);
                if i >= self.widths.len() {
                    self.widths.push(w);
                } else if w > self.widths[i] {
                    self.widths[i] = w;
                }
            }
        }
        let mut out = String::new();
        for row in rows {
            for (i, cell) in row.iter().enumerate() {
                out.push_str(cell);
                if i + 1 < row.len() {
                    let pad = self.widths[i] - cell.chars().count();
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push('\n');
        }
        out
    }
}

/// `duration.HumanDuration`: the AGE column's format (apimachinery
/// `pkg/util/duration/duration.go`).
/// `millis` may be negative (a timestamp in the future).
pub fn human_duration(millis: i64) -> String {
    // `int(d.Seconds())` truncates toward zero, so -1.5s is -1 ("0s") and -2s is "<invalid>".
    let whole_seconds = millis / 1000;
    if whole_seconds < -1 {
        return "<invalid>".into();
    }
    if millis < 0 {
        return "0s".into();
    }
    let d = Duration::from_millis(millis as u64);
    let seconds = d.as_secs();
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 { format!("{minutes}m") } else { format!("{minutes}m{s}s") };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 { format!("{hours}h") } else { format!("{hours}h{m}m") };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 { format!("{}d", hours / 24) } else { format!("{}d{h}h", hours / 24) };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 { format!("{}y", hours / 24 / 365) } else { format!("{}y{dy}d", hours / 24 / 365) };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn layout_matches_kubectl() {
        let mut w = TabWriter::new();
        let text = w.format(&[
            row(&["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]),
            row(&["web", "3/3", "3", "3", "12s"]),
        ]);
        assert_eq!(text, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    3/3     3            3           12s\n");
        // Remembered widths: a later, narrower row keeps the alignment; a wider one widens.
        assert_eq!(w.format(&[row(&["w", "1/3", "1", "1", "1s"])]), "w      1/3     1            1           1s\n");
        assert_eq!(w.format(&[row(&["a-long-name", "x", "", "", "1s"])]).find('x'), Some(14));
    }

    #[test]
    fn min_width_is_six() {
        let mut w = TabWriter::new();
        assert_eq!(w.format(&[row(&["A", "B"])]), "A     B\n");
    }

    #[test]
    fn age_matches_tv42() {
        let s = 1000i64;
        let (m, h, d) = (60 * s, 3600 * s, 86_400 * s);
        let cases = [
            (s, "1s"),
            (70 * s, "70s"),
            (119_900, "119s"),
            (120 * s, "2m"),
            (121 * s, "2m1s"),
            (190 * s, "3m10s"),
            (599_900, "9m59s"),
            (600 * s, "10m"),
            (601 * s, "10m"),
            (70 * m, "70m"),
            (179 * m + 59 * s, "179m"),
            (3 * h, "3h"),
            (3 * h + m, "3h1m"),
            (8 * h + 59 * m, "8h"),
            (47 * h, "47h"),
            (48 * h, "2d"),
            (49 * h, "2d1h"),
            (7 * d + 23 * h, "7d23h"),
            (8 * d + 23 * h, "8d"),
            (367 * d, "367d"),
            (730 * d, "2y"),
            (731 * d, "2y1d"),
            (8 * 365 * d, "8y"),
            (-1500, "0s"),
            (-2 * s, "<invalid>"),
        ];
        for (ms, want) in cases {
            assert_eq!(human_duration(ms), want, "{ms}ms");
        }
    }
}
