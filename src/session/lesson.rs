//! The page's side of a guided lesson: starting one from saved progress, the lesson panel's view
//! model, "Show me" through the same console and editor the learner uses, Reset, "Open in
//! sandbox", and reading saved progress without ever failing.
//!
//! The lesson engine itself (format, goals, checker, progress encoding) is [`crate::lessons`];
//! goals are checked by [`Session`] after every intent that touches the world.

use super::{Changes, Engine, Session};
use crate::lessons::{self, Action, LessonRun, Progress};

/// The local-storage key progress is saved under.
pub const PROGRESS_KEY: &str = "reconcile-lab.progress";

/// Saved progress longer than this is not read at all (ten lessons' goal ids fit in a few KB).
pub const MAX_SAVED_PROGRESS: usize = 64 * 1024;

/// What the page says when saved progress is unreadable, oversized or from another version.
pub const UNREADABLE_PROGRESS: &str = "Saved progress could not be read; starting fresh.";

/// Reads saved progress. Nothing saved: empty progress, no notice. Unreadable, oversized or
/// outdated: empty progress and [`UNREADABLE_PROGRESS`]. Never fails.
pub fn load_progress(saved: Option<&str>) -> (Progress, Option<&'static str>) {
    match saved {
        None => (Progress::new(), None),
        Some(text) if text.len() > MAX_SAVED_PROGRESS => (Progress::new(), Some(UNREADABLE_PROGRESS)),
        Some(text) => match Progress::decode(text) {
            Ok(p) => (p, None),
            Err(_) => (Progress::new(), Some(UNREADABLE_PROGRESS)),
        },
    }
}

/// A page route (hash routing: the part after `#`, so the site works from any static host and
/// any sub-path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// `#/` (or no hash): the lesson list.
    Home,
    /// `#/lessons/<slug>`: a lesson.
    Lesson(String),
    /// `#/sandbox`: the full cluster with every control.
    Sandbox,
    /// Anything else (shown as "no such page" with a link home).
    NotFound(String),
}

impl Route {
    /// Reads `location.hash` (`"#/lessons/conflicts"`, `""`, ...).
    pub fn parse(hash: &str) -> Route {
        let path = hash.strip_prefix('#').unwrap_or(hash);
        // A query after the route (`#/sandbox?state=...`, see `share`) is not part of it.
        let path = path.split_once('?').map_or(path, |(p, _)| p);
        let path = path.trim_start_matches('/').trim_end_matches('/');
        match path {
            "" => Route::Home,
            "sandbox" => Route::Sandbox,
            _ => match path.strip_prefix("lessons/") {
                Some(slug) if !slug.is_empty() && !slug.contains('/') => Route::Lesson(slug.to_string()),
                _ => Route::NotFound(path.chars().take(100).collect()),
            },
        }
    }

    /// The hash for this route (`"#/lessons/conflicts"`).
    pub fn hash(&self) -> String {
        match self {
            Route::Home => "#/".into(),
            Route::Lesson(slug) => format!("#/lessons/{slug}"),
            Route::Sandbox => "#/sandbox".into(),
            Route::NotFound(p) => format!("#/{p}"),
        }
    }
}

/// Lesson Markdown, as the page renders it (the parser is [`crate::lessons::markdown`]).
pub use crate::lessons::markdown::{blocks, inline, Block, Inline};

/// Whether a lesson's code span is a console line the learner may want to type: it starts with
/// `kubectl` or `lab` and says more than the program's name, and is not an elided sketch
/// (`kubectl get ... -o jsonpath`) or a flag named without its value (`kubectl delete
/// --cascade=`). The page offers such spans as buttons that put the line into the console input,
/// where the learner reads, edits and runs it (a placeholder such as `NAME` is there to be edited).
pub fn is_console_command(code: &str) -> bool {
    let mut words = code.split_whitespace();
    matches!(words.next(), Some("kubectl" | "lab"))
        && words.next().is_some()
        && !code.contains("...")
        && !code.split_whitespace().any(|w| w.starts_with('-') && w.ends_with('='))
}

/// One lesson on the home page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonSummary {
    /// The route slug.
    pub slug: String,
    /// The title.
    pub title: String,
    /// The one-sentence summary.
    pub summary: String,
    /// Goals met (as saved).
    pub met: usize,
    /// Goals in the lesson.
    pub total: usize,
}

impl LessonSummary {
    /// The progress line under the lesson on the home page ("2 of 5 goals", "Complete: 5 of 5 goals").
    pub fn progress(&self) -> String {
        if self.met == self.total && self.total > 0 {
            format!("Complete: {} of {} goals", self.met, self.total)
        } else {
            format!("{} of {} goals", self.met, self.total)
        }
    }
}

/// The home page's list, in catalog order (a lesson file that does not parse is left out; the
/// lesson tests make sure none is).
pub fn summaries(progress: &Progress) -> Vec<LessonSummary> {
    lessons::catalog()
        .into_iter()
        .flatten()
        .map(|l| {
            let ids: Vec<&str> = l.steps.iter().flat_map(|s| s.goals.iter().map(|g| g.id.as_str())).collect();
            let met = progress
                .lesson(&l.slug)
                .map_or(0, |p| p.goals_met.iter().filter(|g| ids.contains(&g.as_str())).count());
            LessonSummary {
                slug: l.slug.clone(),
                title: l.title.clone(),
                summary: l.summary.clone(),
                met,
                total: ids.len(),
            }
        })
        .collect()
}

/// One goal in the lesson panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalView {
    /// The goal id (stable key).
    pub id: String,
    /// What the learner should reach.
    pub text: String,
    /// Whether it is met.
    pub met: bool,
}

/// One step in the lesson panel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepView {
    /// The step's title.
    pub title: String,
    /// A puzzle (goals only, no instruction).
    pub puzzle: bool,
    /// The explanation (lesson Markdown: see [`blocks`]).
    pub explanation: String,
    /// The instruction (may be empty for a puzzle).
    pub instruction: String,
    /// The goals.
    pub goals: Vec<GoalView>,
    /// The hints, in order.
    pub hints: Vec<String>,
    /// Whether "Show me" has something to play.
    pub has_solution: bool,
}

/// The lesson panel's view model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonView {
    /// The route slug.
    pub slug: String,
    /// The title.
    pub title: String,
    /// The introduction (lesson Markdown: see [`blocks`]).
    pub intro: String,
    /// Every step.
    pub steps: Vec<StepView>,
    /// The first step with a goal not met (`steps.len()` when complete).
    pub current: usize,
    /// Every goal is met.
    pub complete: bool,
    /// The next lesson in the catalog, `(slug, title)`.
    pub next: Option<(String, String)>,
}

/// Starts lesson `slug` as a page session, restoring its saved goals. `None` for an unknown
/// slug; an error text when the lesson does not start (a broken lesson file).
pub fn start(slug: &str, progress: &Progress) -> Option<Result<Session, String>> {
    let lesson = match lessons::lesson(slug)? {
        Ok(l) => l,
        Err(e) => return Some(Err(format!("The lesson file does not parse: {e:?}"))),
    };
    Some(
        LessonRun::resume(&lesson, progress)
            .map(|run| Session::with_engine(Engine::Lesson(run)))
            .map_err(|e| e.to_string()),
    )
}

/// Every counter of `a` moved past both `a` and `b` (a replaced session must re-render every part).
fn moved_past(a: Changes, b: Changes) -> Changes {
    Changes {
        cluster: a.cluster.max(b.cluster) + 1,
        timeline: a.timeline.max(b.timeline) + 1,
        transcript: a.transcript.max(b.transcript) + 1,
        editor: a.editor.max(b.editor) + 1,
        selection: a.selection.max(b.selection) + 1,
        notice: a.notice.max(b.notice) + 1,
    }
}

impl Session {
    /// The lesson panel's view model (`None` in the sandbox).
    pub fn lesson_view(&self) -> Option<LessonView> {
        let run = self.lesson()?;
        let l = &run.lesson;
        let steps = l
            .steps
            .iter()
            .map(|s| StepView {
                title: s.title.clone(),
                puzzle: s.puzzle,
                explanation: s.explanation.clone(),
                instruction: s.instruction.clone(),
                goals: s
                    .goals
                    .iter()
                    .map(|g| GoalView { id: g.id.clone(), text: g.text.clone(), met: run.checker.is_met(&g.id) })
                    .collect(),
                hints: s.hints.clone(),
                has_solution: !s.solution.is_empty(),
            })
            .collect();
        let slugs = lessons::LESSON_FILES;
        let next = slugs
            .iter()
            .position(|(s, _)| *s == l.slug)
            .and_then(|i| slugs.get(i + 1))
            .and_then(|(s, _)| lessons::lesson(s))
            .and_then(Result::ok)
            .map(|n| (n.slug, n.title));
        Some(LessonView {
            slug: l.slug.clone(),
            title: l.title.clone(),
            intro: l.intro.clone(),
            steps,
            current: run.checker.current_step(),
            complete: run.checker.complete(),
            next,
        })
    }

    /// Writes the lesson's progress (goals met, current step) into `progress`.
    pub fn save_lesson(&self, progress: &mut Progress) {
        if let Some(run) = self.lesson() {
            run.save(progress);
        }
    }

    /// The actions "Show me" plays for step `i` (empty outside a lesson or past the end).
    pub fn solution(&self, i: usize) -> Vec<Action> {
        self.lesson().and_then(|r| r.lesson.steps.get(i)).map(|s| s.solution.clone()).unwrap_or_default()
    }

    /// Starts "Show me" for step `i`: a puzzle's solution is written for the puzzle's starting
    /// state, so its world is Reset first (goals kept), as `lessons::verify` plays it. Returns
    /// the actions to play, one at a time, with [`Session::play_action`].
    pub fn begin_show_me(&mut self, i: usize) -> Result<Vec<Action>, String> {
        let puzzle = self.lesson().and_then(|r| r.lesson.steps.get(i)).is_some_and(|s| s.puzzle);
        if puzzle {
            self.reset_lesson(false)?;
        }
        Ok(self.solution(i))
    }

    /// Plays one "Show me" action through the same intents the learner uses: a console line is
    /// submitted to the console as typed (its `$(...)` runs there, as on the learner's own
    /// line), an edit replaces the editor tab's text, an apply presses the tab's Apply, a step
    /// presses Step, settle presses "Run until idle". Returns an error text when the action could
    /// not be played as the lesson expects.
    pub fn play_action(&mut self, action: &Action) -> Result<(), String> {
        match action {
            Action::Console(line) => {
                let (first, heredoc) = line.split_once('\n').map_or((line.as_str(), None), |(a, b)| (a, Some(b)));
                let marker = lessons::format::EXPECT_FAILURE;
                let expect_failure = first.trim_end().ends_with(marker);
                // Submitted as the learner would type it: the console runs `$(...)` itself.
                let mut cmd = first.trim_end().trim_end_matches(marker).trim_end().to_string();
                if let Some(h) = heredoc {
                    cmd.push('\n');
                    cmd.push_str(h);
                }
                let out = self.console_submit(&cmd);
                if (out.exit_code != 0) != expect_failure {
                    return Err(format!("{cmd:?} did not go as the lesson expects"));
                }
                Ok(())
            }
            Action::Edit { file, text } => {
                self.open_file(file, text);
                self.sync_files();
                Ok(())
            }
            Action::Apply { file, expect_failure } => {
                let Some(i) = self.buffers().iter().position(|b| &b.name == file) else {
                    return Err(format!("no editor tab named {file}"));
                };
                self.select_buffer(i);
                let out = self.editor_apply(i);
                if (out.exit_code != 0) != *expect_failure {
                    return Err(format!("applying {file} did not go as the lesson expects"));
                }
                Ok(())
            }
            Action::Step(n) => {
                for _ in 0..*n {
                    if !self.step() {
                        break;
                    }
                }
                Ok(())
            }
            Action::Settle => {
                self.run_until_idle();
                Ok(())
            }
            Action::StepUntil(check) => {
                let mut counters = vec![0; check.seen_slots()];
                for _ in 0..lessons::format::STEP_UNTIL_CAP {
                    let mut slot = 0;
                    if check.eval(self.world(), &counters, &mut slot) {
                        return Ok(());
                    }
                    let (world, _) = self.parts();
                    let Some(r) = world.step() else { break };
                    // Replays as a press of Step, which does exactly what this loop does.
                    self.record(super::Op::Step(1));
                    let mut slot = 0;
                    check.observe(&r, &mut counters, &mut slot);
                    self.notice = None;
                    self.after_world(true);
                }
                let mut slot = 0;
                if check.eval(self.world(), &counters, &mut slot) {
                    Ok(())
                } else {
                    Err("stepping did not reach the state the lesson expects".into())
                }
            }
        }
    }

    /// The lesson's Reset: a fresh world, console, editor and timeline from the lesson; goals
    /// already met stay met unless `forget_progress`.
    pub fn reset_lesson(&mut self, forget_progress: bool) -> Result<(), String> {
        let Engine::Lesson(run) = &self.engine else { return Ok(()) };
        let fresh = if forget_progress {
            LessonRun::start(&run.lesson)
        } else {
            let mut r = LessonRun::start(&run.lesson);
            if let Ok(r) = &mut r {
                r.checker.restore(run.checker.met().iter().map(String::as_str));
            }
            r
        }
        .map_err(|e| e.to_string())?;
        let before = self.changes;
        let mut s = Session::with_engine(Engine::Lesson(fresh));
        s.changes = moved_past(before, s.changes);
        s.log = std::mem::replace(&mut self.log, super::ShareLog::new(super::share::Start::Sandbox { seed: 0 }));
        s.log.push(super::Op::Reset { forget: forget_progress });
        s.notice = Some(if forget_progress {
            "The lesson starts over, with no goal met.".into()
        } else {
            "The lesson's cluster starts over; the goals you met stay met.".into()
        });
        *self = s;
        Ok(())
    }

    /// Replaces this session by `fresh` (the embed's reset), moving every change counter on so
    /// the page re-renders every part.
    pub fn replace_with(&mut self, fresh: Session) {
        let before = self.changes;
        *self = fresh;
        self.changes = moved_past(before, self.changes);
    }

    /// "Open in sandbox": a sandbox session over this lesson's world and console, as they are
    /// (the lesson's goals are left behind; the lesson restarts from saved progress when
    /// reopened).
    pub fn into_sandbox(self) -> Session {
        let mut log = self.log;
        log.push(super::Op::ToSandbox);
        let (world, console) = match self.engine {
            Engine::Sandbox { world, console } => (world, console),
            Engine::Lesson(run) => (run.world, run.console),
        };
        let mut s = Session::with_engine(Engine::Sandbox { world, console });
        s.changes = moved_past(self.changes, s.changes);
        s.log = log;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(slug: &str) -> Session {
        match start(slug, &Progress::new()) {
            Some(Ok(s)) => s,
            Some(Err(e)) => panic!("{slug} does not start: {e}"),
            None => panic!("no lesson {slug}"),
        }
    }

    #[test]
    fn console_commands_are_told_from_other_code() {
        for yes in ["kubectl get pods", "lab step 3", "kubectl delete pod NAME", "  kubectl  scale deployment web"] {
            assert!(is_console_command(yes), "{yes}");
        }
        for no in [
            "kubectl",
            "lab",
            "kubectl get ... -o jsonpath",
            "kubectl delete --cascade=",
            "resourceVersion",
            "409",
            "kubectlx get",
            "",
        ] {
            assert!(!is_console_command(no), "{no}");
        }
        // The lessons' text is full of them.
        let mut seen = 0;
        for (slug, _) in crate::lessons::LESSON_FILES {
            let lesson = crate::lessons::lesson(slug).expect("in the catalog").expect("parses");
            let mut texts = vec![lesson.intro.clone()];
            for step in &lesson.steps {
                texts.push(step.explanation.clone());
                texts.push(step.instruction.clone());
                texts.extend(step.hints.iter().cloned());
            }
            for text in texts {
                for piece in inline(&text.replace('\n', " ")) {
                    if let Inline::Code(code) = piece {
                        if is_console_command(&code) {
                            seen += 1;
                        }
                    }
                }
            }
        }
        assert!(seen > 50, "{seen} commands in the lessons");
    }

    #[test]
    fn routes_parse_and_round_trip() {
        assert_eq!(Route::parse(""), Route::Home);
        assert_eq!(Route::parse("#/"), Route::Home);
        assert_eq!(Route::parse("#/sandbox"), Route::Sandbox);
        assert_eq!(Route::parse("#/lessons/conflicts"), Route::Lesson("conflicts".into()));
        assert_eq!(Route::parse("#/lessons/"), Route::NotFound("lessons".into()));
        assert_eq!(Route::parse("#/what"), Route::NotFound("what".into()));
        assert_eq!(Route::parse("#/sandbox?state=1.AAAA"), Route::Sandbox);
        assert_eq!(Route::parse("#/lessons/conflicts?state=1.AA"), Route::Lesson("conflicts".into()));
        for r in [Route::Home, Route::Sandbox, Route::Lesson("generation".into())] {
            assert_eq!(Route::parse(&r.hash()), r);
        }
    }

    #[test]
    fn unreadable_progress_is_ignored_with_the_notice() {
        assert_eq!(load_progress(None).1, None);
        for bad in ["", "{", "null", "garbage\u{0}", &"x".repeat(MAX_SAVED_PROGRESS + 1)] {
            let (p, notice) = load_progress(Some(bad));
            assert_eq!(notice, Some(UNREADABLE_PROGRESS), "{bad:.20}");
            assert_eq!(p, Progress::new());
        }
        let mut p = Progress::new();
        p.record("conflicts", &["a".into()], 1);
        let (back, notice) = load_progress(Some(&p.encode()));
        assert_eq!((back, notice), (p, None));
    }

    #[test]
    fn unknown_slug_is_none_and_every_lesson_starts() {
        assert!(start("no-such-lesson", &Progress::new()).is_none());
        for (slug, _) in lessons::LESSON_FILES {
            let s = session(slug);
            let v = s.lesson_view().expect("a lesson session has a view");
            assert_eq!(v.slug, slug);
            assert!(!v.complete);
        }
        assert_eq!(summaries(&Progress::new()).len(), lessons::LESSON_FILES.len());
    }

    #[test]
    fn show_me_completes_every_lesson_through_the_session() {
        for (slug, _) in lessons::LESSON_FILES {
            let mut s = session(slug);
            let steps = s.lesson_view().map_or(0, |v| v.steps.len());
            for i in 0..steps {
                for a in s.begin_show_me(i).expect("show me starts") {
                    if let Err(e) = s.play_action(&a) {
                        panic!("{slug} step {i}: {e}");
                    }
                }
            }
            let v = s.lesson_view().expect("view");
            assert!(
                v.complete,
                "{slug}: goals left {:?}",
                v.steps.iter().flat_map(|s| &s.goals).filter(|g| !g.met).collect::<Vec<_>>()
            );
            assert_eq!(v.current, v.steps.len());
        }
    }

    #[test]
    fn reset_keeps_goals_unless_asked_and_progress_round_trips() {
        let mut s = session("reconcile-loop");
        for a in s.solution(0) {
            s.play_action(&a).expect("step 1 plays");
        }
        let met = |s: &Session| {
            s.lesson_view().map_or(0, |v| v.steps.iter().flat_map(|s| &s.goals).filter(|g| g.met).count())
        };
        assert_eq!(met(&s), 2);
        let before = s.changes();
        s.reset_lesson(false).expect("reset");
        assert_eq!(met(&s), 2);
        assert!(s.changes().cluster > before.cluster && s.changes().editor > before.editor);
        let mut p = Progress::new();
        s.save_lesson(&mut p);
        let resumed = match start("reconcile-loop", &p) {
            Some(Ok(r)) => r,
            _ => panic!("resume"),
        };
        assert_eq!(met(&resumed), 2);
        assert_eq!(summaries(&p)[0].met, 2);
        s.reset_lesson(true).expect("reset");
        assert_eq!(met(&s), 0);
    }

    #[test]
    fn a_wrong_action_meets_no_goal_and_sandbox_copies_the_world() {
        let mut s = session("reconcile-loop");
        s.console_submit("kubectl get pods");
        s.run_until_idle();
        assert!(s.goals_met().is_empty());
        let names = s.world().api().resource_version();
        let sandbox = s.into_sandbox();
        assert!(sandbox.lesson().is_none());
        assert_eq!(sandbox.world().api().resource_version(), names);
    }
}
