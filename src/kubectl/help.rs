//! `kubectl help`, `kubectl <verb> --help`, `lab help`, and the unknown-command error with
//! cobra's "Did you mean this?" suggestions (Levenshtein distance ≤ 2, as cobra computes them).

use super::commands::{Command, Group, Run, Sub, COMMANDS};
use super::flags::options;

/// The end of `kubectl help` and of usage errors at the root.
pub fn root_usage() -> String {
    "Usage:\n  kubectl [flags] [options]\n\nUse \"kubectl <command> --help\" for more information about a given command.\nUse \"kubectl options\" for a list of global command-line options (applies to all commands).\nUse \"lab help\" for the simulation's own commands.\n".into()
}

/// `kubectl help`.
pub fn root() -> String {
    let mut s = String::from(
        "kubectl controls the Kubernetes cluster manager.\n\n Find more information at: https://kubernetes.io/docs/reference/kubectl/\n\n",
    );
    for group in Group::ALL {
        s.push_str(&format!("{}:\n", group.title()));
        for c in COMMANDS.iter().filter(|c| c.group == Some(group)) {
            s.push_str(&format!("  {:<15} {}\n", c.name, c.short));
        }
        s.push('\n');
    }
    s.push_str(&root_usage());
    s
}

/// `kubectl <verb> --help`. A verb the lab does not model says so instead of examples.
pub fn command_help(c: &Command) -> String {
    if let Some(Run::Unmodeled(text)) = c.run {
        return format!(
            "{}.\n\nNot modeled in Reconcile Lab: {text}\n\nUsage:\n  kubectl {} [options]\n",
            c.short, c.usage
        );
    }
    let mut s = format!("{}.\n\n", c.short);
    if !c.subcommands.is_empty() {
        s.push_str("Available Commands:\n");
        for sub in c.subcommands {
            s.push_str(&format!("  {:<12} {}\n", sub.name, sub.short));
        }
        s.push('\n');
    }
    s.push_str(&format!("Examples:\n{}\n", c.examples));
    if !c.flags.is_empty() || c.subcommands.is_empty() {
        s.push_str(&options(c.flags));
    }
    s.push_str(&format!("Usage:\n  kubectl {} [options]\n", c.usage));
    s
}

/// `kubectl <verb> <sub> --help`.
pub fn subcommand_help(c: &Command, sub: &Sub) -> String {
    if let Run::Unmodeled(text) = sub.run {
        return format!(
            "{}.\n\nNot modeled in Reconcile Lab: {text}\n\nUsage:\n  kubectl {} [options]\n",
            sub.short, sub.usage
        );
    }
    format!("{}.\n\n{}Usage:\n  kubectl {} [options]\n", sub.short, options(sub.flags), sub.usage)
        .replace(&format!("kubectl {} {}", c.name, c.name), &format!("kubectl {}", c.name))
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The commands kubectl suggests for words that are not near their names (cobra's `SuggestFor`:
/// kubectl `pkg/cmd/delete/delete.go` `rm`; `pkg/cmd/get/get.go` and `pkg/cmd/wait/wait.go`
/// `list` and `ps`).
const SUGGEST_FOR: &[(&str, &[&str])] = &[("delete", &["rm"]), ("get", &["list", "ps"]), ("wait", &["list", "ps"])];

/// cobra's unknown-command error, with suggestions (cobra `command.go`, `SuggestionsFor`: every
/// available command within Levenshtein distance 2, ignoring case, or whose name starts with the
/// word, or that names the word in its `SuggestFor`; the help command is never available there).
pub fn unknown_command(verb: &str) -> String {
    let mut s = format!("error: unknown command \"{verb}\" for \"kubectl\"");
    let typed = verb.to_lowercase();
    let mut names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
    // cobra sorts commands by name.
    crate::sort::sort(&mut names);
    let mut suggestions: Vec<&str> = Vec::new();
    for n in names {
        if levenshtein(&typed, n) <= 2 || n.starts_with(&typed) {
            suggestions.push(n);
        }
        let explicit = SUGGEST_FOR.iter().find(|(c, _)| *c == n).map_or(&[][..], |(_, words)| words);
        if explicit.iter().any(|w| w.eq_ignore_ascii_case(verb)) {
            suggestions.push(n);
        }
    }
    if !suggestions.is_empty() {
        s.push_str("\n\nDid you mean this?\n");
        for n in suggestions {
            s.push_str(&format!("\t{n}\n"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_like_cobra() {
        assert_eq!(
            unknown_command("gett"),
            "error: unknown command \"gett\" for \"kubectl\"\n\nDid you mean this?\n\tget\n\tset\n"
        );
        assert_eq!(unknown_command("frobnicate"), "error: unknown command \"frobnicate\" for \"kubectl\"");
    }

    #[test]
    fn every_command_has_help() {
        for c in COMMANDS {
            assert!(command_help(c).contains(&format!("kubectl {}", c.usage)), "{}", c.name);
        }
        assert!(root().contains("  get             Display one or many resources\n"));
    }

    /// `kubectl help` lists every command the table puts in a group, once, and no other.
    #[test]
    fn help_lists_every_grouped_command_once() {
        let root = root();
        for c in COMMANDS {
            let listed = root.matches(&format!("\n  {:<15} {}\n", c.name, c.short)).count();
            assert_eq!(listed, usize::from(c.group.is_some()), "{} in kubectl help", c.name);
        }
    }
}
