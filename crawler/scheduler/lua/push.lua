--[[ push.lua
  Admit discovered requests: check-and-set the Bloom filter and append the new
  ones to their host queue in one atomic step, so a URL is never marked seen
  without being queued (nor queued twice).

  A batch is applied once: its id and codes are kept in the node's push log, and
  a retry of the same batch (its reply was lost to a Redis stall) gets the same
  codes back, so no URL is counted both queued and duplicate.

  Cost: a few commands per batch, one GETRANGE per checked URL and filter (a
  URL's bits in a filter lie in one block of bits: a blocked Bloom filter, see
  bloom.py) and one SETRANGE per new URL, and three per host: one read of its
  state, one RPUSH, one ZADD unless it is in flight to its limit
  (bench/ANALYSIS.md). Numbers go to Redis as %d strings: a Lua number is
  formatted as %.17g, which costs more than the command it is an argument of.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] bloom meta   KEYS[4] node's push log
  KEYS[5 .. 4+F]  bloom bit strings, oldest first
  then per host group: queue (list), host state (hash), owner's ready (zset)
  ARGV[1] epoch the caller's ring was built at   ARGV[2] now (ms)
  ARGV[3] F, filters the caller knows            ARGV[4] capacity of filter F
  ARGV[5] host page limit (0: none)              ARGV[6] batch id
  ARGV[7] size of filter F in bits (its string is created at that size: grown
  bit by bit, Redis would over-allocate by up to half)
  ARGV[8] max in flight per host: a host at it is not announced as ready (the ack
  of a request in flight re-arms it)
  ARGV[9 .. 8+F] block size in bytes of each filter
  then per group: host, count, and per request: check ('1'; '0': dont_filter, no
  dedup; '2': a retry, neither dedup nor host budget), payload, and when check
  is '1' its bits in every filter, oldest first, packed in one argument (one
  argument, not one per bit: packing 15-30 arguments per URL cost the client more
  than the whole script), per filter: the byte offset of its block (uint32,
  little-endian), its count n of bits (uint8), then n pairs (byte in the block
  from 0, mask of the one bit; uint8 each; two may be the same bit)
  Returns {status, code per request}: status 0 ok, 1 ok and filter F is now full
  (a new filter starts); refused (see scripts.py, nothing written): {-1} stale
  epoch, {-2} stale filter count;
  code 0 duplicate, 1 queued, 2 over the host page limit.
]]
-- luacheck: globals KEYS ARGV redis unpack
local function int(x) return string.format('%d', x) end

local strings = redis.call('MGET', KEYS[4], KEYS[1])
local logged = strings[1]
if logged and string.sub(logged, 1, #ARGV[6] + 1) == ARGV[6] .. '|' then
  local codes = {}
  for code in string.gmatch(string.sub(logged, #ARGV[6] + 2), '-?%d+') do
    codes[#codes + 1] = tonumber(code)
  end
  return codes
end
if strings[2] ~= ARGV[1] then return {-1} end
local F = tonumber(ARGV[3])
local meta = redis.call('HMGET', KEYS[3], 'n', 'm' .. int(F - 1))
if tonumber(meta[1] or '0') ~= F then return {-2} end
local now, capacity, limit = tonumber(ARGV[2]), tonumber(ARGV[4]), tonumber(ARGV[5])
local max_inflight = tonumber(ARGV[8])
if not meta[2] then  -- 'm<i>': filter i's string was made at its size
  if redis.call('EXISTS', KEYS[4 + F]) == 0 then
    redis.call('SETBIT', KEYS[4 + F], int(tonumber(ARGV[7]) - 1), '0')
  end
  redis.call('HSET', KEYS[3], 'm' .. int(F - 1), '1')
end

-- Bloom, URL by URL in the batch's order: a URL twice in one batch is a duplicate,
-- as it would be in the next (its block is written before the next URL reads it).
-- A URL's bits in a filter lie in one block: one GETRANGE reads them; in filter F,
-- one SETRANGE writes the block back with the missing ones set.
local block_bytes = {}
for f = 1, F do block_bytes[f] = tonumber(ARGV[8 + f]) end

-- Is the URL whose filter-f bits are packed in s at p in filter f? In filter F a
-- new URL's bits are set. Returns that, and where filter f+1's bits start.
local function in_filter(f, s, p)
  local b1, b2, b3, b4, touched = string.byte(s, p, p + 4)
  local offset, size = b1 + 256 * (b2 + 256 * (b3 + 256 * b4)), block_bytes[f]
  local start = int(offset)
  local block = redis.call('GETRANGE', KEYS[4 + f], start, int(offset + size - 1))
  if #block < size then block = block .. string.rep('\0', size - #block) end
  local last, found, bytes = f == F, true, nil  -- bytes: the block's, to write back
  local bits = {string.byte(s, p + 5, p + 4 + 2 * touched)}  -- byte (from 0), mask
  for j = 1, #bits, 2 do
    local i, mask = bits[j] + 1, bits[j + 1]
    local old = bytes and bytes[i] or string.byte(block, i)
    if old % (mask + mask) < mask then  -- the mask's one bit is clear
      found = false
      if not last then break end
      -- a byte table, then string.char(unpack()): cheaper than joining string.sub
      -- pieces around the changed bytes (measured)
      bytes = bytes or {string.byte(block, 1, size)}
      bytes[i] = old + mask
    end
  end
  if bytes then redis.call('SETRANGE', KEYS[4 + F], start, string.char(unpack(bytes))) end
  return found, p + 5 + 2 * touched
end

local seen = {}  -- seen[u]: the u-th checked URL of the batch is a duplicate
do
  local a, k, u = 9 + F, 5 + F, 0
  while k <= #KEYS do
    local count = tonumber(ARGV[a + 1])
    a, k = a + 2, k + 3
    for _ = 1, count do
      if ARGV[a] == '1' then
        u = u + 1
        local packed, p, found = ARGV[a + 2], 1, false
        for f = 1, F do
          found, p = in_filter(f, packed, p)
          if found then break end
        end
        seen[u] = found
        a = a + 3
      else
        a = a + 2
      end
    end
  end
end

local codes, logged_codes, added, queued = {0}, {'0'}, 0, 0
local CODE = {[0] = '0', '1', '2'}
local u = 0  -- checked URLs so far
local a, k = 9 + F, 5 + F
while k <= #KEYS do
  local queue, state, ready = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local host, count = ARGV[a], tonumber(ARGV[a + 1])
  a, k = a + 2, k + 3
  local s = redis.call('HMGET', state, 'a', 't', 'n')
  local admitted = tonumber(s[1] or '0')
  local payloads, budgeted = {}, 0
  for _ = 1, count do
    local check, payload = ARGV[a], ARGV[a + 1]
    a = a + 2
    local code = 1
    if check == '1' then
      u = u + 1
      if seen[u] then code = 0 else added = added + 1 end
      a = a + 1
    end
    -- a retry ('2') was admitted the first time: it neither meets nor uses the budget
    if code == 1 and check ~= '2' then
      if limit > 0 and admitted + budgeted >= limit then code = 2 else budgeted = budgeted + 1 end
    end
    if code == 1 then payloads[#payloads + 1] = payload end
    codes[#codes + 1], logged_codes[#codes + 1] = code, CODE[code]
  end
  if budgeted > 0 then redis.call('HINCRBY', state, 'a', int(budgeted)) end
  if #payloads > 0 then
    for p = 1, #payloads, 1000 do  -- unpack() has a stack limit
      redis.call('RPUSH', queue, unpack(payloads, p, math.min(#payloads, p + 999)))
    end
    if tonumber(s[3] or '0') < max_inflight then
      redis.call('ZADD', ready, 'NX', int(math.max(tonumber(s[2] or '0'), now)), host)
    end
    queued = queued + #payloads
  end
end
if queued > 0 then redis.call('HINCRBY', KEYS[2], 'queued', int(queued)) end
if added > 0 then
  local count = redis.call('HINCRBY', KEYS[3], 'c' .. int(F - 1), int(added))
  if count >= capacity then
    redis.call('HSET', KEYS[3], 'n', int(F + 1))
    codes[1], logged_codes[1] = 1, '1'
  end
end
-- kept a day: a retry of a batch whose reply was lost comes within seconds, and a
-- node id that never returns leaves nothing behind
redis.call('SET', KEYS[4], ARGV[6] .. '|' .. table.concat(logged_codes, ','), 'EX', '86400')
return codes
