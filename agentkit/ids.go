package agentkit

import (
	"context"
	"strconv"
)

// The tool call ids of a run, kept unique across its transcript.

// addID records a tool call id of the transcript.
func (r *run) addID(id string) { r.ids.add(id) }

// maxOmittedProbes bounds the questions uniqueID asks History.CallIDUsed for one call: a
// Memory answering true to every id (broken, or unable to tell for a while) must not hang
// the run. Past it, the call's remaining candidates are checked against what the run
// sees; the next call asks again.
const maxOmittedProbes = 8

// uniqueID returns the id that call i of the model message about to be appended gets in the
// transcript, and records it: the model's own id when no other call of the transcript
// uses it, else "call_<p>_<i>", where p is the message's position in the whole transcript
// (messages a Memory left out included), which no other message of the transcript has
// — so the name is found at the first try unless the model itself sends ids of that form,
// and is the same whether a session was loaded whole or in part. A suffix "_<n>" resolves
// what collides still.
func (r *run) uniqueID(ctx context.Context, id string, i int) string {
	if id == "" || r.ids.has(ctx, id, true) {
		base := "call_" + strconv.Itoa(r.res.Omitted+len(r.res.Messages)) + "_" + strconv.Itoa(i)
		id = base
		for n := 1; r.ids.has(ctx, id, n < maxOmittedProbes); n++ {
			id = base + "_" + strconv.Itoa(n)
		}
	}
	r.addID(id)
	return id
}

// callIDs is the set of the tool call ids of a run's transcript: those of the history it
// began with, collected when the history was validated, those of the messages a Memory left
// out of it (asked through History.CallIDUsed), and those the run added. A run adds
// a few, kept in an array and searched in order; past its size they move to a map.
type callIDs struct {
	hist    *idSet                             // nil until the history is validated
	omitted func(context.Context, string) bool // History.CallIDUsed of a session loaded in part, or nil
	few     [8]string
	n       int
	set     map[string]struct{}
}

func (s *callIDs) add(id string) {
	if s.set != nil {
		s.set[id] = struct{}{}
		return
	}
	if s.n < len(s.few) {
		s.few[s.n] = id
		s.n++
		return
	}
	s.set = make(map[string]struct{}, 2*len(s.few))
	for _, x := range s.few {
		s.set[x] = struct{}{}
	}
	s.set[id] = struct{}{}
}

// has reports whether a call of the transcript uses id; with askOmitted, also one of the
// messages a Memory left out of it.
func (s *callIDs) has(ctx context.Context, id string, askOmitted bool) bool {
	if s.hist != nil && s.hist.has(id) {
		return true
	}
	if askOmitted && s.omitted != nil && s.omitted(ctx, id) {
		return true
	}
	if s.set != nil {
		_, ok := s.set[id]
		return ok
	}
	for _, x := range s.few[:s.n] {
		if x == id {
			return true
		}
	}
	return false
}
