//! Wrapping the status and message lines: a stop reason is shown whole,
//! over as many lines as it needs (up to a limit), never cut at the
//! terminal's width.

/// `text` broken into lines of at most `width` characters, at spaces where
/// it can, at most `max` lines (the last one ends in `…` when cut).
pub fn lines(text: &str, width: usize, max: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    for para in text.split('\n') {
        let mut cur = String::new();
        for word in para.split(' ') {
            let wlen = word.chars().count();
            let clen = cur.chars().count();
            if clen > 0 && clen + 1 + wlen <= width {
                cur.push(' ');
                cur.push_str(word);
                continue;
            }
            if clen > 0 {
                out.push(std::mem::take(&mut cur));
            }
            let mut w: Vec<char> = word.chars().collect();
            while w.len() > width {
                out.push(w.drain(..width).collect());
            }
            cur = w.into_iter().collect();
        }
        out.push(cur);
    }
    if out.len() > max.max(1) {
        out.truncate(max.max(1));
        if let Some(last) = out.last_mut() {
            let keep: String = last.chars().take(width.saturating_sub(1)).collect();
            *last = format!("{keep}…");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn wraps_at_spaces_and_long_words() {
        assert_eq!(super::lines("ab cd ef", 5, 9), ["ab cd", "ef"]);
        assert_eq!(super::lines("abcdefgh", 3, 9), ["abc", "def", "gh"]);
        assert_eq!(super::lines("a b c d", 1, 2), ["a", "…"]);
        assert_eq!(super::lines("", 10, 3), [""]);
    }
}
