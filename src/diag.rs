//! Link diagnostics as nvlink prints them: `<tool> <severity> : <text>` on
//! stderr, and the exit status nvlink would give.
//!
//! nvlink 13.5 pads the severity to eight characters (`error   `, `fatal   `,
//! `warning `, `info    `); culdb prints the same line with its own name in
//! front, so the text after the tool-name prefix is nvlink's.

use serde::Serialize;

/// The tool name printed in front of every diagnostic.
pub const TOOL: &str = "culdb";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Severity {
    Info,
    Warning,
    Error,
    /// Stops the link at once.
    Fatal,
}

impl Severity {
    /// The word nvlink prints, padded as nvlink pads it.
    pub fn padded(self) -> &'static str {
        match self {
            Severity::Info => "info    ",
            Severity::Warning => "warning ",
            Severity::Error => "error   ",
            Severity::Fatal => "fatal   ",
        }
    }
}

/// What kind of problem a diagnostic reports; decides the exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DiagKind {
    /// `Undefined reference to ...`.
    Undefined,
    /// Anything else.
    Other,
    /// A line another tool printed (ptxas compiling a PTX input), shown as is.
    ToolOutput,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub kind: DiagKind,
    /// nvlink's text, without the tool prefix.
    pub text: String,
}

impl Diagnostic {
    pub fn new(severity: Severity, text: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            kind: DiagKind::Other,
            text: text.into(),
        }
    }
    pub fn info(text: impl Into<String>) -> Self {
        Self::new(Severity::Info, text)
    }
    pub fn warning(text: impl Into<String>) -> Self {
        Self::new(Severity::Warning, text)
    }
    pub fn error(text: impl Into<String>) -> Self {
        Self::new(Severity::Error, text)
    }
    pub fn fatal(text: impl Into<String>) -> Self {
        Self::new(Severity::Fatal, text)
    }
    pub fn undefined(text: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            kind: DiagKind::Undefined,
            text: text.into(),
        }
    }

    /// A line printed by another tool (ptxas), passed through unchanged.
    pub fn tool_output(text: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Info,
            kind: DiagKind::ToolOutput,
            text: text.into(),
        }
    }

    /// The line as printed, e.g. `culdb error   : Undefined reference to 'f' in 'a.cubin'`.
    pub fn line(&self) -> String {
        if self.kind == DiagKind::ToolOutput {
            return self.text.clone();
        }
        format!("{TOOL} {}: {}", self.severity.padded(), self.text)
    }
}

/// nvlink's exit status for a link that printed `diags`: 1 after a fatal
/// diagnostic, 255 after errors without a fatal one (undefined references,
/// or warnings turned into errors by `-Werror`), else 0.
pub fn exit_status(diags: &[Diagnostic]) -> i32 {
    if diags.iter().any(|d| d.severity == Severity::Fatal) {
        1
    } else if diags.iter().any(|d| d.severity == Severity::Error) {
        255
    } else {
        0
    }
}

/// Writes to stdout; a closed pipe (`culdb dump x | head`) is not an error.
/// Every command's standard output goes through here (`print!` panics on a
/// closed pipe): the REPL's, the scenario reports', the command line's.
pub fn out(s: &str) {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(s.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_pad_like_nvlink() {
        // nvlink: "nvlink error   : Undefined reference to 'add_bias' in 'main.cubin'"
        let d = Diagnostic::undefined("Undefined reference to 'add_bias' in 'main.cubin'");
        assert_eq!(
            d.line(),
            "culdb error   : Undefined reference to 'add_bias' in 'main.cubin'"
        );
        assert_eq!(
            Diagnostic::fatal("merge_elf failed").line(),
            "culdb fatal   : merge_elf failed"
        );
        assert_eq!(Diagnostic::warning("w").line(), "culdb warning : w");
    }

    #[test]
    fn exit_status_follows_nvlink() {
        assert_eq!(exit_status(&[Diagnostic::warning("w")]), 0);
        assert_eq!(
            exit_status(&[Diagnostic::undefined("u"), Diagnostic::undefined("v")]),
            255
        );
        assert_eq!(exit_status(&[Diagnostic::undefined("u"), Diagnostic::fatal("f")]), 1);
        // -Werror: a warning printed as an error (corpus err_werror_skipping_incompatible_sm90).
        assert_eq!(
            exit_status(&[Diagnostic::error(
                "Skipping incompatible './libx.a' when searching for -lx"
            )]),
            255
        );
        assert_eq!(
            exit_status(&[
                Diagnostic::error("Multiple definition"),
                Diagnostic::fatal("merge_elf failed")
            ]),
            1
        );
    }
}
