package agentkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
)

// The cost of EventOutputPartial: a streamed run of an answer of about 8 KiB, in fragments
// of 4 characters (the scripted model's), with a typed answer (every fragment repairs the
// answer so far) and without (the same text, no partials).
func BenchmarkOutputStream(b *testing.B) {
	type row struct {
		City string `json:"city"`
		Note string `json:"note"`
	}
	type answer struct {
		Rows []row `json:"rows"`
	}
	var a answer
	for i := range 128 {
		a.Rows = append(a.Rows, row{City: fmt.Sprintf("city-%d", i), Note: "sunny, 26°C, light wind"})
	}
	text, _ := json.Marshal(a)
	for _, typed := range []bool{false, true} {
		b.Run(fmt.Sprintf("typed=%v/bytes=%d", typed, len(text)), func(b *testing.B) {
			for b.Loop() {
				opts := &agentkit.Options{}
				if typed {
					opts.Output = agentkit.Output[answer](&agentkit.OutputOptions{Mode: agentkit.OutputNative})
				}
				s := agentkit.New(agentkittest.New(b, agentkittest.Text(string(text))), opts).RunStream(context.Background(), "go")
				for range s.Events() {
				}
				if _, err := s.Result(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
