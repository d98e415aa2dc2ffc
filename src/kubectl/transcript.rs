//! Transcripts: Markdown files whose ```` ```console ```` blocks hold `$ ` command lines, each
//! followed by the output it must print (stdout and stderr as a terminal shows them, in order).
//! The same runner serves `cargo test` (tests/transcripts.rs) and `reconcile-lab check`.
//!
//! In expected output `[..]` matches any text within one line and a line holding only `...`
//! matches any number of lines (zero included). A command may carry a here-document
//! (`<<EOF` ... `EOF`): those lines are input, not output. All blocks of one file run in order
//! against one fresh session.

use std::fmt;

/// One `$ ` command and the output expected from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// 1-based line of the `$ ` line in the file.
    pub line: usize,
    /// The command text without `$ `, here-document lines included (joined with `\n`).
    pub command: String,
    /// The expected output lines.
    pub expected: Vec<String>,
}

/// Splits a transcript into its steps, in file order.
pub fn parse(text: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_block = false;
    let mut heredoc: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if !in_block {
            if trimmed.starts_with("```console") {
                in_block = true;
            }
            continue;
        }
        if let Some(delim) = &heredoc {
            // A here-document always follows the step that opened it.
            if let Some(step) = steps.last_mut() {
                step.command.push('\n');
                step.command.push_str(line);
            }
            if line.trim_start_matches('\t') == delim.as_str() {
                heredoc = None;
            }
            continue;
        }
        if trimmed.starts_with("```") {
            in_block = false;
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ").or_else(|| (line == "$").then_some("")) {
            heredoc = heredoc_delimiter(cmd);
            steps.push(Step { line: i + 1, command: cmd.to_string(), expected: Vec::new() });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.to_string());
        }
    }
    steps
}

/// The delimiter of a `<<WORD` on a command line, quotes removed (a `<<<` here-string is not
/// a here-document).
fn heredoc_delimiter(cmd: &str) -> Option<String> {
    let mut from = 0;
    let at = loop {
        let at = from + cmd[from..].find("<<")?;
        if cmd[at + 2..].starts_with('<') {
            from = at + 3;
            continue;
        }
        break at;
    };
    let rest = cmd[at + 2..].trim_start_matches('-').trim_start();
    let word: String = rest.chars().take_while(|c| !c.is_whitespace()).filter(|c| *c != '\'' && *c != '"').collect();
    (!word.is_empty()).then_some(word)
}

/// Whether one actual line matches one expected line (`[..]` matches any text).
pub fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let first = parts[0];
    let last = parts[parts.len() - 1];
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() || !actual.ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(p) => rest = &rest[p + mid.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the actual lines match the expected ones (`...` lines match any number of lines).
pub fn lines_match(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((e, rest)) => {
            actual.split_first().is_some_and(|(a, arest)| line_matches(e, a) && lines_match(rest, arest))
        }
    }
}

/// Splits terminal text into lines (a missing final newline does not add a line).
pub fn output_lines(text: &str) -> Vec<String> {
    text.lines().map(String::from).collect()
}

/// The first step whose output differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// 1-based line of the command in the file.
    pub line: usize,
    /// The command.
    pub command: String,
    /// What the transcript expects.
    pub expected: Vec<String>,
    /// What the command printed.
    pub actual: Vec<String>,
}

/// Pairs expected and actual lines for display: a `...` line takes the actual lines up to the
/// next one that matches what follows it (greedy; only for showing where things differ).
fn align<'a>(expected: &'a [String], actual: &'a [String]) -> Vec<(Option<usize>, Option<&'a str>, bool)> {
    let mut rows = Vec::new();
    let (mut e, mut a) = (0, 0);
    while e < expected.len() || a < actual.len() {
        match expected.get(e) {
            Some(x) if x == "..." => {
                let next = expected.get(e + 1);
                rows.push((Some(e), None, true));
                e += 1;
                while a < actual.len() && !next.is_some_and(|n| line_matches(n, &actual[a])) {
                    rows.push((None, Some(actual[a].as_str()), true));
                    a += 1;
                }
            }
            Some(x) => {
                let act = actual.get(a).map(String::as_str);
                rows.push((Some(e), act, act.is_some_and(|l| line_matches(x, l))));
                e += 1;
                a += 1;
            }
            None => {
                rows.push((None, Some(actual[a].as_str()), false));
                a += 1;
            }
        }
    }
    rows
}

impl fmt::Display for Mismatch {
    /// The expected and actual output side by side, with the file's line numbers for the
    /// expected side and `!` on differing rows.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self.command.lines().next().unwrap_or("");
        writeln!(f, "line {}: `$ {first}` printed something else", self.line)?;
        let width = self.expected.iter().map(|l| l.chars().count()).max().unwrap_or(0).max(8);
        let out_start = self.line + self.command.lines().count();
        writeln!(f, "       {:<width$} | actual", "expected")?;
        for (e, a, same) in align(&self.expected, &self.actual) {
            let num = e.map_or("     ".to_string(), |i| format!("{:>5}", out_start + i));
            let text = e.map_or("", |i| self.expected[i].as_str());
            writeln!(f, "{num}{} {text:<width$} | {}", if same { ' ' } else { '!' }, a.unwrap_or(""))?;
        }
        Ok(())
    }
}

/// Runs every step through `exec` (which returns what the terminal shows) and checks it.
/// Returns the number of commands run.
pub fn run_steps(steps: &[Step], mut exec: impl FnMut(&str) -> String) -> Result<usize, Mismatch> {
    for step in steps {
        let actual = output_lines(&exec(&step.command));
        if !lines_match(&step.expected, &actual) {
            return Err(Mismatch {
                line: step.line,
                command: step.command.clone(),
                expected: step.expected.clone(),
                actual,
            });
        }
    }
    Ok(steps.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn parses_blocks_and_heredocs() {
        let md = "Intro\n\n```console\n$ kubectl get ns\nNAME   STATUS\n...\n$ kubectl apply -f - <<EOF\nkind: x\nEOF\nconfigmap/x created\n```\n\n```sh\n$ not a step\n```\n";
        let steps = parse(md);
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].line, 4);
        assert_eq!(steps[0].expected, v(&["NAME   STATUS", "..."]));
        assert_eq!(steps[1].command, "kubectl apply -f - <<EOF\nkind: x\nEOF");
        assert_eq!(steps[1].expected, v(&["configmap/x created"]));
    }

    #[test]
    fn wildcards() {
        assert!(line_matches("web-[..]   1/1", "web-abc12   1/1"));
        assert!(!line_matches("web-[..]   1/1", "db-abc12   1/1"));
        assert!(line_matches("[..]", ""));
        assert!(line_matches("a[..]b[..]c", "axxbyyc"));
        assert!(!line_matches("a[..]b[..]c", "axxc"));
        assert!(lines_match(&v(&["a", "...", "d"]), &v(&["a", "b", "c", "d"])));
        assert!(lines_match(&v(&["a", "...", "b"]), &v(&["a", "b"])));
        assert!(!lines_match(&v(&["a", "...", "d"]), &v(&["a", "b"])));
        assert!(lines_match(&v(&["..."]), &[]));
    }

    #[test]
    fn reports_the_first_mismatch_side_by_side() {
        let steps = parse("```console\n$ echo\nhello\nworld\n```\n");
        let err = run_steps(&steps, |_| "hello\nthere\n".into()).unwrap_err();
        assert_eq!(err.line, 2);
        let text = err.to_string();
        assert!(text.contains("    3  hello    | hello"), "{text}");
        assert!(text.contains("    4! world    | there"), "{text}");
        assert_eq!(run_steps(&steps, |_| "hello\nworld".into()), Ok(1));
        let steps = parse("```console\n$ x\na\n...\nz\n```\n");
        let err = run_steps(&steps, |_| "a\nb\nc\ny\n".into()).unwrap_err().to_string();
        let rows: Vec<&str> = err.lines().skip(3).collect();
        assert_eq!(rows.len(), 5, "{err}");
        assert!(rows[0].starts_with("    4  ...") && rows[1].ends_with("| b") && rows[3].ends_with("| y"), "{err}");
        assert!(rows[4].starts_with("    5! z"), "{err}");
    }
}

/// The seed every transcript's world starts from.
pub const DEFAULT_SEED: u64 = 1;

/// Runs a whole transcript against one fresh session (default seed). Returns the number of
/// commands run, or the first mismatch.
pub fn run_text(text: &str) -> Result<usize, Mismatch> {
    let mut api = crate::engine::world::World::new(DEFAULT_SEED);
    let mut console = super::Console::new();
    run_steps(&parse(text), |cmd| console.execute(&mut api, cmd).terminal())
}

/// The outcome of checking one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileReport {
    /// The file.
    pub path: std::path::PathBuf,
    /// Commands run, or the failure (a mismatch, or a file that cannot be read).
    pub result: Result<usize, String>,
}

/// Collects the transcript files under the given paths: files as given, directories searched
/// recursively for `*.md`, in sorted order.
pub fn collect_files(paths: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        crate::sort::sort(&mut entries);
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out);
        } else {
            out.push(p.clone());
        }
    }
    out
}

/// Checks every transcript under `paths` (what `reconcile-lab check` runs).
pub fn check(paths: &[std::path::PathBuf]) -> Vec<FileReport> {
    collect_files(paths)
        .into_iter()
        .map(|path| {
            let result = match std::fs::read_to_string(&path) {
                Ok(text) => run_text(&text).map_err(|m| m.to_string()),
                Err(e) => Err(format!("cannot read: {e}")),
            };
            FileReport { path, result }
        })
        .collect()
}

/// The transcript with every command's expected output replaced by what it prints now.
pub fn record(text: &str) -> String {
    let steps = parse(text);
    let mut api = crate::engine::world::World::new(DEFAULT_SEED);
    let mut console = super::Console::new();
    let mut outputs = std::collections::HashMap::new();
    for s in &steps {
        outputs.insert(s.line, console.execute(&mut api, &s.command).terminal());
    }
    // Rebuild: keep every line except expected-output lines, which are replaced.
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut skip_until_next = false;
    let mut i = 0;
    while i < lines.len() {
        let n = i + 1;
        if let Some(step) = steps.iter().find(|s| s.line == n) {
            for l in step.command.lines() {
                if l == step.command.lines().next().unwrap_or("") {
                    out.push_str("$ ");
                }
                out.push_str(l);
                out.push('\n');
            }
            i += step.command.lines().count();
            let printed = outputs.get(&n).map(String::as_str).unwrap_or("");
            out.push_str(printed);
            if !printed.is_empty() && !printed.ends_with('\n') {
                out.push('\n');
            }
            skip_until_next = true;
            continue;
        }
        let l = lines[i];
        if skip_until_next && (l.starts_with("$ ") || l.trim_start().starts_with("```")) {
            skip_until_next = false;
        }
        if !skip_until_next {
            out.push_str(l);
            out.push('\n');
        }
        i += 1;
    }
    out
}
