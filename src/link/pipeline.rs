//! The linker as a resumable state machine (DESIGN.md §3): `step()` performs
//! one unit of work (open one command-line input, merge one symbol or
//! section, check one undefined name) and returns the events it produced.
//! Between steps the whole [`LinkState`] is readable. Headless linking is
//! the same loop run to the end.

use crate::cubin::consts::{STB_GLOBAL, STT_FUNC};
use crate::cubin::read;

use super::diag::{self, Diagnostic, Severity};
use super::event::{Event, Phase};
use super::inputs::{InputLoader, LoadNote, LtoModule, Printed};
use super::lto::{self, LTO_CUBIN};
use super::merge::{self, InputMerge};
use super::setup::{LinkSetup, bound_elsewhere, driver_syscall};
use super::state::{InputRecord, LinkState, LtoRecord, Place, ReadItem, SymIdx};

/// Where the pipeline stands.
#[derive(Debug, Clone)]
enum Stage {
    /// `-dlto`: find and compile the NVVM IR (one step), before the read.
    Lto,
    Read,
    Merge(Option<Box<InputMerge>>, usize),
    Resolve(usize),
    Dce(super::dce::Dce),
    Layout(super::layout::Layout),
    /// Layout's sub-phases: bindless references, then the unified tables.
    Bindless(super::bindless::Bindless),
    Uft(super::uft::Uft),
    Relocate(super::reloc::Relocate),
    Finalize(super::finalize::Finalize),
    Emit,
    /// The output is built.
    Done,
    /// A fatal diagnostic stopped the link.
    Failed,
}

/// The linker, stepped.
#[derive(Debug, Clone)]
pub struct Linker {
    pub setup: LinkSetup,
    state: LinkState,
    loader: InputLoader,
    stage: Stage,
    started: bool,
    /// Undefined names found after the merge, in nvlink's report order.
    undefined: Vec<SymIdx>,
    /// Dead-code elimination, planned after the merge (the undefined check
    /// reads its plan) and run after the resolve phase.
    dce: Option<super::dce::Dce>,
    /// The output file's bytes, once emitted.
    output: Option<Vec<u8>>,
    /// The LTO step's compiled code is being linked: nvlink's warnings are
    /// then plain warnings again, whatever `-disable-infos` and `-Werror`
    /// say (`silenced`).
    warnings_back: bool,
}

/// The result of one step.
#[derive(Debug, Clone, Default)]
pub struct Step {
    pub events: Vec<Event>,
    /// No more work: the link finished (or failed).
    pub finished: bool,
}

impl Linker {
    pub fn new(setup: LinkSetup, loader: InputLoader) -> Self {
        let mut state = LinkState::new();
        state.relocatable = setup.relocatable;
        let target_sm = crate::arch::lookup(&setup.arch).map_or(0, |t| t.sm);
        state.compat = super::compat::CompatMerge::new(target_sm, setup.werror);
        let stage = if setup.lto.is_some() { Stage::Lto } else { Stage::Read };
        Linker {
            setup,
            state,
            loader,
            stage,
            started: false,
            undefined: Vec::new(),
            dce: None,
            output: None,
            warnings_back: false,
        }
    }

    /// `-disable-infos` silences every warning nvlink prints after reading
    /// its options (the stack-size ones, `Skipping incompatible`, `SM Arch
    /// ... not found`, `Ignoring -dlto`, `--preserve-relocs` is not fully
    /// implemented; `-Werror` then makes no error of them), but no info,
    /// error or ptxas line. Once the LTO step has compiled IR, the warnings
    /// of the link that follows come back (disable_infos_stack_sm90; nvlink
    /// reads every input before it compiles), and `-Werror` no longer turns
    /// them into errors either (disable_infos_lto_sm90).
    fn silenced(&self, d: &Diagnostic) -> bool {
        self.setup.disable_infos
            && !self.warnings_back
            && d.severity == Severity::Warning
            && d.kind != super::diag::DiagKind::ToolOutput
    }

    pub fn state(&self) -> &LinkState {
        &self.state
    }

    /// See [`InputLoader::system_library_unused`].
    pub fn system_library_unused(&self) -> bool {
        self.loader.system_library_unused()
    }

    /// The phase now running (None once finished).
    pub fn phase(&self) -> Option<Phase> {
        match self.stage {
            Stage::Lto => Some(Phase::Lto),
            Stage::Read => Some(Phase::Read),
            Stage::Merge(..) => Some(Phase::Merge),
            Stage::Resolve(_) => Some(Phase::Resolve),
            Stage::Dce(_) => Some(Phase::Dce),
            Stage::Layout(_) | Stage::Bindless(_) | Stage::Uft(_) => Some(Phase::Layout),
            Stage::Relocate(_) => Some(Phase::Relocate),
            Stage::Finalize(_) => Some(Phase::Finalize),
            Stage::Emit => Some(Phase::Emit),
            Stage::Done | Stage::Failed => None,
        }
    }

    pub fn finished(&self) -> bool {
        matches!(self.stage, Stage::Done | Stage::Failed)
    }

    /// The output file's bytes, once the link has finished without error.
    pub fn output(&self) -> Option<&[u8]> {
        self.output.as_deref()
    }

    /// True when a fatal diagnostic or an error stopped the link.
    pub fn failed(&self) -> bool {
        matches!(self.stage, Stage::Failed) || self.exit_status() != 0
    }

    /// nvlink's exit status for the diagnostics so far.
    pub fn exit_status(&self) -> i32 {
        diag::exit_status(&self.state.diagnostics)
    }

    /// Runs to the end; returns every event.
    pub fn run(&mut self) -> Vec<Event> {
        let mut all = Vec::new();
        loop {
            let s = self.step();
            all.extend(s.events);
            if s.finished {
                return all;
            }
        }
    }

    /// Performs one unit of work.
    pub fn step(&mut self) -> Step {
        let mut ev = Vec::new();
        let diagnosed = self.state.diagnostics.len();
        if !self.started {
            self.started = true;
            if let Some(phase) = self.phase() {
                ev.push(Event::PhaseStart { phase });
            }
        }
        let stage = std::mem::replace(&mut self.stage, Stage::Failed);
        self.stage = match stage {
            Stage::Lto => self.lto_step(&mut ev),
            Stage::Read => self.read_step(&mut ev),
            Stage::Merge(m, next) => self.merge_step(m, next, &mut ev),
            Stage::Resolve(i) => self.resolve_step(i, &mut ev),
            Stage::Dce(mut p) => {
                ev.extend(p.step(&mut self.state, &self.setup));
                self.next_phase(p.done(), Stage::Dce(p), Phase::Dce, &mut ev)
            }
            Stage::Layout(mut p) => {
                ev.extend(p.step(&mut self.state, &self.setup));
                self.next_phase(p.done(), Stage::Layout(p), Phase::Layout, &mut ev)
            }
            Stage::Bindless(mut p) => {
                ev.extend(p.step(&mut self.state, &self.setup));
                self.next_phase(p.done(), Stage::Bindless(p), Phase::Layout, &mut ev)
            }
            Stage::Uft(mut p) => {
                ev.extend(p.step(&mut self.state, &self.setup));
                self.next_phase(p.done(), Stage::Uft(p), Phase::Layout, &mut ev)
            }
            Stage::Relocate(mut p) => {
                ev.extend(p.step(&mut self.state, &self.setup));
                self.next_phase(p.done(), Stage::Relocate(p), Phase::Relocate, &mut ev)
            }
            Stage::Finalize(mut p) => {
                ev.extend(p.step(&mut self.state, &self.setup));
                self.next_phase(p.done(), Stage::Finalize(p), Phase::Finalize, &mut ev)
            }
            Stage::Emit => self.emit_step(&mut ev),
            done => done,
        };
        if self.setup.disable_infos && !self.warnings_back {
            // The merge records its own warnings.
            ev.retain(|e| !matches!(e, Event::Diagnostic(d) if self.silenced(d)));
            let mut recorded = std::mem::take(&mut self.state.diagnostics);
            let mut k = 0;
            recorded.retain(|d| {
                k += 1;
                k <= diagnosed || !self.silenced(d)
            });
            self.state.diagnostics = recorded;
        }
        if self.state.lto.is_some() && !matches!(self.stage, Stage::Lto | Stage::Read) {
            self.warnings_back = true;
        }
        if self.setup.report_arch {
            for e in &mut ev {
                if let Event::Diagnostic(d) = e {
                    self.with_target(d);
                }
            }
            let mut recorded = std::mem::take(&mut self.state.diagnostics);
            for d in recorded.iter_mut().skip(diagnosed) {
                self.with_target(d);
            }
            self.state.diagnostics = recorded;
        }
        Step {
            events: ev,
            finished: self.finished(),
        }
    }

    /// Records a diagnostic. `-Werror` prints warnings as errors (and the
    /// link then fails with status 255). `-w` silences none of the warnings
    /// nvlink 13.5 was seen to print ("Skipping incompatible", "Stack size
    /// ... cannot be statically determined": corpus err_w_keeps_warnings_sm90),
    /// so culdb drops none either.
    fn diagnose(&mut self, d: Diagnostic, ev: &mut Vec<Event>) {
        if self.silenced(&d) {
            return;
        }
        let d = match d.severity {
            Severity::Warning if self.setup.werror && !self.warnings_back => Diagnostic {
                severity: Severity::Error,
                ..d
            },
            _ => d,
        };
        self.state.diagnostics.push(d.clone());
        ev.push(Event::Diagnostic(d));
    }

    /// The LTO step (`link::lto`): reads every input once to find the NVVM
    /// IR (and what has none), compiles the IR, then either finishes with
    /// the whole-program cubin as the output or hands the relocatable one
    /// to the read as its first input.
    fn lto_step(&mut self, ev: &mut Vec<Event>) -> Stage {
        let Some(req) = self.setup.lto.clone() else {
            return Stage::Read;
        };
        // nvlink loads libNVVM before it opens any input.
        if let Err(f) = lto::check_libnvvm(&req.nvvmpath) {
            return self.lto_failed(f, ev);
        }
        let to_read = |ev: &mut Vec<Event>| {
            ev.push(Event::PhaseEnd { phase: Phase::Lto });
            ev.push(Event::PhaseStart { phase: Phase::Read });
            Stage::Read
        };
        // The read reports what stopped the scan, if anything did.
        let Some(scan) = lto::Scan::of(&self.loader) else {
            return to_read(ev);
        };
        let lto::Scan {
            modules,
            plain,
            refs,
            devrt_given,
        } = scan;
        for name in &plain {
            let text = format!("requested LTO but '{name}' not built for LTO so doing partial LTO");
            self.diagnose(Diagnostic::info(text), ev);
        }
        if modules.is_empty() {
            self.diagnose(
                Diagnostic::warning("Ignoring -dlto option because no LTO objects found"),
                ev,
            );
            return to_read(ev);
        }
        for m in &modules {
            ev.push(Event::LtoModule {
                name: m.name.clone(),
                origin: m.origin.to_string(),
                bytes: m.fatbin.len(),
            });
        }
        let host = lto::HostInfo::of(refs.iter().map(Option::as_ref));
        let compiled = match lto::compile(
            &req,
            &modules,
            host.as_ref(),
            plain.is_empty() && !self.setup.relocatable,
            devrt_given,
        ) {
            Ok(c) => c,
            Err(f) => return self.lto_failed(f, ev),
        };
        for line in &compiled.ptxas_lines {
            self.diagnose(Diagnostic::tool_output(line.clone()), ev);
        }
        let names = modules.iter().map(|m| m.name.clone()).collect();
        let cubin_bytes = compiled.cubin.len();
        let whole_program = compiled.whole_program;
        let ptx = compiled.ptx.clone();
        let cubin = compiled.cubin.clone();
        ev.push(Event::LtoCompiled {
            modules: names,
            compiled: Box::new(compiled),
            cubin_bytes,
        });
        let read_order = |ms: &[LtoModule]| {
            ms.iter()
                .map(|m| ReadItem::Module {
                    module_id: m.module_id.clone(),
                    name: m.name.clone(),
                })
                .collect()
        };
        if self.setup.emit_ptx || whole_program {
            if !self.setup.emit_ptx && !devrt_given {
                self.diagnose(Diagnostic::fatal("expected libcudadevrt object"), ev);
                return Stage::Failed;
            }
            self.state.lto = Some(LtoRecord {
                whole_program: true,
                read_order: read_order(&modules),
                kernels_listed: None,
            });
            let out = if self.setup.emit_ptx { ptx.into_bytes() } else { cubin };
            ev.push(Event::OutputWritten {
                path: None,
                bytes: out.len(),
            });
            self.output = Some(out);
            ev.push(Event::PhaseEnd { phase: Phase::Lto });
            return Stage::Done;
        }

        // nvlink's dead-code elimination takes it as a cubin file, every
        // kernel the step kept staying (corpus lto_partial_sm90), unless all
        // of the program was IR from host objects whose lists limit the
        // kernels: then their lists are its own (a kernel nothing on the
        // host launches goes, with what only it reached:
        // lto_device_launch_sm90).
        let lists = (plain.is_empty() && host.is_some() && !self.setup.relocatable).then(|| {
            let mut all = super::inputs::HostRefs::default();
            for r in refs.iter().flatten() {
                all.extend(r);
            }
            all
        });
        self.state.lto = Some(LtoRecord {
            whole_program: false,
            read_order: Vec::new(),
            kernels_listed: lists
                .as_ref()
                .map(|l| l.kernels.iter().chain(&l.internal_kernels).cloned().collect()),
        });
        self.loader.prepend(super::inputs::LoadedCubin {
            name: LTO_CUBIN.to_string(),
            origin: super::inputs::Origin::Lto { modules: modules.len() },
            data: cubin,
            host_refs: lists,
            module_id: None,
            more_module_ids: Vec::new(),
        });
        to_read(ev)
    }

    /// `-report-arch`: every message nvlink prints once its options are
    /// read ends in ` (target: sm_90)`: infos (`-v`'s lines, partial LTO),
    /// warnings (stack size), errors and fatal ones alike; not the lines
    /// ptxas prints (report_arch_messages_sm90).
    fn with_target(&self, d: &mut Diagnostic) {
        if self.setup.report_arch && d.kind != super::diag::DiagKind::ToolOutput {
            d.text.push_str(&format!(" (target: {})", self.setup.arch));
        }
    }

    fn lto_failed(&mut self, f: lto::Failure, ev: &mut Vec<Event>) -> Stage {
        for line in f.infos {
            self.diagnose(Diagnostic::info(line), ev);
        }
        for line in f.printed {
            self.diagnose(Diagnostic::tool_output(line), ev);
        }
        self.diagnose(Diagnostic::fatal(f.fatal), ev);
        Stage::Failed
    }

    fn read_step(&mut self, ev: &mut Vec<Event>) -> Stage {
        let step = self.loader.step();
        for p in self.loader.printed().to_vec() {
            match p {
                Printed::Diag(d) => self.diagnose(d, ev),
                Printed::Tool(line) => self.diagnose(Diagnostic::tool_output(line), ev),
            }
        }
        match step {
            Some(Ok(notes)) => {
                for note in notes {
                    match note {
                        LoadNote::Loaded(c) => {
                            let host_refs = c.host_refs.clone();
                            let module_id = c.module_id.clone();
                            let more_module_ids = c.more_module_ids.clone();
                            let from_lto = matches!(c.origin, super::inputs::Origin::Lto { .. });
                            if let Err(d) = self.admit(c.name, c.origin.to_string(), c.data, ev) {
                                self.diagnose(d, ev);
                                return Stage::Failed;
                            }
                            let input = self.state.inputs.len() - 1;
                            if self.setup.register_link_binaries && host_refs.is_none() && !from_lto {
                                // The host link registers modules by the host
                                // objects' ids; a bare cubin has none.
                                let name = self.state.inputs[input].name.clone();
                                let text = format!(
                                    "Input '{name}' has no host code, which could cause later host link error \
                                     if there is a reference to it"
                                );
                                self.diagnose(Diagnostic::info(text), ev);
                            }
                            if let Some(lto) = &mut self.state.lto
                                && !from_lto
                            {
                                lto.read_order.push(ReadItem::Input(input));
                            }
                            if let Some(rec) = self.state.inputs.last_mut() {
                                rec.module_id = module_id;
                            }
                            self.state.registered_more.extend(more_module_ids);
                            // The kernels the host code launches, for dead-code elimination.
                            self.state.host_refs.push(host_refs);
                        }
                        LoadNote::Lto(m) => {
                            if let Some(lto) = &mut self.state.lto {
                                lto.read_order.push(ReadItem::Module {
                                    module_id: m.module_id.clone(),
                                    name: m.name.clone(),
                                });
                            }
                            ev.push(Event::InputSkipped {
                                path: m.name,
                                reason: format!("NVVM IR ({}): the LTO step compiled it into {LTO_CUBIN}", m.origin),
                            });
                        }
                        LoadNote::HostCodeOnly { path, reason } => {
                            self.state.host_lists_incomplete = true;
                            ev.push(Event::InputSkipped { path, reason });
                        }
                        LoadNote::Skipped {
                            path,
                            reason,
                            warning,
                            registered,
                        } => {
                            if let Some(id) = registered {
                                self.state.registered_unlinked.push((self.state.inputs.len(), id));
                            }
                            ev.push(Event::InputSkipped { path, reason });
                            if let Some(w) = warning {
                                self.diagnose(w, ev);
                            }
                        }
                    }
                }
                Stage::Read
            }
            Some(Err(d)) => {
                self.diagnose(d, ev);
                Stage::Failed
            }
            None => {
                // nvlink stops before the merge when reading the inputs gave
                // an error (err_werror_skipping_incompatible_sm90).
                if self.exit_status() != 0 {
                    ev.push(Event::PhaseEnd { phase: Phase::Read });
                    return Stage::Failed;
                }
                self.refinalize(ev);
                ev.push(Event::PhaseEnd { phase: Phase::Read });
                ev.push(Event::PhaseStart { phase: Phase::Merge });
                Stage::Merge(None, 0)
            }
        }
    }

    /// sm_100+: the code nvlink's finalizer writes again (`link::refinalize`),
    /// into the inputs' bytes before the merge.
    fn refinalize(&mut self, ev: &mut Vec<Event>) {
        use super::event::mercury::MercEvent;
        use super::refinalize::{Finalizer, Outcome};
        let mercury = crate::arch::lookup(&self.setup.arch).is_some_and(|t| t.is_mercury());
        // `-r` finalizes nothing, except that with `-g` libcudadevrt's
        // code becomes debug code as in a final link (cdp_debug_devrt_sm100).
        let relocatable = self.setup.relocatable;
        if !mercury || self.state.inputs.is_empty() || relocatable && !self.setup.debug {
            return;
        }
        let base = self.setup.base_dir.clone().unwrap_or_default();
        let dirs: Vec<std::path::PathBuf> = self.loader.request().lib_paths.iter().map(|d| base.join(d)).collect();
        let devrt = self
            .loader
            .system_libraries()
            .first()
            .and_then(|p| std::fs::read(p).ok());
        let finalizer = match Finalizer::new(&self.setup.arch, self.setup.debug, &dirs, devrt) {
            Ok(f) => f,
            Err(reason) => {
                ev.push(Event::Mercury(MercEvent::RefinalizeSkipped { input: None, reason }));
                return;
            }
        };
        let chosen: Vec<usize> = (0..self.state.inputs.len())
            .filter(|&i| !relocatable || super::system_lib::is_system_library(&self.state.inputs[i].origin))
            .collect();
        let inputs: Vec<(&str, &[u8])> = chosen
            .iter()
            .map(|&i| (self.state.inputs[i].name.as_str(), self.state.inputs[i].data.as_slice()))
            .collect();
        let outcomes = finalizer.inputs(&inputs, !relocatable);
        for (&input, outcome) in chosen.iter().zip(outcomes) {
            match outcome {
                Outcome::Changed {
                    data,
                    functions,
                    skipped,
                } => {
                    self.state.inputs[input].data = std::sync::Arc::new(data);
                    for f in functions {
                        ev.push(Event::Mercury(MercEvent::Refinalized {
                            input,
                            function: f.name,
                            instructions: f.instructions,
                            changed: f.changed,
                            deleted: f.deleted,
                            capsule: f.capsule,
                        }));
                    }
                    for reason in skipped {
                        ev.push(Event::Mercury(MercEvent::RefinalizeSkipped {
                            input: Some(input),
                            reason,
                        }));
                    }
                }
                Outcome::Unchanged => {}
                Outcome::Kept(reason) => ev.push(Event::Mercury(MercEvent::RefinalizeSkipped {
                    input: Some(input),
                    reason,
                })),
            }
        }
    }

    /// Takes a loaded cubin into the link: checks it and its architecture.
    fn admit(&mut self, name: String, origin: String, data: Vec<u8>, ev: &mut Vec<Event>) -> Result<(), Diagnostic> {
        let cubin = read::parse_for_link(&data)
            .map_err(|e| Diagnostic::fatal(format!("Could not read input file '{name}': {e}")))?;
        let e_flags = cubin.header.e_flags;
        if let Some(target) = crate::arch::lookup(&self.setup.arch) {
            // Into a Mercury target, an input after the first must carry a
            // `.nv.compat` (sm_75..sm_89 cubins have none): nvlink reads it
            // before it compares the architectures (an sm_100 cubin then an
            // sm_75, sm_80, sm_86 or sm_89 one; the same one first is refused
            // for its arch).
            let no_compat =
                target.is_mercury() && !self.state.inputs.is_empty() && cubin.section_by_name(".nv.compat").is_none();
            let nvcompat = || Diagnostic::fatal("cannot read nvcompat");
            match crate::arch::check_input(target, &name, crate::arch::InputArch::of_cubin(&cubin)) {
                Ok(warnings) => {
                    for w in warnings {
                        self.diagnose(w, ev);
                    }
                    if no_compat {
                        return Err(nvcompat());
                    }
                }
                Err(m) => {
                    let mut ds = m.diagnostics();
                    let last = ds.pop();
                    for d in ds {
                        self.diagnose(d, ev);
                    }
                    if no_compat {
                        return Err(nvcompat());
                    }
                    if let Some(d) = last {
                        return Err(d);
                    }
                }
            }
        }
        let rec = InputRecord {
            name: name.clone(),
            origin: origin.clone(),
            sm: cubin.header.sm(),
            virtual_sm: merge::virtual_sm(&cubin),
            e_flags,
            data: Default::default(),
            module_id: None,
        };
        drop(cubin);
        let input = self.state.inputs.len();
        ev.push(Event::InputLoaded {
            input,
            name,
            origin,
            sm: rec.sm,
        });
        self.state.inputs.push(InputRecord {
            data: std::sync::Arc::new(data),
            ..rec
        });
        Ok(())
    }

    fn merge_step(&mut self, current: Option<Box<InputMerge>>, next: usize, ev: &mut Vec<Event>) -> Stage {
        let mut m = match current {
            Some(m) => m,
            None if next < self.state.inputs.len() => match InputMerge::new(&self.state, next) {
                Ok(m) => Box::new(m),
                Err(d) => {
                    self.diagnose(d, ev);
                    return Stage::Failed;
                }
            },
            None => {
                ev.push(Event::PhaseEnd { phase: Phase::Merge });
                ev.push(Event::PhaseStart { phase: Phase::Resolve });
                let dce = super::dce::Dce::new(&self.state, &self.setup);
                self.undefined = self.undefined_in_report_order(&dce.removals(&self.setup));
                self.dce = Some(dce);
                return Stage::Resolve(0);
            }
        };
        let events = m.step(&mut self.state);
        let fatal = events
            .iter()
            .any(|e| matches!(e, Event::Diagnostic(d) if d.severity == Severity::Fatal));
        ev.extend(events);
        if fatal {
            Stage::Failed
        } else if m.done() {
            Stage::Merge(None, m.input + 1)
        } else {
            Stage::Merge(Some(m), next)
        }
    }

    /// Global undefined names: functions first, then the rest, each in
    /// output-symbol order (the order of nvlink's reports in the corpus).
    /// Names the linker itself defines, texture/surface/sampler references,
    /// extern shared arrays and functions only dead code (`removed`, and
    /// what only it reaches) calls are not checked.
    fn undefined_in_report_order(&self, removed: &std::collections::BTreeSet<SymIdx>) -> Vec<SymIdx> {
        let live = super::reach::referenced_as_checked(&self.state, removed);
        // Input by input (the one that first referred to it), functions
        // before variables (err_undefined_order_sm90).
        let mut undef: Vec<(SymIdx, (usize, bool))> = self
            .state
            .all_symbols()
            .filter(|(_, s)| s.binding == STB_GLOBAL && s.place == Place::Undefined)
            .filter(|(i, s)| live.contains(i) && !bound_elsewhere(&s.name, s.sym_type, s.other))
            .map(|(i, s)| (i, (s.input, s.sym_type != STT_FUNC)))
            .collect();
        undef.sort_by_key(|&(_, key)| key);
        undef.into_iter().map(|(i, _)| i).collect()
    }

    fn resolve_step(&mut self, i: usize, ev: &mut Vec<Event>) -> Stage {
        let Some(&idx) = self.undefined.get(i) else {
            ev.push(Event::PhaseEnd { phase: Phase::Resolve });
            return if self.exit_status() != 0 {
                Stage::Failed
            } else {
                ev.push(Event::PhaseStart { phase: Phase::Dce });
                let dce = self.dce.take();
                Stage::Dce(dce.unwrap_or_else(|| super::dce::Dce::new(&self.state, &self.setup)))
            };
        };
        let sym = self.state.symbol(idx).cloned().expect("undefined symbol exists");
        let by = self.state.input_name(sym.input).to_string();
        let reported = !self.setup.relocatable && !driver_syscall(&sym.name);
        ev.push(Event::Undefined {
            name: sym.name.to_string(),
            referenced_by: by.clone(),
            reported,
        });
        if reported {
            let text = format!("Undefined reference to '{}' in '{}'", sym.name, by);
            self.state.undefined.push(Diagnostic::undefined(text));
        }
        Stage::Resolve(i + 1)
    }

    /// The undefined references still unreported when a phase before the
    /// finalizer's report fails the link: printed then, not lost.
    fn flush_undefined(&mut self, ev: &mut Vec<Event>) {
        for d in std::mem::take(&mut self.state.undefined) {
            self.diagnose(d, ev);
        }
    }

    /// After a step of a back-half phase: the same phase again, or the next
    /// one (with its start and end events). Errors stop the link at the end
    /// of the phase that reported them.
    fn next_phase(&mut self, done: bool, same: Stage, phase: Phase, ev: &mut Vec<Event>) -> Stage {
        ev.retain(|e| !matches!(e, Event::Diagnostic(d) if self.silenced(d)));
        for e in ev.iter_mut() {
            if let Event::Diagnostic(d) = e {
                // A phase's warnings are errors under -Werror too (the
                // stack-size warning: rec_stack_werror_sm90).
                if d.severity == Severity::Warning && self.setup.werror && !self.warnings_back {
                    d.severity = Severity::Error;
                }
                self.state.diagnostics.push(d.clone());
            }
        }
        if ev
            .iter()
            .any(|e| matches!(e, Event::Diagnostic(d) if d.severity == Severity::Fatal))
        {
            self.flush_undefined(ev);
            return Stage::Failed;
        }
        if !done {
            return same;
        }
        let (st, setup) = (&self.state, &self.setup);
        // Layout's sub-phases follow each other inside the phase.
        match same {
            Stage::Layout(_) => return Stage::Bindless(super::bindless::Bindless::new(st, setup)),
            Stage::Bindless(_) => return Stage::Uft(super::uft::Uft::new(st, setup)),
            _ => {}
        }
        ev.push(Event::PhaseEnd { phase });
        if self.exit_status() != 0 {
            self.flush_undefined(ev);
            return Stage::Failed;
        }
        let (next, next_phase) = match phase {
            Phase::Dce => (Stage::Layout(super::layout::Layout::new(st, setup)), Phase::Layout),
            Phase::Layout => (Stage::Relocate(super::reloc::Relocate::new(st, setup)), Phase::Relocate),
            Phase::Relocate => (
                Stage::Finalize(super::finalize::Finalize::new(st, setup)),
                Phase::Finalize,
            ),
            _ => (Stage::Emit, Phase::Emit),
        };
        ev.push(Event::PhaseStart { phase: next_phase });
        next
    }

    fn emit_step(&mut self, ev: &mut Vec<Event>) -> Stage {
        match super::emit::bytes(&self.state, &self.setup) {
            Ok(b) => {
                ev.push(Event::OutputWritten {
                    path: None,
                    bytes: b.len(),
                });
                self.output = Some(b);
                ev.push(Event::PhaseEnd { phase: Phase::Emit });
                Stage::Done
            }
            Err(e) => {
                self.diagnose(Diagnostic::fatal(format!("Could not build the output: {e}")), ev);
                Stage::Failed
            }
        }
    }
}
