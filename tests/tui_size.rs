//! The terminal interface's size tab (the tree `culdb size` prints) and the
//! stop reason drawn whole, wrapped at 80×24, over ratatui's `TestBackend`.

mod common;

use std::path::PathBuf;

use culdb::debug::Session;
use culdb::tui::App;
use culdb::tui::view::{PaneKind, PaneSpec};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn case(name: &str) -> PathBuf {
    common::root().join("tests/corpus").join(name)
}

fn app(name: &str) -> App {
    let args: Vec<String> = std::fs::read_to_string(case(name).join("link.args"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    App::with_builtin_views(Session::new(&args, &case(name)).expect("session"))
}

fn text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut s = String::new();
    for y in a.y..a.y + a.height {
        let mut line = String::new();
        for x in a.x..a.x + a.width {
            line.push_str(buf[(x, y)].symbol());
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn pane(app: &mut App, kind: PaneKind, w: u16, h: u16) -> String {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    let spec = PaneSpec {
        kind,
        title: None,
        columns: None,
    };
    app.render_pane(&spec, area, &mut buf, true);
    text(&buf)
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.draw(f)).unwrap();
    text(t.backend().buffer())
}

#[track_caller]
fn snap(name: &str, got: &str, want: &str) {
    if let Some(dir) = std::env::var_os("CULDB_TUI_SNAPSHOTS") {
        std::fs::write(PathBuf::from(dir).join(format!("{name}.txt")), got).unwrap();
        return;
    }
    assert_eq!(
        got.trim_end(),
        want.trim_start_matches('\n').trim_end(),
        "snapshot {name}:\n{got}"
    );
}

#[test]
fn size_pane_shows_the_size_tree() {
    let mut a = app("extern_call_sm90");
    let t = pane(&mut a, PaneKind::Size, 60, 6);
    assert!(t.contains("not built yet"), "{t}");
    a.run_command("goto end");
    let t = pane(&mut a, PaneKind::Size, 72, 20);
    snap("size", &t, SIZE);
}

const SIZE: &str = r#"
┌ size: 5544 bytes ────────────────────────────────────────────────────┐
│ FILE SIZE       %  KIND / SECTION                                    │
│      1344  24.24%  [section headers]                                 │
│      1344  24.24%    [section headers]                               │
│       896  16.16%  code                                              │
│       512   9.24%    .text.k_main                                    │
│       384   6.93%    .text.add_bias                                  │
│       834  15.04%  string tables                                     │
│       487   8.78%    .strtab                                         │
│       347   6.26%    .shstrtab                                       │
│       540   9.74%  constant bank 0                                   │
│       540   9.74%    .nv.constant0.k_main                            │
│       520   9.38%  notes                                             │
│       488   8.80%    .note.nv.tkinfo                                 │
│        32   0.58%    .note.nv.cuinfo                                 │
│       360   6.49%  symbol table                                      │
│       360   6.49%    .symtab                                         │
│       232   4.18%  relocations                                       │
│       120   2.16%    .rela.text.k_main                               │
└──────────────────────────────────────────────────────────────────────┘
"#;

#[test]
fn size_tab_is_a_view() {
    let mut a = app("extern_call_sm90");
    a.run_command("goto end");
    let k = a.views.iter().position(|v| v.title == "size").expect("a size tab");
    a.tab = k;
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("KIND / SECTION") && s.contains("size: 5544 bytes"), "{s}");
}

#[test]
fn stop_reason_is_wrapped_whole_at_80x24() {
    let mut a = app("dynpar_cudadevrt_sm90");
    let long = "__nv_static_51__0afad4c0_22_cuda_device_runtime_cu_f78b5b52_735892__Z16memcpy_3d_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E";
    a.run_command(&format!("break symbol {long}"));
    a.run_command("continue");
    let s = screen(&mut a, 80, 24);
    let flat: String = s.lines().map(str::trim_end).collect::<Vec<_>>().concat();
    assert!(flat.contains("Breakpoint 1"), "{s}");
    assert!(flat.contains(long), "the symbol is cut:\n{s}");
    snap("stop_80x24", &s, STOP);
}

const STOP: &str = r#"
culdb  1:overview  2:merge  3:weak  4:relocations  5:tables  6:layout  7:size
┌ sections: 39 ────────────────┐┌ symbols: 337 (323 local, 14 global) ─────────┐
│▶ [1] .debug_frame 0xd0       ││   idx bind   section          value    size  │
│▶ [2] .text._Z6parentPii 0x300││   323 LOCAL  .text.__nv_st…     0x0   0x600  │
│▶ [3] .text._Z5childPii 0x180 ││    -1 WEAK   UNDEF              0x0     0x8  │
│▶ [4] .nv.constant0._Z6parentP││    -2 WEAK   UNDEF              0x0     0x8  │
│▶ [5] .nv.constant0._Z5childPi││    -3 WEAK   UNDEF              0x0     0x8  │
│▶ [6] .text._ZN60_INTERNAL_0af││    -4 WEAK   UNDEF              0x0     0x8  │
│▶ [7] .nv.global.init 0x3608  ││    -5 WEAK   UNDEF              0x0     0x8  │
└──────────────────────────────┘└──────────────────────────────────────────────┘
┌ events: 418 of 418 ────────────────────────────────┐┌ breakpoints: 1 ────────┐
│   #412 [merge] input #1 section [250] .text.__nv_st││1 y symbol __nv_static_5│
│   #413 [merge] input #1 symbol [319] __nv_static_51││                        │
│   #414 [merge] input #1 section [249] .text.__nv_st││                        │
│   #415 [merge] input #1 symbol [320] __nv_static_51││                        │
│   #416 [merge] input #1 section [248] .text.__nv_st││                        │
│=> #417 [merge] input #1 symbol [321] __nv_static_51││                        │
└────────────────────────────────────────────────────┘└────────────────────────┘
#417 [merge] input #1 symbol [321]
__nv_static_51__0afad4c0_22_cuda_device_runtime_cu_f78b5b52_735892__Z16memcpy_3d
_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E -> 323 (Local)
Breakpoint 1 (symbol
__nv_static_51__0afad4c0_22_cuda_device_runtime_cu_f78b5b52_735892__Z16memcpy_3d
_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E)
"#;
