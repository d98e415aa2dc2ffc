//! `index.html`'s home view is plain HTML generated from the lesson catalog
//! (`reconcile_lab::site`): this test fails when the two drift apart. After changing a lesson's
//! title or summary, or the generator, rewrite the page with
//!
//! ```sh
//! UPDATE_HOME=1 cargo test --test home_page
//! ```
//!
//! and commit `index.html` with the change.

use std::path::PathBuf;

use reconcile_lab::lessons::Progress;
use reconcile_lab::session::lesson::summaries;
use reconcile_lab::site::{escape, home_section, with_home_section, HOME_END, HOME_START};

fn index_html() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("index.html")
}

#[test]
fn index_html_holds_the_home_generated_from_the_catalog() {
    let path = index_html();
    let page = std::fs::read_to_string(&path).expect("index.html is readable");
    let expected = with_home_section(&page)
        .unwrap_or_else(|| panic!("index.html must hold one `{HOME_START}` line, then `{HOME_END}`"));
    if std::env::var_os("UPDATE_HOME").is_some() {
        if expected != page {
            std::fs::write(&path, &expected).expect("index.html is writable");
        }
        return;
    }
    assert!(
        expected == page,
        "index.html's home section differs from the lesson catalog; run `UPDATE_HOME=1 cargo test --test home_page` \
         and commit index.html.\nExpected section:\n{}",
        home_section(4)
    );
}

#[test]
fn the_home_lists_every_lesson_with_a_link_and_its_progress_line() {
    let html = home_section(0);
    let lessons = summaries(&Progress::new());
    assert_eq!(lessons.len(), 10, "the ten lessons");
    for l in &lessons {
        assert!(html.contains(&format!(r##"href="#/lessons/{}">{}</a>"##, l.slug, escape(&l.title))), "{}", l.slug);
        assert!(html.contains(&format!(r#"id="progress-{}">0 of {} goals</p>"#, l.slug, l.total)), "{}", l.slug);
        assert!(l.total > 0, "{} has goals", l.slug);
    }
    assert!(html.contains(r##"<a href="#/sandbox">Open the sandbox</a>"##));
    assert_eq!(html.matches("<li ").count(), lessons.len());
}

#[test]
fn boot_js_reads_the_progress_key_the_app_writes() {
    // public/boot.js starts the app at once on the home page for a visitor with saved progress
    // (docs/size.md): it must look under the key src/web/storage.rs writes.
    let boot = std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("public/boot.js"))
        .expect("public/boot.js is readable");
    let key = reconcile_lab::session::saved::PROGRESS_KEY;
    assert!(boot.contains(&format!("const PROGRESS_KEY = \"{key}\";")), "boot.js must read {key:?}");
}

#[test]
fn progress_lines_say_how_many_goals_are_met_and_when_a_lesson_is_complete() {
    // The app writes these into the static list (src/web/lessons/mod.rs, show_progress).
    let line = |met, total| {
        reconcile_lab::session::lesson::LessonSummary {
            slug: "s".into(),
            title: "t".into(),
            summary: String::new(),
            met,
            total,
        }
        .progress()
    };
    assert_eq!(line(2, 5), "2 of 5 goals");
    assert_eq!(line(0, 5), "0 of 5 goals");
    assert_eq!(line(5, 5), "Complete: 5 of 5 goals");
    assert_eq!(line(0, 0), "0 of 0 goals");
}
