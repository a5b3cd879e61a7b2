//! The one way culdb reads its RON files (scenarios, batch jobs, view
//! presets) and reports what is wrong with one: `FILE:LINE:COL: message`.

use std::fmt;
use std::path::{Path, PathBuf};

use ron::extensions::Extensions;

/// A problem with a file culdb reads, at a place in it when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileError {
    pub file: PathBuf,
    /// 1-based line and column.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl FileError {
    /// A problem with the file as a whole.
    pub fn new(file: &Path, message: impl Into<String>) -> Self {
        FileError {
            file: file.to_path_buf(),
            at: None,
            message: message.into(),
        }
    }

    /// A problem at line `line`, column `col`.
    pub fn at(file: &Path, line: usize, col: usize, message: impl Into<String>) -> Self {
        FileError {
            file: file.to_path_buf(),
            at: Some((line, col)),
            message: message.into(),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for FileError {}

/// The RON dialect of every culdb file: `Object(name: ..)` for a variant
/// holding a struct, and `size: 128` for an optional field.
pub fn options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(Extensions::UNWRAP_VARIANT_NEWTYPES)
        .with_default_extension(Extensions::IMPLICIT_SOME)
}

/// Parses the RON text of `file`; an error gives its line and column.
pub fn parse<T: serde::de::DeserializeOwned>(file: &Path, text: &str) -> Result<T, FileError> {
    options()
        .from_str(text)
        .map_err(|e| FileError::at(file, e.span.start.line, e.span.start.col, e.code.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct T {
        #[allow(dead_code)]
        a: Option<u32>,
    }

    #[test]
    fn errors_name_the_file_line_and_column() {
        let e = parse::<T>(Path::new("x.ron"), "(\n  a: \"no\",\n)").unwrap_err();
        assert_eq!(e.at, Some((2, 5)));
        assert!(e.to_string().starts_with("x.ron:2:5: "), "{e}");
        assert!(parse::<T>(Path::new("x.ron"), "(a: 3)").is_ok());
        assert_eq!(FileError::new(Path::new("y"), "gone").to_string(), "y: gone");
    }
}
