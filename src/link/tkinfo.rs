//! The options nvlink records in its own `.note.nv.tkinfo` entry.
//!
//! nvlink writes the options it was given, not as typed but in the order of
//! its option table, each as `-name value ` (a flag as `-name  `, a list
//! joined with `,`, `-m64` as `-m 64`, `--arch=sm_90` as `-arch sm_90`).
//! Some options are not recorded at all (`-Xlinker`, `--host-ccbin`,
//! `-force-partial-lto`), some only with `-g`: then the inputs (file names
//! and nothing else, joined with `,`) come first, `-o FILE` is recorded, and
//! so are `--register-link-binaries` (as `- NAME`, the file's base name) and
//! `-time`. Read from nvlink 13.5's notes: the corpus
//! goldens (`-v`, `-r`, `-uidx`, `-kernels-used`, `-l`/`-L`, `-g`), the
//! real-world sweep (`-m64 ... -cpu-arch=X86_64` from nvcc) and links made
//! with every recorded option at once (corpus tkinfo_options_sm90,
//! tkinfo_verbose2_sm90).

use super::options::{InputArg, LinkOptions};

/// nvlink's options text for `o`: `-arch sm_90 -m 64 -l cudadevrt -L /lib -cpu-arch X86_64 `.
pub fn nvlink_args(o: &LinkOptions) -> String {
    let mut out = String::new();
    let flag = |on: bool, name: &str, out: &mut String| {
        if on {
            out.push_str(&format!("-{name}  "));
        }
    };
    let value = |v: Option<&str>, name: &str, out: &mut String| {
        if let Some(v) = v {
            out.push_str(&format!("-{name} {v} "));
        }
    };
    let list = |v: &[String], name: &str, out: &mut String| {
        if !v.is_empty() {
            out.push_str(&format!("-{name} {} ", v.join(",")));
        }
    };
    // Under -g, the input files and `-o` by their base names; `-L` as given
    // (what nvcc -G passes: its output is /tmp/tmpxft_…_dlink.sm_XX.cubin).
    if o.debug {
        let files: Vec<String> = o
            .inputs
            .iter()
            .filter_map(|a| match a {
                InputArg::File(f) => Some(base_name(f).to_string()),
                InputArg::Library(_) => None,
            })
            .collect();
        if !files.is_empty() {
            out.push_str(&files.join(","));
            out.push(' ');
        }
    }
    flag(o.suppress_stack_size_warning, "suppress-stack-size-warning", &mut out);
    flag(o.suppress_arch_warning, "suppress-arch-warning", &mut out);
    if o.debug {
        value(o.output_file.as_deref().map(base_name), "o", &mut out);
    }
    flag(o.debug, "g", &mut out);
    value(o.arch.as_deref(), "arch", &mut out);
    let machine = o.machine.to_string();
    value(o.machine_given.then_some(machine.as_str()), "m", &mut out);
    let libs: Vec<String> = o
        .inputs
        .iter()
        .filter_map(|a| match a {
            InputArg::Library(l) => Some(l.clone()),
            InputArg::File(_) => None,
        })
        .collect();
    list(&libs, "l", &mut out);
    list(&o.library_paths, "L", &mut out);
    if o.debug
        && let Some(r) = &o.register_link_binaries
    {
        // An option without a short name: `- reg.c`, the file's base name.
        out.push_str(&format!("- {} ", base_name(r)));
    }
    flag(o.verbose, "v", &mut out);
    flag(o.verbose2, "v2", &mut out);
    flag(o.preserve_relocs, "preserve-relocs", &mut out);
    flag(o.disable_warnings, "w", &mut out);
    flag(o.werror, "Werror", &mut out);
    flag(o.disable_infos, "disable-infos", &mut out);
    flag(o.keep_system_libraries, "keep-system-libraries", &mut out);
    list(&o.kernels_used, "kernels-used", &mut out);
    list(&o.variables_used, "variables-used", &mut out);
    value(o.cpu_arch_given.then_some(o.cpu_arch.as_str()), "cpu-arch", &mut out);
    flag(o.report_arch, "report-arch", &mut out);
    flag(o.extra_warnings, "extrawarn", &mut out);
    flag(o.lto.link_time_opt, "lto", &mut out);
    flag(o.lto.dlto, "dlto", &mut out);
    flag(o.lto.nvvm_latest, "nvvm-latest", &mut out);
    value(o.lto.nvvmpath.as_deref(), "nvvmpath", &mut out);
    let n = o.lto.split_compile.map(|n| n.to_string());
    value(n.as_deref(), "split-compile", &mut out);
    let n = o.lto.split_compile_extended.map(|n| n.to_string());
    value(n.as_deref(), "split-compile-extended", &mut out);
    value(o.lto.ofast_compile.as_deref(), "Ofc", &mut out);
    list(&o.lto.xptxas, "Xptxas", &mut out);
    list(&o.lto.xnvvm, "Xnvvm", &mut out);
    let n = o.maxrregcount.map(|n| n.to_string());
    value(n.as_deref(), "maxrregcount", &mut out);
    flag(o.dump_callgraph, "dump-callgraph", &mut out);
    flag(o.dump_callgraph_no_demangle, "dump-callgraph-no-demangle", &mut out);
    flag(o.ignore_host_info, "ignore-host-info", &mut out);
    flag(o.use_host_info, "use-host-info", &mut out);
    flag(o.relocatable, "r", &mut out);
    let protector = o.device_stack_protector.map(|b| b.to_string());
    value(protector.as_deref(), "device-stack-protector", &mut out);
    value(o.uidx_file.as_deref(), "uidx", &mut out);
    if o.debug {
        value(o.time.as_deref(), "time", &mut out);
    }
    out
}

/// A path's last component, as nvlink records files in its note.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
