//! Output is streamed: a file's findings are written when that file is done, before later
//! files are read. Standard input, named last and held open, is a file that is not done until
//! the test says so; the first file's findings must arrive before that, in every format.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

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
