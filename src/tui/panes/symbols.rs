//! The symbols table: every output symbol (locals, then globals) in the
//! columns a view preset picks; `b` breaks on the selected symbol, Enter
//! asks `why` it is there.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::Line;

use crate::cubin::consts::{STB_GLOBAL, STB_LOCAL, STB_WEAK};
use crate::debug::Session;
use crate::link::state::{LinkState, OutSymbol, SymIdx};
use crate::tui::app::Ctx;
use crate::tui::list::{self, fit, rfit};
use crate::tui::view::{Column, DEFAULT_COLUMNS, PaneKind, PaneSpec};

use super::{CHANGED, DIM, PaneStates, display_name, header, note, sym_break, sym_why};

pub(super) fn sym_count(st: &LinkState) -> usize {
    st.locals.len() + st.globals.len()
}

fn sym_at(st: &LinkState, row: usize) -> Option<(SymIdx, &OutSymbol)> {
    if row < st.locals.len() {
        Some((SymIdx(row as i32 + 1), &st.locals[row]))
    } else {
        let g = row - st.locals.len();
        st.globals.get(g).map(|s| (SymIdx(-(g as i32) - 1), s))
    }
}

pub(super) fn sym_row(st: &LinkState, idx: SymIdx) -> Option<usize> {
    match idx.0 {
        0 => None,
        i if i > 0 => Some(i as usize - 1),
        i => Some(st.locals.len() + (-(i as i64) - 1) as usize),
    }
}

pub(super) fn binding(b: u8) -> &'static str {
    match b {
        STB_LOCAL => "LOCAL",
        STB_GLOBAL => "GLOBAL",
        STB_WEAK => "WEAK",
        _ => "?",
    }
}

fn sym_type(t: u8) -> &'static str {
    use crate::cubin::consts::*;
    match t {
        STT_NOTYPE => "NOTYPE",
        STT_OBJECT => "OBJECT",
        STT_FUNC => "FUNC",
        STT_SECTION => "SECTION",
        STT_FILE => "FILE",
        STT_COMMON => "COMMON",
        STT_CUDA_TEXTURE => "TEXTURE",
        STT_CUDA_SURFACE => "SURFACE",
        STT_CUDA_SAMPLER => "SAMPLER",
        _ => "?",
    }
}

fn column_width(c: Column) -> usize {
    match c {
        Column::Index => 6,
        Column::Bind => 6,
        Column::Type => 7,
        Column::Section => 14,
        Column::Value => 7,
        Column::Size => 7,
        Column::Input => 10,
        Column::Regs => 4,
        Column::Name | Column::Mangled => 0,
    }
}

fn column_title(c: Column) -> &'static str {
    match c {
        Column::Index => "idx",
        Column::Bind => "bind",
        Column::Type => "type",
        Column::Section => "section",
        Column::Value => "value",
        Column::Size => "size",
        Column::Input => "input",
        Column::Regs => "regs",
        Column::Name => "name",
        Column::Mangled => "mangled",
    }
}

pub(super) fn render(
    ctx: &Ctx,
    st: &mut PaneStates,
    spec: &PaneSpec,
    area: Rect,
    buf: &mut Buffer,
    focused: bool,
) -> String {
    let ls = ctx.session.state();
    let n = sym_count(ls);
    let cols: &[Column] = spec.columns.as_deref().unwrap_or(&DEFAULT_COLUMNS);
    let fixed: usize = cols.iter().map(|c| column_width(*c) + 1).sum();
    let flex = cols.iter().filter(|c| column_width(**c) == 0).count().max(1);
    let rest = (area.width as usize).saturating_sub(fixed) / flex;
    let width = |c: Column| match column_width(c) {
        0 => rest,
        w => w,
    };
    let right = |c: Column| matches!(c, Column::Index | Column::Value | Column::Size | Column::Regs);
    let head: String = cols
        .iter()
        .map(|c| {
            if right(*c) {
                rfit(column_title(*c), width(*c))
            } else {
                fit(column_title(*c), width(*c))
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let body = header(area, buf, head);
    if n == 0 {
        note(body, buf, "no output symbols yet");
        return String::new();
    }
    let d = ctx.d;
    list::draw(buf, body, n, st.list(PaneKind::Symbols), focused, |row| {
        let Some((idx, s)) = sym_at(ls, row) else {
            return Line::default();
        };
        let cell = |c: Column| -> String {
            match c {
                Column::Index => idx.0.to_string(),
                Column::Bind => binding(s.binding).to_string(),
                Column::Type => sym_type(s.sym_type).to_string(),
                Column::Section => ls.place_name(s.place),
                Column::Value => format!("{:#x}", s.value),
                Column::Size => format!("{:#x}", s.size),
                Column::Input => ls.input_name(s.input).to_string(),
                Column::Regs => s.regcount.map(|r| r.to_string()).unwrap_or_default(),
                Column::Name => display_name(&s.name),
                Column::Mangled => s.name.to_string(),
            }
        };
        let text = cols
            .iter()
            .map(|c| {
                if right(*c) {
                    rfit(&cell(*c), width(*c))
                } else {
                    fit(&cell(*c), width(*c))
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
        let style = if d.changed_syms.contains(&idx.0) {
            CHANGED
        } else if s.removed {
            DIM
        } else if !s.is_defined() {
            Style::new().fg(Color::Magenta)
        } else {
            Style::new()
        };
        Line::styled(text, style)
    });
    format!("{n} ({} local, {} global)", ls.locals.len(), ls.globals.len())
}

/// The text search looks at: the name, mangled and demangled.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let s: &'a Session = ctx.session;
    let ls = s.state();
    Box::new(move |i| {
        sym_at(ls, i)
            .map(|(_, s)| format!("{} {}", s.name, display_name(&s.name)))
            .unwrap_or_default()
    })
}

pub(super) fn break_command(ctx: &Ctx, sel: usize) -> Option<String> {
    let ls = ctx.session.state();
    sym_at(ls, sel).and_then(|(i, _)| sym_break(ls, i))
}

pub(super) fn enter_command(ctx: &Ctx, sel: usize) -> Option<String> {
    let ls = ctx.session.state();
    sym_at(ls, sel).and_then(|(i, _)| sym_why(ls, i))
}
