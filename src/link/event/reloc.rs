//! The events of relocation (`link::reloc`), with the field changes and
//! Mercury twins they report.

use std::fmt;

use serde::Serialize;

use super::shown;

/// The Mercury relocation of the same instruction as a classic one of
/// sm_100+ code, whose type and addend make the value nvlink writes
/// ([`crate::link::reloc::descriptors::Table::Mercury`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MercTwin {
    pub rtype: u32,
    pub addend: i64,
    /// What it makes of S + its addend.
    pub value: u64,
}

/// One field written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    pub bit: u16,
    pub width: u8,
    pub before: u64,
    pub after: u64,
}

/// A relocation decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RelocEvent {
    /// The relocation was applied to the output bytes and dropped.
    Applied {
        index: usize,
        section: String,
        offset: u64,
        rtype: String,
        symbol: String,
        s: u64,
        a: i64,
        /// Each field written, with its bits before and after.
        fields: Vec<FieldChange>,
        /// On sm_100+ code, the Mercury twin that gave the value written.
        #[serde(skip_serializing_if = "Option::is_none")]
        mercury: Option<MercTwin>,
    },
    /// The relocation stays in the output for the driver.
    Kept {
        index: usize,
        section: String,
        offset: u64,
        rtype: String,
        symbol: String,
        /// The type written, when nvlink rewrites it (R_CUDA_UNIFIED → R_CUDA_64).
        rewritten_to: Option<String>,
        /// The addend written, when it changed (section symbols).
        addend: Option<i64>,
        reason: String,
    },
    /// The relocation leaves the output; its fields may have been cleared.
    Dropped {
        index: usize,
        section: String,
        offset: u64,
        rtype: String,
        symbol: String,
        fields: Vec<FieldChange>,
        reason: String,
    },
}

impl fmt::Display for RelocEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelocEvent::Applied {
                section,
                offset,
                rtype,
                symbol,
                s,
                a,
                fields,
                mercury,
                ..
            } => {
                write!(
                    f,
                    "applied {rtype} at {section}+{offset:#x} against {}: S={s:#x} A={a:#x}",
                    shown(symbol)
                )?;
                if let Some(m) = mercury {
                    write!(
                        f,
                        "; its Mercury twin {:#x} (A={:#x}) gives {:#x}",
                        m.rtype, m.addend, m.value
                    )?;
                }
                for c in fields {
                    write!(
                        f,
                        "; bits [{}, {}) {:#x} -> {:#x}",
                        c.bit,
                        u32::from(c.bit) + u32::from(c.width),
                        c.before,
                        c.after
                    )?;
                }
                Ok(())
            }
            RelocEvent::Kept {
                section,
                offset,
                rtype,
                symbol,
                rewritten_to,
                addend,
                reason,
                ..
            } => {
                write!(f, "kept {rtype} at {section}+{offset:#x} against {}", shown(symbol))?;
                if let Some(t) = rewritten_to {
                    write!(f, " as {t}")?;
                }
                if let Some(a) = addend {
                    write!(f, " with addend {a:#x}")?;
                }
                write!(f, " for the driver: {reason}")
            }
            RelocEvent::Dropped {
                section,
                offset,
                rtype,
                symbol,
                fields,
                reason,
                ..
            } => {
                write!(
                    f,
                    "dropped {rtype} at {section}+{offset:#x} against {}: {reason}",
                    shown(symbol)
                )?;
                if !fields.is_empty() {
                    write!(f, " (cleared)")?;
                }
                Ok(())
            }
        }
    }
}
