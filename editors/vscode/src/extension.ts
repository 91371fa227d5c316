// The taintlint extension: starts `taintlint server` (a language server over stdio) for YAML
// files and keeps its settings in step with VS Code's.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from "vscode-languageclient/node";

const SECTION = "taintlint";
/** Read-only documents of a workload's per-pool verdicts, opened from its code lens. */
const PLACEMENT_SCHEME = "taintlint-placement";

let client: LanguageClient | undefined;
const placements = new Map<string, string>();
const placementChanged = new vscode.EventEmitter<vscode.Uri>();
let extensionDir = "";
let output: vscode.LogOutputChannel;
let traceOutput: vscode.LogOutputChannel;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionDir = context.extensionPath;
  output = vscode.window.createOutputChannel("taintlint", { log: true });
  traceOutput = traceChannel(
    vscode.window.createOutputChannel("taintlint Trace"),
    context.subscriptions,
  );
  context.subscriptions.push(
    output,
    traceOutput,
    vscode.commands.registerCommand("taintlint.restartServer", () => restart()),
    vscode.commands.registerCommand("taintlint.showOutput", () => output.show(true)),
    // A code lens's command: the workload's per-pool verdicts, in a read-only document beside
    // (named after the workload; never unsaved, so closing it asks nothing).
    vscode.workspace.registerTextDocumentContentProvider(PLACEMENT_SCHEME, {
      onDidChange: placementChanged.event,
      provideTextDocumentContent: (uri) => placements.get(uri.toString()) ?? "",
    }),
    placementChanged,
    vscode.commands.registerCommand(
      "taintlint.showPlacement",
      async (arg?: { title?: string; uri?: string; position?: { line: number; character: number } }) => {
        // The lens carries where the workload is; the server says how it fits, pool by pool.
        const placement =
          client && arg?.uri && arg.position
            ? await client.sendRequest<{ title: string; details: string } | null>(
                "taintlint/placement",
                { textDocument: { uri: arg.uri }, position: arg.position },
              )
            : null;
        if (!placement) {
          void vscode.window.showInformationMessage(
            "taintlint: no workload there any more (or no inventory configured).",
          );
          return;
        }
        const title = placement.title || arg?.title || "workload";
        // A slash in `Deployment ns/name` would make a folder of the namespace.
        const uri = vscode.Uri.from({
          scheme: PLACEMENT_SCHEME,
          path: `/${title.replaceAll("/", "\u2215")} placement`,
        });
        placements.set(uri.toString(), placement.details);
        placementChanged.fire(uri);
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(doc, {
          viewColumn: vscode.ViewColumn.Beside,
          preview: true,
          preserveFocus: true,
        });
      },
    ),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Every other setting reaches the running server as workspace/didChangeConfiguration;
      // only a different executable needs a new process.
      if (event.affectsConfiguration(`${SECTION}.path`)) {
        void restart();
      } else if (event.affectsConfiguration(SECTION)) {
        output.info(`settings changed: ${JSON.stringify(serverSettings())}`);
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output.warn(`stopping the server: ${String(error)}`);
    }
  }
}

async function start(): Promise<void> {
  const command = findServer();
  if (!command) {
    return;
  }
  output.info(`starting ${command} server`);
  // No `transport`: with TransportKind.stdio the client would append `--stdio` to the
  // arguments; an executable without one already talks over stdin and stdout.
  const serverOptions: ServerOptions = { command, args: ["server"] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      // JSON manifests too, as `taintlint lint` lints them (`kubectl get -o json` output).
      { scheme: "file", language: "yaml" },
      { scheme: "untitled", language: "yaml" },
      { scheme: "file", language: "json" },
      { scheme: "untitled", language: "json" },
      // Terraform node pools (EKS, GKE, AKS, ...), as `taintlint lint` reads them: by name, since
      // without a Terraform extension VS Code calls a .tf file plain text.
      { scheme: "file", language: "terraform" },
      { scheme: "file", pattern: "**/*.tf" },
    ],
    outputChannel: output,
    traceOutputChannel: traceOutput,
    initializationOptions: () => serverSettings(),
    synchronize: {
      // Sends workspace/didChangeConfiguration whenever a taintlint.* setting changes, so the
      // server re-lints without a reload. The server can also pull the same section with
      // workspace/configuration.
      configurationSection: SECTION,
    },
    middleware: {
      workspace: {
        // Both carry only the settings the server reads: not `path` or `trace`, which are the
        // extension's own.
        didChangeConfiguration: async () => {
          await candidate.sendNotification(DidChangeConfigurationNotification.type, {
            settings: { [SECTION]: serverSettings() },
          });
        },
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          return answers.map((answer, i) => {
            const item = params.items[i];
            if (item?.section !== SECTION) {
              return answer;
            }
            return serverSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined);
          });
        },
      },
    },
  };
  // The client's id `taintlint` makes it read the `taintlint.trace.server` setting.
  const candidate = new LanguageClient(SECTION, "taintlint", serverOptions, clientOptions);
  try {
    await candidate.start();
    client = candidate;
  } catch (error) {
    output.error(`the server did not start: ${String(error)}`);
    void vscode.window
      .showErrorMessage(
        `taintlint: \`${command} server\` did not start (${String(error)}). ` +
          "The taintlint output channel has the server's log.",
        "Show Log",
      )
      .then((choice) => {
        if (choice === "Show Log") {
          output.show(true);
        }
      });
  }
}

/**
 * The trace channel. vscode-languageclient 11 traces only while its trace channel's log level is
 * Trace; this channel's level follows `taintlint.trace.server` (Trace unless it is `off`), so
 * that setting alone turns tracing on and off, as users expect.
 */
function traceChannel(
  channel: vscode.OutputChannel,
  subscriptions: vscode.Disposable[],
): vscode.LogOutputChannel {
  const levelChanged = new vscode.EventEmitter<vscode.LogLevel>();
  const level = () =>
    vscode.workspace.getConfiguration(SECTION).get<string>("trace.server", "off") === "off"
      ? vscode.LogLevel.Info
      : vscode.LogLevel.Trace;
  subscriptions.push(
    levelChanged,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.trace.server`)) {
        levelChanged.fire(level());
      }
    }),
  );
  const line =
    (name: string) =>
    (message: string | Error, ...args: unknown[]) =>
      channel.appendLine(
        `[${new Date().toISOString()}] [${name}] ${String(message)}` +
          args.map((a) => ` ${String(a)}`).join(""),
      );
  return {
    name: channel.name,
    get logLevel() {
      return level();
    },
    onDidChangeLogLevel: levelChanged.event,
    trace: line("trace"),
    debug: line("debug"),
    info: line("info"),
    warn: line("warning"),
    error: line("error"),
    append: (value: string) => channel.append(value),
    appendLine: (value: string) => channel.appendLine(value),
    replace: (value: string) => channel.replace(value),
    clear: () => channel.clear(),
    show: (column?: boolean | vscode.ViewColumn, preserveFocus?: boolean) =>
      typeof column === "boolean" ? channel.show(column) : channel.show(preserveFocus),
    hide: () => channel.hide(),
    dispose: () => channel.dispose(),
  } as vscode.LogOutputChannel;
}

/**
 * The settings the server reads (for a file or folder, when `scope` is given): the section
 * without what only the extension uses.
 */
function serverSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return {
    inventory: config.get<string[]>("inventory", []),
    featureGates: config.get<Record<string, boolean>>("featureGates", {}),
    enableAdmissionPlugins: config.get<string[]>("enableAdmissionPlugins", []),
    disableAdmissionPlugins: config.get<string[]>("disableAdmissionPlugins", []),
    rules: config.get<Record<string, string>>("rules", {}),
    admission: config.get<Record<string, unknown>>("admission", {}),
    // null: the server's default (the rule reference in taintlint's repository).
    docsUrl: config.get<string>("docsUrl", "").trim() || null,
  };
}

/**
 * The executable to run: `taintlint.path` when set (`~` and paths relative to the first
 * workspace folder are resolved), else the one a platform package carries (`bin/` in the
 * extension), else `taintlint` on PATH. Says clearly what is missing.
 */
function findServer(): string | undefined {
  const configured = vscode.workspace.getConfiguration(SECTION).get<string>("path", "").trim();
  if (configured) {
    const resolved = resolveConfiguredPath(configured);
    if (isExecutable(resolved)) {
      return resolved;
    }
    missing(
      `taintlint: the \`taintlint.path\` setting points to \`${resolved}\`, which is not an executable file.`,
    );
    return undefined;
  }
  const exe = process.platform === "win32" ? "taintlint.exe" : "taintlint";
  const bundled = path.join(extensionDir, "bin", exe);
  if (extensionDir && isExecutable(bundled)) {
    return bundled;
  }
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, exe))) {
      return path.join(dir, exe);
    }
  }
  missing(
    "taintlint: this package carries no `taintlint` executable and none is on PATH. Install the " +
      "platform package (`taintlint-<platform>-<version>.vsix`), put `taintlint` on PATH " +
      "(`cargo install --path .` in a taintlint checkout) or set `taintlint.path` to where it is.",
  );
  return undefined;
}

function resolveConfiguredPath(configured: string): string {
  let p = configured;
  if (p === "~" || p.startsWith("~/")) {
    p = path.join(os.homedir(), p.slice(1));
  }
  if (!path.isAbsolute(p)) {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder && folder.uri.scheme === "file") {
      p = path.join(folder.uri.fsPath, p);
    }
  }
  return p;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function missing(message: string): void {
  output.error(message);
  void vscode.window.showErrorMessage(message, "Open Settings").then((choice) => {
    if (choice === "Open Settings") {
      void vscode.commands.executeCommand("workbench.action.openSettings", `${SECTION}.path`);
    }
  });
}
