//lint:file-ignore SA1019 the suite tests logging and sampling, deprecated by SEP-2577 but still in the protocol.
package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolcall/toolcall/mcp"
	"github.com/toolcall/toolcall/tool"
)

// The server the conformance suite tests: the tools its server scenarios call, declared as
// toolcall tools (tool.New, tool.Raw) and served by mcp.NewServer, as the go-sdk's own
// conformance/everything-server declares them with its generic AddTool. Resources, prompts
// and completion, which package mcp does not wrap, are added with plain go-sdk calls on the
// returned server.

const (
	srvImageBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	srvAudioBase64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

func srvDecoded(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// contents is a tool output of MCP content blocks: an MCP client gets them as they are
// (mcp.Contenter), a model in an agent a short description (tool.Contenter).
type srvContents []sdkmcp.Content

func (c srvContents) MCPContent() []sdkmcp.Content { return c }
func (c srvContents) ToolContent() string {
	var kinds []string
	for _, b := range c {
		kinds = append(kinds, fmt.Sprintf("%T", b))
	}
	return "[" + strings.Join(kinds, ", ") + "]"
}

// fixed is a tool without parameters that returns out.
func srvFixed[Out any](name, description string, out Out) *tool.Tool {
	return tool.New(name, description, func(ctx context.Context, in struct{}) (Out, error) { return out, nil })
}

// session returns the session of the MCP request a tool call serves.
func srvSession(ctx context.Context) (*sdkmcp.CallToolRequest, error) {
	req, ok := mcp.RequestFromContext(ctx)
	if !ok {
		return nil, errors.New("not served over MCP")
	}
	return req, nil
}

const srvSchema202012 = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"$defs": {
		"address": {
			"$anchor": "addressDef",
			"type": "object",
			"properties": {
				"street": { "type": "string" },
				"city": { "type": "string" }
			}
		}
	},
	"properties": {
		"name": { "type": "string" },
		"address": { "$ref": "#/$defs/address" },
		"contactMethod": { "type": "string", "enum": ["phone", "email"] },
		"phone": { "type": "string" },
		"email": { "type": "string" }
	},
	"allOf": [
		{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }
	],
	"if": {
		"properties": { "contactMethod": { "const": "phone" } },
		"required": ["contactMethod"]
	},
	"then": { "required": ["phone"] },
	"else": { "required": ["email"] },
	"additionalProperties": false
}`

// conformanceTools are the tools of the suite's tool scenarios.
func conformanceTools() []*tool.Tool {
	image := srvDecoded(srvImageBase64)
	schemaTool, err := tool.Raw("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)",
		json.RawMessage(srvSchema202012), func(ctx context.Context, args json.RawMessage) (string, error) {
			return "JSON Schema 2020-12 tool called with: " + string(args), nil
		})
	if err != nil {
		panic(err)
	}
	return []*tool.Tool{
		srvFixed("test_simple_text", "Tests simple text content response", "This is a simple text response for testing."),
		srvFixed("test_image_content", "Tests image content response", srvContents{&sdkmcp.ImageContent{Data: image, MIMEType: "image/png"}}),
		srvFixed("test_audio_content", "Tests audio content response", srvContents{&sdkmcp.AudioContent{Data: srvDecoded(srvAudioBase64), MIMEType: "audio/wav"}}),
		srvFixed("test_embedded_resource", "Tests embedded resource content response", srvContents{&sdkmcp.EmbeddedResource{
			Resource: &sdkmcp.ResourceContents{URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource"}}}),
		srvFixed("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", srvContents{
			&sdkmcp.TextContent{Text: "This is text content"},
			&sdkmcp.ImageContent{Data: image, MIMEType: "image/png"},
			&sdkmcp.EmbeddedResource{Resource: &sdkmcp.ResourceContents{URI: "test://embedded-in-multiple", MIMEType: "text/plain", Text: "This is an embedded resource"}},
		}),
		tool.New("test_tool_with_logging", "Tests tool that emits log messages during execution", func(ctx context.Context, in struct{}) (string, error) {
			req, err := srvSession(ctx)
			if err != nil {
				return "", err
			}
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					time.Sleep(50 * time.Millisecond)
				}
				if err := req.Session.Log(ctx, &sdkmcp.LoggingMessageParams{Level: "info", Data: msg}); err != nil {
					return "", err
				}
			}
			return "Tool with logging executed successfully", nil
		}),
		tool.New("test_tool_with_progress", "Tests tool that reports progress notifications", func(ctx context.Context, in struct{}) (string, error) {
			req, err := srvSession(ctx)
			if err != nil {
				return "", err
			}
			token := req.Params.GetProgressToken()
			for _, done := range []float64{0, 50, 100} {
				err := req.Session.NotifyProgress(ctx, &sdkmcp.ProgressNotificationParams{
					ProgressToken: token, Progress: done, Total: 100, Message: fmt.Sprintf("Completed step %.0f of 100", done)})
				if err != nil {
					return "", err
				}
				time.Sleep(50 * time.Millisecond)
			}
			return fmt.Sprint(token), nil
		}),
		tool.New("test_error_handling", "Tests error response handling", func(ctx context.Context, in struct{}) (string, error) {
			return "", errors.New("this tool intentionally returns an error for testing")
		}),
		tool.New("test_sampling", "Tests server-initiated sampling (LLM completion request)", func(ctx context.Context, in struct {
			Prompt string `json:"prompt" jsonschema:"description=The prompt to send to the LLM"`
		}) (string, error) {
			req, err := srvSession(ctx)
			if err != nil {
				return "", err
			}
			res, err := req.Session.CreateMessage(ctx, &sdkmcp.CreateMessageParams{
				Messages:  []*sdkmcp.SamplingMessage{{Role: "user", Content: &sdkmcp.TextContent{Text: in.Prompt}}},
				MaxTokens: 100,
			})
			if err != nil {
				return "", fmt.Errorf("sampling failed: %w", err)
			}
			text := "(non-text response)"
			if tc, ok := res.Content.(*sdkmcp.TextContent); ok {
				text = tc.Text
			}
			return "LLM response: " + text, nil
		}),
		srvElicitTool("test_elicitation", "Tests server-initiated elicitation (user input request)", nil),
		srvElicitTool("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", &sdkmcp.ElicitParams{
			Message: "Test defaults for primitives",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"name":{"type":"string","description":"User name","default":"John Doe"},
				"age":{"type":"integer","description":"User age","default":30},
				"score":{"type":"number","description":"User score","default":95.5},
				"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
				"verified":{"type":"boolean","description":"Verification status","default":true}}}`),
		}),
		srvElicitTool("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", &sdkmcp.ElicitParams{
			Message: "Test enum schemas",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{
				"untitledSingle":{"type":"string","enum":["option1","option2","option3"]},
				"titledSingle":{"type":"string","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
				"legacyEnum":{"type":"string","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
				"untitledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
				"titledMulti":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","anyOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]}}}}`),
		}),
		schemaTool,
		tool.New("test_reconnection", "Tests SSE stream disconnection and client reconnection (SEP-1699). Server will close the stream mid-call and send the result after client reconnects.",
			func(ctx context.Context, in struct{}) (string, error) {
				req, err := srvSession(ctx)
				if err != nil {
					return "", err
				}
				if req.Extra != nil && req.Extra.CloseSSEStream != nil {
					req.Extra.CloseSSEStream(sdkmcp.CloseSSEStreamArgs{RetryAfter: 10 * time.Millisecond})
				}
				time.Sleep(100 * time.Millisecond)
				return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.", nil
			}),
	}
}

// srvElicitTool asks the client for input: params, or, when nil, a username with the message
// the model sent.
func srvElicitTool(name, description string, params *sdkmcp.ElicitParams) *tool.Tool {
	return tool.New(name, description, func(ctx context.Context, in struct {
		Message string `json:"message,omitempty" jsonschema:"description=The message to show the user"`
	}) (string, error) {
		req, err := srvSession(ctx)
		if err != nil {
			return "", err
		}
		p := params
		if p == nil {
			p = &sdkmcp.ElicitParams{Message: in.Message, RequestedSchema: json.RawMessage(
				`{"type":"object","properties":{"username":{"type":"string","description":"Your preferred username"}},"required":["username"]}`)}
		}
		res, err := req.Session.Elicit(ctx, p)
		if err != nil {
			return "", fmt.Errorf("elicitation failed: %w", err)
		}
		return fmt.Sprintf("Elicitation result: action=%s, content=%v", res.Action, res.Content), nil
	})
}

// conformanceServer is our server with the suite's tools, and the resources, prompts and
// completion of its other scenarios.
func conformanceServer() (*sdkmcp.Server, error) {
	s, err := mcp.NewServer(&sdkmcp.Implementation{Name: "toolcall-conformance-server", Version: "1.0.0"}, conformanceTools(), &mcp.ServerOptions{
		SDK: &sdkmcp.ServerOptions{
			CompletionHandler: func(ctx context.Context, req *sdkmcp.CompleteRequest) (*sdkmcp.CompleteResult, error) {
				return &sdkmcp.CompleteResult{Completion: sdkmcp.CompletionResultDetails{Values: []string{}}}, nil
			},
			SubscribeHandler:   func(ctx context.Context, req *sdkmcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(ctx context.Context, req *sdkmcp.UnsubscribeRequest) error { return nil },
		},
	})
	if err != nil {
		return nil, err
	}
	srvAddResources(s)
	srvAddPrompts(s)
	return s, nil
}

func srvTextResource(text string) sdkmcp.ResourceHandler {
	return func(ctx context.Context, req *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
		return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
	}
}

func srvAddResources(s *sdkmcp.Server) {
	s.AddResource(&sdkmcp.Resource{Name: "static-text", Description: "A static text resource for testing", MIMEType: "text/plain", URI: "test://static-text"},
		srvTextResource("This is the content of the static text resource."))
	s.AddResource(&sdkmcp.Resource{Name: "static-binary", Description: "A static binary resource (image) for testing", MIMEType: "image/png", URI: "test://static-binary"},
		func(ctx context.Context, req *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
			return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: srvDecoded(srvImageBase64)}}}, nil
		})
	s.AddResourceTemplate(&sdkmcp.ResourceTemplate{Name: "template", Description: "A resource template with parameter substitution", MIMEType: "application/json", URITemplate: "test://template/{id}/data"},
		func(ctx context.Context, req *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
			id := strings.TrimSuffix(strings.TrimPrefix(req.Params.URI, "test://template/"), "/data")
			text := fmt.Sprintf(`{"id": %q, "templateTest": true, "data": "Data for ID: %s"}`, id, id)
			return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: text}}}, nil
		})
	s.AddResource(&sdkmcp.Resource{Name: "watched-resource", Description: "A resource that auto-updates every 3 seconds", MIMEType: "text/plain", URI: "test://watched-resource"},
		srvTextResource("Watched resource content"))
}

func srvPrompt(description string, messages func(args map[string]string) []*sdkmcp.PromptMessage) sdkmcp.PromptHandler {
	return func(ctx context.Context, req *sdkmcp.GetPromptRequest) (*sdkmcp.GetPromptResult, error) {
		return &sdkmcp.GetPromptResult{Description: description, Messages: messages(req.Params.Arguments)}, nil
	}
}

func srvAddPrompts(s *sdkmcp.Server) {
	user := func(c sdkmcp.Content) *sdkmcp.PromptMessage { return &sdkmcp.PromptMessage{Role: "user", Content: c} }
	s.AddPrompt(&sdkmcp.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A simple prompt without arguments"},
		srvPrompt("A simple test prompt", func(map[string]string) []*sdkmcp.PromptMessage {
			return []*sdkmcp.PromptMessage{user(&sdkmcp.TextContent{Text: "This is a simple prompt for testing."})}
		}))
	s.AddPrompt(&sdkmcp.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with required arguments",
		Arguments: []*sdkmcp.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}}},
		srvPrompt("A prompt with arguments", func(a map[string]string) []*sdkmcp.PromptMessage {
			return []*sdkmcp.PromptMessage{user(&sdkmcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])})}
		}))
	s.AddPrompt(&sdkmcp.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that includes an embedded resource",
		Arguments: []*sdkmcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		srvPrompt("A prompt with an embedded resource", func(a map[string]string) []*sdkmcp.PromptMessage {
			return []*sdkmcp.PromptMessage{
				user(&sdkmcp.EmbeddedResource{Resource: &sdkmcp.ResourceContents{URI: a["resourceUri"], MIMEType: "text/plain", Text: "Embedded resource content for testing."}}),
				user(&sdkmcp.TextContent{Text: "Please process the embedded resource above."}),
			}
		}))
	s.AddPrompt(&sdkmcp.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt that includes image content"},
		srvPrompt("A prompt with an image", func(map[string]string) []*sdkmcp.PromptMessage {
			return []*sdkmcp.PromptMessage{
				user(&sdkmcp.ImageContent{Data: srvDecoded(srvImageBase64), MIMEType: "image/png"}),
				user(&sdkmcp.TextContent{Text: "Please analyze the image above."}),
			}
		}))
}
