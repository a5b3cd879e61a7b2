//! `culdb batch JOBS`: many links at once, and the one link routine that
//! `culdb link` also runs.
//!
//! [`link`] is `culdb link` without the terminal: it parses nvlink's command
//! line in a folder, steps the linker, hands every diagnostic line (stderr),
//! event and the output bytes to its caller, and writes the output through
//! a temporary file beside it, so a failing link leaves none. `culdb link`
//! prints what it is handed; a batch job records it, so a job's status,
//! diagnostics and output are what `culdb link` gives for it alone.
//!
//! [`run`] runs the jobs of a jobs file ([`jobs`]) on a pool of `-j`
//! threads (rayon's) and returns their results in job order; [`main`] is the
//! command: progress (an indicatif bar on a terminal), the JSON report
//! (output digests are SHA-256, see [`sha256`]) or a table, and the exit
//! status.

pub mod jobs;
pub mod sha256;
pub mod timing;

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

pub use jobs::{Job, JobsError};

use crate::link::{self, diag::Diagnostic, event::Event, options};

/// What [`link`] hands its caller as the link goes.
#[derive(Debug)]
pub enum Emit<'a> {
    /// Text `culdb link` prints on stdout (`-h`, `--version`).
    Stdout(&'a str),
    /// A diagnostic line `culdb link` prints on stderr.
    Stderr(&'a str),
    /// An event of the link (after the diagnostic line it carries, if any).
    Event(&'a Event),
    /// The output file's bytes, just before they are written.
    Output(&'a [u8]),
}

/// How a link ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linked {
    /// The exit status `culdb link` gives.
    pub status: i32,
    /// The output file (`-o`, in the link's folder), when the command line named one.
    pub output: Option<PathBuf>,
    /// Whether the output file was written.
    pub written: bool,
}

/// Links nvlink's command line `args` as `culdb link` run from `dir` does:
/// relative inputs read from `dir`, a relative `-o` written there.
pub fn link(args: &[String], dir: &Path, emit: &mut dyn FnMut(Emit<'_>)) -> Linked {
    let mut linked = Linked {
        status: 0,
        output: None,
        written: false,
    };
    let opts = match options::parse_in(args, dir) {
        Ok(o) => o,
        Err(e) => {
            for d in &e.diagnostics {
                emit(Emit::Stderr(&d.line()));
            }
            linked.status = e.status;
            return linked;
        }
    };
    for w in &opts.warnings {
        emit(Emit::Stderr(&w.line()));
    }
    if opts.help {
        emit(Emit::Stdout(&options::usage()));
        return linked;
    }
    if opts.version {
        emit(Emit::Stdout(&format!(
            "culdb {} (links as nvlink 13.5 does)\n",
            env!("CARGO_PKG_VERSION")
        )));
        return linked;
    }
    if let Some(kind) = opts.gen_host_linker_script {
        // A host linker script instead of a link (`link::host_script`).
        let host = opts.undocumented.host_ccbin.as_deref().unwrap_or("gcc");
        let written = link::host_script::script(kind, host).and_then(|text| match opts.output_file.as_deref() {
            Some(out) => write_output(&in_dir(dir, out), text.as_bytes())
                .map_err(|e| format!("Could not open output file '{out}': {e}")),
            None => {
                emit(Emit::Stdout(&text));
                Ok(())
            }
        });
        if let Err(e) = written {
            emit(Emit::Stderr(&Diagnostic::fatal(e).line()));
            linked.status = 1;
        }
        return linked;
    }
    if link::virtual_target::applies(&opts) {
        // Nothing is linked; only the registration file is written.
        match link::virtual_target::modules(&opts, dir, &link::library_search_dirs(&opts)) {
            Ok(modules) => {
                if let Some(reg) = opts.register_link_binaries.as_deref()
                    && let Err(e) = write_output(&in_dir(dir, reg), link::register::text(&modules).as_bytes())
                {
                    let d = Diagnostic::fatal(format!("Could not open output file '{reg}': {e}"));
                    emit(Emit::Stderr(&d.line()));
                    linked.status = 1;
                }
            }
            Err(d) => {
                emit(Emit::Stderr(&d.line()));
                linked.status = 1;
            }
        }
        return linked;
    }
    linked.output = opts.output_file.as_deref().map(|p| in_dir(dir, p));
    // `-time FILE`: the header before anything is read, the LTO rows as the
    // step reports them (`timing`).
    let time = |emit: &mut dyn FnMut(Emit<'_>), text: &str, append: bool| match opts.time.as_deref() {
        Some("-") => emit(Emit::Stdout(text)),
        Some(file) => {
            use std::io::Write;
            let _ = std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .append(append)
                .truncate(!append)
                .open(in_dir(dir, file))
                .and_then(|mut f| f.write_all(text.as_bytes()));
        }
        None => {}
    };
    time(emit, timing::HEADER, false);
    let arch = opts.arch.clone().unwrap_or_default();
    let mut linker = link::linker_from(&opts, dir);
    loop {
        let step = linker.step();
        for e in &step.events {
            if let Event::Diagnostic(d) = e {
                emit(Emit::Stderr(&d.line()));
            }
            if let Event::LtoCompiled { compiled, .. } = e {
                time(emit, &timing::lto_rows(compiled, &arch), true);
            }
            emit(Emit::Event(e));
        }
        if step.finished {
            break;
        }
    }
    let status = linker.exit_status();
    if status != 0 || linker.failed() {
        linked.status = if status != 0 { status } else { 1 };
        // Errors that are not fatal (an undefined reference, -Werror):
        // nvlink still writes the registration file (status 255), not after
        // a fatal one (status 1).
        if status == 255
            && let Some(reg) = opts.register_link_binaries.as_deref()
            && !keeps_register_file(&linker, &in_dir(dir, reg))
        {
            let text = link::register::contents(linker.state(), dir);
            let _ = write_output(&in_dir(dir, reg), text.as_bytes());
        }
        return linked;
    }
    let (Some(bytes), Some(path)) = (linker.output(), opts.output_file.as_deref()) else {
        emit(Emit::Stderr(&Diagnostic::fatal("no output was built").line()));
        linked.status = 1;
        return linked;
    };
    emit(Emit::Output(bytes));
    match write_output(&in_dir(dir, path), bytes) {
        Ok(()) => linked.written = true,
        Err(e) => {
            let d = Diagnostic::fatal(format!("Could not open output file '{path}': {e}"));
            emit(Emit::Stderr(&d.line()));
            linked.status = 1;
            return linked;
        }
    }
    if let Some(reg) = opts.register_link_binaries.as_deref()
        && !keeps_register_file(&linker, &in_dir(dir, reg))
    {
        let text = link::register::contents(linker.state(), dir);
        if let Err(e) = write_output(&in_dir(dir, reg), text.as_bytes()) {
            let d = Diagnostic::fatal(format!("Could not open output file '{reg}': {e}"));
            emit(Emit::Stderr(&d.line()));
            linked.status = 1;
        }
    }
    // Freeing the whole link state is a few percent of a large link: it
    // happens beside whatever comes next (the next job of a batch), and a
    // `culdb link` process exits without waiting for it.
    std::thread::spawn(move || drop(linker));
    linked
}

/// nvlink leaves an existing registration file as it is when it read
/// libcudadevrt and linked nothing of it (observation 119).
fn keeps_register_file(linker: &link::Linker, path: &Path) -> bool {
    linker.system_library_unused() && path.exists()
}

/// `path` taken from `dir`; as written when `dir` is the current folder (or
/// the path is empty), so that I/O errors read as `culdb link`'s.
fn in_dir(dir: &Path, path: &str) -> PathBuf {
    if path.is_empty() || dir == Path::new(".") {
        PathBuf::from(path)
    } else {
        dir.join(path)
    }
}

/// Writes `bytes` to `path` as careful linkers do: through a temporary file
/// beside the target, persisted over it only on success (a failed write
/// leaves no partial file and no temporary one); a symbolic link is
/// followed; a target that is not a regular file (`/dev/null`, a FIFO) is
/// written in place, never replaced.
pub fn write_output(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let target = match std::fs::read_link(path) {
        Ok(to) if to.is_relative() => path.parent().map_or(to.clone(), |d| d.join(&to)),
        Ok(to) => to,
        Err(_) => path.to_path_buf(),
    };
    if std::fs::metadata(&target).is_ok_and(|m| !m.is_file()) {
        return std::fs::OpenOptions::new().write(true).open(&target)?.write_all(bytes);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".culdb-").suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // As File::create: 0666 less the umask.
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// The result of one job, as the JSON report gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobResult {
    pub name: String,
    pub dir: String,
    pub args: Vec<String>,
    /// `culdb link`'s exit status for the job.
    pub status: i32,
    pub ok: bool,
    /// The lines `culdb link` prints on stderr, in order.
    pub diagnostics: Vec<String>,
    /// What `culdb link` prints on stdout (`-h`, `--version`); usually empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    /// Wall time of the link, milliseconds.
    pub time_ms: f64,
    /// The output file the command line names (in the job's folder).
    pub output: Option<String>,
    /// Whether the output file was written (never on failure).
    pub written: bool,
    /// SHA-256 of the written output, lowercase hex (as `sha256sum` prints it).
    pub output_sha256: Option<String>,
    /// Size of the written output in bytes.
    pub output_bytes: Option<usize>,
}

/// Runs one job.
pub fn run_job(job: &Job) -> JobResult {
    let start = Instant::now();
    let mut diagnostics = Vec::new();
    let mut stdout = String::new();
    let mut out = None;
    let linked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        link(&job.args, &job.dir, &mut |e| match e {
            Emit::Stdout(s) => stdout.push_str(s),
            Emit::Stderr(l) => diagnostics.push(l.to_string()),
            Emit::Event(_) => {}
            Emit::Output(b) => out = Some((sha256::hex(b), b.len())),
        })
    }));
    let linked = linked.unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        diagnostics.push(format!("{} fatal   : internal error (panic): {what}", link::diag::TOOL));
        Linked {
            status: 101,
            output: None,
            written: false,
        }
    });
    let out = out.filter(|_| linked.written);
    JobResult {
        name: job.name.clone(),
        dir: job.dir.display().to_string(),
        args: job.args.clone(),
        status: linked.status,
        ok: linked.status == 0,
        diagnostics,
        stdout,
        time_ms: millis(start.elapsed()),
        output: linked.output.map(|p| p.display().to_string()),
        written: linked.written,
        output_sha256: out.as_ref().map(|o| o.0.clone()),
        output_bytes: out.map(|o| o.1),
    }
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// The output file a job's command line names, for [`check_outputs`]:
/// lexically normalized, with its folder resolved when it exists.
pub fn planned_output(job: &Job) -> Option<PathBuf> {
    let opts = options::parse_in(&job.args, &job.dir).ok()?;
    if opts.help || opts.version {
        return None;
    }
    let path = normalize(&in_dir(&job.dir, &opts.output_file?));
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Some(path);
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    Some(match parent.canonicalize() {
        Ok(p) => p.join(name),
        Err(_) => path,
    })
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// Refuses jobs that would write the same output file (they would race).
pub fn check_outputs(jobs: &[Job]) -> Result<(), String> {
    let mut seen: HashMap<PathBuf, &Job> = HashMap::new();
    for j in jobs {
        let Some(out) = planned_output(j) else { continue };
        if let Some(first) = seen.get(&out) {
            return Err(format!(
                "jobs '{}' ({}) and '{}' ({}) both write {}",
                first.name,
                first.origin,
                j.name,
                j.origin,
                out.display()
            ));
        }
        seen.insert(out, j);
    }
    Ok(())
}

/// Runs `jobs` on `threads` threads (a pool of workers, jobs taken in
/// order); `done` hears of each finished job (its index and result) as it
/// finishes, on the calling thread. The results come back in job order.
pub fn run(jobs: &[Job], threads: usize, done: &mut dyn FnMut(usize, &JobResult)) -> Vec<JobResult> {
    let mut results: Vec<Option<JobResult>> = vec![None; jobs.len()];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.clamp(1, jobs.len().max(1)))
        .thread_name(|_| "culdb-batch".into())
        // The main thread's stack size: the linker gets what `culdb link` gets.
        .stack_size(8 << 20)
        .build();
    if let Ok(pool) = pool {
        let (tx, rx) = std::sync::mpsc::channel();
        pool.in_place_scope_fifo(|s| {
            for (i, job) in jobs.iter().enumerate() {
                let tx = tx.clone();
                s.spawn_fifo(move |_| {
                    let _ = tx.send((i, run_job(job)));
                });
            }
            drop(tx);
            for (i, r) in rx {
                done(i, &r);
                results[i] = Some(r);
            }
        });
    }
    // A job no thread could take (no pool started) runs here.
    results
        .into_iter()
        .zip(jobs)
        .enumerate()
        .map(|(i, (r, j))| {
            r.unwrap_or_else(|| {
                let r = run_job(j);
                done(i, &r);
                r
            })
        })
        .collect()
}

/// The report's totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub jobs: usize,
    pub ok: usize,
    pub failed: usize,
    pub threads: usize,
    pub wall_ms: f64,
}

/// The JSON report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub jobs_file: String,
    pub summary: Summary,
    pub jobs: Vec<JobResult>,
}

/// `culdb batch`'s options.
#[derive(Debug, Clone)]
pub struct BatchArgs {
    pub jobs_file: PathBuf,
    /// Jobs at once; `None`: the number of cores.
    pub threads: Option<usize>,
    /// Where the JSON report goes (`-` for stdout); `None`: a table on stdout.
    pub json: Option<PathBuf>,
    /// A line per finished job on stderr when it is not a terminal.
    pub verbose: bool,
}

/// The progress bar on stderr: `[=====>    ] 37/115 jobs, 2 failed, 3s`.
/// Hidden when stderr is not a terminal (pipes and tests see nothing of it).
fn progress_bar(total: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("[{bar:30}] {pos}/{len} jobs, {msg}, {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message("0 failed");
    bar
}

/// `culdb batch`: returns the exit status (0 when every job exited 0, 1
/// when one did not, 2 for a bad jobs file or report path).
pub fn main(a: &BatchArgs) -> i32 {
    let jobs = match jobs::read(&a.jobs_file) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("culdb batch: {e}");
            return 2;
        }
    };
    if let Err(e) = check_outputs(&jobs) {
        eprintln!("culdb batch: {}: {e}", a.jobs_file.display());
        return 2;
    }
    let threads = a
        .threads
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let start = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let (mut finished, mut failed) = (0, 0);
    let total = jobs.len();
    let bar = tty.then(|| progress_bar(total));
    let mut on_done = |_: usize, r: &JobResult| {
        finished += 1;
        failed += usize::from(!r.ok);
        if let Some(bar) = &bar {
            bar.set_message(format!("{failed} failed"));
            bar.inc(1);
        } else if a.verbose {
            let what = if r.ok {
                "ok".to_string()
            } else {
                format!("FAILED (status {})", r.status)
            };
            eprintln!("[{finished}/{total}] {}: {what}, {:.1} ms", r.name, r.time_ms);
        }
    };
    let results = run(&jobs, threads, &mut on_done);
    if let Some(bar) = &bar {
        bar.finish();
    }
    let failed = results.iter().filter(|r| !r.ok).count();
    let report = Report {
        jobs_file: a.jobs_file.display().to_string(),
        summary: Summary {
            jobs: results.len(),
            ok: results.len() - failed,
            failed,
            threads,
            wall_ms: millis(start.elapsed()),
        },
        jobs: results,
    };
    let to_stdout = a.json.as_deref() == Some(Path::new("-"));
    if let Some(path) = a.json.as_deref() {
        let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
        text.push('\n');
        if to_stdout {
            print_out(&text);
        } else if let Err(e) = write_output(path, text.as_bytes()) {
            eprintln!("culdb batch: {}: cannot write the report: {e}", path.display());
            return 2;
        }
    }
    if !to_stdout {
        print_out(&table(&report));
    }
    if failed == 0 { 0 } else { 1 }
}

/// Writes to stdout; a closed pipe is not an error.
fn print_out(s: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

/// `s` followed by spaces to `width` characters.
fn pad_to(s: &str, width: usize) -> String {
    let n = s.chars().count();
    let mut o = String::with_capacity(s.len() + width.saturating_sub(n));
    o.push_str(s);
    o.extend(std::iter::repeat_n(' ', width.saturating_sub(n)));
    o
}

/// The human table: a line per job (status, time, name, output), the
/// diagnostics of the failed ones, and the totals.
pub fn table(r: &Report) -> String {
    let width = r.jobs.iter().map(|j| j.name.chars().count()).max().unwrap_or(0).max(3);
    // Padded by hand: the formatter's width is limited to 16 bits, and a
    // job's name (from a jobs file) may be longer.
    let mut o = format!("{:>6}  {:>10}  {}  output\n", "status", "time", pad_to("job", width));
    for j in &r.jobs {
        let output = match (&j.output, j.written) {
            (Some(p), true) => p.as_str(),
            _ => "-",
        };
        o.push_str(&format!(
            "{:>6}  {:>7.1} ms  {}  {output}\n",
            j.status,
            j.time_ms,
            pad_to(&j.name, width)
        ));
        if !j.ok {
            for d in &j.diagnostics {
                o.push_str(&format!("        {d}\n"));
            }
        }
    }
    let s = &r.summary;
    o.push_str(&format!(
        "{} jobs: {} ok, {} failed; {:.2} s with {} thread{}\n",
        s.jobs,
        s.ok,
        s.failed,
        s.wall_ms / 1e3,
        s.threads,
        if s.threads == 1 { "" } else { "s" }
    ));
    o
}
