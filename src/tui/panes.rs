//! The panes: each draws one view of the link state into its rectangle,
//! moves its selection on keys, searches its rows, and says what breakpoint
//! `b` sets on its selected item. Lists draw only their visible rows.

use std::collections::{HashMap, HashSet};

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, StatefulWidget, Widget, Wrap};
use tui_tree_widget::{Tree, TreeItem, TreeState};

use crate::cubin::consts::{STB_GLOBAL, STB_LOCAL, STB_WEAK};
use crate::debug::inspect;
use crate::link::event::{Event, WeakCandidate, WeakRule};
use crate::link::state::{LinkState, OutSymbol, Place, SectionClass, SymIdx};

use super::app::{Ctx, Fate};
use super::bits;
use super::list::{self, ListState, fit, rfit};
use super::view::{Column, DEFAULT_COLUMNS, PaneKind, PaneSpec};

pub const CHANGED: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
const DIM: Style = Style::new().fg(Color::DarkGray);
const HEADER: Style = Style::new().add_modifier(Modifier::BOLD);
const GOOD: Style = Style::new().fg(Color::Green).add_modifier(Modifier::BOLD);
const BAD: Style = Style::new().fg(Color::Red);
const KEPT: Style = Style::new().fg(Color::Cyan);

type Items = Vec<TreeItem<'static, String>>;

/// A row of the layout pane.
#[derive(Debug, Clone, Copy, PartialEq)]
enum LayoutRow {
    Space(SectionClass),
    Section(usize),
    Sym(SymIdx),
}

/// Selection, scroll and caches of every pane (shared by the tabs, so a
/// pane keeps its place when it shows in several).
#[derive(Default)]
pub struct PaneStates {
    lists: HashMap<PaneKind, ListState>,
    pub sections: TreeState<String>,
    pub inputs: TreeState<String>,
    tree_gen: u64,
    sections_cache: Option<((usize, u64), Items)>,
    inputs_cache: Option<((usize, u64), Items)>,
    /// The input the maps pane shows when chosen with Left/Right (until the next move).
    pub map_input: Option<usize>,
    /// Archive nodes of the inputs tree opened once already (they open by themselves when they appear).
    archives_opened: HashSet<String>,
    layout_cache: Option<(usize, Vec<LayoutRow>)>,
    layout_follow: Option<SymIdx>,
    /// Per input: its symbol and section names.
    names: HashMap<usize, (Vec<String>, Vec<String>)>,
}

impl PaneStates {
    pub fn list(&mut self, kind: PaneKind) -> &mut ListState {
        self.lists.entry(kind).or_default()
    }

    fn get(&self, kind: PaneKind) -> ListState {
        self.lists.get(&kind).copied().unwrap_or_default()
    }

    fn input_names(&mut self, st: &LinkState, input: usize) -> &(Vec<String>, Vec<String>) {
        self.names.entry(input).or_insert_with(|| {
            let Some(rec) = st.inputs.get(input) else {
                return Default::default();
            };
            match crate::cubin::read::parse(&rec.data) {
                Ok(c) => (
                    c.symbols.iter().map(|s| s.name.clone()).collect(),
                    c.sections.iter().map(|s| s.name.to_string()).collect(),
                ),
                Err(_) => Default::default(),
            }
        })
    }
}

// ---- symbol rows

fn sym_count(st: &LinkState) -> usize {
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

fn sym_row(st: &LinkState, idx: SymIdx) -> Option<usize> {
    match idx.0 {
        0 => None,
        i if i > 0 => Some(i as usize - 1),
        i => Some(st.locals.len() + (-(i as i64) - 1) as usize),
    }
}

fn display_name(name: &str) -> String {
    crate::demangle::demangle(name).unwrap_or_else(|| name.to_string())
}

fn binding(b: u8) -> &'static str {
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

/// Moves every pane's selection to what the current event is about.
pub fn follow(ctx: &Ctx, st: &mut PaneStates) {
    let d = ctx.d;
    let ls = ctx.session.state();
    if let Some(k) = d.pos.checked_sub(1) {
        st.list(PaneKind::Events).select_centered(k);
    }
    if let Some(row) = d.cur_sym.and_then(|i| sym_row(ls, i)) {
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
        PaneKind::Sections => sections(ctx, st, inner, buf, focused),
        PaneKind::Inputs => inputs(ctx, st, inner, buf, focused),
        PaneKind::Symbols => symbols(ctx, st, spec, inner, buf, focused),
        PaneKind::Maps => maps(ctx, st, inner, buf, focused),
        PaneKind::Weak => weak(ctx, st, inner, buf, focused),
        PaneKind::Layout => layout(ctx, st, inner, buf, focused),
        PaneKind::Relocs => relocs(ctx, st, inner, buf, focused),
        PaneKind::Patch => patch(ctx, st, inner, buf),
        PaneKind::Uft => uft(ctx, st, inner, buf, focused),
        PaneKind::Bindless => bindless(ctx, st, inner, buf, focused),
        PaneKind::Events => events(ctx, st, inner, buf, focused),
        PaneKind::Breakpoints => breakpoints(ctx, st, inner, buf, focused),
        PaneKind::Output => output(ctx, st, inner, buf),
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

// -- sections tree

fn sections(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

// -- inputs tree

fn inputs(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let ls = ctx.session.state();
    let skipped = &ctx.d.skipped;
    if ls.inputs.is_empty() && skipped.is_empty() {
        note(area, buf, "no inputs read yet (s steps through the read phase)");
        return String::new();
    }
    let key = (ctx.d.pos, st.tree_gen);
    if st.inputs_cache.as_ref().is_none_or(|(k, _)| *k != key) {
        let items = input_items(ctx, skipped);
        for it in &items {
            let id = it.identifier().clone();
            if id.starts_with("a:") && st.archives_opened.insert(id.clone()) {
                st.inputs.open(vec![id]);
            }
        }
        st.inputs_cache = Some((key, items));
    }
    let items = &st.inputs_cache.as_ref().expect("built above").1;
    if let Ok(tree) = Tree::new(items) {
        let tree = tree.highlight_symbol("> ").highlight_style(if focused {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new().add_modifier(Modifier::UNDERLINED)
        });
        StatefulWidget::render(tree, area, buf, &mut st.inputs);
    }
    format!("{} loaded, {} skipped", ls.inputs.len(), skipped.len())
}

/// The archive a name (`libx.a:m.o`) is a member of.
fn archive_of(name: &str) -> Option<(&str, &str)> {
    let (a, m) = name.rsplit_once(':')?;
    (a.ends_with(".a") || a.ends_with(".lib")).then_some((a, m))
}

fn input_items(ctx: &Ctx, skipped: &[(String, String)]) -> Items {
    let ls = ctx.session.state();
    let merging = ctx.d.map_input;
    // (archive or "", item)
    let mut groups: Vec<(String, Items)> = Vec::new();
    let mut push = |group: Option<&str>, item: TreeItem<'static, String>| {
        let g = group.unwrap_or("").to_string();
        if g.is_empty() {
            groups.push((String::new(), vec![item]));
        } else if let Some(e) = groups.iter_mut().find(|(n, _)| *n == g) {
            e.1.push(item);
        } else {
            groups.push((g, vec![item]));
        }
    };
    for (i, r) in ls.inputs.iter().enumerate() {
        let merged = ls.maps.get(i).is_some_and(|m| !m.map_symbol_index.is_empty());
        let (group, label) = match archive_of(&r.name) {
            Some((a, m)) => (Some(a), m.to_string()),
            None => (None, r.name.clone()),
        };
        let state = if merging == Some(i) && !merged {
            "merging"
        } else if merged {
            "merged"
        } else {
            "loaded"
        };
        let style = if merging == Some(i) { CHANGED } else { Style::new() };
        let id = format!("i{i}");
        let details = vec![
            TreeItem::new_leaf(format!("o{i}"), format!("pulled: {}", r.origin)),
            TreeItem::new_leaf(
                format!("v{i}"),
                format!(
                    "sm_{}, virtual {}, e_flags {:#x}",
                    r.sm,
                    r.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or_else(|| "?".into()),
                    r.e_flags
                ),
            ),
        ];
        let text = Line::styled(format!("#{i} {label} ({state})"), style);
        let item = TreeItem::new(id.clone(), text.clone(), details).unwrap_or_else(|_| TreeItem::new_leaf(id, text));
        push(group, item);
    }
    for (k, (path, reason)) in skipped.iter().enumerate() {
        let (group, label) = match archive_of(path) {
            Some((a, m)) => (Some(a), m.to_string()),
            None => (None, path.to_string()),
        };
        let id = format!("k{k}");
        let text = Line::styled(format!("{label} (skipped)"), DIM);
        let why = vec![TreeItem::new_leaf(format!("w{k}"), format!("why: {reason}"))];
        let item = TreeItem::new(id.clone(), text.clone(), why).unwrap_or_else(|_| TreeItem::new_leaf(id, text));
        push(group, item);
    }
    let mut out = Vec::new();
    for (g, items) in groups {
        if g.is_empty() {
            out.extend(items);
        } else {
            let id = format!("a:{g}");
            let text = format!("{g} (archive: {} members seen)", items.len());
            let item = TreeItem::new(id.clone(), text.clone(), items).unwrap_or_else(|_| TreeItem::new_leaf(id, text));
            out.push(item);
        }
    }
    out
}

// -- symbols table

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

fn symbols(ctx: &Ctx, st: &mut PaneStates, spec: &PaneSpec, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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
                Column::Mangled => s.name.clone(),
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

// -- mapping arrays

fn maps(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

// -- weak decisions

fn weak(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let evs = ctx.session.events();
    let ds = &ctx.d.weak;
    if ds.is_empty() {
        note(
            area,
            buf,
            "no weak decisions so far (`:break weak` then c stops at the next one)",
        );
        return String::new();
    }
    const DETAIL: u16 = 8;
    let list_h = area.height.saturating_sub(DETAIL);
    let ls_area = Rect { height: list_h, ..area };
    let short = |c: &WeakCandidate| {
        format!(
            "{} {}r {}",
            c.input_name,
            c.regcount.map(|r| r.to_string()).unwrap_or("?".into()),
            c.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or("?".into())
        )
    };
    let lst = st.list(PaneKind::Weak);
    if list_h > 0 {
        list::draw(buf, ls_area, ds.len(), lst, focused, |i| {
            let k = ds[i];
            let Event::WeakDecision {
                name,
                existing,
                incoming,
                incoming_wins,
                ..
            } = &evs[k]
            else {
                return Line::default();
            };
            let w = if *incoming_wins { incoming } else { existing };
            Line::from(format!(
                "#{k} {}: {} vs {} → {}",
                display_name(name),
                short(existing),
                short(incoming),
                w.input_name
            ))
        });
    } else {
        lst.fit(ds.len(), 0);
    }
    let sel = lst.selected.min(ds.len() - 1);
    let k = ds[sel];
    let Event::WeakDecision {
        name,
        out,
        existing,
        incoming,
        rule,
        incoming_wins,
    } = &evs[k]
    else {
        return String::new();
    };
    let det = Rect {
        y: area.y + list_h,
        height: area.height - list_h,
        ..area
    };
    let cw = (det.width as usize).saturating_sub(12) / 2;
    let win = |incoming: bool| incoming == *incoming_wins;
    let col = |c: &WeakCandidate, is_in: bool, f: &dyn Fn(&WeakCandidate) -> String| {
        Span::styled(fit(&f(c), cw), if win(is_in) { GOOD } else { BAD })
    };
    let row = |label: &str, f: &dyn Fn(&WeakCandidate) -> String, hot: bool| {
        Line::from(vec![
            Span::styled(fit(label, 12), if hot { CHANGED } else { HEADER }),
            col(existing, false, f),
            col(incoming, true, f),
        ])
    };
    let hot = |r: WeakRule| *rule == r;
    let lines = [
        Line::from(vec![
            Span::styled(fit(&format!("#{k} {out}"), 12), HEADER),
            Span::styled(
                fit(
                    &format!("existing{}", if *incoming_wins { "" } else { " (winner)" }),
                    cw,
                ),
                HEADER,
            ),
            Span::styled(
                fit(
                    &format!("incoming{}", if *incoming_wins { " (winner)" } else { "" }),
                    cw,
                ),
                HEADER,
            ),
        ]),
        row(
            "input",
            &|c| format!("#{} {}", c.input, c.input_name),
            hot(WeakRule::FirstDefinition) || hot(WeakRule::FirstDataDefinition),
        ),
        row(
            "binding",
            &|c| binding(c.binding).to_ascii_lowercase(),
            hot(WeakRule::GlobalOverWeak) || hot(WeakRule::GlobalKept),
        ),
        row(
            "registers",
            &|c| c.regcount.map(|r| r.to_string()).unwrap_or("?".into()),
            hot(WeakRule::FewerRegisters),
        ),
        row(
            "PTX target",
            &|c| c.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or("?".into()),
            hot(WeakRule::HigherVirtualSm),
        ),
        row("size", &|c| format!("{:#x}", c.size), false),
        Line::from(vec![
            Span::styled(fit("rule", 12), HEADER),
            Span::styled(format!("{rule:?}: {}", rule.describe()), CHANGED),
        ]),
        Line::from(vec![
            Span::styled(fit("winner", 12), HEADER),
            Span::styled(
                if *incoming_wins {
                    format!("incoming: {} (input #{})", incoming.input_name, incoming.input)
                } else {
                    format!("existing: {} (input #{})", existing.input_name, existing.input)
                },
                GOOD,
            ),
        ]),
    ];
    for (i, l) in lines.iter().enumerate().take(det.height as usize) {
        buf.set_line(det.x, det.y + i as u16, l, det.width);
    }
    format!("{} so far; {}", ds.len(), display_name(name))
}

// -- layout

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

fn layout(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

// -- relocations

fn fate_text(f: Option<(usize, Fate)>) -> (String, Style) {
    match f {
        Some((k, Fate::Applied)) => (format!("applied #{k}"), GOOD),
        Some((k, Fate::Kept)) => (format!("kept #{k}"), KEPT),
        Some((k, Fate::Dropped)) => (format!("dropped #{k}"), DIM),
        None => ("pending".into(), Style::new()),
    }
}

fn relocs(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

fn patch(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer) -> String {
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

// -- unified tables

fn uft_rows(ctx: &Ctx) -> Vec<(Line<'static>, Option<String>)> {
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

fn uft(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

// -- bindless

fn kind_bits(b: u8) -> String {
    format!(
        "{}{}{}",
        if b & 1 != 0 { 'T' } else { '·' },
        if b & 2 != 0 { 'S' } else { '·' },
        if b & 4 != 0 { 'U' } else { '·' }
    )
}

enum BindRow {
    Text(Line<'static>),
    Sym(Line<'static>, String),
}

fn bindless_rows(ctx: &Ctx) -> Vec<BindRow> {
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

fn bindless(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

// -- events, breakpoints, output

fn events(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let s = ctx.session;
    let evs = s.events();
    if evs.is_empty() {
        note(area, buf, "no events yet: s steps, c continues");
        return String::new();
    }
    let cur = s.position().saturating_sub(1);
    list::draw(buf, area, evs.len(), st.list(PaneKind::Events), focused, |k| {
        let text = inspect::event_line(s, k, &evs[k]);
        let style = if k == cur {
            Style::new().add_modifier(Modifier::BOLD)
        } else if k >= ctx.d.prev_pos.min(ctx.d.pos) && ctx.d.prev_pos < ctx.d.pos {
            Style::new().fg(Color::Yellow)
        } else {
            Style::new()
        };
        let text = if matches!(evs[k], Event::Diagnostic(_)) {
            return Line::styled(text, BAD);
        } else {
            text
        };
        Line::styled(format!("{}{text}", if k == cur { "=> " } else { "   " }), style)
    });
    format!("{} of {}", s.position(), s.known_events().len())
}

fn breakpoints(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

fn output(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer) -> String {
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

/// The selected breakpoint's number.
pub fn selected_breakpoint(s: &crate::debug::Session, st: &PaneStates) -> Option<usize> {
    s.breakpoints()
        .get(st.get(PaneKind::Breakpoints).selected)
        .map(|b| b.id)
}

// ---- keys

/// Rows of a list pane (None for the trees and text panes).
fn rows(ctx: &Ctx, st: &mut PaneStates, kind: PaneKind) -> Option<usize> {
    let ls = ctx.session.state();
    Some(match kind {
        PaneKind::Symbols => sym_count(ls),
        PaneKind::Maps => {
            let k = st.map_input.or(ctx.d.map_input)?;
            let m = ls.maps.get(k)?;
            m.map_symbol_index.len().max(m.map_section_index.len())
        }
        PaneKind::Weak => ctx.d.weak.len(),
        PaneKind::Layout => {
            if st.layout_cache.as_ref().is_none_or(|(p, _)| *p != ctx.d.pos) {
                st.layout_cache = Some((ctx.d.pos, layout_rows(ls)));
            }
            st.layout_cache.as_ref().map(|c| c.1.len()).unwrap_or(0)
        }
        PaneKind::Relocs => ls.relocs.len(),
        PaneKind::Uft => uft_rows(ctx).len(),
        PaneKind::Bindless => bindless_rows(ctx).len(),
        PaneKind::Events => ctx.session.events().len(),
        PaneKind::Breakpoints => ctx.session.breakpoints().len(),
        PaneKind::Sections | PaneKind::Inputs | PaneKind::Patch | PaneKind::Output => return None,
    })
}

/// A navigation key for the focused pane.
pub fn on_key(ctx: &Ctx, st: &mut PaneStates, kind: PaneKind, code: KeyCode) {
    match kind {
        PaneKind::Sections | PaneKind::Inputs => {
            st.tree_gen += 1;
            let t = if kind == PaneKind::Sections {
                &mut st.sections
            } else {
                &mut st.inputs
            };
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
        PaneKind::Patch | PaneKind::Output => {
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
            if kind == PaneKind::Maps && matches!(code, KeyCode::Left | KeyCode::Right) {
                let n = ctx.session.state().maps.len();
                if n > 0 {
                    let cur = st.map_input.or(ctx.d.map_input).unwrap_or(0);
                    st.map_input = Some(if code == KeyCode::Left {
                        (cur + n - 1) % n
                    } else {
                        (cur + 1) % n
                    });
                }
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
    let ls = ctx.session.state();
    match kind {
        PaneKind::Sections => {
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
                let Some(j) = s.contributions.iter().position(|c| {
                    c.input == sym.input && sym.value >= c.offset && sym.value < c.offset + c.size.max(1)
                }) else {
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
        PaneKind::Inputs => {
            for (i, r) in ls.inputs.iter().enumerate() {
                if has(&r.name) {
                    let id = format!("i{i}");
                    match archive_of(&r.name) {
                        Some((a, _)) => {
                            let g = format!("a:{a}");
                            st.inputs.open(vec![g.clone()]);
                            st.inputs.select(vec![g, id]);
                        }
                        None => {
                            st.inputs.select(vec![id]);
                        }
                    }
                    st.tree_gen += 1;
                    return true;
                }
            }
            false
        }
        PaneKind::Patch | PaneKind::Output => false,
        _ => {
            let Some(n) = rows(ctx, st, kind) else { return false };
            if n == 0 {
                return false;
            }
            let start = st.get(kind).selected;
            let names = match kind {
                PaneKind::Maps => st.map_input.or(ctx.d.map_input).map(|k| st.input_names(ls, k).clone()),
                _ => None,
            };
            let layout = st.layout_cache.as_ref().map(|c| c.1.clone()).unwrap_or_default();
            let uft = if kind == PaneKind::Uft {
                uft_rows(ctx)
            } else {
                Vec::new()
            };
            let bind = if kind == PaneKind::Bindless {
                bindless_rows(ctx)
            } else {
                Vec::new()
            };
            let text = |i: usize| -> String {
                match kind {
                    PaneKind::Symbols => sym_at(ls, i)
                        .map(|(_, s)| format!("{} {}", s.name, display_name(&s.name)))
                        .unwrap_or_default(),
                    PaneKind::Maps => names
                        .as_ref()
                        .map(|(a, b)| {
                            format!(
                                "{} {}",
                                a.get(i).map(String::as_str).unwrap_or(""),
                                b.get(i).map(String::as_str).unwrap_or("")
                            )
                        })
                        .unwrap_or_default(),
                    PaneKind::Weak => ctx.session.events()[ctx.d.weak[i]].to_string(),
                    PaneKind::Layout => match layout.get(i) {
                        Some(LayoutRow::Section(s)) => ls.sections[*s].name.clone(),
                        Some(LayoutRow::Sym(y)) => ls.symbol_name(*y),
                        _ => String::new(),
                    },
                    PaneKind::Relocs => {
                        let r = &ls.relocs[i];
                        format!(
                            "{}+{:#x} {} {}",
                            ls.sections.get(r.section).map(|s| s.name.as_str()).unwrap_or(""),
                            r.offset,
                            crate::debug::breakpoint::reloc_type_name(r.rtype),
                            ls.symbol_name(r.sym)
                        )
                    }
                    PaneKind::Uft => uft[i].0.to_string(),
                    PaneKind::Bindless => match &bind[i] {
                        BindRow::Text(l) | BindRow::Sym(l, _) => l.to_string(),
                    },
                    PaneKind::Events => ctx.session.events()[i].to_string(),
                    PaneKind::Breakpoints => ctx.session.breakpoints()[i].kind.describe(),
                    _ => String::new(),
                }
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

// ---- `b`

/// A name as a breakpoint argument (the command language splits on spaces).
fn bp_name(name: &str) -> Option<String> {
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_string())
}

/// The command `b` runs for the pane's selected item.
pub fn break_command(ctx: &Ctx, st: &PaneStates, kind: PaneKind) -> Option<String> {
    let ls = ctx.session.state();
    let sel = st.get(kind).selected;
    let sym_bp = |i: SymIdx| {
        ls.symbol(i)
            .and_then(|s| bp_name(&s.name))
            .map(|n| format!("break symbol {n}"))
    };
    match kind {
        PaneKind::Symbols => sym_at(ls, sel).and_then(|(i, _)| sym_bp(i)),
        PaneKind::Sections => {
            let path = st.sections.selected();
            let last = path.last()?;
            if let Some(y) = last.strip_prefix('y') {
                return sym_bp(SymIdx(y.parse().ok()?));
            }
            let sec: usize = path.first()?.strip_prefix('s')?.parse().ok()?;
            let s = ls.sections.get(sec)?;
            if let Some(c) = last.strip_prefix('c') {
                let c = s.contributions.get(c.parse::<usize>().ok()?)?;
                return bp_name(ls.input_name(c.input)).map(|n| format!("break input {n}"));
            }
            bp_name(&s.name).map(|n| format!("break reloc section={n}"))
        }
        PaneKind::Inputs => {
            let last = st.inputs.selected().last()?;
            if let Some(i) = last.strip_prefix('i').or_else(|| last.strip_prefix('o')) {
                let i: usize = i.parse().ok()?;
                return bp_name(ls.input_name(i)).map(|n| format!("break input {n}"));
            }
            if let Some(a) = last.strip_prefix("a:") {
                return bp_name(a).map(|n| format!("break input {n}"));
            }
            None
        }
        PaneKind::Maps => {
            let k = st.map_input.or(ctx.d.map_input)?;
            let out = *ls.maps.get(k)?.map_symbol_index.get(sel)?;
            sym_bp(SymIdx(out))
        }
        PaneKind::Weak => {
            let k = *ctx.d.weak.get(sel)?;
            match &ctx.session.events()[k] {
                Event::WeakDecision { name, .. } => bp_name(name).map(|n| format!("break weak {n}")),
                _ => None,
            }
        }
        PaneKind::Layout => match st.layout_cache.as_ref()?.1.get(sel)? {
            LayoutRow::Sym(i) => sym_bp(*i),
            LayoutRow::Section(s) => bp_name(&ls.sections[*s].name).map(|n| format!("break reloc section={n}")),
            LayoutRow::Space(_) => Some("break phase layout".into()),
        },
        PaneKind::Relocs | PaneKind::Patch => {
            let i = st.get(PaneKind::Relocs).selected;
            let r = ls.relocs.get(i)?;
            let sec = bp_name(&ls.sections.get(r.section)?.name)?;
            Some(format!("break reloc section={sec} offset={:#x}", r.offset))
        }
        PaneKind::Uft => {
            let rows = uft_rows(ctx);
            let stub = rows.get(sel)?.1.clone();
            match stub {
                Some(s) => bp_name(&s).map(|n| format!("break symbol {n}")),
                None => Some("break phase layout.uft".into()),
            }
        }
        PaneKind::Bindless => match bindless_rows(ctx).get(sel)? {
            BindRow::Sym(_, n) => bp_name(n).map(|n| format!("break symbol {n}")),
            BindRow::Text(_) => Some("break phase layout.bindless".into()),
        },
        PaneKind::Events => event_break(ctx.session.events().get(sel)?),
        PaneKind::Breakpoints => {
            let b = ctx.session.breakpoints().get(sel)?;
            Some(format!("{} {}", if b.enabled { "disable" } else { "enable" }, b.id))
        }
        PaneKind::Output => None,
    }
}

/// The command Enter runs on a list pane's selected item: `why` a symbol,
/// `explain` a relocation, `goto` an event. None for the trees (Enter opens
/// a node there) and the text panes.
pub fn enter_command(ctx: &Ctx, st: &PaneStates, kind: PaneKind) -> Option<String> {
    let ls = ctx.session.state();
    let sel = st.get(kind).selected;
    let why = |i: SymIdx| ls.symbol(i).and_then(|s| bp_name(&s.name)).map(|n| format!("why {n}"));
    match kind {
        PaneKind::Symbols => sym_at(ls, sel).and_then(|(i, _)| why(i)),
        PaneKind::Maps => {
            let k = st.map_input.or(ctx.d.map_input)?;
            why(SymIdx(*ls.maps.get(k)?.map_symbol_index.get(sel)?))
        }
        PaneKind::Weak => match ctx.session.events().get(*ctx.d.weak.get(sel)?)? {
            Event::WeakDecision { out, .. } => why(*out),
            _ => None,
        },
        PaneKind::Layout => match st.layout_cache.as_ref()?.1.get(sel)? {
            LayoutRow::Sym(i) => why(*i),
            LayoutRow::Section(s) => Some(format!("print section {s}")),
            LayoutRow::Space(_) => None,
        },
        PaneKind::Relocs | PaneKind::Patch => {
            let i = st.get(PaneKind::Relocs).selected;
            (i < ls.relocs.len()).then(|| format!("explain #{i}"))
        }
        PaneKind::Events => (sel < ctx.session.events().len()).then(|| format!("goto {sel}")),
        _ => None,
    }
}

/// A breakpoint that stops at events like `e`.
fn event_break(e: &Event) -> Option<String> {
    use crate::link::reloc::RelocEvent as R;
    match e {
        Event::PhaseStart { phase } | Event::PhaseEnd { phase } => Some(format!("break phase {}", phase.name())),
        Event::WeakDecision { name, .. } => bp_name(name).map(|n| format!("break weak {n}")),
        Event::SymbolMapped { name, .. } | Event::CommonGrown { name, .. } | Event::Undefined { name, .. } => {
            bp_name(name).map(|n| format!("break symbol {n}"))
        }
        Event::InputLoaded { name, .. } | Event::MergeInputStart { name, .. } => {
            bp_name(name).map(|n| format!("break input {n}"))
        }
        Event::Reloc(
            R::Applied { section, offset, .. } | R::Kept { section, offset, .. } | R::Dropped { section, offset, .. },
        ) => bp_name(section).map(|s| format!("break reloc section={s} offset={offset:#x}")),
        Event::RelocMapped { rtype, .. } => Some(format!(
            "break reloc {}",
            crate::debug::breakpoint::reloc_type_name(*rtype)
        )),
        Event::Diagnostic(_) => Some("break error".into()),
        Event::Dce(_) => Some("break dce".into()),
        _ => None,
    }
}
