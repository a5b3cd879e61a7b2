//! NVIDIA's nvJitLink library, opened at run time (no link-time dependency
//! on the toolkit). culdb asks it for what only NVIDIA's compilers make:
//! PTX from NVVM IR for the LTO step (`link::lto`), and the sm_100+ code
//! nvlink's finalizer writes again (`link::refinalize`).
//!
//! Each run happens in a child process ([`link_in_child`]: `culdb
//! nvjitlink-worker`), so that a crash inside NVIDIA's library ends that
//! run, not culdb: run in-process, the fuzz smoke test's process died of a
//! segmentation fault inside nvJitLink (the input was not kept), and
//! closing the library under its finalizer threads crashed too (see
//! `NvJitLink::_lib`).

use std::ffi::{CString, c_char, c_int, c_void};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// `NVJITLINK_INPUT_CUBIN`.
pub const INPUT_CUBIN: c_int = 1;
/// `NVJITLINK_INPUT_FATBIN`.
pub const INPUT_FATBIN: c_int = 4;
/// `NVJITLINK_INPUT_LIBRARY`.
pub const INPUT_LIBRARY: c_int = 6;

/// Where nvJitLink is: `$CULDB_NVJITLINK`, in one of `dirs` (a CUDA
/// toolkit's `lib64`, the PyPI wheels' `lib`), beside the ptxas culdb
/// would use, else by name on the library path.
pub fn find(dirs: &[PathBuf]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CULDB_NVJITLINK") {
        return Some(PathBuf::from(p));
    }
    let mut dirs = dirs.to_vec();
    if let Some(bin) = super::find_tool("ptxas").as_deref().and_then(Path::parent) {
        dirs.push(bin.join("../lib"));
        dirs.push(bin.join("../lib64"));
    }
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        let mut names: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("libnvJitLink.so"))
            })
            .collect();
        names.sort();
        if let Some(p) = names.into_iter().next() {
            return Some(p);
        }
    }
    // SAFETY: loading NVIDIA's nvJitLink runs only its initialisers; this
    // only checks that the name loads.
    unsafe { libloading::Library::new("libnvJitLink.so.13") }
        .ok()
        .map(|_| PathBuf::from("libnvJitLink.so.13"))
}

type Handle = *mut c_void;
type CreateFn = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int;
type AddDataFn = unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int;
type CompleteFn = unsafe extern "C" fn(Handle) -> c_int;
type SizeFn = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type GetFn = unsafe extern "C" fn(Handle, *mut c_char) -> c_int;
type DestroyFn = unsafe extern "C" fn(*mut Handle) -> c_int;

/// nvJitLink's entry points; each is exported with an API-version suffix.
struct NvJitLink {
    /// Never closed: nvJitLink's finalizer threads outlive a run, and
    /// closing the library under them crashed the process (a core dump:
    /// a finalizer thread faulting in nvJitLink's unmapped code while the
    /// main thread was in `munmap`).
    _lib: std::mem::ManuallyDrop<libloading::Library>,
    create: CreateFn,
    add_data: AddDataFn,
    complete: CompleteFn,
    ptx_size: SizeFn,
    ptx: GetFn,
    cubin_size: SizeFn,
    cubin: GetFn,
    error_log_size: SizeFn,
    error_log: GetFn,
    info_log_size: SizeFn,
    info_log: GetFn,
    destroy: DestroyFn,
}

/// What one nvJitLink run gave.
#[derive(Clone)]
pub struct Linked {
    /// The linked PTX (`-ptx`) or cubin; None when the run failed.
    pub output: Option<Vec<u8>>,
    /// The code of the call that failed (nvJitLink's result), or 0.
    pub code: c_int,
    pub info_log: String,
    pub error_log: String,
}

/// One input of a run: its `NVJITLINK_INPUT_*` kind, bytes and name.
pub struct Input<'a> {
    pub kind: c_int,
    pub data: &'a [u8],
    pub name: &'a str,
}

impl NvJitLink {
    fn open(path: &Path) -> Result<NvJitLink, String> {
        // SAFETY: loading NVIDIA's nvJitLink runs only its initialisers.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
        let suffix = ["13_0", "12_0"]
            .into_iter()
            .find(|v| {
                let name = format!("__nvJitLinkCreate_{v}\0");
                // SAFETY: only looked up.
                unsafe { lib.get::<CreateFn>(name.as_bytes()) }.is_ok()
            })
            .ok_or("no __nvJitLinkCreate_13_0 or _12_0 in it")?;
        fn get<T: Copy>(lib: &libloading::Library, name: &str, v: &str) -> Result<T, String> {
            let full = format!("__nvJitLink{name}_{v}\0");
            // SAFETY: the type matches nvJitLink.h for this entry point.
            unsafe { lib.get::<T>(full.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("{}: {e}", &full[..full.len() - 1]))
        }
        Ok(NvJitLink {
            create: get(&lib, "Create", suffix)?,
            add_data: get(&lib, "AddData", suffix)?,
            complete: get(&lib, "Complete", suffix)?,
            ptx_size: get(&lib, "GetLinkedPtxSize", suffix)?,
            ptx: get(&lib, "GetLinkedPtx", suffix)?,
            cubin_size: get(&lib, "GetLinkedCubinSize", suffix)?,
            cubin: get(&lib, "GetLinkedCubin", suffix)?,
            error_log_size: get(&lib, "GetErrorLogSize", suffix)?,
            error_log: get(&lib, "GetErrorLog", suffix)?,
            info_log_size: get(&lib, "GetInfoLogSize", suffix)?,
            info_log: get(&lib, "GetInfoLog", suffix)?,
            destroy: get(&lib, "Destroy", suffix)?,
            _lib: std::mem::ManuallyDrop::new(lib),
        })
    }

    /// Links `inputs` with `options`; the output is the PTX when `ptx`,
    /// else the cubin. Err: nvJitLinkCreate failed (bad options).
    fn link(&self, options: &[String], inputs: &[Input<'_>], ptx: bool) -> Result<Linked, String> {
        let opts: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).unwrap_or_default())
            .collect();
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: the pointers live across the call; nvJitLink copies them.
        if unsafe { (self.create)(&mut h, ptrs.len() as u32, ptrs.as_ptr()) } != 0 || h.is_null() {
            return Err("nvJitLinkCreate failed".into());
        }
        // nvJitLink keeps the names (its logs print them): they live as long as the handle.
        let names: Vec<CString> = inputs
            .iter()
            .map(|i| CString::new(i.name.replace('\0', "")).unwrap_or_default())
            .collect();
        let result = (|| {
            for (i, name) in inputs.iter().zip(&names) {
                // SAFETY: the data and the name live across the handle's life.
                let r = unsafe { (self.add_data)(h, i.kind, i.data.as_ptr().cast(), i.data.len(), name.as_ptr()) };
                if r != 0 {
                    return Err(r);
                }
            }
            // SAFETY: a live handle.
            match unsafe { (self.complete)(h) } {
                0 => Ok(()),
                r => Err(r),
            }
        })();
        let (size, get) = if ptx {
            (self.ptx_size, self.ptx)
        } else {
            (self.cubin_size, self.cubin)
        };
        let out = Linked {
            output: result.is_ok().then(|| self.bytes(h, size, get)).flatten().map(|mut b| {
                if ptx {
                    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                    b.truncate(end);
                }
                b
            }),
            code: result.err().unwrap_or(0),
            info_log: self.text(h, self.info_log_size, self.info_log),
            error_log: self.text(h, self.error_log_size, self.error_log),
        };
        // SAFETY: destroys the handle created above, once.
        unsafe { (self.destroy)(&mut h) };
        Ok(out)
    }

    /// Reads one of the handle's results.
    fn bytes(&self, h: Handle, size: SizeFn, get: GetFn) -> Option<Vec<u8>> {
        let mut n = 0usize;
        // SAFETY: `h` is a live handle; the buffer has the size asked for.
        unsafe {
            if size(h, &mut n) != 0 {
                return None;
            }
            let mut buf = vec![0u8; n.max(1)];
            if get(h, buf.as_mut_ptr().cast()) != 0 {
                return None;
            }
            buf.truncate(n);
            Some(buf)
        }
    }

    /// Reads one of the handle's logs.
    fn text(&self, h: Handle, size: SizeFn, get: GetFn) -> String {
        let mut b = self.bytes(h, size, get).unwrap_or_default();
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        b.truncate(end);
        String::from_utf8_lossy(&b).into_owned()
    }
}

/// The hidden subcommand a child runs ([`worker_main`]).
pub const WORKER: &str = "nvjitlink-worker";

/// Set by the culdb command line (`cli::main`): this process can run the
/// worker subcommand, whatever its file is called (a copy named
/// `culdb-1.2`, a wrapper's `nvlink.real`).
static THIS_IS_THE_CLI: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Marks this process as the culdb command line (see [`worker_exe`]).
pub fn this_process_is_the_cli() {
    THIS_IS_THE_CLI.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// The culdb executable a child is started from: `$CULDB_EXE`; this
/// process when it is the culdb command line, or named culdb (also as
/// `nvlink`); else a `culdb` beside it or one folder up (a test binary in
/// `target/debug/deps`).
fn worker_exe() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CULDB_EXE") {
        return Some(PathBuf::from(p));
    }
    let me = std::env::current_exe().ok()?;
    if THIS_IS_THE_CLI.load(std::sync::atomic::Ordering::Relaxed)
        || matches!(me.file_name().and_then(|n| n.to_str()), Some("culdb" | "nvlink"))
    {
        return Some(me);
    }
    let dir = me.parent()?;
    [dir.join("culdb"), dir.join("../culdb")]
        .into_iter()
        .find(|p| p.is_file())
}

/// Why a run in a child gave no [`Linked`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// No child could be started (no culdb executable, no process).
    Start(String),
    /// The library did not load in the child, or nvJitLinkCreate failed.
    Library(String),
    /// The child died: a crash inside nvJitLink.
    Died(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Start(e) | RunError::Library(e) => f.write_str(e),
            RunError::Died(status) => write!(f, "nvJitLink's process died ({status})"),
        }
    }
}

/// [`NvJitLink::link`] with the library at `library`, run in a child culdb.
pub fn link_in_child(library: &Path, options: &[String], inputs: &[Input<'_>], ptx: bool) -> Result<Linked, RunError> {
    let exe = worker_exe()
        .ok_or_else(|| RunError::Start("no culdb executable to run nvJitLink in (set CULDB_EXE)".into()))?;
    let mut request = Vec::new();
    for i in inputs {
        request.extend_from_slice(&i.kind.to_le_bytes());
        put(&mut request, i.name.as_bytes());
        put(&mut request, i.data);
    }
    let key = {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(library.as_os_str().as_encoded_bytes());
        h.update([u8::from(ptx)]);
        for o in options {
            h.update((o.len() as u64).to_le_bytes());
            h.update(o.as_bytes());
        }
        h.update(&request);
        <[u8; 32]>::from(h.finalize())
    };
    if let Some(hit) = cache().get(&key) {
        return hit.clone();
    }
    let result = run_child(&exe, library, options, &request, ptx);
    if !matches!(result, Err(RunError::Start(_))) {
        let mut c = cache();
        if c.len() >= CACHED_RUNS {
            c.clear();
        }
        c.insert(key, result.clone());
    }
    result
}

/// A debugger's replays and restarts ask for the same run again: the
/// answers of this process's last runs are kept, by a digest of the request.
const CACHED_RUNS: usize = 256;

type Runs = std::collections::HashMap<[u8; 32], Result<Linked, RunError>>;

fn cache() -> std::sync::MutexGuard<'static, Runs> {
    static RUNS: std::sync::OnceLock<std::sync::Mutex<Runs>> = std::sync::OnceLock::new();
    RUNS.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// One child: `request` on its stdin, its [`Reply`] from stdout.
fn run_child(exe: &Path, library: &Path, options: &[String], request: &[u8], ptx: bool) -> Result<Linked, RunError> {
    let mut cmd = Command::new(exe);
    std::os::unix::process::CommandExt::arg0(&mut cmd, "culdb");
    cmd.arg(WORKER).arg(library);
    if ptx {
        cmd.arg("--ptx");
    }
    let mut child = cmd
        .arg("--")
        .args(options)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| RunError::Start(format!("could not start {}: {e}", exe.display())))?;
    let mut stdin = child.stdin.take();
    let out = std::thread::scope(|s| {
        s.spawn(move || {
            if let Some(w) = stdin.as_mut() {
                let _ = w.write_all(request);
            }
        });
        child.wait_with_output()
    })
    .map_err(|e| RunError::Start(format!("nvJitLink's process: {e}")))?;
    // A whole reply stands even if the child died after writing it.
    match Reply(&out.stdout).decode() {
        Some(r) => r.map_err(RunError::Library),
        None => Err(RunError::Died(out.status.to_string())),
    }
}

/// Appends a length-prefixed blob.
fn put(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

/// Takes a length-prefixed blob from the front of `b`.
fn take<'a>(b: &mut &'a [u8]) -> Option<&'a [u8]> {
    let n = usize::try_from(u64::from_le_bytes(b.get(..8)?.try_into().ok()?)).ok()?;
    let blob = b.get(8..8usize.checked_add(n)?)?;
    *b = &b[8 + n..];
    Some(blob)
}

/// A child's answer: a tag (0: a run, 1: an error), then blobs.
struct Reply<'a>(&'a [u8]);

impl Reply<'_> {
    fn encode(r: &Result<Linked, String>) -> Vec<u8> {
        let mut out = Vec::new();
        match r {
            Ok(l) => {
                out.push(0);
                out.extend_from_slice(&l.code.to_le_bytes());
                out.push(u8::from(l.output.is_some()));
                put(&mut out, l.output.as_deref().unwrap_or_default());
                put(&mut out, l.info_log.as_bytes());
                put(&mut out, l.error_log.as_bytes());
            }
            Err(e) => {
                out.push(1);
                put(&mut out, e.as_bytes());
            }
        }
        out
    }

    fn decode(&self) -> Option<Result<Linked, String>> {
        let (&tag, mut b) = self.0.split_first()?;
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        if tag == 1 {
            return Some(Err(text(take(&mut b)?)));
        }
        let code = c_int::from_le_bytes(b.get(..4)?.try_into().ok()?);
        let has_output = *b.get(4)? == 1;
        b = &b[5..];
        let output = take(&mut b)?.to_vec();
        Some(Ok(Linked {
            output: has_output.then_some(output),
            code,
            info_log: text(take(&mut b)?),
            error_log: text(take(&mut b)?),
        }))
    }
}

/// `culdb nvjitlink-worker LIBRARY [--ptx] -- OPTIONS...`: reads the
/// inputs from stdin (kind, name, bytes each), links them with nvJitLink
/// and writes the [`Reply`] on stdout.
pub fn worker_main(library: &Path, ptx: bool, options: &[String]) -> i32 {
    let mut request = Vec::new();
    if std::io::stdin().read_to_end(&mut request).is_err() {
        return 2;
    }
    let mut inputs = Vec::new();
    let mut b = request.as_slice();
    while !b.is_empty() {
        let Some(kind) = b.get(..4).and_then(|k| k.try_into().ok()).map(c_int::from_le_bytes) else {
            return 2;
        };
        b = &b[4..];
        let (Some(name), Some(data)) = (take(&mut b), take(&mut b)) else {
            return 2;
        };
        inputs.push((kind, String::from_utf8_lossy(name).into_owned(), data));
    }
    let inputs: Vec<Input<'_>> = inputs
        .iter()
        .map(|(kind, name, data)| Input {
            kind: *kind,
            data,
            name,
        })
        .collect();
    let result = NvJitLink::open(library)
        .map_err(|e| format!("{}: {e}", library.display()))
        .and_then(|api| api.link(options, &inputs, ptx));
    let mut out = std::io::stdout().lock();
    if out
        .write_all(&Reply::encode(&result))
        .and_then(|()| out.flush())
        .is_err()
    {
        return 2;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_round_trip() {
        let run = Linked {
            output: Some(vec![1, 2, 3]),
            code: 0,
            info_log: "info".into(),
            error_log: String::new(),
        };
        let Some(Ok(back)) = Reply(&Reply::encode(&Ok(run))).decode() else {
            panic!("no reply")
        };
        assert_eq!(
            (back.output, back.code, back.info_log.as_str()),
            (Some(vec![1, 2, 3]), 0, "info")
        );
        let failed = Linked {
            output: None,
            code: 6,
            info_log: String::new(),
            error_log: "error   : Undefined reference".into(),
        };
        let whole = Reply::encode(&Ok(failed));
        let Some(Ok(back)) = Reply(&whole).decode() else {
            panic!("no reply")
        };
        assert_eq!((back.output, back.code), (None, 6));
        assert!(matches!(Reply(&Reply::encode(&Err("x".into()))).decode(), Some(Err(e)) if e == "x"));
        // A reply cut short (a child that died while writing) decodes to None.
        assert!(Reply(&whole[..whole.len() - 1]).decode().is_none());
    }
}
