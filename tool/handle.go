package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/go-json-experiment/json/jsontext"
)

// Arguments turns raw argument text into the arguments the tool runs with, as [Tool.Handle]
// does before running it, without running it: the stages of the package doc, repair
// ([DecodeArguments], within the tool's ArgumentLimit), parse, validation, and for a typed
// tool ([New]) the schema's defaults first and decoding after. It returns canonical JSON (one
// object, no whitespace, strings in their shortest form, each property once), exactly what
// the tool's function gets, and a description of the repair applied (empty when none was
// needed). The error is an *[ArgumentError] whose message is written for the model.
// Middleware that must see the arguments before the tool runs (an approval step, a policy
// on argument values, a log) calls this, and sees the value the tool will run with.
func (t *Tool) Arguments(raw string) (args json.RawMessage, repair string, err error) {
	args, _, repair, err = t.arguments(raw)
	return args, repair, err
}

// arguments is Arguments, returning also the decoded input of a typed tool.
func (t *Tool) arguments(raw string) (args []byte, in any, repair string, err error) {
	obj, repair, err := DecodeArguments(raw, t.limit)
	if err != nil {
		return nil, nil, repair, t.invalidJSON(err)
	}
	tree, args, err := parseArguments(obj, t.limit)
	var dup *duplicateError
	switch {
	case errors.As(err, &dup):
		return nil, nil, repair, t.invalid(Violation{Path: dup.path, Message: dup.Error()})
	case err != nil:
		return nil, nil, repair, t.invalidJSON(err)
	}
	if t.decode != nil && applyDefaults(t.validator.schema, tree, 0) {
		args = encodeTree(tree)
	}
	if vs := t.validator.validate(tree); len(vs) > 0 {
		return nil, nil, repair, t.invalid(vs...)
	}
	if t.decode != nil {
		if in, err = t.decode(args); err != nil {
			return nil, nil, repair, t.invalid(decodeViolation(err, args, tree))
		}
	}
	return args, in, repair, nil
}

func (t *Tool) invalidJSON(err error) error {
	return &ArgumentError{Tool: t.name, Kind: KindInvalidJSON, Detail: err.Error(), Shape: t.shape}
}

func (t *Tool) invalid(vs ...Violation) error {
	return &ArgumentError{Tool: t.name, Kind: KindInvalidArguments, Violations: vs, Shape: t.shape}
}

// encodeTree writes a tree of parseArguments (with defaults set) as canonical JSON, its
// object keys sorted.
func encodeTree(tree map[string]any) []byte {
	b, err := jsonText(tree)
	if err == nil {
		err = (*jsontext.Value)(&b).Format()
	}
	if err != nil { // a tree of JSON values always encodes
		panic(err)
	}
	return b
}

// Handle runs one call of this tool: it turns the arguments into the value the tool runs
// with ([Tool.Arguments]), runs the function with a context carrying the call
// ([CallFromContext]), and turns every outcome into a Result. It never panics: a panic in the
// function becomes a KindPanic result naming the tool. An error that wraps
// context.DeadlineExceeded is a KindTimeout result even when ctx is still live: the
// function ran out of a deadline of its own (an MCP server's call timeout, say).
//
// A call of a [Deferred] tool, or of a tool with Options.RequireApproval that ctx does not
// approve ([Approved]), is validated and not run: its result is [Pending].
//
// Handle ignores call.Name: the caller has already routed the call to this tool.
func (t *Tool) Handle(ctx context.Context, call Call) (res Result) {
	repair := ""
	defer func() {
		if p := recover(); p != nil {
			err := fmt.Errorf("tool %s panicked: %v", t.name, p)
			res = Result{
				Kind:    KindPanic,
				Err:     err,
				Content: "error: tool " + t.name + " crashed (" + fmt.Sprint(p) + "). This is a bug in the tool, not in your arguments: do not retry this call; try another way or tell the user.",
				Repair:  repair,
				Stack:   debug.Stack(),
			}
		}
	}()
	args, in, repair, err := t.arguments(call.Arguments)
	if err != nil {
		var ae *ArgumentError
		errors.As(err, &ae)
		return Result{Kind: ae.Kind, Err: err, Content: err.Error(), Repair: repair}
	}
	if res, ok := t.pending(ctx, call, args); ok {
		res.Repair = repair
		return res
	}
	if err := ctx.Err(); err != nil {
		return contextResult(t.name, err, repair)
	}
	value, content, err := t.run(WithCall(ctx, call), in, args)
	if err != nil {
		if IsFatal(err) {
			return Result{Kind: KindToolError, Err: err, Content: "error: " + err.Error(), Repair: repair}
		}
		if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return contextResult(t.name, err, repair)
		}
		if errors.Is(err, context.DeadlineExceeded) { // the tool's own deadline, not the call's
			return Result{Kind: KindTimeout, Err: err, Content: "error: tool " + t.name + " timed out: " + err.Error(), Repair: repair}
		}
		return Result{Kind: KindToolError, Err: err, Content: "error: tool " + t.name + " failed: " + err.Error(), Repair: repair}
	}
	if content == "" {
		content = EmptyContent
	}
	return Result{Content: content, Value: value, Repair: repair}
}

// contextResult is the result of a call stopped by its context.
func contextResult(name string, err error, repair string) Result {
	if errors.Is(err, context.DeadlineExceeded) {
		return Result{Kind: KindTimeout, Err: err, Content: "error: tool " + name + " timed out before finishing. Try again later, with a smaller request, or another way.", Repair: repair}
	}
	return Result{Kind: KindCanceled, Err: err, Content: "error: tool " + name + " was canceled before finishing.", Repair: repair}
}

// Encode renders a tool's output as the text the model reads: a [Contenter]'s ToolContent, a
// string or json.RawMessage verbatim, a []byte as a string, anything else as compact JSON
// without HTML escaping, so Chinese, "<" and "&" stay readable.
func Encode(v any) (string, error) {
	switch x := v.(type) {
	case Contenter:
		return x.ToolContent(), nil
	case string:
		return x, nil
	case json.RawMessage:
		return string(x), nil
	case []byte:
		return string(x), nil
	case nil:
		return "", nil
	}
	b, err := jsonText(v)
	if err != nil {
		return "", fmt.Errorf("the tool's result could not be encoded as JSON: %w", err)
	}
	return string(b), nil
}

// A Contenter is a tool output that says what the model reads of it: the output of a tool
// whose result holds more than text (an MCP tool's images, resources and structured content,
// say) is sent as its ToolContent and kept whole, for the application, in Result.Value.
type Contenter interface {
	ToolContent() string
}

// jsonText encodes v as compact JSON with encoding/json, without HTML escaping.
func jsonText(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
