//! The breakpoints pane: the breakpoints set, enabled or not, with their
//! conditions and hit counts; `b` toggles the selected one.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::debug::Session;
use crate::tui::app::Ctx;
use crate::tui::list;
use crate::tui::view::PaneKind;

use super::{DIM, PaneStates, note};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let bps = ctx.session.breakpoints();
    if bps.is_empty() {
        note(area, buf, "none: b on a selected item, or :break …");
        return String::new();
    }
    list::draw(buf, area, bps.len(), st.list(PaneKind::Breakpoints), focused, |i| {
        let b = &bps[i];
        Line::styled(
            format!(
                "{} {} {}{} ({} hits)",
                b.id,
                if b.enabled { "y" } else { "n" },
                b.kind.describe(),
                b.cond.as_ref().map(|c| format!(" if {}", c.text)).unwrap_or_default(),
                b.hits
            ),
            if b.enabled { Style::new() } else { DIM },
        )
    });
    format!("{}", bps.len())
}

/// The selected breakpoint's number.
pub fn selected_breakpoint(s: &Session, st: &PaneStates) -> Option<usize> {
    s.breakpoints()
        .get(st.get(PaneKind::Breakpoints).selected)
        .map(|b| b.id)
}

/// The text search looks at: what the breakpoint stops at.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let s: &'a Session = ctx.session;
    Box::new(move |i| s.breakpoints()[i].kind.describe())
}

/// `b` on a breakpoint: enable or disable it.
pub(super) fn break_command(ctx: &Ctx, sel: usize) -> Option<String> {
    let b = ctx.session.breakpoints().get(sel)?;
    Some(format!("{} {}", if b.enabled { "disable" } else { "enable" }, b.id))
}
