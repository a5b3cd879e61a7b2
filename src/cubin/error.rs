//! The one error type for malformed input: what went wrong and where.

use std::fmt;

/// A format error at a byte offset of the file (or of the section being decoded,
/// when `context` names it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatError {
    /// Byte offset where the problem was found.
    pub offset: u64,
    /// What is wrong, in a person's terms.
    pub msg: String,
    /// Where inside the file, e.g. a section or archive member name; empty for the file itself.
    pub context: String,
}

impl FormatError {
    pub fn new(offset: u64, msg: impl Into<String>) -> Self {
        FormatError {
            offset,
            msg: msg.into(),
            context: String::new(),
        }
    }

    /// Says which part of the file (section, member) the offset is relative to.
    pub fn in_context(mut self, context: impl Into<String>) -> Self {
        let c = context.into();
        self.context = if self.context.is_empty() {
            c
        } else {
            format!("{c}: {}", self.context)
        };
        self
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.context.is_empty() {
            write!(f, "at offset {:#x}: {}", self.offset, self.msg)
        } else {
            write!(f, "{}: at offset {:#x}: {}", self.context, self.offset, self.msg)
        }
    }
}

impl std::error::Error for FormatError {}

pub type Result<T> = std::result::Result<T, FormatError>;
