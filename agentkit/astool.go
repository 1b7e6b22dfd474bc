package agentkit

import (
	"context"
	"fmt"

	"github.com/toolcall/toolcall/tool"
)

// agentInput is the input of an agent served as a tool.
type agentInput struct {
	Input string `json:"input" jsonschema_description:"The request for the agent, in plain language, with everything it needs to know: it does not see your conversation."`
}

// Tool returns the agent as one tool: a call with {"input": "..."} runs a.Run(ctx, input)
// and the tool's output is the run's final answer (Result.Output). A sub-agent is this tool
// in another agent's Options.Tools; an agent served over MCP (package
// github.com/toolcall/toolcall/mcp) is this tool on a server. The description tells the
// calling model what the agent is for.
//
// A run that ends with an error — the iteration limit, a loop, the model's failure, a fatal
// tool error inside the agent — is the tool's error (not fatal to the caller's run): the
// calling model reads it. The run's context is the call's, so canceling the call cancels
// the run. opts are the tool's options (Annotations, Sequential...), as in tool.New; the
// schema is the agent's own and Options.Schema is ignored. It panics as tool.New does on a
// bad name or an empty description.
func (a *Agent) Tool(name, description string, opts ...tool.Options) *tool.Tool {
	if len(opts) > 0 {
		o := opts[0]
		o.Schema = nil
		opts = append([]tool.Options{o}, opts[1:]...)
	}
	return tool.New(name, description, func(ctx context.Context, in agentInput) (string, error) {
		res, err := a.Run(ctx, in.Input)
		reportRun(ctx, a.opts.UsageRecorder, res.Cost) // the sub-run's cost is the call's
		switch {
		case err != nil && tool.IsFatal(err):
			// fatal to the agent's run, not to its caller's
			return "", fmt.Errorf("agent %s stopped (%s): %v", name, res.Stop, err)
		case err != nil:
			return "", fmt.Errorf("agent %s stopped (%s): %w", name, res.Stop, err)
		}
		return res.Output, nil
	}, opts...)
}
