-- require('taintlint').setup({...}): taintlint's settings for the language server. They are sent
-- when the server starts (initializationOptions, workspace/didChangeConfiguration) and pushed to
-- servers already running, so calling setup() again takes effect without a restart.
local M = {}

--- Settings the server reads (absent: the server's default).
---@class taintlint.Settings
---@field inventory? string[] cluster inventory files (relative to the workspace root)
---@field featureGates? table<string, boolean> feature gates, as kube-apiserver names them
---@field enableAdmissionPlugins? string[] admission plugins enabled on top of the defaults
---@field disableAdmissionPlugins? string[] admission plugins disabled from the defaults
---@field rules? table<string, 'error'|'warning'|'info'|'hint'|'off'> severity per rule
---@field admission? table PodTolerationRestriction's configuration: clusterDefaultTolerations and clusterTolerationWhitelist, or admissionControlConfigFile

--- Options of setup(): the settings above, and
---@class taintlint.Options: taintlint.Settings
---@field cmd? string[] how to start the server (default { 'taintlint', 'server' })
---@field enable? boolean call vim.lsp.enable('taintlint') (default true)
---@field codelens? boolean show a code lens per workload: where it lands (default true)
---@field inlay_hints? boolean show inlay hints after tolerations (default false)

local LISTS = { 'inventory', 'enableAdmissionPlugins', 'disableAdmissionPlugins' }
local MAPS = { 'featureGates', 'rules', 'admission' }

--- The settings given to the last setup(), or nil when setup() was not called (then the
--- `settings` of vim.lsp.config('taintlint') are sent as they are).
---@type taintlint.Settings?
M.settings = nil

--- `opts` as the server reads them: every key present, maps that stay JSON objects when empty.
---@param opts table
---@return table
local function server_settings(opts)
  local known = { cmd = true, enable = true, codelens = true, inlay_hints = true }
  for _, k in ipairs(vim.list_extend(vim.list_extend({}, LISTS), MAPS)) do
    known[k] = true
  end
  for k in pairs(opts) do
    if not known[k] then
      error(
        ('taintlint.setup: unknown option %q (known: cmd, enable, codelens, inlay_hints, %s, %s)'):format(
          k,
          table.concat(LISTS, ', '),
          table.concat(MAPS, ', ')
        ),
        3
      )
    end
  end
  local settings = {}
  for _, k in ipairs(LISTS) do
    vim.validate('opts.' .. k, opts[k], 'table', true)
    settings[k] = opts[k] or {}
  end
  for _, k in ipairs(MAPS) do
    vim.validate('opts.' .. k, opts[k], 'table', true)
    local map = vim.empty_dict()
    for name, value in pairs(opts[k] or {}) do
      map[name] = value
    end
    settings[k] = map
  end
  return settings
end

--- Called by lsp/taintlint.lua when a server starts.
function M._before_init(params, config)
  if M.settings then
    params.initializationOptions = M.settings
    -- The client answers workspace/configuration from this very table: fill it in place.
    config.settings.taintlint = M.settings
  elseif config.settings and config.settings.taintlint then
    params.initializationOptions = config.settings.taintlint
  end
end

---@param opts? taintlint.Options
function M.setup(opts)
  opts = opts or {}
  vim.validate('opts', opts, 'table')
  vim.validate('opts.cmd', opts.cmd, 'table', true)
  M.settings = server_settings(opts)
  local cluster = require('taintlint.cluster')
  vim.validate('opts.codelens', opts.codelens, 'boolean', true)
  vim.validate('opts.inlay_hints', opts.inlay_hints, 'boolean', true)
  if opts.codelens ~= nil then
    cluster.options.codelens = opts.codelens
  end
  if opts.inlay_hints ~= nil then
    cluster.options.inlay_hints = opts.inlay_hints
    for _, client in ipairs(vim.lsp.get_clients({ name = 'taintlint' })) do
      for bufnr in pairs(client.attached_buffers) do
        vim.lsp.inlay_hint.enable(opts.inlay_hints, { bufnr = bufnr })
      end
    end
  end
  if opts.cmd then
    vim.lsp.config('taintlint', { cmd = opts.cmd })
  end

  for _, client in ipairs(vim.lsp.get_clients({ name = 'taintlint' })) do
    client.settings.taintlint = M.settings
    client:notify('workspace/didChangeConfiguration', { settings = client.settings })
  end

  if opts.enable ~= false then
    vim.lsp.enable('taintlint')
  end
end

return M
