package memory

import (
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
