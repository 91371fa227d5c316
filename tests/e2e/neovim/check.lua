-- Run by the Neovim end-to-end test after init.lua: it uses the editor as a person would
-- (open, look at diagnostics, hover, apply a quick fix, edit), writes what Neovim showed at each
-- step as JSON to $TAINTLINT_E2E_OUT, and quits (exit status 1 when a step could not finish).
-- The Rust side compares each snapshot with `taintlint lint` on the same text.
local out_path = assert(os.getenv('TAINTLINT_E2E_OUT'), 'TAINTLINT_E2E_OUT is not set')
local TIMEOUT = 30000
local report = { steps = {} }

local buf = vim.api.nvim_get_current_buf()
local win = vim.api.nvim_get_current_win()

local function wait_for(what, predicate)
  local ok = vim.wait(TIMEOUT, predicate, 20)
  if not ok then
    error(('timed out after %d ms waiting for %s'):format(TIMEOUT, what), 0)
  end
end

local function client()
  return vim.lsp.get_clients({ bufnr = buf, name = 'taintlint' })[1]
end

local function buffer_text()
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), '\n') .. '\n'
end

local severity_names = { 'error', 'warning', 'info', 'hint' }

--- What vim.diagnostic holds for the buffer: 0-based lines, byte columns.
local function diagnostics()
  local list = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local line = vim.api.nvim_buf_get_lines(buf, d.lnum, d.lnum + 1, false)[1] or ''
    table.insert(list, {
      lnum = d.lnum,
      col = d.col,
      end_lnum = d.end_lnum,
      end_col = d.end_col,
      code = d.code,
      source = d.source,
      severity = severity_names[d.severity],
      message = d.message,
      -- the flagged text, as the buffer has it at those byte columns
      text = d.lnum == d.end_lnum and line:sub(d.col + 1, d.end_col) or nil,
    })
  end
  table.sort(list, function(a, b)
    if a.lnum ~= b.lnum then
      return a.lnum < b.lnum
    end
    return a.col < b.col
  end)
  return list
end

local function snapshot(name)
  local c = client()
  table.insert(report.steps, {
    name = name,
    text = buffer_text(),
    diagnostics = diagnostics(),
    raw = _G.taintlint_raw[#_G.taintlint_raw],
    version = c and vim.lsp.util.buf_versions[buf] or nil,
  })
end

local function has_code(code)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == code then
      return true
    end
  end
  return false
end

local function hover_at(lnum, col)
  vim.api.nvim_win_set_cursor(win, { lnum + 1, col })
  local params = vim.lsp.util.make_position_params(win, client().offset_encoding)
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, TIMEOUT) or {}
  for _, response in pairs(responses) do
    if response.err then
      error('hover failed: ' .. vim.inspect(response.err), 0)
    end
    local contents = response.result and response.result.contents
    if contents then
      return type(contents) == 'string' and contents or contents.value or vim.inspect(contents)
    end
  end
  return nil
end

--- The first line (0-based) at or after `from` that contains `needle` (plain text).
local function find_line(needle, from)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, from or 0, -1, true)) do
    if line:find(needle, 1, true) then
      return (from or 0) + i - 1, line:find(needle, 1, true) - 1
    end
  end
  error('no line contains ' .. needle, 0)
end

local function steps()
  -- 1. The server attaches and the diagnostics of the opened file arrive.
  wait_for('the taintlint client to attach', function()
    local c = client()
    return c ~= nil and c.initialized
  end)
  local c = client()
  report.offset_encoding = c.offset_encoding
  report.pull_diagnostics = c.server_capabilities.diagnosticProvider ~= nil
  wait_for('diagnostics', function()
    return #vim.diagnostic.get(buf) > 0
  end)
  snapshot('open')

  -- 2. Hover on a toleration the file gets right: what it matches, in words.
  local lnum, col = find_line('key: node.kubernetes.io/unreachable')
  report.hover_toleration = hover_at(lnum, col + 2)

  -- 3. Hover on a flagged value: the rule's explanation.
  local rule = assert(os.getenv('TAINTLINT_E2E_FIX_RULE'), 'TAINTLINT_E2E_FIX_RULE is not set')
  local target
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == rule then
      target = d
    end
  end
  if not target then
    error('no diagnostic of rule ' .. rule .. ' to fix', 0)
  end
  report.hover_diagnostic = hover_at(target.lnum, target.col)

  -- 4. The quick fix, through the same function a `gra` mapping calls.
  vim.api.nvim_win_set_cursor(win, { target.lnum + 1, target.col })
  local before = buffer_text()
  local offered = {}
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      table.insert(offered, { title = action.title, kind = action.kind, preferred = action.isPreferred })
      for _, d in ipairs((action.diagnostics or {})) do
        if d.code == rule then
          -- The rule's fix that sets the effect (its second: the first removes
          -- tolerationSeconds), not the "Disable RULE for this line" action beside it.
          return action.kind == 'quickfix' and vim.startswith(action.title, 'Set `effect: NoExecute`')
        end
      end
      return false
    end,
  })
  wait_for('the quick fix to change the buffer', function()
    return buffer_text() ~= before
  end)
  report.code_actions = offered
  wait_for('the fixed diagnostic to go away', function()
    return not has_code(rule)
  end)
  snapshot('quick-fix')

  -- 5. An edit: a misspelt effect on the first toleration gets a new diagnostic.
  lnum = find_line('effect: NoSchedule')
  local line = vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, true)[1]
  vim.api.nvim_buf_set_lines(buf, lnum, lnum + 1, true, { (line:gsub('NoSchedule', 'NoSchedul')) })
  wait_for('a diagnostic for the misspelt effect', function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.lnum == lnum and d.code == 'unknown-effect' then
        return true
      end
    end
    return false
  end)
  snapshot('edit')

  -- 6. Settings changed by calling setup() again reach the running server: a rule's severity.
  local severity_rule = assert(os.getenv('TAINTLINT_E2E_SEVERITY_RULE'), 'TAINTLINT_E2E_SEVERITY_RULE is not set')
  local client_id = client().id
  require('taintlint').setup({
    cmd = { os.getenv('TAINTLINT_BIN'), 'server' },
    rules = { [severity_rule] = 'error' },
  })
  wait_for(severity_rule .. ' to become an error', function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == severity_rule and d.severity == vim.diagnostic.severity.ERROR then
        return true
      end
    end
    return false
  end)
  report.same_client_after_settings = client().id == client_id
  snapshot('settings')

  -- 7. An inventory, named in the settings, adds its findings (tolerations that tolerate none of
  -- its taints); then the file changes on disk and the server, told by Neovim's file watcher or
  -- by polling, analyses the open buffer again.
  local inventory = assert(os.getenv('TAINTLINT_E2E_INVENTORY'), 'TAINTLINT_E2E_INVENTORY is not set')
  local function read(path)
    local f = assert(io.open(path))
    local text = f:read('*a')
    f:close()
    return text
  end
  local function count(code)
    local n = 0
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == code then
        n = n + 1
      end
    end
    return n
  end
  require('taintlint').setup({
    cmd = { os.getenv('TAINTLINT_BIN'), 'server' },
    rules = { [severity_rule] = 'error' },
    inventory = { vim.fs.basename(inventory) },
  })
  wait_for('findings against the inventory', function()
    return count('toleration-unused') > 0
  end)
  snapshot('inventory-set')
  report.steps[#report.steps].inventory = read(inventory)
  local unused = count('toleration-unused')
  local file = assert(io.open(inventory, 'a'))
  file:write(assert(os.getenv('TAINTLINT_E2E_INVENTORY_APPEND')))
  file:close()
  wait_for('the server to notice the inventory change', function()
    for _, message in ipairs(_G.taintlint_log) do
      if message:find('inventory changed', 1, true) then
        return true
      end
    end
    return false
  end)
  wait_for('the findings to follow the new inventory', function()
    return count('toleration-unused') < unused
  end)
  report.inventory_log = vim.tbl_filter(function(m)
    return m:find('inventory', 1, true) ~= nil
  end, _G.taintlint_log)
  snapshot('inventory')
  report.steps[#report.steps].inventory = read(inventory)

  -- 8. The cluster in the editor. Code lenses: the plugin asks for them again when the
  -- diagnostics change (as they did when the inventory came and changed).
  local function lenses()
    local out = {}
    for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
      if lens.command and lens.command.title ~= '' then
        table.insert(out, {
          line = lens.range.start.line,
          title = lens.command.title,
          command = lens.command.command,
          -- What running the lens shows: the server's per-pool verdicts for its place.
          details = (require('taintlint.cluster').details(buf, ((lens.command.arguments or {})[1] or {}).position) or {}).details,
        })
      end
    end
    return out
  end
  wait_for('code lenses', function()
    local l = lenses()
    -- The inventory's last change (a NoExecute taint) shows in the details.
    return #l > 0 and l[1].details ~= nil and l[1].details:find('example.com/spot', 1, true) ~= nil
  end)
  report.lenses = lenses()

  -- 9. Inlay hints, once setup() asks for them.
  require('taintlint').setup({
    cmd = { os.getenv('TAINTLINT_BIN'), 'server' },
    rules = { [severity_rule] = 'error' },
    inventory = { vim.fs.basename(inventory) },
    inlay_hints = true,
  })
  wait_for('inlay hints', function()
    return #vim.lsp.inlay_hint.get({ bufnr = buf }) > 0
  end)
  report.hints = {}
  for _, h in ipairs(vim.lsp.inlay_hint.get({ bufnr = buf })) do
    local label = h.inlay_hint.label
    if type(label) == 'table' then
      label = table.concat(vim.tbl_map(function(p) return p.value end, label))
    end
    table.insert(report.hints, { line = h.inlay_hint.position.line, character = h.inlay_hint.position.character, label = label })
  end
  table.sort(report.hints, function(a, b)
    if a.line ~= b.line then
      return a.line < b.line
    end
    return a.character < b.character
  end)

  -- 10. Go to definition on a toleration: into the inventory file, on the taint's line (the
  -- `example.com/spot` toleration tolerates the taint step 7 added).
  lnum, col = find_line('- key: example.com/spot')
  vim.api.nvim_win_set_cursor(win, { lnum + 1, col + 4 })
  vim.lsp.buf.definition()
  wait_for('the jump into the inventory', function()
    return vim.api.nvim_buf_get_name(0):sub(-#vim.fs.basename(inventory)) == vim.fs.basename(inventory)
  end)
  local cursor = vim.api.nvim_win_get_cursor(0)
  report.definition = {
    file = vim.api.nvim_buf_get_name(0),
    line = cursor[1] - 1,
    col = cursor[2],
    text = vim.api.nvim_get_current_line(),
  }
  vim.api.nvim_set_current_buf(buf)

  -- 11. The outline.
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/documentSymbol', {
    textDocument = vim.lsp.util.make_text_document_params(buf),
  }, TIMEOUT) or {}
  report.outline = {}
  local function walk(symbols, depth)
    for _, s in ipairs(symbols or {}) do
      table.insert(report.outline, string.rep('  ', depth) .. s.name)
      walk(s.children, depth + 1)
    end
  end
  for _, response in pairs(responses) do
    walk(response.result, 0)
  end

  -- 12. :TaintlintPlacement on the workload: the per-pool verdicts in a floating window.
  lnum = find_line('kind: Deployment')
  vim.api.nvim_win_set_cursor(win, { lnum + 1, 0 })
  local float_buf, float_win = require('taintlint.cluster').placement()
  report.placement_width = require('taintlint.cluster').width()
  report.placement = float_buf and table.concat(vim.api.nvim_buf_get_lines(float_buf, 0, -1, true), '\n') or nil
  if float_win then
    vim.api.nvim_win_close(float_win, true)
  end

  -- 13. :checkhealth taintlint names the inventory in use.
  vim.cmd('checkhealth taintlint')
  report.health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, true), '\n')
  vim.cmd('bwipeout!')
  vim.api.nvim_set_current_buf(buf)
end

local ok, err = xpcall(steps, debug.traceback)
if not ok then
  report.error = tostring(err)
  snapshot('failure')
end
report.lsp_log = vim.lsp.log.get_filename()
local file = assert(io.open(out_path, 'w'))
file:write(vim.json.encode(report))
file:close()
if ok then
  vim.cmd('qall!')
else
  vim.cmd('cquit! 1')
end
