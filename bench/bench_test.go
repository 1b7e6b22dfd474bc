package bench

import (
	"context"
	"strconv"
	"testing"
	"time"

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

// BenchmarkRatio runs workloads 1 and 3 on each framework and on the hand-written loop
// alternately, and reports the ratio of their total times ("x-handwritten"). Run one after
// the other, two benchmarks see different loads on a shared machine; alternating within one
// benchmark exposes both to the same load, so this ratio is the one to read. ns/op is the
// time of one pair.
func BenchmarkRatio(b *testing.B) {
	workloads := []struct {
		name   string
		script func() *script.Script
		input  string
	}{
		{"Round", script.Round, script.Input},
		{"Chain", func() *script.Script { return script.Chain(script.ChainLength) }, "chain"},
	}
	for _, w := range workloads {
		for _, fw := range Frameworks()[1:] {
			b.Run(w.name+"/"+fw.Name, func(b *testing.B) {
				run, floor := fw.Agent(w.script()), HandWritten().Agent(w.script())
				ctx := context.Background()
				var theirs, hand time.Duration
				b.ReportAllocs()
				for b.Loop() {
					start := time.Now()
					out, err := run(ctx, w.input)
					mid := time.Now()
					hout, herr := floor(ctx, w.input)
					end := time.Now()
					if err != nil || out == "" || herr != nil || hout == "" {
						b.Fatalf("run: %q, %v; hand-written: %q, %v", out, err, hout, herr)
					}
					theirs += mid.Sub(start)
					hand += end.Sub(mid)
				}
				b.ReportMetric(float64(theirs)/float64(hand), "x-handwritten")
			})
		}
	}
}

// BenchmarkRatioConversation is BenchmarkRatio for workload 4: each framework's ways of
// running the conversation alternate with the hand-written loop's (everything sent, no
// memory), and the ratio of their total times is reported ("x-handwritten").
func BenchmarkRatioConversation(b *testing.B) {
	ratioConversation(b, "messages", "x-handwritten", func(Conversation) bool { return true })
}

// BenchmarkRatioConversationWindowed is BenchmarkRatioConversation for the ways that send a
// window of the latest turns, against the hand-written loop that sends the same window from
// one slice ("x-handwritten-window"): the floor of history management.
func BenchmarkRatioConversationWindowed(b *testing.B) {
	ratioConversation(b, "window", "x-handwritten-window", func(c Conversation) bool { return c.Windowed })
}

// ratioConversation alternates each of the frameworks' ways of running workload 4 that keep
// accepts with the hand-written way named floorName, and reports the ratio of their total
// times as metric.
func ratioConversation(b *testing.B, floorName, metric string, keep func(Conversation) bool) {
	c := script.NewConversation(script.ConversationTurns)
	floor := handWrittenConversation(floorName).New(c)
	for _, fw := range Frameworks()[1:] {
		for _, conv := range fw.Conversations {
			if !keep(conv) {
				continue
			}
			b.Run(fw.Name+"-"+conv.Name, func(b *testing.B) {
				run := conv.New(c)
				ctx := context.Background()
				var theirs, hand time.Duration
				b.ReportAllocs()
				for b.Loop() {
					start := time.Now()
					err := run(ctx)
					mid := time.Now()
					herr := floor(ctx)
					end := time.Now()
					if err != nil || herr != nil {
						b.Fatalf("run: %v; hand-written: %v", err, herr)
					}
					theirs += mid.Sub(start)
					hand += end.Sub(mid)
				}
				b.ReportMetric(float64(theirs)/float64(hand), metric)
			})
		}
	}
}

// handWrittenConversation returns the hand-written loop's way of running workload 4 named
// name.
func handWrittenConversation(name string) Conversation {
	for _, c := range HandWritten().Conversations {
		if c.Name == name {
			return c
		}
	}
	panic("bench: no hand-written conversation " + name)
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
