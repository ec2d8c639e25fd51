-- complete: KEYS[1] = record; ARGV = token (decimal text), outcome, ttl ms, clock ms or '', '1' when the
-- caller waits for replicas after the script. Reply: 1 or 0.
local key = KEYS[1]
local token, ttl = ARGV[1], tonumber(ARGV[3])
local now = clock_now(ARGV[4])
local s, holder, expires_at, bad = fenced_fields(key)
if bad then
  return bad
end
if not s then
  return 0
end
if expires_at <= now or holder ~= token then
  return 0
end
if s == 'C' then
  -- A repeat (the caller's retry after a failed wait or a lost reply) writes nothing; when a WAIT
  -- follows, writing the record's expiry again (the same instant) makes it cover the completion.
  if ARGV[5] == '1' then
    expire_at(key, expires_at, now)
  end
  return 1
end
if s ~= 'I' then
  return 0
end
local expires = now + ttl
redis.call('HSET', key, 's', 'C', 'o', ARGV[2], 'e', expires)
redis.call('HDEL', key, 'l', 'c', 'j')
expire_at(key, expires, now)
return 1
