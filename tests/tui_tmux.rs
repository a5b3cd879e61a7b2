//! `culdb tui` end to end: the real binary in a detached tmux session of
//! 80x24, driven with send-keys and read with capture-pane, through a
//! step, a breakpoint (the weak decision, then a relocation whose field
//! bits change) and a reverse step. Skipped, with a message, when tmux is
//! not installed.

mod common;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

const CASE: &str = "weak_func_regs_unequal_fewer_first_sm90";

/// A tmux server on its own socket, killed when dropped (also on failure).
struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "culdb"]).stdout).into_owned()
    }

    /// Types `text` literally.
    fn type_text(&self, text: &str) {
        assert!(self.run(&["send-keys", "-t", "culdb", "-l", text]).status.success());
    }

    /// Sends a key by tmux's name (`Enter`, `Escape`, `BTab`).
    fn key(&self, key: &str) {
        assert!(self.run(&["send-keys", "-t", "culdb", key]).status.success());
    }

    /// Waits until the screen shows every one of `what`; the screen on timeout.
    fn wait_for(&self, what: &[&str]) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let s = self.screen();
            if what.iter().all(|w| s.contains(w)) {
                return s;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what:?}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let path = self.run(&["display-message", "-p", "#{socket_path}"]).stdout;
        let _ = self.run(&["kill-server"]);
        let path = String::from_utf8_lossy(&path).trim().to_string();
        if !path.is_empty() {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[test]
fn tui_in_tmux_steps_breaks_and_reverse_steps() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let dir = common::root().join("tests/corpus").join(CASE);
    let args = std::fs::read_to_string(dir.join("link.args")).unwrap();
    let t = Tmux {
        socket: format!("culdb-tui-test-{}", std::process::id()),
    };
    let cmd = format!(
        "'{}' tui {}; echo EXIT=$?; sleep 600",
        env!("CARGO_BIN_EXE_culdb"),
        args.trim()
    );
    let out = t.run(&[
        "new-session",
        "-d",
        "-s",
        "culdb",
        "-x",
        "80",
        "-y",
        "24",
        "-c",
        dir.to_str().unwrap(),
        &cmd,
    ]);
    assert!(
        out.status.success(),
        "tmux new-session: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The panes at the start, 80x24.
    t.wait_for(&["1:overview", "sections", "symbols", "events"]);

    // A step: the first event.
    t.key("s");
    t.wait_for(&["#0 [read] phase read starts"]);

    // A breakpoint from the command line, then continue to it.
    t.type_text(":break weak");
    t.key("Enter");
    t.wait_for(&["Breakpoint 1: weak"]);
    t.key("c");
    t.wait_for(&["Breakpoint 1 (weak)", "#80 [merge] weak decision for wf"]);
    // The weak tab: both candidates and the rule.
    t.key("3");
    let weak = t.wait_for(&["existing (winner)", "incoming", "FewerRegisters", "24", "75"]);
    println!("{weak}");

    // On to a relocation whose field bits change.
    t.type_text(":break reloc section=.debug_frame offset=0xac");
    t.key("Enter");
    t.wait_for(&["Breakpoint 2: reloc"]);
    t.key("c");
    t.wait_for(&["Breakpoint 2 (reloc"]);
    t.key("4");
    let applied = t.wait_for(&[
        "applied at #124: S = 0x68, A = 0x0, S + A = 0x68",
        "was 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
        "now 00000000 00000000 00000000 00000000 00000000 00000000 00000000 01101000",
    ]);
    println!("{applied}");

    // A reverse step: the relocation is not applied, its bits as before.
    t.key("r");
    let back = t.wait_for(&[
        "#123 [relocate]",
        "not handled yet",
        "now 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000",
    ]);
    assert!(!back.contains("01101000"), "{back}");
    println!("{back}");

    // The size tab at 80x24: before the output is built, sizes so far;
    // then at the end of the link, every byte of the output.
    t.key("7");
    t.wait_for(&["size", "the output is not built yet", "section sizes so far"]);
    t.type_text(":goto end");
    t.key("Enter");
    let size = t.wait_for(&["bytes", "code"]);
    println!("{size}");

    // q leaves with the link's exit status.
    t.key("q");
    t.wait_for(&["EXIT=0"]);
}
