package adk

import (
	"context"
	"strconv"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// The same benchmarks as ../bench_test.go, for adk-go; the sub-benchmark names line up with
// the other frameworks'.

func BenchmarkRound(b *testing.B) {
	b.Run(Name, func(b *testing.B) { benchRun(b, Agent(script.Round()), script.Input) })
}

func BenchmarkSleep(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(Name+"/calls="+strconv.Itoa(n), func(b *testing.B) { benchRun(b, Agent(script.Sleeps(n)), "sleep") })
	}
}

func BenchmarkChain(b *testing.B) {
	b.Run(Name, func(b *testing.B) { benchRun(b, Agent(script.Chain(script.ChainLength)), "chain") })
}

func BenchmarkConversation(b *testing.B) {
	b.Run(Name+"-session", func(b *testing.B) {
		run := Conversation(script.NewConversation(script.ConversationTurns))
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if err := run(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchRun(b *testing.B, run func(context.Context, string) (string, error), input string) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := run(ctx, input)
		if err != nil || out == "" {
			b.Fatalf("run: %q, %v", out, err)
		}
	}
}
