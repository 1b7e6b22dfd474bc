package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/tool"
)

// Result is the output of a successful call of an MCP server's tool: the Out of its
// *tool.Tool, kept whole in tool.Result.Value for the application, while the model reads
// its ToolContent.
//
// The CallToolResult is a named field, not embedded: embedded, its MarshalJSON would be
// promoted and json.Marshal of a Result would drop Server, Tool and OutputSchema.
type Result struct {
	// Server is the Name of the ServerConfig the tool belongs to.
	Server string
	// Tool is the tool's name on its server: without the ServerConfig's Prefix, before any
	// character providers refuse is replaced (see ServerConfig.Prefix).
	Tool string
	// CallToolResult is the server's answer as the go-sdk decoded it: every content block
	// (text, images, audio, resource links, embedded resources), the structured content.
	CallToolResult *sdkmcp.CallToolResult
	// OutputSchema is the JSON Schema the server declared for the tool's structured
	// content, nil when it declared none.
	OutputSchema json.RawMessage
}

// ToolContent implements tool.Contenter: what the model reads of the result. Text blocks
// pass through verbatim, joined by newlines. Chat-completions tool messages carry only text,
// so every other block becomes a placeholder in brackets that says what was returned (its
// kind, MIME type, size, URI) and that the model cannot see it; an embedded text resource's
// text follows its placeholder. A result with structured content and no content blocks
// reads as the structured content's JSON.
func (r *Result) ToolContent() string {
	if r == nil || r.CallToolResult == nil {
		return ""
	}
	if len(r.CallToolResult.Content) == 0 && r.CallToolResult.StructuredContent != nil {
		b, err := json.Marshal(r.CallToolResult.StructuredContent)
		if err != nil {
			return fmt.Sprintf("[structured content that could not be encoded: %v]", err)
		}
		return string(b)
	}
	return render(r.CallToolResult.Content)
}

// render is the text the model reads of content blocks.
func render(content []sdkmcp.Content) string {
	parts := make([]string, 0, len(content))
	for _, c := range content {
		parts = append(parts, renderBlock(c))
	}
	return strings.Join(parts, "\n")
}

func renderBlock(c sdkmcp.Content) string {
	switch c := c.(type) {
	case *sdkmcp.TextContent:
		return c.Text
	case *sdkmcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes; images cannot be shown in this conversation, the application has it]", orUnknown(c.MIMEType), len(c.Data))
	case *sdkmcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes; audio cannot be played in this conversation, the application has it]", orUnknown(c.MIMEType), len(c.Data))
	case *sdkmcp.ResourceLink:
		return renderLink(c)
	case *sdkmcp.EmbeddedResource:
		return renderEmbedded(c.Resource)
	case nil:
		return "[an empty content block]"
	}
	return fmt.Sprintf("[content of type %T, not shown]", c)
}

func renderLink(c *sdkmcp.ResourceLink) string {
	var b strings.Builder
	b.WriteString("[resource link: " + c.URI)
	var about []string
	if c.Name != "" {
		about = append(about, "name "+c.Name)
	}
	if c.Title != "" {
		about = append(about, "title "+c.Title)
	}
	if c.MIMEType != "" {
		about = append(about, c.MIMEType)
	}
	if c.Size != nil {
		about = append(about, fmt.Sprintf("%d bytes", *c.Size))
	}
	if len(about) > 0 {
		b.WriteString(" (" + strings.Join(about, ", ") + ")")
	}
	if c.Description != "" {
		b.WriteString(": " + c.Description)
	}
	b.WriteString("]")
	return b.String()
}

func renderEmbedded(r *sdkmcp.ResourceContents) string {
	switch {
	case r == nil:
		return "[an embedded resource without contents]"
	case r.Blob != nil:
		return fmt.Sprintf("[embedded resource: %s, %s, %d bytes of binary data, not shown; the application has it]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
	case r.MIMEType != "":
		return fmt.Sprintf("[embedded resource: %s, %s]\n%s", r.URI, r.MIMEType, r.Text)
	}
	return fmt.Sprintf("[embedded resource: %s]\n%s", r.URI, r.Text)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

// ToolError is the error of a call the server answered with isError: true. Its message is
// the server's content, rendered as [Result.ToolContent] renders it, so that the model reads
// what the server said; the whole answer is in Result. The tool.Result of such a call has
// Kind tool.KindToolError and this error as Err: errors.As(res.Err, &toolErr) reaches it.
type ToolError struct {
	Result *Result
}

// Error returns the server's content, as the model reads it.
func (e *ToolError) Error() string {
	if s := e.Result.ToolContent(); strings.TrimSpace(s) != "" {
		return s
	}
	return "the tool reported an error without saying what it was"
}

// Structured decodes the structured content of an MCP tool's call into T: typed where the
// application asks for it. res is the tool.Result of the call (a run's step, a middleware's
// result); it fails with an error saying why when res is not a successful MCP call, or the
// server sent no structured content.
func Structured[T any](res tool.Result) (T, error) {
	var zero T
	r, ok := res.Value.(*Result)
	switch {
	case res.Failed():
		return zero, fmt.Errorf("mcp: the call failed (%s), it has no structured content: %w", res.Kind, res.Err)
	case !ok || r == nil || r.CallToolResult == nil:
		return zero, fmt.Errorf("mcp: the result is not an MCP tool's (its Value is %T)", res.Value)
	case r.CallToolResult.StructuredContent == nil:
		return zero, fmt.Errorf("mcp: tool %s of server %s returned no structured content", r.Tool, r.Server)
	}
	b, err := json.Marshal(r.CallToolResult.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &zero)
	}
	if err != nil {
		var out T
		return out, fmt.Errorf("mcp: the structured content of tool %s of server %s does not decode into %T: %w", r.Tool, r.Server, out, err)
	}
	return zero, nil
}
