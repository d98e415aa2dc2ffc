//! `wc`: counts lines, words, characters and bytes, and prints them in GNU wc's columns.

/// `wc`'s options (`-l -w -m -c`) and its counts so far.
#[derive(Clone, Debug, Default)]
pub(super) struct Wc {
    pub(super) lines: bool,
    pub(super) words: bool,
    pub(super) chars: bool,
    pub(super) bytes: bool,
    pub(super) n_lines: u64,
    pub(super) n_words: u64,
    pub(super) n_chars: u64,
    pub(super) n_bytes: u64,
    pub(super) in_word: bool,
}

/// The width of wc's columns for file operands: the digits of their total size (GNU wc).
pub(super) fn wc_width(files: &[(String, Option<String>)]) -> usize {
    let total: usize = files.iter().filter_map(|(_, t)| t.as_ref().map(String::len)).sum();
    total.to_string().len()
}

impl Wc {
    pub(super) fn count(&mut self, text: &str) {
        self.n_bytes += text.len() as u64;
        for c in text.chars() {
            self.n_chars += 1;
            if c == '\n' {
                self.n_lines += 1;
            }
            if c.is_whitespace() {
                self.in_word = false;
            } else if !self.in_word {
                self.in_word = true;
                self.n_words += 1;
            }
        }
    }

    pub(super) fn line(&mut self, name: Option<&str>, width: usize) -> String {
        let mut cols = Vec::new();
        for (on, n) in [
            (self.lines, self.n_lines),
            (self.words, self.n_words),
            (self.chars, self.n_chars),
            (self.bytes, self.n_bytes),
        ] {
            if on {
                cols.push(format!("{n:>width$}"));
            }
        }
        let mut s = cols.join(" ");
        if let Some(name) = name {
            s.push(' ');
            s.push_str(name);
        }
        s.push('\n');
        s
    }
}
