//! The console's command-line tokenizer: words split the way a POSIX shell splits them, so that
//! commands copied from documentation run verbatim (`-o jsonpath='{.items[*].metadata.name}'`).
//!
//! Supported: whitespace-separated words, single quotes (literal), double quotes (with `\"`, `\\`,
//! `\$` and `` \` `` escapes), a backslash outside quotes escaping the next character, `#` comments
//! at the start of a word, and one here-document per command (`<<EOF`, `<<'EOF'`, `<<-EOF`) whose
//! body becomes the command's standard input. Nothing is expanded: there are no variables.

/// One command line after tokenizing: its words and the here-document body, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommandLine {
    /// The words, quotes removed.
    pub words: Vec<String>,
    /// The here-document body (each line ending in `\n`), which is the command's standard input.
    pub stdin: Option<String>,
}

/// A line the tokenizer cannot split. The text is what the console prints after `error: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShellError {
    /// A quote was opened and never closed.
    UnbalancedQuote(char),
    /// `<<` without a delimiter word.
    MissingHereDocDelimiter,
    /// The here-document's closing delimiter line never came.
    UnterminatedHereDoc(String),
}

impl std::fmt::Display for ShellError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShellError::UnbalancedQuote(q) => write!(f, "unexpected end of line while looking for matching `{q}'"),
            ShellError::MissingHereDocDelimiter => {
                f.write_str("syntax error: here-document needs a delimiter after `<<'")
            }
            ShellError::UnterminatedHereDoc(d) => {
                write!(f, "here-document delimited by end-of-file (wanted `{d}')")
            }
        }
    }
}

/// Splits the first line of `input` into words; when it names a here-document, the following
/// lines up to the delimiter are its body. Returns the command and how many lines of `input` it
/// used (so a caller holding a whole script can continue after it).
pub fn parse(input: &str) -> Result<(CommandLine, usize), ShellError> {
    let mut lines = input.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    let first = first.strip_suffix('\n').unwrap_or(first);
    let first = first.strip_suffix('\r').unwrap_or(first);
    let (words, heredoc) = split_words(first)?;
    let mut used = 1;
    let stdin = match heredoc {
        None => None,
        Some((delim, strip_tabs)) => {
            let mut body = String::new();
            let mut closed = false;
            for line in lines {
                used += 1;
                let bare = line.trim_end_matches(['\n', '\r']);
                let bare = if strip_tabs { bare.trim_start_matches('\t') } else { bare };
                if bare == delim {
                    closed = true;
                    break;
                }
                body.push_str(bare);
                body.push('\n');
            }
            if !closed {
                return Err(ShellError::UnterminatedHereDoc(delim));
            }
            Some(body)
        }
    };
    Ok((CommandLine { words, stdin }, used))
}

/// Splits one line into words; also returns the here-document delimiter (and whether `<<-`
/// strips leading tabs) when the line has `<<WORD`.
/// A here-document's delimiter and whether `<<-` strips leading tabs.
type HereDoc = (String, bool);

fn split_words(line: &str) -> Result<(Vec<String>, Option<HereDoc>), ShellError> {
    let mut words = Vec::new();
    let mut heredoc = None;
    let mut chars = line.chars().peekable();
    let mut expecting_delim: Option<bool> = None;
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let Some(&c) = chars.peek() else { break };
        if c == '#' {
            break;
        }
        if c == '<' && expecting_delim.is_none() {
            let rest: String = chars.clone().take(3).collect();
            if rest.starts_with("<<") && !rest.starts_with("<<<") {
                chars.next();
                chars.next();
                let strip = chars.peek() == Some(&'-');
                if strip {
                    chars.next();
                }
                expecting_delim = Some(strip);
                continue;
            }
        }
        let mut word = String::new();
        let mut quoted = false;
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                break;
            }
            chars.next();
            match c {
                '\'' => {
                    quoted = true;
                    loop {
                        match chars.next() {
                            None => return Err(ShellError::UnbalancedQuote('\'')),
                            Some('\'') => break,
                            Some(x) => word.push(x),
                        }
                    }
                }
                '"' => {
                    quoted = true;
                    loop {
                        match chars.next() {
                            None => return Err(ShellError::UnbalancedQuote('"')),
                            Some('"') => break,
                            Some('\\') => match chars.next() {
                                None => return Err(ShellError::UnbalancedQuote('"')),
                                Some(e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                                Some(x) => {
                                    word.push('\\');
                                    word.push(x);
                                }
                            },
                            Some(x) => word.push(x),
                        }
                    }
                }
                '\\' => {
                    if let Some(x) = chars.next() {
                        word.push(x);
                    }
                }
                _ => word.push(c),
            }
        }
        if let Some(strip) = expecting_delim.take() {
            heredoc = Some((word, strip));
        } else if !word.is_empty() || quoted {
            words.push(word);
        }
    }
    if expecting_delim.is_some() {
        return Err(ShellError::MissingHereDocDelimiter);
    }
    Ok((words, heredoc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        parse(s).map(|(c, _)| c.words).unwrap_or_else(|e| vec![format!("ERR {e}")])
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            words("kubectl get pods -o jsonpath='{.items[*].metadata.name}'"),
            ["kubectl", "get", "pods", "-o", "jsonpath={.items[*].metadata.name}"]
        );
        assert_eq!(words(r#"a "b c" d\ e '' "x\"y" 'it''s'"#), ["a", "b c", "d e", "", "x\"y", "its"]);
        assert_eq!(words(r#"echo "\n""#), ["echo", "\\n"]);
        assert_eq!(words("  get   pods  # a comment"), ["get", "pods"]);
    }

    #[test]
    fn unbalanced_quotes_are_errors() {
        assert_eq!(parse("get 'pods").unwrap_err(), ShellError::UnbalancedQuote('\''));
        assert_eq!(parse("get \"pods").unwrap_err(), ShellError::UnbalancedQuote('"'));
        assert_eq!(
            parse("get 'pods").unwrap_err().to_string(),
            "unexpected end of line while looking for matching `''"
        );
    }

    #[test]
    fn here_documents_are_input() {
        let (cmd, used) = parse("kubectl apply -f - <<EOF\na: 1\n\tb: 2\nEOF\nnext").unwrap();
        assert_eq!(cmd.words, ["kubectl", "apply", "-f", "-"]);
        assert_eq!(cmd.stdin.as_deref(), Some("a: 1\n\tb: 2\n"));
        assert_eq!(used, 4);
        let (cmd, _) = parse("cat <<-'END'\n\tx\n\tEND\n").unwrap();
        assert_eq!(cmd.stdin.as_deref(), Some("x\n"));
        assert_eq!(parse("cat <<EOF\nx\n").unwrap_err(), ShellError::UnterminatedHereDoc("EOF".into()));
        assert_eq!(parse("cat <<").unwrap_err(), ShellError::MissingHereDocDelimiter);
    }
}
