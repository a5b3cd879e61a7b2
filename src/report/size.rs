//! `culdb size`: where the output's bytes come from, bloaty-style. Every
//! byte of the file is attributed to exactly one piece — the ELF header,
//! the program and section header tables, padding between them, or a
//! range of one section — and each piece carries its section, kind,
//! input file, archive member, kernel (a kernel and what only it reaches)
//! and symbol, so grouping by any of them adds up to the file size.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::cubin::callgraph::Record;
use crate::cubin::consts::{STT_FUNC, STT_SECTION};
use crate::link::reach::References;
use crate::link::state::query::STO_ENTRY;

use super::elf::{self, Shdr};
use super::labels;
use super::run::{LinkRun, archive_member};

/// A range of the file and everything it is attributed to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Piece {
    pub offset: u64,
    pub size: u64,
    pub section: String,
    pub kind: String,
    pub input: String,
    pub member: String,
    pub kernel: String,
    pub symbol: String,
}

/// What a report groups by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    Section,
    Kind,
    Input,
    Member,
    Kernel,
    Symbol,
}

impl Dim {
    pub fn parse(s: &str) -> Option<Dim> {
        Some(match s {
            "section" | "sections" => Dim::Section,
            "kind" | "kinds" => Dim::Kind,
            "input" | "inputs" | "file" => Dim::Input,
            "member" | "members" => Dim::Member,
            "kernel" | "kernels" => Dim::Kernel,
            "symbol" | "symbols" => Dim::Symbol,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Dim::Section => "section",
            Dim::Kind => "kind",
            Dim::Input => "input",
            Dim::Member => "member",
            Dim::Kernel => "kernel",
            Dim::Symbol => "symbol",
        }
    }

    pub fn of(self, p: &Piece) -> &str {
        match self {
            Dim::Section => &p.section,
            Dim::Kind => &p.kind,
            Dim::Input => &p.input,
            Dim::Member => &p.member,
            Dim::Kernel => &p.kernel,
            Dim::Symbol => &p.symbol,
        }
    }
}

/// One symbol of the file, by range in its section.
struct Sym {
    name: String,
    value: u64,
    size: u64,
}

/// Which kernels reach each function (by name).
fn kernel_owners_link(run: &LinkRun) -> HashMap<String, BTreeSet<String>> {
    let st = run.keep_state();
    let refs = References::of(st);
    let mut own: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (i, s) in run.state.all_symbols() {
        if s.removed || !s.is_defined() || s.sym_type != STT_FUNC || s.other & STO_ENTRY == 0 {
            continue;
        }
        for f in refs.closure(i) {
            own.entry(st.symbol_name(f)).or_default().insert(s.name.to_string());
        }
    }
    own
}

/// The same from a cubin alone: its call graph and the relocations left in its code.
fn kernel_owners_cubin(c: &crate::cubin::model::Cubin<'_>) -> HashMap<String, BTreeSet<String>> {
    let fn_of_section: HashMap<usize, usize> = c
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.sym_type == STT_FUNC && s.is_defined())
        .map(|(i, s)| (s.shndx as usize, i))
        .collect();
    let target = |sym: usize| -> Option<usize> {
        let s = c.symbols.get(sym)?;
        if s.sym_type == STT_SECTION {
            fn_of_section.get(&(s.shndx as usize)).copied()
        } else {
            Some(sym)
        }
    };
    let mut edges: HashMap<usize, Vec<usize>> = HashMap::new();
    for s in c.sections.iter().filter(|s| s.is_reloc()) {
        let Some(&from) = fn_of_section.get(&(s.info as usize)) else {
            continue;
        };
        for r in &s.relocs {
            if let Some(t) = target(r.sym as usize) {
                edges.entry(from).or_default().push(t);
            }
        }
    }
    for s in c.sections.iter().filter(|s| s.name == ".nv.callgraph") {
        if let Ok(g) = crate::cubin::callgraph::decode(&s.data) {
            for r in g.records {
                if let Record::Call { caller, callee } = r {
                    edges.entry(caller as usize).or_default().push(callee as usize);
                }
            }
        }
    }
    let mut own: HashMap<String, BTreeSet<String>> = HashMap::new();
    for (k, s) in c.symbols.iter().enumerate() {
        if s.sym_type != STT_FUNC || s.other & STO_ENTRY == 0 || !s.is_defined() {
            continue;
        }
        let mut seen = BTreeSet::new();
        let mut work = vec![k];
        while let Some(f) = work.pop() {
            if seen.insert(f) {
                work.extend(edges.get(&f).into_iter().flatten().copied());
            }
        }
        for f in seen {
            if let Some(x) = c.symbols.get(f) {
                own.entry(x.name.clone()).or_default().insert(s.name.clone());
            }
        }
    }
    own
}

fn kernel_label(own: &HashMap<String, BTreeSet<String>>, f: &str) -> String {
    match own.get(f).map(|k| k.iter().collect::<Vec<_>>()) {
        Some(ks) if ks.len() == 1 => crate::link::event::shown(ks[0]),
        Some(ks) if ks.len() > 1 => format!("[shared by {} kernels]", ks.len()),
        _ => "[no kernel reaches it]".into(),
    }
}

/// Labels of one input for the input and member dimensions.
fn input_labels(run: &LinkRun, input: usize) -> (String, String) {
    match run.state.inputs.get(input) {
        Some(r) => match archive_member(&r.name, &r.origin) {
            Some((a, _)) => (a, r.name.clone()),
            None => (r.name.clone(), "[not from an archive]".into()),
        },
        None => ("?".into(), "?".into()),
    }
}

/// Every byte of `data` attributed; with the link `run` that made it, to
/// inputs and members too.
pub fn pieces(data: &[u8], run: Option<&LinkRun>) -> Result<Vec<Piece>, String> {
    let lay = elf::layout(data)?;
    let cubin = crate::cubin::read::parse(data).ok();
    let own = match (run, &cubin) {
        (Some(r), _) => kernel_owners_link(r),
        (None, Some(c)) => kernel_owners_cubin(c),
        (None, None) => HashMap::new(),
    };
    let whole = |offset: u64, size: u64, label: &str| Piece {
        offset,
        size,
        section: label.into(),
        kind: label.into(),
        input: label.into(),
        member: label.into(),
        kernel: label.into(),
        symbol: label.into(),
    };
    // (offset, size, what): the file's regions in offset order.
    let mut regions: Vec<(u64, u64, Option<usize>)> = Vec::new();
    let mut out = Vec::new();
    let mut fixed = vec![(0u64, 64u64.min(lay.file_size), "[ELF header]")];
    if lay.phnum > 0 {
        fixed.push((lay.phoff, lay.phnum * lay.phentsize, "[program headers]"));
    }
    if lay.shnum > 0 {
        fixed.push((lay.shoff, lay.shnum * lay.shentsize, "[section headers]"));
    }
    for (k, (o, n, _)) in fixed.iter().enumerate() {
        regions.push((*o, *n, Some(usize::MAX - k)));
    }
    for sh in &lay.sections {
        if sh.file_size() > 0 {
            regions.push((sh.offset, sh.file_size(), Some(sh.index)));
        }
    }
    regions.sort_by_key(|r| (r.0, r.1));
    let mut cursor = 0u64;
    for (off, size, what) in regions {
        let end = off + size;
        if end <= cursor {
            continue;
        }
        if off > cursor {
            out.push(whole(cursor, off - cursor, "[padding]"));
        }
        let start = off.max(cursor);
        match what {
            Some(i) if i >= usize::MAX - 2 => {
                out.push(whole(start, end - start, fixed[usize::MAX - i].2));
            }
            Some(i) => {
                let sh = &lay.sections[i];
                section_pieces(
                    sh,
                    start - sh.offset,
                    end - sh.offset,
                    cubin.as_ref(),
                    run,
                    &own,
                    &mut out,
                );
            }
            None => {}
        }
        cursor = end;
    }
    if lay.file_size > cursor {
        out.push(whole(cursor, lay.file_size - cursor, "[padding]"));
    }
    Ok(out)
}

/// Splits section `sh`'s bytes `from..to` (offsets in the section) by
/// input contribution and symbol.
fn section_pieces(
    sh: &Shdr,
    from: u64,
    to: u64,
    cubin: Option<&crate::cubin::model::Cubin<'_>>,
    run: Option<&LinkRun>,
    own: &HashMap<String, BTreeSet<String>>,
    out: &mut Vec<Piece>,
) {
    let kind = labels::kind(&sh.name, sh.sh_type);
    let syms: Vec<Sym> = cubin
        .map(|c| {
            c.symbols
                .iter()
                .filter(|s| s.shndx as usize == sh.index && s.sym_type != STT_SECTION && !s.name.is_empty())
                .map(|s| Sym {
                    name: s.name.clone(),
                    value: s.value,
                    size: s.size,
                })
                .collect()
        })
        .unwrap_or_default();
    let owner = labels::owner_of(&sh.name).map(str::to_string);
    // Input contributions (link only): (start, end, input).
    let mut contribs: Vec<(u64, u64, usize)> = Vec::new();
    let mut owner_input = None;
    if let Some(run) = run {
        let st = &run.state;
        if let Some(k) = st.section_named(&sh.name).filter(|&k| !st.sections[k].removed) {
            for c in st.sections[k].contributions.iter().filter(|c| c.live) {
                contribs.push((c.offset, c.offset.saturating_add(c.size), c.input));
            }
        }
        owner_input = owner
            .as_ref()
            .and_then(|f| st.lookup(f).and_then(|i| st.symbol(i)))
            .map(|s| s.input);
    }
    let mut cuts: BTreeSet<u64> = BTreeSet::from([from, to]);
    for &(a, b, _) in &contribs {
        cuts.extend([a, b].into_iter().filter(|&x| x > from && x < to));
    }
    for s in &syms {
        let end = s.value.saturating_add(s.size);
        cuts.extend([s.value, end].into_iter().filter(|&x| x > from && x < to));
    }
    let cuts: Vec<u64> = cuts.into_iter().collect();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let sym = syms
            .iter()
            .filter(|s| s.value <= a && s.value.saturating_add(s.size) >= b && s.size > 0)
            .min_by_key(|s| (s.size, s.name.clone()));
        let input = contribs
            .iter()
            .rev()
            .find(|&&(x, y, _)| x <= a && y >= b)
            .map(|c| c.2)
            .or(owner_input);
        let (input_l, member_l) = match (run, input) {
            (Some(r), Some(i)) => input_labels(r, i),
            (Some(_), None) => ("[linker]".to_string(), "[linker]".to_string()),
            (None, _) => ("[not known from a cubin]".into(), "[not known from a cubin]".into()),
        };
        let func = sym.map(|s| s.name.clone()).or(owner.clone());
        let kernel = match &func {
            Some(f) if own.contains_key(f) || labels::owner_of(&sh.name).is_some() => kernel_label(own, f),
            _ => "[module]".to_string(),
        };
        out.push(Piece {
            offset: sh.offset + a,
            size: b - a,
            section: sh.name.clone(),
            kind: kind.clone(),
            input: input_l,
            member: member_l,
            kernel,
            symbol: match sym {
                Some(s) => crate::link::event::shown(&s.name),
                None => format!("[{}]", sh.name),
            },
        });
    }
}

/// A node of the report tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub label: String,
    pub size: u64,
    pub children: Vec<Row>,
}

/// Groups `pieces` by `dims` (nested, first outermost), biggest first.
pub fn tree(pieces: &[Piece], dims: &[Dim]) -> Vec<Row> {
    let Some((&d, rest)) = dims.split_first() else {
        return Vec::new();
    };
    let mut groups: BTreeMap<&str, Vec<Piece>> = BTreeMap::new();
    for p in pieces {
        groups.entry(d.of(p)).or_default().push(p.clone());
    }
    let mut rows: Vec<Row> = groups
        .into_iter()
        .map(|(label, ps)| Row {
            label: label.to_string(),
            size: ps.iter().map(|p| p.size).sum(),
            children: tree(&ps, rest),
        })
        .collect();
    rows.sort_by(|a, b| b.size.cmp(&a.size).then(a.label.cmp(&b.label)));
    rows
}

/// The tree as text: size, share of the file, label; `limit` rows per
/// level, the rest summed into one `[N others]` row so totals still add up.
pub fn text(rows: &[Row], dims: &[Dim], total: u64, limit: usize) -> String {
    let head: Vec<&str> = dims.iter().map(|d| d.name()).collect();
    let mut o = format!("{:>10} {:>7}  {}\n", "FILE SIZE", "%", head.join(" / ").to_uppercase());
    fn walk(o: &mut String, rows: &[Row], depth: usize, total: u64, limit: usize) {
        let shown = rows.len().min(limit.max(1));
        for r in &rows[..shown] {
            line(o, depth, r.size, total, &r.label);
            walk(o, &r.children, depth + 1, total, limit);
        }
        if rows.len() > shown {
            let rest: u64 = rows[shown..].iter().map(|r| r.size).sum();
            line(o, depth, rest, total, &format!("[{} others]", rows.len() - shown));
        }
    }
    fn line(o: &mut String, depth: usize, size: u64, total: u64, label: &str) {
        let pct = if total == 0 {
            0.0
        } else {
            size as f64 * 100.0 / total as f64
        };
        o.push_str(&format!("{size:>10} {pct:>6.2}%  {}{label}\n", "  ".repeat(depth)));
    }
    walk(&mut o, rows, 0, total, limit);
    o.push_str(&format!("{total:>10} {:>6.2}%  TOTAL (file size)\n", 100.0));
    o
}

/// One row of a size difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffRow {
    pub label: String,
    pub before: u64,
    pub after: u64,
    pub delta: i64,
    /// `new`, `gone`, `grew` or `shrank`, and for a new function of a link
    /// what keeps it.
    pub why: String,
}

/// What changed between two attributions, by `dim`, biggest change first.
pub fn diff(a: &[Piece], b: &[Piece], dim: Dim, keep_b: Option<&super::keep::KeepGraph>) -> Vec<DiffRow> {
    let sum = |ps: &[Piece]| {
        let mut m: BTreeMap<String, u64> = BTreeMap::new();
        for p in ps {
            *m.entry(dim.of(p).to_string()).or_default() += p.size;
        }
        m
    };
    let (sa, sb) = (sum(a), sum(b));
    let labels: BTreeSet<&String> = sa.keys().chain(sb.keys()).collect();
    let mut rows: Vec<DiffRow> = labels
        .into_iter()
        .filter_map(|l| {
            let (x, y) = (sa.get(l).copied(), sb.get(l).copied());
            let (before, after) = (x.unwrap_or(0), y.unwrap_or(0));
            if before == after {
                return None;
            }
            let mut why = match (x, y) {
                (None, _) => "new".to_string(),
                (_, None) => "gone".to_string(),
                _ if after > before => "grew".to_string(),
                _ => "shrank".to_string(),
            };
            if x.is_none()
                && dim == Dim::Symbol
                && let Some(k) = keep_b
            {
                let name = l.split(" [").next().unwrap_or(l);
                let kept = k.why_kept(name);
                if let Some(root) = kept.chain.first() {
                    why.push_str(&format!(
                        "; kept by {}: {}",
                        crate::link::event::shown(&root.symbol),
                        root.via
                    ));
                }
            }
            Some(DiffRow {
                label: l.clone(),
                before,
                after,
                delta: after as i64 - before as i64,
                why,
            })
        })
        .collect();
    rows.sort_by(|p, q| q.delta.abs().cmp(&p.delta.abs()).then(p.label.cmp(&q.label)));
    rows
}

/// A difference as text.
pub fn diff_text(rows: &[DiffRow], dim: Dim, total_a: u64, total_b: u64) -> String {
    let mut o = format!(
        "{:>10} {:>10} {:>10}  {}\n",
        "BEFORE",
        "AFTER",
        "DELTA",
        dim.name().to_uppercase()
    );
    for r in rows {
        o.push_str(&format!(
            "{:>10} {:>10} {:>+10}  {} ({})\n",
            r.before, r.after, r.delta, r.label, r.why
        ));
    }
    o.push_str(&format!(
        "{total_a:>10} {total_b:>10} {:>+10}  TOTAL (file size)\n",
        total_b as i64 - total_a as i64
    ));
    o
}
