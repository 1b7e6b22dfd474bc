package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/memorytest"
	"github.com/toolcall/toolcall/tool"
)

func TestRecallTool(t *testing.T) {
	store := memory.NewInMemory()
	ctx := context.Background()
	history := append([]openai.ChatCompletionMessage{memorytest.User("订一张去北京的票，预算 800 元")}, memorytest.Step("call_1", 1)...)
	history = append(history,
		memorytest.Assistant("北京的天气不错。"),
		memorytest.User("Book the 9:05 train, seat 12A"),
		memorytest.Assistant(strings.Repeat("long ", 400)+"END"),
	)
	store.Append(ctx, "mine", history)
	store.Append(ctx, "theirs", []openai.ChatCompletionMessage{memorytest.User("secret 北京 plans")})

	recall := memory.RecallTool(store, &memory.RecallOptions{MaxChars: 60})
	tests := []struct {
		name      string
		ctx       context.Context
		args      string
		want      string
		wantKind  tool.Kind
		wantError error
	}{
		{"no session", ctx, `{"query":"北京"}`, "", tool.KindToolError, memory.ErrNoSession},
		{"matches in order, with tool names", memory.WithSession(ctx, "mine"), `{"query":"北京 26℃"}`,
			"4 earlier message(s) match \"北京 26℃\", in conversation order:\n" +
				"#0 user: 订一张去北京的票，预算 800 元\n" +
				"#1 assistant calling tools: get_weather {\"city\":\"北京\",\"n\":0}\n" +
				"#2 tool result of get_weather: 晴，26℃ #call_1_0\n" +
				"#3 assistant: 北京的天气不错。", "", nil},
		{"case-insensitive words, best first", memory.WithSession(ctx, "mine"), `{"query":"SEAT 9:05","limit":1}`,
			"1 earlier message(s) match \"SEAT 9:05\", in conversation order:\n#4 user: Book the 9:05 train, seat 12A", "", nil},
		{"long contents are cut", memory.WithSession(ctx, "mine"), `{"query":"END"}`,
			"1 earlier message(s) match \"END\", in conversation order:\n#5 assistant: long long long long long long long long  …[1943 characters omitted]… g long long long END", "", nil},
		{"no match", memory.WithSession(ctx, "mine"), `{"query":"Shanghai"}`, `No earlier message of this conversation matches "Shanghai".`, "", nil},
		{"another session's secrets stay there", memory.WithSession(ctx, "mine"), `{"query":"secret"}`, `No earlier message of this conversation matches "secret".`, "", nil},
		{"empty query", memory.WithSession(ctx, "mine"), `{"query":"  "}`, "", tool.KindToolError, nil},
		{"missing query", memory.WithSession(ctx, "mine"), `{}`, "", tool.KindInvalidArguments, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := recall.Handle(tt.ctx, tool.Call{ID: "c", Name: memory.RecallName, Arguments: tt.args})
			if res.Kind != tt.wantKind {
				t.Fatalf("kind = %q (%s), want %q", res.Kind, res.Content, tt.wantKind)
			}
			if tt.wantError != nil && !errors.Is(res.Err, tt.wantError) {
				t.Errorf("err = %v, want %v", res.Err, tt.wantError)
			}
			if tt.want != "" {
				if diff := cmp.Diff(tt.want, res.Content); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
			}
		})
	}
	if recall.Name() != "recall_history" {
		t.Errorf("name = %q", recall.Name())
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
