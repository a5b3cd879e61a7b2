//! `culdb toolkit DIR`: an overlay of an installed CUDA toolkit in which
//! `bin/nvlink` is culdb, so that `DIR/bin/nvcc` (and CMake given
//! `-DCMAKE_CUDA_COMPILER=DIR/bin/nvcc`) uses culdb for every device link.
//!
//! nvcc finds its tools through `bin/nvcc.profile`, relative to the folder
//! nvcc is run from (`_HERE_`, not resolved through symbolic links), and
//! runs the device linker as plain `nvlink` from `PATH`, to which the
//! profile adds `_HERE_` *after* the caller's. The overlay therefore holds:
//! - `bin/`: a symbolic link to each of the toolkit's tools, `nvlink` a link
//!   to the culdb executable (which acts as `culdb link` under that name),
//!   and an `nvcc.profile` that puts the overlay's `bin` *first* on `PATH`;
//! - every other top-level entry of the toolkit (`include`, `lib`, `nvvm`,
//!   …) as a symbolic link.

use std::path::{Path, PathBuf};

/// Builds the overlay in `dir` (created; must be empty or absent) for the
/// toolkit at `cuda` (the folder holding `bin/nvcc`), linking `nvlink` to
/// `culdb`.
pub fn build(dir: &Path, cuda: &Path, culdb: &Path) -> Result<(), String> {
    let real_bin = cuda.join("bin");
    if !real_bin.join("nvcc").is_file() {
        return Err(format!("{} has no bin/nvcc", cuda.display()));
    }
    if dir.exists() && std::fs::read_dir(dir).map_err(|e| e.to_string())?.next().is_some() {
        return Err(format!("{} exists and is not empty", dir.display()));
    }
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("cannot create {}: {e}", bin.display()))?;
    for entry in read_dir(&real_bin)? {
        let name = entry.file_name();
        let target = match name.to_str() {
            Some("nvlink") => culdb.to_path_buf(),
            Some("nvcc.profile") => continue,
            _ => entry.path(),
        };
        symlink(&target, &bin.join(&name))?;
    }
    if !bin.join("nvlink").exists() {
        symlink(culdb, &bin.join("nvlink"))?;
    }
    let profile = std::fs::read_to_string(real_bin.join("nvcc.profile"))
        .map_err(|e| format!("cannot read {}: {e}", real_bin.join("nvcc.profile").display()))?;
    std::fs::write(bin.join("nvcc.profile"), overlay_profile(&profile))
        .map_err(|e| format!("cannot write nvcc.profile: {e}"))?;
    for entry in read_dir(cuda)? {
        if entry.file_name() != "bin" {
            symlink(&entry.path(), &dir.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// The toolkit's `nvcc.profile` with the overlay's `bin` first on `PATH`.
fn overlay_profile(profile: &str) -> String {
    let mut out = String::from("# culdb toolkit overlay: this folder first on PATH, so nvlink is culdb.\n");
    for line in profile.lines() {
        out.push_str(line);
        out.push('\n');
        if line.trim_start().starts_with("PATH") {
            out.push_str("PATH            =+ $(_HERE_):\n");
        }
    }
    out
}

/// The toolkit to overlay when none is named: the one holding the `nvcc`
/// on `PATH`, else the one `scripts/cuda-tools.sh` installs, else
/// `/usr/local/cuda`.
pub fn default_cuda() -> Option<PathBuf> {
    let from_nvcc = crate::link::find_tool("nvcc")
        .and_then(|p| std::fs::canonicalize(p).ok())
        .and_then(|p| p.parent()?.parent().map(Path::to_path_buf));
    from_nvcc.or_else(|| {
        let usr = PathBuf::from("/usr/local/cuda");
        usr.join("bin/nvcc").is_file().then_some(usr)
    })
}

fn read_dir(dir: &Path) -> Result<Vec<std::fs::DirEntry>, String> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .collect();
    v.sort_by_key(|e| e.file_name());
    Ok(v)
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> Result<(), String> {
    std::os::unix::fs::symlink(target, link).map_err(|e| format!("cannot link {}: {e}", link.display()))
}

#[cfg(not(unix))]
fn symlink(_target: &Path, link: &Path) -> Result<(), String> {
    Err(format!(
        "cannot link {}: symbolic links need a Unix system",
        link.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_puts_the_overlay_first() {
        let p = "TOP = $(_HERE_)/..\nPATH            += $(CICC_PATH):$(_HERE_):\nINCLUDES += x\n";
        let o = overlay_profile(p);
        assert!(o.contains("PATH            += $(CICC_PATH):$(_HERE_):\nPATH            =+ $(_HERE_):\n"));
        assert!(o.contains("INCLUDES += x"));
    }
}
