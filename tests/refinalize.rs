//! sm_100+ re-finalization (`link::refinalize`): nvJitLink runs in a child
//! process, so that a crash inside it leaves the link going on with
//! ptxas's code. Skipped where no nvJitLink is installed.

mod common;

use std::process::Command;

/// The corpus case whose kernels nvlink finalizes again.
fn case() -> std::path::PathBuf {
    common::root().join("tests/corpus/refinalize_sm100")
}

fn link(dir: &std::path::Path, exe: Option<&std::path::Path>) -> (bool, String, Vec<u8>) {
    let out = dir.join("out.cubin");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_culdb"));
    cmd.current_dir(case())
        .args(["link", "--events", "-arch=sm_100", "scale.o", "-o"])
        .arg(&out)
        .env_remove("CULDB_NO_REFINALIZE");
    if let Some(exe) = exe {
        cmd.env("CULDB_EXE", exe);
    }
    let o = cmd.output().unwrap();
    let bytes = std::fs::read(&out).unwrap_or_default();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        bytes,
    )
}

#[test]
fn a_crashing_finalizer_leaves_ptxas_code() {
    if culdb::link::refinalize::available().is_err() {
        eprintln!("skipped: no nvJitLink here");
        return;
    }
    let dir = common::scratch("refinalize-crash");
    // A "culdb" for the child that dies as nvJitLink did (SIGSEGV).
    let fake = dir.join("crashing-culdb");
    std::fs::write(&fake, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
    let mut perm = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&fake, perm).unwrap();

    let (ok, events, crashed) = link(&dir, Some(&fake));
    assert!(ok, "the link failed: {events}");
    assert!(
        events.contains("keeps ptxas's code: nvJitLink's process died"),
        "no event for the crash:\n{events}"
    );
    // ptxas's code: the kernels as the object holds them, not nvlink's.
    let want = std::fs::read(case().join("expected/out.cubin")).unwrap();
    assert_ne!(crashed, want);

    // With the real culdb as the child, nvlink's bytes.
    let (ok, events, bytes) = link(&dir, None);
    assert!(ok, "the link failed: {events}");
    assert!(
        events.contains("finalized again"),
        "no function finalized again:\n{events}"
    );
    assert!(bytes == want, "differs from nvlink's output");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A copy of culdb under another name (a packaged `culdb-13.5`, a wrapper's
/// `nvlink.real`) still runs nvJitLink in a child of itself.
#[test]
fn a_renamed_culdb_still_finalizes() {
    if culdb::link::refinalize::available().is_err() {
        eprintln!("skipped: no nvJitLink here");
        return;
    }
    let dir = common::scratch("refinalize-renamed");
    let copy = dir.join("culdb-renamed");
    std::fs::copy(env!("CARGO_BIN_EXE_culdb"), &copy).unwrap();
    let out = dir.join("out.cubin");
    // Another test's child forked while the copy was open for writing
    // holds it until its exec: ETXTBSY for a moment.
    let run = || {
        Command::new(&copy)
            .current_dir(case())
            .args(["link", "--events", "-arch=sm_100", "scale.o", "-o"])
            .arg(&out)
            .env_remove("CULDB_NO_REFINALIZE")
            .env_remove("CULDB_EXE")
            .output()
    };
    let mut tries = 0;
    let o = loop {
        match run() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            r => break r.unwrap(),
        }
    };
    let events = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "the link failed: {events}");
    assert!(
        events.contains("finalized again"),
        "no function finalized again:\n{events}"
    );
    let want = std::fs::read(case().join("expected/out.cubin")).unwrap();
    assert!(std::fs::read(&out).unwrap() == want, "differs from nvlink's output");
    let _ = std::fs::remove_dir_all(&dir);
}
