//! How the reports name sections: their kind, the CUDA memory space they
//! hold and the function a per-function section belongs to.

use crate::cubin::consts::*;

/// The function a per-function section belongs to, by its name:
/// `.text.<f>`, `.nv.info.<f>`, `.rel[a].text.<f>`, `.nv.shared.<f>`,
/// `.nv.local.<f>`, `.nv.constantN.<f>`.
pub fn owner_of(name: &str) -> Option<&str> {
    for p in [
        ".text.",
        ".nv.info.",
        ".rela.text.",
        ".rel.text.",
        ".nv.shared.reserved.",
        ".nv.shared.",
        ".nv.local.",
        ".nv.merc.rela.text.",
        ".nv.merc.nv.info.",
    ] {
        if let Some(f) = name.strip_prefix(p) {
            return (!f.is_empty()).then_some(f);
        }
    }
    let rest = name.strip_prefix(".nv.constant")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| rest[digits..].strip_prefix('.')).flatten()
}

/// The constant bank number of `.nv.constantN[.<f>]`.
fn bank(name: &str) -> Option<&str> {
    let rest = name.strip_prefix(".nv.constant")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| &rest[..digits])
}

/// The kind of a section, for the size report.
pub fn kind(name: &str, sh_type: u32) -> String {
    let k = if name.starts_with(".text.") || name == ".text" {
        "code"
    } else if name.starts_with(".nv.global.init") {
        "global (initialized)"
    } else if name.starts_with(".nv.global") {
        "global"
    } else if name.starts_with(".nv.shared.reserved") {
        "shared (reserved)"
    } else if name.starts_with(".nv.shared") {
        "shared"
    } else if name.starts_with(".nv.local") {
        "local"
    } else if let Some(b) = bank(name) {
        return format!("constant bank {b}");
    } else if name.starts_with(".debug") || name.starts_with(".nv_debug") {
        "debug information"
    } else if name.starts_with(".nv.info") || name.starts_with(".nv.merc.nv.info") {
        "nv.info"
    } else if matches!(
        sh_type,
        SHT_REL | SHT_RELA | SHT_CUDA_RESOLVED_RELA | SHT_CUDA_MERC_RELA
    ) || name == ".nv.rel.action"
    {
        "relocations"
    } else if matches!(sh_type, SHT_SYMTAB | SHT_CUDA_MERC_SYMTAB) {
        "symbol table"
    } else if sh_type == SHT_STRTAB {
        "string tables"
    } else if name.starts_with(".nv.callgraph") || name.starts_with(".nv.merc.nv.callgraph") {
        "call graph"
    } else if name.starts_with(".nv.prototype") {
        "prototypes"
    } else if sh_type == SHT_NOTE || name.starts_with(".note") {
        "notes"
    } else if name.starts_with(".nv.compat") {
        "compat"
    } else if name.starts_with(".nv.uft") || name.starts_with(".nv.udt") {
        "unified tables"
    } else if name.starts_with(".nv.merc") {
        "mercury"
    } else {
        "other"
    };
    k.to_string()
}

/// The CUDA memory space a section holds, labelled: `global`, `shared
/// (kernel k)`, `constant bank 0 (kernel k)`, `local (f)`, `code (f)`;
/// empty for metadata.
pub fn space(name: &str) -> String {
    let who = |f: &str| crate::demangle::demangle(f).unwrap_or_else(|| f.to_string());
    if let Some(f) = name.strip_prefix(".text.") {
        return format!("code ({})", who(f));
    }
    if name.starts_with(".nv.global.init") {
        return "global (initialized)".into();
    }
    if name.starts_with(".nv.global") {
        return "global".into();
    }
    if let Some(f) = name.strip_prefix(".nv.shared.reserved.") {
        return format!("shared, reserved ({})", who(f));
    }
    if let Some(f) = name.strip_prefix(".nv.shared.") {
        return format!("shared (kernel {})", who(f));
    }
    if name == ".nv.shared" {
        return "shared".into();
    }
    if let Some(f) = name.strip_prefix(".nv.local.") {
        return format!("local ({})", who(f));
    }
    if let Some(b) = bank(name) {
        return match owner_of(name) {
            Some(f) => format!("constant bank {b} ({})", who(f)),
            None => format!("constant bank {b}"),
        };
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(owner_of(".nv.constant0._Z1kPi"), Some("_Z1kPi"));
        assert_eq!(owner_of(".nv.constant3"), None);
        assert_eq!(owner_of(".rela.text.f"), Some("f"));
        assert_eq!(kind(".nv.constant2.f", 1), "constant bank 2");
        assert_eq!(space(".nv.shared.k"), "shared (kernel k)");
        assert_eq!(space(".nv.constant0._Z1kPi"), "constant bank 0 (k(int*))");
        assert_eq!(space(".symtab"), "");
    }
}
