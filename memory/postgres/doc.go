// Package postgres keeps agent sessions in PostgreSQL: a [Store] is the agentkit.Memory of
// Agent.RunSession for a fleet — a service on several replicas, where a user's next message
// may reach any of them, and where one run per session at a time must hold across
// processes.
//
//	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
//	if err != nil {
//		return err
//	}
//	defer pool.Close()
//	store, err := postgres.Open(ctx, pool, nil) // creates or upgrades the schema
//	if err != nil {
//		return err
//	}
//	agent := agentkit.New(client, &agentkit.Options{Memory: store, Ledger: store, …})
//	res, err := agent.RunSession(ctx, sessionID, "上海呢？")
//
// It is a module of its own (github.com/toolcall/toolcall/memory/postgres), so that the
// SDK's module does not require pgx: only programs that import this package build it.
//
// # The reference fleet deployment
//
// One PostgreSQL database holds everything the replicas share: the sessions' messages, the
// summaries of memory.Fold (memory.SummaryStore), the session leases (agentkit.SessionLocker),
// the ledger of resumed pauses (agentkit.Ledger) and the paused runs (agentkit.PauseStore).
// Give Options.Memory, Options.Ledger and memory.FoldOptions.Store the same Store; no Redis,
// no other coordination service is needed. Each replica opens its own pool and its own
// Store; every Open checks (and, once, migrates) the schema.
//
// Open takes a *pgxpool.Pool rather than a connection string so that the application keeps
// one pool per database, configured its way (size, TLS, tracing, timeouts), shared with its
// own queries. The Store never closes it. Every operation holds a connection for one
// statement or one transaction, never while a run goes on; when the pool has no connection
// free before ctx ends, the error says so and wraps ctx.Err() (a bounded wait, never a hang).
//
// # Schema and migrations
//
// The tables live in Options.Schema ("public" by default; created when missing), all named
// toolcall_…: toolcall_messages (one row per message, primary key (session, seq), the JSON of
// the openai.ChatCompletionMessage as encoding/json wrote it — text, not jsonb, so that
// every byte round-trips, a \u0000 and provider extras included — with its role, the call it
// answers, and its searched text and tsvector), toolcall_sessions (the next sequence number of
// each session), toolcall_call_ids, toolcall_summaries, toolcall_leases, toolcall_claims,
// toolcall_pauses, and toolcall_schema, whose one row is the schema's version ([SchemaVersion],
// now 1).
//
// Open migrates forward: in one transaction, under a transaction-scoped advisory lock (so
// that replicas starting at once migrate once, the others waiting and then finding the
// current version), it applies each migration from the database's version to this package's.
// Migrations only add tables, columns and indexes; none drops, renames or deletes anything. A
// database of a newer version than this package knows is refused with an error wrapping
// [ErrSchemaVersion], and left as it is: upgrade the package on every replica first. The
// role that runs Open needs CREATE on the schema (and on the database, the first time, when
// Options.Schema does not exist yet).
//
// # What a Store guarantees
//
//   - Nothing acknowledged is lost: one Append is one transaction, so a client killed in the
//     middle of one, or a database that stops, leaves whole batches or nothing; Append
//     returns once it committed (with PostgreSQL's durability settings). A transaction whose
//     connection turns out dead before its COMMIT was sent — the server closed the pool's
//     idle connections when it restarted — did not commit, and is tried again on another
//     connection: a run goes on across a restart of the database. A COMMIT whose answer is
//     lost is never tried again (it may have committed); its error says so, and the run ends
//     with StopMemoryError.
//   - Clear errors: a row that cannot be read back (not JSON, no role, a missing sequence
//     number) gives an error wrapping [ErrCorrupt] naming the session and the row, never a
//     panic. Every operation honours ctx: canceled, it fails with an error wrapping
//     ctx.Err(), and writes nothing.
//   - One run per session at a time, across processes (agentkit.SessionLocker): the runs of
//     one Store wait in line in process (memory.Locks), those of other processes through a
//     lease row in toolcall_leases, taken in one statement when free or expired, expiring by
//     the database's clock (never a replica's), renewed every third of Options.LockLease
//     while the run goes on. Leases are fenced: each has a token, one more than the last
//     lease of the session, and Append checks in its own transaction — holding the lease row
//     FOR SHARE until it commits, so that no takeover comes between the check and the commit —
//     that the lease it appends under is still live and still its own. A process that paused
//     or lost the database past its lease, and whose session another process took, gets
//     agentkit.ErrLeaseLost instead of writing; its run ends with StopMemoryError. (An
//     advisory lock alone would not do: it is not fenced, and dies with its connection.)
//     An Append from a Store that holds no lease on the session, while another holder's
//     lease is live, is refused with agentkit.ErrSessionBusy.
//   - A long session costs what a run sends (agentkit.RecentLoader): with a memory.Window of
//     MaxTurns, RunSession reads only the session's first user message and its latest turns —
//     two ranges of the primary key, found through a partial index of the user messages — so
//     a run costs the same at turn 1,000 as at turn 20. The ids of the tool calls left out
//     stay reserved (CallIDUsed, from toolcall_call_ids).
//   - Paused runs resume once (agentkit.Ledger, agentkit.PauseStore): Claim is one INSERT …
//     ON CONFLICT DO NOTHING on a table keyed by the claim, so of any number of resumes of
//     one paused state, in any number of replicas, one runs; TakePause is one DELETE …
//     RETURNING, so of two ResumeSessions one gets the pause.
//   - Nothing folded is lost: a Store is a memory.SummaryStore and a memory.Searcher
//     (memory.RecallTool).
//
// # Search
//
// Search runs in the database, over the session's rows only. Each row keeps its searched
// text — the content and parts, the refusal, the names and arguments of its tool calls, in
// lower case — and a tsvector of it under the 'simple' text search configuration (words,
// lower-cased, not stemmed: the store does not know the conversation's language). A word of
// the query matches a message when the full-text match finds it, or when it is a substring of
// the text: no built-in configuration splits Chinese, Japanese or Thai into words, so "北京"
// is found inside "北京明天的天气怎么样" by the substring, as are parts of words. Matches rank
// by the number of the query's words they contain (plus that count again when they contain
// the whole query, as memory.SearchMessages scores), then by ts_rank, then the most recent
// first. There is no index over the text of all sessions (a GIN index on the tsvector, or
// pg_trgm's, which Debian's postgresql-15 ships): a search reads one session's rows, which
// the primary key finds, and such an index would cost every append without serving it.
//
// A Store passes memory/memorytest, the conformance kit of stores, against a real
// PostgreSQL server that its tests start (internal/pgtest).
package postgres
