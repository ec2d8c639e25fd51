-- observed: KEYS[1] = record; ARGV = identity, clock ms or '', pad ms, nonce, ms a U written here lasts
-- at least, then what a read of the database just found: present ('1' or '0'), state, token, attempt.
-- Reply {code, now, ...record}: P when the gate shows a predicted claim the read is consistent
-- with (not landed yet, or landed): the caller answers that claim's record, since a duplicate may
-- already have been told about it; U when the gate showed something the database contradicts
-- (now U); N or V when the read found nothing but the gate holds a record (V: the gate's record
-- was not U and now is): that record may have replaced a prediction whose claim landed after the
-- read, and a duplicate may have been told of that claim before the read began, so the caller
-- reads the database again. The gate holds U from here on, so no claim is predicted before that
-- second read; K otherwise.
local key, identity = KEYS[1], ARGV[1]
local now = clock_now(ARGV[2])
local pad, nonce, until_ms = tonumber(ARGV[3]), ARGV[4], now + tonumber(ARGV[5])
local present, state, token, attempt = ARGV[6] == '1', ARGV[7], ARGV[8], tonumber(ARGV[9])
local r, foreign = load(key, identity)
if foreign then
  redis.call('DEL', key)
  if present then
    unknown(key, identity, now, pad, {}, nonce, until_ms, 0, 0)
    return {'U', now}
  end
  return {'K', now}
end
local here = live(r, now)
if here and r.s == 'I' and r.p then
  if not present then
    return reply('P', now, r, false)
  end
  if state == 'I' and r.t == token then
    return {'K', now}
  end
end
if not present then
  if not here then
    return {'K', now}
  end
  if r.s == 'U' then
    extend_unknown(key, now, pad, r, until_ms)
    return {'N', now}
  end
  unknown(key, identity, now, pad, r, nonce, until_ms, r.n, r.u)
  return {'V', now}
end
if here then
  if r.s == 'U' then
    extend_unknown(key, now, pad, r, until_ms)
    return {'K', now}
  end
  if r.s == state and r.t == token then
    return {'K', now}
  end
end
unknown(key, identity, now, pad, here and r or {}, nonce, until_ms, r.n, r.u)
return {'U', now}
