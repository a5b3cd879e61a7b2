//! Breakpoints are predicates over events (DESIGN.md §3): by phase or
//! sub-phase, input, symbol, weak decision, relocation, error, dead-code
//! removal, each with an optional condition over the event's fields.
//! Watchpoints compare a symbol's record between events.

use serde_json::Value;

use crate::link::event::{Event, Phase};
use crate::link::state::{LinkState, OutSymbol};

use super::class;
use super::names;

/// The phases by the names `break phase` takes.
pub const PHASES: [(&str, Phase); 9] = [
    ("lto", Phase::Lto),
    ("read", Phase::Read),
    ("merge", Phase::Merge),
    ("resolve", Phase::Resolve),
    ("dce", Phase::Dce),
    ("layout", Phase::Layout),
    ("relocate", Phase::Relocate),
    ("finalize", Phase::Finalize),
    ("emit", Phase::Emit),
];

pub fn phase_named(name: &str) -> Option<Phase> {
    PHASES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// The phase whose wrapper event this is (the back-half decisions).
fn wrapper_phase(e: &Event) -> Option<Phase> {
    match e {
        Event::Dce(_) => Some(Phase::Dce),
        Event::Layout(_) => Some(Phase::Layout),
        Event::Reloc(_) => Some(Phase::Relocate),
        Event::Finalize(_) => Some(Phase::Finalize),
        _ => None,
    }
}

/// What a breakpoint stops on.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// The start of a phase, or the first event of a sub-phase
    /// (`layout.bindless`: the first layout decision about bindless).
    Phase { phase: Phase, sub: Option<String> },
    /// An input loaded, skipped, or its merge starting.
    Input(String),
    /// Any event about the symbol.
    Symbol(String),
    /// A weak decision (about the symbol, when given).
    Weak(Option<String>),
    /// A relocation translated in the merge or handled by the relocation phase.
    Reloc {
        rtype: Option<String>,
        section: Option<String>,
        offset: Option<u64>,
    },
    /// An error or fatal diagnostic.
    Error,
    /// A dead-code-elimination decision.
    Dce,
    /// A watchpoint: the symbol's record changed.
    Watch {
        symbol: String,
        /// The record at the last event seen (None: no such symbol yet).
        last: Option<OutSymbol>,
    },
}

/// A condition: alternatives (`||`) of conjunctions (`&&`) of comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub text: String,
    any: Vec<Vec<Cmp>>,
}

#[derive(Debug, Clone, PartialEq)]
struct Cmp {
    field: String,
    op: Op,
    value: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    /// A bare field: true when present and not false, zero, null or empty.
    Truthy,
}

/// What a condition can see besides the event.
pub struct Ctx<'a> {
    pub phase: Option<Phase>,
    pub index: usize,
    pub state: &'a LinkState,
}

impl Cond {
    /// Parses `FIELD OP VALUE [&& …] [|| …]`; OP is one of `== != < <= > >= ~`.
    pub fn parse(text: &str) -> Result<Cond, String> {
        let toks = tokenize(text)?;
        if toks.is_empty() {
            return Err("empty condition after `if`".into());
        }
        let mut any = vec![Vec::new()];
        let mut i = 0;
        while i < toks.len() {
            let field = toks[i].clone();
            if is_joiner(&field) || op_of(&field).is_some() {
                return Err(format!("condition: expected a field name, found `{field}`"));
            }
            i += 1;
            let cmp = match toks.get(i).and_then(|t| op_of(t)) {
                Some(op) => {
                    let value = toks
                        .get(i + 1)
                        .ok_or_else(|| format!("condition: `{field} {}` needs a value", toks[i]))?;
                    i += 2;
                    Cmp {
                        field,
                        op,
                        value: value.clone(),
                    }
                }
                None => Cmp {
                    field,
                    op: Op::Truthy,
                    value: String::new(),
                },
            };
            any.last_mut().expect("non-empty").push(cmp);
            match toks.get(i).map(String::as_str) {
                None => break,
                Some("&&" | "and") => i += 1,
                Some("||" | "or") => {
                    any.push(Vec::new());
                    i += 1
                }
                Some(t) => return Err(format!("condition: expected `&&` or `||`, found `{t}`")),
            }
            if i >= toks.len() {
                return Err("condition ends with `&&` or `||`".into());
            }
        }
        Ok(Cond {
            text: text.trim().to_string(),
            any,
        })
    }

    pub fn eval(&self, e: &Event, ctx: &Ctx<'_>) -> bool {
        let mut v = class::json(e);
        if let Value::Object(m) = &mut v {
            m.entry("phase")
                .or_insert_with(|| ctx.phase.map(|p| Value::from(p.name())).unwrap_or(Value::Null));
            m.insert("index".into(), Value::from(ctx.index));
        }
        self.any.iter().any(|all| all.iter().all(|c| c.eval(&v)))
    }
}

fn is_joiner(t: &str) -> bool {
    matches!(t, "&&" | "||" | "and" | "or")
}

fn op_of(t: &str) -> Option<Op> {
    Some(match t {
        "==" | "=" => Op::Eq,
        "!=" => Op::Ne,
        "<" => Op::Lt,
        "<=" => Op::Le,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        "~" => Op::Contains,
        _ => return None,
    })
}

/// Splits a condition into words, operators and quoted strings.
fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '"' || c == '\'' {
            let end = cs[i + 1..]
                .iter()
                .position(|&d| d == c)
                .ok_or_else(|| format!("condition: unterminated {c}"))?;
            out.push(cs[i + 1..i + 1 + end].iter().collect());
            i += end + 2;
        } else if "=!<>~&|".contains(c) {
            let two: String = cs[i..(i + 2).min(cs.len())].iter().collect();
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(&two.as_str()) {
                out.push(two);
                i += 2;
            } else if "=<>~".contains(c) {
                out.push(c.to_string());
                i += 1;
            } else {
                return Err(format!("condition: unexpected `{c}`"));
            }
        } else {
            let start = i;
            while i < cs.len() && !cs[i].is_whitespace() && !"=!<>~&|\"'".contains(cs[i]) {
                i += 1;
            }
            out.push(cs[start..i].iter().collect());
        }
    }
    Ok(out)
}

fn parse_num(s: &str) -> Option<f64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok().map(|n| n as f64);
    }
    s.parse::<f64>().ok()
}

impl Cmp {
    fn eval(&self, v: &Value) -> bool {
        let got = class::field(v, &self.field);
        let Some(got) = got else {
            return self.op == Op::Ne;
        };
        if self.op == Op::Truthy {
            return match got {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
        }
        let text = match got {
            Value::String(s) => s.clone(),
            Value::Null => "none".into(),
            other => other.to_string(),
        };
        let is_name = matches!(self.field.rsplit('.').next(), Some("name" | "symbol" | "function"));
        if let (Some(a), Some(b)) = (got.as_f64(), parse_num(&self.value)) {
            return match self.op {
                Op::Eq => a == b,
                Op::Ne => a != b,
                Op::Lt => a < b,
                Op::Le => a <= b,
                Op::Gt => a > b,
                Op::Ge => a >= b,
                Op::Contains => text.contains(&self.value),
                Op::Truthy => unreachable!("handled above"),
            };
        }
        let eq = if is_name {
            names::symbol_matches(&self.value, &text)
        } else if self.value.contains('*') || self.value.contains('?') {
            names::glob(&self.value, &text)
        } else {
            text == self.value
        };
        match self.op {
            Op::Eq => eq,
            Op::Ne => !eq,
            Op::Contains => text.contains(&self.value),
            Op::Lt => text < self.value,
            Op::Le => text <= self.value,
            Op::Gt => text > self.value,
            Op::Ge => text >= self.value,
            Op::Truthy => unreachable!("handled above"),
        }
    }
}

/// A breakpoint or watchpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Breakpoint {
    pub id: usize,
    pub kind: Kind,
    pub cond: Option<Cond>,
    pub enabled: bool,
    pub hits: usize,
}

/// What stopped the run.
#[derive(Debug, Clone, PartialEq)]
pub enum Hit {
    Break(usize),
    Watch {
        id: usize,
        symbol: String,
        old: Option<OutSymbol>,
        new: Option<OutSymbol>,
    },
}

impl Kind {
    /// Parses the words after `break` (without any `if …`).
    pub fn parse(words: &[&str]) -> Result<Kind, String> {
        let Some((&what, rest)) = words.split_first() else {
            return Err("break what? phase, input, symbol, weak, reloc, error or dce (see `help break`)".into());
        };
        let one = |what: &str| -> Result<String, String> {
            match rest {
                [n] => Ok(n.to_string()),
                [] => Err(format!("break {what} needs a name")),
                _ => Err(format!("break {what} takes one name (quote none; use * for any)")),
            }
        };
        match what {
            "phase" => {
                let name = one("phase")?;
                let (p, sub) = match name.split_once('.') {
                    Some((p, s)) if !s.is_empty() => (p, Some(s.to_string())),
                    _ => (name.as_str(), None),
                };
                let phase = phase_named(p).ok_or_else(|| {
                    format!(
                        "no phase `{p}`; phases: {}",
                        PHASES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                    )
                })?;
                if sub.is_some() && !matches!(phase, Phase::Dce | Phase::Layout | Phase::Relocate | Phase::Finalize) {
                    return Err(format!(
                        "phase {p} has no sub-phases; sub-phases belong to dce, layout, relocate and finalize (e.g. layout.bindless, layout.uft)"
                    ));
                }
                Ok(Kind::Phase { phase, sub })
            }
            "input" => Ok(Kind::Input(one("input")?)),
            "symbol" | "sym" => Ok(Kind::Symbol(one("symbol")?)),
            "weak" => match rest {
                [] => Ok(Kind::Weak(None)),
                [n] => Ok(Kind::Weak(Some(n.to_string()))),
                _ => Err("break weak takes at most one name".into()),
            },
            "reloc" | "relocation" => {
                let (mut rtype, mut section, mut offset) = (None, None, None);
                for w in rest {
                    if let Some(s) = w.strip_prefix("section=") {
                        section = Some(s.to_string());
                    } else if let Some(o) = w.strip_prefix("offset=") {
                        offset = Some(parse_u64(o).ok_or_else(|| format!("offset `{o}` is not a number"))?);
                    } else if rtype.is_none() && !w.contains('=') {
                        rtype = Some(w.to_string());
                    } else {
                        return Err(format!("break reloc: unexpected `{w}` (TYPE, section=S, offset=N)"));
                    }
                }
                if let Some(t) = &rtype
                    && parse_u64(t).is_none()
                    && !t.contains('*')
                    && reloc_type_number(t).is_none()
                {
                    return Err(format!(
                        "no relocation type `{t}` (e.g. R_CUDA_ABS32_LO_32, ABS32_LO_32, or a number)"
                    ));
                }
                Ok(Kind::Reloc { rtype, section, offset })
            }
            "error" | "errors" => {
                if !rest.is_empty() {
                    return Err("break error takes no argument".into());
                }
                Ok(Kind::Error)
            }
            "dce" => {
                if !rest.is_empty() {
                    return Err("break dce takes no argument".into());
                }
                Ok(Kind::Dce)
            }
            other => Err(format!(
                "cannot break on `{other}`: phase, input, symbol, weak, reloc, error or dce"
            )),
        }
    }

    /// How `info breakpoints` shows it.
    pub fn describe(&self) -> String {
        match self {
            Kind::Phase { phase, sub: None } => format!("phase {}", phase.name()),
            Kind::Phase { phase, sub: Some(s) } => format!("phase {}.{s}", phase.name()),
            Kind::Input(n) => format!("input {n}"),
            Kind::Symbol(n) => format!("symbol {n}"),
            Kind::Weak(None) => "weak".into(),
            Kind::Weak(Some(n)) => format!("weak {n}"),
            Kind::Reloc { rtype, section, offset } => {
                let mut s = "reloc".to_string();
                if let Some(t) = rtype {
                    s.push_str(&format!(" {t}"));
                }
                if let Some(sec) = section {
                    s.push_str(&format!(" section={sec}"));
                }
                if let Some(o) = offset {
                    s.push_str(&format!(" offset={o:#x}"));
                }
                s
            }
            Kind::Error => "error".into(),
            Kind::Dce => "dce".into(),
            Kind::Watch { symbol, .. } => format!("watch symbol {symbol}"),
        }
    }

    /// True when the event matches (watchpoints are checked by the session).
    pub fn matches(&self, e: &Event, prev: Option<&Event>, state: &LinkState) -> bool {
        match self {
            Kind::Phase { phase, sub: None } => matches!(e, Event::PhaseStart { phase: p } if p == phase),
            Kind::Phase { phase, sub: Some(sub) } => {
                in_sub_phase(e, *phase, sub) && !prev.is_some_and(|p| in_sub_phase(p, *phase, sub))
            }
            Kind::Input(n) => match e {
                Event::InputLoaded { name, .. } | Event::MergeInputStart { name, .. } => names::input_matches(n, name),
                Event::InputSkipped { path, .. } => names::input_matches(n, path),
                _ => false,
            },
            Kind::Symbol(n) => class::symbol_names(e).iter().any(|s| names::symbol_matches(n, s)),
            Kind::Weak(n) => match e {
                Event::WeakDecision { name, .. } => n.as_ref().is_none_or(|n| names::symbol_matches(n, name)),
                _ => false,
            },
            Kind::Reloc { rtype, section, offset } => match reloc_fields(e, state) {
                Some((t, sec_name, sec_idx, off)) => {
                    rtype.as_ref().is_none_or(|want| reloc_type_matches(want, &t))
                        && section.as_ref().is_none_or(|want| {
                            names::glob(want, &sec_name) || sec_idx.is_some_and(|i| want == &i.to_string())
                        })
                        && offset.is_none_or(|want| off == Some(want))
                }
                None => false,
            },
            Kind::Error => matches!(
                e,
                Event::Diagnostic(d) if d.severity >= crate::link::diag::Severity::Error
            ),
            Kind::Dce => matches!(e, Event::Dce(_)),
            Kind::Watch { .. } => false,
        }
    }
}

/// True when `e` is a decision of `phase` about sub-phase `sub`: its
/// inner kind contains the word, or one of its text fields is the word.
fn in_sub_phase(e: &Event, phase: Phase, sub: &str) -> bool {
    if wrapper_phase(e) != Some(phase) {
        return false;
    }
    // The layout sub-phases are typed: their events are wrapped in their own variant.
    use crate::link::layout::LayoutEvent;
    match e {
        Event::Layout(LayoutEvent::Bindless(_)) => return sub == "bindless",
        Event::Layout(LayoutEvent::Uft(_)) => return sub == "uft",
        _ => {}
    }
    let v = class::json(e);
    let Value::Object(m) = v else { return false };
    m.iter().any(|(k, val)| match val.as_str() {
        Some(s) if k == "kind" => s.contains(sub),
        Some(s) if !matches!(k.as_str(), "event" | "name" | "symbol" | "function") => s == sub,
        _ => false,
    })
}

pub fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// A relocation type by its name (with or without `R_CUDA_`) or number.
pub fn reloc_type_number(t: &str) -> Option<u32> {
    if let Some(n) = parse_u64(t) {
        return u32::try_from(n).ok();
    }
    let upper = t.to_ascii_uppercase();
    crate::cubin::catalog::reloc_number(&upper)
        .or_else(|| crate::cubin::catalog::reloc_number(&format!("R_CUDA_{upper}")))
        .map(|(_, n)| n)
}

/// cuobjdump's name of a relocation type, or `type N`.
pub fn reloc_type_name(rtype: u32) -> String {
    use crate::cubin::catalog::{RelocFamily, reloc_name};
    reloc_name(RelocFamily::Cuda, rtype)
        .or_else(|| reloc_name(RelocFamily::Mercury, rtype))
        .map(str::to_string)
        .unwrap_or_else(|| format!("type {rtype}"))
}

fn reloc_type_matches(want: &str, got: &str) -> bool {
    let g = got.to_ascii_uppercase();
    let w = want.to_ascii_uppercase();
    if names::glob(&w, &g) || names::glob(&format!("R_CUDA_{w}"), &g) {
        return true;
    }
    match (reloc_type_number(want), reloc_type_number(got)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// (type name, section name, section index, offset) of a relocation event.
fn reloc_fields(e: &Event, state: &LinkState) -> Option<(String, String, Option<usize>, Option<u64>)> {
    match e {
        Event::RelocMapped {
            out_section,
            offset,
            rtype,
            ..
        } => Some((
            reloc_type_name(*rtype),
            state
                .sections
                .get(*out_section)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            Some(*out_section),
            Some(*offset),
        )),
        Event::Reloc(_) => {
            let v = class::json(e);
            let t = match v.get("rtype").or_else(|| v.get("type")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.as_u64().map(|n| reloc_type_name(n as u32)).unwrap_or_default(),
                _ => String::new(),
            };
            let (sec_name, sec_idx) = match v.get("section") {
                Some(Value::String(s)) => (s.clone(), state.section_named(s)),
                Some(Value::Number(n)) => {
                    let i = n.as_u64().unwrap_or(0) as usize;
                    (
                        state.sections.get(i).map(|s| s.name.clone()).unwrap_or_default(),
                        Some(i),
                    )
                }
                _ => (String::new(), None),
            };
            Some((t, sec_name, sec_idx, v.get("offset").and_then(Value::as_u64)))
        }
        _ => None,
    }
}

/// Where a watchpoint's symbol was found, so that it is not looked for by
/// demangling every symbol at every event.
#[derive(Debug, Clone, Default)]
pub struct WatchCache {
    found: Option<crate::link::state::SymIdx>,
    locals_seen: usize,
    globals_seen: usize,
}

/// [`watched`], looking only at the symbols added since the last call
/// (output symbol indices never change once given).
pub fn watched_cached(state: &LinkState, pattern: &str, cache: &mut WatchCache) -> Option<OutSymbol> {
    if let Some(i) = cache.found {
        match state.symbol(i) {
            Some(s) if &*s.name == pattern || names::symbol_matches(pattern, &s.name) => return Some(s.clone()),
            _ => *cache = WatchCache::default(),
        }
    }
    if cache.locals_seen > state.locals.len() || cache.globals_seen > state.globals.len() {
        *cache = WatchCache::default();
    }
    if let Some(i) = state.lookup(pattern) {
        cache.found = Some(i);
        return state.symbol(i).cloned();
    }
    let new_locals = state.locals.iter().enumerate().skip(cache.locals_seen);
    let hit_local = new_locals
        .map(|(k, s)| (crate::link::state::SymIdx(k as i32 + 1), s))
        .find(|(_, s)| names::symbol_matches(pattern, &s.name));
    let hit = hit_local.or_else(|| {
        state
            .globals
            .iter()
            .enumerate()
            .skip(cache.globals_seen)
            .map(|(k, s)| (crate::link::state::SymIdx(-(k as i32) - 1), s))
            .find(|(_, s)| names::symbol_matches(pattern, &s.name))
    });
    cache.locals_seen = state.locals.len();
    cache.globals_seen = state.globals.len();
    hit.map(|(i, s)| {
        cache.found = Some(i);
        s.clone()
    })
}

/// The record a watchpoint compares: the symbol named `pattern` (exact
/// name first, then demangled), None while the link has no such symbol.
pub fn watched(state: &LinkState, pattern: &str) -> Option<OutSymbol> {
    if let Some(i) = state.lookup(pattern) {
        return state.symbol(i).cloned();
    }
    state
        .all_symbols()
        .find(|(_, s)| names::symbol_matches(pattern, &s.name))
        .map(|(_, s)| s.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_and_evaluate() {
        let c = Cond::parse("incoming.regcount > 20 && rule == fewer_registers").unwrap();
        let st = LinkState::new();
        let ctx = Ctx {
            phase: Some(Phase::Merge),
            index: 3,
            state: &st,
        };
        let ev = Event::Undefined {
            name: "_Z1fv".into(),
            referenced_by: "a.cubin".into(),
            reported: true,
        };
        assert!(!c.eval(&ev, &ctx));
        assert!(Cond::parse("name == f").unwrap().eval(&ev, &ctx));
        assert!(Cond::parse("name == g || reported").unwrap().eval(&ev, &ctx));
        assert!(Cond::parse("phase == merge && index >= 3").unwrap().eval(&ev, &ctx));
        assert!(!Cond::parse("referenced_by ~ b.cu").unwrap().eval(&ev, &ctx));
        assert!(Cond::parse("x ==").is_err());
        assert!(Cond::parse("a == 1 &&").is_err());
        assert!(Cond::parse("a b").is_err());
        assert!(Cond::parse("a == 'unterminated").is_err());
    }

    #[test]
    fn kinds_parse() {
        assert!(Kind::parse(&["phase", "layout.uft"]).is_ok());
        assert!(Kind::parse(&["phase", "merge.x"]).is_err());
        assert!(Kind::parse(&["phase", "nope"]).is_err());
        assert!(Kind::parse(&["reloc", "ABS32_LO_32", "section=.text.k", "offset=0x10"]).is_ok());
        assert!(Kind::parse(&["reloc", "R_CUDA_NOPE"]).is_err());
        assert!(Kind::parse(&["reloc", "offset=zz"]).is_err());
        assert!(Kind::parse(&["bogus"]).is_err());
        assert!(Kind::parse(&[]).is_err());
    }
}
