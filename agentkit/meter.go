package agentkit

import (
	"context"
	"sync"
)

// Spend is what model calls and tool calls used: tokens and cost.
type Spend struct {
	// Usage is the token usage of the model calls.
	Usage Usage `json:"usage"`
	// Cost is their cost, with what the tool calls reported (ReportCost).
	Cost Cost `json:"cost"`
	// ModelCalls counts the model calls.
	ModelCalls int `json:"model_calls,omitempty"`
}

// Add adds o to s.
func (s *Spend) Add(o Spend) {
	s.Usage.Add(o.Usage)
	s.Cost.Add(o.Cost)
	s.ModelCalls += o.ModelCalls
}

// UsageRecorder receives what every run of an Agent spends, as it is spent
// (Options.UsageRecorder): the usage and cost of each model call (ModelCalls 1), once its
// response arrived, and the cost the tool calls of each turn reported (ModelCalls 0), once
// they ended, when it is not zero. session is the RunSession's (or ResumeSession's) session,
// "" for other runs. What a resumed run records is only what it spent itself: the paused run
// recorded the rest.
//
// An agent used as a tool ([Agent.Tool]) records its run's model calls into its own
// agent's UsageRecorder, under its caller's session; when that is the caller's recorder too
// (one Meter for the application), the caller does not record the sub-run's cost again,
// although its Result.Cost includes it. With another recorder, or none, the caller records
// the sub-run's cost as the call's.
//
// RecordUsage is called on the run's goroutine and must be safe for concurrent use: runs of
// one Agent are concurrent. A slow one slows the run; a durable one (a database, a billing
// queue) is the application's, *Meter keeps sums in memory.
type UsageRecorder interface {
	RecordUsage(ctx context.Context, session string, s Spend)
}

// Meter is a UsageRecorder that sums what is spent per session, in memory: a process's
// view, lost when it exits (record into a store of yours for a durable one). The zero Meter
// is ready to use; it is safe for concurrent use.
type Meter struct {
	mu  sync.Mutex
	by  map[string]Spend
	all Spend
}

// RecordUsage adds s to session's sum, and to the total.
func (m *Meter) RecordUsage(_ context.Context, session string, s Spend) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string]Spend{}
	}
	sum := m.by[session]
	sum.Add(s)
	m.by[session] = sum
	m.all.Add(s)
}

// Session returns what session spent so far ("" sums the runs that were not session runs).
func (m *Meter) Session(session string) Spend {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.by[session]
}

// Total returns what every run recorded spent so far.
func (m *Meter) Total() Spend {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.all
}

// record gives s to Options.UsageRecorder.
func (r *run) record(ctx context.Context, s Spend) {
	if rec := r.a.opts.UsageRecorder; rec != nil {
		rec.RecordUsage(ctx, r.recordSession(), s)
	}
}

// recordSession is the session r records under: its own, else, for a run inside a tool
// call of another run (an agent used as a tool), its caller's.
func (r *run) recordSession() string {
	if r.session == "" && r.caller != nil {
		return r.caller.session
	}
	return r.session
}
