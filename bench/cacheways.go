package bench

import (
	"context"
	"fmt"
	"strings"

	einoopenai "github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/reduction"
	einotool "github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/nlpodyssey/openai-agents-go/agents"
	"github.com/openai/openai-go/v2/packages/param"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

// CacheWay is one way of keeping the history of the prompt-cache workload.
type CacheWay struct {
	// Name is the way's row in the table.
	Name string
	// Run runs turns turns of the workload on fresh state, through the way's own OpenAI
	// client pointed at url (a CacheServer's BaseURL).
	Run func(ctx context.Context, url string, turns int) error
}

// CacheTrigger is the token budget the workload's strategies use (Fold's Trigger, Window's
// Budget): about 20 turns.
const CacheTrigger = 8000

// CacheWays returns toolcall's strategies, then the peers' ways of keeping a history:
// openai-agents-go's LimitMemory (the latest items of a session), eino's tool reduction
// middleware (old tool results cleared past a token count).
func CacheWays() []CacheWay {
	tc := func(name string, strategy func() agentkit.ContextStrategy) CacheWay {
		return CacheWay{Name: name, Run: func(ctx context.Context, url string, turns int) error {
			return runToolcallCache(ctx, url, turns, strategy())
		}}
	}
	counter := memory.NewCounter(CacheModel)
	fold := func() agentkit.ContextStrategy {
		return memory.Fold(memory.FoldOptions{Trigger: CacheTrigger, Summarizer: CacheSummarizer(), Counter: counter})
	}
	return []CacheWay{
		tc("everything sent", func() agentkit.ContextStrategy { return nil }),
		tc("`Window{MaxTurns: 20, Block: 1}` (one turn at a time)", func() agentkit.ContextStrategy {
			return memory.Window(memory.WindowOptions{MaxTurns: 20, Block: 1})
		}),
		tc("`Window{MaxTurns: 20}`", func() agentkit.ContextStrategy { return memory.Window(memory.WindowOptions{MaxTurns: 20}) }),
		tc("`Window{Budget: 8000}`", func() agentkit.ContextStrategy {
			return memory.Window(memory.WindowOptions{Budget: CacheTrigger, Counter: counter})
		}),
		tc("`ClearToolResults(2)`", func() agentkit.ContextStrategy { return memory.ClearToolResults(2) }),
		tc("`Fold{Trigger: 8000}`", fold),
		tc("`Chain(Fold, ClearToolResults(2), Window{Budget: 10000})`", func() agentkit.ContextStrategy {
			return memory.Chain(fold(), memory.ClearToolResults(2), memory.Window(memory.WindowOptions{Budget: 10_000, Counter: counter}))
		}),
		{Name: "openai-agents-go `LimitMemory: 80` (20 turns)", Run: runAgentsCache},
		{Name: "eino `reduction` (clear all but 2 rounds past 8,000 tokens)", Run: runEinoCache},
	}
}

// RunCache runs way on a new CacheServer and returns its CacheStats.
func RunCache(ctx context.Context, way CacheWay, turns int) (CacheStats, error) {
	srv := NewCacheServer()
	defer srv.Close()
	if err := way.Run(ctx, srv.BaseURL(), turns); err != nil {
		return CacheStats{}, fmt.Errorf("%s: %w", way.Name, err)
	}
	if bad := srv.Errors(); len(bad) > 0 {
		return CacheStats{}, fmt.Errorf("%s: %d requests the script could not answer, the first: %s", way.Name, len(bad), bad[0])
	}
	return Cache(memory.NewCounter(CacheModel), srv.Requests()), nil
}

type reportIn struct {
	City string `json:"city" jsonschema:"description=The name of the city in English"`
}

// runToolcallCache runs the workload with RunSession on an InMemory store, strategy as
// Options.Context (nil: everything sent), through openaichat.
func runToolcallCache(ctx context.Context, url string, turns int, strategy agentkit.ContextStrategy) error {
	turn := 0
	report := tool.New(CacheToolName, CacheToolDescription, func(ctx context.Context, in reportIn) (string, error) {
		return CacheReport(in.City, turn), nil
	})
	a := agentkit.New(openaichat.New(url, &openaichat.Options{APIKey: "bench"}), &agentkit.Options{
		Model: CacheModel, Instructions: CacheInstructions, Tools: []*tool.Tool{report},
		Memory: memory.NewInMemory(), Context: strategy,
	})
	for turn = range turns {
		res, err := a.RunSession(ctx, "s", CacheInput(turn))
		if err != nil {
			return err
		}
		if res.Stop != agentkit.StopAnswered {
			return fmt.Errorf("turn %d: stop %s", turn, res.Stop)
		}
	}
	return nil
}

// CacheSummarizer is the scripted summarizer of the workload's Fold: deterministic, it keeps
// one line per city, with the latest turn that asked about it, as a model's summary would
// keep the facts still useful.
func CacheSummarizer() memory.Summarizer {
	return memory.SummarizerFunc(func(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
		latest := map[string]string{}
		for _, line := range strings.Split(previous, "\n")[1:] {
			if city, _, ok := strings.Cut(line, ": "); ok {
				latest[city] = line
			}
		}
		for _, m := range turns {
			if m.Role != openai.ChatMessageRoleUser {
				continue
			}
			i := cacheTurnOf(m.Content)
			if i < 0 {
				continue
			}
			city := cacheCities[i%len(cacheCities)]
			latest[city] = fmt.Sprintf("%s: asked at turn %d; the report allowed the deliveries to go ahead", city, i+1)
		}
		var b strings.Builder
		b.WriteString("The dispatcher asked about the deliveries in these cities (the latest question of each):")
		for _, city := range cacheCities {
			if line, ok := latest[city]; ok {
				b.WriteString("\n" + line)
			}
		}
		return b.String(), nil
	})
}

// runAgentsCache runs the workload with openai-agents-go: a Runner with a session
// (agentsSession) and LimitMemory = 80 items, 20 turns of a user message, a function call,
// its output and an answer; its chat completions model on its own OpenAI client.
func runAgentsCache(ctx context.Context, url string, turns int) error {
	turn := 0
	report := agents.NewFunctionTool(CacheToolName, CacheToolDescription, func(ctx context.Context, in reportIn) (string, error) {
		return CacheReport(in.City, turn), nil
	})
	a := agents.New("Assistant").WithInstructions(CacheInstructions).
		WithModelInstance(agents.NewOpenAIChatCompletionsModel(CacheModel, agents.NewOpenaiClient(param.NewOpt(url), param.NewOpt("bench")))).
		WithTools(report)
	cfg := agentsConfig()
	cfg.Session = &agentsSession{id: "s"}
	cfg.LimitMemory = 80
	r := agents.Runner{Config: cfg}
	for turn = range turns {
		if _, err := r.Run(ctx, a, CacheInput(turn)); err != nil {
			return err
		}
	}
	return nil
}

// runEinoCache runs the workload with eino: a ChatModelAgent whose handler is eino's tool
// reduction middleware (adk/middlewares/reduction), clearing the tool results of all but the
// latest 2 rounds when the request passes MaxTokensForClear = CacheTrigger (its own estimate,
// 4 characters a token; no truncation, no offloading backend), the app keeping the history
// and passing it to Runner.Run, as eino has no session store; eino-ext's OpenAI chat model.
func runEinoCache(ctx context.Context, url string, turns int) error {
	turn := 0
	report := must(utils.InferTool(CacheToolName, CacheToolDescription, func(ctx context.Context, in reportIn) (string, error) {
		return CacheReport(in.City, turn), nil
	}))
	reduce, err := reduction.New(ctx, &reduction.Config{SkipTruncation: true, MaxTokensForClear: CacheTrigger, ClearRetentionSuffixLimit: 2})
	if err != nil {
		return err
	}
	a, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "assistant", Description: "a logistics assistant", Instruction: CacheInstructions,
		Model:       must(einoopenai.NewChatModel(ctx, &einoopenai.ChatModelConfig{APIKey: "bench", BaseURL: url, Model: CacheModel})),
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []einotool.BaseTool{report}}},
		Handlers:    []adk.ChatModelAgentMiddleware{reduce},
	})
	if err != nil {
		return err
	}
	r := adk.NewRunner(ctx, adk.RunnerConfig{Agent: a})
	var hist []*schema.Message
	for turn = range turns {
		hist = append(hist, schema.UserMessage(CacheInput(turn)))
		if _, err := einoDrain(r.Run(ctx, hist), func(m *schema.Message) { hist = append(hist, m) }); err != nil {
			return fmt.Errorf("eino turn %d: %w", turn, err)
		}
	}
	return nil
}
