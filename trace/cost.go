package trace

import "github.com/toolcall/toolcall/agentkit"

// costOf is the cost a run (*agentkit.Result), a model call (*agentkit.Step, or an
// *agentkit.Event of EventModelResponse) or a tool call (*agentkit.CallRecord, or an
// *agentkit.Event of EventToolEnd) records.
func costOf(of any) agentkit.Cost {
	switch v := of.(type) {
	case *agentkit.Result:
		return v.Cost
	case *agentkit.Step:
		return v.Cost
	case *agentkit.CallRecord:
		return v.Cost
	case *agentkit.Event:
		return v.Cost
	}
	return agentkit.Cost{}
}

// cost renders the cost of what costOf takes for the page's cost column: "" when nothing
// was priced (no Options.Prices, or none for the run's model: agentkit counts such calls as
// unpriced, never as free) or the cost is zero, and the page then shows no cost; otherwise
// the amount, or "at least" the amount when a part had no price (agentkit.Cost.String).
func cost(of any) string { return costText(costOf(of)) }

func costText(c agentkit.Cost) string {
	if c.Amount == 0 {
		return ""
	}
	return c.String()
}
