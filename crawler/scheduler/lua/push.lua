--[[ push.lua
  Admit discovered requests: check-and-set the Bloom filter and append the new
  ones to their host queue in one atomic step, so a URL is never marked seen
  without being queued (nor queued twice).

  A batch is applied once: its id and codes are kept in the node's push log, and
  a retry of the same batch (its reply was lost to a Redis stall) gets the same
  codes back, so no URL is counted both queued and duplicate.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] bloom meta   KEYS[4] node's push log
  KEYS[5 .. 4+F]  bloom bit strings, oldest first
  then per host group: queue (list), host state (hash), owner's ready (zset)
  ARGV[1] epoch the caller's ring was built at   ARGV[2] now (ms)
  ARGV[3] F, filters the caller knows            ARGV[4] capacity of filter F
  ARGV[5] host page limit (0: none)              ARGV[6] batch id
  ARGV[7] size of filter F in bits (its string is created at that size: grown
  bit by bit, Redis would over-allocate by up to half)
  ARGV[8 .. 7+F] slices (bit positions per URL) of each filter
  then per group: host, count, and per request: check ('1'; '0': dont_filter, no
  dedup; '2': a retry, neither dedup nor host budget), payload, and when check
  is '1' its bit offsets in every filter, oldest first, packed as little-endian
  uint32 (one argument, not one per bit: packing 15-30 arguments per URL cost
  the client more than the whole script)
  Returns {status, code per request}: status 0 ok, 1 ok and filter F is now full
  (a new filter starts); refused (see scripts.py, nothing written): {-1} stale
  epoch, {-2} stale filter count;
  code 0 duplicate, 1 queued, 2 over the host page limit.
]]
-- luacheck: globals KEYS ARGV redis struct
local logged = redis.call('GET', KEYS[4])
if logged and string.sub(logged, 1, #ARGV[6] + 1) == ARGV[6] .. '|' then
  local codes = {}
  for code in string.gmatch(string.sub(logged, #ARGV[6] + 2), '-?%d+') do
    codes[#codes + 1] = tonumber(code)
  end
  return codes
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {-1} end
local F = tonumber(ARGV[3])
if tonumber(redis.call('HGET', KEYS[3], 'n') or '0') ~= F then return {-2} end
local now, capacity, limit = tonumber(ARGV[2]), tonumber(ARGV[4]), tonumber(ARGV[5])
local slices = {}
for f = 1, F do slices[f] = tonumber(ARGV[7 + f]) end
if redis.call('EXISTS', KEYS[4 + F]) == 0 then
  redis.call('SETBIT', KEYS[4 + F], tonumber(ARGV[7]) - 1, 0)
end

local function seen_before(bits)
  -- bits: the packed offsets; returns seen, position of the last filter's offsets
  local seen, pos = false, 1
  for f = 1, F do
    if not seen then
      seen = true
      for j = 0, slices[f] - 1 do
        local offset = struct.unpack('<I4', bits, pos + 4 * j)
        if redis.call('GETBIT', KEYS[4 + f], offset) == 0 then seen = false break end
      end
    end
    if f < F then pos = pos + 4 * slices[f] end
  end
  return seen, pos
end

local codes, added, queued = {0}, 0, 0
local a, k = 8 + F, 5 + F
while k <= #KEYS do
  local queue, state, ready = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local host, count = ARGV[a], tonumber(ARGV[a + 1])
  a, k = a + 2, k + 3
  local admitted = tonumber(redis.call('HGET', state, 'a') or '0')
  local pushed, budgeted = 0, 0
  for _ = 1, count do
    local check, payload = ARGV[a], ARGV[a + 1]
    a = a + 2
    local code = 1
    if check == '1' then
      local bits = ARGV[a]
      local seen, last = seen_before(bits)
      if seen then
        code = 0
      else
        for j = 0, slices[F] - 1 do
          redis.call('SETBIT', KEYS[4 + F], struct.unpack('<I4', bits, last + 4 * j), 1)
        end
        added = added + 1
      end
      a = a + 1
    end
    -- a retry ('2') was admitted the first time: it neither meets nor uses the budget
    if code == 1 and check ~= '2' then
      if limit > 0 and admitted + budgeted >= limit then code = 2 else budgeted = budgeted + 1 end
    end
    if code == 1 then
      redis.call('RPUSH', queue, payload)
      pushed = pushed + 1
    end
    codes[#codes + 1] = code
  end
  if budgeted > 0 then redis.call('HINCRBY', state, 'a', budgeted) end
  if pushed > 0 then
    local t = tonumber(redis.call('HGET', state, 't') or '0')
    redis.call('ZADD', ready, 'NX', math.max(t, now), host)
    queued = queued + pushed
  end
end
if queued > 0 then redis.call('HINCRBY', KEYS[2], 'queued', queued) end
if added > 0 then
  local count = redis.call('HINCRBY', KEYS[3], 'c' .. (F - 1), added)
  if count >= capacity then
    redis.call('HSET', KEYS[3], 'n', F + 1)
    codes[1] = 1
  end
end
-- kept a day: a retry of a batch whose reply was lost comes within seconds, and a
-- node id that never returns leaves nothing behind
redis.call('SET', KEYS[4], ARGV[6] .. '|' .. table.concat(codes, ','), 'EX', 86400)
return codes
