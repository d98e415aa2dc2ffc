//! Lesson Markdown: the small part of Markdown that lesson text (the introduction, explanations,
//! instructions, goals and hints) may use, parsed into blocks that the page renders as elements,
//! never as HTML (`docs/lessons.md`, "Text").
//!
//! - Blocks: paragraphs (lines joined by a space, blank-line separated), bullet lists (`- ` or
//!   `* `), numbered lists (`1. `), figures (`![alt text](figures/NAME.svg "Caption")` on a line
//!   of its own: an SVG of `lessons/figures/`, which the build copies next to the page) and fenced
//!   code blocks.
//! - Inline: `` `code` ``, `**strong**` and links `[text](target)`. A target is `http://`,
//!   `https://` or relative (`#/lessons/work-queue`); anything else (`javascript:`, `data:`,
//!   `//host`, a backslash, a space) stays text, exactly as written.
//!
//! [`parse`] never fails: what it cannot use stays text, and each such place is reported as a
//! [`Problem`] with its line, which the lesson parser (`format::parse`) turns into a lesson-format
//! error. So a shipped lesson cannot hold a malformed figure or a refused link, and the page
//! renders whatever it is given without panicking.

/// A piece of a line of text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Inline {
    /// Plain text.
    Text(String),
    /// `` `code` ``.
    Code(String),
    /// `**strong**`.
    Strong(String),
    /// `[text](href)`. `external`: an `http(s)` link, which the page opens in a new tab with
    /// `rel="noopener noreferrer"` (the lesson's cluster stays where it is).
    Link { text: String, href: String, external: bool },
}

/// A block of lesson text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// A paragraph.
    Paragraph(Vec<Inline>),
    /// A list; `start` is the first number of a numbered list (`None`: bullets).
    List { start: Option<u32>, items: Vec<Vec<Inline>> },
    /// An image with its alt text and an optional caption. `src` is `figures/NAME.svg`.
    Figure { src: String, alt: String, caption: Vec<Inline> },
    /// A fenced code block's text.
    Code(String),
}

/// Something in the text that is shown as plain text instead of what the author meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The line, counted from 0 at the text's first line.
    pub line: usize,
    /// What is wrong, for the author.
    pub message: String,
}

/// The form a figure line takes, for messages.
pub const FIGURE_FORM: &str = "![what the picture shows](figures/NAME.svg \"Caption\")";

/// A list item's marker: `Some(number)` for `3. `, `None` for `- ` or `* `; and the text after it.
fn list_marker(line: &str) -> Option<(Option<u32>, &str)> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return Some((None, rest));
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let rest = line[digits..].strip_prefix(". ")?;
    // Markdown's limit: at most nine digits.
    let n = (1..=9).contains(&digits).then(|| line[..digits].parse::<u32>().ok()).flatten()?;
    Some((Some(n), rest))
}

/// The blocks of a text, and the problems found in it (see the module documentation).
pub fn parse(text: &str) -> (Vec<Block>, Vec<Problem>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut problems = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        let trimmed = line.trim_start();
        if trimmed.is_empty() {
            i += 1;
        } else if trimmed.starts_with("```") {
            let open = i;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                body.push(lines[i]);
                i += 1;
            }
            if i == lines.len() {
                problems.push(Problem { line: open, message: "the code block opened here is never closed".into() });
            }
            i += 1;
            blocks.push(Block::Code(body.join("\n")));
        } else if trimmed.starts_with("![") {
            match figure(trimmed, i, &mut problems) {
                Some(f) => blocks.push(f),
                None => blocks.push(Block::Paragraph(vec![Inline::Text(trimmed.to_string())])),
            }
            i += 1;
        } else if let Some((number, _)) = list_marker(trimmed) {
            let indent = |l: &str| l.len() - l.trim_start().len();
            let base = indent(line);
            let same_kind = |l: &str| {
                list_marker(l.trim()).filter(|(n, _)| n.is_some() == number.is_some() && indent(l) <= base).is_some()
            };
            let mut items: Vec<(Lines, String)> = Vec::new();
            while i < lines.len() {
                let l = lines[i].trim_end();
                let t = l.trim_start();
                if t.is_empty() {
                    // A blank line inside a list: the list goes on if its next item follows.
                    match lines.get(i + 1) {
                        Some(next) if same_kind(next) => i += 1,
                        _ => break,
                    }
                } else if same_kind(l) {
                    let rest = list_marker(t).map_or("", |(_, rest)| rest);
                    items.push((vec![(0, i)], rest.trim().to_string()));
                    i += 1;
                } else if indent(l) <= base && list_marker(t).is_some() || t.starts_with("```") || t.starts_with("![") {
                    // Another kind of list, a code block or a figure ends this one.
                    break;
                } else {
                    // Anything else continues the item, indented or not.
                    if list_marker(t).is_some() {
                        problems.push(Problem {
                            line: i,
                            message: "lists do not nest in lesson text: write one list, or a paragraph".into(),
                        });
                    }
                    if let Some((at, item)) = items.last_mut() {
                        item.push(' ');
                        at.push((item.len(), i));
                        item.push_str(t);
                    }
                    i += 1;
                }
            }
            let items = items.into_iter().map(|(at, text)| inline_checked(&text, &at, &mut problems)).collect();
            blocks.push(Block::List { start: number, items });
        } else {
            let start = i;
            let mut text = String::new();
            let mut at: Lines = Vec::new();
            while i < lines.len() {
                let l = lines[i].trim();
                let ends = l.is_empty() || l.starts_with("```") || l.starts_with("![") || list_marker(l).is_some();
                if ends && i > start {
                    break;
                }
                if !text.is_empty() {
                    text.push(' ');
                }
                at.push((text.len(), i));
                text.push_str(l);
                i += 1;
            }
            blocks.push(Block::Paragraph(inline_checked(&text, &at, &mut problems)));
        }
    }
    (blocks, problems)
}

/// The blocks of a text (see [`parse`]).
pub fn blocks(text: &str) -> Vec<Block> {
    parse(text).0
}

/// Whether `src` names an SVG of `lessons/figures/`: `figures/NAME.svg`, NAME lowercase letters,
/// digits and inner dashes.
pub fn valid_figure_src(src: &str) -> bool {
    src.strip_prefix("figures/").and_then(|f| f.strip_suffix(".svg")).is_some_and(|name| {
        !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !name.starts_with('-')
            && !name.ends_with('-')
    })
}

/// A figure line: `![alt](figures/NAME.svg)` or `![alt](figures/NAME.svg "Caption")`.
fn figure(line: &str, at: usize, problems: &mut Vec<Problem>) -> Option<Block> {
    let mut bad = |message: String| {
        problems.push(Problem { line: at, message });
        None
    };
    let Some((alt, rest)) = line[2..].split_once("](") else {
        return bad(format!("a figure reads {FIGURE_FORM}, on a line of its own"));
    };
    let Some(inner) = rest.strip_suffix(')') else {
        return bad(format!(
            "a figure reads {FIGURE_FORM}, on a line of its own (nothing after the closing parenthesis)"
        ));
    };
    let (src, caption) = match inner.split_once(' ') {
        None => (inner, ""),
        Some((src, caption)) => match caption.trim().strip_prefix('"').and_then(|c| c.strip_suffix('"')) {
            Some(c) if !c.trim().is_empty() => (src, c.trim()),
            _ => return bad(format!("a figure's caption is quoted: {FIGURE_FORM}")),
        },
    };
    if alt.trim().is_empty() {
        return bad(format!("a figure needs alt text saying what the picture shows: {FIGURE_FORM}"));
    }
    if !valid_figure_src(src) {
        return bad(format!(
            "figure {src:?}: a figure is an SVG file of lessons/figures/, written figures/NAME.svg (NAME: lowercase letters, digits and dashes)"
        ));
    }
    Some(Block::Figure {
        src: src.to_string(),
        alt: alt.trim().to_string(),
        caption: inline_checked(caption, &[(0, at)], problems),
    })
}

/// Whether a link target is allowed, and if so whether it leaves the site: `http(s)://host...`
/// (external) or a relative reference (no scheme). Refused: any other scheme (`javascript:`,
/// `data:`, `mailto:`), a protocol-relative `//host` (another site, with no scheme to check),
/// and any space, control character, quote, angle bracket or backslash (browsers strip or
/// rewrite those: `java\tscript:` runs, `/\host` goes to another host).
pub fn link_target(href: &str) -> Option<bool> {
    if href.is_empty() || href.chars().any(|c| c.is_whitespace() || c.is_control() || "<>\"'`\\".contains(c)) {
        return None;
    }
    let lower = href.to_ascii_lowercase();
    for scheme in ["https://", "http://"] {
        if let Some(host) = lower.strip_prefix(scheme) {
            return (!host.is_empty() && !host.starts_with('/')).then_some(true);
        }
    }
    if href.starts_with("//") {
        return None;
    }
    // A relative reference has no scheme: no ':' before its first '/', '?' or '#'.
    let head = href.split(['/', '?', '#']).next().unwrap_or("");
    (!head.contains(':')).then_some(false)
}

/// The [`Inline`] pieces of one line (problems ignored: what cannot be used stays text).
pub fn inline(text: &str) -> Vec<Inline> {
    inline_checked(text, &[(0, 0)], &mut Vec::new())
}

/// Where the lines joined into one text start: `(byte offset in the text, line)`, in order.
type Lines = Vec<(usize, usize)>;

/// The [`Inline`] pieces of `text`, whose lines start as `lines` says; problems go to `problems`
/// with the line they are on.
fn inline_checked(text: &str, lines: &[(usize, usize)], problems: &mut Vec<Problem>) -> Vec<Inline> {
    let line_at = |rest: &str| {
        let offset = text.len() - rest.len();
        lines.iter().take_while(|(start, _)| *start <= offset).last().map_or(0, |(_, line)| *line)
    };
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest.starts_with('[') {
            if let Some((label, href, len)) = link_at(rest) {
                match link_target(href) {
                    Some(external) => {
                        if plain.ends_with('!') {
                            problems.push(Problem {
                                line: line_at(rest),
                                message: format!("a figure stands on a line of its own: {FIGURE_FORM}"),
                            });
                        }
                        if !plain.is_empty() {
                            out.push(Inline::Text(std::mem::take(&mut plain)));
                        }
                        out.push(Inline::Link { text: label.to_string(), href: href.to_string(), external });
                    }
                    None => {
                        problems.push(Problem {
                            line: line_at(rest),
                            message: format!(
                                "link target {href:?} is not allowed: lesson links are http://, https:// or relative (#/lessons/...)"
                            ),
                        });
                        plain.push_str(&rest[..len]);
                    }
                }
                rest = &rest[len..];
                continue;
            }
        }
        let (marker, make): (&str, fn(String) -> Inline) = if rest.starts_with("**") {
            ("**", Inline::Strong)
        } else if rest.starts_with('`') {
            ("`", Inline::Code)
        } else {
            let c = rest.chars().next().unwrap_or_default();
            plain.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        match rest[marker.len()..].find(marker) {
            Some(end) => {
                if !plain.is_empty() {
                    out.push(Inline::Text(std::mem::take(&mut plain)));
                }
                out.push(make(rest[marker.len()..marker.len() + end].to_string()));
                rest = &rest[marker.len() * 2 + end..];
            }
            None => {
                plain.push_str(marker);
                rest = &rest[marker.len()..];
            }
        }
    }
    if !plain.is_empty() {
        out.push(Inline::Text(plain));
    }
    out
}

/// A link at the start of `s` (`[label](href)`, the label without brackets, the target with
/// balanced parentheses): `(label, href, bytes used)`.
fn link_at(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find(']')?;
    let label = &s[1..close];
    if label.is_empty() || label.contains('[') {
        return None;
    }
    let after = s[close + 1..].strip_prefix('(')?;
    let mut depth = 0usize;
    for (j, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some((label, &after[..j], close + 2 + j + 1)),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use Inline::*;

    fn text(s: &str) -> Inline {
        Text(s.into())
    }

    #[test]
    fn inline_pieces() {
        assert_eq!(
            inline("Run `kubectl get pods` to see **Pods**, a `b"),
            vec![
                text("Run "),
                Code("kubectl get pods".into()),
                text(" to see "),
                Strong("Pods".into()),
                text(", a `b")
            ]
        );
    }

    #[test]
    fn paragraphs_join_lines_and_split_on_blank_lines() {
        let (b, p) = parse("a\nb\n\n\nc");
        assert_eq!(b, vec![Block::Paragraph(vec![text("a b")]), Block::Paragraph(vec![text("c")])]);
        assert!(p.is_empty());
    }

    #[test]
    fn bullet_lists_with_continuation_lines() {
        let src = "How a delete cascades:\n\n- `background`: at once;\n  then the rest.\n- `foreground`: waits.\n\n* orphan\n\nAfter.";
        let (b, p) = parse(src);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            b,
            vec![
                Block::Paragraph(vec![text("How a delete cascades:")]),
                Block::List {
                    start: None,
                    items: vec![
                        vec![Code("background".into()), text(": at once; then the rest.")],
                        vec![Code("foreground".into()), text(": waits.")],
                        // A blank line between items keeps one list.
                        vec![text("orphan")],
                    ]
                },
                Block::Paragraph(vec![text("After.")]),
            ]
        );
    }

    #[test]
    fn a_list_may_follow_a_paragraph_line_directly() {
        let (b, _) = parse("Three things:\n- one\n- two");
        assert_eq!(b.len(), 2);
        assert!(matches!(&b[1], Block::List { start: None, items } if items.len() == 2));
    }

    #[test]
    fn numbered_lists_keep_their_first_number() {
        let (b, p) = parse("3. watch\n4. queue\n\n- other");
        assert!(p.is_empty());
        assert_eq!(b[0], Block::List { start: Some(3), items: vec![vec![text("watch")], vec![text("queue")]] });
        assert!(matches!(&b[1], Block::List { start: None, .. }), "bullets after numbers start a new list");
        // Not list markers: no space, too many digits, a number inside a sentence.
        for line in ["3.5 replicas", "1234567890. x", "-x", "**bold** start"] {
            assert!(matches!(parse(line).0[0], Block::Paragraph(_)), "{line}");
        }
    }

    #[test]
    fn nested_lists_are_a_problem_and_stay_text() {
        let (b, p) = parse("- a\n  - b");
        assert_eq!(b, vec![Block::List { start: None, items: vec![vec![text("a - b")]] }]);
        assert_eq!(
            p,
            vec![Problem {
                line: 1,
                message: "lists do not nest in lesson text: write one list, or a paragraph".into()
            }]
        );
    }

    #[test]
    fn links_http_https_and_relative() {
        assert_eq!(
            inline(
                "See [the docs](https://kubernetes.io/docs/concepts/) and [the queue lesson](#/lessons/work-queue)."
            ),
            vec![
                text("See "),
                Link { text: "the docs".into(), href: "https://kubernetes.io/docs/concepts/".into(), external: true },
                text(" and "),
                Link { text: "the queue lesson".into(), href: "#/lessons/work-queue".into(), external: false },
                text("."),
            ]
        );
        // Balanced parentheses stay in the target.
        assert_eq!(
            inline("[w](https://en.wikipedia.org/wiki/Finalizer_(computing))"),
            vec![Link {
                text: "w".into(),
                href: "https://en.wikipedia.org/wiki/Finalizer_(computing)".into(),
                external: true
            }]
        );
        for ok in
            ["http://example.com", "HTTPS://EXAMPLE.COM/x", "figures/a.svg", "../x", "/docs", "?q=1", "#top", "a/b:c"]
        {
            assert!(link_target(ok).is_some(), "{ok}");
        }
    }

    #[test]
    fn hostile_links_stay_text_as_written() {
        for (src, target) in [
            ("[x](javascript:alert(1))", "javascript:alert(1)"),
            ("[x](JavaScript:alert(1))", "JavaScript:alert(1)"),
            ("[x](java\tscript:alert(1))", "java\tscript:alert(1)"),
            ("[x](data:text/html,<script>alert(1)</script>)", "data:text/html,<script>alert(1)</script>"),
            ("[x](vbscript:msgbox)", "vbscript:msgbox"),
            ("[x](mailto:a@example.com)", "mailto:a@example.com"),
            ("[x](//evil.example)", "//evil.example"),
            ("[x](/\\evil.example)", "/\\evil.example"),
            ("[x](https://)", "https://"),
            ("[x](https:///evil)", "https:///evil"),
            ("[x](\" onmouseover=\"alert(1))", "\" onmouseover=\"alert(1)"),
        ] {
            let (b, p) = parse(src);
            assert_eq!(b, vec![Block::Paragraph(vec![text(src)])], "{src}");
            assert_eq!(p.len(), 1, "{src}");
            assert!(p[0].message.starts_with(&format!("link target {target:?} is not allowed")), "{}", p[0].message);
        }
        // Not links at all: stay text, no problem.
        for src in ["[x]", "[x] (y)", "[](y)", "[x](y", "a ] b ( c )"] {
            let (b, p) = parse(src);
            assert_eq!(b, vec![Block::Paragraph(vec![text(src)])], "{src}");
            assert!(p.is_empty(), "{src}");
        }
    }

    #[test]
    fn figures_with_alt_text_and_caption() {
        let (b, p) = parse(
            "Before.\n![A loop: watch, cache, queue, reconcile](figures/controller-loop.svg \"The loop, `step` by step\")\nAfter.",
        );
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            b,
            vec![
                Block::Paragraph(vec![text("Before.")]),
                Block::Figure {
                    src: "figures/controller-loop.svg".into(),
                    alt: "A loop: watch, cache, queue, reconcile".into(),
                    caption: vec![text("The loop, "), Code("step".into()), text(" by step")],
                },
                Block::Paragraph(vec![text("After.")]),
            ]
        );
        let (b, p) = parse("![The queue](figures/work-queue.svg)");
        assert!(p.is_empty());
        assert!(matches!(&b[0], Block::Figure { caption, .. } if caption.is_empty()));
    }

    #[test]
    fn malformed_figures_are_problems_and_stay_text() {
        for (src, says) in [
            ("![](figures/a.svg)", "needs alt text"),
            ("![  ](figures/a.svg \"c\")", "needs alt text"),
            ("![a](https://example.com/a.svg)", "is an SVG file of lessons/figures/"),
            ("![a](figures/../../secret.svg)", "is an SVG file of lessons/figures/"),
            ("![a](figures/a.png)", "is an SVG file of lessons/figures/"),
            ("![a](javascript:alert(1))", "is an SVG file of lessons/figures/"),
            ("![a](figures/a.svg caption)", "caption is quoted"),
            ("![a](figures/a.svg \"\")", "caption is quoted"),
            ("![a](figures/a.svg) and more", "nothing after the closing parenthesis"),
            ("![a] figures/a.svg", "a figure reads"),
        ] {
            let (b, p) = parse(src);
            assert_eq!(b, vec![Block::Paragraph(vec![text(src)])], "{src}");
            assert_eq!(p.len(), 1, "{src}: {p:?}");
            assert!(p[0].message.contains(says), "{src}: {}", p[0].message);
        }
        // An image inside a sentence is not a figure.
        let (_, p) = parse("See ![a](figures/a.svg) here.");
        assert!(p[0].message.starts_with("a figure stands on a line of its own"), "{p:?}");
    }

    #[test]
    fn code_blocks_keep_their_lines() {
        let (b, p) = parse("Run:\n```console\nkubectl get pods\nlab step\n```\nThen.");
        assert!(p.is_empty());
        assert_eq!(b[1], Block::Code("kubectl get pods\nlab step".into()));
        let (_, p) = parse("```\nnever closed");
        assert_eq!(p[0].line, 0);
    }

    #[test]
    fn problems_carry_their_line() {
        let (_, p) = parse("ok\n\n- fine\n- [x](javascript:1)\n\n![](figures/a.svg)");
        assert_eq!(p.iter().map(|p| p.line).collect::<Vec<_>>(), vec![3, 5]);
    }
}
