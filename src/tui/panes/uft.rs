//! The unified-tables pane: the `.nv.uft*`/`.nv.udt*` sections and the
//! slot and entry events of the layout.uft sub-phase.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::link::event::Event;
use crate::tui::app::Ctx;
use crate::tui::list;
use crate::tui::view::PaneKind;

use super::{CHANGED, HEADER, PaneStates, bp_name, display_name, note};

pub(super) fn uft_rows(ctx: &Ctx) -> Vec<(Line<'static>, Option<String>)> {
    use crate::link::layout::LayoutEvent;
    use crate::link::uft::UftEvent;
    let ls = ctx.session.state();
    let mut rows: Vec<(Line<'static>, Option<String>)> = Vec::new();
    for (i, sec) in ls.sections.iter().enumerate() {
        if sec.name.starts_with(".nv.uft") || sec.name.starts_with(".nv.udt") {
            rows.push((
                Line::styled(
                    format!("[{i}] {} size {:#x}", sec.name, sec.size),
                    if ctx.d.changed_sections.contains(&i) {
                        CHANGED
                    } else {
                        HEADER
                    },
                ),
                None,
            ));
        }
    }
    for &k in &ctx.d.uft_events {
        let Some(Event::Layout(LayoutEvent::Uft(u))) = ctx.session.events().get(k) else {
            continue;
        };
        let style = if ctx.d.changed_events.contains(&k) {
            CHANGED
        } else {
            Style::new()
        };
        let (text, stub) = match u {
            UftEvent::SlotAssigned {
                table,
                uuid,
                stub,
                from,
                to,
                size,
            } => (
                format!(
                    "{} slot {:#x} ← {} (was {from:#x}, {size:#x} bytes) uuid {:x}:{:x}",
                    table.section(),
                    to,
                    display_name(stub),
                    uuid.0,
                    uuid.1
                ),
                Some(stub.clone()),
            ),
            UftEvent::EntryMapped {
                table,
                index,
                stub,
                conflict,
                ..
            } => (
                format!(
                    "{} entry {index}: {}{}",
                    table.section(),
                    display_name(stub),
                    if *conflict { " (uuid taken: conflict)" } else { "" }
                ),
                Some(stub.clone()),
            ),
            other => (other.to_string(), None),
        };
        rows.push((Line::styled(format!("#{k} {text}"), style), stub));
    }
    rows
}

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let rows = uft_rows(ctx);
    if rows.is_empty() {
        note(area, buf, "no unified function or data table in this link (so far)");
        return String::new();
    }
    list::draw(buf, area, rows.len(), st.list(PaneKind::Uft), focused, |i| {
        rows[i].0.clone()
    });
    format!("{} rows", rows.len())
}

/// The text search looks at: the row as drawn.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let rows = uft_rows(ctx);
    Box::new(move |i| rows[i].0.to_string())
}

/// `b` on a slot or entry: its stub; on a table: the sub-phase.
pub(super) fn break_command(ctx: &Ctx, sel: usize) -> Option<String> {
    let rows = uft_rows(ctx);
    let stub = rows.get(sel)?.1.clone();
    match stub {
        Some(s) => bp_name(&s).map(|n| format!("break symbol {n}")),
        None => Some("break phase layout.uft".into()),
    }
}
