//! The input loader (`culdb::link::inputs`) against nvlink 13.5: every corpus
//! case's inputs, checked against cuobjdump's listings and nvlink's stderr,
//! and small synthetic cases for the rules nvlink showed (see the module doc
//! of `src/link/inputs.rs` and tests/corpus/README.md, observations 24–).
//!
//! Needs no CUDA tools. PTX inputs need a ptxas: found through CULDB_PTXAS,
//! PATH or the scripts/cuda-tools.sh folder; without one the tests check the
//! "no ptxas" diagnostic instead and say so on stderr.

mod common;

use std::path::{Path, PathBuf};

use common::root;
use culdb::cubin::read;
use culdb::link::diag::{Diagnostic, Severity};
use culdb::link::inputs::*;

// ---------------------------------------------------------------------------
// Helpers

/// What a run of the loader printed and produced.
#[derive(Debug, Default)]
struct Outcome {
    loaded: Vec<LoadedCubin>,
    /// (path, reason, warning) of every Skipped note.
    skipped: Vec<(String, String, Option<Diagnostic>)>,
    /// Everything printed, as nvlink would print it (culdb detail removed).
    lines: Vec<String>,
    fatal: Option<Diagnostic>,
    steps: usize,
}

impl Outcome {
    fn names(&self) -> Vec<&str> {
        self.loaded.iter().map(|c| c.name.as_str()).collect()
    }
    fn fatal_text(&self) -> Option<&str> {
        self.fatal.as_ref().map(|d| nvlink_text(&d.text))
    }
}

fn nvlink_line(d: &Diagnostic) -> String {
    format!("nvlink {}: {}", d.severity.padded(), nvlink_text(&d.text))
}

fn run(mut l: InputLoader) -> Outcome {
    let mut o = Outcome::default();
    while let Some(r) = l.step() {
        o.steps += 1;
        for p in l.printed() {
            o.lines.push(match p {
                Printed::Diag(d) => nvlink_line(d),
                Printed::Tool(t) => t.clone(),
            });
        }
        match r {
            Ok(notes) => {
                for n in notes {
                    match n {
                        LoadNote::Loaded(c) => o.loaded.push(c),
                        LoadNote::HostCodeOnly { path, reason } => o.skipped.push((path, reason, None)),
                        LoadNote::Lto(m) => o.skipped.push((m.name, "NVVM IR".into(), None)),
                        LoadNote::Skipped {
                            path, reason, warning, ..
                        } => {
                            if let Some(w) = &warning {
                                o.lines.push(nvlink_line(w));
                            }
                            o.skipped.push((path, reason, warning));
                        }
                    }
                }
            }
            Err(d) => {
                o.lines.push(nvlink_line(&d));
                o.fatal = Some(d);
            }
        }
    }
    assert_eq!(l.current(), l.request().args.len());
    o
}

fn request(args: &[&str], lib_paths: &[&str], target: &str, ptxas: Option<PathBuf>) -> InputRequest {
    let mut out = Vec::new();
    for a in args {
        match a.strip_prefix("-l") {
            Some(name) => out.push(InputArg::Library(name.to_string())),
            None => out.push(InputArg::File(a.to_string())),
        }
    }
    let t = target.trim_start_matches("sm_");
    let (num, suffix) = match t.chars().last() {
        Some(c @ ('a' | 'f')) => (&t[..t.len() - 1], Some(c)),
        _ => (t, None),
    };
    InputRequest {
        args: out,
        lib_paths: lib_paths.iter().map(|s| s.to_string()).collect(),
        target_sm: num.parse().unwrap(),
        target_suffix: suffix,
        ptxas,
        keep_system_libraries: false,
        lto: false,
    }
}

fn load_in(dir: &Path, args: &[&str], lib_paths: &[&str], target: &str) -> Outcome {
    run(InputLoader::new(request(args, lib_paths, target, None)).in_dir(dir))
}

/// A ptxas to compile PTX with, if this machine has one (never installs
/// one): culdb's own search, where a CULDB_PTXAS naming no file counts as none.
fn ptxas() -> Option<PathBuf> {
    culdb::link::find_ptxas().filter(|p| p.is_file())
}

/// Held by the tests that run ptxas, so that the leak check sees only its own.
static JIT: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn say_no_ptxas(what: &str) {
    eprintln!("note: no ptxas here (CULDB_PTXAS, PATH, scripts/cuda-tools.sh folder): {what}");
}

/// A fresh temporary folder for one test.
struct Scratch(PathBuf);

impl Scratch {
    fn new(label: &str) -> Scratch {
        let p = std::env::temp_dir().join(format!("culdb-inputs-{}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn put(&self, name: &str, data: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, data).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn corpus(case: &str, file: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/corpus").join(case).join(file)).unwrap()
}

fn container(file: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/data/containers").join(file)).unwrap()
}

/// A GNU `ar` archive of (name, data) members (short names, no symbol table).
fn ar(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    for (name, data) in members {
        let hdr = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            644,
            data.len()
        );
        assert_eq!(hdr.len(), 60);
        out.extend_from_slice(hdr.as_bytes());
        out.extend_from_slice(data);
        if data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    out
}

// ---------------------------------------------------------------------------
// cuobjdump listings

/// The ELF images of a `cuobjdump -elf` listing: (sm, [(section, size)]).
fn listing_images(text: &str) -> Vec<(u32, Vec<(String, u64)>)> {
    let mut out: Vec<(u32, Vec<(String, u64)>)> = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("64-bit ELF:") {
            let sm = line
                .split(", ")
                .find_map(|f| f.strip_prefix("sm="))
                .and_then(|s| s.trim_end_matches(['a', 'f']).parse().ok())
                .unwrap_or(0);
            out.push((sm, Vec::new()));
            in_table = false;
        } else if line.starts_with("Index Offset") {
            in_table = true;
        } else if in_table {
            let w: Vec<&str> = line.split_whitespace().collect();
            if w.len() < 10 {
                in_table = false;
                continue;
            }
            if let (Some(last), Ok(size)) = (out.last_mut(), u64::from_str_radix(w[2], 16)) {
                last.1.push((w[w.len() - 1].to_string(), size));
            }
        }
    }
    out
}

/// The listing of each member of an archive listing, by member name.
fn member_listings(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("=== member ").and_then(|l| l.strip_suffix(" ===")) {
            out.push((name.to_string(), String::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push_str(line);
            last.1.push('\n');
        }
    }
    out
}

fn sections_of(data: &[u8]) -> (u32, Vec<(String, u64)>) {
    let c = read::parse(data).unwrap();
    let secs = c
        .sections
        .iter()
        .skip(1)
        .map(|s| {
            (
                s.name.clone(),
                if s.data.is_empty() {
                    s.nobits_size
                } else {
                    s.data.len() as u64
                },
            )
        })
        .collect();
    (c.header.sm(), secs)
}

/// The loaded cubin is the image cuobjdump lists for its SM.
fn assert_matches_listing(c: &LoadedCubin, listing: &str) {
    let (sm, secs) = sections_of(&c.data);
    let images = listing_images(listing);
    let image = images
        .iter()
        .find(|(s, _)| *s == sm)
        .unwrap_or_else(|| panic!("{}: no sm_{sm} image in the listing", c.name));
    assert_eq!(secs, image.1, "{}: sections differ from cuobjdump's listing", c.name);
}

// ---------------------------------------------------------------------------
// The corpus

struct Case {
    dir: PathBuf,
    args: Vec<String>,
    lib_paths: Vec<String>,
    target: String,
    /// Every word of link.args.
    words: Vec<String>,
    keep_system_libraries: bool,
}

fn case(dir: &Path) -> Case {
    let line = std::fs::read_to_string(dir.join("link.args")).unwrap();
    let mut c = Case {
        dir: dir.to_path_buf(),
        args: Vec::new(),
        lib_paths: Vec::new(),
        target: String::new(),
        words: line.split_whitespace().map(str::to_string).collect(),
        keep_system_libraries: false,
    };
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if let Some(a) = w.strip_prefix("-arch=") {
            c.target = a.to_string();
        } else if w == "-arch" {
            c.target = words.next().unwrap().to_string();
        } else if matches!(w, "-uidx" | "--uidx-file") {
            // Its value is the index file, not an input.
            words.next();
        } else if w == "-keep-system-libraries" {
            c.keep_system_libraries = true;
        } else if let Some(d) = w.strip_prefix("-L") {
            c.lib_paths.push(d.to_string());
        } else if w.starts_with("-l") || !w.starts_with('-') {
            c.args.push(w.to_string());
        }
    }
    c
}

fn expected(c: &Case, file: &str) -> String {
    std::fs::read_to_string(c.dir.join("expected").join(file)).unwrap_or_default()
}

/// What the case should load, derived from its file names, cuobjdump's
/// listings and the corpus README: (name, kind) in nvlink's order.
/// (input name, kind or skip reason keyword), in order.
type Loads = Vec<(String, &'static str)>;

fn expected_loads(c: &Case) -> (Loads, Loads) {
    let mut loads = Vec::new();
    let mut skips = Vec::new();
    // A system library's member (README observation 68) is linked when
    // nvlink's output holds one of the global functions it defines, or its
    // module is in nvlink's registration file (observation 112: members
    // linked for a function nothing defines, their code then removed).
    let output = expected(c, "elf/out.cubin.txt");
    let register = expected(c, "register.c");
    let archive = |name: &str, listing: &str, loads: &mut Loads, skips: &mut Loads| {
        let members = member_listings(listing);
        for (m, text) in &members {
            let system = name.contains("cudadevrt");
            let linked = || {
                let stem = m.rsplit_once('.').map_or(m.as_str(), |(s, _)| s);
                register.contains(&format!("_{stem}_cu_"))
                    || text
                        .lines()
                        .filter(|l| l.contains(" FUNC ") && l.contains(" GLOBAL "))
                        .filter_map(|l| l.split_whitespace().last())
                        .any(|f| output.contains(f))
            };
            if m.ends_with(".cubin") {
                skips.push((format!("{name}:{m}"), "cubin"));
            } else if system && !linked() {
                skips.push((format!("{name}:{m}"), "system library"));
            } else {
                loads.push((format!("{name}:{m}"), "member"));
            }
        }
        if members.is_empty() {
            // dynpar_cudadevrt_sm90: the 1.1 MB libcudadevrt.a has no
            // listing; README: one host-object member.
            loads.push((format!("{name}:cuda_device_runtime.o"), "member"));
        }
    };
    let target_sm: u32 = c
        .target
        .trim_start_matches("sm_")
        .trim_end_matches(['a', 'f'])
        .parse()
        .unwrap();
    for a in c.args.iter().filter(|a| !a.starts_with("-l")) {
        // An input named through folders is listed by its base name.
        let base = a.rsplit('/').next().unwrap_or(a);
        let listing = expected(c, &format!("elf/{base}.txt"));
        if a.ends_with(".a") {
            archive(a, &listing, &mut loads, &mut skips);
        } else if a.ends_with(".ptx") {
            loads.push((a.clone(), "jit"));
        } else if a.ends_with(".fatbin") {
            loads.push((a.clone(), "fatbin"));
        } else if a.ends_with(".o")
            && (listing.contains("does not contain device code")
                || (listing.contains("type=ET_EXEC") && !listing.contains("type=ET_REL")))
        {
            // A host-only object, or one with executable device code only (a
            // whole-program build): read, nothing linked (observations 70, 85).
            let why = if listing.contains("does not contain device code") {
                "without device code"
            } else {
                "executable device code"
            };
            skips.push((a.clone(), why));
        } else if a.ends_with(".o") {
            let has_cubin = listing_images(&listing).iter().any(|(sm, _)| *sm == target_sm);
            loads.push((a.clone(), if has_cubin { "host" } else { "jit" }));
        } else {
            loads.push((a.clone(), "file"));
        }
    }
    for a in c.args.iter().filter_map(|a| a.strip_prefix("-l")) {
        for d in &c.lib_paths {
            let p = format!("{d}/lib{a}.a");
            if c.dir.join(&p).exists() {
                let listing = expected(c, &format!("elf/lib{a}.a.txt"));
                if member_listings(&listing).iter().any(|(m, _)| m.ends_with(".cubin")) {
                    continue; // skipped as incompatible
                }
                archive(&p, &listing, &mut loads, &mut skips);
                break;
            }
        }
    }
    (loads, skips)
}

fn kind_of(o: &Origin) -> &'static str {
    match o {
        Origin::File { .. } => "file",
        Origin::FatbinEntry { .. } => "fatbin",
        Origin::HostObject { .. } => "host",
        Origin::ArchiveMember { .. } => "member",
        Origin::JitPtx { .. } => "jit",
        Origin::Lto { .. } => "lto",
    }
}

fn check_case(dir: &Path, ptxas: Option<PathBuf>) -> Result<(), String> {
    let c = case(dir);
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    let libs: Vec<&str> = c.lib_paths.iter().map(String::as_str).collect();
    let have_ptxas = ptxas.is_some();
    // A command line nvlink refuses before it reads an input
    // (err_preserve_relocs_werror_sm90) loads nothing.
    if culdb::link::options::parse_in(&c.words, &c.dir).is_err() {
        return Ok(());
    }
    let mut req = request(&args, &libs, &c.target, ptxas);
    req.keep_system_libraries = c.keep_system_libraries;
    let o = run(InputLoader::new(req).in_dir(&c.dir));
    let (want, want_skips) = expected_loads(&c);
    let stderr = expected(&c, "stderr");
    let status = expected(&c, "status");

    let needs_jit = want.iter().any(|(_, k)| *k == "jit");
    if needs_jit && !have_ptxas {
        let f = o
            .fatal_text()
            .ok_or(format!("{name}: PTX input without ptxas must be fatal"))?;
        if !f.contains("ptxas") {
            return Err(format!("{name}: no-ptxas diagnostic does not say ptxas: {f}"));
        }
        let got: Vec<&str> = o.names();
        let want_names: Vec<&str> = want.iter().map(|(n, _)| n.as_str()).take(got.len()).collect();
        if got != want_names {
            return Err(format!(
                "{name}: loaded {got:?} before the PTX input, expected {want_names:?}"
            ));
        }
        say_no_ptxas(&format!("{name}: checked the no-ptxas diagnostic only"));
        return Ok(());
    }
    // Diagnostics: ours appear in nvlink's stderr, in order, and nvlink's
    // input-related lines are all ours.
    // The loader reports warnings as warnings; the pipeline applies -Werror.
    let werror = std::fs::read_to_string(c.dir.join("link.args"))
        .unwrap_or_default()
        .contains("-Werror");
    let theirs: Vec<String> = stderr
        .lines()
        .map(|l| match l.strip_prefix("nvlink error   : ") {
            Some(rest) if werror => format!("nvlink warning : {rest}"),
            _ => l.to_string(),
        })
        .collect();
    let mut at = 0;
    for l in &o.lines {
        match theirs[at..].iter().position(|t| t == l) {
            Some(i) => at += i + 1,
            None => return Err(format!("{name}: printed {l:?}, not in nvlink's stderr (in order)")),
        }
    }
    let input_kinds = [
        "Could not open",
        "Skipping incompatible",
        // The loader's "SM Arch ('sm_NN') not found in …" (the architecture
        // check's "Output is limited to run on SM Arch …" is the link's).
        "') not found in",
        "not an elf",
        "wrong format",
        "elfLink",
    ];
    for t in &theirs {
        if input_kinds.iter().any(|k| t.contains(k)) && !o.lines.iter().any(|l| l == t) {
            return Err(format!("{name}: nvlink printed {t:?}, the loader did not"));
        }
    }

    if let Some(f) = &o.fatal {
        // Only err_missing_input_sm90 fails while reading.
        if !stderr.lines().any(|l| l == nvlink_line(f)) || status.trim() != "1" {
            return Err(format!("{name}: unexpected fatal {f:?}"));
        }
    }

    let got: Vec<(String, &str)> = o.loaded.iter().map(|c| (c.name.clone(), kind_of(&c.origin))).collect();
    let want_now: Vec<(String, &str)> = if o.fatal.is_some() {
        want.iter().take(got.len()).cloned().collect()
    } else {
        want.clone()
    };
    if got != want_now {
        return Err(format!("{name}: loaded {got:?}, expected {want_now:?}"));
    }
    for (s, why) in &want_skips {
        if !o
            .skipped
            .iter()
            .any(|(p, r, w)| p == s && r.contains(why) && w.is_none())
        {
            return Err(format!("{name}: no silent skip note for {s}: {:?}", o.skipped));
        }
    }

    // Each cubin is the one cuobjdump lists for that input.
    let target_sm: u32 = c
        .target
        .trim_start_matches("sm_")
        .trim_end_matches(['a', 'f'])
        .parse()
        .unwrap();
    for l in &o.loaded {
        let (sm, _) = sections_of(&l.data);
        match &l.origin {
            Origin::File { path } => {
                assert_eq!(l.data, std::fs::read(c.dir.join(path)).unwrap());
                let base = path.rsplit('/').next().unwrap_or(path);
                assert_matches_listing(l, &expected(&c, &format!("elf/{base}.txt")));
            }
            Origin::HostObject { file, arch } => {
                assert_eq!((arch.as_str(), sm), (c.target.as_str(), target_sm), "{name}");
                let base = file.rsplit('/').next().unwrap_or(file);
                assert_matches_listing(l, &expected(&c, &format!("elf/{base}.txt")));
            }
            Origin::ArchiveMember { archive, member, arch } => {
                assert_eq!((arch.as_str(), sm), (c.target.as_str(), target_sm), "{name}");
                let base = archive.rsplit('/').next().unwrap();
                let listing = expected(&c, &format!("elf/{base}.txt"));
                if let Some((_, m)) = member_listings(&listing).into_iter().find(|(m, _)| m == member) {
                    assert_matches_listing(l, &m);
                }
            }
            // README 18: from a fatbin with sm_80 and sm_90 cubins the sm_90 one is used.
            Origin::FatbinEntry { arch, .. } => assert_eq!((arch.as_str(), sm), ("sm_90", 90), "{name}"),
            Origin::JitPtx { .. } => check_jit(&c, l)?,
            Origin::Lto { .. } => return Err(format!("{name}: an LTO cubin without -dlto")),
        }
    }
    Ok(())
}

/// A JIT-compiled cubin is nvlink's: its `.note.nv.tkinfo` (which records
/// the ptxas options) is copied into nvlink's output byte for byte.
fn check_jit(c: &Case, l: &LoadedCubin) -> Result<(), String> {
    assert_eq!(read::parse(&l.data).unwrap().header.sm(), 90);
    let out = std::fs::read(c.dir.join("expected/out.cubin")).map_err(|e| e.to_string())?;
    let cubin = read::parse(&l.data).unwrap();
    let note = cubin
        .sections
        .iter()
        .find(|s| s.name == ".note.nv.tkinfo")
        .ok_or("no tkinfo")?;
    if !contains(&out, &note.data) {
        return Err(format!(
            "{}: the tkinfo of {} is not in nvlink's output",
            c.dir.display(),
            l.name
        ));
    }
    // README observation 3: in weak_func_ptx_inputs_* A's wf wins; it calls
    // nothing, so nvlink's output holds its code unchanged, and not B's.
    if c.dir.to_string_lossy().contains("weak_func_ptx_inputs") {
        let wf = cubin
            .sections
            .iter()
            .find(|s| s.name == ".text.wf")
            .ok_or("no .text.wf")?;
        if contains(&out, &wf.data) != (l.name == "a.ptx") {
            return Err(format!(
                "{}: .text.wf of {} vs nvlink's output",
                c.dir.display(),
                l.name
            ));
        }
    }
    Ok(())
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn every_corpus_case_loads_like_nvlink() {
    let cases = common::corpus_cases();
    assert!(cases.len() > 80);
    let p = ptxas();
    let _jit = JIT.lock().unwrap_or_else(|e| e.into_inner());
    let mut failures = Vec::new();
    for dir in &cases {
        if let Err(e) = check_case(dir, p.clone()) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Without a ptxas every PTX-carrying case stops with the no-ptxas diagnostic.
#[test]
fn corpus_ptx_cases_without_ptxas() {
    for name in [
        "weak_func_ptx_inputs_new_first_sm90",
        "host_obj_ptx_jit_sm90",
        "host_obj_sm80_into_sm90_jit",
    ] {
        check_case(&root().join("tests/corpus").join(name), None).unwrap();
    }
}

#[test]
fn corpus_error_cases_text() {
    let dir = root().join("tests/corpus/err_missing_input_sm90");
    let o = load_in(&dir, &["main.cubin", "lib.cubin", "nothere.cubin"], &[], "sm_90");
    assert_eq!(o.names(), ["main.cubin", "lib.cubin"]);
    let f = o.fatal.clone().unwrap();
    assert_eq!(f.severity, Severity::Fatal);
    assert_eq!(
        nvlink_line(&f),
        "nvlink fatal   : Could not open input file 'nothere.cubin'"
    );
    assert_eq!(f.text, nvlink_text(&f.text), "no culdb detail on this one");

    let dir = root().join("tests/corpus/err_archive_of_cubins_lx_sm90");
    let o = load_in(&dir, &["main.cubin", "-lx"], &["."], "sm_90");
    assert_eq!(o.names(), ["main.cubin"]);
    assert_eq!(
        o.lines,
        ["nvlink warning : Skipping incompatible './libx.a' when searching for -lx"]
    );
    assert!(
        o.skipped.iter().any(|(p, _, w)| p == "-lx" && w.is_none()),
        "{:?}",
        o.skipped
    );

    let dir = root().join("tests/corpus/err_archive_of_cubins_direct_sm90");
    let o = load_in(&dir, &["main.cubin", "libx.a"], &[], "sm_90");
    assert_eq!(o.names(), ["main.cubin"]);
    assert!(o.lines.is_empty());
    let skipped: Vec<&str> = o.skipped.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(skipped, ["libx.a:m1.cubin", "libx.a:m2.cubin", "libx.a:m3.cubin"]);

    let o = load_in(&dir, &[], &[], "sm_90");
    assert_eq!((o.steps, o.loaded.len()), (0, 0));
}

// ---------------------------------------------------------------------------
// Synthetic cases (each rule was seen with nvlink 13.5)

fn one(dir: &Path, name: &str) -> Outcome {
    load_in(dir, &[name], &[], "sm_90")
}

#[test]
fn extension_rules() {
    let s = Scratch::new("ext");
    let cubin = corpus("extern_call_sm90", "lib.cubin");
    let host = corpus("host_obj_rdc_sm90", "util.o");
    let fatbin = corpus("fatbin_input_sm90", "lib.fatbin");
    let archive = corpus("archive_hostobj_direct_sm90", "libx.a");
    let garbage: Vec<u8> = (0..100u32).map(|i| (i * 37 + 11) as u8).collect();

    // Loaded.
    for (name, data, kind) in [
        ("lib.o", &cubin, "file"),
        ("lib.cubin.o", &cubin, "file"),
        ("cub.ptx", &cubin, "file"),
        ("util.c", &host, "host"),
        ("util.", &host, "host"),
        (".util", &host, "host"),
        ("fb.ptx", &fatbin, "fatbin"),
        ("ar.so", &archive, "member"),
        ("ar.o", &archive, "member"),
        ("ar.xyz", &archive, "member"),
    ] {
        s.put(name, data);
        let o = one(&s.0, name);
        assert!(o.fatal.is_none() && o.lines.is_empty(), "{name}: {o:?}");
        assert!(!o.loaded.is_empty(), "{name}: {o:?}");
        assert!(o.loaded.iter().all(|c| kind_of(&c.origin) == kind), "{name}: {o:?}");
    }
    assert_eq!(
        one(&s.0, "ar.o").names(),
        ["ar.o:m1.o", "ar.o:m2.o", "ar.o:m3.o", "ar.o:m4.o"]
    );

    // Ignored without a word.
    let mut trailing = cubin.clone();
    trailing.extend([0u8; 100]);
    for (name, data) in [
        ("lib.obj", &cubin),
        ("lib.a", &cubin),
        ("LIB.CUBIN", &cubin),
        ("libcubin", &cubin),
        ("dot.dir/libcubin", &cubin),
        ("util.so", &host),
        ("util", &host),
        ("arnoext", &archive),
        ("fb.o", &fatbin),
        ("g.o", &garbage),
        ("g.xyz", &garbage),
        ("empty.cubin", &Vec::new()),
    ] {
        s.put(name, data);
        let o = one(&s.0, name);
        assert!(
            o.fatal.is_none() && o.lines.is_empty() && o.loaded.is_empty(),
            "{name}: {o:?}"
        );
        assert_eq!(o.skipped.len(), 1, "{name}: {o:?}");
    }
    s.put("trail.cubin", &trailing);
    assert_eq!(one(&s.0, "trail.cubin").names(), ["trail.cubin"]);

    // Fatal.
    let mut archive_named_cubin = archive.clone();
    archive_named_cubin.truncate(archive.len());
    for (name, data, line) in [
        ("g.cubin", &garbage, "nvlink fatal   : cubin not an elf?"),
        ("ar.cubin", &archive_named_cubin, "nvlink fatal   : cubin not an elf?"),
        ("fb.cubin", &fatbin, "nvlink fatal   : cubin not an elf?"),
        ("host.cubin", &host, "nvlink fatal   : cubin not a device elf?"),
        ("g.fatbin", &garbage, "nvlink fatal   : fatbin wrong format?"),
        ("cub.fatbin", &cubin, "nvlink fatal   : fatbin wrong format?"),
        ("ar.fatbin", &archive, "nvlink fatal   : fatbin wrong format?"),
    ] {
        s.put(name, data);
        let o = one(&s.0, name);
        assert_eq!(o.lines, [line], "{name}");
        // culdb says which file.
        assert!(o.fatal.unwrap().text.contains(&format!("'{name}'")), "{name}");
    }
    for name in ["g.ptx", "host.ptx", "ar.ptx"] {
        let data = if name == "g.ptx" {
            &garbage
        } else if name == "host.ptx" {
            &host
        } else {
            &archive
        };
        s.put(name, data);
        let o = one(&s.0, name);
        assert_eq!(
            o.lines,
            [
                "nvlink error   : Can't load this binary kind, as it's not recognized",
                "nvlink fatal   : elfLink fatbinary error"
            ],
            "{name}"
        );
    }
}

#[test]
fn short_missing_and_broken_files() {
    let s = Scratch::new("short");
    let cubin = corpus("extern_call_sm90", "lib.cubin");
    for (name, len) in [("r1.cubin", 1), ("r55.ptx", 55), ("r20", 20), ("r20.o", 20)] {
        s.put(name, &cubin[..len]);
        let o = one(&s.0, name);
        assert_eq!(
            o.lines,
            [format!("nvlink fatal   : Could not open input file '{name}'")]
        );
        assert!(o.fatal.unwrap().text.contains("56 bytes"), "culdb says why");
    }
    // 56 bytes is enough to be read.
    s.put("z56.cubin", &[&b"\x7fELF"[..], &[0u8; 52]].concat());
    assert_eq!(
        one(&s.0, "z56.cubin").lines,
        ["nvlink fatal   : cubin not a device elf?"]
    );
    // The archive magic alone is not "short".
    s.put("e.o", b"!<arch>\n");
    let o = one(&s.0, "e.o");
    assert!(
        o.fatal.is_none() && o.loaded.is_empty() && o.skipped.is_empty(),
        "{o:?}"
    );
    s.put("e.cubin", b"!<arch>\n");
    assert_eq!(one(&s.0, "e.cubin").lines, ["nvlink fatal   : cubin not an elf?"]);

    std::fs::create_dir_all(s.0.join("d.cubin")).unwrap();
    for name in ["d.cubin", "nothere.cubin", "nothere"] {
        let o = one(&s.0, name);
        assert_eq!(
            o.lines,
            [format!("nvlink fatal   : Could not open input file '{name}'")]
        );
        assert_eq!(o.fatal.unwrap().severity, Severity::Fatal);
    }

    // Broken cubins are ignored silently; culdb's note says where.
    let shoff = u64::from_le_bytes(cubin[0x28..0x30].try_into().unwrap()) as usize;
    let mut et_exec = cubin.clone();
    et_exec[0x10] = 2;
    let mut elf32 = cubin.clone();
    elf32[4] = 1;
    let mut big = cubin.clone();
    big[5] = 2;
    let mut sec_off = cubin.clone();
    let at = shoff + 5 * 64 + 24;
    sec_off[at..at + 8].copy_from_slice(&0x10_0000u64.to_le_bytes());
    for (name, data) in [
        ("t2000.cubin", cubin[..2000].to_vec()),
        ("t_last.cubin", cubin[..cubin.len() - 1].to_vec()),
        ("t60.o", cubin[..60].to_vec()),
        ("exec.cubin", et_exec),
        ("elf32.cubin", elf32),
        ("big.cubin", big),
        ("secoff.cubin", sec_off),
        ("out.cubin", corpus("extern_call_sm90", "expected/out.cubin")),
    ] {
        s.put(name, &data);
        let o = one(&s.0, name);
        assert!(
            o.fatal.is_none() && o.lines.is_empty() && o.loaded.is_empty(),
            "{name}: {o:?}"
        );
        assert_eq!(o.skipped[0].0, name);
        assert!(o.skipped[0].1.contains("silently"), "{name}: {:?}", o.skipped);
    }
    let o = one(&s.0, "t2000.cubin");
    assert!(o.skipped[0].1.contains("offset 0x"), "{:?}", o.skipped);
}

/// Host objects, fatbins and archives from tests/data/containers.
#[test]
fn fatbins_host_objects_and_members() {
    let s = Scratch::new("fat");
    for f in [
        "multi.o",
        "variants.o",
        "libab.a",
        "libcubins.a",
        "nocomp.fatbin",
        "exec.o",
        "ptx_only.o",
    ] {
        s.put(f, &container(f));
    }
    let o = load_in(&s.0, &["multi.o"], &[], "sm_90");
    assert_eq!(
        o.loaded[0].origin,
        Origin::HostObject {
            file: "multi.o".into(),
            arch: "sm_90".into()
        }
    );
    assert_eq!(o.loaded[0].host_refs, Some(HostRefs::default()));
    let o = load_in(&s.0, &["multi.o"], &[], "sm_86");
    assert_eq!(
        o.loaded[0].origin,
        Origin::HostObject {
            file: "multi.o".into(),
            arch: "sm_80".into()
        }
    );
    let o = load_in(&s.0, &["multi.o"], &[], "sm_75");
    assert_eq!(o.lines, ["nvlink warning : SM Arch ('sm_75') not found in 'multi.o'"]);
    let o = load_in(&s.0, &["variants.o"], &[], "sm_90");
    assert_eq!(
        o.lines,
        ["nvlink warning : SM Arch ('sm_90') not found in 'variants.o'"]
    );
    let o = load_in(&s.0, &["variants.o"], &[], "sm_90a");
    assert_eq!(
        o.loaded[0].origin,
        Origin::HostObject {
            file: "variants.o".into(),
            arch: "sm_90a".into()
        }
    );
    let o = load_in(&s.0, &["nocomp.fatbin"], &[], "sm_100");
    assert_eq!(
        o.loaded[0].origin,
        Origin::FatbinEntry {
            file: "nocomp.fatbin".into(),
            arch: "sm_100".into()
        }
    );
    assert_eq!(o.loaded[0].data, container("expected/nocomp.1.sm_100.cubin"));
    // Executable device code only: nothing, silently.
    let o = load_in(&s.0, &["exec.o"], &[], "sm_90");
    assert!(
        o.loaded.is_empty() && o.lines.is_empty() && o.skipped[0].1.contains(".nv_fatbin"),
        "{o:?}"
    );

    // Members: every host object, named ARCHIVE:MEMBER; no warnings.
    let o = load_in(&s.0, &["libab.a"], &[], "sm_90");
    assert_eq!(o.names(), ["libab.a:a_sm90.o", "libab.a:b.o"]);
    assert_eq!(
        o.loaded[1].origin,
        Origin::ArchiveMember {
            archive: "libab.a".into(),
            member: "b.o".into(),
            arch: "sm_90".into()
        }
    );
    assert_eq!(o.loaded[0].data, container("expected/libab.1.sm_90.cubin"));
    let o = load_in(&s.0, &["libab.a"], &[], "sm_80");
    assert!(
        o.loaded.is_empty() && o.lines.is_empty() && o.skipped.len() == 2,
        "{o:?}"
    );
    let o = load_in(&s.0, &["libcubins.a"], &[], "sm_90");
    let sk: Vec<&str> = o.skipped.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        sk,
        ["libcubins.a:kernel_a_with_a_long_name.cubin", "libcubins.a:b.cubin"]
    );
    assert!(
        o.skipped
            .iter()
            .all(|s| s.1.contains("ignores cubins inside archives") && s.2.is_none())
    );

    // A member whose fatbin magic is damaged: nvlink's two fatal lines.
    let host = container("a_sm90.o");
    let mut bad = host.clone();
    let sec = culdb::cubin::host::fatbin_sections(&host).unwrap()[0].offset as usize;
    bad[sec] ^= 0xff;
    s.put("bm.a", &ar(&[("bm.o", &bad)]));
    let o = load_in(&s.0, &["bm.a"], &[], "sm_90");
    assert_eq!(
        o.lines,
        [
            "nvlink fatal   : Could not find fatbin in 'bm.a:bm.o'",
            "nvlink fatal   : elfLink internal error"
        ]
    );
    s.put("bm.o", &bad);
    let o = load_in(&s.0, &["bm.o"], &[], "sm_90");
    assert_eq!(o.lines[0], "nvlink fatal   : Could not find fatbin in 'bm.o'");
    // A member that is not a readable ELF is ignored; the same file given
    // directly is fatal.
    s.put("th.a", &ar(&[("th.o", &host[..host.len() / 2]), ("b.o", &host)]));
    let o = load_in(&s.0, &["th.a"], &[], "sm_90");
    assert_eq!(o.names(), ["th.a:b.o"]);
    assert!(o.lines.is_empty());
    s.put("th.o", &host[..host.len() / 2]);
    assert_eq!(
        load_in(&s.0, &["th.o"], &[], "sm_90").fatal_text(),
        Some("elfLink internal error")
    );

    // Damaged archives.
    let lib = container("libab.a");
    s.put("trunc.a", &lib[..700]);
    let o = load_in(&s.0, &["trunc.a"], &[], "sm_90");
    assert_eq!(
        o.lines,
        [
            "nvlink fatal   : archive member size exceeds library bounds",
            "nvlink fatal   : elfLink internal error"
        ]
    );
    s.put("junk.a", &[&b"!<arch>\n"[..], &[0u8; 100]].concat());
    let o = load_in(&s.0, &["junk.a"], &[], "sm_90");
    assert_eq!(
        o.lines,
        [
            "nvlink fatal   : unexpected archive format",
            "nvlink fatal   : elfLink internal error"
        ]
    );
}

#[test]
fn library_search() {
    let s = Scratch::new("lib");
    let hostlib = corpus("archive_hostobj_direct_sm90", "libx.a");
    let other = container("libab.a");
    let cubins = corpus("err_archive_of_cubins_direct_sm90", "libx.a");
    s.put("d1/libq.a", &hostlib);
    s.put("d2/libq.a", &other);
    s.put("libq.a", &other);
    s.put("tiny/libq.a", b"abc");
    s.put("empty/libq.a", b"");
    s.put("magic/libq.a", b"!<arch>\n");
    s.put("cub/libq.a", &cubins);
    s.put("names/q", &hostlib);
    s.put("names/libq.so", &hostlib);
    s.put("names/q.a", &hostlib);
    s.put("names/libq.lib", &hostlib);
    s.put("bad/libq.a", &[0x55u8; 100]);
    s.put("trunc/libq.a", &other[..700]);
    s.put("cubin/libq.a", &corpus("extern_call_sm90", "lib.cubin"));
    std::fs::create_dir_all(s.0.join("folder/libq.a")).unwrap();

    let q = |paths: &[&str]| load_in(&s.0, &["-lq"], paths, "sm_90");
    let first = |o: &Outcome| o.names().first().map(|n| n.to_string());
    // -L order; trailing slashes dropped; the name is DIR/libNAME.a.
    assert_eq!(first(&q(&["d1", "d2"])).as_deref(), Some("d1/libq.a:m1.o"));
    assert_eq!(first(&q(&["d2", "d1"])).as_deref(), Some("d2/libq.a:a_sm90.o"));
    assert_eq!(first(&q(&["./d1//"])).as_deref(), Some("./d1/libq.a:m1.o"));
    assert_eq!(first(&q(&["."])).as_deref(), Some("./libq.a:a_sm90.o"));
    // Only libNAME.a, never the current folder by default; not found is silent.
    for paths in [&[][..], &["names"][..], &["nothere"][..]] {
        let o = q(paths);
        assert!(
            o.loaded.is_empty() && o.lines.is_empty() && o.fatal.is_none(),
            "{paths:?}: {o:?}"
        );
        assert_eq!(o.skipped.len(), 1);
        assert_eq!(o.skipped[0].0, "-lq");
        assert!(o.skipped[0].2.is_none());
    }
    // Incompatible candidates: warned about, and the search goes on.
    let o = q(&["tiny", "empty", "magic", "cub", "d1"]);
    assert_eq!(
        o.lines,
        [
            "nvlink warning : Skipping incompatible 'tiny/libq.a' when searching for -lq",
            "nvlink warning : Skipping incompatible 'empty/libq.a' when searching for -lq",
            "nvlink warning : Skipping incompatible 'magic/libq.a' when searching for -lq",
            "nvlink warning : Skipping incompatible 'cub/libq.a' when searching for -lq",
        ]
    );
    assert_eq!(first(&o).as_deref(), Some("d1/libq.a:m1.o"));
    // Bad candidates stop the link.
    let two = |a: &str| [a.to_string(), "nvlink fatal   : elfLink internal error".to_string()];
    assert_eq!(
        q(&["bad", "d1"]).lines,
        two("nvlink fatal   : unexpected archive format")
    );
    assert_eq!(
        q(&["cubin", "d1"]).lines,
        two("nvlink fatal   : unexpected archive format")
    );
    assert_eq!(
        q(&["trunc", "d1"]).lines,
        two("nvlink fatal   : archive member size exceeds library bounds")
    );
    assert_eq!(
        q(&["folder", "d1"]).lines,
        ["nvlink fatal   : Memory allocation failure"]
    );
    // LIBRARY_PATH folders come after the -L ones.
    assert_eq!(library_path_dirs("d5::d1:"), ["d5", "d1"]);
    let mut paths = vec!["d2".to_string()];
    paths.extend(library_path_dirs("d1"));
    let p: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert_eq!(first(&q(&p)).as_deref(), Some("d2/libq.a:a_sm90.o"));
}

#[test]
fn libraries_are_searched_first_and_linked_last() {
    let s = Scratch::new("order");
    s.put("r/libq.a", &container("libab.a"));
    s.put("r/libr.a", &corpus("archive_hostobj_direct_sm90", "libx.a"));
    s.put("bad/libq.a", &[0x55u8; 100]);
    s.put("main.cubin", &corpus("extern_call_sm90", "main.cubin"));
    s.put("g.cubin", &[0x33u8; 100]);

    let o = load_in(&s.0, &["-lr", "main.cubin", "-lq"], &["r"], "sm_90");
    assert_eq!(
        o.names(),
        [
            "main.cubin",
            "r/libr.a:m1.o",
            "r/libr.a:m2.o",
            "r/libr.a:m3.o",
            "r/libr.a:m4.o",
            "r/libq.a:a_sm90.o",
            "r/libq.a:b.o"
        ]
    );
    // The library's format error comes before the file's, whatever the order.
    let o = load_in(&s.0, &["g.cubin", "-lq"], &["bad"], "sm_90");
    assert_eq!(o.lines[0], "nvlink fatal   : unexpected archive format");

    // The stepping view: current() names the argument of the next step.
    let mut l = InputLoader::new(request(&["main.cubin", "-lq"], &["r"], "sm_90", None)).in_dir(&s.0);
    assert_eq!(l.current(), 1);
    let r = l.step().unwrap().unwrap();
    assert!(r.is_empty());
    assert_eq!(l.library(1).unwrap().found.as_deref(), Some("r/libq.a"));
    assert_eq!(l.current(), 0);
    assert_eq!(l.step().unwrap().unwrap().len(), 1);
    assert_eq!(l.current(), 1);
    assert_eq!(l.step().unwrap().unwrap().len(), 2);
    assert_eq!(l.current(), 2);
    assert!(l.step().is_none());
    // A library not found has no load step.
    let mut l = InputLoader::new(request(&["main.cubin", "-lnone"], &["r"], "sm_90", None)).in_dir(&s.0);
    assert_eq!(l.step().unwrap().unwrap().len(), 1);
    assert_eq!(l.step().unwrap().unwrap().len(), 1);
    assert_eq!(l.current(), 2);
    assert!(l.step().is_none());
}

#[test]
fn an_archive_file_is_read_once() {
    let s = Scratch::new("dedup");
    let lib = container("libab.a");
    s.put("r/libq.a", &lib);
    s.put("copy/libq.a", &lib);
    std::fs::hard_link(s.0.join("r/libq.a"), s.0.join("hard.a")).unwrap();
    let o = load_in(
        &s.0,
        &["r/libq.a", "./r/libq.a", "hard.a", "-lq", "r/../r/libq.a"],
        &["r"],
        "sm_90",
    );
    assert_eq!(o.names(), ["r/libq.a:a_sm90.o", "r/libq.a:b.o"]);
    assert_eq!(o.skipped.len(), 4, "{:?}", o.skipped);
    assert!(o.skipped.iter().all(|s| s.1.contains("'r/libq.a'") && s.2.is_none()));
    // -l first: the file argument still comes first.
    let o = load_in(&s.0, &["-lq", "./r/libq.a"], &["r"], "sm_90");
    assert_eq!(o.names(), ["./r/libq.a:a_sm90.o", "./r/libq.a:b.o"]);
    // A copy is another archive; host objects and cubins are never deduplicated.
    let o = load_in(&s.0, &["r/libq.a", "copy/libq.a"], &[], "sm_90");
    assert_eq!(o.loaded.len(), 4);
    s.put("a.o", &container("a_sm90.o"));
    assert_eq!(load_in(&s.0, &["a.o", "a.o"], &[], "sm_90").names(), ["a.o", "a.o"]);
}

#[test]
fn thin_archives_read_members_from_the_current_folder() {
    let s = Scratch::new("thin");
    s.put("a.o", &container("a_sm90.o"));
    let mut thin = b"!<thin>\n".to_vec();
    let hdr = format!(
        "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
        "a.o/",
        0,
        0,
        0,
        644,
        container("a_sm90.o").len()
    );
    thin.extend_from_slice(hdr.as_bytes());
    s.put("t.a", &thin);
    let o = load_in(&s.0, &["t.a"], &[], "sm_90");
    assert_eq!(o.names(), ["t.a:a.o"], "{o:?}");
    std::fs::remove_file(s.0.join("a.o")).unwrap();
    let o = load_in(&s.0, &["t.a"], &[], "sm_90");
    assert_eq!(
        o.lines,
        [
            "nvlink fatal   : Could not open input file 'a.o'",
            "nvlink fatal   : elfLink internal error"
        ]
    );
    // Via -l nvlink fails on a thin archive.
    s.put("l/libt.a", &thin);
    let o = load_in(&s.0, &["-lt"], &["l"], "sm_90");
    assert_eq!(
        o.lines,
        [
            "nvlink fatal   : Memory allocation failure",
            "nvlink fatal   : elfLink internal error"
        ]
    );
}

#[test]
fn ptx_inputs() {
    let s = Scratch::new("ptx");
    let a = corpus("weak_func_ptx_inputs_new_first_sm90", "a.ptx");
    s.put("a.ptx", &a);
    s.put("ptx_only.o", &container("ptx_only.o"));
    let bad = String::from_utf8(a.clone()).unwrap().replacen("ret;", "rett;", 1);
    s.put("bad.ptx", bad.as_bytes());
    // PTX not starting with .version (after comments) is not PTX to nvlink.
    s.put(
        "nover.ptx",
        String::from_utf8(a.clone())
            .unwrap()
            .replacen("\n.version 9.5\n", "\n", 1)
            .as_bytes(),
    );
    let o = one(&s.0, "nover.ptx");
    assert_eq!(o.fatal_text(), Some("elfLink fatbinary error"));

    // Without ptxas: fatal, and it says how to get one.
    for name in ["a.ptx", "ptx_only.o"] {
        let o = one(&s.0, name);
        let f = o.fatal.unwrap();
        assert_eq!(f.severity, Severity::Fatal);
        assert!(
            f.text.contains(&format!("'{name}'")) && f.text.contains("CULDB_PTXAS"),
            "{}",
            f.text
        );
    }

    let Some(ptxas) = ptxas() else {
        say_no_ptxas("ptx_inputs: compiled nothing");
        return;
    };
    let _jit = JIT.lock().unwrap_or_else(|e| e.into_inner());
    let jit = |args: &[&str], target: &str| {
        run(InputLoader::new(request(args, &[], target, Some(ptxas.clone()))).in_dir(&s.0))
    };
    let o = jit(&["a.ptx", "ptx_only.o"], "sm_90");
    assert!(o.fatal.is_none() && o.lines.is_empty(), "{o:?}");
    assert_eq!(
        o.loaded[0].origin,
        Origin::JitPtx {
            file: "a.ptx".into(),
            arch: "compute_75".into()
        }
    );
    assert_eq!(
        o.loaded[1].origin,
        Origin::JitPtx {
            file: "ptx_only.o".into(),
            arch: "compute_80".into()
        }
    );
    for c in &o.loaded {
        let cubin = read::parse(&c.data).unwrap();
        assert_eq!(cubin.header.sm(), 90);
        let note = cubin.sections.iter().find(|s| s.name == ".note.nv.tkinfo").unwrap();
        assert!(contains(&note.data, b"-arch sm_90 -m 64 -c"), "nvlink's JIT options");
    }
    let o = jit(&["a.ptx"], "sm_90a");
    assert_eq!(read::parse(&o.loaded[0].data).unwrap().header.sm(), 90);
    // A PTX error: ptxas's lines as nvlink prints them, then nvlink's fatal.
    let o = jit(&["bad.ptx"], "sm_90");
    assert_eq!(
        o.lines,
        [
            "ptxas application ptx input, line 29; error   : Not a name of any known instruction: 'rett'",
            "ptxas fatal   : Ptx assembly aborted due to errors",
            "nvlink fatal   : elfLink fatbinary error"
        ]
    );
    // No temporary files are left behind.
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("culdb-ptxas-{}-", std::process::id()))
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The debugger records the notes: serialisable, cubin bytes by size only.
#[test]
fn notes_serialise() {
    let dir = root().join("tests/corpus/archive_hostobj_lx_sm90");
    let mut l = InputLoader::new(request(&["main.cubin", "-lx"], &["."], "sm_90", None)).in_dir(&dir);
    let mut all = Vec::new();
    while let Some(r) = l.step() {
        all.extend(r.unwrap());
    }
    let json = serde_json::to_string(&all).unwrap();
    assert!(json.contains("\"name\":\"./libx.a:m2.o\""), "{json}");
    assert!(json.contains("\"ArchiveMember\":{\"archive\":\"./libx.a\",\"member\":\"m2.o\",\"arch\":\"sm_90\"}"));
    assert!(json.len() < 4000, "bytes are not recorded");
    let req = serde_json::to_string(l.request()).unwrap();
    assert!(req.contains("\"args\":[\"main.cubin\",\"-lx\"]"), "{req}");
    assert!(serde_json::to_string(&l).is_ok());
    assert!(format!("{:?}", all[0]).len() < 300);
}

/// The host objects' `.nvHR*` lists travel with their cubins (nvlink keeps
/// only the kernels they name when all inputs are host objects).
#[test]
fn host_reference_lists() {
    let dir = root().join("tests/corpus/host_obj_rdc_sm90");
    let o = load_in(&dir, &["main.o", "util.o"], &[], "sm_90");
    let refs: Vec<Vec<String>> = o.loaded.iter().map(|c| c.host_refs.clone().unwrap().kernels).collect();
    assert_eq!(refs, [vec!["_Z5k_sum*".to_string()], vec![]]);
    let o = load_in(&dir, &["main.o"], &[], "sm_90");
    assert!(o.loaded[0].host_refs.as_ref().unwrap().internal_kernels.is_empty());
    let dir = root().join("tests/corpus/extern_call_sm90");
    assert_eq!(load_in(&dir, &["main.cubin"], &[], "sm_90").loaded[0].host_refs, None);
}

/// No input, however damaged, makes the loader panic.
#[test]
fn damaged_inputs_never_panic() {
    let s = Scratch::new("damage");
    let samples = [
        corpus("extern_call_sm90", "lib.cubin"),
        corpus("host_obj_rdc_sm90", "util.o"),
        container("libab.a"),
        corpus("fatbin_input_sm90", "lib.fatbin"),
        corpus("weak_func_ptx_inputs_new_first_sm90", "a.ptx"),
    ];
    let mut n = 0;
    for data in &samples {
        let len = data.len();
        let mut variants: Vec<Vec<u8>> = (0..24).map(|i| data[..len * i / 24].to_vec()).collect();
        for i in 0..24 {
            let mut d = data.clone();
            let at = (i * 7919) % len;
            d[at] ^= 0xa5;
            variants.push(d);
        }
        for v in &variants {
            for name in ["x.cubin", "x.o", "x.a", "x.fatbin", "x.ptx"] {
                s.put(name, v);
                let _ = load_in(&s.0, &[name], &[], "sm_90");
                n += 1;
            }
            s.put("l/libq.a", v);
            let _ = load_in(&s.0, &["-lq"], &["l"], "sm_90");
        }
    }
    assert!(n > 400);
}
