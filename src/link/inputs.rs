//! nvlink's input arguments → the ordered cubins the merge phase consumes,
//! one command-line input per [`InputLoader::step`].
//!
//! It stays one file because it is one ordered plan (search the libraries,
//! load the files, load the members found) whose steps share the loader's
//! state and nvlink's exact order of errors.
//!
//! # How nvlink 13.5 reads its inputs (tested; `tests/link_inputs.rs`)
//!
//! Order. Every `-l` library is **searched first**, before any file is
//! opened (its "Skipping incompatible" warnings and archive-format errors come
//! before any file's errors); then the files are read in command-line order;
//! then the libraries' members are linked, in `-l` order (so `-lq a.cubin`
//! links `a.cubin` first). The plan of steps is therefore: search each `-l`,
//! load each file, load each library found.
//!
//! Files:
//! * Missing or a folder: `fatal: Could not open input file 'NAME'`. Empty:
//!   ignored silently. 1 to 55 bytes (unless it starts with the archive
//!   magic): the same `Could not open input file` (culdb adds why).
//! * Kind by extension (of the base name, case-sensitive): `.cubin` must be
//!   an ELF (`cubin not an elf?`) for EM_CUDA (`cubin not a device elf?`);
//!   `.fatbin` a fatbin (`fatbin wrong format?`); `.ptx` may hold PTX (then
//!   compiled, see [`super::ptx`]), a cubin or a fatbin, anything else is
//!   `error: Can't load this binary kind, as it's not recognized` + `fatal:
//!   elfLink fatbinary error`. All status 1.
//! * Any other name: an archive by its magic; a cubin only as `.o`; a host
//!   ELF (its `__nv_relfatbin`) except `.so`; everything else, and any file
//!   whose base name has no `.`, is ignored silently.
//! * A cubin that is an executable (ET_EXEC), ELF32, big-endian or
//!   structurally broken (truncated, sections or section headers past the
//!   end) is ignored silently, whatever its name; trailing bytes are fine.
//! * Names in diagnostics: the argument as given (`./a.ptx`, `x.fatbin`,
//!   `u.o`), also for code taken from a fatbin or host object or compiled
//!   from PTX; archive members are `ARCHIVE:MEMBER` (`libx.a:m1.o`,
//!   `./libx.a:m1.o` for `-L. -lx`, `d/libq.a:a_very_long_name.o`).
//!
//! Archives (direct or `-l`): every host-ELF member is read like a host
//! object (no "SM Arch not found" warning for members); cubin, fatbin, PTX
//! and archive members are ignored. The symbol table plays no role. The same
//! archive file (same inode: `./x.a`, a hard link, `-lx` finding it) is read
//! only once, at its first load; a repeated host object or cubin is not
//! deduplicated (Multiple definition). Bad structure: `fatal: unexpected
//! archive format` or `fatal: archive member size exceeds library bounds`,
//! then `fatal: elfLink internal error`. A host member that is not a
//! readable ELF is ignored; one whose fatbin is bad gives `fatal: Could not
//! find fatbin in 'a.a:m.o'` + `fatal: elfLink internal error`. Thin archives
//! read their members from files named relative to the current folder.
//!
//! `-lNAME`: only `DIR/libNAME.a` (trailing `/` of DIR dropped) for each `-L`
//! DIR in order, then each `LIBRARY_PATH` entry (see
//! [`library_path_dirs`]); never the current folder by default, never
//! `NAME`, `libNAME.so` or `NAME.a`. Not found: **nothing is printed**. A
//! candidate of at most 8 bytes, or an archive without any host-ELF member
//! (only cubins, fatbins, PTX, nothing), gives `warning: Skipping
//! incompatible 'DIR/libNAME.a' when searching for -lNAME` and the search goes
//! on; a candidate that is not a valid archive is fatal as above.
//!
//! # culdb additions
//!
//! Where nvlink's text does not say which file or what is wrong, culdb
//! appends ` [culdb: ...]` with the file and the offset (see
//! [`nvlink_text`] to strip it). Messages printed before a step's result
//! (nvlink's first line of a two-line fatal, ptxas's output) are in
//! [`InputLoader::printed`].

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Serialize, Serializer};

use super::diag::Diagnostic;
use super::ptx::{self, PtxError};
use super::system_lib::{self, FunctionNeeds};
use crate::cubin::archive;
use crate::cubin::consts::{EM_CUDA, ET_EXEC};
use crate::cubin::fatbin::{self, SmArch};
use crate::cubin::host;
use crate::cubin::input::{self, InputKind, Pick};
use crate::cubin::read;

/// One input argument, in command-line order (`options` defines it).
pub use super::options::InputArg;

/// What to load and for which target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputRequest {
    /// Recorded as `["a.cubin", "-lx"]`.
    #[serde(serialize_with = "args_as_text")]
    pub args: Vec<InputArg>,
    /// `-L` folders in the order given, then (if the caller wants nvlink's
    /// full behaviour) the [`library_path_dirs`] of `LIBRARY_PATH`.
    pub lib_paths: Vec<String>,
    pub target_sm: u32,
    /// `'a'` or `'f'`.
    pub target_suffix: Option<char>,
    /// The ptxas that compiles PTX inputs; None: PTX inputs are fatal.
    pub ptxas: Option<PathBuf>,
    /// `-keep-system-libraries`: every member of libcudadevrt is linked
    /// (see [`super::system_lib`]).
    pub keep_system_libraries: bool,
    /// `-dlto`/`-lto`: NVVM IR entries are taken (as [`LoadNote::Lto`])
    /// before the cubins and PTX of their containers.
    #[serde(default)]
    pub lto: bool,
}

/// One cubin for the merge phase.
#[derive(Clone, Serialize)]
pub struct LoadedCubin {
    /// What nvlink calls this object in diagnostics (`Undefined reference
    /// to 'f' in 'NAME'`): the argument as given, or `ARCHIVE:MEMBER`.
    pub name: String,
    pub origin: Origin,
    /// The cubin bytes (recorded by size only).
    #[serde(rename = "size", serialize_with = "byte_count")]
    pub data: Vec<u8>,
    /// For code from a host object (directly, as an archive member, or
    /// compiled from its PTX): what the host code references.
    pub host_refs: Option<HostRefs>,
    /// For code from a host object: its `__nv_module_id` (the name nvcc's
    /// registration code gives the module; see [`super::register`]).
    pub module_id: Option<String>,
    /// The object's further module ids: `ld -r` (and `nvcc -r`) of host
    /// objects concatenates their `__nv_module_id`s and fatbins; nvlink
    /// links the first fatbin only but registers every id.
    pub more_module_ids: Vec<String>,
}

/// The device entities a host object's code references, from its `.nvHR*`
/// sections (NUL-separated names; a trailing `*` makes a prefix pattern, e.g.
/// `_Z5k_sum*`). nvlink 13.5 uses the kernel lists: when every input is a
/// host object (archive members included) and they name any kernel, the
/// kernels they do not name are removed (corpus `host_obj_rdc_sm90` drops
/// `k_reset`; adding a cubin, fatbin or PTX file input keeps every kernel).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HostRefs {
    /// `.nvHRKE`: kernels with external linkage the host code launches.
    pub kernels: Vec<String>,
    /// `.nvHRKI`: the same for internal-linkage (static) kernels.
    pub internal_kernels: Vec<String>,
    /// `.nvHRDE` / `.nvHRDI`: `__device__` variables (cudaMemcpyToSymbol ...).
    pub data: Vec<String>,
    pub internal_data: Vec<String>,
    /// `.nvHRCE` / `.nvHRCI`: `__constant__` variables.
    pub constants: Vec<String>,
    pub internal_constants: Vec<String>,
    /// From a member of a system library (libcudadevrt): its lists name
    /// kernels to keep, but do not by themselves limit the kernels kept
    /// (README observation 82).
    pub system_library: bool,
}

impl HostRefs {
    /// Adds `other`'s lists to these (the lists of several host objects as
    /// one: the LTO cubin made from their IR).
    pub fn extend(&mut self, other: &HostRefs) {
        self.kernels.extend(other.kernels.iter().cloned());
        self.internal_kernels.extend(other.internal_kernels.iter().cloned());
        self.data.extend(other.data.iter().cloned());
        self.internal_data.extend(other.internal_data.iter().cloned());
        self.constants.extend(other.constants.iter().cloned());
        self.internal_constants.extend(other.internal_constants.iter().cloned());
    }

    /// The lists of a host ELF object; None when it has no `.nvHR*` section.
    pub fn of(data: &[u8]) -> Option<HostRefs> {
        let elf = host::parse(data).ok()?;
        let mut r = HostRefs::default();
        let mut kernel_list = false;
        for s in &elf.sections {
            let list = match s.name.as_str() {
                ".nvHRKE" => {
                    kernel_list = true;
                    &mut r.kernels
                }
                ".nvHRKI" => &mut r.internal_kernels,
                ".nvHRDE" => &mut r.data,
                ".nvHRDI" => &mut r.internal_data,
                ".nvHRCE" => &mut r.constants,
                ".nvHRCI" => &mut r.internal_constants,
                _ => continue,
            };
            // NUL-terminated names. nvlink reads up to the last NUL: a
            // section of one NUL is an empty list, but `ld -r`'s two
            // concatenated empty lists ("\0\0") hold one empty name, which
            // limits the kernels kept and matches none (host_lists_ld_r_sm90).
            let names = s.data.strip_suffix(&[0]).unwrap_or(s.data);
            if !names.is_empty() {
                list.extend(
                    names
                        .split(|&b| b == 0)
                        .map(|n| String::from_utf8_lossy(n).into_owned()),
                );
            }
        }
        kernel_list.then_some(r)
    }
}

impl std::fmt::Debug for LoadedCubin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedCubin")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("size", &self.data.len())
            .field("host_refs", &self.host_refs)
            .field("module_id", &self.module_id)
            .finish()
    }
}

fn args_as_text<S: Serializer>(args: &[InputArg], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(args.iter().map(|a| match a {
        InputArg::File(f) => f.clone(),
        InputArg::Library(l) => format!("-l{l}"),
    }))
}

fn byte_count<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(data.len() as u64)
}

/// Where a cubin came from. `arch` is the code's architecture (`sm_90`; for
/// PTX the virtual one, `compute_80`, or the `.target` of a PTX file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Origin {
    /// A cubin file (any name nvlink links as a cubin: `.cubin`, `.o`, `.ptx`).
    File { path: String },
    /// The cubin picked from a fatbin file.
    FatbinEntry { file: String, arch: String },
    /// The cubin picked from a host object's `__nv_relfatbin`.
    HostObject { file: String, arch: String },
    /// The cubin picked from a host-object member of an archive.
    ArchiveMember {
        archive: String,
        member: String,
        arch: String,
    },
    /// Compiled by ptxas from a PTX file or a PTX fatbin entry of `file`
    /// (`x.o`, `x.fatbin`, `a.ptx`, `libx.a:m.o`).
    JitPtx { file: String, arch: String },
    /// Made by the LTO step (`super::lto`) from the NVVM IR of `modules` inputs.
    Lto { modules: usize },
}

/// One module of NVVM IR for the LTO step (`super::lto`).
#[derive(Clone, Serialize)]
pub struct LtoModule {
    /// The object, fatbin or member as nvlink names it.
    pub name: String,
    /// Where the IR is (`arch` is its `lto_NN`).
    pub origin: Origin,
    /// A fatbin holding only the IR's entry, as nvcc stored it.
    #[serde(rename = "size", serialize_with = "byte_count")]
    pub fatbin: Vec<u8>,
    /// The host object's `__nv_module_id`.
    pub module_id: Option<String>,
    /// What the host object's code references (its `.nvHR*` lists).
    pub host_refs: Option<HostRefs>,
}

impl std::fmt::Debug for LtoModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LtoModule")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .field("size", &self.fatbin.len())
            .finish()
    }
}

/// What one step produced.
#[derive(Debug, Clone, Serialize)]
// A note lives only from the loader to the merge, one per input: boxing
// the cubin would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum LoadNote {
    Loaded(LoadedCubin),
    /// NVVM IR for the LTO step (`-dlto`), not linked as it is.
    Lto(LtoModule),
    /// A host object (or archive member) with no relocatable device code:
    /// nothing of it is linked, but its host code is, and nvlink cannot
    /// know what that code launches, so the host objects' kernel lists no
    /// longer limit the kernels kept (README observation 70).
    HostCodeOnly {
        path: String,
        reason: String,
    },
    Skipped {
        /// The file, member (`libx.a:m.cubin`) or library (`-lx`).
        path: String,
        /// Why, for a person.
        reason: String,
        /// What nvlink prints about it, if anything.
        warning: Option<Diagnostic>,
        /// A host object (or archive member) with device code for other
        /// architectures only: nothing of it is linked, but nvlink still
        /// registers its `__nv_module_id` (observation 118).
        registered: Option<String>,
    },
}

/// A line printed before a step's notes or fatal diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Printed {
    /// A diagnostic of culdb (nvlink's text).
    Diag(Diagnostic),
    /// A line another tool printed (ptxas), as nvlink shows it.
    Tool(String),
}

/// What a planned step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Action {
    /// Find `libNAME.a` for a `-l` argument.
    SearchLibrary,
    /// Read a file argument, or the library a search found.
    Load,
}

/// One step of the plan: an action on `args[arg]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Planned {
    pub arg: usize,
    pub action: Action,
}

/// The outcome of searching for one `-l` library.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LibrarySearch {
    /// The candidates looked at, in order (`./libx.a`).
    pub tried: Vec<String>,
    /// The one that will be loaded.
    pub found: Option<String>,
}

/// Turns the input arguments into cubins, one step at a time.
#[derive(Debug, Clone, Serialize)]
pub struct InputLoader {
    req: InputRequest,
    /// Folder that relative names are read from (None: the current one).
    dir: Option<PathBuf>,
    target: SmArch,
    plan: Vec<Planned>,
    pos: usize,
    /// Per argument: the search result of a `-l`.
    libraries: Vec<Option<LibrarySearch>>,
    /// Per argument: the bytes of the library the search found, read once
    /// (the search reads it to check it; the load step takes them).
    #[serde(skip)]
    library_bytes: Vec<Option<std::sync::Arc<Vec<u8>>>>,
    /// Per argument: a file argument's bytes, read on every core before the
    /// first step (reading thousands of objects one by one was a tenth of a
    /// 5,000-object link); its step takes them. A file that could not be
    /// read here is read again by its step, which reports the error.
    #[serde(skip)]
    prefetched: Option<Vec<Option<std::sync::Arc<Vec<u8>>>>>,
    /// Archives read so far: (file identity, name).
    archives_read: Vec<(FileId, String)>,
    printed: Vec<Printed>,
    /// Functions the cubins loaded so far define and reference: what pulls
    /// a system library's member. Only kept when the link may read one (an
    /// archive or `-l` argument): reading every cubin's symbols costs time.
    needs: FunctionNeeds,
    track_needs: bool,
    /// The cubin the LTO step made, handed out by the first step (nvlink
    /// links it before every other input).
    prepend: Option<LoadedCubin>,
    /// A system library (libcudadevrt) was read and left nothing undefined:
    /// nvlink then refuses any other input (err_object_after_cudadevrt_sm90).
    after_system_library: bool,
    /// Once a system library was read: whether any member of it was linked.
    system_library_linked: Option<bool>,
}

type StepResult = Result<Vec<LoadNote>, Diagnostic>;

/// What `input::pick_for` found in a host object.
type Picked<'a> = crate::cubin::error::Result<Vec<Pick<'a>>>;

/// The folders of a `LIBRARY_PATH` value, which nvlink searches after the
/// `-L` folders: `:`-separated, empty entries ignored.
pub fn library_path_dirs(value: &str) -> Vec<String> {
    value.split(':').filter(|d| !d.is_empty()).map(str::to_string).collect()
}

/// The separator culdb puts between nvlink's text and its own detail.
pub const DETAIL: &str = " [culdb: ";

/// nvlink's part of a diagnostic text (culdb's ` [culdb: ...]` detail removed).
pub fn nvlink_text(text: &str) -> &str {
    text.split(DETAIL).next().unwrap_or(text)
}

fn with_detail(text: impl Into<String>, detail: impl std::fmt::Display) -> String {
    format!("{}{DETAIL}{detail}]", text.into())
}

/// nvlink does not open files shorter than this (unless they start with the
/// archive magic).
const MIN_INPUT_SIZE: usize = 56;
/// `-l` candidates of at most this many bytes are "incompatible".
const MAX_TINY_LIBRARY: usize = 8;

impl InputLoader {
    pub fn new(req: InputRequest) -> Self {
        let target = target_arch(req.target_sm, req.target_suffix);
        let libs = || {
            req.args
                .iter()
                .enumerate()
                .filter(|(_, a)| matches!(a, InputArg::Library(_)))
                .map(|(i, _)| i)
        };
        let mut plan: Vec<Planned> = libs()
            .map(|arg| Planned {
                arg,
                action: Action::SearchLibrary,
            })
            .collect();
        plan.extend(req.args.iter().enumerate().filter_map(|(arg, a)| {
            matches!(a, InputArg::File(_)).then_some(Planned {
                arg,
                action: Action::Load,
            })
        }));
        plan.extend(libs().map(|arg| Planned {
            arg,
            action: Action::Load,
        }));
        let track_needs = !req.keep_system_libraries
            && req.args.iter().any(|a| match a {
                InputArg::Library(_) => true,
                InputArg::File(f) => f.ends_with(".a") || system_lib::is_system_library(f),
            });
        InputLoader {
            track_needs,
            libraries: vec![None; req.args.len()],
            library_bytes: vec![None; req.args.len()],
            prefetched: None,
            req,
            dir: None,
            target,
            plan,
            pos: 0,
            archives_read: Vec::new(),
            printed: Vec::new(),
            needs: FunctionNeeds::default(),
            prepend: None,
            after_system_library: false,
            system_library_linked: None,
        }
    }

    /// The system libraries (libcudadevrt) among the inputs, as files to
    /// read: file arguments, and `-l` libraries once searched.
    pub fn system_libraries(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for (i, a) in self.req.args.iter().enumerate() {
            let name = match a {
                InputArg::File(f) => Some(f.clone()),
                InputArg::Library(_) => self.libraries[i].as_ref().and_then(|s| s.found.clone()),
            };
            if let Some(n) = name.filter(|n| system_lib::is_system_library(n)) {
                out.push(self.path_of(&n));
            }
        }
        out
    }

    /// The architecture the inputs are read for.
    pub fn target(&self) -> SmArch {
        self.target
    }

    /// Hands `cubin` out first, before the inputs (the LTO step's result).
    pub fn prepend(&mut self, cubin: LoadedCubin) {
        self.prepend = Some(cubin);
    }

    /// Reads relative names from `dir` instead of the current folder (names
    /// in diagnostics stay as given).
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dir = Some(dir.into());
        self
    }

    /// Processes the next step of the plan (search a `-l`, or load one input):
    /// what it produced, or None when all are done. After an `Err` (a fatal
    /// diagnostic with nvlink's text) the loader is done.
    /// A system library (libcudadevrt) was read and nothing of it linked:
    /// nvlink then leaves an existing `--register-link-binaries` file as it
    /// is (observation 119; nvcc gives every arch's link of a
    /// multi-`-gencode` build the same file).
    pub fn system_library_unused(&self) -> bool {
        self.system_library_linked == Some(false)
    }

    pub fn step(&mut self) -> Option<Result<Vec<LoadNote>, Diagnostic>> {
        self.printed.clear();
        if let Some(c) = self.prepend.take() {
            self.needs.add(&c.data);
            return Some(Ok(vec![LoadNote::Loaded(c)]));
        }
        self.skip_idle();
        let p = *self.plan.get(self.pos)?;
        self.pos += 1;
        if self.prefetched.is_none() {
            self.prefetch();
        }
        // The file this step reads, when it reads one.
        let read = match (&self.req.args[p.arg], p.action) {
            (InputArg::Library(_), Action::Load) => self.libraries[p.arg].as_ref().and_then(|s| s.found.clone()),
            (InputArg::File(f), _) => Some(f.clone()),
            _ => None,
        };
        let system = read.as_deref().is_some_and(system_lib::is_system_library);
        let result = match (&self.req.args[p.arg], p.action) {
            (InputArg::Library(name), Action::SearchLibrary) => {
                let name = name.clone();
                self.search_library(p.arg, &name)
            }
            (InputArg::Library(_), Action::Load) => {
                let found = self.libraries[p.arg].as_ref().and_then(|s| s.found.clone());
                let bytes = self.library_bytes[p.arg].take();
                match found {
                    Some(path) => self.load_library(&path, bytes),
                    None => Ok(Vec::new()),
                }
            }
            (InputArg::File(name), _) => {
                let name = name.clone();
                self.load_file(p.arg, &name)
            }
        };
        // Device code after a libcudadevrt that left nothing undefined is
        // refused (host-only archives such as CMake's libcudart_static.a
        // after it are not).
        if let (Some(f), Ok(notes)) = (&read, &result)
            && !system
            && self.after_system_library
            && notes.iter().any(|n| matches!(n, LoadNote::Loaded(_)))
        {
            self.pos = self.plan.len();
            return Some(Err(Diagnostic::fatal(with_detail(
                "unexpected object after cudadevrt",
                format!(
                    "'{f}' comes after libcudadevrt; nvlink takes libcudadevrt last (files, then -l libraries, in order)"
                ),
            ))));
        }
        match &result {
            Err(_) => self.pos = self.plan.len(),
            Ok(notes) if self.track_needs => {
                for n in notes {
                    if let LoadNote::Loaded(c) = n {
                        self.needs.add(&c.data);
                    }
                }
            }
            Ok(_) => {}
        }
        // With a reference left open, later inputs may still come (main.cubin
        // libcudadevrt.a lib.cubin links; lib.cubin libcudadevrt.a main.cubin
        // does not, nor dp.cubin libcudadevrt.a lib.cubin: err_object_after_cudadevrt_sm90).
        if system && result.is_ok() {
            self.after_system_library = self.track_needs && !self.needs.has_undefined();
        }
        Some(result)
    }

    /// Index (into `args`) of the input the next step works on; `args.len()`
    /// when done. Libraries come up twice: searched before the files, loaded
    /// after them.
    pub fn current(&self) -> usize {
        let mut pos = self.pos;
        while let Some(p) = self.plan.get(pos) {
            if !self.idle(p) {
                return p.arg;
            }
            pos += 1;
        }
        self.req.args.len()
    }

    /// The whole plan, in order; [`Self::position`] is the next entry.
    pub fn plan(&self) -> &[Planned] {
        &self.plan
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn request(&self) -> &InputRequest {
        &self.req
    }

    /// The search result of the `-l` at `args[arg]`, once searched.
    pub fn library(&self, arg: usize) -> Option<&LibrarySearch> {
        self.libraries.get(arg)?.as_ref()
    }

    /// Lines the last step printed before its notes' warnings or its fatal
    /// diagnostic: the first line of nvlink's two-line fatals, ptxas output.
    pub fn printed(&self) -> &[Printed] {
        &self.printed
    }

    /// A library load step whose search found nothing does nothing.
    fn idle(&self, p: &Planned) -> bool {
        p.action == Action::Load
            && matches!(self.req.args[p.arg], InputArg::Library(_))
            && self.libraries[p.arg].as_ref().is_some_and(|s| s.found.is_none())
    }

    fn skip_idle(&mut self) {
        while self.plan.get(self.pos).is_some_and(|p| self.idle(p)) {
            self.pos += 1;
        }
    }

    fn path_of(&self, name: &str) -> PathBuf {
        match &self.dir {
            Some(d) if Path::new(name).is_relative() => d.join(name),
            _ => PathBuf::from(name),
        }
    }

    fn print_fatal(&mut self, text: String) {
        self.printed.push(Printed::Diag(Diagnostic::fatal(text)));
    }

    // -- -l search ----------------------------------------------------------

    fn search_library(&mut self, arg: usize, name: &str) -> StepResult {
        let mut notes = Vec::new();
        let mut search = LibrarySearch {
            tried: Vec::new(),
            found: None,
        };
        let dirs = self.req.lib_paths.clone();
        for dir in &dirs {
            let cand = library_candidate(dir, name);
            search.tried.push(cand.clone());
            let path = self.path_of(&cand);
            let Ok(meta) = std::fs::metadata(&path) else { continue };
            if meta.is_dir() {
                return Err(Diagnostic::fatal(with_detail(
                    "Memory allocation failure",
                    format!("'{cand}' is a folder"),
                )));
            }
            let data = read_regular(&path)
                .map_err(|e| Diagnostic::fatal(with_detail(format!("Could not open input file '{cand}'"), e)))?;
            let incompatible = |why: String| LoadNote::Skipped {
                path: cand.clone(),
                reason: format!("{why}: nvlink skips it and searches on"),
                warning: Some(Diagnostic::warning(format!(
                    "Skipping incompatible '{cand}' when searching for -l{name}"
                ))),
                registered: None,
            };
            if data.len() <= MAX_TINY_LIBRARY {
                notes.push(incompatible(format!("only {} bytes", data.len())));
                continue;
            }
            if data.starts_with(archive::THIN_MAGIC) {
                self.print_fatal(with_detail(
                    "Memory allocation failure",
                    format!("'{cand}' is a thin archive"),
                ));
                return Err(Diagnostic::fatal("elfLink internal error"));
            }
            let members = self.archive_members(&cand, &data)?;
            if !members.iter().any(|m| host::is_host_elf(m.data)) {
                notes.push(incompatible(format!(
                    "an archive without host-object members ({})",
                    member_kinds(&members)
                )));
                continue;
            }
            drop(members);
            self.library_bytes[arg] = Some(std::sync::Arc::new(data));
            search.found = Some(cand);
            break;
        }
        if search.found.is_none() {
            notes.push(LoadNote::Skipped {
                path: format!("-l{name}"),
                reason: format!(
                    "no usable lib{name}.a in {}: nvlink says nothing and links on",
                    if search.tried.is_empty() {
                        "any library folder (there are none)".to_string()
                    } else {
                        search.tried.join(", ")
                    }
                ),
                warning: None,
                registered: None,
            });
        }
        self.libraries[arg] = Some(search);
        Ok(notes)
    }

    fn archive_fatal(&mut self, name: &str, e: &crate::cubin::FormatError) -> Diagnostic {
        let text = if e.msg.contains("run past the end") {
            "archive member size exceeds library bounds"
        } else {
            "unexpected archive format"
        };
        self.print_fatal(with_detail(text, format!("'{name}': {e}")));
        Diagnostic::fatal("elfLink internal error")
    }

    /// The members of a (regular) archive, or nvlink's fatal for its structure.
    fn archive_members<'d>(
        &mut self,
        name: &str,
        data: &'d [u8],
    ) -> Result<Vec<archive::ArchiveMember<'d>>, Diagnostic> {
        if let Some(e) = archive_structure_error(data) {
            return Err(self.archive_fatal(name, &e));
        }
        archive::members(data).map_err(|e| {
            let e = crate::cubin::FormatError {
                msg: format!("unreadable archive: {}", e.msg),
                ..e
            };
            self.archive_fatal(name, &e)
        })
    }

    // -- files ----------------------------------------------------------------

    fn load_library(&mut self, name: &str, bytes: Option<std::sync::Arc<Vec<u8>>>) -> StepResult {
        let path = self.path_of(name);
        let data = match bytes {
            Some(b) => b,
            None => std::sync::Arc::new(
                read_regular(&path)
                    .map_err(|e| Diagnostic::fatal(with_detail(format!("Could not open input file '{name}'"), e)))?,
            ),
        };
        self.load_archive(name, &path, &data)
    }

    /// Reads every file argument in parallel (see `prefetched`).
    fn prefetch(&mut self) {
        let paths: Vec<Option<PathBuf>> = (self.req.args.iter())
            .map(|a| match a {
                InputArg::File(f) => Some(self.path_of(f)),
                InputArg::Library(_) => None,
            })
            .collect();
        self.prefetched = Some(
            paths
                .par_iter()
                .map(|p| p.as_deref().and_then(|p| read_regular(p).ok()).map(std::sync::Arc::new))
                .collect(),
        );
    }

    fn load_file(&mut self, arg: usize, name: &str) -> StepResult {
        let path = self.path_of(name);
        let could_not_open = || format!("Could not open input file '{name}'");
        let ready = (self.prefetched.as_mut())
            .and_then(|p| p.get_mut(arg))
            .and_then(Option::take)
            .map(|b| std::sync::Arc::try_unwrap(b).unwrap_or_else(|b| (*b).clone()));
        let data = match ready {
            Some(data) => data,
            None if path.is_dir() => return Err(Diagnostic::fatal(could_not_open())),
            None => read_regular(&path).map_err(|_| Diagnostic::fatal(could_not_open()))?,
        };
        if data.is_empty() {
            return Ok(vec![skipped(name, "empty file: nvlink ignores it silently")]);
        }
        if data.len() < MIN_INPUT_SIZE && !archive::is_archive(&data) {
            return Err(Diagnostic::fatal(with_detail(
                could_not_open(),
                format!(
                    "the file has {} bytes; nvlink does not open files shorter than {MIN_INPUT_SIZE} bytes",
                    data.len()
                ),
            )));
        }
        let kind = input::classify(&data);
        match extension(name) {
            Some("cubin") => {
                if !data.starts_with(b"\x7fELF") {
                    return Err(Diagnostic::fatal(with_detail(
                        "cubin not an elf?",
                        format!("'{name}' at offset 0x0: no ELF magic ({})", kind_name(kind)),
                    )));
                }
                let machine = u16::from_le_bytes([data[18], data[19]]);
                if machine != EM_CUDA {
                    return Err(Diagnostic::fatal(with_detail(
                        "cubin not a device elf?",
                        format!("'{name}' at offset 0x12: e_machine {machine}, not EM_CUDA ({EM_CUDA})"),
                    )));
                }
                Ok(vec![cubin_note(name, Origin::File { path: name.to_string() }, data)?])
            }
            Some("fatbin") => {
                if kind != InputKind::Fatbin {
                    return Err(Diagnostic::fatal(with_detail(
                        "fatbin wrong format?",
                        format!("'{name}' at offset 0x0: no fatbin magic ({})", kind_name(kind)),
                    )));
                }
                self.load_fatbin(name, &data)
            }
            Some("ptx") => match kind {
                InputKind::Cubin => Ok(vec![cubin_note(name, Origin::File { path: name.to_string() }, data)?]),
                InputKind::Fatbin => self.load_fatbin(name, &data),
                InputKind::Ptx => {
                    let arch = ptx::ptx_target(&data).map_or_else(String::new, |t| t.replacen("sm_", "compute_", 1));
                    Ok(vec![self.jit(name, &data, None, arch)?])
                }
                _ => {
                    self.printed.push(Printed::Diag(Diagnostic::error(with_detail(
                        "Can't load this binary kind, as it's not recognized",
                        format!("'{name}' is not PTX text, a cubin or a fatbin ({})", kind_name(kind)),
                    ))));
                    Err(Diagnostic::fatal("elfLink fatbinary error"))
                }
            },
            None => Ok(vec![skipped(
                name,
                format!("{}: nvlink ignores files without an extension", kind_name(kind)),
            )]),
            Some(ext) => match kind {
                InputKind::Archive => self.load_archive(name, &path, &data),
                InputKind::Cubin if ext == "o" => {
                    Ok(vec![cubin_note(name, Origin::File { path: name.to_string() }, data)?])
                }
                InputKind::HostObject if ext != "so" => self.load_host_object(name, &data, None),
                _ => Ok(vec![skipped(
                    name,
                    format!(
                        "{} named .{ext}: nvlink ignores it (cubins must be .cubin or .o, fatbins .fatbin, \
                         PTX .ptx; host objects anything but .so)",
                        kind_name(kind)
                    ),
                )]),
            },
        }
    }

    fn load_fatbin(&mut self, name: &str, data: &[u8]) -> StepResult {
        let picks = match input::pick_for(name, data, self.target, self.req.lto) {
            Ok(p) => p,
            Err(e) => {
                return Ok(vec![LoadNote::Skipped {
                    path: name.to_string(),
                    reason: format!("unreadable fatbin ({e}); nvlink finds no code in it"),
                    warning: Some(self.sm_arch_not_found(name)),
                    registered: None,
                }]);
            }
        };
        let mut notes = Vec::new();
        for p in picks {
            notes.push(self.pick_note(name, p, |arch| Origin::FatbinEntry {
                file: name.to_string(),
                arch,
            })?);
        }
        Ok(notes)
    }

    /// A host object on the command line (`member` None) or in an archive.
    fn load_host_object(&mut self, name: &str, data: &[u8], member: Option<(&str, &str)>) -> StepResult {
        if let Err(e) = host::parse(data) {
            if member.is_some() {
                return Ok(vec![skipped(
                    name,
                    format!("host object member that is not a readable ELF ({e}): nvlink ignores it"),
                )]);
            }
            return Err(self.no_fatbin(name, &e.to_string()));
        }
        let picks = input::pick_for(name, data, self.target, self.req.lto);
        self.host_object_picks(name, data, member, picks)
    }

    /// A readable host object whose device code `pick_for` found.
    fn host_object_picks(
        &mut self,
        name: &str,
        data: &[u8],
        member: Option<(&str, &str)>,
        picks: Picked<'_>,
    ) -> StepResult {
        let picks = match picks {
            Ok(p) => p,
            Err(e) => return Err(self.no_fatbin(name, &e.to_string())),
        };
        if picks.is_empty() {
            let why = match host::fatbin_sections(data) {
                Ok(s) if !s.is_empty() => "only executable device code (.nv_fatbin), which nvlink ignores",
                _ => "a host object without device code",
            };
            return Ok(vec![LoadNote::HostCodeOnly {
                path: name.to_string(),
                reason: why.to_string(),
            }]);
        }
        let refs = HostRefs::of(data);
        let mut module_ids = host::module_ids(data).into_iter();
        let module_id = module_ids.next();
        let mut more_module_ids: Vec<String> = module_ids.collect();
        let mut notes = Vec::new();
        for p in picks {
            let p = match (p, member) {
                (Pick::NotFound { path, .. }, Some(_)) => Pick::NotFound { path, warn: false },
                (p, _) => p,
            };
            let not_found = matches!(p, Pick::NotFound { .. });
            let mut note = self.pick_note(name, p, |arch| match member {
                Some((archive, member)) => Origin::ArchiveMember {
                    archive: archive.to_string(),
                    member: member.to_string(),
                    arch,
                },
                None => Origin::HostObject {
                    file: name.to_string(),
                    arch,
                },
            })?;
            // Device code for other architectures only: still registered.
            if let (true, LoadNote::Skipped { registered, .. }) = (not_found, &mut note) {
                *registered = module_id.clone();
            }
            notes.push(note);
        }
        for n in &mut notes {
            match n {
                LoadNote::Loaded(c) => {
                    c.host_refs = refs.clone();
                    c.module_id = module_id.clone();
                    c.more_module_ids = std::mem::take(&mut more_module_ids);
                }
                LoadNote::Lto(m) => {
                    m.module_id = module_id.clone();
                    m.host_refs = refs.clone();
                }
                _ => {}
            }
        }
        Ok(notes)
    }

    fn no_fatbin(&mut self, name: &str, detail: &str) -> Diagnostic {
        self.print_fatal(with_detail(format!("Could not find fatbin in '{name}'"), detail));
        Diagnostic::fatal("elfLink internal error")
    }

    fn sm_arch_not_found(&self, name: &str) -> Diagnostic {
        Diagnostic::warning(format!("SM Arch ('{}') not found in '{name}'", self.target))
    }

    fn pick_note(
        &mut self,
        name: &str,
        p: Pick<'_>,
        origin: impl FnOnce(String) -> Origin,
    ) -> Result<LoadNote, Diagnostic> {
        Ok(match p {
            Pick::Cubin(m) => {
                let arch = m.arch.map_or_else(
                    || m.sm.map_or_else(String::new, |s| format!("sm_{s}")),
                    |a| a.to_string(),
                );
                cubin_note(name, origin(arch), m.data.into_owned())?
            }
            Pick::Ptx(m) => {
                let arch = m
                    .arch
                    .map_or_else(String::new, |a| a.to_string().replacen("sm_", "compute_", 1));
                self.jit(name, &m.data, m.ptxas_options.as_deref(), arch)?
            }
            Pick::Lto(m) => {
                let arch = m
                    .arch
                    .map_or_else(String::new, |a| a.to_string().replacen("sm_", "lto_", 1));
                LoadNote::Lto(LtoModule {
                    name: name.to_string(),
                    origin: origin(arch),
                    fatbin: m.data.into_owned(),
                    module_id: None,
                    host_refs: None,
                })
            }
            Pick::NotFound { path, warn } => LoadNote::Skipped {
                reason: format!(
                    "no cubin for {} and no PTX that compiles for it{}",
                    self.target,
                    if warn {
                        ""
                    } else {
                        " (nvlink says nothing for archive members)"
                    }
                ),
                path,
                warning: warn.then(|| self.sm_arch_not_found(name)),
                registered: None,
            },
        })
    }

    fn jit(
        &mut self,
        name: &str,
        ptx_text: &[u8],
        options: Option<&str>,
        arch: String,
    ) -> Result<LoadNote, Diagnostic> {
        let target = self.target.to_string();
        let Some(ptxas) = self.req.ptxas.clone() else {
            return Err(Diagnostic::fatal(format!(
                "PTX in '{name}' must be compiled for {target}: nvlink does that with its built-in ptxas, culdb \
                 needs an external one; set CULDB_PTXAS to a ptxas binary or put ptxas on PATH \
                 (scripts/cuda-tools.sh installs one)"
            )));
        };
        match ptx::compile(&ptxas, ptx_text, &target, options) {
            Ok(c) => {
                self.printed.extend(c.messages.into_iter().map(Printed::Tool));
                cubin_note(
                    name,
                    Origin::JitPtx {
                        file: name.to_string(),
                        arch,
                    },
                    c.cubin,
                )
            }
            Err(PtxError::Rejected { messages }) => {
                self.printed.extend(messages.into_iter().map(Printed::Tool));
                Err(Diagnostic::fatal("elfLink fatbinary error"))
            }
            Err(PtxError::Run(why)) => Err(Diagnostic::fatal(format!(
                "PTX in '{name}' must be compiled for {target}, but ptxas failed to run: {why}"
            ))),
        }
    }

    // -- archives -------------------------------------------------------------

    fn load_archive(&mut self, name: &str, path: &Path, data: &[u8]) -> StepResult {
        if let Some(id) = FileId::of(path) {
            if let Some((_, first)) = self.archives_read.iter().find(|(i, _)| *i == id) {
                return Ok(vec![skipped(
                    name,
                    format!("the same archive file as '{first}', already read: nvlink reads an archive once"),
                )]);
            }
            self.archives_read.push((id, name.to_string()));
        }
        if data.starts_with(archive::THIN_MAGIC) {
            return self.load_thin_archive(name, data);
        }
        let members = self.archive_members(name, data)?;
        // Under -keep-system-libraries every member is linked, but its host
        // lists still count as a system library's (README observation 114).
        let system_member = system_lib::is_system_library(name);
        let system = !self.req.keep_system_libraries && system_member;
        // Finding (and decompressing) each member's device code is
        // independent of the others: done on every core, then the members
        // are taken in archive order as before.
        let (target, lto) = (self.target, self.req.lto);
        let picked: Vec<Option<Picked<'_>>> = members
            .par_iter()
            .map(|m| {
                let full = format!("{name}:{}", m.name);
                (input::classify(m.data) == InputKind::HostObject && host::parse(m.data).is_ok())
                    .then(|| input::pick_for(&full, m.data, target, lto))
            })
            .collect();
        let mut notes = Vec::new();
        for (m, picked) in members.into_iter().zip(picked) {
            let member = match picked {
                Some(p) => {
                    let full = format!("{name}:{}", m.name);
                    self.host_object_picks(&full, m.data, Some((name, &m.name)), p)?
                }
                None => self.load_member(name, &m.name, m.data)?,
            };
            let mut member = member;
            if system_member {
                for n in &mut member {
                    if let LoadNote::Loaded(c) = n
                        && let Some(r) = &mut c.host_refs
                    {
                        r.system_library = true;
                    }
                }
            }
            if system {
                self.system_library_linked.get_or_insert(false);
            }
            if system && !self.pulls(&member) {
                notes.push(skipped(
                    &format!("{name}:{}", m.name),
                    "member of a system library (cudadevrt) read while no function was left undefined: \
                     nvlink leaves it out (-keep-system-libraries links it)",
                ));
                continue;
            }
            if system {
                self.system_library_linked = Some(true);
                // A later member may define what this one calls.
                for n in &member {
                    if let LoadNote::Loaded(c) = n {
                        self.needs.add(&c.data);
                    }
                }
            }
            notes.extend(member);
        }
        Ok(notes)
    }

    /// Whether a system library's member, as read, is linked: it has device
    /// code and a function the link references is still undefined.
    fn pulls(&self, member: &[LoadNote]) -> bool {
        member.iter().any(|n| match n {
            LoadNote::Loaded(_) => self.needs.open_function().is_some(),
            LoadNote::Skipped { .. } | LoadNote::HostCodeOnly { .. } | LoadNote::Lto(_) => false,
        })
    }

    fn load_member(&mut self, archive: &str, member: &str, data: &[u8]) -> StepResult {
        let full = format!("{archive}:{member}");
        let kind = input::classify(data);
        if kind == InputKind::HostObject {
            return self.load_host_object(&full, data, Some((archive, member)));
        }
        let why = match kind {
            InputKind::Cubin => "cubin member: nvlink ignores cubins inside archives",
            InputKind::Fatbin => "fatbin member: nvlink ignores fatbins inside archives",
            InputKind::Ptx => "PTX member: nvlink ignores PTX inside archives",
            InputKind::Archive => "archive member: nvlink does not look into archives inside archives",
            _ => "neither a host object nor device code: nvlink ignores it",
        };
        Ok(vec![skipped(&full, why)])
    }

    /// nvlink opens a thin archive's members by their stored names, relative
    /// to the current folder; a name with a `/` makes it fail.
    fn load_thin_archive(&mut self, name: &str, data: &[u8]) -> StepResult {
        let names = match thin_member_names(data) {
            Ok(n) => n,
            Err(e) => {
                let e = crate::cubin::FormatError::new(0, e);
                return Err(self.archive_fatal(name, &e));
            }
        };
        let mut notes = Vec::new();
        for member in names {
            if member.contains('/') {
                self.print_fatal(with_detail(
                    "Memory allocation failure",
                    format!("thin archive '{name}' names member '{member}' by a path"),
                ));
                return Err(Diagnostic::fatal("elfLink internal error"));
            }
            let path = self.path_of(&member);
            let Ok(bytes) = read_regular(&path) else {
                self.print_fatal(format!("Could not open input file '{member}'"));
                return Err(Diagnostic::fatal("elfLink internal error"));
            };
            notes.extend(self.load_member(name, &member, &bytes)?);
        }
        Ok(notes)
    }
}

/// Walks the member headers as nvlink does: a header that is cut short or
/// malformed is an "unexpected archive format", a member running past the
/// end "exceeds library bounds" (its `msg` says "run past the end").
fn archive_structure_error(data: &[u8]) -> Option<crate::cubin::FormatError> {
    use crate::cubin::FormatError;
    let mut pos = archive::MAGIC.len();
    while pos < data.len() {
        let Some(h) = data.get(pos..pos + 60) else {
            return Some(FormatError::new(
                pos as u64,
                "member header cut short by the end of the file",
            ));
        };
        if &h[58..60] != b"`\n" {
            return Some(FormatError::new(pos as u64 + 58, "member header does not end in `\\n"));
        }
        let size_field = String::from_utf8_lossy(&h[48..58]);
        let Ok(size) = size_field.trim().parse::<u64>() else {
            return Some(FormatError::new(
                pos as u64 + 48,
                format!("member size {size_field:?} is not a number"),
            ));
        };
        let start = pos as u64 + 60;
        if start.saturating_add(size) > data.len() as u64 {
            return Some(FormatError::new(
                pos as u64,
                format!(
                    "member of {size:#x} bytes at {start:#x} would run past the end of the {:#x}-byte archive",
                    data.len()
                ),
            ));
        }
        pos = (start + size + (size & 1)) as usize;
    }
    None
}

fn thin_member_names(data: &[u8]) -> Result<Vec<String>, String> {
    let file = object::read::archive::ArchiveFile::parse(data).map_err(|e| e.to_string())?;
    file.members()
        .map(|m| {
            m.map(|m| String::from_utf8_lossy(m.name()).into_owned())
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// The target as an architecture (`sm_90a`).
fn target_arch(sm: u32, suffix: Option<char>) -> SmArch {
    let mut a = SmArch::new(sm);
    a.variant = match suffix {
        Some('a') => fatbin::ArchVariant::Specific,
        Some('f') => fatbin::ArchVariant::Family,
        _ => fatbin::ArchVariant::Plain,
    };
    a
}

/// `DIR/libNAME.a`, the DIR's trailing `/` dropped as nvlink does.
pub(super) fn library_candidate(dir: &str, name: &str) -> String {
    let d = dir.trim_end_matches('/');
    if d.is_empty() && !dir.is_empty() {
        format!("/lib{name}.a")
    } else {
        format!("{d}/lib{name}.a")
    }
}

/// The extension of the base name: None without a `.`, `Some("")` for `x.`.
fn extension(name: &str) -> Option<&str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.rsplit_once('.').map(|(_, e)| e)
}

fn kind_name(kind: InputKind) -> &'static str {
    match kind {
        InputKind::Cubin => "a cubin",
        InputKind::Fatbin => "a fatbin",
        InputKind::HostObject => "a host ELF object",
        InputKind::Archive => "an archive",
        InputKind::Ptx => "PTX text",
        InputKind::Unknown => "not a known input kind",
    }
}

fn member_kinds(members: &[archive::ArchiveMember<'_>]) -> String {
    if members.is_empty() {
        return "it has no members".to_string();
    }
    let mut kinds: Vec<&str> = members.iter().map(|m| kind_name(input::classify(m.data))).collect();
    kinds.dedup();
    kinds.join(", ")
}

/// The contents of an input file. Only regular files (or links to them) are
/// read: a FIFO would block the link and a device such as `/dev/zero` never
/// ends; nvlink cannot open them either.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    std::fs::read(path)
}

fn skipped(path: &str, reason: impl Into<String>) -> LoadNote {
    LoadNote::Skipped {
        path: path.to_string(),
        reason: reason.into(),
        warning: None,
        registered: None,
    }
}

/// A cubin, or the note that nvlink silently ignores it (executable,
/// ELF32, big-endian, or broken). A cubin with ELF extended section
/// numbering (more than 65,279 sections), which nvlink links and culdb
/// cannot read yet, is a fatal error rather than a silently wrong link.
fn cubin_note(name: &str, origin: Origin, data: Vec<u8>) -> Result<LoadNote, Diagnostic> {
    Ok(match cubin_problem(&data) {
        None => LoadNote::Loaded(LoadedCubin {
            name: name.to_string(),
            origin,
            data,
            host_refs: None,
            module_id: None,
            more_module_ids: Vec::new(),
        }),
        Some(why) => skipped(name, format!("{why}: nvlink ignores such a cubin silently")),
    })
}

fn cubin_problem(data: &[u8]) -> Option<String> {
    match read::parse(data) {
        Err(e) => Some(format!("unreadable cubin ({e})")),
        Ok(c) if c.header.e_type == ET_EXEC => Some("an executable (ET_EXEC) cubin".to_string()),
        Ok(_) => None,
    }
}

/// Identity of a file, to see the same archive under two names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
enum FileId {
    Inode {
        dev: u64,
        ino: u64,
    },
    #[cfg(not(unix))]
    Path(PathBuf),
}

impl FileId {
    fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId::Inode {
                dev: m.dev(),
                ino: m.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            std::fs::canonicalize(path).ok().map(FileId::Path)
        }
    }
}

/// Whether `origin` (an [`Origin`] as displayed, `InputRecord::origin`) is
/// PTX culdb compiled at link time.
pub fn is_jit_origin(origin: &str) -> bool {
    origin.starts_with("PTX in ") && origin.contains(" compiled by ptxas for ")
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File { path } => write!(f, "file {path}"),
            Origin::FatbinEntry { file, arch } => write!(f, "the {arch} entry of fatbin {file}"),
            Origin::HostObject { file, arch } => write!(f, "the {arch} cubin embedded in host object {file}"),
            Origin::ArchiveMember { archive, member, arch } => {
                write!(f, "the {arch} cubin of member {member} of {archive}")
            }
            Origin::JitPtx { file, arch } => write!(f, "PTX in {file} compiled by ptxas for {arch}"),
            Origin::Lto { modules } => write!(f, "the LTO step's cubin, compiled from {modules} NVVM IR module(s)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_extensions() {
        assert_eq!(extension("a.cubin"), Some("cubin"));
        assert_eq!(extension("dir.d/x"), None);
        assert_eq!(extension("x."), Some(""));
        assert_eq!(extension(".hidden"), Some("hidden"));
        assert_eq!(extension("lib.cubin.o"), Some("o"));
        assert_eq!(library_candidate(".", "x"), "./libx.a");
        assert_eq!(library_candidate("d1//", "q"), "d1/libq.a");
        assert_eq!(library_candidate("/", "q"), "/libq.a");
        assert_eq!(library_path_dirs(":d1::d2:"), ["d1", "d2"]);
        assert_eq!(nvlink_text("cubin not an elf? [culdb: 'x' at 0]"), "cubin not an elf?");
        assert_eq!(target_arch(90, Some('a')).to_string(), "sm_90a");
        assert_eq!(target_arch(100, Some('f')).to_string(), "sm_100f");
    }

    #[test]
    fn plan_searches_libraries_first_and_loads_them_last() {
        let req = InputRequest {
            args: vec![
                InputArg::Library("q".into()),
                InputArg::File("a.cubin".into()),
                InputArg::Library("r".into()),
                InputArg::File("b.cubin".into()),
            ],
            lib_paths: vec![],
            target_sm: 90,
            target_suffix: None,
            ptxas: None,
            keep_system_libraries: false,
            lto: false,
        };
        let l = InputLoader::new(req);
        let plan: Vec<(usize, Action)> = l.plan().iter().map(|p| (p.arg, p.action)).collect();
        use Action::*;
        assert_eq!(
            plan,
            [
                (0, SearchLibrary),
                (2, SearchLibrary),
                (1, Load),
                (3, Load),
                (0, Load),
                (2, Load)
            ]
        );
        assert_eq!(l.current(), 0);
    }
}
