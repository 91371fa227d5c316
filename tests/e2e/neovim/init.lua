-- Loaded by `nvim --headless --clean -u init.lua FILE` in the Neovim end-to-end test: the plugin
-- from editors/neovim exactly as a user installs it, started through its own setup().
local plugin = assert(os.getenv('TAINTLINT_NVIM_PLUGIN'), 'TAINTLINT_NVIM_PLUGIN is not set')
local bin = assert(os.getenv('TAINTLINT_BIN'), 'TAINTLINT_BIN is not set')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.lsp.log.set_level(vim.log.levels.INFO)

-- Record what the server sends, before Neovim converts positions to byte columns.
_G.taintlint_raw = {}
for _, method in ipairs({ 'textDocument/publishDiagnostics', 'textDocument/diagnostic' }) do
  local default = vim.lsp.handlers[method]
  vim.lsp.handlers[method] = function(err, result, ctx, config)
    if result then
      local diagnostics = result.diagnostics or result.items or {}
      table.insert(_G.taintlint_raw, { method = method, diagnostics = diagnostics })
    end
    return default(err, result, ctx, config)
  end
end

-- And the server's log messages (the inventory step waits for one).
_G.taintlint_log = {}
local default_log = vim.lsp.handlers['window/logMessage']
vim.lsp.handlers['window/logMessage'] = function(err, result, ctx, config)
  table.insert(_G.taintlint_log, result and result.message or '')
  return default_log(err, result, ctx, config)
end

-- A test can make Neovim offer only one position encoding (it offers utf-8, utf-16 and utf-32).
local encoding = os.getenv('TAINTLINT_E2E_ENCODING')
if encoding and encoding ~= '' then
  vim.lsp.config('taintlint', {
    capabilities = { general = { positionEncodings = { encoding } } },
  })
end

require('taintlint').setup({ cmd = { bin, 'server' } })
