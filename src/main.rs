//! The `reconcile-lab` binary: in the browser it mounts the page; natively it is the command-line
//! entry for documentation authors (`reconcile-lab check FILE_OR_DIR...`).

#[cfg(target_arch = "wasm32")]
fn main() {
    reconcile_lab::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--version") => println!("reconcile-lab {}", env!("CARGO_PKG_VERSION")),
        Some("check") if args.len() > 1 => std::process::exit(check(&args[1..])),
        Some("record") if args.len() == 2 => std::process::exit(record(&args[1])),
        _ => {
            eprintln!("usage: reconcile-lab check FILE_OR_DIR...   run kubectl transcripts (Markdown console blocks)");
            eprintln!("       reconcile-lab record FILE          print a transcript with each command's actual output");
            eprintln!("       reconcile-lab --version");
            std::process::exit(2);
        }
    }
}

/// Runs transcripts: one line per file (`ok` with the number of commands, or the first
/// mismatch), then `N passed, N failed`. Exit status 1 on any failure.
#[cfg(not(target_arch = "wasm32"))]
fn check(paths: &[String]) -> i32 {
    use reconcile_lab::kubectl::transcript;
    let paths: Vec<std::path::PathBuf> = paths.iter().map(std::path::PathBuf::from).collect();
    let reports = transcript::check(&paths);
    let (mut passed, mut failed) = (0, 0);
    for r in &reports {
        match &r.result {
            Ok(n) => {
                passed += 1;
                println!("ok      {} ({n} commands)", r.path.display());
            }
            Err(e) => {
                failed += 1;
                println!("FAILED  {}: {}", r.path.display(), e.trim_end().replace('\n', "\n        "));
            }
        }
    }
    if reports.is_empty() {
        println!("no transcript files found");
    }
    println!("{passed} passed, {failed} failed");
    i32::from(failed > 0 || reports.is_empty())
}

/// Re-runs a transcript and prints it with each command's actual output in place of the
/// expected one (prose and other blocks unchanged): a starting point for authors, to be read
/// line by line against real kubectl before it is committed.
#[cfg(not(target_arch = "wasm32"))]
fn record(path: &str) -> i32 {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            print!("{}", reconcile_lab::kubectl::transcript::record(&text));
            0
        }
        Err(e) => {
            eprintln!("{path}: {e}");
            1
        }
    }
}
