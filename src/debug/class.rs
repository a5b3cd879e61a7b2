//! What kind of thing an event is about, for `next`, `trace --level` and
//! the breakpoint predicates. The back-half phases' inner events
//! (`Event::Dce/Layout/Reloc/Finalize`) grow while culdb grows, so they are
//! read through their serde form rather than matched variant by variant.

use serde_json::Value;

use crate::link::event::Event;

/// How coarse an event is: `next` steps over everything finer than the
/// current event's level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// A phase starts or ends.
    Phase,
    /// An input is loaded, skipped, or its merge starts or ends.
    Input,
    /// One item: a symbol, a section, a relocation, a layout or finalize decision.
    Item,
    /// Follow-ups of an item (weak cleanup, diagnostics).
    Detail,
}

/// The level of an event.
pub fn level(e: &Event) -> Level {
    match e {
        Event::PhaseStart { .. } | Event::PhaseEnd { .. } => Level::Phase,
        Event::InputLoaded { .. }
        | Event::InputSkipped { .. }
        | Event::MergeInputStart { .. }
        | Event::MergeInputEnd { .. } => Level::Input,
        Event::WeakCleanup { .. } | Event::Diagnostic(_) => Level::Detail,
        _ => Level::Item,
    }
}

/// Detail chosen with `trace --level`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TraceLevel {
    /// Phase starts and ends, and diagnostics.
    Phase,
    /// Also inputs.
    Input,
    /// Also the decisions: weak decisions, undefined names, commons grown,
    /// and every back-half decision (dce, layout, relocation, finalize).
    Decision,
    /// Every event.
    All,
}

impl TraceLevel {
    pub const NAMES: [&'static str; 4] = ["phase", "input", "decision", "all"];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "phase" | "phases" => Some(TraceLevel::Phase),
            "input" | "inputs" => Some(TraceLevel::Input),
            "decision" | "decisions" => Some(TraceLevel::Decision),
            "all" | "event" | "events" => Some(TraceLevel::All),
            _ => None,
        }
    }

    /// True when an event is shown at this level.
    pub fn shows(self, e: &Event) -> bool {
        let decision = matches!(
            e,
            Event::WeakDecision { .. }
                | Event::Undefined { .. }
                | Event::CommonGrown { .. }
                | Event::Dce(_)
                | Event::Layout(_)
                | Event::Reloc(_)
                | Event::Finalize(_)
                | Event::OutputWritten { .. }
        );
        match self {
            TraceLevel::All => true,
            _ if matches!(e, Event::Diagnostic(_)) => true,
            TraceLevel::Decision if decision => true,
            _ => level(e) <= Self::min_level(self),
        }
    }

    fn min_level(self) -> Level {
        match self {
            TraceLevel::Phase => Level::Phase,
            _ => Level::Input,
        }
    }
}

/// The event's serde form (an object with an `event` tag).
pub fn json(e: &Event) -> Value {
    serde_json::to_value(e).unwrap_or(Value::Null)
}

/// The event's tag (`weak_decision`, `layout`, …) and, for the wrapper
/// events, the inner `kind` (`placed`, `kept`, …).
pub fn tag_and_kind(e: &Event) -> (String, Option<String>) {
    let v = json(e);
    let tag = v.get("event").and_then(Value::as_str).unwrap_or("").to_string();
    let kind = v.get("kind").and_then(Value::as_str).map(str::to_string);
    (tag, kind)
}

/// Field names that hold a symbol name in events (the merge's own events
/// and, by convention, the back-half ones).
const NAME_FIELDS: [&str; 5] = ["name", "symbol", "function", "caller", "callee"];

/// Every symbol name an event mentions.
pub fn symbol_names(e: &Event) -> Vec<String> {
    match e {
        Event::SymbolMapped { name, .. }
        | Event::WeakDecision { name, .. }
        | Event::WeakCleanup { name, .. }
        | Event::CommonGrown { name, .. }
        | Event::Undefined { name, .. } => vec![name.clone()],
        Event::Dce(_) | Event::Layout(_) | Event::Reloc(_) | Event::Finalize(_) => {
            let v = json(e);
            NAME_FIELDS
                .iter()
                .filter_map(|f| v.get(*f).and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        }
        Event::Diagnostic(d) => quoted(&d.text).into_iter().take(1).collect(),
        _ => Vec::new(),
    }
}

/// The names between single quotes in a diagnostic (`'f' in 'a.o'`).
pub fn quoted(text: &str) -> Vec<String> {
    text.split('\'').skip(1).step_by(2).map(str::to_string).collect()
}

/// A value of the event's serde form by dotted path (`incoming.regcount`),
/// or, for a bare name not at the top, the first field of that name found
/// one level down (so `regcount` need not know the nesting).
pub fn field<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::event::Phase;

    #[test]
    fn levels_order_phases_above_inputs_above_items() {
        let p = Event::PhaseStart { phase: Phase::Merge };
        let i = Event::MergeInputEnd { input: 0 };
        let u = Event::Undefined {
            name: "f".into(),
            referenced_by: "a".into(),
            reported: true,
        };
        assert!(level(&p) < level(&i) && level(&i) < level(&u));
        assert!(TraceLevel::Phase.shows(&p) && !TraceLevel::Phase.shows(&i));
        assert!(TraceLevel::Decision.shows(&u) && !TraceLevel::Input.shows(&u));
        assert_eq!(symbol_names(&u), vec!["f".to_string()]);
        assert_eq!(quoted("Undefined reference to 'f' in 'a.o'"), vec!["f", "a.o"]);
        let v = json(&u);
        assert_eq!(field(&v, "referenced_by").and_then(Value::as_str), Some("a"));
    }
}
