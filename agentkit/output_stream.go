package agentkit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
	openai "github.com/sashabaranov/go-openai"
)

// maxPartialBytes is the size of answer past which a stream emits no more
// EventOutputPartial but the last, and that one only when the answer is JSON as it came:
// each partial repairs the whole answer so far, and jsonrepair's time grows with the square
// of the text for some (malformed) text — 0.6 s for 8 KiB of objects without commas, 5 s for
// 64 KiB of numbers without commas — with no way to stop it. The bound is the one package
// tool puts on its own repairs.
const maxPartialBytes = 8 << 10

// minPartialStep is the growth, in bytes, of the answer between two repairs, at least; it
// is a quarter of the answer past 128 bytes, so that the repairs of one answer cost a few
// times one repair of the whole (BenchmarkOutputStream).
const minPartialStep = 32

// outputPartials emits the EventOutputPartial events of one streamed model call: the
// reply's text so far, or the output tool's arguments so far, repaired into JSON. Its
// methods do nothing on a nil *outputPartials (a run without Options.Output).
type outputPartials struct {
	r        *run
	ctx      context.Context
	iter     int
	text     strings.Builder
	call     int    // the output tool call's position in the message, -1 when none began
	repaired int    // the size of the answer repaired last
	last     string // the partial emitted last, not emitted twice
}

// outputPartials returns the partials of model call iter, or nil when the run has no
// Output.
func (r *run) outputPartials(ctx context.Context, iter int) *outputPartials {
	if r.a.opts.Output == nil {
		return nil
	}
	return &outputPartials{r: r, ctx: ctx, iter: iter, call: -1}
}

// addText takes a fragment of the reply's content.
func (p *outputPartials) addText(s string) {
	if p == nil || p.call >= 0 {
		return
	}
	p.text.WriteString(s)
	p.emit(p.text.String(), false)
}

// started takes the start of tool call i, named name.
func (p *outputPartials) started(i int, name string) {
	if p != nil && p.call < 0 && p.r.isAnswer(name) {
		p.call = i
	}
}

// chunk takes the state of the message after a chunk: the output tool's arguments so far.
func (p *outputPartials) chunk(asm *Assembler) {
	if p == nil || p.call < 0 {
		return
	}
	p.emit(asm.Call(p.call).Function.Arguments, false)
}

// flush emits the answer as the message ended, when the last partial was older.
func (p *outputPartials) flush(asm *Assembler) {
	switch {
	case p == nil:
	case p.call >= 0:
		p.emit(asm.Call(p.call).Function.Arguments, true)
	default:
		p.emit(p.text.String(), true)
	}
}

// whole emits the partial of a message that came whole, from a model that cannot stream:
// the output tool's arguments, or the text.
func (p *outputPartials) whole(msg openai.ChatCompletionMessage) {
	if p == nil {
		return
	}
	for i, c := range msg.ToolCalls {
		if p.started(i, c.Function.Name); p.call >= 0 {
			p.emit(c.Function.Arguments, true)
			return
		}
	}
	p.emit(answer(msg), true)
}

// emit emits so, repaired, when it grew enough since the last repair (or at the end, when
// all is true).
func (p *outputPartials) emit(so string, all bool) {
	step := max(minPartialStep, p.repaired/4)
	if !all && (len(so) > maxPartialBytes || len(so) < p.repaired+step) || strings.TrimSpace(so) == "" {
		return
	}
	p.repaired = len(so)
	fixed := strings.TrimSpace(so)
	if !json.Valid([]byte(fixed)) {
		if len(so) > maxPartialBytes {
			return
		}
		var err error
		if fixed, err = repairPartial(so); err != nil {
			return
		}
	}
	if !strings.HasPrefix(fixed, "{") || fixed == p.last {
		return
	}
	p.last = fixed
	p.r.emit(p.ctx, Event{Kind: EventOutputPartial, Iteration: p.iter, Text: fixed})
}

// repairPartial repairs a partial answer into parseable JSON, a panic of the repairer
// (a library's, on text the model wrote) becoming an error as in package tool: a partial
// that cannot be shown is skipped, never the run's end.
func repairPartial(s string) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("repair failed: %v", p)
		}
	}()
	return jsonrepair.Repair(s)
}
