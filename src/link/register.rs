//! `--register-link-binaries FILE`: the C source nvcc compiles into the host
//! link stub (with `crt/link.stub`), naming every module the device link
//! took in, so the host code registers the linked image once per module.
//!
//! What nvlink 13.5 writes (checked by hand on host objects, archive
//! members, libcudadevrt, cubin, fatbin and PTX files, final and `-r`;
//! pinned by tests/register.rs against files nvlink wrote):
//!
//! ```text
//! #define NUM_PRELINKED_OBJECTS 2
//! DEFINE_REGISTER_FUNC(_a73ca412_4_a_cu__Z2kAPi)
//! DEFINE_REGISTER_FUNC(_tmp_e2_d_cubin)
//! ```
//!
//! * One line per linked input, in link order: a host object's (or archive
//!   member's) `__nv_module_id`; for any other input, the folder the link
//!   runs in, `/`, and the name as given (absolute names as they are), each
//!   byte that is not an ASCII letter or digit written `_`
//!   (`./d.cubin` in `/tmp/e2` gives `_tmp_e2___d_cubin`).
//! * Inputs nothing was linked from do not count: a host object without
//!   device code, an unused libcudadevrt member. A host object (or archive
//!   member) whose device code is for other architectures only does count,
//!   where it was read (observation 118).
//! * A link failing with errors (status 255) still writes the file; a fatal
//!   error writes none.
//! * After the LTO step (`super::lto`): the IR modules count, where they
//!   were read, the LTO cubin does not; full LTO lists them in the reverse
//!   of reading order.

use std::path::Path;

use super::state::{LinkState, ReadItem};

/// The file's contents for the inputs `st` linked, relative names taken
/// from `dir` (made absolute against the current folder).
pub fn contents(st: &LinkState, dir: &Path) -> String {
    let base = std::env::current_dir()
        .map(|cwd| if dir == Path::new(".") { cwd } else { cwd.join(dir) })
        .unwrap_or_else(|_| dir.to_path_buf());
    let input_module = |rec: &super::state::InputRecord| match &rec.module_id {
        Some(id) => id.clone(),
        None => path_module(&base, &rec.name),
    };
    let modules: Vec<String> = match &st.lto {
        None => {
            // Objects with code for other architectures only come where
            // they were read (observation 118).
            let mut m = Vec::new();
            let mut unlinked = st.registered_unlinked.iter().peekable();
            for (i, rec) in st.inputs.iter().enumerate() {
                while let Some((_, id)) = unlinked.next_if(|(at, _)| *at <= i) {
                    m.push(id.clone());
                }
                m.push(input_module(rec));
            }
            m.extend(unlinked.map(|(_, id)| id.clone()));
            // The further ids of `ld -r` and `nvcc -r` outputs, after
            // everything, in the reverse of reading order (host_lists_ld_r_sm90).
            m.extend(st.registered_more.iter().rev().cloned());
            m
        }
        Some(lto) => {
            let mut m: Vec<String> = lto
                .read_order
                .iter()
                .filter_map(|item| match item {
                    ReadItem::Module { module_id, name } => {
                        Some(module_id.clone().unwrap_or_else(|| path_module(&base, name)))
                    }
                    ReadItem::Input(i) => st.inputs.get(*i).map(input_module),
                })
                .collect();
            if lto.whole_program {
                m.reverse();
            }
            m
        }
    };
    text(&modules)
}

/// The file's text for `modules`, in order.
pub fn text(modules: &[String]) -> String {
    let mut out = format!("#define NUM_PRELINKED_OBJECTS {}\n", modules.len());
    for module in modules {
        out.push_str(&format!("DEFINE_REGISTER_FUNC({module})\n"));
    }
    out
}

/// The module name nvlink makes of a file input's path.
pub fn path_module(base: &Path, name: &str) -> String {
    let full = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("{}/{name}", base.display())
    };
    full.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { b as char } else { '_' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_modules_as_nvlink_names_them() {
        let base = Path::new("/tmp/e2");
        assert_eq!(path_module(base, "d.cubin"), "_tmp_e2_d_cubin");
        assert_eq!(path_module(base, "./d.cubin"), "_tmp_e2___d_cubin");
        assert_eq!(path_module(base, "sub/x-y.z.cubin"), "_tmp_e2_sub_x_y_z_cubin");
        assert_eq!(path_module(base, "/abs/k.fatbin"), "_abs_k_fatbin");
    }
}
