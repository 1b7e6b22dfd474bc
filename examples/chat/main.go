// Command chat is an interactive multi-turn chat whose conversation is kept in a SQLite file
// and folded into a summary when it grows: run it twice and it remembers.
//
//	go run ./examples/chat                         # offline, scripted model; type, then Ctrl-D
//	go run ./examples/chat -session me -trigger 600   # sessions in $TMPDIR/toolcall-chat.db; -db to choose
//	OPENAI_API_KEY=sk-... go run ./examples/chat
//
// Each line you type is one RunSession on the session; the agent has get_weather and the
// memory's recall_history tool (to look up details that were folded away). When the prompt
// passes -trigger tokens, the oldest turns are folded into a summary (reported on stderr);
// the full history stays in the file. Type /history to print what is stored, /quit to leave.
package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/sqlite"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

var weatherData = map[string]string{"北京": "晴，气温26℃，东南风2级", "上海": "多云，气温28℃，湿度65%", "广州": "阵雨，气温30℃，体感较热"}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", filepath.Join(os.TempDir(), "toolcall-chat.db"), "SQLite file holding the sessions")
	session := fs.String("session", "default", "session id")
	trigger := fs.Int("trigger", 600, "fold the oldest turns when the prompt passes this many tokens")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	store, err := sqlite.Open(*dbPath, nil)
	if err != nil {
		fmt.Fprintln(stderr, "chat:", err)
		return 1
	}
	defer store.Close()

	modelName := getenv("OPENAI_MODEL")
	if modelName == "" {
		modelName = "gpt-4o-mini"
	}
	var model agentkit.Model
	var summarizer memory.Summarizer
	if key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL"); key != "" || base != "" {
		client := openaichat.New(cmp.Or(base, "https://api.openai.com/v1"), &openaichat.Options{APIKey: key})
		model = client
		summarizer = memory.ModelSummarizer{Model: client, ModelName: modelName}
	} else {
		fmt.Fprintln(stderr, "chat: OPENAI_API_KEY and OPENAI_BASE_URL are not set: running offline on a scripted model that answers weather questions and repeats the rest.")
		model = offlineModel{}
		summarizer = memory.SummarizerFunc(offlineSummary)
	}

	counter := memory.NewCounter(modelName)
	weather := tool.New("get_weather", "查询指定城市的当前天气。当用户询问天气、温度、是否下雨时使用。", func(ctx context.Context, in struct {
		City string `json:"city" jsonschema:"description=城市中文名，例如：北京"`
	}) (string, error) {
		if w, ok := weatherData[in.City]; ok {
			return w, nil
		}
		return in.City + "暂无数据", nil
	})
	agent := agentkit.New(model, &agentkit.Options{
		Model:        modelName,
		Instructions: "你是一个乐于助人的智能助手。需要早先对话里的细节而摘要里没有时，调用 recall_history。",
		Tools:        []*tool.Tool{weather, memory.RecallTool(store, nil)},
		Memory:       store,
		Context: memory.Fold(memory.FoldOptions{
			Trigger:    *trigger,
			Keep:       2,
			Summarizer: summarizer,
			Counter:    counter,
			Store:      store,
			OnEvent: func(ctx context.Context, e memory.FoldEvent) {
				if e.Err != nil {
					fmt.Fprintf(stderr, "[memory] folding failed, the full history was sent: %v\n", e.Err)
					return
				}
				fmt.Fprintf(stderr, "[memory] folded %d older messages into the summary (%d → %d tokens)\n", e.Batch, e.Before, e.After)
			},
		}),
	})

	lines := bufio.NewScanner(stdin)
	fmt.Fprintf(stderr, "chat: session %q in %s. Type a message; /history, /quit.\n", *session, *dbPath)
	for {
		fmt.Fprint(stderr, "> ")
		if !lines.Scan() {
			fmt.Fprintln(stderr)
			return 0
		}
		line := strings.TrimSpace(lines.Text())
		switch line {
		case "":
			continue
		case "/quit":
			return 0
		case "/history":
			h, err := store.Load(ctx, *session)
			if err != nil {
				fmt.Fprintln(stderr, "chat:", err)
				return 1
			}
			fmt.Fprint(stdout, agentkit.FormatTranscript(h))
			continue
		}
		res, err := agent.RunSession(ctx, *session, line)
		if err != nil {
			fmt.Fprintf(stderr, "chat: %v (stop reason %s)\n", err, res.Stop)
			if res.Stop == agentkit.StopMemoryError || ctx.Err() != nil {
				return 1
			}
			continue
		}
		fmt.Fprintln(stdout, res.Output)
	}
}

var cityPattern = regexp.MustCompile(`北京|上海|广州`)

// offlineModel answers without a network: a weather question gets a get_weather call, then
// an answer from its result; anything else is repeated back with the number of messages the
// model was sent, so folding can be watched.
type offlineModel struct{}

func (offlineModel) CreateChatCompletion(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	last := req.Messages[len(req.Messages)-1]
	var reply agentkittest.Reply
	switch {
	case last.Role == openai.ChatMessageRoleTool:
		reply = agentkittest.Text("查到了：" + last.Content + "。")
	case cityPattern.MatchString(last.Content):
		reply = agentkittest.ToolCalls(agentkittest.CallID(fmt.Sprintf("call_%d", len(req.Messages)), "get_weather", `{"city":"`+cityPattern.FindString(last.Content)+`"}`))
	default:
		reply = agentkittest.Text(fmt.Sprintf("（离线）你说：%s —— 我这次收到了 %d 条消息。", last.Content, len(req.Messages)))
	}
	return agentkittest.New(nil, reply).CreateChatCompletion(ctx, req)
}

// offlineSummary is a stand-in for a model-written summary, short as a real one would be:
// how many messages the user sent before, and the last of them.
func offlineSummary(ctx context.Context, previous string, turns []openai.ChatCompletionMessage) (string, error) {
	n := 0
	fmt.Sscanf(previous, "（摘要）用户此前发了 %d 条消息", &n)
	last := ""
	for _, m := range turns {
		if m.Role == openai.ChatMessageRoleUser {
			n++
			last = m.Content
		}
	}
	return fmt.Sprintf("（摘要）用户此前发了 %d 条消息，其中最后一条是：%s", n, last), nil
}
