package trace

import (
	"reflect"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// turn is one model call as the page shows it: what its request carried, what came back, and
// the tool calls of the reply.
type turn struct {
	Iteration int
	// Resumed says the turn is the paused turn of a resumed run, recorded from its calls'
	// events: its model call was the paused run's, and its request is not known.
	Resumed bool
	// Carried is the number of messages the request carried; Kept of them are the first
	// messages of the previous request, shown there, and Added the others.
	Carried, Kept int
	Added         []openai.ChatCompletionMessage
	// Timed says the turn has a duration (not so for a stored session).
	Timed    bool
	Duration time.Duration
	Usage    agentkit.Usage
	Cost     string
	Finish   string
	Err      string
	Reply    *openai.ChatCompletionMessage
}

// call is one tool call as the page shows it.
type call struct {
	Iteration int
	ID, Name  string
	Arguments string
	Timed     bool
	Duration  time.Duration
	Result    tool.Result
	// HasResult is false for a stored session's call whose result is missing.
	HasResult bool
	Cost      string
}

// summary is the end of the page: how the run ended, and its totals.
type summary struct {
	Stop    string
	Err     string
	Output  string
	Usage   agentkit.Usage
	Cost    string
	Pending []agentkit.PendingCall
	Turns   int
	Calls   int
}

// carried returns what a request carrying cur shows after one that carried prev: how many of
// the first messages it has in common with prev, and the others. It compares every message a
// request has in common with the one before, so it must be cheap: a message of a request is
// most often the one of the request before or its copy, whose strings and slices share their
// memory, which reflect.DeepEqual (like ==) does not read again. (Comparing their JSON made a
// 1,000-turn run's page cost seconds.)
func carried(prev, cur []openai.ChatCompletionMessage) (kept int, added []openai.ChatCompletionMessage) {
	for kept < len(prev) && kept < len(cur) && reflect.DeepEqual(&prev[kept], &cur[kept]) {
		kept++
	}
	return kept, cur[kept:]
}

// requestsOf returns the messages the request of each step carried, as far as a Result tells:
// the transcript up to that step's assistant message. (A context strategy may have sent less,
// and the last request of Options.FinalAnswerOnLimit carried one more user message.) The
// steps' replies are the last assistant messages of the transcript: a resumed run's
// Messages hold the paused run's replies too, from New, and a paused run's last reply left
// the transcript (its request is the whole transcript).
func requestsOf(res *agentkit.Result) [][]openai.ChatCompletionMessage {
	var replies []int
	for i := res.New; i < len(res.Messages); i++ {
		if res.Messages[i].Role == openai.ChatMessageRoleAssistant {
			replies = append(replies, i)
		}
	}
	inTranscript := len(res.Steps)
	if res.Pause != nil {
		inTranscript--
	}
	replies = replies[max(0, len(replies)-inTranscript):]
	out := make([][]openai.ChatCompletionMessage, len(res.Steps))
	for k := range res.Steps {
		out[k] = res.Messages
		if k < len(replies) {
			out[k] = res.Messages[:replies[k]]
		}
	}
	return out
}

// sessionTurn is a turn of a stored session: an assistant message, the messages its request
// carried, and its calls with the results the session holds.
type sessionTurn struct {
	turn  turn
	calls []call
}

// sessionTurns cuts a stored session into turns, one per assistant message.
func sessionTurns(msgs []openai.ChatCompletionMessage) []sessionTurn {
	var out []sessionTurn
	var prev []openai.ChatCompletionMessage
	for i := range msgs {
		if msgs[i].Role != openai.ChatMessageRoleAssistant {
			continue
		}
		kept, added := carried(prev, msgs[:i])
		prev = msgs[:i]
		t := sessionTurn{turn: turn{Iteration: len(out) + 1, Carried: i, Kept: kept, Added: added, Reply: &msgs[i]}}
		results := resultsAfter(msgs, i)
		for _, c := range msgs[i].ToolCalls {
			content, ok := results[c.ID]
			t.calls = append(t.calls, call{Iteration: len(out) + 1, ID: c.ID, Name: c.Function.Name,
				Arguments: c.Function.Arguments, Result: tool.Result{Content: content}, HasResult: ok})
		}
		out = append(out, t)
	}
	return out
}

// resultsAfter returns the results of the calls of the assistant message msgs[i] by call id:
// the tool messages that follow it, up to the next assistant message. (Some providers number
// the calls of each reply from call_0: an id names a call of its turn, not of the session.)
func resultsAfter(msgs []openai.ChatCompletionMessage, i int) map[string]string {
	results := map[string]string{}
	for _, m := range msgs[i+1:] {
		if m.Role == openai.ChatMessageRoleAssistant {
			break
		}
		if _, dup := results[m.ToolCallID]; m.Role == openai.ChatMessageRoleTool && !dup {
			results[m.ToolCallID] = m.Content
		}
	}
	return results
}

// tokens formats a token count, "" for none.
func tokens(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}
