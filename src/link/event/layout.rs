//! The events of layout (`link::layout`) and of its sub-phases, bindless
//! references (`link::bindless`) and the unified tables (`link::uft`), with
//! the unified-table kind the latter name.

use std::fmt;

use serde::Serialize;

use super::shown;
use crate::link::state::bindless::{Kind, OFFSET_PREFIX};

/// A layout decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LayoutEvent {
    /// A symbol got its place in an output section.
    Placed {
        name: String,
        section: String,
        offset: u64,
        size: u64,
    },
    /// The linker created an output section.
    SectionCreated { section: String, reason: String },
    /// A section's size changed.
    SectionSized {
        section: String,
        from: u64,
        to: u64,
        reason: String,
    },
    /// A section or symbol is left out of the output.
    Dropped { name: String, reason: String },
    /// A decision of the bindless sub-phase (`link::bindless`).
    Bindless(BindlessEvent),
    /// A decision of the unified-table sub-phase (`link::uft`).
    Uft(UftEvent),
}

impl fmt::Display for LayoutEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutEvent::Placed {
                name,
                section,
                offset,
                size,
            } => write!(f, "placed {} at {section}+{offset:#x} ({size:#x} bytes)", shown(name)),
            LayoutEvent::SectionCreated { section, reason } => write!(f, "created {section}: {reason}"),
            LayoutEvent::SectionSized {
                section,
                from,
                to,
                reason,
            } => write!(f, "{section}: size {from:#x} -> {to:#x} ({reason})"),
            LayoutEvent::Dropped { name, reason } => {
                write!(f, "left out {}: {reason}", shown(name))
            }
            LayoutEvent::Bindless(e) => e.fmt(f),
            LayoutEvent::Uft(e) => e.fmt(f),
        }
    }
}
/// A bindless decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BindlessEvent {
    /// The sub-phase does nothing (relocatable link, no resources).
    Skipped { reason: String },
    /// Where the table starts in every kernel's constant bank, and its size.
    TableBase {
        base: u64,
        align: u64,
        largest: String,
        slots: usize,
    },
    /// A resource got its slot.
    Slot {
        symbol: String,
        resource: Kind,
        offset: u64,
        index: usize,
    },
    /// A relocation now names the resource's `$NVLINKBINDLESSOFF_` symbol.
    Rewritten {
        index: usize,
        section: String,
        offset: u64,
        from: String,
        to: String,
        function: Option<String>,
        bits: u8,
    },
    /// A caller inherits a callee's bitmask.
    Propagated { from: String, to: String, bits: u8 },
    /// A kernel's constant bank got the table.
    TableAdded {
        section: String,
        kernel: String,
        from: u64,
        to: u64,
        bits: u8,
    },
    /// A kernel reaches no bindless reference: its bank stays as it is.
    Pruned { section: String, kernel: String },
    /// A kernel's .nv.info got a bank attribute (Mercury).
    BankAttribute { kernel: String, attribute: String },
}

impl fmt::Display for BindlessEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindlessEvent::Skipped { reason } => write!(f, "bindless: nothing to do ({reason})"),
            BindlessEvent::TableBase {
                base,
                align,
                largest,
                slots,
            } => write!(
                f,
                "bindless table of {slots} slot(s) starts at {base:#x} in every kernel's constant bank \
                 (end of the largest bank, {largest}, aligned to {align})"
            ),
            BindlessEvent::Slot {
                symbol,
                resource,
                offset,
                index,
            } => write!(
                f,
                "{} {} gets slot {index} at c[0x0][{offset:#x}] ({OFFSET_PREFIX}{symbol})",
                resource.name(),
                shown(symbol)
            ),
            BindlessEvent::Rewritten {
                index,
                section,
                offset,
                from,
                to,
                function,
                bits,
            } => {
                write!(
                    f,
                    "change reloc symbol of #{index} at {section}+{offset:#x} from {from} to {to}"
                )?;
                if let Some(func) = function {
                    write!(f, "; {} uses {}", shown(func), bits_text(*bits))?;
                }
                Ok(())
            }
            BindlessEvent::Propagated { from, to, bits } => write!(
                f,
                "{} calls {}: it needs the bindless table too ({})",
                shown(to),
                shown(from),
                bits_text(*bits)
            ),
            BindlessEvent::TableAdded {
                section,
                kernel,
                from,
                to,
                bits,
            } => write!(
                f,
                "{section}: size {from:#x} -> {to:#x} for the bindless table: kernel {} uses {} (itself or through its calls)",
                shown(kernel),
                bits_text(*bits)
            ),
            BindlessEvent::BankAttribute { kernel, attribute } => write!(
                f,
                "{attribute} (bank 0) appended to .nv.info.{kernel}: ptxas leaves it to the linker on sm_100+"
            ),
            BindlessEvent::Pruned { section, kernel } => write!(
                f,
                "no bindless ref in section {section}: kernel {} keeps its bank",
                shown(kernel)
            ),
        }
    }
}

/// The kinds set in a bitmask, for a person.
fn bits_text(bits: u8) -> String {
    let v: Vec<&str> = Kind::ALL
        .iter()
        .filter(|k| bits & k.bit() != 0)
        .map(|k| k.name())
        .collect();
    if v.is_empty() { "none".into() } else { v.join("+") }
}

/// Which table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Table {
    Uft,
    Udt,
}

impl Table {
    pub fn section(self) -> &'static str {
        match self {
            Table::Uft => ".nv.uft",
            Table::Udt => ".nv.udt",
        }
    }
    pub fn entry_section(self) -> &'static str {
        match self {
            Table::Uft => ".nv.uft.entry",
            Table::Udt => ".nv.udt.entry",
        }
    }
    pub fn short(self) -> &'static str {
        match self {
            Table::Uft => "uft",
            Table::Udt => "udt",
        }
    }
}

/// A decision of this sub-phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum UftEvent {
    /// The index file was read; it goes to the output as `.nv.uidx`.
    IndexLoaded {
        path: String,
        uft_window: u64,
        uft_records: usize,
        udt_window: u64,
        udt_records: usize,
    },
    /// A `__UFT*`/`__UDT*` placeholder stays in the output (an index file was given).
    PlaceholderKept { name: String },
    /// An entry went into the UUID map (or, its key taken, to the conflict list).
    EntryMapped {
        table: Table,
        index: usize,
        uuid: (u64, u64),
        key: u64,
        stub: String,
        conflict: bool,
    },
    /// An index record placed an entry's slot.
    SlotAssigned {
        table: Table,
        uuid: (u64, u64),
        stub: String,
        from: u64,
        to: u64,
        size: u64,
    },
    /// The table was rebuilt from the placed slots.
    TableRebuilt { table: Table, size: u64, interleaved: bool },
}

impl fmt::Display for UftEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UftEvent::IndexLoaded {
                path,
                uft_window,
                uft_records,
                udt_window,
                udt_records,
            } => write!(
                f,
                "read index {path}: uft window {uft_window:#x} ({uft_records} records), udt window {udt_window:#x} ({udt_records} records)"
            ),
            UftEvent::PlaceholderKept { name } => write!(f, "kept placeholder {name} (index file given)"),
            UftEvent::EntryMapped {
                table,
                index,
                uuid,
                key,
                stub,
                conflict,
            } => write!(
                f,
                "{} entry {index} <{:016x},{:016x}> ({stub}) key {key:#x}{}",
                table.short(),
                uuid.0,
                uuid.1,
                if *conflict {
                    ": key taken, to the conflict list"
                } else {
                    ""
                }
            ),
            UftEvent::SlotAssigned {
                table,
                uuid,
                stub,
                from,
                to,
                size,
            } => write!(
                f,
                "{} slot <{:016x},{:016x}> ({stub}): {size:#x} bytes from {from:#x} to {to:#x}",
                table.short(),
                uuid.0,
                uuid.1
            ),
            UftEvent::TableRebuilt {
                table,
                size,
                interleaved,
            } => write!(
                f,
                "rebuilt {} ({size:#x} bytes{})",
                table.section(),
                if *interleaved { ", Mercury interleaved" } else { "" }
            ),
        }
    }
}
