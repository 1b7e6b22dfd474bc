// Command middleware shows toolcall's production middleware on three tools an operations
// assistant might have:
//
//   - search_logs returns a huge result: middleware.Truncate keeps its head and tail, and the
//     full text stays in the run's record (Result.Original);
//   - delete_user is dangerous: middleware.Approve asks you on stdin before it runs (answer
//     y to allow; anything else, or no terminal, declines — approval fails closed);
//   - billing_report is for admins only: middleware.AllowFromContext enforces the tools the
//     caller's role allows for this run (-role admin allows it);
//
// and middleware.Check refuses a delete of user ids below 1000 (system accounts) before a
// human is even asked.
//
//	go run ./examples/middleware                 # offline, scripted model; you approve on stdin
//	go run ./examples/middleware -role admin -yes
package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/openaichat"
	"github.com/toolcall/toolcall/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("middleware", flag.ContinueOnError)
	fs.SetOutput(stderr)
	role := fs.String("role", "support", "the caller's role: support or admin")
	yes := fs.Bool("yes", false, "approve every dangerous call without asking")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	question := strings.Join(fs.Args(), " ")
	if question == "" {
		question = "查一下 payment 服务最近的错误日志，删除测试用户 4242 和 7，再给我本月账单报表。"
	}

	tools := []*tool.Tool{
		tool.New("search_logs", "搜索服务日志。当用户要查看某个服务的错误或日志时使用。", func(ctx context.Context, in struct {
			Service string `json:"service" jsonschema:"description=服务名，例如：payment"`
		}) (string, error) {
			var b strings.Builder
			for i := 1; i <= 2000; i++ {
				fmt.Fprintf(&b, "2026-11-30T06:%02d:%02d %s ERROR timeout calling bank gateway (attempt %d)\n", i/60%60, i%60, in.Service, i)
			}
			return b.String(), nil
		}),
		tool.New("delete_user", "永久删除一个用户账号。仅当用户明确要求删除某个用户时使用。", func(ctx context.Context, in struct {
			UserID int `json:"user_id" jsonschema:"description=要删除的用户 ID"`
		}) (string, error) {
			return fmt.Sprintf("user %d deleted", in.UserID), nil
		}),
		tool.New("billing_report", "生成本月账单报表（仅管理员）。", func(ctx context.Context, in struct{}) (string, error) {
			return "本月收入 1,204,330 元，退款 3,210 元。", nil
		}),
	}

	allowed := []string{"search_logs", "delete_user"}
	if *role == "admin" {
		allowed = append(allowed, "billing_report")
	}
	in := bufio.NewReader(stdin)
	approve := func(ctx context.Context, call tool.Call) (bool, error) {
		if *yes {
			return true, nil
		}
		fmt.Fprintf(stderr, "approve %s %s? [y/N] ", call.Name, call.Arguments)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return false, fmt.Errorf("no answer on stdin: %w", err)
		}
		return strings.EqualFold(strings.TrimSpace(line), "y"), nil
	}

	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	agent := agentkit.New(newModel(getenv, stderr), &agentkit.Options{
		Model:          modelName(getenv),
		Tools:          tools,
		MaxConcurrency: 1, // one approval prompt at a time on the terminal
		Middleware: []tool.Middleware{
			middleware.Log(logger, nil),
			middleware.WrapErrors(nil),
			middleware.Truncate(600),
			middleware.AllowFromContext(),
			middleware.Check("delete_user", middleware.Range("user_id", 1000, 1e12)),
			middleware.Approve(approve, &middleware.ApproveOptions{Tools: []string{"delete_user"}}),
		},
	})
	res, err := agent.Run(middleware.WithAllowedTools(ctx, allowed...), question)
	if err != nil {
		fmt.Fprintln(stderr, "middleware:", err)
		return 1
	}
	for _, s := range res.Steps {
		for _, c := range s.Calls {
			status := "ok"
			if c.Result.Failed() {
				status = string(c.Result.Kind)
			}
			fmt.Fprintf(stdout, "%s %s -> %s (%d characters sent to the model", c.Call.Name, c.Call.Arguments, status, len([]rune(c.Result.Content)))
			if c.Result.Original != "" {
				fmt.Fprintf(stdout, ", %d in the full result kept for the application", len([]rune(c.Result.Original)))
			}
			fmt.Fprintln(stdout, ")")
		}
	}
	fmt.Fprintln(stdout, res.Output)
	return 0
}

func modelName(getenv func(string) string) string {
	if m := getenv("OPENAI_MODEL"); m != "" {
		return m
	}
	return "gpt-4o-mini"
}

func newModel(getenv func(string) string, stderr io.Writer) agentkit.Model {
	if key, base := getenv("OPENAI_API_KEY"), getenv("OPENAI_BASE_URL"); key != "" || base != "" {
		return openaichat.New(cmp.Or(base, "https://api.openai.com/v1"), &openaichat.Options{APIKey: key})
	}
	fmt.Fprintln(stderr, "middleware: OPENAI_API_KEY and OPENAI_BASE_URL are not set: running offline on a built-in scripted model.")
	return agentkittest.New(nil,
		agentkittest.ToolCalls(
			agentkittest.Call("search_logs", `{"service":"payment"}`),
			agentkittest.Call("delete_user", `{"user_id":4242}`),
			agentkittest.Call("delete_user", `{"user_id":7}`),
			agentkittest.Call("billing_report", `{}`),
		),
		agentkittest.Func(func(req openai.ChatCompletionRequest) agentkittest.Reply {
			var b strings.Builder
			b.WriteString("处理结果：\n")
			for _, m := range agentkittest.ToolMessages(req) {
				first, _, _ := strings.Cut(m.Content, "\n")
				fmt.Fprintf(&b, "- %s\n", first)
			}
			return agentkittest.Text(strings.TrimRight(b.String(), "\n"))
		}),
	)
}
