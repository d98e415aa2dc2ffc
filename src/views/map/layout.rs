//! Where each process's box goes: the wide and the stacked arrangements, and each box's size.

use super::facts::*;
use super::*;

// ----- layout -----

/// Below this width the picture is stacked (one process under another).
pub const WIDE_MIN: i32 = 640;
/// The narrowest picture drawn; a narrower space scales it down.
pub const NARROW_MIN: i32 = 300;
pub(super) const MARGIN: i32 = 6;
pub(super) const PAD: i32 = 6;
pub(super) const GAP: i32 = 12;
pub(super) const TITLE_LINE: i32 = 16;
pub(super) const LINE: i32 = 14;
pub(super) const TILE_W_CHARS: usize = 9;
pub(super) const TILE_H: i32 = 44;
pub(super) const TILE_GAP: i32 = 5;
pub(super) const STRIP_H: i32 = 18;
pub(super) const ROW_H: i32 = 19;
pub(super) const CHIP_H: i32 = 16;
pub(super) const CHIP_GAP: i32 = 4;
pub(super) const LANE: i32 = 28;
pub(super) const API_H: i32 = 46;
pub(super) const USER_W: i32 = 66;
pub(super) const TRUNK: i32 = 16;
pub(super) const QUEUE_LABEL_CHARS: usize = 17;
pub(super) const QUEUE_COUNT_W: i32 = 66;
/// Room for at least two keys beside a queue's name.
pub(super) const QUEUE_CHIPS_MIN_W: i32 = 120;
pub(super) const CLOUD_W: i32 = 128;

/// A tile's three lines.
pub(super) fn tile_lines(f: &InformerFacts) -> [String; 3] {
    [f.kind.to_string(), format!("{} cached", thousands(f.cached)), format!("rv {}", f.rv)]
}

pub(super) fn tile_width(f: &InformerFacts) -> i32 {
    let [kind, cached, rv] = tile_lines(f);
    let text = cached.chars().count().max(rv.chars().count()).max(TILE_W_CHARS);
    text_width(text, TEXT_PX).max(text_width(kind.chars().count(), TITLE_PX)) + 2 * PAD + 2
}

/// What a process box shows above or below its informers and queues.
pub(super) struct Header {
    pub(super) title: String,
    /// The state, on the title's line when it fits there.
    pub(super) inline: Option<(String, LabelStyle)>,
    /// The lines under the title.
    pub(super) lines: Vec<(String, LabelStyle)>,
}

impl Header {
    /// Its height.
    pub(super) fn height(&self) -> i32 {
        TITLE_LINE + LINE * self.lines.len() as i32
    }

    /// Every line, the inline one first, for the accessible name.
    pub(super) fn words(&self) -> String {
        self.inline.iter().chain(&self.lines).map(|(t, _)| t.as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// The space between a title and the state written after it on the same line.
pub(super) const INLINE_GAP: i32 = 10;

pub(super) fn header(f: &ProcessFacts, inner: i32) -> Header {
    let mut state = f.state.word().to_string();
    if f.state == ProcessState::Leading {
        state.push_str(", acting");
    }
    let status = if f.status.is_empty() { state } else { format!("{state} · {}", f.status) };
    let style = match f.state {
        ProcessState::Crashed | ProcessState::Stopped => LabelStyle::Alert,
        _ if f.p.partitioned => LabelStyle::Alert,
        _ => LabelStyle::Text,
    };
    let chars = chars_in(inner, TEXT_PX);
    let title_w = text_width(f.p.name.chars().count(), TITLE_PX);
    let fits_inline = title_w + INLINE_GAP + text_width(status.chars().count(), TEXT_PX) <= inner;
    let (inline, mut lines): (_, Vec<(String, LabelStyle)>) = if fits_inline {
        (Some((status, style)), Vec::new())
    } else {
        (None, wrap(&status, chars).into_iter().map(|l| (l, style)).collect())
    };
    if let Some(note) = f.note {
        lines.extend(wrap(note, chars).into_iter().map(|l| (l, LabelStyle::Muted)));
    }
    if !f.nodes.is_empty() {
        let nodes = format!("nodes: {}", f.nodes.join(", "));
        lines.extend(wrap(&nodes, chars).into_iter().map(|l| (l, LabelStyle::Muted)));
    }
    Header { title: f.p.name.clone(), inline, lines }
}

/// The width of a process's queue-name column: its longest queue name, at most
/// [`QUEUE_LABEL_CHARS`] characters.
pub(super) fn queue_label_w(f: &ProcessFacts) -> i32 {
    let chars = f.queues.iter().map(|q| q.queue.chars().count()).max().unwrap_or(0).min(QUEUE_LABEL_CHARS);
    text_width(chars, TEXT_PX) + 4
}

/// The narrowest a process box can be, wide arrangement.
pub(super) fn min_width(f: &ProcessFacts) -> i32 {
    let title = text_width(f.p.name.chars().count(), TITLE_PX);
    let tiles: i32 = f.informers.iter().map(tile_width).sum::<i32>() + TILE_GAP * (f.informers.len() as i32 - 1).max(0);
    let queues = if f.queues.is_empty() { 0 } else { queue_label_w(f) + QUEUE_COUNT_W + QUEUE_CHIPS_MIN_W };
    let nodes =
        if f.nodes.is_empty() { 0 } else { text_width(f.nodes.join(", ").chars().count().min(30) + 7, TEXT_PX) };
    title.max(tiles).max(queues).max(nodes).max(text_width(18, TEXT_PX)) + 2 * PAD
}

/// Its height once its width is known (`stacked`: informers as strips, one per line).
pub(super) fn box_height(f: &ProcessFacts, w: i32, stacked: bool) -> i32 {
    let head = header(f, w - 2 * PAD);
    let mut h = PAD + head.height();
    if !f.queues.is_empty() {
        h += 4 + ROW_H * f.queues.len() as i32;
    }
    if !f.informers.is_empty() {
        h += 4 + if stacked { STRIP_H * f.informers.len() as i32 } else { TILE_H };
    }
    h + PAD
}

/// Places the boxes: each process's rect, the API server's, kubectl's and the cloud's.
pub(super) struct Placement {
    pub(super) width: i32,
    pub(super) height: i32,
    pub(super) api: Rect,
    pub(super) user: Rect,
    pub(super) boxes: Vec<Rect>,
    /// Whether each box's informers face down (it sits above the API server).
    pub(super) above: Vec<bool>,
    pub(super) cloud: Option<Rect>,
    /// Lines of text below the API server's title (stacked: two, more for a 409).
    pub(super) api_lines: usize,
}

pub(super) fn place_wide(facts: &[ProcessFacts], width: i32, has_cloud: bool) -> Placement {
    let n = facts.len();
    let above: Vec<bool> = facts.iter().map(|f| f.p.elector.is_some()).collect();
    let bucket = facts.iter().position(|f| f.p.name == crate::engine::world::BUCKET_OPERATOR);
    // Each row's columns: (process index or None for the cloud, min width).
    let mut rows: [Vec<(Option<usize>, i32)>; 2] = [Vec::new(), Vec::new()];
    for (i, f) in facts.iter().enumerate() {
        rows[usize::from(!above[i])].push((Some(i), min_width(f)));
        if has_cloud && Some(i) == bucket {
            rows[usize::from(!above[i])].push((None, CLOUD_W));
        }
    }
    let need = |row: &Vec<(Option<usize>, i32)>| -> i32 {
        row.iter().map(|c| c.1).sum::<i32>() + GAP * (row.len() as i32 - 1).max(0) + 2 * MARGIN
    };
    let canvas = width.max(need(&rows[0])).max(need(&rows[1])).max(WIDE_MIN);
    let mut boxes = vec![Rect::default(); n];
    let mut cloud = None;
    let mut row_h = [0, 0];
    // Widths: the extra space shared in proportion to each column's need (the cloud keeps its own).
    let mut widths: [Vec<i32>; 2] = [Vec::new(), Vec::new()];
    for r in 0..2 {
        let row = &rows[r];
        let stretch: i32 = row.iter().filter(|c| c.0.is_some()).map(|c| c.1).sum();
        let extra = canvas - need(row);
        let mut given = 0;
        for (k, c) in row.iter().enumerate() {
            let w = match c.0 {
                Some(_) if stretch > 0 => {
                    let last = row.iter().skip(k + 1).all(|c| c.0.is_none());
                    let share = if last { extra - given } else { (extra as i64 * c.1 as i64 / stretch as i64) as i32 };
                    given += share;
                    c.1 + share
                }
                _ => c.1,
            };
            widths[r].push(w);
            if let Some(i) = c.0 {
                row_h[r] = row_h[r].max(box_height(&facts[i], w, false));
            }
        }
    }
    let api_y = MARGIN + row_h[0] + if rows[0].is_empty() { 0 } else { LANE };
    let below_y = api_y + API_H + LANE;
    for r in 0..2 {
        let mut x = MARGIN;
        for (k, c) in rows[r].iter().enumerate() {
            let w = widths[r][k];
            match c.0 {
                Some(i) => {
                    let h = box_height(&facts[i], w, false);
                    let y = if r == 0 { MARGIN + row_h[0] - h } else { below_y };
                    boxes[i] = Rect { x, y, w, h };
                }
                None => {
                    let h = (row_h[1]).clamp(TITLE_LINE + 3 * LINE + 2 * PAD, 120);
                    cloud = Some(Rect {
                        x,
                        y: below_y + TILE_H + 4,
                        w,
                        h: h.min(row_h[1] - TILE_H - 4).max(TITLE_LINE + 3 * LINE + 2 * PAD),
                    });
                }
            }
            x += w + GAP;
        }
    }
    let height = below_y + row_h[1] + MARGIN;
    let user = Rect { x: MARGIN, y: api_y, w: USER_W, h: API_H };
    let api = Rect { x: MARGIN + USER_W + GAP, y: api_y, w: canvas - 2 * MARGIN - USER_W - GAP, h: API_H };
    Placement { width: canvas, height: height.max(api.bottom() + MARGIN), api, user, boxes, above, cloud, api_lines: 1 }
}

pub(super) fn place_stacked(facts: &[ProcessFacts], width: i32, has_cloud: bool, api_lines: usize) -> Placement {
    let canvas = width.max(NARROW_MIN);
    let api_lines = api_lines.max(2);
    let api_h = API_H + LINE * (api_lines as i32 - 1);
    let user = Rect { x: MARGIN, y: MARGIN, w: USER_W, h: api_h };
    let api = Rect { x: MARGIN + USER_W + GAP, y: MARGIN, w: canvas - 2 * MARGIN - USER_W - GAP, h: api_h };
    let x = MARGIN + TRUNK;
    let w = canvas - MARGIN - x;
    let mut y = api.bottom() + GAP;
    let mut boxes = Vec::new();
    let mut cloud = None;
    for f in facts {
        let h = box_height(f, w, true);
        boxes.push(Rect { x, y, w, h });
        y += h + GAP;
        if has_cloud && f.p.name == crate::engine::world::BUCKET_OPERATOR {
            let h = TITLE_LINE + 2 * LINE + 2 * PAD;
            cloud = Some(Rect { x, y, w, h });
            y += h + GAP;
        }
    }
    Placement {
        width: canvas,
        height: y - GAP + MARGIN,
        api,
        user,
        above: vec![false; facts.len()],
        boxes,
        cloud,
        api_lines,
    }
}
