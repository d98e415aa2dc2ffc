//! How many steps each slice of Run until idle takes in the page: the run goes one slice per
//! animation frame (the page redraws at most once a frame, whatever the cluster's size), and a
//! slice is sized by time, not by a fixed step count, because a step costs microseconds in a
//! small cluster and far more in a large one.
//!
//! The rule: a slice aims at a time budget of [`ENGINE_SHARE`] times what the page spent outside
//! the last slice (the redraw, layout, paint and whatever input arrived, measured from the end of
//! one slice to the start of the next), at least [`MIN_SLICE_MS`] and at most [`MAX_SLICE_MS`];
//! the steps that fit are estimated from the steps per millisecond of the slices so far. So the
//! engine gets nearly all of the page's time (eight ninths) while the views stay live, and Pause or a
//! key press waits at most one slice.
//!
//! The world's views (the map, caches, queues, objects, the owner graph, the timeline) are the
//! page's dearest redraw: at a thousand pods, about as long as the 80 ms slice itself. So while a
//! run goes on they redraw at most every [`REDRAW_MS`] ([`Pacer::redraw_due`]), and less often
//! when a redraw is dear: the time between two redraws is at least [`ENGINE_SHARE`] times what
//! the last one took (the frame after a redraw, measured like the slices' outside time), so the
//! redraws too get at most a ninth of the page's time. The narration's progress line redraws every
//! frame; the run's last slice, and Pause, redraw the views at once. A learner sees the cluster
//! move four times a second in a small cluster (about once a second at a thousand pods) instead of
//! sixty, and the engine gets the frames in between.
//!
//! Plain Rust: the page passes the clock in (`performance.now()`, milliseconds), so this is
//! tested natively. The other animation in the page (the control-plane map) redraws from the
//! same session changes, so it follows the same pace.

/// The shortest slice, in milliseconds.
pub const MIN_SLICE_MS: f64 = 8.0;
/// The longest slice, in milliseconds: the most a key press or Pause waits.
pub const MAX_SLICE_MS: f64 = 80.0;
/// A slice's budget as a multiple of the time the page spent outside the previous one: the
/// engine gets about eight ninths of the page's time (a run until idle is what the learner is
/// waiting for; one redraw a frame shows its progress), within [`MAX_SLICE_MS`].
pub const ENGINE_SHARE: f64 = 8.0;
/// The first slice's steps, before any measurement.
pub const FIRST_SLICE: u64 = 50;
/// While a run goes on, the world's views redraw at most this often, in milliseconds.
pub const REDRAW_MS: f64 = 250.0;

/// Sizes the slices of one run. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    /// Steps per millisecond, a moving average over the slices so far (0: not measured yet).
    rate: f64,
    /// When the last slice ended.
    last_end: Option<f64>,
    /// When the world's views last redrew during this run (None: not yet).
    last_redraw: Option<f64>,
    /// Whether the views redrew after the last slice (its outside time is then the redraw's).
    redrew: bool,
    /// What the last redraw took, in milliseconds (the outside time of the frame it was in).
    redraw_cost: f64,
}

impl Pacer {
    /// A pacer for a new run.
    pub fn new() -> Pacer {
        Pacer::default()
    }

    /// The steps for the slice starting at `now`.
    pub fn plan(&self, now: f64) -> u64 {
        if self.rate <= 0.0 {
            return FIRST_SLICE;
        }
        let outside = self.last_end.map_or(MIN_SLICE_MS, |end| (now - end).max(0.0));
        let budget = (outside * ENGINE_SHARE).clamp(MIN_SLICE_MS, MAX_SLICE_MS);
        ((budget * self.rate) as u64).max(1)
    }

    /// Whether the world's views should redraw after the slice ending at `now`: the first slice's
    /// (the run's start shows at once), then one every [`REDRAW_MS`]. Records the redraw.
    pub fn redraw_due(&mut self, now: f64) -> bool {
        let gap = REDRAW_MS.max(ENGINE_SHARE * self.redraw_cost);
        let due = self.last_redraw.is_none_or(|then| now - then >= gap || now < then);
        if due {
            self.last_redraw = Some(now);
        }
        self.redrew = due;
        due
    }

    /// The slice that started at `started` took `steps` steps and ended at `ended`.
    pub fn done(&mut self, started: f64, ended: f64, steps: u64) {
        if let (true, Some(end)) = (self.redrew, self.last_end) {
            self.redraw_cost = (started - end).max(0.0);
        }
        let took = (ended - started).max(0.01);
        let rate = steps as f64 / took;
        // Steps get dearer as the cluster grows, so recent slices weigh more.
        self.rate = if self.rate <= 0.0 { rate } else { 0.5 * self.rate + 0.5 * rate };
        self.last_end = Some(ended);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_fill_a_share_of_the_frame_and_adapt_to_the_step_cost() {
        let mut p = Pacer::new();
        assert_eq!(p.plan(0.0), FIRST_SLICE);
        // 50 steps took 5 ms (10 a millisecond); the page then spent 6 ms redrawing.
        p.done(0.0, 5.0, 50);
        assert_eq!(p.plan(11.0), 480, "8 × 6 ms at 10 steps/ms");
        // A slow redraw (40 ms) gives the engine the longest slice, no more.
        p.done(11.0, 59.0, 480);
        assert_eq!(p.plan(99.0), 800, "80 ms at 10 steps/ms");
        // Steps got twice as dear: the estimate follows.
        p.done(99.0, 259.0, 800);
        assert_eq!(p.plan(260.0), (8.0 * 7.5) as u64, "the shortest slice at (10 + 5) / 2 steps/ms");
    }

    #[test]
    fn the_world_redraws_four_times_a_second_while_a_run_goes_on() {
        let mut p = Pacer::new();
        assert!(p.redraw_due(100.0), "the first slice shows the run starting");
        assert!(!p.redraw_due(116.0));
        assert!(!p.redraw_due(349.0));
        assert!(p.redraw_due(350.0));
        assert!(!p.redraw_due(400.0));
        // A clock that went backwards redraws rather than waiting for it to come back.
        assert!(p.redraw_due(10.0));
        let frames = (0..60).filter(|i| p.redraw_due(1000.0 + f64::from(*i) * 1000.0 / 60.0)).count();
        assert_eq!(frames, 4, "one second of frames");
    }

    #[test]
    fn a_dear_redraw_waits_eight_times_as_long_as_it_took() {
        let mut p = Pacer::new();
        // Each frame: a slice, then the views redraw or not. The first redraw comes at once...
        p.done(0.0, 80.0, 800);
        assert!(p.redraw_due(80.0));
        // ...and its frame lasts until 180 ms: that redraw took 100 ms, so the next one waits
        // 800 ms, not 250.
        p.done(180.0, 260.0, 800);
        assert!(!p.redraw_due(260.0));
        p.done(270.0, 350.0, 800);
        assert!(!p.redraw_due(350.0));
        p.done(800.0, 879.0, 800);
        assert!(!p.redraw_due(879.0));
        p.done(880.0, 880.0, 0);
        assert!(p.redraw_due(880.0));
        // This one took 10 ms: four redraws a second again.
        p.done(890.0, 970.0, 800);
        assert!(!p.redraw_due(970.0));
        p.done(975.0, 1055.0, 800);
        assert!(!p.redraw_due(1055.0), "the frame after a slice without a redraw measures nothing");
        p.done(1060.0, 1130.0, 800);
        assert!(p.redraw_due(1130.0), "250 ms after the last redraw, whose frame took 10 ms");
    }

    #[test]
    fn a_clock_that_goes_backwards_or_stands_still_is_harmless() {
        let mut p = Pacer::new();
        p.done(10.0, 10.0, 100);
        assert!(p.plan(5.0) >= 1);
        p.done(10.0, 5.0, 0);
        assert!(p.plan(20.0) >= 1);
    }
}
