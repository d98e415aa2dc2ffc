//! `cut -f` and `cut -c`: the fields or characters of each line that a LIST selects.

use super::{usage, Usage};

/// `cut`: `-f` (fields split at `delim`) or `-c`/`-b` (characters), and the LIST's ranges.
#[derive(Clone, Debug)]
pub(super) struct Cut {
    pub(super) fields: bool,
    pub(super) delim: char,
    pub(super) list: Vec<(usize, usize)>,
    pub(super) only_delimited: bool,
}

/// `cut`'s LIST: `N`, `N-M`, `N-`, `-M`, comma-separated; 1-based, inclusive.
pub(super) fn parse_list(v: &str) -> Result<Vec<(usize, usize)>, Usage> {
    let mut out = Vec::new();
    for part in v.split(',') {
        let bad = || usage("cut", 1, format!("invalid field value ‘{part}’\nTry 'cut --help' for more information."));
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (part, None),
        };
        let num = |s: &str| -> Result<Option<usize>, Usage> {
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<usize>() {
                Ok(0) => Err(usage(
                    "cut",
                    1,
                    "fields and positions are numbered from 1\nTry 'cut --help' for more information.",
                )),
                Ok(n) => Ok(Some(n)),
                Err(_) => Err(bad()),
            }
        };
        let lo = num(a)?;
        let range = match b {
            None => match lo {
                Some(n) => (n, n),
                None => return Err(bad()),
            },
            Some(b) => {
                let hi = num(b)?;
                if lo.is_none() && hi.is_none() {
                    return Err(usage(
                        "cut",
                        1,
                        "invalid range with no endpoint: -\nTry 'cut --help' for more information.",
                    ));
                }
                let lo = lo.unwrap_or(1);
                let hi = hi.unwrap_or(usize::MAX);
                if hi < lo {
                    return Err(usage("cut", 1, "invalid decreasing range\nTry 'cut --help' for more information."));
                }
                (lo, hi)
            }
        };
        out.push(range);
    }
    Ok(out)
}

impl Cut {
    fn selected(&self, i: usize) -> bool {
        self.list.iter().any(|&(a, b)| a <= i && i <= b)
    }

    pub(super) fn apply(&self, line: &str) -> String {
        if self.fields {
            if !line.contains(self.delim) {
                return if self.only_delimited { String::new() } else { format!("{line}\n") };
            }
            let picked: Vec<&str> =
                line.split(self.delim).enumerate().filter(|(i, _)| self.selected(i + 1)).map(|(_, f)| f).collect();
            let mut s = picked.join(&self.delim.to_string());
            s.push('\n');
            s
        } else {
            let mut s: String =
                line.chars().enumerate().filter(|(i, _)| self.selected(i + 1)).map(|(_, c)| c).collect();
            s.push('\n');
            s
        }
    }
}
