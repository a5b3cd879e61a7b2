//! A list that draws only the rows it shows: the row text is asked for the
//! visible window alone, so a table of 100,000 symbols costs what a table
//! of twenty does.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

/// Selection and scroll of one list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListState {
    pub selected: usize,
    pub offset: usize,
    /// Rows shown at the last draw (for page up/down).
    pub height: usize,
}

impl ListState {
    /// Keeps the selection inside `n` rows and in view of `height` rows.
    pub fn fit(&mut self, n: usize, height: usize) {
        self.height = height;
        if n == 0 {
            self.selected = 0;
            self.offset = 0;
            return;
        }
        self.selected = self.selected.min(n - 1);
        if self.selected < self.offset {
            self.offset = self.selected;
        }
        if height > 0 && self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(n.saturating_sub(height.max(1)));
    }

    /// Selects row `i` and scrolls so that it shows with some context above.
    pub fn select_centered(&mut self, i: usize) {
        self.selected = i;
        let h = self.height.max(1);
        if i < self.offset || i >= self.offset + h {
            self.offset = i.saturating_sub(h / 3);
        }
    }

    /// Moves the selection by `delta` rows within `n`.
    pub fn step(&mut self, delta: isize, n: usize) {
        if n == 0 {
            return;
        }
        let s = self.selected as isize + delta;
        self.selected = s.clamp(0, n as isize - 1) as usize;
    }

    pub fn page(&self) -> isize {
        self.height.max(2) as isize - 1
    }
}

/// Draws rows `offset..` of an `n`-row list into `area`, asking `row` for
/// the visible ones only; the selected row is reversed when `selected`.
pub fn draw<'a>(
    buf: &mut Buffer,
    area: Rect,
    n: usize,
    st: &mut ListState,
    selected: bool,
    mut row: impl FnMut(usize) -> Line<'a>,
) {
    st.fit(n, area.height as usize);
    let shown = (area.height as usize).min(n.saturating_sub(st.offset));
    for r in 0..shown {
        let i = st.offset + r;
        let y = area.y + r as u16;
        let line = row(i);
        buf.set_line(area.x, y, &line, area.width);
        if selected && i == st.selected {
            buf.set_style(
                Rect::new(area.x, y, area.width, 1),
                Style::new().add_modifier(Modifier::REVERSED),
            );
        }
    }
}

/// `s` cut or padded to `w` characters.
pub fn fit(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w {
        let mut o = s.to_string();
        o.extend(std::iter::repeat_n(' ', w - n));
        o
    } else if w == 0 {
        String::new()
    } else {
        let mut o: String = s.chars().take(w - 1).collect();
        o.push('…');
        o
    }
}

/// `s` right-aligned in `w` characters (cut on the left when longer).
pub fn rfit(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w {
        format!("{}{s}", " ".repeat(w - n))
    } else {
        s.chars().skip(n - w).collect()
    }
}
