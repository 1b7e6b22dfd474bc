package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// RecallName is the name of the tool [RecallTool] returns.
const RecallName = "recall_history"

// RecallOptions configures [RecallTool]. The zero value gives the defaults documented on
// each field.
type RecallOptions struct {
	// Limit is the most messages one search returns; the model may ask for fewer. Zero
	// means 5.
	Limit int
	// MaxChars caps each message shown, in characters (head and tail kept). Zero means 800.
	MaxChars int
}

// recallInput is what the model sends.
type recallInput struct {
	Query string `json:"query" jsonschema_description:"Words to look for: names, numbers, places, tool names. A message matches when it contains any of them; the more it contains the better it ranks."`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=20" jsonschema_description:"Most messages to return (default 5)."`
}

// ErrNoSession: RecallTool ran in a run that is not a RunSession, whose context carries no
// session (agentkit.SessionFromContext).
var ErrNoSession = errors.New("memory: recall_history searches the session of the run: it needs a RunSession")

// RecallTool returns the tool recall_history, with which the model searches the stored
// history of its own conversation — what Window dropped and Fold summarized included — for
// the details a summary leaves out: an exact figure, a name, a tool's full result.
//
// The session searched is the run's: RunSession puts it in the run's context, and the tool
// reads it with agentkit.SessionFromContext:
//
//	agent := agentkit.New(model, &agentkit.Options{
//		Tools:   []*tool.Tool{memory.RecallTool(store, nil), …},
//		Memory:  store,
//		Context: memory.Fold(…),
//	})
//	res, err := agent.RunSession(ctx, id, input)
//
// In a run without a session the tool refuses: the model reads an error result saying so
// ([ErrNoSession]), and can never see another conversation. The search is [SearchMessages]'s:
// words, substrings, case-insensitive; the results are listed with their position in the
// history and, for tool results, the tool's name.
func RecallTool(store Searcher, opts *RecallOptions) *tool.Tool {
	if store == nil {
		panic("memory.RecallTool: nil store")
	}
	var o RecallOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit <= 0 {
		o.Limit = 5
	}
	if o.MaxChars <= 0 {
		o.MaxChars = 800
	}
	return tool.New(RecallName,
		"Searches the earlier messages of this conversation, including those removed from your context or replaced by a summary to save space. Use it when you need a detail the summary does not give: an exact number, a name, a tool's full result.",
		func(ctx context.Context, in recallInput) (string, error) {
			session, ok := agentkit.SessionFromContext(ctx)
			if !ok {
				return "", ErrNoSession
			}
			q := strings.TrimSpace(in.Query)
			if q == "" {
				return "", errors.New("query is empty: give the words to look for")
			}
			limit := o.Limit
			if in.Limit > 0 {
				limit = min(in.Limit, o.Limit)
			}
			matches, err := store.Search(ctx, session, Query{Text: q, Limit: limit})
			if err != nil {
				return "", err
			}
			return formatMatches(q, matches, o.MaxChars), nil
		})
}

// formatMatches renders matches in the order of the conversation.
func formatMatches(q string, matches []Match, maxChars int) string {
	if len(matches) == 0 {
		return fmt.Sprintf("No earlier message of this conversation matches %q.", q)
	}
	matches = slices.Clone(matches)
	slices.SortFunc(matches, func(a, b Match) int { return a.Index - b.Index })
	var b strings.Builder
	fmt.Fprintf(&b, "%d earlier message(s) match %q, in conversation order:", len(matches), q)
	for _, m := range matches {
		var text strings.Builder
		writeSearchText(&text, &m.Message)
		who := m.Message.Role
		switch {
		case m.Message.Role == openai.ChatMessageRoleTool && m.Tool != "":
			who = "tool result of " + m.Tool
		case len(m.Message.ToolCalls) > 0:
			who = "assistant calling tools"
		}
		fmt.Fprintf(&b, "\n#%d %s: %s", m.Index, who, strings.ReplaceAll(strings.TrimSpace(cut(text.String(), maxChars)), "\n", " "))
	}
	return b.String()
}
