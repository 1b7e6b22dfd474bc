package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/tool"
)

// recallHistory is the session the recall tests search: session "mine" holds it, session
// "theirs" a secret.
func recallHistory() []openai.ChatCompletionMessage {
	history := append([]openai.ChatCompletionMessage{memorytest.User("订一张去北京的票，预算 800 元")}, memorytest.Step("call_1", 1)...)
	return append(history,
		memorytest.Assistant("北京的天气不错。"),
		memorytest.User("Book the 9:05 train, seat 12A"),
		memorytest.Assistant(strings.Repeat("long ", 400)+"END"),
	)
}

// TestRecallTool runs recall_history as the model calls it, in a RunSession of session
// "mine" (whose context carries the session) or in a Run, which has none.
func TestRecallTool(t *testing.T) {
	tests := []struct {
		name      string
		session   bool // RunSession of "mine", else Run
		args      string
		want      string
		wantKind  tool.Kind
		wantError error
	}{
		{"no session", false, `{"query":"北京"}`, "", tool.KindToolError, memory.ErrNoSession},
		{"matches in order, with tool names", true, `{"query":"北京 26℃"}`,
			"4 earlier message(s) match \"北京 26℃\", in conversation order:\n" +
				"#0 user: 订一张去北京的票，预算 800 元\n" +
				"#1 assistant calling tools: get_weather {\"city\":\"北京\",\"n\":0}\n" +
				"#2 tool result of get_weather: 晴，26℃ #call_1_0\n" +
				"#3 assistant: 北京的天气不错。", "", nil},
		{"case-insensitive words, best first", true, `{"query":"SEAT 9:05","limit":1}`,
			"1 earlier message(s) match \"SEAT 9:05\", in conversation order:\n#4 user: Book the 9:05 train, seat 12A", "", nil},
		{"long contents are cut", true, `{"query":"END"}`,
			"1 earlier message(s) match \"END\", in conversation order:\n#5 assistant: long long long long long long long long  …[1943 characters omitted]… g long long long END", "", nil},
		{"no match", true, `{"query":"Shanghai"}`, `No earlier message of this conversation matches "Shanghai".`, "", nil},
		{"another session's secrets stay there", true, `{"query":"secret"}`, `No earlier message of this conversation matches "secret".`, "", nil},
		{"empty query", true, `{"query":"  "}`, "", tool.KindToolError, nil},
		{"missing query", true, `{}`, "", tool.KindInvalidArguments, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			store := memory.NewInMemory()
			if err := store.Append(ctx, "mine", recallHistory()); err != nil {
				t.Fatal(err)
			}
			if err := store.Append(ctx, "theirs", []openai.ChatCompletionMessage{memorytest.User("secret 北京 plans")}); err != nil {
				t.Fatal(err)
			}
			model := agentkittest.New(t, agentkittest.ToolCalls(agentkittest.CallID("c", memory.RecallName, tt.args)), agentkittest.Text("done"))
			agent := agentkit.New(model, &agentkit.Options{
				Tools:  []*tool.Tool{memory.RecallTool(store, &memory.RecallOptions{MaxChars: 60})},
				Memory: store,
			})
			var res *agentkit.Result
			var err error
			if tt.session {
				// The input is stored before the tool runs: it matches none of the queries.
				res, err = agent.RunSession(ctx, "mine", "look it up")
			} else {
				res, err = agent.Run(ctx, "look it up")
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Steps) == 0 || len(res.Steps[0].Calls) != 1 {
				t.Fatalf("steps %+v, want a first step with one call", res.Steps)
			}
			got := res.Steps[0].Calls[0].Result
			if got.Kind != tt.wantKind {
				t.Fatalf("kind = %q (%s), want %q", got.Kind, got.Content, tt.wantKind)
			}
			if tt.wantError != nil && !errors.Is(got.Err, tt.wantError) {
				t.Errorf("err = %v, want %v", got.Err, tt.wantError)
			}
			if tt.want != "" {
				if diff := cmp.Diff(tt.want, got.Content); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
			}
		})
	}
	if name := memory.RecallTool(memory.NewInMemory(), nil).Name(); name != "recall_history" {
		t.Errorf("name = %q", name)
	}
}

func TestSearchMessagesRanking(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		memorytest.User("red apple"),
		memorytest.User("green apple pie"),
		memorytest.User("apple"),
		memorytest.User("pear"),
		memorytest.User("an apple pie recipe"),
	}
	tests := []struct {
		query string
		limit int
		want  []int
	}{
		{"apple pie", 0, []int{4, 1, 2, 0}}, // phrase first, then words, recent first among equals
		{"apple", 2, []int{4, 2}},
		{"PEAR", 0, []int{3}},
		{"", 0, nil},
		{"plum", 0, nil},
	}
	for _, tt := range tests {
		var got []int
		for _, m := range memory.SearchMessages(msgs, memory.Query{Text: tt.query, Limit: tt.limit}) {
			got = append(got, m.Index)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("query %q (-want +got):\n%s", tt.query, diff)
		}
	}
}

// The model reads the whole description of each parameter of recall_history: a comma in a
// jsonschema tag's description=… would end it (invopop/jsonschema splits tags at commas).
func TestRecallToolDescribesItsParameters(t *testing.T) {
	schema := string(memory.RecallTool(memory.NewInMemory(), nil).Parameters())
	for _, want := range []string{
		"Words to look for: names, numbers, places, tool names. A message matches when it contains any of them; the more it contains the better it ranks.",
		"Most messages to return (default 5).",
	} {
		if !strings.Contains(schema, want) {
			t.Errorf("the schema lacks the description %q:\n%s", want, schema)
		}
	}
}
