//! `rust-version` tells the truth: no locked dependency (normal, build or dev) declares a newer
//! Rust than `Cargo.toml`'s `rust-version`, and the README states the same version. Otherwise
//! `cargo build --locked` fails on the toolchain we say is enough.
//!
//! The dependencies are those of this host's platform (`cargo metadata --filter-platform`):
//! without it, `--offline` would need the sources of every other platform's crates too.

use std::path::Path;
use std::process::Command;

/// `1.88` or `1.88.0` as (major, minor, patch); a missing part is 0.
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| {
        p.parse::<u64>()
            .unwrap_or_else(|e| panic!("rust-version {text:?}: {e}"))
    });
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

fn host() -> String {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("run rustc -vV");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names its host")
}

fn metadata() -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .args(["--filter-platform", &host()])
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata --locked --offline failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

#[test]
fn rust_version_covers_every_locked_dependency() {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().unwrap();
    let ours = packages
        .iter()
        .find(|p| p["name"] == "taintlint")
        .expect("the crate itself is in the metadata");
    let declared = ours["rust_version"]
        .as_str()
        .expect("Cargo.toml declares a rust-version");
    let newer: Vec<String> = packages
        .iter()
        .filter(|p| p["name"] != "taintlint")
        .filter_map(|p| {
            let needs = p["rust_version"].as_str()?;
            (version(needs) > version(declared)).then(|| {
                let name = p["name"].as_str().unwrap_or_default();
                let locked = p["version"].as_str().unwrap_or_default();
                format!("{name} {locked} needs {needs}")
            })
        })
        .collect();
    assert!(
        newer.is_empty(),
        "Cargo.toml says rust-version = {declared:?}, but the locked build needs more:\n  {}",
        newer.join("\n  ")
    );
}

#[test]
fn readme_states_the_same_rust_version() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let declared = manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml declares a rust-version")
        .trim_matches('"');
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let stated: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.split_once("Rust toolchain (")?.1.split_once(" or newer)"))
        .map(|(v, _)| v)
        .collect();
    assert_eq!(
        stated,
        [declared],
        "README.md's \"Rust toolchain (X or newer)\" must say Cargo.toml's rust-version"
    );
}
