//! `--gen-host-linker-script` (`nvcc --host-linker-script`): the script
//! nvlink writes instead of linking (`link::host_script`).
//! tests/data/host_script/lcs-aug.lds is what nvlink 13.5 wrote for
//! `-m64 --gen-host-linker-script=lcs-aug -o X --host-ccbin gcc`; its
//! `lcs-abs` script was `gcc -Wl,--verbose`'s default script followed by
//! those bytes (9,700 + 130 bytes on the development machine).

mod common;

use std::process::Command;

use common::*;

fn script(kind: &str, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(["link", "-m64", &format!("--gen-host-linker-script={kind}")])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_augmenting_script_is_nvlinks() {
    let want = std::fs::read(root().join("tests/data/host_script/lcs-aug.lds")).unwrap();
    let dir = scratch("host-script-aug");
    let out = dir.join("x.lds");
    let o = script("lcs-aug", &["-o", out.to_str().unwrap(), "--host-ccbin", "gcc"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&out).unwrap(), want);
    // Without -o, on standard output.
    let o = script("lcs-aug", &[]);
    assert!(o.status.success());
    assert_eq!(o.stdout, want);
}

#[test]
fn the_absolute_script_is_the_hosts_default_then_the_block() {
    // A host compiler driver that prints a default script as GNU ld does.
    let dir = scratch("host-script-abs");
    let cc = dir.join("fakecc");
    std::fs::write(
        &cc,
        "#!/bin/sh\nprintf 'GNU ld\\nusing internal linker script:\\n==================================================\\n/* default */\\nSECTIONS\\n{\\n}\\n\\n\\n==================================================\\n'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.join("x.lds");
    let o = script(
        "lcs-abs",
        &["-o", out.to_str().unwrap(), "--host-ccbin", cc.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let aug = std::fs::read_to_string(root().join("tests/data/host_script/lcs-aug.lds")).unwrap();
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        format!("/* default */\nSECTIONS\n{{\n}}\n\n\n{aug}")
    );
}
