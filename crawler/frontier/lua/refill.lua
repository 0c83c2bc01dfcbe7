--[[ refill.lua
  A node's refill in one atomic call, each part optional: admit the requests it
  discovered (push), settle the leases whose outcome it processed (ack), then lease
  the next requests of due hosts (lease). One script, not three: the epoch and
  push-log checks and the crawl's counters are read and written once, and a host
  freed by its ack and leased again at once (at delay 0, most pages) is read once
  and written once (bench/ANALYSIS.md).

  Push. The Bloom filter is checked and set and the new requests appended to their
  host queue together, so a URL is never marked seen without being queued (nor
  queued twice). A batch is applied once: its id and codes are kept in the node's
  push log, and a retry of the same batch (its reply was lost to a Redis stall)
  gets the same codes back, so no URL is counted both queued and duplicate. A URL's
  bits in a filter lie in one block of bits (a blocked Bloom filter, see bloom.py):
  one BITFIELD per filter checks a batch's URLs: GETs in the older filters, SETs in
  the newest, which return the bits' old values (a URL whose bits were all set is a
  duplicate). A host whose queue
  was not empty is in a ready set already (or the orphans): only a host whose queue
  was empty is read and announced, unless it is in flight to its limit (the ack of
  a request in flight re-arms it). Numbers go to Redis as %d strings: a Lua number
  is formatted as %.17g, which costs more than the command it is an argument of.

  Ack. Frees the host's in-flight slot, spaces its next start from when the
  response came back (as Nutch does; a gap between client-side starts can shrink on
  the way to the server, this one cannot), and re-arms the host in its owner's
  ready set if it has more work, or takes it out. A lease already reclaimed (the
  node was declared dead meanwhile) is skipped, so nothing is counted twice. A lease
  may put its host into backoff (429, 503, connection errors): no request until the
  wait has passed, counted from the response: the server's Retry-After, or BASE *
  2^(b-1) capped at MAX where b counts consecutive backoffs; a normal outcome resets
  b. The state lives with the host, so it survives the host moving to another node.
  An idle host's state expires after a week, so hosts seen once do not stay for ever.
  With host batches, the heartbeat's acks of a batch still running (its settled pages,
  sent so a killed node refetches little) only count the host down (one HINCRBY) while
  the rest of the batch is out: the host stays parked where its lease put it, and the
  batch's last ack, carrying the batch's latest response time, re-arms it.

  Lease. The next request of each due host, within the politeness gate: at most
  max in flight per host, starts at least the host's delay apart. The script picks
  its hosts itself: the first `want` due hosts of the node's ready set (and of the
  hosts acked in this call), and, short of those, hosts overdue by `steal after` ms
  in the ready sets of other nodes, most overdue first (work stealing: their busy
  owners left them waiting). A stolen host stays with its owner: its ack re-arms it
  there. A host leased to its limit is parked (its ack re-arms it). A leased request
  stays in the node's lease hash until acked or reclaimed.

  Priority levels. A request of priority p != 0 waits in the host's level-p queue;
  the host's state field 'P' lists those levels. A lease takes the highest level
  first (a batch may span levels), FIFO within a level; a hand-back returns to the
  head of its level. A host whose 'P' is empty costs what it did before.

  Host batches (host batch B > 1): a lease takes a host's next B requests at once,
  one lease each, while all it has out stays within max in flight (at a limit below
  B: only when none are out), and parks it until they are acked. The node runs them
  within the gate (at most max in flight at once, the host's delay after each
  response) and acks them together, so the host's cycle (its state read and written,
  its ready-set moves) is paid once per batch, not per page.
  An ack with response time -1 hands a request back unstarted (a backoff stopped its
  batch): it goes back to the head of its queue. Host keys are named from
  the crawl's key prefix; every key of a crawl shares its hash tag, so the script
  stays in one Redis Cluster slot.

  Over maxmemory Redis refuses a script at its first write that may grow memory:
  with pushes that is the whole refill (as it should: their pages' leases must not
  go before them); without, the first write is the HDEL of the settled leases
  (allowed), so acks and leases go on while Redis refuses growth.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] bloom meta   KEYS[4] node's push log
  KEYS[5] node's ready (zset)   KEYS[6] node's leases (hash)
  KEYS[7 .. 6+F]  bloom bit strings, oldest first (none without pushes)
  then per push group: queue (list), host state (hash), owner's ready (zset)
  then per ack: host state, queue, owner's ready
  then the ready sets of the nodes the lease may steal from
  ARGV[1] epoch the caller's ring was built at   ARGV[2] now (ms)
  ARGV[3] batch id of the pushes ('' if none)   ARGV[4] push groups (hosts)
  ARGV[5] acks   ARGV[6] want: how many requests to lease at most (0: no lease)
  ARGV[7] F, filters the caller knows (0 without pushes)   ARGV[8] capacity of filter F
  ARGV[9] size of filter F in bits (its string is created at that size: grown bit
  by bit, Redis would over-allocate by up to half)   ARGV[10] host page limit (0: none)
  ARGV[11] max in flight per host   ARGV[12] default delay (ms)
  ARGV[13] park (ms): how far to push back a host at its in-flight limit
  ARGV[14] backoff BASE (ms)   ARGV[15] backoff MAX (ms)   ARGV[16] steal after (ms)
  ARGV[17] key prefix of the crawl
  ARGV[18] host batch: how many requests of a free host one lease takes at most
  ARGV[19 .. 18+F] block size in bytes of each filter
  then per push group: host, count, and per request: check ('1'; '0': dont_filter,
  no dedup; '2': a retry, neither dedup nor host budget; '3': marked seen but never a
  duplicate: a start request of a fresh crawl), payload (one of priority p != 0
  starts '!<p>|' and goes to the host's level-p queue, see "Priority levels" below),
  and when check is '1' or '3' its bits in every filter, oldest first, packed in one
  argument (packing 15-30
  arguments per URL cost the client more than the whole script): per filter the
  byte offset of its block (uint32, little-endian), its count n of bits (uint8),
  then n pairs (byte in the block from 0, mask of the one bit; uint8 each)
  then per ack: lease id, host, response time (ms; -1: handed back unstarted),
  backoff (ms; 0 none, -1 exponential)
  Returns {status, next due (ms; -1 if none, or if a request was leased), number of
  push codes, code per push..., then per lease: lease id, host, payload, 1 if stolen
  else 0}: status 0 ok, 1 ok and filter F is now full (a new filter starts); code 0
  duplicate, 1 queued, 2 over the host page limit. Refused (see scripts.py, nothing
  written): {-1} stale epoch, {-2} stale filter count, {-3} a batch id without
  pushes whose batch was not applied.
]]
-- luacheck: globals KEYS ARGV redis unpack
-- globals and library functions as locals: one lookup each, not one per use
local call, tonumber, ipairs, unpack = redis.call, tonumber, ipairs, unpack
local byte, char, format, sub = string.byte, string.char, string.format, string.sub
local max, min = math.max, math.min
-- a bit's mask in its byte -> its place in the byte as BITFIELD counts (0: the high bit)
local BIT_OF_MASK = {[128] = 0, [64] = 1, [32] = 2, [16] = 3, [8] = 4, [4] = 5, [2] = 6, [1] = 7}
local function int(x) return format('%d', x) end
-- small counts (in flight, backoffs) to strings and back by lookup: printf and strtod
-- cost more than the command they are for
local SMALL = {[0] = '0', '1', '2', '3', '4', '5', '6', '7', '8'}
local SMALL_NUM = {['0'] = 0, ['1'] = 1, ['2'] = 2, ['3'] = 3, ['4'] = 4, ['5'] = 5,
                   ['6'] = 6, ['7'] = 7, ['8'] = 8}
local function count_string(n) return SMALL[n] or int(n) end
local function number(s, default)  -- s: a field HMGET read, false if missing
  if not s then return default end
  return SMALL_NUM[s] or tonumber(s)
end

-- Priority levels (Request.priority): a host's requests of priority 0 are in its queue
-- q:<host>, those of priority p in q<p>:<host> (their payloads start '!<p>|'); the
-- host's state field 'P' lists the levels other than 0 that hold requests, highest
-- first ('' or absent: none, the common case, which costs nothing more).
local BANG, match = 33, string.match
local function level_queue(host, level) return ARGV[17] .. ':q' .. level .. ':' .. host end
local function level_set(P)
  local set = {}
  if P then for level in string.gmatch(P, '-?%d+') do set[tonumber(level)] = true end end
  return set
end
local function level_list(set)  -- the levels of a set, highest first
  local list = {}
  for level in pairs(set) do list[#list + 1] = level end
  table.sort(list, function(x, y) return x > y end)
  return list
end
local function level_string(set) return table.concat(level_list(set), ',') end
local function rpush(queue, payloads)  -- the queue's new length
  local length = 0
  for p = 1, #payloads, 1000 do  -- unpack() has a stack limit
    length = call('RPUSH', queue, unpack(payloads, p, min(#payloads, p + 999)))
  end
  return length
end

local now, batch = tonumber(ARGV[2]), ARGV[3]
local groups, acks, want = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local F, limit, max_inflight = tonumber(ARGV[7]), tonumber(ARGV[10]), tonumber(ARGV[11])
local delay, park, prefix = tonumber(ARGV[12]), tonumber(ARGV[13]), ARGV[17]
local host_batch = tonumber(ARGV[18])
-- a host may be leased while fewer than this are out, so that what it has out after
-- a whole batch stays within max_inflight; below a batch's size, one batch at a time
-- (its node runs at most max_inflight of it at once)
local open_below = max(1, max_inflight - host_batch + 1)
local READY, LEASES = KEYS[5], KEYS[6]
local NOW, PARKED = int(now), int(now + park)  -- PARKED: the score of a host at its limit

local strings = call('MGET', KEYS[4], KEYS[1])
local logged, applied = strings[1], nil  -- applied: this batch's codes, if it was before
if batch ~= '' and logged and sub(logged, 1, #batch + 1) == batch .. '|' then
  applied = {}
  for code in string.gmatch(sub(logged, #batch + 2), '-?%d+') do
    applied[#applied + 1] = tonumber(code)
  end
  if acks == 0 and want == 0 then  -- a retried push alone: its first answer
    table.insert(applied, 2, -1)
    table.insert(applied, 3, #applied - 2)
    return applied
  end
end
if strings[2] ~= ARGV[1] then return {-1} end
if groups == 0 and batch ~= '' and not applied then return {-3} end

local queued, settled_count, returned = 0, 0, 0  -- returned: handed back by acks
local codes = {0}  -- status, then one code per push

-- -- push ---------------------------------------------------------------------

-- BITFIELD with many operations, in calls of at most this many arguments (unpack()'s
-- stack limit)
local BITFIELD_ARGS = 4000

local function bloom_check()
  -- The batch's URLs against every filter in one BITFIELD per filter (not a command or
  -- two per URL): GETs of their bits in the older filters, then, for the URLs none of
  -- those holds, SETs in filter F, which return each bit's old value: a URL whose bits
  -- were all set already is a duplicate. In the batch's order: a URL twice in one batch
  -- is a duplicate, as it would be in the next (its SETs come before the second's).
  local urls = {}  -- per checked URL: its packed bits (one part per filter, oldest first)
  local a = 19 + F
  for _ = 1, groups do
    local count = tonumber(ARGV[a + 1])
    a = a + 2
    for _ = 1, count do
      if ARGV[a] == '1' or ARGV[a] == '3' then
        urls[#urls + 1] = ARGV[a + 2]
        a = a + 3
      else
        a = a + 2
      end
    end
  end
  local seen, at = {}, {}  -- seen[u]: the u-th checked URL is a duplicate; at[u]: its part
  for u = 1, #urls do seen[u], at[u] = false, 1 end

  -- one filter: each pending URL's bit offsets as BITFIELD operations; per URL how many
  local function operations(f, pending, op, value)
    local args, per_url = {}, {}
    for n, u in ipairs(pending) do
      local s, p = urls[u], at[u]
      local b1, b2, b3, b4, touched = byte(s, p, p + 4)
      local base = 8 * (b1 + 256 * (b2 + 256 * (b3 + 256 * b4)))
      local bits = {byte(s, p + 5, p + 4 + 2 * touched)}  -- byte (from 0), mask
      for j = 1, #bits, 2 do
        args[#args + 1], args[#args + 2] = op, 'u1'
        args[#args + 1] = int(base + 8 * bits[j] + BIT_OF_MASK[bits[j + 1]])
        if value then args[#args + 1] = value end
      end
      per_url[n], at[u] = touched, p + 5 + 2 * touched
    end
    local olds, step = {}, value and 4 or 3
    local chunk = BITFIELD_ARGS - BITFIELD_ARGS % step  -- whole operations per call
    for first = 1, #args, chunk do
      local last = min(#args, first + chunk - 1)
      for _, old in ipairs(call('BITFIELD', KEYS[6 + f], unpack(args, first, last))) do
        olds[#olds + 1] = old
      end
    end
    return olds, per_url
  end
  -- all of a URL's bits set?
  local function all_set(olds, per_url)
    local found, i = {}, 0
    for n, touched in ipairs(per_url) do
      local all = true
      for j = i + 1, i + touched do if olds[j] == 0 then all = false end end
      found[n], i = all, i + touched
    end
    return found
  end

  local pending = {}
  for u = 1, #urls do pending[u] = u end
  for f = 1, F do
    if #pending == 0 then break end
    local found = all_set(operations(f, pending, f == F and 'SET' or 'GET', f == F and '1'))
    local left = {}
    for n, u in ipairs(pending) do
      if found[n] then seen[u] = true else left[#left + 1] = u end
    end
    pending = left
  end
  return seen
end

local function push()
  local meta = call('HMGET', KEYS[3], 'n', 'm' .. int(F - 1))
  if number(meta[1], 0) ~= F then return false end
  if not meta[2] then  -- 'm<i>': filter i's string was made at its size
    if call('EXISTS', KEYS[6 + F]) == 0 then
      call('SETBIT', KEYS[6 + F], int(tonumber(ARGV[9]) - 1), '0')
    end
    call('HSET', KEYS[3], 'm' .. int(F - 1), '1')
  end
  local seen = bloom_check()

  local logged_codes, added, u = {'0'}, 0, 0
  local CODE = {[0] = '0', '1', '2'}
  local a, k = 19 + F, 7 + F
  for _ = 1, groups do
    local queue, state, ready = KEYS[k], KEYS[k + 1], KEYS[k + 2]
    local host, count = ARGV[a], tonumber(ARGV[a + 1])
    a, k = a + 2, k + 3
    local s, admitted = nil, 0  -- the host's state: read only if needed
    if limit > 0 then
      s = call('HMGET', state, 'a', 't', 'n', 'P')
      admitted = number(s[1], 0)
    end
    local payloads, budgeted, levels = {}, 0, nil  -- levels: level -> payloads
    for _ = 1, count do
      local check, payload = ARGV[a], ARGV[a + 1]
      a = a + 2
      local code = 1
      if check == '1' or check == '3' then
        u = u + 1
        if not seen[u] then added = added + 1 elseif check == '1' then code = 0 end
        a = a + 1
      end
      -- a retry ('2') was admitted the first time: it neither meets nor uses the budget
      if code == 1 and check ~= '2' then
        if limit > 0 and admitted + budgeted >= limit then code = 2 else budgeted = budgeted + 1 end
      end
      if code == 1 then
        if byte(payload, 1) == BANG then  -- '!<priority>|': its level's queue
          local level = match(payload, '^!(-?%d+)|')
          levels = levels or {}
          levels[level] = levels[level] or {}
          local list = levels[level]
          list[#list + 1] = payload
        else
          payloads[#payloads + 1] = payload
        end
      end
      codes[#codes + 1], logged_codes[#codes + 1] = code, CODE[code]
    end
    -- counted only under a limit: a write per host and batch that nothing else reads
    if limit > 0 and budgeted > 0 then call('HINCRBY', state, 'a', int(budgeted)) end
    local length, pushed = nil, #payloads
    if pushed > 0 then length = rpush(queue, payloads) end
    local had_work = length ~= nil and length > pushed
    if levels then
      s = s or call('HMGET', state, 'a', 't', 'n', 'P')
      had_work = had_work or (s[4] and s[4] ~= '') or (length == nil and call('LLEN', queue) > 0)
      local set = level_set(s[4])
      for level, list in pairs(levels) do
        rpush(level_queue(host, level), list)
        set[tonumber(level)], pushed = true, pushed + #list
      end
      local written = level_string(set)
      if written ~= (s[4] or '') then call('HSET', state, 'P', written) end
    elseif length == pushed and pushed > 0 then  -- its main queue was empty
      s = s or call('HMGET', state, 'a', 't', 'n', 'P')
      had_work = s[4] and s[4] ~= ''
    end
    if pushed > 0 then
      if not had_work then  -- the host had no queued work: announce it
        s = s or call('HMGET', state, 'a', 't', 'n', 'P')
        if number(s[3], 0) < open_below then
          local t = number(s[2], 0)
          call('ZADD', ready, 'NX', t > now and s[2] or NOW, host)
        end
      end
      queued = queued + pushed
    end
  end
  if added > 0 then
    local count = call('HINCRBY', KEYS[3], 'c' .. int(F - 1), int(added))
    if count >= tonumber(ARGV[8]) then
      call('HSET', KEYS[3], 'n', int(F + 1))
      codes[1], logged_codes[1] = 1, '1'
    end
  end
  -- kept a day: a retry of a batch whose reply was lost comes within seconds, and a
  -- node id that never returns leaves nothing behind
  call('SET', KEYS[4], batch .. '|' .. table.concat(logged_codes, ','), 'EX', '86400')
  return true
end

if groups > 0 then
  if applied then
    codes = applied
  elseif not push() then
    return {-2}
  end
end

-- -- ack ------------------------------------------------------------------------
-- An acked host's new state is kept here (acked[host]) and written once at the end,
-- after the lease may have taken it again.

local acked, acked_order = {}, {}

-- the requests an acked host has queued, read when first needed: not for a batch only
-- partly acked (see write_acked), the ack most hosts get at each heartbeat
local function queued_of(h)
  if h.length == nil then
    h.length = call('LLEN', h.queue)
    for level in string.gmatch(h.P, '-?%d+') do
      h.length = h.length + call('LLEN', level_queue(h.host, level))
    end
  end
  return h.length
end

-- unpack() has a stack limit: long argument lists go in chunks
local function call_chunked(command, key, args)
  local out = {}
  for s = 1, #args, 2000 do
    local reply = call(command, key, unpack(args, s, min(#args, s + 1999)))
    if type(reply) == 'table' then
      for _, v in ipairs(reply) do out[#out + 1] = v end
    end
  end
  return out
end

local function ack()
  local first_arg, first_key = #ARGV - 4 * acks + 1, 7 + F + 3 * groups
  local ids = {}
  for j = 1, acks do ids[j] = ARGV[first_arg + 4 * (j - 1)] end
  local held = call_chunked('HMGET', LEASES, ids)
  local settled, once = {}, {}
  for j, id in ipairs(ids) do
    if held[j] and not once[id] then  -- an id twice in one call settles once
      settled[#settled + 1], once[id] = j, true
    end
  end
  if #settled == 0 then return end
  local gone = {}
  for n, j in ipairs(settled) do gone[n] = ids[j] end
  call_chunked('HDEL', LEASES, gone)  -- first: see the header on maxmemory
  settled_count = #settled
  -- A host whose acks here are all plain (a response, no backoff) first only counts
  -- them off its in-flight count: if it stays at its limit, its batch is still out and
  -- the host parked, and that is all (the heartbeat's acks of a batch's settled pages;
  -- its last ack, which the node gives the batch's latest response time, re-arms it).
  local count, plain, key_of, left = {}, {}, {}, {}
  for _, j in ipairs(settled) do
    local i = first_arg + 4 * (j - 1)
    local host = ARGV[i + 1]
    count[host], key_of[host] = (count[host] or 0) + 1, key_of[host] or first_key + 3 * (j - 1)
    plain[host] = plain[host] ~= false and tonumber(ARGV[i + 2]) >= 0 and ARGV[i + 3] == '0'
  end
  for host, n in pairs(count) do  -- (one request per lease: every ack is a batch's last)
    if plain[host] and host_batch > 1 then
      left[host] = call('HINCRBY', KEYS[key_of[host]], 'n', int(-n))
    end
  end
  local base, cap = tonumber(ARGV[14]), tonumber(ARGV[15])
  for _, j in ipairs(settled) do
    local i, k = first_arg + 4 * (j - 1), first_key + 3 * (j - 1)
    local host = ARGV[i + 1]
    local h = acked[host]
    if not h and left[host] and left[host] >= open_below then
      h = {partial = true}  -- counted off above: nothing more
      acked[host] = h
    elseif not h then
      local s = call('HMGET', KEYS[k], 'n', 't', 'd', 'b', 'e', 'P')
      -- n as it was before this call's acks, which count it down below
      local n = left[host] and left[host] + count[host] or number(s[1], 1)
      h = {state = KEYS[k], queue = KEYS[k + 1], ready = KEYS[k + 2], host = host,
           n = n, t = number(s[2], 0), d = number(s[3], 0),
           b = number(s[4], 0), e = s[5], P = s[6] or ''}  -- h.length: see queued_of
      acked[host], acked_order[#acked_order + 1] = h, h
    end
    if not h.partial then
      local done, backoff = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
      h.n = max(0, h.n - 1)
      if done < 0 then  -- handed back unstarted (the rest of a batch): no response
        h.back = h.back or {}
        h.back[#h.back + 1] = sub(held[j], #host + 2)  -- the entry is host \n payload
      elseif backoff ~= 0 then
        h.b = h.b + 1
        local wait = backoff
        if backoff < 0 then wait = min(cap, base * 2 ^ (h.b - 1)) end
        h.t = max(h.t, done + max(delay, h.d), done + wait)
      else
        h.t = max(h.t, done + max(delay, h.d))
        h.b = 0
      end
    end
  end
  for _, h in ipairs(acked_order) do
    if h.back then  -- to its queue's head, in their batch's order (LPUSH reverses)
      local by_level, set = {}, nil
      for j = #h.back, 1, -1 do
        local payload = h.back[j]
        local level = byte(payload, 1) == BANG and match(payload, '^!(-?%d+)|') or '0'
        by_level[level] = by_level[level] or {}
        by_level[level][#by_level[level] + 1] = payload
      end
      for level, reversed in pairs(by_level) do
        if level == '0' then
          call('LPUSH', h.queue, unpack(reversed))
        else
          call('LPUSH', level_queue(h.host, level), unpack(reversed))
          set = set or level_set(h.P)
          set[tonumber(level)] = true
        end
      end
      if set then h.P, h.P_changed = level_string(set), true end
      h.length, returned = queued_of(h) + #h.back, returned + #h.back
    end
  end
end

-- write an acked host's state, and its place in its owner's ready set (h.score: where
-- the lease put it; else its due time)
local function write_acked(h)
  local n, t, b = count_string(h.n), int(h.t), count_string(h.b)
  if h.length == nil and h.n >= open_below then
    -- a batch partly acked (the heartbeat's acks of its settled pages): the rest of it
    -- is still out and the host parked where its lease put it; the last ack re-arms it
    call('HSET', h.state, 'n', n, 't', t, 'b', b)
    return
  end
  if h.P_changed then call('HSET', h.state, 'P', h.P) end
  if queued_of(h) > 0 then
    if h.e == '1' then  -- 'e' = '1' while the state has an expiry: only then PERSIST
      call('HSET', h.state, 'n', n, 't', t, 'b', b, 'e', '0')
      call('PERSIST', h.state)
    else
      call('HSET', h.state, 'n', n, 't', t, 'b', b)
    end
    -- still out to its limit (a batch only partly acked): stays parked
    local score = h.score or (h.n >= open_below and PARKED) or (h.t > now and t or NOW)
    call('ZADD', h.ready, score, h.host)
  elseif h.n == 0 then
    call('HSET', h.state, 'n', n, 't', t, 'b', b, 'e', '1')
    call('PEXPIRE', h.state, '604800000')
    call('ZREM', h.ready, h.host)
  else
    call('HSET', h.state, 'n', n, 't', t, 'b', b)
    call('ZREM', h.ready, h.host)
  end
end

if acks > 0 then ack() end

-- -- lease ----------------------------------------------------------------------

local out = {}  -- per lease: id, host, payload, stolen

local function pick()
  -- candidates, most due first: the ready set's head, hosts acked in this call that
  -- are due again, then overdue hosts of other nodes
  local due = {}
  local head = call('ZRANGE', READY, '0', int(want - 1), 'WITHSCORES')
  for j = 1, #head, 2 do
    local score = tonumber(head[j + 1])
    if score <= now and not acked[head[j]] then due[#due + 1] = {score, head[j], READY} end
  end
  for _, h in ipairs(acked_order) do
    if h.ready == READY and h.t <= now and h.n < open_below and queued_of(h) > 0 then
      due[#due + 1] = {h.t, h.host, READY}
    end
  end
  table.sort(due, function(x, y) return x[1] < y[1] end)
  local hosts, ready_of = {}, {}
  for j = 1, min(want, #due) do hosts[j], ready_of[due[j][2]] = due[j][2], READY end
  local first_steal = 7 + F + 3 * groups + 3 * acks
  if #hosts < want and #KEYS >= first_steal then
    local overdue = {}
    for k = first_steal, #KEYS do
      local found = call('ZRANGEBYSCORE', KEYS[k], '-inf', int(now - tonumber(ARGV[16])),
                               'WITHSCORES', 'LIMIT', '0', int(want))
      for j = 1, #found, 2 do
        overdue[#overdue + 1] = {tonumber(found[j + 1]), found[j], KEYS[k]}
      end
    end
    table.sort(overdue, function(x, y) return x[1] < y[1] end)
    for _, candidate in ipairs(overdue) do
      if #hosts >= want then break end
      local host = candidate[2]
      if not ready_of[host] and not acked[host] then
        hosts[#hosts + 1], ready_of[host] = host, candidate[3]
      end
    end
  end
  return hosts, ready_of
end

-- the next request of a queue, or its next host_batch ones: a list either way (nil
-- if the queue is empty)
local BATCH = ARGV[18]
local function pop_main(queue)
  if host_batch == 1 then
    local payload = call('LPOP', queue)
    return payload and {payload} or nil
  end
  return call('LPOP', queue, BATCH) or nil
end

-- a host with priority levels: its next requests, highest level first (0 is the main
-- queue), up to a batch over several levels; the levels left (a string for 'P')
local function pop_levels(queue, host, P)
  local set, out = level_set(P), {}
  local levels = level_list(set)
  if not set[0] then levels[#levels + 1] = 0 end
  table.sort(levels, function(x, y) return x > y end)
  for _, level in ipairs(levels) do
    local want_more = host_batch - #out
    if want_more <= 0 then break end
    local key = level == 0 and queue or level_queue(host, level)
    local got
    if host_batch == 1 then got = {call('LPOP', key) or nil} else got = call('LPOP', key, int(want_more)) or {} end
    for _, payload in ipairs(got) do out[#out + 1] = payload end
    if level ~= 0 and (#got < want_more or call('LLEN', key) == 0) then set[level] = nil end
  end
  return (#out > 0 and out or nil), level_string(set)
end

local function pop(queue, host, P)
  if not P or P == '' then return pop_main(queue), nil end
  return pop_levels(queue, host, P)
end

-- lease the next request(s) of *host* in *ready*: from the state its ack left (h), or
-- read here
local function lease_host(host, ready, h)
  local queue, state = prefix .. ':q:' .. host, prefix .. ':host:' .. host
  if h then  -- due, with work (pick)
    if h.n >= open_below then h.score = PARKED; return nil end
    local payloads, P = pop(queue, host, h.P)
    if P and P ~= h.P then h.P, h.P_changed = P, true end
    h.n, h.t, h.length = h.n + #payloads, now + max(delay, h.d), queued_of(h) - #payloads
    if h.n >= open_below then h.score = PARKED end
    return payloads
  end
  local s = call('HMGET', state, 'n', 't', 'd', 'P')
  local n, t = number(s[1], 0), number(s[2], 0)
  if t > now then
    call('ZADD', ready, 'XX', s[2], host)
    return nil
  elseif n >= open_below then
    call('ZADD', ready, 'XX', PARKED, host)
    return nil
  end
  local payloads, P = pop(queue, host, s[4])
  if P and P ~= s[4] then call('HSET', state, 'P', P) end
  if not payloads then
    call('ZREM', ready, host)
    return nil
  end
  n, t = n + #payloads, now + max(delay, number(s[3], 0))
  local t_string = int(t)
  call('HSET', state, 'n', count_string(n), 't', t_string)
  if n >= open_below then
    call('ZADD', ready, 'XX', PARKED, host)
  elseif (not P or P == '') and call('LLEN', queue) == 0 then
    call('ZREM', ready, host)
  else
    call('ZADD', ready, 'XX', t_string, host)
  end
  return payloads
end

local taken = {}  -- per request: host, stolen, payload (a host's batch in queue order)
if want > 0 then
  local hosts, ready_of = pick()
  for _, host in ipairs(hosts) do
    local ready = ready_of[host]
    local stolen = ready == READY and 0 or 1
    for _, payload in ipairs(lease_host(host, ready, acked[host]) or {}) do
      taken[#taken + 1] = {host, stolen, payload}
    end
  end
end
for _, h in ipairs(acked_order) do write_acked(h) end

local leased_count = #taken
if leased_count > 0 then
  -- unique even if Redis lost its last writes and the counter went back
  local seq = call('HINCRBY', KEYS[2], 'seq', int(leased_count)) - leased_count
  local fields = {}
  for j, lease in ipairs(taken) do
    local id = int(seq + j) .. '-' .. NOW
    fields[2 * j - 1], fields[2 * j] = id, lease[1] .. '\n' .. lease[3]
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4] = id, lease[1], lease[3], lease[2]
  end
  call_chunked('HSET', LEASES, fields)  -- chunks of 2000: whole id/entry pairs
end
if queued + returned ~= leased_count then
  call('HINCRBY', KEYS[2], 'queued', int(queued + returned - leased_count))
end
if leased_count ~= settled_count then
  call('HINCRBY', KEYS[2], 'leased', int(leased_count - settled_count))
end

local next_due = -1
if want > 0 and leased_count == 0 then
  local first = call('ZRANGE', READY, '0', '0', 'WITHSCORES')
  if first[2] then next_due = tonumber(first[2]) end
end
local reply = {codes[1], next_due, #codes - 1}
for j = 2, #codes do reply[#reply + 1] = codes[j] end
for j = 1, #out do reply[#reply + 1] = out[j] end
return reply
