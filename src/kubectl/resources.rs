//! Resolving kubectl's resource arguments (`deploy`, `deploy web db`, `deploy/web`,
//! `deploy,rs`, `all`) into kinds and names, as cli-runtime's resource builder does.

use super::cmd::CmdError;
use crate::engine::kinds::Kind;

/// One thing a command acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Every object of a kind (filtered by namespace and selector).
    All(&'static Kind),
    /// One named object.
    Named(&'static Kind, String),
}

impl Target {
    /// The target's kind.
    pub fn kind(&self) -> &'static Kind {
        match self {
            Target::All(k) | Target::Named(k, _) => k,
        }
    }
}

/// The kinds in kubectl's `all` category that this lab serves.
pub const ALL_CATEGORY: &[&str] = &["pods", "deployments", "replicasets"];

/// `error: the server doesn't have a resource type "widgets"`.
pub fn lookup(name: &str) -> Result<&'static Kind, CmdError> {
    Kind::lookup(name).ok_or_else(|| CmdError::Plain(format!("the server doesn't have a resource type \"{name}\"")))
}

/// Resolves positional arguments. `allow_all` accepts the `all` category (get, delete).
pub fn resolve(args: &[String], allow_all: bool) -> Result<Vec<Target>, CmdError> {
    let Some(first) = args.first() else { return Ok(Vec::new()) };
    // cli-runtime `hasCombinedTypeArgs`: either every argument is TYPE/NAME or none is.
    if args.iter().any(|a| a.contains('/')) {
        if !args.iter().all(|a| a.contains('/')) {
            return Err(CmdError::Plain(String::from(
                "there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'"
            )));
        }
        let mut out = Vec::new();
        for a in args {
            let Some((t, n)) = a.split_once('/') else {
                return Err(CmdError::Plain(
                    "arguments in resource/name form must have a single resource and name".into(),
                ));
            };
            if n.is_empty() || t.is_empty() {
                return Err(CmdError::Plain("arguments in resource/name form may not have more than one slash".into()));
            }
            out.push(Target::Named(lookup(t)?, n.to_string()));
        }
        return Ok(out);
    }
    let mut kinds = Vec::new();
    for t in first.split(',').filter(|t| !t.is_empty()) {
        if t == "all" && allow_all {
            for a in ALL_CATEGORY {
                kinds.push(lookup(a)?);
            }
        } else {
            kinds.push(lookup(t)?);
        }
    }
    let names = &args[1..];
    let mut out = Vec::new();
    for k in kinds {
        if names.is_empty() {
            out.push(Target::All(k));
        } else {
            out.extend(names.iter().map(|n| Target::Named(k, n.clone())));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(line: &str) -> Result<Vec<(String, Option<String>)>, String> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        resolve(&args, true)
            .map(|ts| {
                ts.into_iter()
                    .map(|t| match t {
                        Target::All(k) => (k.resource.to_string(), None),
                        Target::Named(k, n) => (k.resource.to_string(), Some(n)),
                    })
                    .collect()
            })
            .map_err(|e| e.render())
    }

    #[test]
    fn forms() {
        assert_eq!(r("deploy").unwrap(), [("deployments".into(), None)]);
        assert_eq!(r("po a b").unwrap().len(), 2);
        assert_eq!(r("deploy/web rs/x").unwrap()[1], ("replicasets".into(), Some("x".into())));
        assert_eq!(r("deploy,rs").unwrap().len(), 2);
        assert_eq!(r("all").unwrap().len(), 3);
        assert_eq!(r("widgets").unwrap_err(), "error: the server doesn't have a resource type \"widgets\"\n");
        assert!(r("deploy deploy/web").unwrap_err().starts_with("error: there is no need"));
    }
}
