//! What the panes keep between frames: each list's selection and scroll,
//! the trees' open nodes, and the caches that spare a redraw rebuilding
//! rows that did not change. Drawing reads and updates it; it draws nothing.

use std::collections::{HashMap, HashSet};

use tui_tree_widget::TreeState;

use crate::link::state::{LinkState, SymIdx};

use super::Items;
use super::layout::LayoutRow;
use crate::tui::list::ListState;
use crate::tui::view::PaneKind;

/// Selection, scroll and caches of every pane (shared by the tabs, so a
/// pane keeps its place when it shows in several).
#[derive(Default)]
pub struct PaneStates {
    pub(super) lists: HashMap<PaneKind, ListState>,
    pub sections: TreeState<String>,
    pub inputs: TreeState<String>,
    pub(super) tree_gen: u64,
    pub(super) sections_cache: Option<((usize, u64), Items)>,
    pub(super) inputs_cache: Option<((usize, u64), Items)>,
    /// The input the maps pane shows when chosen with Left/Right (until the next move).
    pub map_input: Option<usize>,
    /// Archive nodes of the inputs tree opened once already (they open by themselves when they appear).
    pub(super) archives_opened: HashSet<String>,
    pub(super) layout_cache: Option<(usize, Vec<LayoutRow>)>,
    pub(super) layout_follow: Option<SymIdx>,
    /// Per input: its symbol and section names.
    pub(super) names: HashMap<usize, (Vec<String>, Vec<String>)>,
}

impl PaneStates {
    pub fn list(&mut self, kind: PaneKind) -> &mut ListState {
        self.lists.entry(kind).or_default()
    }

    pub(super) fn get(&self, kind: PaneKind) -> ListState {
        self.lists.get(&kind).copied().unwrap_or_default()
    }

    pub(super) fn input_names(&mut self, st: &LinkState, input: usize) -> &(Vec<String>, Vec<String>) {
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
