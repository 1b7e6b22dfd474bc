// Package tool turns typed Go functions into tools an LLM can call, and defines the types
// every other part of toolcall works with: [Call], [Result], [Handler] and [Middleware].
//
// # Declaring tools
//
// [New] binds a name, a description written for the model, and a function
// func(context.Context, In) (Out, error). The JSON Schema of In is reflected once, at
// construction (github.com/invopop/jsonschema, flat: no $ref or $defs); types that cannot be
// described — channels, funcs, interfaces, recursive types — and struct tags that would fail
// silently are refused there, naming the field. Options.Strict emits an OpenAI strict-mode
// schema. [Raw] is the escape hatch: a schema as JSON and a function on the canonical JSON
// text of the arguments (an MCP server's tools are Raw tools); its schema is data, so it
// returns an error where New panics.
//
// # From the model's text to the value a tool runs with
//
// [Tool.Arguments] is the one function that turns the text a model sent into arguments, and
// [Tool.Handle] runs the tool with exactly what it returns. Four stages, one implementation
// each:
//
//  1. repair — [DecodeArguments]: text that is already a JSON object passes as it is; around
//     other text, simple steps remove what models wrap the object in (a markdown fence, prose,
//     a byte order mark, a second JSON encoding); github.com/kaptinlin/jsonrepair repairs
//     the rest, up to 8 KiB; then checks refuse every repair that could change meaning (a
//     value joined, invented or completed after a cut).
//  2. parse — jsontext, the tokenizer of github.com/go-json-experiment/json, reads the text
//     once: duplicate property names, invalid UTF-8, nesting deeper than 64 levels and text
//     over the tool's size limit are refused. It yields the tree the validator checks and the
//     canonical text (no whitespace, each string in its shortest form).
//  3. validate — github.com/santhosh-tekuri/jsonschema/v6, compiled once, on that tree; a
//     typed tool's schema defaults are filled in first. Property names match exactly.
//  4. decode — for a typed tool, github.com/go-json-experiment/json (encoding/json/v2)
//     decodes the canonical text into In: a member fills the field of exactly its name, as
//     the validator matched it.
//
// So the value a tool runs with is the value that was validated, and the value approvers,
// checkers and loggers see through [Tool.Arguments]: a key "City" cannot slip past a check on
// "city", nor two keys "city" show one value and run with the other. Every refusal is text
// the model can act on: each violation with its JSON pointer, what was expected and what was
// sent, and an instruction to call again.
//
// # Results
//
// A tool's output goes to the model as text ([Encode]): a [Contenter]'s ToolContent (an output
// with more than text says what the model reads of it), a string verbatim, anything else as
// compact JSON with non-ASCII kept readable. An empty output becomes [EmptyContent], since providers reject
// empty tool messages. The typed value stays in [Result.Value] for the application. A returned
// error, a panic or a canceled context becomes a failed Result with a [Kind] — the run goes on
// and the model reads what happened; only an error wrapped with [Fatal] stops the run.
//
// # What a tool says of itself
//
// Options.Annotations are MCP's hints — read-only, destructive, idempotent, open world —
// with MCP's defaults, for middleware (middleware.When with middleware.Destructive asks for
// approval, with middleware.Idempotent retries) and for MCP clients a tool is served to.
// [Tool.OutputSchema] is the JSON Schema of a struct Out, reflected at New (or given with
// Options.OutputSchema); [Tool.StructuredOutput] checks a result's Value against it.
//
// # Calls that wait: approval and deferred tools
//
// A call may have to wait for a decision from outside the run — a person's approval that
// takes hours, or a result only the application can produce. Such a call does not run: its
// result is [Pending] ([KindPending], Value the canonical validated arguments), and the agent
// loop pauses the run on it (agentkit.Pause, resumed by agentkit's Agent.Resume). A tool
// asks for it with Options.RequireApproval; middleware.RequireApproval asks for it by a
// predicate (by MCP annotations, an allow-list); a [Deferred] tool has a schema and no
// function, and the application runs it itself. The arguments are validated first: an
// invalid call gets its invalid-arguments result, never a pause. A resumed run carries the
// approvals in its context ([WithApproved], [Approved]), so that the approved call passes the
// same checks again and runs.
//
// # Middleware
//
// A [Middleware] wraps a [Handler] as net/http middleware wraps an http.Handler; [Chain]
// composes them, the first outermost. Package middleware has the built-in set.
package tool
