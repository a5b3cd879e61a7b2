//! The architecture database against nvlink 13.5's recorded behaviour
//! (tests/data/arch, written by scripts/gen-arch-matrix; no CUDA tools needed).

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use culdb::arch::{self, InputArch, Kind, Suffix};
use culdb::link::diag::{Diagnostic, Severity};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/arch")
        .join(name)
}

fn rows(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data(name)).expect("golden file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// `nvlink fatal   : text` lines as (severity, text).
fn parse_stderr(field: &str) -> Vec<(Severity, String)> {
    if field == "-" {
        return Vec::new();
    }
    field
        .split(" | ")
        .map(|line| {
            let rest = line
                .strip_prefix("nvlink ")
                .unwrap_or_else(|| panic!("no tool prefix: {line}"));
            let (sev, text) = rest.split_once(" : ").unwrap_or_else(|| panic!("no severity: {line}"));
            let sev = match sev.trim_end() {
                "info" => Severity::Info,
                "warning" => Severity::Warning,
                "error" => Severity::Error,
                "fatal" => Severity::Fatal,
                other => panic!("unknown severity {other}"),
            };
            (sev, text.to_string())
        })
        .collect()
}

fn pairs(diags: &[Diagnostic]) -> Vec<(Severity, String)> {
    diags.iter().map(|d| (d.severity, d.text.clone())).collect()
}

/// Each golden input's arch, read from the committed cubin as culdb reads it.
fn input_arches() -> HashMap<String, InputArch> {
    let mut out = HashMap::new();
    for entry in std::fs::read_dir(data("inputs")).expect("inputs folder") {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let cubin = culdb::cubin::read::parse(&bytes).expect("golden input parses");
        let label = path.file_stem().unwrap().to_str().unwrap().to_string();
        out.insert(label, InputArch::of_cubin(&cubin));
    }
    out
}

/// What culdb predicts for one link: (status, diagnostics).
fn predict(target: &arch::Profile, input: InputArch) -> (i32, Vec<(Severity, String)>) {
    match arch::check_input(target, "lib.cubin", input) {
        Ok(warnings) => (0, pairs(&warnings)),
        Err(e) => (e.exit_status(), pairs(&e.diagnostics())),
    }
}

#[test]
fn matrix_verdicts_and_messages_match_nvlink() {
    let inputs = input_arches();
    let rows = rows("matrix.tsv");
    assert!(rows.len() > 2000, "matrix too small: {}", rows.len());
    let mut failures = Vec::new();
    for r in &rows {
        let [input, target, status, output, stderr] = &r[..] else {
            panic!("bad row {r:?}")
        };
        let arch_in = *inputs
            .get(input)
            .unwrap_or_else(|| panic!("no input cubin for {input}"));
        let t = arch::lookup(target).unwrap_or_else(|| panic!("nvlink accepts {target} but lookup does not"));
        let want = (status.parse::<i32>().unwrap(), parse_stderr(stderr));
        let got = predict(t, arch_in);
        if got != want {
            failures.push(format!("{input} -> {target}: nvlink {want:?}, culdb {got:?}"));
            continue;
        }
        // Output file: sm_ targets write one with the target's flags; compute_ none.
        match (got.0, t.kind) {
            (0, Kind::Real) => {
                let (flags, acc) = output
                    .split_once("/acc=")
                    .unwrap_or_else(|| panic!("{input} -> {target}: {output}"));
                let flags = u32::from_str_radix(flags.trim_start_matches("0x"), 16).unwrap();
                if flags != t.output_e_flags(arch_in.mercury) {
                    failures.push(format!("{input} -> {target}: output flags {flags:#x}"));
                }
                if acc != "-" && (acc == "1") != t.is_accelerated() {
                    failures.push(format!("{input} -> {target}: output acc={acc}"));
                }
            }
            _ => {
                if output != "-" {
                    failures.push(format!("{input} -> {target}: unexpected output {output}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn matrix_covers_every_profile_and_input() {
    let rows = rows("matrix.tsv");
    let targets: BTreeSet<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    let names: BTreeSet<&str> = arch::all().iter().map(|p| p.name).collect();
    assert_eq!(targets, names, "the database must hold exactly nvlink's --arch values");
    let inputs: BTreeSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    for p in arch::all().iter().filter(|p| p.kind == Kind::Real) {
        assert!(inputs.contains(p.name), "no {} input in the matrix", p.name);
    }
    // Every input was linked into every target.
    assert_eq!(rows.len(), inputs.len() * targets.len());
}

#[test]
fn input_arch_reads_ptxas_cubins() {
    let inputs = input_arches();
    for p in arch::all().iter().filter(|p| p.kind == Kind::Real) {
        let i = inputs[p.name];
        assert_eq!(i.sm, p.sm, "{}", p.name);
        assert_eq!(i.mercury, p.is_mercury(), "{}", p.name);
        // `a` is recorded (in .nv.compat); `f` is not recorded at all.
        assert_eq!(i.accelerated, p.suffix == Suffix::A, "{}", p.name);
        assert_eq!(i.suffix(), if p.suffix == Suffix::A { Suffix::A } else { Suffix::None });
    }
    assert!(inputs["sm_90+acc"].accelerated && !inputs["sm_90a-acc"].accelerated);
    assert!(!inputs["sm_100-merc"].mercury);
}

#[test]
fn option_messages_match_nvlink() {
    let inputs = input_arches();
    let sm90 = inputs["sm_90"];
    let mut checked = 0;
    for r in rows("options.tsv") {
        let [args, status, stderr] = &r[..] else {
            panic!("bad row {r:?}")
        };
        let want = parse_stderr(stderr);
        let words: Vec<&str> = if args == "-" {
            Vec::new()
        } else {
            args.split(' ').collect()
        };
        // The last --arch value wins (nvlink warns about a differing repeat;
        // that warning belongs to the option parser and is skipped here).
        let mut value = None;
        let mut it = words.iter();
        while let Some(w) = it.next() {
            if let Some(v) = w.strip_prefix("-arch=").or_else(|| w.strip_prefix("--arch=")) {
                value = Some(v.to_string());
            } else if *w == "-arch" || *w == "--arch" {
                value = it.next().map(|v| v.to_string());
            }
        }
        let want: Vec<_> = want
            .into_iter()
            .filter(|(_, t)| !t.starts_with("incompatible redefinition"))
            .collect();
        let got = match value {
            None => (1, vec![(Severity::Fatal, arch::missing_arch_message())]),
            // The option parser refuses a name the database lacks (tests/link_options.rs).
            Some(v) => match arch::lookup(&v) {
                None => (
                    1,
                    vec![(Severity::Fatal, format!("Value '{v}' is not defined for option 'arch'"))],
                ),
                Some(t) => predict(t, sm90),
            },
        };
        assert_eq!(got, (status.parse().unwrap(), want), "nvlink {args}");
        checked += 1;
    }
    assert!(checked >= 15);
}

#[test]
fn corpus_architecture_cases() {
    // tests/corpus/README.md, "Architectures".
    let real = |sm| InputArch {
        sm,
        accelerated: false,
        mercury: sm >= 100,
    };
    let ok = |t: &str, i: InputArch| arch::check_input(arch::lookup(t).unwrap(), "lib.cubin", i).is_ok();
    assert!(ok("sm_86", real(80)) && ok("sm_90a", real(90)) && ok("sm_103", real(100)));
    for (sm, t) in [(80, "sm_90"), (90, "sm_80"), (86, "sm_80"), (120, "sm_100")] {
        let e = arch::check_input(arch::lookup(t).unwrap(), "lib.cubin", real(sm)).unwrap_err();
        assert_eq!(
            e.text,
            format!("Input file 'lib.cubin' arch does not match target '{t}'")
        );
        assert_eq!((e.severity, e.exit_status()), (Severity::Fatal, 1));
    }
    let e = arch::check_input(
        arch::lookup("sm_90").unwrap(),
        "lib.cubin",
        InputArch {
            sm: 90,
            accelerated: true,
            mercury: false,
        },
    )
    .unwrap_err();
    assert_eq!(
        e.diagnostic().line(),
        "culdb fatal   : cannot link accelerated arch to non-accelerated"
    );
}

#[test]
fn profile_table_is_consistent() {
    for p in arch::all() {
        let prefix = match p.kind {
            Kind::Real => "sm_",
            Kind::Virtual => "compute_",
            Kind::Lto => "lto_",
        };
        assert_eq!(p.name, format!("{prefix}{}{}", p.sm, p.suffix.letter()));
        assert_eq!(p.compute, format!("compute_{}{}", p.sm, p.suffix.letter()));
        assert_eq!(p.compute_profile().kind, Kind::Virtual);
        assert_eq!(p.real_profile().name, format!("sm_{}{}", p.sm, p.suffix.letter()));
        // __CUDA_ARCH__: sm*10, with the suffix letter in place of the last digit.
        let want = match p.suffix {
            Suffix::None => format!("{}", p.sm * 10),
            s => format!("{}{}0", p.sm, s.letter()),
        };
        assert_eq!(p.cuda_arch, want, "{}", p.name);
        assert_eq!(p.is_mercury(), p.sm >= 100);
        // Suffix variants share their base's ISA class.
        assert_eq!(p.isa_class, p.base().isa_class);
        assert_eq!(arch::find(p.kind, p.sm, p.suffix).map(|q| q.name), Some(p.name));
    }
    let class = |n: &str| arch::lookup(n).unwrap().isa_class;
    assert_eq!(
        [
            class("sm_75"),
            class("sm_86"),
            class("sm_89"),
            class("sm_90a"),
            class("sm_121f"),
            class("sm_107")
        ],
        ["Turing", "Ampere", "Ada", "Hopper", "Blackwell", "Rubin"]
    );
}
