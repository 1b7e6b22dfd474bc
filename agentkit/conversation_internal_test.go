package agentkit

import (
	"context"
	"testing"
	"unsafe"

	openai "github.com/sashabaranov/go-openai"
)

// A turn appends to the conversation's array, which grows by doubling: a long chat moves it a
// few times, not at every turn (a turn would then cost the whole conversation's length).
func TestConversationAppendsInPlace(t *testing.T) {
	model := ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "ok"}}}}, nil
	})
	conv, err := New(model, nil).NewConversation()
	if err != nil {
		t.Fatal(err)
	}
	const turns = 64
	moves := 0
	var last unsafe.Pointer
	for range turns {
		if _, err := conv.Run(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
		if p := unsafe.Pointer(&conv.msgs[0]); p != last {
			moves++
			last = p
		}
	}
	if moves > 12 {
		t.Errorf("the conversation's array moved %d times in %d turns: turns copy the transcript", moves, turns)
	}
}
