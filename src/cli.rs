//! The command line: `culdb link`, `culdb repl`, `culdb trace`, `culdb dump`, `culdb diff`.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand};

use crate::cubin::{self, Cubin};

#[derive(Parser, Debug)]
#[command(name = "culdb", version, about = "An interactive debugger for CUDA device links")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Runs one nvJitLink link for a parent culdb (inputs on stdin, the
    /// result on stdout): `link::nvjitlink::link_in_child`.
    #[command(name = "nvjitlink-worker", hide = true)]
    NvjitlinkWorker {
        library: PathBuf,
        #[arg(long)]
        ptx: bool,
        #[arg(last = true)]
        options: Vec<String>,
    },
    /// Link like nvlink: takes nvlink's device-link command line (see
    /// `culdb link -h`). Diagnostics, their order and exit statuses are
    /// nvlink's; a failing link leaves no output file.
    #[command(disable_help_flag = true)]
    Link {
        /// Print every event of the link (one line each) on stdout.
        #[arg(long)]
        events: bool,
        /// Print the events as JSON lines on stdout instead.
        #[arg(long)]
        json: bool,
        /// nvlink's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Make DIR an overlay of a CUDA toolkit whose `bin/nvlink` is culdb:
    /// `DIR/bin/nvcc ...` and `cmake -DCMAKE_CUDA_COMPILER=DIR/bin/nvcc`
    /// then device-link with culdb.
    Toolkit {
        /// The overlay folder (created; must be empty or absent).
        dir: PathBuf,
        /// The toolkit (the folder holding bin/nvcc); default: the nvcc on
        /// PATH, else scripts/cuda-tools.sh's, else /usr/local/cuda.
        #[arg(long)]
        cuda: Option<PathBuf>,
    },
    /// List the links captured with CULDB_CAPTURE=DIR (number, status,
    /// time, output size, folder) and write DIR/jobs.ron for `culdb batch`;
    /// `--repl N` or `--tui N` opens link N in the debugger.
    Captured {
        dir: PathBuf,
        #[arg(long, value_name = "N", conflicts_with = "tui")]
        repl: Option<String>,
        #[arg(long, value_name = "N")]
        tui: Option<String>,
    },
    /// Run many links in parallel from a jobs file: RON
    /// (`(jobs: [(name: "a", dir: "sub", args: ["-arch=sm_90", "a.cubin", "-o", "a.out"])])`)
    /// or one nvlink command line per line. Each job gives what `culdb link`
    /// gives for it alone. Exits 0 when every job exited 0, 1 when one did
    /// not, 2 for a bad jobs file.
    Batch {
        /// The jobs file (paths in it are relative to its folder).
        jobs: PathBuf,
        /// How many links run at once (default: the number of cores).
        #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        threads: Option<u16>,
        /// Write the JSON report (per job: status, diagnostics, time, output
        /// SHA-256) to FILE; `-` for stdout, which then gets no table.
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Print a line per finished job on stderr (when it is not a
        /// terminal; a terminal gets a progress bar).
        #[arg(short, long)]
        verbose: bool,
    },
    /// Debug a link at a prompt: takes nvlink's command line. Reads commands
    /// from stdin line by line (and exits with the link's status) when stdin
    /// is not a terminal. `help` at the prompt lists the commands.
    #[command(disable_help_flag = true)]
    Repl {
        /// nvlink's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Debug a link in a terminal interface: panes of the live link state
    /// (sections, inputs, symbols, mapping arrays, weak decisions, layout,
    /// relocation bits, tables, events, breakpoints) and the REPL's command
    /// language on `:`. Keys: s n c r f b : / tab ? q. Takes nvlink's
    /// command line after the options; exits with the link's status.
    Tui {
        /// The tab to open on: a view preset's name (overview, merge, weak,
        /// relocations, tables, layout) or the path of a .ron preset.
        #[arg(long)]
        view: Option<String>,
        /// A folder of view presets (overrides the shipped ones by name).
        #[arg(long)]
        views_dir: Option<PathBuf>,
        /// Capture the mouse (click focuses a pane, the wheel scrolls).
        #[arg(long)]
        mouse: bool,
        /// Open a scenario instead of a command line: its link, its
        /// breakpoints set, stopped at the first one.
        #[arg(long, conflicts_with = "args")]
        scenario: Option<PathBuf>,
        /// nvlink's arguments.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            required_unless_present = "scenario"
        )]
        args: Vec<String>,
    },
    /// Print every event of a link, one line each (`--json`: JSON lines);
    /// `--level phase|input|decision|all` chooses the detail (default all).
    /// Takes nvlink's command line; writes no output file; exits with the
    /// link's status.
    #[command(disable_help_flag = true)]
    Trace {
        /// nvlink's arguments, with --json and --level anywhere among them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// List sections, symbols (with demangled names), relocations and the decoded
    /// .nv.* tables of cubins; archives, host objects and fatbins are listed
    /// member by member with the cubins inside dumped.
    Dump {
        /// Files to list.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON (one document: an array with an entry per file).
        #[arg(long)]
        json: bool,
    },
    /// Where the output's bytes come from (bloaty-style): by kind, section,
    /// input, archive member, kernel or symbol (`--by`), adding up to the
    /// file size; `--diff A B` compares two cubins or links. Takes a cubin,
    /// a `.args` file or nvlink's command line (`culdb size -h`).
    #[command(disable_help_flag = true)]
    Size {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The chain (kernel or option, calls, address references) that keeps
    /// each SYMBOL in the output: `culdb why-kept [--json] NVLINK-ARGS -- SYMBOL...`.
    #[command(disable_help_flag = true)]
    WhyKept {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Why each archive MEMBER was linked or left out:
    /// `culdb why-pulled [--json] NVLINK-ARGS -- MEMBER...`.
    #[command(disable_help_flag = true)]
    WhyPulled {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Compare two cubins under the equivalence contract with nvlink. Exits 0
    /// when equivalent, 1 when not, 2 on bad input.
    Diff {
        a: PathBuf,
        b: PathBuf,
        /// Also compare the files byte for byte apart from .note.nv.tkinfo.
        #[arg(long)]
        strict: bool,
        /// Print the differences as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Link every case of a corpus (default: tests/corpus) and compare each
    /// with what nvlink produced: equivalent output for the cases nvlink
    /// linked, nvlink's diagnostics and status for the ones it refused.
    /// Exits 0 when every case conforms, 1 otherwise.
    Conform {
        #[arg(default_value = "tests/corpus")]
        corpus: PathBuf,
        /// Only the cases whose name contains this.
        #[arg(long)]
        only: Option<String>,
        /// Print one JSON document (the summary and every case).
        #[arg(long)]
        json: bool,
        /// Print every difference, not just the first three per case.
        #[arg(long)]
        all: bool,
        /// Link each successful case with `-r` added and compare with
        /// nvlink's `-r` output of the same inputs (`expected/r/`).
        #[arg(short = 'r', long)]
        relocatable: bool,
        /// For each equivalent case that is not byte-identical, print where
        /// its bytes first differ from nvlink's (apart from .note.nv.tkinfo).
        #[arg(long)]
        strict: bool,
    },
    /// Replay scenarios (RON files, see scenarios/README.md) headlessly:
    /// set their breakpoints, run their scripts, and report each
    /// expectation as passed or failed with what was seen. Exits 0 when
    /// every scenario passes, 1 when one fails, 2 when one cannot be read.
    Replay {
        /// Scenario files (a folder: every .ron file in it).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON document: a report per scenario.
        #[arg(long)]
        json: bool,
        /// Show every expectation and the script's transcript.
        #[arg(long, short)]
        verbose: bool,
        /// Also link each scenario's inputs with the real nvlink and check
        /// that culdb agrees (status, diagnostics, equivalent output).
        #[arg(long)]
        nvlink: bool,
        /// Open the (one) scenario in the terminal interface instead,
        /// stopped at its first breakpoint.
        #[arg(long, conflicts_with_all = ["json", "nvlink"])]
        tui: bool,
    },
}

/// Runs the command line; returns the exit status. Run under the name
/// `nvlink` (a link or copy, as `culdb toolkit` makes), culdb is `culdb link`.
pub fn main() -> i32 {
    crate::link::nvjitlink::this_process_is_the_cli();
    let mut argv = std::env::args_os();
    let invoked_as = argv
        .next()
        .map(|a| Path::new(&a).file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    if invoked_as.as_deref() == Some("nvlink") {
        let args: Vec<String> = argv.map(|a| a.to_string_lossy().into_owned()).collect();
        return run_as_nvlink(&args);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    match cli.command {
        Command::Link { events, json, args } => run_link(&args, events, json),
        Command::NvjitlinkWorker { library, ptx, options } => {
            crate::link::nvjitlink::worker_main(&library, ptx, &options)
        }
        Command::Batch {
            jobs,
            threads,
            json,
            verbose,
        } => run_batch(jobs, threads, json, verbose),
        Command::Repl { args } => crate::repl::main(&args),
        Command::Toolkit { dir, cuda } => run_toolkit(&dir, cuda),
        Command::Captured { dir, repl, tui } => run_captured(&dir, repl, tui),
        Command::Tui {
            view,
            views_dir,
            mouse,
            scenario,
            args,
        } => run_tui(&args, scenario.as_deref(), view, views_dir, mouse),
        Command::Trace { args } => crate::debug::trace::main(&args),
        Command::Dump { files, json } => run_dump(&files, json),
        Command::Diff { a, b, strict, json } => run_diff(&a, &b, strict, json),
        Command::Size { args } => crate::report::cli::size_main(&args),
        Command::WhyKept { args } => crate::report::cli::why_kept_main(&args),
        Command::WhyPulled { args } => crate::report::cli::why_pulled_main(&args),
        Command::Conform {
            corpus,
            only,
            json,
            all,
            relocatable,
            strict,
        } => {
            let mode = if relocatable {
                crate::conform::Mode::Relocatable
            } else {
                crate::conform::Mode::Final
            };
            run_conform(&corpus, only.as_deref(), json, all, strict, mode)
        }
        Command::Replay {
            files,
            json,
            verbose,
            nvlink,
            tui,
        } => match (tui, files.as_slice()) {
            (true, [one]) => scenario_tui(one, crate::tui::TuiOptions::default()),
            (true, _) => {
                eprintln!("culdb replay: --tui opens one scenario; {} given", files.len());
                2
            }
            (false, _) => crate::scenario::replay::main(&files, json, verbose, nvlink),
        },
    }
}

/// `culdb tui [--view NAME] [--views-dir DIR] [--mouse] (--scenario FILE | NVLINK-ARGS...)`.
fn run_tui(
    args: &[String],
    scenario: Option<&Path>,
    view: Option<String>,
    views_dir: Option<PathBuf>,
    mouse: bool,
) -> i32 {
    let opts = crate::tui::TuiOptions {
        view,
        views_dir,
        mouse,
        ..Default::default()
    };
    match scenario {
        Some(f) => scenario_tui(f, opts),
        None => crate::tui::main(args, opts),
    }
}

/// `culdb tui --scenario FILE` and `culdb replay --tui FILE`: the scenario's
/// session in the terminal interface, stopped at its first breakpoint. The
/// composition lives here: scenarios know nothing of the interface.
fn scenario_tui(file: &Path, mut opts: crate::tui::TuiOptions) -> i32 {
    use crate::scenario::{Scenario, replay};
    let scenario = match Scenario::load(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("culdb: {e}");
            return 2;
        }
    };
    let opened = match replay::open(&scenario, file) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("culdb: {e}");
            return 2;
        }
    };
    if !scenario.breakpoints.is_empty() {
        opts.startup_commands.push("continue".into());
    }
    let replay::Opened { session, workdir } = opened;
    let status = crate::tui::run(session, opts);
    drop(workdir);
    status
}

/// Writes to stdout; a closed pipe (`culdb dump x | head`) is not an error.
pub use crate::cmd::out;

/// A diagnostic naming the file, printed as one line.
fn report(cmd: &str, file: &Path, msg: impl std::fmt::Display) {
    eprintln!("culdb {cmd}: {}: {msg}", file.display());
}

fn read_file(cmd: &str, path: &Path) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(d) => Some(d),
        Err(e) => {
            report(cmd, path, format!("cannot read: {e}"));
            None
        }
    }
}

fn run_dump(files: &[PathBuf], json: bool) -> i32 {
    let mut docs = Vec::new();
    let mut status = 0;
    for f in files {
        let Some(data) = read_file("dump", f) else {
            status = 2;
            continue;
        };
        match crate::dump::file(&f.display().to_string(), &data) {
            Ok(d) => {
                if json {
                    docs.push(d);
                } else {
                    out(&crate::dump::file_text(&d));
                }
            }
            Err(e) => {
                report("dump", f, e);
                status = 2;
            }
        }
    }
    if json {
        match serde_json::to_string_pretty(&docs) {
            Ok(s) => out(&format!("{s}\n")),
            Err(e) => {
                eprintln!("culdb dump: cannot write JSON: {e}");
                return 2;
            }
        }
    }
    status
}

fn parse_cubin<'d>(path: &Path, data: &'d [u8]) -> Option<Cubin<'d>> {
    match cubin::read::parse(data) {
        Ok(c) => Some(c),
        Err(e) => {
            report("diff", path, e);
            None
        }
    }
}

fn run_diff(a: &Path, b: &Path, strict: bool, json: bool) -> i32 {
    let (Some(da), Some(db)) = (read_file("diff", a), read_file("diff", b)) else {
        return 2;
    };
    let (Some(ca), Some(cb)) = (parse_cubin(a, &da), parse_cubin(b, &db)) else {
        return 2;
    };
    let diffs = crate::diff::equivalence(&ca, &cb);
    let strict_diff = if strict {
        crate::diff::strict(&da, &ca, &db, &cb)
    } else {
        None
    };
    if json {
        let doc = serde_json::json!({
            "a": a.display().to_string(),
            "b": b.display().to_string(),
            "equivalent": diffs.is_empty(),
            "differences": diffs,
            "strict": if strict { Some(serde_json::json!({ "identical": strict_diff.is_none(), "difference": strict_diff })) } else { None },
        });
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        let mut o = String::new();
        for d in &diffs {
            o.push_str(&format!("{d}\n"));
        }
        if let Some(d) = &strict_diff {
            o.push_str(&format!("strict: {d}\n"));
        }
        if diffs.is_empty() {
            o.push_str(&format!("equivalent: {} and {}\n", a.display(), b.display()));
        } else {
            o.push_str(&format!(
                "{} difference(s) between {} and {}\n",
                diffs.len(),
                a.display(),
                b.display()
            ));
        }
        if strict && strict_diff.is_none() {
            o.push_str(if da == db {
                "byte-identical, .note.nv.tkinfo included\n"
            } else {
                "identical apart from .note.nv.tkinfo\n"
            });
        }
        out(&o);
    }
    if diffs.is_empty() && strict_diff.is_none() {
        0
    } else {
        1
    }
}

fn run_conform(
    corpus: &Path,
    only: Option<&str>,
    json: bool,
    all: bool,
    strict: bool,
    mode: crate::conform::Mode,
) -> i32 {
    let cases: Vec<PathBuf> = crate::conform::cases_for(corpus, mode)
        .into_iter()
        .filter(|c| only.is_none_or(|o| c.to_string_lossy().contains(o)))
        .collect();
    if cases.is_empty() {
        report("conform", corpus, "no corpus cases (folders with a link.args) here");
        return 2;
    }
    // Progress on a terminal only (indicatif draws nothing elsewhere).
    let target = if json {
        indicatif::ProgressDrawTarget::hidden()
    } else {
        indicatif::ProgressDrawTarget::stderr()
    };
    let bar = indicatif::ProgressBar::with_draw_target(Some(cases.len() as u64), target);
    if let Ok(style) = indicatif::ProgressStyle::with_template("[{bar:30}] {pos}/{len} cases {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    let mut results = Vec::new();
    for case in &cases {
        bar.set_message(case.display().to_string());
        results.push(crate::conform::check_case(case, mode));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let summary = crate::conform::summarize(&results);
    if json {
        let doc = serde_json::json!({ "summary": summary, "cases": results });
        out(&format!("{}\n", serde_json::to_string_pretty(&doc).unwrap_or_default()));
    } else {
        let mut o = String::new();
        for r in &results {
            let mark = match (&r.skipped, r.conforms) {
                (Some(_), _) => "skip",
                (None, true) if r.identical => "same",
                (None, true) => "ok",
                (None, false) => "DIFF",
            };
            o.push_str(&format!("{mark:<5} {}\n", r.case));
            if strict && let Some(s) = &r.strict_difference {
                o.push_str(&format!("        strict: {s}\n"));
            }
            let shown = if all { r.differences.len() } else { 3 };
            for d in r.differences.iter().take(shown) {
                o.push_str(&format!("        {d}\n"));
            }
            if r.differences.len() > shown {
                o.push_str(&format!("        … {} more\n", r.differences.len() - shown));
            }
        }
        o.push_str(&format!(
            "successful cases: {}/{} equivalent ({} byte-identical); failing cases: {}/{} conform; {} skipped\n",
            summary.ok_equivalent,
            summary.ok_total,
            summary.ok_identical,
            summary.failing_conforming,
            summary.failing_total,
            summary.skipped
        ));
        out(&o);
    }
    if results.iter().all(|r| r.conforms || r.skipped.is_some()) {
        0
    } else {
        1
    }
}

fn run_batch(jobs_file: PathBuf, threads: Option<u16>, json: Option<PathBuf>, verbose: bool) -> i32 {
    crate::batch::main(&crate::batch::BatchArgs {
        jobs_file,
        threads: threads.map(usize::from),
        json,
        verbose,
    })
}

/// One malloc arena for a single link: glibc gives each thread that
/// allocates its own, and the parallel phases (reading, relocating,
/// writing) then leave a fifth more resident memory for no time gained
/// (5,000 objects: 105 MB against 86 MB, 0.55 s both).
fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tuning parameter of glibc's allocator; it
    // runs before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

fn run_link(args: &[String], events: bool, json: bool) -> i32 {
    use crate::batch::Emit;
    one_malloc_arena();
    // `-Map FILE` (culdb's, not nvlink's): the link map, written after the output.
    let (args, map) = crate::report::cli::split_map_args(args);
    let mut written = Vec::new();
    let linked = crate::batch::link(&args, Path::new("."), &mut |e| match e {
        Emit::Stdout(s) => out(s),
        Emit::Stderr(l) => eprintln!("{l}"),
        Emit::Event(e) if json => out(&format!("{}\n", serde_json::to_string(e).unwrap_or_default())),
        Emit::Event(e) if events => out(&format!("{e}\n")),
        Emit::Output(b) if map.is_some() => written = b.to_vec(),
        Emit::Event(_) | Emit::Output(_) => {}
    });
    match map {
        Some((file, as_json)) if linked.status == 0 && linked.written => {
            crate::report::cli::write_map(&args, &file, as_json, &written)
        }
        _ => linked.status,
    }
}

/// `culdb toolkit DIR [--cuda CUDA]`.
fn run_toolkit(dir: &Path, cuda: Option<PathBuf>) -> i32 {
    let Some(cuda) = cuda.or_else(crate::toolkit::default_cuda) else {
        eprintln!("culdb toolkit: no CUDA toolkit found (give --cuda, or run scripts/cuda-tools.sh)");
        return 2;
    };
    let culdb = match std::env::current_exe().and_then(std::fs::canonicalize) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("culdb toolkit: cannot find culdb's own executable: {e}");
            return 2;
        }
    };
    match crate::toolkit::build(dir, &cuda, &culdb) {
        Ok(()) => {
            out(&format!(
                "{}: {} with culdb as nvlink; use {}\n",
                dir.display(),
                cuda.display(),
                dir.join("bin/nvcc").display()
            ));
            0
        }
        Err(e) => {
            eprintln!("culdb toolkit: {e}");
            2
        }
    }
}

/// culdb run as `nvlink`: `culdb link`, and with `CULDB_CAPTURE=DIR` set,
/// the link is also saved there (`crate::capture`).
fn run_as_nvlink(args: &[String]) -> i32 {
    let start = std::time::Instant::now();
    let linked = crate::batch::link(args, Path::new("."), &mut |e| match e {
        crate::batch::Emit::Stdout(s) => out(s),
        crate::batch::Emit::Stderr(l) => eprintln!("{l}"),
        _ => {}
    });
    if let Some(dir) = std::env::var_os("CULDB_CAPTURE").filter(|d| !d.is_empty()) {
        let output = linked.output.as_deref().filter(|_| linked.written);
        crate::capture::save(
            Path::new(&dir),
            args,
            linked.status,
            start.elapsed().as_millis(),
            output,
        );
    }
    linked.status
}

/// `culdb captured DIR [--repl N | --tui N]`.
fn run_captured(dir: &Path, repl: Option<String>, tui: Option<String>) -> i32 {
    let links = match crate::capture::list(dir) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("culdb captured: {e}");
            return 2;
        }
    };
    let open = repl.as_ref().or(tui.as_ref());
    if let Some(n) = open {
        let Some((name, r)) = links
            .iter()
            .find(|(name, _)| name == n || name.trim_start_matches('0') == n)
        else {
            eprintln!("culdb captured: no link {n} in {}", dir.display());
            return 2;
        };
        if let Err(e) = std::env::set_current_dir(dir.join(name)) {
            eprintln!("culdb captured: {e}");
            return 2;
        }
        return if repl.is_some() {
            crate::repl::main(&r.replay_args)
        } else {
            run_tui(&r.replay_args, None, None, None, false)
        };
    }
    out(&format!(
        "{:<6} {:>6} {:>8} {:>10}  folder: command\n",
        "link", "status", "ms", "output"
    ));
    for (name, r) in &links {
        let size = r.output_size.map_or("-".to_string(), |s| s.to_string());
        out(&format!(
            "{:<6} {:>6} {:>8} {:>10}  {}: nvlink {}\n",
            name,
            r.status,
            r.millis,
            size,
            r.cwd,
            r.args.join(" ")
        ));
    }
    match crate::capture::jobs_file(dir, &links) {
        Ok(p) => {
            out(&format!(
                "{} links; re-run them all: culdb batch {}\n",
                links.len(),
                p.display()
            ));
            0
        }
        Err(e) => {
            eprintln!("culdb captured: {e}");
            2
        }
    }
}
