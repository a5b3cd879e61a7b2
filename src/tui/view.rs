//! View presets (`views/*.ron`): which panes a tab shows and how they are
//! laid out. One file is one tab. The shipped presets are embedded, so
//! `--view overview` works from any folder; a views folder can override them
//! by name and add more. A malformed file is an error naming the file, the
//! line and the column (ron's spanned errors).

use std::path::{Path, PathBuf};

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use serde::Deserialize;

/// The panes the interface knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaneKind {
    /// Output sections as a tree: section → contribution of each input → symbols.
    Sections,
    /// Inputs as a tree: archive → members, loaded or skipped and why.
    Inputs,
    /// The output symbol table.
    Symbols,
    /// The mapping arrays of one input, side by side.
    Maps,
    /// Weak decisions: both candidates, the rule, the winner.
    Weak,
    /// Offsets per memory space.
    Layout,
    /// The relocation list with each one's fate.
    Relocs,
    /// The bit view of the selected relocation's patched words.
    Patch,
    /// UFT/UDT slots.
    Uft,
    /// The bindless table and the bitmask per kernel/function.
    Bindless,
    /// The event log.
    Events,
    /// Breakpoints and watchpoints.
    Breakpoints,
    /// The text of the last command.
    Output,
    /// Where the output's bytes come from (`culdb size`; `tui::size`).
    Size,
}

impl PaneKind {
    pub const ALL: [PaneKind; 14] = [
        PaneKind::Sections,
        PaneKind::Inputs,
        PaneKind::Symbols,
        PaneKind::Maps,
        PaneKind::Weak,
        PaneKind::Layout,
        PaneKind::Relocs,
        PaneKind::Patch,
        PaneKind::Uft,
        PaneKind::Bindless,
        PaneKind::Events,
        PaneKind::Breakpoints,
        PaneKind::Output,
        PaneKind::Size,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PaneKind::Sections => "sections",
            PaneKind::Inputs => "inputs",
            PaneKind::Symbols => "symbols",
            PaneKind::Maps => "maps",
            PaneKind::Weak => "weak",
            PaneKind::Layout => "layout",
            PaneKind::Relocs => "relocs",
            PaneKind::Patch => "patch",
            PaneKind::Uft => "uft",
            PaneKind::Bindless => "bindless",
            PaneKind::Events => "events",
            PaneKind::Breakpoints => "breakpoints",
            PaneKind::Output => "output",
            PaneKind::Size => "size",
        }
    }
}

/// Columns of the symbol table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Column {
    /// The signed output index.
    Index,
    Bind,
    Type,
    Section,
    Value,
    Size,
    Input,
    Regs,
    /// The demangled name (the name itself when it is not C++).
    Name,
    /// The name as it is in the symbol table.
    Mangled,
}

pub const DEFAULT_COLUMNS: [Column; 6] = [
    Column::Index,
    Column::Bind,
    Column::Section,
    Column::Value,
    Column::Size,
    Column::Name,
];

/// How much room a part of a split gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Size {
    Percent(u16),
    Length(u16),
    Min(u16),
    Fill(u16),
}

impl Size {
    fn constraint(self) -> Constraint {
        match self {
            Size::Percent(p) => Constraint::Percentage(p),
            Size::Length(n) => Constraint::Length(n),
            Size::Min(n) => Constraint::Min(n),
            Size::Fill(n) => Constraint::Fill(n),
        }
    }
}

/// One pane of a layout.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaneSpec {
    pub kind: PaneKind,
    /// The title on its border (default: the pane's name).
    #[serde(default)]
    pub title: Option<String>,
    /// For `symbols`: which columns, in order.
    #[serde(default)]
    pub columns: Option<Vec<Column>>,
}

/// A layout: parts stacked top to bottom (`Rows`), side by side
/// (`Columns`), or one pane.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum Node {
    Rows(Vec<(Size, Node)>),
    Columns(Vec<(Size, Node)>),
    Pane(PaneSpec),
}

/// One preset: a tab.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct View {
    /// The tab's name (also what `--view` takes).
    pub title: String,
    /// A line about what the tab is for (shown in the help).
    #[serde(default)]
    pub about: String,
    pub layout: Node,
}

/// The presets shipped in `views/`, in tab order.
pub const BUILTIN: [(&str, &str); 7] = [
    ("overview", include_str!("../../views/overview.ron")),
    ("merge", include_str!("../../views/merge.ron")),
    ("weak", include_str!("../../views/weak.ron")),
    ("relocations", include_str!("../../views/relocations.ron")),
    ("tables", include_str!("../../views/tables.ron")),
    ("layout", include_str!("../../views/layout.ron")),
    ("size", include_str!("../../views/size.ron")),
];

/// Parses one preset; errors read `FILE:LINE:COL: message`.
pub fn parse(file: &str, text: &str) -> Result<View, String> {
    let v: View = crate::ronfile::parse(std::path::Path::new(file), text).map_err(|e| {
        crate::ronfile::FileError {
            message: format!("malformed view preset: {}", e.message),
            ..e
        }
        .to_string()
    })?;
    check(&v.layout).map_err(|m| format!("{file}: {m}"))?;
    if v.title.trim().is_empty() {
        return Err(format!("{file}: the view has an empty title"));
    }
    Ok(v)
}

fn check(n: &Node) -> Result<(), String> {
    match n {
        Node::Rows(parts) | Node::Columns(parts) => {
            if parts.is_empty() {
                return Err("a Rows or Columns layout needs at least one part".into());
            }
            parts.iter().try_for_each(|(_, c)| check(c))
        }
        Node::Pane(_) => Ok(()),
    }
}

/// Reads a preset file.
pub fn load_file(path: &Path) -> Result<View, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&path.display().to_string(), &text)
}

/// The tabs: the embedded presets, each replaced by a same-named file of
/// `dir` when there is one, then the other `*.ron` files of `dir` (by
/// name). Any malformed file is an error.
pub fn load_all(dir: Option<&Path>) -> Result<Vec<View>, String> {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(d) = dir
        && let Ok(rd) = std::fs::read_dir(d)
    {
        files = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ron"))
            .collect();
        files.sort();
    }
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut views = Vec::new();
    for (name, text) in BUILTIN {
        match files.iter().position(|p| stem(p) == name) {
            Some(i) => views.push(load_file(&files.remove(i))?),
            None => views.push(parse(&format!("views/{name}.ron"), text)?),
        }
    }
    for f in files {
        views.push(load_file(&f)?);
    }
    Ok(views)
}

/// Which tab `--view NAME` means: a tab's title or file stem, or the path
/// of a preset file (added as a tab). None when nothing matches.
pub fn pick(views: &mut Vec<View>, name: &str) -> Result<usize, String> {
    if let Some(i) = views.iter().position(|v| v.title == name) {
        return Ok(i);
    }
    let p = Path::new(name);
    if name.ends_with(".ron") || p.is_file() {
        let v = load_file(p)?;
        views.push(v);
        return Ok(views.len() - 1);
    }
    Err(format!(
        "no view `{name}` (views: {})",
        views.iter().map(|v| v.title.as_str()).collect::<Vec<_>>().join(", ")
    ))
}

/// Splits `area` along the layout: each pane with its rectangle, in
/// layout order (which is the focus order).
pub fn place(node: &Node, area: Rect, out: &mut Vec<(PaneSpec, Rect)>) {
    match node {
        Node::Pane(p) => out.push((p.clone(), area)),
        Node::Rows(parts) | Node::Columns(parts) => {
            let dir = if matches!(node, Node::Rows(_)) {
                Direction::Vertical
            } else {
                Direction::Horizontal
            };
            let rects = Layout::default()
                .direction(dir)
                .constraints(parts.iter().map(|(s, _)| s.constraint()))
                .split(area);
            for ((_, child), r) in parts.iter().zip(rects.iter()) {
                place(child, *r, out);
            }
        }
    }
}

/// The panes of a layout in focus order.
pub fn panes(node: &Node) -> Vec<PaneSpec> {
    let mut v = Vec::new();
    place(node, Rect::new(0, 0, 100, 100), &mut v);
    v.into_iter().map(|(p, _)| p).collect()
}
