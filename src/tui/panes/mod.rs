//! The panes: each draws one view of the link state into its rectangle,
//! moves its selection on keys, searches its rows, and says what breakpoint
//! `b` sets on its selected item. Lists draw only their visible rows.
//!
//! A pane's module holds its drawing, its rows and what search, `b` and
//! Enter do on them; [`state`] holds what the panes keep between frames.
//! This module dispatches on the pane's kind and holds what they share: the
//! styles, the header and note lines, the key handling of lists and trees.

mod bindless;
mod breakpoints;
mod events;
mod inputs;
mod layout;
mod maps;
mod output;
mod relocs;
mod sections;
mod state;
mod symbols;
mod uft;
mod weak;

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};
use tui_tree_widget::{TreeItem, TreeState};

use crate::link::state::{LinkState, SymIdx};

use super::app::Ctx;
use super::view::{PaneKind, PaneSpec};

pub use breakpoints::selected_breakpoint;
pub use state::PaneStates;

pub const CHANGED: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().fg(Color::DarkGray);
const HEADER: Style = Style::new().add_modifier(Modifier::BOLD);
const GOOD: Style = Style::new().fg(Color::Green).add_modifier(Modifier::BOLD);
const BAD: Style = Style::new().fg(Color::Red);
const KEPT: Style = Style::new().fg(Color::Cyan);

type Items = Vec<TreeItem<'static, String>>;

fn display_name(name: &str) -> String {
    crate::demangle::demangle(name).unwrap_or_else(|| name.to_string())
}

/// A name as a breakpoint argument (the command language splits on spaces).
fn bp_name(name: &str) -> Option<String> {
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_string())
}

/// `b` on a symbol: a symbol breakpoint.
fn sym_break(ls: &LinkState, i: SymIdx) -> Option<String> {
    ls.symbol(i)
        .and_then(|s| bp_name(&s.name))
        .map(|n| format!("break symbol {n}"))
}

/// Enter on a symbol: `why` it is there.
fn sym_why(ls: &LinkState, i: SymIdx) -> Option<String> {
    ls.symbol(i).and_then(|s| bp_name(&s.name)).map(|n| format!("why {n}"))
}

/// Moves every pane's selection to what the current event is about.
pub fn follow(ctx: &Ctx, st: &mut PaneStates) {
    let d = ctx.d;
    let ls = ctx.session.state();
    if let Some(k) = d.pos.checked_sub(1) {
        st.list(PaneKind::Events).select_centered(k);
    }
    if let Some(row) = d.cur_sym.and_then(|i| symbols::sym_row(ls, i)) {
        st.list(PaneKind::Symbols).select_centered(row);
    }
    st.map_input = None;
    if let Some(r) = d.cur_map_row {
        st.list(PaneKind::Maps).select_centered(r);
    }
    if let Some(r) = d.cur_reloc {
        st.list(PaneKind::Relocs).select_centered(r);
    }
    if !d.weak.is_empty() {
        st.list(PaneKind::Weak).select_centered(d.weak.len() - 1);
    }
    if let Some(s) = d.cur_section {
        st.sections.select(vec![format!("s{s}")]);
    }
    st.layout_follow = d.cur_sym;
}

// ---- drawing

/// Draws one pane with its border and title.
pub fn render(ctx: &Ctx, st: &mut PaneStates, spec: &PaneSpec, area: Rect, buf: &mut Buffer, focused: bool) {
    let inner = Block::bordered().inner(area);
    let info = match spec.kind {
        PaneKind::Sections => sections::render(ctx, st, inner, buf, focused),
        PaneKind::Inputs => inputs::render(ctx, st, inner, buf, focused),
        PaneKind::Symbols => symbols::render(ctx, st, spec, inner, buf, focused),
        PaneKind::Maps => maps::render(ctx, st, inner, buf, focused),
        PaneKind::Weak => weak::render(ctx, st, inner, buf, focused),
        PaneKind::Layout => layout::render(ctx, st, inner, buf, focused),
        PaneKind::Relocs => relocs::render(ctx, st, inner, buf, focused),
        PaneKind::Patch => relocs::render_patch(ctx, st, inner, buf),
        PaneKind::Uft => uft::render(ctx, st, inner, buf, focused),
        PaneKind::Bindless => bindless::render(ctx, st, inner, buf, focused),
        PaneKind::Events => events::render(ctx, st, inner, buf, focused),
        PaneKind::Breakpoints => breakpoints::render(ctx, st, inner, buf, focused),
        PaneKind::Output => output::render(ctx, st, inner, buf),
        PaneKind::Size => crate::tui::size::render(ctx, st.get(PaneKind::Size).offset, inner, buf),
    };
    let name = spec.title.clone().unwrap_or_else(|| spec.kind.name().to_string());
    let title = if info.is_empty() {
        format!(" {name} ")
    } else {
        format!(" {name}: {info} ")
    };
    let border = if focused {
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
    } else {
        DIM
    };
    Block::bordered().title(title).border_style(border).render(area, buf);
}

fn note(area: Rect, buf: &mut Buffer, text: &str) {
    Paragraph::new(text.to_string())
        .style(DIM)
        .wrap(Wrap { trim: true })
        .render(area, buf);
}

/// The first row of `area` as a header; the rest returned.
fn header(area: Rect, buf: &mut Buffer, text: String) -> Rect {
    if area.height == 0 {
        return area;
    }
    buf.set_line(area.x, area.y, &Line::styled(text, HEADER), area.width);
    Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    }
}

// ---- keys

/// Rows of a list pane (None for the trees and text panes).
fn rows(ctx: &Ctx, st: &mut PaneStates, kind: PaneKind) -> Option<usize> {
    let ls = ctx.session.state();
    Some(match kind {
        PaneKind::Symbols => symbols::sym_count(ls),
        PaneKind::Maps => maps::rows(ctx, st)?,
        PaneKind::Weak => ctx.d.weak.len(),
        PaneKind::Layout => layout::rows(ctx, st),
        PaneKind::Relocs => ls.relocs.len(),
        PaneKind::Uft => uft::uft_rows(ctx).len(),
        PaneKind::Bindless => bindless::bindless_rows(ctx).len(),
        PaneKind::Events => ctx.session.events().len(),
        PaneKind::Breakpoints => ctx.session.breakpoints().len(),
        PaneKind::Sections | PaneKind::Inputs | PaneKind::Patch | PaneKind::Output | PaneKind::Size => return None,
    })
}

/// A navigation key on a tree pane.
fn tree_key(t: &mut TreeState<String>, code: KeyCode) {
    match code {
        KeyCode::Up | KeyCode::Char('k') => {
            t.key_up();
        }
        KeyCode::Down | KeyCode::Char('j') => {
            t.key_down();
        }
        KeyCode::Left | KeyCode::Char('h') => {
            t.key_left();
        }
        KeyCode::Right | KeyCode::Char('l') => {
            t.key_right();
        }
        KeyCode::Enter | KeyCode::Char(' ') => {
            t.toggle_selected();
        }
        KeyCode::Home | KeyCode::Char('g') => {
            t.select_first();
        }
        KeyCode::End | KeyCode::Char('G') => {
            t.select_last();
        }
        KeyCode::PageDown => {
            t.select_relative(|c| c.map_or(0, |c| c.saturating_add(10)));
        }
        KeyCode::PageUp => {
            t.select_relative(|c| c.map_or(0, |c| c.saturating_sub(10)));
        }
        _ => {}
    }
}

/// A navigation key for the focused pane.
pub fn on_key(ctx: &Ctx, st: &mut PaneStates, kind: PaneKind, code: KeyCode) {
    match kind {
        PaneKind::Sections => {
            st.tree_gen += 1;
            tree_key(&mut st.sections, code);
        }
        PaneKind::Inputs => {
            st.tree_gen += 1;
            tree_key(&mut st.inputs, code);
        }
        PaneKind::Patch | PaneKind::Output | PaneKind::Size => {
            let l = st.list(kind);
            match code {
                KeyCode::Down | KeyCode::Char('j') => l.offset += 1,
                KeyCode::Up | KeyCode::Char('k') => l.offset = l.offset.saturating_sub(1),
                KeyCode::PageDown => l.offset += 10,
                KeyCode::PageUp => l.offset = l.offset.saturating_sub(10),
                KeyCode::Home | KeyCode::Char('g') => l.offset = 0,
                _ => {}
            }
        }
        _ => {
            if kind == PaneKind::Maps && maps::on_key(ctx, st, code) {
                return;
            }
            let n = rows(ctx, st, kind).unwrap_or(0);
            let l = st.list(kind);
            match code {
                KeyCode::Down | KeyCode::Char('j') => l.step(1, n),
                KeyCode::Up | KeyCode::Char('k') => l.step(-1, n),
                KeyCode::PageDown => l.step(l.page(), n),
                KeyCode::PageUp => l.step(-l.page(), n),
                KeyCode::Home | KeyCode::Char('g') => l.selected = 0,
                KeyCode::End | KeyCode::Char('G') => l.selected = n.saturating_sub(1),
                _ => {}
            }
        }
    }
}

// ---- search

/// Selects the next row of the pane (after the selection, wrapping) whose
/// text contains `needle` (case-insensitive). False when none does.
pub fn search(ctx: &Ctx, st: &mut PaneStates, kind: PaneKind, needle: &str) -> bool {
    let needle = needle.to_ascii_lowercase();
    let has = |t: &str| t.to_ascii_lowercase().contains(&needle);
    match kind {
        PaneKind::Sections => sections::search(ctx, st, &has),
        PaneKind::Inputs => inputs::search(ctx, st, &has),
        PaneKind::Patch | PaneKind::Output | PaneKind::Size => false,
        _ => {
            let Some(n) = rows(ctx, st, kind) else { return false };
            if n == 0 {
                return false;
            }
            let start = st.get(kind).selected;
            let text = match kind {
                PaneKind::Symbols => symbols::row_text(ctx),
                PaneKind::Maps => maps::row_text(ctx, st),
                PaneKind::Weak => weak::row_text(ctx),
                PaneKind::Layout => layout::row_text(ctx, st),
                PaneKind::Relocs => relocs::row_text(ctx),
                PaneKind::Uft => uft::row_text(ctx),
                PaneKind::Bindless => bindless::row_text(ctx),
                PaneKind::Events => events::row_text(ctx),
                PaneKind::Breakpoints => breakpoints::row_text(ctx),
                _ => Box::new(|_| String::new()),
            };
            for step in 1..=n {
                let i = (start + step) % n;
                if has(&text(i)) {
                    st.list(kind).select_centered(i);
                    return true;
                }
            }
            false
        }
    }
}

// ---- `b` and Enter

/// The command `b` runs for the pane's selected item.
pub fn break_command(ctx: &Ctx, st: &PaneStates, kind: PaneKind) -> Option<String> {
    let sel = st.get(kind).selected;
    match kind {
        PaneKind::Symbols => symbols::break_command(ctx, sel),
        PaneKind::Sections => sections::break_command(ctx, st),
        PaneKind::Inputs => inputs::break_command(ctx, st),
        PaneKind::Maps => maps::break_command(ctx, st, sel),
        PaneKind::Weak => weak::break_command(ctx, sel),
        PaneKind::Layout => layout::break_command(ctx, st, sel),
        PaneKind::Relocs | PaneKind::Patch => relocs::break_command(ctx, st),
        PaneKind::Uft => uft::break_command(ctx, sel),
        PaneKind::Bindless => bindless::break_command(ctx, sel),
        PaneKind::Events => events::break_command(ctx, sel),
        PaneKind::Breakpoints => breakpoints::break_command(ctx, sel),
        PaneKind::Output | PaneKind::Size => None,
    }
}

/// The command Enter runs on a list pane's selected item: `why` a symbol,
/// `explain` a relocation, `goto` an event. None for the trees (Enter opens
/// a node there) and the text panes.
pub fn enter_command(ctx: &Ctx, st: &PaneStates, kind: PaneKind) -> Option<String> {
    let sel = st.get(kind).selected;
    match kind {
        PaneKind::Symbols => symbols::enter_command(ctx, sel),
        PaneKind::Maps => maps::enter_command(ctx, st, sel),
        PaneKind::Weak => weak::enter_command(ctx, sel),
        PaneKind::Layout => layout::enter_command(ctx, st, sel),
        PaneKind::Relocs | PaneKind::Patch => relocs::enter_command(ctx, st),
        PaneKind::Events => events::enter_command(ctx, sel),
        _ => None,
    }
}
