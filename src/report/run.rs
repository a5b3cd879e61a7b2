//! One link run kept whole for the reports: the final state, the state as
//! dead-code elimination left it (relocations still live, before the
//! relocation phase applies them), every event and the output bytes.

use std::path::Path;

use crate::link::event::{Event, Phase};
use crate::link::setup::LinkSetup;
use crate::link::state::LinkState;
use crate::link::{self, Linker, options};

/// A finished link, for the reports.
#[derive(Debug, Clone)]
pub struct LinkRun {
    pub status: i32,
    /// Diagnostic lines, as `culdb link` prints them.
    pub diagnostics: Vec<String>,
    pub events: Vec<Event>,
    pub state: LinkState,
    /// The state at the end of dead-code elimination (the final state when
    /// the link stopped before it).
    pub after_dce: LinkState,
    pub output: Option<Vec<u8>>,
    pub setup: LinkSetup,
    /// `-keep-system-libraries`: every member of libcudadevrt is linked.
    pub keep_system_libraries: bool,
}

impl LinkRun {
    /// The state the keep chains are read from.
    pub fn keep_state(&self) -> &LinkState {
        &self.after_dce
    }
}

/// Links nvlink's command line `args` in `dir` (no output file is written).
/// Without `-o`, the output is built all the same (under nvlink's default
/// name, never written).
pub fn link(args: &[String], dir: &Path) -> Result<LinkRun, String> {
    let mut args = args.to_vec();
    if !args.iter().any(|a| a == "-o" || a.starts_with("--output-file")) {
        args.extend(["-o".to_string(), "a.out.cubin".to_string()]);
    }
    let opts = options::parse_in(&args, dir)
        .map_err(|e| e.diagnostics.iter().map(|d| d.line()).collect::<Vec<_>>().join("\n"))?;
    let setup = LinkSetup::from_options(&opts);
    Ok(finish(link::linker_from(&opts, dir), setup, opts.keep_system_libraries))
}

/// Runs `linker` (from wherever it stands) to the end.
pub fn finish(mut linker: Linker, setup: LinkSetup, keep_system_libraries: bool) -> LinkRun {
    let mut events = Vec::new();
    let mut after_dce = None;
    loop {
        let step = linker.step();
        let dce_ended = step
            .events
            .iter()
            .any(|e| matches!(e, Event::PhaseEnd { phase: Phase::Dce }));
        events.extend(step.events);
        if dce_ended || (after_dce.is_none() && linker.phase().is_some_and(|p| p > Phase::Dce)) {
            after_dce.get_or_insert_with(|| linker.state().clone());
        }
        if step.finished {
            break;
        }
    }
    let state = linker.state().clone();
    let mut status = linker.exit_status();
    if status == 0 && linker.failed() {
        status = 1;
    }
    LinkRun {
        status,
        diagnostics: state.diagnostics.iter().map(|d| d.line()).collect(),
        events,
        after_dce: after_dce.unwrap_or_else(|| state.clone()),
        state,
        output: linker.output().map(<[u8]>::to_vec),
        setup,
        keep_system_libraries,
    }
}

/// Splits an input's name into (archive, member) when its origin says it
/// is an archive member (`libx.a:m.o`, origin `the sm_90 cubin of member
/// m.o of libx.a`).
pub fn archive_member(name: &str, origin: &str) -> Option<(String, String)> {
    let rest = origin.split_once(" cubin of member ")?.1;
    name.char_indices().filter(|&(_, c)| c == ':').find_map(|(i, _)| {
        let (archive, member) = (&name[..i], &name[i + 1..]);
        (rest == format!("{member} of {archive}")).then(|| (archive.to_string(), member.to_string()))
    })
}

/// `name`, demangled beside it when it is a C++ name.
pub fn shown(name: &str) -> String {
    crate::link::event::shown(name)
}

#[cfg(test)]
mod tests {
    #[test]
    fn members_by_origin() {
        assert_eq!(
            super::archive_member("./libx.a:m.o", "the sm_90 cubin of member m.o of ./libx.a"),
            Some(("./libx.a".into(), "m.o".into()))
        );
        assert_eq!(super::archive_member("a.cubin", "file a.cubin"), None);
    }
}
