-- require('taintlint').setup({...}): taintlint's settings for the language server, applied to
-- the configuration `vim.lsp.enable('taintlint')` uses and pushed to running servers at once
-- (workspace/didChangeConfiguration), so calling setup() again needs no restart.
local M = {}

--- Settings the server reads (nil leaves the server's default).
---@class taintlint.Settings
---@field inventory? string[] cluster inventory files (relative to the workspace root)
---@field featureGates? table<string, boolean> feature gates, as kube-apiserver names them
---@field enableAdmissionPlugins? string[] admission plugins enabled on top of the defaults
---@field disableAdmissionPlugins? string[] admission plugins disabled from the defaults
---@field rules? table<string, 'error'|'warning'|'info'|'hint'|'off'> severity per rule

--- Options of setup(): the settings above, and
---@class taintlint.Options: taintlint.Settings
---@field cmd? string[] how to start the server (default { 'taintlint', 'server' })
---@field enable? boolean call vim.lsp.enable('taintlint') (default true)

local SETTING_KEYS = { 'inventory', 'featureGates', 'enableAdmissionPlugins', 'disableAdmissionPlugins', 'rules' }

---@type taintlint.Settings
M.settings = {}

--- The settings part of `opts`: only the keys the server reads; an unknown key is an error,
--- so a misspelt setting is not silently ignored.
---@param opts table
---@return taintlint.Settings
local function settings_of(opts)
  local known = { cmd = true, enable = true }
  for _, k in ipairs(SETTING_KEYS) do
    known[k] = true
  end
  for k in pairs(opts) do
    if not known[k] then
      error(('taintlint.setup: unknown option %q (known: cmd, enable, %s)'):format(k, table.concat(SETTING_KEYS, ', ')), 3)
    end
  end
  local settings = {}
  for _, k in ipairs(SETTING_KEYS) do
    settings[k] = opts[k]
  end
  return settings
end

---@param opts? taintlint.Options
function M.setup(opts)
  opts = opts or {}
  vim.validate('opts', opts, 'table')
  vim.validate('opts.cmd', opts.cmd, 'table', true)
  M.settings = settings_of(opts)

  local config = { settings = { taintlint = M.settings }, init_options = M.settings }
  if opts.cmd then
    config.cmd = opts.cmd
  end
  vim.lsp.config('taintlint', config)

  for _, client in ipairs(vim.lsp.get_clients({ name = 'taintlint' })) do
    client.settings = vim.tbl_deep_extend('force', client.settings or {}, { taintlint = M.settings })
    client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  end

  if opts.enable ~= false then
    vim.lsp.enable('taintlint')
  end
end

return M
