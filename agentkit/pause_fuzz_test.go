package agentkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// tamperModel calls the pause turn's tools on the user's message, and answers once it reads
// tool results.
func tamperModel() agentkit.Model {
	return agentkit.ModelFunc(func(ctx context.Context, req openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: "好了"}
		if req.Messages[len(req.Messages)-1].Role == openai.ChatMessageRoleUser {
			msg = pauseTurn().Message
		}
		return openai.ChatCompletionResponse{Choices: []openai.ChatCompletionChoice{{Message: msg}}}, nil
	})
}

// checkTamperedResumes pauses a run (two transfers needing approval, a lookup), edits the
// serialized state with edits (position, byte pairs; none leaves it intact), and resumes it
// four times, two of them in parallel, approving alice's transfer and rejecting bob's. Then:
// the approved call ran at most once, and exactly once for an intact state; the rejected one
// never ran; with a key, a state whose meaning changed ran nothing; every transcript returned
// validates.
func checkTamperedResumes(t *testing.T, edits []byte, signed bool) {
	var b bank
	opts := &agentkit.Options{Instructions: "你是银行助手。", Tools: []*tool.Tool{b.transfer(), b.lookup()}, Ledger: &mapLedger{}}
	if signed {
		opts.PauseKey = []byte("fuzz key")
	}
	a := agentkit.New(tamperModel(), opts)
	res, err := a.Run(context.Background(), "给 alice 和 bob 转账")
	if !errors.Is(err, agentkit.ErrPaused) {
		t.Fatalf("Run = %q, %v; want a pause", res.Stop, err)
	}
	orig, err := json.Marshal(res.Pause)
	if err != nil {
		t.Fatal(err)
	}
	data := append([]byte(nil), orig...)
	for i := 0; i+1 < len(edits); i += 2 {
		data[int(edits[i])*len(data)/256] = edits[i+1]
	}
	var p agentkit.Pause
	if err := json.Unmarshal(data, &p); err != nil {
		return // not a state: nothing to resume
	}
	canon, _ := json.Marshal(&p)
	intact := string(canon) == string(orig)
	decisions := []agentkit.Decision{{CallID: "call_a", Approve: true}, {CallID: "call_b", Message: "不要给 bob"}}
	resume := func() {
		q := p // each resume its own copy of the top level; Resume does not modify a Pause
		res, err := a.Resume(context.Background(), &q, decisions)
		if res == nil {
			t.Error("Resume returned a nil Result")
			return
		}
		if verr := agentkit.ValidateHistory(res.Messages); verr != nil {
			t.Errorf("Resume (%v) left a transcript that does not validate: %v", err, verr)
		}
	}
	resume()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(resume)
	}
	wg.Wait()
	resume()

	b.mu.Lock()
	ran := append([]string(nil), b.args...)
	b.mu.Unlock()
	switch {
	case len(ran) > 1:
		t.Errorf("transfer ran %d times (%q), want at most once", len(ran), ran)
	case intact && len(ran) != 1:
		t.Errorf("an intact state's approved transfer ran %d times, want once", len(ran))
	case signed && !intact && len(ran) > 0:
		t.Errorf("a tampered signed state ran %q", ran)
	case len(ran) == 1 && ran[0] == "bob" && (signed || intact):
		t.Error("the rejected transfer to bob ran")
	}
}

func FuzzPauseTamper(f *testing.F) {
	f.Add([]byte{}, true)
	f.Add([]byte{}, false)
	f.Add([]byte{128, '9'}, true)
	f.Add([]byte{200, 'x', 201, 'y'}, false)
	f.Add([]byte{10, ' '}, true)
	f.Fuzz(func(t *testing.T, edits []byte, signed bool) {
		checkTamperedResumes(t, edits, signed)
	})
}

// The fuzzed sequence on a fixed set of random edits, in every test run.
func TestPauseTamperSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 2026))
	for i := range 300 {
		edits := make([]byte, 2*(i%4))
		for j := range edits {
			edits[j] = byte(rng.UintN(256))
		}
		checkTamperedResumes(t, edits, i%2 == 0)
	}
}
