//! The `reconcile-lab` binary: in the browser it mounts the page; natively it is the command-line
//! entry for documentation authors.

#[cfg(target_arch = "wasm32")]
fn main() {
    reconcile_lab::web::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--version") => println!("reconcile-lab {}", env!("CARGO_PKG_VERSION")),
        _ => {
            eprintln!("usage: reconcile-lab --version");
            std::process::exit(2);
        }
    }
}
