-- release: KEYS[1] = record; ARGV = token (decimal text), clock ms or ''. Reply: 1 or 0.
local key = KEYS[1]
local token = ARGV[1]
local now = clock_now(ARGV[2])
local s, holder, expires_at, bad = fenced_fields(key)
if bad then
  return bad
end
if not s then
  return 0
end
if holder ~= token or expires_at <= now or (s ~= 'I' and s ~= 'R') then
  return 0
end
-- A release retried by its own token after a lost reply is acknowledged again.
if s == 'R' then
  return 1
end
-- The expiry stays as it is: a released record keeps its attempt count and journal until then.
redis.call('HSET', key, 's', 'R')
redis.call('HDEL', key, 'l', 'c')
return 1
