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
