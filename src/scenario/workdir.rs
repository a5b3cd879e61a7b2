//! The folder a scenario's link runs in: its synthetic inputs are written
//! there and its file inputs copied there, so the link sees plain file
//! names (and its diagnostics name them the way the scenario does). The
//! folder is removed when the [`Workdir`] is dropped (unless the
//! environment has `CULDB_KEEP_WORKDIR`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Input, Scenario, ScenarioError, synth};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A scenario's inputs on disk and the nvlink command line that links them.
#[derive(Debug)]
pub struct Workdir {
    pub dir: PathBuf,
    /// nvlink's arguments, file names relative to `dir` (no `-o`).
    pub args: Vec<String>,
}

impl Drop for Workdir {
    fn drop(&mut self) {
        // CULDB_KEEP_WORKDIR=1 keeps the inputs for a look (e.g. with `culdb dump`).
        if std::env::var_os("CULDB_KEEP_WORKDIR").is_some() {
            eprintln!("culdb: scenario inputs kept in {}", self.dir.display());
            return;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Workdir {
    /// Writes the inputs of `scenario` (read from `file`) into a new folder.
    pub fn create(scenario: &Scenario, file: &Path) -> Result<Workdir, ScenarioError> {
        let base = file.parent().unwrap_or(Path::new("."));
        let dir = std::env::temp_dir().join(format!(
            "culdb-scenario-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let err = |m: String| ScenarioError::new(file, m);
        std::fs::create_dir_all(&dir).map_err(|e| err(format!("cannot create {}: {e}", dir.display())))?;
        let mut w = Workdir { dir, args: Vec::new() };
        let mut args = vec![format!("-arch={}", scenario.arch)];
        let mut opts = scenario.options.iter();
        while let Some(o) = opts.next() {
            // A library folder is relative to the scenario's folder.
            if o == "-L" {
                args.push(o.clone());
                if let Some(d) = opts.next() {
                    args.push(base.join(d).to_string_lossy().into_owned());
                }
            } else if let Some(d) = o.strip_prefix("-L") {
                args.push(format!("-L{}", base.join(d).display()));
            } else {
                args.push(o.clone());
            }
        }
        let sm = scenario.sm();
        for input in &scenario.inputs {
            let write = |name: &str, bytes: &[u8]| {
                std::fs::write(w.dir.join(name), bytes).map_err(|e| err(format!("cannot write input `{name}`: {e}")))
            };
            match input {
                Input::File(p) => {
                    let from = base.join(p);
                    let name = input.file_name().unwrap_or(p);
                    let bytes = std::fs::read(&from)
                        .map_err(|e| err(format!("input file `{}` ({}): {e}", p, from.display())))?;
                    write(name, &bytes)?;
                    args.push(name.to_string());
                }
                Input::Object(o) => {
                    write(&o.name, &synth::object_bytes(o, sm).map_err(err)?)?;
                    args.push(o.name.clone());
                }
                Input::Archive(a) => {
                    write(&a.name, &synth::archive_bytes(a, sm).map_err(err)?)?;
                    args.push(a.name.clone());
                }
                Input::Uidx(u) => {
                    write(&u.name, &synth::uidx_file(u))?;
                    args.extend(["-uidx".to_string(), u.name.clone()]);
                }
                Input::Arg(a) => args.push(a.clone()),
            }
        }
        w.args = args;
        Ok(w)
    }
}
