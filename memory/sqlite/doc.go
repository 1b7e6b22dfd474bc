// Package sqlite keeps agent sessions in a SQLite database file: a [Store] is the
// agentkit.Memory of Agent.RunSession that outlives the process, and that several processes
// opening the same file share.
//
//	store, err := sqlite.Open("sessions.db", nil)
//	if err != nil {
//		return err
//	}
//	defer store.Close()
//	agent := agentkit.New(client, &agentkit.Options{Memory: store, …})
//	res, err := agent.RunSession(ctx, sessionID, "上海呢？")
//
// It is a package of its own, apart from package memory, because of its dependency: the
// driver, modernc.org/sqlite, is SQLite translated to Go (pure Go, no cgo), a very large
// package that a program using memory's in-memory store, token counting or context
// strategies should not compile and link. Stores with heavy dependencies live apart, one
// store per package.
//
// # What a Store guarantees
//
//   - Nothing done is lost: one Append is one transaction (WAL, BEGIN IMMEDIATE), so a crash
//     leaves whole steps or nothing, and with the default synchronous=FULL every Append is on
//     disk when it returns (Options.RelaxedSync trades a power failure's last appends for
//     speed; it never corrupts the database).
//   - Clear errors: a row that cannot be read back (not JSON, no role, a missing sequence
//     number) gives an error wrapping [ErrCorrupt] that names the session and the row, never
//     a panic. The schema is versioned (PRAGMA user_version, version 5): a file of an older
//     version is upgraded when opened, its stored sessions indexed as new ones are; a file
//     from a newer version of this package is refused with [ErrSchemaVersion].
//   - One run per session at a time (agentkit.SessionLocker): the runs of one process wait
//     in line (memory.Locks), those of other processes through a lease row in the database,
//     renewed while the run goes on, so that it only expires (Options.LockLease) when its
//     process died. A waiter whose context ends gets an error wrapping
//     agentkit.ErrSessionBusy. Leases are fenced: each has a token, one more than the last,
//     and Append checks in its own transaction that the lease it appends under is still live
//     and still its own, so a process that paused past its lease gets agentkit.ErrLeaseLost
//     instead of writing into a session another process took.
//   - Paused runs resume once (agentkit.Ledger, agentkit.PauseStore): Claim is one INSERT
//     into a table keyed by the claim, so of any number of resumes of one paused state, in
//     any number of processes sharing the file, one runs; a paused session's state is kept
//     in a table and TakePause is one DELETE … RETURNING, so of two ResumeSessions one gets it.
//   - A long session costs what a run sends (agentkit.RecentLoader): with a memory.Window
//     of MaxTurns, RunSession reads only the session's first user message and its latest
//     turns, two ranges of the primary key found through an index of where turns begin, so
//     a run costs the same at turn 1,000 as at turn 20. The ids of the tool calls it leaves
//     out stay reserved (CallIDUsed, from an index of the session's call ids). Both indexes
//     are kept by a trigger, so rows written by any writer sharing the file are indexed.
//   - Nothing folded is lost: a Store is a memory.Searcher (memory.RecallTool searches the
//     whole stored session) and a memory.SummaryStore (memory.FoldOptions.Store: a summary
//     is read back after a restart instead of folding the history again).
//
// A Store passes memory/memorytest, the conformance kit of stores.
package sqlite
