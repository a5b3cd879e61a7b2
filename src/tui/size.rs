//! The size pane: where the output's bytes come from, the tree `culdb size`
//! prints (kind → section, then the kernels), once the output is built.
//! Before that, the output sections' sizes so far by kind.

use std::cell::RefCell;
use std::collections::BTreeMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Widget};

use crate::report::size::{self, Dim};
use crate::report::{labels, run};

use super::app::Ctx;

thread_local! {
    /// The last report, by (command line, output bytes): the output of a
    /// finished link does not change, and the report links it again.
    static CACHE: RefCell<Option<(u64, String, String)>> = const { RefCell::new(None) };
}

fn key(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(bytes.len() as u64, |h, &b| h.wrapping_mul(31).wrapping_add(b as u64))
}

/// The report of a finished link: (text, title info).
fn finished(ctx: &Ctx, bytes: &[u8]) -> (String, String) {
    let k = key(bytes);
    if let Some(hit) = CACHE.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|(ck, _, _)| *ck == k)
            .map(|(_, t, i)| (t.clone(), i.clone()))
    }) {
        return hit;
    }
    let o = ctx.session.origin();
    let linked = run::link(&o.args, &o.dir)
        .ok()
        .filter(|r| r.output.as_deref() == Some(bytes));
    let pieces = match size::pieces(bytes, linked.as_ref()) {
        Ok(p) => p,
        Err(e) => return (format!("the output cannot be read: {e}"), String::new()),
    };
    let total = bytes.len() as u64;
    let mut text = size::text(
        &size::tree(&pieces, &[Dim::Kind, Dim::Section]),
        &[Dim::Kind, Dim::Section],
        total,
        12,
    );
    text.push('\n');
    text.push_str(&size::text(
        &size::tree(&pieces, &[Dim::Kernel]),
        &[Dim::Kernel],
        total,
        20,
    ));
    if linked.is_some() {
        text.push('\n');
        text.push_str(&size::text(
            &size::tree(&pieces, &[Dim::Input]),
            &[Dim::Input],
            total,
            20,
        ));
    }
    let info = format!("{total} bytes");
    CACHE.with(|c| *c.borrow_mut() = Some((k, text.clone(), info.clone())));
    (text, info)
}

/// The sections so far, by kind (before the output is built).
fn so_far(ctx: &Ctx) -> String {
    let st = ctx.session.state();
    let mut by: BTreeMap<String, (u64, usize)> = BTreeMap::new();
    for s in st.sections.iter().skip(1).filter(|s| !s.removed) {
        let e = by.entry(labels::kind(&s.name, s.sh_type)).or_default();
        e.0 += s.size;
        e.1 += 1;
    }
    let mut o = String::from("the output is not built yet (`goto end` or `c` builds it);\nsection sizes so far:\n");
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    for (kind, (size, n)) in rows {
        o.push_str(&format!(
            "{size:>10}  {kind} ({n} section{})\n",
            if n == 1 { "" } else { "s" }
        ));
    }
    o
}

/// Draws the pane, scrolled `scroll` lines; returns the title's info.
pub fn render(ctx: &Ctx, scroll: usize, area: Rect, buf: &mut Buffer) -> String {
    let (text, info) = match ctx.session.linker().output() {
        Some(bytes) => finished(ctx, bytes),
        None => (so_far(ctx), "not built yet".to_string()),
    };
    Paragraph::new(text)
        .scroll((scroll.min(u16::MAX as usize) as u16, 0))
        .render(area, buf);
    info
}
