--[[ ack.lua
  Settle leases whose outcome has been processed: free the host's in-flight slot,
  space its next start from when this request's response came back (as Nutch
  does; a gap between client-side starts can shrink on the way to the server,
  this one cannot), and re-arm the host in its owner's ready set if it has more
  work, or take it out if it has none. A lease already reclaimed (the node was
  declared dead meanwhile) is skipped, so nothing is counted twice.

  A lease may also put its host into backoff (429, 503, connection errors): no
  request to the host until the wait has passed, counted from the response. The
  wait is the server's Retry-After, or BASE * 2^(b-1) capped at MAX where b counts
  consecutive backoffs; a normal outcome resets b. The state lives with the host,
  so it survives the host moving to another node.

  Acks sent with a push batch apply only if that batch was applied (it is in the
  node's push log), so a page's lease never goes before its discovered links.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] node's leases   KEYS[4] node's push log
  then per lease: host state (hash), queue (list), owner's ready (zset)
  ARGV[1] epoch   ARGV[2] now (ms)   ARGV[3] default delay (ms)
  ARGV[4] backoff BASE (ms)   ARGV[5] backoff MAX (ms)
  ARGV[6] id of the push batch sent before these acks ('' if none)
  then per lease: lease id, host, response time (ms), backoff (ms; 0 none, -1
  exponential)
  Returns the number of leases settled; refused (see scripts.py): -1 stale epoch,
  -3 the batch before them was not applied.
]]
-- luacheck: globals KEYS ARGV redis unpack
local strings = redis.call('MGET', KEYS[1], KEYS[4])
if strings[1] ~= ARGV[1] then return -1 end
if ARGV[6] ~= '' then
  local logged = strings[2]
  if not logged or string.sub(logged, 1, #ARGV[6] + 1) ~= ARGV[6] .. '|' then return -3 end
end
local function int(x) return string.format('%d', x) end
local now, delay = tonumber(ARGV[2]), tonumber(ARGV[3])
local base, cap = tonumber(ARGV[4]), tonumber(ARGV[5])

-- unpack() has a stack limit: long argument lists go in chunks
local function call_chunked(command, key, args)
  local out = {}
  for s = 1, #args, 2000 do
    local reply = redis.call(command, key, unpack(args, s, math.min(#args, s + 1999)))
    if type(reply) == 'table' then
      for _, v in ipairs(reply) do out[#out + 1] = v end
    end
  end
  return out
end

local ids = {}
for i = 7, #ARGV, 4 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return 0 end
local held = call_chunked('HMGET', KEYS[3], ids)
local settled, once = {}, {}
for j, id in ipairs(ids) do
  if held[j] and not once[id] then  -- an id twice in one call settles once
    settled[#settled + 1], once[id] = j, true
  end
end
if #settled == 0 then return 0 end
-- Deleted first: the first write of a script decides whether a Redis over maxmemory
-- refuses it, and HDEL (frees memory) is allowed where HSET is not, so acks (and
-- with them leases) go on while Redis refuses writes that grow it.
local gone = {}
for n, j in ipairs(settled) do gone[n] = ids[j] end
call_chunked('HDEL', KEYS[3], gone)
redis.call('HINCRBY', KEYS[2], 'leased', int(-#settled))
for _, j in ipairs(settled) do
  local i, k = 7 + (j - 1) * 4, 5 + (j - 1) * 3
  local state, queue, ready = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local s = redis.call('HMGET', state, 'n', 't', 'd', 'b', 'e')
  local n = math.max(0, tonumber(s[1] or '1') - 1)
  local done, backoff = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  local t = math.max(tonumber(s[2] or '0'), done + math.max(delay, tonumber(s[3] or '0')))
  local b = 0
  if backoff ~= 0 then
    b = tonumber(s[4] or '0') + 1
    local wait = backoff
    if backoff < 0 then wait = math.min(cap, base * 2 ^ (b - 1)) end
    t = math.max(t, done + wait)
  end
  -- 'e' = '1' while the state has an expiry (set below), so that only then a
  -- host with work again needs a PERSIST
  n, t, b = int(n), int(t), int(b)
  if redis.call('LLEN', queue) > 0 then
    if s[5] == '1' then
      redis.call('HSET', state, 'n', n, 't', t, 'b', b, 'e', '0')
      redis.call('PERSIST', state)
    else
      redis.call('HSET', state, 'n', n, 't', t, 'b', b)
    end
    redis.call('ZADD', ready, int(math.max(tonumber(t), now)), ARGV[i + 1])
  elseif n == '0' then
    -- an idle host's state (gap, backoff, Crawl-delay, admitted count) goes after a
    -- week without work, so hosts seen once do not stay in Redis for ever
    redis.call('HSET', state, 'n', n, 't', t, 'b', b, 'e', '1')
    redis.call('PEXPIRE', state, '604800000')
    redis.call('ZREM', ready, ARGV[i + 1])
  else
    redis.call('HSET', state, 'n', n, 't', t, 'b', b)
    redis.call('ZREM', ready, ARGV[i + 1])
  end
end
return #settled
