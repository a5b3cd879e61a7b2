//! The .nv.* tables of a cubin decoded through their codecs, in two forms:
//! rendered for people (`culdb dump`), and canonical, with every symbol index
//! replaced by the symbol's name (`culdb diff`).

use super::Cubin;
use super::Section;
use super::error::FormatError;

/// Lines for a person, or None when the section is not a decoded table.
pub fn render(c: &Cubin<'_>, s: &Section<'_>) -> Option<Result<Vec<String>, FormatError>> {
    let _ = (c, s);
    None
}

/// Canonical lines for comparison, or None when the section is compared as bytes.
pub fn canonical(c: &Cubin<'_>, s: &Section<'_>) -> Option<Result<Vec<String>, FormatError>> {
    let _ = (c, s);
    None
}
