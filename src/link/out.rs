//! The output's ELF shape, shared by finalize, Mercury and emit: the order
//! of the output symbol table (which finalize's tables already index), the
//! attributes a symbol and a section are written with, and a blank output
//! section.

use foldhash::HashMap;

use crate::cubin::consts::*;
use crate::cubin::model::Section;

use super::state::query::STO_MEMORY_SPACE;
use super::state::{Created, LinkState, OutSymbol, Place, SymIdx};

/// One entry of the output symbol table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// The null symbol.
    Null,
    /// A symbol of the link state.
    State(SymIdx),
    /// A section symbol emit adds for a section the back half builds whole
    /// (notes, `.nv.callgraph`, the tables): named after the section.
    Section(String),
}

/// Where each state symbol lands in the output symbol table.
pub struct SymbolOrder {
    /// Output symbol table, index 0 the null symbol.
    pub order: Vec<Slot>,
    pub index: HashMap<SymIdx, u32>,
    /// Number of local symbols, the null symbol included (sh_info of .symtab).
    pub first_global: u32,
}

impl SymbolOrder {
    /// The output index of a state symbol (0 when it is left out).
    pub fn of(&self, i: SymIdx) -> u32 {
        self.index.get(&i).copied().unwrap_or(0)
    }
}

/// The relocation-action table finalize writes.
const REL_ACTION: &str = ".nv.rel.action";

/// Sections whose section symbols nvlink lists after every other local.
const LATE_SECTION_SYMBOLS: &[&str] = &[".nv.uft"];

/// When nvlink creates output section `k`: (input, [`Created`]) of its
/// first contribution; after every input for a section the link made.
pub fn section_created(st: &LinkState, k: usize) -> (usize, Created) {
    // A kernel's section layout made (`.nv.shared.<k>` for extern shared
    // arrays) counts as made with the kernel's code, as its `.nv.shared.<k>`
    // would have been (shared_dynamic_kernels_sm90: k_b's).
    // A kernel's bank 2 the link made comes after every other section
    // (`link::constant2`).
    if let Some(text) = owner_code(st, k).filter(|_| st.sections[k].contributions.is_empty())
        && text != k
        && !super::constant2::is_made_bank(st, k)
    {
        let (input, (phase, i, _)) = section_created(st, text);
        return (input, (phase, i, 3));
    }
    // `.nv_debug.shared` is made where nvlink met an extern array, when
    // that input comes before the first with module variables (its section
    // symbol kept by -g: debug_extern_shared_sm90; its name in `.shstrtab`:
    // shared_module_align_sm75), also when only removed code named the
    // array (shared_dead_extern_order_sm90: before later inputs' sections).
    if st.sections[k].name == ".nv_debug.shared"
        && let Some((input, j)) = first_symbol_in(st, k).or_else(|| first_dead_extern(st))
        && st.sections[k].contributions.first().is_none_or(|c| input < c.input)
    {
        return (input, (1, j, 0));
    }
    match st.sections.get(k).and_then(|s| s.contributions.first()) {
        Some(c) => {
            let at = st
                .maps
                .get(c.input)
                .and_then(|m| m.creation.get(c.in_section))
                .copied()
                .unwrap_or((2, c.in_section as u32, 0));
            (c.input, at)
        }
        None => (usize::MAX, (2, k as u32, 0)),
    }
}

/// When nvlink creates each local symbol that is not a section symbol:
/// (input, [`Created`]) of the first input symbol mapped to it.
pub fn local_symbols_created(st: &LinkState) -> HashMap<i32, (usize, Created)> {
    let mut out: HashMap<i32, (usize, Created)> = HashMap::default();
    for (input, maps) in st.maps.iter().enumerate() {
        for (j, &m) in maps.map_symbol_index.iter().enumerate() {
            if m > 0 && !out.contains_key(&m) {
                // A local function comes just before its code's section symbol.
                let at = match st.symbol(SymIdx(m)) {
                    Some(s) if s.sym_type == STT_FUNC => (0, j as u32, 0),
                    _ => (1, j as u32, 1),
                };
                out.insert(m, (input, at));
            }
        }
    }
    out
}

/// The state's locals in the order nvlink creates them (corpus observation
/// 59): input by input, a section symbol when its section is created,
/// another local where its input lists it; the sections the link makes
/// come last. Ties keep the state's order.
fn locals_in_creation_order(st: &LinkState) -> Vec<(SymIdx, &OutSymbol)> {
    let created = local_symbols_created(st);
    let key = |i: SymIdx, s: &OutSymbol| -> (usize, Created) {
        if s.sym_type == STT_SECTION
            && let Place::Section(k) = s.place
        {
            return section_created(st, k);
        }
        created.get(&i.0).copied().unwrap_or((usize::MAX, (2, u32::MAX, 0)))
    };
    let mut locals: Vec<_> = st.all_symbols().filter(|(i, _)| i.0 > 0).collect();
    locals.sort_by_cached_key(|&(i, s)| key(i, s));
    locals
}

/// Whether the output has a `.nv.callgraph` section.
pub fn has_callgraph(st: &LinkState) -> bool {
    st.callgraph.iter().any(|e| e.live)
}

/// The output symbol table's order, as nvlink writes it: the null symbol,
/// the notes' section symbols, the locals in creation order, the section symbols of
/// `.nv.callgraph` and the whole-built tables, then the globals and weak
/// symbols in state order. Symbols a back-half phase removed are left out.
/// Finalize can call this once the notes and tables exist (their contents
/// do not matter) to learn the indices its tables must hold.
pub fn symbol_order(st: &LinkState) -> SymbolOrder {
    let mut order = vec![Slot::Null];
    let has_section_symbol = |name: &str| {
        st.locals
            .iter()
            .any(|s| !s.removed && s.sym_type == STT_SECTION && &*s.name == name)
    };
    for note in &st.notes {
        if !has_section_symbol(&note.name) {
            order.push(Slot::Section(note.name.clone()));
        }
    }
    // The unified tables' entry sections and the index come next
    // (`link::uft`); in a `-r` link only the index (uft_basic_sm90 linked
    // with -r: `.nv.uft.entry` after `.nv.uft`).
    let early_names: Vec<&str> = super::uft::EARLY_SECTION_SYMBOLS
        .iter()
        .copied()
        .filter(|&n| !(st.relocatable && n == ".nv.uft.entry"))
        .collect();
    let early = |name: &str| early_names.contains(&name);
    for &name in &early_names {
        let present =
            st.section_named(name).is_some_and(|k| !st.sections[k].removed) || st.tables.iter().any(|t| t.name == name);
        if present && !has_section_symbol(name) {
            order.push(Slot::Section(name.into()));
        }
    }
    // On sm_100+ a local an input lists after its globals (the
    // `.nv.constant0.<kernel>` section symbols) stays after the globals in
    // the output too (corpus: arch_sm100_smoke, weak_func_vsm_low_first_sm100);
    // only those after its last global: ptxas 13.0 lists weak functions
    // among the locals, which stay locals (nvshmem_lib_sm100).
    let (trailing, header_banks) = trailing_locals(st);
    // The `.nv.uft` section symbol comes after the other locals of the
    // input that brought the table (after the `__cuda_uf_stub_*` symbols
    // that live in it), before the next input's (corpus uft_uidx_reorder_sm90,
    // uft_two_objects_sm90).
    let late = |s: &OutSymbol| s.sym_type == STT_SECTION && LATE_SECTION_SYMBOLS.contains(&s.name.as_ref());
    let mut held: Vec<(SymIdx, usize)> = Vec::new();
    // In a `-r` link `.nv.uft.entry`'s section symbol follows `.nv.uft`'s
    // (uft_two_objects_sm90 linked with -r: before the next input's locals).
    let mut uft_entry_pending = st.relocatable
        && st
            .section_named(".nv.uft.entry")
            .is_some_and(|k| !st.sections[k].removed)
        && !has_section_symbol(".nv.uft.entry");
    let mut uft_entry_after = |order: &mut Vec<Slot>| {
        if std::mem::take(&mut uft_entry_pending) {
            order.push(Slot::Section(".nv.uft.entry".into()));
        }
    };
    let made_banks = super::constant2::made_bank_symbols(st);
    // Sorted once, walked three times.
    let locals = locals_in_creation_order(st);
    for &(i, s) in &locals {
        if s.removed || trailing.contains(&i) || header_banks.contains(&i) || made_banks.contains(&i) {
            continue;
        }
        if late(s) {
            held.push((i, s.input));
            continue;
        }
        held.retain(|&(h, input)| {
            let due = input < s.input;
            if due {
                order.push(Slot::State(h));
                uft_entry_after(&mut order);
            }
            !due
        });
        order.push(Slot::State(i));
    }
    for (h, _) in held {
        order.push(Slot::State(h));
        uft_entry_after(&mut order);
    }
    // `.nv.udt.entry`'s section symbol follows the other locals, the
    // variables of `.nv.udt` included (corpus udt_reorder_sm90).
    if st
        .section_named(".nv.udt.entry")
        .is_some_and(|k| !st.sections[k].removed)
        && !has_section_symbol(".nv.udt.entry")
    {
        order.push(Slot::Section(".nv.udt.entry".into()));
    }
    if has_callgraph(st) && !has_section_symbol(".nv.callgraph") {
        order.push(Slot::Section(".nv.callgraph".into()));
    }
    // The banks 2 the link made for kernels come after `.nv.prototype`,
    // before `.nv.rel.action` (`link::constant2`).
    let mut made_banks = made_banks.into_iter().map(Slot::State);
    for t in &st.tables {
        if t.name == REL_ACTION {
            order.extend(made_banks.by_ref());
        }
        if !has_section_symbol(&t.name) && !early(&t.name) {
            order.push(Slot::Section(t.name.clone()));
        }
    }
    order.extend(made_banks);
    // nvlink lists the globals input by input, in the order they first
    // appear; within an input the functions first, each group in the
    // input's symbol order (arch_sm90_smoke: weak_helper, k_arch, lib_func,
    // then .nv.reservedSmem.offset0, fn_table, …, .nv.reservedSmem.cap).
    let mut first_seen: HashMap<SymIdx, (usize, usize)> = HashMap::default();
    for (input, maps) in st.maps.iter().enumerate() {
        for (j, &m) in maps.map_symbol_index.iter().enumerate() {
            if m < 0 {
                first_seen.entry(SymIdx(m)).or_insert((input, j));
            }
        }
    }
    // On sm_107 the symbols only the classic side has (`__cuda_syscall_bw_do_*`)
    // come after all the others (sm107_texture_syscall).
    // (classic only, input, not a function, index in the input, creation).
    type GlobalKey = (bool, usize, bool, usize, usize);
    let mut globals: Vec<(SymIdx, GlobalKey)> = st
        .all_symbols()
        .enumerate()
        .filter(|(_, (i, s))| i.0 < 0 && !s.removed)
        .map(|(n, (i, s))| {
            let (input, j) = first_seen.get(&i).copied().unwrap_or((usize::MAX, usize::MAX));
            let classic_only = st.mercury.is_classic_only(&s.name);
            (i, (classic_only, input, s.sym_type != STT_FUNC, j, n))
        })
        .collect();
    globals.sort_by_key(|(_, k)| *k);
    // On sm_100+ a global the link made local (`-g`: a module-level shared
    // variable only one kernel reaches, moved into its section by layout)
    // is listed with the locals, after the tables' section symbols, in the
    // globals' order; sm_90 leaves it among the globals (corpus
    // debug_shared_vars_sm100, debug_shared_symbols_sm90).
    let (made_local, globals): (Vec<_>, Vec<_>) = globals
        .into_iter()
        .partition(|(i, _)| !st.mercury.is_empty() && st.symbol(*i).is_some_and(|s| s.binding == STB_LOCAL));
    order.extend(made_local.into_iter().map(|(i, _)| Slot::State(i)));
    for &(i, s) in &locals {
        if !s.removed && header_banks.contains(&i) {
            order.push(Slot::State(i));
        }
    }
    let first_global = order.len() as u32;
    order.extend(globals.into_iter().map(|(i, _)| Slot::State(i)));
    let mut first_global = first_global;
    // In the order their sections were made: a kernel's bank with the
    // kernel (cdp_local_undefined_sm100: libcudadevrt's static
    // kernels' `.nv.constant0.<k>`, which it lists in the reverse order).
    for &(i, s) in &locals {
        if !s.removed && trailing.contains(&i) {
            order.push(Slot::State(i));
            // sh_info is one past the last local.
            first_global = order.len() as u32;
        }
    }
    let index = order
        .iter()
        .enumerate()
        .filter_map(|(n, slot)| match slot {
            Slot::State(i) => Some((*i, n as u32)),
            _ => None,
        })
        .collect();
    SymbolOrder {
        order,
        index,
        first_global,
    }
}

/// The locals some input lists after its last global symbol, on sm_100+:
/// those that stay after the globals, and the section symbols of kernel
/// banks holding image header indices, which go last among the locals.
fn trailing_locals(st: &LinkState) -> (foldhash::HashSet<SymIdx>, foldhash::HashSet<SymIdx>) {
    let mut out = foldhash::HashSet::default();
    let mut banks = foldhash::HashSet::default();
    // sm_90 inputs end the same way, but nvlink lists those among the
    // other locals there (arch_sm90_smoke).
    if st.mercury.is_empty() {
        return (out, banks);
    }
    // A kernel whose constant bank holds image header indices has a
    // Mercury header table, whose section symbol the Mercury table lists
    // among its locals: the classic one is a local there too, after the
    // tables' section symbols (texref_helper_sm100: `.nv.callgraph`,
    // `.nv.prototype`, `.nv.constant0.k_tex2`, `.nv.constant0.k_tex`).
    let with_headers: foldhash::HashSet<usize> = st
        .relocs
        .iter()
        .filter(|r| r.live && matches!(r.rtype, R_CUDA_TEX_HEADER_INDEX | R_CUDA_SURF_HEADER_INDEX))
        .map(|r| r.section)
        .collect();
    for maps in &st.maps {
        let Some(last) = maps.map_symbol_index.iter().rposition(|&m| m < 0) else {
            continue;
        };
        for &m in &maps.map_symbol_index[last + 1..] {
            if m <= 0 {
                continue;
            }
            let placed = st.symbol(SymIdx(m)).map(|s| s.place);
            if matches!(placed, Some(Place::Section(k)) if with_headers.contains(&k)) {
                banks.insert(SymIdx(m));
            } else {
                out.insert(SymIdx(m));
            }
        }
    }
    (out, banks)
}

/// R_CUDA_TEX_HEADER_INDEX and R_CUDA_SURF_HEADER_INDEX.
const R_CUDA_TEX_HEADER_INDEX: u32 = 6;
const R_CUDA_SURF_HEADER_INDEX: u32 = 52;

/// The section type nvlink gives an output section: a final link (ET_EXEC)
/// turns the CUDA memory-space types into plain PROGBITS and NOBITS (corpus:
/// every sm_90 case; `relocatable_link_sm90` keeps them).
pub fn output_section_type(sh_type: u32, relocatable: bool) -> u32 {
    if relocatable {
        return sh_type;
    }
    match sh_type {
        SHT_CUDA_GLOBAL_INIT => SHT_PROGBITS,
        t if (SHT_CUDA_CONSTANT0..SHT_CUDA_CONSTANT0 + 0x20).contains(&t) => SHT_PROGBITS,
        SHT_CUDA_GLOBAL | SHT_CUDA_SHARED | SHT_CUDA_LOCAL => SHT_NOBITS,
        t => t,
    }
}

/// A symbol as the output states it. A final link writes CUDA objects as
/// plain OBJECTs without their memory-space bits; every link makes a weak
/// undefined name (`.nv.reservedSmem.*`, the `__UFT*`/`__UDT*` placeholders
/// of `-r` links) GLOBAL, except the `externsharedinstance` it makes itself.
pub fn output_symbol(s: &OutSymbol, relocatable: bool) -> (u8, u8, u8) {
    let mut binding = s.binding;
    let mut sym_type = s.sym_type;
    let mut other = s.other;
    if binding == STB_WEAK && s.place == Place::Undefined && &*s.name != super::layout::EXTERN_INSTANCE {
        binding = STB_GLOBAL;
    }
    if !relocatable {
        if sym_type == STT_CUDA_OBJECT {
            sym_type = STT_OBJECT;
        }
        other &= !STO_MEMORY_SPACE;
    }
    (binding, sym_type, other)
}

/// A new output section with no link, info or relocations yet.
pub fn section<'a>(
    name: &str,
    sh_type: u32,
    flags: u64,
    align: u64,
    entsize: u64,
    data: impl Into<std::borrow::Cow<'a, [u8]>>,
) -> Section<'a> {
    Section {
        name: name.to_string(),
        sh_type,
        flags,
        addr: 0,
        link: 0,
        info: 0,
        align,
        entsize,
        data: data.into(),
        nobits_size: 0,
        relocs: Vec::new(),
    }
}

/// The first input symbol (input, index) mapped to an output symbol `pick`
/// accepts: where nvlink met it.
fn first_input_symbol(st: &LinkState, pick: impl Fn(&super::state::OutSymbol) -> bool) -> Option<(usize, u32)> {
    st.maps.iter().enumerate().find_map(|(input, maps)| {
        let j = maps
            .map_symbol_index
            .iter()
            .position(|&m| m != 0 && st.symbol(SymIdx(m)).is_some_and(&pick))?;
        Some((input, j as u32))
    })
}

/// The first input symbol (input, index) that maps to a symbol of section `k`.
pub fn first_symbol_in(st: &LinkState, k: usize) -> Option<(usize, u32)> {
    first_input_symbol(st, |s| s.place == Place::Section(k) && s.sym_type != STT_SECTION)
}

/// Where nvlink met the first extern shared array only removed code named
/// (its `.nv_debug.shared` stays, empty: `layout`): (input, input symbol).
pub fn first_dead_extern(st: &LinkState) -> Option<(usize, u32)> {
    use super::state::query::{STO_MEMORY_SPACE, STO_SHARED};
    first_input_symbol(st, |s| {
        s.removed && s.place == Place::Undefined && s.other & STO_MEMORY_SPACE == STO_SHARED
    })
}

/// The code section of the kernel a section layout made belongs to.
pub fn owner_code(st: &LinkState, k: usize) -> Option<usize> {
    match st.symbol(st.sections.get(k)?.owner?)?.place {
        Place::Section(text) => Some(text),
        _ => None,
    }
}
