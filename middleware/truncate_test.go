package middleware_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestTruncate(t *testing.T) {
	long := strings.Repeat("a", 50) + strings.Repeat("b", 50)
	cjk := strings.Repeat("天气", 30) // 60 characters, 180 bytes
	tests := []struct {
		name         string
		limit        int
		in           tool.Result
		want         string
		wantOriginal string
	}{
		{"short", 10, tool.Text("hello"), "hello", ""},
		{"exactly the limit", 5, tool.Text("hello"), "hello", ""},
		{"multibyte under the limit though over it in bytes", 6, tool.Text("北京天气晴朗"), "北京天气晴朗", ""},
		{"long", 10, tool.Text(long), "aaaaa\n…[truncated: 100 characters in all; 90 from the middle omitted]…\nbbbbb", long},
		{"odd limit: head gets the extra", 5, tool.Text("0123456789"), "012\n…[truncated: 10 characters in all; 5 from the middle omitted]…\n89", "0123456789"},
		{"CJK cut between characters", 7, tool.Text(cjk), "天气天气\n…[truncated: 60 characters in all; 53 from the middle omitted]…\n气天气", cjk},
		{"limit 1", 1, tool.Text("xyz"), "x\n…[truncated: 3 characters in all; 2 from the middle omitted]…\n", "xyz"},
		{"empty success", 10, tool.Text(""), tool.EmptyContent, ""},
		{"failure is capped too", 4, tool.Failure(tool.KindToolError, fmt.Errorf("%s", long)), "er\n…[truncated: 107 characters in all; 103 from the middle omitted]…\nbb", "error: " + long},
		{"inner Original kept", 4, tool.Result{Content: "abcdefgh", Original: "{\"raw\":1}"}, "ab\n…[truncated: 8 characters in all; 4 from the middle omitted]…\ngh", "{\"raw\":1}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(middleware.Truncate(tt.limit), fixed(tt.in, nil), tool.Call{Name: "x"})
			if got.Content != tt.want {
				t.Errorf("content\n got %q\nwant %q", got.Content, tt.want)
			}
			if got.Original != tt.wantOriginal {
				t.Errorf("original\n got %q\nwant %q", got.Original, tt.wantOriginal)
			}
			if got.Kind != tt.in.Kind || got.Err != tt.in.Err {
				t.Errorf("kind/err changed: %q %v", got.Kind, got.Err)
			}
			if !utf8.ValidString(got.Content) || got.Content == "" {
				t.Errorf("content %q is empty or not valid UTF-8", got.Content)
			}
		})
	}
}

// TestTruncateNeverCutsACharacter cuts mixed-width text at every limit.
func TestTruncateNeverCutsACharacter(t *testing.T) {
	s := "a北🙂é" + strings.Repeat("x京😀", 20) + "\xff" // includes an invalid byte
	n := utf8.RuneCountInString(s)
	for limit := 1; limit < n+2; limit++ {
		got := run(middleware.Truncate(limit), fixed(tool.Text(s), nil), tool.Call{}).Content
		head, tail, cut := strings.Cut(got, "\n…[truncated:")
		if !cut {
			if limit < n {
				t.Fatalf("limit %d: not truncated", limit)
			}
			continue
		}
		tail = tail[strings.Index(tail, "]…\n")+len("]…\n"):]
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
			t.Fatalf("limit %d: head %q / tail %q are not the ends of the input", limit, head, tail)
		}
		if k := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail); k != limit {
			t.Errorf("limit %d: kept %d characters", limit, k)
		}
		if !utf8.ValidString(head) || !utf8.ValidString(strings.TrimSuffix(tail, "\xff")) {
			t.Errorf("limit %d: a character was cut: %q", limit, got)
		}
	}
}

func TestTruncatePanicsOnNonPositive(t *testing.T) {
	mustPanic(t, "Truncate(0)", func() { middleware.Truncate(0) })
}

func TestBudget(t *testing.T) {
	b := middleware.NewBudget(500)
	ctx := middleware.WithBudget(context.Background(), b)
	h := middleware.Truncate(300)(func(_ context.Context, c tool.Call) tool.Result {
		return tool.Text(strings.Repeat("x", len(c.Arguments)))
	})
	kept := func(n int) int {
		got := h(ctx, tool.Call{Arguments: strings.Repeat(".", n)}).Content
		head, tail, _ := strings.Cut(got, "\n…[truncated:")
		if i := strings.Index(tail, "]…\n"); i >= 0 {
			tail = tail[i+len("]…\n"):]
		}
		return len(head) + len(tail)
	}
	steps := []struct {
		size, want, left int
	}{
		{100, 100, 400},  // under every limit
		{1000, 300, 100}, // the per-call limit
		{1000, 200, 0},   // only 100 left, but the floor is 200
		{50, 50, 0},      // short results pass
		{1000, 200, 0},   // spent: the floor again
	}
	for i, s := range steps {
		if got := kept(s.size); got != s.want {
			t.Errorf("step %d: kept %d of %d, want %d", i, got, s.size, s.want)
		}
		if got := b.Remaining(); got != s.left {
			t.Errorf("step %d: remaining %d, want %d", i, got, s.left)
		}
	}
	b.Reset()
	if got := b.Remaining(); got != 500 {
		t.Errorf("after Reset: %d, want 500", got)
	}
	if got := kept(1000); got != 300 {
		t.Errorf("after Reset: kept %d, want 300", got)
	}
}

// TestBudgetConcurrent: concurrent draws never overdraw the budget beyond the floor rule.
func TestBudgetConcurrent(t *testing.T) {
	b := middleware.NewBudget(2000)
	ctx := middleware.WithBudget(context.Background(), b)
	h := middleware.Truncate(1000)(fixed(tool.Text(strings.Repeat("y", 5000)), nil))
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 10 {
		wg.Go(func() {
			got := h(ctx, tool.Call{}).Content
			n := strings.Count(got, "y")
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	wg.Wait()
	// 2000 shared, then 200 for each of the (at least 8) calls that find it spent.
	if total < 2000 || total > 2000+10*200 {
		t.Errorf("kept %d characters in all, want between 2000 and 4000", total)
	}
	if b.Remaining() != 0 {
		t.Errorf("remaining %d, want 0", b.Remaining())
	}
}

// TestBudgetPerTurnInAgent runs two turns of two parallel calls through a real agent: the
// budget resets each turn, so both turns get the same total.
func TestBudgetPerTurnInAgent(t *testing.T) {
	big := tool.New("big", "Return n characters.", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return strings.Repeat("z", in.N), nil
	})
	model := agentkittest.New(t,
		agentkittest.ToolCalls(agentkittest.Call("big", `{"n":800}`), agentkittest.Call("big", `{"n":800}`)),
		agentkittest.ToolCalls(agentkittest.Call("big", `{"n":801}`), agentkittest.Call("big", `{"n":801}`)),
		agentkittest.Text("done"))
	agent := agentkit.New(model, &agentkit.Options{
		Tools:      []*tool.Tool{big},
		Middleware: []tool.Middleware{middleware.Truncate(600)},
		OnEvent:    middleware.ResetBudgetEachTurn,
	})
	ctx := middleware.WithBudget(context.Background(), middleware.NewBudget(1000))
	res, err := agent.Run(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res.Steps[:2] {
		total := 0
		for _, c := range s.Calls {
			total += strings.Count(c.Result.Content, "z")
			if c.Result.Original == "" {
				t.Errorf("turn %d: Original not kept", i+1)
			}
		}
		// 600 for the first call to finish, then 400 left for the other.
		if total != 1000 {
			t.Errorf("turn %d: the results kept %d characters, want 1000", i+1, total)
		}
	}
}

func ExampleTruncate() {
	h := middleware.Truncate(20)(func(ctx context.Context, call tool.Call) tool.Result {
		return tool.Text("北京：晴，26℃。" + strings.Repeat("逐小时预报……", 100) + "明天：多云。")
	})
	res := h(context.Background(), tool.Call{ID: "call_1", Name: "get_weather"})
	fmt.Println(res.Content)
	fmt.Println(utf8.RuneCountInString(res.Original), "characters kept in Original")
	// Output:
	// 北京：晴，26℃。逐
	// …[truncated: 715 characters in all; 695 from the middle omitted]…
	// 预报……明天：多云。
	// 715 characters kept in Original
}

// gatedStream plays chunks; before the last one it waits for gate, when set (or a second), as
// a model still writing while the calls started early run.
type gatedStream struct {
	chunks []openai.ChatCompletionStreamResponse
	gate   <-chan struct{}
}

func (s *gatedStream) Recv() (openai.ChatCompletionStreamResponse, error) {
	if len(s.chunks) == 0 {
		return openai.ChatCompletionStreamResponse{}, io.EOF
	}
	if len(s.chunks) == 1 && s.gate != nil {
		select {
		case <-s.gate:
		case <-time.After(time.Second):
		}
	}
	c := s.chunks[0]
	s.chunks = s.chunks[1:]
	return c, nil
}

func (s *gatedStream) Close() error { return nil }

// TestBudgetPerTurnInStreamedAgent is TestBudgetPerTurnInAgent in a streamed run, whose first
// call of a turn starts early, before EventModelResponse: ResetBudgetEachTurn resets the
// budget before the request, so each turn still keeps 1000 characters (a reset on the
// response gave the rest of the turn a full budget again: 1200).
func TestBudgetPerTurnInStreamedAgent(t *testing.T) {
	big := tool.New("big", "Return n characters.", func(ctx context.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		return strings.Repeat("z", in.N), nil
	})
	call := func(i int, id, args string) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{
			ToolCalls: []openai.ToolCall{{Index: &i, ID: id, Type: "function", Function: openai.FunctionCall{Name: "big", Arguments: args}}}}}}}
	}
	finish := func(r openai.FinishReason, text string) openai.ChatCompletionStreamResponse {
		return openai.ChatCompletionStreamResponse{Choices: []openai.ChatCompletionStreamChoice{{Delta: openai.ChatCompletionStreamChoiceDelta{Content: text}, FinishReason: r}}}
	}
	streams := [][]openai.ChatCompletionStreamResponse{
		{call(0, "a1", `{"n":800}`), call(1, "a2", `{"n":800}`), finish(openai.FinishReasonToolCalls, "")},
		{call(0, "b1", `{"n":801}`), call(1, "b2", `{"n":801}`), finish(openai.FinishReasonToolCalls, "")},
		{finish(openai.FinishReasonStop, "done")},
	}
	var mu sync.Mutex
	gates := map[int]chan struct{}{1: make(chan struct{}), 2: make(chan struct{})}
	n := 0
	model := streamingFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		return &gatedStream{chunks: streams[n-1], gate: gates[n]}, nil
	})
	agent := agentkit.New(model, &agentkit.Options{
		Tools:      []*tool.Tool{big},
		Middleware: []tool.Middleware{middleware.Truncate(600)},
		OnEvent: func(ctx context.Context, e agentkit.Event) {
			middleware.ResetBudgetEachTurn(ctx, e)
			if e.Kind == agentkit.EventToolEnd && gates[e.Iteration] != nil { // the call started early has drawn on the budget
				mu.Lock()
				defer mu.Unlock()
				select {
				case <-gates[e.Iteration]:
				default:
					close(gates[e.Iteration])
				}
			}
		},
	})
	ctx := middleware.WithBudget(context.Background(), middleware.NewBudget(1000))
	res, err := agent.RunStream(ctx, "go").Result()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res.Steps[:2] {
		total := 0
		for _, c := range s.Calls {
			total += strings.Count(c.Result.Content, "z")
		}
		if total != 1000 {
			t.Errorf("turn %d: the results kept %d characters, want 1000 (the turn's budget)", i+1, total)
		}
	}
}

// streamingFunc is a StreamingModel whose streams come from a function.
type streamingFunc func(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error)

func (f streamingFunc) CreateChatCompletion(context.Context, openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	return openai.ChatCompletionResponse{}, io.ErrUnexpectedEOF
}

func (f streamingFunc) CreateChatCompletionStream(ctx context.Context, req openai.ChatCompletionRequest) (agentkit.Stream, error) {
	return f(ctx, req)
}
