//! Hostile inputs for the linker: a deterministic mutator of cubins and a
//! harness that links one mutated input beside sound partners and reports a
//! panic. `tests/fuzz_smoke.rs` runs it on stable with a fixed seed; the
//! cargo-fuzz targets under `fuzz/` call [`LinkCase::link`] with the fuzzer's
//! bytes.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// xorshift64*: small, deterministic, good enough to pick offsets.
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Values that break arithmetic on header fields: zero, ones, powers of two
/// around 32 bits, huge alignments, all ones.
const HOSTILE: [u64; 16] = [
    0,
    1,
    3,
    0x7f,
    0xff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    1 << 32,
    1 << 41,
    1 << 63,
    u64::MAX,
    u64::MAX - 7,
    0xfff1,
    0xff00,
];

/// Where the fields of an ELF64 file's tables are, read leniently from the
/// sound original (so mutations aim at real headers).
#[derive(Debug, Clone, Default)]
struct Layout {
    /// File offsets of the section headers.
    shdrs: Vec<usize>,
    /// File offsets of the symbol records (all symbol tables).
    syms: Vec<usize>,
    /// File offsets of relocation records and their sizes (16 or 24).
    relocs: Vec<(usize, usize)>,
}

fn rd(b: &[u8], at: usize, n: usize) -> u64 {
    let mut v = 0u64;
    for i in 0..n {
        v |= (*b.get(at + i).unwrap_or(&0) as u64) << (8 * i);
    }
    v
}

fn wr(b: &mut [u8], at: usize, n: usize, v: u64) {
    for i in 0..n {
        if let Some(x) = b.get_mut(at + i) {
            *x = (v >> (8 * i)) as u8;
        }
    }
}

impl Layout {
    fn of(b: &[u8]) -> Self {
        let mut l = Layout::default();
        if b.len() < 64 {
            return l;
        }
        let shoff = rd(b, 0x28, 8) as usize;
        let shnum = rd(b, 0x3c, 2) as usize;
        for i in 0..shnum {
            let h = shoff.saturating_add(i * 64);
            if h.saturating_add(64) > b.len() {
                break;
            }
            l.shdrs.push(h);
            let ty = rd(b, h + 4, 4) as u32;
            let off = rd(b, h + 24, 8) as usize;
            let size = rd(b, h + 32, 8) as usize;
            if off.saturating_add(size) > b.len() {
                continue;
            }
            let ent = match ty {
                2 | 0x7000_0086 => 24,
                4 | 0x7000_0085 => 24,
                9 => 16,
                _ => continue,
            };
            for k in 0..size / ent {
                if ty == 2 || ty == 0x7000_0086 {
                    l.syms.push(off + k * ent);
                } else {
                    l.relocs.push((off + k * ent, ent));
                }
            }
        }
        l
    }
}

/// One mutation of `orig`: random bytes, or a hostile value written into a
/// section header, symbol or relocation field.
pub fn mutate(orig: &[u8], rng: &mut XorShift) -> Vec<u8> {
    let mut b = orig.to_vec();
    if b.is_empty() {
        return b;
    }
    let layout = Layout::of(orig);
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let hostile = HOSTILE[rng.below(HOSTILE.len())];
        match rng.below(8) {
            0 => {
                let at = rng.below(b.len());
                b[at] = rng.next_u64() as u8;
            }
            1 => {
                let at = rng.below(b.len());
                b[at] ^= 1 << rng.below(8);
            }
            2 => {
                let at = rng.below(b.len());
                let n = 1 + rng.below(8);
                wr(&mut b, at, n, rng.next_u64());
            }
            3 => {
                // A header field of the file.
                let (at, n) = [
                    (0x20, 8),
                    (0x28, 8),
                    (0x36, 2),
                    (0x38, 2),
                    (0x3a, 2),
                    (0x3c, 2),
                    (0x3e, 2),
                ][rng.below(7)];
                wr(&mut b, at, n, hostile);
            }
            4 | 5 if !layout.shdrs.is_empty() => {
                let h = layout.shdrs[rng.below(layout.shdrs.len())];
                // sh_type, sh_flags, sh_offset, sh_size, sh_link, sh_info, sh_addralign, sh_entsize
                let (f, n) = [(4, 4), (8, 8), (24, 8), (32, 8), (40, 4), (44, 4), (48, 8), (56, 8)][rng.below(8)];
                wr(&mut b, h + f, n, hostile);
            }
            6 if !layout.syms.is_empty() => {
                let s = layout.syms[rng.below(layout.syms.len())];
                // st_name, st_info, st_other, st_shndx, st_value, st_size
                let (f, n) = [(0, 4), (4, 1), (5, 1), (6, 2), (8, 8), (16, 8)][rng.below(6)];
                wr(&mut b, s + f, n, hostile);
            }
            7 if !layout.relocs.is_empty() => {
                let (r, ent) = layout.relocs[rng.below(layout.relocs.len())];
                // r_offset, r_info's type, r_info's symbol, r_addend
                let fields: &[(usize, usize)] = if ent == 24 {
                    &[(0, 8), (8, 4), (12, 4), (16, 8)]
                } else {
                    &[(0, 8), (8, 4), (12, 4)]
                };
                let (f, n) = fields[rng.below(fields.len())];
                wr(&mut b, r + f, n, hostile);
            }
            _ => {
                let at = rng.below(b.len());
                let n = 1 + rng.below(8);
                wr(&mut b, at, n, hostile);
            }
        }
    }
    b
}

/// What one link of a mutated input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The link finished with this exit status (0: an output was made).
    Exit(i32),
    /// The linker panicked: the panic's message.
    Panicked(String),
}

/// A link case to mutate: a folder holding copies of a corpus case's inputs,
/// the link's arguments, and the input whose bytes each run replaces.
#[derive(Debug, Clone)]
pub struct LinkCase {
    pub dir: PathBuf,
    pub args: Vec<String>,
    /// The input file (relative to `dir`) the mutated bytes are written to.
    pub target: String,
    /// Its sound bytes.
    pub original: Vec<u8>,
}

impl LinkCase {
    /// Copies the inputs of the corpus case `case` (its `link.args`) into
    /// `scratch` and makes `target` the mutated input.
    pub fn from_corpus(case: &Path, target: &str, scratch: &Path) -> std::io::Result<Self> {
        let args_line = std::fs::read_to_string(case.join("link.args"))?;
        let mut args: Vec<String> = args_line.split_whitespace().map(str::to_string).collect();
        // The output stays in memory; nvlink wants a name for it.
        args.extend(["-o".to_string(), "out.cubin".to_string()]);
        std::fs::create_dir_all(scratch)?;
        for e in std::fs::read_dir(case)? {
            let e = e?;
            if e.file_type()?.is_file() {
                std::fs::copy(e.path(), scratch.join(e.file_name()))?;
            }
        }
        let original = std::fs::read(case.join(target))?;
        Ok(LinkCase {
            dir: scratch.to_path_buf(),
            args,
            target: target.to_string(),
            original,
        })
    }

    /// Links with `bytes` as the target input, through the library, catching
    /// a panic. The output stays in memory.
    pub fn link(&self, bytes: &[u8]) -> Outcome {
        if let Err(e) = std::fs::write(self.dir.join(&self.target), bytes) {
            return Outcome::Panicked(format!("could not write the input: {e}"));
        }
        let run = catch_unwind(AssertUnwindSafe(|| {
            let mut linker = match crate::link::linker_for(&self.args, &self.dir) {
                Ok(l) => l,
                Err(e) => return e.status,
            };
            linker.run();
            if linker.failed() {
                linker.exit_status().max(1)
            } else {
                0
            }
        }));
        match run {
            Ok(status) => Outcome::Exit(status),
            Err(p) => Outcome::Panicked(panic_text(&*p)),
        }
    }
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the panic hook with one that prints nothing and keeps where the
/// last panic of the thread happened, for [`Outcome::Panicked`]'s message.
/// For harnesses that count panics rather than die of them.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map_or_else(String::new, |l| format!(" at {}:{}", l.file(), l.line()));
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(at));
    }));
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    let at = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_default();
    format!("{}{at}", panic_message(p))
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// A reader run for its result's sake: it must return, whatever the bytes.
pub type Reader = fn(&[u8]);

/// Every reader culdb has for untrusted bytes, by name: containers (cubin,
/// host object, archive, fatbin, and the input listing and picking through
/// all of them), the `.nv.*` table codecs, the Mercury capsule, uidx files,
/// and the RON of scenarios and batch jobs. Each must return an error, never
/// panic; the cargo-fuzz target `parsers` and tests/fuzz_smoke.rs feed them.
pub const PARSERS: &[(&str, Reader)] = &[
    ("input", |d| {
        let _ = crate::cubin::input::list("fuzz.o", d);
        let _ = crate::cubin::input::pick_for("fuzz.o", d, crate::cubin::fatbin::SmArch::new(90), true);
    }),
    ("cubin", |d| {
        let _ = crate::cubin::read::parse_for_link(d);
    }),
    ("host", |d| {
        let _ = crate::cubin::host::parse(d);
        let _ = crate::cubin::host::fatbin_sections(d);
    }),
    ("archive", |d| {
        let _ = crate::cubin::archive::parse(d);
    }),
    ("fatbin", |d| {
        let _ = crate::cubin::fatbin::parse(d);
    }),
    ("nvinfo", |d| {
        let _ = crate::cubin::nvinfo::decode(d);
    }),
    ("callgraph", |d| {
        let _ = crate::cubin::callgraph::decode(d);
    }),
    ("prototype", |d| {
        let _ = crate::cubin::prototype::decode(d);
    }),
    ("rel_action", |d| {
        let _ = crate::cubin::rel_action::decode(d);
    }),
    ("compat", |d| {
        let _ = crate::cubin::compat::decode(d);
    }),
    ("capsule", |d| {
        let _ = crate::cubin::capsule::Capsule::parse(d);
    }),
    ("uidx", |d| {
        let _ = crate::link::uidx::parse(d);
    }),
    ("scenario", |d| {
        let _ = crate::scenario::Scenario::parse(Path::new("fuzz.ron"), &String::from_utf8_lossy(d));
    }),
    ("jobs", |d| {
        let _ = crate::batch::jobs::parse(Path::new("fuzz.ron"), &String::from_utf8_lossy(d));
    }),
];

/// Runs parser `which` (an index into [`PARSERS`], taken modulo its length)
/// on `data`; Err with the panic's message if it panicked.
pub fn parse_one(which: usize, data: &[u8]) -> Result<(), String> {
    let (_, f) = PARSERS[which % PARSERS.len()];
    catch_unwind(AssertUnwindSafe(|| f(data))).map_err(|p| panic_text(&*p))
}
