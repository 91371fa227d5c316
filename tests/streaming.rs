//! Output is streamed: a file's findings are written when that file is done, before later
//! files are read. Standard input, named last and held open, is a file that is not done until
//! the test says so; the first file's findings must arrive before that, in every format.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use taintlint::analysis::{check, check_streamed, Ask};

const BAD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  tolerations:\n  \
                   - key: dedicated\n    operator: Exists\n    effect: noschedule\n";

/// What shows the first file's finding has been written, per format.
const FORMATS: &[(&str, &str)] = &[
    ("concise", "first.yaml:9:13: error[unknown-effect]"),
    ("human", "--> first.yaml:9:13"),
    ("json", "\"file\": \"first.yaml\""),
    ("sarif", "\"uri\": \"first.yaml\""),
    ("github", "::error file=first.yaml,line=9,col=13"),
];

#[test]
fn the_first_file_is_reported_before_the_last_is_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("first.yaml"), BAD).unwrap();
    for &(format, marker) in FORMATS {
        let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .args([
                "lint",
                "--format",
                format,
                "--color",
                "never",
                "first.yaml",
                "-",
            ])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (lines, received) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if lines.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        // Standard input is still open: the run cannot have finished.
        let mut seen = Vec::new();
        loop {
            match received.recv_timeout(Duration::from_secs(20)) {
                Ok(line) => {
                    let found = line.contains(marker);
                    seen.push(line);
                    if found {
                        break;
                    }
                }
                Err(_) => panic!(
                    "{format}: the first file's finding was not written while standard input \
                     was open; written so far:\n{}",
                    seen.join("\n")
                ),
            }
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "{format}: still running"
        );
        // Now the last file: the run completes, with both files in one valid document.
        {
            let mut stdin = child.stdin.take().unwrap();
            stdin.write_all(BAD.as_bytes()).unwrap();
        }
        let status = child.wait().unwrap();
        reader.join().unwrap();
        let rest: Vec<String> = received.iter().collect();
        let all = format!("{}\n{}", seen.join("\n"), rest.join("\n"));
        assert_eq!(status.code(), Some(1), "{format}");
        if format == "json" || format == "sarif" {
            let value: serde_json::Value = serde_json::from_str(&all).unwrap();
            let count = if format == "json" {
                value["diagnostics"].as_array().unwrap().len()
            } else {
                value["runs"][0]["results"].as_array().unwrap().len()
            };
            assert_eq!(count, 2, "{format}");
        } else {
            assert_eq!(all.matches("unknown-effect").count(), 2, "{format}: {all}");
        }
    }
}

mod common;

/// Every file under `dir`, recursively, in a stable order.
fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The findings handed over in batches, concatenated, are the whole analysis's, for every
/// fixture (against its inventory), whatever the batch size.
#[test]
fn findings_in_batches_are_the_whole_analysis() {
    use taintlint::Options;
    let mut files = Vec::new();
    files_under(&common::root().join("tests/fixtures"), &mut files);
    files_under(&common::root().join("examples"), &mut files);
    let mut checked = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let inventory = common::inventory_for(&path);
        let options = Options::default();
        let whole = check(&text, Ask::new(&options, inventory.as_ref())).diagnostics;
        for batch in [1, 3, usize::MAX] {
            let mut batches = Vec::new();
            check_streamed(
                &text,
                Ask::new(&options, inventory.as_ref()),
                batch,
                &mut |b| batches.push(b),
            );
            assert!(batches.iter().all(|b| !b.is_empty()), "{}", path.display());
            assert_eq!(
                batches.concat(),
                whole,
                "{} in batches of {batch}",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked} files");
}

/// A `kind: List` of 3,000 pods with 4 findings each is handed over a pod at a time: nothing
/// holds all 12,000 findings of the file.
#[test]
fn one_big_file_is_handed_over_an_object_at_a_time() {
    use taintlint::Options;
    let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..3000 {
        text.push_str(&format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p{i}\n  spec:\n    \
             containers: [{{name: c, image: i}}]\n    tolerations:\n    \
             - key: a\n      operator: exists\n    - key: b\n      effect: noschedule\n    \
             - key: c\n      operator: Exists\n      value: x\n"
        ));
    }
    let options = Options::default();
    let mut batches = Vec::new();
    check_streamed(&text, Ask::new(&options, None), 1, &mut |b| batches.push(b));
    assert_eq!(batches.len(), 3000);
    for (i, b) in batches.iter().enumerate() {
        let prefix = format!("items[{i}].");
        assert_eq!(b.len(), 4, "{b:?}");
        assert!(
            b.iter()
                .all(|d| d.path.as_deref().unwrap().starts_with(&prefix)),
            "{b:?}"
        );
    }
    assert_eq!(
        batches.concat(),
        check(&text, Ask::new(&options, None)).diagnostics
    );
}
