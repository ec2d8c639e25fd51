-- find: KEYS[1] = record; ARGV = clock ms or ''. Reply: {now} when absent or expired, else
-- {now, state, fingerprint, token, attempt, leaseUntil, expiresAt, outcome, createdAt, journal}.
local key = KEYS[1]
local now = clock_now(ARGV[1])
local r = redis.call('HMGET', key, 's', 'f', 't', 'a', 'l', 'e', 'o', 'k', 'j')
local s, expires_at = r[1], tonumber(r[6])
if not s then
  return {now}
end
if expires_at == nil then
  return redis.error_reply(CORRUPT)
end
-- Redis drops a key only after its expiry instant; the contract says "at" already counts.
if expires_at <= now then
  return {now}
end
return {now, s, r[2], r[3], r[4], r[5], r[6], r[7], r[8] or now, r[9]}
