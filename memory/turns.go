package memory

import (
	"encoding/binary"
	"hash/fnv"
	"slices"

	openai "github.com/sashabaranov/go-openai"
)

// layout locates the turns of a transcript, the units every strategy cuts at.
//
// A turn is a user message and everything up to the next user message: the model's replies,
// its tool calls and their results.
// Cutting only between turns never separates a tool call from its results, since a tool
// block ends at the first message that is not a tool message.
// Everything before the first user message (the system prompt) is the head, always kept with
// the first user message. The units are what follows: unit 0 is the rest of turn 0 (the
// replies to the first user message, possibly empty), unit i the whole turn i.
type layout struct {
	first int   // index of the first user message, or -1 when there is none
	units []int // start index of each unit; units[0] == first+1
	n     int   // len(msgs)
}

func newLayout(msgs []openai.ChatCompletionMessage) layout {
	l := layout{first: -1, n: len(msgs)}
	for i := range msgs {
		switch {
		case msgs[i].Role != openai.ChatMessageRoleUser:
		case l.first < 0:
			l.first = i
			l.units = append(l.units, i+1)
		default:
			l.units = append(l.units, i)
		}
	}
	return l
}

// start returns the index of the first message of unit u; len(msgs) for u == len(units).
func (l *layout) start(u int) int {
	if u >= len(l.units) {
		return l.n
	}
	return l.units[u]
}

// keepFrom returns the first unit of the latest keep turns (keep >= 1): the units before it
// may be cut. It is 0 when the transcript has no more than keep turns.
func (l *layout) keepFrom(keep int) int {
	return max(len(l.units)-keep, 0)
}

// unitAt returns the unit that starts at message index i, or -1 when no unit starts there.
func (l *layout) unitAt(i int) int {
	if i == l.n {
		return len(l.units)
	}
	if u, ok := slices.BinarySearch(l.units, i); ok {
		return u
	}
	return -1
}

// stableCut returns the unit, among lo..hi (1 <= lo <= hi < len(units)), at which a strategy
// cuts: the one whose boundary has the least fingerprint, the leftmost on ties. The choice
// depends on the content around the boundaries, not on their positions, so that it holds as
// the history grows, across restarts and processes, and in a transcript loaded in part (whose
// first turns are not the session's): while the range lo..hi slides forward by one turn per
// turn, its minimum stays where it is until it leaves the range, or a smaller one enters it,
// on average every (hi-lo+2)/2 turns rather than every turn (the "winnowing" of Schleimer,
// Wilkerson and Aiken, 2003). A boundary's fingerprint covers the turn before it and the user
// message that starts the next one, but no tool result's content, which ClearToolResults
// changes.
func (l *layout) stableCut(msgs []openai.ChatCompletionMessage, lo, hi int) int {
	best, bestFP := lo, uint64(0)
	for u := lo; u <= hi; u++ {
		h := fnv.New64a()
		var b [8]byte
		for i := max(l.start(u-1), l.first); i <= l.start(u) && i < l.n; i++ {
			binary.LittleEndian.PutUint64(b[:], fingerprint(&msgs[i]))
			h.Write(b[:])
		}
		if fp := h.Sum64(); u == lo || fp < bestFP {
			best, bestFP = u, fp
		}
	}
	return best
}
