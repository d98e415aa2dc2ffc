//! The embed's query parameters (`embed.html?lesson=reconcile-loop&panels=console,graph`).
//!
//! Every parameter is optional. Anything unknown, repeated or malformed is ignored and named in
//! a notice the embed shows, so an author sees the mistake instead of a blank frame.

use crate::kubectl::lab::STEP_CAP;
use crate::session::share::{self, ShareError};
use crate::session::{lesson, Session};

/// The panels an author can choose, `(parameter name, region title)`, in the order the embed
/// shows them.
pub const PANELS: [(&str, &str); 12] = [
    ("map", "Control plane"),
    ("next", "What happens next"),
    ("timeline", "Timeline"),
    ("watch", "Watch events"),
    ("caches", "Informer caches"),
    ("queues", "Work queues"),
    ("graph", "Owner graph"),
    ("objects", "Objects"),
    ("leases", "Leases"),
    ("cloud", "Cloud"),
    ("editor", "Editor"),
    ("console", "Console"),
];

/// The panels shown when `panels` is absent (or names none that exist).
pub const DEFAULT_PANELS: [&str; 2] = ["Owner graph", "Console"];

/// The most steps `step=` may ask for (as many as one `lab step N`).
pub const MAX_STEP_PARAM: u64 = STEP_CAP;

/// The colour theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Theme {
    /// Follow the system setting (the default).
    #[default]
    Auto,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl Theme {
    /// The value of `data-theme` on the root element (None: no attribute, the system decides).
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::Auto => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }
}

/// What the query asked for.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EmbedConfig {
    /// `lesson=<slug>`: start from this lesson's cluster.
    pub lesson: Option<String>,
    /// `step=<n>`: take this many steps after the start.
    pub step: Option<u64>,
    /// `state=<share code>`: rebuild a shared session (then `lesson` and `step` are ignored).
    pub state: Option<String>,
    /// Region titles, in page order.
    pub panels: Vec<&'static str>,
    /// `theme=light|dark|auto`.
    pub theme: Theme,
    /// `readonly=1`: no console input, no editing (stepping still allowed).
    pub readonly: bool,
    /// `load=1`: the app loads at once instead of showing the start view (`public/boot.js`
    /// acts on it before the app exists; read here so that it is not reported as unknown).
    pub load: bool,
    /// `autoplay=1`: the app loads at once and Play starts once the embed is ready.
    pub autoplay: bool,
    /// What was ignored, and why.
    pub notices: Vec<String>,
}

/// Shortens user text for a notice (the notice is shown as text, never as markup).
fn shown(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// `%XX` and `+` decoding of one query component; None when it is not valid percent-encoded
/// UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).ok()
}

fn flag(name: &str, value: &str, notices: &mut Vec<String>) -> bool {
    match value {
        "1" | "true" => true,
        "0" | "false" => false,
        _ => {
            notices.push(format!("Ignored {name}={:?}: use {name}=1 or {name}=0.", shown(value)));
            false
        }
    }
}

/// Reads `location.search` (with or without its leading `?`). Never fails: what cannot be used
/// is ignored with a notice in [`EmbedConfig::notices`].
pub fn parse_query(search: &str) -> EmbedConfig {
    let mut c = EmbedConfig::default();
    let mut seen: Vec<String> = Vec::new();
    let query = search.strip_prefix('?').unwrap_or(search);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (raw_name, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let (Some(name), Some(value)) = (percent_decode(raw_name), percent_decode(raw_value)) else {
            c.notices.push(format!("Ignored the parameter {:?}: it is not valid URL encoding.", shown(pair)));
            continue;
        };
        if seen.contains(&name) {
            c.notices.push(format!("Ignored a second {:?} parameter.", shown(&name)));
            continue;
        }
        seen.push(name.clone());
        match name.as_str() {
            "lesson" => {
                if lesson_exists(&value) {
                    c.lesson = Some(value);
                } else {
                    c.notices.push(format!("Ignored lesson={:?}: there is no such lesson.", shown(&value)));
                }
            }
            "step" => match value.parse::<u64>() {
                Ok(n) if n <= MAX_STEP_PARAM => c.step = Some(n),
                _ => c.notices.push(format!(
                    "Ignored step={:?}: use a whole number of steps from 0 to {MAX_STEP_PARAM}.",
                    shown(&value)
                )),
            },
            "state" => {
                if value.is_empty() {
                    c.notices.push("Ignored state=: it is empty.".into());
                } else {
                    c.state = Some(value);
                }
            }
            "panels" => {
                for p in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    match PANELS.iter().find(|(n, _)| n.eq_ignore_ascii_case(p)) {
                        Some((_, title)) if !c.panels.contains(title) => c.panels.push(title),
                        Some(_) => {}
                        None => c.notices.push(format!(
                            "Ignored the panel {:?}: choose from {}.",
                            shown(p),
                            PANELS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                        )),
                    }
                }
            }
            "theme" => match value.as_str() {
                "light" => c.theme = Theme::Light,
                "dark" => c.theme = Theme::Dark,
                "auto" => c.theme = Theme::Auto,
                _ => c.notices.push(format!("Ignored theme={:?}: use light, dark or auto.", shown(&value))),
            },
            "readonly" => c.readonly = flag("readonly", &value, &mut c.notices),
            "load" => c.load = flag("load", &value, &mut c.notices),
            "autoplay" => c.autoplay = flag("autoplay", &value, &mut c.notices),
            _ => c.notices.push(format!("Ignored the unknown parameter {:?}.", shown(&name))),
        }
    }
    if c.state.is_some() && (c.lesson.is_some() || c.step.is_some()) {
        c.notices.push("Ignored lesson and step: state= already says where to start.".into());
        c.lesson = None;
        c.step = None;
    }
    // Page order, whatever order the author listed them in.
    crate::sort::sort_by_key(&mut c.panels, |t| PANELS.iter().position(|(_, title)| title == t));
    if c.panels.is_empty() {
        c.panels = DEFAULT_PANELS.to_vec();
    }
    c
}

fn lesson_exists(slug: &str) -> bool {
    crate::lessons::LESSON_FILES.iter().any(|(s, _)| *s == slug)
}

impl EmbedConfig {
    /// The session the embed starts with (and returns to on `reset`): the shared state, or the
    /// lesson (fresh, no saved progress: the embed is a demonstration) or the sandbox, then
    /// `step` steps. A state that cannot be opened gives the sandbox and the error text.
    pub fn session(&self) -> (Session, Option<ShareError>) {
        if let Some(code) = &self.state {
            return match share::restore(code) {
                Ok(s) => (s, None),
                Err(e) => (Session::sandbox(), Some(e)),
            };
        }
        let mut s = self
            .lesson
            .as_deref()
            .and_then(|slug| lesson::start(slug, &crate::lessons::Progress::new()))
            .and_then(Result::ok)
            .unwrap_or_else(Session::sandbox);
        for _ in 0..self.step.unwrap_or(0) {
            if !s.step() {
                break;
            }
        }
        (s, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_query_gives_the_defaults() {
        let c = parse_query("");
        assert_eq!(c.panels, DEFAULT_PANELS.to_vec());
        assert_eq!(c.theme, Theme::Auto);
        assert!(!c.readonly && !c.load && !c.autoplay);
        assert!(c.notices.is_empty());
        assert_eq!(parse_query("?"), c);
    }

    #[test]
    fn every_parameter_is_read() {
        let c = parse_query(
            "?lesson=conflicts&step=5&panels=console,graph%2Cqueues,watch,caches,objects,timeline,leases,cloud,editor&theme=dark&readonly=1&load=1&autoplay=true",
        );
        assert!(c.load);
        assert_eq!(c.lesson.as_deref(), Some("conflicts"));
        assert_eq!(c.step, Some(5));
        assert_eq!(c.theme, Theme::Dark);
        assert!(c.readonly && c.autoplay);
        assert_eq!(c.panels.len(), 10);
        assert_eq!(c.panels[0], "Timeline", "page order");
        assert_eq!(*c.panels.last().expect("ten"), "Console");
        assert!(c.notices.is_empty(), "{:?}", c.notices);
    }

    #[test]
    fn malformed_parameters_are_ignored_with_a_notice_each() {
        let c = parse_query(
            "lesson=nope&step=-1&panels=console,<b>x</b>&theme=pink&readonly=yes&autoplay=2&colour=red&bad=%zz&theme=dark&load=soon",
        );
        assert_eq!(c.lesson, None);
        assert_eq!(c.step, None);
        assert_eq!(c.panels, vec!["Console"]);
        assert_eq!(c.theme, Theme::Auto, "the second theme is ignored, the first was bad");
        assert!(!c.readonly && !c.autoplay);
        let n = c.notices.join("\n");
        for expected in [
            "Ignored lesson=\"nope\": there is no such lesson.",
            "Ignored step=\"-1\": use a whole number of steps from 0 to 5000.",
            "Ignored the panel \"<b>x</b>\": choose from map, next, timeline,",
            "Ignored theme=\"pink\": use light, dark or auto.",
            "Ignored readonly=\"yes\": use readonly=1 or readonly=0.",
            "Ignored autoplay=\"2\"",
            "Ignored the unknown parameter \"colour\".",
            "Ignored the parameter \"bad=%zz\": it is not valid URL encoding.",
            "Ignored a second \"theme\" parameter.",
            "Ignored load=\"soon\": use load=1 or load=0.",
        ] {
            assert!(n.contains(expected), "missing {expected:?} in\n{n}");
        }
        assert_eq!(c.notices.len(), 10, "{n}");
    }

    #[test]
    fn long_values_are_shortened_in_notices() {
        let c = parse_query(&format!("theme={}", "x".repeat(10_000)));
        assert!(c.notices[0].len() < 120, "{}", c.notices[0]);
    }

    #[test]
    fn state_wins_over_lesson_and_step() {
        let code = Session::sandbox().share_code();
        let c = parse_query(&format!("lesson=conflicts&step=3&state={code}"));
        assert_eq!(c.state.as_deref(), Some(code.as_str()));
        assert_eq!((c.lesson.clone(), c.step), (None, None));
        assert_eq!(c.notices.len(), 1);
        let (s, err) = c.session();
        assert!(err.is_none());
        assert_eq!(s.world().position(), 0);
    }

    #[test]
    fn the_session_starts_from_the_lesson_then_steps() {
        let c = parse_query("lesson=reconcile-loop&step=4");
        let (s, err) = c.session();
        assert!(err.is_none());
        let lesson_start = lesson::start("reconcile-loop", &crate::lessons::Progress::new())
            .expect("exists")
            .expect("starts")
            .world()
            .position();
        assert_eq!(s.world().position(), lesson_start + 4);
        assert_eq!(s.lesson().map(|r| r.lesson.slug.as_str()), Some("reconcile-loop"));
    }

    #[test]
    fn a_bad_state_gives_the_sandbox_and_the_reason() {
        let (s, err) = parse_query("state=1.AAAA").session();
        assert!(s.lesson().is_none());
        assert_eq!(s.world().position(), 0);
        assert!(err.is_some());
    }
}
