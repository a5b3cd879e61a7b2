//! Synthetic inputs of scenarios: relocatable cubins written by culdb's own
//! builder ([`crate::cubin::build`]) in the shape ptxas 13.5 gives them
//! (notes and `.nv.compat`, `.text.<fn>` with its section symbol, register
//! counts in `.nv.info`, `.nv.callgraph`, call relocations), `ar` archives of
//! them, and UIDX files. An inconsistent description (a relocation past the
//! end of its section, a symbol nobody declared, a section that does not
//! exist) is an error naming the object and the item, never a panic.

use std::collections::HashMap;

use super::{Archive, Binding, Data, Function, Kind, Object, Space, Uidx};
use crate::cubin::build::{CubinBuilder, Def, SecId, SecSpec, Sym, SymId, UFT_SLOT, uidx_bytes};
use crate::cubin::catalog::{self, RelocFamily};
use crate::cubin::consts::*;
use crate::cubin::read::{MAX_ALIGN, MAX_OFFSET};

/// The most bytes a synthetic function's code or a section of initialized
/// variables may hold (16 MiB): they are made in memory.
const MAX_CONTENTS: u64 = 1 << 24;

/// STO_CUDA_ENTRY: a kernel's st_other.
const STO_ENTRY: u8 = 0x10;
/// st_other of a `.nv.global*` variable as ptxas writes it.
const STO_GLOBAL_VAR: u8 = 0x20;
/// st_other of a `.nv.constant*` variable.
const STO_CONSTANT_VAR: u8 = 0x80;
/// The call relocation ptxas 13.5 writes for `CALL.ABS.NOINC` on sm_90.
const CALL_RELOC: &str = "R_CUDA_ABS55_16_34";
/// Bytes one instruction takes.
const INSN: u64 = 16;

fn sym(binding: Binding) -> Sym {
    match binding {
        Binding::Global => Sym::global(),
        Binding::Weak => Sym::weak(),
        Binding::Local => Sym::local(),
    }
}

/// An object being built: the builder and its names.
struct Build<'o> {
    obj: &'o Object,
    sm: u32,
    b: CubinBuilder,
    syms: HashMap<String, SymId>,
    secs: HashMap<String, SecId>,
    sizes: HashMap<String, u64>,
}

impl Build<'_> {
    fn err(&self, what: String) -> String {
        format!("object `{}`: {what}", self.obj.name)
    }

    /// The symbol `name`, declared undefined (a function or a variable) on first use.
    fn undefined(&mut self, name: &str, kind: Kind) -> SymId {
        if let Some(&s) = self.syms.get(name) {
            return s;
        }
        let attrs = match kind {
            Kind::Function => Sym::global(),
            Kind::Variable => Sym {
                sym_type: STT_CUDA_OBJECT,
                other: STO_GLOBAL_VAR,
                ..Sym::global()
            },
            Kind::Texture | Kind::Sampler | Kind::Surface => Sym {
                sym_type: match kind {
                    Kind::Texture => STT_CUDA_TEXTURE,
                    Kind::Sampler => STT_CUDA_SAMPLER,
                    _ => STT_CUDA_SURFACE,
                },
                ..Sym::global()
            },
        };
        let s = self.b.symbol(name, attrs, Def::Undefined, 0);
        self.syms.insert(name.into(), s);
        s
    }

    fn define(&mut self, name: &str, s: SymId) -> Result<(), String> {
        if self.syms.insert(name.into(), s).is_some() {
            return Err(self.err(format!("`{name}` is defined twice")));
        }
        Ok(())
    }

    fn function(&mut self, f: &Function) -> Result<(), String> {
        let code = match (&f.code, f.size) {
            (Some(c), None) => c.clone(),
            (Some(c), Some(n)) if n == c.len() as u64 => c.clone(),
            (Some(c), Some(n)) => {
                return Err(self.err(format!("function `{}` has {} code bytes but size {n}", f.name, c.len())));
            }
            (None, n) => {
                let n = n.unwrap_or(128);
                if n > MAX_CONTENTS {
                    return Err(self.err(format!(
                        "function `{}`: size {n} is more than {MAX_CONTENTS} bytes",
                        f.name
                    )));
                }
                vec![0; n as usize]
            }
        };
        if code.is_empty() || !(code.len() as u64).is_multiple_of(INSN) {
            return Err(self.err(format!(
                "function `{}`: code size {} is not a positive multiple of {INSN}",
                f.name,
                code.len()
            )));
        }
        let mut attrs = sym(f.binding);
        if f.kernel {
            attrs = attrs.other(STO_ENTRY);
        }
        let size = code.len() as u64;
        let (sec, s) = self.b.function(&f.name, code, attrs);
        // ptxas for sm_75…sm_89 states the register count in the top byte
        // of the code section's sh_info too (corpus arch_sm75_smoke).
        if self.sm < 90
            && let Some(r) = f.registers
        {
            self.b.section_mut(sec).info = (r.min(255)) << 24;
        }
        self.define(&f.name, s)?;
        // Per-function `.nv.info.<f>` as ptxas 13.5 starts it: the source
        // language (3, PTX), on sm_75…sm_89 EIATTR_SW_WAR = 1, the CUDA API
        // version (0x87 = 13.5), and attribute 0x5f: 0x101 from sm_90 on, 0
        // before (corpus arch_sm75_smoke, arch_sm90_smoke). Without SW_WAR an
        // sm_75 object is "pre-V10" to nvlink.
        let mut info = Vec::new();
        let mut words = vec![(ATTR_LANGUAGE, 3u32)];
        if self.sm < 90 {
            words.push((ATTR_SW_WAR, 1));
        }
        words.push((nvinfo_code::CUDA_API_VERSION, 0x87));
        for (code, value) in words {
            info.extend_from_slice(&[EIFMT_SVAL, code, 4, 0]);
            info.extend_from_slice(&value.to_le_bytes());
        }
        let attr_5f: u16 = if self.sm < 90 { 0 } else { 0x101 };
        info.extend_from_slice(&[EIFMT_HVAL, 0x5f]);
        info.extend_from_slice(&attr_5f.to_le_bytes());
        let mut spec = SecSpec::new(&format!(".nv.info.{}", f.name), SHT_CUDA_INFO, SHF_INFO_LINK, 4).data(info);
        spec.link_symtab = true;
        spec.info_sec = Some(sec);
        self.b.section(spec);
        if f.kernel {
            // The kernel's parameter bank: 0x210 bytes of driver-reserved
            // constants on sm_75..sm_120, no parameters.
            let mut spec = SecSpec::new(
                &format!(".nv.constant0.{}", f.name),
                SHT_CUDA_CONSTANT0,
                SHF_ALLOC | SHF_INFO_LINK,
                4,
            )
            .data(vec![0; 0x210])
            .with_section_symbol();
            spec.info_sec = Some(sec);
            self.b.section(spec);
        }
        let name = format!(".text.{}", f.name);
        self.secs.insert(name.clone(), sec);
        self.sizes.insert(name, size);
        Ok(())
    }

    fn data(&mut self, d: &Data, offsets: &mut HashMap<&'static str, (SecId, u64)>) -> Result<(), String> {
        let align = d.align.unwrap_or(4);
        if align == 0 || !align.is_power_of_two() || align > MAX_ALIGN {
            return Err(self.err(format!(
                "variable `{}`: alignment {align} is not a power of two up to {MAX_ALIGN}",
                d.name
            )));
        }
        let bytes = d.bytes.clone().unwrap_or_default();
        if bytes.len() as u64 > d.size {
            return Err(self.err(format!(
                "variable `{}`: {} initial bytes for a size of {}",
                d.name,
                bytes.len(),
                d.size
            )));
        }
        let base = Sym {
            sym_type: STT_CUDA_OBJECT,
            ..sym(d.binding)
        }
        .sized(d.size);
        let (name, sh_type, other, initialized) = match d.space {
            Space::Common => {
                if d.binding != Binding::Global {
                    return Err(self.err(format!("common variable `{}` must be Global", d.name)));
                }
                let s = self.b.symbol(&d.name, base.other(STO_GLOBAL_VAR), Def::Common, align);
                return self.define(&d.name, s);
            }
            Space::Global if d.bytes.is_some() => (".nv.global.init", SHT_CUDA_GLOBAL_INIT, STO_GLOBAL_VAR, true),
            Space::Global => (".nv.global", SHT_CUDA_GLOBAL, STO_GLOBAL_VAR, false),
            Space::Constant => (".nv.constant3", SHT_CUDA_CONSTANT0 + 3, STO_CONSTANT_VAR, true),
        };
        let flags = if d.space == Space::Constant {
            SHF_ALLOC
        } else {
            SHF_ALLOC | SHF_WRITE
        };
        let (sec, end) = match offsets.get(name) {
            Some(&v) => v,
            None => {
                let spec = SecSpec::new(name, sh_type, flags, align).with_section_symbol();
                let sec = self.b.section(spec);
                self.secs.insert(name.into(), sec);
                (sec, 0)
            }
        };
        let at = end.div_ceil(align) * align;
        // Initialized bytes are made here; a NOBITS size is only a number,
        // kept where a link's layout cannot overflow with it.
        let limit = if initialized { MAX_CONTENTS } else { MAX_OFFSET };
        if at.checked_add(d.size).is_none_or(|e| e > limit) {
            return Err(self.err(format!(
                "variable `{}`: size {} at offset {at} of {name} ends past {limit} bytes",
                d.name, d.size
            )));
        }
        let spec = self.b.section_mut(sec);
        spec.align = spec.align.max(align);
        if initialized {
            spec.data.resize(at as usize, 0);
            spec.data.extend_from_slice(&bytes);
            spec.data.resize((at + d.size) as usize, 0);
        } else {
            spec.nobits_size = at + d.size;
        }
        offsets.insert(name, (sec, at + d.size));
        self.sizes.insert(name.into(), at + d.size);
        let s = self.b.symbol(&d.name, base.other(other), Def::In(sec), at);
        self.define(&d.name, s)
    }

    /// `.nv.info`: register counts, then the extra attributes.
    fn nv_info(&mut self) -> Result<(), String> {
        let mut data = Vec::new();
        let mut fixups = Vec::new();
        for f in &self.obj.functions {
            if let Some(r) = f.registers {
                fixups.push((data.len() + 4, self.syms[&f.name]));
                data.extend_from_slice(&[EIFMT_SVAL, nvinfo_code::REGCOUNT, 8, 0]);
                data.extend_from_slice(&[0; 4]);
                data.extend_from_slice(&r.to_le_bytes());
            }
        }
        for i in &self.obj.info {
            let code = catalog::nvinfo_attr_code(&i.attr)
                .or_else(|| i.attr.parse::<u8>().ok())
                .ok_or_else(|| self.err(format!("unknown .nv.info attribute `{}`", i.attr)))?;
            match &i.function {
                Some(f) => {
                    let Some(&s) = self
                        .syms
                        .get(f)
                        .filter(|_| self.obj.functions.iter().any(|x| &x.name == f))
                    else {
                        return Err(self.err(format!(
                            "attribute {} names `{f}`, which is not a function here",
                            i.attr
                        )));
                    };
                    fixups.push((data.len() + 4, s));
                    data.extend_from_slice(&[EIFMT_SVAL, code, 8, 0]);
                    data.extend_from_slice(&[0; 4]);
                    data.extend_from_slice(&i.value.to_le_bytes());
                }
                None => {
                    let v = u16::try_from(i.value).map_err(|_| {
                        self.err(format!(
                            "attribute {}: module value {} is over 16 bits",
                            i.attr, i.value
                        ))
                    })?;
                    data.extend_from_slice(&[EIFMT_HVAL, code]);
                    data.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
        if data.is_empty() {
            return Ok(());
        }
        let mut spec = SecSpec::new(".nv.info", SHT_CUDA_INFO, 0, 4).data(data);
        spec.link_symtab = true;
        spec.sym_fixups = fixups;
        self.b.section(spec);
        Ok(())
    }

    /// `.nv.callgraph` (the edges, then the three empty lists ptxas writes)
    /// and one call relocation per edge, at successive instructions.
    fn calls(&mut self) -> Result<(), String> {
        let mut edges = Vec::new();
        for f in &self.obj.functions {
            for (k, callee) in f.calls.iter().enumerate() {
                let at = INSN * (k as u64 + 1);
                let size = self.sizes[&format!(".text.{}", f.name)];
                if at + INSN > size {
                    return Err(self.err(format!(
                        "function `{}` makes {} calls but has room for {}",
                        f.name,
                        f.calls.len(),
                        size / INSN - 1
                    )));
                }
                let to = self.undefined(callee, Kind::Function);
                let from = self.syms[&f.name];
                let sec = self.secs[&format!(".text.{}", f.name)];
                let (_, n) = reloc_type(CALL_RELOC).map_err(|e| self.err(e))?;
                self.b.reloc(sec, at, n, to, 0);
                edges.push((from, to));
            }
        }
        if edges.is_empty() {
            return Ok(());
        }
        let mut data = Vec::new();
        let mut fixups = Vec::new();
        let marker = |data: &mut Vec<u8>, m: i32| {
            data.extend_from_slice(&0u32.to_le_bytes());
            data.extend_from_slice(&m.to_le_bytes());
        };
        marker(&mut data, -1);
        for (from, to) in edges {
            fixups.push((data.len(), from));
            fixups.push((data.len() + 4, to));
            data.extend_from_slice(&[0; 8]);
        }
        for m in [-2, -3, -4] {
            marker(&mut data, m);
        }
        let mut spec = SecSpec::new(".nv.callgraph", SHT_CUDA_CALLGRAPH, 0, 4)
            .entsize(8)
            .data(data)
            .with_section_symbol();
        spec.link_symtab = true;
        spec.sym_fixups = fixups;
        self.b.section(spec);
        Ok(())
    }

    fn relocations(&mut self) -> Result<(), String> {
        for r in &self.obj.relocations {
            let name = if self.secs.contains_key(&r.section) {
                r.section.clone()
            } else {
                format!(".text.{}", r.section)
            };
            let Some(&sec) = self.secs.get(&name) else {
                return Err(self.err(format!(
                    "relocation at {}+{:#x}: there is no section `{}` (nor function)",
                    r.section, r.offset, r.section
                )));
            };
            let size = self.sizes[&name];
            let (_, n) = reloc_type(&r.rtype).map_err(|e| self.err(e))?;
            let width = if r.rtype.ends_with("_64") { 8 } else { 4 };
            if name.starts_with(".text.") && r.offset % INSN != 0 {
                return Err(self.err(format!(
                    "relocation {} at {name}+{:#x}: code offsets are multiples of {INSN}",
                    r.rtype, r.offset
                )));
            }
            let room = if name.starts_with(".text.") { INSN } else { width };
            if r.offset.checked_add(room).is_none_or(|end| end > size) {
                return Err(self.err(format!(
                    "relocation {} at {name}+{:#x} is past the end of the section ({size:#x} bytes)",
                    r.rtype, r.offset
                )));
            }
            let Some(&s) = self.syms.get(&r.symbol) else {
                return Err(self.err(format!(
                    "relocation {} at {name}+{:#x} names `{}`, which this object neither defines nor lists in `undefined`",
                    r.rtype, r.offset, r.symbol
                )));
            };
            self.b.reloc(sec, r.offset, n, s, r.addend);
        }
        Ok(())
    }

    fn uft(&mut self) -> Result<(), String> {
        if self.obj.uft.is_empty() {
            return Ok(());
        }
        let mut targets = Vec::new();
        for slot in &self.obj.uft {
            if !self.obj.functions.iter().any(|f| f.name == slot.function) {
                return Err(self.err(format!(
                    "UFT slot for `{}`, which is not a function here",
                    slot.function
                )));
            }
            targets.push((slot.function.as_str(), slot.uuid.0, slot.uuid.1));
        }
        self.b.uft_table(&targets);
        Ok(())
    }

    fn udt(&mut self) -> Result<(), String> {
        if self.obj.udt.is_empty() {
            return Ok(());
        }
        let mut vars: Vec<(&str, Vec<u8>, u64, u64)> = Vec::new();
        for v in &self.obj.udt {
            if self.syms.contains_key(&v.name) || vars.iter().any(|(n, ..)| *n == v.name.as_str()) {
                return Err(self.err(format!("UDT variable `{}` is defined twice", v.name)));
            }
            if v.bytes.is_empty() {
                return Err(self.err(format!("UDT variable `{}` has no bytes", v.name)));
            }
            vars.push((v.name.as_str(), v.bytes.clone(), v.uuid.0, v.uuid.1));
        }
        let (_, _, entries) = self.b.udt_slots(&vars);
        self.b.entry_table(".nv.udt.entry", SHT_CUDA_UDT_ENTRY, &entries);
        Ok(())
    }
}

/// nvinfo attribute codes used here.
mod nvinfo_code {
    pub use crate::cubin::nvinfo::code::{CUDA_API_VERSION, REGCOUNT};
}
/// EIATTR 0x66: the source language of a function (3 = PTX).
const ATTR_LANGUAGE: u8 = 0x66;
/// EIATTR_SW_WAR (0x36), which ptxas writes for sm_75…sm_89 functions.
const ATTR_SW_WAR: u8 = 0x36;
const EIFMT_SVAL: u8 = crate::cubin::nvinfo::EIFMT_SVAL;
const EIFMT_HVAL: u8 = crate::cubin::nvinfo::EIFMT_HVAL;

/// A CUDA relocation type by its cuobjdump name.
fn reloc_type(name: &str) -> Result<(RelocFamily, u32), String> {
    match catalog::reloc_number(name) {
        Some((RelocFamily::Cuda, n)) => Ok((RelocFamily::Cuda, n)),
        Some((RelocFamily::Mercury, _)) => Err(format!("`{name}` is a Mercury relocation; objects take R_CUDA types")),
        None => Err(format!("unknown relocation type `{name}`")),
    }
}

/// The cubin an [`Object`] describes, for `-arch=sm_<default_sm>` unless it names its own SM.
pub fn object_bytes(obj: &Object, default_sm: u32) -> Result<Vec<u8>, String> {
    let sm = obj.sm.unwrap_or(default_sm);
    let mut b = CubinBuilder::new(sm);
    b.ptxas_notes_from(sm, obj.virtual_sm.unwrap_or(sm));
    let mut o = Build {
        obj,
        sm,
        b,
        syms: HashMap::new(),
        secs: HashMap::new(),
        sizes: HashMap::new(),
    };
    for f in &obj.functions {
        o.function(f)?;
    }
    let mut offsets = HashMap::new();
    for d in &obj.data {
        o.data(d, &mut offsets)?;
    }
    for u in &obj.undefined {
        if o.syms.contains_key(&u.name) {
            return Err(o.err(format!("`{}` is listed undefined but defined here", u.name)));
        }
        o.undefined(&u.name, u.kind);
    }
    o.calls()?;
    o.nv_info()?;
    o.relocations()?;
    o.uft()?;
    o.udt()?;
    o.b.to_bytes().map_err(|e| o.err(format!("cannot write it: {e}")))
}

/// An `ar` archive (System V/GNU format, no symbol table) of the members.
pub fn archive_bytes(a: &Archive, default_sm: u32) -> Result<Vec<u8>, String> {
    let mut out = b"!<arch>\n".to_vec();
    for m in &a.members {
        let data = object_bytes(m, default_sm).map_err(|e| format!("archive `{}`: {e}", a.name))?;
        if m.name.len() > 15 || m.name.contains('/') {
            return Err(format!(
                "archive `{}`: member name `{}` must be at most 15 characters, without `/`",
                a.name, m.name
            ));
        }
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{}/", m.name),
            0,
            0,
            0,
            644,
            data.len()
        );
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&data);
        if data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    Ok(out)
}

/// A UIDX file: version 1, each record a UUID and its slot's (or
/// variable's) byte offset.
pub fn uidx_file(u: &Uidx) -> Vec<u8> {
    let records: Vec<(u64, u64, u64)> = u
        .uft
        .iter()
        .map(|r| (r.uuid.0, r.uuid.1, r.slot.wrapping_mul(UFT_SLOT)))
        .collect();
    let window = u.window.unwrap_or(records.len() as u64).wrapping_mul(UFT_SLOT);
    let data: Vec<(u64, u64, u64)> = u.udt.iter().map(|r| (r.uuid.0, r.uuid.1, r.offset)).collect();
    uidx_bytes(1, window, &records, u.udt_window.unwrap_or(0), &data, None)
}
