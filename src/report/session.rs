//! The reports from inside the debugger: `why-kept` and `why-pulled` at
//! the REPL, the TUI's command line and in scenario scripts. They link the
//! session's command line again to the end (the session does not move):
//! keep chains need the state dead-code elimination left, and the relocation
//! phase consumes the relocations they follow.

use crate::debug::Session;

use super::keep::{self, KeepGraph};
use super::run::{self, LinkRun};

fn run_of(s: &Session) -> Result<LinkRun, String> {
    let o = s.origin();
    if o.args.is_empty() {
        return Err("this session has no nvlink command line to link".into());
    }
    let r = run::link(&o.args, &o.dir)?;
    if r.status != 0 {
        return Err(format!("the link fails (status {}): nothing is kept", r.status));
    }
    Ok(r)
}

/// `why-kept SYMBOL`.
pub fn why_kept(s: &Session, name: &str) -> Result<String, String> {
    let r = run_of(s)?;
    let k = KeepGraph::of(&r).why_kept(name);
    let text = keep::kept_text(&k);
    if k.status == "unknown" {
        Err(text.trim_end().to_string())
    } else {
        Ok(text)
    }
}

/// `why-pulled MEMBER`.
pub fn why_pulled(s: &Session, member: &str) -> Result<String, String> {
    let r = run_of(s)?;
    let v = keep::why_pulled(&r, member);
    let text = keep::pulled_text(member, &v);
    if v.is_empty() {
        Err(text.trim_end().to_string())
    } else {
        Ok(text)
    }
}
