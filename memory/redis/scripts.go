package redis

import goredis "github.com/redis/go-redis/v9"

// The Lua scripts of the store. A script runs atomically on the server, and only once the
// whole command has arrived: a client killed while sending one changes nothing.

// appendScript appends a batch under its fence.
//
// KEYS: messages, turns, call ids, lease, recent batch ids.
// ARGV: the caller's lease value ("" when it holds no lease of the session), the batch id,
// the number of messages n, the number of user messages u, then the n messages, the u
// offsets of the user messages in the batch, and the batch's tool call ids.
//
// A batch whose id is among the latest 64 applied is not applied again: go-redis resends a
// command whose reply it lost (a connection closed by a restart), which must not append the
// batch twice.
var appendScript = goredis.NewScript(`
local lease = redis.call('GET', KEYS[4])
if ARGV[1] ~= '' then
  if lease ~= ARGV[1] then return redis.error_reply('LEASELOST the lease expired or another holder took it') end
elseif lease then
  return redis.error_reply('LEASEBUSY ' .. redis.call('PTTL', KEYS[4]))
end
if redis.call('LPOS', KEYS[5], ARGV[2]) then return 0 end
local n, u = tonumber(ARGV[3]), tonumber(ARGV[4])
local base = redis.call('LLEN', KEYS[1])
for i = 5, 4 + n, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, 4 + n)))
end
for i = 5 + n, 4 + n + u do
  redis.call('RPUSH', KEYS[2], base + tonumber(ARGV[i]))
end
for i = 5 + n + u, #ARGV, 1000 do
  redis.call('SADD', KEYS[3], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('LPUSH', KEYS[5], ARGV[2])
redis.call('LTRIM', KEYS[5], 0, 63)
return 1
`)

// recentScript reads the session's messages through its first user message and from the
// start of its latest ARGV[1] turns, or all of them when there is nothing to leave out
// (fewer than ARGV[1]+2 turns): how many it left out, how many messages precede the gap,
// the messages. KEYS: messages, turns.
var recentScript = goredis.NewScript(`
local recent = tonumber(ARGV[1])
local n = redis.call('LLEN', KEYS[2])
if n >= recent + 2 then
  local first = tonumber(redis.call('LINDEX', KEYS[2], 0))
  local from = tonumber(redis.call('LINDEX', KEYS[2], n - recent))
  if from > first + 1 then
    local out = redis.call('LRANGE', KEYS[1], 0, first)
    local tail = redis.call('LRANGE', KEYS[1], from, -1)
    for i = 1, #tail do out[#out + 1] = tail[i] end
    return {from - first - 1, first + 1, out}
  end
end
return {0, 0, redis.call('LRANGE', KEYS[1], 0, -1)}
`)

// lockScript takes a free lease with the next fencing token, or returns 0 and the
// milliseconds the holder's lease has left. KEYS: lease, fencing counter. ARGV: the lease's
// nonce, its duration in milliseconds.
var lockScript = goredis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return {0, redis.call('PTTL', KEYS[1])} end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token .. ':' .. ARGV[1], 'PX', ARGV[2])
return {token, 0}
`)

// renewScript extends the lease whose value is ARGV[1] by ARGV[2] milliseconds; 0 when the
// lease is no longer that one. KEYS: lease.
var renewScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`)

// releaseScript deletes the lease whose value is ARGV[1], and no other. KEYS: lease.
var releaseScript = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)
