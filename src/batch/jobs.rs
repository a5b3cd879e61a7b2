//! Jobs files for `culdb batch`: a RON file
//! (`(jobs: [(name: "a", dir: "sub", args: ["-arch=sm_90", "a.cubin", "-o", "a.out"])])`)
//! or a text file with one nvlink command line per line (shell-style
//! quoting, `#` comments, a trailing `\` continues a line). Relative folders
//! and file names are taken from the jobs file's folder. A malformed file
//! gets one error naming the file, line and column.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};

/// One link to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The job's name in the report: given in a RON file, else `job N`
    /// (RON) or `line N` (text).
    pub name: String,
    /// The folder the link runs in: relative inputs are read from it and a
    /// relative `-o` is written there, as `culdb link` run from it would.
    pub dir: PathBuf,
    /// nvlink's arguments (without the program name).
    pub args: Vec<String>,
    /// Where the job comes from, for messages: `FILE:LINE` (text) or
    /// `FILE: job N` (RON).
    pub origin: String,
}

/// A problem with a jobs file (`FILE:LINE:COL: message`).
pub type JobsError = crate::ronfile::FileError;

/// The two formats of a jobs file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Ron,
    Text,
}

/// The format of `file`: RON for a `.ron` name, or for content that opens
/// (after blanks and `//` comments) with `(` or a `#![enable(...)]`
/// attribute; text otherwise.
pub fn detect(file: &Path, text: &str) -> Format {
    if file.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron")) {
        return Format::Ron;
    }
    for line in text.lines() {
        let l = line.trim_start();
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        return if l.starts_with('(') || l.starts_with("#![") {
            Format::Ron
        } else {
            Format::Text
        };
    }
    Format::Text
}

/// Reads and parses the jobs file at `file`.
pub fn read(file: &Path) -> Result<Vec<Job>, JobsError> {
    let data = std::fs::read(file).map_err(|e| JobsError {
        file: file.to_path_buf(),
        at: None,
        message: format!("cannot read: {e}"),
    })?;
    let text = String::from_utf8(data).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let good = std::str::from_utf8(good).unwrap_or_default();
        JobsError {
            file: file.to_path_buf(),
            at: Some(end_position(good)),
            message: "not UTF-8 text".into(),
        }
    })?;
    parse(file, &text)
}

/// Parses the text of the jobs file `file` (which names the folder relative
/// paths are taken from).
pub fn parse(file: &Path, text: &str) -> Result<Vec<Job>, JobsError> {
    let base = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let jobs = match detect(file, text) {
        Format::Ron => parse_ron(file, &base, text)?,
        Format::Text => parse_text(file, &base, text)?,
    };
    check_names(file, &jobs)?;
    Ok(jobs)
}

fn end_position(text: &str) -> (usize, usize) {
    let line = text.matches('\n').count() + 1;
    let col = text.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, col)
}

fn check_names(file: &Path, jobs: &[Job]) -> Result<(), JobsError> {
    let mut seen = std::collections::HashMap::new();
    for j in jobs {
        if let Some(first) = seen.insert(j.name.as_str(), j.origin.as_str()) {
            return Err(JobsError {
                file: file.to_path_buf(),
                at: None,
                message: format!("two jobs are named '{}' ({first} and {})", j.name, j.origin),
            });
        }
    }
    Ok(())
}

// The names are what RON's messages call them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "jobs_file")]
struct RonFile {
    jobs: Vec<RonJob>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename = "job")]
struct RonJob {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    dir: Option<String>,
    #[serde(deserialize_with = "nonempty_args")]
    args: Vec<String>,
}

/// `args` must hold something: checked while parsing, so that the error
/// carries its position.
fn nonempty_args<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let v = Vec::<String>::deserialize(d)?;
    if v.is_empty() {
        return Err(serde::de::Error::custom(
            "`args` is empty: a job needs nvlink's arguments",
        ));
    }
    Ok(v)
}

fn parse_ron(file: &Path, base: &Path, text: &str) -> Result<Vec<Job>, JobsError> {
    let parsed: RonFile = crate::ronfile::parse(file, text)?;
    Ok(parsed
        .jobs
        .into_iter()
        .enumerate()
        .map(|(i, j)| Job {
            name: j.name.unwrap_or_else(|| format!("job {}", i + 1)),
            dir: match j.dir {
                Some(d) => base.join(d),
                None => base.to_path_buf(),
            },
            args: j.args,
            origin: format!("{}: job {}", file.display(), i + 1),
        })
        .collect())
}

fn parse_text(file: &Path, base: &Path, text: &str) -> Result<Vec<Job>, JobsError> {
    let err = |line, col, message: String| JobsError::at(file, line, col, message);
    let mut jobs = Vec::new();
    for cmd in split_commands(text).map_err(|(l, c, m)| err(l, c, m))? {
        let mut words = cmd.words;
        let dropped = match words.first().map(|w| w.text.as_str()) {
            Some(w) if w == "nvlink" || w.ends_with("/nvlink") => 1,
            Some(w) if (w == "culdb" || w.ends_with("/culdb")) && words.get(1).is_some_and(|w| w.text == "link") => 2,
            _ => 0,
        };
        let last = words.last().map(|w| (w.line, w.col)).unwrap_or((cmd.line, 1));
        words.drain(..dropped);
        if words.is_empty() {
            return Err(err(last.0, last.1, "a command line without nvlink's arguments".into()));
        }
        jobs.push(Job {
            name: format!("line {}", cmd.line),
            dir: base.to_path_buf(),
            args: words.into_iter().map(|w| w.text).collect(),
            origin: format!("{}:{}", file.display(), cmd.line),
        });
    }
    Ok(jobs)
}

/// A word of a command line and where it starts.
#[derive(Debug)]
struct Word {
    text: String,
    line: usize,
    col: usize,
}

/// One command: its words and the line it starts on.
#[derive(Debug)]
struct Command {
    words: Vec<Word>,
    line: usize,
}

/// A character and its 1-based line and column.
type Pos = (char, usize, usize);

fn positions(text: &str) -> Vec<Pos> {
    let mut v = Vec::with_capacity(text.len());
    let (mut line, mut col) = (1, 1);
    for c in text.chars() {
        v.push((c, line, col));
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    v
}

/// Splits the text into commands, a shell's way: words separated by blanks;
/// `'...'` taken literally; `"..."` with `\"`, `\\`, `\$` and `` \` ``
/// escaped; `\c` is `c` outside quotes and a `\` at the end of a line joins
/// the next line; `#` at the start of a word comments out the rest of the
/// line. Quotes do not span lines, and unquoted shell operators
/// (`;`, `|`, `&`, `<`, `>`, `` ` ``) are refused: batch runs no shell.
fn split_commands(text: &str) -> Result<Vec<Command>, (usize, usize, String)> {
    let chars = positions(text);
    let mut cmds = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut cmd_line = 0;
    let mut word: Option<Word> = None;
    let mut i = 0;
    let finish_word = |word: &mut Option<Word>, words: &mut Vec<Word>| {
        if let Some(w) = word.take() {
            words.push(w);
        }
    };
    while i < chars.len() {
        let (c, line, col) = chars[i];
        match c {
            '\r' if chars.get(i + 1).is_some_and(|n| n.0 == '\n') => i += 1,
            '\n' => {
                finish_word(&mut word, &mut words);
                if !words.is_empty() {
                    cmds.push(Command {
                        words: std::mem::take(&mut words),
                        line: cmd_line,
                    });
                }
                i += 1;
            }
            ' ' | '\t' | '\r' => {
                finish_word(&mut word, &mut words);
                i += 1;
            }
            '#' if word.is_none() => {
                while i < chars.len() && chars[i].0 != '\n' {
                    i += 1;
                }
            }
            ';' | '|' | '&' | '<' | '>' | '`' => {
                return Err((
                    line,
                    col,
                    format!("shell operator '{c}' in a jobs file (batch runs no shell; quote it to pass it on)"),
                ));
            }
            _ => {
                if word.is_none() && words.is_empty() {
                    cmd_line = line;
                }
                let w = word.get_or_insert_with(|| Word {
                    text: String::new(),
                    line,
                    col,
                });
                match c {
                    '\\' => match chars.get(i + 1) {
                        None => return Err((line, col, "a '\\' at the end of the file".into())),
                        Some(&('\n', ..)) => {
                            if w.text.is_empty() {
                                word = None;
                            }
                            i += 2;
                        }
                        Some(&('\r', ..)) if chars.get(i + 2).is_some_and(|n| n.0 == '\n') => {
                            if w.text.is_empty() {
                                word = None;
                            }
                            i += 3;
                        }
                        Some(&(n, ..)) => {
                            w.text.push(n);
                            i += 2;
                        }
                    },
                    '\'' | '"' => {
                        let close = quoted(&chars, i, &mut w.text)?;
                        i = close + 1;
                    }
                    _ => {
                        w.text.push(c);
                        i += 1;
                    }
                }
            }
        }
    }
    finish_word(&mut word, &mut words);
    if !words.is_empty() {
        cmds.push(Command { words, line: cmd_line });
    }
    Ok(cmds)
}

/// Appends the quoted text opening at `open` to `out`; returns the index of
/// the closing quote.
fn quoted(chars: &[Pos], open: usize, out: &mut String) -> Result<usize, (usize, usize, String)> {
    let (q, line, col) = chars[open];
    let mut i = open + 1;
    while let Some(&(c, ..)) = chars.get(i) {
        match c {
            '\n' => break,
            _ if c == q => return Ok(i),
            '\\' if q == '"' => match chars.get(i + 1) {
                Some(&(n @ ('"' | '\\' | '$' | '`'), ..)) => {
                    out.push(n);
                    i += 2;
                    continue;
                }
                _ => out.push(c),
            },
            _ => out.push(c),
        }
        i += 1;
    }
    Err((
        line,
        col,
        format!("unterminated {q} quote (quotes end on the line they open)"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<Vec<String>> {
        split_commands(text)
            .unwrap()
            .into_iter()
            .map(|c| c.words.into_iter().map(|w| w.text).collect())
            .collect()
    }

    #[test]
    fn shell_words() {
        assert_eq!(
            words("a 'b c' \"d \\\" e\" f\\ g # x\n\n  # y\nh\\\n i"),
            vec![vec!["a", "b c", "d \" e", "f g"], vec!["h", "i"]]
        );
        assert_eq!(words("a#b '#' \"\\n\""), vec![vec!["a#b", "#", "\\n"]]);
        assert_eq!(words("a\r\nb\r\n"), vec![vec!["a"], vec!["b"]]);
    }

    #[test]
    fn shell_errors() {
        assert_eq!(split_commands("a\n  b 'c\n").unwrap_err().0, 2);
        assert_eq!(split_commands("a\n  b 'c\n").unwrap_err().1, 5);
        let e = split_commands("x > y").unwrap_err();
        assert_eq!((e.0, e.1), (1, 3));
    }

    #[test]
    fn format_by_name_or_content() {
        assert_eq!(detect(Path::new("j.ron"), "a"), Format::Ron);
        assert_eq!(detect(Path::new("j"), "// c\n (jobs: [])"), Format::Ron);
        assert_eq!(
            detect(Path::new("j"), "#![enable(implicit_some)]\n(jobs: [])"),
            Format::Ron
        );
        assert_eq!(detect(Path::new("j"), "# c\nnvlink -arch=sm_90"), Format::Text);
    }
}
