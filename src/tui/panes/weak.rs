//! The weak pane: the weak-symbol decisions so far, and for the selected
//! one both candidates side by side with the rule that decided and the
//! winner.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::link::event::{Event, WeakCandidate, WeakRule};
use crate::tui::app::Ctx;
use crate::tui::list::{self, fit};
use crate::tui::view::PaneKind;

use super::symbols::binding;
use super::{BAD, CHANGED, GOOD, HEADER, PaneStates, bp_name, display_name, note, sym_why};

pub(super) fn render(ctx: &Ctx, st: &mut PaneStates, area: Rect, buf: &mut Buffer, focused: bool) -> String {
    let evs = ctx.session.events();
    let ds = &ctx.d.weak;
    if ds.is_empty() {
        note(
            area,
            buf,
            "no weak decisions so far (`:break weak` then c stops at the next one)",
        );
        return String::new();
    }
    const DETAIL: u16 = 8;
    let list_h = area.height.saturating_sub(DETAIL);
    let ls_area = Rect { height: list_h, ..area };
    let short = |c: &WeakCandidate| {
        format!(
            "{} {}r {}",
            c.input_name,
            c.regcount.map(|r| r.to_string()).unwrap_or("?".into()),
            c.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or("?".into())
        )
    };
    let lst = st.list(PaneKind::Weak);
    if list_h > 0 {
        list::draw(buf, ls_area, ds.len(), lst, focused, |i| {
            let k = ds[i];
            let Event::WeakDecision {
                name,
                existing,
                incoming,
                incoming_wins,
                ..
            } = &evs[k]
            else {
                return Line::default();
            };
            let w = if *incoming_wins { incoming } else { existing };
            Line::from(format!(
                "#{k} {}: {} vs {} → {}",
                display_name(name),
                short(existing),
                short(incoming),
                w.input_name
            ))
        });
    } else {
        lst.fit(ds.len(), 0);
    }
    let sel = lst.selected.min(ds.len() - 1);
    let k = ds[sel];
    let Event::WeakDecision {
        name,
        out,
        existing,
        incoming,
        rule,
        incoming_wins,
    } = &evs[k]
    else {
        return String::new();
    };
    let det = Rect {
        y: area.y + list_h,
        height: area.height - list_h,
        ..area
    };
    let cw = (det.width as usize).saturating_sub(12) / 2;
    let win = |incoming: bool| incoming == *incoming_wins;
    let col = |c: &WeakCandidate, is_in: bool, f: &dyn Fn(&WeakCandidate) -> String| {
        Span::styled(fit(&f(c), cw), if win(is_in) { GOOD } else { BAD })
    };
    let row = |label: &str, f: &dyn Fn(&WeakCandidate) -> String, hot: bool| {
        Line::from(vec![
            Span::styled(fit(label, 12), if hot { CHANGED } else { HEADER }),
            col(existing, false, f),
            col(incoming, true, f),
        ])
    };
    let hot = |r: WeakRule| *rule == r;
    let lines = [
        Line::from(vec![
            Span::styled(fit(&format!("#{k} {out}"), 12), HEADER),
            Span::styled(
                fit(
                    &format!("existing{}", if *incoming_wins { "" } else { " (winner)" }),
                    cw,
                ),
                HEADER,
            ),
            Span::styled(
                fit(
                    &format!("incoming{}", if *incoming_wins { " (winner)" } else { "" }),
                    cw,
                ),
                HEADER,
            ),
        ]),
        row(
            "input",
            &|c| format!("#{} {}", c.input, c.input_name),
            hot(WeakRule::FirstDefinition) || hot(WeakRule::FirstDataDefinition),
        ),
        row(
            "binding",
            &|c| binding(c.binding).to_ascii_lowercase(),
            hot(WeakRule::GlobalOverWeak) || hot(WeakRule::GlobalKept),
        ),
        row(
            "registers",
            &|c| c.regcount.map(|r| r.to_string()).unwrap_or("?".into()),
            hot(WeakRule::FewerRegisters),
        ),
        row(
            "PTX target",
            &|c| c.virtual_sm.map(|v| format!("sm_{v}")).unwrap_or("?".into()),
            hot(WeakRule::HigherVirtualSm),
        ),
        row("size", &|c| format!("{:#x}", c.size), false),
        Line::from(vec![
            Span::styled(fit("rule", 12), HEADER),
            Span::styled(format!("{rule:?}: {}", rule.describe()), CHANGED),
        ]),
        Line::from(vec![
            Span::styled(fit("winner", 12), HEADER),
            Span::styled(
                if *incoming_wins {
                    format!("incoming: {} (input #{})", incoming.input_name, incoming.input)
                } else {
                    format!("existing: {} (input #{})", existing.input_name, existing.input)
                },
                GOOD,
            ),
        ]),
    ];
    for (i, l) in lines.iter().enumerate().take(det.height as usize) {
        buf.set_line(det.x, det.y + i as u16, l, det.width);
    }
    format!("{} so far; {}", ds.len(), display_name(name))
}

/// The text search looks at: the decision's event line.
pub(super) fn row_text<'a>(ctx: &Ctx<'a>) -> Box<dyn Fn(usize) -> String + 'a> {
    let (s, d) = (ctx.session, ctx.d);
    Box::new(move |i| s.events()[d.weak[i]].to_string())
}

pub(super) fn break_command(ctx: &Ctx, sel: usize) -> Option<String> {
    let k = *ctx.d.weak.get(sel)?;
    match &ctx.session.events()[k] {
        Event::WeakDecision { name, .. } => bp_name(name).map(|n| format!("break weak {n}")),
        _ => None,
    }
}

pub(super) fn enter_command(ctx: &Ctx, sel: usize) -> Option<String> {
    match ctx.session.events().get(*ctx.d.weak.get(sel)?)? {
        Event::WeakDecision { out, .. } => sym_why(ctx.session.state(), *out),
        _ => None,
    }
}
