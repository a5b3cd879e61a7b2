//! culdb as the device linker of real builds: `culdb toolkit DIR` makes an
//! overlay of the installed toolkit whose `bin/nvlink` is culdb; a two-file
//! `nvcc -rdc=true` program and a CMake project with separable compilation
//! built with the overlay's nvcc embed the same device image as with the
//! real toolkit (apart from `.note.nv.tkinfo`). A fake `nvlink` first on
//! PATH proves the overlay's is the one nvcc runs. Skipped where the toolkit
//! (scripts/cuda-tools.sh), a host compiler or cmake is missing. With
//! `CULDB_CAPTURE` set, the build's device link is captured and replays
//! (`culdb captured`, `culdb batch`) to the image the build embedded.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn overlay(name: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let ov = dir.join("overlay");
    let out = culdb(&["toolkit", ov.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A decoy nvlink that fails: nvcc must not find it first.
    let decoy = dir.join("decoy");
    std::fs::create_dir_all(&decoy).unwrap();
    std::fs::write(decoy.join("nvlink"), "#!/bin/sh\necho decoy nvlink ran >&2\nexit 3\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(decoy.join("nvlink"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (ov, decoy)
}

fn path_with(first: &Path) -> String {
    format!("{}:{}", first.display(), std::env::var("PATH").unwrap_or_default())
}

fn same_images(tk: &Path, a: &Path, b: &Path, work: &Path) {
    let ia = images(tk, a, &work.join("a"));
    let ib = images(tk, b, &work.join("b"));
    assert_eq!(ia.len(), ib.len(), "{ia:?} vs {ib:?}");
    assert!(!ia.is_empty());
    for (x, y) in ia.iter().zip(&ib) {
        let out = culdb(&["diff", "--strict", x.to_str().unwrap(), y.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("identical apart from") || text.contains("byte-identical"),
            "{} vs {}: {text}",
            x.display(),
            y.display()
        );
    }
}

#[test]
fn nvcc_rdc_program_links_through_culdb() {
    let Some(tk) = toolkit() else {
        eprintln!("skipped: no CUDA toolkit (scripts/cuda-tools.sh) or host compiler");
        return;
    };
    let (ov, decoy) = overlay("toolkit-nvcc");
    let work = ov.parent().unwrap().to_path_buf();
    let src = root().join("tests/data/toolkit");
    let capture = work.join("captured");
    let build = |nvcc: &Path, exe: &Path| {
        let out = Command::new(nvcc)
            .env("CULDB_CAPTURE", &capture)
            .env("PATH", path_with(&decoy))
            .args(["-arch=sm_90", "-rdc=true"])
            .arg(src.join("main.cu"))
            .arg(src.join("scale.cu"))
            .arg("-o")
            .arg(exe)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            nvcc.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    build(&ov.join("bin/nvcc"), &work.join("app_culdb"));
    // The real toolkit with the decoy first would fail: run it plainly.
    let out = Command::new(tk.join("bin/nvcc"))
        .args(["-arch=sm_90", "-rdc=true"])
        .arg(src.join("main.cu"))
        .arg(src.join("scale.cu"))
        .arg("-o")
        .arg(work.join("app_nvlink"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    same_images(
        &tk,
        &work.join("app_culdb"),
        &work.join("app_nvlink"),
        &work.join("img"),
    );
    // The captured link lists, and replays to the very image the build embedded.
    let listed = culdb(&["captured", capture.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success() && text.contains("0001"), "{text}");
    let batch = culdb(&["batch", capture.join("jobs.ron").to_str().unwrap()]);
    assert!(batch.status.success(), "{}", String::from_utf8_lossy(&batch.stderr));
    let replayed = std::fs::read(capture.join("0001/out.cubin")).unwrap();
    let embedded = images(&tk, &work.join("app_culdb"), &work.join("img-capture"));
    let embedded = std::fs::read(&embedded[0]).unwrap();
    // Byte for byte but the tool note: the replay's -L folders are the
    // capture's, and nvlink's note records the -L folders.
    let (a, b) = (
        culdb::cubin::read::parse(&embedded).unwrap(),
        culdb::cubin::read::parse(&replayed).unwrap(),
    );
    assert_eq!(culdb::diff::strict(&embedded, &a, &replayed, &b), None);
    // And it opens in the debugger by its number (the TUI takes the same path).
    let mut child = Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(["captured", capture.to_str().unwrap(), "--repl", "1"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let _ = child.stdin.take().unwrap().write_all(b"continue\n");
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("exit status 0"), "{text}");
}

#[test]
fn cmake_separable_compilation_links_through_culdb() {
    let Some(tk) = toolkit() else {
        eprintln!("skipped: no CUDA toolkit (scripts/cuda-tools.sh) or host compiler");
        return;
    };
    if !Command::new("cmake")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: cmake is not installed");
        return;
    }
    let (ov, decoy) = overlay("toolkit-cmake");
    let work = ov.parent().unwrap().to_path_buf();
    let src = root().join("tests/data/toolkit");
    let build = |nvcc: &Path, name: &str, path: &str| -> PathBuf {
        let b = work.join(name);
        let configure = Command::new("cmake")
            .env("PATH", path)
            .arg("-S")
            .arg(&src)
            .arg("-B")
            .arg(&b)
            .arg(format!("-DCMAKE_CUDA_COMPILER={}", nvcc.display()))
            .output()
            .unwrap();
        assert!(
            configure.status.success(),
            "cmake: {}",
            String::from_utf8_lossy(&configure.stderr)
        );
        let make = Command::new("cmake")
            .env("PATH", path)
            .arg("--build")
            .arg(&b)
            .output()
            .unwrap();
        assert!(
            make.status.success(),
            "cmake --build: {}{}",
            String::from_utf8_lossy(&make.stdout),
            String::from_utf8_lossy(&make.stderr)
        );
        b.join("app")
    };
    let plain = std::env::var("PATH").unwrap_or_default();
    let with_culdb = build(&ov.join("bin/nvcc"), "build-culdb", &path_with(&decoy));
    let with_nvlink = build(&tk.join("bin/nvcc"), "build-nvlink", &plain);
    same_images(&tk, &with_culdb, &with_nvlink, &work.join("img"));
}
