package memory

import (
	"context"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
)

// Chain returns a strategy that applies strategies in order, each to the view the previous
// one returned; nil strategies are skipped. The first error ends the chain.
//
// A good order folds first (the summarizer then reads the turns whole), clears the old tool
// results of what is left, and ends with a Window as the hard limit, which also covers the
// requests where Fold's summarizer failed (the Window keeps the summary, and drops the
// oldest turns after it). Give the Window a Budget above Fold's Trigger, so
// that it cuts only when a fold failed: each strategy keeps the beginning of the view stable
// between its own cuts, and a window cutting often under the fold would move it. On the
// prompt-cache workload of BENCHMARKS.md this chain costs the least of the strategies:
//
//	memory.Chain(
//		memory.Fold(memory.FoldOptions{Trigger: 60_000, Keep: 4, Summarizer: s}),
//		memory.ClearToolResults(2),
//		memory.Window(memory.WindowOptions{Budget: 100_000}),
//	)
func Chain(strategies ...agentkit.ContextStrategy) agentkit.ContextStrategy {
	list := slices.DeleteFunc(slices.Clone(strategies), func(s agentkit.ContextStrategy) bool { return s == nil })
	return agentkit.ContextStrategyFunc(func(ctx context.Context, session string, msgs []openai.ChatCompletionMessage) ([]openai.ChatCompletionMessage, error) {
		for _, s := range list {
			var err error
			if msgs, err = s.Apply(ctx, session, msgs); err != nil {
				return nil, err
			}
		}
		return clip3(msgs), nil
	})
}
