//! The interface's state without a terminal: keys go in ([`App::on_key`]),
//! frames come out ([`App::draw`]). Tests drive it over a `TestBackend`.
//!
//! It stays one file because it is one state machine: every key, click and
//! command line goes through [`App`], which owns the session, the tabs, the
//! focus, the popup and the pane states that a move updates together.

use std::collections::HashSet;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use crate::cmd::{self, Command};
use crate::debug::{Session, inspect};
use crate::link::event::Event;
use crate::link::state::{InputMaps, SymIdx};

use super::panes::{self, PaneStates};
use super::view::{self, PaneKind, PaneSpec, View};

/// What the keyboard is typing into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// The `:` command line, with what has been typed.
    Command(String),
    /// The `/` search, with what has been typed.
    Search(String),
    /// The key help.
    Help,
}

/// A text shown over the panes (a command's multi-line output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Popup {
    pub title: String,
    pub text: String,
    pub scroll: u16,
}

/// What a relocation became in the relocation phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    Applied = 0,
    Kept = 1,
    Dropped = 2,
}

/// What the panes need that the state does not say directly, recomputed
/// after every move: what the last move changed, and where the current
/// event points.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    /// The clock this was computed at.
    pub pos: usize,
    /// The clock before the last move.
    pub prev_pos: usize,
    /// The mapping arrays before the last move (for the changed cells).
    pub prev_maps: Vec<InputMaps>,
    pub changed_syms: HashSet<i32>,
    pub changed_sections: HashSet<usize>,
    pub changed_relocs: HashSet<usize>,
    /// Layout/bindless/UFT events of the last move (indices).
    pub changed_events: HashSet<usize>,
    /// Per relocation: the event that decided it, and how.
    pub reloc_fate: Vec<Option<(usize, Fate)>>,
    /// The weak decisions so far (event indices).
    pub weak: Vec<usize>,
    /// The input whose maps the current event is about.
    pub map_input: Option<usize>,
    /// Archive members and files the read phase skipped: (path, why).
    pub skipped: Vec<(String, String)>,
    /// Layout `Placed` decisions so far.
    pub placed: usize,
    /// UFT/UDT layout events so far (indices).
    pub uft_events: Vec<usize>,
    /// The last bindless layout event (index).
    pub last_bindless: Option<usize>,
    /// Relocations applied, kept, dropped so far.
    pub fates: [usize; 3],
    /// What the current event points at.
    pub cur_sym: Option<SymIdx>,
    pub cur_reloc: Option<usize>,
    pub cur_map_row: Option<usize>,
    pub cur_section: Option<usize>,
}

/// Everything the panes read.
pub struct Ctx<'a> {
    pub session: &'a Session,
    pub d: &'a Derived,
    pub output: &'a str,
}

/// The interface.
pub struct App {
    pub session: Session,
    pub views: Vec<View>,
    pub tab: usize,
    /// The focused pane (index in the tab's layout order).
    pub focus: usize,
    pub mode: Mode,
    /// The line at the bottom: the last command's first line or a notice.
    pub message: String,
    pub message_is_error: bool,
    /// The full text of the last command (the `output` pane).
    pub output: String,
    pub popup: Option<Popup>,
    pub quit: bool,
    history: Vec<String>,
    hist_pos: Option<usize>,
    last_search: String,
    pub(crate) st: PaneStates,
    pub(crate) d: Derived,
    /// Where each pane was drawn (for the mouse).
    rects: Vec<(PaneKind, Rect)>,
}

pub const HELP: &str = "\
keys (as in a debugger)
  s  step: one event           n  next: the next item at this level
  c  continue to a breakpoint  f  finish the phase
  r  reverse-step              R  reverse-continue     N  reverse-next
  b  breakpoint on the selected item (symbol, input, section,
     relocation, weak decision, event); in breakpoints: enable/disable
  d  delete the selected breakpoint (breakpoints pane)
  :  command line (the REPL's language: break weak, info maps, x, explain,
     why, goto 80, ...); Up/Down walk its history, Esc leaves
  /  search in the focused pane (Enter; an empty search repeats the last)
  tab / shift-tab  next / previous pane    1-9, [ ]  tabs
  Up Down PgUp PgDn Home End (j k g G)  move    Enter/Space  open a node
  Enter on a symbol: why; on a relocation: explain; on an event: goto it
  Left Right  close/open a node; in maps: previous/next input
  ?  this help    q  quit (exits with the link's status)";

impl App {
    /// An interface over `session` with the given tabs, starting on tab `tab`.
    pub fn new(session: Session, views: Vec<View>, tab: usize) -> App {
        let mut app = App {
            session,
            views,
            tab: 0,
            focus: 0,
            mode: Mode::Normal,
            message: String::new(),
            message_is_error: false,
            output: String::new(),
            popup: None,
            quit: false,
            history: Vec::new(),
            hist_pos: None,
            last_search: String::new(),
            st: PaneStates::default(),
            d: Derived::default(),
            rects: Vec::new(),
        };
        app.tab = tab.min(app.views.len().saturating_sub(1));
        app.d.prev_maps = app.session.state().maps.clone();
        app.refresh(app.session.position());
        app.message = "s step, n next, c continue, r reverse-step, b break, : command, / search, ? help, q quit".into();
        app
    }

    /// The embedded presets as tabs, starting on the first.
    pub fn with_builtin_views(session: Session) -> App {
        let views = view::load_all(None).expect("the shipped presets parse");
        App::new(session, views, 0)
    }

    pub fn view(&self) -> &View {
        &self.views[self.tab]
    }

    /// The panes of the current tab, in focus order.
    pub fn panes(&self) -> Vec<PaneSpec> {
        view::panes(&self.view().layout)
    }

    pub fn focused(&self) -> Option<PaneKind> {
        self.panes().get(self.focus).map(|p| p.kind)
    }

    /// Focuses the first pane of `kind` in the current tab; false when the tab has none.
    pub fn focus_pane(&mut self, kind: PaneKind) -> bool {
        match self.panes().iter().position(|p| p.kind == kind) {
            Some(i) => {
                self.focus = i;
                true
            }
            None => false,
        }
    }

    /// Switches to the tab named `title`.
    pub fn select_tab(&mut self, title: &str) -> bool {
        match self.views.iter().position(|v| v.title == title) {
            Some(i) => {
                self.tab = i;
                self.focus = 0;
                true
            }
            None => false,
        }
    }

    // ---- commands

    /// Runs one line of the command language, as `:` does.
    pub fn run_command(&mut self, line: &str) {
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        if self.history.last().is_none_or(|l| l != line) {
            self.history.push(line.to_string());
        }
        let parsed = cmd::parse(line);
        let moving = matches!(
            parsed,
            Ok(Some(
                Command::Step(_)
                    | Command::Next(_)
                    | Command::Finish
                    | Command::Continue
                    | Command::Run
                    | Command::ReverseStep(_)
                    | Command::ReverseNext(_)
                    | Command::ReverseContinue
                    | Command::Goto(_)
                    | Command::Restart
            ))
        );
        let before = self.session.position();
        let maps = if moving {
            Some(self.session.state().maps.clone())
        } else {
            None
        };
        let o = crate::scenario::run_line(&mut self.session, line);
        if o.quit {
            self.quit = true;
        }
        self.output = format!("(culdb) {line}\n{}", o.text);
        self.message_is_error = o.error;
        self.message = if moving && !o.error {
            // The event itself is on the status line; say why the move stopped.
            o.text
                .lines()
                .filter(|l| {
                    ["Breakpoint", "Watchpoint", "The link", "At the beginning"]
                        .iter()
                        .any(|p| l.starts_with(p))
                })
                .collect::<Vec<_>>()
                .join("; ")
        } else {
            o.text.lines().next().unwrap_or("").to_string()
        };
        if moving
            && !o.error
            && o.text
                .lines()
                .any(|l| l.starts_with("Breakpoint") || l.starts_with("Watchpoint"))
        {
            self.bring_forward();
        }
        let lines = o.text.lines().count();
        if !moving && lines > 1 {
            self.popup = Some(Popup {
                title: line.to_string(),
                text: o.text.clone(),
                scroll: 0,
            });
        }
        if let Some(m) = maps
            && self.session.position() != before
        {
            self.d.prev_maps = m;
            self.refresh(before);
        } else {
            self.refresh(self.d.prev_pos);
        }
    }

    /// At a breakpoint's stop, the pane that explains the stopped event's
    /// kind comes forward: its tab is shown and the pane focused, unless the
    /// tab shown has it already.
    fn bring_forward(&mut self) {
        use crate::link::layout::LayoutEvent as L;
        let kind = match self.session.current().map(|(_, e)| e) {
            Some(Event::WeakDecision { .. }) => PaneKind::Weak,
            Some(Event::Reloc(_) | Event::RelocMapped { .. }) => PaneKind::Patch,
            Some(Event::Layout(L::Uft(_))) => PaneKind::Uft,
            Some(Event::Layout(L::Bindless(_))) => PaneKind::Bindless,
            Some(Event::Layout(_)) => PaneKind::Layout,
            Some(Event::Dce(_)) => PaneKind::Symbols,
            Some(Event::SymbolMapped { .. } | Event::SectionMapped { .. } | Event::SectionSkipped { .. }) => {
                PaneKind::Maps
            }
            _ => return,
        };
        let has = |v: &View| crate::tui::view::panes(&v.layout).iter().position(|p| p.kind == kind);
        if let Some(i) = self.views.get(self.tab).and_then(has) {
            self.focus = i;
            return;
        }
        if let Some((t, i)) = self.views.iter().enumerate().find_map(|(t, v)| has(v).map(|i| (t, i))) {
            self.tab = t;
            self.focus = i;
        }
    }

    /// Recomputes the derived state; `prev` is the clock before the last move.
    fn refresh(&mut self, prev: usize) {
        let s = &self.session;
        let st = s.state();
        let pos = s.position();
        let d = &mut self.d;
        d.pos = pos;
        d.prev_pos = prev;
        d.changed_syms.clear();
        d.changed_sections.clear();
        d.changed_relocs.clear();
        d.changed_events.clear();
        let (lo, hi) = (prev.min(pos), prev.max(pos));
        let known = s.known_events();
        for (k, e) in known.iter().enumerate().take(hi).skip(lo) {
            match e {
                Event::SymbolMapped { out, .. } | Event::WeakDecision { out, .. } => {
                    d.changed_syms.insert(out.0);
                }
                Event::CommonGrown { name, .. } => {
                    if let Some(i) = st.lookup(name) {
                        d.changed_syms.insert(i.0);
                    }
                }
                Event::SectionMapped { out_section, .. } => {
                    d.changed_sections.insert(*out_section);
                }
                Event::Reloc(r) => {
                    d.changed_relocs.insert(reloc_index(r));
                }
                Event::Layout(l) => {
                    d.changed_events.insert(k);
                    if let crate::link::layout::LayoutEvent::Placed { name, section, .. } = l {
                        if let Some(i) = st.lookup(name) {
                            d.changed_syms.insert(i.0);
                        }
                        if let Some(i) = st.section_named(section) {
                            d.changed_sections.insert(i);
                        }
                    }
                }
                _ => {}
            }
        }
        // Relocations added or removed by the move.
        let now = st.relocs.len();
        let then = d.reloc_fate.len();
        for i in then.min(now)..then.max(now) {
            d.changed_relocs.insert(i);
        }
        d.reloc_fate = vec![None; now];
        d.weak.clear();
        d.map_input = None;
        d.skipped.clear();
        d.placed = 0;
        d.uft_events.clear();
        d.last_bindless = None;
        d.fates = [0; 3];
        for (k, e) in s.events().iter().enumerate() {
            use crate::link::layout::LayoutEvent as L;
            match e {
                Event::Reloc(r) => {
                    let (i, f) = (reloc_index(r), reloc_fate(r));
                    if let Some(slot) = d.reloc_fate.get_mut(i) {
                        *slot = Some((k, f));
                    }
                    d.fates[f as usize] += 1;
                }
                Event::WeakDecision { .. } => d.weak.push(k),
                Event::MergeInputStart { input, .. } => d.map_input = Some(*input),
                Event::InputSkipped { path, reason } => d.skipped.push((path.clone(), reason.clone())),
                Event::Layout(L::Placed { .. }) => d.placed += 1,
                Event::Layout(L::Uft(_)) => d.uft_events.push(k),
                Event::Layout(L::Bindless(_)) => d.last_bindless = Some(k),
                _ => {}
            }
        }
        d.cur_sym = None;
        d.cur_reloc = None;
        d.cur_map_row = None;
        d.cur_section = None;
        // What the panes follow: the current event after a move forward;
        // after a move back, the first event undone (what changed back).
        let target = if pos < prev {
            known.get(pos)
        } else {
            s.current().map(|(_, e)| e)
        };
        if let Some(e) = target {
            match e {
                Event::SymbolMapped { in_symbol, out, .. } => {
                    d.cur_sym = Some(*out);
                    d.cur_map_row = Some(*in_symbol);
                }
                Event::WeakDecision { out, .. } => d.cur_sym = Some(*out),
                Event::SectionMapped {
                    in_section,
                    out_section,
                    ..
                } => {
                    d.cur_map_row = Some(*in_section);
                    d.cur_section = Some(*out_section);
                }
                Event::SectionSkipped { in_section, .. } => d.cur_map_row = Some(*in_section),
                Event::Reloc(r) => d.cur_reloc = Some(reloc_index(r)),
                Event::RelocMapped { .. } => d.cur_reloc = st.relocs.len().checked_sub(1),
                Event::CommonGrown { name, .. } => d.cur_sym = st.lookup(name),
                Event::Layout(crate::link::layout::LayoutEvent::Placed { name, .. }) => d.cur_sym = st.lookup(name),
                _ => {}
            }
        }
        if d.prev_maps.len() > st.maps.len() {
            d.prev_maps.truncate(st.maps.len());
        }
        panes::follow(
            &Ctx {
                session: &self.session,
                d: &self.d,
                output: &self.output,
            },
            &mut self.st,
        );
    }

    // ---- keys

    /// Handles one key.
    pub fn on_key(&mut self, key: KeyEvent) {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        match self.mode.clone() {
            Mode::Help => self.mode = Mode::Normal,
            Mode::Command(text) => self.on_line_key(key, text, true),
            Mode::Search(text) => self.on_line_key(key, text, false),
            Mode::Normal if self.popup.is_some() => self.on_popup_key(key),
            Mode::Normal => self.on_normal_key(key),
        }
    }

    /// Presses a plain key (for tests and scripts): a character, or one of
    /// `Enter`, `Esc`, `Tab`, `BackTab`, `Up`, `Down`, `Left`, `Right`,
    /// `PageUp`, `PageDown`, `Home`, `End`, `Backspace`.
    pub fn press(&mut self, key: &str) {
        let code = match key {
            "Enter" => KeyCode::Enter,
            "Esc" => KeyCode::Esc,
            "Tab" => KeyCode::Tab,
            "BackTab" => KeyCode::BackTab,
            "Up" => KeyCode::Up,
            "Down" => KeyCode::Down,
            "Left" => KeyCode::Left,
            "Right" => KeyCode::Right,
            "PageUp" => KeyCode::PageUp,
            "PageDown" => KeyCode::PageDown,
            "Home" => KeyCode::Home,
            "End" => KeyCode::End,
            "Backspace" => KeyCode::Backspace,
            k => {
                let mut c = k.chars();
                match (c.next(), c.next()) {
                    (Some(ch), None) => KeyCode::Char(ch),
                    _ => panic!("unknown key name {k}"),
                }
            }
        };
        let mods = if code == KeyCode::BackTab {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        };
        self.on_key(KeyEvent::new(code, mods));
    }

    /// Types each character of `text` as a key.
    pub fn type_text(&mut self, text: &str) {
        for ch in text.chars() {
            self.on_key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE));
        }
    }

    fn on_popup_key(&mut self, key: KeyEvent) {
        let Some(p) = &mut self.popup else { return };
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => p.scroll = p.scroll.saturating_add(1),
            KeyCode::Up | KeyCode::Char('k') => p.scroll = p.scroll.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => p.scroll = p.scroll.saturating_add(10),
            KeyCode::PageUp => p.scroll = p.scroll.saturating_sub(10),
            KeyCode::Home => p.scroll = 0,
            KeyCode::Char(':') => {
                self.popup = None;
                self.mode = Mode::Command(String::new());
            }
            _ => self.popup = None,
        }
    }

    fn on_line_key(&mut self, key: KeyEvent, mut text: String, command: bool) {
        match key.code {
            KeyCode::Esc => self.mode = Mode::Normal,
            KeyCode::Enter => {
                self.mode = Mode::Normal;
                self.hist_pos = None;
                if command {
                    self.run_command(&text);
                } else {
                    let needle = if text.is_empty() {
                        self.last_search.clone()
                    } else {
                        text
                    };
                    self.search(&needle);
                }
            }
            KeyCode::Backspace => {
                if text.pop().is_none() {
                    self.mode = Mode::Normal;
                } else {
                    self.set_line(text, command);
                }
            }
            KeyCode::Up | KeyCode::Down if command && !self.history.is_empty() => {
                let n = self.history.len();
                let i = match (self.hist_pos, key.code) {
                    (None, KeyCode::Up) => Some(n - 1),
                    (None, _) => None,
                    (Some(i), KeyCode::Up) => Some(i.saturating_sub(1)),
                    (Some(i), _) if i + 1 < n => Some(i + 1),
                    (Some(_), _) => None,
                };
                self.hist_pos = i;
                let t = i.map(|i| self.history[i].clone()).unwrap_or_default();
                self.set_line(t, command);
            }
            KeyCode::Char(ch) => {
                text.push(ch);
                self.set_line(text, command);
            }
            _ => {}
        }
    }

    fn set_line(&mut self, text: String, command: bool) {
        self.mode = if command {
            Mode::Command(text)
        } else {
            Mode::Search(text)
        };
    }

    /// Searches the focused pane for `needle` from the row after the selection.
    pub fn search(&mut self, needle: &str) {
        if needle.is_empty() {
            return;
        }
        self.last_search = needle.to_string();
        let Some(kind) = self.focused() else { return };
        let ctx = Ctx {
            session: &self.session,
            d: &self.d,
            output: &self.output,
        };
        let found = panes::search(&ctx, &mut self.st, kind, needle);
        self.message_is_error = !found;
        self.message = if found {
            format!("/{needle}")
        } else {
            format!("/{needle}: not found in {}", kind.name())
        };
    }

    fn on_normal_key(&mut self, key: KeyEvent) {
        let n_panes = self.panes().len().max(1);
        match key.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('s') => self.run_command("step"),
            KeyCode::Char('n') => self.run_command("next"),
            KeyCode::Char('c') => self.run_command("continue"),
            KeyCode::Char('f') => self.run_command("finish"),
            KeyCode::Char('r') => self.run_command("reverse-step"),
            KeyCode::Char('R') => self.run_command("reverse-continue"),
            KeyCode::Char('N') => self.run_command("reverse-next"),
            KeyCode::Char(':') => {
                self.mode = Mode::Command(String::new());
                self.hist_pos = None;
            }
            KeyCode::Char('/') => self.mode = Mode::Search(String::new()),
            KeyCode::Char('?') | KeyCode::F(1) => self.mode = Mode::Help,
            KeyCode::Tab => self.focus = (self.focus + 1) % n_panes,
            KeyCode::BackTab => self.focus = (self.focus + n_panes - 1) % n_panes,
            KeyCode::Char(ch @ '1'..='9') => {
                let i = ch as usize - '1' as usize;
                if i < self.views.len() {
                    self.tab = i;
                    self.focus = 0;
                }
            }
            KeyCode::Char(']') => {
                self.tab = (self.tab + 1) % self.views.len();
                self.focus = 0;
            }
            KeyCode::Char('[') => {
                self.tab = (self.tab + self.views.len() - 1) % self.views.len();
                self.focus = 0;
            }
            KeyCode::Char('b') => {
                let Some(kind) = self.focused() else { return };
                let ctx = Ctx {
                    session: &self.session,
                    d: &self.d,
                    output: &self.output,
                };
                match panes::break_command(&ctx, &self.st, kind) {
                    Some(c) => self.run_command(&c),
                    None => {
                        self.message = format!("nothing selected in {} to break on", kind.name());
                        self.message_is_error = true;
                    }
                }
            }
            KeyCode::Enter => {
                let Some(kind) = self.focused() else { return };
                let ctx = Ctx {
                    session: &self.session,
                    d: &self.d,
                    output: &self.output,
                };
                match panes::enter_command(&ctx, &self.st, kind) {
                    Some(c) => self.run_command(&c),
                    None => panes::on_key(&ctx, &mut self.st, kind, key.code),
                }
            }
            KeyCode::Char('d') | KeyCode::Delete if self.focused() == Some(PaneKind::Breakpoints) => {
                if let Some(id) = panes::selected_breakpoint(&self.session, &self.st) {
                    self.run_command(&format!("delete {id}"));
                }
            }
            _ => {
                let Some(kind) = self.focused() else { return };
                let ctx = Ctx {
                    session: &self.session,
                    d: &self.d,
                    output: &self.output,
                };
                panes::on_key(&ctx, &mut self.st, kind, key.code);
            }
        }
    }

    /// A mouse click focuses the pane under it; the wheel moves its selection.
    pub fn on_mouse(&mut self, m: MouseEvent) {
        let at = Position::new(m.column, m.row);
        let Some(i) = self.rects.iter().position(|(_, r)| r.contains(at)) else {
            return;
        };
        let kind = self.rects[i].0;
        let code = match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus = i;
                return;
            }
            MouseEventKind::ScrollDown => KeyCode::Down,
            MouseEventKind::ScrollUp => KeyCode::Up,
            _ => return,
        };
        let ctx = Ctx {
            session: &self.session,
            d: &self.d,
            output: &self.output,
        };
        panes::on_key(&ctx, &mut self.st, kind, code);
    }

    // ---- drawing

    /// Draws the whole screen.
    pub fn draw(&mut self, f: &mut Frame) {
        let area = f.area();
        self.draw_area(area, f.buffer_mut());
    }

    /// Draws into a buffer region (what [`App::draw`] does with the frame).
    pub fn draw_area(&mut self, area: Rect, buf: &mut Buffer) {
        if area.width < 20 || area.height < 6 {
            Paragraph::new("culdb: the terminal is too small")
                .wrap(Wrap { trim: true })
                .render(area, buf);
            return;
        }
        // The event and the stop reason are shown whole: wrapped over up
        // to 4 lines each (1 on a short screen), never cut at the width.
        let most = if area.height >= 16 { 4 } else { 1 };
        let width = area.width as usize;
        let status_h = super::wrap::lines(&self.status_text(), width, most).len() as u16;
        let line_h = match self.mode {
            Mode::Command(_) | Mode::Search(_) => 1,
            _ => super::wrap::lines(&self.message, width, most).len() as u16,
        };
        let [tabs, body, status, line] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Fill(1),
            Constraint::Length(status_h),
            Constraint::Length(line_h),
        ])
        .areas(area);
        self.draw_tabs(tabs, buf);
        let mut placed = Vec::new();
        view::place(&self.view().layout.clone(), body, &mut placed);
        if self.focus >= placed.len() {
            self.focus = 0;
        }
        self.rects = placed.iter().map(|(p, r)| (p.kind, *r)).collect();
        let ctx = Ctx {
            session: &self.session,
            d: &self.d,
            output: &self.output,
        };
        for (i, (spec, r)) in placed.iter().enumerate() {
            panes::render(&ctx, &mut self.st, spec, *r, buf, i == self.focus);
        }
        self.draw_status(status, buf);
        self.draw_line(line, buf);
        if let Some(p) = &self.popup {
            popup(
                body,
                buf,
                &format!(" {} (Esc closes, arrows scroll) ", p.title),
                &p.text,
                p.scroll,
            );
        }
        if self.mode == Mode::Help {
            popup(body, buf, " keys (any key closes) ", HELP, 0);
        }
    }

    /// Draws one pane alone into `area` (tests and benchmarks).
    pub fn render_pane(&mut self, spec: &PaneSpec, area: Rect, buf: &mut Buffer, focused: bool) {
        let ctx = Ctx {
            session: &self.session,
            d: &self.d,
            output: &self.output,
        };
        panes::render(&ctx, &mut self.st, spec, area, buf, focused);
    }

    fn draw_tabs(&self, area: Rect, buf: &mut Buffer) {
        let mut spans = vec![Span::styled("culdb ", Style::new().add_modifier(Modifier::BOLD))];
        for (i, v) in self.views.iter().enumerate() {
            let label = format!(" {}:{} ", i + 1, v.title);
            let style = if i == self.tab {
                Style::new().fg(Color::Black).bg(Color::Cyan)
            } else {
                Style::new()
            };
            spans.push(Span::styled(label, style));
        }
        let line = Line::from(spans);
        let used = line.width();
        buf.set_line(area.x, area.y, &line, area.width);
        let help = " ?:help";
        // The hint only where the tabs leave room for it.
        if area.width as usize >= used + help.len() {
            let x = area.x + area.width - help.len() as u16;
            buf.set_string(x, area.y, help, Style::new().fg(Color::DarkGray));
        }
    }

    /// The status line's text: the current event, and the end when reached.
    fn status_text(&self) -> String {
        let s = &self.session;
        let text = match s.current() {
            Some((k, e)) => inspect::event_line(s, k, e),
            None => "before the first event".to_string(),
        };
        let end = if s.at_end() {
            format!("  [finished: exit {}]", s.exit_status())
        } else {
            String::new()
        };
        format!("{text}{end}")
    }

    fn draw_status(&self, area: Rect, buf: &mut Buffer) {
        let style = Style::new().fg(Color::Black).bg(Color::Gray);
        let rows = super::wrap::lines(&self.status_text(), area.width as usize, area.height as usize);
        for (i, t) in rows.iter().enumerate().take(area.height as usize) {
            let line = Line::from(vec![
                Span::styled(t.clone(), style),
                Span::styled(" ".repeat(area.width as usize), Style::new().bg(Color::Gray)),
            ]);
            buf.set_line(area.x, area.y + i as u16, &line, area.width);
        }
    }

    fn draw_line(&self, area: Rect, buf: &mut Buffer) {
        let line = match &self.mode {
            Mode::Command(t) => Line::from(vec![Span::raw(":"), Span::raw(t.clone()), cursor()]),
            Mode::Search(t) => Line::from(vec![Span::raw("/"), Span::raw(t.clone()), cursor()]),
            _ => {
                let style = if self.message_is_error {
                    Style::new().fg(Color::Red)
                } else {
                    Style::new()
                };
                let rows = super::wrap::lines(&self.message, area.width as usize, area.height as usize);
                for (i, t) in rows.iter().enumerate().take(area.height as usize) {
                    buf.set_line(area.x, area.y + i as u16, &Line::styled(t.clone(), style), area.width);
                }
                return;
            }
        };
        buf.set_line(area.x, area.y, &line, area.width);
    }
}

fn cursor() -> Span<'static> {
    Span::styled(" ", Style::new().add_modifier(Modifier::REVERSED))
}

fn popup(body: Rect, buf: &mut Buffer, title: &str, text: &str, scroll: u16) {
    let lines = text.lines().count() as u16;
    let width = text
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(title.chars().count()) as u16
        + 2;
    let w = width.min(body.width);
    let h = (lines + 2).min(body.height);
    let area = Rect::new(body.x + (body.width - w) / 2, body.y + (body.height - h) / 2, w, h);
    Clear.render(area, buf);
    Paragraph::new(text.to_string())
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0))
        .block(
            Block::bordered()
                .title(title.to_string())
                .border_style(Style::new().fg(Color::Yellow)),
        )
        .render(area, buf);
}

pub(crate) fn reloc_index(r: &crate::link::reloc::RelocEvent) -> usize {
    use crate::link::reloc::RelocEvent as R;
    match r {
        R::Applied { index, .. } | R::Kept { index, .. } | R::Dropped { index, .. } => *index,
    }
}

fn reloc_fate(r: &crate::link::reloc::RelocEvent) -> Fate {
    use crate::link::reloc::RelocEvent as R;
    match r {
        R::Applied { .. } => Fate::Applied,
        R::Kept { .. } => Fate::Kept,
        R::Dropped { .. } => Fate::Dropped,
    }
}
