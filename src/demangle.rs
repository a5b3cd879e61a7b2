//! Itanium C++ demangling for display beside mangled names.

/// The demangled form of `name`, or None when it is not a mangled C++ name.
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let sym = cpp_demangle::Symbol::new(name).ok()?;
    sym.demangle(&cpp_demangle::DemangleOptions::default()).ok()
}
