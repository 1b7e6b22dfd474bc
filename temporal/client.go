package temporal

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/toolcall/toolcall/agentkit"
)

// Pending returns the calls a run waits for (QueryPending): none when it waits for nothing.
// An empty runID names the workflow's latest run.
func Pending(ctx context.Context, c client.Client, workflowID, runID string) ([]agentkit.PendingCall, error) {
	v, err := c.QueryWorkflow(ctx, workflowID, runID, QueryPending)
	if err != nil {
		return nil, err
	}
	var pending []agentkit.PendingCall
	err = v.Get(&pending)
	return pending, err
}

// Decide delivers the decisions for the calls a run waits for (UpdateDecide) and returns
// once the run has them, or with the error that refused them — wrapping
// agentkit.ErrDecision's text when they do not match the pending calls (one missing,
// unknown, given twice, or a decision its call cannot take), in which case nothing changed.
func Decide(ctx context.Context, c client.Client, workflowID, runID string, decisions []agentkit.Decision) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflowID, RunID: runID, UpdateName: UpdateDecide,
		Args: []any{decisions}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return err
	}
	return h.Get(ctx, nil)
}
