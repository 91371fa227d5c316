//! `initialized`: the background work starts, and the server asks the client for its settings
//! and registers its watchers.

use std::sync::Arc;

use tower_lsp_server::ls_types::{self as lsp, *};

use crate::lsp::session::{Session, CONFIGURATION_ID};

pub(crate) async fn handle(session: &Arc<Session>, _: InitializedParams) {
    let inner = session;
    let (problems, caps, start) = {
        let mut state = inner.lock();
        let start = !state.started;
        state.started = true;
        (
            std::mem::take(&mut state.startup_problems),
            state.caps.clone(),
            start,
        )
    };
    if start {
        if !caps.pull {
            tokio::spawn(inner.clone().analysis_worker());
        }
        if !caps.watch_dynamic {
            tokio::spawn(inner.clone().inventory_poller());
        }
    }
    inner.report_problems(problems).await;
    if start {
        tokio::spawn(inner.clone().index_workspace());
    }
    let me = inner.clone();
    tokio::spawn(async move {
        if caps.configuration_dynamic {
            let params = RegistrationParams {
                registrations: vec![Registration {
                    id: CONFIGURATION_ID.to_string(),
                    method: "workspace/didChangeConfiguration".to_string(),
                    register_options: None,
                }],
            };
            if let Err(e) = me.request::<lsp::request::RegisterCapability>(params).await {
                me.log(MessageType::WARNING, format!("taintlint: {e}"))
                    .await;
            }
        }
        if caps.configuration {
            me.pull_configuration().await;
        }
        me.update_watchers().await;
    });
}
