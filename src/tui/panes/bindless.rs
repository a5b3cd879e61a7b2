//! The bindless pane: the bindless texture/sampler/surface table the
//! layout.bindless sub-phase builds, and each function's bitmask.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::link::event::Event;
use crate::tui::app::Ctx;
use crate::tui::list;
use crate::tui::view::PaneKind;

use super::{CHANGED, HEADER, PaneStates, bp_name, display_name, note};

fn kind_bits(b: u8) -> String {
    format!(
        "{}{}{}",
        if b & 1 != 0 { 'T' } else { '·' },
        if b & 2 != 0 { 'S' } else { '·' },
        if b & 4 != 0 { 'U' } else { '·' }
    )
}

pub(super) enum BindRow {
    Text(Line<'static>),
    Sym(Line<'static>, String),
}

pub(super) fn bindless_rows(ctx: &Ctx) -> Vec<BindRow> {
    let ls = ctx.session.state();
    let Some(t) = &ls.bindless else {
        return Vec::new();
    };
    let mut rows = vec![BindRow::Text(Line::styled(
        format!(
            "table at constant bank 0 +{:#x}, {} slot(s); bits T texture S sampler U surface",
            t.base,
            t.slots.len()
        ),
        HEADER,
    ))];
    for s in &t.slots {
        let name = ls.symbol_name(s.symbol);
        rows.push(BindRow::Sym(
            Line::from(format!("  slot +{:#x} {:?} {}", s.offset, s.kind, display_name(&name))),
            name,
        ));
    }
    rows.push(BindRow::Text(Line::styled("bitmask per function", HEADER)));
    for (f, b) in &t.bits {
        let name = ls.symbol_name(*f);
        let bank = t
            .kernels
            .iter()
            .find(|(k, _)| k == f)
            .and_then(|(_, sec)| ls.sections.get(*sec))
            .map(|s| format!(" → {}", s.name))
            .unwrap_or_default();
        let style = if ctx.d.changed_syms.contains(&f.0) {
            CHANGED
        } else {
            Style::new()
        };
        rows.push(BindRow::Sym(
            Line::styled(format!("  [{}] {}{bank}", kind_bits(*b), display_name(&name)), style),
            name,
        ));
    }
    rows
}

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let rows = bindless_rows(ctx);
    if rows.is_empty() {
        let text = ctx
            .d
            .last_bindless
            .and_then(|k| ctx.session.events().get(k))
            .map(|e| match e {
                Event::Layout(crate::link::layout::LayoutEvent::Bindless(b)) => b.to_string(),
                e => e.to_string(),
            })
            .unwrap_or_else(|| "no bindless table (yet): the layout.bindless sub-phase builds it".into());
        note(area, buf, &text);
        return String::new();
    }
    list::draw(
        buf,
        area,
        rows.len(),
        st.list(PaneKind::Bindless),
        focused,
        |i| match &rows[i] {
            BindRow::Text(l) | BindRow::Sym(l, _) => l.clone(),
        },
    );
    String::new()
}

/// The text search looks at: the row as drawn.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let rows = bindless_rows(ctx);
    Box::new(move |i| match &rows[i] {
        BindRow::Text(l) | BindRow::Sym(l, _) => l.to_string(),
    })
}

/// `b` on a function or slot: its symbol; on a heading: the sub-phase.
pub(super) fn break_command(ctx: &Ctx, sel: usize) -> Option<String> {
    match bindless_rows(ctx).get(sel)? {
        BindRow::Sym(_, n) => bp_name(n).map(|n| format!("break symbol {n}")),
        BindRow::Text(_) => Some("break phase layout.bindless".into()),
    }
}
