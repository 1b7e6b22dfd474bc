// Package redis keeps agent sessions in Redis: a [Store] is the agentkit.Memory of
// Agent.RunSession for a fleet of replicas that share one Redis, any of which may run a
// session's next turn.
//
//	client := goredis.NewClient(&goredis.Options{Addr: "redis:6379", ContextTimeoutEnabled: true})
//	store, err := redis.New(ctx, client, &redis.Options{Prefix: "myapp:"})
//	if err != nil {
//		return err
//	}
//	agent := agentkit.New(model, &agentkit.Options{Memory: store, …})
//	res, err := agent.RunSession(ctx, sessionID, "上海呢？")
//
// It is a module of its own (github.com/toolcall/toolcall/memory/redis), so that the SDK's
// module does not require github.com/redis/go-redis/v9. The application passes its client
// (a *goredis.Client, a Sentinel failover client or a *goredis.ClusterClient): its
// addresses, TLS, credentials, pool and timeouts are the application's, one pool serves
// the store and the rest of the service, and the application closes it. Set
// ContextTimeoutEnabled, so that a context's deadline bounds each read and write and not
// only the wait for a connection. It needs Redis 6.2 or later (GETDEL, LPOS); the tests run
// Debian's Redis 7.0.
//
// # Key layout (version 1)
//
// Every key begins with Options.Prefix (default "toolcall:"), which must be the store's
// own; a session's keys share the hash tag {s:<session>}, so that in a Redis Cluster they
// live on one node, as the scripts that touch several of them need:
//
//	<prefix>version                  string: the layout version, LayoutVersion (1)
//	<prefix>{s:<session>}:msgs       list: the session's messages, each the JSON of an openai.ChatCompletionMessage
//	<prefix>{s:<session>}:turns      list: the positions in msgs of the user messages (where turns begin)
//	<prefix>{s:<session>}:calls      set: the tool call ids of the session
//	<prefix>{s:<session>}:batches    list: the ids of the latest 64 appended batches
//	<prefix>{s:<session>}:lease      string "<token>:<nonce>", with an expiry: the lease of the run holding the session
//	<prefix>{s:<session>}:fence      counter: the session's last fencing token (INCR)
//	<prefix>{s:<session>}:summary    hash text, folded, fingerprint: memory.Fold's summary
//	<prefix>{s:<session>}:pause      string: the JSON of the session's agentkit.Pause
//	<prefix>claim:<key>              string: a claim of the agentkit.Ledger
//
// New writes the version key when it is missing (SET NX) and refuses a newer version, or a
// value that is not a version, with [ErrLayoutVersion]. Nothing expires but leases, and the
// store deletes only what it wrote: a lease at unlock, a pause when it is taken.
//
// # What a Store guarantees
//
//   - Appends are whole: one Append is one Lua script, which pushes the messages and indexes
//     their turns and call ids atomically; a client killed while it sends one leaves nothing
//     of it (a script runs once the whole command has arrived). go-redis resends a command
//     whose reply a broken connection lost; the script skips a batch it already applied
//     (its random id is among the session's latest 64), so a batch never lands twice.
//   - One run per session (agentkit.SessionLocker): the runs of one process wait in line
//     (memory.Locks), those of other processes for the lease key, set with SET PX by a
//     script that takes the session's next fencing token (INCR) only when no lease is live.
//     The holder renews it every third of Options.LockLease by a script that checks it is
//     still its lease; unlock deletes it the same way. Append's script refuses a batch whose
//     lease is no longer the caller's (expired, taken by another holder, or lost with Redis's
//     data) with an error wrapping agentkit.ErrLeaseLost: a process paused past its lease
//     cannot write into a session another process took, and its RunSession ends with
//     StopMemoryError. An Append of a process that holds no lease while another's is live
//     is refused with agentkit.ErrSessionBusy.
//   - Partial loads (agentkit.RecentLoader): one read-only script reads where the latest
//     turns begin in the turns list and returns only the messages LoadRecent keeps; a run
//     costs the same at turn 1,000 as at turn 20. CallIDUsed is SISMEMBER of the call ids.
//   - Paused runs resume once: Claim is SET NX (agentkit.Ledger), TakePause is GETDEL
//     (agentkit.PauseStore).
//   - A stored message that cannot be read back gives an error wrapping [ErrCorrupt] that
//     names the session and the position, never a panic.
//
// # The limits of a lease on Redis
//
// The lease is as safe as the Redis that holds it. On one Redis it fences every write of the
// store: each Append checks the lease atomically with its write, so a holder that lost its
// lease writes nothing, whatever its clock says. It is not Redlock, and nothing here makes
// it safe across a failover: Redis replicates asynchronously, so a replica promoted after a
// crash may miss the last lease (two runs then hold the session) or the last appends; a
// Redis restarted without persistence forgets every lease and every session, and the runs
// that held one end with ErrLeaseLost. The fencing token (the counter) is there for
// resources outside Redis that check it; the lease's value adds a random nonce, so that a
// counter that starts again after lost data never makes an old holder's lease look current.
//
// # Durability is the Redis configuration's
//
// An acknowledged Append is as durable as the server makes it: with appendonly yes and
// appendfsync always it is on disk when Append returns (the tests restart such a server in
// the middle of a run and lose nothing); with appendfsync everysec a crash may lose the last
// second; with no persistence a restart loses everything. The store never changes the
// server's configuration.
//
// # Search
//
// A Store is a memory.Searcher by loading the session and calling memory.SearchMessages:
// Redis has no full-text search without modules (RediSearch), which this package does not
// require. A search reads the whole session.
//
// # Redis or PostgreSQL
//
// Prefer the PostgreSQL store when sessions are the service's records: transactions that are
// durable by default, a lease that survives a failover of a synchronous replica, full-text
// search in the database, and no second server when the service already runs PostgreSQL.
// Redis fits a fleet that already runs it and accepts its durability as configured.
//
// A Store passes memory/memorytest, the conformance kit of stores, whole.
package redis
