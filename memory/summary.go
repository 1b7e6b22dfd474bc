package memory

import "context"

// Summary is the state of [Fold] for one session: the summary of the messages folded so far.
type Summary struct {
	// Text is the summary, as the Summarizer wrote it.
	Text string
	// Folded is the number of messages after the first user message that the summary
	// covers.
	Folded int
	// Fingerprint identifies the first user message and the last folded one, so that a
	// summary is only reused for the history it was made from. Stores keep it as it is.
	Fingerprint uint64
}

// SummaryStore is an optional interface of a store: given one in FoldOptions.Store, Fold
// saves every new summary there and reads it back when its in-memory cache does not have the
// session (after a restart), instead of folding the whole history again. InMemory and
// memory/sqlite's Store implement it.
type SummaryStore interface {
	// LoadSummary returns the session's summary; the zero Summary when there is none.
	LoadSummary(ctx context.Context, session string) (Summary, error)
	// SaveSummary replaces the session's summary.
	SaveSummary(ctx context.Context, session string, s Summary) error
}
