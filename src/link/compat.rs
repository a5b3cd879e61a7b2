//! The output's `.nv.compat`: how nvlink 13.5 merges its inputs'
//! EICOMPAT attributes (corpus compat_merge_sm90; tests/corpus/README.md,
//! observation 85).
//!
//! Measured by linking pairs of sm_90 (and sm_100, sm_110, sm_120) cubins
//! whose `.nv.compat` was rewritten, in both orders. The inputs' order never
//! changes a value: each attribute has its own rule ([`POLICIES`]) and a
//! value that stands for "absent" in an input that has a `.nv.compat` but not
//! the attribute (an input without the section takes no part). An attribute
//! whose merged value is its rule's "omitted" value is not written, so one
//! that only some inputs have usually disappears (FINALIZER_VERSION,
//! INST_TCGEN05_MMA, ENABLE_OPPORTUNISTIC_FINALIZATION in a link of
//! ptxas 13.5 objects with NVSHMEM's 13.0 archive), while CUDA_INTERNAL_TARGET
//! (absent: 2) becomes 2. Codes without a rule (0x01, 0x04, 0x0a, 0x10 and
//! up) are dropped.
//!
//! Order: CUDA_ACCELERATOR_TARGET first (the target's `a`, whatever the
//! inputs say), then the first input's attributes in its order, then the
//! others in [`POLICIES`] order (which places CAN_FASTPATH_FINALIZE after
//! 0x0d); FINALIZER_VERSION is moved last (observation 180). Formats are
//! the rule's, not the input's (a BVAL 0x07 comes out HVAL).
//!
//! Into a Mercury target (sm_100+) nvlink finalizes the code itself:
//! FINALIZER_VERSION is its own 1.1.0, MIN_FINALIZER_VERSION_FOR_MVC goes,
//! and CAN_FASTPATH_FINALIZE is the target's mask whatever the inputs hold
//! (emit then applies its foreign-SM and accelerated rewrites).

use serde::Serialize;

use crate::arch::Profile;
use crate::cubin::compat::{Compat, CompatEntry, code};
use crate::cubin::nvinfo::{self, Value};

/// The record format an attribute is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    Byte,
    Half,
}

/// How one scalar attribute merges.
struct Policy {
    attr: u8,
    width: Width,
    /// The value of an input that has `.nv.compat` but not this attribute.
    absent: u32,
    merge: fn(u32, u32) -> u32,
    /// The merged value that is not written (None: always written).
    omitted: Option<u32>,
}

/// The scalar attributes nvlink keeps, in the order it appends those the
/// first input lacks. Values per pair (a, b), both orders alike:
/// ISA_CLASS 0 with anything → 0, else the higher (absent: 0, with a
/// warning); INST_TENSORMAP_V1 bitwise or (absent 3: 0 → 3, 4 → 7);
/// INST_TCGEN05_MMA see [`tcgen05`]; ENABLE_OPPORTUNISTIC_FINALIZATION kept
/// only when all agree on a value other than 1 (1, 1 → gone); 0x07 and 0x0d
/// the higher (absent 0x100; 0x07 at 0x100 is not written, 0x0d always is);
/// 0x08 the higher (absent 0, not written at 0); CUDA_INTERNAL_TARGET the
/// higher (absent 2); FINALIZER_VERSION and MIN_FINALIZER_VERSION_FOR_MVC
/// the higher, where absent is 0xffff (unknown) and unknown is not written.
const POLICIES: &[Policy] = &[
    Policy {
        attr: code::ISA_CLASS,
        width: Width::Byte,
        absent: 0,
        merge: isa_class,
        omitted: None,
    },
    Policy {
        attr: code::INST_TENSORMAP_V1,
        width: Width::Byte,
        absent: 3,
        merge: |a, b| a | b,
        omitted: None,
    },
    Policy {
        attr: code::INST_TCGEN05_MMA,
        width: Width::Byte,
        absent: 0,
        merge: tcgen05,
        omitted: Some(0),
    },
    Policy {
        attr: code::ENABLE_OPPORTUNISTIC_FINALIZATION,
        width: Width::Byte,
        absent: 1,
        merge: |a, b| if a == b { a } else { 1 },
        omitted: Some(1),
    },
    Policy {
        attr: code::UNNAMED_07,
        width: Width::Half,
        absent: 0x100,
        merge: u32::max,
        omitted: Some(0x100),
    },
    Policy {
        attr: code::UNNAMED_08,
        width: Width::Half,
        absent: 0,
        merge: u32::max,
        omitted: Some(0),
    },
    Policy {
        attr: code::CUDA_INTERNAL_TARGET,
        width: Width::Byte,
        absent: 2,
        merge: u32::max,
        omitted: None,
    },
    Policy {
        attr: code::UNNAMED_0D,
        width: Width::Half,
        absent: 0x100,
        merge: u32::max,
        omitted: None,
    },
    Policy {
        attr: code::FINALIZER_VERSION,
        width: Width::Half,
        absent: UNKNOWN_VERSION,
        merge: u32::max,
        omitted: Some(UNKNOWN_VERSION),
    },
    Policy {
        attr: code::MIN_FINALIZER_VERSION_FOR_MVC,
        width: Width::Half,
        absent: UNKNOWN_VERSION,
        merge: u32::max,
        omitted: Some(UNKNOWN_VERSION),
    },
];

/// FINALIZER_VERSION's "UNKNOWN".
const UNKNOWN_VERSION: u32 = 0xffff;

/// FINALIZER_VERSION of a Mercury link's output: nvlink's own, 1.1.0
/// (sm_100/sm_110/sm_120 pairs holding 0x1, 0x441 or none all give it).
const MERCURY_FINALIZER_VERSION: u32 = 0x440;

/// ISA_CLASS: a class-0 input (no class) makes the output class 0; otherwise
/// the highest class wins (an sm_90/sm_100 kernel of class 1 with a texture
/// helper of class 2: 2; tests/corpus/README.md, 64).
fn isa_class(a: u32, b: u32) -> u32 {
    if a == 0 || b == 0 { 0 } else { a.max(b) }
}

/// INST_TCGEN05_MMA: bit 2 survives only when both have it; the low two bits
/// are 0 when either input's are, else the higher (1,2 → 2; 3,5 → 3;
/// 4,5 → 4; 4,1 → 0, not written; the full 0..7 table was measured).
fn tcgen05(a: u32, b: u32) -> u32 {
    let (la, lb) = (a & 3, b & 3);
    let level = if la == 0 || lb == 0 { 0 } else { la.max(lb) };
    (a & b & 4) | level
}

/// CAN_FASTPATH_FINALIZE of a Mercury link: a mask of the SMs ptxas 13.5
/// writes for sm_100 (0x09: sm_100 and sm_103) and sm_120 (0x50), 0 for the
/// others (sm_103, sm_107, sm_110, sm_121); nvlink writes it whatever its
/// inputs hold.
fn mercury_fastpath(sm: u32) -> u32 {
    match sm {
        100 => 0x09,
        120 => 0x50,
        _ => 0,
    }
}

/// The `.nv.compat` merge so far.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CompatMerge {
    /// Inputs with a `.nv.compat` merged so far.
    pub inputs: usize,
    /// The codes of the first such input, in its order.
    first_order: Vec<u8>,
    /// Merged value of each [`POLICIES`] attribute, same index.
    values: Vec<u32>,
    /// CAN_FASTPATH_FINALIZE payload: the bitwise and of the inputs' (an
    /// input without it leaves it), in the first holder's size; None while
    /// no input had it (then it is not written).
    fastpath: Option<Vec<u8>>,
    /// The target's SM, for the missing-ISA_CLASS warning.
    pub target_sm: u32,
    /// -Werror: that warning is an error and fails the merge.
    pub werror: bool,
    /// A link nothing was linked into, for an sm_90+ target: the output
    /// states only the accelerator target (corpus empty_link_sm90), and for
    /// a Mercury one nvlink's own CAN_FASTPATH_FINALIZE and
    /// FINALIZER_VERSION after it (empty_link_sm100, empty_link_sm120).
    pub target_only: bool,
}

impl CompatMerge {
    /// An empty merge for a link whose target is `target_sm`.
    pub fn new(target_sm: u32, werror: bool) -> Self {
        CompatMerge {
            target_sm,
            werror,
            ..CompatMerge::default()
        }
    }

    /// No input had a `.nv.compat`: the output gets none.
    pub fn is_empty(&self) -> bool {
        self.inputs == 0 && !self.target_only
    }

    /// Folds in one input's `.nv.compat`.
    pub fn add_input(&mut self, c: &Compat) {
        let values = POLICIES.iter().map(|p| input_value(c, p));
        if self.inputs == 0 {
            self.first_order = c.entries.iter().map(|e| e.attr).collect();
            self.values = values.collect();
        } else {
            for ((v, p), new) in self.values.iter_mut().zip(POLICIES).zip(values) {
                *v = (p.merge)(*v, new);
            }
        }
        if let Some(bytes) = c.get(code::CAN_FASTPATH_FINALIZE).and_then(payload) {
            self.fastpath = Some(match self.fastpath.take() {
                None => bytes,
                Some(mut old) => {
                    old.iter_mut().zip(&bytes).for_each(|(o, b)| *o &= b);
                    old
                }
            });
        }
        self.inputs += 1;
    }

    /// The output's attributes in nvlink's order, for a link into `target`.
    /// The inputs' CAN_FASTPATH_FINALIZE merged (bitwise and), when one
    /// had it.
    pub fn inputs_fastpath(&self) -> Option<&[u8]> {
        self.fastpath.as_deref()
    }

    pub fn entries(&self, target: Option<&Profile>) -> Vec<CompatEntry> {
        let mut order = vec![code::CUDA_ACCELERATOR_TARGET];
        if self.inputs == 0 {
            // Nothing was linked in: the accelerator target, and into a
            // Mercury target the two records nvlink writes as the finalizer
            // whatever its inputs hold (empty_link_sm100, empty_link_sm120).
            if target.is_some_and(Profile::is_mercury) {
                order.extend([code::CAN_FASTPATH_FINALIZE, code::FINALIZER_VERSION]);
            }
            return order.into_iter().filter_map(|a| self.entry(a, target)).collect();
        }
        let rest = POLICIES.iter().map(|p| p.attr);
        // CAN_FASTPATH_FINALIZE is appended after 0x0d, before FINALIZER_VERSION.
        let rest = rest.flat_map(|a| {
            if a == code::FINALIZER_VERSION {
                vec![code::CAN_FASTPATH_FINALIZE, a]
            } else {
                vec![a]
            }
        });
        for a in self.first_order.iter().copied().chain(rest) {
            if !order.contains(&a) {
                order.push(a);
            }
        }
        // FINALIZER_VERSION comes after every other attribute (but
        // MIN_FINALIZER_VERSION_FOR_MVC), also where the first input has
        // it before one only a later input has (an sm_100f object's 0x07
        // in an sm_103 link, `-r` too: compat_family_order_sm103).
        if let Some(i) = order.iter().position(|&a| a == code::FINALIZER_VERSION) {
            let a = order.remove(i);
            let at = order
                .iter()
                .position(|&x| x == code::MIN_FINALIZER_VERSION_FOR_MVC)
                .unwrap_or(order.len());
            order.insert(at, a);
        }
        order.into_iter().filter_map(|a| self.entry(a, target)).collect()
    }

    /// The output's record for `attr`, if it writes one.
    fn entry(&self, attr: u8, target: Option<&Profile>) -> Option<CompatEntry> {
        let mercury = target.is_some_and(Profile::is_mercury);
        let value = match attr {
            code::CUDA_ACCELERATOR_TARGET => byte(u32::from(target.is_some_and(Profile::is_accelerated))),
            code::CAN_FASTPATH_FINALIZE if mercury => {
                let mask = mercury_fastpath(target.map_or(0, |t| t.sm));
                Value::Block(nvinfo::plain_block(&[mask.to_le_bytes(), [0; 4]].concat()))
            }
            code::CAN_FASTPATH_FINALIZE => Value::Block(nvinfo::plain_block(self.fastpath.as_ref()?)),
            code::FINALIZER_VERSION if mercury => half(MERCURY_FINALIZER_VERSION),
            code::MIN_FINALIZER_VERSION_FOR_MVC if mercury => return None,
            _ => {
                let i = POLICIES.iter().position(|p| p.attr == attr)?;
                let (p, v) = (&POLICIES[i], self.values[i]);
                if p.omitted == Some(v) {
                    return None;
                }
                match p.width {
                    Width::Byte => byte(v),
                    Width::Half => half(v),
                }
            }
        };
        Some(CompatEntry { attr, value })
    }
}

/// An input's value of a scalar attribute, or the rule's "absent" value.
/// A BVAL attribute read from a wider record keeps its low byte (0x0c given
/// as HVAL 0x102 merges as 2).
fn input_value(c: &Compat, p: &Policy) -> u32 {
    match (c.scalar(p.attr), p.width) {
        (Some(v), Width::Byte) => v & 0xff,
        (Some(v), Width::Half) => v,
        (None, _) => p.absent,
    }
}

/// The payload of an SVAL record.
fn payload(e: &CompatEntry) -> Option<Vec<u8>> {
    match &e.value {
        Value::Block(b) => Some(b.to_bytes()),
        _ => None,
    }
}

fn byte(v: u32) -> Value {
    Value::Byte { value: v as u8, pad: 0 }
}

fn half(v: u32) -> Value {
    Value::Half { value: v as u16 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compat(spec: &[(u8, Value)]) -> Compat {
        Compat {
            entries: spec
                .iter()
                .map(|(attr, value)| CompatEntry {
                    attr: *attr,
                    value: value.clone(),
                })
                .collect(),
            trailing: Vec::new(),
        }
    }

    fn codes(m: &CompatMerge) -> Vec<(u8, Option<u32>)> {
        m.entries(None).iter().map(|e| (e.attr, e.scalar())).collect()
    }

    #[test]
    fn nothing_linked_states_nvlinks_own_attributes() {
        // empty_link_sm90 / empty_link_sm100 / empty_link_sm120, and sm_121a
        // checked by hand: the accelerator target, then on Mercury the
        // target's fast-path mask and nvlink's finalizer version.
        let empty = |arch: &str| {
            let t = crate::arch::profiles::lookup(arch);
            let m = CompatMerge {
                target_only: true,
                ..CompatMerge::new(t.map_or(0, |t| t.sm), false)
            };
            Compat {
                entries: m.entries(t),
                trailing: Vec::new(),
            }
            .encode()
        };
        assert_eq!(empty("sm_90"), [2, 9, 0, 0]);
        let mercury = |target: u8, mask: u8| {
            let mut v = vec![2, 9, target, 0, 4, 0x0b, 8, 0, mask, 0, 0, 0, 0, 0, 0, 0];
            v.extend_from_slice(&[3, 0x0e, 0x40, 0x04]);
            v
        };
        assert_eq!(empty("sm_100"), mercury(0, 9));
        assert_eq!(empty("sm_120"), mercury(0, 0x50));
        assert_eq!(empty("sm_110"), mercury(0, 0));
        assert_eq!(empty("sm_121a"), mercury(1, 0));
    }

    #[test]
    fn tcgen05_matches_the_measured_table() {
        // Rows a = 0..7, columns b = 0..7; 0 = not written.
        let table = [
            [0, 0, 0, 0, 0, 0, 0, 0],
            [0, 1, 2, 3, 0, 1, 2, 3],
            [0, 2, 2, 3, 0, 2, 2, 3],
            [0, 3, 3, 3, 0, 3, 3, 3],
            [0, 0, 0, 0, 4, 4, 4, 4],
            [0, 1, 2, 3, 4, 5, 6, 7],
            [0, 2, 2, 3, 4, 6, 6, 7],
            [0, 3, 3, 3, 4, 7, 7, 7],
        ];
        for (a, row) in table.iter().enumerate() {
            for (b, &want) in row.iter().enumerate() {
                assert_eq!(tcgen05(a as u32, b as u32), want, "{a}, {b}");
            }
        }
    }

    #[test]
    fn ptxas_13_5_with_nvshmem_13_0_objects() {
        // shm90.o (ptxas 13.5) then a libnvshmem_device.a member (ptxas 13.0).
        let ours = compat(&[
            (0x09, byte(0)),
            (0x0c, byte(0)),
            (0x02, byte(2)),
            (0x0d, half(0x101)),
            (0x03, byte(0)),
            (0x0b, Value::Block(nvinfo::plain_block(&[0; 8]))),
            (0x0e, half(0x440)),
        ]);
        let theirs = compat(&[
            (0x09, byte(0)),
            (0x02, byte(1)),
            (0x05, byte(5)),
            (0x07, half(0x101)),
            (0x03, byte(0)),
            (0x06, byte(1)),
            (0x0b, Value::Block(nvinfo::plain_block(&[0; 8]))),
        ]);
        let mut m = CompatMerge::default();
        m.add_input(&ours);
        m.add_input(&theirs);
        assert_eq!(
            codes(&m),
            vec![
                (0x09, Some(0)),
                (0x0c, Some(2)),
                (0x02, Some(2)),
                (0x0d, Some(0x101)),
                (0x03, Some(0)),
                (0x0b, None),
                (0x07, Some(0x101)),
            ]
        );
    }

    #[test]
    fn an_empty_first_input_gets_the_defaults_in_rule_order() {
        let mut m = CompatMerge::default();
        m.add_input(&compat(&[]));
        m.add_input(&compat(&[
            (0x0d, half(0x101)),
            (0x0c, byte(0)),
            (0x08, half(1)),
            (0x07, half(0x200)),
        ]));
        let got: Vec<u8> = codes(&m).iter().map(|c| c.0).collect();
        assert_eq!(got, vec![0x09, 0x02, 0x03, 0x07, 0x08, 0x0c, 0x0d]);
    }
}
