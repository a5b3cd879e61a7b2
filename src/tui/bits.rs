//! The bit view of a relocation: the patched words bit by bit, before and
//! after, each field the relocation writes highlighted, with S + A.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::link::event::Event;
use crate::link::event::reloc::FieldChange;
use crate::link::reloc::RelocEvent;
use crate::link::reloc::bits;
use crate::link::reloc::descriptors::{self, Kind};

use super::app::Ctx;

const BEFORE: Style = Style::new().fg(Color::Red).add_modifier(Modifier::BOLD);
const AFTER: Style = Style::new().fg(Color::Green).add_modifier(Modifier::BOLD);
const FIELD: Style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
const LABEL: Style = Style::new().add_modifier(Modifier::BOLD);

fn action_text(k: Kind) -> String {
    match k {
        Kind::Value(0) => "S + A".into(),
        Kind::Value(s) => format!("(S + A) >> {s}"),
        Kind::SecTypeLo => "section type code".into(),
        Kind::SecTypeHi => "section type code >> 4".into(),
        Kind::Clear => "zero".into(),
        Kind::PcRel => "S + A - P".into(),
    }
}

/// The lines of the bit view of relocation `i`, for a pane `width` wide.
pub fn patch_lines(ctx: &Ctx, i: usize, width: usize) -> Vec<Line<'static>> {
    let ls = ctx.session.state();
    let Some(r) = ls.relocs.get(i) else {
        return Vec::new();
    };
    let sec = ls.sections.get(r.section);
    let sec_name = sec.map(|s| s.name.clone()).unwrap_or_default();
    let sym = ls.symbol_name(r.sym);
    let rtype = crate::debug::breakpoint::reloc_type_name(r.rtype);
    let sm = ls.inputs.get(r.input).map(|x| x.sm).unwrap_or(0);
    let desc = descriptors::cuda(r.rtype, sm);
    let mut out = vec![Line::from(vec![
        Span::styled(format!("#{i} {rtype}"), LABEL),
        Span::raw(format!(
            " at {sec_name}+{:#x} against {}{:+#x} (from {})",
            r.offset,
            crate::demangle::demangle(&sym).unwrap_or(sym.clone()),
            r.addend,
            ls.input_name(r.input)
        )),
    ])];
    // What the relocation phase did with it, as of the clock.
    let fate = ctx
        .d
        .reloc_fate
        .get(i)
        .copied()
        .flatten()
        .and_then(|(k, _)| match ctx.session.events().get(k) {
            Some(Event::Reloc(e)) => Some((k, e.clone())),
            _ => None,
        });
    let (fields, applied): (Vec<FieldChange>, bool) = match &fate {
        Some((
            k,
            RelocEvent::Applied {
                s, a, fields, mercury, ..
            },
        )) => {
            let sum = s.wrapping_add(*a as u64);
            out.push(Line::from(vec![
                Span::styled(format!("applied at #{k}: "), AFTER),
                Span::raw(format!("S = {s:#x}, A = {a:#x}, S + A = {sum:#x}")),
            ]));
            if let Some(m) = mercury {
                out.push(Line::from(vec![
                    Span::styled("  sm_100+ code: ", LABEL),
                    Span::raw(format!(
                        "the Mercury twin {:#x} makes {:#x} of it (the classic type places the field)",
                        m.rtype, m.value
                    )),
                ]));
            }
            (fields.clone(), true)
        }
        Some((k, RelocEvent::Dropped { fields, reason, .. })) => {
            out.push(Line::from(vec![
                Span::styled(format!("dropped at #{k}: "), LABEL),
                Span::raw(reason.clone()),
            ]));
            (fields.clone(), !fields.is_empty())
        }
        Some((k, RelocEvent::Kept { reason, .. })) => {
            out.push(Line::from(vec![
                Span::styled(format!("kept for the driver at #{k}: "), LABEL),
                Span::raw(format!("{reason}; bytes untouched")),
            ]));
            (Vec::new(), false)
        }
        None => {
            out.push(Line::from(vec![
                Span::styled("not handled yet: ", LABEL),
                Span::raw(format!("A = {:#x}; the bits as they are now", r.addend)),
            ]));
            (Vec::new(), false)
        }
    };
    // The fields: what was written, else what the descriptor would write.
    let spans: Vec<(u32, u32)> = if applied {
        fields.iter().map(|f| (u32::from(f.bit), u32::from(f.width))).collect()
    } else {
        desc.map(|d| {
            d.actions
                .iter()
                .map(|a| (u32::from(a.bit), u32::from(a.width)))
                .collect()
        })
        .unwrap_or_default()
    };
    if applied {
        for f in &fields {
            let kind = desc
                .and_then(|d| d.actions.iter().find(|a| a.bit == f.bit))
                .map(|a| action_text(a.kind))
                .unwrap_or_else(|| "?".into());
            out.push(Line::from(vec![
                Span::raw(format!(
                    "bits [{}, {}) ← {kind}: ",
                    f.bit,
                    u32::from(f.bit) + u32::from(f.width)
                )),
                Span::styled(format!("{:#x}", f.before), BEFORE),
                Span::raw(" → "),
                Span::styled(format!("{:#x}", f.after), AFTER),
            ]));
        }
    } else if let Some(d) = desc {
        if d.applicable() {
            let acts: Vec<String> = d
                .actions
                .iter()
                .map(|a| {
                    format!(
                        "[{}, {}) ← {}",
                        a.bit,
                        u32::from(a.bit) + u32::from(a.width),
                        action_text(a.kind)
                    )
                })
                .collect();
            out.push(Line::from(format!("descriptor: {}", acts.join("; "))));
        } else {
            out.push(Line::from("descriptor: no actions (culdb never patches this type)"));
        }
    }
    let Some(sec) = sec else { return out };
    if sec.nobits || sec.data.is_empty() {
        out.push(Line::from(format!("{sec_name} holds no bytes")));
        return out;
    }
    let end_bit = spans.iter().map(|(b, w)| b + w).max().unwrap_or(64).max(1);
    let words = end_bit.div_ceil(64) as usize;
    let at = r.offset as usize;
    let now: Vec<u8> = (0..words * 8)
        .map(|k| sec.data.get(at + k).copied().unwrap_or(0))
        .collect();
    let mut before = now.clone();
    if applied {
        for f in &fields {
            bits::insert(&mut before, 0, f.bit.into(), f.width.into(), f.before);
        }
    }
    let in_field = |bit: u32| spans.iter().any(|(b, w)| bit >= *b && bit < b + w);
    // 64 bits a row when the pane is wide enough, else 32 or 16.
    let per_row: u32 = if width >= 4 + 64 + 7 {
        64
    } else if width >= 4 + 32 + 3 {
        32
    } else {
        16
    };
    for w in 0..words {
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes[w * 8..w * 8 + 8].try_into().unwrap_or([0; 8]));
        let (b, a) = (word(&before), word(&now));
        if words > 1 || !applied {
            out.push(Line::styled(
                format!(
                    "word +{:#x}: {}",
                    r.offset + 8 * w as u64,
                    if applied {
                        format!("{b:#018x} → {a:#018x}")
                    } else {
                        format!("{a:#018x}")
                    }
                ),
                LABEL,
            ));
        }
        let mut hi = 64u32;
        while hi > 0 {
            let lo = hi - per_row;
            out.push(scale(lo, hi));
            let rows: Vec<(&str, u64, Style)> = if applied {
                vec![("was ", b, BEFORE), ("now ", a, AFTER)]
            } else {
                vec![("now ", a, FIELD)]
            };
            for (label, v, hl) in rows {
                let mut s = vec![Span::styled(label, LABEL)];
                for bit in (lo..hi).rev() {
                    let on = (v >> bit) & 1 == 1;
                    let abs = w as u32 * 64 + bit;
                    let style = if in_field(abs) {
                        hl
                    } else {
                        Style::new().fg(Color::DarkGray)
                    };
                    s.push(Span::styled(if on { "1" } else { "0" }, style));
                    if bit.is_multiple_of(8) && bit != lo {
                        s.push(Span::raw(" "));
                    }
                }
                out.push(Line::from(s));
            }
            hi = lo;
        }
    }
    out
}

/// A ruler naming the first bit of each byte group, for bits `lo..hi`.
fn scale(lo: u32, hi: u32) -> Line<'static> {
    let mut s = String::from("bit ");
    let mut bit = hi;
    while bit > lo {
        let label = format!("{}", bit - 1);
        s.push_str(&format!("{label:<9}"));
        bit -= 8;
    }
    Line::styled(s.trim_end().to_string(), Style::new().fg(Color::DarkGray))
}
