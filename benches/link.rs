//! `cargo bench --bench link`: culdb against nvlink, whole processes, on the
//! workloads issue 20 names. Each workload is linked, interleaved round by
//! round, by:
//!
//! - `culdb link` (events off: what the drop-in does);
//! - `culdb repl … <<< continue` (a debugger session recording every event,
//!   with its checkpoints; the output stays in memory);
//! - nvlink, when it is installed (`nvlink` on PATH, else the one
//!   `scripts/cuda-tools.sh` installs).
//!
//! Every run is a child process: wall time from the clock, peak memory
//! (maximum resident set) from the kernel's `wait4` accounting of that
//! child alone. Figures are medians; the ratios are against nvlink and
//! against culdb with events off. Before timing, culdb's output is compared
//! with nvlink's byte for byte.
//!
//! Workloads (a missing one is reported as skipped, with what makes it):
//!
//! - `nvshmem`: an nvcc `-rdc` object calling NVSHMEM, with
//!   `libnvshmem_device.a` and `-lcudadevrt` (needs nvcc and the
//!   nvidia-nvshmem-cu13 wheel that `scripts/cuda-tools.sh` unpacks);
//! - `sample`: the largest link of the real-world sweep's sm_90 cache
//!   (`scripts/realworld-check 90` makes it);
//! - `objects`: 5,000 generated objects (renamed copies of the corpus case
//!   extern_call_sm90, real ptxas output);
//! - `functions`: one object of N functions for N = 1,000, 4,000, 20,000,
//!   100,000 (`scripts/bench-functions` makes them), with time per function;
//! - `gigabyte`: 1 GiB of inputs (64 objects of 16 MiB initialized data).
//!
//! Options: `--runs R` (default 5), `--only NAME,...`, `--objects N`
//! (default 5000), `--gib G` (default 1). Generated inputs are cached under
//! `target/bench-data`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use culdb::cubin::build::{CubinBuilder, Def, SecSpec, Sym};
use culdb::cubin::consts::{SHF_ALLOC, SHF_WRITE, SHT_PROGBITS, STT_CUDA_OBJECT};
use culdb::cubin::model::Cubin;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// One link to measure: its folder and nvlink's arguments without `-o`.
struct Workload {
    name: String,
    what: String,
    dir: PathBuf,
    args: Vec<String>,
    /// Input bytes (for the growth table).
    size: u64,
}

/// The result of one child process.
#[derive(Clone, Copy)]
struct Run {
    wall: Duration,
    peak_kib: u64,
    status: i32,
}

/// Runs `cmd` to its end and measures it: wall time, and the child's own
/// peak resident set from `wait4`.
fn measure(cmd: &mut Command, stdin: Option<&str>) -> std::io::Result<Run> {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        pipe.write_all(text.as_bytes())?;
    }
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` outlive the call.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::mem::forget(child); // reaped by wait4 already
    let status = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Ok(Run {
        wall,
        peak_kib: usage.ru_maxrss as u64,
        status,
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    EventsOff,
    EventsOn,
    Nvlink,
}

impl Tool {
    fn label(self) -> &'static str {
        match self {
            Tool::EventsOff => "culdb link (events off)",
            Tool::EventsOn => "culdb repl (every event)",
            Tool::Nvlink => "nvlink",
        }
    }
}

struct Bench {
    culdb: PathBuf,
    nvlink: Option<PathBuf>,
    runs: usize,
    tmp: PathBuf,
}

impl Bench {
    fn command(&self, tool: Tool, w: &Workload, out: &Path) -> (Command, Option<&'static str>) {
        let mut args = w.args.clone();
        args.push("-o".into());
        args.push(out.display().to_string());
        let (mut cmd, stdin) = match tool {
            Tool::EventsOff => {
                let mut c = Command::new(&self.culdb);
                c.arg("link");
                (c, None)
            }
            Tool::EventsOn => {
                let mut c = Command::new(&self.culdb);
                c.arg("repl");
                (c, Some("continue\n"))
            }
            Tool::Nvlink => (Command::new(self.nvlink.as_ref().expect("nvlink")), None),
        };
        cmd.args(&args).current_dir(&w.dir);
        (cmd, stdin)
    }

    fn tools(&self) -> Vec<Tool> {
        let mut t = vec![Tool::EventsOff, Tool::EventsOn];
        if self.nvlink.is_some() {
            t.push(Tool::Nvlink);
        }
        t
    }

    /// Links `w` once with each tool (checking statuses and outputs), then
    /// `runs` interleaved rounds. Returns the medians per tool.
    fn run(&self, w: &Workload) -> Vec<(Tool, Run)> {
        println!("{}: {} ({:.1} MB of inputs)", w.name, w.what, w.size as f64 / 1e6);
        let tools = self.tools();
        let outs: Vec<PathBuf> = (0..tools.len())
            .map(|k| self.tmp.join(format!("out{k}.cubin")))
            .collect();
        let mut first = Vec::new();
        for (k, &t) in tools.iter().enumerate() {
            let _ = std::fs::remove_file(&outs[k]);
            let (mut c, stdin) = self.command(t, w, &outs[k]);
            match measure(&mut c, stdin) {
                Ok(r) => first.push(r.status),
                Err(e) => {
                    println!("  {}: cannot run: {e}", t.label());
                    return Vec::new();
                }
            }
        }
        if let Some(n) = tools.iter().position(|&t| t == Tool::Nvlink) {
            let same = match (std::fs::read(&outs[0]), std::fs::read(&outs[n])) {
                (Ok(a), Ok(b)) => {
                    if a == b {
                        "outputs byte-identical".to_string()
                    } else {
                        "OUTPUTS DIFFER".to_string()
                    }
                }
                (Err(_), Err(_)) => "neither wrote an output".to_string(),
                _ => "OUTPUT WRITTEN BY ONLY ONE".to_string(),
            };
            println!("  exit status culdb {} / nvlink {}; {same}", first[0], first[n]);
        } else {
            println!(
                "  exit status {}; nvlink not installed (scripts/cuda-tools.sh installs it)",
                first[0]
            );
        }
        let mut samples: Vec<Vec<Run>> = vec![Vec::new(); tools.len()];
        for _ in 0..self.runs {
            for (k, &t) in tools.iter().enumerate() {
                let (mut c, stdin) = self.command(t, w, &outs[k]);
                if let Ok(r) = measure(&mut c, stdin) {
                    samples[k].push(r);
                }
            }
        }
        for o in &outs {
            let _ = std::fs::remove_file(o);
        }
        let med: Vec<(Tool, Run)> = tools
            .iter()
            .zip(samples)
            .filter(|(_, s)| !s.is_empty())
            .map(|(&t, mut s)| {
                s.sort_by_key(|r| r.wall);
                let wall = s[s.len() / 2].wall;
                s.sort_by_key(|r| r.peak_kib);
                (
                    t,
                    Run {
                        wall,
                        peak_kib: s[s.len() / 2].peak_kib,
                        status: s[0].status,
                    },
                )
            })
            .collect();
        let nv = med.iter().find(|(t, _)| *t == Tool::Nvlink).map(|(_, r)| *r);
        let off = med[0].1;
        for (t, r) in &med {
            let vs_nv = nv
                .map(|n| {
                    format!(
                        "{:>5.2}x time {:>5.2}x memory of nvlink",
                        r.wall.as_secs_f64() / n.wall.as_secs_f64(),
                        r.peak_kib as f64 / n.peak_kib as f64
                    )
                })
                .unwrap_or_default();
            let vs_off = if *t == Tool::EventsOn {
                format!("; {:.2}x events off", r.wall.as_secs_f64() / off.wall.as_secs_f64())
            } else {
                String::new()
            };
            println!(
                "  {:<26} {:>9.1} ms {:>8.1} MiB   {vs_nv}{vs_off}",
                t.label(),
                r.wall.as_secs_f64() * 1e3,
                r.peak_kib as f64 / 1024.0
            );
        }
        println!();
        med
    }
}

fn input_size(dir: &Path, args: &[String]) -> u64 {
    args.iter()
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| std::fs::metadata(dir.join(a)).ok())
        .map(|m| m.len())
        .sum()
}

/// The corpus case extern_call_sm90 (a kernel `k_main` calling `add_bias`
/// in another object, which uses a global `bias`), as ptxas compiled it.
fn templates(root: &Path) -> Vec<Cubin<'static>> {
    ["main.cubin", "lib.cubin"]
        .iter()
        .map(|f| {
            let data = std::fs::read(root.join("tests/corpus/extern_call_sm90").join(f)).expect("template cubin");
            culdb::cubin::read::parse(&data).expect("template parses").into_owned()
        })
        .collect()
}

const RENAMED: [&str; 3] = ["k_main", "add_bias", "bias"];

/// A template with its names made unit `i`'s own (`k_main_i`, `.text.k_main_i`,
/// the section symbol `.nv.constant0.k_main_i`, …).
fn renamed(c: &Cubin<'static>, i: usize) -> Cubin<'static> {
    let mut c = c.clone();
    let ours = |name: &str| RENAMED.iter().any(|n| name == *n || name.ends_with(&format!(".{n}")));
    for s in &mut c.symbols {
        if ours(&s.name) {
            s.name = format!("{}_{i}", s.name);
        }
    }
    for s in &mut c.sections {
        if ours(&s.name) {
            s.name = format!("{}_{i}", s.name);
        }
    }
    c
}

/// `n` objects: `n / 2` renamed copies of extern_call_sm90's two objects.
fn objects(root: &Path, data: &Path, n: usize) -> Workload {
    let dir = data.join(format!("objects{n}"));
    let units = n.div_ceil(2);
    let args: Vec<String> = std::iter::once("-arch=sm_90".to_string())
        .chain((0..units).flat_map(|i| [format!("u{i}_0.cubin"), format!("u{i}_1.cubin")]))
        .collect();
    if !dir.join(format!("u{}_1.cubin", units - 1)).is_file() {
        std::fs::create_dir_all(&dir).expect("bench folder");
        let tpl = templates(root);
        for i in 0..units {
            for (k, t) in tpl.iter().enumerate() {
                let bytes = culdb::cubin::write::write(&renamed(t, i)).expect("write a generated cubin");
                std::fs::write(dir.join(format!("u{i}_{k}.cubin")), bytes).expect("write object");
            }
        }
    }
    Workload {
        name: "objects".into(),
        what: format!(
            "{} generated objects, a kernel calling into another object each",
            2 * units
        ),
        size: input_size(&dir, &args),
        dir,
        args,
    }
}

/// `count` objects of `mib` MiB of initialized global data each, one
/// kernel-free variable per object (kept: `-g`-free final links keep data).
fn gigabyte(data: &Path, gib: usize) -> Workload {
    let (count, mib) = (64 * gib, 16);
    let dir = data.join(format!("gigabyte{gib}"));
    let args: Vec<String> = std::iter::once("-arch=sm_90".to_string())
        .chain((0..count).map(|i| format!("d{i}.cubin")))
        .collect();
    if !dir.join(format!("d{}.cubin", count - 1)).is_file() {
        std::fs::create_dir_all(&dir).expect("bench folder");
        for i in 0..count {
            let mut b = CubinBuilder::new(90);
            b.ptxas_notes(90);
            let bytes: Vec<u8> = (0..mib << 20).map(|k| (k * 31 + i) as u8).collect();
            // As ptxas writes data: a section symbol, a CUDA_OBJECT variable
            // marked global memory (st_other 0x20).
            let spec = SecSpec::new(".nv.global.init", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8).data(bytes);
            let sec = b.section(spec.with_section_symbol());
            let var = Sym {
                sym_type: STT_CUDA_OBJECT,
                ..Sym::global().sized((mib << 20) as u64).other(0x20)
            };
            b.symbol(&format!("table{i}"), var, Def::In(sec), 0);
            std::fs::write(dir.join(format!("d{i}.cubin")), b.to_bytes().expect("synthetic cubin")).expect("write");
        }
    }
    Workload {
        name: "gigabyte".into(),
        what: format!("{count} objects of {mib} MiB initialized global data"),
        size: input_size(&dir, &args),
        dir,
        args,
    }
}

fn cuda_bin() -> Option<PathBuf> {
    culdb::link::find_tool("nvcc").and_then(|p| p.parent().map(Path::to_path_buf))
}

/// The NVSHMEM link: a kernel using `nvshmem_int_p` and a barrier, built
/// with `nvcc -rdc=true`, linked with libnvshmem_device.a and libcudadevrt.
fn nvshmem(data: &Path) -> Result<Workload, String> {
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let shmem = std::env::var_os("CULDB_NVSHMEM_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home.join(".cache/culdb/nvshmem/x/nvidia/nvshmem"));
    let bin = cuda_bin().ok_or("nvcc not installed (scripts/cuda-tools.sh)")?;
    if !shmem.join("lib/libnvshmem_device.a").is_file() {
        return Err(format!(
            "no {} (the nvidia-nvshmem-cu13 wheel)",
            shmem.join("lib/libnvshmem_device.a").display()
        ));
    }
    let dir = data.join("nvshmem");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    if !dir.join("ring.o").is_file() {
        std::fs::write(
            dir.join("ring.cu"),
            "#include <nvshmem.h>\n#include <nvshmemx.h>\n\
             __global__ void ring(int *dst) {\n  int me = nvshmem_my_pe(), n = nvshmem_n_pes();\n  \
             nvshmem_int_p(dst, me, (me + 1) % n);\n  nvshmem_barrier_all();\n}\n",
        )
        .map_err(|e| e.to_string())?;
        let st = Command::new(bin.join("nvcc"))
            .args(["-arch=sm_90", "-rdc=true", "-c", "ring.cu", "-o", "ring.o", "-I"])
            .arg(shmem.join("include"))
            .current_dir(&dir)
            .status()
            .map_err(|e| e.to_string())?;
        if !st.success() {
            return Err("nvcc could not build ring.cu".into());
        }
    }
    let lib = bin.join("../lib");
    let args = vec![
        "-arch=sm_90".to_string(),
        "ring.o".into(),
        format!("-L{}", shmem.join("lib").display()),
        "-lnvshmem_device".into(),
        format!("-L{}", lib.display()),
        "-lcudadevrt".into(),
    ];
    let size = input_size(&dir, &args)
        + std::fs::metadata(shmem.join("lib/libnvshmem_device.a"))
            .map(|m| m.len())
            .unwrap_or(0)
        + std::fs::metadata(lib.join("libcudadevrt.a"))
            .map(|m| m.len())
            .unwrap_or(0);
    Ok(Workload {
        name: "nvshmem".into(),
        what: "nvcc -rdc object + libnvshmem_device.a + libcudadevrt.a, sm_90".into(),
        dir,
        args,
        size,
    })
}

/// Splits a shell command line as `scripts/realworld-check` writes it.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let (mut cur, mut quoted, mut any) = (String::new(), false, false);
    for ch in line.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// The real-world sweep's largest sm_90 link (by object bytes).
fn sample() -> Result<Workload, String> {
    let cache = std::env::var_os("CULDB_REALWORLD_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/culdb/realworld"))
        .join("90");
    let mut best: Option<(u64, PathBuf)> = None;
    for e in std::fs::read_dir(&cache).map_err(|_| format!("no {} (scripts/realworld-check 90)", cache.display()))? {
        let d = e.map_err(|e| e.to_string())?.path();
        if !d.join("link.cmd").is_file() || !d.join("n.cubin").is_file() {
            continue;
        }
        let size: u64 = std::fs::read_dir(&d)
            .map_err(|e| e.to_string())?
            .filter_map(|f| f.ok())
            .filter(|f| f.path().extension().is_some_and(|x| x == "o"))
            .filter_map(|f| f.metadata().ok())
            .map(|m| m.len())
            .sum();
        if best.as_ref().is_none_or(|(s, _)| size > *s) {
            best = Some((size, d));
        }
    }
    let (size, dir) = best.ok_or("the sm_90 real-world cache has no linked sample")?;
    let cmd = std::fs::read_to_string(dir.join("link.cmd")).map_err(|e| e.to_string())?;
    let words = shell_words(cmd.lines().next().unwrap_or(""));
    let mut args = Vec::new();
    let mut it = words.into_iter().skip(1);
    while let Some(w) = it.next() {
        if w == "-o" {
            it.next();
        } else if !w.starts_with("--register-link-binaries") {
            args.push(w);
        }
    }
    Ok(Workload {
        name: "sample".into(),
        what: format!(
            "real-world sample {} (nvcc's device link, sm_90)",
            dir.file_name().unwrap_or_default().to_string_lossy()
        ),
        dir,
        args,
        size,
    })
}

/// `scripts/bench-functions`' objects: one object of `n` functions.
fn functions(n: usize) -> Result<Workload, String> {
    let dir = PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/culdb/bench-functions");
    let f = format!("f{n}.cubin");
    if !dir.join(&f).is_file() {
        return Err(format!("no {} (scripts/bench-functions {n})", dir.join(&f).display()));
    }
    let args = vec!["-arch=sm_90".to_string(), f];
    Ok(Workload {
        name: format!("functions {n}"),
        what: format!("one object of {n} device functions, a kernel calling 50"),
        size: input_size(&dir, &args),
        dir,
        args,
    })
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("target/bench-data");
    let runs: usize = arg("--runs").and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    let only: Option<Vec<String>> = arg("--only").map(|v| v.split(',').map(str::to_string).collect());
    let want = |n: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == n));
    let n_objects: usize = arg("--objects").and_then(|v| v.parse().ok()).unwrap_or(5000).max(2);
    let gib: usize = arg("--gib").and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let tmp = tempfile::tempdir().expect("temporary folder");
    let bench = Bench {
        culdb: PathBuf::from(env!("CARGO_BIN_EXE_culdb")),
        nvlink: culdb::link::find_tool("nvlink"),
        runs,
        tmp: tmp.path().to_path_buf(),
    };
    println!("whole processes, median of {runs} interleaved runs; peak memory is each child's maximum resident set\n");
    let skip = |name: &str, why: String| println!("{name}: skipped: {why}\n");
    if want("nvshmem") {
        match nvshmem(&data) {
            Ok(w) => drop(bench.run(&w)),
            Err(e) => skip("nvshmem", e),
        }
    }
    if want("sample") {
        match sample() {
            Ok(w) => drop(bench.run(&w)),
            Err(e) => skip("sample", e),
        }
    }
    if want("objects") {
        bench.run(&objects(&root, &data, n_objects));
    }
    if want("functions") {
        let mut growth = Vec::new();
        for n in [1000, 4000, 20000, 100000] {
            match functions(n) {
                Ok(w) => {
                    let med = bench.run(&w);
                    growth.push((n, med));
                }
                Err(e) => skip(&format!("functions {n}"), e),
            }
        }
        if growth.len() > 1 {
            println!("growth with functions per object (microseconds per function):");
            for (n, med) in &growth {
                let per: Vec<String> = med
                    .iter()
                    .map(|(t, r)| format!("{} {:.2}", t.label(), r.wall.as_secs_f64() * 1e6 / *n as f64))
                    .collect();
                println!("  {n:>7}: {}", per.join(", "));
            }
            println!();
        }
    }
    if want("gigabyte") {
        bench.run(&gigabyte(&data, gib));
    }
}
