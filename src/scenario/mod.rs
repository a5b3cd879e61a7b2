//! Scenarios (DESIGN.md §5): a RON file that names a link (arch, options,
//! inputs: files, or synthetic objects described inline and written by
//! culdb's own cubin writer), the breakpoints and commands of a debugging
//! session, and what that session should find. `culdb replay` runs them
//! headlessly ([`replay`]); `save scenario FILE` records one from a live
//! session ([`record`]). The format is documented in scenarios/README.md.

pub mod oracle;
pub mod record;
pub mod replay;
pub mod synth;
pub mod workdir;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use record::run_line;
pub use replay::{Check, Report, replay_file};

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The link's target (`-arch`), e.g. "sm_90".
    pub arch: String,
    /// Other nvlink options, placed before the inputs. A `-L` folder is
    /// relative to the scenario's folder.
    #[serde(default)]
    pub options: Vec<String>,
    /// The link's inputs, in command-line order.
    pub inputs: Vec<Input>,
    /// Arguments of `break` commands set before the script runs
    /// (e.g. "weak", "symbol add_bias", "reloc R_CUDA_ABS47_34").
    #[serde(default)]
    pub breakpoints: Vec<String>,
    /// Commands of the command language, run in order.
    #[serde(default)]
    pub script: Vec<String>,
    #[serde(default)]
    pub expect: Expect,
}

/// One input of the link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Input {
    /// A file, relative to the scenario's folder; it is given to the link
    /// under its file name.
    File(String),
    /// A synthetic relocatable cubin.
    Object(Object),
    /// An `ar` archive of synthetic cubins.
    Archive(Archive),
    /// A synthetic UIDX file, passed with `-uidx`.
    Uidx(Uidx),
    /// An nvlink argument given as it is, at this place among the inputs.
    Arg(String),
}

/// A synthetic relocatable cubin.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Object {
    /// The file name the link sees.
    pub name: String,
    /// The real SM of the code (default: the scenario's arch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm: Option<u32>,
    /// The virtual SM (PTX `.target`) it was compiled from (default: `sm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_sm: Option<u32>,
    #[serde(default)]
    pub functions: Vec<Function>,
    #[serde(default)]
    pub data: Vec<Data>,
    /// Names referenced but not defined here.
    #[serde(default)]
    pub undefined: Vec<Undefined>,
    #[serde(default)]
    pub relocations: Vec<Reloc>,
    /// Extra `.nv.info` attributes.
    #[serde(default)]
    pub info: Vec<Info>,
    /// A unified function table: one slot per function, with its UUID.
    #[serde(default)]
    pub uft: Vec<UftSlot>,
    /// A unified data table: `.nv.udt` with these variables, one after the
    /// other (8-aligned), and its `.nv.udt.entry`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub udt: Vec<UdtVar>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Binding {
    #[default]
    Global,
    Weak,
    Local,
}

/// A function: `.text.<name>` and its symbol.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Function {
    pub name: String,
    #[serde(default)]
    pub binding: Binding,
    /// A kernel (`__global__`, STO_CUDA_ENTRY).
    #[serde(default)]
    pub kernel: bool,
    /// The register count (`.nv.info` EIATTR_REGCOUNT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registers: Option<u32>,
    /// Code size in bytes (zeros; default 128) unless `code` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Vec<u8>>,
    /// Functions it calls (a call-graph edge and a call relocation each).
    #[serde(default)]
    pub calls: Vec<String>,
}

/// Where a variable lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Space {
    /// `.nv.global` (no bytes) or `.nv.global.init` (with bytes).
    #[default]
    Global,
    /// `.nv.constant3` (the module's `__constant__` bank).
    Constant,
    /// A common symbol (uninitialized, merged by size).
    Common,
}

/// A variable.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    pub name: String,
    #[serde(default)]
    pub binding: Binding,
    #[serde(default)]
    pub space: Space,
    pub size: u64,
    /// Alignment (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// Initial bytes (at most `size`; the rest are zeros).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Vec<u8>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Kind {
    #[default]
    Function,
    Variable,
    /// A bindless texture reference (STT_CUDA_TEXTURE).
    Texture,
    /// A bindless sampler reference (STT_CUDA_SAMPLER).
    Sampler,
    /// A bindless surface reference (STT_CUDA_SURFACE).
    Surface,
}

/// A name referenced but not defined.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Undefined {
    pub name: String,
    #[serde(default)]
    pub kind: Kind,
}

/// A relocation.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reloc {
    /// The patched section (`.text.k`), or a function's name for its code.
    pub section: String,
    pub offset: u64,
    /// The type's name, as cuobjdump prints it (R_CUDA_ABS32_LO_32).
    #[serde(rename = "type")]
    pub rtype: String,
    pub symbol: String,
    #[serde(default)]
    pub addend: i64,
}

/// An `.nv.info` attribute: for a function (SVAL: symbol, value), else a
/// module attribute with a 16-bit value (HVAL).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Info {
    /// Name (EIATTR_MAX_STACK_SIZE) or number.
    pub attr: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    pub value: u32,
}

/// One slot of an object's `.nv.uft`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UftSlot {
    pub function: String,
    /// (low, high) 64-bit halves.
    pub uuid: (u64, u64),
}

/// A variable of an object's `.nv.udt` (a LOCAL data symbol) and its entry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdtVar {
    pub name: String,
    /// Its bytes (their length is the symbol's size, which the link copies).
    pub bytes: Vec<u8>,
    /// (low, high) 64-bit halves.
    pub uuid: (u64, u64),
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Archive {
    pub name: String,
    pub members: Vec<Object>,
}

/// A UIDX file (version 1).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Uidx {
    pub name: String,
    /// The UFT window in slots (default: the number of records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u64>,
    /// Records: a UUID and the slot it must take.
    #[serde(default)]
    pub uft: Vec<UidxSlot>,
    /// The UDT window in bytes (default 0): nvlink requires the reordered
    /// `.nv.udt`, which ends where the last placed variable ends, to have this size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub udt_window: Option<u64>,
    /// UDT records: a UUID and the byte offset its variable must take.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub udt: Vec<UidxData>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UidxData {
    pub uuid: (u64, u64),
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UidxSlot {
    pub uuid: (u64, u64),
    pub slot: u64,
}

/// What the session should find. Everything left out is not checked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The link's exit status (0, or nvlink's 1/255 for a failed link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    /// Substrings of the diagnostics, each found in a later line than the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<String>,
    /// Where the session stands after the script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopAt>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weak: Vec<WeakExpect>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolExpect>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionExpect>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relocations: Vec<RelocExpect>,
    /// Substrings of the event lines (as `info events` prints them), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// Substrings of what the script's commands printed, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output: Vec<String>,
}

/// The stop after the script: the event number and/or a substring of its line.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopAt {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A weak decision of the link.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeakExpect {
    pub symbol: String,
    /// The input whose definition won.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// The rule, as culdb names it (fewer_registers, global_over_weak, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// A symbol of the output (after the whole link).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymbolExpect {
    pub name: String,
    /// False: the name must not be in the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
    /// The input that gave the definition kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectionExpect {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// A relocation decision of the relocate phase.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelocExpect {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub rtype: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// applied, kept or dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Substring of the decision's line (e.g. "bits [34, 81)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A problem with a scenario file (`FILE:LINE:COL: message`).
pub type ScenarioError = crate::ronfile::FileError;

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| ScenarioError::new(path, format!("cannot read it: {e}")))?;
        Scenario::parse(path, &text)
    }

    /// Parses scenario text (`path` names it in errors).
    pub fn parse(path: &Path, text: &str) -> Result<Scenario, ScenarioError> {
        let s: Scenario = crate::ronfile::parse(path, text)?;
        s.check(path)?;
        Ok(s)
    }

    /// What RON parsing cannot see: every synthetic object is consistent,
    /// file names are unique, the arch is an nvlink arch.
    fn check(&self, path: &Path) -> Result<(), ScenarioError> {
        if crate::arch::lookup(&self.arch).is_none() {
            return Err(ScenarioError::new(
                path,
                format!("arch `{}` is not an architecture nvlink knows", self.arch),
            ));
        }
        let mut names = std::collections::HashSet::new();
        for input in &self.inputs {
            if let Some(n) = input.file_name()
                && !names.insert(n.to_string())
            {
                return Err(ScenarioError::new(path, format!("two inputs are named `{n}`")));
            }
            match input {
                Input::Object(o) => {
                    synth::object_bytes(o, self.sm()).map_err(|m| ScenarioError::new(path, m))?;
                }
                Input::Archive(a) => {
                    synth::archive_bytes(a, self.sm()).map_err(|m| ScenarioError::new(path, m))?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The SM number of the scenario's arch (90 for "sm_90a").
    pub fn sm(&self) -> u32 {
        crate::arch::lookup(&self.arch).map_or(0, |p| p.sm)
    }

    /// The scenario as RON text, in the dialect [`Scenario::load`] reads.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::default().struct_names(false).extensions(
            ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES | ron::extensions::Extensions::IMPLICIT_SOME,
        );
        let body = ron::Options::default()
            .to_string_pretty(self, config)
            .unwrap_or_else(|e| format!("// cannot write the scenario: {e}\n"));
        format!("#![enable(unwrap_variant_newtypes, implicit_some)]\n{body}\n")
    }
}

impl Input {
    /// The file name the link sees, for inputs that are files.
    pub fn file_name(&self) -> Option<&str> {
        match self {
            Input::File(p) => Path::new(p).file_name().and_then(|n| n.to_str()),
            Input::Object(o) => Some(&o.name),
            Input::Archive(a) => Some(&a.name),
            Input::Uidx(u) => Some(&u.name),
            Input::Arg(_) => None,
        }
    }
}
