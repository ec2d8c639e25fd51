-- finished: KEYS[1] = record; ARGV = identity, token, clock ms or '', pad ms, nonce, ms a U written here
-- lasts at least, how.
-- The database has just completed (how = C) or released (how = R) the token's record. A release
-- turns the gate's IN_PROGRESS record of that token into RELEASED. A completion makes it U: the
-- outcome the database kept is the first one stored for the token, which need not be the caller's,
-- so the gate learns it from the database at the next claim. Anything unexpected becomes U.
-- Reply: W (written), K (kept) or U.
local key, identity, token = KEYS[1], ARGV[1], ARGV[2]
local now = clock_now(ARGV[3])
local pad, nonce, until_ms, how = tonumber(ARGV[4]), ARGV[5], now + tonumber(ARGV[6]), ARGV[7]
local r, foreign = load(key, identity)
if foreign then
  redis.call('DEL', key)
  unknown(key, identity, now, pad, {}, nonce, until_ms, 0, 0)
  return 'U'
end
local here = live(r, now)
if here and r.t == token and r.s == how then
  return 'K'
end
if how == 'R' and here and r.s == 'I' and r.t == token then
  r.s, r.l, r.p, r.g = 'R', nil, nil, nonce
  store(key, identity, now, pad, r, r.n, r.u)
  return 'W'
end
-- Anything else, U included, becomes U under a new nonce: a claim that read the database before
-- this change must not copy its older answer in afterwards by compare-and-set.
unknown(key, identity, now, pad, here and r or {}, nonce, until_ms, r.n, r.u)
if how == 'C' and here and r.s == 'I' and r.t == token then
  return 'W'
end
return 'U'
