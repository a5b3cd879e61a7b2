//! The inputs pane: a tree of the inputs read so far (archive members
//! under their archive) and the skipped ones with why, each opening to
//! where it came from and its target.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem};

use crate::tui::app::Ctx;

use super::{CHANGED, DIM, Items, PaneStates, bp_name, note};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
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

/// Selects the first input whose name holds the needle (opening its archive).
pub(super) fn search(ctx: &Ctx, st: &mut PaneStates, has: &dyn Fn(&str) -> bool) -> bool {
    let ls = ctx.session.state();
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

/// `b` on an input or an archive: an input breakpoint.
pub(super) fn break_command(ctx: &Ctx, st: &PaneStates) -> Option<String> {
    let ls = ctx.session.state();
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
