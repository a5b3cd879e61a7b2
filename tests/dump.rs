//! `culdb dump` on the corpus: cubins, host objects and archives, text and JSON.

mod common;

use common::*;

fn dump(args: &[&str]) -> (i32, String) {
    let out = culdb(&[&["dump"], args].concat());
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn cubin_listing_names_relocations_symbols_and_tables() {
    let f = root().join("tests/corpus/extern_call_cu_sm90/expected/out.cubin");
    let (code, text) = dump(&[f.to_str().unwrap()]);
    assert_eq!(code, 0);
    // Relocations by cuobjdump's names, symbols demangled beside mangled names.
    assert!(text.contains("R_CUDA_ABS32_LO_32"), "{text}");
    assert!(text.contains("R_CUDA_ABS55_16_34"), "{text}");
    assert!(
        text.lines().any(|l| l.contains("_Z") && l.contains("  [")),
        "no demangled name: {text}"
    );
    for table in [
        ".nv.info:",
        ".nv.callgraph:",
        ".nv.prototype:",
        ".nv.rel.action:",
        ".nv.compat:",
    ] {
        assert!(text.contains(table), "{table} missing");
    }
    assert!(text.contains("EIATTR_REGCOUNT") && text.contains("EICOMPAT_ATTR_ISA_CLASS"));
}

#[test]
fn json_listing_is_machine_readable() {
    let f = root().join("tests/corpus/extern_call_sm90/expected/out.cubin");
    let (code, text) = dump(&["--json", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let d = &v[0]["cubins"][0]["dump"];
    assert_eq!(d["header"]["e_type"], "ET_EXEC");
    assert_eq!(d["header"]["sm"], 90);
    let syms = d["symbols"].as_array().unwrap();
    assert!(
        syms.iter()
            .any(|s| s["name"] == "k_main" && s["binding"] == "GLOBAL" && s["sym_type"] == "FUNC")
    );
    let relocs = d["relocations"].as_array().unwrap();
    assert!(relocs.iter().any(|r| {
        r["relocs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["type_name"] == "R_CUDA_ABS32_LO_32")
    }));
}

#[test]
fn host_object_lists_fatbin_and_dumps_the_cubin_inside() {
    let f = root().join("tests/corpus/host_obj_rdc_sm90/main.o");
    let (code, text) = dump(&[f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(text.contains("__nv_relfatbin [Section]"), "{text}");
    assert!(text.contains("elf sm_90"), "{text}");
    assert!(text.contains("ptx sm_90"), "{text}");
    assert!(text.contains("main.o[sm_90]\nELF: ET_REL sm_90"), "{text}");
}

#[test]
fn archive_lists_members_and_dumps_each_cubin() {
    let f = root().join("tests/corpus/archive_hostobj_lx_sm90/libx.a");
    let (code, text) = dump(&["--json", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v[0]["kind"], "Archive");
    let cubins: Vec<&str> = v[0]["cubins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(cubins.len(), 4, "{cubins:?}");
    assert!(
        cubins.iter().all(|p| p.contains("libx.a(m") && p.ends_with(")[sm_90]")),
        "{cubins:?}"
    );
}

#[test]
fn every_corpus_input_and_output_dumps() {
    let mut n = 0;
    for case in corpus_cases() {
        for e in std::fs::read_dir(&case).unwrap().flatten() {
            let p = e.path();
            let ext = p.extension().and_then(|x| x.to_str()).unwrap_or("");
            if ["cubin", "o", "a", "fatbin"].contains(&ext) {
                let (code, _) = dump(&["--json", p.to_str().unwrap()]);
                assert_eq!(code, 0, "{}", rel(&p));
                n += 1;
            }
        }
    }
    assert!(n >= 150, "only {n} inputs dumped");
}
