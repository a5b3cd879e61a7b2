//! Emit: the finished link state as a cubin model (then bytes, through
//! `cubin::write`). Everything the earlier phases decided is already in the
//! state; this module only chooses the file's shape: section order, the
//! symbol table's order (locals, then globals), the tables encoded from
//! their typed records, and the ELF header.
//!
//! It stays one file because the output's shape is one decision: the section
//! order, the symbol order and the encoded tables must agree (symbol and
//! section indices are written into relocations and tables). The symbol
//! order itself, and the blank section and symbol attributes Mercury shares,
//! live in `out`, below finalize, whose tables index the same symbols.

use foldhash::HashMap;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

use crate::cubin::callgraph::CallGraph;
use crate::cubin::consts::*;
use crate::cubin::model::{Cubin, Header, PT_LOAD, PT_PHDR, Reloc, Section, Segment, SegmentCovers, Symbol};
use crate::cubin::nvinfo::{Entry, NvInfo, Value, code};
use crate::cubin::{compat::Compat, write};

use super::line_order::{self, LineOrder};
use super::out::{Slot, SymbolOrder, output_section_type, output_symbol, section, symbol_order};
use super::out::{first_dead_extern, first_symbol_in, local_symbols_created, owner_code, section_created};
use super::setup::LinkSetup;
use super::state::{Created, LinkState, Place, SymIdx};

/// Why the output could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitError(pub String);

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The output file's bytes.
pub fn bytes(st: &LinkState, setup: &LinkSetup) -> Result<Vec<u8>, EmitError> {
    let c = build(st, setup)?;
    write::write(&c).map_err(|e| EmitError(e.to_string()))
}

/// The output cubin.
pub fn build<'a>(st: &'a LinkState, setup: &LinkSetup) -> Result<Cubin<'a>, EmitError> {
    // Past SHN_LORESERVE sections the file needs ELF extended section
    // numbering, and with it `.symtab_shndx` (see `build_with`). nvlink
    // decides while merging: a link that had that many sections keeps the
    // table after dead-code elimination leaves a hundred (a final link of
    // an object with 100,000 functions, 50 of them called).
    let merged = st.sections.len() + 3 + st.notes.len();
    if merged >= usize::from(SHN_LORESERVE) {
        return build_with(st, setup, true);
    }
    let cubin = build_with(st, setup, false)?;
    if cubin.sections.len() + 1 >= usize::from(SHN_LORESERVE) {
        return build_with(st, setup, true);
    }
    Ok(cubin)
}

/// The output cubin; `extended` adds `.symtab_shndx`, which nvlink places
/// after the debug sections, before the notes (a `-r` link of 100,000
/// functions: `.shstrtab`, `.strtab`, `.symtab`, `.debug_frame`,
/// `.symtab_shndx`, `.note.nv.tkinfo`, ...).
fn build_with<'a>(st: &'a LinkState, setup: &LinkSetup, extended: bool) -> Result<Cubin<'a>, EmitError> {
    // The first input's header fields; a link nothing was linked into
    // (empty_link_sm75, empty_link_sm100) gets nvlink's for the target.
    let (os_abi, abi_version, e_version, e_flags) = match st.inputs.first() {
        Some(first) => {
            let h = crate::cubin::read::parse(&first.data)
                .map_err(|e| EmitError(e.to_string()))?
                .header;
            (
                h.os_abi,
                h.abi_version,
                h.e_version,
                st.e_flags.unwrap_or(first.e_flags),
            )
        }
        None => {
            let target = crate::arch::lookup(&setup.arch)
                .ok_or_else(|| EmitError(format!("no input was linked and no target for '{}'", setup.arch)))?;
            let word = if target.is_mercury() { 0x02 } else { 0x04 };
            (0x41, 8, 1, (target.sm << 8) | word)
        }
    };
    let header = Header {
        os_abi,
        abi_version,
        e_type: if setup.relocatable { ET_REL } else { ET_EXEC },
        e_machine: EM_CUDA,
        e_version,
        e_entry: 0,
        e_flags,
        // A Mercury `-r` output states no program header size
        // (weak_func_vsm_low_first_sm100 linked with -r); sm_90's does.
        e_phentsize: if setup.relocatable && !st.mercury.is_empty() {
            0
        } else {
            56
        },
    };
    let syms = symbol_order(st);
    let sym_out = |i: SymIdx| -> u32 { syms.of(i) };
    // The inputs, for what the state does not carry: the sh_info links of
    // per-function sections and the register field of code sections.
    let parsed: Vec<Option<crate::cubin::read::Headers>> = st
        .inputs
        .par_iter()
        .map(|r| crate::cubin::read::headers(&r.data))
        .collect();
    let relocatable = setup.relocatable;
    let mercury = !st.mercury.is_empty();
    let owners = super::state::query::text_owners(st);
    // sm_100+: the line tables' sequences in symbol order (`line_order`).
    let lines = if mercury {
        LineOrder::plan(st, &|i| syms.of(i))
    } else {
        LineOrder::default()
    };

    let mut sections: Vec<Section<'a>> = vec![section("", SHT_NULL, 0, 0, 0, Vec::new())];
    let add = |sections: &mut Vec<Section<'a>>, s: Section<'a>| -> usize {
        sections.push(s);
        sections.len() - 1
    };
    add(&mut sections, section(".shstrtab", SHT_STRTAB, 0, 1, 0, Vec::new()));
    // `.strtab` opens with the strings finalize's tables point into.
    let strtab = add(
        &mut sections,
        section(".strtab", SHT_STRTAB, 0, 1, 0, super::finalize::strtab_seed(st)),
    );
    let symtab = add(&mut sections, section(".symtab", SHT_SYMTAB, 0, 8, 24, Vec::new()));
    sections[symtab].link = strtab as u32;
    sections[symtab].info = syms.first_global;

    // Code and data go in the order the program headers want them: sections
    // not loaded (`.debug_frame`), then read-only loaded ones (constant
    // banks, code), then writable ones with contents, then writable NOBITS
    // ones. nvlink writes the debug sections first, before the notes, as
    // ptxas does (every corpus output: `.debug_frame` is section 4), and
    // the CUDA tools care where the notes land: see `cuinfo_flags`.
    let load_group = |s: &super::state::OutSection| -> u8 {
        match (s.flags & SHF_ALLOC != 0, s.flags & SHF_WRITE != 0, s.nobits) {
            (false, _, _) => 0,
            (true, false, _) => 1,
            (true, true, false) => 2,
            (true, true, true) => 3,
        }
    };
    let mut code_and_data: Vec<usize> = (1..st.sections.len()).filter(|&k| !st.sections[k].removed).collect();
    // The read-only data (constant banks) precede the code (every corpus
    // output). Mercury outputs (sm_100+) put a kernel's `.nv.constant0.<k>`
    // after everything else instead, unless bindless layout added its
    // header table to it (arch_sm100_smoke: `.nv.constant3`, code,
    // `.nv.global.init`, `.nv.shared.k_arch`, `.nv.constant0.k_arch`;
    // texref_helper_sm100: both kernels' banks before the code).
    let bindless_bank = |k: usize| {
        st.bindless
            .as_ref()
            .is_some_and(|t| t.kernels.iter().any(|&(_, bank)| bank == k))
    };
    code_and_data.sort_by_cached_key(|&k| {
        let s = &st.sections[k];
        let kernel_bank = s.class == super::state::SectionClass::Constant(0) && s.name.starts_with(".nv.constant0.");
        let last = mercury && kernel_bank && load_group(s) == 1 && !bindless_bank(k);
        let group = if last { 4 } else { load_group(s) };
        (group, s.flags & SHF_EXECINSTR != 0, section_created(st, k))
    });
    // Output section index of each state section, for the ones emitted.
    let mut out_index: HashMap<usize, usize> = HashMap::default();
    // Loaded sections, in output order, with their segment permissions.
    let mut loaded: Vec<(usize, u32)> = Vec::new();
    // What `place` patches, grouped by section once (a scan of every
    // relocation per section was a fifth of the 5,000-object link): symbol
    // indices inside the bytes, and applied `DW_AT_stmt_list` fields
    // pointing into a line table that moved.
    let mut fixups_of: HashMap<usize, Vec<&super::state::SymFixup>> = HashMap::default();
    for f in &st.sym_fixups {
        fixups_of.entry(f.section).or_default().push(f);
    }
    let mut stmt_lists_of: HashMap<usize, Vec<&super::state::OutReloc>> = HashMap::default();
    if lines.any() {
        for r in st.relocs.iter().filter(|r| !r.live && r.rtype == 1) {
            stmt_lists_of.entry(r.section).or_default().push(r);
        }
    }
    let mut place = |sections: &mut Vec<Section<'a>>, k: usize| {
        let s = &st.sections[k];
        let sh_type = output_section_type(s.sh_type, relocatable);
        let data: std::borrow::Cow<'a, [u8]> = lines
            .data(k)
            .map_or(std::borrow::Cow::Borrowed(&s.data[..]), |d| d.to_vec().into());
        let mut o = section(&s.name, sh_type, s.flags, s.align, s.entsize, data);
        // Symbol indices inside the bytes (unified-table entries, `link::uft`).
        for f in fixups_of.get(&k).into_iter().flatten() {
            if let Some(w) = o.data.to_mut().get_mut(f.offset as usize..f.offset as usize + 4) {
                w.copy_from_slice(&sym_out(f.sym).to_le_bytes());
            }
        }
        // Offsets into a line table whose units moved (`line_order`: an
        // sm_100+ link drops the line sequences of lost weak copies), as
        // applied R_CUDA_32 `DW_AT_stmt_list` fields hold them.
        for r in stmt_lists_of.get(&k).into_iter().flatten() {
            let Some(Place::Section(t)) = st.symbol(r.sym).filter(|y| y.sym_type == STT_SECTION).map(|y| y.place)
            else {
                continue;
            };
            if lines.data(t).is_none() {
                continue;
            }
            if let Some(w) = o.data.to_mut().get_mut(r.offset as usize..r.offset as usize + 4) {
                let v = u32::from_le_bytes(w.try_into().expect("four bytes"));
                let to = lines.offset(t, u64::from(v)) as u32;
                w.copy_from_slice(&to.to_le_bytes());
            }
        }
        if mercury && s.name == super::reg_sass::REG_SASS {
            for (at, len) in super::reg_sass::cleared(st) {
                if let Some(w) = o.data.to_mut().get_mut(at..at + len) {
                    w.fill(0);
                }
            }
        }
        if s.nobits {
            o.data = Vec::new().into();
            o.nobits_size = s.size;
        }
        // nvlink keeps `.nv.udt.entry` linked to the symbol table, and
        // `.nv.uft.entry` too in a `-r` link (corpus udt_*, uft_*).
        if s.sh_type == crate::cubin::consts::SHT_CUDA_UDT_ENTRY
            || (relocatable && s.sh_type == crate::cubin::consts::SHT_CUDA_UFT_ENTRY)
        {
            o.link = symtab as u32;
        }
        if s.class == super::state::SectionClass::Text {
            o.link = symtab as u32;
            // Before sm_90 the code section's sh_info carries the register
            // count in its top byte (corpus arch_sm75_smoke … arch_sm89_smoke).
            let high = input_info(st, &parsed, k).map(|x| x & 0xff00_0000).unwrap_or(0);
            o.info = high | owners.get(&k).copied().map(sym_out).unwrap_or(0);
        }
        sections.push(o);
        let i = sections.len() - 1;
        out_index.insert(k, i);
        if s.flags & SHF_ALLOC != 0 {
            let exec = if s.flags & SHF_EXECINSTR != 0 { PF_X } else { 0 };
            let write = if s.flags & SHF_WRITE != 0 { PF_W } else { 0 };
            loaded.push((i, PF_R | exec | write));
        }
    };
    // Debug sections (PROGBITS, not loaded) come first; other sections not
    // loaded (`.nv.uft.entry`) stay with the code and data.
    let early = |k: usize| load_group(&st.sections[k]) == 0 && st.sections[k].sh_type == SHT_PROGBITS;
    for &k in code_and_data.iter().filter(|&&k| early(k)) {
        place(&mut sections, k);
    }
    if extended {
        let i = add(
            &mut sections,
            section(".symtab_shndx", SHT_SYMTAB_SHNDX, 0, 4, 4, Vec::new()),
        );
        sections[i].link = symtab as u32;
    }

    // Notes, then the tables, then code and data in creation order.
    let mut pending_note: Vec<(usize, usize)> = Vec::new();
    for (n, note) in st.notes.iter().enumerate() {
        let mut s = section(&note.name, SHT_NOTE, note.flags, 4, 0, &note.data[..]);
        s.link = note.link;
        s.info = note.info;
        let i = add(&mut sections, s);
        pending_note.push((i, n));
    }
    // The unified tables' own sections sit among nvlink's first tables:
    // `.nv.uft.entry` right after the notes, `.nv.uidx` and `.nv.udt.entry`
    // right after `.nv.compat` (corpus uft_*, udt_*); `-r` puts
    // `.nv.uft.entry` after `.nv.uidx` too (uft_basic_sm90 with -r).
    let live_named = |name: &str| st.section_named(name).filter(|&k| !st.sections[k].removed);
    let unified_early: Vec<usize> = [".nv.uft.entry", ".nv.udt.entry"]
        .iter()
        .filter_map(|n| live_named(n))
        .collect();
    let uft_entry = live_named(".nv.uft.entry");
    if let Some(k) = uft_entry.filter(|_| !relocatable) {
        place(&mut sections, k);
    }
    let mut pending_info: Vec<(usize, SymIdx)> = Vec::new();
    let module_info: Vec<_> = st.nvinfo.iter().filter(|n| n.live && n.function.is_none()).collect();
    if !module_info.is_empty() {
        let info = NvInfo {
            entries: module_info.iter().map(|n| remap_info(&n.entry, &sym_out)).collect(),
            trailing: Vec::new(),
        };
        let i = add(
            &mut sections,
            section(".nv.info", SHT_CUDA_INFO, 0, 4, 0, info.encode()),
        );
        sections[i].link = symtab as u32;
    }
    if !st.compat.is_empty() {
        // An object built for another SM than the target cannot take the
        // finalizer's fast path: nvlink zeroes CAN_FASTPATH_FINALIZE
        // (arch_sm100_obj_into_sm103: 9 → 0).
        let target = crate::arch::profiles::lookup(&setup.arch);
        let target_sm = target.map(|p| p.sm);
        let foreign = target_sm.is_some_and(|t| st.inputs.iter().any(|i| i.sm != 0 && i.sm != t));
        let mut entries = st.compat.entries(target);
        if foreign {
            for e in entries
                .iter_mut()
                .filter(|e| e.attr == crate::cubin::compat::code::CAN_FASTPATH_FINALIZE)
            {
                zero_value(&mut e.value);
            }
        }
        // Inputs all built for the accelerated target keep their
        // CAN_FASTPATH_FINALIZE (sm_100a objects into sm_100a: 9 stays 9;
        // arch_sm100a_native); the plain SM's are masked, when the output
        // holds code: an sm_100 object with only a `__device__` variable,
        // or a host object's codeless cubin (`int main(){}` built -rdc),
        // into sm_100a keeps 9, as does one whose device function
        // dead-code elimination removed; `-r` of the function masks it.
        let native = parsed.iter().flatten().all(|c| c.accelerated);
        let code = st
            .sections
            .iter()
            .any(|s| s.class == super::state::SectionClass::Text && !s.removed);
        if let Some(t) = target.filter(|t| t.is_accelerated() && !native && code) {
            accelerated_compat(&mut entries, t.sm);
        }
        // Native inputs with code keep their own mask, not the target's:
        // ptxas writes 9 for sm_100a code (as for sm_100) but 0x10 for
        // sm_120a code, which nvlink keeps (fastpath_native_sm120a); with
        // no code left the target's 0x50 stays.
        if target.is_some_and(|t| t.is_accelerated() && t.is_mercury())
            && native
            && code
            && !foreign
            && let Some(own) = st.compat.inputs_fastpath()
        {
            for e in entries
                .iter_mut()
                .filter(|e| e.attr == crate::cubin::compat::code::CAN_FASTPATH_FINALIZE)
            {
                e.value = crate::cubin::nvinfo::Value::Block(crate::cubin::nvinfo::plain_block(own));
            }
        }
        let c = Compat {
            entries,
            trailing: Vec::new(),
        };
        add(
            &mut sections,
            section(".nv.compat", SHT_CUDA_COMPAT_INFO, 0, 4, 0, c.encode()),
        );
    }
    for t in st.tables.iter().filter(|t| t.name == ".nv.uidx") {
        add(
            &mut sections,
            section(&t.name, t.sh_type, t.flags, t.align, t.entsize, &t.data[..]),
        );
    }
    if let Some(k) = uft_entry.filter(|_| relocatable) {
        place(&mut sections, k);
    }
    if let Some(k) = live_named(".nv.udt.entry") {
        place(&mut sections, k);
    }
    let mut per_fn: BTreeMap<SymIdx, Vec<_>> = BTreeMap::new();
    for n in st.nvinfo.iter().filter(|n| n.live) {
        if let Some(f) = n.function {
            per_fn.entry(f).or_default().push(remap_info(&n.entry, &sym_out));
        }
    }
    // Function tables in the order nvlink creates them (a kernel's with its
    // code; arch_sm90_smoke: k_arch, weak_helper, lib_twice, lib_func), then
    // in output symbol order.
    // Mercury outputs list the attributes the function's Mercury table
    // also has first (last read first, as above), then the classic-only
    // ones in the order read (arch_sm100_smoke `.nv.info.k_arch`: EXIT_INSTR_OFFSETS
    // … LANGUAGE, then CBANK_PARAM_SIZE, PARAM_CBANK, SW_WAR, NVSAL_SW_WAR,
    // PREEXIT_USED). What a kernel takes from its callees is in both
    // (grid_attributes_sm100: after LANGUAGE, before CBANK_PARAM_SIZE),
    // EXTERNS included (inherited_externs_order_sm100).
    if mercury {
        let sm107 = crate::arch::lookup(&setup.arch).is_some_and(|p| p.sm == 107);
        // An EXTERNS naming only symbols the classic side has is classic-only
        // too (sm107_texture_syscall: after LANGUAGE, before ANNOTATIONS).
        let externs_classic_only = |f: SymIdx| {
            !st.mercury.classic_only.is_empty()
                && st
                    .nvinfo
                    .iter()
                    .filter(|n| n.live && n.function == Some(f) && n.entry.attr == code::EXTERNS)
                    .flat_map(|n| n.entry.symbol_refs())
                    .all(|r| super::state::mercury::classic_only(st, SymIdx(r as i32)))
        };
        for (f, entries) in per_fn.iter_mut() {
            let kernel = super::state::query::is_kernel(st, *f);
            let merc: BTreeSet<u8> = st
                .mercury
                .nvinfo
                .iter()
                .filter(|n| n.live && n.function == Some(*f))
                .map(|n| n.entry.attr)
                .chain(super::finalize::info::KERNEL_INHERITS.into_iter().filter(|_| kernel))
                .chain(
                    [code::EXTERNS]
                        .into_iter()
                        .filter(|_| kernel && !externs_classic_only(*f)),
                )
                .collect();
            let (mut both, mut classic_only): (Vec<_>, Vec<_>) = std::mem::take(entries)
                .into_iter()
                .partition(|e| merc.contains(&e.attr));
            classic_only.reverse();
            both.extend(classic_only);
            // Every function of a final link is marked EIATTR_PREEXIT_USED:
            // ptxas 13.5 marks them all, ptxas 13.0 (NVSHMEM's
            // libnvshmem_device) none, and nvlink appends the record to
            // those without it (nvshmem_lib_sm100).
            if !relocatable && !both.iter().any(|e| e.attr == code::PREEXIT_USED) {
                both.push(Entry {
                    attr: code::PREEXIT_USED,
                    value: Value::Byte { value: 0, pad: 0 },
                });
            }
            // An sm_107 final link (sm_107, sm_107a, sm_107f: `-arch=all`
            // reaches it) ends every function's table with attribute 0x67,
            // a byte 0, which ptxas did not write; sm_100, sm_103, sm_110,
            // sm_121 and `-r` do not (sm107_function_info).
            if !relocatable && sm107 {
                both.push(Entry {
                    attr: ATTR_SM107_CLOSE,
                    value: Value::Byte { value: 0, pad: 0 },
                });
            }
            *entries = both;
        }
    }
    let mut fns: Vec<_> = per_fn.into_iter().collect();
    let ix = NameIndex::new(st, setup);
    fns.sort_by_cached_key(|(f, _)| {
        let name = format!(".nv.info.{}", st.symbol_name(*f));
        // Where the function's own input made it: two inputs' local
        // helpers of one name each have theirs (the real-world sample
        // eigenvalues: `__cuda_sm3x_div_rn_noftz_f32_slowpath`). A weak
        // copy that replaced an earlier weak one keeps the place the first
        // input made (weak_kernel_replaced_sm90: a `-G` object's template
        // kernel, then a plain object's); a strong one replacing a weak
        // one comes with its code (weak_replaced_info_order_sm90).
        let own = st
            .symbol(*f)
            .filter(|s| s.binding != STB_WEAK)
            .and_then(|s| ix.info_by_input.get(&(s.input, name.clone())))
            .map(|&at| (2, st.symbol(*f).map_or(0, |s| s.input), at, 0));
        // A weak function's first copy is the first input whose function
        // of that name is this one: an earlier input's local function of
        // the same name made a table of its own (weak_helper_after_local_sm90).
        let first_copy = || {
            st.maps.iter().enumerate().find_map(|(i, m)| {
                let at = ix.info_by_input.get(&(i, name.clone()))?;
                m.map_symbol_index.contains(&f.0).then_some((2, i, *at, 0))
            })
        };
        (
            own.or_else(first_copy)
                .unwrap_or_else(|| name_key(st, &ix, &name, false)),
            sym_out(*f),
        )
    });
    for (f, entries) in fns {
        let name = format!(".nv.info.{}", st.symbol_name(f));
        let i = add(
            &mut sections,
            section(
                &name,
                SHT_CUDA_INFO,
                SHF_INFO_LINK,
                4,
                0,
                NvInfo {
                    entries,
                    trailing: Vec::new(),
                }
                .encode(),
            ),
        );
        sections[i].link = symtab as u32;
        pending_info.push((i, f));
    }
    let edges: Vec<_> = st.callgraph.iter().filter(|e| e.live).collect();
    if !edges.is_empty() {
        let mut cg = CallGraph {
            records: edges.iter().map(|e| e.record).collect(),
        };
        cg.map_symbols(&mut |x| sym_out(SymIdx(x as i32)));
        let i = add(
            &mut sections,
            section(".nv.callgraph", SHT_CUDA_CALLGRAPH, 0, 4, 8, cg.encode()),
        );
        sections[i].link = symtab as u32;
    }
    for t in st.tables.iter().filter(|t| t.name != ".nv.uidx") {
        let mut s = section(&t.name, t.sh_type, t.flags, t.align, t.entsize, &t.data[..]);
        if t.links_symtab {
            s.link = symtab as u32;
        }
        add(&mut sections, s);
    }
    // Relocation sections, one per patched section and kind (sm_75…sm_89
    // inputs carry both `.rel.text.<fn>` and `.rela.text.<fn>`, and so does
    // nvlink's output: arch_sm75_smoke), before the code and data.
    // nvlink prepends each record to its table: the last merged comes first
    // (extern_call_sm90: main's `.rela.text.k_main` 0x90…0x50 is written
    // 0x50…0x90; lib's `.debug_frame` record before main's).
    // On sm_107 the records against symbols only the classic side has
    // (`__cuda_syscall_bw_do_*`) follow, in the order read
    // (sm107_texture_syscall).
    let (classic_only, relocs): (Vec<&super::state::OutReloc>, Vec<_>) = st
        .relocs
        .iter()
        .rev()
        .filter(|r| r.live)
        .partition(|r| super::state::mercury::classic_only(st, r.sym));
    let mut by_section: BTreeMap<(usize, bool), Vec<Reloc>> = BTreeMap::new();
    for r in relocs.into_iter().chain(classic_only.into_iter().rev()) {
        by_section.entry((r.section, r.rela)).or_default().push(Reloc {
            offset: lines.offset(r.section, r.offset),
            sym: sym_out(r.sym),
            rtype: r.rtype,
            addend: line_addend(st, &lines, r),
        });
    }
    // Except an sm_100+ output's line tables, which nvlink writes again
    // with their records in offset order (`line_order`).
    if mercury {
        for ((sec, _), relocs) in by_section.iter_mut() {
            if line_order::is_line_table(&st.sections[*sec].name) {
                relocs.sort_by_key(|r| r.offset);
            }
        }
    }
    // In the order the link first met each table: input by input, each
    // input's relocation sections in its own order (extern_call_sm90:
    // `.rela.text.k_main`, `.rela.debug_frame`, then lib's
    // `.rela.text.add_bias`).
    let first_met = first_relocations(st);
    // The REL tables bindless layout makes for the kernels' constant banks
    // come first among their kernel's input's (texref_helper_sm75,
    // bindless_slot_order_sm90; bindless_prune_sm75: a.cubin's k_h, k_s and
    // k_t, a.cubin's own tables, then b.cubin's k_c).
    let bindless_bank = |sec: usize| {
        let t = st.bindless.as_ref()?;
        let k = t.kernels.iter().position(|&(_, bank)| bank == sec)?;
        let input = st.symbol(t.kernels[k].0).map_or(usize::MAX, |f| f.input);
        Some((input, k))
    };
    // Also for an input's empty table (`.rela.nv.constant2.<k>` beside a
    // kernel's jump table), where the input had it, and for the bank 2
    // layout made for a kernel, after the others in the order the banks
    // were made (jumptable_func_sm100, jumptable_two_files_sm100).
    let empty_met = |k: usize| st.empty_relas.iter().find(|e| e.0 == k).copied();
    let twins_of_kept = if mercury {
        super::mercury::classic_twins_of_kept(st, relocatable)
    } else {
        Default::default()
    };
    if mercury {
        for name in &twins_of_kept {
            if let Some(k) = st.section_named(name)
                && !st.sections[k].removed
                && (first_met.contains_key(&(k, true))
                    || empty_met(k).is_some()
                    || super::constant2::is_made_bank(st, k))
            {
                by_section.entry((k, true)).or_default();
            }
        }
    }
    let mut by_section: Vec<_> = by_section.into_iter().collect();
    by_section.sort_by_cached_key(|&((sec, rela), _)| {
        let made_by_bindless = if rela { None } else { bindless_bank(sec) };
        let met = first_met.get(&(sec, rela)).copied();
        match (made_by_bindless, met, empty_met(sec).filter(|_| rela)) {
            (Some((input, k)), _, _) => (input, 0, k, 0),
            (None, None, Some((_, n, input))) => (input, 1, n, 0),
            (None, met, _) => (
                met.and_then(|n| st.relocs.get(n)).map_or(usize::MAX, |r| r.input),
                1,
                met.unwrap_or(usize::MAX),
                1,
            ),
        }
    });
    // `-preserve-relocs`: the applied ones, last applied first too, each
    // table right after the section's `.rela` table (preserve_relocs_sm90:
    // `.nv.resolvedrela.debug_frame` after `.rela.debug_frame`, lib's
    // record before main's).
    let mut resolved: BTreeMap<usize, Vec<Reloc>> = BTreeMap::new();
    for r in st.resolved.iter().rev() {
        resolved.entry(r.section).or_default().push(Reloc {
            offset: lines.offset(r.section, r.offset),
            sym: sym_out(r.sym),
            rtype: r.rtype,
            addend: r.addend,
        });
    }
    let mut pending_rel: Vec<(usize, usize)> = Vec::new();
    let add_resolved = |resolved: &mut BTreeMap<usize, Vec<Reloc>>,
                        sections: &mut Vec<Section<'a>>,
                        pending: &mut Vec<(usize, usize)>,
                        sec: usize| {
        if let Some(relocs) = resolved.remove(&sec) {
            let name = format!(".nv.resolvedrela{}", st.sections[sec].name);
            let mut s = section(&name, SHT_CUDA_RESOLVED_RELA, SHF_INFO_LINK, 8, 24, Vec::new());
            s.link = symtab as u32;
            s.relocs = relocs;
            sections.push(s);
            pending.push((sections.len() - 1, sec));
        }
    };
    // The resolved table follows the section's RELA table, or its REL one
    // when it has none (preserve_relocs_sm75: `.rel.debug_frame`).
    let has_rela: foldhash::HashSet<usize> = by_section
        .iter()
        .filter(|((_, rela), _)| *rela)
        .map(|((sec, _), _)| *sec)
        .collect();
    // On sm_107 a table of only records against symbols the classic side
    // alone has (texture syscalls), for code whose Mercury twin keeps no
    // relocation, comes after the Mercury sections (sm107_texture_syscall;
    // the real-world convolutionTexture; dct8x8's texture kernels keep
    // theirs in place beside a Mercury table).
    let mut after_mercury: Vec<(Section<'a>, usize)> = Vec::new();
    let slot_classic_only = |slot: &Slot| match slot {
        Slot::State(i) => super::state::mercury::classic_only(st, *i),
        _ => false,
    };
    for ((sec, rela), relocs) in by_section {
        let target = &st.sections[sec];
        if mercury
            && rela
            && !st.mercury.classic_only.is_empty()
            && !relocs.is_empty()
            && !twins_of_kept.contains(&target.name)
            && relocs
                .iter()
                .all(|r| syms.order.get(r.sym as usize).is_some_and(slot_classic_only))
        {
            let mut s = section(
                &format!(".rela{}", target.name),
                SHT_RELA,
                SHF_INFO_LINK,
                8,
                24,
                Vec::new(),
            );
            s.link = symtab as u32;
            s.relocs = relocs;
            after_mercury.push((s, sec));
            continue;
        }
        let (prefix, ty, ent) = if rela {
            (".rela", SHT_RELA, 24)
        } else {
            (".rel", SHT_REL, 16)
        };
        // The REL tables bindless layout creates for the constant banks of
        // sm_75–sm_90 kernels carry no flags (texref_helper_sm75); every
        // other relocation section has SHF_INFO_LINK.
        let made_by_bindless = st
            .bindless
            .as_ref()
            .is_some_and(|t| t.kernels.iter().any(|&(_, bank)| bank == sec));
        let flags = if made_by_bindless && !rela { 0 } else { SHF_INFO_LINK };
        let mut s = section(&format!("{prefix}{}", target.name), ty, flags, 8, ent, Vec::new());
        s.link = symtab as u32;
        s.relocs = relocs;
        let i = add(&mut sections, s);
        pending_rel.push((i, sec));
        if rela || !has_rela.contains(&sec) {
            add_resolved(&mut resolved, &mut sections, &mut pending_rel, sec);
        }
    }
    // Sections all of whose relocations were applied.
    while let Some(&sec) = resolved.keys().next() {
        add_resolved(&mut resolved, &mut sections, &mut pending_rel, sec);
    }
    // Then code and data, in the order the program headers want them.
    for &k in code_and_data
        .iter()
        .filter(|&&k| !early(k) && !unified_early.contains(&k))
    {
        place(&mut sections, k);
    }
    // Per-function sections (`.nv.constant0.<fn>`, `.nv.shared.<fn>`, …) point
    // at their function's code through sh_info, as in the inputs.
    for (&k, &i) in &out_index {
        let s = &st.sections[k];
        if s.class == super::state::SectionClass::Text || s.flags & SHF_INFO_LINK == 0 {
            continue;
        }
        if let Some(target) = linked_section(st, &parsed, k).or_else(|| owner_code(st, k)) {
            sections[i].info = out_index.get(&target).copied().unwrap_or(0) as u32;
        }
    }
    for (i, sec) in pending_rel {
        sections[i].info = out_index.get(&sec).copied().unwrap_or(0) as u32;
    }
    let after_mercury: Vec<Section<'a>> = after_mercury
        .into_iter()
        .map(|(mut s, sec)| {
            s.info = out_index.get(&sec).copied().unwrap_or(0) as u32;
            s
        })
        .collect();
    for (i, f) in pending_info {
        let text = st.symbol(f).and_then(|s| match s.place {
            Place::Section(k) => out_index.get(&k).copied(),
            _ => None,
        });
        sections[i].info = text.unwrap_or(0) as u32;
    }
    // Notes name other sections (`.note.nv.cuinfo` → `.note.nv.tkinfo`, `.nv.compat`).
    for (i, n) in pending_note {
        let note = &st.notes[n];
        let find = |name: &str| sections.iter().position(|x| x.name == name).unwrap_or(0) as u32;
        let link = note.link_section.as_deref().map(find);
        let info = note.info_section.as_deref().map(find);
        if let Some(l) = link {
            sections[i].link = l;
        }
        if let Some(x) = info {
            sections[i].info = x;
        }
    }
    let (shstr_seed, str_seed) = string_pools(st, setup, &sections, &syms);
    sections[1].data = shstr_seed.into();
    sections[strtab].data = str_seed.into();
    let mut index_of_name: HashMap<&str, u32> = HashMap::with_capacity_and_hasher(sections.len(), Default::default());
    for (i, x) in sections.iter().enumerate().rev() {
        index_of_name.insert(x.name.as_str(), i as u32);
    }
    let section_index = |name: &str| -> u32 { index_of_name.get(name).copied().unwrap_or(0) };
    let symbols = syms
        .order
        .iter()
        .map(|slot| match slot {
            Slot::State(i) => match st.symbol(*i) {
                Some(s) => {
                    let (binding, mut sym_type, other) = output_symbol(s, relocatable);
                    // sm_100+ outputs state the shared-memory reservations
                    // and the unified-table placeholders nvlink defines as CUDA
                    // objects (weak_func_vsm_low_first_sm100; virtual_funcs_sm100
                    // linked with -r).
                    if mercury
                        && s.place == Place::Undefined
                        && (s.name.starts_with(".nv.reservedSmem.")
                            || s.name.starts_with("__UFT")
                            || s.name.starts_with("__UDT"))
                    {
                        sym_type = STT_CUDA_OBJECT;
                    }
                    // A LOCAL undefined object is one too (link::layout).
                    if super::state::query::is_local_undefined_object(s) {
                        sym_type = STT_CUDA_OBJECT;
                    }
                    // The variables of `.nv.udt` are CUDA objects in the
                    // output, named by an entry or not, GLOBAL or LOCAL
                    // (corpus udt_*, checked by hand with a third variable).
                    if let Place::Section(k) = s.place
                        && st.sections[k].sh_type == crate::cubin::consts::SHT_CUDA_UDT
                        && matches!(sym_type, STT_OBJECT | STT_CUDA_OBJECT)
                    {
                        sym_type = STT_CUDA_OBJECT;
                    }
                    Symbol {
                        name: s.name.to_string(),
                        value: s.value,
                        size: s.size,
                        binding,
                        sym_type,
                        other,
                        shndx: match s.place {
                            Place::Undefined => SHN_UNDEF,
                            Place::Absolute => SHN_ABS,
                            Place::Common { .. } => SHN_COMMON,
                            Place::Section(k) => out_index.get(&k).copied().unwrap_or(0) as u32,
                        },
                    }
                }
                None => null_symbol(),
            },
            Slot::Section(name) => Symbol {
                name: name.clone(),
                value: 0,
                size: 0,
                binding: STB_LOCAL,
                sym_type: STT_SECTION,
                other: 0,
                shndx: section_index(name),
            },
            Slot::Null => null_symbol(),
        })
        .collect();
    let mut symbols: Vec<Symbol> = symbols;
    if !relocatable && let Some(v) = super::constant2::null_symbol_value(st) {
        symbols[0].value = v;
    }

    let segments = if relocatable {
        Vec::new()
    } else if mercury {
        mercury_program_headers(&loaded)
    } else {
        program_headers(&loaded)
    };
    let mut header = header;
    header.e_flags = cuinfo_flags(header.e_flags, &sections);
    let mut cubin = Cubin {
        header,
        sections,
        symbols,
        merc_symbols: Vec::new(),
        segments,
    };
    // Mercury (sm_100+) companion sections and their own symbol table.
    super::mercury::emit(st, &mut cubin, after_mercury).map_err(EmitError)?;
    Ok(cubin)
}

/// `.nv.compat` of a link for an accelerated target (`sm_100a`, `sm_121a`)
/// of inputs built without the suffix: CUDA_ACCELERATOR_TARGET becomes 1,
/// and CAN_FASTPATH_FINALIZE, a mask of the SMs the code may be finalized
/// for on the fast path, keeps only the target's bit (corpus
/// arch_sm100_obj_into_sm100a: 9 → 1; sm_120 inputs into sm_120a: 0x50 →
/// 0x10; seed 004 gives sm_100 1, sm_103 8, sm_110 2, sm_121 0x40).
fn accelerated_compat(entries: &mut [crate::cubin::compat::CompatEntry], sm: u32) {
    use crate::cubin::compat::code;
    use crate::cubin::nvinfo::{Block, Value};
    let own: u8 = match sm {
        100 => 0x01,
        110 => 0x02,
        103 => 0x08,
        120 => 0x10,
        121 => 0x40,
        _ => 0,
    };
    for e in entries.iter_mut() {
        match (e.attr, &mut e.value) {
            (code::CUDA_ACCELERATOR_TARGET, Value::Byte { value, .. }) => *value = 1,
            (code::CAN_FASTPATH_FINALIZE, Value::Block(Block::Words { words })) => {
                if let Some(first) = words.first_mut() {
                    *first &= u32::from(own);
                }
            }
            (code::CAN_FASTPATH_FINALIZE, Value::Block(Block::Bytes { bytes })) => {
                if let Some(first) = bytes.first_mut() {
                    *first &= own;
                }
            }
            _ => {}
        }
    }
}

/// e_flags with its top byte naming the output's `.note.nv.cuinfo`.
///
/// The top byte of a cubin's e_flags is the section index of its
/// `.note.nv.cuinfo` note (0xff: look it up by name). ptxas and nvlink write
/// it so in every corpus file, and the CUDA tools read the note through it:
/// for sm_90 and later, `cuobjdump -elf` rejects a file whose byte names
/// another section with "Invalid ELF" (it then wants a `.nv.compat` that is
/// NOBITS). The inputs' byte names their own note, which lands elsewhere in
/// the output unless the output happens to put it at the same index.
pub fn cuinfo_flags(e_flags: u32, sections: &[Section<'_>]) -> u32 {
    match sections.iter().position(|s| s.sh_type == SHT_NOTE && s.name == CUINFO) {
        Some(i) if i < 0xff => (e_flags & 0x00ff_ffff) | (i as u32) << 24,
        Some(_) => e_flags | 0xff00_0000,
        None => e_flags,
    }
}

/// The note the top byte of e_flags names.
pub const CUINFO: &str = ".note.nv.cuinfo";

const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;

fn segment(p_type: u32, p_flags: u32, covers: SegmentCovers) -> Segment {
    Segment {
        p_type,
        p_flags,
        p_align: 8,
        vaddr: 0,
        paddr: 0,
        covers,
    }
}

/// The program headers of an executable, as nvlink writes them up to
/// sm_90: PT_PHDR, a read+execute PT_LOAD over the read-only loaded
/// sections (constant banks, code), a read+write PT_LOAD over the writable
/// ones (initialized, then NOBITS), and a PT_LOAD mapping the header table.
/// The driver (and cuobjdump) need them; the equivalence contract does not
/// compare them. `loaded`: the loaded sections' indices and permissions.
fn program_headers(loaded: &[(usize, u32)]) -> Vec<Segment> {
    let span = |writable: bool| {
        let mut it = loaded
            .iter()
            .filter(|(_, p)| (p & PF_W != 0) == writable)
            .map(|&(i, _)| i);
        let first = it.next()?;
        Some((first, it.next_back().unwrap_or(first)))
    };
    let mut out = vec![segment(PT_PHDR, PF_R | PF_X, SegmentCovers::ProgramHeaders)];
    if let Some((first, last)) = span(false) {
        out.push(segment(PT_LOAD, PF_R | PF_X, SegmentCovers::Sections { first, last }));
    }
    if let Some((first, last)) = span(true) {
        out.push(segment(PT_LOAD, PF_R | PF_W, SegmentCovers::Sections { first, last }));
    }
    out.push(segment(PT_LOAD, PF_R | PF_X, SegmentCovers::ProgramHeaders));
    out
}

/// The program headers of a Mercury (sm_100+) executable: a read-only
/// PT_PHDR and PT_LOAD of the header table first, then one PT_LOAD per run
/// of consecutive loaded sections with the same permissions (corpus
/// arch_sm100_smoke: R `.nv.constant3`, RX code, RW `.nv.global.init` and
/// `.nv.shared.k_arch`, R `.nv.constant0.k_arch`).
fn mercury_program_headers(loaded: &[(usize, u32)]) -> Vec<Segment> {
    let mut out = vec![
        segment(PT_PHDR, PF_R, SegmentCovers::ProgramHeaders),
        segment(PT_LOAD, PF_R, SegmentCovers::ProgramHeaders),
    ];
    for run in loaded.chunk_by(|a, b| a.1 == b.1) {
        let (first, last) = (run[0].0, run[run.len() - 1].0);
        out.push(segment(PT_LOAD, run[0].1, SegmentCovers::Sections { first, last }));
    }
    out
}

/// Whether the kernel lists name kernel `i`'s sections as a listed
/// kernel's: `-kernels-used` names it, or an input merged before its own
/// referred to it (nvlink met the name first as a reference; README
/// observation 203: kernels_used_referenced_first_sm90).
/// A `-g` link removes nothing: every kernel is named as a listed one, the
/// static kernels of libcudadevrt included (the fifteenth sweep: `-G` with
/// `-kernels-used`; kernels_used_debug_names_sm90).
fn named_as_listed(st: &LinkState, setup: &LinkSetup, i: SymIdx) -> bool {
    let Some(f) = st.symbol(i) else { return false };
    if setup.debug && !setup.relocatable {
        return !setup.unused_kernel_kept(&f.name);
    }
    setup.kernel_used(&f.name) || (setup.used_lists_given() && super::state::query::referenced_before_definition(st, i))
}

/// The contents nvlink's `.shstrtab` and `.strtab` hold, as string pools
/// (each string once; the writer then finds every name there). nvlink
/// keeps in them names of sections it created and dropped: `.symtab_shndx`,
/// `.nv.prototype`, a `.nv.shared.<kernel>` for every kernel (and a
/// `.rel.nv.constant0.<kernel>` in a final link), the relocation sections whose
/// relocations were all applied, the sections layout dropped; its
/// `.strtab` repeats all of it after the prototype strings, then holds the
/// symbols' names, the dropped `__UFT*`/`__UDT*` placeholders included
/// (corpus: every output's string tables).
fn string_pools(st: &LinkState, setup: &LinkSetup, sections: &[Section<'_>], syms: &SymbolOrder) -> (Vec<u8>, Vec<u8>) {
    let mut names: Vec<String> = [".shstrtab", ".strtab", ".symtab", ".symtab_shndx"]
        .iter()
        .map(|x| x.to_string())
        .collect();
    names.extend(sections.iter().skip(1).map(|x| x.name.clone()));
    for (i, f) in st.all_symbols() {
        if f.sym_type == STT_FUNC && f.other & super::state::query::STO_ENTRY != 0 && f.is_defined() && !f.removed {
            // `-r` and `-preserve-relocs` remove no kernel, but name a shared
            // section only for the `-kernels-used` ones (kernels_used_sm90
            // linked with -r, preserve_relocs_dce_sm90); nor for an LTO
            // kernel the host lists do not name. The bank's relocation
            // section name stays (lto_cdp_sm90, preserve_relocs_dce_sm90).
            // Nor for a kernel `-kernels-used` leaves out that stays because
            // something refers to it (README observation 201; the host
            // lists' kernels kept so keep theirs).
            if named_as_listed(st, setup, i) && !super::dce::lto_unlisted(st, f.input, &f.name) {
                names.push(format!(".nv.shared.{}", f.name));
            }
            if !setup.relocatable {
                names.push(format!(".rel.nv.constant0.{}", f.name));
            }
        }
    }
    let mut kinds: BTreeMap<usize, (bool, bool)> = BTreeMap::new();
    for r in &st.relocs {
        let e = kinds.entry(r.section).or_default();
        if r.rela {
            e.0 = true;
        } else {
            e.1 = true;
        }
    }
    for (k, (rela, rel)) in kinds {
        let Some(sec) = st.sections.get(k).filter(|x| !x.removed) else {
            continue;
        };
        if rela {
            names.push(format!(".rela{}", sec.name));
        }
        // nvlink names a resolved table for every relocated section, written or not.
        if setup.preserve_relocs {
            names.push(format!(".nv.resolvedrela{}", sec.name));
        }
        if rel {
            names.push(format!(".rel{}", sec.name));
        }
    }
    names.push(".nv.prototype".into());
    names.extend(st.dropped_section_names.iter().cloned());
    let emitted: foldhash::HashSet<SymIdx> = syms
        .order
        .iter()
        .filter_map(|slot| match slot {
            Slot::State(i) => Some(*i),
            _ => None,
        })
        .collect();
    // In `.strtab` a local symbol's name comes where nvlink creates the
    // symbol, among the section names (const_bank_sm90: `.nv.constant3`,
    // `c_own`, `.debug_frame`).
    let local_names: Vec<(NameKey, &str)> = local_symbols_created(st)
        .into_iter()
        .filter_map(|(m, (input, at))| {
            let s = st.symbol(SymIdx(m))?;
            (emitted.contains(&SymIdx(m)) && s.sym_type != STT_SECTION).then_some(((2, input, at, 0), s.name.as_ref()))
        })
        .collect();
    let ix = NameIndex::new(st, setup);
    let order = |for_strtab: bool| {
        let mut v: Vec<(NameKey, &str)> = names
            .iter()
            .map(|n| (name_key(st, &ix, n, for_strtab), n.as_str()))
            .collect();
        if for_strtab {
            v.extend(local_names.iter().copied());
        }
        v.sort();
        let mut seen = foldhash::HashSet::default();
        // A nameless local (`link::uft`'s `-r` stubs) puts one empty string
        // in `.strtab` (uft_basic_sm90 linked with -r: one byte more).
        v.retain(|(_, n)| (for_strtab || !n.is_empty()) && seen.insert(*n));
        v.into_iter().map(|(_, n)| n).collect::<Vec<&str>>()
    };
    let mut shstr = vec![0u8];
    for n in order(false) {
        shstr.extend_from_slice(n.as_bytes());
        shstr.push(0);
    }
    let mut strtab = super::finalize::strtab_seed(st);
    let mut seen_str: foldhash::HashSet<String> = st.strtab_strings.iter().cloned().collect();
    let mut push = |strtab: &mut Vec<u8>, n: &str| {
        if !n.is_empty() && seen_str.insert(n.to_string()) {
            strtab.extend_from_slice(n.as_bytes());
            strtab.push(0);
        }
    };
    for n in order(true) {
        if n.is_empty() {
            strtab.push(0);
        } else {
            push(&mut strtab, n);
        }
    }
    // Symbol names as nvlink creates the symbols: input by input, its
    // function symbols first, then the others, each in symbol-table order
    // (arch_sm90_smoke: weak_helper, k_arch, lib_func, then __UDT_OFFSET …);
    // the dropped `__UFT*`/`__UDT*` placeholders keep their place.
    let named = |i: SymIdx| {
        st.symbol(i).filter(|s| {
            emitted.contains(&i)
                || (s.removed
                    && s.place == Place::Undefined
                    && (s.name.starts_with("__UFT") || s.name.starts_with("__UDT")))
        })
    };
    for maps in &st.maps {
        for functions in [true, false] {
            for &m in &maps.map_symbol_index {
                if let Some(s) = named(SymIdx(m))
                    && (s.sym_type == STT_FUNC) == functions
                {
                    push(&mut strtab, &s.name);
                }
            }
        }
    }
    for slot in &syms.order {
        if let Slot::State(i) = slot
            && let Some(s) = st.symbol(*i)
        {
            push(&mut strtab, &s.name);
        }
    }
    for (_, s) in st.all_symbols() {
        if s.removed && s.place == Place::Undefined && (s.name.starts_with("__UFT") || s.name.starts_with("__UDT")) {
            push(&mut strtab, &s.name);
        }
    }
    (shstr, strtab)
}

/// The attribute an sm_107 final link ends each function's `.nv.info.<f>`
/// with (no name in cuobjdump 13.5).
const ATTR_SM107_CLOSE: u8 = 0x67;

/// Where nvlink puts a name in `.shstrtab` (or `.strtab`): the order it
/// creates the sections in (corpus observation 59). The fixed tables
/// first, then the notes, `.nv.uft.entry`, `.nv.info`, `.nv.compat` and
/// `.nv.uidx`, then input by input
/// (`InputMaps::creation`; a relocation table where its first record was
/// merged; `.rel.nv.constant0.<k>` right after `.nv.constant0.<k>`, right
/// before it in `.strtab`), then names of sections the link made or
/// dropped, then the tables finalize writes.
fn name_key(st: &LinkState, ix: &NameIndex<'_>, name: &str, for_strtab: bool) -> NameKey {
    const FIXED: [&str; 4] = [".shstrtab", ".strtab", ".symtab", ".symtab_shndx"];
    const FIRST: [&str; 6] = [
        ".note.nv.tkinfo",
        ".note.nv.cuinfo",
        ".nv.uft.entry",
        ".nv.info",
        ".nv.compat",
        ".nv.uidx",
    ];
    const LAST: [&str; 3] = [".nv.callgraph", ".nv.prototype", ".nv.rel.action"];
    let fixed = |g: u8, i: usize| (g, 0, (0, i as u32, 0), 0);
    if let Some(i) = FIXED.iter().position(|&n| n == name) {
        return fixed(0, i);
    }
    // `-r` names `.nv.uft.entry` right after `.nv.uft` (uft_basic_sm90).
    if st.relocatable
        && name == ".nv.uft.entry"
        && let Some((g, input, _, _)) = Some(name_key(st, ix, ".nv.uft", for_strtab)).filter(|k| k.0 == 2)
    {
        return (g, input, (5, 0, 1), 0);
    }
    if let Some(i) = FIRST.iter().position(|&n| n == name) {
        return fixed(1, i);
    }
    if let Some(i) = LAST.iter().position(|&n| n == name) {
        return fixed(4, i);
    }
    // A kernel's bank 2 the link made is named right after `.nv.prototype`
    // (`link::constant2`).
    if let Some(k) = st
        .section_named(name)
        .filter(|&k| super::constant2::is_made_bank(st, k))
    {
        return (4, 0, (0, 1, 1 + k as u32), 0);
    }
    if let Some(&(input, at)) = ix.unused_shared.get(name) {
        return (2, input, at, 0);
    }
    let created = |section: &str| {
        let k = st.section_named(section)?;
        let (input, at) = section_created(st, k);
        (input != usize::MAX).then_some((2u8, input, at))
    };
    // `.nv_debug.shared` made for an extern shared array is named where
    // nvlink met the array (shared_dynamic_sm90: `dyn_smem`, between
    // `.nv.shared.k_dyn` and `.debug_frame`); commons' `.nv.global` is not
    // (common_data_*_sm90).
    if name == ".nv_debug.shared"
        && created(name).is_none()
        && let Some((input, j)) = st
            .section_named(name)
            .and_then(|k| first_symbol_in(st, k))
            .or_else(|| first_dead_extern(st))
    {
        return (2, input, (1, j, 0), 0);
    }
    if let Some((g, input, at)) = created(name) {
        // `.nv.uft` is named after the rest of the input that brought it,
        // its stubs included (uft_basic_sm90).
        if name == ".nv.uft" {
            return (g, input, (5, 0, 0), 0);
        }
        return (g, input, at, 0);
    }
    if let Some(&(input, at)) = ix.info.get(name) {
        return (2, input, at, 0);
    }
    if let Some(bank) = name.strip_prefix(".rel")
        && bank.starts_with(".nv.constant0.")
        && let Some((g, input, at)) = created(bank)
    {
        return (g, input, at, if for_strtab { -1 } else { 1 });
    }
    // A kernel's shared memory named with its code, present or not.
    if let Some(kernel) = name.strip_prefix(".nv.shared.")
        && let Some((g, input, (phase, i, _))) = created(&format!(".text.{kernel}"))
    {
        return (g, input, (phase, i, 3), 0);
    }
    // The resolved table is named right after the section's first table
    // (preserve_relocs_sm75: after `.rel.debug_frame`, before
    // `.rela.debug_frame`; after `.rela.text.k_main`).
    if let Some(target) = name.strip_prefix(".nv.resolvedrela")
        && let Some(k) = st.section_named(target)
    {
        let first = [(true, 1), (false, 3)]
            .into_iter()
            .filter_map(|(rela, sub)| ix.first_reloc.get(&(k, rela)).map(|&n| (n, sub)))
            .min();
        if let Some((n, sub)) = first {
            return (2, st.relocs[n].input, (4, n as u32, 0), sub);
        }
    }
    for (prefix, sub) in [(".rela", 0), (".rel", 2)] {
        if let Some(target) = name.strip_prefix(prefix)
            && let Some(k) = st.section_named(target)
            && let Some(&n) = ix.first_reloc.get(&(k, sub != 2))
        {
            return (2, st.relocs[n].input, (4, n as u32, 0), sub);
        }
    }
    (3, 0, (0, 0, 0), 0)
}

/// (patched section, RELA?) → the index of the first relocation the link
/// met for that table. A relocation of a frame record dropped with its
/// function counts for `.debug_frame`: nvlink made the table when it
/// merged it (a removed kernel's object before the program's puts
/// `.rela.debug_frame` before the later object's `.rela.text.<k>`, in the
/// section headers and the string tables: dead_frame_order_sm100).
fn first_relocations(st: &LinkState) -> HashMap<(usize, bool), usize> {
    let frame = st.section_named(".debug_frame");
    let mut first = HashMap::default();
    for (n, r) in st.relocs.iter().enumerate() {
        let section = match (r.section, frame) {
            (super::frame_edit::DROPPED_RECORD, Some(df)) => df,
            (k, _) => k,
        };
        first.entry((section, r.rela)).or_insert(n);
    }
    first
}

/// (group, input, when, sub-position) of a name in the string tables.
type NameKey = (u8, usize, Created, i64);

/// What [`name_key`] looks up, gathered once per link.
struct NameIndex<'a> {
    /// `.nv.info.<fn>` → the first input that has it, and when it was made.
    info: HashMap<&'a str, (usize, Created)>,
    /// (input, `.nv.info.<fn>`) → when that input made it.
    info_by_input: HashMap<(usize, String), Created>,
    /// (section, RELA?) → the index of its first relocation record.
    first_reloc: HashMap<(usize, bool), usize>,
    /// `.nv.shared.<k>` of a kernel `-kernels-used` leaves out (dropped, or
    /// kept as a device function by `-r`) → where nvlink made it: as a data
    /// section, with the first variable in it, not with the kernel's code
    /// (kernels_used_shared_sm75: blur's before stage's bank, scan's after
    /// total's, as their symbols come).
    unused_shared: HashMap<String, (usize, Created)>,
}

impl<'a> NameIndex<'a> {
    fn new(st: &'a LinkState, setup: &LinkSetup) -> Self {
        // `-r -kernels-used` makes the other kernels' `.nv.info.<k>` as a
        // device function's, in section order (kernels_used_sm90 with -r:
        // `.nv.info.k_graph` after `.nv.constant0.k_graph`).
        // So does partial LTO for the LTO cubin's kernels the host lists do
        // not name (lto_cdp_sm90, lto_device_launch_sm90: the kernel only
        // the device launches).
        // And a kernel `-kernels-used` leaves out that stays (launched or
        // its address taken), as a function or as an entry point (README
        // observation 201; kernels_used_single_root_sm90,
        // kernels_used_two_roots_sm90).
        let unlisted_kept: std::collections::BTreeSet<&str> = st
            .all_symbols()
            .filter(|&(i, f)| super::state::query::is_kernel(st, i) && !f.removed && !named_as_listed(st, setup, i))
            .map(|(_, f)| &*f.name)
            .collect();
        let not_a_kernel = |input: usize, name: &str| {
            name.strip_prefix(".nv.info.")
                .is_some_and(|k| super::dce::lto_unlisted(st, input, k) || unlisted_kept.contains(k))
        };
        let mut info = HashMap::default();
        let mut info_by_input = HashMap::default();
        for (input, m) in st.maps.iter().enumerate() {
            for (name, at, j) in &m.info_creation {
                let at = if at.0 == 0 && not_a_kernel(input, name) {
                    (3, *j, 0)
                } else {
                    *at
                };
                info.entry(name.as_str()).or_insert((input, at));
                info_by_input.entry((input, name.clone())).or_insert(at);
            }
        }
        let first_reloc = first_relocations(st);
        let mut unused_shared = HashMap::default();
        let live = st.sections.iter().filter(|x| !x.removed).map(|x| &x.name);
        for name in st.dropped_section_names.iter().chain(live) {
            let Some(kernel) = name.strip_prefix(".nv.shared.").filter(|_| setup.used_lists_given()) else {
                continue;
            };
            // Static kernels (libcudadevrt's) are not in the global lookup.
            let listed = st
                .all_symbols()
                .find(|&(i, f)| &*f.name == kernel && super::state::query::is_kernel(st, i))
                .map_or(setup.kernel_used(kernel), |(i, _)| named_as_listed(st, setup, i));
            let Some(k) = st.section_named(name).filter(|_| !listed) else {
                continue;
            };
            let met = st.maps.iter().enumerate().find_map(|(input, m)| {
                let j = m.map_section_index.iter().position(|&o| o as usize == k)?;
                let first_symbol = m.map_symbol_index.iter().position(|&o| {
                    o != 0
                        && st
                            .symbol(SymIdx(o))
                            .is_some_and(|y| y.sym_type != STT_SECTION && y.place == Place::Section(k))
                });
                Some((input, first_symbol.map_or((2, j as u32, 0), |y| (1, y as u32, 0))))
            });
            if let Some(at) = met {
                unused_shared.insert(name.clone(), at);
            }
        }
        NameIndex {
            info,
            info_by_input,
            first_reloc,
            unused_shared,
        }
    }
}

/// The same value with every payload bit cleared.
fn zero_value(v: &mut crate::cubin::nvinfo::Value) {
    use crate::cubin::nvinfo::{Block, Value};
    match v {
        Value::Byte { value, .. } => *value = 0,
        Value::Half { value } => *value = 0,
        Value::Block(Block::Words { words }) => words.iter_mut().for_each(|w| *w = 0),
        Value::Block(Block::Bytes { bytes }) => bytes.iter_mut().for_each(|b| *b = 0),
        _ => {}
    }
}

fn null_symbol() -> Symbol {
    Symbol {
        name: String::new(),
        value: 0,
        size: 0,
        binding: 0,
        sym_type: 0,
        other: 0,
        shndx: 0,
    }
}

/// The input section that gave state section `k` its (live) contents.
/// The `sh_info` of the input section that gave state section `k` its
/// (live) contents.
fn input_info(st: &LinkState, parsed: &[Option<crate::cubin::read::Headers>], k: usize) -> Option<u32> {
    let (input, in_section) = super::state::query::input_of(st, k)?;
    parsed.get(input)?.as_ref()?.infos.get(in_section).copied()
}

/// The state section that the input's sh_info link of state section `k` names.
fn linked_section(st: &LinkState, parsed: &[Option<crate::cubin::read::Headers>], k: usize) -> Option<usize> {
    let sec = st.sections.get(k)?;
    let c = sec
        .contributions
        .iter()
        .find(|c| c.live)
        .or(sec.contributions.first())?;
    let info = *parsed.get(c.input)?.as_ref()?.infos.get(c.in_section)? as usize;
    let out = *st.maps.get(c.input)?.map_section_index.get(info)? as usize;
    (out != 0).then_some(out)
}

fn remap_info(e: &crate::cubin::nvinfo::Entry, sym_out: &dyn Fn(SymIdx) -> u32) -> crate::cubin::nvinfo::Entry {
    let mut e = e.clone();
    for r in e.symbol_refs_mut() {
        *r = sym_out(SymIdx(*r as i32));
    }
    e
}

/// A kept record's addend, moved with the line table its section symbol
/// names when `line_order` moved that table's units (`-r`: the
/// `DW_AT_stmt_list` R_CUDA_32 of a unit after one that lost sequences).
fn line_addend(st: &LinkState, lines: &LineOrder, r: &super::state::OutReloc) -> i64 {
    let target = st
        .symbol(r.sym)
        .filter(|y| y.sym_type == STT_SECTION)
        .and_then(|y| match y.place {
            Place::Section(t) => Some(t),
            _ => None,
        });
    match target {
        Some(t) if r.rtype == 1 && r.addend >= 0 && lines.data(t).is_some() => lines.offset(t, r.addend as u64) as i64,
        _ => r.addend,
    }
}
