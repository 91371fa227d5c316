-- The taintlint language server for Neovim 0.11+: `vim.lsp.enable('taintlint')` starts
-- `taintlint server` for YAML buffers. Override any field with `vim.lsp.config('taintlint', {...})`
-- or set taintlint's own settings with `require('taintlint').setup({...})`.
---@type vim.lsp.Config
return {
  cmd = { 'taintlint', 'server' },
  filetypes = { 'yaml' },
  root_markers = { '.taintlint.toml', '.git' },
  -- Sent as initializationOptions, as workspace/didChangeConfiguration and in answer to
  -- workspace/configuration requests for the `taintlint` section. Empty: the server's defaults.
  init_options = {},
  settings = { taintlint = {} },
}
