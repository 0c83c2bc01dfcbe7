--[[ lease.lua
  Hand out the next request of each due host, within the politeness gate:
  at most ARGV[4] in flight per host and request starts at least the host's delay
  apart. A leased request stays in the node's lease hash until acked or reclaimed.

  The script picks its hosts itself, so that a refill is one round trip (sent in
  the pipeline after the push and the acks): the first ARGV[6] hosts of the node's
  ready set that are due, and, short of those, hosts overdue by ARGV[7] ms in the
  ready sets of the other nodes, most overdue first (work stealing: their busy
  owners left them waiting). A stolen host stays with its owner: the ack re-arms it
  there, and the gate is the same for both. Host keys are named here from the
  crawl's key prefix (ARGV[8]); every key of a crawl shares its hash tag, so the
  script stays in one Redis Cluster slot.

  A host leased to its in-flight limit is parked in its ready set (its ack re-arms
  it, or takes it out if its queue is empty by then), so it is not read again
  here; its queue is not looked at until then.

  KEYS[1] epoch   KEYS[2] totals   KEYS[3] node's ready (zset)   KEYS[4] node's leases
  KEYS[5] node's push log   KEYS[6 ..] ready sets of the nodes it may steal from
  ARGV[1] epoch   ARGV[2] now (ms)   ARGV[3] default delay (ms)   ARGV[4] max in flight
  ARGV[5] park (ms): how far to push back a host at its in-flight limit (an ack
  re-arms it sooner)   ARGV[6] want: how many requests at most
  ARGV[7] steal after (ms)   ARGV[8] key prefix of the crawl
  ARGV[9] id of the push batch sent before this lease ('' if none)
  Returns {0, next due (ms; -1 if none, or if a request was leased), then per
  lease: lease id, host, payload, 1 if stolen else 0} or, refused (see scripts.py),
  {-1} when the epoch is stale, {-3} when the push batch before it was not applied
  (its links would be leased before they are stored).
]]
-- luacheck: globals KEYS ARGV redis unpack
local strings = redis.call('MGET', KEYS[1], KEYS[5])
if strings[1] ~= ARGV[1] then return {-1} end
if ARGV[9] ~= '' then
  local logged = strings[2]
  if not logged or string.sub(logged, 1, #ARGV[9] + 1) ~= ARGV[9] .. '|' then return {-3} end
end
local function int(x) return string.format('%d', x) end
local now, delay, max_inflight, park =
  tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local want, steal_after, prefix = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local out = {0, -1}

-- candidates: host -> the ready set it is in
local hosts, ready_of = {}, {}
local head = redis.call('ZRANGE', KEYS[3], '0', int(want - 1), 'WITHSCORES')
for j = 1, #head, 2 do
  if tonumber(head[j + 1]) <= now then
    hosts[#hosts + 1], ready_of[head[j]] = head[j], KEYS[3]
  end
end
if #hosts < want and #KEYS > 5 then
  local overdue = {}
  for k = 6, #KEYS do
    local found = redis.call('ZRANGEBYSCORE', KEYS[k], '-inf', int(now - steal_after),
                             'WITHSCORES', 'LIMIT', '0', int(want))
    for j = 1, #found, 2 do
      overdue[#overdue + 1] = {tonumber(found[j + 1]), found[j], KEYS[k]}
    end
  end
  table.sort(overdue, function(a, b) return a[1] < b[1] end)
  for _, candidate in ipairs(overdue) do
    if #hosts >= want then break end
    if not ready_of[candidate[2]] then
      hosts[#hosts + 1], ready_of[candidate[2]] = candidate[2], candidate[3]
    end
  end
end
if #hosts == 0 then
  if head[2] then out[2] = tonumber(head[2]) end
  return out
end

local taken = {}
for _, host in ipairs(hosts) do
  local queue, state, ready = prefix .. ':q:' .. host, prefix .. ':host:' .. host, ready_of[host]
  local s = redis.call('HMGET', state, 'n', 't', 'd')
  local n, t = tonumber(s[1] or '0'), tonumber(s[2] or '0')
  local gap = math.max(delay, tonumber(s[3] or '0'))
  if t > now then
    redis.call('ZADD', ready, 'XX', s[2], host)
  elseif n >= max_inflight then
    redis.call('ZADD', ready, 'XX', int(now + park), host)
  else
    local payload = redis.call('LPOP', queue)
    if not payload then
      redis.call('ZREM', ready, host)
    else
      n, t = n + 1, now + gap
      redis.call('HSET', state, 'n', int(n), 't', int(t))
      taken[#taken + 1] = {host, ready == KEYS[3] and 0 or 1, payload}
      if n >= max_inflight then
        redis.call('ZADD', ready, 'XX', int(now + park), host)
      elseif redis.call('LLEN', queue) == 0 then
        redis.call('ZREM', ready, host)
      else
        redis.call('ZADD', ready, 'XX', int(t), host)
      end
    end
  end
end
local leased = #taken
if leased == 0 then
  local first = redis.call('ZRANGE', KEYS[3], '0', '0', 'WITHSCORES')
  if first[2] then out[2] = tonumber(first[2]) end
  return out
end
-- unique even if Redis lost its last writes and the counter went back
local seq = redis.call('HINCRBY', KEYS[2], 'seq', int(leased)) - leased
local fields = {}
for j, lease in ipairs(taken) do
  local id = string.format('%d-%d', seq + j, now)
  fields[2 * j - 1], fields[2 * j] = id, lease[1] .. '\n' .. lease[3]
  out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4] = id, lease[1], lease[3], lease[2]
end
for s = 1, #fields, 2000 do  -- unpack() has a stack limit
  redis.call('HSET', KEYS[4], unpack(fields, s, math.min(#fields, s + 1999)))
end
redis.call('HINCRBY', KEYS[2], 'queued', int(-leased))
redis.call('HINCRBY', KEYS[2], 'leased', int(leased))
return out
