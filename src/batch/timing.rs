//! `-time FILE`: the phase timings nvlink writes, as CSV.
//!
//! What nvlink 13.5 writes (checked with plain, failing and `-dlto` links):
//! the file is written anew by every link, its header first, also when the
//! link then fails (an input that cannot be opened); a link without LTO
//! writes the header alone; an LTO link adds a row for NVVM and one for
//! ptxas, their times in milliseconds with four decimals:
//!
//! ```text
//! source file name , phase name , phase input files , phase output file , arch , tool, metric , unit
//! lto.nvvm , cicc ,  , lto.ptx , sm_90 , nvlink , 33.1180 , ms
//! lto.ptx , ptxas ,  , lto.cubin , sm_90 , nvlink , 49.2890 , ms
//! ```
//!
//! culdb names itself in the tool column, as in its messages. `-` is
//! standard output.

use crate::link::event::lto::Compiled;

/// The first line.
pub const HEADER: &str =
    "source file name , phase name , phase input files , phase output file , arch , tool, metric , unit\n";

/// The two rows of an LTO step for target `arch` (`sm_90`).
pub fn lto_rows(c: &Compiled, arch: &str) -> String {
    let ms = |us: u64| us as f64 / 1000.0;
    format!(
        "lto.nvvm , cicc ,  , lto.ptx , {arch} , culdb , {:.4} , ms\nlto.ptx , ptxas ,  , lto.cubin , {arch} , culdb , {:.4} , ms\n",
        ms(c.nvvm_us),
        ms(c.ptxas_us)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_as_nvlink_writes_them() {
        let c = Compiled {
            ptx: String::new(),
            cubin: Vec::new(),
            whole_program: true,
            library: Default::default(),
            nvvm_options: Vec::new(),
            nvvm_log: String::new(),
            nvvm_us: 33_118,
            ptxas_args: Vec::new(),
            ptxas_lines: Vec::new(),
            ptxas_us: 49_289,
        };
        assert_eq!(
            lto_rows(&c, "sm_90"),
            "lto.nvvm , cicc ,  , lto.ptx , sm_90 , culdb , 33.1180 , ms\n\
             lto.ptx , ptxas ,  , lto.cubin , sm_90 , culdb , 49.2890 , ms\n"
        );
        assert_eq!(HEADER.trim_end().split(',').count(), 8);
    }
}
