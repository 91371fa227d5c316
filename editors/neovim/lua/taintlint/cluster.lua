-- The cluster beside the manifest: code lenses (where each workload lands), inlay hints on
-- tolerations (what each matches, when it evicts), and a floating window with a workload's
-- per-pool verdicts (what a lens shows when run, and :TaintlintPlacement). The server sends
-- lenses and hints only when an inventory is configured.
local M = {}

--- Options of the cluster features, set by require('taintlint').setup().
M.options = { codelens = true, inlay_hints = false }

local COMMAND = 'taintlint.showPlacement'

--- How wide the placement window's text may be: the editor's columns less the window's border
--- and a margin, at most 100 (the server wraps the text at words to it).
---@return integer
function M.width()
  return math.max(20, math.min(100, vim.o.columns - 4))
end

--- Shows text in a floating window by the cursor; returns its buffer and window.
---@param text string
function M.float(text)
  local lines = vim.split(vim.trim(text), '\n', { plain = true })
  return vim.lsp.util.open_floating_preview(lines, 'text', {
    border = 'rounded',
    focus_id = 'taintlint-placement',
    max_width = M.width(),
  })
end

--- The workload at a position and how it fits, pool by pool (`{ title, details }`), asked of the
--- server with the details wrapped to the placement window's width; nil when there is no
--- workload there or no inventory.
---@param bufnr integer
---@param position lsp.Position
---@return { title: string, details: string }?
function M.details(bufnr, position)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'taintlint' })[1]
  if not client or not position then
    return nil
  end
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    position = position,
    width = M.width(),
  }
  local response = client:request_sync('taintlint/placement', params, 5000, bufnr)
  if not response or response.err or type(response.result) ~= 'table' then
    return nil
  end
  return response.result
end

-- The lens command: `{ title, uri, position }`, where the workload is; the per-pool verdicts
-- come from the server when it runs.
vim.lsp.commands[COMMAND] = function(command, ctx)
  local arg = (command.arguments or {})[1] or {}
  local bufnr = (ctx and ctx.bufnr and ctx.bufnr ~= 0) and ctx.bufnr
    or (arg.uri and vim.uri_to_bufnr(arg.uri))
    or vim.api.nvim_get_current_buf()
  local placement = arg.position and M.details(bufnr, arg.position)
  if not placement then
    vim.notify('taintlint: no workload there any more, or no inventory configured', vim.log.levels.WARN)
    return
  end
  return M.float(placement.details)
end

--- The lens of the workload under the cursor (the last one that starts at or above it).
---@param bufnr integer
function M.lens_at_cursor(bufnr)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local best
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.command and lens.command.command == COMMAND and lens.range.start.line <= line then
      if not best or lens.range.start.line >= best.range.start.line then
        best = lens
      end
    end
  end
  return best
end

--- :TaintlintPlacement: where the workload under the cursor lands, pool by pool.
function M.placement()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'taintlint' })[1]
  local placement = client
    and M.details(bufnr, vim.lsp.util.make_position_params(0, client.offset_encoding).position)
  if not placement then
    vim.notify('taintlint: no workload here, or no inventory configured (see :checkhealth taintlint)', vim.log.levels.WARN)
    return
  end
  return M.float(placement.details)
end

vim.api.nvim_create_user_command('TaintlintPlacement', function()
  M.placement()
end, { desc = 'taintlint: where the workload under the cursor lands, pool by pool' })

--- Called when the taintlint client attaches to a buffer.
---@param client vim.lsp.Client
---@param bufnr integer
function M.attach(client, bufnr)
  if M.options.codelens and client:supports_method('textDocument/codeLens') then
    local group = vim.api.nvim_create_augroup('taintlint-codelens-' .. bufnr, { clear = true })
    -- Neovim 0.11 has no workspace/codeLens/refresh: the lenses are asked for again whenever the
    -- buffer's diagnostics change (an edit, new settings, an inventory changed on disk: the
    -- lenses come from the same analysis), and on the usual events.
    vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'DiagnosticChanged' }, {
      group = group,
      buffer = bufnr,
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
  if M.options.inlay_hints and client:supports_method('textDocument/inlayHint') then
    vim.lsp.inlay_hint.enable(true, { bufnr = bufnr })
  end
end

return M
