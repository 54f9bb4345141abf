// Lua of RedisBudgetStore's scripts: leases that expire, calls counted at their
// worst case, and the pruning that keeps a scope's state bounded.
//
// A call counted at its worst case adds to the figures `spent`, `unsettled` and
// `unsettledCalls` of the state hash, and keeps an entry `u:<lease>` (its amount)
// with its lease id in the scope's `unsettled` sorted set (scored by Redis time in
// ms), so a late settlement can replace the worst case by the cost. Entries older
// than the retention are pruned, at most PRUNE_BATCH per scope by each script that
// touches the scope; the figures keep their amount and call. The state hash's
// \`unsettledFrom\` (Redis ms, written only beside the ledger marker) is a time no
// entry is older than: while the retention's cutoff is before it, nothing is due
// and the set is not read. Every entry is scored by Redis's clock when counted, so
// an entry counted later, by any process or version, is never older; after Redis's
// clock moves back, entries counted then are pruned late (kept longer), never early.
// Needs NOW_LUA (`clock()`, `keys(i)`).
import { PRUNE_BATCH } from './retention.js';

export const UNSETTLED_LUA = `
local function countUnsettled(i, lease, amount)
  local state, _, unsettled = keys(i)
  redis.call('HSET', state, 'u:' .. lease, amount)
  redis.call('HINCRBY', state, 'spent', amount)
  redis.call('HINCRBY', state, 'unsettled', amount)
  redis.call('HINCRBY', state, 'unsettledCalls', 1)
  redis.call('ZADD', unsettled, clock(), lease)
end
-- Takes back a lease's entry (its settlement replaces it): its amount, or false.
local function uncount(i, lease)
  local state, _, unsettled = keys(i)
  local worst = redis.call('HGET', state, 'u:' .. lease)
  if worst then
    redis.call('HINCRBY', state, 'spent', -tonumber(worst))
    redis.call('HINCRBY', state, 'unsettled', -tonumber(worst))
    redis.call('HINCRBY', state, 'unsettledCalls', -1)
    redis.call('HDEL', state, 'u:' .. lease)
    redis.call('ZREM', unsettled, lease)
  end
  return worst
end
-- Expired leases become spend at their worst case, counted as unsettled; their slot is freed.
-- Returns how many expired; 0 without reading when the caller counted the scope's leases and found none.
local function purge(i, leaseCount)
  if leaseCount == 0 then return 0 end
  local state, leases = keys(i)
  local now = clock()
  local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  for _, lease in ipairs(expired) do
    local held = redis.call('HGET', state, 'r:' .. lease)
    if held then
      redis.call('HINCRBY', state, 'reserved', -tonumber(held))
      redis.call('HDEL', state, 'r:' .. lease)
      countUnsettled(i, lease, held)
    end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', leases, '-inf', now) end
  return #expired
end
-- 'from': the scope's \`unsettledFrom\` as read (false: unknown); 'marked': whether the
-- hash has its ledger marker, the only hash the new \`unsettledFrom\` is written to
-- (any other field would make a scope without a ledger look like a lost one).
local function prune(i, retention, from, marked)
  local now = clock()
  local cutoff = now - retention
  if from and cutoff < tonumber(from) then return end
  local state, _, unsettled = keys(i)
  local old = redis.call('ZRANGEBYSCORE', unsettled, '-inf', cutoff, 'LIMIT', 0, ${PRUNE_BATCH})
  if #old > 0 then
    local fields = {}
    for n, lease in ipairs(old) do fields[n] = 'u:' .. lease end
    redis.call('HDEL', state, unpack(fields))
    redis.call('ZREM', unsettled, unpack(old))
  end
  if marked then
    local first = redis.call('ZRANGE', unsettled, 0, 0, 'WITHSCORES')
    redis.call('HSET', state, 'unsettledFrom', first[2] or now)
  end
end
local function counters(i)
  local state, leases = keys(i)
  local values = redis.call('HMGET', state, 'spent', 'reserved', 'unsettled', 'unsettledCalls')
  return {tonumber(values[1] or '0'), tonumber(values[2] or '0'), redis.call('ZCARD', leases),
    tonumber(values[3] or '0'), tonumber(values[4] or '0')}
end
`;
