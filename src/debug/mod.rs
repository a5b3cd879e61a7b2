//! The debugger engine: a [`Session`] steps the resumable linker one event
//! at a time, stops at breakpoints and watchpoints, and moves backwards by
//! restoring a checkpoint (a clone of the linker) and replaying: linking is
//! deterministic, so the state at event k is always the same.
//!
//! The session's clock is the number of events delivered so far: at clock
//! `pos` the current event is `#pos-1` and the state is the linker's state
//! after the step that produced it (one linker step can produce several
//! events; they are delivered one by one).

pub mod breakpoint;
pub mod class;
pub mod inspect;
pub mod names;
pub mod trace;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::link::event::{Event, Phase};
use crate::link::state::LinkState;
use crate::link::{self, Linker};

pub use breakpoint::{Breakpoint, Cond, Hit, Kind};
pub use class::Level;

/// A saved point of the run: the linker and the events it produced but the
/// session had not delivered yet.
#[derive(Debug, Clone)]
struct Checkpoint {
    pos: usize,
    linker: Linker,
    pending: VecDeque<Event>,
}

/// Checkpoints kept at most; past this every other one is dropped and the
/// interval doubles, so memory stays bounded on huge links.
const MAX_CHECKPOINTS: usize = 64;

/// Checkpoint spacing by cost: a checkpoint is taken only once the linker
/// has worked at least this many times as long as the last clone took, so
/// cloning adds at most half to a recorded run (and checkpoints of a large
/// state are few) …
const CLONE_COST_RATIO: u32 = 2;

/// … and, off the event-count grid, as soon as replaying from the last
/// checkpoint would take longer than this (a reverse move replays).
const REPLAY_BUDGET: Duration = Duration::from_millis(8);

/// Why a movement stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The movement did what it was asked (a step, a `next`, a `goto`).
    Done,
    /// A breakpoint or watchpoint.
    Hit(Hit),
    /// No more events: the link finished (or failed).
    End,
    /// Moving backwards reached the beginning.
    Start,
}

/// What a session links, for `save scenario`: nvlink's arguments and the
/// folder they are relative to, and the scenario it was opened from.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub args: Vec<String>,
    pub dir: PathBuf,
    /// The scenario (its RON text) and its file, when the session replays
    /// one: the debugger keeps it for `save scenario` without knowing its form.
    pub scenario: Option<(String, PathBuf)>,
}

/// A debugging session over one link.
#[derive(Debug, Clone)]
pub struct Session {
    origin: Origin,
    /// The command lines run so far (`cmd::run_line`), for `save scenario`.
    journal: Vec<String>,
    linker: Linker,
    pending: VecDeque<Event>,
    pos: usize,
    /// Every event seen, in order (may run ahead of `pos` after moving back).
    history: Vec<Event>,
    /// The phase running after each event: `phases[k]` is the phase after event k.
    phases: Vec<Option<Phase>>,
    checkpoints: Vec<Checkpoint>,
    interval: usize,
    /// Time the linker spent stepping since the last checkpoint, and what
    /// the last checkpoint's clone took (see [`CLONE_COST_RATIO`]).
    stepped: Duration,
    clone_cost: Duration,
    breakpoints: Vec<Breakpoint>,
    /// Where each watchpoint's symbol was found, by breakpoint number.
    watch_cache: std::collections::HashMap<usize, breakpoint::WatchCache>,
    next_id: usize,
}

impl Session {
    /// A session for nvlink's command line `args`, with file names relative
    /// to `dir`. `-o` may be left out: the debugger writes no output file.
    pub fn new(args: &[String], dir: &Path) -> Result<Session, link::options::OptionsError> {
        let mut s = Session::from_linker(linker_for(args, dir)?);
        s.origin.args = args.to_vec();
        s.origin.dir = dir.to_path_buf();
        Ok(s)
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// Records the scenario the session replays (its RON text, read from `file`).
    pub fn set_scenario(&mut self, ron: String, file: &Path) {
        self.origin.scenario = Some((ron, file.to_path_buf()));
    }

    /// The command lines run so far, in order.
    pub fn journal(&self) -> &[String] {
        &self.journal
    }

    /// Adds a command line to the journal.
    pub fn log_command(&mut self, line: &str) {
        self.journal.push(line.trim().to_string());
    }

    /// A session over a linker that has not started yet.
    pub fn from_linker(linker: Linker) -> Session {
        Session {
            origin: Origin::default(),
            journal: Vec::new(),
            linker: linker.clone(),
            pending: VecDeque::new(),
            pos: 0,
            history: Vec::new(),
            phases: Vec::new(),
            checkpoints: vec![Checkpoint {
                pos: 0,
                linker,
                pending: VecDeque::new(),
            }],
            interval: 256,
            stepped: Duration::ZERO,
            clone_cost: Duration::ZERO,
            breakpoints: Vec::new(),
            watch_cache: Default::default(),
            next_id: 1,
        }
    }

    /// Takes a checkpoint every `n` events (default 256; it doubles when
    /// too many are held), or sooner when replaying would pass
    /// [`REPLAY_BUDGET`], and only when the linker has worked
    /// [`CLONE_COST_RATIO`] times as long as a clone takes. Small values make
    /// reverse movement cheaper.
    pub fn set_checkpoint_interval(&mut self, n: usize) {
        self.interval = n.max(1);
    }

    // ---- what there is to see

    pub fn state(&self) -> &LinkState {
        self.linker.state()
    }

    pub fn linker(&self) -> &Linker {
        &self.linker
    }

    /// The clock: how many events have been delivered.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The current event (the last delivered) with its index.
    pub fn current(&self) -> Option<(usize, &Event)> {
        self.pos.checked_sub(1).map(|i| (i, &self.history[i]))
    }

    /// Every event delivered so far, the current one last.
    pub fn events(&self) -> &[Event] {
        &self.history[..self.pos]
    }

    /// Every event seen, including those after the clock after moving back.
    pub fn known_events(&self) -> &[Event] {
        &self.history
    }

    /// The phase running at the clock (None before the first event and at the end).
    pub fn phase(&self) -> Option<Phase> {
        match self.pos {
            0 => None,
            p => self.phases[p - 1],
        }
    }

    /// The phase an event belongs to (`phase_of(k)`).
    pub fn phase_of(&self, k: usize) -> Option<Phase> {
        match self.history.get(k) {
            Some(Event::PhaseStart { phase } | Event::PhaseEnd { phase }) => Some(*phase),
            Some(_) => self.phases.get(k).copied().flatten(),
            None => None,
        }
    }

    /// True when no event is left.
    pub fn at_end(&self) -> bool {
        self.pending.is_empty() && self.linker.finished()
    }

    pub fn exit_status(&self) -> i32 {
        self.linker.exit_status()
    }

    /// The number of checkpoints held (for tests and `info events`).
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// The link's exit status at the end, computed on a copy (the session
    /// does not move).
    pub fn final_status(&self) -> i32 {
        let mut l = self.linker.clone();
        while !l.finished() {
            l.step();
        }
        l.exit_status()
    }

    /// The state at the end of the link, computed on a copy (for completion
    /// of names not met yet).
    pub fn final_state(&self) -> LinkState {
        let mut l = self.linker.clone();
        while !l.finished() {
            l.step();
        }
        l.state().clone()
    }

    // ---- breakpoints

    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Adds a breakpoint or watchpoint; returns its number.
    pub fn add_breakpoint(&mut self, kind: Kind, cond: Option<Cond>) -> usize {
        let kind = match kind {
            Kind::Watch { symbol, .. } => Kind::Watch {
                last: breakpoint::watched(self.state(), &symbol),
                symbol,
            },
            k => k,
        };
        let id = self.next_id;
        self.next_id += 1;
        self.breakpoints.push(Breakpoint {
            id,
            kind,
            cond,
            enabled: true,
            hits: 0,
        });
        id
    }

    /// Deletes a breakpoint; false when there is none with that number.
    pub fn delete(&mut self, id: usize) -> bool {
        let n = self.breakpoints.len();
        self.breakpoints.retain(|b| b.id != id);
        self.watch_cache.remove(&id);
        n != self.breakpoints.len()
    }

    pub fn delete_all(&mut self) {
        self.breakpoints.clear();
        self.watch_cache.clear();
    }

    /// Enables or disables a breakpoint; false when there is none with that number.
    pub fn set_enabled(&mut self, id: usize, on: bool) -> bool {
        match self.breakpoints.iter_mut().find(|b| b.id == id) {
            Some(b) => {
                b.enabled = on;
                true
            }
            None => false,
        }
    }

    // ---- moving forward

    /// Delivers the next event without looking at breakpoints. None at the end.
    fn advance(&mut self) -> Option<usize> {
        while self.pending.is_empty() {
            if self.linker.finished() {
                return None;
            }
            let t = Instant::now();
            let s = self.linker.step();
            self.stepped += t.elapsed();
            self.pending.extend(s.events);
        }
        let e = self.pending.pop_front()?;
        let phase = match &e {
            Event::PhaseEnd { .. } => None,
            Event::PhaseStart { phase } => Some(*phase),
            _ => self.phase(),
        };
        if self.pos == self.history.len() {
            self.history.push(e);
            self.phases.push(phase);
        } else {
            debug_assert_eq!(self.history[self.pos], e, "replay diverged at event {}", self.pos);
        }
        self.pos += 1;
        let boundary = matches!(self.history[self.pos - 1], Event::PhaseStart { .. });
        let on_grid = boundary || self.pos.is_multiple_of(self.interval);
        let worth_it = self.stepped >= self.clone_cost * CLONE_COST_RATIO;
        if (on_grid || self.stepped >= REPLAY_BUDGET)
            && worth_it
            && self.checkpoints.last().is_some_and(|c| c.pos < self.pos)
        {
            self.checkpoint();
        }
        Some(self.pos - 1)
    }

    fn checkpoint(&mut self) {
        let t = Instant::now();
        let linker = self.linker.clone();
        self.clone_cost = t.elapsed();
        self.stepped = Duration::ZERO;
        self.checkpoints.push(Checkpoint {
            pos: self.pos,
            linker,
            pending: self.pending.clone(),
        });
        if self.checkpoints.len() > MAX_CHECKPOINTS {
            // Keep the start, then every other one.
            let old = std::mem::take(&mut self.checkpoints);
            self.checkpoints = old
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % 2 == 0)
                .map(|(_, c)| c)
                .collect();
            self.interval *= 2;
        }
    }

    /// Delivers one event and checks the breakpoints; None at the end.
    fn advance_checked(&mut self) -> Option<(usize, Option<Hit>)> {
        let k = self.advance()?;
        Some((k, self.check(k)))
    }

    /// The first enabled breakpoint the event at `k` hits (watchpoints
    /// compare against the record at the last check and take the new one).
    fn check(&mut self, k: usize) -> Option<Hit> {
        let e = &self.history[k];
        let prev = k.checked_sub(1).map(|p| &self.history[p]);
        let state = self.linker.state();
        let ctx = breakpoint::Ctx {
            phase: self.phases[k],
            index: k,
            state,
        };
        let mut hit = None;
        for b in self.breakpoints.iter_mut().filter(|b| b.enabled) {
            let h = match &mut b.kind {
                Kind::Watch { symbol, last } => {
                    let now = breakpoint::watched_cached(state, symbol, self.watch_cache.entry(b.id).or_default());
                    if now != *last {
                        let old = std::mem::replace(last, now.clone());
                        Some(Hit::Watch {
                            id: b.id,
                            symbol: symbol.clone(),
                            old,
                            new: now,
                        })
                    } else {
                        None
                    }
                }
                kind => (kind.matches(e, prev, state) && b.cond.as_ref().is_none_or(|c| c.eval(e, &ctx)))
                    .then_some(Hit::Break(b.id)),
            };
            if let Some(h) = h {
                b.hits += 1;
                if hit.is_none() {
                    hit = Some(h);
                }
            }
        }
        hit
    }

    /// Watchpoints take the record at the clock as their reference (after
    /// moving backwards or jumping, a change is measured from here).
    fn resync_watches(&mut self) {
        let state = self.linker.state();
        for b in &mut self.breakpoints {
            if let Kind::Watch { symbol, last } = &mut b.kind {
                *last = breakpoint::watched_cached(state, symbol, self.watch_cache.entry(b.id).or_default());
            }
        }
    }

    /// One event forward (a breakpoint on that event is reported).
    pub fn step(&mut self) -> Stop {
        match self.advance_checked() {
            Some((_, Some(h))) => Stop::Hit(h),
            Some(_) => Stop::Done,
            None => Stop::End,
        }
    }

    /// Runs until a breakpoint, a watchpoint, or the end.
    pub fn cont(&mut self) -> Stop {
        self.run_until(|_, _| false)
    }

    /// Forward until `done(session, k)` says so at event k, a breakpoint or the end.
    fn run_until(&mut self, mut done: impl FnMut(&Session, usize) -> bool) -> Stop {
        loop {
            match self.advance_checked() {
                None => return Stop::End,
                Some((_, Some(h))) => return Stop::Hit(h),
                Some((k, None)) => {
                    if done(self, k) {
                        return Stop::Done;
                    }
                }
            }
        }
    }

    /// The level `next` works at from the current event: an event's own
    /// level, except that at a phase start the next level in is meant.
    fn next_level(&self) -> Level {
        match self.current() {
            None => Level::Phase,
            Some((_, Event::PhaseStart { .. })) => Level::Input,
            Some((_, e)) => class::level(e).min(Level::Item),
        }
    }

    /// The next event at the current level or a coarser one (the next
    /// input, symbol, section, relocation), stopping at breakpoints.
    /// (gdb's `next`; not an iterator.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Stop {
        let lvl = self.next_level();
        self.run_until(|s, k| class::level(&s.history[k]) <= lvl)
    }

    /// Runs to the end of the current phase (the next phase when between two).
    pub fn finish(&mut self) -> Stop {
        let target = self.phase();
        self.run_until(|s, k| match &s.history[k] {
            Event::PhaseEnd { phase } => target.is_none_or(|t| t == *phase),
            _ => false,
        })
    }

    /// Back to before the first event (breakpoints stay).
    pub fn restart(&mut self) {
        self.restore(0);
    }

    /// Restores the nearest checkpoint at or before `pos` and replays to `pos`
    /// (or to the end, if the link has fewer events).
    fn restore(&mut self, pos: usize) {
        let cp = self
            .checkpoints
            .iter()
            .rev()
            .find(|c| c.pos <= pos)
            .expect("checkpoint 0 always exists");
        if !(self.pos >= cp.pos && self.pos <= pos) {
            // The state left behind is freed on another thread: at 100,000
            // symbols freeing it took as long as the replay.
            // When no thread can be made, the closure, and the state in
            // it, are dropped here.
            let old = std::mem::replace(&mut self.linker, cp.linker.clone());
            let _ = std::thread::Builder::new().spawn(move || drop(old));
            self.pending = cp.pending.clone();
            self.pos = cp.pos;
            self.stepped = Duration::ZERO;
        }
        while self.pos < pos && self.advance().is_some() {}
        self.resync_watches();
    }

    /// Makes event `k` the current one (`goto`): backwards by replay,
    /// forwards by running without breakpoints. Past the end, stops at the end.
    pub fn goto(&mut self, k: usize) -> Stop {
        self.restore(k.saturating_add(1));
        if self.pos < k.saturating_add(1) {
            Stop::End
        } else {
            Stop::Done
        }
    }

    /// Moves to clock `pos` (0: before the first event).
    pub fn seek(&mut self, pos: usize) -> Stop {
        self.restore(pos);
        if self.pos < pos { Stop::End } else { Stop::Done }
    }

    /// One event back.
    pub fn reverse_step(&mut self) -> Stop {
        if self.pos == 0 {
            return Stop::Start;
        }
        self.restore(self.pos - 1);
        if self.pos == 0 { Stop::Start } else { Stop::Done }
    }

    /// Back to the previous event at the current level or a coarser one.
    pub fn reverse_next(&mut self) -> Stop {
        let Some((cur, _)) = self.current() else {
            return Stop::Start;
        };
        let lvl = self.next_level();
        match (0..cur).rev().find(|&k| class::level(&self.history[k]) <= lvl) {
            Some(k) => self.goto(k),
            None => {
                self.restore(0);
                Stop::Start
            }
        }
    }

    /// Back to the last event before the current one that hits a
    /// breakpoint or watchpoint (found by replaying from the start with
    /// the breakpoints armed); the beginning when none does.
    pub fn reverse_continue(&mut self) -> Stop {
        let Some((cur, _)) = self.current() else {
            return Stop::Start;
        };
        let saved_hits: Vec<usize> = self.breakpoints.iter().map(|b| b.hits).collect();
        self.restore(0);
        let mut last = None;
        while self.pos < cur {
            match self.advance_checked() {
                Some((k, Some(h))) => last = Some((k, h)),
                Some(_) => {}
                None => break,
            }
        }
        for (b, h) in self.breakpoints.iter_mut().zip(saved_hits) {
            b.hits = h;
        }
        match last {
            Some((k, h)) => {
                self.goto(k);
                if let Some(b) = self.breakpoints.iter_mut().find(|b| match &h {
                    Hit::Break(id) | Hit::Watch { id, .. } => b.id == *id,
                }) {
                    b.hits += 1;
                }
                Stop::Hit(h)
            }
            None => {
                self.restore(0);
                Stop::Start
            }
        }
    }
}

/// A linker for nvlink's command line, where `-o` may be left out (the
/// debugger and `trace` write no output file; nvlink insists on one).
pub fn linker_for(args: &[String], dir: &Path) -> Result<Linker, link::options::OptionsError> {
    match link::linker_for(args, dir) {
        Ok(l) => Ok(l),
        Err(e) => {
            let mut with_o = args.to_vec();
            with_o.extend(["-o".to_string(), "culdb-debug.cubin".to_string()]);
            link::linker_for(&with_o, dir).map_err(|_| e)
        }
    }
}

/// A fingerprint of the whole link state (every field, section bytes and
/// input bytes included), for checking that replay reproduces a state.
pub fn fingerprint(state: &LinkState) -> String {
    use std::fmt::Write;
    let mut s = serde_json::to_string(state).unwrap_or_default();
    for sec in &state.sections {
        let _ = write!(s, "|{}:{}", sec.name, hex(&sec.data));
    }
    for i in &state.inputs {
        let _ = write!(s, "|{}:{}", i.name, i.data.len());
    }
    let mut names: Vec<_> = state.symbol_names.iter().map(|(k, v)| format!("{k}={v}")).collect();
    names.sort();
    s.push_str(&names.join(","));
    let mut secs: Vec<_> = state.section_names.iter().map(|(k, v)| format!("{k}={v}")).collect();
    secs.sort();
    s.push_str(&secs.join(","));
    for t in &state.tables {
        let _ = write!(s, "|{}:{}", t.name, hex(&t.data));
    }
    s
}

/// A 64-bit digest of [`fingerprint`].
pub fn digest(state: &LinkState) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    fingerprint(state).hash(&mut h);
    h.finish()
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}
