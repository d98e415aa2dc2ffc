//! The grammar against bash's: words, quotes, expansions, redirections, here-documents, lists.

use super::*;

fn one(s: &str) -> Simple {
    let (list, _) = parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
    assert_eq!(list.len(), 1, "{s:?}");
    assert!(list[0].rest.is_empty());
    assert_eq!(list[0].first.commands.len(), 1);
    list[0].first.commands[0].clone()
}

fn words(s: &str) -> Vec<String> {
    one(s).words.iter().map(|w| w.literal().unwrap_or_else(|| "<expansion>".into())).collect()
}

fn err(s: &str) -> String {
    parse(s).map(|_| "ok".to_string()).unwrap_or_else(|e| e.to_string())
}

#[test]
fn splits_like_a_shell() {
    assert_eq!(
        words("kubectl get pods -o jsonpath='{.items[*].metadata.name}'"),
        ["kubectl", "get", "pods", "-o", "jsonpath={.items[*].metadata.name}"]
    );
    assert_eq!(words(r#"a "b c" d\ e '' "x\"y" 'it''s'"#), ["a", "b c", "d e", "", "x\"y", "its"]);
    assert_eq!(words(r#"echo "\n""#), ["echo", "\\n"]);
    assert_eq!(words("  get   pods  # a comment"), ["get", "pods"]);
    assert_eq!(words("a#b"), ["a#b"]);
    assert_eq!(words("echo $'a\\tb' $ x$"), ["echo", "a\tb", "$", "x$"]);
    assert_eq!(words("kubectl run x \\\n  --image=nginx"), ["kubectl", "run", "x", "--image=nginx"]);
}

#[test]
fn quotes_span_lines_and_unbalanced_ones_are_errors() {
    assert_eq!(words("echo 'a\nb'"), ["echo", "a\nb"]);
    assert_eq!(parse("get 'pods").unwrap_err(), ShellError::UnbalancedQuote('\''));
    assert_eq!(parse("get \"pods").unwrap_err(), ShellError::UnbalancedQuote('"'));
    assert_eq!(err("get 'pods"), "unexpected end of line while looking for matching `''");
    assert_eq!(err("echo $(kubectl get pods"), "unexpected end of line while looking for matching `)'");
    assert_eq!(err("echo `date"), "unexpected end of line while looking for matching ``'");
}

#[test]
fn operators() {
    let (list, used) = parse("a | b |& c && ! d || e; f\ng").unwrap();
    assert_eq!(used, "a | b |& c && ! d || e; f\n".len());
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].first.commands.len(), 3);
    assert_eq!(list[0].first.pipe_stderr, [false, true]);
    assert_eq!(list[0].rest.len(), 2);
    assert!(list[0].rest[0].0 && list[0].rest[0].1.negate);
    assert!(!list[0].rest[1].0);
    // A trailing operator continues on the next line.
    let (list, _) = parse("kubectl get pods |\n  grep web &&\n echo ok").unwrap();
    assert_eq!(list[0].first.commands.len(), 2);
    assert_eq!(list[0].rest.len(), 1);
    assert_eq!(err("| grep x"), "syntax error near unexpected token `|'");
    assert_eq!(err("a ;; b"), "syntax error near unexpected token `;;'");
    assert_eq!(err("a |"), "syntax error: unexpected end of file");
    assert_eq!(err("a && && b"), "syntax error near unexpected token `&&'");
    assert_eq!(err("; a"), "syntax error near unexpected token `;'");
    assert!(err("sleep 1 &").starts_with("background jobs (&) are not supported"));
    assert!(err("if true; then echo; fi").starts_with("if: control flow is not supported"));
    assert!(err("(a)").starts_with("( ... ): subshells"));
    assert_eq!(parse("   # nothing\nnext").unwrap(), (Vec::new(), "   # nothing\n".len()));
}

#[test]
fn expansions() {
    let c = one("kubectl delete pod $(kubectl get pods -o jsonpath='{.items[0].metadata.name}')");
    let Part::Subst { list, quoted: false } = &c.words[3].parts[0] else { panic!("{:?}", c.words[3]) };
    let inner = &list[0].first.commands[0];
    assert_eq!(inner.words[4].literal().as_deref(), Some("jsonpath={.items[0].metadata.name}"));
    let c = one("echo \"$(echo \"a b\")\" `echo x` $? ${NAME}x \"$HOME\"");
    assert!(matches!(&c.words[1].parts[1], Part::Subst { quoted: true, .. }));
    assert!(matches!(&c.words[2].parts[0], Part::Subst { quoted: false, .. }));
    assert_eq!(c.words[3].parts, [Part::Status { quoted: false }]);
    assert_eq!(c.words[4].parts, [Part::Var { name: "NAME".into(), quoted: false }, Part::Lit("x".into())]);
    assert_eq!(c.words[5].parts, [Part::Quoted(String::new()), Part::Var { name: "HOME".into(), quoted: true }]);
    assert!(err("echo $((1+2))").starts_with("$((...)): arithmetic"));
    assert!(err("echo ${x:-y}").starts_with("${x:-y}: bad substitution"));
    assert!(err("echo $$").starts_with("$$: not supported"));
    let deep = format!("{}x{}", "$(echo ".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
    assert_eq!(parse(&deep).unwrap_err(), ShellError::TooDeep);
    let ok = format!("{}x{}", "$(echo ".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(parse(&ok).is_ok());
}

#[test]
fn assignments() {
    let c = one("POD=$(kubectl get pods -o name) X= Y=a\"b\"");
    assert_eq!(c.assigns.len(), 3);
    assert!(c.words.is_empty());
    assert_eq!(c.assigns[1], ("X".into(), Word::default()));
    assert_eq!(c.assigns[2].1.literal().as_deref(), Some("ab"));
    let c = one("A=1 kubectl get pods B=2");
    assert_eq!(c.assigns.len(), 1);
    assert_eq!(c.words.len(), 4);
    assert_eq!(words("'A=1' x"), ["A=1", "x"]);
}

#[test]
fn redirections() {
    let c = one("kubectl get deploy web -o yaml > web.yaml 2>&1");
    assert_eq!(c.redirects.len(), 2);
    assert_eq!(
        c.redirects[0],
        Redirect { fd: 1, op: RedirOp::Out(Word { parts: vec![Part::Lit("web.yaml".into())] }) }
    );
    assert_eq!(c.redirects[1], Redirect { fd: 2, op: RedirOp::Dup(1) });
    let c = one("cat <web.yaml 2>/dev/null &>>log >&2");
    assert!(matches!(c.redirects[0].op, RedirOp::In(_)));
    assert_eq!(c.redirects[1].fd, 2);
    assert!(matches!(c.redirects[2].op, RedirOp::BothAppend(_)));
    assert_eq!(c.redirects[3], Redirect { fd: 1, op: RedirOp::Dup(2) });
    assert_eq!(err("kubectl get >"), "syntax error near unexpected token `newline'");
    assert_eq!(err("kubectl get > | x"), "syntax error near unexpected token `|'");
    assert!(err("a 3>x").starts_with("file descriptor 3"));
    let c = one("grep x <<< \"a b\"");
    assert_eq!(c.redirects[0].op, RedirOp::HereString(Word { parts: vec![Part::Quoted("a b".into())] }));
}

#[test]
fn here_documents_are_input() {
    let (list, used) = parse("kubectl apply -f - <<EOF\na: 1\n\tb: $x\nEOF\nnext").unwrap();
    let c = &list[0].first.commands[0];
    assert_eq!(used, "kubectl apply -f - <<EOF\na: 1\n\tb: $x\nEOF\n".len());
    let RedirOp::HereDoc(body) = &c.redirects[0].op else { panic!() };
    assert_eq!(
        body.parts,
        [Part::Quoted("a: 1\n\tb: ".into()), Part::Var { name: "x".into(), quoted: true }, Part::Quoted("\n".into())]
    );
    let (list, _) = parse("cat <<-'END'\n\tx $y\n\tEND\n").unwrap();
    let RedirOp::HereDoc(body) = &list[0].first.commands[0].redirects[0].op else { panic!() };
    assert_eq!(body.parts, [Part::Quoted("x $y\n".into())]);
    // Two here-documents on one line, read in order, and one inside a pipeline.
    let (list, _) = parse("cat <<A <<B | kubectl apply -f -\n1\nA\n2\nB\n").unwrap();
    let RedirOp::HereDoc(b) = &list[0].first.commands[0].redirects[1].op else { panic!() };
    assert_eq!(b.literal().as_deref(), Some("2\n"));
    assert_eq!(parse("cat <<EOF\nx\n").unwrap_err(), ShellError::UnterminatedHereDoc("EOF".into()));
    assert_eq!(parse("cat <<").unwrap_err(), ShellError::MissingHereDocDelimiter);
}

#[test]
fn check_words() {
    assert_eq!(split_words("field deploy web .a >= 'x y' # c").unwrap(), ["field", "deploy", "web", ".a", ">=", "x y"]);
    assert_eq!(split_words("a 'b").unwrap_err(), ShellError::UnbalancedQuote('\''));
}
