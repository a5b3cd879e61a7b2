//! How a person names things at the prompt: symbols by their mangled or
//! demangled name (with or without the parameter list), inputs by their
//! file or member name, and `*`/`?` globs for all of them.

/// True when `pattern` (with `*` and `?` wildcards) matches all of `text`.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    // Iterative matcher with one backtrack point: linear in practice, no recursion.
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

fn matches_text(pattern: &str, text: &str) -> bool {
    if pattern.contains('*') || pattern.contains('?') {
        glob(pattern, text)
    } else {
        pattern == text
    }
}

/// The demangled name without its parameter list: `ns::f(int)` → `ns::f`.
fn bare(demangled: &str) -> &str {
    // The parameter list is the last top-level parenthesis group; templates
    // may hold parentheses too, so count nesting from the end.
    let bytes = demangled.as_bytes();
    if !demangled.ends_with(')') && !demangled.ends_with(") const") {
        return demangled;
    }
    let end = demangled.rfind(')').unwrap_or(0);
    let mut depth = 0i32;
    let mut i = end as isize;
    while i >= 0 {
        match bytes[i as usize] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    return &demangled[..i as usize];
                }
            }
            _ => {}
        }
        i -= 1;
    }
    demangled
}

/// True when a person's `pattern` names the symbol `name`: the mangled
/// name, the demangled name, or the demangled name without parameters.
pub fn symbol_matches(pattern: &str, name: &str) -> bool {
    if matches_text(pattern, name) {
        return true;
    }
    match crate::demangle::demangle(name) {
        Some(d) => matches_text(pattern, &d) || matches_text(pattern, bare(&d)),
        None => false,
    }
}

/// True when `pattern` names the input `name`: the whole name, its last
/// path component, or the member part of `lib.a:member.o`.
pub fn input_matches(pattern: &str, name: &str) -> bool {
    if matches_text(pattern, name) {
        return true;
    }
    let base = name.rsplit('/').next().unwrap_or(name);
    let member = base.rsplit(':').next().unwrap_or(base);
    matches_text(pattern, base) || matches_text(pattern, member)
}

/// A symbol name with its demangled form beside it.
pub fn shown(name: &str) -> String {
    crate::link::event::shown(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("f*", "foo"));
        assert!(glob("*o", "foo"));
        assert!(glob("f?o", "foo"));
        assert!(!glob("f?", "foo"));
        assert!(glob("*", ""));
        assert!(!glob("a*b", "acd"));
    }

    #[test]
    fn demangled_names_match() {
        assert!(symbol_matches("_Z8add_biasf", "_Z8add_biasf"));
        assert!(symbol_matches("add_bias(float)", "_Z8add_biasf"));
        assert!(symbol_matches("add_bias", "_Z8add_biasf"));
        assert!(!symbol_matches("add", "_Z8add_biasf"));
        assert!(symbol_matches("add*", "_Z8add_biasf"));
    }

    #[test]
    fn inputs_match_by_base_or_member() {
        assert!(input_matches("a.cubin", "dir/a.cubin"));
        assert!(input_matches("m.o", "libx.a:m.o"));
        assert!(!input_matches("a.cubin", "ka.cubin"));
    }
}
