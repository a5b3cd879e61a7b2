//! The maps pane: one input's mapping arrays as the merge fills them
//! (input symbol → output symbol, weak-processed, input section → output
//! section and offset), changed cells highlighted; Left/Right pick the input.

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::link::state::SymIdx;
use crate::tui::app::Ctx;
use crate::tui::list::{self, fit, rfit};
use crate::tui::view::PaneKind;

use super::{CHANGED, DIM, PaneStates, header, note, sym_break, sym_why};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let ls = ctx.session.state();
    let Some(k) = st.map_input.or(ctx.d.map_input) else {
        note(area, buf, "no input merged yet (the merge phase fills these arrays)");
        return String::new();
    };
    let Some(m) = ls.maps.get(k) else {
        note(area, buf, "this input is not merged yet");
        return format!("input #{k}");
    };
    let title = format!("input #{k} {} (←/→ input)", ls.input_name(k));
    let empty = crate::link::state::InputMaps::default();
    let prev = ctx.d.prev_maps.get(k).unwrap_or(&empty);
    let (syms, secs) = {
        let n = st.input_names(ls, k);
        (n.0.clone(), n.1.clone())
    };
    let w = area.width as usize;
    let avail = w.saturating_sub(4 + 1 + 1 + 6 + 1 + 2 + 3 + 1 + 5 + 1 + 8);
    let symw = avail * 11 / 20;
    let secw = avail - symw;
    let head = format!(
        "{} {} {} {} │ {} {} {}",
        rfit("k", 4),
        fit("symbol", symw),
        rfit("→sym", 6),
        fit("wp", 2),
        fit("section", secw),
        rfit("→sec", 5),
        rfit("offset", 8)
    );
    let body = header(area, buf, head);
    let n = m.map_symbol_index.len().max(m.map_section_index.len());
    if n == 0 {
        note(body, buf, "the arrays are allocated when the input's merge starts");
        return title;
    }
    list::draw(buf, body, n, st.list(PaneKind::Maps), focused, |r| {
        let style = |changed: bool| if changed { CHANGED } else { Style::new() };
        let mut spans = vec![Span::raw(format!("{} ", rfit(&r.to_string(), 4)))];
        if let Some(v) = m.map_symbol_index.get(r) {
            let wp = m.weak_processed.get(r).copied().unwrap_or(false);
            let name = syms.get(r).map(String::as_str).unwrap_or("");
            spans.push(Span::raw(format!(
                "{} ",
                fit(if name.is_empty() { "-" } else { name }, symw)
            )));
            let pv = prev.map_symbol_index.get(r).copied().unwrap_or(0);
            spans.push(Span::styled(rfit(&v.to_string(), 6), style(pv != *v)));
            spans.push(Span::raw(" "));
            let pw = prev.weak_processed.get(r).copied().unwrap_or(false);
            spans.push(Span::styled(fit(if wp { "✓" } else { "·" }, 2), style(pw != wp)));
        } else {
            spans.push(Span::raw(" ".repeat(symw + 1 + 6 + 1 + 2)));
        }
        spans.push(Span::styled(" │ ", DIM));
        if let Some(v) = m.map_section_index.get(r) {
            let name = secs.get(r).map(String::as_str).unwrap_or("");
            spans.push(Span::raw(format!(
                "{} ",
                fit(if name.is_empty() { "-" } else { name }, secw)
            )));
            let pv = prev.map_section_index.get(r).copied().unwrap_or(0);
            spans.push(Span::styled(rfit(&v.to_string(), 5), style(pv != *v)));
            spans.push(Span::raw(" "));
            let off = m.map_section_offset.get(r).copied().unwrap_or(0);
            let po = prev.map_section_offset.get(r).copied().unwrap_or(0);
            spans.push(Span::styled(rfit(&format!("{off:#x}"), 8), style(po != off)));
        }
        Line::from(spans)
    });
    title
}

/// The rows of the input shown: the longer of its two arrays.
pub(super) fn rows(ctx: &Ctx, st: &PaneStates) -> Option<usize> {
    let k = st.map_input.or(ctx.d.map_input)?;
    let m = ctx.session.state().maps.get(k)?;
    Some(m.map_symbol_index.len().max(m.map_section_index.len()))
}

/// Left/Right: the previous or next input. False for other keys.
pub(super) fn on_key(ctx: &Ctx, st: &mut PaneStates, code: KeyCode) -> bool {
    if !matches!(code, KeyCode::Left | KeyCode::Right) {
        return false;
    }
    let n = ctx.session.state().maps.len();
    if n > 0 {
        let cur = st.map_input.or(ctx.d.map_input).unwrap_or(0);
        st.map_input = Some(if code == KeyCode::Left {
            (cur + n - 1) % n
        } else {
            (cur + 1) % n
        });
    }
    true
}

/// The text search looks at: the row's symbol and section names.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>, st: &mut PaneStates) -> Box<dyn Fn(usize) -> String + 'a> {
    let ls = ctx.session.state();
    let names = st.map_input.or(ctx.d.map_input).map(|k| st.input_names(ls, k).clone());
    Box::new(move |i| {
        names
            .as_ref()
            .map(|(a, b)| {
                format!(
                    "{} {}",
                    a.get(i).map(String::as_str).unwrap_or(""),
                    b.get(i).map(String::as_str).unwrap_or("")
                )
            })
            .unwrap_or_default()
    })
}

/// The output symbol of the selected row.
fn selected_out(ctx: &Ctx, st: &PaneStates, sel: usize) -> Option<SymIdx> {
    let k = st.map_input.or(ctx.d.map_input)?;
    Some(SymIdx(*ctx.session.state().maps.get(k)?.map_symbol_index.get(sel)?))
}

pub(super) fn break_command(ctx: &Ctx, st: &PaneStates, sel: usize) -> Option<String> {
    sym_break(ctx.session.state(), selected_out(ctx, st, sel)?)
}

pub(super) fn enter_command(ctx: &Ctx, st: &PaneStates, sel: usize) -> Option<String> {
    sym_why(ctx.session.state(), selected_out(ctx, st, sel)?)
}
