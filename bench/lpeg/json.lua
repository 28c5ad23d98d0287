-- bench/lpeg/json.lua: the LPeg peer of pego's JSON benchmarks (bench/run).
--
--   lua5.4 json.lua [--mode recognize|tree] [--typed] [--reps N] [--warmup N] [--once] [--no-parse] FILE
--
-- The grammar is fixtures/json.pego written in LPeg, rule for rule and alternative for
-- alternative (RFC 8259, the whole input must match). Three variants:
--   recognize  no captures: lpeg.match only returns the end position;
--   tree       captures build Lua tables: an object is a table of members, a member a
--              table {key, value}, an array a table of values, and a string, number or
--              literal the string of its source text (escapes undecoded), as pego's
--              CST keeps a token's text;
--   --typed    (tree mode) the typed tree of fixtures/json-typed.pego, built with table
--              and named group captures: {type="Object", Members={member...}},
--              {type="Member", Key=str, Value=value}, {type="Array", Items={value...}},
--              and a token {type="Str"|"Num"|"Bool"|"Null", text=...}, a string's text
--              being the text between its quotes, escapes undecoded.
--
-- Each timed parse is one lpeg.match call, timed with CLOCK_MONOTONIC through the small
-- C module bench/lpeg/monoclock.c (bench/run builds it and puts it on LUA_CPATH), as the
-- C drivers are; without it the script falls back to os.clock(), process CPU time, and
-- says so (clock=cpu). The time includes the garbage collector's work done during the
-- match; a full collection runs before each parse, outside the timing. Output and exit
-- status are those of bench/pego-bench.c:
--   ok bytes=N reps=N median_ns=N min_ns=N max_ns=N mbps=X nodes=N clock=monotonic
-- and 1 when the input is rejected, 2 on any other error.

local lpeg = require "lpeg"
local P, S, R, V, C, Ct, Cg, Cc = lpeg.P, lpeg.S, lpeg.R, lpeg.V, lpeg.C, lpeg.Ct, lpeg.Cg, lpeg.Cc

-- now_ns(): nanoseconds from CLOCK_MONOTONIC, or from os.clock() without monoclock.
local have_monoclock, monoclock = pcall(require, "monoclock")
local clock_name = have_monoclock and "monotonic" or "cpu"
local now_ns = have_monoclock and monoclock.ns or function() return os.clock() * 1e9 end

-- The lexical parts of every variant.
local ws = S" \t\n\r"^0
local hex = R("09", "af", "AF")
local escape = P"\\" * (S"\"\\/bfnrt" + P"u" * hex * hex * hex * hex)
local char = escape + (P(1) - S"\"\\" - R"\0\31")
local digit = R"09"
local number = P"-"^-1 * (P"0" + R"19" * digit^0) * (P"." * digit^1)^-1
               * (S"eE" * S"+-"^-1 * digit^1)^-1

-- Builds the grammar of recognition or of the tree; with tree set, containers are
-- table captures and tokens are string captures.
local function json_grammar(tree)
  local function token(p) if tree then return C(p) else return p end end
  local function list(p) if tree then return Ct(p) else return p end end

  return P{
    "main",
    main    = ws * V"value" * ws * -1,
    value   = V"object" + V"array" + V"string" + V"number" + V"literal",
    object  = list(P"{" * ws * P"}"
                   + P"{" * ws * V"member" * (ws * P"," * ws * V"member")^0 * ws * P"}"),
    member  = list(V"string" * ws * P":" * ws * V"value"),
    array   = list(P"[" * ws * P"]"
                   + P"[" * ws * V"value" * (ws * P"," * ws * V"value")^0 * ws * P"]"),
    string  = token(P"\"" * char^0 * P"\""),
    number  = token(number),
    literal = token(P"true" + P"false" + P"null"),
  }
end

-- Builds the grammar of the typed tree, rule for rule fixtures/json-typed.pego: a node
-- is a table capture whose field type names its type, a struct field a named group.
local function typed_json_grammar()
  local function node(type_name, fields) return Ct(Cg(Cc(type_name), "type") * fields) end
  local function terminal(type_name, p) return node(type_name, Cg(C(p), "text")) end
  local comma = ws * P"," * ws

  return P{
    "main",
    main    = ws * V"value" * ws * -1,
    value   = V"object" + V"array" + V"str" + V"num" + V"bool" + V"null",
    object  = node("Object", P"{" * ws * Cg(Ct((V"member" * (comma * V"member")^0)^-1), "Members")
                             * ws * P"}"),
    member  = node("Member", Cg(V"str", "Key") * ws * P":" * ws * Cg(V"value", "Value")),
    array   = node("Array", P"[" * ws * Cg(Ct((V"value" * (comma * V"value")^0)^-1), "Items")
                            * ws * P"]"),
    str     = P"\"" * terminal("Str", char^0) * P"\"",
    num     = terminal("Num", number),
    bool    = terminal("Bool", P"true" + P"false"),
    null    = terminal("Null", P"null"),
  }
end

-- Counts the tables and strings of a tree, a check that the captures built something.
local function count_nodes(t)
  local n = 1
  if type(t) == "table" then
    for _, v in ipairs(t) do n = n + count_nodes(v) end
  end
  return n
end

-- Counts the nodes of a typed tree: its tables (lists included), as pego counts the
-- nodes of its typed tree.
local function count_typed_nodes(t)
  local n = 1
  for _, v in pairs(t) do
    if type(v) == "table" then n = n + count_typed_nodes(v) end
  end
  return n
end

local function fail(status, msg)
  io.stderr:write("lpeg-bench: ", msg, "\n")
  os.exit(status)
end

local function usage()
  fail(2, "usage: lua5.4 json.lua [--mode recognize|tree] [--typed] [--reps N] [--warmup N] [--once] [--no-parse] FILE")
end

local function main(args)
  local mode, typed, reps, warmup, once, no_parse, path = "tree", false, 5, 1, false, false, nil
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--mode" then mode = args[i + 1]; i = i + 1
    elseif a == "--reps" then reps = math.tointeger(tonumber(args[i + 1])); i = i + 1
    elseif a == "--warmup" then warmup = math.tointeger(tonumber(args[i + 1])); i = i + 1
    elseif a == "--typed" then typed = true
    elseif a == "--once" then once = true
    elseif a == "--no-parse" then no_parse = true
    elseif a:sub(1, 2) == "--" or path then usage()
    else path = a end
    i = i + 1
  end
  if not path or (mode ~= "recognize" and mode ~= "tree") or not reps or reps < 1
     or not warmup or warmup < 0 or (typed and mode ~= "tree") then
    usage()
  end

  local grammar = typed and typed_json_grammar() or json_grammar(mode == "tree")
  local count = typed and count_typed_nodes or count_nodes
  local f, err = io.open(path, "rb")
  if not f then fail(2, err) end
  local input = f:read("a")
  f:close()
  local len = #input

  -- One parse: returns the tree (or true when recognizing), or fails with status 1.
  local function check(result)
    if result == nil then fail(1, path .. ": rejected") end
    if mode == "recognize" and result ~= len + 1 then
      fail(2, path .. ": recognizer ended at " .. tostring(result))
    end
    if mode == "tree" and type(result) ~= "table" then
      fail(2, path .. ": tree mode built no table")
    end
    return result
  end

  -- --once and --no-parse are the two runs whose instruction counts callgrind subtracts:
  -- they do the same work but the match, and leave without closing the Lua state, so
  -- that freeing the tree is not counted either.
  if no_parse then
    print(string.format("ok bytes=%d reps=0", len))
    os.exit(0)
  end
  if once then
    check(lpeg.match(grammar, input))
    print(string.format("ok bytes=%d reps=1", len))
    os.exit(0)
  end

  local times, result = {}, nil
  for r = 1, warmup + reps do
    result = nil
    collectgarbage("collect")
    local t0 = now_ns()
    result = lpeg.match(grammar, input)
    local t1 = now_ns()
    check(result)
    if r > warmup then times[#times + 1] = t1 - t0 end
  end
  table.sort(times)
  local median
  if reps % 2 == 1 then median = times[(reps + 1) // 2]
  else median = (times[reps // 2] + times[reps // 2 + 1]) / 2 end
  if median < 1 then median = 1 end
  print(string.format("ok bytes=%d reps=%d median_ns=%.0f min_ns=%.0f max_ns=%.0f mbps=%.2f nodes=%d clock=%s",
                      len, reps, median, times[1], times[#times], len * 1e3 / median,
                      mode == "tree" and count(result) or 0, clock_name))
end

-- Any Lua error (a bug, LPeg's backtrack stack overflow, no memory) exits with status
-- 2, never 1, so that it cannot pass for a rejected input.
local ok, err = xpcall(main, debug.traceback, arg)
if not ok then fail(2, tostring(err)) end
