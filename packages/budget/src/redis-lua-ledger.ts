// Lua of RedisBudgetStore's scripts: a scope's ledger marker and its loss.
//
// Each scope's state hash carries `ledger`, a marker written when the ledger was
// made. A hash without it but with anything in it (figures written by settlements
// that arrived after a FLUSHDB, a tombstone), or a scope with leases or unsettled
// entries but no marker, is a lost ledger: for every process, also one started
// after the loss, which never saw the marker. A process that finds the marker it
// saw gone leaves the tombstone `lost` (Redis time in ms), so the loss stays known
// to late processes even when nothing else was written. Only RESET_SCRIPT (a new
// marker, `origin` 'reset') starts a new ledger; it keeps what the hash holds.
// Needs NOW_LUA (`clock()`, `keys(i)`).

export const LEDGER_LUA = `
local function orphaned(i)
  local state, leases, unsettled = keys(i)
  -- HLEN and ZCARD, not EXISTS: the ACL user of docs/budgets-reference.md may run only hash and sorted set commands.
  return redis.call('HLEN', state) > 0 or redis.call('ZCARD', leases) > 0 or redis.call('ZCARD', unsettled) > 0
end
local function tombstone(i)
  redis.call('HSETNX', KEYS[3 * i - 2], 'lost', clock())
end
-- The scope's marker for a caller that knows the marker 'known' ('' when it never
-- saw one), or false when that caller must count scope i's ledger as lost (a loss
-- found is marked for every process). A scope that never had a ledger gets the
-- marker 'fresh'; with fresh nil, none is made and nil is returned. 'current' and
-- 'origin' are the state hash's fields \`ledger\` and \`origin\` as just read.
local function ledgerFrom(i, current, origin, known, fresh)
  if not current then
    if known ~= '' or orphaned(i) then
      tombstone(i)
      return false
    end
    if fresh then redis.call('HSET', KEYS[3 * i - 2], 'ledger', fresh) end
    return fresh
  end
  if known == '' or known == current then return current end
  if origin ~= 'reset' then return false end
  return current
end
local function ledger(i, known, fresh)
  local read = redis.call('HMGET', KEYS[3 * i - 2], 'ledger', 'origin')
  return ledgerFrom(i, read[1], read[2], known, fresh)
end
-- Whether a caller that knows the marker 'known' must count scope i's ledger as
-- lost: ledger() without making a marker.
local function lost(i, known)
  return ledger(i, known, nil) == false
end
`;
