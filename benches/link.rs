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
//! events off. Options: `--units N` sizes the generated link (N copies of
//! a two-object corpus link, renamed apart; default 1500, so 3000 objects),
//! `--runs R` (default 5).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use culdb::cubin::model::Cubin;

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

/// A template with its names made unit `i`'s own: `k_main_i`, `add_bias_i`,
/// `bias_i`, and the sections named after them (`.text.add_bias_i`, …).
/// Everything else (code, .nv.info, call graph) stays as ptxas wrote it.
fn renamed(c: &Cubin<'static>, i: usize) -> Cubin<'static> {
    let mut c = c.clone();
    for s in &mut c.symbols {
        if RENAMED.contains(&s.name.as_str()) {
            s.name = format!("{}_{i}", s.name);
        }
    }
    for s in &mut c.sections {
        if RENAMED.iter().any(|n| s.name.ends_with(&format!(".{n}"))) {
            s.name = format!("{}_{i}", s.name);
        }
    }
    c
}

/// Writes the generated link into `dir`: `n` units of two objects each (a
/// kernel and the function it calls, which uses a global), made from real
/// ptxas output by renaming, so that nvlink accepts them too. Returns its
/// nvlink arguments.
fn generate(dir: &Path, n: usize, tpl: &[Cubin<'static>]) -> Vec<String> {
    std::fs::create_dir_all(dir).expect("bench folder");
    let mut args = vec!["-arch=sm_90".to_string()];
    for i in 0..n {
        for (k, t) in tpl.iter().enumerate() {
            let name = format!("u{i}_{k}.cubin");
            let bytes = culdb::cubin::write::write(&renamed(t, i)).expect("write a generated cubin");
            std::fs::write(dir.join(&name), bytes).expect("write object");
            args.push(name);
        }
    }
    args
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    f(); // warm the file cache
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn find_nvlink() -> Option<PathBuf> {
    culdb::link::find_tool("nvlink")
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
    let n = arg("--units", 1500).max(1);
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
    bench(
        "corpus dynpar_cudadevrt_sm90 (dp.cubin + libcudadevrt.a)",
        &case,
        &args,
        runs,
    );
    let gen_dir = std::env::temp_dir().join(format!("culdb-bench-gen-{}", std::process::id()));
    let gen_args = generate(&gen_dir, n, &templates(&root));
    println!();
    bench(
        &format!(
            "generated: {n} renamed copies of extern_call_sm90 ({} objects, {} functions, {n} globals)",
            2 * n,
            2 * n
        ),
        &gen_dir,
        &gen_args,
        runs.min(3),
    );
    if std::env::var_os("CULDB_BENCH_KEEP").is_some() {
        println!("(generated inputs kept in {})", gen_dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&gen_dir);
    }
}
