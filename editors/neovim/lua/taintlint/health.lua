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
end

return M
