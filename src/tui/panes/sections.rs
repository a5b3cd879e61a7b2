//! The sections pane: a tree of the output sections, each opening to the
//! input sections that contribute to it, each opening to the symbols they
//! define. Only opened nodes are built.

use std::collections::HashSet;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem, TreeState};

use crate::link::state::{LinkState, OutSymbol, Place, SymIdx};
use crate::tui::app::Ctx;

use super::{CHANGED, DIM, Items, PaneStates, bp_name, display_name, note, sym_break};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let ls = ctx.session.state();
    if ls.sections.len() <= 1 {
        note(area, buf, "no output sections yet");
        return String::new();
    }
    let key = (ctx.d.pos, st.tree_gen);
    if st.sections_cache.as_ref().is_none_or(|(k, _)| *k != key) {
        let items = section_items(ctx, &st.sections);
        st.sections_cache = Some((key, items));
    }
    let items = &st.sections_cache.as_ref().expect("built above").1;
    if let Ok(tree) = Tree::new(items) {
        let tree = tree.highlight_symbol("> ").highlight_style(if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().add_modifier(Modifier::UNDERLINED)
        });
        StatefulWidget::render(tree, area, buf, &mut st.sections);
    }
    format!("{}", ls.sections.len() - 1)
}

/// Closed nodes get one placeholder child (so they show as closed); only
/// opened nodes are filled, so a link of 100,000 symbols builds what shows.
fn placeholder() -> TreeItem<'static, String> {
    TreeItem::new_leaf("…".to_string(), "…")
}

fn section_items(ctx: &Ctx, tree: &TreeState<String>) -> Items {
    let ls = ctx.session.state();
    let opened = tree.opened();
    let mut out = Vec::with_capacity(ls.sections.len());
    for (i, sec) in ls.sections.iter().enumerate().skip(1) {
        let id = format!("s{i}");
        let style = if ctx.d.changed_sections.contains(&i) {
            CHANGED
        } else if sec.removed {
            DIM
        } else {
            Style::new()
        };
        let text = Line::styled(
            format!(
                "[{i}] {} {:#x}{}",
                sec.name,
                sec.size,
                if sec.removed { " removed" } else { "" }
            ),
            style,
        );
        let path = vec![id.clone()];
        let children = if sec.contributions.is_empty() {
            Vec::new()
        } else if opened.contains(&path) {
            contribution_items(ctx, i, opened, &path)
        } else {
            vec![placeholder()]
        };
        let item = TreeItem::new(id.clone(), text.clone(), children).unwrap_or_else(|_| TreeItem::new_leaf(id, text));
        out.push(item);
    }
    out
}

fn contribution_items(ctx: &Ctx, sec: usize, opened: &HashSet<Vec<String>>, path: &[String]) -> Items {
    let ls = ctx.session.state();
    let s = &ls.sections[sec];
    let mut out = Vec::new();
    for (j, c) in s.contributions.iter().enumerate() {
        let id = format!("c{j}");
        let text = Line::styled(
            format!(
                "+{:#x} {:#x} from {} [{}]{}",
                c.offset,
                c.size,
                ls.input_name(c.input),
                c.in_section,
                if c.live { "" } else { " dead" }
            ),
            if c.live { Style::new() } else { DIM },
        );
        let mut p = path.to_vec();
        p.push(id.clone());
        let children = if opened.contains(&p) {
            symbols_in(ls, sec, c.input, c.offset, c.size)
                .into_iter()
                .take(2000)
                .map(|(idx, sym)| {
                    let style = if ctx.d.changed_syms.contains(&idx.0) {
                        CHANGED
                    } else {
                        Style::new()
                    };
                    TreeItem::new_leaf(
                        format!("y{}", idx.0),
                        Line::styled(format!("{} {:#x} {}", idx.0, sym.value, display_name(&sym.name)), style),
                    )
                })
                .collect()
        } else {
            vec![placeholder()]
        };
        out.push(TreeItem::new(id.clone(), text.clone(), children).unwrap_or_else(|_| TreeItem::new_leaf(id, text)));
    }
    out
}

/// The symbols a contribution defines (by input, section and offset range).
fn symbols_in(ls: &LinkState, sec: usize, input: usize, off: u64, size: u64) -> Vec<(SymIdx, &OutSymbol)> {
    ls.all_symbols()
        .filter(|(_, s)| {
            s.place == Place::Section(sec)
                && s.input == input
                && s.value >= off
                && (s.value < off + size.max(1) || (size == 0 && s.value == off))
        })
        .collect()
}

/// Selects the next section whose name holds the needle, else the first
/// symbol whose name does (opening its section and contribution).
pub(super) fn search(ctx: &Ctx, st: &mut PaneStates, has: &dyn Fn(&str) -> bool) -> bool {
    let ls = ctx.session.state();
    // Sections by name, then symbols by name (opening their section and contribution).
    for (i, s) in ls.sections.iter().enumerate().skip(1) {
        if has(&s.name) {
            st.sections.select(vec![format!("s{i}")]);
            st.tree_gen += 1;
            return true;
        }
    }
    for (idx, sym) in ls.all_symbols() {
        if !(has(&sym.name) || has(&display_name(&sym.name))) {
            continue;
        }
        let Place::Section(sec) = sym.place else { continue };
        let Some(s) = ls.sections.get(sec) else { continue };
        let Some(j) = s
            .contributions
            .iter()
            .position(|c| c.input == sym.input && sym.value >= c.offset && sym.value < c.offset + c.size.max(1))
        else {
            continue;
        };
        let a = format!("s{sec}");
        let b = format!("c{j}");
        st.sections.open(vec![a.clone()]);
        st.sections.open(vec![a.clone(), b.clone()]);
        st.sections.select(vec![a, b, format!("y{}", idx.0)]);
        st.tree_gen += 1;
        return true;
    }
    false
}

/// `b` on a section (its relocations), a contribution (its input) or a symbol.
pub(super) fn break_command(ctx: &Ctx, st: &PaneStates) -> Option<String> {
    let ls = ctx.session.state();
    let path = st.sections.selected();
    let last = path.last()?;
    if let Some(y) = last.strip_prefix('y') {
        return sym_break(ls, SymIdx(y.parse().ok()?));
    }
    let sec: usize = path.first()?.strip_prefix('s')?.parse().ok()?;
    let s = ls.sections.get(sec)?;
    if let Some(c) = last.strip_prefix('c') {
        let c = s.contributions.get(c.parse::<usize>().ok()?)?;
        return bp_name(ls.input_name(c.input)).map(|n| format!("break input {n}"));
    }
    bp_name(&s.name).map(|n| format!("break reloc section={n}"))
}
