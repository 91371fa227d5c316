//! `taintlint server`: the Language Server, over standard input and output.
//!
//! Protocol types live in this module only; the analysis core stays pure. The pieces:
//! [`guard`] frames the input and keeps malformed messages from reaching the protocol layer,
//! [`output`] writes tower-lsp-server's messages and the diagnostics the server serializes itself,
//! [`documents`] holds the open texts, [`convert`] maps byte offsets to positions in the
//! negotiated encoding, [`settings`] and [`workspace`] turn the client's settings into the
//! analysis' inputs ([`inventory`] holds the inventory files), [`diagnostics`], [`hover`],
//! [`completion`] and [`facts`] (what one open document says) produce what the editor shows;
//! [`index`] holds the tolerations of the workspace's files that are not open;
//! everything about the cluster comes from the one core inventory the workspace holds.
//!
//! The server itself is laid out as ruff's: `session` holds the state (and `workers` its
//! background work, `queries` what the workspace says about a taint), `handlers` has one file
//! per request and notification behind one shared preamble, and `server` is the dispatch table.
//! Answers for the whole workspace: `workspace_diagnostics` (the files that are not open, pulled
//! or pushed) and [`rename`] (where a taint key is written). `rendering` renders the
//! workspace's kustomize overlays as `lint` does, in the background; their findings join the
//! files' own where `lint` reports them.

pub mod cluster;
pub mod completion;
pub mod convert;
pub mod diagnostics;
pub mod documents;
pub mod edits;
pub mod facts;
pub mod guard;
mod handlers;
pub mod hover;
pub mod incremental;
pub mod index;
pub mod inventory;
pub mod output;
mod queries;
pub mod rename;
mod rendering;
mod server;
mod session;
pub mod settings;
mod workers;
pub mod workspace;
mod workspace_diagnostics;

use std::process::ExitCode;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::Server;

pub use server::{Backend, DocumentText, PlacementDetails, PlacementParams};
pub use session::Config;

/// How many requests are handled at once. Handlers do their heavy work on blocking threads,
/// so this bounds waiting, not CPU.
const CONCURRENCY: usize = 16;

/// Serves one client until it sends `exit` or closes the input. Returns whether it asked for
/// `shutdown` first (the exit status LSP prescribes: 0 if so, 1 if not).
pub async fn serve<I, O>(input: I, output: O, config: Config) -> bool
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin,
{
    let (guarded_tx, guarded_rx) = tokio::io::duplex(1 << 16);
    let guard = tokio::spawn(guard::run(input, guarded_tx));
    let (outbox, queue) = output::queue();
    let (lsp_out, from_lsp) = tokio::io::duplex(1 << 16);
    let (service, socket) = server::service(config, outbox);
    let backend = service.inner().handle();
    let lsp = Server::new(guarded_rx, lsp_out, socket)
        .concurrency_level(CONCURRENCY)
        .serve(service);
    tokio::join!(lsp, output::run(from_lsp, queue, output));
    guard.abort();
    backend.stop();
    backend.was_shut_down()
}

/// `taintlint server`.
pub fn run_stdio() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("taintlint: cannot start the server: {e}");
            return ExitCode::from(2);
        }
    };
    let clean = runtime.block_on(serve(
        tokio::io::stdin(),
        tokio::io::stdout(),
        Config::default(),
    ));
    // Standard input may still be blocked in a read; do not wait for it.
    runtime.shutdown_background();
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
