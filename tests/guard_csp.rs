//! Every page the site ships carries a strict Content-Security-Policy, and no source of the page
//! writes markup from strings (issue 10, "Injection").
//!
//! - Each HTML page (the repository root's `*.html`, which Trunk builds, and `public/*.html`,
//!   copied as they are) has a `<meta http-equiv="Content-Security-Policy">` whose `script-src`
//!   allows only `'self'` and `'wasm-unsafe-eval'`, with no `'unsafe-inline'` or `'unsafe-eval'`
//!   anywhere, `object-src 'none'` and a `base-uri`; and the page itself has no inline script,
//!   inline style, or `on*=` handler attribute, which that policy would refuse.
//! - No Rust under `src/` uses web-sys's `set_inner_html` / `set_outer_html` /
//!   `insert_adjacent_html` / `set_srcdoc`, and no JavaScript or HTML under `public/` uses
//!   `innerHTML`, `outerHTML`, `insertAdjacentHTML`, `document.write`, `eval` or `new Function`:
//!   user text reaches the DOM as text nodes and attribute values only.
//!
//! The browser side (the built pages in `dist/`, and that the policy is enforced) is
//! `tests/e2e/guard-csp.test.mjs`.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_with(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files_with(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The HTML pages of the site: `index.html` and the other root pages, and `public/*.html`.
fn pages() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "html"))
        .collect();
    files_with(&root().join("public"), "html", &mut v);
    v.sort();
    v
}

/// The value of the `content` attribute of the page's CSP meta element (whitespace collapsed).
fn csp_of(html: &str) -> Option<String> {
    let lower = html.to_ascii_lowercase();
    let at = lower.find("http-equiv=\"content-security-policy\"")?;
    let start = lower[..at].rfind("<meta")?;
    let end = start + lower[start..].find('>')?;
    let tag = &html[start..end];
    let c = tag.find("content=\"")? + "content=\"".len();
    let value = &tag[c..c + tag[c..].find('"')?];
    Some(value.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `directive -> sources`.
fn directives(csp: &str) -> Vec<(String, Vec<String>)> {
    csp.split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let mut words = d.split_whitespace().map(str::to_string);
            (words.next().unwrap_or_default().to_ascii_lowercase(), words.collect())
        })
        .collect()
}

/// What is wrong with a policy, if anything.
fn problems_with_csp(csp: &str) -> Vec<String> {
    let d = directives(csp);
    let get = |name: &str| d.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let mut bad = Vec::new();
    if csp.contains("'unsafe-inline'") || csp.contains("'unsafe-eval'") || csp.contains("'unsafe-hashes'") {
        bad.push("allows unsafe-inline, unsafe-eval or unsafe-hashes".to_string());
    }
    match get("script-src").or_else(|| get("default-src")) {
        None => bad.push("no script-src (nor default-src)".into()),
        Some(sources) => {
            for s in sources {
                if s != "'self'" && s != "'wasm-unsafe-eval'" {
                    bad.push(format!("script-src allows {s}"));
                }
            }
        }
    }
    match get("default-src") {
        Some(v) if v == ["'self'"] || v == ["'none'"] => {}
        other => bad.push(format!("default-src is {other:?}, not 'self' or 'none'")),
    }
    if get("object-src").as_deref() != Some(&["'none'".to_string()][..]) {
        bad.push("object-src is not 'none'".into());
    }
    if get("base-uri").is_none() {
        bad.push("no base-uri".into());
    }
    bad
}

/// Inline scripts, inline styles and handler attributes in a page's own markup (the policy would
/// refuse them, so they would be dead code, or a reason to weaken it).
fn inline_code(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    let mut bad = Vec::new();
    let mut rest = lower.as_str();
    while let Some(i) = rest.find("<script") {
        let tag_end = rest[i..].find('>').map_or(rest.len(), |e| i + e);
        let tag = &rest[i..tag_end];
        let body_end = rest[tag_end..].find("</script").map_or(rest.len(), |e| tag_end + e);
        if !tag.contains(" src=") || rest[tag_end + 1..body_end].trim() != "" {
            bad.push(format!("inline script: {}", &tag[..tag.len().min(60)]));
        }
        rest = &rest[body_end..];
        if rest.len() <= 1 {
            break;
        }
        rest = &rest[1..];
    }
    if lower.contains("<style") {
        bad.push("a <style> element".into());
    }
    for w in [" style=\"", " style='"] {
        if lower.contains(w) {
            bad.push("a style attribute".into());
        }
    }
    for (i, _) in lower.match_indices(" on") {
        let name: String = lower[i + 1..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if name.len() > 2 && lower[i + 1 + name.len()..].starts_with('=') {
            bad.push(format!("a handler attribute {name}"));
        }
    }
    bad
}

#[test]
fn every_page_has_a_strict_csp_and_no_inline_code() {
    let pages = pages();
    assert!(pages.iter().any(|p| p.ends_with("index.html")), "index.html is among {pages:?}");
    for page in &pages {
        let html = fs::read_to_string(page).unwrap();
        let Some(csp) = csp_of(&html) else { panic!("{}: no Content-Security-Policy meta element", page.display()) };
        assert_eq!(problems_with_csp(&csp), Vec::<String>::new(), "{}: {csp}", page.display());
        assert_eq!(inline_code(&html), Vec::<String>::new(), "{}", page.display());
    }
}

#[test]
fn the_checks_refuse_weak_policies_and_inline_code() {
    let good = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'";
    assert_eq!(problems_with_csp(good), Vec::<String>::new());
    for weak in [
        "default-src 'self'; script-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'",
        "default-src 'self'; script-src 'self' https://cdn.example; object-src 'none'; base-uri 'none'",
        "default-src 'self'; script-src 'self' 'sha256-abc='; object-src 'none'; base-uri 'none'",
        "default-src *; script-src 'self'; object-src 'none'; base-uri 'none'",
        "default-src 'self'; script-src 'self'; base-uri 'none'",
        "default-src 'self'; script-src 'self'; object-src 'none'",
        "script-src 'self' 'unsafe-eval'; object-src 'none'; base-uri 'none'",
    ] {
        assert!(!problems_with_csp(weak).is_empty(), "{weak}");
    }
    let html = r#"<meta http-equiv="Content-Security-Policy"
        content="default-src 'self';
                 script-src 'self'" />"#;
    assert_eq!(csp_of(html).as_deref(), Some("default-src 'self'; script-src 'self'"));
    assert_eq!(inline_code(r#"<script type="module" src="boot.js"></script>"#), Vec::<String>::new());
    for bad in [
        "<script>alert(1)</script>",
        r#"<script src="a.js">alert(1)</script>"#,
        r#"<div style="color: red">"#,
        "<style>p{}</style>",
        r#"<body onload="go()">"#,
    ] {
        assert!(!inline_code(bad).is_empty(), "{bad}");
    }
}

/// Markup or code from strings: web-sys's names in Rust, the DOM's in JavaScript and HTML.
const FORBIDDEN_RS: [&str; 4] = ["inner_html", "outer_html", "insert_adjacent_html", "srcdoc"];
const FORBIDDEN_JS: [&str; 7] =
    ["innerhtml", "outerhtml", "insertadjacenthtml", "document.write", "eval(", "new function(", "srcdoc"];

#[test]
fn no_source_writes_markup_from_strings() {
    let mut files = Vec::new();
    files_with(&root().join("src"), "rs", &mut files);
    files_with(&root().join("public"), "js", &mut files);
    files_with(&root().join("public"), "html", &mut files);
    files.extend(pages());
    assert!(files.len() > 50, "the scan found the sources ({} files)", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap().to_ascii_lowercase();
        let forbidden: &[&str] = if f.extension().is_some_and(|x| x == "rs") { &FORBIDDEN_RS } else { &FORBIDDEN_JS };
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            // Comments may name what is forbidden (to say it is not used).
            if code.starts_with("//") || code.starts_with("*") || code.starts_with("<!--") {
                continue;
            }
            for w in forbidden {
                if code.contains(w) {
                    found.push(format!("{}:{}: {w}", f.strip_prefix(root()).unwrap_or(f).display(), n + 1));
                }
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
}
