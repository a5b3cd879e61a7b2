//! The terminal interface without a terminal: every pane drawn on corpus
//! cases into a `TestBackend` and compared with the expected text
//! (snapshots), the keys, the command line, search, the view presets.
//!
//! To refresh a snapshot after an intended change: run with
//! `CULDB_TUI_SNAPSHOTS=DIR`, which writes each drawn pane to `DIR/NAME.txt`
//! (and does not compare), and paste it here.

mod common;

use std::path::PathBuf;

use culdb::debug::Session;
use culdb::tui::app::Mode;
use culdb::tui::view::{self, PaneKind, PaneSpec};
use culdb::tui::{App, TuiOptions};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;

const WEAK: &str = "weak_func_regs_unequal_fewer_first_sm90";

fn case(name: &str) -> PathBuf {
    common::root().join("tests/corpus").join(name)
}

fn session(name: &str) -> Session {
    let args: Vec<String> = std::fs::read_to_string(case(name).join("link.args"))
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    Session::new(&args, &case(name)).expect("session")
}

fn app(name: &str) -> App {
    App::with_builtin_views(session(name))
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

fn screen(app: &mut App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| app.draw(f)).unwrap();
    text(t.backend().buffer())
}

fn spec(kind: PaneKind) -> PaneSpec {
    PaneSpec {
        kind,
        title: None,
        columns: None,
    }
}

fn pane_buf(app: &mut App, kind: PaneKind, w: u16, h: u16) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    app.render_pane(&spec(kind), area, &mut buf, true);
    buf
}

fn pane(app: &mut App, kind: PaneKind, w: u16, h: u16) -> String {
    text(&pane_buf(app, kind, w, h))
}

/// Compares a drawn text with the expected one (leading newline of the
/// literal ignored), or writes it out when `CULDB_TUI_SNAPSHOTS` is set.
fn snap(name: &str, actual: &str, expected: &str) {
    if let Some(dir) = std::env::var_os("CULDB_TUI_SNAPSHOTS") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.txt")), actual).unwrap();
        return;
    }
    let expected = expected.strip_prefix('\n').unwrap_or(expected);
    assert!(
        actual == expected,
        "snapshot {name} differs.\n--- expected\n{expected}--- drawn\n{actual}"
    );
}

/// Presses keys as the terminal loop does: a frame drawn before each
/// (the trees move through what they showed last).
fn keys(app: &mut App, keys: &[&str]) {
    for k in keys {
        screen(app, 80, 24);
        app.press(k);
    }
}

fn at_weak_decision(name: &str) -> App {
    let mut a = app(name);
    a.run_command("break weak");
    a.press("c");
    a
}

// ---- every pane

#[test]
fn pane_sections_tree_opens_section_contribution_and_symbols() {
    let mut a = app(WEAK);
    a.run_command("goto end");
    assert!(a.focus_pane(PaneKind::Sections));
    a.search("k_weak");
    keys(&mut a, &["Right", "Down", "Right", "Down", "Down"]);
    snap(
        "sections",
        &pane(&mut a, PaneKind::Sections, 56, 10),
        r#"
┌ sections: 4 ─────────────────────────────────────────┐
│  ▶ [1] .debug_frame 0x138                            │
│  ▼ [2] .text.k_weak 0x180                            │
│    ▼ +0x0 0x180 from k.cubin [14]                    │
│        3 0x0 .text.k_weak                            │
│>       -10 0x0 k_weak                                │
│  ▶ [3] .nv.constant0.k_weak 0x218                    │
│  ▶ [4] .text.wf 0x200                                │
│                                                      │
└──────────────────────────────────────────────────────┘
"#,
    );
    a.press("b");
    assert!(a.message.contains("Breakpoint 1: symbol k_weak"), "{}", a.message);
}

#[test]
fn pane_inputs_tree_shows_archive_members_skipped_and_why() {
    let mut a = app("err_archive_of_cubins_direct_sm90");
    a.press("f"); // to the end of the read phase
    assert!(a.select_tab("merge"));
    assert!(a.focus_pane(PaneKind::Inputs));
    keys(&mut a, &["Down", "Down", "Down", "Right"]);
    snap(
        "inputs_skipped",
        &pane(&mut a, PaneKind::Inputs, 72, 10),
        r#"
┌ inputs: 1 loaded, 3 skipped ─────────────────────────────────────────┐
│  ▶ #0 main.cubin (loaded)                                            │
│  ▼ libx.a (archive: 3 members seen)                                  │
│>   ▼ m1.cubin (skipped)                                              │
│        why: cubin member: nvlink ignores cubins inside archives      │
│    ▶ m2.cubin (skipped)                                              │
│    ▶ m3.cubin (skipped)                                              │
│                                                                      │
│                                                                      │
└──────────────────────────────────────────────────────────────────────┘
"#,
    );
    let mut a = app("archive_hostobj_direct_sm90");
    a.run_command("goto end");
    let t = pane(&mut a, PaneKind::Inputs, 72, 10);
    assert!(t.contains("libx.a (archive: 4 members seen)"), "{t}");
    assert!(t.contains("m1.o (merged)"), "{t}");
}

#[test]
fn pane_symbols_table_at_the_weak_decision() {
    let mut a = at_weak_decision(WEAK);
    snap(
        "symbols",
        &pane(&mut a, PaneKind::Symbols, 80, 10),
        r#"
┌ symbols: 15 (4 local, 11 global) ────────────────────────────────────────────┐
│   idx bind   section          value    size name                             │
│    -5 WEAK   UNDEF              0x0     0x8 __UFT                            │
│    -6 WEAK   UNDEF              0x0     0x8 __UDT                            │
│    -7 WEAK   UNDEF              0x0     0x8 __UFT_END                        │
│    -8 WEAK   UNDEF              0x0     0x8 __UDT_END                        │
│    -9 WEAK   UNDEF              0x0     0x4 .nv.reservedSmem.offset0         │
│   -10 GLOBAL .text.k_weak       0x0   0x180 k_weak                           │
│   -11 WEAK   .text.wf           0x0   0x200 wf                               │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
    // The weak decision changed wf's record: its row is highlighted.
    let buf = pane_buf(&mut a, PaneKind::Symbols, 80, 10);
    let t = text(&buf);
    let y = t.lines().position(|l| l.contains("-11 WEAK")).unwrap() as u16;
    a.press("s");
    a.press("r");
    let buf = pane_buf(&mut a, PaneKind::Symbols, 80, 10);
    assert_eq!(buf[(5, y)].fg, Color::Yellow);
    assert_ne!(buf[(5, y - 1)].fg, Color::Yellow);
}

#[test]
fn pane_maps_side_by_side_with_changed_cells() {
    let mut a = app(WEAK);
    a.run_command("goto 78");
    a.press("s");
    assert!(a.message.is_empty(), "{}", a.message);
    snap(
        "maps",
        &pane(&mut a, PaneKind::Maps, 76, 9),
        r#"
┌ maps: input #2 b.cubin (←/→ input) ──────────────────────────────────────┐
│   k symbol                   →sym wp │ section              →sec   offset│
│  11 __UFT                      -5 ·  │ .nv.prototype           0      0x0│
│  12 __UDT                      -6 ·  │ .rela.debug_frame       0      0x0│
│  13 __UFT_END                  -7 ·  │ .text.wf                0      0x0│
│  14 __UDT_END                  -8 ·  │                                   │
│  15 .nv.reservedSmem.offs…     -9 ·  │                                   │
│  16 wf                          0 ·  │                                   │
└──────────────────────────────────────────────────────────────────────────┘
"#,
    );
    // The step mapped b.cubin's symbol 15: that cell is highlighted; the
    // row above is not.
    let buf = pane_buf(&mut a, PaneKind::Maps, 76, 9);
    let t = text(&buf);
    let y = t.lines().position(|l| l.contains("  15 .nv.reserved")).unwrap() as u16;
    let x = t
        .lines()
        .nth(y as usize)
        .unwrap()
        .chars()
        .position(|c| c == '-')
        .unwrap() as u16;
    assert_eq!(buf[(x, y)].fg, Color::Yellow);
    assert_ne!(buf[(x, y - 1)].fg, Color::Yellow);
    // Left/Right show the other inputs' arrays.
    a.focus_pane(PaneKind::Maps);
    a.select_tab("merge");
    a.focus_pane(PaneKind::Maps);
    a.press("Right");
    let t = pane(&mut a, PaneKind::Maps, 76, 9);
    assert!(t.contains("maps: input #0 k.cubin"), "{t}");
}

#[test]
fn pane_weak_shows_both_candidates_rule_and_winner() {
    let mut a = at_weak_decision(WEAK);
    snap(
        "weak",
        &pane(&mut a, PaneKind::Weak, 80, 11),
        r#"
┌ weak: 1 so far; wf ──────────────────────────────────────────────────────────┐
│#80 wf: a.cubin 24r sm_90 vs b.cubin 75r sm_90 → a.cubin                      │
│#80 -11     existing (winner)                incoming                         │
│input       #1 a.cubin                       #2 b.cubin                       │
│binding     weak                             weak                             │
│registers   24                               75                               │
│PTX target  sm_90                            sm_90                            │
│size        0x200                            0x500                            │
│rule        FewerRegisters: the definition using fewer registers wins         │
│winner      existing: a.cubin (input #1)                                      │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
    // The row the rule looked at is highlighted.
    let buf = pane_buf(&mut a, PaneKind::Weak, 80, 11);
    assert_eq!(buf[(1, 5)].fg, Color::Yellow);
    assert_ne!(buf[(1, 4)].fg, Color::Yellow);
    // The higher-virtual-SM rule, on another case.
    let mut a = at_weak_decision("weak_func_vsm_low_first_sm90");
    let t = pane(&mut a, PaneKind::Weak, 80, 11);
    assert!(t.contains("HigherVirtualSm"), "{t}");
    assert!(t.contains("sm_75"), "{t}");
}

#[test]
fn pane_layout_offsets_per_memory_space() {
    let mut a = app("shared_static_sm90");
    a.run_command("goto end");
    let t = pane(&mut a, PaneKind::Layout, 70, 16);
    snap(
        "layout",
        &t,
        r#"
┌ layout: 4 placed ──────────────────────────────────────────────────┐
│── constant bank 0 ──                                               │
│ [6] .nv.constant0.k_smem_only size 0x218 align 4                   │
│ [7] .nv.constant0.k_smem size 0x218 align 4                        │
│── shared ──                                                        │
│ [1] .nv.shared.k_smem_only size 0x4c8 align 8                      │
│   +    0x0   0xc8 $__small__38                                     │
│ [2] .nv.shared.k_smem size 0x1004 align 16                         │
│   +  0x804  0x400 $__tile__13                                      │
│ [8] .nv_debug.shared size 0x804 align 16 removed                   │
│   +    0x0  0x800 reduce_buf                                       │
│   +  0x800    0x4 s_flag                                           │
│                                                                    │
│                                                                    │
│                                                                    │
└────────────────────────────────────────────────────────────────────┘
"#,
    );
}

#[test]
fn pane_relocs_and_patch_bits_change_then_step_back_unchanged() {
    let mut a = at_weak_decision(WEAK);
    a.run_command("break reloc section=.debug_frame offset=0xac");
    a.press("c");
    assert!(a.message.contains("Breakpoint 2"), "{}", a.message);
    snap(
        "relocs",
        &pane(&mut a, PaneKind::Relocs, 80, 6),
        r#"
┌ relocs: 10; 2 applied, 5 kept, 2 dropped ────────────────────────────────────┐
│#6   .debug_frame+0xbc    R_CUDA_UNUSED_CLEAR64  wf+0x0           dropped #122│
│#7   .debug_frame+0xb4    R_CUDA_64              wf+0x0           kept #123   │
│#8   .debug_frame+0xac    R_CUDA_64              .debug_frame+0x0 applied #124│
│#9   .debug_frame+0x114   R_CUDA_64              .debug_frame+0x0 pending     │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
    snap(
        "patch_applied",
        &pane(&mut a, PaneKind::Patch, 80, 8),
        r#"
┌ patch: relocation #8 ────────────────────────────────────────────────────────┐
│#8 R_CUDA_64 at .debug_frame+0xac against .debug_frame+0x0 (from a.cubin)     │
│applied at #124: S = 0x68, A = 0x0, S + A = 0x68                              │
│bits [0, 64) ← S + A: 0x0 → 0x68                                              │
│bit 63       55       47       39       31       23       15       7          │
│was 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000   │
│now 00000000 00000000 00000000 00000000 00000000 00000000 00000000 01101000   │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
    // The field's bits are highlighted: red before, green after.
    let buf = pane_buf(&mut a, PaneKind::Patch, 80, 8);
    assert_eq!(buf[(5, 5)].fg, Color::Red);
    assert_eq!(buf[(5, 6)].fg, Color::Green);
    a.press("r");
    snap(
        "patch_stepped_back",
        &pane(&mut a, PaneKind::Patch, 80, 8),
        r#"
┌ patch: relocation #8 ────────────────────────────────────────────────────────┐
│#8 R_CUDA_64 at .debug_frame+0xac against .debug_frame+0x0 (from a.cubin)     │
│not handled yet: A = 0x0; the bits as they are now                            │
│descriptor: [0, 64) ← S + A                                                   │
│word +0xac: 0x0000000000000000                                                │
│bit 63       55       47       39       31       23       15       7          │
│now 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000   │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
}

#[test]
fn pane_patch_of_an_instruction_field_with_two_actions() {
    let mut a = app("const_bank_sm90");
    a.run_command("break reloc section=.text.k_const offset=0x90");
    // The breakpoint stops where the merge translates it, then where the
    // relocation phase applies it.
    a.run_command("continue");
    assert!(a.message.contains("Breakpoint 1"), "{}", a.message);
    a.run_command("continue");
    assert!(a.message.contains("Breakpoint 1"), "{}", a.message);
    let t = pane(&mut a, PaneKind::Patch, 80, 10);
    snap(
        "patch_const_field",
        &t,
        r#"
┌ patch: relocation #1 ────────────────────────────────────────────────────────┐
│#1 R_CUDA_CONST_FIELD21_38 at .text.k_const+0x90 against c_coeffs+0x8 (from ke│
│applied at #105: S = 0x18, A = 0x8, S + A = 0x20                              │
│bits [38, 54) ← S + A: 0x0 → 0x20                                             │
│bits [54, 59) ← section type code: 0x3 → 0x3                                  │
│bit 63       55       47       39       31       23       15       7          │
│was 00000000 11000000 00000000 00000000 00000000 00000100 01111010 10111001   │
│now 00000000 11000000 00001000 00000000 00000000 00000100 01111010 10111001   │
│                                                                              │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
}

#[test]
fn pane_uft_slots() {
    let mut a = app("uft_uidx_reorder_sm90");
    a.run_command("goto end");
    let t = pane(&mut a, PaneKind::Uft, 100, 10);
    assert!(t.contains(".nv.uft"), "{t}");
    assert!(t.contains("slot"), "{t}");
    snap(
        "uft",
        &t,
        r#"
┌ uft: 8 rows ─────────────────────────────────────────────────────────────────────────────────────┐
│[1] .nv.uft size 0x100                                                                            │
│[4] .nv.uft.entry size 0x40                                                                       │
│#34 read index a.uidx: uft window 0x100 (2 records), udt window 0x0 (0 records)                   │
│#35 .nv.uft entry 0: __cuda_uf_stub_f0                                                            │
│#36 .nv.uft entry 1: __cuda_uf_stub_f1                                                            │
│#37 .nv.uft slot 0x0 ← __cuda_uf_stub_f1 (was 0x0, 0x80 bytes) uuid 2222000000000002:bbbb000000000│
│#38 .nv.uft slot 0x80 ← __cuda_uf_stub_f0 (was 0x0, 0x80 bytes) uuid 1111000000000001:aaaa00000000│
│#39 rebuilt .nv.uft (0x100 bytes)                                                                 │
└──────────────────────────────────────────────────────────────────────────────────────────────────┘
"#,
    );
}

#[test]
fn pane_bindless_bitmask_per_function() {
    let mut a = app("texref_helper_sm90");
    a.run_command("goto end");
    snap(
        "bindless",
        &pane(&mut a, PaneKind::Bindless, 90, 12),
        r#"
┌ bindless ──────────────────────────────────────────────────────────────────────────────┐
│table at constant bank 0 +0x220, 4 slot(s); bits T texture S sampler U surface          │
│  slot +0x220 Surface surf_out                                                          │
│  slot +0x224 Texture tex_a                                                             │
│  slot +0x228 Surface surf_a                                                            │
│  slot +0x22c Texture tex_b                                                             │
│bitmask per function                                                                    │
│  [T··] sample_helper                                                                   │
│  [T·U] k_tex → .nv.constant0.k_tex                                                     │
│  [T··] k_tex2 → .nv.constant0.k_tex2                                                   │
│                                                                                        │
└────────────────────────────────────────────────────────────────────────────────────────┘
"#,
    );
}

#[test]
fn pane_events_breakpoints_output() {
    let mut a = app(WEAK);
    for _ in 0..5 {
        a.press("s");
    }
    snap(
        "events",
        &pane(&mut a, PaneKind::Events, 80, 7),
        r#"
┌ events: 5 of 5 ──────────────────────────────────────────────────────────────┐
│   #0 [read] phase read starts                                                │
│   #1 [read] input #0 k.cubin: sm_90 cubin, file k.cubin                      │
│   #2 [read] input #1 a.cubin: sm_90 cubin, file a.cubin                      │
│   #3 [read] input #2 b.cubin: sm_90 cubin, file b.cubin                      │
│=> #4 [read] phase read ends                                                  │
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
    a.run_command("break weak");
    a.run_command("break reloc R_CUDA_64");
    a.run_command("disable 2");
    snap(
        "breakpoints",
        &pane(&mut a, PaneKind::Breakpoints, 40, 4),
        r#"
┌ breakpoints: 2 ──────────────────────┐
│1 y weak (0 hits)                     │
│2 n reloc R_CUDA_64 (0 hits)          │
└──────────────────────────────────────┘
"#,
    );
    a.run_command("info inputs");
    snap(
        "output",
        &pane(&mut a, PaneKind::Output, 80, 6),
        r#"
┌ output ──────────────────────────────────────────────────────────────────────┐
│(culdb) info inputs                                                           │
│#0   k.cubin                  sm_90 virtual sm_90 e_flags 0x6005a04 file k.cub│
│#1   a.cubin                  sm_90 virtual sm_90 e_flags 0x6005a04 file a.cub│
│#2   b.cubin                  sm_90 virtual sm_90 e_flags 0x6005a04 file b.cub│
└──────────────────────────────────────────────────────────────────────────────┘
"#,
    );
}

// ---- whole screens at 80x24

#[test]
fn screen_weak_tab_at_the_breakpoint_80x24() {
    let mut a = at_weak_decision(WEAK);
    a.select_tab("weak");
    snap(
        "screen_weak",
        &screen(&mut a, 80, 24),
        r#"
culdb  1:overview  2:merge  3:weak  4:relocations  5:tables  6:layout  7:size
┌ weak: 1 so far; wf ──────────────────────────────────────────────────────────┐
│#80 -11     existing (winner)                incoming                         │
│input       #1 a.cubin                       #2 b.cubin                       │
│binding     weak                             weak                             │
│registers   24                               75                               │
│PTX target  sm_90                            sm_90                            │
│size        0x200                            0x500                            │
│rule        FewerRegisters: the definition using fewer registers wins         │
│winner      existing: a.cubin (input #1)                                      │
└──────────────────────────────────────────────────────────────────────────────┘
┌ symbols: 15 (4 local, 11 global) ──────────┐┌ events: 81 of 81 ──────────────┐
│   idx bind   input      regs name          ││   #75 [merge] input #2 symbol [│
│    -7 WEAK   k.cubin         __UFT_END     ││   #76 [merge] input #2 symbol [│
│    -8 WEAK   k.cubin         __UDT_END     ││   #77 [merge] input #2 symbol [│
│    -9 WEAK   k.cubin         .nv.reserved… ││   #78 [merge] input #2 symbol [│
│   -10 GLOBAL k.cubin      24 k_weak        ││   #79 [merge] input #2 symbol [│
│   -11 WEAK   a.cubin      24 wf            ││=> #80 [merge] weak decision for│
└────────────────────────────────────────────┘└────────────────────────────────┘
#80 [merge] weak decision for wf: existing weak wf in a.cubin (input #1, 24
registers, virtual sm_90) vs incoming weak wf in b.cubin (input #2, 75
registers, virtual sm_90): the definition using fewer registers wins; winner:
a.cubin, discarded: b.cubin
Breakpoint 1 (weak)
"#,
    );
}

#[test]
fn every_tab_draws_at_80x24_and_smaller() {
    let mut a = at_weak_decision(WEAK);
    a.run_command("goto end");
    for t in 0..a.views.len() {
        a.tab = t;
        let s = screen(&mut a, 80, 24);
        assert!(s.contains("1:overview"), "{s}");
        assert!(s.lines().count() == 24);
        for (w, h) in [(40, 12), (20, 6), (10, 3), (1, 1)] {
            screen(&mut a, w, h);
        }
    }
}

// ---- keys

#[test]
fn keys_move_the_session_like_a_debugger() {
    let mut a = app(WEAK);
    a.press("s");
    assert_eq!(a.session.position(), 1);
    a.press("n");
    assert!(a.session.position() > 1);
    a.press("f");
    let after_finish = a.session.position();
    assert!(screen(&mut a, 80, 24).contains("phase read ends"));
    a.press("r");
    assert_eq!(a.session.position(), after_finish - 1);
    a.press("c");
    assert!(a.session.at_end());
    assert!(a.message.contains("The link finished"), "{}", a.message);
    a.press("R");
    assert_eq!(a.session.position(), 0);
    a.press("q");
    assert!(a.quit);
}

#[test]
fn b_sets_a_breakpoint_on_the_selected_item_of_each_pane() {
    let mut a = app(WEAK);
    a.run_command("goto end");
    // symbols: search for wf, b.
    assert!(a.focus_pane(PaneKind::Symbols));
    a.press("/");
    a.type_text("wf");
    a.press("Enter");
    a.press("b");
    // Locals come first: the section symbol of .text.wf; `/` Enter repeats the search.
    assert!(a.message.contains("symbol .text.wf"), "{}", a.message);
    a.press("/");
    a.press("Enter");
    a.press("b");
    assert!(a.message.contains("Breakpoint 2: symbol wf"), "{}", a.message);
    // relocations: the selected one.
    assert!(a.select_tab("relocations"));
    assert!(a.focus_pane(PaneKind::Relocs));
    a.press("Home");
    a.press("b");
    assert!(
        a.message.contains("reloc section=.text.k_weak offset=0x70"),
        "{}",
        a.message
    );
    // weak decisions.
    assert!(a.select_tab("weak"));
    assert!(a.focus_pane(PaneKind::Weak));
    a.press("b");
    assert!(a.message.contains("weak wf"), "{}", a.message);
    // events: a phase start.
    assert!(a.select_tab("overview"));
    assert!(a.focus_pane(PaneKind::Events));
    a.press("Home");
    a.press("b");
    assert!(a.message.contains("phase read"), "{}", a.message);
    // breakpoints: b disables, d deletes.
    assert!(a.focus_pane(PaneKind::Breakpoints));
    a.press("Home");
    a.press("b");
    assert!(!a.session.breakpoints()[0].enabled);
    a.press("d");
    assert_eq!(a.session.breakpoints().len(), 4);
}

#[test]
fn command_line_runs_the_command_language_with_history() {
    let mut a = app(WEAK);
    a.press(":");
    a.type_text("break weak");
    assert_eq!(a.mode, Mode::Command("break weak".into()));
    assert!(screen(&mut a, 80, 24).contains(":break weak"));
    a.press("Enter");
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(a.session.breakpoints().len(), 1);
    assert!(a.message.contains("Breakpoint 1: weak"));
    // A multi-line answer opens over the panes; any key closes it.
    a.press(":");
    a.type_text("info breakpoints");
    a.press("Enter");
    assert!(a.popup.is_some());
    assert!(screen(&mut a, 80, 24).contains("Num  Enb  Hits  What"));
    a.press("Esc");
    assert!(a.popup.is_none());
    // Up walks the history.
    a.press(":");
    a.press("Up");
    assert_eq!(a.mode, Mode::Command("info breakpoints".into()));
    a.press("Up");
    assert_eq!(a.mode, Mode::Command("break weak".into()));
    a.press("Esc");
    // Errors are messages.
    a.run_command("frobnicate");
    assert!(a.message_is_error);
    // Moving commands work as keys do.
    a.run_command("continue");
    assert!(a.message.contains("Breakpoint 1 (weak)"));
    assert!(a.output.contains("rule: FewerRegisters"), "{}", a.output);
}

#[test]
fn search_selects_the_next_match_and_says_when_none() {
    let mut a = app(WEAK);
    a.run_command("goto end");
    assert!(a.focus_pane(PaneKind::Events));
    a.search("weak decision");
    assert!(!a.message_is_error, "{}", a.message);
    let t = pane(&mut a, PaneKind::Events, 120, 5);
    assert!(t.contains("weak decision for wf"), "{t}");
    a.search("no such thing anywhere");
    assert!(a.message_is_error);
    assert!(a.message.contains("not found"));
    // Sections: a symbol name opens its section and contribution.
    assert!(a.focus_pane(PaneKind::Sections));
    a.search("wf");
    let t = pane(&mut a, PaneKind::Sections, 60, 10);
    assert!(t.contains("> ▶ [4] .text.wf"), "{t}");
}

#[test]
fn tab_shift_tab_tabs_help_and_mouse() {
    let mut a = app(WEAK);
    let n = a.panes().len();
    assert_eq!(a.focus, 0);
    a.press("Tab");
    assert_eq!(a.focus, 1);
    a.press("BackTab");
    a.press("BackTab");
    assert_eq!(a.focus, n - 1);
    a.press("3");
    assert_eq!(a.view().title, "weak");
    a.press("]");
    assert_eq!(a.view().title, "relocations");
    a.press("[");
    a.press("[");
    assert_eq!(a.view().title, "merge");
    a.press("?");
    assert_eq!(a.mode, Mode::Help);
    assert!(screen(&mut a, 80, 24).contains("reverse-step"));
    a.press("x");
    assert_eq!(a.mode, Mode::Normal);
    // A click focuses the pane under it.
    screen(&mut a, 80, 24);
    a.on_mouse(crossterm::event::MouseEvent {
        kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
        column: 40,
        row: 20,
        modifiers: crossterm::event::KeyModifiers::NONE,
    });
    assert_eq!(a.focused(), Some(PaneKind::Events));
}

// ---- presets

#[test]
fn shipped_presets_parse_and_name_their_panes() {
    let views = view::load_all(None).unwrap();
    let titles: Vec<&str> = views.iter().map(|v| v.title.as_str()).collect();
    for t in ["overview", "merge", "weak", "relocations", "tables"] {
        assert!(titles.contains(&t), "{titles:?}");
    }
    // Every pane shows in some preset.
    let all: Vec<PaneKind> = views
        .iter()
        .flat_map(|v| view::panes(&v.layout))
        .map(|p| p.kind)
        .collect();
    for k in PaneKind::ALL {
        assert!(all.contains(&k), "{k:?} in no preset");
    }
    // The files in views/ are the embedded ones.
    let from_dir = view::load_all(Some(&common::root().join("views"))).unwrap();
    assert_eq!(from_dir, views);
}

#[test]
fn malformed_preset_names_file_line_and_column() {
    let e = view::parse(
        "views/bad.ron",
        "(\n    title: \"x\",\n    layout: Pane(kind: symbolz),\n)",
    )
    .unwrap_err();
    assert!(e.starts_with("views/bad.ron:3:"), "{e}");
    assert!(e.contains("symbolz"), "{e}");
    let e = view::parse("v.ron", "(title: \"x\", layout: Rows([]))").unwrap_err();
    assert!(e.contains("at least one part"), "{e}");
    let e = view::parse("v.ron", "(title: \"x\", layout: Pane(kind: symbols), colour: 1)").unwrap_err();
    assert!(e.starts_with("v.ron:1:"), "{e}");

    let dir = std::env::temp_dir().join(format!("culdb-tui-views-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mine.ron"),
        "(\n  title: \"mine\",\n  layout: Columns([\n    (Percent(50), Pane(kind: weak)),\n    (Percent(50) Pane(kind: events)),\n  ]),\n)\n",
    )
    .unwrap();
    let opts = TuiOptions {
        views_dir: Some(dir.clone()),
        ..Default::default()
    };
    let e = culdb::tui::prepare(session(WEAK), &opts)
        .err()
        .expect("malformed preset refused");
    assert!(e.contains("mine.ron:5:"), "{e}");
    // Fixed, it adds a tab that --view picks.
    std::fs::write(
        dir.join("mine.ron"),
        "(title: \"mine\", layout: Columns([(Percent(50), Pane(kind: weak)), (Percent(50), Pane(kind: events))]))",
    )
    .unwrap();
    let opts = TuiOptions {
        views_dir: Some(dir.clone()),
        view: Some("mine".into()),
        startup_commands: vec!["break weak".into(), "continue".into()],
        ..Default::default()
    };
    let mut a = culdb::tui::prepare(session(WEAK), &opts).unwrap();
    assert_eq!(a.view().title, "mine");
    assert!(screen(&mut a, 80, 24).contains("FewerRegisters"));
    let _ = std::fs::remove_dir_all(&dir);
    // An unknown view is an error listing the known ones.
    let opts = TuiOptions {
        view: Some("nope".into()),
        ..Default::default()
    };
    let e = culdb::tui::prepare(session(WEAK), &opts).err().unwrap();
    assert!(e.contains("no view `nope`") && e.contains("overview"), "{e}");
}

// ---- large links

#[test]
fn lists_ask_only_for_their_visible_rows() {
    let mut st = culdb::tui::list::ListState {
        selected: 50_000,
        ..Default::default()
    };
    let area = Rect::new(0, 0, 40, 20);
    let mut buf = Buffer::empty(area);
    let mut asked = Vec::new();
    culdb::tui::list::draw(&mut buf, area, 100_000, &mut st, true, |i| {
        asked.push(i);
        ratatui::text::Line::from(format!("row {i}"))
    });
    assert_eq!(asked.len(), 20);
    assert!(asked.contains(&50_000));
    assert!(text(&buf).contains("row 50000"));
}

#[test]
fn enter_explains_the_selected_item_or_travels_to_an_event() {
    let mut a = at_weak_decision(WEAK);
    assert!(a.focus_pane(PaneKind::Symbols));
    a.press("Enter");
    let p = a.popup.clone().expect("why opens over the panes");
    assert_eq!(p.title, "why wf");
    assert!(p.text.contains("rule: FewerRegisters"), "{}", p.text);
    a.press("Esc");
    assert!(a.focus_pane(PaneKind::Events));
    a.press("Home");
    a.press("Enter");
    assert_eq!(a.session.position(), 1);
    a.run_command("goto end");
    assert!(a.select_tab("relocations"));
    assert!(a.focus_pane(PaneKind::Relocs));
    a.press("End");
    a.press("Enter");
    let p = a.popup.clone().expect("explain opens over the panes");
    assert!(p.text.contains("S = ") && p.text.contains("A = "), "{}", p.text);
}

// ---- a stop brings its pane forward

#[test]
fn a_stop_brings_forward_the_pane_of_its_event() {
    // From the overview tab, a weak breakpoint's stop shows the weak pane.
    let mut a = at_weak_decision(WEAK);
    let shown = &a.views[a.tab];
    let panes = culdb::tui::view::panes(&shown.layout);
    assert_eq!(panes[a.focus].kind, PaneKind::Weak, "tab {}", shown.title);
    // A relocation's stop shows the patch pane, at 80x24 too.
    a.run_command("break reloc section=.debug_frame offset=0xac");
    a.press("c");
    let shown = &a.views[a.tab];
    let panes = culdb::tui::view::panes(&shown.layout);
    assert_eq!(panes[a.focus].kind, PaneKind::Patch, "tab {}", shown.title);
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("Breakpoint 2 (reloc"), "{s}");
}
