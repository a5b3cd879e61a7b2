//! The output pane: what the last `:` command printed, scrolled with the keys.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Widget};

use crate::tui::app::Ctx;
use crate::tui::view::PaneKind;

use super::{PaneStates, note};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer) -> String {
    if ctx.output.is_empty() {
        note(area, buf, "the output of the last command (: runs one)");
        return String::new();
    }
    let scroll = st.get(PaneKind::Output).offset as u16;
    Paragraph::new(ctx.output.to_string())
        .scroll((scroll, 0))
        .render(area, buf);
    String::new()
}
