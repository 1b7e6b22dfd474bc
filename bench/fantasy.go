package bench

import (
	"context"
	"errors"

	"charm.land/fantasy"
	fantasyopenai "charm.land/fantasy/providers/openai"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// fantasyModel is the scripted model behind fantasy.LanguageModel. Generate returns a copy of
// a response built once; Stream yields the parts a provider would (text start/delta/end, or
// one tool_call part per call), then finish.
type fantasyModel struct {
	s    *script.Script
	resp []fantasy.Response
}

func newFantasyModel(s *script.Script) *fantasyModel {
	m := &fantasyModel{s: s, resp: make([]fantasy.Response, len(s.Replies))}
	for i, r := range s.Replies {
		resp := fantasy.Response{FinishReason: fantasy.FinishReasonStop, Usage: fantasy.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}}
		if r.Text != "" {
			resp.Content = append(resp.Content, fantasy.TextContent{Text: r.Text})
		}
		for _, c := range r.Calls {
			resp.Content = append(resp.Content, fantasy.ToolCallContent{ToolCallID: c.ID, ToolName: c.Name, Input: c.Args})
			resp.FinishReason = fantasy.FinishReasonToolCalls
		}
		m.resp[i] = resp
	}
	return m
}

func (m *fantasyModel) view(call fantasy.Call) *script.View {
	v := &script.View{}
	p := call.Prompt
	if n := len(p); n > 0 && p[n-1].Role == fantasy.MessageRoleTool {
		for _, part := range p[n-1].Content {
			if r, ok := part.(fantasy.ToolResultPart); ok {
				v.Results = append(v.Results, script.Result{ID: r.ToolCallID, Content: fantasyOutput(r.Output)})
			}
		}
	}
	for j := len(p) - 1; j >= 0; j-- {
		if p[j].Role == fantasy.MessageRoleUser {
			for _, part := range p[j].Content {
				if t, ok := part.(fantasy.TextPart); ok {
					v.LastUser = t.Text
				}
			}
			break
		}
	}
	return v
}

func fantasyOutput(o fantasy.ToolResultOutputContent) string {
	switch o := o.(type) {
	case fantasy.ToolResultOutputContentText:
		return o.Text
	case fantasy.ToolResultOutputContentError:
		if o.Error != nil {
			return "error: " + o.Error.Error()
		}
		return "error"
	}
	return ""
}

func (m *fantasyModel) Generate(ctx context.Context, call fantasy.Call) (*fantasy.Response, error) {
	r := m.resp[m.s.Next(m.view(call)).N]
	return &r, nil
}

func (m *fantasyModel) Stream(ctx context.Context, call fantasy.Call) (fantasy.StreamResponse, error) {
	r := m.s.Next(m.view(call))
	return func(yield func(fantasy.StreamPart) bool) {
		finish := fantasy.FinishReasonStop
		if r.Text != "" {
			if !yield(fantasy.StreamPart{Type: fantasy.StreamPartTypeTextStart, ID: "0"}) ||
				!yield(fantasy.StreamPart{Type: fantasy.StreamPartTypeTextDelta, ID: "0", Delta: r.Text}) ||
				!yield(fantasy.StreamPart{Type: fantasy.StreamPartTypeTextEnd, ID: "0"}) {
				return
			}
		}
		for _, c := range r.Calls {
			finish = fantasy.FinishReasonToolCalls
			if !yield(fantasy.StreamPart{Type: fantasy.StreamPartTypeToolCall, ID: c.ID, ToolCallName: c.Name, ToolCallInput: c.Args}) {
				return
			}
		}
		yield(fantasy.StreamPart{Type: fantasy.StreamPartTypeFinish, FinishReason: finish, Usage: fantasy.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120}})
	}, nil
}

var errNoObjects = errors.New("bench: the scripted model generates no objects")

func (m *fantasyModel) GenerateObject(context.Context, fantasy.ObjectCall) (*fantasy.ObjectResponse, error) {
	return nil, errNoObjects
}

func (m *fantasyModel) StreamObject(context.Context, fantasy.ObjectCall) (fantasy.ObjectStreamResponse, error) {
	return nil, errNoObjects
}

func (m *fantasyModel) Provider() string { return "scripted" }
func (m *fantasyModel) Model() string    { return "scripted" }

type fantasyCity struct {
	City string `json:"city" description:"城市中文名，例如：北京、上海、广州"`
}

type fantasyExpr struct {
	Expression string `json:"expression" description:"数学表达式，例如：12.5 * 4 + 2"`
}

type fantasyStep struct {
	N int `json:"n" description:"上一步的结果"`
}

type fantasyNone struct{}

// fantasyTools declares the tools with fantasy.NewAgentTool (README), or
// fantasy.NewParallelAgentTool when parallel: only Agent.Stream runs those concurrently.
func fantasyTools(names []string, parallel bool) []fantasy.AgentTool {
	newTool := func(name string, fn any) fantasy.AgentTool {
		d := script.Descriptions[name]
		text := fantasy.NewTextResponse
		switch fn := fn.(type) {
		case func(ctx context.Context, in fantasyCity) string:
			f := func(ctx context.Context, in fantasyCity, _ fantasy.ToolCall) (fantasy.ToolResponse, error) {
				return text(fn(ctx, in)), nil
			}
			if parallel {
				return fantasy.NewParallelAgentTool(name, d, f)
			}
			return fantasy.NewAgentTool(name, d, f)
		case func(ctx context.Context, in fantasyExpr) string:
			f := func(ctx context.Context, in fantasyExpr, _ fantasy.ToolCall) (fantasy.ToolResponse, error) {
				return text(fn(ctx, in)), nil
			}
			if parallel {
				return fantasy.NewParallelAgentTool(name, d, f)
			}
			return fantasy.NewAgentTool(name, d, f)
		case func(ctx context.Context, in fantasyStep) string:
			f := func(ctx context.Context, in fantasyStep, _ fantasy.ToolCall) (fantasy.ToolResponse, error) {
				return text(fn(ctx, in)), nil
			}
			if parallel {
				return fantasy.NewParallelAgentTool(name, d, f)
			}
			return fantasy.NewAgentTool(name, d, f)
		case func(ctx context.Context, in fantasyNone) string:
			f := func(ctx context.Context, in fantasyNone, _ fantasy.ToolCall) (fantasy.ToolResponse, error) {
				return text(fn(ctx, in)), nil
			}
			if parallel {
				return fantasy.NewParallelAgentTool(name, d, f)
			}
			return fantasy.NewAgentTool(name, d, f)
		}
		panic("bench: fantasy tool " + name)
	}
	var out []fantasy.AgentTool
	for _, name := range names {
		switch name {
		case "get_weather":
			out = append(out, newTool(name, func(ctx context.Context, in fantasyCity) string { return script.Weather(in.City) }))
		case "calculate":
			out = append(out, newTool(name, func(ctx context.Context, in fantasyExpr) string { return script.Calculate(in.Expression) }))
		case "sleep":
			out = append(out, newTool(name, func(ctx context.Context, in fantasyNone) string { return script.Sleep(ctx) }))
		case "step":
			out = append(out, newTool(name, func(ctx context.Context, in fantasyStep) string { return script.Step(in.N) }))
		case "slow":
			out = append(out, newTool(name, func(ctx context.Context, in fantasyNone) string { return script.Slow(ctx) }))
		case "fast":
			out = append(out, newTool(name, func(ctx context.Context, in fantasyNone) string { return script.Fast(ctx) }))
		default:
			panic("bench: no tool " + name)
		}
	}
	return out
}

// fantasyLanguageModel is the model of s: the scripted one in process when url is "", else
// fantasy's OpenAI provider (chat completions, on openai-go) pointed at url.
func fantasyLanguageModel(s *script.Script, url string) fantasy.LanguageModel {
	if url == "" {
		return newFantasyModel(s)
	}
	p := must(fantasyopenai.New(fantasyopenai.WithBaseURL(url), fantasyopenai.WithAPIKey("bench")))
	return must(p.LanguageModel(context.Background(), "gpt-4o-mini"))
}

func newFantasyAgent(s *script.Script, url string, parallel bool) fantasy.Agent {
	return fantasy.NewAgent(fantasyLanguageModel(s, url),
		fantasy.WithSystemPrompt(script.Instructions),
		fantasy.WithTools(fantasyTools(s.Tools, parallel)...),
		fantasy.WithStopConditions(fantasy.StepCountIs(script.MaxIterations)),
	)
}

// Fantasy is charm.land/fantasy as its README teaches: NewAgent, NewAgentTool, Generate
// (over HTTP, its OpenAI provider). Generate runs the calls of a turn one after the other.
func Fantasy() Framework {
	return Framework{
		Name: "fantasy",
		Agent: func(s *script.Script, url string) Run {
			a := newFantasyAgent(s, url, false)
			return func(ctx context.Context, input string) (string, error) {
				res, err := a.Generate(ctx, fantasy.AgentCall{Prompt: input})
				if err != nil {
					return "", err
				}
				return res.Response.Content.Text(), nil
			}
		},
		Conversations: []Conversation{{
			Name: "messages",
			Note: "no memory in fantasy: the app keeps []fantasy.Message (AgentCall.Messages) and appends each step's Messages: everything is sent",
			New: func(c *script.Conversation, url string) func(ctx context.Context) error {
				a := newFantasyAgent(c.Script, url, false)
				return func(ctx context.Context) error {
					var hist []fantasy.Message
					for _, in := range c.Inputs {
						res, err := a.Generate(ctx, fantasy.AgentCall{Prompt: in, Messages: hist})
						if err != nil {
							return err
						}
						hist = append(hist, fantasy.NewUserMessage(in))
						for _, st := range res.Steps {
							hist = append(hist, st.Messages...)
						}
					}
					return nil
				}
			},
		}},
	}
}

// FantasyStream is fantasy's concurrent path: NewParallelAgentTool and Agent.Stream, which
// runs parallel-safe tools at most 5 at a time; over HTTP, every model call streams
// (server-sent events).
func FantasyStream() Framework {
	return Framework{
		Name: "fantasy-stream",
		Agent: func(s *script.Script, url string) Run {
			a := newFantasyAgent(s, url, true)
			return func(ctx context.Context, input string) (string, error) {
				res, err := a.Stream(ctx, fantasy.AgentStreamCall{Prompt: input})
				if err != nil {
					return "", err
				}
				return res.Response.Content.Text(), nil
			}
		},
	}
}
