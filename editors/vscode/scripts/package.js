#!/usr/bin/env node
// `npm run package [-- --target TARGET] [vsce options]`: a platform-specific .vsix that carries
// the taintlint release binary in bin/, so that installing the .vsix is all a user does (the
// extension runs `taintlint.path` if set, else bin/taintlint, else taintlint on PATH).
//
// `npm run package -- --universal`: one .vsix for every platform, without a binary (the
// extension then runs `taintlint` from PATH), for platforms no package is built for.
//
// TARGET is a VS Code platform (default: this machine's). The binary is built with
// `cargo build --profile dist` (the release build, stripped: Cargo.toml) for that platform's
// Rust target (a no-op when it is up to date, so a package never carries a stale binary); for a
// platform other than this machine's, cargo needs that Rust target installed (`rustup target
// add`) and a linker for it.
// What follows the target is passed to `vsce package` (for example `--out DIR/x.vsix`).
"use strict";

const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

/** The VS Code platforms taintlint is packaged for, with the Rust target that builds each. */
const TARGETS = {
  "linux-x64": { rust: "x86_64-unknown-linux-gnu", exe: "taintlint" },
  "linux-arm64": { rust: "aarch64-unknown-linux-gnu", exe: "taintlint" },
  "darwin-x64": { rust: "x86_64-apple-darwin", exe: "taintlint" },
  "darwin-arm64": { rust: "aarch64-apple-darwin", exe: "taintlint" },
  "win32-x64": { rust: "x86_64-pc-windows-msvc", exe: "taintlint.exe" },
};

const EXTENSION = path.resolve(__dirname, "..");
const REPO = path.resolve(EXTENSION, "../..");

function fail(message) {
  process.stderr.write(`package: ${message}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const host = `${process.platform}-${process.arch}`;
  let target;
  let universal = false;
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--universal") {
      universal = true;
    } else if (argv[i] === "--target") {
      target = argv[++i];
    } else if (argv[i].startsWith("--target=")) {
      target = argv[i].slice("--target=".length);
    } else {
      rest.push(argv[i]);
    }
  }
  if (universal) {
    if (target) fail("--universal and --target exclude each other");
    return { universal, rest };
  }
  target ??= host;
  if (!TARGETS[target]) {
    fail(`no package for the platform ${target}; the platforms: ${Object.keys(TARGETS).join(", ")}`);
  }
  return { target, native: target === host, universal, rest };
}

/**
 * Builds the release binary for `target` and returns its path, as cargo reports it (so
 * CARGO_TARGET_DIR and the like are followed).
 */
function buildServer(target, native) {
  const args = ["build", "--profile", "dist", "--locked", "--bin", "taintlint", "--message-format=json-render-diagnostics"];
  if (!native) {
    args.push("--target", TARGETS[target].rust);
  }
  process.stderr.write(`package: cargo ${args.join(" ")}\n`);
  const cargo = spawnSync("cargo", args, {
    cwd: REPO,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (cargo.error) {
    fail(`cannot run cargo (${cargo.error.message}): the package carries a taintlint built from this repository`);
  }
  if (cargo.status !== 0) {
    fail(`cargo build --profile dist failed (exit ${cargo.status})`);
  }
  let executable;
  for (const line of cargo.stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    const message = JSON.parse(line);
    if (message.reason === "compiler-artifact" && message.target?.name === "taintlint" && message.executable) {
      executable = message.executable;
    }
  }
  if (!executable || !fs.existsSync(executable)) {
    fail("cargo built no taintlint executable");
  }
  return executable;
}

function main() {
  const { target, native, universal, rest } = parseArgs(process.argv.slice(2));
  // bin/ holds this platform's binary alone, or nothing in a universal package.
  const bin = path.join(EXTENSION, "bin");
  fs.rmSync(bin, { recursive: true, force: true });
  if (!universal) {
    const binary = buildServer(target, native);
    fs.mkdirSync(bin);
    const carried = path.join(bin, TARGETS[target].exe);
    fs.copyFileSync(binary, carried);
    fs.chmodSync(carried, 0o755);
    // The dist profile strips the binary for every platform, cross-built ones too (the host's
    // `strip`, run here before, knew only its own platform's binaries).
    process.stderr.write(`package: ${path.relative(REPO, binary)} -> ${path.relative(REPO, carried)}\n`);
  }

  const vsce = path.join(EXTENSION, "node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
  const vsceArgs = [
    "package",
    ...(universal ? [] : ["--target", target]),
    "--no-dependencies",
    "--allow-missing-repository",
    "--skip-license",
    "--readme-path", "MARKETPLACE.md",
    ...rest,
  ];
  process.stderr.write(`package: vsce ${vsceArgs.join(" ")}\n`);
  // On Windows vsce is a .cmd script, which Node.js runs only through a shell (since 20.12.2);
  // the arguments here have no spaces or quotes for it to mangle.
  const result = spawnSync(vsce, vsceArgs, { cwd: EXTENSION, stdio: "inherit", shell: process.platform === "win32" });
  if (result.error) {
    fail(`cannot run vsce (${result.error.message}): run \`npm ci\` first`);
  }
  process.exit(result.status ?? 1);
}

main();
