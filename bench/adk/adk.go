package adk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync/atomic"

	"google.golang.org/genai"

	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/model/openaimodel"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/functiontool"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// Name is the framework's name in the tables.
const Name = "adk-go"

// llm is the scripted model behind adk's model.LLM. Every response is new (the flow keeps and
// annotates it); the decoded arguments are shared.
type llm struct{ s *script.Script }

func (m *llm) Name() string { return "scripted" }

func (m *llm) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		yield(m.reply(req.Contents), nil)
	}
}

func (m *llm) reply(cs []*genai.Content) *model.LLMResponse {
	v := &script.View{}
	if n := len(cs); n > 0 {
		for _, p := range cs[n-1].Parts {
			if fr := p.FunctionResponse; fr != nil {
				v.Results = append(v.Results, script.Result{ID: fr.ID, Content: responseText(fr.Response)})
			}
		}
	}
	for j := len(cs) - 1; j >= 0 && v.LastUser == ""; j-- {
		if cs[j].Role != genai.RoleUser {
			continue
		}
		for _, p := range cs[j].Parts {
			if p.Text != "" {
				v.LastUser = p.Text
			}
		}
	}
	r := m.s.Next(v)
	c := &genai.Content{Role: genai.RoleModel}
	if r.Text != "" {
		c.Parts = append(c.Parts, &genai.Part{Text: r.Text})
	}
	for _, call := range r.Calls {
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: &genai.FunctionCall{ID: call.ID, Name: call.Name, Args: call.Map}})
	}
	return &model.LLMResponse{Content: c, FinishReason: genai.FinishReasonStop,
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 20, TotalTokenCount: 120}}
}

// responseText is a function response as the model would read it: the "result" (or "error")
// value when it is a string, JSON otherwise.
func responseText(r map[string]any) string {
	for _, k := range []string{"result", "error"} {
		if s, ok := r[k].(string); ok {
			if k == "error" {
				return "error: " + s
			}
			return s
		}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

type cityIn struct {
	City string `json:"city" jsonschema:"城市中文名，例如：北京、上海、广州"`
}

type exprIn struct {
	Expression string `json:"expression" jsonschema:"数学表达式，例如：12.5 * 4 + 2"`
}

type stepIn struct {
	N int `json:"n" jsonschema:"上一步的结果"`
}

type none struct{}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// tools declares the tools with functiontool.New, as adk's examples do.
func tools(names []string) []tool.Tool {
	var out []tool.Tool
	for _, name := range names {
		cfg := functiontool.Config{Name: name, Description: script.Descriptions[name]}
		switch name {
		case "get_weather":
			out = append(out, must(functiontool.New(cfg, func(ctx agent.Context, in cityIn) (string, error) { return script.Weather(in.City), nil })))
		case "calculate":
			out = append(out, must(functiontool.New(cfg, func(ctx agent.Context, in exprIn) (string, error) { return script.Calculate(in.Expression), nil })))
		case "sleep":
			out = append(out, must(functiontool.New(cfg, func(ctx agent.Context, in none) (string, error) { return script.Sleep(ctx), nil })))
		case "step":
			out = append(out, must(functiontool.New(cfg, func(ctx agent.Context, in stepIn) (string, error) { return script.Step(in.N), nil })))
		case "slow":
			out = append(out, must(functiontool.New(cfg, func(ctx agent.Context, in none) (string, error) { return script.Slow(ctx), nil })))
		case "fast":
			out = append(out, must(functiontool.New(cfg, func(ctx agent.Context, in none) (string, error) { return script.Fast(ctx), nil })))
		default:
			panic("adk bench: no tool " + name)
		}
	}
	return out
}

// newRunner builds an llmagent and a runner on an in-memory session service, as the README
// and examples do.
func newRunner(s *script.Script, m model.LLM) (*runner.Runner, session.Service) {
	a := must(llmagent.New(llmagent.Config{
		Name:        "assistant",
		Model:       m,
		Description: "a helpful assistant",
		Instruction: script.Instructions,
		Tools:       tools(s.Tools),
	}))
	svc := session.InMemoryService()
	r := must(runner.New(runner.Config{AppName: "bench", Agent: a, SessionService: svc, AutoCreateSession: true}))
	return r, svc
}

var errNoAnswer = errors.New("adk bench: run ended without an answer")

// turn runs one user message in a session and returns the answer.
func turn(ctx context.Context, r *runner.Runner, sessionID, input string) (string, error) {
	var out string
	answered := false
	for ev, err := range r.Run(ctx, "u", sessionID, genai.NewContentFromText(input, genai.RoleUser), agent.RunConfig{}) {
		if err != nil {
			return "", err
		}
		if ev == nil || ev.Content == nil || ev.Partial || ev.Content.Role != genai.RoleModel {
			continue
		}
		text, calls := "", false
		for _, p := range ev.Content.Parts {
			text += p.Text
			calls = calls || p.FunctionCall != nil
		}
		if !calls && text != "" {
			out, answered = text, true
		}
	}
	if !answered {
		return "", errNoAnswer
	}
	return out, nil
}

// Model returns the model of s: the scripted one behind adk's model.LLM in process when url
// is "", else adk's own OpenAI model (model/openaimodel, on openai-go) pointed at url, the
// base URL of a script.Handler serving s. That model speaks only the Responses API.
func Model(s *script.Script, url string) model.LLM {
	if url == "" {
		return &llm{s: s}
	}
	return must(openaimodel.NewModel(context.Background(), "gpt-4o-mini", &openaimodel.ClientConfig{APIKey: "bench", BaseURL: url}))
}

// Agent returns a run of one user message through an adk agent for s whose model is
// Model(s, url): a new session per run, deleted after it.
func Agent(s *script.Script, url string) func(ctx context.Context, input string) (string, error) {
	return agentOn(s, Model(s, url))
}

func agentOn(s *script.Script, m model.LLM) func(ctx context.Context, input string) (string, error) {
	r, svc := newRunner(s, m)
	var n atomic.Int64
	return func(ctx context.Context, input string) (string, error) {
		id := "s" + strconv.FormatInt(n.Add(1), 10)
		defer svc.Delete(ctx, &session.DeleteRequest{AppName: "bench", UserID: "u", SessionID: id})
		return turn(ctx, r, id, input)
	}
}

// Conversation returns a function running the whole conversation of c in a new session of
// session.InMemoryService (adk-go v2.2.0 has no history trimming or compaction: every event is
// sent), with the model Model(c.Script, url).
func Conversation(c *script.Conversation, url string) func(ctx context.Context) error {
	r, svc := newRunner(c.Script, Model(c.Script, url))
	var n atomic.Int64
	return func(ctx context.Context) error {
		id := "c" + strconv.FormatInt(n.Add(1), 10)
		defer svc.Delete(ctx, &session.DeleteRequest{AppName: "bench", UserID: "u", SessionID: id})
		for _, in := range c.Inputs {
			if _, err := turn(ctx, r, id, in); err != nil {
				return fmt.Errorf("adk turn %q: %w", in, err)
			}
		}
		return nil
	}
}
