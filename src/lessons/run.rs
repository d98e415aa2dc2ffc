//! A lesson being played: its world, its console, its editor buffers and its goal checker, with
//! the same calls the page makes (console line, editor apply, Step, Run until idle) and the
//! "Show me" player for a step's solution.

use super::checker::Checker;
use super::format::{Action, Lesson, EXPECT_FAILURE, STEP_UNTIL_CAP};
use super::progress::Progress;
use crate::engine::world::{SettleRun, Settled, World};
use crate::kubectl::Console;

/// What one input did: what the console (or the page) would show, and the goals that became met.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Played {
    /// The terminal text (stdout and stderr, interleaved as printed).
    pub output: String,
    /// The console exit code (0 for page actions that succeeded).
    pub exit_code: i32,
    /// Goal ids that became met, in lesson order.
    pub newly_met: Vec<String>,
}

/// Why a lesson could not start or a solution action could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// A setup line failed: the lesson file is wrong (or the engine changed under it).
    Setup { line: String, output: String },
    /// A solution action failed.
    Action { action: String, output: String },
    /// `step until` did not reach its check.
    StepUntil { check: String, steps: u32 },
    /// No such step.
    NoStep(usize),
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::Setup { line, output } => write!(f, "setup command {line:?} failed: {output}"),
            PlayError::Action { action, output } => write!(f, "{action:?} failed: {output}"),
            PlayError::StepUntil { check, steps } => write!(f, "after {steps} steps, {check} still does not hold"),
            PlayError::NoStep(i) => write!(f, "the lesson has no step {}", i + 1),
        }
    }
}

impl std::error::Error for PlayError {}

/// A lesson in play.
pub struct LessonRun {
    /// The lesson.
    pub lesson: Lesson,
    /// The simulated cluster.
    pub world: World,
    /// The console session (its `files` are the editor buffers).
    pub console: Console,
    /// The goals.
    pub checker: Checker,
}

impl LessonRun {
    /// Builds the lesson's world (its seed), loads its files into the editor, runs its setup
    /// lines, and starts checking goals from there.
    pub fn start(lesson: &Lesson) -> Result<LessonRun, PlayError> {
        let mut world = World::new(lesson.seed);
        let mut console = Console::new();
        for (name, text) in &lesson.files {
            console.set_file(name, text);
        }
        for line in &lesson.setup {
            let out = console.execute(&mut world, line);
            if out.exit_code != 0 {
                return Err(PlayError::Setup { line: line.clone(), output: out.terminal() });
            }
        }
        let checker = Checker::new(lesson, &world);
        Ok(LessonRun { lesson: lesson.clone(), world, console, checker })
    }

    /// Starts the lesson and restores the goals saved in `progress` for it (a reload).
    pub fn resume(lesson: &Lesson, progress: &Progress) -> Result<LessonRun, PlayError> {
        let mut run = LessonRun::start(lesson)?;
        if let Some(saved) = progress.lesson(&lesson.slug) {
            run.checker.restore(saved.goals_met.iter().map(String::as_str));
        }
        Ok(run)
    }

    /// The page's Reset: a fresh world, console and editor buffers from the lesson, keeping the
    /// goals already met.
    pub fn reset(&mut self) -> Result<(), PlayError> {
        let met = self.checker.met();
        let mut fresh = LessonRun::start(&self.lesson)?;
        fresh.checker.restore(met.iter().map(String::as_str));
        *self = fresh;
        Ok(())
    }

    /// Writes this lesson's progress (goals met, current step) into `progress`.
    pub fn save(&self, progress: &mut Progress) {
        progress.record(&self.lesson.slug, &self.checker.met(), self.checker.current_step());
    }

    /// Checks the goals now (the page calls this after anything it does to the world itself).
    pub fn check(&mut self) -> Vec<String> {
        self.checker.check(&self.world)
    }

    fn done(&mut self, output: String, exit_code: i32) -> Played {
        let newly_met = self.check();
        Played { output, exit_code, newly_met }
    }

    /// Runs one console line (kubectl or lab), as typed.
    pub fn execute(&mut self, line: &str) -> Played {
        let out = self.console.execute(&mut self.world, line);
        self.done(out.terminal(), out.exit_code)
    }

    /// Replaces an editor buffer.
    pub fn edit(&mut self, file: &str, text: &str) {
        self.console.set_file(file, text);
    }

    /// The editor's Apply button: `kubectl apply -f FILE` on the buffer.
    pub fn apply(&mut self, file: &str) -> Played {
        let out = self.console.execute(&mut self.world, &format!("kubectl apply -f {file}"));
        self.done(out.terminal(), out.exit_code)
    }

    /// The Step button, `n` times: each step's sentence, then what the console's pending work
    /// (watches, waiting deletes) printed.
    pub fn step(&mut self, n: u32) -> Played {
        let mut text = String::new();
        for _ in 0..n {
            match self.world.step() {
                Some(r) => {
                    text.push_str(&format!("step {}: {}\n", r.number, r.sentence));
                    text.push_str(&self.console.resume(&mut self.world).terminal());
                }
                None => break,
            }
        }
        self.done(text, 0)
    }

    /// The "Run until idle" button.
    pub fn settle(&mut self) -> Played {
        let text = match SettleRun::run_to_end(&mut self.world) {
            Settled::Idle { steps } | Settled::Working { steps } => format!("Settled after {steps} steps.\n"),
            Settled::HotLoop { steps, explanation } => format!("Stopped after {steps} steps: {explanation}\n"),
        };
        let mut text = text;
        text.push_str(&self.console.resume(&mut self.world).terminal());
        self.done(text, 0)
    }

    /// Plays one solution action. A console command that fails is an error unless the lesson
    /// expects it to (a line ending in `# expect failure`, such as the 409 of a stale apply).
    pub fn play(&mut self, action: &Action) -> Result<Played, PlayError> {
        match action {
            Action::Console(line) => {
                let (first, heredoc) = line.split_once('\n').map_or((line.as_str(), None), |(a, b)| (a, Some(b)));
                let expect_failure = first.trim_end().ends_with(EXPECT_FAILURE);
                // The line runs as typed: `$(...)` is the console's own command substitution.
                let mut cmd = first.trim_end().trim_end_matches(EXPECT_FAILURE).trim_end().to_string();
                if let Some(h) = heredoc {
                    cmd.push('\n');
                    cmd.push_str(h);
                }
                let p = self.execute(&cmd);
                if (p.exit_code != 0) != expect_failure {
                    return Err(PlayError::Action { action: line.clone(), output: p.output });
                }
                Ok(p)
            }
            Action::Edit { file, text } => {
                self.edit(file, text);
                Ok(self.done(String::new(), 0))
            }
            Action::Apply { file, expect_failure } => {
                let p = self.apply(file);
                if (p.exit_code != 0) != *expect_failure {
                    return Err(PlayError::Action { action: format!("apply {file}"), output: p.output });
                }
                Ok(p)
            }
            Action::Step(n) => Ok(self.step(*n)),
            Action::Settle => Ok(self.settle()),
            Action::StepUntil(check) => {
                let mut counters = vec![0; check.seen_slots()];
                let mut text = String::new();
                let mut newly = Vec::new();
                for _ in 0..STEP_UNTIL_CAP {
                    let mut slot = 0;
                    if check.eval(&self.world, &counters, &mut slot) {
                        return Ok(Played { output: text, exit_code: 0, newly_met: newly });
                    }
                    let Some(r) = self.world.step() else { break };
                    let mut slot = 0;
                    check.observe(&r, &mut counters, &mut slot);
                    text.push_str(&format!("step {}: {}\n", r.number, r.sentence));
                    text.push_str(&self.console.resume(&mut self.world).terminal());
                    newly.extend(self.check());
                }
                let mut slot = 0;
                if check.eval(&self.world, &counters, &mut slot) {
                    return Ok(Played { output: text, exit_code: 0, newly_met: newly });
                }
                Err(PlayError::StepUntil { check: format!("{check:?}"), steps: STEP_UNTIL_CAP })
            }
        }
    }

    /// "Show me": plays step `i`'s whole solution. Returns every action's result.
    pub fn play_solution(&mut self, i: usize) -> Result<Vec<Played>, PlayError> {
        let actions = self.lesson.steps.get(i).ok_or(PlayError::NoStep(i))?.solution.clone();
        actions.iter().map(|a| self.play(a)).collect()
    }
}

/// Why a lesson does not verify (see [`verify`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The lesson could not start, or a solution action failed.
    Play { step: usize, error: PlayError },
    /// Goals were met before the learner did anything.
    MetTooEarly(Vec<String>),
    /// A step's solution did not meet one of its goals.
    GoalNotMet { step: usize, goal: String, transcript: String },
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerifyError::Play { step: 0, error: e @ PlayError::Setup { .. } } => write!(f, "{e}"),
            VerifyError::Play { step, error } => write!(f, "step {}: {error}", step + 1),
            VerifyError::MetTooEarly(ids) => {
                write!(f, "goals met before the learner did anything: {}", ids.join(", "))
            }
            VerifyError::GoalNotMet { step, goal, transcript } => {
                write!(f, "step {}: goal {goal} is not met after its solution\n{transcript}", step + 1)
            }
        }
    }
}

impl std::error::Error for VerifyError {}

/// Plays a lesson the way a learner following "Show me" would, and checks that every goal is met
/// right after its step's solution: steps in order in one world; each puzzle from a fresh start
/// (the page's Reset), its goals then kept. Authors' tests and tools call this.
pub fn verify(lesson: &Lesson) -> Result<(), VerifyError> {
    let start = |step| LessonRun::start(lesson).map_err(|error| VerifyError::Play { step, error });
    let mut run = start(0)?;
    let early = run.check();
    if !early.is_empty() {
        return Err(VerifyError::MetTooEarly(early));
    }
    for (i, step) in lesson.steps.iter().enumerate() {
        let mut fresh = if step.puzzle { Some(start(i)?) } else { None };
        let player = fresh.as_mut().unwrap_or(&mut run);
        let mut transcript = String::new();
        for action in &step.solution {
            let p = player.play(action).map_err(|error| VerifyError::Play { step: i, error })?;
            transcript.push_str(&p.output);
        }
        if let Some(g) = step.goals.iter().find(|g| !player.checker.is_met(&g.id)) {
            return Err(VerifyError::GoalNotMet { step: i, goal: g.id.clone(), transcript });
        }
        let met = player.checker.met();
        run.checker.restore(met.iter().map(String::as_str));
    }
    Ok(())
}
