package agentkit

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"sync"
)

// Price is what one model's tokens cost, per million tokens, in the currency of its table
// (the SDK knows no currency: USD, EUR, credits...).
//
// A call's [Usage] is priced without counting a token twice: its cached prompt tokens at
// CachedInput, its cache-write tokens at CacheWrite, the rest of its prompt tokens at Input
// (cached and cache-write tokens are part of PromptTokens), and all its completion tokens at
// Output (reasoning tokens are part of CompletionTokens, billed as output). A zero
// CachedInput or CacheWrite means Input: a model with no cache price is billed in full, so a
// table that leaves them out overstates a cost, never understates it.
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input,omitempty"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
}

// Of returns what u costs at p.
func (p Price) Of(u Usage) float64 {
	cached, write := p.CachedInput, p.CacheWrite
	if cached == 0 {
		cached = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	// A provider that reports more cached and written tokens than prompt tokens is believed
	// on the split, not charged a negative amount.
	plain := max(u.PromptTokens-u.CachedTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*p.Input + float64(u.CachedTokens)*cached + float64(u.CacheWriteTokens)*write + float64(u.CompletionTokens)*p.Output) / 1e6
}

// Prices is a price table by model name: Options.Prices. The SDK ships none — prices change
// and a stale built-in table would be a wrong bill — so the table is the application's,
// loaded from wherever it keeps them (its JSON is a Price per model name).
//
// A model call is priced under the model its response names (response.model, often a
// dated snapshot such as "gpt-4o-mini-2024-07-18"), else, when the table has no price under
// that name or the response names none, under the model of the request (Options.Model). A
// call whose model has no price has an unknown cost (see [Cost]), never a cost of 0; so has
// one whose price has a field that is negative, NaN or infinite (a table read wrong).
type Prices map[string]Price

// valid reports whether every field of p is a finite number of at least 0: a price that is
// not is no price.
func (p Price) valid() bool {
	for _, f := range []float64{p.Input, p.CachedInput, p.CacheWrite, p.Output} {
		if !isAmount(f) {
			return false
		}
	}
	return true
}

// isAmount reports whether f is a finite number of at least 0 (NaN is not).
func isAmount(f float64) bool { return f >= 0 && f <= math.MaxFloat64 }

// Cost returns the cost of a model call that used u: priced under the first name of models
// the table has a valid price for (every field a finite number of at least 0), or unknown.
func (t Prices) Cost(u Usage, models ...string) Cost {
	for _, m := range models {
		if p, ok := t[m]; ok && m != "" && p.valid() {
			return Cost{Amount: p.Of(u)}
		}
	}
	return Cost{Unknown: 1}
}

// valid returns c, or, when its Amount is not a finite number of at least 0 (a NaN, an
// infinite or a negative price or report), c with that amount counted unknown: such a
// number would make every sum it enters wrong, and a Cost limit unable to stop. A negative
// Unknown, which would make another cost look known, is taken the same way.
func (c Cost) valid() Cost {
	switch {
	case !isAmount(c.Amount):
		return Cost{Unknown: max(c.Unknown, 0) + 1}
	case c.Unknown < 0:
		return Cost{Amount: c.Amount, Unknown: 1}
	}
	return c
}

// Cost is an amount of money in the price table's currency, and how many of the things it
// sums could not be priced. The zero Cost is nothing, known.
//
// Unknown is explicit, never folded into Amount: a model call whose model is not in the
// table adds 1 to Unknown and 0 to Amount. A sum of known and unknown costs is therefore
// "at least Amount": Known reports false, and String says so.
type Cost struct {
	// Amount is the sum of what could be priced.
	Amount float64 `json:"amount"`
	// Unknown counts the parts that could not be priced: model calls of a model without a
	// valid price, a stream that broke before its usage arrived, a tool's report that was
	// no amount (see ReportCost).
	Unknown int `json:"unknown,omitempty"`
}

// Known reports whether every part of c was priced: Amount is then the whole cost, not a
// lower bound.
func (c Cost) Known() bool { return c.Unknown == 0 }

// Add adds o to c: the amounts and the unknown parts.
func (c *Cost) Add(o Cost) {
	c.Amount += o.Amount
	c.Unknown += o.Unknown
}

// String formats c: "0.0123", or "at least 0.0123 (2 unpriced)" when part is unknown.
func (c Cost) String() string {
	if c.Known() {
		return fmt.Sprintf("%.6g", c.Amount)
	}
	return fmt.Sprintf("at least %.6g (%d unpriced)", c.Amount, c.Unknown)
}

type costKey struct{}

// costReport sums what a tool call reports with ReportCost, until the call ends. It knows
// the recorder and session of the run whose call it is, for an agent run inside the call.
type costReport struct {
	mu   sync.Mutex
	c    Cost // all the call reported
	own  Cost // the part of c the call's run is to record: not what a sub-run recorded there
	done bool

	rec     UsageRecorder // the run's Options.UsageRecorder
	session string        // the run's session
}

// ReportCost reports, from inside a tool call run by an Agent (its context, or one derived
// from it), a cost the call incurred beyond tokens — a paid API, a search, a sub-agent —
// in the price table's currency: the call's CallRecord.Cost, its EventToolEnd and the run's
// Result.Cost include it. The reports of one call add up. A report made after the call
// ended (by a goroutine middleware.Timeout abandoned) is dropped, and outside a call it does
// nothing. An Amount that is not a finite number of at least 0 (NaN, an infinity, a negative
// refund) is taken as an unknown cost (Unknown 1): the SDK keeps no sum it cannot trust.
// Safe from any goroutine.
func ReportCost(ctx context.Context, c Cost) {
	if r, ok := ctx.Value(costKey{}).(*costReport); ok {
		r.add(c.valid(), false)
	}
}

// reportRun reports, from inside a tool call, the cost of an agent run the call made, whose
// spend went to rec as it was spent: the calling run's recorder does not record it again
// when it is rec.
func reportRun(ctx context.Context, rec UsageRecorder, c Cost) {
	if r, ok := ctx.Value(costKey{}).(*costReport); ok {
		r.add(c, sameRecorder(rec, r.rec))
	}
}

func (r *costReport) add(c Cost, recorded bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	r.c.Add(c)
	if !recorded {
		r.own.Add(c)
	}
}

// sameRecorder reports whether a and b are the same recorder (never panicking on a
// recorder type that cannot be compared).
func sameRecorder(a, b UsageRecorder) bool {
	return a != nil && b != nil && reflect.ValueOf(a).Comparable() && reflect.ValueOf(b).Comparable() && a == b
}

// withCostReport returns the context of one tool call of r, and what the call reports in it.
func (r *run) withCostReport(ctx context.Context) (context.Context, *costReport) {
	c := &costReport{rec: r.a.opts.UsageRecorder, session: r.recordSession()}
	return context.WithValue(ctx, costKey{}, c), c
}

// end returns what the call reported, and the part of it its run is to record; it drops
// later reports.
func (r *costReport) end() (all, own Cost) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	return r.c, r.own
}

// sumCost returns the sum of what the calls of recs reported.
func sumCost(recs []CallRecord) Cost {
	var c Cost
	for _, rec := range recs {
		c.Add(rec.Cost)
	}
	return c
}
