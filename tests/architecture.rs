//! The layering rules of docs/architecture.md, checked on the source tree so they stay true:
//!
//! - no import cycle between source files (a file imports another when one of
//!   its `use` declarations or written-out `crate::`/`super::` paths names an item of it);
//! - no source file over 1,200 lines;
//! - the repository stands alone: no comment cites a file that is not in it (the semantics
//!   notes the project started from, by name, section or test-vector id); code cites the
//!   upstream source, repository path and function.
//!
//! An import names the file that defines the item, not the module that re-exports it: a
//! `use super::Indexer` in `client/informer.rs`, where `client/mod.rs` re-exports `Indexer` from
//! `client/store.rs`, is an edge to `store.rs`. A file reading what its own parent modules define
//! is not part of a cycle: the parent is the namespace the file belongs to (`world/narrate.rs`
//! holds an `impl World` and must name `World`, which `world/mod.rs` defines and which names the
//! other files of `world/`). Siblings, and modules of different folders, must not import each
//! other both ways. The checker reads tokens (comments and literals skipped), not Rust's full
//! grammar: `use` trees, inline `mod name { .. }` blocks and paths.
#![allow(clippy::disallowed_methods, reason = "native only: the slice sorts cost nothing in the wasm here")]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// The longest a source file may be.
const MAX_LINES: usize = 1200;

#[test]
fn no_import_cycle_between_source_files() {
    let files = source_files();
    let graph = ImportGraph::new(&files);
    let cycles = graph.cycles(|_| true);
    assert!(
        cycles.is_empty(),
        "import cycles between source files (each line: file -> file it imports, via which path):\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_source_file_over_the_line_limit() {
    let long: Vec<String> = source_files()
        .iter()
        .map(|(path, text)| (path, text.lines().count()))
        .filter(|&(_, lines)| lines > MAX_LINES)
        .map(|(path, lines)| format!("{path}: {lines} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "source files over {MAX_LINES} lines (split them by responsibility):\n{}",
        long.join("\n")
    );
}

#[test]
fn comments_cite_the_upstream_source_not_notes_outside_the_repository() {
    let mut files = source_files();
    for dir in ["tests", "benches", "docs"] {
        walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut files, &["rs", "md"]);
    }
    let this = file!().replace('\\', "/");
    let cites: Vec<String> = files
        .iter()
        .filter(|(path, _)| !this.ends_with(path.as_str()))
        .flat_map(|(path, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, line)| cites_outside_notes(line))
                .map(move |(n, line)| format!("{path}:{}: {}", n + 1, line.trim()))
        })
        .collect();
    assert!(cites.is_empty(), "citations of notes that are not in this repository:\n{}", cites.join("\n"));
    assert!(cites_outside_notes("// stored one is a no-op (§3.1)."));
    assert!(cites_outside_notes("/// see kubernetes-semantics.md"));
    assert!(cites_outside_notes("// TV-12: the queue dedupes"));
    assert!(!cites_outside_notes("// `GuaranteedUpdate`, k8s.io/apiserver/pkg/storage/etcd3/store.go"));
}

/// Whether a line cites the semantics notes: by file name, by section (`§2.3`) or by test-vector
/// id (`TV-07`).
fn cites_outside_notes(line: &str) -> bool {
    let section =
        line.match_indices('§').any(|(i, _)| line[i + '§'.len_utf8()..].starts_with(|c: char| c.is_ascii_digit()));
    let vector = line.match_indices("TV-").any(|(i, _)| line[i + 3..].starts_with(|c: char| c.is_ascii_digit()));
    section || vector || line.contains("kubernetes-semantics")
}

/// The checker itself: a cycle through a re-export is found; a child importing what its parent
/// defines, or re-exports from a sibling, is not a cycle.
#[test]
fn the_checker_finds_cycles() {
    let files = vec![
        ("src/lib.rs".to_string(), "pub mod a;\npub mod b;\npub mod c;".to_string()),
        (
            "src/a/mod.rs".to_string(),
            "mod x; mod y;\npub use x::X;\npub use y::Y;\nuse crate::b::B; // use crate::c::C;\npub fn helper() {}"
                .to_string(),
        ),
        (
            "src/a/x.rs".to_string(),
            "use super::Y; /* super::super::c */ pub struct X(Y);\nfn g() { super::helper() }".to_string(),
        ),
        ("src/a/y.rs".to_string(), "pub struct Y;".to_string()),
        (
            "src/b.rs".to_string(),
            "pub struct B;\nfn f() -> crate::a::X { crate::a::helper(); todo!(\"crate::c\") }".to_string(),
        ),
        (
            "src/c.rs".to_string(),
            "pub struct C;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::{b::{self}, a::Y as Why};\n}"
                .to_string(),
        ),
    ];
    let graph = ImportGraph::new(&files);
    let edges: BTreeSet<(&str, &str)> =
        graph.edges.keys().map(|&(from, to)| (files[from].0.as_str(), files[to].0.as_str())).collect();
    let expected = BTreeSet::from([
        ("src/a/mod.rs", "src/a/x.rs"),
        ("src/a/mod.rs", "src/a/y.rs"),
        ("src/a/mod.rs", "src/b.rs"),
        ("src/a/x.rs", "src/a/mod.rs"),
        ("src/a/x.rs", "src/a/y.rs"),
        ("src/b.rs", "src/a/mod.rs"),
        ("src/b.rs", "src/a/x.rs"),
        ("src/c.rs", "src/b.rs"),
        ("src/c.rs", "src/a/y.rs"),
    ]);
    assert_eq!(edges, expected);
    let cycles = graph.cycles(|_| true);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("src/a/mod.rs -> src/b.rs (crate::b::B)"));
    assert!(cycles[0].contains("src/b.rs -> src/a/mod.rs (crate::a::helper)"));
    assert!(!cycles[0].contains("src/a/x.rs"), "{}", cycles[0]);
}

/// Every `.rs` file under `src/`, as (path from the repository root, text), in path order.
fn source_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files, &["rs"]);
    files.sort();
    files
}

/// Every file under `dir` whose extension is one of `extensions`, as (path from the repository
/// root, text).
fn walk(dir: &Path, out: &mut Vec<(String, String)>, extensions: &[&str]) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out, extensions);
        } else if path.extension().is_some_and(|ext| extensions.iter().any(|e| ext == *e)) {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let relative = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).expect("under the manifest directory");
            out.push((relative.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

/// A module's path below the crate root (`["engine", "world"]`); the root is empty.
type ModPath = Vec<String>;

/// The library's files and which of them imports which.
struct ImportGraph<'a> {
    files: Vec<&'a str>,
    /// The module each file defines (`None` for another crate's file).
    modules: Vec<Option<ModPath>>,
    /// (importing file, imported file) -> the first path that makes the edge, as written.
    edges: BTreeMap<(usize, usize), String>,
}

impl<'a> ImportGraph<'a> {
    fn new(files: &'a [(String, String)]) -> Self {
        // The library's modules: one per file (main.rs is another crate) and one per inline block.
        let mut module_file: HashMap<ModPath, usize> = HashMap::new();
        let mut parsed = Vec::new();
        for (index, (path, text)) in files.iter().enumerate() {
            let Some(module) = file_module(path) else {
                continue;
            };
            module_file.insert(module.clone(), index);
            let items = parse(&tokens(text), &module);
            for inline in &items.inline_modules {
                module_file.insert(inline.clone(), index);
            }
            parsed.push((index, items));
        }
        // What each module's `use` declarations bring into scope, by name, as absolute paths.
        let mut scope: HashMap<ModPath, HashMap<String, ModPath>> = HashMap::new();
        let mut references = Vec::new();
        for (index, items) in &parsed {
            for reference in &items.references {
                let Some(absolute) = absolute(&reference.module, &reference.path, &module_file) else {
                    continue;
                };
                if let Some(name) = &reference.binds {
                    scope.entry(reference.module.clone()).or_default().insert(name.clone(), absolute.clone());
                }
                references.push((*index, absolute, reference.path.join("::")));
            }
        }
        let mut edges = BTreeMap::new();
        for (from, path, written) in references {
            if let Some(to) = defining_file(&path, &module_file, &scope) {
                if to != from {
                    edges.entry((from, to)).or_insert(written);
                }
            }
        }
        ImportGraph {
            files: files.iter().map(|(path, _)| path.as_str()).collect(),
            modules: files.iter().map(|(path, _)| file_module(path)).collect(),
            edges,
        }
    }

    /// Whether `to` is the file of one of the modules `from` is part of.
    fn is_ancestor(&self, to: usize, from: usize) -> bool {
        match (&self.modules[to], &self.modules[from]) {
            (Some(parent), Some(child)) => child.len() > parent.len() && child.starts_with(parent),
            _ => false,
        }
    }

    /// The import cycles among the files `include` accepts, leaving out a file's imports from its
    /// own parent modules: one description per strongly connected group of files, listing the
    /// edges inside it.
    fn cycles(&self, include: impl Fn(&str) -> bool) -> Vec<String> {
        let counted = |from: usize, to: usize| {
            include(self.files[from]) && include(self.files[to]) && !self.is_ancestor(to, from)
        };
        let mut next: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for &(from, to) in self.edges.keys() {
            if counted(from, to) {
                next.entry(from).or_default().push(to);
            }
        }
        let reachable = |start: usize| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![start];
            while let Some(file) = stack.pop() {
                for &to in next.get(&file).into_iter().flatten() {
                    if seen.insert(to) {
                        stack.push(to);
                    }
                }
            }
            seen
        };
        let reach: BTreeMap<usize, BTreeSet<usize>> = next.keys().map(|&file| (file, reachable(file))).collect();
        let mut reported = BTreeSet::new();
        let mut cycles = Vec::new();
        for (&file, from_file) in &reach {
            if !from_file.contains(&file) || reported.contains(&file) {
                continue;
            }
            let group: BTreeSet<usize> =
                from_file.iter().copied().filter(|other| reach.get(other).is_some_and(|r| r.contains(&file))).collect();
            reported.extend(group.iter().copied());
            let lines: Vec<String> = self
                .edges
                .iter()
                .filter(|((from, to), _)| group.contains(from) && group.contains(to) && counted(*from, *to))
                .map(|((from, to), written)| format!("  {} -> {} ({written})", self.files[*from], self.files[*to]))
                .collect();
            cycles.push(format!("a cycle of {} files:\n{}", group.len(), lines.join("\n")));
        }
        cycles
    }
}

/// The module a library file defines, or `None` for files of other crates (`src/main.rs`).
fn file_module(path: &str) -> Option<ModPath> {
    let inner = path.strip_prefix("src/")?.strip_suffix(".rs")?;
    if inner == "main" {
        return None;
    }
    let mut module: ModPath = inner.split('/').map(str::to_string).collect();
    if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
        module.pop();
    }
    Some(module)
}

/// `path` as written in `module`, made absolute; `None` when it names another crate.
fn absolute(module: &ModPath, path: &[String], modules: &HashMap<ModPath, usize>) -> Option<ModPath> {
    let first = path.first()?;
    match first.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "self" => Some([module.as_slice(), &path[1..]].concat()),
        "super" => {
            let mut base = module.clone();
            let mut rest = path;
            while rest.first().is_some_and(|segment| segment == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
            Some([base.as_slice(), rest].concat())
        }
        // A path may also start with a child module of the one it is written in.
        _ => {
            let child = [module.as_slice(), &path[..1]].concat();
            modules.contains_key(&child).then(|| [module.as_slice(), path].concat())
        }
    }
}

/// The file that defines the item `path` names: the longest module prefix of the path, unless
/// that module only brings the next segment into scope with a `use`, which is then followed.
fn defining_file(
    path: &[String],
    modules: &HashMap<ModPath, usize>,
    scope: &HashMap<ModPath, HashMap<String, ModPath>>,
) -> Option<usize> {
    let mut path = path.to_vec();
    for _ in 0..16 {
        let prefix = (0..=path.len()).rev().find(|&len| modules.contains_key(&path[..len]))?;
        let followed = path.get(prefix).and_then(|name| {
            let target = scope.get(&path[..prefix])?.get(name)?;
            Some([target.as_slice(), &path[prefix + 1..]].concat())
        });
        match followed {
            Some(next) if next != path => path = next,
            _ => return modules.get(&path[..prefix]).copied(),
        }
    }
    None
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// The tokens of a Rust source that matter for paths: identifiers, `::` and punctuation, with
/// comments, string, character and number literals and lifetimes left out.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' || (ch == 'b' && at(i + 1) == '"') {
            i += if ch == 'b' { 2 } else { 1 };
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if (ch == 'r' && matches!(at(i + 1), '"' | '#') && at(i + 2) != '_')
            || (ch == 'b' && at(i + 1) == 'r' && matches!(at(i + 2), '"' | '#'))
        {
            // A raw string r"..", r#".."# (or a raw identifier r#name, read as an identifier).
            let start = if ch == 'b' { i + 2 } else { i + 1 };
            let mut j = start;
            while at(j) == '#' {
                j += 1;
            }
            if at(j) != '"' {
                i = j;
                continue;
            }
            let hashes = j - start;
            i = j + 1;
            while i < c.len() && !(c[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#')) {
                i += 1;
            }
            i += 1 + hashes;
        } else if ch == '\'' || (ch == 'b' && at(i + 1) == '\'') {
            // A character literal ('x', '\n', b'x') or a lifetime ('a).
            let j = if ch == 'b' { i + 1 } else { i };
            if at(j + 1) == '\\' {
                i = j + 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(j + 2) == '\'' {
                i = j + 3;
            } else {
                i = j + 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
        } else if ident_char(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            out.push(Tok::Ident(c[start..i].iter().collect()));
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::PathSep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// A path a file writes, in the module it is written in.
struct Reference {
    module: ModPath,
    path: Vec<String>,
    /// The name a `use` declaration binds it to (none for globs, `_` and paths in code).
    binds: Option<String>,
}

struct Items {
    inline_modules: Vec<ModPath>,
    references: Vec<Reference>,
}

/// The inline modules of one file, and every path it writes that starts with `crate`, `super` or
/// `self`, or is the path of a `use` declaration.
fn parse(toks: &[Tok], file_module: &ModPath) -> Items {
    let ident = |i: usize| match toks.get(i) {
        Some(Tok::Ident(name)) => Some(name.as_str()),
        _ => None,
    };
    let mut items = Items { inline_modules: Vec::new(), references: Vec::new() };
    // The inline modules open at this point, with the brace depth each was opened at.
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        let module = |open: &[(String, usize)]| -> ModPath {
            let mut module = file_module.clone();
            module.extend(open.iter().map(|(name, _)| name.clone()));
            module
        };
        match &toks[i] {
            Tok::Ident(word) if word == "mod" => {
                if let (Some(name), Some(Tok::Punct('{'))) = (ident(i + 1), toks.get(i + 2)) {
                    open.push((name.to_string(), depth));
                    items.inline_modules.push(module(&open));
                }
                i += 1;
            }
            Tok::Ident(word) if word == "use" && toks.get(i + 1) != Some(&Tok::Punct('<')) => {
                let module = module(&open);
                let mut trees = Vec::new();
                i += 1;
                use_tree(toks, &mut i, Vec::new(), &mut trees);
                for (path, binds) in trees {
                    items.references.push(Reference { module: module.clone(), path, binds });
                }
            }
            Tok::Ident(word)
                if matches!(word.as_str(), "crate" | "super" | "self")
                    && toks.get(i + 1) == Some(&Tok::PathSep)
                    && (i == 0 || toks[i - 1] != Tok::PathSep) =>
            {
                let mut path = vec![word.clone()];
                i += 1;
                while toks.get(i) == Some(&Tok::PathSep) {
                    match ident(i + 1) {
                        Some(segment) => path.push(segment.to_string()),
                        None => break,
                    }
                    i += 2;
                }
                items.references.push(Reference { module: module(&open), path, binds: None });
            }
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth -= 1;
                if open.last().is_some_and(|&(_, opened)| opened == depth) {
                    open.pop();
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    items
}

/// Reads one use tree from `toks[*i]` (`a::b`, `a::{b, c::d as e}`, `a::*`, `a::{self}`),
/// pushing each leaf path under `prefix` with the name it binds.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    let mut path = prefix;
    if toks.get(*i) == Some(&Tok::PathSep) {
        *i += 1;
    }
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(segment)) => {
                path.push(segment.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::PathSep) {
                    *i += 1;
                    continue;
                }
                if path.last().is_some_and(|last| last == "self") {
                    path.pop();
                }
                let mut binds = path.last().cloned();
                if toks.get(*i) == Some(&Tok::Ident("as".to_string())) {
                    binds = match toks.get(*i + 1) {
                        Some(Tok::Ident(name)) => Some(name.clone()),
                        _ => None,
                    };
                    *i += 2;
                }
                out.push((path, binds));
                return;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, None));
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while let Some(tok) = toks.get(*i) {
                    match tok {
                        Tok::Punct('}') => {
                            *i += 1;
                            return;
                        }
                        Tok::Punct(',') => *i += 1,
                        _ => {
                            let before = *i;
                            use_tree(toks, i, path.clone(), out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
                return;
            }
            _ => return,
        }
    }
}
