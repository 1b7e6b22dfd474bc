// Package measure is what the benchmarks of the bench and bench/adk modules share: the
// context every run is under, the scripted model served over loopback HTTP, and the
// interleaved ratio to the hand-written floor that BENCHMARKS.md reports.
package measure

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/toolcall/toolcall/bench/internal/script"
)

// Context is the context of every run: one that can be canceled and has a deadline, as a
// server request's has, canceled at the end of the test. Never context.Background(): a loop
// may take paths a server never does when ctx.Done() is nil.
func Context(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}

// Endpoint returns the base URL (ending in /v1) of a new [script.Handler] serving s over
// loopback (httptest), closed at the end of the test; or "", the scripted model in process,
// when overHTTP is false.
func Endpoint(tb testing.TB, s *script.Script, overHTTP bool) string {
	if !overHTTP {
		return ""
	}
	srv := httptest.NewServer(script.Handler(s))
	tb.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// Answer turns a run of one input into a step of [Ratio] that fails without an answer.
func Answer(run func(ctx context.Context, input string) (string, error), input string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		out, err := run(ctx, input)
		if err == nil && out == "" {
			err = fmt.Errorf("bench: no answer to %q", input)
		}
		return err
	}
}

// Ratio runs theirs and the floor alternately under one [Context], after one untimed pair.
// Run one after the other, two benchmarks see different loads on a shared machine;
// alternating within one benchmark exposes both to the same load. It reports the ratio of their total times (x-handwritten)
// and each side's time per run (ns/run, floor-ns/run); then, with the timer stopped, each
// side's bytes and allocations per run (B/run, allocs/run, floor-B/run, floor-allocs/run),
// measured apart because they do not depend on the load. ns/op is the time of one pair.
func Ratio(b *testing.B, theirs, floor func(ctx context.Context) error) {
	ctx := Context(b)
	// One pair before the timed ones: a conversation through HTTP takes long enough that a
	// benchmark may time a single pair, which would then include the connections' set-up
	// and the heap's first growth.
	if err, ferr := theirs(ctx), floor(ctx); err != nil || ferr != nil {
		b.Fatalf("run: %v; hand-written: %v", err, ferr)
	}
	var t, f time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		err := theirs(ctx)
		mid := time.Now()
		ferr := floor(ctx)
		end := time.Now()
		if err != nil || ferr != nil {
			b.Fatalf("run: %v; hand-written: %v", err, ferr)
		}
		t += mid.Sub(start)
		f += end.Sub(mid)
		n++
	}
	b.ReportMetric(float64(t)/float64(f), "x-handwritten")
	b.ReportMetric(float64(t.Nanoseconds())/float64(n), "ns/run")
	b.ReportMetric(float64(f.Nanoseconds())/float64(n), "floor-ns/run")
	runs := max(1, min(20, int(200*time.Millisecond*time.Duration(n)/(t+f))))
	bytes, allocs := allocsPerRun(b, ctx, theirs, runs)
	b.ReportMetric(bytes, "B/run")
	b.ReportMetric(allocs, "allocs/run")
	bytes, allocs = allocsPerRun(b, ctx, floor, runs)
	b.ReportMetric(bytes, "floor-B/run")
	b.ReportMetric(allocs, "floor-allocs/run")
}

// allocsPerRun returns the bytes and the allocations of the process per run of f, averaged
// over runs runs (like testing.AllocsPerRun, without setting GOMAXPROCS to 1). Over HTTP they
// include the scripted server's decoding of each request.
func allocsPerRun(b *testing.B, ctx context.Context, f func(ctx context.Context) error, runs int) (bytes, allocs float64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if err := f(ctx); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs), float64(after.Mallocs-before.Mallocs) / float64(runs)
}
