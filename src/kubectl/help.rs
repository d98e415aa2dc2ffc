//! `kubectl help`, `kubectl <verb> --help`, `lab help`, and the unknown-command error with
//! cobra's "Did you mean this?" suggestions (Levenshtein distance ≤ 2, as cobra computes them).

use super::commands::{Command, Group, Sub, COMMANDS, GLOBAL_FLAGS};
use super::flags::FlagSpec;

/// The end of `kubectl help` and of usage errors at the root.
pub fn root_usage() -> String {
    "Usage:\n  kubectl [flags] [options]\n\nUse \"kubectl <command> --help\" for more information about a given command.\nUse \"lab help\" for the simulation's own commands.\n".into()
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

fn options(flags: &[FlagSpec]) -> String {
    let mut s = String::from("Options:\n");
    for f in flags.iter().chain(GLOBAL_FLAGS) {
        let name = match f.short {
            Some(c) => format!("-{c}, --{}", f.long),
            None => format!("    --{}", f.long),
        };
        s.push_str(&format!("    {name}:\n\t{}\n\n", f.help));
    }
    s
}

/// `kubectl <verb> --help`.
pub fn command_help(c: &Command) -> String {
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

/// cobra's unknown-command error, with suggestions.
pub fn unknown_command(verb: &str) -> String {
    let mut s = format!("error: unknown command \"{verb}\" for \"kubectl\"");
    let mut suggestions: Vec<&str> = COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| levenshtein(&verb.to_lowercase(), n) <= 2 || n.starts_with(&verb.to_lowercase()))
        .collect();
    // cobra sorts commands by name.
    crate::sort::sort(&mut suggestions);
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
}
