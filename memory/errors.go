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
)
