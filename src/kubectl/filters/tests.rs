//! The filters against GNU coreutils' and awk's output.

use super::*;

const PODS: &str = "NAME          READY   STATUS    RESTARTS   AGE\nweb-7d4b9-a   1/1     Running   0          5m\napi-5c8f6-b   0/1     Pending   0          10s\nweb-7d4b9-c   1/1     Running   2          5m\n";

fn sh(name: &str, args: &str, input: &str) -> (String, String, i32) {
    let args: Vec<String> = crate::kubectl::shell::split_words(args).unwrap();
    let mut files = BTreeMap::new();
    files.insert("web.yaml".to_string(), "a: 1\nb: 2\n".to_string());
    files.insert("two.txt".to_string(), "x\ny\n".to_string());
    let mut out = Output::default();
    let code = run(name, &args, Some(input), &files, &mut out);
    (out.stdout(), out.stderr(), code)
}

fn stdout(name: &str, args: &str, input: &str) -> String {
    let (o, e, _) = sh(name, args, input);
    assert_eq!(e, "", "{name} {args}");
    o
}

#[test]
fn grep() {
    assert_eq!(
        stdout("grep", "web", PODS),
        "web-7d4b9-a   1/1     Running   0          5m\nweb-7d4b9-c   1/1     Running   2          5m\n"
    );
    assert_eq!(sh("grep", "nope", PODS), (String::new(), String::new(), 1));
    assert_eq!(stdout("grep", "-c Running", PODS), "2\n");
    assert_eq!(sh("grep", "-c nope", PODS), ("0\n".into(), String::new(), 1));
    assert_eq!(stdout("grep", "-v Running", PODS).lines().count(), 2);
    assert_eq!(stdout("grep", "-i running", PODS).lines().count(), 2);
    assert_eq!(stdout("grep", "-E 'Pending|RESTARTS'", PODS).lines().count(), 2);
    assert_eq!(stdout("grep", "-vc -e NAME -e Pending", PODS), "2\n");
    assert_eq!(stdout("grep", "-n Pending", PODS), "3:api-5c8f6-b   0/1     Pending   0          10s\n");
    assert_eq!(stdout("grep", "-w 1", "a 1/1\nb 11\n"), "a 1/1\n");
    assert_eq!(sh("grep", "-q Running", PODS), (String::new(), String::new(), 0));
    assert_eq!(stdout("grep", "-F '1/1 '", PODS).lines().count(), 2);
    assert_eq!(stdout("grep", "-o 'web-[^ ]*'", PODS), "web-7d4b9-a\nweb-7d4b9-c\n");
    assert_eq!(stdout("grep", "-oE '[0-9]+/[0-9]+'", "1/1 and 0/1\n"), "1/1\n0/1\n");
    assert_eq!(stdout("grep", "b web.yaml", ""), "b: 2\n");
    assert_eq!(stdout("grep", "y web.yaml two.txt", ""), "two.txt:y\n");
    assert_eq!(
        sh("grep", "x nope.yaml", ""),
        (String::new(), "grep: nope.yaml: No such file or directory\n".into(), 2)
    );
    assert_eq!(sh("grep", "'a\\('", "").1, "grep: Unmatched ( or \\(\n");
    assert_eq!(sh("grep", "", "").2, 2);
    assert_eq!(sh("grep", "-P x", "").1, "grep: option -P is not supported in this console (its grep takes -v, -i, -c, -E, -F, -e PATTERN, -n, -o, -w, -x, -q, -s, -h, -H)\n");
    // The last line without a newline gets one.
    assert_eq!(stdout("grep", "b", "a\nb"), "b\n");
}

#[test]
fn head_and_tail() {
    assert_eq!(stdout("head", "-n 2", PODS).lines().count(), 2);
    assert_eq!(stdout("head", "-1", PODS), "NAME          READY   STATUS    RESTARTS   AGE\n");
    assert_eq!(stdout("head", "-n -3", PODS).lines().count(), 1);
    assert_eq!(stdout("tail", "-n 1", PODS), "web-7d4b9-c   1/1     Running   2          5m\n");
    assert_eq!(stdout("tail", "-2", PODS).lines().count(), 2);
    assert_eq!(stdout("tail", "-n +2", PODS).lines().count(), 3);
    assert_eq!(stdout("head", "", &"x\n".repeat(20)).lines().count(), 10);
    assert_eq!(stdout("tail", "-n1", "a\nb"), "b");
    assert_eq!(stdout("head", "web.yaml two.txt", ""), "==> web.yaml <==\na: 1\nb: 2\n\n==> two.txt <==\nx\ny\n");
    assert_eq!(sh("head", "-n x", "").1, "head: invalid number of lines: ‘x’\n");
}

#[test]
fn wc() {
    assert_eq!(stdout("wc", "-l", PODS), "4\n");
    assert_eq!(stdout("wc", "", "hi there\n"), "      1       2       9\n");
    assert_eq!(stdout("wc", "-lw", "a b\nc"), "      1       3\n");
    assert_eq!(stdout("wc", "-l web.yaml", ""), "2 web.yaml\n");
    assert_eq!(stdout("wc", "web.yaml two.txt", ""), " 2  4 10 web.yaml\n 2  2  4 two.txt\n 4  6 14 total\n");
}

#[test]
fn sort() {
    assert_eq!(stdout("sort", "", "b\na\nB\n"), "B\na\nb\n");
    assert_eq!(stdout("sort", "-r", "b\na\nc\n"), "c\nb\na\n");
    assert_eq!(stdout("sort", "-n", "10\n9\n-1\nx\n"), "-1\nx\n9\n10\n");
    assert_eq!(stdout("sort", "-k2 -n", "a 3\nb 1\nc 2\n"), "b 1\nc 2\na 3\n");
    assert_eq!(stdout("sort", "-k2,2nr", "a 3\nb 1\nc 2\n"), "a 3\nc 2\nb 1\n");
    assert_eq!(stdout("sort", "-t: -k2", "a:z\nb:y\n"), "b:y\na:z\n");
    assert_eq!(stdout("sort", "-u", "b\na\nb\n"), "a\nb\n");
    // Without -b the key keeps its leading blanks, as GNU sort's does.
    assert_eq!(stdout("sort", "-k2", "x   b\ny a\n"), "x   b\ny a\n");
    assert_eq!(stdout("sort", "-b -k2", "x   b\ny a\n"), "y a\nx   b\n");
    assert_eq!(sh("sort", "-k0", "").2, 2);
}

#[test]
fn awk() {
    assert_eq!(stdout("awk", "'{print $1}'", PODS), "NAME\nweb-7d4b9-a\napi-5c8f6-b\nweb-7d4b9-c\n");
    assert_eq!(stdout("awk", "'NR>1 {print $1, $NF}'", PODS), "web-7d4b9-a 5m\napi-5c8f6-b 10s\nweb-7d4b9-c 5m\n");
    assert_eq!(stdout("awk", "'/Pending/ {print $1}'", PODS), "api-5c8f6-b\n");
    assert_eq!(stdout("awk", "'$3==\"Running\" {print $1}'", PODS), "web-7d4b9-a\nweb-7d4b9-c\n");
    assert_eq!(
        stdout("awk", "'$4 > 0'", PODS),
        "NAME          READY   STATUS    RESTARTS   AGE\nweb-7d4b9-c   1/1     Running   2          5m\n"
    );
    assert_eq!(stdout("awk", "'{print $(NF-1) \"-\" $2}'", "a b c\n"), "b-b\n");
    assert_eq!(stdout("awk", "'END {print NR}'", PODS), "4\n");
    assert_eq!(stdout("awk", "-F: '{print $2}'", "a:b\n"), "b\n");
    assert_eq!(stdout("awk", "'{print}'", " x  y \n"), " x  y \n");
    assert_eq!(stdout("awk", "'{print $9}'", "a\n"), "\n");
    assert!(sh("awk", "'{x=1}'", "").1.contains("this console's awk runs [PATTERN] {print ...} programs only"));
    assert_eq!(sh("awk", "'{x=1}'", "").2, 2);
}

#[test]
fn cut() {
    assert_eq!(stdout("cut", "-d' ' -f1", PODS), "NAME\nweb-7d4b9-a\napi-5c8f6-b\nweb-7d4b9-c\n");
    assert_eq!(stdout("cut", "-d/ -f2", "pod/web\nnone\n"), "web\nnone\n");
    assert_eq!(stdout("cut", "-s -d/ -f2", "pod/web\nnone\n"), "web\n");
    assert_eq!(stdout("cut", "-c1-3,5", "abcdef\n"), "abce\n");
    assert_eq!(stdout("cut", "-d, -f2-", "a,b,c\n"), "b,c\n");
    assert_eq!(sh("cut", "-f0", "").2, 1);
    assert!(sh("cut", "", "").1.starts_with("cut: you must specify a list"));
}

#[test]
fn streaming_head_closes() {
    let mut out = Output::default();
    let mut f = Filter::new("head", &["-n".into(), "2".into()], &BTreeMap::new(), None).unwrap();
    f.feed("a\nb", &mut out);
    assert!(!f.closed());
    f.feed("\nc\n", &mut out);
    assert!(f.closed());
    assert_eq!(out.stdout(), "a\nb\n");
    let mut g = Filter::new("grep", &["x".into()], &BTreeMap::new(), None).unwrap();
    let mut out = Output::default();
    g.feed("ax\nb", &mut out);
    assert_eq!(out.stdout(), "ax\n");
    g.feed("x\n", &mut out);
    assert_eq!(out.stdout(), "ax\nbx\n");
    assert_eq!(g.finish(&mut out), 0);
}
