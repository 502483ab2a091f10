import { createHash } from 'node:crypto';

/**
 * The Redis journal's script on one document: one hash per document (KEYS[1], `<prefix>{<sha256>}`, so a second key of
 * the document could share its Cluster slot), read and changed atomically on Redis's clock (`TIME`). It applies the
 * rules documented on `Journal`, the same as `src/journal/records.ts`.
 *
 * Fields: the record (`u` base URL, `d` document id, `st` status, `bh` body hash, `body`, `kh` key hash, `a` attempt,
 * `sa` sent at, `fu` in flight until, `at`, `res` result JSON, `err` error JSON), the record an unsent attempt puts
 * back (the same names after `b.`), and the claim (`o` owner, `ou` its lease's end). A record with an unknown outcome
 * never expires; a known one expires `keep` ms after it was recorded; a claim alone expires with its lease.
 *
 * ARGV[1] is the op: `claim` owner leaseMs | `intent` owner attempt u d bh body kh inFlightMs | `outcome` attempt kind
 * json keep | `release` owner | `get`. Every op answers `{ flag, owner, ownerUntil, now, HGETALL }` (flag 1 when the
 * claim was taken, or the op applied); `intent` without the claim answers the error `CLAIM_LOST`.
 */
export const JOURNAL_SCRIPT = `
local key, op = KEYS[1], ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local R = { 'u', 'd', 'st', 'bh', 'body', 'kh', 'a', 'sa', 'fu', 'at', 'res', 'err' }
local function ms(n) return string.format('%.0f', n) end
local function reply(flag)
  local o = redis.call('HGET', key, 'o') or ''
  return { flag, o, tonumber(redis.call('HGET', key, 'ou') or '0'), now, redis.call('HGETALL', key) }
end
local function clearBefore()
  for _, f in ipairs(R) do redis.call('HDEL', key, 'b.' .. f) end
end
local function expireIn(n)
  redis.call('PEXPIRE', key, math.max(1, math.floor(n)))
end
local st = redis.call('HGET', key, 'st')

if op == 'claim' then
  local owner, lease = ARGV[2], tonumber(ARGV[3])
  local o = redis.call('HGET', key, 'o')
  if o and o ~= owner and tonumber(redis.call('HGET', key, 'ou')) > now then return reply(0) end
  redis.call('HSET', key, 'o', owner, 'ou', ms(now + lease))
  local ttl = redis.call('PTTL', key)
  if not st or (ttl >= 0 and ttl < lease) then expireIn(lease) end
  return reply(1)
elseif op == 'intent' then
  local owner = ARGV[2]
  if redis.call('HGET', key, 'o') ~= owner or tonumber(redis.call('HGET', key, 'ou')) <= now then
    return redis.error_reply('CLAIM_LOST the document is not claimed by this owner')
  end
  clearBefore()
  if st and st ~= 'generated' then
    for _, f in ipairs(R) do
      local v = redis.call('HGET', key, f)
      if v then redis.call('HSET', key, 'b.' .. f, v) end
    end
  end
  local fu = now + tonumber(ARGV[9])
  if st == 'sent-maybe' then fu = math.max(fu, tonumber(redis.call('HGET', key, 'fu'))) end
  redis.call('HDEL', key, 'res', 'err', 'kh')
  redis.call('HSET', key, 'u', ARGV[4], 'd', ARGV[5], 'st', 'sent-maybe', 'bh', ARGV[6], 'body', ARGV[7], 'a', ARGV[3],
    'sa', ms(now), 'fu', ms(fu), 'at', ms(now))
  if ARGV[8] ~= '' then redis.call('HSET', key, 'kh', ARGV[8]) end
  redis.call('PERSIST', key)
  return reply(1)
elseif op == 'outcome' then
  local attempt, kind, json, keep = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
  if not st then return reply(0) end
  if kind ~= 'generated' and (st ~= 'sent-maybe' or redis.call('HGET', key, 'a') ~= attempt) then return reply(0) end
  if kind == 'generated' or kind == 'refused' then
    clearBefore()
    redis.call('HDEL', key, 'body', 'res', 'err')
    redis.call('HSET', key, 'st', kind, kind == 'generated' and 'res' or 'err', json, 'at', ms(now))
    expireIn(keep)
    return reply(1)
  end
  -- not-sent: the record before the intent comes back, or the record goes.
  if redis.call('HEXISTS', key, 'b.st') == 1 then
    for _, f in ipairs(R) do
      local v = redis.call('HGET', key, 'b.' .. f)
      if v then redis.call('HSET', key, f, v) else redis.call('HDEL', key, f) end
    end
    clearBefore()
    if redis.call('HGET', key, 'st') == 'sent-maybe' then
      redis.call('PERSIST', key)
    else
      expireIn(keep - (now - tonumber(redis.call('HGET', key, 'at'))))
    end
  else
    for _, f in ipairs(R) do redis.call('HDEL', key, f) end
    local ou = tonumber(redis.call('HGET', key, 'ou') or '0')
    if ou > now then expireIn(ou - now) else redis.call('DEL', key) end
  end
  return reply(1)
elseif op == 'release' then
  if redis.call('HGET', key, 'o') == ARGV[2] then
    redis.call('HDEL', key, 'o', 'ou')
    if not st then redis.call('DEL', key) end
    return reply(1)
  end
  return reply(0)
elseif op == 'get' then
  return reply(1)
end
return redis.error_reply('invoicing-service-sdk: unknown op ' .. tostring(op))
`;

/** The SHA-1 digest Redis names {@link JOURNAL_SCRIPT} by. */
export const JOURNAL_SCRIPT_SHA = createHash('sha1').update(JOURNAL_SCRIPT).digest('hex');

/**
 * The index of documents that may be pending (KEYS[1], one hash: document key -> the attempt that added it). Kept
 * apart from the documents (another Cluster slot), so it is only a hint: an entry is added before the intent and
 * removed after the outcome only while it still names that attempt, and readers check each document's own record.
 * ARGV: `add` member attempt | `remove` member attempt | `scan` cursor count (answers HSCAN's reply).
 */
export const INDEX_SCRIPT = `
local key, op = KEYS[1], ARGV[1]
if op == 'add' then
  redis.call('HSET', key, ARGV[2], ARGV[3])
  return 1
elseif op == 'remove' then
  if redis.call('HGET', key, ARGV[2]) == ARGV[3] then return redis.call('HDEL', key, ARGV[2]) end
  return 0
elseif op == 'scan' then
  return redis.call('HSCAN', key, ARGV[2], 'COUNT', ARGV[3])
end
return redis.error_reply('invoicing-service-sdk: unknown op ' .. tostring(op))
`;

/** The SHA-1 digest Redis names {@link INDEX_SCRIPT} by. */
export const INDEX_SCRIPT_SHA = createHash('sha1').update(INDEX_SCRIPT).digest('hex');
