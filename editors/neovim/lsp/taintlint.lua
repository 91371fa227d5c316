-- The taintlint language server for Neovim 0.11+: `vim.lsp.enable('taintlint')` starts
-- `taintlint server` for YAML, JSON and Terraform buffers. Override any field with
-- `vim.lsp.config('taintlint', {...})`, and set taintlint's own settings with `require('taintlint').setup({...})` (or, without setup(),
-- with `settings = { taintlint = {...} }` here).
---@type vim.lsp.Config
return {
  cmd = { 'taintlint', 'server' },
  -- JSON manifests (`kubectl get -o json`) and Terraform node pools, as `taintlint lint` reads them.
  filetypes = { 'yaml', 'json', 'terraform' },
  root_markers = { '.taintlint.yaml', '.git' },
  settings = {},
  before_init = function(params, config)
    require('taintlint')._before_init(params, config)
  end,
  -- Code lenses (and inlay hints, when setup({ inlay_hints = true }) asks for them).
  on_attach = function(client, bufnr)
    require('taintlint.cluster').attach(client, bufnr)
  end,
}
