//! nvlink's policy for two definitions of one name where one is weak.
//!
//! Seed 001 says: global beats weak; between weak functions fewer registers
//! win, and on a tie the one "from newer PTX" wins. nvlink 13.5 does the
//! first two, but the tie goes to the higher *virtual SM* (the PTX `.target`,
//! recorded in `.note.nv.cuinfo`), and when that is equal too the first
//! definition stays; the PTX `.version` plays no part (docs/seed-errata.md;
//! corpus cases `weak_func_*`). Weak data keeps the first definition.

use crate::cubin::consts::{STB_GLOBAL, STB_WEAK};

use super::event::{WeakCandidate, WeakRule};

/// Decides between the `existing` definition and the `incoming` one; returns
/// the rule applied and whether the incoming definition wins.
pub fn decide(existing: &WeakCandidate, incoming: &WeakCandidate, is_function: bool) -> (WeakRule, bool) {
    if incoming.binding == STB_GLOBAL && existing.binding == STB_WEAK {
        return (WeakRule::GlobalOverWeak, true);
    }
    if existing.binding == STB_GLOBAL {
        return (WeakRule::GlobalKept, false);
    }
    if !is_function {
        return (WeakRule::FirstDataDefinition, false);
    }
    match (incoming.regcount, existing.regcount) {
        (Some(new), Some(old)) if new != old => return (WeakRule::FewerRegisters, new < old),
        _ => {}
    }
    match (incoming.virtual_sm, existing.virtual_sm) {
        (Some(new), Some(old)) if new != old => (WeakRule::HigherVirtualSm, new > old),
        _ => (WeakRule::FirstDefinition, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(input: usize, binding: u8, regs: u32, vsm: u32) -> WeakCandidate {
        WeakCandidate {
            input,
            input_name: format!("{input}.cubin"),
            binding,
            regcount: Some(regs),
            virtual_sm: Some(vsm),
            size: 0x100,
        }
    }

    // Each case is a corpus case whose winner was read from the output SASS.
    #[test]
    fn follows_nvlink() {
        // weak_func_regs_unequal_fewer_second_sm90: A 75 regs, B 24 regs → B.
        assert_eq!(
            decide(&cand(0, 2, 75, 75), &cand(1, 2, 24, 75), true),
            (WeakRule::FewerRegisters, true)
        );
        // weak_func_regs_unequal_fewer_first_sm90: A 24, B 75 → A.
        assert_eq!(
            decide(&cand(0, 2, 24, 75), &cand(1, 2, 75, 75), true),
            (WeakRule::FewerRegisters, false)
        );
        // weak_func_fewer_regs_beats_vsm_sm90: A 75/sm_90, B 24/sm_75 → B.
        assert_eq!(
            decide(&cand(0, 2, 75, 90), &cand(1, 2, 24, 75), true),
            (WeakRule::FewerRegisters, true)
        );
        // weak_func_vsm_low_first_sm90: sm_75 then sm_90 → sm_90 (incoming).
        assert_eq!(
            decide(&cand(0, 2, 24, 75), &cand(1, 2, 24, 90), true),
            (WeakRule::HigherVirtualSm, true)
        );
        // weak_func_vsm_high_first_sm90 → first.
        assert_eq!(
            decide(&cand(0, 2, 24, 90), &cand(1, 2, 24, 75), true),
            (WeakRule::HigherVirtualSm, false)
        );
        // weak_func_regs_equal_sm90 → first.
        assert_eq!(
            decide(&cand(0, 2, 24, 75), &cand(1, 2, 24, 75), true),
            (WeakRule::FirstDefinition, false)
        );
        // weak_vs_global_func_fewer_regs_weak_sm90: weak 24 first, global 75 second → global.
        assert_eq!(
            decide(&cand(0, 2, 24, 75), &cand(1, 1, 75, 75), true),
            (WeakRule::GlobalOverWeak, true)
        );
        // global_vs_weak_func_sm90 → global stays.
        assert_eq!(
            decide(&cand(0, 1, 24, 75), &cand(1, 2, 24, 75), true),
            (WeakRule::GlobalKept, false)
        );
        // weak_data_same_size_sm90 → first.
        assert_eq!(
            decide(&cand(0, 2, 0, 75), &cand(1, 2, 0, 90), false),
            (WeakRule::FirstDataDefinition, false)
        );
    }
}
