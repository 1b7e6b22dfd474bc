package adk

import (
	"context"
	"strconv"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/handwritten"
	"github.com/toolcall/toolcall/bench/internal/script/measure"
)

// The same benchmarks as ../bench_test.go, for adk-go; the sub-benchmark names line up with
// the other frameworks'.

func BenchmarkRound(b *testing.B) {
	b.Run(Name, func(b *testing.B) { benchRun(b, Agent(script.Round(), ""), script.Input) })
}

func BenchmarkSleep(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(Name+"/calls="+strconv.Itoa(n), func(b *testing.B) { benchRun(b, Agent(script.Sleeps(n), ""), "sleep") })
	}
}

func BenchmarkChain(b *testing.B) {
	b.Run(Name, func(b *testing.B) { benchRun(b, Agent(script.Chain(script.ChainLength), ""), "chain") })
}

func BenchmarkConversation(b *testing.B) {
	b.Run(Name+"-session", func(b *testing.B) {
		run := Conversation(script.NewConversation(script.ConversationTurns), "")
		ctx := measure.Context(b)
		b.ReportAllocs()
		for b.Loop() {
			if err := run(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRatio is ../bench_test.go's: adk-go alternating with the hand-written floor, in
// process.
func BenchmarkRatio(b *testing.B) { benchRatio(b, false) }

// BenchmarkRatioHTTP is ../bench_test.go's: through adk's OpenAI model (Responses API) and
// the floor's go-openai client (chat completions), each to its own script.Handler.
func BenchmarkRatioHTTP(b *testing.B) { benchRatio(b, true) }

func benchRatio(b *testing.B, overHTTP bool) {
	workloads := []struct {
		name   string
		script func() *script.Script
		input  string
	}{
		{"Round", script.Round, script.Input},
		{"Chain", func() *script.Script { return script.Chain(script.ChainLength) }, "chain"},
	}
	for _, w := range workloads {
		b.Run(w.name+"/"+Name, func(b *testing.B) {
			s, fs := w.script(), w.script()
			measure.Ratio(b, measure.Answer(Agent(s, measure.Endpoint(b, s, overHTTP)), w.input),
				measure.Answer(handwritten.Agent(fs, measure.Endpoint(b, fs, overHTTP)), w.input))
		})
	}
	b.Run("Conversation/"+Name+"-session", func(b *testing.B) {
		c := script.NewConversation(script.ConversationTurns)
		measure.Ratio(b, Conversation(c, measure.Endpoint(b, c.Script, overHTTP)), handwritten.Conversation(c, measure.Endpoint(b, c.Script, overHTTP), false))
	})
}

func benchRun(b *testing.B, run func(context.Context, string) (string, error), input string) {
	ctx := measure.Context(b)
	b.ReportAllocs()
	for b.Loop() {
		out, err := run(ctx, input)
		if err != nil || out == "" {
			b.Fatalf("run: %q, %v", out, err)
		}
	}
}
