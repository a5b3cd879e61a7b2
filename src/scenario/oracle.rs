//! Checks a scenario's link against real nvlink: the same inputs (its
//! synthetic objects as culdb writes them) linked by nvlink and by culdb
//! must give the same exit status, the same diagnostics, and equivalent
//! output (DESIGN.md §2). This is what makes a synthetic scenario a fact
//! about nvlink rather than about culdb (`culdb replay --nvlink`).

use std::path::Path;
use std::process::Command;

use super::workdir::Workdir;
use super::{Scenario, ScenarioError};
use crate::cubin::read;
use crate::{conform, diff};

/// The differences between nvlink's link of the scenario and culdb's (empty: they agree).
pub fn compare(scenario: &Scenario, file: &Path, nvlink: &Path) -> Result<Vec<String>, ScenarioError> {
    let w = Workdir::create(scenario, file)?;
    let mut nv_args = w.args.clone();
    nv_args.extend(["-o".into(), "nvlink.cubin".into()]);
    let out = Command::new(nvlink)
        .args(&nv_args)
        .current_dir(&w.dir)
        .output()
        .map_err(|e| ScenarioError::new(file, format!("cannot run {}: {e}", nvlink.display())))?;
    let nv_status = out.status.code().unwrap_or(-1);
    let nv_lines = conform::as_culdb(&String::from_utf8_lossy(&out.stderr));
    let theirs = std::fs::read(w.dir.join("nvlink.cubin")).ok();

    let (status, lines, ours) = match crate::link::linker_for(&nv_args, &w.dir) {
        Err(e) => (
            e.status,
            e.diagnostics.iter().map(|d| d.line()).collect::<Vec<_>>(),
            None,
        ),
        Ok(mut l) => {
            l.run();
            let status = if l.exit_status() == 0 && l.failed() {
                1
            } else {
                l.exit_status()
            };
            let lines = l.state().diagnostics.iter().map(|d| d.line()).collect();
            (status, lines, l.output().map(<[u8]>::to_vec))
        }
    };
    let mut d = Vec::new();
    if status != nv_status {
        d.push(format!("exit status: culdb {status}, nvlink {nv_status}"));
    }
    if lines != nv_lines {
        d.push(format!("diagnostics: culdb {lines:?}, nvlink {nv_lines:?}"));
    }
    match (ours, theirs) {
        (Some(a), Some(b)) => match (read::parse(&a), read::parse(&b)) {
            (Ok(x), Ok(y)) => d.extend(diff::equivalence(&x, &y).iter().map(|e| e.to_string())),
            (Err(e), _) => d.push(format!("culdb's output does not parse: {e}")),
            (_, Err(e)) => d.push(format!("nvlink's output does not parse: {e}")),
        },
        (None, None) => {}
        (Some(_), None) => d.push("culdb wrote an output; nvlink did not".into()),
        (None, Some(_)) => d.push("nvlink wrote an output; culdb did not".into()),
    }
    Ok(d)
}
