//! The lesson file format: one Markdown file per lesson, parsed strictly.
//!
//! The format is documented for authors in `docs/lessons.md`; keep the two in step. In short:
//!
//! ````text
//! # Title
//!
//! slug: reconcile-loop
//! summary: One sentence for the lesson list.
//! seed: 7
//!
//! Introduction (Markdown, shown above the first step).
//!
//! ## Setup
//! ```console
//! kubectl create deployment web --image=nginx --replicas=2
//! lab settle
//! ```
//!
//! ## File web.yaml
//! ```yaml
//! apiVersion: apps/v1
//! ...
//! ```
//!
//! ## Step: Scale the Deployment          (or `## Puzzle: ...`: goals only, no instruction)
//! Explanation (Markdown).
//!
//! Instruction: Run `kubectl scale deployment web --replicas=3`, then `lab settle`.
//!
//! Goal scaled: The Deployment web runs three ready Pods.
//! Check: field deployment web .status.readyReplicas == 3
//!
//! Hint: spec.replicas is the desired state.
//!
//! ```solution
//! kubectl scale deployment web --replicas=3
//! lab settle
//! ```
//! ````
//!
//! The text parts (introduction, explanation, instruction, goal sentences, hints) are lesson
//! Markdown ([`super::markdown`]: paragraphs, lists, links, figures); a refused link or a
//! malformed figure is an error here, so that no shipped lesson shows one as plain text.
//!
//! Every error carries the 1-based line it was found on; nothing in a file can make the parser
//! panic (see the property test in `tests/lessons_format.rs`).

use std::fmt;

use super::goal::{self, Check};

/// The most bytes a lesson file may have (a lesson is short; this bounds a hostile file).
pub const MAX_LESSON_BYTES: usize = 256 * 1024;
/// The longest slug (it appears in routes `#/lessons/<slug>` and in saved progress).
pub const MAX_SLUG_LEN: usize = 64;

/// A lesson file that cannot be used, with the line the problem is on (1-based; 0: the whole file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong, for the author.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError { line, message: message.into() })
}

/// One parsed lesson.
///
/// Invariants (checked by [`parse`]): the slug is lowercase letters, digits and dashes; goal ids
/// are unique within the lesson; every step has at least one goal; a `Step` has an instruction
/// and a `Puzzle` has none; every `apply`/`edit` in a solution names a declared file.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    /// Route and progress key: `reconcile-loop`.
    pub slug: String,
    /// The `# Title`.
    pub title: String,
    /// One sentence for the lesson list.
    pub summary: String,
    /// The world's seed.
    pub seed: u64,
    /// Markdown shown before the first step.
    pub intro: String,
    /// Console lines run (and not shown as the learner's) before the lesson starts.
    pub setup: Vec<String>,
    /// Editor buffers: `(name, text)`, in file order.
    pub files: Vec<(String, String)>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl Lesson {
    /// A goal by id, with the index of its step.
    pub fn goal(&self, id: &str) -> Option<(usize, &Goal)> {
        self.steps.iter().enumerate().find_map(|(i, s)| s.goals.iter().find(|g| g.id == id).map(|g| (i, g)))
    }
}

/// One step of a lesson.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The heading text after `Step:` / `Puzzle:`.
    pub title: String,
    /// A puzzle has goals, hints and a solution, but no instruction.
    pub puzzle: bool,
    /// Markdown explanation.
    pub explanation: String,
    /// What the learner is asked to do (Markdown), empty for a puzzle.
    pub instruction: String,
    /// The goals, in order.
    pub goals: Vec<Goal>,
    /// Hints, revealed one at a time.
    pub hints: Vec<String>,
    /// What "Show me" plays.
    pub solution: Vec<Action>,
    /// The line of the step's heading.
    pub line: usize,
}

/// A goal: an id (unique in the lesson), the sentence the learner sees, and the checks that must
/// all hold at the same moment for it to be met.
#[derive(Clone, Debug, PartialEq)]
pub struct Goal {
    /// `scaled-up`.
    pub id: String,
    /// The learner-facing sentence.
    pub text: String,
    /// All must hold at once.
    pub check: Check,
    /// The line of the `Goal` line.
    pub line: usize,
}

/// One action of a solution, played by "Show me" through the same calls the page makes.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A console line (kubectl or lab), with its here-document if any. `$(...)` inside is
    /// replaced by the trimmed standard output of the console command it holds.
    Console(String),
    /// Replace an editor buffer's text.
    Edit { file: String, text: String },
    /// The editor's Apply button on a buffer (`kubectl apply -f FILE`). `expect_failure`: the
    /// lesson means it to fail (written `apply FILE  # expect failure`), e.g. a stale apply's 409.
    Apply { file: String, expect_failure: bool },
    /// The Step button, this many times.
    Step(u32),
    /// The "Run until idle" button.
    Settle,
    /// Step until the check holds (at most [`STEP_UNTIL_CAP`] steps).
    StepUntil(Check),
}

/// The comment that marks a solution line as meant to fail (a console command or an apply).
pub const EXPECT_FAILURE: &str = "# expect failure";

/// The most steps a `step until` runs before giving up.
pub const STEP_UNTIL_CAP: u32 = 2_000;

fn valid_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_SLUG_LEN
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

fn valid_file_name(s: &str) -> bool {
    !s.is_empty() && s.len() <= 100 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// A fenced block: its info string, its lines, and the line of the opening fence.
struct Fence {
    info: String,
    body: Vec<String>,
    line: usize,
}

/// Reads a fenced block starting at `lines[*i]` (which must open one).
fn read_fence(lines: &[&str], i: &mut usize) -> Result<Fence, ParseError> {
    let open = lines[*i];
    let ticks = open.len() - open.trim_start_matches('`').len();
    let info = open[ticks..].trim().to_string();
    let line = *i + 1;
    let close = "`".repeat(ticks);
    let mut body = Vec::new();
    *i += 1;
    while *i < lines.len() {
        let l = lines[*i];
        if l.trim_end() == close {
            *i += 1;
            return Ok(Fence { info, body, line });
        }
        body.push(l.to_string());
        *i += 1;
    }
    err(line, format!("the code block opened here with {close} is never closed"))
}

fn is_fence(l: &str) -> bool {
    l.starts_with("```")
}

/// Joins paragraph lines into Markdown text, trimming blank lines at both ends.
fn text_of(lines: &[String]) -> String {
    let start = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !l.trim().is_empty()).map_or(start, |e| e + 1);
    lines[start..end].join("\n")
}

/// Checks lesson Markdown whose first line is `first_line` (1-based): the first problem
/// [`super::markdown::parse`] finds is an error on its line.
fn check_text(text: &str, first_line: usize) -> Result<(), ParseError> {
    match super::markdown::parse(text).1.into_iter().next() {
        Some(p) => err(first_line + p.line, p.message),
        None => Ok(()),
    }
}

/// The 1-based line of the first non-blank line of `lines`, which start at 1-based line `first`.
fn first_text_line(lines: &[String], first: usize) -> usize {
    first + lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0)
}

/// Reads a paragraph that began with `first` (already stripped of its label) until a blank line.
fn paragraph(lines: &[&str], i: &mut usize, first: &str) -> String {
    let mut text = first.trim().to_string();
    *i += 1;
    while *i < lines.len() {
        let l = lines[*i];
        if l.trim().is_empty() || l.starts_with("## ") || is_fence(l) || label(l).is_some() {
            break;
        }
        text.push('\n');
        text.push_str(l.trim_end());
        *i += 1;
    }
    text
}

/// The labels that start a structured line inside a step.
fn label(l: &str) -> Option<(&'static str, &str)> {
    for name in ["Instruction:", "Hint:", "Check:", "Goal "] {
        if let Some(rest) = l.strip_prefix(name) {
            return Some((name, rest));
        }
    }
    None
}

/// Parses one lesson file.
pub fn parse(text: &str) -> Result<Lesson, ParseError> {
    if text.len() > MAX_LESSON_BYTES {
        return err(0, format!("the lesson file is {} bytes; the limit is {MAX_LESSON_BYTES}", text.len()));
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() && lines[i].trim().is_empty() {
        i += 1;
    }
    let title = match lines.get(i).and_then(|l| l.strip_prefix("# ")) {
        Some(t) if !t.trim().is_empty() => t.trim().to_string(),
        _ => return err(i + 1, "a lesson starts with its title: \"# Title\""),
    };
    i += 1;

    // The header: `key: value` lines, up to the first line that is not one.
    let (mut slug, mut summary, mut seed) = (None, None, None);
    while i < lines.len() {
        let l = lines[i];
        if l.trim().is_empty() && slug.is_none() && summary.is_none() && seed.is_none() {
            i += 1;
            continue;
        }
        let Some((key, value)) = l.split_once(':') else { break };
        let value = value.trim();
        match key {
            "slug" => {
                if !valid_slug(value) {
                    return err(
                        i + 1,
                        format!(
                            "slug {value:?} must be 1 to {MAX_SLUG_LEN} lowercase letters, digits and inner dashes"
                        ),
                    );
                }
                if slug.replace(value.to_string()).is_some() {
                    return err(i + 1, "slug is given twice");
                }
            }
            "summary" => {
                if value.is_empty() {
                    return err(i + 1, "summary is empty");
                }
                if summary.replace(value.to_string()).is_some() {
                    return err(i + 1, "summary is given twice");
                }
            }
            "seed" => {
                let Ok(n) = value.parse::<u64>() else {
                    return err(i + 1, format!("seed {value:?} is not a whole number"));
                };
                if seed.replace(n).is_some() {
                    return err(i + 1, "seed is given twice");
                }
            }
            _ if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') && !key.is_empty() => {
                return err(i + 1, format!("unknown header field {key:?} (known: slug, summary, seed)"));
            }
            _ => break,
        }
        i += 1;
    }
    let Some(slug) = slug else { return err(i.min(lines.len()) + 1, "the header needs \"slug: ...\"") };
    let Some(summary) = summary else { return err(i.min(lines.len()) + 1, "the header needs \"summary: ...\"") };

    let mut lesson = Lesson {
        slug,
        title,
        summary,
        seed: seed.unwrap_or(1),
        intro: String::new(),
        setup: Vec::new(),
        files: Vec::new(),
        steps: Vec::new(),
    };

    // The introduction: everything up to the first `## ` heading.
    let intro_line = i + 1;
    let mut intro = Vec::new();
    while i < lines.len() && !lines[i].starts_with("## ") {
        if is_fence(lines[i]) {
            let start = i;
            read_fence(&lines, &mut i)?;
            intro.extend(lines[start..i].iter().map(|s| s.to_string()));
        } else {
            intro.push(lines[i].to_string());
            i += 1;
        }
    }
    lesson.intro = text_of(&intro);
    check_text(&lesson.intro, first_text_line(&intro, intro_line))?;

    let mut seen_setup = false;
    while i < lines.len() {
        let heading = lines[i].trim_end();
        let hline = i + 1;
        let Some(h) = heading.strip_prefix("## ") else {
            return err(hline, "expected a \"## \" section heading");
        };
        i += 1;
        if h == "Setup" {
            if seen_setup {
                return err(hline, "a lesson has at most one \"## Setup\" section");
            }
            if !lesson.steps.is_empty() {
                return err(hline, "\"## Setup\" comes before the steps");
            }
            seen_setup = true;
            let fence = only_fence(&lines, &mut i, hline, "Setup")?;
            if fence.info != "console" {
                return err(fence.line, "the Setup section holds one ```console block");
            }
            lesson.setup = console_lines(&fence.body, fence.line)?;
        } else if let Some(name) = h.strip_prefix("File ") {
            let name = name.trim();
            if !valid_file_name(name) {
                return err(hline, format!("file name {name:?} may use letters, digits, '.', '_' and '-'"));
            }
            if lesson.files.iter().any(|(n, _)| n == name) {
                return err(hline, format!("file {name:?} is declared twice"));
            }
            if !lesson.steps.is_empty() {
                return err(hline, "\"## File\" sections come before the steps");
            }
            let fence = only_fence(&lines, &mut i, hline, "File")?;
            let mut body = fence.body.join("\n");
            body.push('\n');
            lesson.files.push((name.to_string(), body));
        } else if let Some((puzzle, title)) =
            h.strip_prefix("Step:").map(|t| (false, t)).or_else(|| h.strip_prefix("Puzzle:").map(|t| (true, t)))
        {
            let title = title.trim();
            if title.is_empty() {
                return err(hline, "the step needs a title after the colon");
            }
            let step = parse_step(&lines, &mut i, hline, title, puzzle)?;
            lesson.steps.push(step);
        } else {
            return err(hline, format!("unknown section {h:?} (known: Setup, File NAME, Step: TITLE, Puzzle: TITLE)"));
        }
    }

    if lesson.steps.is_empty() {
        return err(lines.len().max(1), "the lesson has no \"## Step:\" or \"## Puzzle:\" section");
    }
    let mut ids = std::collections::BTreeSet::new();
    for step in &lesson.steps {
        for g in &step.goals {
            if !ids.insert(g.id.clone()) {
                return err(g.line, format!("goal id {:?} is used twice in this lesson", g.id));
            }
        }
    }
    for step in &lesson.steps {
        for a in &step.solution {
            if let Action::Apply { file: f, .. } | Action::Edit { file: f, .. } = a {
                if !lesson.files.iter().any(|(n, _)| n == f) {
                    return err(
                        step.line,
                        format!("the solution uses file {f:?}, which no \"## File\" section declares"),
                    );
                }
            }
        }
    }
    Ok(lesson)
}

/// A section whose body is exactly one fenced block (blank lines around it allowed).
fn only_fence(lines: &[&str], i: &mut usize, hline: usize, what: &str) -> Result<Fence, ParseError> {
    while *i < lines.len() && lines[*i].trim().is_empty() {
        *i += 1;
    }
    if *i >= lines.len() || !is_fence(lines[*i]) {
        return err(hline, format!("the {what} section holds one fenced code block"));
    }
    let fence = read_fence(lines, i)?;
    while *i < lines.len() && !lines[*i].starts_with("## ") {
        if !lines[*i].trim().is_empty() {
            return err(*i + 1, format!("unexpected text after the {what} section's code block"));
        }
        *i += 1;
    }
    Ok(fence)
}

/// Splits a console block into commands: one per line, a here-document joined to its command.
fn console_lines(body: &[String], first_line: usize) -> Result<Vec<String>, ParseError> {
    let mut out = Vec::new();
    let mut j = 0;
    while j < body.len() {
        let l = body[j].trim_end();
        let line = first_line + 1 + j;
        j += 1;
        if l.trim().is_empty() || l.trim_start().starts_with('#') {
            continue;
        }
        let mut cmd = l.trim_start().to_string();
        if let Some(delim) = heredoc_delimiter(l) {
            let mut closed = false;
            while j < body.len() {
                let b = &body[j];
                j += 1;
                cmd.push('\n');
                cmd.push_str(b);
                if b.trim() == delim {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return err(line, format!("the here-document opened here never reaches its {delim} line"));
            }
        }
        out.push(cmd);
    }
    Ok(out)
}

/// `kubectl apply -f - <<EOF` → `EOF` (quotes and `-` removed).
fn heredoc_delimiter(l: &str) -> Option<String> {
    let at = l.find("<<")?;
    let rest = l[at + 2..].trim_start_matches('-').trim();
    let word = rest.split_whitespace().next()?;
    let word = word.trim_matches(|c| c == '\'' || c == '"');
    (!word.is_empty()).then(|| word.to_string())
}

fn valid_goal_id(s: &str) -> bool {
    valid_slug(s)
}

fn parse_step(lines: &[&str], i: &mut usize, hline: usize, title: &str, puzzle: bool) -> Result<Step, ParseError> {
    let mut step = Step {
        title: title.to_string(),
        puzzle,
        explanation: String::new(),
        instruction: String::new(),
        goals: Vec::new(),
        hints: Vec::new(),
        solution: Vec::new(),
        line: hline,
    };
    let mut explanation: Vec<String> = Vec::new();
    let explanation_line = *i + 1;
    let mut seen_solution = false;
    // Once a structured line has appeared, free text would be ambiguous.
    let mut structured = false;
    while *i < lines.len() && !lines[*i].starts_with("## ") {
        let l = lines[*i];
        let lno = *i + 1;
        if l.trim().is_empty() {
            if !structured {
                explanation.push(String::new());
            }
            *i += 1;
            continue;
        }
        if is_fence(l) {
            let fence = read_fence(lines, i)?;
            if fence.info == "solution" {
                if seen_solution {
                    return err(lno, "a step has at most one ```solution block");
                }
                seen_solution = true;
                structured = true;
                step.solution = parse_solution(&fence.body, fence.line)?;
            } else if structured {
                return err(lno, "code blocks in the explanation come before Instruction, Goal and Hint lines");
            } else {
                explanation.extend(lines[fence.line - 1..*i].iter().map(|s| s.to_string()));
            }
            continue;
        }
        match label(l) {
            Some(("Instruction:", rest)) => {
                if puzzle {
                    return err(lno, "a Puzzle has no Instruction: the learner works it out from the goals");
                }
                if !step.instruction.is_empty() {
                    return err(lno, "a step has one Instruction paragraph");
                }
                structured = true;
                step.instruction = paragraph(lines, i, rest);
                if step.instruction.is_empty() {
                    return err(lno, "the Instruction is empty");
                }
                check_text(&step.instruction, lno)?;
            }
            Some(("Hint:", rest)) => {
                structured = true;
                let h = paragraph(lines, i, rest);
                if h.is_empty() {
                    return err(lno, "the Hint is empty");
                }
                check_text(&h, lno)?;
                step.hints.push(h);
            }
            Some(("Goal ", rest)) => {
                structured = true;
                let Some((id, text)) = rest.split_once(':') else {
                    return err(lno, "a goal line reads \"Goal ID: sentence\"");
                };
                let id = id.trim();
                if !valid_goal_id(id) {
                    return err(lno, format!("goal id {id:?} must be lowercase letters, digits and inner dashes"));
                }
                let text = paragraph(lines, i, text);
                if text.is_empty() {
                    return err(lno, format!("goal {id:?} needs a sentence for the learner"));
                }
                check_text(&text, lno)?;
                let mut checks = Vec::new();
                while *i < lines.len() {
                    let Some(c) = lines[*i].strip_prefix("Check:") else { break };
                    let c = goal::parse_check(c.trim()).map_err(|m| ParseError { line: *i + 1, message: m })?;
                    checks.push(c);
                    *i += 1;
                }
                let check = match checks.len() {
                    0 => return err(lno, format!("goal {id:?} needs at least one \"Check:\" line right after it")),
                    1 => checks.remove(0),
                    _ => Check::All(checks),
                };
                step.goals.push(Goal { id: id.to_string(), text, check, line: lno });
            }
            Some(("Check:", _)) => return err(lno, "a Check line belongs right after its Goal line"),
            _ => {
                if structured {
                    return err(
                        lno,
                        "explanation text comes before the Instruction, Goal, Hint and solution parts of a step",
                    );
                }
                explanation.push(l.trim_end().to_string());
                *i += 1;
            }
        }
    }
    step.explanation = text_of(&explanation);
    check_text(&step.explanation, first_text_line(&explanation, explanation_line))?;
    if step.goals.is_empty() {
        return err(hline, format!("step {title:?} has no goal (\"Goal ID: sentence\" and \"Check: ...\")"));
    }
    if !puzzle && step.instruction.is_empty() {
        return err(hline, format!("step {title:?} has no \"Instruction:\" (use \"## Puzzle:\" for goals only)"));
    }
    if !seen_solution {
        return err(hline, format!("step {title:?} has no ```solution block for \"Show me\""));
    }
    if puzzle && step.hints.is_empty() {
        return err(hline, format!("puzzle {title:?} needs at least one Hint"));
    }
    Ok(step)
}

/// Parses a solution block: console lines, plus the page's own actions `edit FILE <<EOF`,
/// `apply FILE`, `step [N]`, `settle` and `step until CHECK`.
fn parse_solution(body: &[String], first_line: usize) -> Result<Vec<Action>, ParseError> {
    let mut out = Vec::new();
    let mut j = 0;
    while j < body.len() {
        let l = body[j].trim();
        let line = first_line + 1 + j;
        j += 1;
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let mut words = l.split_whitespace();
        let first = words.next().unwrap_or("");
        match first {
            "kubectl" | "k" | "lab" => {
                let mut cmd = l.to_string();
                if let Some(delim) = heredoc_delimiter(l) {
                    let mut closed = false;
                    while j < body.len() {
                        let b = &body[j];
                        j += 1;
                        cmd.push('\n');
                        cmd.push_str(b);
                        if b.trim() == delim {
                            closed = true;
                            break;
                        }
                    }
                    if !closed {
                        return err(line, format!("the here-document opened here never reaches its {delim} line"));
                    }
                }
                out.push(Action::Console(cmd));
            }
            "edit" => {
                let file = words.next().unwrap_or("");
                let Some(delim) = heredoc_delimiter(l) else {
                    return err(line, "edit reads \"edit FILE <<EOF\", the new text, then \"EOF\"");
                };
                if file.is_empty() || file.starts_with("<<") {
                    return err(line, "edit needs a file name");
                }
                let mut text = String::new();
                let mut closed = false;
                while j < body.len() {
                    let b = &body[j];
                    j += 1;
                    if b.trim() == delim {
                        closed = true;
                        break;
                    }
                    text.push_str(b);
                    text.push('\n');
                }
                if !closed {
                    return err(line, format!("the edit opened here never reaches its {delim} line"));
                }
                out.push(Action::Edit { file: file.to_string(), text });
            }
            "apply" => {
                let (rest, expect_failure) = match l.strip_suffix(EXPECT_FAILURE) {
                    Some(r) => (r.trim_end(), true),
                    None => (l, false),
                };
                let mut words = rest.split_whitespace().skip(1);
                let (Some(file), None) = (words.next(), words.next()) else {
                    return err(line, "apply reads \"apply FILE\" (optionally followed by \"# expect failure\")");
                };
                out.push(Action::Apply { file: file.to_string(), expect_failure });
            }
            "settle" => {
                if words.next().is_some() {
                    return err(line, "settle takes no argument");
                }
                out.push(Action::Settle);
            }
            "step" => match words.next() {
                None => out.push(Action::Step(1)),
                Some("until") => {
                    let rest = l.split_once("until").map(|x| x.1).unwrap_or("").trim();
                    let c = goal::parse_check(rest).map_err(|m| ParseError { line, message: m })?;
                    out.push(Action::StepUntil(c));
                }
                Some(n) => match n.parse::<u32>() {
                    Ok(n) if (1..=STEP_UNTIL_CAP).contains(&n) && words.next().is_none() => out.push(Action::Step(n)),
                    _ => return err(line, format!("step takes a count from 1 to {STEP_UNTIL_CAP}, or \"until CHECK\"")),
                },
            },
            other => {
                return err(
                    line,
                    format!(
                        "unknown solution action {other:?} (known: kubectl, lab, edit FILE <<EOF, apply FILE, step [N], step until CHECK, settle)"
                    ),
                )
            }
        }
    }
    if out.is_empty() {
        return err(first_line, "the solution block is empty");
    }
    Ok(out)
}
