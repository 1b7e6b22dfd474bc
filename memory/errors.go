package memory

import "errors"

var (
	// ErrBudgetTooSmall: a strategy's token budget (Window's Budget, Fold's Trigger) is smaller
	// than what it must always keep — the system prompt, the first user message, the latest
	// turns and, for Fold, the summary. The run ends with agentkit.StopContextError rather than
	// sending a request that overflows. Raise the budget, or keep fewer turns (FoldOptions.Keep);
	// bound what one turn can add with tool result truncation (middleware.Truncate) and
	// Options.MaxIterations.
	ErrBudgetTooSmall = errors.New("memory: token budget too small for what must be kept")

	// ErrCorrupt: a stored message could not be read back (not JSON, no role, a missing
	// sequence number). The error names the session and the row.
	ErrCorrupt = errors.New("memory: corrupt stored message")

	// ErrSchemaVersion: the SQLite database was written by a newer version of this package,
	// with a schema this one does not know.
	ErrSchemaVersion = errors.New("memory: unsupported schema version")
)
