//! The static home page: the markup of `index.html`'s home view, generated from the lesson
//! catalog so that it never drifts from `lessons/*.md`.
//!
//! The home page is plain HTML (issue 9, first load): a first-time visitor reads the lesson list
//! and follows a link without any WebAssembly; `public/boot.js` starts the app only on a lesson
//! or sandbox route (docs/size.md). The list written here is the one the Leptos home used to
//! render: the site header, every lesson's title (a link to `#/lessons/<slug>`), its summary and
//! its progress line for a learner with no saved progress, and the sandbox link. The app, once
//! started, rewrites the progress lines (their ids are `progress-<slug>`) with `set_text_content`.
//!
//! `tests/home_page.rs` checks that `index.html` holds exactly [`home_section`] between
//! [`HOME_START`] and [`HOME_END`]; `UPDATE_HOME=1 cargo test --test home_page` rewrites it.
//! Every text is escaped ([`escape`]); the only markup made from lesson text is `<code>`,
//! `<strong>` and `<a>`, from the lesson format's inline Markdown.

use crate::lessons::Progress;
use crate::session::lesson::{inline, summaries, Inline};

/// The line that opens the generated section in `index.html`.
pub const HOME_START: &str =
    "<!-- home:start: generated from lessons/*.md by `UPDATE_HOME=1 cargo test --test home_page`; do not edit -->";
/// The line that closes it.
pub const HOME_END: &str = "<!-- home:end -->";

/// Text made safe for HTML element content and double-quoted attribute values (the only kind
/// this module writes).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A lesson line's inline Markdown (`code`, **strong**, links) as escaped HTML. A link's target
/// is one the lesson format allows (`http(s)` or relative, checked by `markdown::link_target`);
/// an external one opens in a new tab without access to this page.
fn inline_html(text: &str) -> String {
    inline(text)
        .into_iter()
        .map(|piece| match piece {
            Inline::Text(t) => escape(&t),
            Inline::Code(t) => format!("<code>{}</code>", escape(&t)),
            Inline::Strong(t) => format!("<strong>{}</strong>", escape(&t)),
            Inline::Link { text, href, external: true } => format!(
                r#"<a href="{}" target="_blank" rel="noopener noreferrer">{}</a>"#,
                escape(&href),
                escape(&text)
            ),
            Inline::Link { text, href, external: false } => {
                format!(r#"<a href="{}">{}</a>"#, escape(&href), escape(&text))
            }
        })
        .collect()
}

/// The home view's markup, from [`HOME_START`] to [`HOME_END`] inclusive, each line indented by
/// `indent` spaces (index.html's body is indented by four).
pub fn home_section(indent: usize) -> String {
    let mut lines: Vec<String> = vec![
        HOME_START.into(),
        r#"<div class="home" id="home">"#.into(),
        r#"  <header class="site-header">"#.into(),
        r#"    <h1 class="site-header__title" tabindex="-1">Reconcile Lab</h1>"#.into(),
        r#"    <p class="site-header__tagline">How Kubernetes controllers really work, one event at a time.</p>"#
            .into(),
        "  </header>".into(),
        r#"  <main class="lessons-home">"#.into(),
        r#"    <p class="lessons-home__intro">A miniature Kubernetes API server and its controllers run in this page."#
            .into(),
        "      Type kubectl commands, then step through what follows one action at a time: watch events reaching"
            .into(),
        "      informers, keys waiting in work queues, a stale write answered with 409 Conflict, the garbage collector"
            .into(),
        "      walking owner references. Each lesson sets goals and checks them as you go; the sandbox has every"
            .into(),
        "      control and no goals.</p>".into(),
        "    <h2>Lessons</h2>".into(),
        r#"    <ol class="lessons-home__list">"#.into(),
    ];
    for l in summaries(&Progress::new()) {
        let slug = escape(&l.slug);
        lines.push(r#"      <li class="lessons-home__item">"#.into());
        lines.push(format!(
            r##"        <a class="lessons-home__link" href="#/lessons/{slug}">{}</a>"##,
            escape(&l.title)
        ));
        lines.push(format!("        <p>{}</p>", inline_html(&l.summary)));
        lines.push(format!(
            r#"        <p class="lessons-home__progress" id="progress-{slug}">{}</p>"#,
            escape(&l.progress())
        ));
        lines.push("      </li>".into());
    }
    lines.extend([
        "    </ol>".into(),
        "    <h2>Sandbox</h2>".into(),
        r##"    <p>The full cluster with every control, and no goals. <a href="#/sandbox">Open the sandbox</a></p>"##
            .into(),
        "  </main>".into(),
        "</div>".into(),
        HOME_END.into(),
    ]);
    let pad = " ".repeat(indent);
    lines.iter().map(|l| format!("{pad}{l}\n")).collect()
}

/// `page` with its home section replaced by [`home_section`] (indented like the start marker), or
/// `None` when the page lacks the markers (in order, once each).
pub fn with_home_section(page: &str) -> Option<String> {
    let start = page.find(HOME_START)?;
    let line_start = page[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &page[line_start..start];
    if !indent.chars().all(|c| c == ' ') || page.matches(HOME_START).count() != 1 {
        return None;
    }
    let end = start + page[start..].find(HOME_END)? + HOME_END.len();
    let after = page[end..].strip_prefix('\n').unwrap_or(&page[end..]);
    Some(format!("{}{}{after}", &page[..line_start], home_section(indent.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x">Tom & 'Jerry'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; 'Jerry'&lt;/a&gt;"
        );
    }

    #[test]
    fn inline_markdown_becomes_escaped_code_and_strong() {
        assert_eq!(inline_html("a `<b>` **c&d**"), "a <code>&lt;b&gt;</code> <strong>c&amp;d</strong>");
    }

    #[test]
    fn the_section_is_replaced_between_the_markers_only() {
        let page = format!("<body>\n    {HOME_START}\n    old\n    {HOME_END}\n  <p>after</p>\n</body>\n");
        let new = with_home_section(&page).expect("markers found");
        assert!(new.starts_with("<body>\n    <!-- home:start"));
        assert!(new.ends_with("    <!-- home:end -->\n  <p>after</p>\n</body>\n"));
        assert!(!new.contains("old"));
        assert_eq!(with_home_section(&new).as_deref(), Some(new.as_str()));
        assert_eq!(with_home_section("<body></body>"), None);
    }
}
