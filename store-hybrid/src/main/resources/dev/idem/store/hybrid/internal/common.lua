-- Prepended to every gate script (see GateScript): the clock, the record's layout, reading,
-- writing and replying. A gate record is a hash:
--   z  format 'g1'            i  digest of the key's identity (a copied hash is not ours)
--   s  I | C | R | U          g  nonce of the last write (compare-and-set by the Java side)
--   f  fingerprint            t  token (decimal text)      a  attempt     k  created, ms
--   l  lease deadline, ms (I) e  expiry, ms                o  outcome (C) x  '1': C whose outcome is not kept
--   p  '1': an I written before the database decided (a prediction)
--   n, u  claims sent to the database without a prediction, and until when they count
-- State U means "the gate does not know": every claim goes to the database, none is predicted.
-- All instants are on the gate's clock: Redis TIME, or the caller's test clock.

local function clock_now(arg)
  if arg and arg ~= '' then
    return tonumber(arg)
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function num(x)
  return string.format('%.0f', x)
end

local FIELDS = {'z', 'i', 's', 'f', 't', 'a', 'k', 'l', 'e', 'o', 'x', 'p', 'g', 'n', 'u'}

-- The record at key (an empty table if none) and whether it is foreign: another type, another
-- format, another key's identity, or fields missing. A foreign record is never answered from.
local function load(key, identity)
  local kind = redis.call('TYPE', key)['ok']
  if kind == 'none' then
    return {n = 0, u = 0}, false
  end
  if kind ~= 'hash' then
    return {n = 0, u = 0}, true
  end
  local v = redis.call('HMGET', key, unpack(FIELDS))
  local r = {}
  for idx, name in ipairs(FIELDS) do
    r[name] = v[idx]
  end
  r.a, r.k, r.l, r.e = tonumber(r.a), tonumber(r.k), tonumber(r.l), tonumber(r.e)
  r.n, r.u = tonumber(r.n) or 0, tonumber(r.u) or 0
  if r.z ~= 'g1' or (r.i and r.i ~= identity) then
    return {n = 0, u = 0}, true
  end
  if r.s then
    local ok = r.i == identity and r.e ~= nil and r.g
      and (r.s == 'U' or (r.f and r.t and r.a and r.k and (r.s ~= 'I' or r.l) and (r.s ~= 'C' or r.o or r.x)))
      and (r.s == 'I' or r.s == 'C' or r.s == 'R' or r.s == 'U')
    if not ok then
      return {n = 0, u = 0}, true
    end
  end
  return r, false
end

-- Whether the record exists and has not expired. A hash holding only the pending-claim counters
-- (n/u) has no state: HMGET gives false, not nil, for a missing field.
local function live(r, now)
  return r.s and r.e > now or false
end

-- Replaces whatever is at key by rec (a table with s, e, g and the fields of its state),
-- keeping the pending-claim counters n/u while they count, and sets Redis' own expiry
-- (padded: the scripts judge expiry themselves, Redis only collects the garbage).
local function store(key, identity, now, pad, rec, n, u)
  redis.call('DEL', key)
  local args = {'z', 'g1', 'i', identity, 's', rec.s, 'e', num(rec.e), 'g', rec.g}
  for _, name in ipairs({'f', 't', 'o', 'x', 'p'}) do
    if rec[name] then
      args[#args + 1] = name
      args[#args + 1] = rec[name]
    end
  end
  for _, name in ipairs({'a', 'k', 'l'}) do
    if rec[name] then
      args[#args + 1] = name
      args[#args + 1] = num(rec[name])
    end
  end
  local last = rec.e
  if n > 0 and u > now then
    args[#args + 1] = 'n'
    args[#args + 1] = num(n)
    args[#args + 1] = 'u'
    args[#args + 1] = num(u)
    last = math.max(last, u)
  end
  redis.call('HSET', key, unpack(args))
  redis.call('PEXPIRE', key, num(math.max(last - now, 1) + pad))
end

-- Writes "the gate does not know" until at least `until`, keeping the counters.
local function unknown(key, identity, now, pad, r, nonce, until_ms, n, u)
  local e = until_ms
  if r.s and r.e and r.e > e then
    e = r.e
  end
  store(key, identity, now, pad, {s = 'U', e = e, g = nonce}, n, u)
end

-- Makes a U record last until at least until_ms; its nonce stays, so a caller's pending
-- compare-and-set on it still holds.
local function extend_unknown(key, now, pad, r, until_ms)
  if r.e < until_ms then
    redis.call('HSET', key, 'e', num(until_ms))
    local last = until_ms
    if r.n > 0 and r.u > last then
      last = r.u
    end
    redis.call('PEXPIRE', key, num(math.max(last - now, 1) + pad))
  end
end

-- {action, now, nonce, state, fingerprint, token, attempt, created, lease, expires, outcome, kept}
local function reply(action, now, r, with_outcome)
  if not r.s then
    return {action, now, r.g or false}
  end
  return {action, now, r.g or false, r.s, r.f or false, r.t or false, r.a or false, r.k or false, r.l or false,
    r.e, (with_outcome and r.o) or false, r.x or false}
end
