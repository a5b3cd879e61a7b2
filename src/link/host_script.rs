//! `--gen-host-linker-script=lcs-aug|lcs-abs` (`nvcc --host-linker-script`):
//! the host linker script nvlink writes instead of linking, placing the
//! sections that carry device code in the host executable.
//!
//! What nvlink 13.5 writes (compared byte for byte, tests/host_script.rs):
//!
//! * `lcs-aug`: a `SECTIONS` block naming `.nvFatBinSegment`,
//!   `__nv_relfatbin` and `.nv_fatbin`, to augment the default script;
//! * `lcs-abs`: the host linker's default script, as `HOST -Wl,--verbose`
//!   prints it between its `=====` lines (HOST is `--host-ccbin`, default
//!   `gcc`; where HOST cannot be run, `ld --verbose`'s, which is the
//!   script for executables that are not position-independent), followed
//!   by the same block.
//!
//! Without `-o` the script goes to standard output.

use std::process::Command;

use super::options::HostLinkerScript;

/// The block both kinds end with.
pub const AUGMENT: &str = "SECTIONS\n{\n\t.nvFatBinSegment : { *(.nvFatBinSegment) }\n\t__nv_relfatbin : { *(__nv_relfatbin) } \n\t.nv_fatbin : { *(.nv_fatbin) }\n}\n";

/// The script of `kind`, asking `host` (a C compiler driver) for the
/// default one where needed.
pub fn script(kind: HostLinkerScript, host: &str) -> Result<String, String> {
    match kind {
        HostLinkerScript::LcsAug => Ok(AUGMENT.to_string()),
        HostLinkerScript::LcsAbs => {
            let ask = |program: &str, arg: &str| {
                let out = Command::new(program).arg(arg).output().ok()?;
                default_script(&String::from_utf8_lossy(&out.stdout))
            };
            ask(host, "-Wl,--verbose")
                .or_else(|| ask("ld", "--verbose"))
                .map(|s| s + AUGMENT)
                .ok_or_else(|| {
                    format!("neither '{host} -Wl,--verbose' nor 'ld --verbose' printed a default linker script")
                })
        }
    }
}

/// The default script in `ld --verbose`'s output: the lines between its
/// two lines of `=`.
pub fn default_script(verbose: &str) -> Option<String> {
    let rule = |l: &str| l.len() >= 10 && l.bytes().all(|b| b == b'=');
    let mut lines = verbose.lines();
    lines.by_ref().find(|l| rule(l))?;
    let mut out = String::new();
    for l in lines {
        if rule(l) {
            return Some(out);
        }
        out.push_str(l);
        out.push('\n');
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_script_is_what_the_rules_enclose() {
        let verbose = "GNU ld 2.42\n  Supported emulations:\n   elf_x86_64\nusing internal linker script:\n==================================================\n/* Script */\nSECTIONS\n{\n}\n\n\n==================================================\nld: no input files\n";
        assert_eq!(default_script(verbose).unwrap(), "/* Script */\nSECTIONS\n{\n}\n\n\n");
        assert_eq!(default_script("no script here\n"), None);
        assert_eq!(AUGMENT.len(), 130);
    }
}
