package bench

import (
	"strconv"
	"testing"

	"github.com/toolcall/toolcall/bench/internal/script"
	"github.com/toolcall/toolcall/bench/internal/script/measure"
)

// The benchmarks. BenchmarkRatio and BenchmarkRatioHTTP are the ones BENCHMARKS.md reports
// (go run ./cmd/report regenerates it); the plain ones run one framework at a time, for
// profiles:
//
//	go test -run '^$' -bench 'Round/toolcall' -cpuprofile cpu.out
//
// Every run is under a context that can be canceled (measure.Context), as a server request's is.

// BenchmarkRound is workload 1: one round with two parallel calls, then an answer.
func BenchmarkRound(b *testing.B) {
	for _, fw := range Frameworks() {
		b.Run(fw.Name, func(b *testing.B) { benchRun(b, fw.Agent(script.Round(), ""), script.Input) })
	}
}

// BenchmarkSleep is workload 2: a round of eight calls of a tool sleeping 50 ms, and the same
// round with one call for comparison; ns/op is the wall time of a round.
func BenchmarkSleep(b *testing.B) {
	for _, n := range []int{1, 8} {
		for _, fw := range Frameworks() {
			b.Run(fw.Name+"/calls="+strconv.Itoa(n), func(b *testing.B) { benchRun(b, fw.Agent(script.Sleeps(n), ""), "sleep") })
		}
	}
}

// BenchmarkChain is workload 3: 20 turns of one call each, each argument the previous result.
func BenchmarkChain(b *testing.B) {
	for _, fw := range Frameworks() {
		b.Run(fw.Name, func(b *testing.B) { benchRun(b, fw.Agent(script.Chain(script.ChainLength), ""), "chain") })
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
				run := conv.New(c, "")
				ctx := measure.Context(b)
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

// BenchmarkRatio runs workloads 1, 3 and 4 on each framework and on the hand-written floor
// alternately, with the scripted model in process (see measure.Ratio for the metrics).
func BenchmarkRatio(b *testing.B) { benchRatio(b, false) }

// BenchmarkRatioHTTP is BenchmarkRatio with every model call made by the framework's own
// OpenAI client to a script.Handler over loopback (httptest): encoding the request, the round
// trip and decoding the response are part of the cost.
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
	floor := HandWritten()
	for _, w := range workloads {
		for _, fw := range Frameworks()[1:] {
			b.Run(w.name+"/"+fw.Name, func(b *testing.B) {
				s, fs := w.script(), w.script()
				measure.Ratio(b, measure.Answer(fw.Agent(s, measure.Endpoint(b, s, overHTTP)), w.input), measure.Answer(floor.Agent(fs, measure.Endpoint(b, fs, overHTTP)), w.input))
			})
		}
	}
	c := script.NewConversation(script.ConversationTurns)
	for _, fw := range Frameworks()[1:] {
		for _, conv := range fw.Conversations {
			b.Run("Conversation/"+fw.Name+"-"+conv.Name, func(b *testing.B) {
				measure.Ratio(b, conv.New(c, measure.Endpoint(b, c.Script, overHTTP)), floorConversation(conv.Windowed).New(c, measure.Endpoint(b, c.Script, overHTTP)))
			})
		}
	}
}

// floorConversation is the hand-written way of running workload 4 that a way of the
// frameworks is compared with: the one sending the same window when windowed, else the one
// sending everything.
func floorConversation(windowed bool) Conversation {
	for _, c := range HandWritten().Conversations {
		if c.Windowed == windowed {
			return c
		}
	}
	panic("bench: no hand-written conversation")
}

func benchRun(b *testing.B, run Run, input string) {
	ctx := measure.Context(b)
	b.ReportAllocs()
	for b.Loop() {
		out, err := run(ctx, input)
		if err != nil || out == "" {
			b.Fatalf("run: %q, %v", out, err)
		}
	}
}
