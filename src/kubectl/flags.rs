//! kubectl's command-line flags, parsed the way spf13/pflag parses them, with pflag's exact
//! error texts (`unknown flag: --foo`, `flag needs an argument: 'n' in -n`, ...).
//!
//! Flags may come before, between or after positional arguments; `--` ends them. A long flag
//! takes its value as `--flag=value` or `--flag value`; a short one as `-n value`, `-nvalue` or
//! `-n=value`; booleans take no separate argument (`--watch`, `-w`, `--watch=false`), and short
//! booleans combine (`-wA`).

use std::collections::BTreeMap;

/// What a flag holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagKind {
    /// `--watch`, `-w`: true when given bare.
    Bool,
    /// A string value; the last one given wins.
    Str,
    /// An integer value (pflag `Int`/`Int64`).
    Int,
    /// A repeatable string (`-f a -f b`, `--from-literal`).
    List,
}

/// One flag a command accepts.
#[derive(Clone, Copy, Debug)]
pub struct FlagSpec {
    /// Long name without dashes.
    pub long: &'static str,
    /// Short name, if any.
    pub short: Option<char>,
    /// What it holds.
    pub kind: FlagKind,
    /// One-line help.
    pub help: &'static str,
}

/// `-A, --all-namespaces`, as get, describe and delete word it.
pub const ALL_NAMESPACES: FlagSpec = flag(
    "all-namespaces",
    Some('A'),
    FlagKind::Bool,
    "If present, list the requested object(s) across all namespaces.",
);
/// `-l, --selector`.
pub const SELECTOR: FlagSpec = flag("selector", Some('l'), FlagKind::Str, "Selector (label query) to filter on.");

/// Shorthand constructor for flag tables.
pub const fn flag(long: &'static str, short: Option<char>, kind: FlagKind, help: &'static str) -> FlagSpec {
    FlagSpec { long, short, kind, help }
}

/// The flags every kubectl command takes.
pub const GLOBAL_FLAGS: &[FlagSpec] = &[
    flag("namespace", Some('n'), FlagKind::Str, "If present, the namespace scope for this CLI request"),
    flag("help", Some('h'), FlagKind::Bool, "help for this command"),
];

/// `kubectl options` (kubectl `pkg/cmd/options/options.go`, `NewCmdOptions`): the flags every
/// command takes.
pub fn global_options() -> String {
    let mut s = String::from("The following options can be passed to any command:\n\n");
    s.push_str(options(&[]).trim_start_matches("Options:\n"));
    s
}

/// The `Options:` section of a command's help: its own flags, then the global ones.
pub fn options(flags: &[FlagSpec]) -> String {
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

/// The parsed command line of one command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    /// Positional arguments, in order.
    pub args: Vec<String>,
    /// Every value given per long flag name, in order (booleans as `true` / `false`).
    pub values: BTreeMap<&'static str, Vec<String>>,
}

impl Parsed {
    /// Whether the flag was given at all.
    pub fn has(&self, long: &str) -> bool {
        self.values.contains_key(long)
    }
    /// The last value of a string flag.
    pub fn str(&self, long: &str) -> Option<&str> {
        self.values.get(long).and_then(|v| v.last()).map(String::as_str)
    }
    /// A boolean flag's value (false when absent).
    pub fn bool(&self, long: &str) -> bool {
        self.str(long) == Some("true")
    }
    /// An integer flag's value (already validated while parsing).
    pub fn int(&self, long: &str) -> Option<i64> {
        self.str(long).and_then(|s| s.parse().ok())
    }
    /// Every value of a repeatable flag.
    pub fn list(&self, long: &str) -> Vec<String> {
        self.values.get(long).cloned().unwrap_or_default()
    }
}

fn flag_name(spec: &FlagSpec) -> String {
    match spec.short {
        Some(c) => format!("-{c}, --{}", spec.long),
        None => format!("--{}", spec.long),
    }
}

fn set(out: &mut Parsed, spec: &FlagSpec, value: &str) -> Result<(), String> {
    let value = match spec.kind {
        FlagKind::Bool => match value {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => "true".to_string(),
            "0" | "f" | "F" | "false" | "FALSE" | "False" => "false".to_string(),
            _ => {
                return Err(format!(
                    "invalid argument {value:?} for {:?} flag: strconv.ParseBool: parsing {value:?}: invalid syntax",
                    flag_name(spec)
                ))
            }
        },
        FlagKind::Int => match value.parse::<i64>() {
            Ok(n) => n.to_string(),
            Err(_) => {
                return Err(format!(
                    "invalid argument {value:?} for {:?} flag: strconv.ParseInt: parsing {value:?}: invalid syntax",
                    flag_name(spec)
                ))
            }
        },
        FlagKind::Str | FlagKind::List => value.to_string(),
    };
    out.values.entry(spec.long).or_default().push(value);
    Ok(())
}

/// Parses `args` against `specs`. The error is pflag's message (kubectl prints it after
/// `error: ` and follows it with `See 'kubectl <cmd> --help' for usage.`).
pub fn parse(args: &[String], specs: &[FlagSpec]) -> Result<Parsed, String> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            out.args.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            let Some(spec) = specs.iter().find(|s| s.long == name) else {
                return Err(format!("unknown flag: --{name}"));
            };
            match (inline, spec.kind) {
                (Some(v), _) => set(&mut out, spec, v)?,
                (None, FlagKind::Bool) => set(&mut out, spec, "true")?,
                (None, _) => {
                    let Some(v) = args.get(i) else {
                        return Err(format!("flag needs an argument: {a}"));
                    };
                    i += 1;
                    set(&mut out, spec, v)?;
                }
            }
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let shorts: Vec<char> = a[1..].chars().collect();
            let mut j = 0;
            while j < shorts.len() {
                let c = shorts[j];
                let Some(spec) = specs.iter().find(|s| s.short == Some(c)) else {
                    return Err(format!("unknown shorthand flag: '{c}' in {a}"));
                };
                let rest: String = shorts[j + 1..].iter().collect();
                if spec.kind == FlagKind::Bool {
                    if let Some(v) = rest.strip_prefix('=') {
                        set(&mut out, spec, v)?;
                        break;
                    }
                    set(&mut out, spec, "true")?;
                    j += 1;
                    continue;
                }
                if !rest.is_empty() {
                    set(&mut out, spec, rest.strip_prefix('=').unwrap_or(&rest))?;
                } else if let Some(v) = args.get(i) {
                    i += 1;
                    set(&mut out, spec, v)?;
                } else {
                    return Err(format!(
                        "flag needs an argument: '{c}' in -{}",
                        shorts[..=j].iter().collect::<String>()
                    ));
                }
                break;
            }
            continue;
        }
        out.args.push(a.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[FlagSpec] = &[
        flag("namespace", Some('n'), FlagKind::Str, ""),
        flag("watch", Some('w'), FlagKind::Bool, ""),
        flag("all-namespaces", Some('A'), FlagKind::Bool, ""),
        flag("replicas", None, FlagKind::Int, ""),
        flag("filename", Some('f'), FlagKind::List, ""),
    ];

    fn p(line: &str) -> Result<Parsed, String> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&args, SPECS)
    }

    #[test]
    fn forms() {
        let r = p("get -n kube-system pods -wA --replicas=3 -f a -fb --filename=c x").unwrap();
        assert_eq!(r.args, ["get", "pods", "x"]);
        assert_eq!(r.str("namespace"), Some("kube-system"));
        assert!(r.bool("watch") && r.bool("all-namespaces"));
        assert_eq!(r.int("replicas"), Some(3));
        assert_eq!(r.list("filename"), ["a", "b", "c"]);
        assert_eq!(p("-n=x --watch=false").unwrap().str("namespace"), Some("x"));
        assert!(!p("--watch=false").unwrap().bool("watch"));
        assert_eq!(p("-- -n").unwrap().args, ["-n"]);
    }

    #[test]
    fn errors_match_pflag() {
        assert_eq!(p("--foo").unwrap_err(), "unknown flag: --foo");
        assert_eq!(p("-z").unwrap_err(), "unknown shorthand flag: 'z' in -z");
        assert_eq!(p("--namespace").unwrap_err(), "flag needs an argument: --namespace");
        assert_eq!(p("-n").unwrap_err(), "flag needs an argument: 'n' in -n");
        assert_eq!(
            p("--replicas=abc").unwrap_err(),
            r#"invalid argument "abc" for "--replicas" flag: strconv.ParseInt: parsing "abc": invalid syntax"#
        );
        assert_eq!(
            p("--watch=maybe").unwrap_err(),
            r#"invalid argument "maybe" for "-w, --watch" flag: strconv.ParseBool: parsing "maybe": invalid syntax"#
        );
    }
}
