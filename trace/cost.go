package trace

import "github.com/toolcall/toolcall/agentkit"

// cost renders a cost (a run's, a model call's or a tool call's) for the page's cost column:
// "" when nothing was priced (no Options.Prices, or none for the run's model: agentkit counts
// such calls as unpriced, never as free) or the cost is zero, and the page then shows no cost;
// otherwise the amount, or "at least" the amount when a part had no price
// (agentkit.Cost.String).
func cost(c agentkit.Cost) string {
	if c.Amount == 0 {
		return ""
	}
	return c.String()
}
