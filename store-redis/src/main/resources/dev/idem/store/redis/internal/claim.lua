-- claim: KEYS[1] = record; ARGV = fingerprint, token (decimal text), lease ms, ttl ms, clock ms or '',
-- '1' when the caller waits for replicas after the script (else '' or absent).
-- Reply: {how, now, state, fingerprint, token, attempt, leaseUntil, expiresAt, outcome, createdAt, journal}
-- with how = A (acquired), T (taken over) or E (existing, record unchanged). The fingerprint
-- and the token are nil where they are the caller's own (ARGV), which the caller already holds.
local key = KEYS[1]
local fp, token = ARGV[1], ARGV[2]
local waits = ARGV[6] == '1'

-- A replay first, before the clock is read and before anything else is: a completed record is
-- answered with what a replay reads (no lease, no journal). Its time left is Redis' own TTL of
-- the key, set to the record's expiry when it was written, so the store time is that expiry less
-- the TTL, and the record is live exactly when the TTL is above zero. A record that is not plainly
-- completed and well formed, a test clock, or a caller that waits for replicas (its WAIT must
-- cover the record, see covered_by_wait) takes the full path below, which judges it.
if not waits and (ARGV[5] == nil or ARGV[5] == '') then
  local c = redis.call('HMGET', key, 's', 'f', 't', 'a', 'e', 'o', 'k')
  local expires_c = tonumber(c[5])
  if c[1] == 'C' and c[2] and c[3] and tonumber(c[4]) ~= nil and expires_c ~= nil and c[6] then
    local left = redis.call('PTTL', key)
    if left > 0 then
      local now_c = expires_c - left
      local stored_fp = c[2]
      if stored_fp == fp then
        stored_fp = false
      end
      return {'E', now_c, 'C', stored_fp, c[3], c[4], false, c[5], c[6], c[7] or now_c, false}
    end
  end
end

local lease, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
local now = clock_now(ARGV[5])
local r = redis.call('HMGET', key, 's', 'f', 't', 'a', 'l', 'e', 'o', 'c', 'k', 'j')
local s, expires_at = r[1], tonumber(r[6])
if s and (expires_at == nil or not r[3] or not r[2] or tonumber(r[4]) == nil
    or (s ~= 'I' and s ~= 'C' and s ~= 'R') or (s == 'I' and tonumber(r[5]) == nil)) then
  return redis.error_reply(CORRUPT)
end
local live = s and expires_at > now
-- Records written before the creation time was kept have none: count them from now.
local created = r[9] or now

-- An answer read, not written, that the caller settles on: a replay or a 422 (a completed record, or
-- another request's), or its own claim again. When the caller waits for replicas (WAIT on this
-- connection, behind this script), that wait must cover the record read, which another connection
-- wrote: writing the record's own expiry again (the same instant) makes this connection's
-- replication offset pass the record's last write, so the answer is given only once the replicas
-- have the record, and never from a write that a failover could still lose.
local function covered_by_wait()
  if waits then
    expire_at(key, expires_at, now)
  end
end

local function write(attempt, how, created_at, journal)
  local lease_until = now + lease
  local expires = math.max(now + ttl, lease_until)
  -- DEL first so nothing of an expired or released predecessor (its outcome) survives.
  redis.call('DEL', key)
  redis.call('HSET', key, 's', 'I', 'f', fp, 't', token, 'a', attempt, 'l', lease_until, 'e', expires, 'c', how,
    'k', created_at)
  if journal then
    redis.call('HSET', key, 'j', journal)
  end
  -- Same script as the write: the record never exists without its expiry.
  expire_at(key, expires, now)
  return {how, now, 'I', false, false, attempt, lease_until, expires, false, created_at, journal or false}
end

if not live then
  return write(1, 'A', now, false)
end
if s == 'R' then
  -- The journal belongs to the request it was written for.
  return write(tonumber(r[4]) + 1, 'A', created, r[2] == fp and r[10])
end
if s == 'I' and r[2] == fp then
  if r[3] == token then
    -- Our own claim again: a client retry after a lost reply. Tokens are unique per
    -- claim, so report the original win instead of blocking the caller as a duplicate.
    covered_by_wait()
    return {r[8] or 'A', now, s, false, false, r[4], r[5], r[6], false, created, r[10]}
  end
  if tonumber(r[5]) <= now then
    return write(tonumber(r[4]) + 1, 'T', created, r[10])
  end
end
local stored_fp = r[2]
if stored_fp == fp then
  stored_fp = false
end
if s == 'C' or stored_fp then
  covered_by_wait()
end
return {'E', now, s, stored_fp, r[3], r[4], r[5], r[6], r[7], created, r[10]}
