//! Questions about the link state that several phases ask: the st_other
//! bits of a symbol, which undefined symbols are variables, which functions
//! are kernels, which input gave a section, which function owns a code
//! section.

use foldhash::HashMap;

use crate::cubin::consts::*;

use super::{LinkState, OutSymbol, Place, SectionClass, SymIdx};

/// st_other memory-space bits of a `.shared` variable.
pub const STO_SHARED: u8 = 0x40;
/// st_other bit of a `__managed__` variable.
pub const STO_MANAGED: u8 = 0x04;
/// st_other bits of the memory space (global 0x20, shared 0x40, constant 0x80).
pub const STO_MEMORY_SPACE: u8 = 0xe0;
/// The constant memory space in st_other.
pub const STO_CONSTANT: u8 = 0x80;
/// st_other bit of a kernel (cuobjdump: ENTRY).
pub const STO_ENTRY: u8 = 0x10;

/// A LOCAL undefined object (its value is all ones after layout).
pub fn is_local_undefined_object(s: &OutSymbol) -> bool {
    s.binding == STB_LOCAL && s.place == Place::Undefined && matches!(s.sym_type, STT_OBJECT | STT_CUDA_OBJECT)
}

/// An undefined GLOBAL or WEAK variable with a memory space.
pub fn is_undefined_variable(s: &OutSymbol) -> bool {
    s.binding != STB_LOCAL
        && s.place == Place::Undefined
        && s.sym_type == STT_CUDA_OBJECT
        && s.other & STO_MEMORY_SPACE != 0
        && !s.removed
}

/// An undefined variable of constant memory.
pub fn is_undefined_constant(s: &OutSymbol) -> bool {
    is_undefined_variable(s) && s.other & STO_MEMORY_SPACE == STO_CONSTANT
}

/// Whether `i` is a defined kernel (an entry function).
pub fn is_kernel(st: &LinkState, i: SymIdx) -> bool {
    st.symbol(i)
        .is_some_and(|s| s.sym_type == STT_FUNC && s.other & STO_ENTRY != 0 && s.is_defined())
}

/// Whether an input merged before the one that defines `i` refers to it
/// (an undefined reference met first). Under `-kernels-used` nvlink names
/// an unlisted kernel met so as a listed one's (README observation 203:
/// kernels_used_referenced_first_sm90).
pub fn referenced_before_definition(st: &LinkState, i: SymIdx) -> bool {
    st.symbol(i)
        .is_some_and(|s| st.maps.iter().take(s.input).any(|m| m.map_symbol_index.contains(&i.0)))
}

/// A symbol's position in state order (locals, then globals).
pub fn state_rank(st: &LinkState) -> impl Fn(SymIdx) -> i64 + use<> {
    let locals = st.locals.len() as i64;
    move |i: SymIdx| if i.0 > 0 { i.0 as i64 } else { locals + (-(i.0 as i64)) }
}

/// The input section that gave state section `k` its live contents.
pub fn input_of(st: &LinkState, k: usize) -> Option<(usize, usize)> {
    let c = st.sections.get(k)?.live_contribution()?;
    Some((c.input, c.in_section))
}

/// The function each code section belongs to: the merge records the owner
/// of global functions' code; a local function's code belongs to the
/// function defined in it.
pub fn text_owners(st: &LinkState) -> HashMap<usize, SymIdx> {
    let mut m = HashMap::default();
    for (k, sec) in st.sections.iter().enumerate() {
        if sec.class == SectionClass::Text
            && let Some(o) = sec.owner
        {
            m.insert(k, o);
        }
    }
    for (i, y) in st.all_symbols() {
        if y.sym_type == STT_FUNC
            && let Place::Section(k) = y.place
            && st.sections.get(k).is_some_and(|x| x.class == SectionClass::Text)
        {
            m.entry(k).or_insert(i);
        }
    }
    m
}
