package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/tool"
)

// forecast is the typed answer of these tests.
type forecast struct {
	City  string   `json:"city" jsonschema:"description=the city"`
	TempC int      `json:"temp_c" jsonschema:"minimum=-90,maximum=60"`
	Sky   string   `json:"sky" jsonschema:"enum=sunny,enum=cloudy,enum=rain"`
	Note  *string  `json:"note,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

func parisWeather(calls *[]string) *tool.Tool {
	return tool.New("get_weather", "Current weather of a city.", func(_ context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		if calls != nil {
			*calls = append(*calls, in.City)
		}
		return "sunny, 26°C", nil
	})
}

// answerReply is the reply that gives answer (JSON text) in mode: a call of the output
// tool, or text.
func answerReply(mode agentkit.OutputMode, answer string) agentkittest.Reply {
	if mode == agentkit.OutputTool {
		return agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, answer))
	}
	return agentkittest.Text(answer)
}

var modes = []agentkit.OutputMode{agentkit.OutputTool, agentkit.OutputNative, agentkit.OutputPrompt}

// In every mode the run calls its tools, then ends with the validated value; the request
// asks for it as the mode says, and never forces a tool.
func TestOutputModes(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			var calls []string
			m := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)),
				// A fence and a trailing comma: repaired, as a tool's arguments are.
				answerReply(mode, "```json\n{\"sky\":\"sunny\",\"temp_c\":26,\"city\":\"Paris\",}\n```"),
			)
			spec := agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})
			a := agentkit.New(m, &agentkit.Options{Instructions: "Be brief.", Tools: []*tool.Tool{parisWeather(&calls)}, Output: spec})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			got, ok := agentkit.ValueOf[forecast](res)
			if want := (forecast{City: "Paris", TempC: 26, Sky: "sunny"}); !ok || !cmp.Equal(got, want) {
				t.Errorf("ValueOf = %+v, %v; want %+v", got, ok, want)
			}
			if want := `{"sky":"sunny","temp_c":26,"city":"Paris"}`; res.Output != want {
				t.Errorf("Output = %s, want the canonical (repaired, compact) %s", res.Output, want)
			}
			if res.Stop != agentkit.StopAnswered || res.Iterations != 2 || !cmp.Equal(calls, []string{"Paris"}) {
				t.Errorf("Stop %q, Iterations %d, weather calls %v", res.Stop, res.Iterations, calls)
			}
			for i, req := range m.Requests() {
				checkOutputRequest(t, i, req, mode, spec)
			}
		})
	}
}

// checkOutputRequest checks that req asks for spec's answer as mode says.
func checkOutputRequest(t *testing.T, i int, req openai.ChatCompletionRequest, mode agentkit.OutputMode, spec *agentkit.OutputSpec) {
	t.Helper()
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Function.Name)
	}
	wantNames := []string{"get_weather"}
	if mode == agentkit.OutputTool {
		wantNames = append(wantNames, agentkit.DefaultOutputName)
	}
	if !cmp.Equal(names, wantNames) || req.ToolChoice != nil {
		t.Errorf("request %d: tools %v, tool_choice %v; want %v and none", i, names, req.ToolChoice, wantNames)
	}
	if got := req.ResponseFormat != nil; got != (mode == agentkit.OutputNative) {
		t.Errorf("request %d: response_format set %v in mode %s", i, got, mode)
	} else if got {
		js := req.ResponseFormat.JSONSchema
		schema, _ := js.Schema.MarshalJSON()
		if req.ResponseFormat.Type != "json_schema" || js.Name != agentkit.DefaultOutputName || string(schema) != string(spec.Schema()) {
			t.Errorf("request %d: response_format %+v, schema %s", i, req.ResponseFormat, schema)
		}
	}
	sys := req.Messages[0]
	hasSchema := strings.Contains(sys.Content, string(spec.Schema()))
	if sys.Role != "system" || !strings.HasPrefix(sys.Content, "Be brief.") || hasSchema != (mode == agentkit.OutputPrompt) {
		t.Errorf("request %d: system prompt %q (schema in it: %v) in mode %s", i, sys.Content, hasSchema, mode)
	}
}

// An answer that fails is sent back with its violations — a tool result in tool mode, a
// user message otherwise — and the next, valid one ends the run.
func TestOutputInvalidIsFedBack(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			m := agentkittest.New(t,
				answerReply(mode, `{"city":"Paris","temp_c":99,"sky":"snow"}`),
				answerReply(mode, `{"city":"Paris","temp_c":26,"sky":"sunny"}`),
			)
			a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got, _ := agentkit.ValueOf[forecast](res); got.TempC != 26 {
				t.Errorf("value %+v, want the second answer", got)
			}
			second := m.Requests()[1].Messages
			feedback := second[len(second)-1]
			wantRole := map[agentkit.OutputMode]string{agentkit.OutputTool: "tool"}[mode]
			if wantRole == "" {
				wantRole = "user"
			}
			if feedback.Role != wantRole || !strings.Contains(feedback.Content, "/temp_c") || !strings.Contains(feedback.Content, "/sky") {
				t.Errorf("feedback %s: %q; want a %s message naming /temp_c and /sky", feedback.Role, feedback.Content, wantRole)
			}
			if err := agentkit.ValidateHistory(res.Messages); err != nil {
				t.Errorf("transcript: %v", err)
			}
		})
	}
}

// A run whose model never gives a valid answer ends at the iteration limit with
// ErrOutputInvalid, the limit, and the last answer's violations.
func TestOutputNeverValid(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			m := agentkittest.New(t, answerReply(mode, `{"city":"Paris"}`), answerReply(mode, `not json at all`))
			a := agentkit.New(m, &agentkit.Options{MaxIterations: 2, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			var ae *tool.ArgumentError
			if !errors.Is(err, agentkit.ErrOutputInvalid) || !errors.Is(err, agentkit.ErrIterationLimit) || !errors.As(err, &ae) {
				t.Fatalf("err = %v; want ErrOutputInvalid, ErrIterationLimit and a *tool.ArgumentError", err)
			}
			if ae.Kind != tool.KindInvalidJSON {
				t.Errorf("the last answer's error is %s, want %s (the second answer's)", ae.Kind, tool.KindInvalidJSON)
			}
			if res.Value != nil || res.Stop != agentkit.StopIterationLimit {
				t.Errorf("Value %v, Stop %q", res.Value, res.Stop)
			}
		})
	}
}

// A run that only calls tools until the limit ends with ErrIterationLimit alone: the model
// gave no answer to refuse.
func TestOutputNoAnswerAtLimit(t *testing.T) {
	m := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)))
	a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, Tools: []*tool.Tool{parisWeather(nil)}, Output: agentkit.Output[forecast](nil)})
	_, err := a.Run(context.Background(), "Weather in Paris?")
	if !errors.Is(err, agentkit.ErrIterationLimit) || errors.Is(err, agentkit.ErrOutputInvalid) {
		t.Errorf("err = %v, want ErrIterationLimit only", err)
	}
}

// With FinalAnswerOnLimit, the final tool-free request of tool mode asks for the JSON in its
// last message (tool_choice "none" forbids the output tool), and its answer is validated.
func TestOutputFinalAnswerOnLimit(t *testing.T) {
	tests := []struct {
		name, final string
		wantErr     error
	}{
		{"valid", `{"city":"Paris","temp_c":26,"sky":"sunny"}`, nil},
		{"invalid", `{"city":"Paris"}`, agentkit.ErrOutputInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := agentkittest.New(t,
				agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"Paris"}`)),
				agentkittest.Text(tt.final),
			)
			spec := agentkit.Output[forecast](nil)
			a := agentkit.New(m, &agentkit.Options{MaxIterations: 1, FinalAnswerOnLimit: true, Tools: []*tool.Tool{parisWeather(nil)}, Output: spec})
			res, err := a.Run(context.Background(), "Weather in Paris?")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if _, ok := agentkit.ValueOf[forecast](res); ok != (tt.wantErr == nil) || res.Stop != agentkit.StopIterationLimit {
				t.Errorf("value given %v, Stop %q", ok, res.Stop)
			}
			final := m.Requests()[1]
			last := final.Messages[len(final.Messages)-1]
			if final.ToolChoice != "none" || !strings.HasPrefix(last.Content, agentkit.BudgetExhaustedPrompt) || !strings.Contains(last.Content, string(spec.Schema())) {
				t.Errorf("final request: tool_choice %v, last message %q", final.ToolChoice, last.Content)
			}
			for _, msg := range res.Messages {
				if strings.Contains(msg.Content, agentkit.BudgetExhaustedPrompt) {
					t.Errorf("the transcript holds the final request's prompt: %q", msg.Content)
				}
			}
		})
	}
}

// The output tool called with another tool in one reply: both run, and the run ends with
// the answer.
func TestOutputCalledWithOtherTools(t *testing.T) {
	var calls []string
	m := agentkittest.New(t, agentkittest.ToolCalls(
		agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris","temp_c":26,"sky":"sunny"}`),
		agentkittest.Call("get_weather", `{"city":"Paris"}`),
	))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{parisWeather(&calls)}, Output: agentkit.Output[forecast](nil)})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, ok := agentkit.ValueOf[forecast](res); !ok || !cmp.Equal(calls, []string{"Paris"}) {
		t.Errorf("value given %v, weather calls %v", ok, calls)
	}
	var contents []string
	for _, msg := range res.Messages[res.New:] {
		if msg.Role == "tool" {
			contents = append(contents, msg.Content)
		}
	}
	if want := []string{"Final answer received.", "sunny, 26°C"}; !cmp.Equal(contents, want) {
		t.Errorf("tool results %q, want %q", contents, want)
	}
}

// Strict: every property required, the optional ones nullable; null decodes to the zero
// value, and response_format says strict.
func TestOutputStrict(t *testing.T) {
	m := agentkittest.New(t, agentkittest.Text(`{"city":"Paris","temp_c":26,"sky":"sunny","note":null,"tags":null}`))
	spec := agentkit.Output[forecast](&agentkit.OutputOptions{Mode: agentkit.OutputNative, Strict: true})
	var schema struct {
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
		Properties           map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(spec.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if want := []string{"city", "temp_c", "sky", "note", "tags"}; !cmp.Equal(schema.Required, want) || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Errorf("strict schema: required %v, additionalProperties %v", schema.Required, schema.AdditionalProperties)
	}
	if !strings.Contains(string(schema.Properties["note"]), "null") {
		t.Errorf("the optional note is not nullable: %s", schema.Properties["note"])
	}
	a := agentkit.New(m, &agentkit.Options{Output: spec})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, _ := agentkit.ValueOf[forecast](res); got.Note != nil || got.Tags != nil || got.City != "Paris" {
		t.Errorf("value %+v", got)
	}
	if rf := m.Requests()[0].ResponseFormat; rf == nil || !rf.JSONSchema.Strict {
		t.Errorf("response_format %+v, want strict", rf)
	}
}

// A streamed run emits the answer so far as parseable JSON, growing (one partial per 32
// bytes at first, then per quarter of the answer), the last one the whole answer, and ends
// with the validated value; in tool mode from the output tool's arguments.
func TestOutputStreamPartials(t *testing.T) {
	defer goleak.VerifyNone(t)
	const answer = `{"city":"Paris","temp_c":26,"sky":"sunny","tags":["warm","dry","light wind from the south-east","no rain before the evening","clear night","UV index 6: sun cream at noon","pollen: high","air quality: good"]}`
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			m := agentkittest.New(t, answerReply(mode, answer))
			a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
			s := a.RunStream(context.Background(), "Weather in Paris?")
			var partials []string
			for e := range s.Events() {
				if e.Kind == agentkit.EventOutputPartial {
					partials = append(partials, e.Text)
				}
			}
			res, err := s.Result()
			if err != nil {
				t.Fatalf("Result: %v", err)
			}
			if len(partials) < 5 {
				t.Fatalf("%d partials, want one per few fragments: %q", len(partials), partials)
			}
			for i, p := range partials {
				var v map[string]any
				if err := json.Unmarshal([]byte(p), &v); err != nil {
					t.Errorf("partial %d %q does not parse: %v", i, p, err)
				}
				if i > 0 && p == partials[i-1] {
					t.Errorf("partial %d repeats the one before: %q", i, p)
				}
			}
			var last, want map[string]any
			_ = json.Unmarshal([]byte(partials[len(partials)-1]), &last)
			_ = json.Unmarshal([]byte(answer), &want)
			if diff := cmp.Diff(want, last); diff != "" {
				t.Errorf("last partial (-answer +partial):\n%s", diff)
			}
			if got, _ := agentkit.ValueOf[forecast](res); got.Sky != "sunny" || len(got.Tags) != 8 {
				t.Errorf("value %+v", got)
			}
		})
	}
}

// A session stores the answer like any answer, and the next run of the session reads it.
func TestOutputSession(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			store := memory.NewInMemory()
			m := agentkittest.New(t,
				answerReply(mode, `{"city":"Paris","temp_c":26,"sky":"sunny"}`),
				answerReply(mode, `{"city":"Lyon","temp_c":24,"sky":"cloudy"}`),
			)
			a := agentkit.New(m, &agentkit.Options{Memory: store, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: mode})})
			ctx := context.Background()
			if _, err := a.RunSession(ctx, "s", "Paris?"); err != nil {
				t.Fatalf("RunSession: %v", err)
			}
			res, err := a.RunSession(ctx, "s", "And Lyon?")
			if err != nil {
				t.Fatalf("RunSession: %v", err)
			}
			if got, _ := agentkit.ValueOf[forecast](res); got.City != "Lyon" {
				t.Errorf("value %+v", got)
			}
			stored, err := store.Load(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			wantLen := map[agentkit.OutputMode]int{agentkit.OutputTool: 6}[mode] // user, call, result, twice
			if wantLen == 0 {
				wantLen = 4 // user, answer, twice
			}
			if len(stored) != wantLen || !strings.Contains(agentkit.FormatTranscript(stored), "Paris") {
				t.Errorf("stored session:\n%s", agentkit.FormatTranscript(stored))
			}
			if second := m.Requests()[1]; !strings.Contains(agentkit.FormatTranscript(second.Messages), `"Paris"`) {
				t.Errorf("the second run did not send the first answer:\n%s", agentkit.FormatTranscript(second.Messages))
			}
		})
	}
}

// Programming errors are found at construction.
func TestOutputConstructionPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
		want string
	}{
		{"unknown mode", func() { agentkit.Output[forecast](&agentkit.OutputOptions{Mode: "json"}) }, `unknown OutputMode "json"`},
		{"bad name", func() { agentkit.Output[forecast](&agentkit.OutputOptions{Name: "final answer"}) }, "name must match"},
		{"not a struct", func() { agentkit.Output[string](nil) }, "final_answer"},
		{"strict map", func() { agentkit.Output[struct{ M map[string]int }](&agentkit.OutputOptions{Strict: true}) }, "strict"},
		{"name of a tool", func() {
			agentkit.New(agentkittest.New(nil), &agentkit.Options{Tools: []*tool.Tool{parisWeather(nil)}, Output: agentkit.Output[forecast](&agentkit.OutputOptions{Name: "get_weather"})})
		}, `the output tool "get_weather"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if p == nil || !strings.Contains(panicText(p), tt.want) {
					t.Errorf("panic %v, want one saying %q", p, tt.want)
				}
			}()
			tt.f()
		})
	}
}

func panicText(p any) string {
	if err, ok := p.(error); ok {
		return err.Error()
	}
	s, _ := p.(string)
	return s
}

// ValueOf of a run without an answer, of none, and of another type.
func TestValueOf(t *testing.T) {
	if _, ok := agentkit.ValueOf[forecast](nil); ok {
		t.Error("ValueOf(nil) has a value")
	}
	if _, ok := agentkit.ValueOf[forecast](&agentkit.Result{}); ok {
		t.Error("ValueOf of a Result without Value has a value")
	}
	if got, ok := agentkit.ValueOf[forecast](&agentkit.Result{Value: forecast{City: "Paris"}}); !ok || got.City != "Paris" {
		t.Errorf("ValueOf = %+v, %v", got, ok)
	}
	defer func() {
		if recover() == nil {
			t.Error("ValueOf of another type did not panic")
		}
	}()
	agentkit.ValueOf[string](&agentkit.Result{Value: forecast{}})
}

// A turn that calls the output tool beside a call that waits for approval pauses; resumed
// (its state through JSON), it ends with the answer.
func TestOutputAcrossPause(t *testing.T) {
	ran := 0
	book := tool.New("book_table", "Book a table.", func(context.Context, struct {
		City string `json:"city"`
	}) (string, error) {
		ran++
		return "booked", nil
	}, tool.Options{RequireApproval: true})
	m := agentkittest.New(t, agentkittest.ToolCalls(
		agentkittest.CallID("c1", "book_table", `{"city":"Paris"}`),
		agentkittest.CallID("c2", agentkit.DefaultOutputName, `{"city":"Paris","temp_c":26,"sky":"sunny"}`),
	))
	a := agentkit.New(m, &agentkit.Options{Tools: []*tool.Tool{book}, Ledger: memory.NewInMemory(), Output: agentkit.Output[forecast](nil)})
	res, err := a.Run(context.Background(), "Book in Paris and tell me the weather.")
	if !errors.Is(err, agentkit.ErrPaused) || res.Value != nil {
		t.Fatalf("Run = %v, value %v; want ErrPaused and no value yet", err, res.Value)
	}
	data, err := json.Marshal(res.Pause)
	if err != nil {
		t.Fatal(err)
	}
	var back agentkit.Pause
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	res, err = a.Resume(context.Background(), &back, []agentkit.Decision{{CallID: "c1", Approve: true}})
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if got, ok := agentkit.ValueOf[forecast](res); !ok || got.City != "Paris" || ran != 1 || res.Stop != agentkit.StopAnswered {
		t.Errorf("value %+v (%v), book_table ran %d times, Stop %q", got, ok, ran, res.Stop)
	}
}

// In tool mode a reply in prose is not the answer: the model is told to call the output
// tool, and the run ends when it does.
func TestOutputToolModeProse(t *testing.T) {
	m := agentkittest.New(t,
		agentkittest.Text("It is sunny in Paris, 26°C."),
		agentkittest.ToolCalls(agentkittest.Call(agentkit.DefaultOutputName, `{"city":"Paris","temp_c":26,"sky":"sunny"}`)),
	)
	a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](nil)})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, ok := agentkit.ValueOf[forecast](res); !ok || res.Iterations != 2 {
		t.Errorf("value given %v after %d requests", ok, res.Iterations)
	}
	second := m.Requests()[1].Messages
	if last := second[len(second)-1]; last.Role != "user" || !strings.Contains(last.Content, "calling the tool final_answer") {
		t.Errorf("the correction %s %q, want a user message telling the model to call final_answer", last.Role, last.Content)
	}
}

// A Toolset's tool that has the output tool's name ends the run with StopToolsError.
func TestOutputNameTakenByToolset(t *testing.T) {
	taken := tool.New(agentkit.DefaultOutputName, "Taken.", func(context.Context, struct{}) (string, error) { return "", nil })
	a := agentkit.New(agentkittest.New(t), &agentkit.Options{
		Toolsets: []agentkit.Toolset{fixedToolset{taken}},
		Output:   agentkit.Output[forecast](nil),
	})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if res.Stop != agentkit.StopToolsError || !errors.Is(err, agentkit.ErrDuplicateTool) {
		t.Errorf("Run = %q, %v; want StopToolsError and ErrDuplicateTool", res.Stop, err)
	}
}

type fixedToolset []*tool.Tool

func (s fixedToolset) Tools(context.Context) ([]*tool.Tool, error) { return s, nil }

// A refusal (OpenAI's message.refusal, no content) ends the run at once: asking again would
// get another.
func TestOutputRefusal(t *testing.T) {
	m := agentkittest.New(t, agentkittest.Reply{Message: openai.ChatCompletionMessage{Role: "assistant", Refusal: "I can't help with that."}})
	a := agentkit.New(m, &agentkit.Options{Output: agentkit.Output[forecast](&agentkit.OutputOptions{Mode: agentkit.OutputNative})})
	res, err := a.Run(context.Background(), "Weather in Paris?")
	if !errors.Is(err, agentkit.ErrOutputInvalid) || res.Stop != agentkit.StopModelError || !strings.Contains(err.Error(), "I can't help with that.") || res.Value != nil {
		t.Errorf("Run = %q, %v, Output %q, Value %v", res.Stop, err, res.Output, res.Value)
	}
}
