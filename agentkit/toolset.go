package agentkit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

// A Toolset is a set of tools whose list may change while an Agent lives: an MCP server's,
// which the server updates and announces. Before each model request, a run asks every
// Toolset of Options.Toolsets for its tools; the request offers them beside Options.Tools,
// and the calls of its reply resolve against them — a list that changes while a turn's calls
// run takes effect at the next request, never in the middle of a turn.
//
// Tools is called from the run's goroutine, concurrently by concurrent runs. It should be
// fast (a cached list): it is on every request's path. An error ends the run with
// StopToolsError; a name that two tools share (in one Toolset, across Toolsets, or with
// Options.Tools) is such an error, naming the tool.
type Toolset interface {
	Tools(ctx context.Context) ([]*tool.Tool, error)
}

// ErrDuplicateTool reports two tools of one request that share a name.
var ErrDuplicateTool = errors.New("agentkit: two tools share a name")

// toolbox is the tools one request offers, by name, and their definitions.
type toolbox struct {
	byName map[string]*tool.Tool
	names  []string // sorted, for error messages
	defs   []openai.Tool
}

// add adds tools to b, refusing a name b has.
func (b *toolbox) add(tools []*tool.Tool, from string) error {
	for i, t := range tools {
		if t == nil {
			return fmt.Errorf("agentkit: %s[%d] is nil", from, i)
		}
		if _, dup := b.byName[t.Name()]; dup {
			return fmt.Errorf("%w: %q (%s)", ErrDuplicateTool, t.Name(), from)
		}
		b.byName[t.Name()] = t
		b.defs = append(b.defs, Definition(t))
	}
	b.names = slices.Sorted(maps.Keys(b.byName))
	return nil
}

// toolbox returns the tools of a request: the Agent's own, and its Toolsets' of the moment.
func (a *Agent) toolbox(ctx context.Context) (*toolbox, error) {
	if len(a.opts.Toolsets) == 0 {
		return &a.tools, nil
	}
	b := &toolbox{byName: maps.Clone(a.tools.byName), defs: slices.Clone(a.tools.defs)}
	for i, ts := range a.opts.Toolsets {
		tools, err := ts.Tools(ctx)
		if err == nil {
			err = b.add(tools, fmt.Sprintf("Toolsets[%d]", i))
		}
		if err != nil {
			return nil, &toolsError{fmt.Errorf("agentkit: the tools of Toolsets[%d]: %w", i, err)}
		}
	}
	return b, nil
}

// toolsError marks a failure of Options.Toolsets.
type toolsError struct{ err error }

func (e *toolsError) Error() string { return e.err.Error() }
func (e *toolsError) Unwrap() error { return e.err }

type toolboxKey struct{}

// toolboxOf returns the tools of the request whose calls ctx serves.
func (a *Agent) toolboxOf(ctx context.Context) *toolbox {
	if b, ok := ctx.Value(toolboxKey{}).(*toolbox); ok {
		return b
	}
	return &a.tools
}
