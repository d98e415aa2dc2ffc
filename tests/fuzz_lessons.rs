//! Fuzzing lesson files and saved progress (issue 10): the ten real lesson files mutated line by
//! line (lines dropped, duplicated, swapped, spliced from another lesson, truncated), and saved
//! progress text (random, mutated, oversized). Properties: `lessons::parse` and
//! `Progress::decode` never panic and stay fast; a mutated lesson that still parses can be
//! started (`LessonRun::start` runs its setup) and checked within a time bound; decoding refuses
//! or accepts, and what it accepts encodes and decodes to the same record.
//!
//! Budget: `FUZZ_CASES` cases (default 64); failures are saved under `tests/regressions/`.

mod fuzzing;

use std::time::Duration;

use proptest::prelude::*;
use reconcile_lab::lessons::{self, LessonRun, Progress, LESSON_FILES};

fn config() -> ProptestConfig {
    fuzzing::config("tests/regressions/fuzz_lessons.proptest-regressions", fuzzing::cases(), 200)
}

#[derive(Clone, Debug)]
enum Edit {
    Drop(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Splice(usize, usize, usize),
    Truncate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Drop),
        any::<usize>().prop_map(Edit::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        (any::<usize>(), 0..LESSON_FILES.len(), any::<usize>()).prop_map(|(a, f, b)| Edit::Splice(a, f, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, n)| Edit::Truncate(a, n)),
    ]
}

fn mutate(file: usize, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = LESSON_FILES[file].1.lines().map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match e {
            Edit::Drop(i) => {
                lines.remove(i % n);
            }
            Edit::Duplicate(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Edit::Swap(a, b) => lines.swap(a % n, b % n),
            Edit::Splice(a, f, b) => {
                let other: Vec<&str> = LESSON_FILES[*f].1.lines().collect();
                if !other.is_empty() {
                    lines.insert(a % n, other[b % other.len()].to_string());
                }
            }
            Edit::Truncate(i, k) => {
                let l = &mut lines[i % n];
                let cut = l.char_indices().map(|(i, _)| i).nth(k % (l.chars().count() + 1)).unwrap_or(l.len());
                l.truncate(cut);
            }
        }
    }
    lines.join("\n") + "\n"
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_lessons(file in 0..LESSON_FILES.len(), edits in proptest::collection::vec(edit(), 1..6)) {
        let text = mutate(file, &edits);
        let started = fuzzing::CpuTimer::start();
        if let Ok(lesson) = lessons::parse(&text) {
            prop_assert!(started.elapsed() < Duration::from_secs(1));
            if let Ok(mut run) = LessonRun::start(&lesson) {
                let _ = run.check();
                let mut p = Progress::new();
                run.save(&mut p);
                prop_assert!(Progress::decode(&p.encode()).is_ok());
            }
        }
        let took = started.elapsed();
        prop_assert!(took < Duration::from_secs(20), "lesson {} mutated took {:?}", LESSON_FILES[file].0, took);
    }

    #[test]
    fn random_lesson_text(text in any::<String>()) {
        let _ = lessons::parse(&text);
        let _ = lessons::parse(&format!("# T\n\nslug: t\nsummary: s\nseed: 1\n\n{text}"));
    }

    #[test]
    fn saved_progress(text in prop_oneof![
        any::<String>(),
        "\\{\"version\":[0-9],\"lessons\":\\{\"[a-z-]{0,10}\":\\{\"goals_met\":\\[\"[a-z]{0,5}\"\\],\"current_step\":[0-9]{1,20}\\}\\}\\}",
        "[{}\\[\\]\",:0-9a-z]{0,60}",
    ]) {
        if let Ok(p) = Progress::decode(&text) {
            let again = Progress::decode(&p.encode());
            prop_assert!(again.is_ok(), "{:?}", again.err());
            prop_assert_eq!(again.ok().map(|p| p.encode()), Some(p.encode()));
        }
    }
}

#[test]
fn every_real_lesson_parses_and_starts() {
    for (slug, text) in LESSON_FILES {
        let lesson = lessons::parse(text).unwrap_or_else(|e| panic!("{slug}: {e:?}"));
        LessonRun::start(&lesson).unwrap_or_else(|e| panic!("{slug}: {e:?}"));
    }
}

#[test]
fn oversized_inputs_are_refused_quickly() {
    let started = fuzzing::CpuTimer::start();
    let big = format!("# T\n\nslug: t\nsummary: s\nseed: 1\n\n{}", "text\n".repeat(1 << 20));
    assert!(lessons::parse(&big).is_err(), "a 5 MB lesson file is refused");
    let saved = format!("{{\"version\":1,\"junk\":\"{}\"}}", "x".repeat(1 << 20));
    assert!(Progress::decode(&saved).is_err(), "1 MB of saved progress is refused");
    assert!(Progress::decode(&"[".repeat(100_000)).is_err());
    assert!(started.elapsed() < Duration::from_secs(2));
}
