package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"unsafe"
)

// Options configures a tool. The zero Options (or none at all) gives the defaults documented
// on each field.
type Options struct {
	// Strict emits an OpenAI strict-mode schema (function.strict = true): every property is
	// required, optional fields become nullable, additionalProperties is false everywhere.
	// Construction fails, naming the field, when the parameters cannot be strict (maps, for
	// example). Default false.
	Strict bool
	// Sequential makes the agent loop run this tool's calls one at a time, after the calls of
	// the same turn that may run in parallel. Default false: calls run concurrently.
	Sequential bool
	// Schema, when non-nil, replaces the schema reflected from the input type. It must be a
	// JSON Schema object whose root has "type": "object". Arguments are validated against it,
	// then decoded into the input type with encoding/json's semantics (see decode.go).
	Schema json.RawMessage
	// ArgumentLimit caps the size in bytes of the argument text a model may send. Zero means
	// DefaultArgumentLimit.
	ArgumentLimit int
}

// Tool is a function the model can call: a name, a description that tells the model when to
// call it, the JSON Schema of its parameters, and the code that runs it.
//
// A Tool is immutable and safe for concurrent use. Build one with [New] (typed), [Define]
// (typed, returning an error instead of panicking), or [Raw] (raw JSON in, text out).
type Tool struct {
	name        string
	description string
	params      json.RawMessage
	strict      bool
	sequential  bool
	limit       int
	validator   *validator
	shape       string
	run         func(ctx context.Context, args []byte) (value any, content string, err error)
}

// Func is the signature of a typed tool function. In is decoded from the model's arguments
// after validation; Out is sent back to the model as text: a string verbatim, anything else as
// compact JSON (non-ASCII characters kept as they are).
type Func[In, Out any] func(ctx context.Context, in In) (Out, error)

// RawFunc is the signature of a raw tool function. args is one JSON object, already repaired
// and validated against the tool's schema. The returned text is sent to the model verbatim.
type RawFunc func(ctx context.Context, args json.RawMessage) (string, error)

// New returns a tool that runs fn. The JSON Schema of its parameters is reflected from In once,
// here; In must be a struct (or a pointer to one), and struct{} declares a tool without
// parameters.
//
// The schema follows encoding/json: the json tag names a field, `json:"-"` and unexported
// fields are left out, embedded structs are flattened. A field is required unless its json
// tag says omitempty (or omitzero). Descriptions, enums, ranges, defaults, patterns and
// formats come from `jsonschema` struct tags, as in github.com/invopop/jsonschema:
//
//	City string `json:"city" jsonschema:"description=城市中文名，例如：北京,enum=北京,enum=上海"`
//	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=1"`
//
// New panics, naming the tool and the field, when the name does not match
// ^[a-zA-Z0-9_-]{1,64}$, the description is empty, or In cannot be described (channels,
// funcs, interfaces, recursive types); use [Define] to get that as an error.
func New[In, Out any](name, description string, fn Func[In, Out], opts ...Options) *Tool {
	t, err := Define(name, description, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// Define is [New] returning an error instead of panicking.
func Define[In, Out any](name, description string, fn Func[In, Out], opts ...Options) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool.New %q: nil function", name)
	}
	o, err := options(name, opts)
	if err != nil {
		return nil, err
	}
	inType := reflect.TypeFor[In]()
	ptr := inType.Kind() == reflect.Pointer
	if ptr {
		inType = inType.Elem()
	}
	schema := o.Schema
	if schema == nil {
		schema, err = reflectSchema(inType)
		if err != nil {
			return nil, fmt.Errorf("tool.New %q: %w", name, err)
		}
	}
	t, err := build(name, description, schema, o)
	if err != nil {
		return nil, err
	}
	decode, flat := decoderFor(inType), newFlatDecoder(inType)
	t.run = func(ctx context.Context, args []byte) (any, string, error) {
		var in In
		target, base := any(&in), unsafe.Pointer(&in)
		var fresh reflect.Value
		if ptr {
			// In is *T: decode into a fresh T and hand fn its address.
			fresh = reflect.New(inType)
			reflect.ValueOf(&in).Elem().Set(fresh)
			target, base = fresh.Interface(), fresh.UnsafePointer()
		}
		if flat == nil || !flat.decode(args, base) {
			if flat != nil { // start again from a zero value
				if ptr {
					fresh.Elem().SetZero()
				} else {
					var zero In
					in = zero
				}
			}
			if err := decode(args, target); err != nil {
				return nil, "", &decodeError{err: err}
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return nil, "", err
		}
		text, err := Encode(out)
		if err != nil {
			return nil, "", err
		}
		return out, text, nil
	}
	return t, nil
}

// Raw returns a tool from a name, a description, the JSON Schema of its parameters and a
// function on raw JSON: the escape hatch for schemas no Go type describes well, or tools
// generated at run time (from an MCP server, for example). The arguments are repaired and
// validated against schema before fn runs. Raw panics where [DefineRaw] returns an error.
func Raw(name, description string, schema json.RawMessage, fn RawFunc, opts ...Options) *Tool {
	t, err := DefineRaw(name, description, schema, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

// DefineRaw is [Raw] returning an error instead of panicking. Options.Schema is ignored: the
// schema argument is the schema.
func DefineRaw(name, description string, schema json.RawMessage, fn RawFunc, opts ...Options) (*Tool, error) {
	if fn == nil {
		return nil, fmt.Errorf("tool.Raw %q: nil function", name)
	}
	o, err := options(name, opts)
	if err != nil {
		return nil, err
	}
	t, err := build(name, description, schema, o)
	if err != nil {
		return nil, err
	}
	t.run = func(ctx context.Context, args []byte) (any, string, error) {
		text, err := fn(ctx, args)
		if err != nil {
			return nil, "", err
		}
		return text, text, nil
	}
	return t, nil
}

func options(name string, opts []Options) (Options, error) {
	switch len(opts) {
	case 0:
		return Options{}, nil
	case 1:
		return opts[0], nil
	}
	return Options{}, fmt.Errorf("tool %q: at most one Options, got %d", name, len(opts))
}

// build checks the name and description and compiles the schema.
func build(name, description string, schema json.RawMessage, o Options) (*Tool, error) {
	if !validName(name) {
		return nil, fmt.Errorf("tool %q: name must match ^[a-zA-Z0-9_-]{1,64}$", name)
	}
	if strings.TrimSpace(description) == "" {
		return nil, fmt.Errorf("tool %q: empty description: the model cannot know when to call a tool it is not told about", name)
	}
	if len(schema) == 0 {
		return nil, fmt.Errorf("tool %q: empty schema", name)
	}
	// The validator is compiled from the schema before the strict rewrite: it accepts null
	// for optional properties, as strict mode sends them, and also their absence, as
	// providers that ignore "strict" send them. Lenient in, strict after.
	var compact bytes.Buffer
	if err := json.Compact(&compact, schema); err != nil {
		return nil, fmt.Errorf("tool %q: schema is not JSON: %w", name, err)
	}
	v, err := compileValidator(compact.Bytes())
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	schema = compact.Bytes()
	if o.Strict {
		s, err := strictSchema(schema)
		if err != nil {
			return nil, fmt.Errorf("tool %q: strict mode: %w", name, err)
		}
		compact.Reset()
		if err := json.Compact(&compact, s); err != nil {
			return nil, fmt.Errorf("tool %q: strict schema: %w", name, err)
		}
		schema = compact.Bytes()
	}
	if err != nil {
		return nil, fmt.Errorf("tool %q: %w", name, err)
	}
	limit := o.ArgumentLimit
	if limit <= 0 {
		limit = DefaultArgumentLimit
	}
	return &Tool{
		name:        name,
		description: description,
		params:      schema,
		strict:      o.Strict,
		sequential:  o.Sequential,
		limit:       limit,
		validator:   v,
		shape:       exampleShape(schema),
	}, nil
}

func validName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Name returns the tool's name.
func (t *Tool) Name() string { return t.name }

// Description returns the description the model reads.
func (t *Tool) Description() string { return t.description }

// Parameters returns the compact JSON Schema of the parameters object. The caller must not
// modify the returned slice.
func (t *Tool) Parameters() json.RawMessage { return t.params }

// Strict reports whether the tool's schema is in OpenAI strict mode.
func (t *Tool) Strict() bool { return t.strict }

// Sequential reports whether the tool's calls must not run concurrently with other calls.
func (t *Tool) Sequential() bool { return t.sequential }

// Arguments decodes, repairs and validates raw argument text as [Tool.Handle] does before
// running the tool, without running it. It returns the arguments as one JSON object and a
// description of the repair applied (empty when none was needed). The error is an
// *[ArgumentError] whose message is written for the model.
//
// Middleware that must see valid arguments before the tool runs (an approval step, a policy
// on argument values) calls this.
func (t *Tool) Arguments(raw string) (args json.RawMessage, repair string, err error) {
	if b := t.plainArguments(raw); b != nil {
		return b, "", nil
	}
	args, repair, err = DecodeArguments(raw, t.limit)
	if err != nil {
		return nil, repair, &ArgumentError{Tool: t.name, Kind: KindInvalidJSON, Detail: err.Error(), Shape: t.shape}
	}
	if vs := t.validator.validate(args); len(vs) > 0 {
		return nil, repair, &ArgumentError{Tool: t.name, Kind: KindInvalidArguments, Violations: vs, Shape: t.shape}
	}
	return args, repair, nil
}

// plainArguments is the fast path of Arguments for what models send almost always: a JSON
// object, within the limit, that the schema accepts. The validator's fast path checks the
// JSON syntax as it checks the schema (FuzzFastSyntax holds it to json.Valid), so one scan of
// the bytes does the work of DecodeArguments' and the validator's. It returns nil when the
// arguments need the full path: a repair, a violation to report, or a schema keyword the
// fast path does not know.
func (t *Tool) plainArguments(raw string) []byte {
	if len(raw) > t.limit {
		return nil
	}
	s := trimJSONSpace(raw)
	if s == "" || s[0] != '{' {
		return nil
	}
	b := []byte(s)
	if !t.validator.accepts(b) {
		return nil
	}
	return b
}

// Handle runs one call of this tool: it decodes, repairs and validates the arguments, runs the
// function with a context carrying the call ([CallFromContext]), and turns every outcome into a
// Result. It never panics: a panic in the function becomes a KindPanic result naming the tool.
//
// Handle ignores call.Name: the caller has already routed the call to this tool.
func (t *Tool) Handle(ctx context.Context, call Call) (res Result) {
	args, repair, err := t.Arguments(call.Arguments)
	if err != nil {
		var ae *ArgumentError
		errors.As(err, &ae)
		return Result{Kind: ae.Kind, Err: err, Content: err.Error(), Repair: repair}
	}
	if err := ctx.Err(); err != nil {
		return contextResult(t.name, err, repair)
	}
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
	value, content, err := t.run(WithCall(ctx, call), args)
	if err != nil {
		var de *decodeError
		if errors.As(err, &de) {
			ae := &ArgumentError{Tool: t.name, Kind: KindInvalidArguments, Violations: []Violation{{Message: de.err.Error()}}, Shape: t.shape}
			return Result{Kind: KindInvalidArguments, Err: ae, Content: ae.Error(), Repair: repair}
		}
		if IsFatal(err) {
			return Result{Kind: KindToolError, Err: err, Content: "error: " + err.Error(), Repair: repair}
		}
		if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return contextResult(t.name, err, repair)
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

// decodeError is a validated argument object that encoding/json still could not decode into
// the tool's input type (a number too large for an int8 field, for example).
type decodeError struct{ err error }

func (e *decodeError) Error() string { return e.err.Error() }

// Encode renders a tool's output as the text the model reads: a string or json.RawMessage
// verbatim, a []byte as a string, anything else as compact JSON without HTML escaping, so
// Chinese, "<" and "&" stay readable.
func Encode(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.RawMessage:
		return string(x), nil
	case []byte:
		return string(x), nil
	case nil:
		return "", nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("the tool's result could not be encoded as JSON: %w", err)
	}
	out := b.Bytes()
	return string(out[:len(out)-1]), nil // Encode appends a newline
}
