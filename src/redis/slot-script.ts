import { createHash } from 'node:crypto';

/**
 * The one Lua script of the Redis rate limiter. It touches one Redis key (KEYS[1], the state of one API key), so it
 * runs on Redis Cluster, and reads Redis's clock (`TIME`) only, so client clocks never matter.
 *
 * The state (JSON under the key, which expires) holds: `ls`, the start of the latest grant (in the future for a grant
 * that waits for its time); `ab`, the latest time by which an ended request had reached the service; `fl`, the granted
 * requests not yet released, each with its start `s` and the `ls` before it `p` (to undo an unused grant); `q`, the
 * waiters in arrival order, each with the time `d` after which it is presumed gone; `lt`, the usual answer time.
 *
 * ARGV: op (`acquire` | `start` | `sent` | `release` | `cancel`), ticket, interval, margin, waitForAnswer (`1` | `0`),
 * answerWaitLimit, grace (how long a waiter may be late for its wake-up), keep (how long idle state is kept), and for
 * `acquire`: the priority's rank (0 `high`, 1 `normal`, 2 `low`; `1` when absent), how many milliseconds the caller
 * may still wait (`-1`: no limit), and the caller's process id with how many calls of the key wait in that process
 * (high, normal, low: they are not in `q` until their turn there; kept under `pw` until the waiter's lease passes, so
 * `status` counts the waiters of every process).
 *
 * Waiters are granted by priority, first in first out within one (each waiter has its rank `pr`): after 9 grants in a
 * row made while a less urgent waiter waited (`pc` counts them), the next goes to the oldest less urgent waiter, as
 * src/throttle/priority-queue.ts does in one process.
 *
 * `acquire` answers `{1, µs}` for a grant: the request may start that many microseconds from now (a grant is fixed in
 * advance, so the waiter sleeps and does not ask again), `{0, µs}`: ask again in that many microseconds, or `{2, µs}`:
 * the caller's start, if no waiter ahead of it left, would come later than it may wait (that many microseconds from
 * now); it is no longer in line. A `{0, µs}` answer also carries the caller's expected start (µs from now) and how
 * many waiters are granted before it. `status` answers the waiters per rank (in `q` and in every process), the
 * key's next start (µs from now), and the waiters per rank in `q` alone; it writes nothing. `start`
 * answers `{1, 0}` when a late grant may still be used (its start moved to now), `{0, 0}` when it must be asked
 * again: taken over while it came late, the waiter goes back to the head of the line (with its pass-over grant, if
 * that is how it had it). The other ops answer `{1, 0}`.
 */
export const SLOT_SCRIPT = `
local key, op, id = KEYS[1], ARGV[1], ARGV[2]
local interval, margin, awl = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[6])
local wfa = ARGV[5] == '1'
local grace, keep = tonumber(ARGV[7]), tonumber(ARGV[8])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local raw = redis.call('GET', key)
local st = {}
if raw then st = cjson.decode(raw) end
local fl, q = st.fl or {}, {}
-- A recorded start is exact to within margin (later sends are reported), and its request reached the service by
-- start + cap at the latest: past that it counts as arrived, which bounds a holder that died or never answers.
local cap = margin + awl
for fid, f in pairs(fl) do
  if f.s + cap <= now then
    st.ab = math.max(st.ab or 0, f.s + cap)
    fl[fid] = nil
  end
end
local pos
for _, w in ipairs(st.q or {}) do
  if w.d > now then
    q[#q + 1] = w
    if w.id == id then pos = #q end
  end
end
-- The order of the grants if no one arrives or leaves: indexes into q. pc1 is the pass-over count after the first.
local function replay()
  local lanes, at, order, pc, pc1, over1 = { {}, {}, {} }, { 1, 1, 1 }, {}, st.pc or 0, 0, false
  for i, w in ipairs(q) do
    local lane = lanes[(w.pr or 1) + 1]
    lane[#lane + 1] = i
  end
  for k = 1, #q do
    local top
    for r = 1, 3 do
      if top == nil and lanes[r][at[r]] then top = r end
    end
    local below, belowR
    for r = top + 1, 3 do
      local i = lanes[r][at[r]]
      if i and (below == nil or i < below) then below, belowR = i, r end
    end
    local r = top
    if below == nil then pc = 0
    elseif pc >= 9 then pc, r = 0, belowR
    else pc = pc + 1 end
    order[k] = lanes[r][at[r]]
    at[r] = at[r] + 1
    if k == 1 then pc1, over1 = pc, r ~= top end
  end
  return order, pc1, over1
end

local pw = {}
for pid, c in pairs(st.pw or {}) do
  if c.d > now then pw[pid] = c end
end

local function save(reply)
  local horizon = math.max(now, st.ls or 0)
  for _, f in pairs(fl) do horizon = math.max(horizon, f.s + cap) end
  for _, w in ipairs(q) do horizon = math.max(horizon, w.d) end
  st.fl, st.q, st.pw = fl, q, pw
  redis.call('SET', key, cjson.encode(st), 'PX', math.ceil(horizon - now + keep))
  return reply
end

local function micros(ms) return math.max(0, math.ceil(ms * 1000)) end

if op == 'acquire' then
  local busy = wfa and next(fl) ~= nil
  local first = now
  if st.ls then first = math.max(first, st.ls + interval + margin) end
  if wfa and st.ab then first = math.max(first, st.ab + interval + 1) end
  -- Starts only, a grant is made at most lookahead before its time: a late start reported by then still moves it.
  local lookahead = math.max(50, 2 * margin)
  if not pos then
    q[#q + 1] = { id = id, d = 0, pr = tonumber(ARGV[9]) or 1 }
    pos = #q
  end
  local order, pc1, over1 = replay()
  local rank
  for k, i in ipairs(order) do
    if i == pos then rank = k end
  end
  if rank == 1 and not busy and (wfa or first - now <= lookahead) then
    table.remove(q, pos)
    st.pc = pc1
    if ARGV[11] then
      pw[ARGV[11]] = { h = tonumber(ARGV[12]) or 0, n = tonumber(ARGV[13]) or 0, l = tonumber(ARGV[14]) or 0, d = first + grace }
    end
    fl[id] = { s = first, p = st.ls, pr = tonumber(ARGV[9]) or 1, po = over1 or nil }
    st.ls = first
    return save({ 1, micros(first - now) })
  end
  -- Its start if no waiter ahead of it leaves: beyond what the caller may wait, it leaves the line at once.
  local maxWait = tonumber(ARGV[10]) or -1
  -- Other processes' waiters not yet in q count too when at least as urgent (they are taken to have come first).
  local mine, others = tonumber(ARGV[9]) or 1, 0
  for pid, c in pairs(pw) do
    if pid ~= ARGV[11] then
      others = others + c.h
      if mine >= 1 then others = others + c.n end
      if mine >= 2 then others = others + c.l end
    end
  end
  local expected = first + (rank - 1 + others) * (interval + margin)
  if maxWait >= 0 and expected > now + maxWait then
    table.remove(q, pos)
    return save({ 2, micros(expected - now) })
  end
  -- From here pos is the place in the order of grants, qi the place in q.
  local qi = pos
  pos = rank
  local lt = st.lt or 0
  local holder
  for _, f in pairs(fl) do
    if holder == nil or f.s > holder.s then holder = f end
  end
  -- A grant made within interval of the answer it waited for loses nothing (the start is interval after the answer
  -- anyway), so a waiter checks back a little after the answer is due, then at doubling delays, never in a loop.
  local check = math.max(1.5 * lt + 2, interval / 2)
  local wake
  if not wfa then
    -- Just before its turn: each waiter ahead takes one interval + margin.
    wake = first + (pos - 1) * (interval + margin) - lookahead / 2
  elseif pos == 1 then
    local step = check
    while holder.s + step <= now do step = step * 2 end
    wake = math.min(holder.s + step, holder.s + cap)
  else
    -- Behind others: just after the answer of the waiter before, at the start it can expect.
    local period = math.max(interval + margin, lt + interval + 1)
    if holder ~= nil then first = math.max(first, holder.s + period) end
    wake = first + (pos - 2) * period + check
  end
  -- A caller with a deadline asks again within half the time it has left, however far its checks have backed off (a
  -- key held long backs them off to twice the hold): the key may be free by then, and the ask has the other half to
  -- come back on a busy machine. At halving delays, until less than lookahead is left.
  if maxWait >= lookahead and wake > now + maxWait / 2 then wake = now + maxWait / 2 end
  wake = math.max(wake, now + 1)
  q[qi].d = wake + grace
  if ARGV[11] then
    pw[ARGV[11]] = { h = tonumber(ARGV[12]) or 0, n = tonumber(ARGV[13]) or 0, l = tonumber(ARGV[14]) or 0, d = wake + grace }
  end
  return save({ 0, micros(wake - now), micros(expected - now), rank - 1 })
elseif op == 'status' then
  if not raw then return { 0, 0, 0, 0 } end
  local c, inq = { 0, 0, 0 }, { 0, 0, 0 }
  for _, w in ipairs(q) do
    local r = (w.pr or 1) + 1
    c[r], inq[r] = c[r] + 1, inq[r] + 1
  end
  for _, n in pairs(pw) do c[1], c[2], c[3] = c[1] + n.h, c[2] + n.n, c[3] + n.l end
  local first = now
  if st.ls then first = math.max(first, st.ls + interval + margin) end
  return { c[1], c[2], c[3], micros(first - now), inq[1], inq[2], inq[3] }
elseif op == 'start' then
  -- A grant handed over late: it starts now if it is still the latest grant and was not counted as arrived;
  -- otherwise it is dropped, and the caller asks again.
  local f = fl[id]
  if f and st.ls == f.s then
    if now > f.s then f.s = now end
    st.ls = f.s
    return save({ 1, 0 })
  end
  if f and f.pr then
    -- Its grant was taken over while it came late (a busy or descheduled process): it asks again at the head of the
    -- line, and a grant it had by the pass-over rule stays its own (the next grant goes to it), so being late never
    -- sends a waiter to the back or restarts its count of grants passed over.
    table.insert(q, 1, { id = id, d = now + grace, pr = f.pr })
    if f.po then st.pc = 9 end
  end
  fl[id] = nil
  return save({ 0, 0 })
elseif op == 'sent' then
  local f = fl[id]
  if f and now > f.s then f.s = now end
  if f and now > (st.ls or 0) then st.ls = now end
  return save({ 1, 0 })
elseif op == 'release' then
  local f = fl[id]
  if f then
    if f.s <= now then
      local took = math.min(now - f.s, cap)
      st.ab = math.max(st.ab or 0, math.min(now, f.s + cap))
      st.lt = (st.lt or took) * 0.75 + took * 0.25
    end
    fl[id] = nil
  end
  return save({ 1, 0 })
elseif op == 'cancel' then
  if pos then table.remove(q, pos) end
  local f = fl[id]
  if f then
    -- An unused grant: give its time back unless a later grant was already made after it.
    if st.ls == f.s then st.ls = f.p end
    fl[id] = nil
  end
  return save({ 1, 0 })
end
return redis.error_reply('invoicing-service-sdk: unknown op ' .. tostring(op))
`;

/** The SHA-1 digest Redis names the script by (`EVALSHA`). */
export const SLOT_SCRIPT_SHA = createHash('sha1').update(SLOT_SCRIPT).digest('hex');
