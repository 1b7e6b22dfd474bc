package redis_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/memory/redis"
	"github.com/toolcall/toolcall/tool"
)

// Child processes: the test binary started again with childEnv naming its part, and the
// server's address, the key prefix and the child's number in the environment. A child is
// another process of the fleet, with its own client and Store.
const (
	childEnv    = "REDIS_STORE_TEST_CHILD"
	childAddr   = "REDIS_STORE_TEST_ADDR"
	childPrefix = "REDIS_STORE_TEST_PREFIX"
	childID     = "REDIS_STORE_TEST_ID"
)

// startChild starts the test binary as a child playing mode, its stdout piped.
func startChild(t *testing.T, mode, addr, prefix string, id int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childAddr+"="+addr, childPrefix+"="+prefix, childID+"="+strconv.Itoa(id))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

func runChild(mode string) int {
	c := goredis.NewClient(&goredis.Options{Addr: os.Getenv(childAddr)})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := redis.New(ctx, c, &redis.Options{Prefix: os.Getenv(childPrefix)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	id, _ := strconv.Atoi(os.Getenv(childID))
	switch mode {
	case "append-loop":
		err = appendLoop(ctx, s)
	case "run-session":
		err = runSessionChild(ctx, s, id)
	default:
		err = fmt.Errorf("unknown child mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// bigBatch is the k-th batch of the append loop: a user message and a step of 64 tool calls
// whose results are 16 KiB each, a batch of about 1 MiB.
func bigBatch(k int) []openai.ChatCompletionMessage {
	msgs := append([]openai.ChatCompletionMessage{memorytest.User("batch " + strconv.Itoa(k))}, memorytest.Step("call_"+strconv.Itoa(k), 64)...)
	for i := range msgs[2:] {
		msgs[2+i].Content += strings.Repeat("晴", 16<<10/3)
	}
	return msgs
}

// appendLoop appends bigBatch(0), bigBatch(1)… until killed, printing "acked k" once the
// k-th is acknowledged.
func appendLoop(ctx context.Context, s *redis.Store) error {
	for k := 0; ; k++ {
		if err := s.Append(ctx, "big", bigBatch(k)); err != nil {
			return err
		}
		fmt.Println("acked", k)
	}
}

// runSessionChild runs one RunSession of the session "race" on a scripted model: two steps
// of one tool call each, then an answer; every message names the child ("p<id>").
func runSessionChild(ctx context.Context, s *redis.Store, id int) error {
	p := "p" + strconv.Itoa(id)
	weather := tool.New("get_weather", "Current weather of a city.", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		time.Sleep(10 * time.Millisecond) // widen the window another run could interleave in
		return in.City + "：晴 " + p, nil
	})
	var n atomic.Int32
	model := agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
		switch i := n.Add(1); i {
		case 1, 2:
			msg.ToolCalls = []openai.ToolCall{{ID: fmt.Sprintf("call_%s_%d", p, i), Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: "get_weather", Arguments: `{"city":"北京"}`}}}
		default:
			msg.Content = "answer " + p
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg, FinishReason: openai.FinishReasonStop}}}, nil
	})
	agent := agentkit.New(model, &agentkit.Options{Tools: []*tool.Tool{weather}, Memory: s})
	res, err := agent.RunSession(ctx, "race", "question "+p)
	if err != nil {
		return err
	}
	if res.Output != "answer "+p {
		return fmt.Errorf("output %q", res.Output)
	}
	return nil
}
