//! The relocation engine (seed 002): one relocation per step, applied to
//! the output bytes through the descriptor of its type, or kept in the
//! output for the driver.
//!
//! Which relocations nvlink 13.5 applies and which it keeps was read from
//! the corpus (inputs' and outputs' relocation lists) and from probes
//! (scripts/gen-reloc-goldens):
//!
//! - against a symbol in a constant bank, or a section symbol of a
//!   non-allocated section (`.debug_frame`), or an absolute symbol: applied
//!   (S = the symbol's offset in its output section; for a section symbol,
//!   where the relocation's input put that section), record dropped (with
//!   `-preserve-relocs`, listed in `.nv.resolvedrela<section>`);
//! - against shared or local memory: applied in a final link, kept by `-r`;
//! - types only the driver resolves ([`descriptors::kept_for_driver`]:
//!   R_CUDA_G*, FUNC_DESC*, *_HEADER_INDEX, ABS47_34, ABS55_16_34, …): kept;
//! - Mercury-numbered relocations: kept as they are (`link::mercury`
//!   resolves and writes them);
//! - on sm_100+ code, an applied relocation writes what its Mercury twin
//!   (the relocation of the same instruction in `.nv.merc.rela.text.<fn>`)
//!   makes of S, into the field the classic type names: nvlink finalizes
//!   the Mercury code again and ignores the classic type and addend
//!   ([`descriptors::Table`], tests/data/reloc/sm100_*);
//! - against functions, `.nv.global*` data, undefined and common symbols:
//!   kept, bytes untouched (ET_EXEC sections all have address 0: the driver
//!   places them). R_CUDA_UNIFIED* kept are rewritten to the plain types
//!   (not by `-r`);
//!   kept relocations against section symbols get the input section's
//!   offset added to their addend;
//! - against a function left out of the output (DCE): dropped;
//! - against the linker's unified-table symbols (`__UFT*`, `__UDT*`, left
//!   undefined): dropped, bytes untouched;
//! - R_CUDA_UNUSED_CLEAR32/64: dropped; the field is zeroed unless the
//!   symbol is a function that stays in the output;
//! - R_CUDA_YIELD_*: dropped, bytes untouched (forward progress is
//!   required on every architecture culdb links);
//! - against a device function's constant bank 2 (left out of the output):
//!   applied with S moved to where layout put the function's block in its
//!   kernels' banks (`link::constant2`); `-preserve-relocs` does not list it;
//! - against texture, surface and sampler symbols (CONST_FIELD types):
//!   applied with S = the symbol's value, which the bindless layout must set
//!   to the constant-bank-0 offset of the reference's slot (corpus
//!   texref_helper_sm90: 0x220 + 4·k, the same in every kernel and helper,
//!   whatever ptxas had pre-filled), dropped.

pub mod apply;
pub mod bits;
pub mod descriptors;

use foldhash::HashMap;

use crate::cubin::consts::{
    SHT_CUDA_CONSTANT0, SHT_CUDA_GLOBAL, SHT_CUDA_GLOBAL_INIT, SHT_CUDA_LOCAL, SHT_CUDA_SHARED, STT_CUDA_SAMPLER,
    STT_CUDA_SURFACE, STT_CUDA_TEXTURE, STT_FUNC, STT_SECTION,
};

use super::diag::Diagnostic;
use super::event::Event;
use super::event::reloc::FieldChange;
pub use super::event::reloc::{MercTwin, RelocEvent};
use super::setup::LinkSetup;
use super::state::{LinkState, OutReloc, Place, SectionClass};
use apply::{ApplyError, Inputs};

/// The constant bank of the program's own `__constant__` data (`.nv.constant3`).
const USER_CONSTANT_BANK: u32 = 3;

/// What happens to one relocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Patch the bytes with these values, drop the record.
    Apply(Inputs),
    /// Patch the bytes with these values and keep the record for the
    /// final link (sm_100+ `-r` bindless references).
    ApplyAndKeep(Inputs, &'static str),
    /// Keep the record, maybe rewritten.
    Keep {
        rtype: u32,
        addend: i64,
        reason: &'static str,
    },
    /// Drop the record; `clear` first zeroes its fields.
    Drop { clear: bool, reason: &'static str },
}

/// The CUDA type of an output section by what it holds (the output's
/// sh_type may already be the one written, PROGBITS for constant banks).
fn class_sh_type(class: SectionClass, sh_type: u32) -> u32 {
    match class {
        SectionClass::Constant(n) => SHT_CUDA_CONSTANT0 + n,
        SectionClass::Shared | SectionClass::SharedReserved => SHT_CUDA_SHARED,
        SectionClass::Local => SHT_CUDA_LOCAL,
        SectionClass::Global => SHT_CUDA_GLOBAL,
        SectionClass::GlobalInit => SHT_CUDA_GLOBAL_INIT,
        _ => sh_type,
    }
}

/// Where input `input`'s part of output section `out` starts.
fn contribution_base(st: &LinkState, input: usize, out: usize) -> Option<u64> {
    if let Some(c) = st.sections.get(out)?.contributions.iter().find(|c| c.input == input) {
        return Some(c.offset);
    }
    let m = st.maps.get(input)?;
    m.map_section_index
        .iter()
        .position(|&o| o as usize == out)
        .and_then(|k| m.map_section_offset.get(k).copied())
}

/// Whether `sec` is a section nvlink writes again when it finalizes the
/// Mercury code of an sm_100+ link (`r` coming from an sm_100+ input).
fn rewritten_by_finalizer(st: &LinkState, r: &OutReloc, sec: &super::state::OutSection) -> bool {
    let sm = st.inputs.get(r.input).map_or(0, |i| i.sm);
    descriptors::table(sm) == descriptors::Table::Mercury && crate::link::line_order::is_line_table(&sec.name)
}

fn is_unified_table_symbol(name: &str) -> bool {
    name.starts_with("__UFT") || name.starts_with("__UDT")
}

/// nvlink's decision for relocation `r`.
pub fn decide(st: &LinkState, setup: &LinkSetup, r: &OutReloc) -> Decision {
    use descriptors::*;
    let Some(target) = st.sections.get(r.section) else {
        return Decision::Drop {
            clear: false,
            reason: "its section is not in the output",
        };
    };
    if target.removed {
        return Decision::Drop {
            clear: false,
            reason: "its section is not in the output",
        };
    }
    if r.rtype >= crate::cubin::catalog::MERCURY_RELOC_BASE {
        return Decision::Keep {
            rtype: r.rtype,
            addend: r.addend,
            reason: "a Mercury relocation: kept as it is",
        };
    }
    let sym = st.symbol(r.sym);
    match r.rtype {
        R_CUDA_UNUSED_CLEAR32 | R_CUDA_UNUSED_CLEAR64 => {
            let used = sym.is_some_and(|s| s.sym_type == STT_FUNC && s.is_defined() && !s.removed);
            return Decision::Drop {
                clear: !used,
                reason: if used {
                    "the function it names stays in the output"
                } else {
                    "the symbol it names is not in the output: its field is cleared"
                },
            };
        }
        R_CUDA_YIELD_OPCODE9_0 | R_CUDA_YIELD_CLEAR_PRED4_87 => {
            return Decision::Drop {
                clear: false,
                reason: "YIELD is not turned into NOP: forward progress is required",
            };
        }
        _ => {}
    }
    // A final link rewrites a kept R_CUDA_UNIFIED* to its plain type; `-r`
    // keeps it for the final link (corpus func_ptr_sm90 linked with -r).
    let kept_type = if setup.relocatable {
        r.rtype
    } else {
        unified_base(r.rtype).unwrap_or(r.rtype)
    };
    let keep = |reason| Decision::Keep {
        rtype: kept_type,
        addend: r.addend,
        reason,
    };
    let Some(sym) = sym else {
        return keep("no symbol");
    };
    if sym.removed && sym.sym_type == STT_FUNC {
        // Corpus kernels_used_sm90, archive_hostobj_*: the .debug_frame
        // R_CUDA_64 of a function left out goes too.
        return Decision::Drop {
            clear: false,
            reason: "the function it names is not in the output",
        };
    }
    if is_unified_table_symbol(&sym.name) && !sym.is_defined() {
        return Decision::Drop {
            clear: false,
            reason: "a unified-table symbol: the table's offsets are already final",
        };
    }
    if kept_for_driver(r.rtype) {
        return keep("a type only the driver resolves (generic address, descriptor, call target)");
    }
    let applicable = cuda(r.rtype, 0).is_some_and(Desc::applicable);
    // SHT_REL records keep their addend in the field (seed 002's
    // non-absolute mode).
    let inputs = |s: u64, sec_type: u32| Inputs {
        s,
        a: r.addend,
        p: r.offset,
        sec_type,
        additive: !r.rela,
    };
    if matches!(sym.sym_type, STT_CUDA_TEXTURE | STT_CUDA_SURFACE | STT_CUDA_SAMPLER) {
        // A final link has laid the slots out in constant bank 0; `-r` skips
        // bindless, so the reference stays undefined and nvlink takes the
        // section type of no section (sh_type 0): the bank field of an
        // R_CUDA_CONST_FIELD21_38 gets 0x1c (corpus relocatable_bindless_sm90).
        // On sm_100+ `-r` writes the table's base and keeps them for the
        // final link (texref_helper_sm100 linked with -r).
        if setup.relocatable
            && let Some(table) = st.bindless.as_ref()
        {
            return if applicable {
                Decision::ApplyAndKeep(
                    inputs(table.base, apply::section_type_code(SHT_CUDA_CONSTANT0)),
                    "a texture, surface or sampler reference: its field gets the bindless table's base, \
                     the final link its slot",
                )
            } else {
                keep("a texture, surface or sampler reference the driver binds")
            };
        }
        let sh_type = if setup.relocatable { 0 } else { SHT_CUDA_CONSTANT0 };
        return if applicable {
            Decision::Apply(inputs(sym.value, apply::section_type_code(sh_type)))
        } else {
            keep("a texture, surface or sampler reference the driver binds")
        };
    }
    if sym.binding == crate::cubin::consts::STB_LOCAL
        && sym.place == Place::Undefined
        && sym.sym_type != STT_SECTION
        && applicable
    {
        // Nothing can define a LOCAL name: nvlink writes all ones for an
        // object (layout gave it that value), 0 otherwise, and drops the
        // record (dynpar_cudadevrt_sm90 with -r; probed on sm_90).
        let s = if super::state::query::is_local_undefined_object(sym) {
            sym.value
        } else {
            0
        };
        return Decision::Apply(inputs(s, 0));
    }
    // `-r`: an undefined constant (all ones after layout) is written into
    // its CONST_FIELD operands, with the bank of no section, and the record
    // goes (err_undefined_var_sm90 linked with -r: `missing_c`).
    if setup.relocatable && super::state::query::is_undefined_constant(sym) && applicable {
        return Decision::Apply(inputs(sym.value, apply::section_type_code(0)));
    }
    match sym.place {
        Place::Undefined => keep("undefined: the driver resolves it"),
        Place::Common { .. } => keep("global memory: the driver places it"),
        Place::Absolute if applicable => Decision::Apply(inputs(sym.value, 0)),
        Place::Absolute => keep("no known layout for this type"),
        Place::Section(i) => {
            let Some(sec) = st.sections.get(i) else {
                return keep("its symbol's section is unknown");
            };
            let sec_type = apply::section_type_code(class_sh_type(sec.class, sec.sh_type));
            let s = if sym.sym_type == STT_SECTION {
                contribution_base(st, r.input, i).unwrap_or(0)
            } else if descriptors::is_slot(r.rtype) {
                st.input_values.get(&r.sym).copied().unwrap_or(sym.value)
            } else if let Some(&at) = st.extern_shared.get(&(r.sym, r.section)) {
                // An extern shared array, where this function's kernels have it.
                at
            } else {
                sym.value
            };
            // A device function's constant bank 2 now lies in its kernels'
            // banks (`link::constant2`).
            let s = st.moved_constant2.get(&i).map_or(s, |&d| s.wrapping_add_signed(d));
            let non_alloc = sec.flags & crate::cubin::consts::SHF_ALLOC == 0;
            let apply_here = match sec.class {
                SectionClass::Constant(_) => true,
                SectionClass::Shared | SectionClass::SharedReserved | SectionClass::Local => !setup.relocatable,
                // sm_100+ line tables are written again when nvlink
                // finalizes the Mercury code (`link::line_order`), which `-r`
                // does not do: what points into them stays (debug_line_order_sm120
                // under -r: `DW_AT_stmt_list`'s R_CUDA_32 against `.debug_line`
                // kept, its field left 0).
                SectionClass::Debug => !(setup.relocatable && rewritten_by_finalizer(st, r, sec)),
                SectionClass::Text | SectionClass::Global | SectionClass::GlobalInit | SectionClass::Unified => false,
                SectionClass::Other => non_alloc,
            };
            if apply_here && applicable {
                Decision::Apply(inputs(s, sec_type))
            } else if sym.sym_type == STT_SECTION {
                Decision::Keep {
                    rtype: kept_type,
                    addend: r.addend.wrapping_add(s as i64),
                    reason: "against a section the driver places",
                }
            } else if apply_here {
                keep("no known layout for this type")
            } else if setup.relocatable && matches!(sec.class, SectionClass::Shared | SectionClass::Local) {
                keep("shared and local memory are laid out by the final link")
            } else if sec.class == SectionClass::Text {
                keep("code: the driver places it")
            } else {
                keep("global memory: the driver places it")
            }
        }
    }
}

/// The phase's cursor: the next relocation of `LinkState::relocs`.
#[derive(Debug, Clone, Default)]
pub struct Relocate {
    next: usize,
    twins: Twins,
}

/// The Mercury twins of classic code relocations (sm_100+): (type, addend)
/// by (input, output section, offset in it).
type Twins = HashMap<(usize, usize, u64), (u32, i64)>;

fn mercury_twins(st: &LinkState) -> Twins {
    let mut out = Twins::default();
    for m in st.mercury.relocs.iter().filter(|m| m.live) {
        let Some((text, off)) = m.classic else {
            continue;
        };
        let Some(maps) = st.maps.get(m.input) else {
            continue;
        };
        let (Some(&sec), Some(&base)) = (maps.map_section_index.get(text), maps.map_section_offset.get(text)) else {
            continue;
        };
        if sec != 0 {
            out.insert((m.input, sec as usize, base.wrapping_add(off)), (m.rtype, m.addend));
        }
    }
    out
}

impl Relocate {
    pub fn new(st: &LinkState, _setup: &LinkSetup) -> Self {
        Relocate {
            next: 0,
            twins: mercury_twins(st),
        }
    }

    pub fn done(&self) -> bool {
        self.next == usize::MAX
    }

    /// One relocation (records already dead are passed over in the same
    /// step, except the R_CUDA_UNUSED_CLEAR* ones of removed functions).
    pub fn step(&mut self, st: &mut LinkState, setup: &LinkSetup) -> Vec<Event> {
        while self.next < st.relocs.len() && !st.relocs[self.next].live && !clears_dead_code(st, &st.relocs[self.next])
        {
            self.next += 1;
        }
        if self.next >= st.relocs.len() {
            self.next = usize::MAX;
            return Vec::new();
        }
        let index = self.next;
        self.next += 1;
        let r = &st.relocs[index];
        let twin = self.twins.get(&(r.input, r.section, r.offset)).copied();
        process(st, setup, index, twin)
    }
}

/// An R_CUDA_UNUSED_CLEAR* record that dead-code elimination took out with
/// its function: nvlink still clears its field (the function's
/// .debug_frame address range: corpus kernels_used_sm90,
/// archive_hostobj_*). Records a weak replacement nullified name a symbol
/// that stays, and are not.
fn clears_dead_code(st: &LinkState, r: &OutReloc) -> bool {
    matches!(
        r.rtype,
        descriptors::R_CUDA_UNUSED_CLEAR32 | descriptors::R_CUDA_UNUSED_CLEAR64
    ) && st.symbol(r.sym).is_some_and(|s| s.removed)
        && st.sections.get(r.section).is_some_and(|s| !s.removed)
}

fn type_name(rtype: u32) -> String {
    crate::cubin::catalog::reloc_name(crate::cubin::catalog::RelocFamily::Cuda, rtype)
        .map(str::to_string)
        .unwrap_or_else(|| format!("type {rtype:#x}"))
}

/// On sm_100+ code, what nvlink writes is what the instruction's Mercury
/// relocation (`twin`: type and addend) makes of S: the values to apply
/// the classic descriptor with instead of `x`, and the twin for the event.
/// None when the twin's type gives no value (it is kept, or refused).
fn through_mercury(
    st: &LinkState,
    r: &OutReloc,
    sm: u32,
    twin: Option<(u32, i64)>,
    x: Inputs,
) -> Option<(Inputs, MercTwin)> {
    let (rtype, addend) = twin?;
    if descriptors::table(sm) != descriptors::Table::Mercury || st.sections.get(r.section)?.class != SectionClass::Text
    {
        return None;
    }
    let value = descriptors::mercury_value(rtype, x.s, addend)?;
    // The finalizer puts an undefined constant in the user bank, 3, where
    // the classic side names no section (relocatable_undefined_sm100).
    let sec_type = if st.symbol(r.sym).is_some_and(super::state::query::is_undefined_constant) {
        apply::section_type_code(SHT_CUDA_CONSTANT0 + USER_CONSTANT_BANK)
    } else {
        x.sec_type
    };
    let x = Inputs {
        s: value,
        a: 0,
        sec_type,
        additive: false,
        ..x
    };
    Some((x, MercTwin { rtype, addend, value }))
}

/// Decides and carries out relocation `index`; `twin` is its Mercury twin
/// on sm_100+ code.
pub fn process(st: &mut LinkState, setup: &LinkSetup, index: usize, twin: Option<(u32, i64)>) -> Vec<Event> {
    let Some(r) = st.relocs.get(index).copied() else {
        return Vec::new();
    };
    let sm = st.inputs.get(r.input).map(|i| i.sm).unwrap_or(0);
    let section = st.sections.get(r.section).map(|s| s.name.clone()).unwrap_or_default();
    let symbol = st.symbol_name(r.sym);
    let rtype = type_name(r.rtype);
    let mut ev = Vec::new();
    // The values written, and the Mercury twin that chose them.
    let mercury = |x: Inputs| match through_mercury(st, &r, sm, twin, x) {
        Some((y, m)) => (y, Some(m)),
        None => (x, None),
    };
    match decide(st, setup, &r) {
        Decision::Keep {
            rtype: t,
            addend,
            reason,
        } => {
            let rec = &mut st.relocs[index];
            rec.rtype = t;
            rec.addend = addend;
            ev.push(Event::Reloc(RelocEvent::Kept {
                index,
                section,
                offset: r.offset,
                rtype,
                symbol,
                rewritten_to: (t != r.rtype).then(|| type_name(t)),
                addend: (addend != r.addend).then_some(addend),
                reason: reason.into(),
            }));
        }
        Decision::Drop { clear, reason } => {
            let mut fields = Vec::new();
            let zero = Inputs {
                s: 0,
                a: 0,
                p: r.offset,
                sec_type: 0,
                additive: false,
            };
            // A record whose section is gone has nothing to clear.
            let present = st.sections.get(r.section).is_some();
            if clear
                && present
                && let Some(res) = patch(st, &r, sm, zero)
            {
                match res {
                    Ok(f) => fields = f,
                    Err(e) => ev.push(out_of_range(&r, &section, &rtype, e)),
                }
            }
            st.relocs[index].live = false;
            ev.push(Event::Reloc(RelocEvent::Dropped {
                index,
                section,
                offset: r.offset,
                rtype,
                symbol,
                fields,
                reason: reason.into(),
            }));
        }
        Decision::Apply(x) => {
            let (written, mercury) = mercury(x);
            let Some(res) = patch(st, &r, sm, written) else {
                return ev;
            };
            match res {
                Ok(fields) => {
                    st.relocs[index].live = false;
                    if setup.preserve_relocs && !against_moved_bank(st, &r) {
                        let section_symbol = st.symbol(r.sym).is_some_and(|y| y.sym_type == STT_SECTION);
                        st.resolved.push(OutReloc {
                            addend: if section_symbol {
                                x.a.wrapping_add(x.s as i64)
                            } else {
                                x.a
                            },
                            ..r
                        });
                    }
                    ev.push(applied(index, &section, &r, &rtype, &symbol, x, fields, mercury));
                }
                Err(e) => ev.push(out_of_range(&r, &section, &rtype, e)),
            }
        }
        Decision::ApplyAndKeep(x, reason) => {
            let (written, mercury) = mercury(x);
            let Some(res) = patch(st, &r, sm, written) else {
                return ev;
            };
            match res {
                Ok(fields) => {
                    ev.push(applied(index, &section, &r, &rtype, &symbol, x, fields, mercury));
                    ev.push(Event::Reloc(RelocEvent::Kept {
                        index,
                        section,
                        offset: r.offset,
                        rtype,
                        symbol,
                        rewritten_to: None,
                        addend: None,
                        reason: reason.into(),
                    }));
                }
                Err(e) => ev.push(out_of_range(&r, &section, &rtype, e)),
            }
        }
    }
    ev
}

/// A relocation against a device function's constant bank 2, which layout
/// moved into its kernels' banks: `-preserve-relocs` does not list it
/// (const_opt_functions_sm75's inputs linked with -preserve-relocs: no
/// `.nv.resolvedrela.text.<fn>` for the functions).
fn against_moved_bank(st: &LinkState, r: &OutReloc) -> bool {
    matches!(st.symbol(r.sym).map(|s| s.place), Some(Place::Section(k)) if st.moved_constant2.contains_key(&k))
}

/// The event of an applied relocation: S and A as decided (A the Mercury
/// twin's when it chose the value).
#[allow(clippy::too_many_arguments)]
fn applied(
    index: usize,
    section: &str,
    r: &OutReloc,
    rtype: &str,
    symbol: &str,
    x: Inputs,
    fields: Vec<FieldChange>,
    mercury: Option<MercTwin>,
) -> Event {
    Event::Reloc(RelocEvent::Applied {
        index,
        section: section.to_string(),
        offset: r.offset,
        rtype: rtype.to_string(),
        symbol: symbol.to_string(),
        s: x.s,
        a: mercury.map_or(x.a, |m| m.addend),
        fields,
        mercury,
    })
}

/// Writes relocation `r`'s fields into its section's bytes; None when its
/// type has no descriptor on this architecture.
fn patch(st: &mut LinkState, r: &OutReloc, sm: u32, x: Inputs) -> Option<Result<Vec<FieldChange>, ApplyError>> {
    let d = descriptors::cuda(r.rtype, sm)?;
    Some(match st.sections.get_mut(r.section) {
        Some(s) => apply::apply(d, &mut s.data, r.offset, x),
        None => Err(ApplyError::NoLayout),
    })
}

fn out_of_range(r: &OutReloc, section: &str, rtype: &str, e: ApplyError) -> Event {
    let what = match e {
        ApplyError::OutOfRange { bit, width } => {
            format!("bits [{bit}, {}) lie past its end", bit as u32 + width as u32)
        }
        ApplyError::NoLayout => "its type has no known layout".into(),
    };
    Event::Diagnostic(Diagnostic::error(format!(
        "Relocation {rtype} at offset {:#x} of section '{section}' cannot be applied: {what}",
        r.offset
    )))
}
