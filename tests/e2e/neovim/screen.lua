-- Loaded by `nvim --clean -u screen.lua FILE` inside tmux in the Neovim end-to-end test: a real
-- terminal, the plugin set up as its README says, with an inventory and inlay hints on, so that
-- the screen shows what a user sees.
local plugin = assert(os.getenv('TAINTLINT_NVIM_PLUGIN'), 'TAINTLINT_NVIM_PLUGIN is not set')
local bin = assert(os.getenv('TAINTLINT_BIN'), 'TAINTLINT_BIN is not set')
local inventory = assert(os.getenv('TAINTLINT_E2E_INVENTORY'), 'TAINTLINT_E2E_INVENTORY is not set')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.number = true
vim.opt.shortmess:append('I')
require('taintlint').setup({ cmd = { bin, 'server' }, inventory = { inventory }, inlay_hints = true })
