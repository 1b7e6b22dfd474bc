package bench

import (
	"context"
	"fmt"
	"sync"

	"github.com/nlpodyssey/openai-agents-go/agents"
	agentsmemory "github.com/nlpodyssey/openai-agents-go/memory"
	"github.com/nlpodyssey/openai-agents-go/tracing"
	"github.com/nlpodyssey/openai-agents-go/usage"
	"github.com/openai/openai-go/v2/packages/param"
	"github.com/openai/openai-go/v2/responses"
	"github.com/openai/openai-go/v2/shared/constant"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// agentsModel is the scripted model behind openai-agents-go's agents.Model (Responses API
// items), written like the SDK's own agentstesting.FakeModel: the output items are built once,
// the usage is new for every response.
type agentsModel struct {
	s   *script.Script
	out [][]agents.TResponseOutputItem
}

func newAgentsModel(s *script.Script) *agentsModel {
	m := &agentsModel{s: s, out: make([][]agents.TResponseOutputItem, len(s.Replies))}
	for i, r := range s.Replies {
		var items []agents.TResponseOutputItem
		if r.Text != "" {
			items = append(items, responses.ResponseOutputItemUnion{
				ID: "msg_1", Type: "message", Role: constant.ValueOf[constant.Assistant](),
				Content: []responses.ResponseOutputMessageContentUnion{{Text: r.Text, Type: "output_text"}},
				Status:  string(responses.ResponseOutputMessageStatusCompleted),
			})
		}
		for _, c := range r.Calls {
			items = append(items, responses.ResponseOutputItemUnion{ID: "fc_" + c.ID, CallID: c.ID, Type: "function_call", Name: c.Name, Arguments: c.Args})
		}
		m.out[i] = items
	}
	return m
}

func (m *agentsModel) view(in agents.Input) *script.View {
	v := &script.View{}
	switch in := in.(type) {
	case agents.InputString:
		v.LastUser = string(in)
	case agents.InputItems:
		i := len(in)
		for i > 0 && in[i-1].OfFunctionCallOutput != nil {
			i--
		}
		for _, it := range in[i:] {
			v.Results = append(v.Results, script.Result{ID: it.OfFunctionCallOutput.CallID, Content: it.OfFunctionCallOutput.Output})
		}
		for j := i - 1; j >= 0; j-- {
			if msg := in[j].OfMessage; msg != nil && msg.Role == responses.EasyInputMessageRoleUser {
				v.LastUser = msg.Content.OfString.Value
				break
			}
		}
	}
	return v
}

func (m *agentsModel) GetResponse(ctx context.Context, p agents.ModelResponseParams) (*agents.ModelResponse, error) {
	r := m.s.Next(m.view(p.Input))
	u := usage.NewUsage()
	u.Requests, u.InputTokens, u.OutputTokens, u.TotalTokens = 1, 100, 20, 120
	return &agents.ModelResponse{Output: m.out[r.N], Usage: u}, nil
}

func (m *agentsModel) StreamResponse(context.Context, agents.ModelResponseParams, agents.ModelStreamResponseCallback) error {
	return fmt.Errorf("bench: the scripted model does not stream")
}

type agentsCity struct {
	City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
}

type agentsExpr struct {
	Expression string `json:"expression" jsonschema:"description=数学表达式，例如：12.5 * 4 + 2"`
}

type agentsStep struct {
	N int `json:"n" jsonschema:"description=上一步的结果"`
}

// agentsTools declares the tools with agents.NewFunctionTool, as the README does.
func agentsTools(names []string) []agents.Tool {
	var out []agents.Tool
	for _, name := range names {
		d := script.Descriptions[name]
		switch name {
		case "get_weather":
			out = append(out, agents.NewFunctionTool(name, d, func(ctx context.Context, in agentsCity) (string, error) { return script.Weather(in.City), nil }))
		case "calculate":
			out = append(out, agents.NewFunctionTool(name, d, func(ctx context.Context, in agentsExpr) (string, error) { return script.Calculate(in.Expression), nil }))
		case "sleep":
			out = append(out, agents.NewFunctionTool(name, d, func(ctx context.Context, in struct{}) (string, error) { return script.Sleep(ctx), nil }))
		case "step":
			out = append(out, agents.NewFunctionTool(name, d, func(ctx context.Context, in agentsStep) (string, error) { return script.Step(in.N), nil }))
		case "slow":
			out = append(out, agents.NewFunctionTool(name, d, func(ctx context.Context, in struct{}) (string, error) { return script.Slow(ctx), nil }))
		case "fast":
			out = append(out, agents.NewFunctionTool(name, d, func(ctx context.Context, in struct{}) (string, error) { return script.Fast(ctx), nil }))
		default:
			panic("bench: no tool " + name)
		}
	}
	return out
}

// agentsModelOf is the model of s: the scripted one in process when url is "", else
// openai-agents-go's chat completions model on its OpenAI client (openai-go) pointed at url.
// (The SDK's default model speaks the Responses API; its README shows this one for other
// providers, and it speaks what the others here speak.)
func agentsModelOf(s *script.Script, url string) agents.Model {
	if url == "" {
		return newAgentsModel(s)
	}
	return agents.NewOpenAIChatCompletionsModel("gpt-4o-mini", agents.NewOpenaiClient(param.NewOpt(url), param.NewOpt("bench")))
}

func newAgentsAgent(s *script.Script, url string) *agents.Agent {
	return agents.New("Assistant").
		WithInstructions(script.Instructions).
		WithModelInstance(agentsModelOf(s, url)).
		WithTools(agentsTools(s.Tools)...)
}

// agentsConfig turns tracing off: with it on (the default) every run builds spans for the
// OpenAI tracing exporter, which toolcall does not do. RunConfig.TracingDisabled alone is not
// enough in v0.1.0: function-tool spans ignore it and log "Current parent trace is no-op" at
// ERROR level on every tool call, so tracing is also disabled globally, once.
func agentsConfig() agents.RunConfig {
	agentsTracingOff.Do(func() { tracing.SetTracingDisabled(true) })
	return agents.RunConfig{TracingDisabled: true, MaxTurns: script.MaxIterations}
}

var agentsTracingOff sync.Once

// OpenAIAgents is github.com/nlpodyssey/openai-agents-go as its README teaches: agents.New,
// NewFunctionTool, a Runner.
func OpenAIAgents() Framework {
	return Framework{
		Name: "openai-agents-go",
		Agent: func(s *script.Script, url string) Run {
			a := newAgentsAgent(s, url)
			r := agents.Runner{Config: agentsConfig()}
			return func(ctx context.Context, input string) (string, error) {
				res, err := r.Run(ctx, a, input)
				if err != nil {
					return "", err
				}
				return fmt.Sprint(res.FinalOutput), nil
			}
		},
		Conversations: []Conversation{{
			Name:     "session+limit",
			Windowed: true,
			Note:     fmt.Sprintf("RunConfig.Session (its memory.Session interface, implemented in memory here: the SDK ships only SQLite and Postgres sessions) with LimitMemory = %d items (%d turns)", 4*script.WindowTurns, script.WindowTurns),
			New: func(c *script.Conversation, url string) func(ctx context.Context) error {
				a := newAgentsAgent(c.Script, url)
				return func(ctx context.Context) error {
					cfg := agentsConfig()
					cfg.Session = &agentsSession{id: "s"}
					cfg.LimitMemory = 4 * script.WindowTurns
					r := agents.Runner{Config: cfg}
					for _, in := range c.Inputs {
						if _, err := r.Run(ctx, a, in); err != nil {
							return err
						}
					}
					return nil
				}
			},
		}},
	}
}

// agentsSession is openai-agents-go's memory.Session kept in memory.
type agentsSession struct {
	id    string
	mu    sync.Mutex
	items []agentsmemory.TResponseInputItem
}

var _ agentsmemory.Session = (*agentsSession)(nil)

func (s *agentsSession) SessionID(context.Context) string { return s.id }

func (s *agentsSession) GetItems(ctx context.Context, limit int) ([]agentsmemory.TResponseInputItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	items := s.items
	if limit > 0 && len(items) > limit {
		items = items[len(items)-limit:]
	}
	return append([]agentsmemory.TResponseInputItem(nil), items...), nil
}

func (s *agentsSession) AddItems(ctx context.Context, items []agentsmemory.TResponseInputItem) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = append(s.items, items...)
	return nil
}

func (s *agentsSession) PopItem(context.Context) (*agentsmemory.TResponseInputItem, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) == 0 {
		return nil, nil
	}
	it := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return &it, nil
}

func (s *agentsSession) ClearSession(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = nil
	return nil
}
