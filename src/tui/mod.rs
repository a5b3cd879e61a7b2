//! `culdb tui <link args>`: the debugger as a terminal interface (ratatui +
//! crossterm) over the same [`Session`] as the REPL. Every move redraws what
//! changed; the `:` command line runs the one command language
//! ([`crate::cmd::run_line`]).
//!
//! [`App`] holds the interface without a terminal (keys in, frames out), so
//! tests drive it over ratatui's `TestBackend`; [`run`] puts it on the
//! terminal. The tabs come from the view presets (`views/*.ron`, [`view`]).

pub mod app;
pub mod bits;
pub mod list;
pub mod panes;
pub mod size;
pub mod view;
pub mod wrap;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event as TermEvent, KeyEventKind};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};

use crate::debug::Session;

pub use app::App;
pub use view::{PaneKind, View};

/// How to open the interface.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// The tab to start on: a preset's name (`overview`, `weak`, …) or the
    /// path of a preset file (added as a tab).
    pub view: Option<String>,
    /// A folder of presets that override the shipped ones by name and add
    /// more. None: `$CULDB_VIEWS`, else the source tree's `views/` when it
    /// exists, else only the embedded presets.
    pub views_dir: Option<PathBuf>,
    /// Command-language lines run before the first draw (a scenario's).
    pub startup_commands: Vec<String>,
    /// Capture the mouse (click focuses a pane, the wheel scrolls).
    pub mouse: bool,
}

/// The folder of presets used when none is given.
pub fn default_views_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CULDB_VIEWS") {
        return Some(PathBuf::from(d));
    }
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("views");
    shipped.is_dir().then_some(shipped)
}

/// The interface over `session` as `opts` asks, with the startup commands
/// run; an error names a malformed preset's file, line and column.
pub fn prepare(session: Session, opts: &TuiOptions) -> Result<App, String> {
    let dir = opts.views_dir.clone().or_else(default_views_dir);
    let mut views = view::load_all(dir.as_deref())?;
    let tab = match &opts.view {
        Some(name) => view::pick(&mut views, name)?,
        None => 0,
    };
    let mut app = App::new(session, views, tab);
    for c in &opts.startup_commands {
        app.run_command(c);
    }
    app.popup = None;
    Ok(app)
}

/// Runs the interface on the terminal until `q`; returns the link's exit
/// status (the link is finished on a copy when the session stopped early).
/// Errors (a malformed preset, no terminal) are printed, status 2.
pub fn run(session: Session, opts: TuiOptions) -> i32 {
    let mut app = match prepare(session, &opts) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("culdb tui: {e}");
            return 2;
        }
    };
    if app.quit {
        return app.session.final_status();
    }
    if !std::io::stdout().is_terminal() {
        eprintln!("culdb tui: stdout is not a terminal (use `culdb repl` for scripts)");
        return 2;
    }
    if let Err(e) = on_terminal(&mut app, opts.mouse) {
        eprintln!("culdb tui: terminal error: {e}");
    }
    app.session.final_status()
}

fn restore(mouse: bool) {
    let _ = disable_raw_mode();
    let mut out = std::io::stdout();
    if mouse {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(out, LeaveAlternateScreen, crossterm::cursor::Show);
    let _ = out.flush();
}

fn on_terminal(app: &mut App, mouse: bool) -> std::io::Result<()> {
    enable_raw_mode()?;
    let mut out = std::io::stdout();
    execute!(out, EnterAlternateScreen)?;
    if mouse {
        execute!(out, EnableMouseCapture)?;
    }
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore(mouse);
        hook(info);
    }));
    let res = (|| -> std::io::Result<()> {
        let mut term = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
        term.clear()?;
        loop_on(&mut term, app)
    })();
    restore(mouse);
    let _ = std::panic::take_hook();
    res
}

fn loop_on<B: Backend>(term: &mut Terminal<B>, app: &mut App) -> std::io::Result<()>
where
    std::io::Error: From<B::Error>,
{
    while !app.quit {
        term.draw(|f| app.draw(f))?;
        match event::read()? {
            TermEvent::Key(k) if k.kind != KeyEventKind::Release => app.on_key(k),
            TermEvent::Mouse(m) => app.on_mouse(m),
            _ => {}
        }
    }
    Ok(())
}

/// `culdb tui [--view NAME] [--views-dir DIR] [--mouse] NVLINK-ARGS...`.
pub fn main(args: &[String], opts: TuiOptions) -> i32 {
    let session = match Session::new(args, Path::new(".")) {
        Ok(s) => s,
        Err(e) => {
            for d in &e.diagnostics {
                eprintln!("{}", d.line());
            }
            return e.status;
        }
    };
    run(session, opts)
}
