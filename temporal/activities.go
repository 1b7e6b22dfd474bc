package temporal

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// modelIn is the model activity's argument.
type modelIn struct {
	Messages  []openai.ChatCompletionMessage `json:"messages"`
	Iteration int                            `json:"iteration"`
	Final     bool                           `json:"final,omitempty"`
}

// modelOut is the model activity's result: what the workflow keeps of a reply.
type modelOut struct {
	Message      openai.ChatCompletionMessage `json:"message"`
	FinishReason openai.FinishReason          `json:"finish_reason,omitempty"`
	Usage        agentkit.Usage               `json:"usage"`
	Cost         agentkit.Cost                `json:"cost"`
	Answer       string                       `json:"answer,omitempty"`
	Calls        []callSpec                   `json:"calls,omitempty"`
}

// callSpec is a tool call as the workflow sees it: the call as the model sent it, and the
// nature of its tool, which sets its retry policy.
type callSpec struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Arguments  string `json:"arguments"`
	Idempotent bool   `json:"idempotent,omitempty"`
	Sequential bool   `json:"sequential,omitempty"`
}

// toolIn is the tool activity's argument.
type toolIn struct {
	Iteration int      `json:"iteration"`
	Call      callSpec `json:"call"`
	Room      int      `json:"room"` // the encoded bytes the result may take inline (see keep)
}

// approvedIn is the approved-call activity's argument.
type approvedIn struct {
	Iteration int                  `json:"iteration"`
	Pending   agentkit.PendingCall `json:"pending"`
	Decision  agentkit.Decision    `json:"decision"`
	Room      int                  `json:"room"` // as toolIn's
}

// callOut is a tool activity's result: the part of a tool.Result a workflow keeps.
type callOut struct {
	Kind    tool.Kind             `json:"kind,omitempty"`
	Content string                `json:"content"`
	Fatal   string                `json:"fatal,omitempty"` // the error of a tool.Fatal failure
	Cost    agentkit.Cost         `json:"cost"`            // what the call reported (agentkit.ReportCost)
	Pending *agentkit.PendingCall `json:"pending,omitempty"`
}

// model is the model activity: one agentkit.Agent.ModelTurn on the transcript, its
// references resolved.
func (a *Agent) model(ctx context.Context, in modelIn) (modelOut, error) {
	msgs, err := Resolve(ctx, a.opts.Blobs, in.Messages)
	if err != nil {
		return modelOut{}, err // retried: a store may be back
	}
	var mt agentkit.ModelTurn
	var stop agentkit.StopReason
	heartbeating(ctx, func() { mt, stop, err = a.agent.ModelTurn(ctx, msgs, in.Iteration, in.Final) })
	if err != nil {
		return modelOut{}, modelError(stop, err)
	}
	n, have := encodedLen(mt.Message), encodedLen(in.Messages)
	if len(mt.Calls) == 0 {
		n += encodedLen(mt.Answer) // an answer is in the Result twice: Output, and the transcript's end
	}
	if have+n > transcriptBudget {
		return modelOut{}, modelError(agentkit.StopModelError, fmt.Errorf("%w: %d bytes, on a transcript of %d: together past the %d bytes a transcript may take of Temporal's %d-byte payload limit",
			agentkit.ErrReplyTooLarge, n, have, transcriptBudget, payloadLimit))
	}
	out := modelOut{Message: mt.Message, FinishReason: mt.Step.FinishReason, Usage: mt.Step.Usage, Cost: mt.Step.Cost, Answer: mt.Answer}
	for _, c := range mt.Calls {
		s := callSpec{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		if c.Tool != nil {
			s.Idempotent, s.Sequential = c.Tool.Annotations().IsIdempotent(), c.Tool.Sequential()
		}
		out.Calls = append(out.Calls, s)
	}
	return out, nil
}

// modelError is the activity error of a failed model call: an ApplicationError whose type is
// the stop reason, retryable only when another attempt may succeed — a model error other
// than a 4xx status (408 and 429 are retried).
func modelError(stop agentkit.StopReason, err error) error {
	retry := stop == agentkit.StopModelError && !errors.Is(err, agentkit.ErrNoChoices) &&
		!errors.Is(err, agentkit.ErrEmptyMessage) && !errors.Is(err, agentkit.ErrReplyTooLarge)
	if code := httpStatus(err); code >= 400 && code < 500 && code != 408 && code != 429 {
		retry = false
	}
	return temporal.NewApplicationErrorWithOptions(err.Error(), string(stop), temporal.ApplicationErrorOptions{NonRetryable: !retry})
}

// httpStatus returns the HTTP status of a failed model call, or 0.
func httpStatus(err error) int {
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		return ae.HTTPStatusCode
	case errors.As(err, &re):
		return re.HTTPStatusCode
	}
	return 0
}

// tool is the tool activity: one agentkit.Agent.CallTool, heartbeating while it runs.
func (a *Agent) tool(ctx context.Context, in toolIn) (callOut, error) {
	call := tool.Call{ID: in.Call.ID, Name: in.Call.Name, Arguments: in.Call.Arguments}
	return a.run(ctx, in.Room, func(ctx context.Context) agentkit.CallRecord { return a.agent.CallTool(ctx, in.Iteration, call) })
}

// approved is the activity of an approved call: one agentkit.Agent.CallApproved.
func (a *Agent) approved(ctx context.Context, in approvedIn) (callOut, error) {
	return a.run(ctx, in.Room, func(ctx context.Context) agentkit.CallRecord {
		return a.agent.CallApproved(ctx, in.Iteration, in.Pending, in.Decision)
	})
}

// heartbeating runs f, heartbeating every third of the activity's heartbeat timeout until it
// returns: the heartbeats tell the server the worker lives, and bring back a cancellation,
// which cancels ctx.
func heartbeating(ctx context.Context, f func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	if hb := activity.GetInfo(ctx).HeartbeatTimeout; hb > 0 {
		wg.Go(func() {
			t := time.NewTicker(max(hb/3, 10*time.Millisecond))
			defer t.Stop()
			for {
				activity.RecordHeartbeat(ctx)
				select {
				case <-done:
					return
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		})
	}
	f()
	close(done)
	wg.Wait()
}

// run runs a call, heartbeating; its result may take room bytes of the transcript inline.
func (a *Agent) run(ctx context.Context, room int, call func(context.Context) agentkit.CallRecord) (callOut, error) {
	var rec agentkit.CallRecord
	heartbeating(ctx, func() { rec = call(ctx) })
	if err := ctx.Err(); err != nil && rec.Result.Kind == tool.KindCanceled {
		return callOut{}, err // the activity was canceled: the workflow records it so
	}
	out := callOut{Kind: rec.Result.Kind, Cost: rec.Cost}
	switch {
	case rec.Result.Kind == tool.KindPending:
		pc := agentkit.PendingOf(rec)
		out.Pending = &pc
	case tool.IsFatal(rec.Result.Err):
		out.Fatal = rec.Result.Err.Error()
	}
	content, err := a.keep(ctx, rec.Result.Content, room)
	if err != nil { // the call ran: an idempotent one is attempted again, and the others are told it took effect
		return callOut{}, temporal.NewApplicationErrorWithCause(fmt.Sprintf("its result (%d bytes) could not be kept in Options.Blobs: %v", len(rec.Result.Content), err), notKept, err)
	}
	if a.opts.Blobs == nil && len(content) > minRoom && encodedLen(content) > room {
		// The server would refuse it, or the next model activity's input: the call ran all the same.
		out.Kind = tool.KindToolError
		content = fmt.Sprintf("error: the call to %s ran and took effect, but its result (%d bytes) is too large for the run's history (Temporal's payload limit) and is lost. Do not call it again to get its result: ask for less, or tell the user.", rec.Call.Name, len(content))
	}
	out.Content = content
	return out, nil
}
