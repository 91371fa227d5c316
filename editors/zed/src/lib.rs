//! Starts `taintlint server` for YAML files in Zed: the binary from `lsp.taintlint.binary.path`
//! in Zed's settings, else `taintlint` on the worktree's PATH; taintlint's settings from
//! `lsp.taintlint.settings` (or `initialization_options`).

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

struct Taintlint;

impl zed::Extension for Taintlint {
    fn new() -> Self {
        Taintlint
    }

    fn language_server_command(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(id.as_ref(), worktree)
            .ok()
            .and_then(|s| s.binary);
        let command = binary
            .as_ref()
            .and_then(|b| b.path.clone())
            .or_else(|| worktree.which("taintlint"))
            .ok_or_else(|| {
                "taintlint was not found on PATH: install it (`cargo install --path .` in a \
                 taintlint checkout) or set lsp.taintlint.binary.path in Zed's settings"
                    .to_string()
            })?;
        let args = binary
            .and_then(|b| b.arguments)
            .unwrap_or_else(|| vec!["server".to_string()]);
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }

    fn language_server_initialization_options(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree(id.as_ref(), worktree).ok();
        Ok(settings.and_then(|s| s.initialization_options.or(s.settings)))
    }

    fn language_server_workspace_configuration(
        &mut self,
        id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree(id.as_ref(), worktree).ok();
        Ok(settings
            .and_then(|s| s.settings)
            .map(|s| serde_json::json!({ "taintlint": s })))
    }
}

zed::register_extension!(Taintlint);
