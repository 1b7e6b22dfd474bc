package agentkit

import (
	"context"
	"strconv"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// The tool call ids of a run, kept unique across its transcript.

// callIDs returns the set of the tool call ids of msgs.
func callIDs(msgs []openai.ChatCompletionMessage) map[string]struct{} {
	ids := make(map[string]struct{}, countCalls(msgs)+8)
	for i := range msgs {
		for _, c := range msgs[i].ToolCalls {
			ids[c.ID] = struct{}{}
		}
	}
	return ids
}

// maxStoreProbes bounds the questions uniqueID asks RecentLoader.CallIDUsed for one call: a
// store answering true to every id (broken, or unable to tell for a while) must not hang the
// run. Past it, the call's remaining candidates are checked against the transcript only.
const maxStoreProbes = 8

// uniqueID returns the id that call i of the model message about to be appended gets in the
// transcript, and records it: the model's own id when no other call of the session uses it,
// else "call_<p>_<i>", where p is the message's position in the whole session (the messages a
// Memory left out included), which no other message has — so the name is found at the first
// try unless the model itself sends ids of that form, and is the same whether the session was
// loaded whole or in part. A suffix "_<n>" resolves what collides still. An id that is not
// valid UTF-8 is replaced: distinct here, it would reach the wire as U+FFFD, the same as others.
func (r *run) uniqueID(ctx context.Context, id string, i int) string {
	if !utf8.ValidString(id) {
		id = ""
	}
	probes := 0
	used := func(id string) bool {
		if _, ok := r.ids[id]; ok {
			return true
		}
		if r.recent == nil || probes == maxStoreProbes {
			return false
		}
		probes++
		found, err := r.recent.CallIDUsed(ctx, r.session, id)
		return found || err != nil // when the store cannot tell, renaming is always safe
	}
	if id == "" || used(id) {
		base := "call_" + strconv.Itoa(r.res.Omitted+len(r.res.Messages)) + "_" + strconv.Itoa(i)
		id = base
		for n := 1; used(id); n++ {
			id = base + "_" + strconv.Itoa(n)
		}
	}
	r.ids[id] = struct{}{}
	return id
}
