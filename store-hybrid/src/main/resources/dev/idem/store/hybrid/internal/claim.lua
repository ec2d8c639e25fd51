-- claim: KEYS[1] = record; ARGV = identity, fingerprint, token, lease ms, ttl ms, clock ms or '',
-- margin ms, nonce, pending ms, pad ms. Reply (see reply()) with action:
--   A  answer from the gate: a completed record (any fingerprint), or a live lease of this request
--   R  a completed record whose outcome the gate does not keep: read it from the database
--   F  a predicted lease of another request: check the database before answering
--   P  predicted (only when the gate has no record of the key): the gate wrote this claim's own
--      IN_PROGRESS record; the database decides now
--   D  the gate cannot tell: ask the database (counted in n, so nobody predicts meanwhile)
--   X  as D, and the record there was not this key's gate record (foreign): it is gone
local key, identity, fp, token = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local lease, ttl = tonumber(ARGV[4]), tonumber(ARGV[5])
local now = clock_now(ARGV[6])
local margin, nonce, pending_ms, pad = tonumber(ARGV[7]), ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
local r, foreign = load(key, identity)
if foreign then
  redis.call('DEL', key)
end
local pending = r.n > 0 and r.u > now

local function to_database(action)
  local n = (pending and r.n or 0) + 1
  local u = math.max(pending and r.u or 0, now + pending_ms)
  redis.call('HSET', key, 'z', 'g1', 'n', num(n), 'u', num(u))
  local left = redis.call('PTTL', key)
  if left < 0 or left < u - now + pad then
    redis.call('PEXPIRE', key, num(u - now + pad))
  end
  return reply(action or 'D', now, r, false)
end

local function predict(attempt, created)
  local l = now + lease
  local rec = {s = 'I', f = fp, t = token, a = attempt, k = created, l = l, e = math.max(now + ttl, l),
    p = '1', g = nonce}
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
return predict(1, now)
