//! The commands, their abbreviations and their help texts: one table that
//! `help`, the parser and tab completion all read.

/// One command of the language.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    /// gdb-style abbreviations accepted besides unique prefixes.
    pub aliases: &'static [&'static str],
    pub usage: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
}

/// What `info` shows.
pub const INFO_TOPICS: [&str; 14] = [
    "breakpoints",
    "inputs",
    "sections",
    "symbols",
    "maps",
    "weak",
    "relocs",
    "uft",
    "udt",
    "bindless",
    "callgraph",
    "layout",
    "events",
    "status",
];

/// What `break` takes.
pub const BREAK_KINDS: [&str; 7] = ["phase", "input", "symbol", "weak", "reloc", "error", "dce"];

/// What `print` takes.
pub const PRINT_KINDS: [&str; 3] = ["symbol", "section", "reloc"];

pub const COMMANDS: &[Spec] = &[
    Spec {
        name: "step",
        aliases: &["s"],
        usage: "step [N]",
        summary: "one event forward (N events)",
        help: "Delivers the next event of the link (one linker step can produce several events; \
they come one at a time). With N, N events; stops early at a breakpoint or the end.",
    },
    Spec {
        name: "next",
        aliases: &["n"],
        usage: "next [N]",
        summary: "the next item at the current level",
        help: "Runs to the next event at the level of the current one: the next input when at an \
input, the next symbol, section or relocation when at one of those, over everything finer. \
At a phase start, the first input or item of the phase. Breakpoints still stop it.",
    },
    Spec {
        name: "finish",
        aliases: &["fin"],
        usage: "finish",
        summary: "run to the end of the current phase",
        help: "Runs to the `phase X ends` event of the phase now running (between phases: of the next one).",
    },
    Spec {
        name: "continue",
        aliases: &["c", "cont"],
        usage: "continue",
        summary: "run to the next breakpoint or the end",
        help: "Runs forward until a breakpoint or watchpoint hits, or the link ends.",
    },
    Spec {
        name: "run",
        aliases: &["r"],
        usage: "run",
        summary: "restart, then continue",
        help: "Goes back to the beginning of the link and runs to the first breakpoint or the end.",
    },
    Spec {
        name: "reverse-step",
        aliases: &["rs"],
        usage: "reverse-step [N]",
        summary: "one event back (N events)",
        help: "Moves the clock one event back: the nearest checkpoint is restored and the link \
replayed to the event before (linking is deterministic, so the state is the one it had then).",
    },
    Spec {
        name: "reverse-next",
        aliases: &["rn"],
        usage: "reverse-next [N]",
        summary: "back to the previous item at the current level",
        help: "Moves back to the previous event at the level of the current one (input, symbol, section, relocation).",
    },
    Spec {
        name: "reverse-continue",
        aliases: &["rc"],
        usage: "reverse-continue",
        summary: "back to the previous breakpoint hit",
        help: "Moves back to the last event before the current one where a breakpoint or watchpoint \
hits, or to the beginning.",
    },
    Spec {
        name: "goto",
        aliases: &["g"],
        usage: "goto EVENT",
        summary: "make event #EVENT the current one",
        help: "Jumps to event number EVENT (as `info events` numbers them), backwards or forwards, \
without stopping at breakpoints. `goto 0` is the first event; `goto end` runs to the end.",
    },
    Spec {
        name: "restart",
        aliases: &[],
        usage: "restart",
        summary: "back to before the first event",
        help: "Goes back to the beginning of the link; breakpoints stay.",
    },
    Spec {
        name: "break",
        aliases: &["b", "br"],
        usage: "break phase|input|symbol|weak|reloc|error|dce [ARGS] [if COND]",
        summary: "stop at an event",
        help: "break phase P           at the start of phase P (read, merge, resolve, dce, layout, relocate,
                        finalize, emit); P.SUB (layout.bindless, layout.uft, ...) at the first
                        decision of that sub-phase
break input NAME        when input NAME (file, a.cubin, or archive member) is loaded or merged
break symbol NAME       at any event about the symbol (mangled or demangled name, globs * ?)
break weak [NAME]       at a weak decision (about NAME)
break reloc [TYPE] [section=S] [offset=N]
                        at a relocation (type as R_CUDA_ABS32_LO_32, ABS32_LO_32 or a number)
break error             at an error or fatal diagnostic
break dce               at a dead-code-elimination decision
... if COND             only when COND holds: FIELD OP VALUE joined by && and ||, OP one of
                        == != < <= > >= ~ (contains); FIELD is a field of the event's JSON form
                        (`trace --json` shows them; nested with dots: incoming.regcount),
                        or phase, index. Example: break weak if incoming.regcount > 32",
    },
    Spec {
        name: "watch",
        aliases: &["wa"],
        usage: "watch symbol NAME",
        summary: "stop when a symbol's record changes",
        help: "Stops when the output symbol NAME appears or its record changes (binding, type, \
section, value, size, defining input, registers, removed), and prints the old and new record.",
    },
    Spec {
        name: "delete",
        aliases: &["d"],
        usage: "delete [N...]",
        summary: "delete breakpoints (all without N)",
        help: "Deletes the breakpoints and watchpoints numbered N (all of them when none is given).",
    },
    Spec {
        name: "disable",
        aliases: &["dis"],
        usage: "disable N...",
        summary: "disable breakpoints",
        help: "Disables the breakpoints numbered N (they stay listed and can be enabled again).",
    },
    Spec {
        name: "enable",
        aliases: &["en"],
        usage: "enable N...",
        summary: "enable breakpoints",
        help: "Enables the breakpoints numbered N.",
    },
    Spec {
        name: "info",
        aliases: &["i"],
        usage: "info breakpoints|inputs|sections|symbols|maps|weak|relocs|uft|udt|bindless|callgraph|layout|events|status",
        summary: "show the link state",
        help: "info breakpoints        breakpoints and watchpoints, with hit counts
info inputs             the input cubins (name, SM, virtual SM, origin) and skipped inputs
info sections           the output sections (type, flags, size, align, contributions)
info symbols [PATTERN]  the output symbols with their signed indices (locals +, globals -)
info maps [INPUT]       an input's mapping arrays (map_symbol_index, map_section_index,
                        map_section_offset, weak_processed)
info weak               every weak decision so far, with both candidates
info relocs [SECTION]   the output relocations
info uft|udt|bindless   the unified function / data tables and bindless references
info callgraph          the call-graph records
info layout             each output section's pieces, and the layout decisions so far
info events [N|all|A-B] the last N (20) events, all of them, or events A to B
info status             where the session stands",
    },
    Spec {
        name: "print",
        aliases: &["p"],
        usage: "print symbol|section|reloc WHAT",
        summary: "show one symbol, section or relocation",
        help: "print symbol NAME       the output symbol's whole record
print section NAME|IDX  the output section and where its bytes came from
print reloc #N|SECTION+OFFSET   a relocation
print NAME              a symbol, else a section of that name",
    },
    Spec {
        name: "x",
        aliases: &[],
        usage: "x SECTION+OFFSET [LEN]",
        summary: "hex view of section bytes, relocation fields marked",
        help: "Shows LEN (64) bytes of an output section from OFFSET (decimal or 0x...), 16 a row; \
the bytes a relocation patches are marked ^^ and the relocation is named under the row.",
    },
    Spec {
        name: "why",
        aliases: &["y"],
        usage: "why SYMBOL",
        summary: "the events that decided a symbol",
        help: "Lists, up to the current event, every event that decided SYMBOL: which input \
defined or referenced it (and which archive member it came from), what it replaced and by which \
weak rule, why it is undefined or removed; then its record now.",
    },
    Spec {
        name: "why-kept",
        aliases: &["wk"],
        usage: "why-kept SYMBOL",
        summary: "the chain that keeps a symbol in the output",
        help: "Prints the chain that keeps SYMBOL (mangled or demangled) in the output: its root (a kernel \
and the rule that keeps it: every kernel, -kernels-used, the host objects' kernel lists; a function whose \
address data holds; -g or -r), then each call-graph edge or address reference down to SYMBOL. For a \
removed symbol, the reason dead-code elimination gave. Links the session's command line to the end on a copy.",
    },
    Spec {
        name: "why-pulled",
        aliases: &["wp"],
        usage: "why-pulled MEMBER",
        summary: "why an archive member was linked or left out",
        help: "For an archive member (`libx.a:m.o` or `m.o`): linked or not, the rule (nvlink links every \
host-object member of an archive; a libcudadevrt member only for a function the link calls), and the \
undefined symbols of other inputs it defines, with who refers to them.",
    },
    Spec {
        name: "explain",
        aliases: &["e"],
        usage: "explain RELOC",
        summary: "a relocation: S, A, bytes, and what the linker did with it",
        help: "RELOC is #N (as `info relocs` numbers them) or SECTION+OFFSET. Shows the relocation, \
S (the symbol's value) and A (the addend), the bytes at its offset, and every event about it: \
its translation in the merge and what the relocation phase did (fields of the event: the \
descriptor actions, the bits before and after, where the phase records them).",
    },
    Spec {
        name: "where",
        aliases: &["w", "bt"],
        usage: "where",
        summary: "the current event and phase",
        help: "Prints the clock (the current event number), the phase and the current event.",
    },
    Spec {
        name: "save",
        aliases: &[],
        usage: "save scenario FILE",
        summary: "record this session as a scenario (RON)",
        help: "Writes FILE, a scenario that replays this session with `culdb replay`: the link's \
arch, options and inputs (file paths made relative to FILE's folder; a session opened from a \
scenario keeps its synthetic objects), the breakpoints set before the first movement, every \
command run since as the script, and what was found as expectations: where the session stands \
now, the exit status, the diagnostics and the weak decisions.",
    },
    Spec {
        name: "help",
        aliases: &["h", "?"],
        usage: "help [COMMAND]",
        summary: "list commands, or explain one",
        help: "Without an argument lists every command; `help CMD` explains CMD.",
    },
    Spec {
        name: "quit",
        aliases: &["q", "exit"],
        usage: "quit",
        summary: "leave",
        help: "Leaves the debugger (the exit status is the link's).",
    },
];

/// The command a word names: the name, an abbreviation, or a unique prefix.
pub fn lookup(word: &str) -> Result<&'static Spec, String> {
    if let Some(s) = COMMANDS.iter().find(|s| s.name == word || s.aliases.contains(&word)) {
        return Ok(s);
    }
    let cands: Vec<&Spec> = COMMANDS.iter().filter(|s| s.name.starts_with(word)).collect();
    match cands.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("unknown command `{word}` (try `help`)")),
        many => Err(format!(
            "`{word}` is ambiguous: {}",
            many.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// `help` / `help CMD`.
pub fn help(topic: Option<&str>) -> Result<String, String> {
    match topic {
        None => {
            let mut o = String::from("commands (abbreviations in brackets):\n");
            for s in COMMANDS {
                let ab = if s.aliases.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", s.aliases.join(", "))
                };
                o.push_str(&format!("  {:<22} {}\n", format!("{}{ab}", s.name), s.summary));
            }
            o.push_str("`help CMD` for one command; any unique prefix of a command works.\n");
            Ok(o)
        }
        Some(t) => {
            let s = lookup(t)?;
            let ab = if s.aliases.is_empty() {
                String::new()
            } else {
                format!("  (abbreviations: {})", s.aliases.join(", "))
            };
            Ok(format!("usage: {}{ab}\n{}\n", s.usage, s.help))
        }
    }
}
