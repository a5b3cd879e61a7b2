//! NVIDIA's nvJitLink library, opened at run time (no link-time dependency
//! on the toolkit). culdb asks it for what only NVIDIA's compilers make:
//! PTX from NVVM IR for the LTO step (`link::lto`), and the sm_100+ code
//! nvlink's finalizer writes again (`link::refinalize`).

use std::ffi::{CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};

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

/// Held across each run (`NvJitLink::link`).
static RUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// nvJitLink's entry points; each is exported with an API-version suffix.
pub struct NvJitLink {
    /// Never closed: closing nvJitLink while another thread of a batch
    /// loads it killed the process.
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
    pub fn open(path: &Path) -> Result<NvJitLink, String> {
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
    pub fn link(&self, options: &[String], inputs: &[Input<'_>], ptx: bool) -> Result<Linked, String> {
        // One run at a time in the process: concurrent runs (a batch's
        // jobs, an input per thread) crashed or failed.
        let _one = RUN.lock().unwrap_or_else(|e| e.into_inner());
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
