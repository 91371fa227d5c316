-- :checkhealth taintlint
local M = {}

function M.check()
  vim.health.start('taintlint')
  if vim.fn.has('nvim-0.11') == 0 then
    vim.health.error('Neovim 0.11 or newer is needed (vim.lsp.config / vim.lsp.enable)')
  else
    vim.health.ok('Neovim ' .. tostring(vim.version()))
  end
  local cmd = (vim.lsp.config.taintlint or {}).cmd
  local exe = type(cmd) == 'table' and cmd[1] or nil
  if not exe then
    vim.health.warn('vim.lsp.config.taintlint has no command (a function cmd is not checked)')
  elseif vim.fn.executable(exe) == 1 then
    local version = vim.system({ exe, '--version' }, { text = true }):wait()
    vim.health.ok(('%s: %s'):format(vim.fn.exepath(exe), vim.trim(version.stdout or '')))
  else
    vim.health.error(('`%s` is not executable or not on PATH'):format(exe), {
      'Install taintlint (`cargo install --path .` in a taintlint checkout)',
      "or point to it: require('taintlint').setup({ cmd = { '/path/to/taintlint', 'server' } })",
    })
  end
  local clients = vim.lsp.get_clients({ name = 'taintlint' })
  vim.health.info(('%d taintlint client(s) running'):format(#clients))

  -- The inventory: what lenses, hints, definitions and the inventory rules read.
  vim.health.start('taintlint: inventory')
  local settings = require('taintlint').settings
    or ((vim.lsp.config.taintlint or {}).settings or {}).taintlint
    or {}
  local inventory = settings.inventory or {}
  if type(inventory) == 'string' then
    inventory = { inventory }
  end
  if #inventory == 0 then
    vim.health.info(
      'no inventory configured: no code lenses, inlay hints or definitions into the cluster',
      { "require('taintlint').setup({ inventory = { 'clusters/prod/nodes.yaml' } })" }
    )
    return
  end
  local root = clients[1] and clients[1].root_dir or vim.fn.getcwd()
  for _, path in ipairs(inventory) do
    local full = vim.fs.normalize(path)
    if not vim.startswith(full, '/') then
      full = vim.fs.joinpath(root, full)
    end
    local stat = vim.uv.fs_stat(full)
    if stat and stat.type == 'file' then
      vim.health.ok(('inventory %s (%d bytes)'):format(full, stat.size))
    else
      vim.health.error(('inventory %s: no such file'):format(full), {
        'Paths are relative to the workspace root: ' .. root,
      })
    end
  end
end

return M
