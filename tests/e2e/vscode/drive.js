// Run by the VS Code end-to-end test (tests/editors_vscode.rs): packages the extension in
// editors/vscode into this platform's .vsix (`npm run package`, which carries the release
// binary), installs it into a fresh code-server (VS Code in the browser) on 127.0.0.1 whose PATH
// has no `taintlint` and whose settings have no `taintlint.path`, opens a workspace with an
// inventory configured in headless Chromium through playwright-core, and records what a person
// would see: the squiggles, the Problems panel, the hovers, the code lenses and inlay hints of
// the cluster, a workload's placement, the error shown for a missing server binary. Screenshots
// and logs go to $TAINTLINT_E2E_ARTIFACTS; what was seen goes to result.json there, for the Rust
// side to check against `taintlint lint` and the core.
"use strict";

const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const http = require("node:http");
const net = require("node:net");
const os = require("node:os");
const path = require("node:path");

function env(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

const E2E_HOME = env("TAINTLINT_E2E_HOME");
const ARTIFACTS = env("TAINTLINT_E2E_ARTIFACTS");
const FIXTURE = env("TAINTLINT_E2E_FIXTURE");
// Another taintlint, which `taintlint.path` names to take precedence over the bundled one.
const BIN = env("TAINTLINT_BIN");
// A manifest of several workloads and the inventory file the workspace settings name.
const CLUSTER_MANIFEST = env("TAINTLINT_E2E_CLUSTER_MANIFEST");
const INVENTORY = env("TAINTLINT_E2E_INVENTORY");
// A Karpenter NodePool without taints, and a workload on its nodes that is never opened: the
// pool gets a taint in the editor and the workload's problem shows (workspace diagnostics).
const NODEPOOL = env("TAINTLINT_E2E_NODEPOOL");
const UNOPENED = env("TAINTLINT_E2E_UNOPENED");
const NODEPOOL_TAINT = env("TAINTLINT_E2E_NODEPOOL_TAINT");
const EXTENSION = env("TAINTLINT_VSCODE_EXTENSION");
const CHROMIUM = process.env.TAINTLINT_CHROMIUM || "/usr/bin/chromium";
const CODE_SERVER = path.join(E2E_HOME, "code-server/node_modules/.bin/code-server");
const { chromium } = require(path.join(E2E_HOME, "playwright/node_modules/playwright-core"));

// Chromium, code-server and the language server share two cores: be patient.
const TIMEOUT = 60_000;

function log(message) {
  process.stderr.write(`[vscode-e2e ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

function run(command, args, options) {
  log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function get(url) {
  return new Promise((resolve) => {
    const request = http.get(url, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on("error", () => resolve(undefined));
    request.setTimeout(2000, () => {
      request.destroy();
      resolve(undefined);
    });
  });
}

async function until(what, predicate, timeout = TIMEOUT) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await predicate();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

/** "Ln 20, Col 51" and the rest of a Problems panel row. */
function parseProblemRow(row) {
  const at = /\[Ln (\d+), Col (\d+)\]/.exec(row.text);
  // VS Code shows the source and the code as "taintlint(rule)" (the parentheses may be drawn
  // by CSS, so innerText can read "taintlint rule").
  const code = /taintlint\(?\s*([a-z0-9-]+)\)?\s*\[Ln/.exec(row.text);
  return {
    ...row,
    line: at ? Number(at[1]) : null,
    column: at ? Number(at[2]) : null,
    code: code ? code[1] : null,
  };
}

async function problemRows(page) {
  // The rows the list draws, in the tree's order: a virtualized list reuses and moves row
  // elements, so their order in the page is not the tree's; the copies of file rows that
  // sticky scroll pins at the top are left out.
  const rows = await page.$$eval(".markers-panel .monaco-list-row:not(.monaco-tree-sticky-row)", (rows) =>
    rows.map((row) => ({
      index: Number(row.getAttribute("data-index")),
      // 1: a file; 2: one of its problems; 3: a problem's related location.
      level: Number(row.getAttribute("aria-level")),
      text: row.innerText.replace(/\s+/g, " ").trim(),
      aria: row.getAttribute("aria-label") || "",
      // Whether some text of the row is cut off with an ellipsis (not readable whole).
      truncated: Array.from(row.querySelectorAll("*")).some(
        (e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow === "ellipsis",
      ),
      severity: (() => {
        const icon = row.querySelector(".marker-icon");
        if (!icon) return null;
        for (const s of ["error", "warning", "info"]) {
          if (icon.classList.contains(s) || icon.classList.contains(`codicon-${s}`)) return s;
        }
        return icon.className;
      })(),
    })),
  );
  return rows.sort((a, b) => a.index - b.index);
}

/**
 * `file`'s problems as the Problems panel lists them. A problem belongs to the file row above it
 * in the tree; one whose file row is not drawn (the list draws only the rows in view, and the
 * row just before may be of another file) is not `file`'s for sure, and is left out.
 */
async function markerRows(page, file) {
  const rows = await problemRows(page);
  const kept = [];
  let current = null;
  let previous = null;
  for (const r of rows) {
    if (previous === null || r.index !== previous + 1) current = null; // a gap: rows not drawn
    previous = r.index;
    if (r.level === 1) {
      current = r.text.split(" ")[0];
    } else if (r.level === 2 && current === file) {
      kept.push(r);
    }
  }
  return kept.map(({ index, level, ...r }) => parseProblemRow(r));
}

/**
 * Filters the Problems panel to `file` (the server reports the workspace's other files too:
 * workspace diagnostics), and gives the focus back to `file`'s editor: Escape in the filter box,
 * which later steps press, clears the filter.
 */
async function filterProblems(page, file) {
  const filter = 'input[placeholder^="Filter (e.g. text"]';
  if ((await page.inputValue(filter)) !== `**/${file}`) {
    await page.fill(filter, `**/${file}`);
  }
  await page.click(`.tabs-container .tab.active[aria-label^="${file}"]`);
  await until("the focus to leave the Problems filter", () =>
    page.evaluate((filter) => !document.activeElement?.matches(filter), filter),
  );
}

/**
 * Marks (`data-taintlint-hover`) the hover that is drawn and says `expect`; whether there is one.
 * Earlier hovers stay in the page, hidden, and VS Code redraws a hover's content as parts of it
 * arrive.
 */
function markHover(page, expect) {
  return page.evaluate((expect) => {
    for (const e of document.querySelectorAll("[data-taintlint-hover]")) {
      e.removeAttribute("data-taintlint-hover");
    }
    for (const e of document.querySelectorAll(".monaco-editor .monaco-hover .monaco-hover-content")) {
      const r = e.getBoundingClientRect();
      const drawn = r.width > 0 && r.height > 0 && e.checkVisibility({ visibilityProperty: true });
      if (drawn && e.innerText.replace(/\s+/g, " ").includes(expect)) {
        e.setAttribute("data-taintlint-hover", "");
        return true;
      }
    }
    return false;
  }, expect);
}

/**
 * Puts the cursor at `line`:`column`, shows the hover there (editor.action.showHover, as
 * Ctrl+K Ctrl+I does), waits until it shows `expect` (the server's part comes after the
 * diagnostic's), and saves a screenshot of it with the line it belongs to as `shot`. Returns
 * what it shows and whether it needs scrolling.
 */
async function showHover(page, line, column, expect, shot) {
  // VS Code now and then closes a hover while it lays the page out again (more often on a busy
  // machine): the hover is shown and its picture taken again, at most three times in all.
  for (let attempt = 1; ; attempt++) {
    try {
      return await showHoverOnce(page, line, column, expect, shot);
    } catch (e) {
      if (attempt >= 3 || !(e instanceof HoverClosed)) throw e;
      log(`${e.message}; showing it again`);
    }
  }
}

/** A hover that closed while its picture was taken. */
class HoverClosed extends Error {}

async function showHoverOnce(page, line, column, expect, shot) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+G");
  await page.waitForSelector(".quick-input-widget:not(.hidden)", { timeout: TIMEOUT });
  await page.keyboard.type(`${line}:${column}`);
  await page.keyboard.press("Enter");
  await page.waitForSelector(".quick-input-widget", { state: "hidden", timeout: TIMEOUT });
  // The mouse away from the editor, so that no mouse hover replaces the keyboard's.
  await page.mouse.move(5, 5);
  await page.keyboard.press("Control+K");
  await page.keyboard.press("Control+I");
  const visible = "[data-taintlint-hover]";
  const hover = await until(`the hover at ${line}:${column} to show ${JSON.stringify(expect)}`, async () =>
    (await markHover(page, expect)) ? page.$(visible) : undefined,
  );
  // Whether the hover needs scrolling: its scrollable container holds more than it shows.
  const scrolls = await hover.evaluate((e) => {
    for (let n = e; n; n = n.parentElement) {
      if (n.scrollHeight > n.clientHeight + 1 && getComputedStyle(n).overflowY !== "visible") {
        return true;
      }
      if (n.classList.contains("monaco-hover")) break;
    }
    return false;
  });
  const text = (await hover.innerText()).trim();
  // The hover and the cursor's line, cut from the page as the browser draws it (through the
  // DevTools protocol: Playwright's own screenshot restyles the page, and VS Code closes a
  // hover when its layout changes).
  const box = await page.evaluate((selector) => {
    const h = document.querySelector(selector).closest(".monaco-hover");
    const cursor = document.querySelector(".monaco-editor.focused .cursor") || h;
    const a = h.getBoundingClientRect();
    const c = cursor.getBoundingClientRect();
    const x = Math.max(0, Math.min(a.left, c.left) - 120);
    const y = Math.max(0, Math.min(a.top, c.top) - 30);
    return {
      x,
      y,
      width: Math.min(window.innerWidth, Math.max(a.right, c.right) + 40) - x,
      height: Math.min(window.innerHeight, Math.max(a.bottom, c.bottom) + 30) - y,
    };
  }, visible);
  const cdp = await page.context().newCDPSession(page);
  const { data } = await cdp.send("Page.captureScreenshot", { format: "png", clip: { ...box, scale: 1 } });
  await cdp.detach();
  fs.writeFileSync(path.join(ARTIFACTS, shot), Buffer.from(data, "base64"));
  // Still there after the picture: the picture shows it.
  if (!(await markHover(page, expect))) {
    throw new HoverClosed(`the hover at ${line}:${column} closed while its screenshot was taken`);
  }
  return { text: scrolls ? `[scrolls] ${text}` : text, scrolls, shot: box };
}

async function runCommand(page, title) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("F1");
  await page.waitForSelector(".quick-input-widget:not(.hidden)", { timeout: TIMEOUT });
  await page.keyboard.type(title);
  // Enter takes the focused row: wait until the list, filtered, focuses the one asked for.
  await page.waitForSelector(`.quick-input-list .monaco-list-row.focused[aria-label*="${title}"]`, { timeout: TIMEOUT });
  await page.keyboard.press("Enter");
}

async function openFile(page, name) {
  const tab = await page.$(`.tabs-container .tab[aria-label^="${name}"]`);
  if (tab) {
    // A click on the tab leaves the keyboard on the tab: the text gets it by command.
    await tab.click();
    await activeTab(page, name);
    await runCommand(page, "View: Focus Active Editor Group");
    await editorFocused(page, name);
    return;
  }
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget:not(.hidden)", { timeout: TIMEOUT });
  await page.keyboard.type(name);
  // The recently opened files are listed at once: wait until the one searched for is the
  // focused row, which Enter opens.
  await page.waitForSelector(`.quick-input-list .monaco-list-row.focused[aria-label*="${name}"]`, { timeout: TIMEOUT });
  await page.keyboard.press("Enter");
  await activeTab(page, name);
}

async function activeTab(page, name, extra = "") {
  await page.waitForSelector(`.tabs-container .tab.active${extra}[aria-label^="${name}"]`, { timeout: TIMEOUT });
}

/** Waits until the keyboard goes to the text of the editor that shows `name`. */
async function editorFocused(page, name) {
  await until(`the keyboard focus in ${name}'s editor`, () =>
    page.evaluate((name) => {
      const focused = document.activeElement;
      const tab =
        document.querySelector(".editor-group-container.active .tabs-container .tab.active") ||
        document.querySelector(".tabs-container .tab.active");
      return Boolean(
        focused &&
          focused.closest(".part.editor .monaco-editor.focused") &&
          (tab?.getAttribute("aria-label") || "").startsWith(name),
      );
    }, name),
  );
}

/**
 * The code lenses and the inlay hints drawn in the first editor group, each with its 1-based
 * line (read from the line numbers in the margin): a lens sits in the space above its line.
 */
async function clusterDecorations(page) {
  return page.evaluate(() => {
    const editor = document.querySelector(".part.editor .editor-group-container .monaco-editor");
    if (!editor) return { lenses: [], hints: [], lines: [] };
    // (`lines`: the numbers of the lines drawn.)
    const numbers = Array.from(editor.querySelectorAll(".margin-view-overlays .line-numbers"))
      .map((e) => ({ line: Number(e.textContent.trim()), top: e.getBoundingClientRect().top }))
      .filter((n) => n.line > 0)
      .sort((a, b) => a.top - b.top);
    const lineAt = (top) => numbers.find((n) => Math.abs(n.top - top) < 3)?.line ?? null;
    const lenses = Array.from(editor.querySelectorAll(".contentWidgets .codelens-decoration"))
      .map((lens) => {
        const top = lens.getBoundingClientRect().top;
        return {
          line: numbers.find((n) => n.top > top + 1)?.line ?? null,
          text: lens.innerText.replace(/\u00a0/g, " ").trim(),
        };
      })
      // (Widgets kept for lines out of view are empty.)
      .filter((lens) => lens.text);
    const hints = [];
    const lines = [];
    for (const row of editor.querySelectorAll(".view-lines .view-line")) {
      const line = lineAt(row.getBoundingClientRect().top);
      lines.push(line);
      // An inlay hint is text VS Code injects into the line, in spans of its own class (a long
      // one in pieces of 50 characters, side by side; separate hints have a gap between).
      let last;
      for (const span of row.querySelectorAll("span[class*='dyn-rule']")) {
        const text = span.innerText.replace(/\u00a0/g, " ");
        const box = span.getBoundingClientRect();
        if (!text.trim()) continue;
        if (last && Math.abs(box.left - last.right) < 1) {
          last.text += text;
          last.right = box.right;
        } else {
          last = { line, left: box.left, right: box.right, text, class: span.className };
          hints.push(last);
        }
      }
    }
    return { lenses, hints, lines };
  });
}

/** The commands the extension started its server with, from its log under `logs`. */
function serverCommands(logs) {
  if (!fs.existsSync(logs)) return [];
  return fs
    .readdirSync(logs, { recursive: true })
    .filter((f) => path.basename(String(f)) === "taintlint.log")
    .flatMap((f) => fs.readFileSync(path.join(logs, String(f)), "utf8").split("\n"))
    .map((l) => /\[info\] starting (.*) server$/.exec(l)?.[1])
    .filter(Boolean);
}

/**
 * Changes settings the way a person does: in a settings.json, in the editor, saved; then waits
 * for `file` on disk to hold them.
 */
async function editSettings(page, command, file, settings) {
  await runCommand(page, command);
  await activeTab(page, "settings.json");
  await editorFocused(page, "settings.json");
  // Pasted, not typed, so that no bracket or quote is closed or indented automatically.
  await page.evaluate((text) => navigator.clipboard.writeText(text), JSON.stringify(settings, null, 2) + "\n");
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Control+V");
  await page.keyboard.press("Control+S");
  await activeTab(page, "settings.json", ":not(.dirty)");
  await until(`${file} to hold the new settings`, () => {
    try {
      return JSON.stringify(JSON.parse(fs.readFileSync(file, "utf8"))) === JSON.stringify(settings);
    } catch {
      return false;
    }
  });
}

/**
 * The settings the extension sent the server, oldest first, from its log under `logs`
 * ("settings changed: {...}").
 */
function settingsSent(logs) {
  if (!fs.existsSync(logs)) return [];
  return fs
    .readdirSync(logs, { recursive: true })
    .filter((f) => path.basename(String(f)) === "taintlint.log")
    .flatMap((f) => fs.readFileSync(path.join(logs, String(f)), "utf8").split("\n"))
    .map((l) => /\[info\] settings changed: (\{.*\})$/.exec(l)?.[1])
    .filter(Boolean)
    .map((json) => JSON.parse(json));
}

async function main() {
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const result = { steps: [] };
  const step = (name) => {
    log(name);
    result.steps.push(name);
  };

  // The extension, packaged the way a release is: this platform's .vsix, with the binary.
  step("package the extension");
  const packages = path.join(ARTIFACTS, "package");
  fs.mkdirSync(packages);
  run("npm", ["run", "--silent", "package", "--", "--out", packages], { cwd: EXTENSION });
  result.packages = fs.readdirSync(packages);
  if (result.packages.length !== 1) {
    throw new Error(`npm run package wrote ${JSON.stringify(result.packages)}`);
  }
  const vsix = path.join(packages, result.packages[0]);

  const root = fs.mkdtempSync(path.join(os.tmpdir(), "taintlint-vscode-e2e-"));
  const dirs = {};
  for (const name of ["workspace", "user-data", "extensions", "xdg-config", "xdg-data", "chromium", "tmp"]) {
    dirs[name] = path.join(root, name);
    fs.mkdirSync(dirs[name], { recursive: true });
  }
  const fileName = path.basename(FIXTURE);
  fs.copyFileSync(FIXTURE, path.join(dirs.workspace, fileName));
  const clusterName = path.basename(CLUSTER_MANIFEST);
  fs.copyFileSync(CLUSTER_MANIFEST, path.join(dirs.workspace, clusterName));
  const inventoryName = path.basename(INVENTORY);
  fs.copyFileSync(INVENTORY, path.join(dirs.workspace, inventoryName));
  const nodePoolName = path.basename(NODEPOOL);
  fs.copyFileSync(NODEPOOL, path.join(dirs.workspace, nodePoolName));
  const unopenedName = path.basename(UNOPENED);
  fs.copyFileSync(UNOPENED, path.join(dirs.workspace, unopenedName));
  // The repository's own settings name its inventory, as a team's would.
  const workspaceSettings = path.join(dirs.workspace, ".vscode", "settings.json");
  writeJson(workspaceSettings, { "taintlint.inventory": [inventoryName] });
  // A machine without taintlint on PATH: the extension must run the binary it carries.
  const isExe = (file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  const searchPath = (process.env.PATH || "")
    .split(path.delimiter)
    .filter((dir) => dir && !isExe(path.join(dir, "taintlint")))
    .join(path.delimiter);
  result.path_without_taintlint = !searchPath.split(path.delimiter).some((dir) => isExe(path.join(dir, "taintlint")));
  const closedPort = await freePort();
  const csEnv = {
    ...process.env,
    PATH: searchPath,
    XDG_CONFIG_HOME: dirs["xdg-config"],
    XDG_DATA_HOME: dirs["xdg-data"],
    TMPDIR: dirs.tmp,
    // No marketplace: the gallery is a closed port on loopback.
    EXTENSIONS_GALLERY: JSON.stringify({
      serviceUrl: `http://127.0.0.1:${closedPort}/gallery`,
      itemUrl: `http://127.0.0.1:${closedPort}/item`,
    }),
  };
  const common = [
    "--config", path.join(root, "code-server.yaml"),
    "--user-data-dir", dirs["user-data"],
    "--extensions-dir", dirs.extensions,
  ];

  step("install the .vsix into code-server");
  run(CODE_SERVER, [...common, "--install-extension", vsix], { env: csEnv });
  result.installed = fs.readdirSync(dirs.extensions).filter((n) => !n.startsWith(".") && n !== "extensions.json");
  // The platform each was packaged for, from the manifest VS Code keeps beside it.
  result.installed_platforms = result.installed.map((n) => {
    const manifest = path.join(dirs.extensions, n, ".vsixmanifest");
    const xml = fs.existsSync(manifest) ? fs.readFileSync(manifest, "utf8") : "";
    return `${n}:${/TargetPlatform="([^"]*)"/.exec(xml)?.[1]}`;
  });
  result.installed_files = result.installed.flatMap((n) => fs.readdirSync(path.join(dirs.extensions, n)).map((f) => `${n}/${f}`));
  // The binary the installed extension carries, as VS Code unpacked it.
  result.bundled = result.installed
    .map((n) => path.join(dirs.extensions, n, "bin", "taintlint"))
    .filter((file) => isExe(file));

  const settingsFile = path.join(dirs["user-data"], "User", "settings.json");
  const settings = {
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.enableExperiments": false,
    "workbench.colorTheme": "Default Dark Modern",
    "security.workspace.trust.enabled": false,
    "chat.disableAIFeatures": true,
    "git.enabled": false,
    // Edits stay unsaved until the test saves them (the pool edit is checked unsaved).
    "files.autoSave": "off",
    "editor.minimap.enabled": false,
    "editor.stickyScroll.enabled": false,
    "editor.hover.delay": 200,
    "window.zoomLevel": 0,
    // No `taintlint.path`: the bundled binary runs. VS Code's default cuts inlay hints at 43
    // characters; the README tells users the same setting.
    "editor.inlayHints.maximumLength": 0,
    "taintlint.trace.server": "messages",
  };
  writeJson(settingsFile, settings);

  const port = await freePort();
  step(`start code-server on 127.0.0.1:${port}`);
  const serverLog = fs.openSync(path.join(ARTIFACTS, "code-server.log"), "w");
  const codeServer = spawn(
    CODE_SERVER,
    [
      ...common,
      "--bind-addr", `127.0.0.1:${port}`,
      "--auth", "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--disable-proxy",
      dirs.workspace,
    ],
    { env: csEnv, detached: true, stdio: ["ignore", serverLog, serverLog] },
  );
  let browser;
  let page;
  try {
    await until("code-server to answer", async () => (await get(`http://127.0.0.1:${port}/healthz`)) === 200);

    step("open VS Code in Chromium");
    browser = await chromium.launchPersistentContext(dirs.chromium, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 860 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    await browser.grantPermissions(["clipboard-read", "clipboard-write"], { origin: `http://127.0.0.1:${port}` });
    page = browser.pages()[0] || (await browser.newPage());
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
    await page.waitForSelector(".monaco-workbench", { timeout: TIMEOUT });
    await page.waitForSelector(".explorer-folders-view, .monaco-workbench .part.editor", { timeout: TIMEOUT });
    // The workbench is ready for keys once the explorer lists the workspace's files.
    await page.waitForSelector(`.explorer-folders-view .monaco-list-row[aria-label^="${fileName}"]`, { timeout: TIMEOUT });

    step(`open ${fileName}`);
    await page.locator(".monaco-workbench").click({ position: { x: 640, y: 400 } }).catch(() => {});
    await openFile(page, fileName);
    await page.waitForSelector(".monaco-editor .view-lines", { timeout: TIMEOUT });

    step("wait for taintlint's squiggles");
    await page.waitForSelector(".squiggly-error", { timeout: TIMEOUT });
    await page.screenshot({ path: path.join(ARTIFACTS, "squiggles.png") });

    step("read the Problems panel");
    await page.keyboard.press("Control+Shift+M");
    await page.waitForSelector(".markers-panel .monaco-list-row", { timeout: TIMEOUT });
    // The workspace's other files are in the panel too (workspace diagnostics): show this one's.
    await page.screenshot({ path: path.join(ARTIFACTS, "workspace-problems.png") });
    await filterProblems(page, fileName);
    result.problems = await until("the problems to settle", async () => {
      const first = await markerRows(page, fileName);
      await page.waitForTimeout(1000);
      const second = await markerRows(page, fileName);
      return first.length > 0 && JSON.stringify(first) === JSON.stringify(second) ? second : undefined;
    });
    await page.screenshot({ path: path.join(ARTIFACTS, "problems.png") });

    const flagged = result.problems.find((p) => p.code === process.env.TAINTLINT_E2E_HOVER_RULE);
    if (!flagged) {
      throw new Error(`no problem of rule ${process.env.TAINTLINT_E2E_HOVER_RULE} to hover`);
    }
    step(`hover the ${flagged.code} problem at ${flagged.line}:${flagged.column}`);
    // VS Code's own part of the hover comes at once; the server's (`RULE: message`) when it
    // answers.
    const hoverDiagnostic = await showHover(
      page,
      flagged.line,
      flagged.column,
      `${flagged.code}:`,
      "hover-diagnostic.png",
    );
    result.hover_diagnostic = hoverDiagnostic.text;
    result.hover_diagnostic_box = hoverDiagnostic.shot;

    const line = fs.readFileSync(FIXTURE, "utf8").split("\n").findIndex((l) => l.includes(process.env.TAINTLINT_E2E_HOVER_TOLERATION));
    if (line < 0) {
      throw new Error(`no line contains ${process.env.TAINTLINT_E2E_HOVER_TOLERATION}`);
    }
    step(`hover the toleration on line ${line + 1}`);
    result.hover_toleration = (
      await showHover(page, line + 1, 10, "NoExecute", "hover-toleration.png")
    ).text;
    await page.keyboard.press("Escape");

    const severityRule = env("TAINTLINT_E2E_SEVERITY_RULE");
    step(`make ${severityRule} an error in the user settings`);
    await editSettings(page, "Preferences: Open User Settings (JSON)", settingsFile, {
      ...settings,
      "taintlint.rules": { [severityRule]: "error" },
    });
    await openFile(page, fileName);
    await filterProblems(page, fileName);
    result.problems_after_settings = await until(`${severityRule} to show as an error`, async () => {
      const rows = await markerRows(page, fileName);
      const row = rows.find((r) => r.code === severityRule);
      return row && row.severity === "error" ? rows : undefined;
    });
    await page.screenshot({ path: path.join(ARTIFACTS, "settings.png") });

    step(`open ${clusterName}: code lenses and inlay hints from ${inventoryName}`);
    if (await page.isVisible(".part.panel")) {
      await page.keyboard.press("Control+J"); // the panel away: room for the manifest
    }
    await openFile(page, clusterName);
    await page.waitForSelector(".monaco-editor .codelens-decoration a", { timeout: TIMEOUT });
    // Page through the file: the editor draws only the lines in view.
    const seen = { lenses: new Map(), hints: new Map() };
    const lineCount = fs.readFileSync(CLUSTER_MANIFEST, "utf8").replace(/\n$/, "").split("\n").length;
    await page.keyboard.press("Control+Home");
    for (let i = 0; i < 20; i++) {
      // Lenses and hints come after the text: wait until what is drawn holds still.
      const view = await until("the lenses and hints to settle", async () => {
        const first = await clusterDecorations(page);
        await page.waitForTimeout(800);
        const second = await clusterDecorations(page);
        const same = JSON.stringify(first.lenses) === JSON.stringify(second.lenses) &&
          JSON.stringify(first.hints.map((h) => [h.line, h.text])) === JSON.stringify(second.hints.map((h) => [h.line, h.text]));
        return same && second.lenses.length > 0 ? second : undefined;
      });
      for (const l of view.lenses) seen.lenses.set(`${l.line}`, l);
      for (const h of view.hints) seen.hints.set(`${h.line}:${h.text}`, { ...h, text: h.text.trim() });
      if (i === 0) {
        await page.screenshot({ path: path.join(ARTIFACTS, "lenses.png") });
      }
      if (view.lines.includes(lineCount)) break;
      await page.keyboard.press("PageDown");
    }
    result.lenses = [...seen.lenses.values()].sort((a, b) => a.line - b.line);
    result.hints = [...seen.hints.values()].sort((a, b) => a.line - b.line || a.left - b.left);

    step("click the first lens: the placement beside the manifest");
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Control+B"); // the side bar away: room for both
    await until("the side bar to close", async () => !(await page.isVisible(".part.sidebar")));
    await page.click(".part.editor .codelens-decoration a");
    result.placement = await until("the placement document", async () => {
      const groups = await page.$$(".part.editor .editor-group-container");
      if (groups.length < 2) return undefined;
      const text = await groups[1].$eval(".view-lines", (e) =>
        Array.from(e.querySelectorAll(".view-line"))
          .map((l) => ({ top: l.getBoundingClientRect().top, text: l.innerText.replace(/\u00a0/g, " ") }))
          .sort((a, b) => a.top - b.top)
          .map((l) => l.text)
          .join("\n"),
      ).catch(() => "");
      return text.trim() ? text : undefined;
    });
    const beside = (await page.$$(".part.editor .editor-group-container"))[1];
    result.placement_tab = await beside.$eval(".tab.active", (tab) => ({
      label: tab.getAttribute("aria-label") || "",
      dirty: tab.classList.contains("dirty"),
    }));
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(ARTIFACTS, "cluster.png") });

    step(`add ${nodePoolName} to the inventory; taint it in the editor, unsaved: ${unopenedName}, never opened, gets a problem`);
    await runCommand(page, "View: Single Column Editor Layout").catch(() => {});
    if (!(await page.isVisible(".markers-panel"))) {
      await page.keyboard.press("Control+Shift+M");
    }
    await page.waitForSelector(".markers-panel", { timeout: TIMEOUT });
    const filter = 'input[placeholder^="Filter (e.g. text"]';
    await page.fill(filter, `**/${unopenedName}`);
    // The keys away from the filter (Escape there would clear it).
    await page.click(".part.editor .tabs-container .tab.active");
    await until("the focus to leave the Problems filter", () =>
      page.evaluate((filter) => !document.activeElement?.matches(filter), filter),
    );
    // Without the pool no node has the workload's team label: it fits no node.
    result.pool_edit_without_pool = await until(`${unopenedName}'s problem before ${nodePoolName} is in the inventory`, async () => {
      const rows = await markerRows(page, unopenedName);
      return rows.some((r) => r.code === "unschedulable") ? rows : undefined;
    });
    await editSettings(page, "Preferences: Open Workspace Settings (JSON)", workspaceSettings, {
      "taintlint.inventory": [inventoryName, nodePoolName],
    });
    // The extension sent the server the new inventory...
    await until(`the extension to send the server an inventory with ${nodePoolName}`, () =>
      settingsSent(path.join(dirs["user-data"], "logs")).some((s) => (s.inventory || []).includes(nodePoolName)),
    );
    await openFile(page, nodePoolName);
    if ((await page.inputValue(filter)) !== `**/${unopenedName}`) {
      throw new Error(`the Problems filter was changed: ${await page.inputValue(filter)}`);
    }
    // ...and once the server has read it (and answered the workspace pull it asks for), the
    // pool, with no taint yet, takes the workload: its problem is gone.
    await until(`the server to read ${nodePoolName}: ${unopenedName}'s problem gone`, async () =>
      (await markerRows(page, unopenedName)).length === 0,
    );
    result.pool_edit_before = await markerRows(page, unopenedName);
    const pool = fs.readFileSync(NODEPOOL, "utf8");
    const tainted = pool.replace("taints: []", `taints: [${NODEPOOL_TAINT}]`);
    if (tainted === pool) {
      throw new Error(`${nodePoolName} has no "taints: []" to edit`);
    }
    // Pasted, not typed, so that nothing is closed or indented automatically; not saved.
    await page.evaluate((text) => navigator.clipboard.writeText(text), tainted);
    // The keys go to the pool's editor only once it has the focus.
    await editorFocused(page, nodePoolName);
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+V");
    result.pool_edit_after = await until(`${unopenedName}'s problem`, async () => {
      const rows = await markerRows(page, unopenedName);
      return rows.some((r) => r.code === "unschedulable") ? rows : undefined;
    });
    result.pool_edit_open_tabs = await page.$$eval(".tabs-container .tab", (tabs) =>
      tabs.map((t) => (t.getAttribute("aria-label") || "").split(",")[0]),
    );
    // Unsaved: the file on disk still has no taint.
    const onDisk = fs.readFileSync(path.join(dirs.workspace, nodePoolName), "utf8");
    result.pool_edit_on_disk_unchanged = onDisk === pool;
    if (onDisk !== pool) {
      result.pool_edit_on_disk = onDisk;
    }
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(ARTIFACTS, "pool-edit-problems.png") });
    // Back as it was on disk, unsaved changes dropped.
    await page.evaluate((text) => navigator.clipboard.writeText(text), pool);
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Control+V");
    await page.keyboard.press("Control+S");
    await activeTab(page, nodePoolName, ":not(.dirty)");

    // Rename a taint key from a toleration: F2, the new name, Enter. The edits apply at once
    // (no preview to confirm), in the open files and in the inventory nobody opened; saved,
    // they are on disk.
    const renamedFrom = "example.com/spot";
    const renamedTo = "example.com/preemptible";
    step(`rename ${renamedFrom} to ${renamedTo} from ${fileName}`);
    await openFile(page, fileName);
    await editorFocused(page, fileName);
    const fixtureText = fs.readFileSync(FIXTURE, "utf8");
    const spotLine = fixtureText.split("\n").findIndex((l) => l.includes(`key: ${renamedFrom}`));
    if (spotLine < 0) {
      throw new Error(`${fileName} has no toleration of ${renamedFrom}`);
    }
    const spotColumn = fixtureText.split("\n")[spotLine].indexOf(renamedFrom) + 2;
    await page.keyboard.press("Control+G");
    await page.waitForSelector(".quick-input-widget:not(.hidden)", { timeout: TIMEOUT });
    await page.keyboard.type(`${spotLine + 1}:${spotColumn}`);
    await page.keyboard.press("Enter");
    await editorFocused(page, fileName);
    await page.keyboard.press("F2");
    await page.waitForSelector(".rename-box input", { timeout: TIMEOUT });
    await until("the rename box to hold the key", async () =>
      (await page.inputValue(".rename-box input")) === renamedFrom,
    );
    // Typed into the rename box itself: keys pressed before it takes the focus would edit the
    // document instead.
    await page.fill(".rename-box input", renamedTo);
    await page.press(".rename-box input", "Enter");
    await until(`${fileName} to show key: ${renamedTo}`, async () =>
      // Monaco draws spaces as no-break spaces.
      (await page.$$eval(".part.editor .view-lines", (ls) => ls.map((l) => l.innerText).join("\n")))
        .replace(/\u00a0/g, " ")
        .includes(`key: ${renamedTo}`),
    );
    result.rename_preview_shown = await page.isVisible(".refactor-preview, .bulk-edit-pane");
    await runCommand(page, "File: Save All");
    const renamedFiles = [fileName, inventoryName, clusterName];
    result.rename_on_disk = await until("the renamed files on disk", () => {
      const texts = renamedFiles.map((f) => fs.readFileSync(path.join(dirs.workspace, f), "utf8"));
      return texts.every((t) => t.includes(renamedTo) && !t.includes(renamedFrom))
        ? Object.fromEntries(renamedFiles.map((f, i) => [f, texts[i]]))
        : undefined;
    });

    step("point taintlint.path at another taintlint: it replaces the bundled one");
    await editSettings(page, "Preferences: Open Workspace Settings (JSON)", workspaceSettings, {
      "taintlint.inventory": [inventoryName],
      "taintlint.path": BIN,
    });
    await until("the server to restart from taintlint.path", async () =>
      serverCommands(path.join(dirs["user-data"], "logs")).includes(BIN),
    );

    step("point taintlint.path at a missing file");
    const missing = path.join(root, "no-such-taintlint");
    await editSettings(page, "Preferences: Open Workspace Settings (JSON)", workspaceSettings, { "taintlint.path": missing });
    const toast = await until("the missing-binary notification", async () => {
      const texts = await page.$$eval(".notifications-toasts .notification-list-item-message", (els) =>
        els.map((e) => e.innerText.trim()),
      );
      return texts.find((t) => t.includes("taintlint")) || undefined;
    });
    result.missing_binary_message = toast;
    await page.screenshot({ path: path.join(ARTIFACTS, "missing-binary.png") });
  } catch (error) {
    result.error = String(error && error.stack ? error.stack : error);
    if (page) {
      await page.screenshot({ path: path.join(ARTIFACTS, "failure.png") }).catch(() => {});
    }
  } finally {
    if (browser) {
      await browser.close().catch(() => {});
    }
    try {
      process.kill(-codeServer.pid, "SIGTERM");
    } catch {}
    // The extension host's logs, the taintlint output channel among them.
    fs.cpSync(path.join(dirs["user-data"], "logs"), path.join(ARTIFACTS, "logs"), { recursive: true, force: true });
    result.server_commands = serverCommands(path.join(ARTIFACTS, "logs")).map((command) =>
      command.startsWith(root) ? path.relative(root, command) : command,
    );
    writeJson(path.join(ARTIFACTS, "result.json"), result);
    fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  }
  if (result.error) {
    log(result.error);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  log(String(error && error.stack ? error.stack : error));
  process.exitCode = 1;
});
