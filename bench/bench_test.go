package bench

import (
	"context"
	"strconv"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// The benchmarks: one sub-benchmark per framework, named so that benchstat lines them up.
// Run them with
//
//	go test -run XXX -bench . -benchmem -count 10 | tee new.txt

// BenchmarkRound is workload 1: one round with two parallel calls, then an answer.
func BenchmarkRound(b *testing.B) {
	for _, fw := range Frameworks() {
		b.Run(fw.Name, func(b *testing.B) { benchRun(b, fw.Agent(script.Round()), script.Input) })
	}
}

// BenchmarkSleep is workload 2: a round of eight calls of a tool sleeping 50 ms, and the same
// round with one call for comparison; ns/op is the wall time of a round.
func BenchmarkSleep(b *testing.B) {
	for _, n := range []int{1, 8} {
		for _, fw := range Frameworks() {
			b.Run(fw.Name+"/calls="+strconv.Itoa(n), func(b *testing.B) { benchRun(b, fw.Agent(script.Sleeps(n)), "sleep") })
		}
	}
}

// BenchmarkChain is workload 3: 20 turns of one call each, each argument the previous result.
func BenchmarkChain(b *testing.B) {
	for _, fw := range Frameworks() {
		b.Run(fw.Name, func(b *testing.B) { benchRun(b, fw.Agent(script.Chain(script.ChainLength)), "chain") })
	}
}

// BenchmarkConversation is workload 4: a 200-turn conversation (one call and one answer per
// turn, 400 model calls), with each framework's history management; one op is the whole
// conversation on fresh state.
func BenchmarkConversation(b *testing.B) {
	c := script.NewConversation(script.ConversationTurns)
	for _, fw := range Frameworks() {
		for _, conv := range fw.Conversations {
			b.Run(fw.Name+"-"+conv.Name, func(b *testing.B) {
				run := conv.New(c)
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if err := run(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func benchRun(b *testing.B, run Run, input string) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := run(ctx, input)
		if err != nil || out == "" {
			b.Fatalf("run: %q, %v", out, err)
		}
	}
}
