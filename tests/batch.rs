//! `culdb batch JOBS`: jobs files (RON and text) and their errors, the
//! report, the exit status, and the promise that each job gives what
//! `culdb link` gives for it alone (checked over the whole corpus).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use culdb::batch::{self, jobs};
use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    common::scratch(&format!("batch-{name}"))
}

fn culdb_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_culdb"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run culdb")
}

fn batch(args: &[&str]) -> Output {
    common::culdb(&[&["batch"], args].concat())
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn corpus(case: &str) -> PathBuf {
    common::root().join("tests/corpus").join(case)
}

fn ron_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A RON jobs file: (name, dir, args) per job.
fn ron_jobs(jobs: &[(String, PathBuf, Vec<String>)]) -> String {
    let mut s = String::from("(jobs: [\n");
    for (name, dir, args) in jobs {
        let args: Vec<String> = args.iter().map(|a| ron_str(a)).collect();
        s.push_str(&format!(
            "    (name: {}, dir: {}, args: [{}]),\n",
            ron_str(name),
            ron_str(&dir.display().to_string()),
            args.join(", ")
        ));
    }
    s.push_str("])\n");
    s
}

fn case_args(case: &Path, out: &Path) -> Vec<String> {
    let line = std::fs::read_to_string(case.join("link.args")).expect("link.args");
    let mut v: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    v.extend(["-o".to_string(), out.display().to_string()]);
    v
}

#[test]
fn ron_errors_name_file_line_and_column() {
    let data = common::root().join("tests/data/batch");
    for (file, at, what) in [
        ("bad_syntax.ron", "3:42", "Expected comma"),
        ("bad_unknown_field.ron", "3:55", "Unexpected field named `output`"),
        ("bad_empty_args.ron", "2:24", "`args` is empty"),
    ] {
        let path = data.join(file);
        let o = batch(&[path.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        let want = format!("culdb batch: {}:{at}: {what}", path.display());
        assert!(err.starts_with(&want), "{file}: got {err:?}, want {want:?}");
        // The library says the same.
        let e = jobs::read(&path).unwrap_err();
        assert_eq!(e.file, path);
        assert_eq!(e.at.map(|(l, c)| format!("{l}:{c}")).as_deref(), Some(at), "{file}");
    }
}

#[test]
fn text_errors_name_file_line_and_column() {
    let data = common::root().join("tests/data/batch");
    for (file, at, what) in [
        ("bad_quote.txt", "4:13", "unterminated \" quote"),
        ("bad_operator.txt", "2:39", "shell operator '>'"),
    ] {
        let path = data.join(file);
        let o = batch(&[path.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{file}: {err}");
        let want = format!("culdb batch: {}:{at}: {what}", path.display());
        assert!(err.starts_with(&want), "{file}: got {err:?}, want {want:?}");
    }
    let dir = scratch("text-errors");
    for (text, at) in [
        ("nvlink\n", (1, 1)),
        ("# c\n  nvlink   # only the tool\n", (2, 3)),
        ("-arch=sm_90 a.cubin\\", (1, 20)),
    ] {
        let e = jobs::parse(&dir.join("j.txt"), text).unwrap_err();
        assert_eq!(e.at, Some(at), "{text:?}: {e}");
    }
    let o = batch(&[dir.join("missing.ron").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.ron: cannot read"), "{}", stderr(&o));
}

#[test]
fn text_jobs_are_shell_words_from_the_files_folder() {
    let dir = scratch("text-words");
    let jobs = jobs::parse(
        &dir.join("jobs"),
        "# comment\n\n/opt/cuda/bin/nvlink -arch=sm_90 'a b.cubin' \"c\\\"d\" e\\ f \\\n   -o out # trailing\nculdb link -arch sm_90 x -o y\n",
    )
    .unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0].args, ["-arch=sm_90", "a b.cubin", "c\"d", "e f", "-o", "out"]);
    assert_eq!(jobs[0].name, "line 3");
    assert_eq!(jobs[0].dir, dir);
    assert_eq!(jobs[1].args, ["-arch", "sm_90", "x", "-o", "y"]);
    let ron = jobs::parse(
        &dir.join("jobs.ron"),
        "(jobs: [(args: [\"x\"]), (name: \"n\", dir: \"sub\", args: [\"y\"])])",
    )
    .unwrap();
    assert_eq!(ron[0].name, "job 1");
    assert_eq!(ron[0].dir, dir);
    assert_eq!((ron[1].name.as_str(), ron[1].dir.clone()), ("n", dir.join("sub")));

    // And they run: inputs and a quoted output name taken from the jobs file's folder.
    let case = corpus("extern_call_sm90");
    for f in ["main.cubin", "lib.cubin"] {
        std::fs::copy(case.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("jobs.txt"),
        "nvlink -arch=sm_90 'main.cubin' lib.cubin -o \"out put.cubin\"\n",
    )
    .unwrap();
    let o = common::culdb(&["batch", dir.join("jobs.txt").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let single = culdb_in(
        &dir,
        &["link", "-arch=sm_90", "main.cubin", "lib.cubin", "-o", "single.cubin"],
    );
    assert_eq!(single.status.code(), Some(0));
    assert_eq!(
        std::fs::read(dir.join("out put.cubin")).unwrap(),
        std::fs::read(dir.join("single.cubin")).unwrap()
    );
}

/// The whole corpus as one batch (RON, a job per case, outputs redirected
/// to a scratch folder) against `culdb link` run once per case in the
/// case's folder: the same status, diagnostics and output bytes per job.
#[test]
fn corpus_batch_equals_one_link_per_job() {
    let dir = scratch("corpus");
    let bdir = dir.join("batch");
    std::fs::create_dir_all(&bdir).unwrap();
    let cases = culdb::conform::cases(&common::root().join("tests/corpus"));
    assert!(cases.len() > 100, "corpus has {} cases", cases.len());
    let name = |c: &Path| c.file_name().unwrap().to_string_lossy().into_owned();
    let jobs: Vec<_> = cases
        .iter()
        .map(|c| {
            (
                name(c),
                c.clone(),
                case_args(c, &bdir.join(format!("{}.cubin", name(c)))),
            )
        })
        .collect();
    std::fs::write(dir.join("corpus.ron"), ron_jobs(&jobs)).unwrap();
    let report = dir.join("report.json");
    let o = batch(&[
        "-j",
        "2",
        "--json",
        report.to_str().unwrap(),
        dir.join("corpus.ron").to_str().unwrap(),
    ]);
    // The corpus has cases that fail on purpose.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let results = report["jobs"].as_array().unwrap();
    assert_eq!(results.len(), cases.len());

    let mut bad = Vec::new();
    let mut failed = 0;
    for ((case, r), (n, _, _)) in cases.iter().zip(results).zip(&jobs) {
        assert_eq!(r["name"].as_str(), Some(n.as_str()), "report in job order");
        // The single link writes where the batch job did (its output read
        // first): with -g nvlink records the output's name in the file.
        let batch_path = bdir.join(format!("{n}.cubin"));
        let batch_out = std::fs::read(&batch_path).ok();
        let _ = std::fs::remove_file(&batch_path);
        let single_out = batch_path;
        let mut args = vec!["link".to_string()];
        args.extend(case_args(case, &single_out));
        let single = culdb_in(case, &args.iter().map(String::as_str).collect::<Vec<_>>());
        let status = single.status.code().unwrap();
        let lines: Vec<String> = stderr(&single).lines().map(str::to_string).collect();
        // A message of several lines (libNVVM's log) is one diagnostic.
        let diags: Vec<String> = r["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| d.as_str().unwrap().split('\n').map(str::to_string).collect::<Vec<_>>())
            .collect();
        if r["status"].as_i64() != Some(status as i64) {
            bad.push(format!("{n}: status: batch {}, link {status}", r["status"]));
        }
        if r["ok"].as_bool() != Some(status == 0) {
            bad.push(format!("{n}: ok is {}", r["ok"]));
        }
        failed += usize::from(status != 0);
        if diags != lines {
            bad.push(format!("{n}: diagnostics: batch {diags:?}, link {lines:?}"));
        }
        let single_bytes = std::fs::read(&single_out).ok();
        if batch_out != single_bytes {
            bad.push(format!(
                "{n}: output: batch {:?} bytes, link {:?} bytes",
                batch_out.as_ref().map(Vec::len),
                single_bytes.as_ref().map(Vec::len)
            ));
        }
        let digest = single_bytes.as_deref().map(batch::sha256::hex);
        if r["output_sha256"].as_str() != digest.as_deref() {
            bad.push(format!("{n}: digest {} vs {digest:?}", r["output_sha256"]));
        }
        if r["output_bytes"].as_u64() != single_bytes.as_ref().map(|b| b.len() as u64) {
            bad.push(format!("{n}: output_bytes {}", r["output_bytes"]));
        }
        if r["written"].as_bool() != Some(single_bytes.is_some()) {
            bad.push(format!("{n}: written {}", r["written"]));
        }
    }
    assert!(bad.is_empty(), "{} differences:\n{}", bad.len(), bad.join("\n"));
    assert!(failed > 0, "the corpus has failing cases");
    assert_eq!(report["summary"]["failed"].as_u64(), Some(failed as u64));
    assert_eq!(report["summary"]["ok"].as_u64(), Some((cases.len() - failed) as u64));
    // Only outputs, no temporary files left behind.
    for e in std::fs::read_dir(&bdir).unwrap() {
        let p = e.unwrap().path();
        assert_eq!(p.extension().and_then(|e| e.to_str()), Some("cubin"), "{}", p.display());
    }
}

fn small_batch(dir: &Path, with_failure: bool) -> PathBuf {
    let ok = corpus("extern_call_sm90");
    let bad = corpus("err_multidef_func_sm90");
    let mut jobs = vec![("ok".to_string(), ok.clone(), case_args(&ok, &dir.join("ok.cubin")))];
    if with_failure {
        jobs.push(("bad".to_string(), bad.clone(), case_args(&bad, &dir.join("bad.cubin"))));
    }
    jobs.push((
        "lx".to_string(),
        corpus("archive_hostobj_lx_sm90"),
        case_args(&corpus("archive_hostobj_lx_sm90"), &dir.join("lx.cubin")),
    ));
    let file = dir.join(if with_failure { "fail.ron" } else { "ok.ron" });
    std::fs::write(&file, ron_jobs(&jobs)).unwrap();
    file
}

#[test]
fn a_failing_job_makes_the_exit_status_non_zero() {
    let dir = scratch("exit");
    let o = batch(&[small_batch(&dir, false).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = batch(&["-j", "1", small_batch(&dir, true).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // The table shows the failure and its diagnostics.
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("Multiple definition of 'add_bias'"), "{table}");
    assert!(table.contains("3 jobs: 2 ok, 1 failed"), "{table}");
    assert!(!dir.join("bad.cubin").exists(), "no output for a failed job");
}

#[test]
fn jobs_writing_one_output_are_refused_before_running() {
    let dir = scratch("dupes");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let case = corpus("extern_call_sm90");
    let args = |o: &str| case_args(&case, Path::new(o));
    let out = dir.join("out.cubin");
    let jobs = vec![
        ("first".to_string(), case.clone(), args(out.to_str().unwrap())),
        (
            "other".to_string(),
            case.clone(),
            args(dir.join("other.cubin").to_str().unwrap()),
        ),
        (
            "second".to_string(),
            case.clone(),
            args(dir.join("sub/../out.cubin").to_str().unwrap()),
        ),
    ];
    std::fs::write(dir.join("jobs.ron"), ron_jobs(&jobs)).unwrap();
    let o = batch(&[dir.join("jobs.ron").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("jobs 'first'") && err.contains("'second'") && err.contains("both write"),
        "{err}"
    );
    assert!(!out.exists() && !dir.join("other.cubin").exists(), "nothing ran");

    // Relative outputs are taken from each job's folder: the same name in two folders is fine.
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::create_dir_all(dir.join("b")).unwrap();
    let abs = |f: &str| case.join(f).display().to_string();
    let rel = |o: &str| {
        vec![
            "-arch=sm_90".into(),
            abs("main.cubin"),
            abs("lib.cubin"),
            "-o".into(),
            o.into(),
        ]
    };
    let jobs = vec![
        ("a".to_string(), dir.join("a"), rel("out.cubin")),
        ("b".to_string(), dir.join("b"), rel("out.cubin")),
    ];
    std::fs::write(dir.join("two.ron"), ron_jobs(&jobs)).unwrap();
    let o = batch(&[dir.join("two.ron").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(dir.join("a/out.cubin").is_file() && dir.join("b/out.cubin").is_file());
}

#[test]
fn json_report_shape() {
    let dir = scratch("json");
    let o = batch(&["--json", "-", "-j", "2", small_batch(&dir, true).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("stdout is one JSON document");
    assert!(doc["jobs_file"].as_str().unwrap().ends_with("fail.ron"));
    let s = &doc["summary"];
    assert_eq!(
        (s["jobs"].as_u64(), s["ok"].as_u64(), s["failed"].as_u64()),
        (Some(3), Some(2), Some(1))
    );
    assert_eq!(s["threads"].as_u64(), Some(2));
    assert!(s["wall_ms"].as_f64().unwrap() > 0.0);
    let jobs = doc["jobs"].as_array().unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["ok", "bad", "lx"]);
    for j in jobs {
        for key in [
            "name",
            "dir",
            "args",
            "status",
            "ok",
            "diagnostics",
            "time_ms",
            "output",
            "written",
            "output_sha256",
            "output_bytes",
        ] {
            assert!(j.get(key).is_some(), "{key} missing in {j}");
        }
        assert!(j["args"].is_array() && j["diagnostics"].is_array() && j["time_ms"].is_f64());
    }
    let (ok, bad) = (&jobs[0], &jobs[1]);
    assert_eq!((ok["status"].as_i64(), ok["ok"].as_bool()), (Some(0), Some(true)));
    let bytes = std::fs::read(dir.join("ok.cubin")).unwrap();
    assert_eq!(ok["output_sha256"].as_str().unwrap(), batch::sha256::hex(&bytes));
    assert_eq!(ok["output_sha256"].as_str().unwrap().len(), 64);
    assert_eq!(ok["output_bytes"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(ok["output"].as_str(), dir.join("ok.cubin").to_str());
    assert_eq!((bad["status"].as_i64(), bad["ok"].as_bool()), (Some(1), Some(false)));
    assert_eq!(bad["written"].as_bool(), Some(false));
    assert!(bad["output_sha256"].is_null());
    assert_eq!(
        bad["diagnostics"][1].as_str(),
        Some("culdb fatal   : merge_elf failed"),
        "{bad}"
    );

    // --json FILE: the report there, the table on stdout.
    let o = batch(&[
        "--json",
        dir.join("r.json").to_str().unwrap(),
        dir.join("fail.ron").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(doc["jobs"].as_array().unwrap().len(), 3);
    assert!(String::from_utf8_lossy(&o.stdout).contains("3 jobs: 2 ok, 1 failed"));
}

#[test]
fn shipped_examples_parse() {
    let data = common::root().join("tests/data/batch");
    let ron = jobs::read(&data.join("example.ron")).unwrap();
    let text = jobs::read(&data.join("example.txt")).unwrap();
    assert_eq!(ron.len(), 3);
    assert_eq!(text.len(), 2);
    for j in &ron {
        assert!(j.dir.is_dir(), "{}", j.dir.display());
    }
    assert_eq!(text[0].args.len(), 5);
    assert!(
        text[1]
            .args
            .contains(&"../../corpus/err_multidef_func_sm90/lib2.cubin".to_string())
    );
    batch::check_outputs(&ron).unwrap();
}

#[test]
fn verbose_prints_a_line_per_job_when_stderr_is_no_terminal() {
    let dir = scratch("verbose");
    let file = small_batch(&dir, true);
    let o = batch(&["-j", "1", "--verbose", file.to_str().unwrap()]);
    let err = stderr(&o);
    assert!(err.contains("[1/3] ok: ok"), "{err}");
    assert!(err.contains("[2/3] bad: FAILED (status 1)"), "{err}");
    let o = batch(&[file.to_str().unwrap()]);
    assert_eq!(stderr(&o), "", "quiet without --verbose");
}

#[test]
fn help_describes_batch() {
    let o = batch(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.starts_with("Run many links in parallel from a jobs file"),
        "{help}"
    );
    assert!(help.contains("--jobs <N>") && help.contains("--json <FILE>"), "{help}");
}
