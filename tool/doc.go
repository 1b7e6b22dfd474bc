// Package tool turns typed Go functions into tools an LLM can call, and defines the types
// every other part of toolcall works with: [Call], [Result], [Handler] and [Middleware].
//
// # Declaring tools
//
// [New] binds a name, a description written for the model, and a function
// func(context.Context, In) (Out, error). The JSON Schema of In is reflected once, at
// construction (github.com/invopop/jsonschema, flat: no $ref or $defs); types that cannot be
// described — channels, funcs, interfaces, recursive types — are refused there, naming the
// field. Options.Strict emits an OpenAI strict-mode schema. [Raw] is the escape hatch: a schema
// as JSON and a function on raw JSON.
//
// # Lenient in, strict after
//
// Models send arguments wrapped in markdown fences, with trailing commas, single quotes,
// Python literals, unquoted keys, or a missing closing brace. [DecodeArguments] repairs what can
// be repaired without changing meaning (github.com/kaptinlin/jsonrepair behind a wrapper with
// fast paths and a size cap) and reports the repair; [Tool.Handle] then validates the result
// against the schema (github.com/santhosh-tekuri/jsonschema/v6, compiled once) before the
// function runs, and the validated object is decoded into In with encoding/json's semantics
// (by github.com/go-json-experiment/json, encoding/json/v2's reference implementation, in its
// v1 mode: one pass instead of two). Every refusal is text the model can act on: each violation with its JSON
// pointer, what was expected and what was sent, and an instruction to call again.
//
// # Results
//
// A tool's output goes to the model as text: a string verbatim, anything else as compact JSON
// with non-ASCII kept readable. An empty output becomes [EmptyContent], since providers reject
// empty tool messages. The typed value stays in [Result.Value] for the application. A returned
// error, a panic or a canceled context becomes a failed Result with a [Kind] — the run goes on
// and the model reads what happened; only an error wrapped with [Fatal] stops the run.
//
// # Middleware
//
// A [Middleware] wraps a [Handler] as net/http middleware wraps an http.Handler; [Chain]
// composes them, the first outermost. Package middleware has the built-in set.
package tool
