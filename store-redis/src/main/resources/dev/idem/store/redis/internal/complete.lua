-- complete: KEYS[1] = record; ARGV = token (decimal text), outcome, ttl ms, clock ms or ''. Reply: 1 or 0.
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
