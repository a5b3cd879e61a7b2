//! Keep chains: why a symbol is in the output (the inverse of dead-code
//! elimination's removal events) and why an archive member was linked
//! (lld's `--why-extract`).
//!
//! A chain starts at a root — a kernel kept by a stated rule (every kernel,
//! `-kernels-used`, the host objects' kernel lists), a function whose
//! address data holds (a relocation in a data section), or an option that
//! keeps everything (`-g`, `-r`) — and follows call-graph edges and the
//! relocations in each function's code to the symbol. Read from the state
//! as dead-code elimination left it, where every relocation is still live.

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::Serialize;

use crate::cubin::callgraph::Record;
use crate::cubin::consts::{STB_LOCAL, STT_FUNC, STT_OBJECT, STT_SECTION};
use crate::debug::breakpoint::reloc_type_name;
use crate::link::dce::DceEvent;
use crate::link::event::Event;
use crate::link::state::query::STO_ENTRY;
use crate::link::state::{LinkState, Place, SectionClass, SymIdx};

use super::run::{LinkRun, archive_member};

/// One link of a chain: `symbol`, and how the previous one keeps it (for
/// the first, the rule that makes it a root).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainLink {
    pub symbol: String,
    pub demangled: Option<String>,
    pub via: String,
}

/// The answer to `why-kept SYMBOL`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kept {
    pub symbol: String,
    pub demangled: Option<String>,
    /// `kept`, `removed`, `undefined` or `unknown`.
    pub status: String,
    /// Root first, the symbol last; empty when it is not kept.
    pub chain: Vec<ChainLink>,
    /// Why it was removed or is not in the link.
    pub reason: Option<String>,
}

/// What keeps what, built once per link.
#[derive(Debug, Clone, Default)]
pub struct KeepGraph {
    /// Breadth-first parents: symbol → (the symbol that keeps it, how).
    parent: HashMap<SymIdx, (SymIdx, String)>,
    /// Roots with their rule.
    roots: BTreeMap<SymIdx, String>,
    /// `-g` / `-r`: everything stays; the option's text.
    everything: Option<String>,
    /// Removal reasons by symbol name (the DCE events).
    removed: HashMap<String, String>,
    state: LinkState,
    /// Full LTO: the output is libNVVM's whole program, nothing was merged;
    /// its chains are read from the output cubin itself.
    whole: Option<WholeProgram>,
}

/// The keep chains of a whole-program (full LTO) output: kernels are the
/// roots, `.nv.callgraph` the edges.
#[derive(Debug, Clone, Default)]
struct WholeProgram {
    /// The output's symbols: name, is a defined function.
    names: Vec<String>,
    roots: BTreeMap<usize, String>,
    parent: HashMap<usize, (usize, String)>,
}

impl WholeProgram {
    fn of(run: &LinkRun, out: &[u8]) -> Option<WholeProgram> {
        let c = crate::cubin::read::parse(out).ok()?;
        let rule = if run.setup.kernels_used.is_empty()
            && run.state.host_refs.iter().flatten().all(|r| r.kernels.is_empty())
        {
            "kernel of the whole-program LTO output: libNVVM keeps every kernel"
        } else {
            "kernel of the whole-program LTO output: libNVVM keeps the kernels the host objects launch (-kernels-used)"
        };
        let mut w = WholeProgram {
            names: c.symbols.iter().map(|s| s.name.clone()).collect(),
            ..Default::default()
        };
        for (i, s) in c.symbols.iter().enumerate() {
            if s.sym_type == STT_FUNC && s.other & STO_ENTRY != 0 && s.is_defined() {
                w.roots.insert(i, rule.to_string());
            }
        }
        let mut edges: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for s in c
            .sections
            .iter()
            .filter(|s| s.sh_type == crate::cubin::consts::SHT_CUDA_CALLGRAPH)
        {
            let Ok(g) = crate::cubin::callgraph::decode(&s.data) else {
                continue;
            };
            for r in g.records {
                if let Record::Call { caller, callee } = r {
                    edges.entry(caller as usize).or_default().push(callee as usize);
                }
            }
        }
        let mut work: VecDeque<usize> = w.roots.keys().copied().collect();
        let mut seen: std::collections::HashSet<usize> = work.iter().copied().collect();
        while let Some(f) = work.pop_front() {
            for &t in edges.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
                if t < w.names.len() && seen.insert(t) {
                    w.parent.insert(t, (f, "called (call graph of the LTO output)".into()));
                    work.push_back(t);
                }
            }
        }
        Some(w)
    }

    fn link(&self, i: usize, via: String) -> ChainLink {
        ChainLink {
            demangled: crate::demangle::demangle(&self.names[i]),
            symbol: self.names[i].clone(),
            via,
        }
    }

    fn why_kept(&self, k: &mut Kept) {
        let name = k.symbol.clone();
        let Some(i) = self.names.iter().position(|n| {
            *n == name || crate::demangle::demangle(n).is_some_and(|d| d == name || d.split('(').next() == Some(&name))
        }) else {
            k.reason = Some("not in the whole-program LTO output (libNVVM compiled it away or inlined it)".into());
            return;
        };
        k.symbol = self.names[i].clone();
        k.demangled = crate::demangle::demangle(&k.symbol);
        k.status = "kept".into();
        let mut rev = Vec::new();
        let mut cur = i;
        while rev.len() <= self.names.len() {
            if let Some(rule) = self.roots.get(&cur) {
                rev.push(self.link(cur, rule.clone()));
                break;
            }
            match self.parent.get(&cur) {
                Some((p, how)) => {
                    rev.push(self.link(cur, how.clone()));
                    cur = *p;
                }
                None => {
                    rev = vec![self.link(i, "in the whole-program LTO output (libNVVM kept it)".into())];
                    break;
                }
            }
        }
        rev.reverse();
        k.chain = rev;
    }
}

fn function_of(st: &LinkState, owners: &foldhash::HashMap<usize, SymIdx>, s: SymIdx) -> SymIdx {
    match st.symbol(s) {
        Some(sym) if sym.sym_type == STT_SECTION => match sym.place {
            Place::Section(k) => owners.get(&k).copied().unwrap_or(s),
            _ => s,
        },
        _ => s,
    }
}

/// The rule that keeps kernel `name`.
fn kernel_rule(st: &LinkState, run: &LinkRun, name: &str) -> String {
    let setup = &run.setup;
    if let Some(k) = setup.kernels_used.iter().find(|k| name.contains(k.as_str())) {
        return format!("kernel named by -kernels-used={k}");
    }
    let lists_apply = !setup.ignore_host_info
        && !setup.used_lists_given()
        && !st.host_lists_incomplete
        && !st.inputs.is_empty()
        && st.host_refs.len() >= st.inputs.len()
        && st.host_refs.iter().all(|r| r.is_some())
        && st
            .host_refs
            .iter()
            .flatten()
            .any(|r| !r.system_library && (!r.kernels.is_empty() || !r.internal_kernels.is_empty()));
    if lists_apply {
        for (i, r) in st.host_refs.iter().enumerate() {
            let Some(r) = r else { continue };
            if let Some(p) = r
                .kernels
                .iter()
                .chain(&r.internal_kernels)
                .find(|p| crate::link::dce::host_match(p, name))
            {
                return format!(
                    "kernel the host code launches: {} lists it in .nvHRKE/.nvHRKI as `{p}`",
                    st.input_name(i)
                );
            }
        }
    }
    if setup.ignore_host_info {
        "kernel: -ignore-host-info, so every kernel is kept".into()
    } else {
        "kernel: every kernel is kept (no -kernels-used; no host kernel lists limit them)".into()
    }
}

impl KeepGraph {
    pub fn of(run: &LinkRun) -> KeepGraph {
        let st = run.keep_state();
        let owners = crate::link::state::query::text_owners(st);
        let mut g = KeepGraph {
            state: st.clone(),
            ..Default::default()
        };
        if run.state.lto.as_ref().is_some_and(|l| l.whole_program) {
            g.whole = run.output.as_deref().and_then(|o| WholeProgram::of(run, o));
            return g;
        }
        if run.setup.relocatable {
            g.everything = Some("-r: a relocatable link removes nothing".into());
        } else if run.setup.debug {
            g.everything = Some("-g: nvlink does no dead-code elimination in a debug link".into());
        } else if run.setup.keep_dead_code {
            g.everything = Some("-preserve-relocs: nvlink does no dead-code elimination".into());
        }
        for e in &run.events {
            if let Event::Dce(DceEvent::Removed { name, reason }) = e {
                g.removed.entry(name.clone()).or_insert_with(|| reason.clone());
            }
        }
        let mut edges: BTreeMap<SymIdx, Vec<(SymIdx, String)>> = BTreeMap::new();
        for e in st.callgraph.iter().filter(|e| e.live) {
            if let Record::Call { caller, callee } = e.record {
                edges
                    .entry(SymIdx(caller as i32))
                    .or_default()
                    .push((SymIdx(callee as i32), "called (call graph)".into()));
            }
        }
        let mut data_roots: Vec<(SymIdx, String)> = Vec::new();
        for r in st.relocs.iter().filter(|r| r.live) {
            let Some(sec) = st.sections.get(r.section) else {
                continue;
            };
            if sec.removed {
                continue;
            }
            let target = function_of(st, &owners, r.sym);
            let how = format!(
                "{} at {}+{:#x} (from {})",
                reloc_type_name(r.rtype),
                sec.name,
                r.offset,
                st.input_name(r.input)
            );
            match sec.class {
                SectionClass::Debug => {}
                SectionClass::Text => {
                    if let Some(&f) = owners.get(&r.section) {
                        edges
                            .entry(f)
                            .or_default()
                            .push((target, format!("address referenced: {how}")));
                    }
                }
                _ => data_roots.push((target, format!("address held by data: {how}"))),
            }
        }
        for (i, s) in st.all_symbols() {
            if s.removed || !s.is_defined() || s.sym_type != STT_FUNC || s.other & STO_ENTRY == 0 {
                continue;
            }
            g.roots.insert(i, kernel_rule(st, run, &s.name));
        }
        for (i, why) in data_roots {
            g.roots.entry(i).or_insert(why);
        }
        let mut work: VecDeque<SymIdx> = g.roots.keys().copied().collect();
        let mut seen: std::collections::HashSet<SymIdx> = work.iter().copied().collect();
        while let Some(f) = work.pop_front() {
            for (t, how) in edges.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(*t) {
                    g.parent.insert(*t, (f, how.clone()));
                    work.push_back(*t);
                }
            }
        }
        g
    }

    /// Symbols called `name`: the mangled name, the demangled one, or the
    /// demangled one without its parameters.
    fn find(&self, name: &str) -> Vec<SymIdx> {
        let st = &self.state;
        let mut v: Vec<(SymIdx, bool)> = st
            .all_symbols()
            .filter(|(_, s)| s.sym_type != STT_SECTION && !s.name.is_empty())
            .filter(|(_, s)| {
                &*s.name == name
                    || crate::demangle::demangle(&s.name)
                        .is_some_and(|d| d == name || d.split('(').next() == Some(name))
            })
            .map(|(i, s)| (i, s.removed))
            .collect();
        v.sort_by_key(|&(i, removed)| (removed, i.0 < 0, i));
        v.into_iter().map(|(i, _)| i).collect()
    }

    fn link(&self, i: SymIdx, via: String) -> ChainLink {
        let name = self.state.symbol_name(i);
        ChainLink {
            demangled: crate::demangle::demangle(&name),
            symbol: name,
            via,
        }
    }

    /// The chain that keeps `i`, root first (empty when nothing does).
    pub fn chain(&self, i: SymIdx) -> Vec<ChainLink> {
        let mut rev = Vec::new();
        let mut cur = i;
        let mut guard = 0;
        loop {
            if let Some(rule) = self.roots.get(&cur) {
                rev.push(self.link(cur, rule.clone()));
                break;
            }
            match self.parent.get(&cur) {
                Some((p, how)) if guard < 100_000 => {
                    rev.push(self.link(cur, how.clone()));
                    cur = *p;
                    guard += 1;
                }
                _ => return Vec::new(),
            }
        }
        rev.reverse();
        rev
    }

    /// `why-kept NAME`.
    pub fn why_kept(&self, name: &str) -> Kept {
        let mut k = Kept {
            symbol: name.to_string(),
            demangled: crate::demangle::demangle(name),
            status: "unknown".into(),
            chain: Vec::new(),
            reason: None,
        };
        if let Some(w) = &self.whole {
            w.why_kept(&mut k);
            return k;
        }
        let Some(&i) = self.find(name).first() else {
            k.reason = Some(match self.removed.get(name) {
                Some(r) => format!("removed: {r}"),
                None => "no symbol of that name in the link".into(),
            });
            return k;
        };
        let Some(s) = self.state.symbol(i) else { return k };
        k.symbol = s.name.to_string();
        k.demangled = crate::demangle::demangle(&s.name);
        if s.removed {
            k.status = "removed".into();
            k.reason = Some(
                self.removed
                    .get(&*s.name)
                    .cloned()
                    .unwrap_or_else(|| "removed with the function it belongs to".into()),
            );
            return k;
        }
        if !s.is_defined() {
            k.status = "undefined".into();
            k.reason = Some("not defined by any input: the output keeps the reference for the driver".into());
            return k;
        }
        k.status = "kept".into();
        k.chain = self.chain(i);
        if k.chain.is_empty() {
            let rule = if let Some(opt) = &self.everything {
                opt.clone()
            } else if s.sym_type == STT_FUNC {
                "no rule of nvlink's dead-code elimination removes it".into()
            } else if let Place::Section(sec) = s.place
                && let Some(owner) = self.state.sections.get(sec).and_then(|x| x.owner)
                && owner != i
                && !self.chain(owner).is_empty()
            {
                let mut c = self.chain(owner);
                c.push(self.link(i, "belongs to that function's sections".into()));
                k.chain = c;
                return k;
            } else if s.sym_type == STT_OBJECT || s.binding != STB_LOCAL {
                "variables stay: nvlink's dead-code elimination removes functions only".into()
            } else {
                "kept with its section (nvlink removes functions, not sections of data)".into()
            };
            k.chain = vec![self.link(i, rule)];
        }
        k
    }
}

/// The answer to `why-pulled MEMBER`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pulled {
    pub member: String,
    pub archive: Option<String>,
    pub linked: bool,
    /// The rule that linked it (or left it out).
    pub rule: String,
    /// Undefined symbols of earlier inputs it defines: (symbol, input referring to it).
    pub resolves: Vec<(String, String)>,
}

/// Global functions and variables an input defines and references.
/// (name, STT_*) of global symbols.
type Names = Vec<(String, u8)>;

fn globals_of(data: &[u8]) -> (Names, Names) {
    let Ok(c) = crate::cubin::read::parse(data) else {
        return Default::default();
    };
    let mut defs = Vec::new();
    let mut refs = Vec::new();
    for s in c
        .symbols
        .iter()
        .filter(|s| s.binding != STB_LOCAL && !s.name.is_empty())
    {
        if s.is_defined() {
            defs.push((s.name.clone(), s.sym_type));
        } else {
            refs.push((s.name.clone(), s.sym_type));
        }
    }
    (defs, refs)
}

/// `why-pulled MEMBER`: every input named `member` (`libx.a:m.o`, or just
/// `m.o`), and every member of that name left out.
pub fn why_pulled(run: &LinkRun, member: &str) -> Vec<Pulled> {
    let st = &run.state;
    let matches = |name: &str| name == member || name.rsplit_once(':').is_some_and(|(_, m)| m == member);
    let mut out = Vec::new();
    for (i, rec) in st.inputs.iter().enumerate() {
        if !matches(&rec.name) {
            continue;
        }
        let am = archive_member(&rec.name, &rec.origin);
        let (defs, _) = globals_of(&rec.data);
        let mut resolves = Vec::new();
        let mut first_ref: BTreeMap<String, String> = BTreeMap::new();
        let mut defined_before: std::collections::HashSet<String> = Default::default();
        for (j, other) in st.inputs.iter().enumerate() {
            if j == i {
                continue;
            }
            let (d, r) = globals_of(&other.data);
            if j < i {
                defined_before.extend(d.into_iter().map(|x| x.0));
            }
            for (n, _) in r {
                first_ref.entry(n).or_insert_with(|| other.name.clone());
            }
        }
        for (n, _) in &defs {
            if let Some(by) = first_ref.get(n) {
                resolves.push((n.clone(), by.clone()));
            }
        }
        let rule = match &am {
            None => "not an archive member: named on the command line".to_string(),
            Some((archive, _)) if crate::link::system_lib::is_system_library(archive) && !run.keep_system_libraries => {
                match defs
                    .iter()
                    .find(|(n, t)| *t == STT_FUNC && first_ref.contains_key(n) && !defined_before.contains(n))
                {
                    Some((f, _)) => format!(
                        "system library member: it defines {}, which {} calls and no input before it defines \
                         (a cudadevrt member is linked only for a function the link needs)",
                        crate::link::event::shown(f),
                        first_ref.get(f).map(String::as_str).unwrap_or("?")
                    ),
                    None => "system library member linked for a function an earlier input calls".into(),
                }
            }
            Some((archive, _)) => format!(
                "nvlink links every host-object member of an archive ({archive}); it does not extract members by symbol"
            ),
        };
        out.push(Pulled {
            member: rec.name.clone(),
            archive: am.map(|x| x.0),
            linked: true,
            rule,
            resolves,
        });
    }
    for e in &run.events {
        if let Event::InputSkipped { path, reason } = e
            && matches(path)
        {
            out.push(Pulled {
                member: path.clone(),
                archive: path.rsplit_once(':').map(|x| x.0.to_string()),
                linked: false,
                rule: reason.clone(),
                resolves: Vec::new(),
            });
        }
    }
    out
}

/// `why-kept` as text.
pub fn kept_text(k: &Kept) -> String {
    let mut o = format!("{}: {}", crate::link::event::shown(&k.symbol), k.status);
    if let Some(r) = &k.reason {
        o.push_str(&format!(" ({r})"));
    }
    o.push('\n');
    for (n, c) in k.chain.iter().enumerate() {
        let arrow = if n == 0 { "root" } else { "  ->" };
        o.push_str(&format!(
            "  {arrow} {}\n         {}\n",
            crate::link::event::shown(&c.symbol),
            c.via
        ));
    }
    o
}

/// `why-pulled` as text.
pub fn pulled_text(member: &str, v: &[Pulled]) -> String {
    if v.is_empty() {
        return format!("{member}: no input or archive member of that name in the link\n");
    }
    let mut o = String::new();
    for p in v {
        o.push_str(&format!(
            "{}: {}\n  {}\n",
            p.member,
            if p.linked { "linked" } else { "not linked" },
            p.rule
        ));
        for (s, by) in &p.resolves {
            o.push_str(&format!(
                "  resolves {} referenced by {by}\n",
                crate::link::event::shown(s)
            ));
        }
    }
    o
}
