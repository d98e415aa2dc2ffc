//! Runs every transcript in tests/transcripts/*.md (see `reconcile_lab::kubectl::transcript`).
//! On a mismatch the expected and actual output are printed side by side with line numbers.

use reconcile_lab::kubectl::transcript;
use std::path::PathBuf;

#[test]
fn transcripts() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/transcripts");
    let reports = transcript::check(&[dir]);
    assert!(!reports.is_empty(), "no transcripts found");
    let failures: Vec<String> =
        reports.iter().filter_map(|r| r.result.as_ref().err().map(|e| format!("{}: {e}", r.path.display()))).collect();
    assert!(
        failures.is_empty(),
        "{} of {} transcripts failed:\n\n{}",
        failures.len(),
        reports.len(),
        failures.join("\n")
    );
}

/// `reconcile-lab check DIR` on a directory outside the repository: one line per file, the
/// first mismatch shown side by side, a summary line, exit status 1 when anything failed.
#[test]
fn check_runs_a_directory_outside_the_repository() {
    let dir = std::env::temp_dir().join(format!("reconcile-lab-check-{}", std::process::id()));
    let sub = dir.join("nested");
    std::fs::create_dir_all(&sub).expect("a temporary directory");
    std::fs::write(
        dir.join("good.md"),
        "Text.\n\n```console\n$ kubectl get ns default -o name\nnamespace/default\n```\n",
    )
    .expect("write good.md");
    std::fs::write(sub.join("bad.md"), "```console\n$ kubectl get ns\nNAME   STATUS\n```\n").expect("write bad.md");
    std::fs::write(dir.join("notes.txt"), "not a transcript").expect("write notes.txt");

    let run = |args: &[&std::path::Path]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_reconcile-lab"))
            .arg("check")
            .args(args)
            .output()
            .expect("the binary runs")
    };
    let out = run(&[&dir]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(&format!("ok      {} (1 commands)", dir.join("good.md").display())), "{stdout}");
    assert!(
        stdout.contains(&format!("FAILED  {}: line 2: `$ kubectl get ns`", sub.join("bad.md").display())),
        "{stdout}"
    );
    assert!(stdout.contains("3! NAME   STATUS | NAME              STATUS   AGE"), "{stdout}");
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");

    let out = run(&[&dir.join("good.md")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("1 passed, 0 failed\n"));
    std::fs::remove_dir_all(&dir).ok();
}
