-- Run by the Neovim end-to-end test after init.lua, with the workspace's pool file open: an
-- unsaved taint added to the pool puts a workload nobody opened into vim.diagnostic (pushed:
-- Neovim 0.11 does not pull workspace diagnostics), taking it back clears it, and a rename of
-- the taint key from the pool file changes every file, which `:wall` writes to disk. What it
-- saw goes as JSON to $TAINTLINT_E2E_OUT (the workspace edit included, to compare with disk).
local out_path = assert(os.getenv('TAINTLINT_E2E_OUT'), 'TAINTLINT_E2E_OUT is not set')
local web_path = assert(os.getenv('TAINTLINT_E2E_WEB'), 'TAINTLINT_E2E_WEB is not set')
local new_key = assert(os.getenv('TAINTLINT_E2E_NEW_KEY'), 'TAINTLINT_E2E_NEW_KEY is not set')
local TIMEOUT = 30000
local report = { steps = {} }
local buf = vim.api.nvim_get_current_buf()

local function wait_for(what, predicate)
  if not vim.wait(TIMEOUT, predicate, 20) then
    error(('timed out after %d ms waiting for %s'):format(TIMEOUT, what), 0)
  end
end

local web_buf = vim.uri_to_bufnr(vim.uri_from_fname(web_path))

local function codes(b)
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(b)) do
    table.insert(list, d.code)
  end
  table.sort(list)
  return list
end

local function snapshot(name)
  table.insert(report.steps, {
    name = name,
    web_loaded = vim.api.nvim_buf_is_loaded(web_buf),
    web = codes(web_buf),
  })
end

-- Record the workspace edit a rename applies.
local apply = vim.lsp.util.apply_workspace_edit
vim.lsp.util.apply_workspace_edit = function(edit, encoding)
  report.rename_edit = edit
  return apply(edit, encoding)
end

local ok, err = pcall(function()
  wait_for('the server to start', function()
    return vim.lsp.get_clients({ bufnr = buf, name = 'taintlint' })[1] ~= nil
  end)
  wait_for('the server to read the workspace', function()
    for _, m in ipairs(_G.taintlint_log) do
      if m:find('read the workspace', 1, true) then
        return true
      end
    end
    return false
  end)
  snapshot('before')

  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
  local taint = '    taints: ["node-role.kubernetes.io/master:NoSchedule"]'
  vim.api.nvim_buf_set_lines(buf, -1, -1, true, { taint })
  wait_for('the unopened workload to be unschedulable', function()
    return vim.tbl_contains(codes(web_buf), 'unschedulable')
  end)
  snapshot('tainted')

  vim.api.nvim_buf_set_lines(buf, 0, -1, true, lines)
  wait_for('the unopened workload to be cleared', function()
    return #codes(web_buf) == 0
  end)
  snapshot('untainted')

  vim.api.nvim_buf_set_lines(buf, -1, -1, true, { taint })
  local row = #lines + 1
  local col = taint:find('node-role', 1, true) + 2
  vim.api.nvim_win_set_cursor(0, { row, col })
  vim.lsp.buf.rename(new_key)
  wait_for('the rename to be applied', function()
    return report.rename_edit ~= nil
  end)
  vim.cmd('silent wall')
  snapshot('renamed')
end)
if not ok then
  report.error = tostring(err)
end
local f = assert(io.open(out_path, 'w'))
f:write(vim.json.encode(report))
f:close()
vim.cmd(ok and 'qall!' or 'cquit! 1')
