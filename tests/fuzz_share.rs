//! Fuzzing share codes (issue 10): random text, truncations and altered characters of real codes,
//! payload bit flips with the checksum made right again (so the reader and the replay, not the
//! checksum, meet the damage), hand-made codes of random intents, and huge codes. Properties:
//! `share::decode` and `share::restore` never panic and stay within a time bound; every refusal is
//! a clear message; what is accepted re-encodes to a code that restores to the same state. Also:
//! a session driven by random intents through the page's own calls round-trips through its code.
//!
//! Budget: `FUZZ_CASES` cases per property (default 64); failures are saved under
//! `tests/regressions/`.

mod fuzzing;

use std::time::Duration;

use proptest::prelude::*;
use reconcile_lab::engine::world::Fault;
use reconcile_lab::session::share::{
    decode, encode_shared, restore, Check, Op, ShareLog, Shared, Start, MAX_CODE_LEN, MAX_OPS,
};
use reconcile_lab::session::Session;

/// The most CPU time one code may take to be refused or rebuilt in an unoptimized build ([`fuzzing::CpuTimer`]).
const TIME_BOUND: Duration = Duration::from_secs(30);

fn config() -> ProptestConfig {
    fuzzing::config("tests/regressions/fuzz_share.proptest-regressions", fuzzing::cases(), 200)
}

// ----- the code's outer layers, written here from the format in src/session/share.rs -----

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

fn to_base64url(bytes: &[u8]) -> String {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = String::new();
    for b in bytes {
        bits = (bits << 8) | u32::from(*b);
        n += 8;
        while n >= 6 {
            n -= 6;
            out.push(ALPHABET[((bits >> n) & 63) as usize] as char);
        }
    }
    if n > 0 {
        out.push(ALPHABET[((bits << (6 - n)) & 63) as usize] as char);
    }
    out
}

fn from_base64url(text: &str) -> Vec<u8> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let v = ALPHABET.iter().position(|a| *a == c).expect("a code from encode") as u32;
        bits = (bits << 6) | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}

/// The payload of a code (without its version prefix and checksum).
fn payload(code: &str) -> Vec<u8> {
    let (_, body) = code.split_once('.').expect("a versioned code");
    let mut bytes = from_base64url(body);
    // A code cut shorter than its checksum has no payload left.
    bytes.truncate(bytes.len().saturating_sub(4));
    bytes
}

/// A code of `payload`, with a right checksum.
fn code_of(payload: &[u8]) -> String {
    let mut bytes = payload.to_vec();
    bytes.extend_from_slice(&fnv1a(payload).to_le_bytes());
    format!("1.{}", to_base64url(&bytes))
}

// ----- real codes to damage -----

/// Sessions a learner could have made: a sandbox with a Deployment, steps, a step back and a
/// branch, an editor file; a lesson with a goal met.
fn real_codes() -> Vec<String> {
    let mut a = Session::sandbox();
    a.console_submit("kubectl create deployment web --image=nginx --replicas=2");
    for _ in 0..12 {
        a.step();
    }
    a.step_back();
    a.console_submit("kubectl label deployment web tier=front");
    a.open_file("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n");
    let i = a.buffers().len() - 1;
    a.editor_apply(i);
    a.settle_slice(50);
    let mut b =
        reconcile_lab::session::lesson::start("generation", &Default::default()).expect("a lesson").expect("it starts");
    b.console_submit("kubectl scale deployment web --replicas=3");
    vec![Session::sandbox().share_code(), a.share_code(), b.share_code()]
}

/// Restores `code` within the time bound; on success, the restored session's own code restores
/// to the same state again (what is accepted is a real state, not a half-read one).
fn check(code: &str) -> Result<(), TestCaseError> {
    let t = fuzzing::CpuTimer::start();
    let r = restore(code);
    prop_assert!(t.elapsed() < TIME_BOUND, "restore took {:?}", t.elapsed());
    match r {
        Ok(s) => {
            let again = s.share_code();
            let back = restore(&again).map_err(|e| TestCaseError::fail(format!("re-encoded code refused: {e}")))?;
            prop_assert_eq!(back.share_code(), again);
            prop_assert_eq!(back.world().api().resource_version(), s.world().api().resource_version());
        }
        Err(e) => {
            let text = e.to_string();
            prop_assert!(text.starts_with("This share link could not be opened: "), "{}", text);
            prop_assert!(text.ends_with(" Showing the starting state instead."), "{}", text);
            prop_assert!(text.len() < 400, "a short notice: {}", text);
        }
    }
    Ok(())
}

#[derive(Clone, Debug)]
enum Damage {
    Cut(usize),
    Replace(usize, u8),
    Insert(usize, u8),
    FlipBit(usize, u8),
    PayloadTruncate(usize),
    PayloadSet(usize, u8),
    PayloadInsert(usize, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::Cut),
        (any::<usize>(), any::<u8>()).prop_map(|(i, c)| Damage::Replace(i, c)),
        (any::<usize>(), any::<u8>()).prop_map(|(i, c)| Damage::Insert(i, c)),
        (any::<usize>(), 0u8..8).prop_map(|(i, b)| Damage::FlipBit(i, b)),
        any::<usize>().prop_map(Damage::PayloadTruncate),
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Damage::PayloadSet(i, b)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..12)).prop_map(|(i, b)| Damage::PayloadInsert(i, b)),
    ]
}

/// Applies `d` to a code: to its text (the checksum then catches most), or to its payload with
/// the checksum made right again.
fn apply(code: &str, d: &Damage) -> String {
    let text = code.as_bytes();
    let n = text.len();
    match d {
        Damage::Cut(i) => code[..i % n].to_string(),
        Damage::Replace(i, c) => {
            let mut t = text.to_vec();
            t[i % n] = ALPHABET[usize::from(*c) % 64];
            String::from_utf8(t).expect("ASCII")
        }
        Damage::Insert(i, c) => {
            let mut t = code.to_string();
            t.insert(i % (n + 1), char::from(*c % 128));
            t
        }
        Damage::FlipBit(i, b) => {
            let mut p = payload(code);
            if !p.is_empty() {
                let k = i % p.len();
                p[k] ^= 1 << b;
            }
            code_of(&p)
        }
        Damage::PayloadTruncate(i) => {
            let p = payload(code);
            code_of(&p[..i % (p.len() + 1)])
        }
        Damage::PayloadSet(i, v) => {
            let mut p = payload(code);
            if !p.is_empty() {
                let k = i % p.len();
                p[k] = *v;
            }
            code_of(&p)
        }
        Damage::PayloadInsert(i, bytes) => {
            let mut p = payload(code);
            let at = i % (p.len() + 1);
            p.splice(at..at, bytes.iter().copied());
            code_of(&p)
        }
    }
}

// ----- random intents -----

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("kubectl create deployment web --image=nginx --replicas=2".to_string()),
        Just("kubectl scale deployment web --replicas=4".to_string()),
        Just("kubectl delete deployment web --cascade=foreground".to_string()),
        Just("kubectl delete pod --all".to_string()),
        Just("kubectl create namespace team".to_string()),
        Just("kubectl get pods -w".to_string()),
        Just("lab step 3".to_string()),
        Just("lab settle".to_string()),
        Just("lab advance 20s".to_string()),
        Just("lab back 2".to_string()),
        Just("kubectl edit deployment web".to_string()),
        "[ -~]{0,40}",
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1u32..20).prop_map(Op::Step),
        any::<u64>().prop_map(Op::Run),
        (1u64..200, 1u32..3).prop_map(|(slice, count)| Op::Settle { slice, count }),
        Just(Op::SettleCancel),
        (1u32..10).prop_map(Op::Back),
        (0u64..80).prop_map(Op::Goto),
        line().prop_map(Op::Console),
        Just(Op::Clear),
        (0u32..3, "[ -~\n]{0,80}").prop_map(|(buffer, text)| Op::Text { buffer, text }),
        (0u32..3).prop_map(Op::Select),
        ("[a-z]{1,8}\\.yaml", "[ -~\n]{0,60}").prop_map(|(name, text)| Op::Open { name, text }),
        (0u32..3).prop_map(Op::Close),
        (0u32..3).prop_map(Op::Apply),
        (0u32..3).prop_map(Op::Reload),
        (0u32..3).prop_map(Op::Refresh),
        ("[A-Za-z]{1,10}", "[a-z/-]{1,20}").prop_map(|(kind, key)| Op::SelectObject { kind, key }),
        any::<bool>().prop_map(|forget| Op::Reset { forget }),
        Just(Op::ToSandbox),
        prop::collection::vec("[a-z-]{1,12}", 0..3).prop_map(Op::Goals),
        "[a-z-]{1,30}".prop_map(|p| Op::Fault(Fault::RestartProcess(p))),
        Just(Op::Fault(Fault::RestartProcess("kube-controller-manager-a".into()))),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_text_is_refused_with_a_notice(text in prop_oneof![
        "[ -~]{0,200}",
        "1\\.[A-Za-z0-9_-]{0,300}",
        "[0-9]{1,3}\\.[A-Za-z0-9_=-]{0,100}",
        any::<String>(),
    ]) {
        check(&text)?;
    }

    #[test]
    fn damaged_real_codes_never_panic(which in 0usize..3, damages in prop::collection::vec(damage(), 1..4)) {
        let codes = real_codes();
        let mut code = codes[which % codes.len()].clone();
        for d in &damages {
            if code.split_once('.').is_some_and(|(_, b)| b.bytes().all(|c| ALPHABET.contains(&c))) && code.len() > 2 {
                code = apply(&code, d);
            }
        }
        check(&code)?;
    }

    #[test]
    fn hand_made_codes_of_random_intents_never_panic(
        lesson in prop::option::of(prop_oneof![Just("generation".to_string()), Just("conflicts".to_string()), Just("no-such".to_string()), "[a-z-]{1,12}"]),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 0..25),
        check_values in (0u64..200, 0u64..200, 0u64..5),
    ) {
        let start = match lesson {
            Some(slug) => Start::Lesson { slug, goals: vec!["gen-two".into()] },
            None => Start::Sandbox { seed },
        };
        let (position, resource_version, goals_met) = check_values;
        let shared = Shared { log: ShareLog { start, ops }, check: Check { position, resource_version, goals_met } };
        let code = encode_shared(&shared);
        // The bytes round-trip whatever the intents mean.
        prop_assert_eq!(decode(&code).map_err(|e| TestCaseError::fail(e.to_string()))?, shared);
        check(&code)?;
    }
}

/// Drives a session with an intent through the page's own calls (what the page does on a click).
fn drive(s: &mut Session, op: &Op) {
    match op {
        Op::Step(n) => {
            for _ in 0..*n {
                s.step();
            }
        }
        Op::Run(id) => {
            let _ = s.run_pending(*id);
        }
        Op::Settle { slice, count } => {
            for _ in 0..*count {
                s.settle_slice(*slice);
            }
        }
        Op::SettleCancel => s.settle_cancel(),
        Op::Back(n) => {
            for _ in 0..*n {
                s.step_back();
            }
        }
        Op::Goto(n) => s.goto(usize::try_from(*n).unwrap_or(usize::MAX)),
        Op::Console(l) => {
            s.console_submit(l);
        }
        Op::Clear => s.clear_console(),
        Op::Text { buffer, text } => s.editor_set_text(*buffer as usize, text),
        Op::Select(i) => s.select_buffer(*i as usize),
        Op::Open { name, text } => s.open_file(name, text),
        Op::Close(i) => s.close_buffer(*i as usize),
        Op::Apply(i) => {
            s.editor_apply(*i as usize);
        }
        Op::Reload(i) => s.editor_reload(*i as usize),
        Op::Refresh(i) => {
            s.editor_reapply(*i as usize);
        }
        Op::SelectObject { kind, key } => s.select_object(kind, key),
        Op::Fault(f) => {
            let _ = s.fault(f.clone());
        }
        // A lesson's intents; the sandbox has none of them.
        Op::Reset { .. } | Op::ToSandbox | Op::Goals(_) => {}
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_session_driven_by_random_intents_round_trips(ops in prop::collection::vec(op(), 0..20)) {
        let mut s = Session::sandbox();
        for op in &ops {
            drive(&mut s, op);
        }
        let code = s.share_code();
        let t = fuzzing::CpuTimer::start();
        let back = restore(&code).map_err(|e| TestCaseError::fail(format!("{e}\n{ops:?}")))?;
        prop_assert!(t.elapsed() < TIME_BOUND);
        prop_assert_eq!(back.share_code(), code);
        prop_assert_eq!(back.world().position(), s.world().position());
        prop_assert_eq!(back.transcript().text(), s.transcript().text());
        let (a, b) = (back.world().history(), s.world().history());
        prop_assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            prop_assert_eq!(&x.sentence, &y.sentence);
        }
    }
}

#[test]
fn huge_codes_are_refused_at_once() {
    for code in [
        "1.".to_string() + &"A".repeat(MAX_CODE_LEN),
        "1.".to_string() + &"A".repeat(50 << 20),
        "x".repeat(5 << 20),
        "é".repeat(MAX_CODE_LEN),
    ] {
        let t = fuzzing::CpuTimer::start();
        let e = restore(&code).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert!(e.contains("characters long; the most this page reads is"), "{e}");
    }
    // Within the length limit but asking for too much work: refused before any replay.
    let steps = Shared {
        log: ShareLog {
            start: Start::Sandbox { seed: 1 },
            ops: vec![Op::Step(u32::MAX), Op::Back(1), Op::Step(u32::MAX)],
        },
        check: Check { position: 0, resource_version: 0, goals_met: 0 },
    };
    let many = Shared {
        log: ShareLog {
            start: Start::Sandbox { seed: 1 },
            ops: (0..=MAX_OPS).map(|i| if i % 2 == 0 { Op::Clear } else { Op::Select(0) }).collect(),
        },
        check: Check { position: 0, resource_version: 0, goals_met: 0 },
    };
    for shared in [steps, many] {
        let code = encode_shared(&shared);
        let t = fuzzing::CpuTimer::start();
        let e = restore(&code).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert!(e.contains("asks for more than"), "{e}");
    }
}

#[test]
fn the_test_encoding_matches_the_pages() {
    // The helpers above re-encode payloads; they must agree with the real encoder, or the bit
    // flips would only ever test the checksum.
    for code in real_codes() {
        assert_eq!(code_of(&payload(&code)), code);
    }
}
