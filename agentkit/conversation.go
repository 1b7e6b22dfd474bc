package agentkit

import (
	"context"
	"fmt"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// Conversation is a chat with an agent, kept in this process: each Run sends the next user
// message with everything said before it, and keeps the reply, and the run's tool calls and
// results, for the next. Its transcript is checked as it grows and never copied, so a turn
// costs what it adds, however long the conversation is — where RunMessages copies and checks
// the whole history it is given on every run. For conversations that must outlive the
// process, or be shared between processes, use RunSession with a Memory.
//
// A Conversation runs one turn at a time: Run waits for the turn before it to end. It is safe
// for concurrent use. The zero Conversation is not usable: make one with
// Agent.NewConversation.
type Conversation struct {
	a    *Agent
	turn chan struct{} // holds one token while a turn runs
	msgs []openai.ChatCompletionMessage
	ids  map[string]struct{}
}

// NewConversation starts a conversation, with history as what was said before (nil for a
// new chat). The history is checked once, here (an error wrapping ErrInvalidHistory), and
// copied: the caller may reuse it. As for RunMessages, a history that begins with a system
// or developer message replaces Options.Instructions.
func (a *Agent) NewConversation(history ...openai.ChatCompletionMessage) (*Conversation, error) {
	if err := ValidateHistory(history); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidHistory, err)
	}
	c := &Conversation{a: a, turn: make(chan struct{}, 1), ids: make(map[string]struct{})}
	if a.opts.Instructions != "" && !hasSystemPrompt(history) {
		c.msgs = append(c.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: a.opts.Instructions})
	}
	c.msgs = append(c.msgs, history...)
	for i := range c.msgs {
		for _, tc := range c.msgs[i].ToolCalls {
			c.ids[tc.ID] = struct{}{}
		}
	}
	return c, nil
}

// Run sends input as the next user message and runs the agent loop on the conversation, as
// RunMessages would on the whole transcript. What the run adds is kept for the next turn,
// also when the run ends early (a model error, a cancellation: every call then has a
// result), except BudgetExhaustedPrompt, which belongs to this run's last request only.
//
// Result.Messages is the conversation's transcript itself, up to the end of this run: read
// it, keep it, but do not modify its messages, or the next turns will send what you wrote
// (Messages returns a copy to modify). If ctx ends while another turn runs, Run returns at
// once with an error wrapping ErrSessionBusy and ctx.Err(); if ctx has ended before Run is
// called, Run returns its error and the conversation is left as it was. A run refused at
// its start (an empty input), or that a run middleware never let start, leaves nothing.
func (c *Conversation) Run(ctx context.Context, input string) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return &Result{Stop: StopCanceled}, fmt.Errorf("agentkit: conversation: %w", err)
	}
	select {
	case c.turn <- struct{}{}:
	case <-ctx.Done():
		return &Result{Stop: StopCanceled}, fmt.Errorf("agentkit: conversation: %w: %w", ErrSessionBusy, ctx.Err())
	}
	defer func() { <-c.turn }()
	before := len(c.msgs)
	r := c.a.runOn(append(c.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: input}))
	r.trusted = before
	r.ids.set = c.ids // the run adds its new ids to the conversation's
	res, err := r.start(ctx)
	msgs := r.res.Messages // with its spare capacity: the next turn appends into it
	// Result.Messages ends where this run did: the next turn appends past it.
	res.Messages = slices.Clip(res.Messages)
	if r.validated == 0 {
		// The input was refused, or a run middleware never ran the loop: nothing of this
		// run was checked, and nothing of it is kept. The next turn will write where this
		// run's messages are: the Result gets its own copy (rare, and O(history)).
		res.Messages = slices.Clone(res.Messages)
		return res, err
	}
	// The budget prompt is not said in the conversation (a run middleware that runs the
	// loop again may have added more than one). Result.Messages keeps them, so the
	// conversation continues in a new array.
	for i := before + 1; i < len(msgs); i++ {
		if msgs[i].Role == openai.ChatMessageRoleUser && msgs[i].Content == BudgetExhaustedPrompt {
			kept := slices.Clone(msgs[:i])
			for _, m := range msgs[i+1:] {
				if m.Role != openai.ChatMessageRoleUser || m.Content != BudgetExhaustedPrompt {
					kept = append(kept, m)
				}
			}
			msgs = kept
			break
		}
	}
	if res.Stop == StopInvalidHistory {
		// A view refused, or a bug: keep what the run added only if it is valid.
		if validateHistory(msgs[before:], true) != nil {
			res.Messages = slices.Clone(res.Messages)
			return res, err
		}
	}
	c.msgs = msgs
	return res, err
}

// Messages returns a copy of the conversation's transcript: the system prompt, the history it
// began with, and every turn since. It waits for a turn that is running to end.
func (c *Conversation) Messages() []openai.ChatCompletionMessage {
	c.turn <- struct{}{}
	defer func() { <-c.turn }()
	return slices.Clone(c.msgs)
}
