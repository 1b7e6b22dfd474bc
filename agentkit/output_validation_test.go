package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

// streamPartials runs a on a streamed run and returns its EventOutputPartial texts.
func streamPartials(t *testing.T, a *agentkit.Agent) ([]string, *agentkit.Result, error) {
	t.Helper()
	s := a.RunStream(context.Background(), "Weather in Paris?")
	var partials []string
	for e := range s.Events() {
		if e.Kind == agentkit.EventOutputPartial {
			partials = append(partials, e.Text)
		}
	}
	res, err := s.Result()
	return partials, res, err
}

// A streamed answer past 8 KiB is not repaired at the end of the message: the repairer's
// time grows with the square of malformed text (seconds for tens of KiB, hours for the
// 4 MiB of Options.MaxReplyBytes). One that is JSON as it came is still the last partial.
func TestOutputStreamLargeAnswer(t *testing.T) {
	defer goleak.VerifyNone(t)
	tags := strings.Repeat(`1 `, 12000) // 24 KB of numbers without commas: a second to repair
	valid := `{"city":"Paris","temp_c":26,"sky":"sunny","tags":[` + strings.TrimSuffix(strings.Repeat(`"warm",`, 3000), ",") + `]}`
	tests := []struct {
		name, answer string
		wantLast     string // the last partial; "" for none but of the first 8 KiB
	}{
		{"malformed", `{"city":"Paris","temp_c":26,"sky":"sunny","tags":[` + tags + `]}`, ""},
		{"valid", valid, valid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agentkittest.New(t, agentkittest.Text(tt.answer), agentkittest.Text(`{"city":"Paris","temp_c":26,"sky":"sunny"}`))
			a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: agentkit.OutputNative})})
			partials, _, err := streamPartials(t, a)
			if err != nil {
				t.Fatalf("Result: %v", err)
			}
			if len(partials) == 0 {
				t.Fatal("no partial")
			}
			if got := partials[len(partials)-1]; tt.wantLast != "" && got != tt.wantLast {
				t.Errorf("last partial %.60q..., want the whole answer", got)
			}
			for i, p := range partials {
				// Each number came with 2 bytes of answer: past 4096 of them, the
				// repaired answer was over 8 KiB.
				if n := strings.Count(p, "1"); tt.wantLast == "" && n > 4096 {
					t.Errorf("partial %d of %d holds %d numbers: repaired past the 8 KiB bound", i, len(partials), n)
				}
			}
			for i, p := range partials {
				if !json.Valid([]byte(p)) {
					t.Errorf("partial %d is not JSON: %.40q", i, p)
				}
			}
		})
	}
}

// An answer in a reply cut off at its length limit is not taken, even when closing its
// brackets makes it valid (the tags it was writing are missing): the model is told, and
// its next, complete answer ends the run. At the limit, the run fails with it.
func TestOutputCutOffAnswer(t *testing.T) {
	cut := `{"city":"Paris","temp_c":26,"sky":"sunny","tags":["warm","dry"]`
	for _, mode := range modes {
		for _, finish := range []openai.FinishReason{openai.FinishReasonLength, openai.FinishReasonContentFilter} {
			t.Run(string(mode)+"/"+string(finish), func(t *testing.T) {
				r := agentkittest.Text(cut)
				r.FinishReason = finish
				whole := answerReply(mode, `{"city":"Paris","temp_c":26,"sky":"sunny","tags":["warm","dry","windy"]}`)
				m := agentkittest.New(t, r, whole)
				a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
				res, err := a.Run(context.Background(), "Weather in Paris?")
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got, _ := agentkit.ValueOf[forecast](res); len(got.Tags) != 3 || res.Iterations != 2 {
					t.Errorf("value %+v after %d requests; want the complete second answer", got, res.Iterations)
				}
				if len(m.Requests()) < 2 {
					t.Fatal("the cut answer was taken: no second request")
				}
				second := m.Requests()[1].Messages
				if last := second[len(second)-1]; last.Role != "user" || !strings.Contains(last.Content, string(finish)) {
					t.Errorf("feedback %s %q; want a user message naming %s", last.Role, last.Content, finish)
				}

				m = agentkittest.New(t, r)
				a = agentkit.New(m, &agentkit.Options{MaxIterations: 1, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
				res, err = a.Run(context.Background(), "Weather in Paris?")
				var ae *tool.ArgumentError
				if !errors.Is(err, agentkit.ErrOutputInvalid) || !errors.As(err, &ae) || res.Value != nil {
					t.Errorf("at the limit: err %v, value %v; want ErrOutputInvalid and no value", err, res.Value)
				}
			})
		}
	}
}

// The output tool's answer is the one it ran with, and it is taken only when its call
// succeeded: a middleware's failure without an error is a refusal the model read (and the
// run's error at the limit), and a middleware that rewrites the arguments rewrites the
// answer, as it rewrites what any tool runs with.
func TestOutputToolMiddleware(t *testing.T) {
	const paris = `{"city":"Paris","temp_c":26,"sky":"sunny"}`
	deny := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c tool.Call) tool.Result {
			if c.Name == agentkit.DefaultOutputName {
				return tool.Result{Kind: tool.KindDenied, Content: "error: answers are closed today"}
			}
			return next(ctx, c)
		}
	}
	lyon := func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, c tool.Call) tool.Result {
			c.Arguments = strings.Replace(c.Arguments, "Paris", "Lyon", 1)
			return next(ctx, c)
		}
	}
	tests := []struct {
		name     string
		mw       tool.Middleware
		wantCity string // "" for no value
		wantErr  string
	}{
		{"denied without an error", deny, "", "answers are closed today"},
		{"rewritten", lyon, "Lyon", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, paris)))
			a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, Middleware: []tool.Middleware{tt.mw}, Output: agentkit.Output[forecast](nil)})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			got, _ := agentkit.ValueOf[forecast](res)
			if got.City != tt.wantCity {
				t.Errorf("value %+v, want city %q", got, tt.wantCity)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (!errors.Is(err, agentkit.ErrOutputInvalid) || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err %v, want one with %q", err, tt.wantErr)
			}
			if want := `{"city":"` + tt.wantCity + `","temp_c":26,"sky":"sunny"}`; tt.wantCity != "" && res.Output != want {
				t.Errorf("Output %s, want %s", res.Output, want)
			}
		})
	}
}

// A model that sends the same invalid answer to the output tool until the loop guard stops
// the run: the error says the answer was invalid, and why, not only that calls repeated.
func TestOutputLoopOnInvalidAnswer(t *testing.T) {
	bad := agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris"}`))
	m := agentkittest.New(t, bad, bad, bad, bad)
	a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](nil)})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	var ae *tool.ArgumentError
	if res.Stop != agentkit.StopLoopDetected || !errors.Is(err, agentkit.ErrLoopDetected) || !errors.Is(err, agentkit.ErrOutputInvalid) || !errors.As(err, &ae) {
		t.Fatalf("Run = %q, %v; want StopLoopDetected, ErrLoopDetected, ErrOutputInvalid and the answer's *tool.ArgumentError", res.Stop, err)
	}
	if !strings.Contains(err.Error(), "/temp_c") {
		t.Errorf("err %v does not name the missing /temp_c", err)
	}
}

// A server that ignores tool_choice "none" in the final request of FinalAnswerOnLimit and
// calls the output tool anyway: the call changes nothing, so its answer is validated and a
// valid one taken, as a text answer would be; the reply's other calls still do not run.
func TestOutputFinalAnswerOnLimitToolCall(t *testing.T) {
	tests := []struct {
		name, final string
		wantErr     bool
		stream      bool
	}{
		{"valid", `{"city":"Paris","temp_c":26,"sky":"sunny"}`, false, false},
		{"invalid", `{"city":"Paris","temp_c":99,"sky":"sunny"}`, true, false},
		{"valid/streamed", `{"city":"Paris","temp_c":26,"sky":"sunny"}`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer goleak.VerifyNone(t)
			var weather []string
			m := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)),
				agentkittest.ToolCalls(
					agentkittest.Call("get_weather", `{"city":"Lyon"}`),
					agentkittest.Call(agentkit.DefaultOutputName, tt.final),
					agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Nice","temp_c":20,"sky":"rain"}`),
				),
			)
			a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, FinalAnswerOnLimit: true, Tools: []*tool.Tool{parisWeather(&weather)}, Output: agentkit.Output[forecast](nil)})
			var res *agentkit.Result
			var err error
			if tt.stream {
				_, res, err = streamPartials(t, a)
			} else {
				res, err = a.Run(context.Background(), "Weather in Paris?")
			}
			got, ok := agentkit.ValueOf[forecast](res)
			var ae *tool.ArgumentError
			switch {
			case tt.wantErr && (!errors.Is(err, agentkit.ErrOutputInvalid) || !errors.As(err, &ae) || !strings.Contains(err.Error(), "/temp_c") || ok):
				t.Errorf("err %v, value %+v; want ErrOutputInvalid naming /temp_c, and no value", err, got)
			case !tt.wantErr && (err != nil || got.City != "Paris"):
				t.Errorf("err %v, value %+v; want the Paris answer", err, got)
			}
			if res.Stop != agentkit.StopIterationLimit || !cmp.Equal(weather, []string{"Paris"}) {
				t.Errorf("Stop %q, weather calls %v; want the limit's, and none in the final turn", res.Stop, weather)
			}
			var contents []string
			for _, msg := range res.Messages[len(res.Messages)-3:] {
				contents = append(contents, msg.Content)
			}
			if want := "Final answer received."; !tt.wantErr && (contents[1] != want || !strings.Contains(contents[0], "not executed") || !strings.Contains(contents[2], "not executed")) {
				t.Errorf("final tool results %q; want not executed, %q, not executed", contents, want)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Errorf("transcript: %v", err)
			}
		})
	}
}

// In prompt mode the schema is part of the system prompt the Context strategy sees: a
// token budget counts it, and the request's messages stay within the budget.
func TestOutputPromptCountedByContext(t *testing.T) {
	spec := agentkit.Output[forecast](&agentkit.OutputOptions{Mode: agentkit.OutputPrompt})
	counter := memory.NewCounter("")
	long := strings.Repeat("The forecast for the coast is mild. ", 8)
	history := []openai.ChatCompletionMessage{
		{Role: "user", Content: "Weather reports, please."},
		{Role: "assistant", Content: long}, {Role: "user", Content: "Lyon?"},
		{Role: "assistant", Content: long}, {Role: "user", Content: "Nice?"},
		{Role: "assistant", Content: long}, {Role: "user", Content: "Paris?"},
	}
	answer := agentkittest.Text(`{"city":"Paris","temp_c":26,"sky":"sunny"}`)
	plain := agentkittest.New(t, answer) // the system prompt as sent, the schema in it
	if _, err := agentkit.New(plain, &agentkit.Options{Instructions: "Be brief.", Output: spec}).RunMessages(context.Background(), history); err != nil {
		t.Fatal(err)
	}
	sys := plain.Requests()[0].Messages[0].Content
	budget := counter.Messages([]openai.ChatCompletionMessage{{Role: "system", Content: sys}, history[0], history[len(history)-1]}) + 20
	m := agentkittest.New(t, answer)
	a := agentkit.New(m, &agentkit.Options{Instructions: "Be brief.", Output: spec, Context: memory.Window(memory.WindowOptions{Budget: budget, Counter: counter})})
	if _, err := a.RunMessages(context.Background(), history); err != nil {
		t.Fatalf("RunMessages: %v", err)
	}
	req := m.Requests()[0]
	if got := counter.Messages(req.Messages); got > budget || req.Messages[0].Content != sys {
		t.Errorf("the request's messages cost %d tokens, over the budget of %d (system prompt %.40q...)", got, budget, req.Messages[0].Content)
	}
}

// notes is an answer whose every field is optional: {} is a valid one.
type notes struct {
	Notes []string `json:"notes,omitempty"`
}

// A text answer of null is no answer (for a tool's arguments it means {}): it is sent back,
// not taken as T's zero value.
func TestOutputNullAnswer(t *testing.T) {
	for _, mode := range []agentkit.OutputMode{agentkit.OutputNative, agentkit.OutputPrompt} {
		t.Run(string(mode), func(t *testing.T) {
			m := agentkittest.New(t, agentkittest.Text(" null\n"), agentkittest.Text(`{"notes":["sunny"]}`))
			a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[notes](&agentkit.OutputOptions{Mode: mode})})
			res, err := a.Run(context.Background(), "Notes?")
			if got, _ := agentkit.ValueOf[notes](res); err != nil || len(got.Notes) != 1 {
				t.Errorf("Run: %v, value %+v; want the second answer", err, got)
			}
		})
	}
}

// A run canceled after the model answered (its reply in hand) keeps the answer, instead of
// refusing it with a message about its stages disagreeing.
func TestOutputAnswerThenCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := agentkittest.New(t, agentkittest.Func(func(openai.ChatCompletionRequest) agentkittest.Reply {
		cancel()
		return agentkittest.Text(`{"city":"Paris","temp_c":26,"sky":"sunny"}`)
	}))
	a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: agentkit.OutputNative})})
	res, err := a.Run(ctx, "Weather in Paris?")
	if got, ok := agentkit.ValueOf[forecast](res); err != nil || !ok || got.City != "Paris" {
		t.Errorf("Run: %v (Stop %q), value %+v; want the answer", err, res.Stop, got)
	}
	for _, msg := range res.Messages {
		if strings.Contains(msg.Content, "disagree") {
			t.Errorf("the transcript holds %q", msg.Content)
		}
	}
}

// The output tool called more than once in one reply: the first valid answer, in emission
// order, is the run's; an invalid one before it is refused to the model. (Every valid one
// reads "Final answer received.": the tool cannot know which one the run takes.)
func TestOutputCalledTwice(t *testing.T) {
	m := agentkittest.New(t, agentkittest.ToolCalls(
		agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris","temp_c":99,"sky":"sunny"}`),
		agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Lyon","temp_c":24,"sky":"cloudy"}`),
		agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Nice","temp_c":20,"sky":"rain"}`),
	))
	a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](nil)})
	res, err := a.Run(context.Background(), "Weather?")
	if got, _ := agentkit.ValueOf[forecast](res); err != nil || got.City != "Lyon" {
		t.Errorf("Run: %v, value %+v; want Lyon's, the first valid answer", err, got)
	}
	var contents []string
	for _, msg := range res.Messages[len(res.Messages)-3:] {
		contents = append(contents, msg.Content[:min(len(msg.Content), 22)])
	}
	if want := []string{"invalid arguments for ", "Final answer received.", "Final answer received."}; !cmp.Equal(contents, want) {
		t.Errorf("tool results %q, want %q", contents, want)
	}
}

// The output call of the final tool-free turn, held for approval by a middleware that
// wants every call approved: the run cannot pause there, so the call is not executed (the
// transcript says so, not that it waits), and the run ends at the limit.
func TestOutputFinalAnswerOnLimitPending(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)),
		agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris","temp_c":26,"sky":"sunny"}`)),
	)
	all := middleware.RequireApproval(func(c tool.Call) bool { return c.Name == agentkit.DefaultOutputName })
	a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, FinalAnswerOnLimit: true, Ledger: memory.NewInMemory(), Tools: []*tool.Tool{parisWeather(nil)},
		Middleware: []tool.Middleware{all}, Output: agentkit.Output[forecast](nil)})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if !errors.Is(err, agentkit.ErrIterationLimit) || res.Stop != agentkit.StopIterationLimit || res.Value != nil {
		t.Errorf("Run = %q, %v, value %v; want the limit and no value", res.Stop, err, res.Value)
	}
	if last := res.Messages[len(res.Messages)-1]; !strings.Contains(last.Content, "not executed") {
		t.Errorf("the output call's result %q, want not executed", last.Content)
	}
}

// In native and prompt mode, a reply that calls tools and also holds a valid answer in its
// text ends the run after its calls (see TestReplayCerebrasStructuredOutput); one whose
// text is prose goes on, the prose neither taken nor sent back.
func TestOutputTextBesideCalls(t *testing.T) {
	for _, mode := range []agentkit.OutputMode{agentkit.OutputNative, agentkit.OutputPrompt} {
		for _, text := range []string{"Let me look that up.", `{"city":"Paris","temp_c":26,"sky":"sunny"}`} {
			t.Run(string(mode)+"/"+text[:8], func(t *testing.T) {
				var weather []string
				reply := agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`))
				reply.Message.Content = text
				m := agentkittest.New(t, reply, agentkittest.Text(`{"city":"Paris","temp_c":27,"sky":"sunny"}`))
				a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{parisWeather(&weather)}, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
				res, err := a.Run(context.Background(), "Weather in Paris?")
				got, _ := agentkit.ValueOf[forecast](res)
				wantTemp, wantIters := 27, 2
				if strings.HasPrefix(text, "{") {
					wantTemp, wantIters = 26, 1
				}
				if err != nil || got.TempC != wantTemp || res.Iterations != wantIters || len(weather) != 1 {
					t.Errorf("Run: %v, value %+v after %d requests, weather calls %v; want temp %d after %d", err, got, res.Iterations, weather, wantTemp, wantIters)
				}
				for _, msg := range res.Messages {
					if msg.Role == "user" && strings.Contains(msg.Content, "Your answer") {
						t.Errorf("the prose was sent back: %q", msg.Content)
					}
				}
			})
		}
	}
}

// The same under a Budget: the final request its limit asks for gets the output tool
// called, and a valid answer ends the run with the budget's stop reason and no error.
func TestOutputFinalAnswerOnBudgetToolCall(t *testing.T) {
	for _, budget := range []agentkit.Budget{{Tokens: 50}, {ToolCalls: 1}} {
		t.Run(fmt.Sprintf("%+v", budget), func(t *testing.T) {
			// Two calls: with ToolCalls 1 the second is refused, which makes the next request
			// the final one.
			first := agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`), agentkittest.Call("get_weather", `{"city":"Lyon"}`))
			first.Usage = openai.Usage{PromptTokens: 80, CompletionTokens: 20, TotalTokens: 100}
			m := agentkittest.New(t, first,
				agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris","temp_c":26,"sky":"sunny"}`)),
			)
			a := agentkit.New(m, &agentkit.Options{Budget: budget, FinalAnswerOnLimit: true, Tools: []*tool.Tool{parisWeather(nil)}, Output: agentkit.Output[forecast](nil)})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			if got, ok := agentkit.ValueOf[forecast](res); err != nil || !ok || got.City != "Paris" || res.Stop != agentkit.StopBudget {
				t.Errorf("Run = %q, %v, value %+v; want StopBudget, no error, the answer", res.Stop, err, got)
			}
			if reqs := m.Requests(); len(reqs) != 2 || reqs[1].ToolChoice != "none" {
				t.Fatalf("%d requests; want 2, the final one with tool_choice none", len(reqs))
			}
		})
	}
}

// A session run in native mode that ends at the limit on an invalid answer does not leave
// the correction as the last message: the next turn of the session would send two user
// messages in a row, which chat templates that require alternating turns refuse.
func TestOutputSessionEndsWithoutCorrection(t *testing.T) {
	for _, mode := range []agentkit.OutputMode{agentkit.OutputNative, agentkit.OutputPrompt} {
		t.Run(string(mode), func(t *testing.T) {
			store := memory.NewInMemory()
			m := agentkittest.New(t, agentkittest.Text(`{"city":"Paris"}`), agentkittest.Text(`{"city":"Lyon","temp_c":24,"sky":"cloudy"}`))
			a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, Memory: store, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
			ctx := context.Background()
			if _, err := a.RunSession(ctx, "s", "Paris?"); !errors.Is(err, agentkit.ErrOutputInvalid) || !errors.Is(err, agentkit.ErrIterationLimit) {
				t.Fatalf("RunSession: %v; want ErrOutputInvalid at the iteration limit", err)
			}
			if _, err := a.RunSession(ctx, "s", "And Lyon?"); err != nil {
				t.Fatalf("RunSession: %v", err)
			}
			msgs := m.Requests()[1].Messages
			for i := 1; i < len(msgs); i++ {
				if msgs[i].Role == "user" && msgs[i-1].Role == "user" {
					t.Errorf("messages %d and %d are both user messages:\n%s", i-1, i, agentkit.FormatTranscript(msgs))
				}
			}
		})
	}
}

// A streamed run on a model that cannot stream gets its answer as one EventOutputPartial,
// as its text comes as one EventTextDelta.
func TestOutputPartialWithoutStreaming(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			const want = `{"city":"Paris","temp_c":26,"sky":"sunny"}`
			scripted := agentkittest.New(t, answerReply(mode, want))
			// Only the plain method: the scripted model's streaming one is hidden.
			model := agentkit.ModelFunc(scripted.CreateChatCompletion)
			a := agentkit.New(model, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
			partials, _, err := streamPartials(t, a)
			if err != nil {
				t.Fatalf("Result: %v", err)
			}
			if !cmp.Equal(partials, []string{want}) {
				t.Errorf("partials %q, want the answer once", partials)
			}
		})
	}
}

// The run's error says why the last answer was refused for the caller, in one line, in
// every mode — not the model's "call the tool again" — and still wraps the answer's
// *tool.ArgumentError.
func TestOutputErrorText(t *testing.T) {
	for _, mode := range modes {
		for _, answer := range []string{`{"city":"Paris","temp_c":99,"sky":"sunny"}`, `not json`} {
			t.Run(string(mode)+"/"+answer[:4], func(t *testing.T) {
				m := agentkittest.New(t, answerReply(mode, answer))
				a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
				_, err := a.Run(context.Background(), "Weather in Paris?")
				var ae *tool.ArgumentError
				if !errors.As(err, &ae) {
					t.Fatalf("err %v does not wrap a *tool.ArgumentError", err)
				}
				text := err.Error()
				if strings.Contains(strings.ToLower(text), "call the tool again") || strings.Contains(text, "\n") {
					t.Errorf("err %q: written for the model, or on several lines", text)
				}
				if want := map[bool]string{true: "the last answer does not match the schema: /temp_c", false: "the last answer is not a valid JSON object"}[ae.Kind == tool.KindInvalidArguments]; !strings.Contains(text, want) {
					t.Errorf("err %q does not say %q", text, want)
				}
			})
		}
	}
}
