package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/tool"
)

// build makes a *tool.Tool of each MCP tool.
func (r *remote) build(list []*sdkmcp.Tool) ([]*tool.Tool, error) {
	tools := make([]*tool.Tool, 0, len(list))
	seen := map[string]string{} // the model's name → the server's
	for _, mt := range list {
		name := modelName(r.srv.Prefix, mt.Name)
		switch other, dup := seen[name]; {
		case mt.Name == "":
			return nil, fmt.Errorf("mcp: server %q lists a tool without a name", r.srv.Name)
		case dup && other == mt.Name:
			return nil, fmt.Errorf("mcp: server %q lists the tool %q twice", r.srv.Name, mt.Name)
		case dup:
			return nil, fmt.Errorf("mcp: server %q lists the tools %q and %q, which are both offered to the model as %q (the characters providers refuse become underscores)", r.srv.Name, other, mt.Name, name)
		}
		seen[name] = mt.Name
		schema, err := json.Marshal(mt.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: tool %q: the input schema: %w", r.srv.Name, mt.Name, err)
		}
		var out json.RawMessage
		if mt.OutputSchema != nil {
			if out, err = json.Marshal(mt.OutputSchema); err != nil {
				return nil, fmt.Errorf("mcp: server %q: tool %q: the output schema: %w", r.srv.Name, mt.Name, err)
			}
		}
		if len(mt.Description) > maxDescription {
			r.log.Warn("mcp: a tool's description is cut for the model", "tool", mt.Name, "bytes", len(mt.Description), "kept", maxDescription)
		}
		a := annotations(mt)
		fn := func(ctx context.Context, args json.RawMessage) (*Result, error) {
			return r.call(ctx, mt.Name, out, args)
		}
		t, err := tool.Raw(name, description(r.srv.Name, mt), schema, fn,
			tool.Options{Annotations: a, Sequential: r.c.opts.Sequential(r.srv.Name, a)})
		if err != nil {
			return nil, fmt.Errorf("mcp: server %q: %w", r.srv.Name, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// modelName is the name the model calls the server's tool name by: prefix and name, each
// character providers refuse in a function name (MCP allows dots, and SDKs let any string
// through) an underscore, and a name longer than providers accept cut to 55 bytes followed
// by "_" and 8 hex digits of a hash of the whole, which keeps two long names apart. Prefix is
// checked by Connect.
func modelName(prefix, name string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, c := range name {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > maxNameLen {
		sum := sha256.Sum256([]byte(prefix + name))
		s = s[:maxNameLen-9] + "_" + hex.EncodeToString(sum[:4])
	}
	return s
}

// maxNameLen is the longest function name providers accept (see namePattern).
const maxNameLen = 64

// maxDescription bounds the bytes of a tool's description the model reads: a description
// is sent with every model request, and a server's is data, not code.
const maxDescription = 16 << 10

// description is what the model reads of a tool: the server's description (cut at
// maxDescription bytes, saying so), or, when the server gave none (tool.Raw refuses an
// empty one), its title or a sentence naming it.
func description(server string, t *sdkmcp.Tool) string {
	switch {
	case len(t.Description) > maxDescription:
		n := maxDescription
		for n > 0 && !utf8.RuneStart(t.Description[n]) { // not in the middle of a character
			n--
		}
		return fmt.Sprintf("%s\n[This description was cut at %d of its %d bytes.]", t.Description[:n], n, len(t.Description))
	case strings.TrimSpace(t.Description) != "":
		return t.Description
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, server)
}

// annotations maps MCP's tool annotations to toolcall's, with the same meanings and
// defaults; the title is the tool's, else its annotations'.
func annotations(t *sdkmcp.Tool) tool.Annotations {
	a := tool.Annotations{Title: t.Title}
	h := t.Annotations
	if h == nil {
		return a
	}
	if a.Title == "" {
		a.Title = h.Title
	}
	a.ReadOnly, a.Idempotent = h.ReadOnlyHint, h.IdempotentHint
	if h.DestructiveHint != nil {
		v := *h.DestructiveHint
		a.Destructive = &v
	}
	if h.OpenWorldHint != nil {
		v := *h.OpenWorldHint
		a.OpenWorld = &v
	}
	return a
}
