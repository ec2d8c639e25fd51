-- claim: KEYS[1] = record; ARGV = identity, fingerprint, token, lease ms, ttl ms, clock ms or '',
-- margin ms, nonce, pending ms, pad ms, sent ms or ''. Reply (see reply()) with action:
--   A  answer from the gate: a completed record (any fingerprint), or a live lease of this request
--   R  a completed record whose outcome the gate does not keep: read it from the database
--   F  a predicted lease of another request: check the database before answering
--   P  predicted (only when the gate has no record of the key, or it holds this very claim's
--      prediction: a client's retry after a lost reply): the gate wrote this claim's own
--      IN_PROGRESS record; the database decides now
--   D  the gate cannot tell: ask the database (counted in n, so nobody predicts meanwhile)
--   X  as D, and the record there was not this key's gate record (foreign): it is gone
local key, identity, fp, token = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local lease, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local now = clock_now(ARGV[6])
local margin, nonce, pending_ms, pad = tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
-- The sender's bound: a reading of this clock known to have been reached when the claim was sent
-- (nil if the sender has none yet). A script that runs late (Redis stalled, the request held up on
-- the network) may run after its caller gave up and let the database decide, with a lease that
-- started then: the claim's deadlines are counted from the send, never from the late run.
local sent = ARGV[11] ~= '' and math.min(now, tonumber(ARGV[11])) or nil
local r, foreign = load(key, identity)
if foreign then
  redis.call('DEL', key)
end
local pending = r.n > 0 and r.u > now

local function to_database(action)
  local n = (pending and r.n or 0) + 1
  local u = math.max(pending and r.u or 0, (sent or now) + pending_ms)
  redis.call('HSET', key, 'z', 'g1', 'n', num(n), 'u', num(u))
  local left = redis.call('PTTL', key)
  local keep = math.max(u - now, 1) + pad
  if left < 0 or left < keep then
    redis.call('PEXPIRE', key, num(keep))
  end
  return reply(action or 'D', now, r, false)
end

local function predict()
  -- Without the sender's bound, or once it leaves no lease to answer from, the database decides.
  if not sent or sent + lease - margin <= now then
    return to_database()
  end
  local l = sent + lease
  local rec = {s = 'I', f = fp, t = token, a = 1, k = sent, l = l, e = math.max(sent + ttl, l), p = '1', g = nonce}
  store(key, identity, now, pad, rec, 0, 0)
  return reply('P', now, rec, false)
end

if foreign then
  return to_database('X')
end
if live(r, now) then
  local trusted = now < r.e - margin
  if r.s == 'C' and trusted then
    if r.x then
      return reply('R', now, r, false)
    end
    return reply('A', now, r, true)
  end
  if r.s == 'I' and r.p and r.t == token and r.f == fp then
    -- This claim's own prediction: the client sent the script again after losing its reply (a
    -- cluster client retries a timed-out command). The database has not decided it yet.
    return reply('P', now, r, false)
  end
  if r.s == 'I' and trusted and now < r.l - margin then
    if r.p and r.t == token and r.g == nonce then
      -- This very claim again (same token, same nonce): a client that re-sent the script after its
      -- reply was lost (Lettuce does after a reconnect). Answer as the first run did.
      return reply('P', now, r, false)
    end
    if r.f == fp then
      return reply('A', now, r, false)
    end
    if r.p then
      return reply('F', now, r, false)
    end
    return to_database()
  end
  -- A RELEASED record is not predicted over: its holder may still repeat its release (acknowledged
  -- by the database until the next claim lands), and a journal it kept would be missing from a
  -- prediction. The database decides, counted, and the gate copies its answer.
  return to_database()
end
if pending then
  return to_database()
end
return predict()
