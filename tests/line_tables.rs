//! sm_100+ `-g` line tables when a weak copy loses: nvlink leaves the lost
//! copy's sequences out of `.debug_line` and `.nv_debug_line_sass`, and
//! moves the `DW_AT_stmt_list` of the units after it (corpus
//! debug_weak_lost_lines_sm120; the real-world sample mergeSort built with
//! `-G` for sm_120). The case is not in tests/data/conformance.txt yet: two
//! other differences of the lost copy remain (nvlink keeps its
//! `.nv.merc.rela.debug_info` records and writes zeros for its
//! `.nv_debug_info_reg_sass` range). This test pins the line tables: only
//! those two sections may differ, in a final link and under `-r`.

mod common;

use culdb::conform;

#[test]
fn lost_weak_copy_leaves_the_line_tables() {
    let case = common::root().join("tests/corpus/debug_weak_lost_lines_sm120");
    for mode in [conform::Mode::Final, conform::Mode::Relocatable] {
        let r = conform::check_case(&case, mode);
        assert!(r.skipped.is_none(), "{:?}", r.skipped);
        assert_eq!(r.status, r.expected_status, "{mode:?}: {:?}", r.differences);
        let other: Vec<&String> = r
            .differences
            .iter()
            .filter(|d| {
                !d.starts_with("section .nv.merc.rela.debug_info:")
                    && !d.starts_with("section .nv_debug_info_reg_sass:")
            })
            .collect();
        assert!(other.is_empty(), "{mode:?}: unexpected differences {other:?}");
        assert!(
            !r.differences.is_empty(),
            "{mode:?}: the case now conforms: list it in tests/data/conformance*.txt and drop this test's exception"
        );
    }
}
