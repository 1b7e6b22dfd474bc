package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxSchemaSize caps the size in bytes of a schema given as JSON (Options.Schema, [Raw]).
const maxSchemaSize = 1 << 20

// Options configures a tool. The zero Options (or none at all) gives the defaults documented
// on each field.
type Options struct {
	// Strict emits an OpenAI strict-mode schema (function.strict = true): every property is
	// required, optional fields become nullable, additionalProperties is false everywhere.
	// Construction fails, naming the field, when the parameters cannot be strict (maps, for
	// example). Default false.
	Strict bool
	// Sequential makes the agent loop run this tool's calls one at a time, after the calls of
	// the same turn that may run in parallel, and never starts them early while a reply
	// streams. Default false: calls run concurrently. A sequential call that a
	// middleware.Timeout abandoned at its deadline may still be running when the next one
	// starts: make such a tool honor its context.
	Sequential bool
	// Schema, when non-nil, replaces the schema reflected from the input type (at most 1 MiB,
	// nesting at most 256 levels). It must be a JSON Schema object whose root has "type":
	// "object". Arguments are validated against it, then decoded into the input type as
	// [New] says. The struct tags of the input type are then not checked against the schema:
	// keeping the two in agreement is the caller's part.
	Schema json.RawMessage
	// ArgumentLimit caps the size in bytes of the argument text a model may send, and of that
	// text once repaired. Zero means DefaultArgumentLimit.
	ArgumentLimit int
	// Annotations are hints about what the tool does (read-only, destructive, idempotent,
	// open world) for middleware and for MCP clients the tool is served to. The zero value
	// says nothing, which MCP reads as "may be destructive".
	Annotations Annotations
	// OutputSchema, when non-nil, is the JSON Schema of the tool's structured output (see
	// [Tool.OutputSchema]): any JSON Schema object, at most 1 MiB. For [New] it replaces the
	// schema reflected from Out; for [Raw] it is the only way to have one. Outputs are
	// checked against it by [Tool.StructuredOutput]. Default nil: reflected from Out for
	// New, none for Raw.
	OutputSchema json.RawMessage
	// RequireApproval makes every call of the tool wait for a decision from outside the run:
	// [Tool.Handle] validates the arguments and returns a [Pending] result instead of running,
	// unless the context approves the call ([WithApproved]), as a resumed run's does. The
	// agent loop pauses the run on it (agentkit.Pause). Default false.
	RequireApproval bool
}

// Tool is a function the model can call: a name, a description that tells the model when to
// call it, the JSON Schema of its parameters, and the code that runs it.
//
// A Tool is immutable and safe for concurrent use. Build one with [New] (typed) or [Raw]
// (raw JSON in, any output).
type Tool struct {
	name        string
	description string
	params      json.RawMessage
	strict      bool
	sequential  bool
	approval    bool // Options.RequireApproval
	deferred    bool // a Deferred tool: no function
	annotations Annotations
	limit       int
	validator   *validator
	shape       string
	// output is the output schema (nil: none), outputValidator its compiled form.
	output          json.RawMessage
	outputValidator *outputValidator
	// decode is the decode stage of a typed tool: canonical arguments to its input, boxed;
	// nil for a raw tool, whose function takes the canonical text (and whose schema's
	// defaults are not applied).
	decode func(args []byte) (any, error)
	// run runs the function; value and content are ignored when err is not nil.
	run func(ctx context.Context, in any, args json.RawMessage) (value any, content string, err error)
}

// Func is the signature of a typed tool function. In is decoded from the model's arguments
// after validation; Out is sent back to the model as text: a string verbatim, anything else as
// compact JSON (non-ASCII characters kept as they are).
type Func[In, Out any] func(ctx context.Context, in In) (Out, error)

// RawFunc is the signature of a raw tool function. args is one JSON object, already repaired,
// validated against the tool's schema, and canonical (what [Tool.Arguments] returns). Out is
// sent back to the model as [Encode] renders it (a string verbatim), and kept whole in
// Result.Value.
type RawFunc[Out any] func(ctx context.Context, args json.RawMessage) (Out, error)

// New returns a tool that runs fn. The JSON Schema of its parameters is reflected from In once,
// here; In must be a struct (or a pointer to one), and struct{} declares a tool without
// parameters.
//
// The schema follows the json tags: the json tag names a field, `json:"-"` and unexported
// fields are left out, embedded structs are flattened. A field is required unless its json
// tag says omitempty (or omitzero) or it is a pointer; `jsonschema:"required"` makes any
// field required. Descriptions, enums, ranges, defaults, patterns and formats come from
// `jsonschema` struct tags, as in github.com/invopop/jsonschema:
//
//	City string `json:"city" jsonschema:"description=城市中文名，例如：北京,enum=北京,enum=上海"`
//	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=7,default=1"`
//
// A comma ends a tag value: write a description with commas in a jsonschema_description tag
// (or escape them as \,). A default= value is applied before fn runs: a property the model
// leaves out, or sends as null while it is optional, gets its default, and [Tool.Arguments]
// shows it; a default that breaks its own property's schema is refused here.
//
// The validated arguments are decoded into In by github.com/go-json-experiment/json
// (encoding/json/v2) with its semantics: a property fills the field of exactly its name, a
// time.Duration is an integer of nanoseconds. A value the schema accepts but In cannot hold
// (1.0 for an int, 300 for an int8) is refused with a message in the schema's terms.
//
// New panics, naming the tool and the field, when the name does not match
// ^[a-zA-Z0-9_-]{1,64}$, the description is empty, In cannot be described (channels, funcs,
// interfaces, recursive types), or a struct tag would fail silently: a jsonschema key
// invopop ignores, a description cut by a comma, a json option the schema cannot describe.
// Its input is code: a panic here is a bug found at start-up.
//
// When Out is a struct (or a pointer to one), the JSON Schema of what it encodes to is
// reflected too, with the same rules, for clients that read structured output (MCP's
// outputSchema): see [Tool.OutputSchema]. An Out that cannot be described gives no output
// schema, never a panic.
func New[In, Out any](name, description string, fn Func[In, Out], opts ...Options) *Tool {
	if fn == nil {
		panic(fmt.Errorf("tool.New %q: nil function", name))
	}
	o, err := options(name, opts)
	if err != nil {
		panic(err)
	}
	schema := o.Schema
	if schema == nil {
		inType := reflect.TypeFor[In]()
		if inType.Kind() == reflect.Pointer {
			inType = inType.Elem()
		}
		if schema, err = reflectSchema(inType); err != nil {
			panic(fmt.Errorf("tool.New %q: %w", name, err))
		}
	}
	t, err := build(name, description, schema, o)
	if err != nil {
		panic(err)
	}
	if err := checkDefaults(t.validator.schema, "", map[*jsonschema.Schema]bool{}); err != nil {
		panic(fmt.Errorf("tool.New %q: %w", name, err))
	}
	output := o.OutputSchema
	if output == nil {
		output = reflectOutputSchema(reflect.TypeFor[Out]())
	}
	if err := t.setOutput(output); err != nil {
		if o.OutputSchema != nil {
			panic(fmt.Errorf("tool.New %q: %w", name, err))
		}
		t.output, t.outputValidator = nil, nil // in doubt, no output schema
	}
	t.decode = func(args []byte) (any, error) {
		var in In
		err := decodeInto(args, &in)
		return in, err
	}
	t.run = func(ctx context.Context, in any, _ json.RawMessage) (any, string, error) {
		out, err := fn(ctx, in.(In))
		if err != nil {
			return nil, "", err
		}
		text, err := Encode(out)
		return out, text, err
	}
	return t
}

// Raw returns a tool from a name, a description, the JSON Schema of its parameters and a
// function on raw JSON: the escape hatch for schemas no Go type describes well, or tools
// generated at run time (from an MCP server, for example). The arguments are repaired,
// validated against schema and made canonical before fn runs; defaults in the schema are
// not applied (fn gets what the model sent). The schema is data, so Raw returns an error
// where [New] panics. Options.Schema is ignored: the schema argument is the schema. A raw tool
// has an output schema only when Options.OutputSchema gives one.
func Raw[Out any](name, description string, schema json.RawMessage, fn RawFunc[Out], opts ...Options) (*Tool, error) {
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
	if err := t.setOutput(o.OutputSchema); err != nil {
		return nil, fmt.Errorf("tool.Raw %q: %w", name, err)
	}
	t.run = func(ctx context.Context, _ any, args json.RawMessage) (any, string, error) {
		out, err := fn(ctx, args)
		if err != nil {
			return nil, "", err
		}
		text, err := Encode(out)
		return out, text, err
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
	if !namePattern.MatchString(name) {
		return nil, fmt.Errorf("tool %q: name must match ^[a-zA-Z0-9_-]{1,64}$", name)
	}
	if strings.TrimSpace(description) == "" {
		return nil, fmt.Errorf("tool %q: empty description: the model cannot know when to call a tool it is not told about", name)
	}
	switch {
	case len(schema) == 0:
		return nil, fmt.Errorf("tool %q: empty schema", name)
	case len(schema) > maxSchemaSize:
		return nil, fmt.Errorf("tool %q: the schema is %d bytes, over the %d-byte limit", name, len(schema), maxSchemaSize)
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
		if schema, err = strictSchema(schema); err != nil {
			return nil, fmt.Errorf("tool %q: strict mode: %w", name, err)
		}
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
		approval:    o.RequireApproval,
		annotations: o.Annotations.clone(),
		limit:       limit,
		validator:   v,
		shape:       exampleShape(schema),
	}, nil
}

// setOutput compiles and sets the output schema; nil sets none.
func (t *Tool) setOutput(schema json.RawMessage) error {
	if schema == nil {
		return nil
	}
	compact, v, err := compileOutput(schema)
	if err != nil {
		return err
	}
	t.output, t.outputValidator = compact, v
	return nil
}

// namePattern is what providers accept as a function name.
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

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

// Annotations returns the tool's hints about what it does (Options.Annotations), a copy the
// caller may modify.
func (t *Tool) Annotations() Annotations { return t.annotations.clone() }
