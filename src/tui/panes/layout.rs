//! The layout pane: the data sections by memory space in layout order,
//! each followed by the symbols placed in it at their offsets.

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use crate::link::state::{LinkState, Place, SectionClass, SymIdx};
use crate::tui::app::Ctx;
use crate::tui::list::{self, rfit};
use crate::tui::view::PaneKind;

use super::{CHANGED, DIM, HEADER, PaneStates, bp_name, display_name, note, sym_break, sym_why};

/// A row of the layout pane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum LayoutRow {
    Space(SectionClass),
    Section(usize),
    Sym(SymIdx),
}

fn space_name(c: SectionClass) -> String {
    match c {
        SectionClass::Global => "global".into(),
        SectionClass::GlobalInit => "global (initialized)".into(),
        SectionClass::Shared => "shared".into(),
        SectionClass::SharedReserved => "shared (reserved)".into(),
        SectionClass::Local => "local".into(),
        SectionClass::Constant(n) => format!("constant bank {n}"),
        SectionClass::Unified => "unified tables".into(),
        SectionClass::Text => "code".into(),
        SectionClass::Debug => "debug".into(),
        SectionClass::Other => "other".into(),
    }
}

fn space_order(c: SectionClass) -> Option<u32> {
    match c {
        SectionClass::Global => Some(0),
        SectionClass::GlobalInit => Some(1),
        SectionClass::Constant(n) => Some(10 + n),
        SectionClass::Shared => Some(40),
        SectionClass::SharedReserved => Some(41),
        SectionClass::Local => Some(50),
        SectionClass::Unified => Some(60),
        _ => None,
    }
}

fn layout_rows(ls: &LinkState) -> Vec<LayoutRow> {
    let mut by_sec: HashMap<usize, Vec<(u64, SymIdx)>> = HashMap::new();
    for (i, s) in ls.all_symbols() {
        if let Place::Section(sec) = s.place
            && ls.sections.get(sec).is_some_and(|x| space_order(x.class).is_some())
            && !s.name.is_empty()
            && s.sym_type != crate::cubin::consts::STT_SECTION
        {
            by_sec.entry(sec).or_default().push((s.value, i));
        }
    }
    let mut secs: Vec<(u32, usize)> = ls
        .sections
        .iter()
        .enumerate()
        .skip(1)
        .filter_map(|(i, s)| space_order(s.class).map(|o| (o, i)))
        .collect();
    secs.sort();
    let mut rows = Vec::new();
    let mut last = None;
    for (o, i) in secs {
        if last != Some(o) {
            rows.push(LayoutRow::Space(ls.sections[i].class));
            last = Some(o);
        }
        rows.push(LayoutRow::Section(i));
        if let Some(mut v) = by_sec.remove(&i) {
            v.sort();
            rows.extend(v.into_iter().map(|(_, s)| LayoutRow::Sym(s)));
        }
    }
    rows
}

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let ls = ctx.session.state();
    if st.layout_cache.as_ref().is_none_or(|(p, _)| *p != ctx.d.pos) {
        st.layout_cache = Some((ctx.d.pos, layout_rows(ls)));
    }
    let rows = std::mem::take(&mut st.layout_cache.as_mut().expect("built above").1);
    if let Some(f) = st.layout_follow.take()
        && let Some(r) = rows.iter().position(|r| *r == LayoutRow::Sym(f))
    {
        st.list(PaneKind::Layout).select_centered(r);
    }
    let placed = ctx.d.placed;
    if rows.is_empty() {
        note(area, buf, "no data sections yet");
    } else {
        let d = ctx.d;
        list::draw(
            buf,
            area,
            rows.len(),
            st.list(PaneKind::Layout),
            focused,
            |i| match rows[i] {
                LayoutRow::Space(c) => Line::styled(format!("── {} ──", space_name(c)), HEADER),
                LayoutRow::Section(s) => {
                    let sec = &ls.sections[s];
                    Line::styled(
                        format!(
                            " [{s}] {} size {:#x} align {}{}",
                            sec.name,
                            sec.size,
                            sec.align,
                            if sec.removed { " removed" } else { "" }
                        ),
                        if d.changed_sections.contains(&s) {
                            CHANGED
                        } else {
                            Style::new()
                        },
                    )
                }
                LayoutRow::Sym(idx) => {
                    let Some(sym) = ls.symbol(idx) else {
                        return Line::default();
                    };
                    Line::styled(
                        format!(
                            "   +{} {} {}",
                            rfit(&format!("{:#x}", sym.value), 7),
                            rfit(&format!("{:#x}", sym.size), 6),
                            display_name(&sym.name)
                        ),
                        if d.changed_syms.contains(&idx.0) {
                            CHANGED
                        } else if sym.removed {
                            DIM
                        } else {
                            Style::new()
                        },
                    )
                }
            },
        );
    }
    st.layout_cache.as_mut().expect("built above").1 = rows;
    format!("{placed} placed")
}

/// The rows at the current event (built once per position).
pub(super) fn rows(ctx: &Ctx, st: &mut PaneStates) -> usize {
    if st.layout_cache.as_ref().is_none_or(|(p, _)| *p != ctx.d.pos) {
        st.layout_cache = Some((ctx.d.pos, layout_rows(ctx.session.state())));
    }
    st.layout_cache.as_ref().map(|c| c.1.len()).unwrap_or(0)
}

/// The text search looks at: a section's or a symbol's name.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>, st: &PaneStates) -> Box<dyn Fn(usize) -> String + 'a> {
    let ls = ctx.session.state();
    let layout = st.layout_cache.as_ref().map(|c| c.1.clone()).unwrap_or_default();
    Box::new(move |i| match layout.get(i) {
        Some(LayoutRow::Section(s)) => ls.sections[*s].name.clone(),
        Some(LayoutRow::Sym(y)) => ls.symbol_name(*y),
        _ => String::new(),
    })
}

pub(super) fn break_command(ctx: &Ctx, st: &PaneStates, sel: usize) -> Option<String> {
    let ls = ctx.session.state();
    match st.layout_cache.as_ref()?.1.get(sel)? {
        LayoutRow::Sym(i) => sym_break(ls, *i),
        LayoutRow::Section(s) => bp_name(&ls.sections[*s].name).map(|n| format!("break reloc section={n}")),
        LayoutRow::Space(_) => Some("break phase layout".into()),
    }
}

pub(super) fn enter_command(ctx: &Ctx, st: &PaneStates, sel: usize) -> Option<String> {
    match st.layout_cache.as_ref()?.1.get(sel)? {
        LayoutRow::Sym(i) => sym_why(ctx.session.state(), *i),
        LayoutRow::Section(s) => Some(format!("print section {s}")),
        LayoutRow::Space(_) => None,
    }
}
