package bench

import (
	"strings"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script/measure"
)

// TestCacheable runs the prompt-cache workload (CacheTurns turns, 80 with -short) through
// every way, and checks that every toolcall strategy keeps at least 85% of the prompt tokens
// cacheable and that the chain the docs recommend costs the least of them.
func TestCacheable(t *testing.T) {
	turns := CacheTurns
	if testing.Short() {
		turns = 80
	}
	ctx := measure.Context(t)
	costs := map[string]float64{}
	for _, way := range CacheWays() {
		st, err := RunCache(ctx, way, turns)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d requests, %d prompt tokens, %.1f%% cacheable, cost index %.0f", way.Name, st.Requests, st.Prompt, 100*st.Share(), st.CostIndex())
		if st.Requests != 2*turns {
			t.Errorf("%s: %d requests, want %d", way.Name, st.Requests, 2*turns)
		}
		if strings.HasPrefix(way.Name, "openai-agents-go") || strings.HasPrefix(way.Name, "eino") || strings.Contains(way.Name, "Block: 1") {
			continue // the peers and the one-turn-at-a-time window are what is compared
		}
		costs[way.Name] = st.CostIndex()
		if st.Share() < 0.85 {
			t.Errorf("%s: %.1f%% of the prompt tokens cacheable, want at least 85%%", way.Name, 100*st.Share())
		}
	}
	chain := "`Chain(Fold, ClearToolResults(2), Window{Budget: 10000})`"
	for name, c := range costs {
		if name != chain && c < costs[chain] {
			t.Errorf("%s costs %.0f, less than the chain's %.0f", name, c, costs[chain])
		}
	}
}
