//! Which cubins nvlink 13.5 accepts for which `--arch` target, and what it
//! says otherwise. The rules are in the module docs of [`super`]; the golden
//! `tests/data/arch/matrix.tsv` (scripts/gen-arch-matrix) is the evidence.

use serde::Serialize;

use super::input::InputArch;
use super::profiles::{Kind, Profile, Suffix};
use crate::diag::{Diagnostic, Severity};

/// Why an input (or the target) was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MismatchKind {
    /// An `lto_` target: nvlink links no cubin into it.
    LtoTarget,
    /// An `a` (accelerated) cubin into a target without `a`.
    Accelerated,
    /// The SM numbers are not compatible.
    Arch,
}

/// An input nvlink refuses, with the diagnostics it prints: `warnings` first,
/// then the one that stops the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchMismatch {
    pub kind: MismatchKind,
    pub severity: Severity,
    /// nvlink's text after the `nvlink <severity> : ` prefix.
    pub text: String,
    /// Warnings printed before it.
    pub warnings: Vec<Diagnostic>,
}

impl ArchMismatch {
    /// The stopping diagnostic.
    pub fn diagnostic(&self) -> Diagnostic {
        Diagnostic::new(self.severity, self.text.clone())
    }

    /// Everything printed, in order.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut all = self.warnings.clone();
        all.push(self.diagnostic());
        all
    }

    /// nvlink's exit status for it.
    pub fn exit_status(&self) -> i32 {
        1
    }
}

impl std::fmt::Display for ArchMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for ArchMismatch {}

/// `Unknown arch name '(null)'` (fatal): a link with inputs and no `--arch`.
pub fn missing_arch_message() -> String {
    "Unknown arch name '(null)'".to_string()
}

/// The check nvlink makes on the target itself before any input: an `lto_`
/// target is refused.
pub fn check_target(target: &Profile) -> Result<(), ArchMismatch> {
    if target.kind == Kind::Lto {
        return Err(ArchMismatch {
            kind: MismatchKind::LtoTarget,
            severity: Severity::Fatal,
            text: format!(
                "Link target of '{}' is virtual target that is not JIT-able; use 'sm_' target instead",
                target.name
            ),
            warnings: Vec::new(),
        });
    }
    Ok(())
}

/// Whether a cubin of `input` may go into a link for `target`, ignoring the
/// accelerated rule (see the module docs of [`super`]).
pub fn sm_compatible(target: &Profile, input: InputArch) -> bool {
    if input.accelerated {
        return target.is_accelerated() && input.sm == target.sm;
    }
    if input.sm > target.sm {
        return false;
    }
    let same_major = input.sm / 10 == target.major();
    match target.kind {
        // Machine code moves up only within its major; into a Mercury target a
        // cubin that is not Mercury (cannot be re-finalized) only for its own SM.
        Kind::Real => same_major && (input.mercury || !target.is_mercury() || input.sm == target.sm),
        // A virtual target takes any earlier SM; its `f` form only its own family.
        Kind::Virtual => target.suffix != Suffix::F || same_major,
        Kind::Lto => false,
    }
}

/// The check nvlink 13.5 applies to one cubin input named `file` (as given on
/// the command line) in a link for `target`. `Ok` holds the warnings printed
/// for it (possibly none); `Err` the diagnostics of a refused input (nvlink
/// stops the link: exit status 1, no output). Includes [`check_target`].
pub fn check_input(target: &Profile, file: &str, input: InputArch) -> Result<Vec<Diagnostic>, ArchMismatch> {
    check_target(target)?;
    let mut warnings = Vec::new();
    if target.is_mercury() && !input.mercury {
        warnings.push(Diagnostic::warning(format!(
            "Output is limited to run on SM Arch '{}' only due to limitations in input file {file}",
            target.sm
        )));
    }
    let refuse = |kind, text: String, warnings: Vec<Diagnostic>| ArchMismatch {
        kind,
        severity: Severity::Fatal,
        text,
        warnings,
    };
    if input.accelerated && !target.is_accelerated() {
        return Err(refuse(
            MismatchKind::Accelerated,
            "cannot link accelerated arch to non-accelerated".to_string(),
            warnings,
        ));
    }
    if !sm_compatible(target, input) {
        return Err(refuse(
            MismatchKind::Arch,
            format!("Input file '{file}' arch does not match target '{}'", target.name),
            warnings,
        ));
    }
    Ok(warnings)
}
