//! The events pane: the link's events so far, the current one marked;
//! `b` sets a breakpoint that stops at events like the selected one, Enter
//! goes to it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use crate::debug::{Session, inspect};
use crate::link::event::Event;
use crate::tui::app::Ctx;
use crate::tui::list;
use crate::tui::view::PaneKind;

use super::{BAD, PaneStates, bp_name, note};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let s = ctx.session;
    let evs = s.events();
    if evs.is_empty() {
        note(area, buf, "no events yet: s steps, c continues");
        return String::new();
    }
    let cur = s.position().saturating_sub(1);
    list::draw(buf, area, evs.len(), st.list(PaneKind::Events), focused, |k| {
        let text = inspect::event_line(s, k, &evs[k]);
        let style = if k == cur {
            Style::new().add_modifier(Modifier::BOLD)
        } else if k >= ctx.d.prev_pos.min(ctx.d.pos) && ctx.d.prev_pos < ctx.d.pos {
            Style::new().fg(Color::Yellow)
        } else {
            Style::new()
        };
        let text = if matches!(evs[k], Event::Diagnostic(_)) {
            return Line::styled(text, BAD);
        } else {
            text
        };
        Line::styled(format!("{}{text}", if k == cur { "=> " } else { "   " }), style)
    });
    format!("{} of {}", s.position(), s.known_events().len())
}

/// The text search looks at: the event line.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let s: &'a Session = ctx.session;
    Box::new(move |i| s.events()[i].to_string())
}

pub(super) fn break_command(ctx: &Ctx, sel: usize) -> Option<String> {
    event_break(ctx.session.events().get(sel)?)
}

pub(super) fn enter_command(ctx: &Ctx, sel: usize) -> Option<String> {
    (sel < ctx.session.events().len()).then(|| format!("goto {sel}"))
}

/// A breakpoint that stops at events like `e`.
fn event_break(e: &Event) -> Option<String> {
    use crate::link::reloc::RelocEvent as R;
    match e {
        Event::PhaseStart { phase } | Event::PhaseEnd { phase } => Some(format!("break phase {}", phase.name())),
        Event::WeakDecision { name, .. } => bp_name(name).map(|n| format!("break weak {n}")),
        Event::SymbolMapped { name, .. } | Event::CommonGrown { name, .. } | Event::Undefined { name, .. } => {
            bp_name(name).map(|n| format!("break symbol {n}"))
        }
        Event::InputLoaded { name, .. } | Event::MergeInputStart { name, .. } => {
            bp_name(name).map(|n| format!("break input {n}"))
        }
        Event::Reloc(
            R::Applied { section, offset, .. } | R::Kept { section, offset, .. } | R::Dropped { section, offset, .. },
        ) => bp_name(section).map(|s| format!("break reloc section={s} offset={offset:#x}")),
        Event::RelocMapped { rtype, .. } => Some(format!(
            "break reloc {}",
            crate::debug::breakpoint::reloc_type_name(*rtype)
        )),
        Event::Diagnostic(_) => Some("break error".into()),
        Event::Dce(_) => Some("break dce".into()),
        _ => None,
    }
}
