package trace

// cost renders the cost of a run (*agentkit.Result), of a model call (*agentkit.Step or
// *agentkit.Event of EventModelResponse) or of a tool call (*agentkit.CallRecord or
// *agentkit.Event of EventToolEnd) for the page's cost column. agentkit records no cost yet,
// so it renders "" and the page shows no cost; when Step, CallRecord and Result carry one,
// this is the one place that formats it.
func cost(of any) string {
	_ = of
	return ""
}
