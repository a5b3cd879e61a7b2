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
┌ inputs: 2 loaded, 0 ski┐┌ maps: input #1 ./libcudadevrt.a:cuda_device_runtime┐
│▶ #0 dp.cubin (merged)  ││   k symbol       →sym wp │ section    →sec   offset│
│▼ ./libcudadevrt.a (arch││ 321 __nv_stat…    323 ·  │ .text.__…     0      0x0│
│  ▶ #1 cuda_device_runti││ 322 _ZN60_INT…      0 ·  │ .text.__…     0      0x0│
│                        ││ 323 .text._ZN…      0 ·  │ .text.cu…     0      0x0│
│                        ││ 324 .text.__n…      0 ·  │ .text.cu…     0      0x0│
│                        ││ 325 .nv.share…      0 ·  │ .text.cu…     0      0x0│
│                        ││ 326 $___ZZ16m…      0 ·  │ .text.cu…     0      0x0│
│                        ││ 327 .text.__n…      0 ·  │ .text.cu…     0      0x0│
└────────────────────────┘└────────────────────────────────────────────────────┘
┌ events: 418 of 418 ──────────────────────────────────────────────────────────┐
│   #413 [merge] input #1 symbol [319] __nv_static_51__0afad4c0_22_cuda_device_│
│   #414 [merge] input #1 section [249] .text.__nv_static_51__0afad4c0_22_cuda_│
│   #415 [merge] input #1 symbol [320] __nv_static_51__0afad4c0_22_cuda_device_│
│   #416 [merge] input #1 section [248] .text.__nv_static_51__0afad4c0_22_cuda_│
│=> #417 [merge] input #1 symbol [321] __nv_static_51__0afad4c0_22_cuda_device_│
└──────────────────────────────────────────────────────────────────────────────┘
#417 [merge] input #1 symbol [321]
__nv_static_51__0afad4c0_22_cuda_device_runtime_cu_f78b5b52_735892__Z16memcpy_3d
_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E -> 323 (Local)
Breakpoint 1 (symbol
__nv_static_51__0afad4c0_22_cuda_device_runtime_cu_f78b5b52_735892__Z16memcpy_3d
_deviceImLi1ELi1ELi1EEv12MemcpyParamsIT_E)
"#;
