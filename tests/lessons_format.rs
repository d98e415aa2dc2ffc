//! The lesson file format: every shipped lesson parses; malformed files give errors with the
//! right line; nothing panics.

use proptest::prelude::*;
use reconcile_lab::lessons::markdown::{self, Block, Inline};
use reconcile_lab::lessons::{self, format, Action, Check};

const GOOD: &str = r#"# A tiny lesson

slug: tiny
summary: One step.
seed: 42

Intro text.

## Setup

```console
lab settle
kubectl apply -f - <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
EOF
```

## File cm.yaml

```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: d
```

## Step: Make it

Explanation.

```yaml
shown: as text
```

Instruction: Apply cm.yaml.

Goal made: The ConfigMap d exists.
Check: exists configmap d

Hint: Press Apply.

```solution
apply cm.yaml
step 2
step until exists cm d
settle
```

## Puzzle: Free play

Goal free: Something.
Check: exists configmap e and not absent cm d

Hint: Think.

```solution
kubectl create configmap e
```
"#;

#[test]
fn every_shipped_lesson_parses_and_matches_its_slug() {
    let all = lessons::catalog();
    assert_eq!(all.len(), 10);
    for (r, (slug, _)) in all.into_iter().zip(lessons::LESSON_FILES) {
        let l = r.unwrap_or_else(|(s, e)| panic!("lessons/{s}.md: {e}"));
        assert_eq!(l.slug, slug);
        assert!(!l.steps.is_empty());
        assert!(l.steps.iter().all(|s| !s.goals.is_empty() && !s.solution.is_empty()));
    }
}

#[test]
fn the_challenges_have_at_least_five_puzzles_with_hints() {
    let l = lessons::lesson("challenges").expect("listed").expect("parses");
    let puzzles: Vec<_> = l.steps.iter().filter(|s| s.puzzle).collect();
    assert!(puzzles.len() >= 5, "{} puzzles", puzzles.len());
    assert!(puzzles.iter().all(|p| p.instruction.is_empty() && !p.hints.is_empty()));
}

#[test]
fn the_issue_seed_commands_appear_verbatim() {
    let text = |slug: &str| lessons::LESSON_FILES.iter().find(|(s, _)| *s == slug).map(|(_, t)| *t).unwrap_or("");
    assert!(text("list-and-watch").contains("kubectl get deploy web --watch --output-watch-events -o name"));
    assert!(text("generation")
        .contains("kubectl get deploy web -o jsonpath='{.metadata.generation} {.status.observedGeneration}'"));
    assert!(text("garbage-collection").contains("-o jsonpath='{.metadata.ownerReferences[0].kind}'"));
    assert!(text("finalizers")
        .contains("kubectl get ns old -o jsonpath='{.spec.finalizers} {.status.conditions[*].message}'"));
    assert!(text("leader-election").contains("kubectl get lease -n kube-system"));
}

#[test]
fn a_good_file_parses_into_its_parts() {
    let l = format::parse(GOOD).expect("parses");
    assert_eq!((l.slug.as_str(), l.title.as_str(), l.seed), ("tiny", "A tiny lesson", 42));
    assert_eq!(l.intro, "Intro text.");
    assert_eq!(l.setup.len(), 2);
    assert!(l.setup[1].starts_with("kubectl apply -f - <<EOF\n") && l.setup[1].ends_with("\nEOF"));
    assert_eq!(
        l.files,
        vec![("cm.yaml".to_string(), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n".to_string())]
    );
    let s = &l.steps[0];
    assert!(!s.puzzle);
    assert!(s.explanation.contains("```yaml"));
    assert_eq!(s.instruction, "Apply cm.yaml.");
    assert_eq!(s.hints, vec!["Press Apply.".to_string()]);
    assert_eq!(s.solution.len(), 4);
    assert_eq!(s.solution[0], Action::Apply { file: "cm.yaml".into(), expect_failure: false });
    assert_eq!(s.solution[1], Action::Step(2));
    assert!(matches!(s.solution[2], Action::StepUntil(Check::Exists(_))));
    assert_eq!(s.solution[3], Action::Settle);
    assert!(l.steps[1].puzzle);
    assert!(matches!(l.steps[1].goals[0].check, Check::All(ref v) if v.len() == 2));
    assert_eq!(l.goal("free").map(|(i, g)| (i, g.text.as_str())), Some((1, "Something.")));
    assert!(l.goal("nothing").is_none());
}

/// Replaces `from` in GOOD and expects an error at `line` whose text contains `needle`.
fn broken(from: &str, to: &str, line: usize, needle: &str) {
    assert!(GOOD.contains(from), "fixture lacks {from:?}");
    let text = GOOD.replacen(from, to, 1);
    let e = format::parse(&text).expect_err("must fail");
    assert_eq!(e.line, line, "{e}");
    assert!(e.message.contains(needle), "{e}");
    assert!(e.to_string().starts_with(&format!("line {line}: ")), "{e}");
}

#[test]
fn errors_name_their_line() {
    broken("# A tiny lesson", "A tiny lesson", 1, "starts with its title");
    broken("slug: tiny", "slug: Tiny!", 3, "slug \"Tiny!\"");
    broken("seed: 42", "seed: many", 5, "not a whole number");
    broken("seed: 42", "colour: red", 5, "unknown header field \"colour\"");
    broken("summary: One step.\n", "", 5, "needs \"summary: ...\"");
    broken("## Setup", "## Setpu", 9, "unknown section \"Setpu\"");
    broken("```console", "```sh", 11, "one ```console block");
    broken("Check: exists configmap d", "Check: exists widget d", 41, "unknown kind \"widget\"");
    broken("Check: exists configmap d", "Check: exist configmap d", 41, "unknown check \"exist\"");
    broken("Goal made: The ConfigMap d exists.\nCheck: exists configmap d\n", "", 30, "has no goal");
    broken("Goal made:", "Goal Made:", 40, "goal id \"Made\"");
    broken("apply cm.yaml", "apply other.yaml", 30, "file \"other.yaml\"");
    broken("step 2", "step 0", 47, "step takes a count");
    broken("step 2", "dance", 47, "unknown solution action \"dance\"");
    broken("Instruction: Apply cm.yaml.\n", "", 30, "no \"Instruction:\"");
    broken("Hint: Think.", "Instruction: Do it.", 57, "a Puzzle has no Instruction");
    broken("Goal free:", "Goal made:", 54, "goal id \"made\" is used twice");
    broken(
        "Hint: Press Apply.\n",
        "Hint: Press Apply.\nMore prose.\n\nStray prose.\n",
        46,
        "explanation text comes before",
    );
}

#[test]
fn lists_links_and_figures_in_lesson_text() {
    let text = GOOD.replacen(
        "Explanation.\n",
        "Explanation:\n\n- one, see [the docs](https://kubernetes.io/docs/);\n- two.\n\n![The loop](figures/controller-loop.svg \"The loop\")\n",
        1,
    );
    let l = format::parse(&text).expect("parses");
    let b = markdown::blocks(&l.steps[0].explanation);
    assert!(matches!(&b[1], Block::List { start: None, items } if items.len() == 2), "{b:?}");
    let Block::List { items, .. } = &b[1] else { unreachable!() };
    assert!(items[0].contains(&Inline::Link {
        text: "the docs".into(),
        href: "https://kubernetes.io/docs/".into(),
        external: true
    }));
    assert!(
        matches!(&b[2], Block::Figure { src, alt, .. } if src == "figures/controller-loop.svg" && alt == "The loop")
    );
    assert!(matches!(&b[3], Block::Code(t) if t == "shown: as text"), "{b:?}");
}

#[test]
fn refused_links_and_malformed_figures_are_errors_on_their_line() {
    broken(
        "Intro text.",
        "Intro [x](javascript:alert(1)) text.",
        7,
        "link target \"javascript:alert(1)\" is not allowed",
    );
    broken("Intro text.", "Intro text.\n\n![](figures/a.svg)", 9, "needs alt text");
    broken("Explanation.", "Explanation.\n\n- a\n- [b](data:text/html,x)", 35, "link target \"data:text/html,x\"");
    broken("Explanation.", "\n![a](https://example.com/a.svg)", 33, "lessons/figures/");
    broken("Explanation.", "Explanation.\n- a\n  - b", 34, "lists do not nest");
    broken("Instruction: Apply cm.yaml.", "Instruction: Apply\n[it](vbscript:x).", 39, "link target");
    broken(
        "Goal made: The ConfigMap d exists.",
        "Goal made: The [ConfigMap](//evil.example) exists.",
        40,
        "link target",
    );
    broken("Hint: Think.", "Hint: See ![a](figures/a.svg) here.", 57, "a figure stands on a line of its own");
}

#[test]
fn every_figure_a_lesson_shows_is_an_svg_in_lessons_figures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons");
    let mut shown = 0;
    for l in lessons::catalog().into_iter().map(|r| r.expect("parses")) {
        let texts = std::iter::once(&l.intro).chain(l.steps.iter().flat_map(|s| [&s.explanation, &s.instruction]));
        for b in texts.flat_map(|t| markdown::blocks(t)) {
            if let Block::Figure { src, alt, .. } = b {
                let svg = std::fs::read_to_string(dir.join(&src)).unwrap_or_else(|e| panic!("{}: {src}: {e}", l.slug));
                assert!(svg.trim_start().starts_with("<svg") && svg.contains("viewBox"), "{src}");
                assert!(!svg.contains("<script") && !svg.contains("href="), "{src}: figures are drawings only");
                assert!(alt.len() >= 20, "{}: the alt text of {src} says what it shows", l.slug);
                shown += 1;
            }
        }
    }
    assert!(shown >= 1, "at least one lesson shows a figure");
}

#[test]
fn unclosed_blocks_and_empty_files_are_errors() {
    let unclosed = GOOD.trim_end().strip_suffix("```").expect("ends with a fence");
    let e = format::parse(unclosed).expect_err("unclosed");
    assert!(e.message.contains("never closed"), "{e}");
    assert_eq!(e.line, 59, "{e}");
    // A fence left open in the middle swallows what follows; the error still points at a line.
    let e = format::parse(&GOOD.replacen("settle\n```", "settle\n", 1)).expect_err("swallowed");
    assert!(e.line > 50, "{e}");
    assert_eq!(format::parse("").expect_err("empty").line, 1);
    let e = format::parse("# T\nslug: t\nsummary: s\n").expect_err("no steps");
    assert!(e.message.contains("no \"## Step:\""), "{e}");
    let huge = "x".repeat(format::MAX_LESSON_BYTES + 1);
    assert_eq!(format::parse(&huge).expect_err("huge").line, 0);
}

#[test]
fn a_missing_heredoc_end_is_an_error() {
    let e = format::parse(&GOOD.replacen("  name: c\nEOF\n", "  name: c\n", 1)).expect_err("unterminated");
    assert_eq!(e.line, 13, "{e}");
    assert!(e.message.contains("never reaches its EOF line"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Arbitrary text never panics the parser.
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        let _ = format::parse(&s);
        let _ = markdown::parse(&s);
    }

    /// Text made of Markdown's own characters never panics lesson Markdown, and every problem
    /// points inside the text.
    #[test]
    fn markdown_soup_never_panics(s in "[\\[\\]()!*`\\- 0-9.\n\t a-z:/\"#\\\\é]{0,300}") {
        let (_, problems) = markdown::parse(&s);
        for p in problems {
            prop_assert!(p.line < s.lines().count().max(1), "{:?}", p);
        }
    }

    /// Lines of a real lesson, cut, shuffled and duplicated, never panic the parser, and every
    /// error points inside the file.
    #[test]
    fn mangled_lessons_never_panic(picks in proptest::collection::vec((0usize..200, 0usize..40), 0..120)) {
        let source: Vec<&str> = GOOD.lines().chain(lessons::LESSON_FILES[4].1.lines()).collect();
        let mut text = String::new();
        for (i, cut) in picks {
            let l = source[i % source.len()];
            let end = l.char_indices().map(|(k, _)| k).chain([l.len()]).find(|&k| k >= cut.min(l.len())).unwrap_or(0);
            text.push_str(&l[..end]);
            text.push('\n');
        }
        if let Err(e) = format::parse(&text) {
            prop_assert!(e.line <= text.lines().count() + 1, "{}", e);
        }
    }
}
