// Package memorytest is a conformance kit for agentkit.Memory implementations, the way
// testing/slogtest is for slog handlers: a store that passes [Run] keeps what the agent loop
// relies on.
//
//	func TestConformance(t *testing.T) {
//		memorytest.Run(t, func(t *testing.T) agentkit.Memory {
//			return mystore.New(t.TempDir())
//		})
//	}
//
// Run checks that a store keeps the order of messages across appends; keeps every batch
// whole and in one piece, so a tool call is never separated from its results (the history
// loaded after each complete step passes agentkit.ValidateHistory); isolates sessions, also
// under concurrent appends; honours a canceled context (an error wrapping ctx.Err(), and
// nothing appended); returns an empty history for an unknown session; copies what it is
// given and what it returns; round-trips every field of a message; and, when the store is an
// agentkit.SessionLocker, that a held session is never granted twice. A loaded slice is the
// caller's to change as RunSession does: insert at its front, append to it, change any
// message.
//
// When the store is an agentkit.RecentLoader, Run checks that LoadRecent loads the session's
// beginning up to the first user message and at least the latest turns asked for, cut
// between turns; that the count it returns is what it left out; that CallIDUsed knows the
// call ids left out, also while the session grows, and never reports the empty id as used
// (a call sent without an id does not make it used); and that partial loads are safe from
// concurrent goroutines.
//
// When the store is a memory.SummaryStore, Run checks that a summary is read back exactly
// (its 64-bit fingerprint too) and replaced by the next save; when it is a memory.Searcher,
// that words and Chinese substrings find their messages at their stored positions, a tool
// result names its tool, and Limit bounds the matches (the ranking is the store's own: a
// full-text index may rank otherwise than memory.SearchMessages).
//
// When the store is an agentkit.Ledger, Run checks that a key is claimed once, by exactly one
// of many concurrent claimers; when it is an agentkit.PauseStore, that a saved pause loads,
// is replaced by the next save, and is taken once, by exactly one of many concurrent takers
// (the others get agentkit.ErrNoPause), and that the store keeps its own copy.
package memorytest
