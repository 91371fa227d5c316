//! `workspace/didChangeConfiguration`: new settings, or a cue to ask for them.

use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use crate::lsp::session::Session;
use crate::lsp::settings::Settings;

pub(crate) async fn handle(session: &Arc<Session>, params: DidChangeConfigurationParams) {
    let (settings, problems) = Settings::from_json(&params.settings);
    let pull_config = session.lock().caps.configuration;
    match settings {
        Some(settings) => session.apply_settings(settings, problems).await,
        None if pull_config => {
            session.report_problems(problems).await;
            let me = session.clone();
            tokio::spawn(async move { me.pull_configuration().await });
        }
        None => session.report_problems(problems).await,
    }
}
