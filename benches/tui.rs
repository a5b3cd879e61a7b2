//! `cargo bench --bench tui`: how long the terminal interface takes to
//! redraw on a large link. A synthetic input with 100,000 global variables
//! (C++ names, so every visible row is demangled) is linked to its end in a
//! debugger session; then frames are drawn into ratatui's `TestBackend`:
//!
//! - an empty frame (the backend's own cost: the baseline);
//! - the symbol table alone, scrolled a page between frames (so every frame
//!   draws new rows);
//! - the overview tab (sections tree, symbol table, event log of 100,000+
//!   events, breakpoints);
//! - a step backwards or forwards and the frame after it, split into what
//!   the session's move costs (a reverse step replays from a checkpoint) and
//!   what the interface adds (recomputing what changed, then the frame).
//!
//! - each of step, next, reverse-step and reverse-next with its frame, from
//!   a quarter, half and three quarters of the link and from its end (mean
//!   and worst).
//!
//! The figures are means per frame, with the ratio to the empty frame; a
//! frame at 60 Hz has 16 ms. Options: `--symbols N` (default 100000),
//! `--frames F` (default 300), `--size WxH` (default 200x60).

use std::path::Path;
use std::time::{Duration, Instant};

use culdb::cubin::build::{CubinBuilder, Def, SecSpec, Sym};
use culdb::cubin::consts::{SHF_ALLOC, SHF_WRITE, SHT_PROGBITS};
use culdb::debug::Session;
use culdb::tui::{App, view};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn arg(name: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

/// One cubin defining `n` global variables `bench::vI` in `.nv.global.init`.
fn write_input(dir: &Path, n: usize) -> Vec<String> {
    let mut b = CubinBuilder::new(90);
    b.ptxas_notes(90);
    let sec = b.section(SecSpec::new(".nv.global.init", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8).data(vec![0; n * 8]));
    for i in 0..n {
        let v = format!("v{i}");
        let name = format!("_ZN5bench{}{v}E", v.len());
        b.symbol(&name, Sym::global().object().sized(8), Def::In(sec), (i * 8) as u64);
    }
    std::fs::create_dir_all(dir).expect("bench folder");
    std::fs::write(dir.join("big.cubin"), b.to_bytes().expect("synthetic cubin")).expect("write input");
    vec!["-arch=sm_90".into(), "big.cubin".into()]
}

fn mean(total: Duration, n: usize) -> f64 {
    total.as_secs_f64() * 1e3 / n as f64
}

fn main() {
    let n: usize = arg("--symbols", "100000").parse().expect("--symbols N");
    let frames: usize = arg("--frames", "300").parse().expect("--frames F");
    let size = arg("--size", "200x60");
    let (w, h) = size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u16>().ok()?, h.parse::<u16>().ok()?)))
        .expect("--size WxH");

    let dir = std::env::temp_dir().join(format!("culdb-tui-bench-{}", std::process::id()));
    let args = write_input(&dir, n);
    let t = Instant::now();
    let mut session = Session::new(&args, &dir).expect("session");
    session.goto(usize::MAX - 1);
    let link = t.elapsed();
    let syms = session.state().locals.len() + session.state().globals.len();
    let events = session.position();
    println!(
        "link: {n} variables, {syms} output symbols, {events} events, run to its end in {:.0} ms (exit {})",
        link.as_secs_f64() * 1e3,
        session.exit_status()
    );

    let symbols_only = view::parse("bench", "(title: \"symbols\", layout: Pane(kind: symbols))").expect("view");
    let mut views = vec![symbols_only];
    views.extend(view::load_all(None).expect("presets"));
    let mut app = App::new(session, views, 0);
    let mut term = Terminal::new(TestBackend::new(w, h)).expect("backend");

    // Warm up: the first frame builds the caches (layout rows, trees).
    term.draw(|f| app.draw(f)).expect("draw");

    let t = Instant::now();
    for _ in 0..frames {
        term.draw(|_| {}).expect("draw");
    }
    let empty = mean(t.elapsed(), frames);

    let t = Instant::now();
    for _ in 0..frames {
        app.press("PageDown");
        term.draw(|f| app.draw(f)).expect("draw");
    }
    let table = mean(t.elapsed(), frames);

    app.press("End");
    let t = Instant::now();
    for _ in 0..frames {
        app.press("PageUp");
        term.draw(|f| app.draw(f)).expect("draw");
    }
    let table_end = mean(t.elapsed(), frames);

    app.select_tab("overview");
    term.draw(|f| app.draw(f)).expect("draw");
    let t = Instant::now();
    for _ in 0..frames {
        app.press("Tab");
        term.draw(|f| app.draw(f)).expect("draw");
    }
    let overview = mean(t.elapsed(), frames);

    app.select_tab("symbols");
    let moves = (frames / 10).max(4);
    let t = Instant::now();
    for i in 0..moves {
        app.press(if i.is_multiple_of(2) { "r" } else { "s" });
        term.draw(|f| app.draw(f)).expect("draw");
    }
    let moving = mean(t.elapsed(), moves);

    // The same moves on the session alone: what the engine costs (the
    // replay from a checkpoint), apart from the interface.
    let t = Instant::now();
    for i in 0..moves {
        if i.is_multiple_of(2) {
            app.session.reverse_step();
        } else {
            app.session.step();
        }
    }
    let engine = mean(t.elapsed(), moves);

    // Each debugger move on its own, from a quarter, half, three quarters
    // of the link and its end: the command and the frame after it.
    let kinds = ["step", "next", "reverse-step", "reverse-next"];
    let mut worst = [0f64; 4];
    let mut sum = [0f64; 4];
    let points = [events / 4, events / 2, events * 3 / 4, events];
    for &at in &points {
        for (k, kind) in kinds.iter().enumerate() {
            app.run_command(&format!("goto {}", at.saturating_sub(1)));
            term.draw(|f| app.draw(f)).expect("draw");
            let t = Instant::now();
            app.run_command(kind);
            term.draw(|f| app.draw(f)).expect("draw");
            let ms = t.elapsed().as_secs_f64() * 1e3;
            worst[k] = worst[k].max(ms);
            sum[k] += ms;
        }
    }

    println!("terminal {w}x{h}, mean of {frames} frames (moves: {moves}); ratio to the empty frame");
    let row = |what: &str, ms: f64| println!("  {what:<44} {ms:>8.3} ms  {:>7.1}x", ms / empty);
    row("empty frame (baseline)", empty);
    row("symbol table, a page further each frame", table);
    row("symbol table, near the end", table_end);
    row("overview tab (tree, table, 100k-event log)", overview);
    row("a move (r or s) and its frame", moving);
    row("  of which the session's move alone", engine);
    row("  of which the interface (derived state, frame)", moving - engine);
    println!(
        "each move and its frame, from events {}: mean / worst",
        points.map(|p| p.to_string()).join(", ")
    );
    for (k, kind) in kinds.iter().enumerate() {
        println!(
            "  {kind:<44} {:>8.3} ms  {:>8.3} ms",
            sum[k] / points.len() as f64,
            worst[k]
        );
    }
    let redraw = table.max(table_end).max(overview);
    println!(
        "  redraw within a 16 ms frame: {}; every move within 16 ms: {}",
        if redraw < 16.0 { "yes" } else { "NO" },
        if worst.iter().all(|&w| w < 16.0) { "yes" } else { "NO" }
    );
    let _ = std::fs::remove_dir_all(&dir);
}
