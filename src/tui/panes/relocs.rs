//! The relocations pane and the patch pane beside it: every relocation of
//! the output with its fate so far, and the selected one's bits before and
//! after it is applied ([`crate::tui::bits`]).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::app::{Ctx, Fate};
use crate::tui::bits;
use crate::tui::list::{self, fit};
use crate::tui::view::PaneKind;

use super::{CHANGED, DIM, GOOD, KEPT, PaneStates, bp_name, display_name, note};

fn fate_text(f: Option<(usize, Fate)>) -> (String, Style) {
    match f {
        Some((k, Fate::Applied)) => (format!("applied #{k}"), GOOD),
        Some((k, Fate::Kept)) => (format!("kept #{k}"), KEPT),
        Some((k, Fate::Dropped)) => (format!("dropped #{k}"), DIM),
        None => ("pending".into(), Style::new()),
    }
}

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let ls = ctx.session.state();
    let n = ls.relocs.len();
    if n == 0 {
        note(area, buf, "no relocations yet (the merge translates them)");
        return String::new();
    }
    let d = ctx.d;
    list::draw(buf, area, n, st.list(PaneKind::Relocs), focused, |i| {
        let r = &ls.relocs[i];
        let (fate, fs) = fate_text(d.reloc_fate.get(i).copied().flatten());
        let place = format!(
            "{}+{:#x}",
            ls.sections.get(r.section).map(|s| s.name.as_str()).unwrap_or("?"),
            r.offset
        );
        let sym = format!("{}{:+#x}", display_name(&ls.symbol_name(r.sym)), r.addend);
        let base = if d.changed_relocs.contains(&i) {
            CHANGED
        } else if !r.live {
            DIM
        } else {
            Style::new()
        };
        Line::from(vec![
            Span::styled(
                format!(
                    "#{} {} {} {} ",
                    fit(&i.to_string(), 3),
                    fit(&place, 20),
                    fit(&crate::debug::breakpoint::reloc_type_name(r.rtype), 22),
                    fit(&sym, 16)
                ),
                base,
            ),
            Span::styled(fate, fs),
        ])
    });
    format!(
        "{n}; {} applied, {} kept, {} dropped",
        d.fates[0], d.fates[1], d.fates[2]
    )
}

pub(super) fn render_patch(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer) -> String {
    let ls = ctx.session.state();
    if ls.relocs.is_empty() {
        note(area, buf, "no relocations yet");
        return String::new();
    }
    let i = st.get(PaneKind::Relocs).selected.min(ls.relocs.len() - 1);
    let lines = bits::patch_lines(ctx, i, area.width as usize);
    let scroll = st.get(PaneKind::Patch).offset;
    for (r, l) in lines.iter().skip(scroll).take(area.height as usize).enumerate() {
        buf.set_line(area.x, area.y + r as u16, l, area.width);
    }
    format!("relocation #{i}")
}

/// The text search looks at: place, type and symbol.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let ls = ctx.session.state();
    Box::new(move |i| {
        let r = &ls.relocs[i];
        format!(
            "{}+{:#x} {} {}",
            ls.sections.get(r.section).map(|s| s.name.as_str()).unwrap_or(""),
            r.offset,
            crate::debug::breakpoint::reloc_type_name(r.rtype),
            ls.symbol_name(r.sym)
        )
    })
}

/// `b` on a relocation (or its patch): a breakpoint at its place.
pub(super) fn break_command(ctx: &Ctx, st: &PaneStates) -> Option<String> {
    let ls = ctx.session.state();
    let i = st.get(PaneKind::Relocs).selected;
    let r = ls.relocs.get(i)?;
    let sec = bp_name(&ls.sections.get(r.section)?.name)?;
    Some(format!("break reloc section={sec} offset={:#x}", r.offset))
}

/// Enter on a relocation (or its patch): `explain` it.
pub(super) fn enter_command(ctx: &Ctx, st: &PaneStates) -> Option<String> {
    let i = st.get(PaneKind::Relocs).selected;
    (i < ctx.session.state().relocs.len()).then(|| format!("explain #{i}"))
}
