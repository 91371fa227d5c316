//! One file per request.

pub(crate) mod code_action;
pub(crate) mod code_lens;
pub(crate) mod completion;
pub(crate) mod definition;
pub(crate) mod diagnostic;
pub(crate) mod document_symbol;
pub(crate) mod document_text;
pub(crate) mod hover;
pub(crate) mod initialize;
pub(crate) mod inlay_hint;
pub(crate) mod invalid;
pub(crate) mod placement;
pub(crate) mod references;
pub(crate) mod rename;
pub(crate) mod workspace_diagnostic;
pub(crate) mod workspace_symbol;
