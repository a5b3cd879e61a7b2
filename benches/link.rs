//! `cargo bench --bench link`: how fast culdb links, three ways, on the
//! largest corpus case and on a generated large link:
//!
//! - culdb with events off: the linker stepped to the end, every event
//!   dropped as it comes (what `culdb link` does);
//! - culdb recording every event: a debugger `Session` run to the end, which
//!   keeps every event and takes checkpoints (clones of the linker) for
//!   reverse movement; and, besides, every event serialized to JSON as
//!   `culdb trace --json` does;
//! - nvlink, when it is installed (`nvlink` on PATH, else the one
//!   `scripts/cuda-tools.sh` installs), run as a process on the same inputs.
//!
//! Each figure is the median of several runs; ratios are against culdb with
//! events off. Options: `--objects N` and `--functions F` size the generated
//! link (default 2000 × 4), `--runs R` (default 5).

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use culdb::cubin::consts::*;
use culdb::cubin::model::*;

fn section(name: &str, sh_type: u32, flags: u64, align: u64, data: Vec<u8>) -> Section<'static> {
    Section {
        name: name.into(),
        sh_type,
        flags,
        addr: 0,
        link: 0,
        info: 0,
        align,
        entsize: 0,
        data: Cow::Owned(data),
        nobits_size: 0,
        relocs: Vec::new(),
    }
}

fn symbol(name: &str, binding: u8, sym_type: u8, shndx: u16, size: u64) -> Symbol {
    Symbol {
        name: name.to_string(),
        value: 0,
        size,
        binding,
        sym_type,
        other: 0,
        shndx,
    }
}

/// Object `i` of `n`: `f` global functions `f<i>_<j>`, each of whose code
/// holds one relocation against `f<i+1 mod n>_<j>` (defined by the next
/// object), so every object both defines and references.
fn object(i: usize, n: usize, f: usize) -> Vec<u8> {
    let next = (i + 1) % n;
    let mut symtab = section(".symtab", SHT_SYMTAB, 0, 8, Vec::new());
    symtab.link = 2;
    symtab.info = (f + 1) as u32;
    symtab.entsize = 24;
    let mut sections = vec![
        section("", SHT_NULL, 0, 0, Vec::new()),
        section(".shstrtab", SHT_STRTAB, 0, 1, Vec::new()),
        section(".strtab", SHT_STRTAB, 0, 1, Vec::new()),
        symtab,
    ];
    let mut symbols = vec![symbol("", STB_LOCAL, STT_NOTYPE, 0, 0)];
    for j in 0..f {
        symbols.push(symbol("", STB_LOCAL, STT_SECTION, (4 + 2 * j) as u16, 0));
    }
    for j in 0..f {
        let name = format!("f{i}_{j}");
        let mut text = section(
            &format!(".text.{name}"),
            SHT_PROGBITS,
            SHF_ALLOC | SHF_EXECINSTR,
            128,
            vec![(i + j) as u8; 128],
        );
        text.link = 3;
        text.info = (f + 1 + j) as u32;
        let mut rela = section(&format!(".rela.text.{name}"), SHT_RELA, SHF_INFO_LINK, 8, Vec::new());
        rela.link = 3;
        rela.info = (4 + 2 * j) as u32;
        rela.entsize = 24;
        rela.relocs = vec![Reloc {
            offset: 0x10,
            sym: (2 * f + 1 + j) as u32,
            rtype: 56, // R_CUDA_ABS32_LO_32
            addend: 0,
        }];
        sections.push(text);
        sections.push(rela);
        symbols.push(symbol(&name, STB_GLOBAL, STT_FUNC, (4 + 2 * j) as u16, 128));
    }
    for j in 0..f {
        symbols.push(symbol(&format!("f{next}_{j}"), STB_GLOBAL, STT_FUNC, SHN_UNDEF, 0));
    }
    let c = Cubin {
        header: Header {
            os_abi: ELFOSABI_CUDA,
            abi_version: 8,
            e_type: ET_REL,
            e_machine: EM_CUDA,
            e_version: 1,
            e_entry: 0,
            e_flags: 0x0600_5a04,
            e_phentsize: 0,
        },
        sections,
        symbols,
        merc_symbols: Vec::new(),
        segments: Vec::new(),
    };
    culdb::cubin::write::write(&c).expect("write a generated cubin")
}

/// Writes the generated link into `dir`; returns its nvlink arguments.
fn generate(dir: &Path, n: usize, f: usize) -> Vec<String> {
    std::fs::create_dir_all(dir).expect("bench folder");
    let mut args = vec!["-arch=sm_90".to_string()];
    for i in 0..n {
        let name = format!("o{i}.cubin");
        std::fs::write(dir.join(&name), object(i, n, f)).expect("write object");
        args.push(name);
    }
    args
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm the file cache
    median((0..runs).map(|_| {
        let t = Instant::now();
        f();
        t.elapsed()
    }).collect())
}

fn find_nvlink() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .and_then(|p| std::env::split_paths(&p).map(|d| d.join("nvlink")).find(|c| c.is_file()));
    on_path.or_else(|| {
        let home = std::env::var_os("CULDB_CUDA_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/culdb/cuda-13.5")))?;
        let p = home.join("nvidia/cu13/bin/nvlink");
        p.is_file().then_some(p)
    })
}

fn with_output(args: &[String], out: &Path) -> Vec<String> {
    let mut a = args.to_vec();
    a.push("-o".into());
    a.push(out.display().to_string());
    a
}

struct Row {
    what: &'static str,
    time: Option<Duration>,
    note: String,
}

fn bench(title: &str, dir: &Path, args: &[String], runs: usize) {
    let tmp = std::env::temp_dir().join(format!("culdb-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let out = tmp.join("out.cubin");
    let full = with_output(args, &out);
    let linker = match culdb::link::linker_for(&full, dir) {
        Ok(l) => l,
        Err(e) => {
            println!("{title}: culdb cannot parse the command line: {:?}", e.diagnostics);
            return;
        }
    };
    let mut probe = linker.clone();
    let events = probe.run().len();
    let status = probe.exit_status();
    let mut rows = Vec::new();
    rows.push(Row {
        what: "culdb, events off",
        time: Some(time(runs, || {
            let mut l = linker.clone();
            while !l.step().finished {}
        })),
        note: format!("{events} events, exit status {status}"),
    });
    let mut checkpoints = 0;
    rows.push(Row {
        what: "culdb, every event recorded",
        time: Some(time(runs, || {
            let mut s = culdb::debug::Session::from_linker(linker.clone());
            while s.cont() != culdb::debug::Stop::End {}
            checkpoints = s.checkpoint_count();
        })),
        note: format!("debugger session: history + {checkpoints} checkpoints"),
    });
    let mut bytes = 0;
    rows.push(Row {
        what: "culdb, every event as JSON",
        time: Some(time(runs, || {
            let mut l = linker.clone();
            let mut n = 0usize;
            loop {
                let s = l.step();
                for (k, e) in s.events.iter().enumerate() {
                    n += culdb::debug::trace::line(k, e, true).len() + 1;
                }
                if s.finished {
                    break;
                }
            }
            bytes = n;
        })),
        note: format!("`culdb trace --json`, output not written: {bytes} bytes"),
    });
    match find_nvlink() {
        None => rows.push(Row {
            what: "nvlink",
            time: None,
            note: "not installed (scripts/cuda-tools.sh installs it)".into(),
        }),
        Some(nv) => {
            let run_nv = || Command::new(&nv).args(&full).current_dir(dir).output();
            match run_nv() {
                Ok(o) => {
                    let code = o.status.code().unwrap_or(-1);
                    let note = if code == status {
                        format!("exit status {code}, as culdb's")
                    } else {
                        format!(
                            "exit status {code} (culdb: {status}): {}",
                            String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("")
                        )
                    };
                    rows.push(Row {
                        what: "nvlink",
                        time: Some(time(runs, || {
                            let _ = run_nv();
                        })),
                        note,
                    });
                }
                Err(e) => rows.push(Row {
                    what: "nvlink",
                    time: None,
                    note: format!("cannot run {}: {e}", nv.display()),
                }),
            }
        }
    }
    let base = rows[0].time.unwrap_or_default().as_secs_f64();
    println!("{title}");
    for r in &rows {
        match r.time {
            Some(t) => println!(
                "  {:<30} {:>10.3} ms  {:>6.2}x   {}",
                r.what,
                t.as_secs_f64() * 1e3,
                if base > 0.0 { t.as_secs_f64() / base } else { 0.0 },
                r.note
            ),
            None => println!("  {:<30} {:>10}               {}", r.what, "-", r.note),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let runs = arg("--runs", 5).max(1);
    let n = arg("--objects", 2000).max(2);
    let f = arg("--functions", 4).max(1);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The largest corpus case: one object and libcudadevrt.a (1.1 MB), whose
    // cuda_device_runtime.o member brings 669 symbols and 420 sections.
    let case = root.join("tests/corpus/dynpar_cudadevrt_sm90");
    let args: Vec<String> = std::fs::read_to_string(case.join("link.args"))
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    println!("median of {runs} runs; ratios against culdb with events off\n");
    bench("corpus dynpar_cudadevrt_sm90 (dp.cubin + libcudadevrt.a)", &case, &args, runs);
    let gen = std::env::temp_dir().join(format!("culdb-bench-gen-{}", std::process::id()));
    let gen_args = generate(&gen, n, f);
    println!();
    bench(
        &format!("generated: {n} objects x {f} functions ({} functions, {} relocations)", n * f, n * f),
        &gen,
        &gen_args,
        runs.min(3),
    );
    let _ = std::fs::remove_dir_all(&gen);
}
