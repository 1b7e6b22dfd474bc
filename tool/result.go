package tool

import (
	"errors"
	"fmt"
)

// Kind classifies the outcome of a call for middleware, logs and metrics. The empty Kind means
// success. Kinds are stable strings: match on them, log them, count them.
type Kind string

// The kinds of failure a call can have.
const (
	// KindInvalidJSON: the arguments were not JSON and could not be safely repaired, or
	// broke a bound of the parse stage (invalid UTF-8, nesting deeper than 64 levels, size).
	KindInvalidJSON Kind = "invalid_json"
	// KindInvalidArguments: the arguments were JSON but broke the tool's schema, sent a
	// property twice, or held a value the tool's input type cannot (1.0 for an int).
	KindInvalidArguments Kind = "invalid_arguments"
	// KindUnknownTool: the model named a tool that does not exist.
	KindUnknownTool Kind = "unknown_tool"
	// KindToolError: the tool's function returned an error.
	KindToolError Kind = "tool_error"
	// KindPanic: the tool's function panicked; the panic was recovered.
	KindPanic Kind = "panic"
	// KindTimeout: the call ran out of time.
	KindTimeout Kind = "timeout"
	// KindCanceled: the run was canceled before the call finished.
	KindCanceled Kind = "canceled"
	// KindDenied: a policy or a human refused the call.
	KindDenied Kind = "denied"
	// KindLoop: the call repeats earlier identical calls and was not executed again.
	KindLoop Kind = "loop_detected"
	// KindNotExecuted: the call was never run (for example, the run stopped first).
	KindNotExecuted Kind = "not_executed"
	// KindPending: the call did not run and waits for a decision from outside the run: an
	// approval, or the result of a [Deferred] tool (see [Pending]). The agent loop pauses the
	// run on it; the model never reads it.
	KindPending Kind = "pending"
)

// EmptyContent is the text sent to the model for a successful call whose output is empty:
// providers reject a tool message with empty content.
const EmptyContent = "(the tool returned no output)"

// Result is the outcome of one call.
//
// Content is what the model reads. Everything else is for the application: the agent loop
// records the whole Result in the run's steps, and never sends Err or Value to the model.
//
// The zero Result is a success with empty content; the agent loop replaces empty content
// with [EmptyContent] before sending it.
type Result struct {
	// Content is the text sent back to the model as the role=tool message.
	Content string
	// Kind is empty on success, otherwise the kind of failure.
	Kind Kind
	// Err is the cause of a failure (nil on success). Wrap it with [Fatal] to stop the run.
	Err error
	// Value is the typed output of the tool's function (the Out of [New]) on success; for a
	// [KindPending] result, the call's canonical arguments, a json.RawMessage ([Pending]).
	Value any
	// Repair describes the repair applied to malformed arguments, empty when none was needed.
	Repair string
	// Original holds the content before a middleware shortened or rewrote it (for example
	// [Truncate] in package middleware); empty when Content is the tool's own output.
	Original string
	// Stack is the stack trace of a recovered panic (Kind == KindPanic), for logs.
	Stack []byte
}

// Failed reports whether the result is a failure of any kind.
func (r Result) Failed() bool { return r.Kind != "" }

// Text returns a successful Result carrying s.
func Text(s string) Result { return Result{Content: s} }

// Failure returns a failed Result of the given kind whose content is err's message.
func Failure(kind Kind, err error) Result {
	if err == nil {
		err = errors.New(string(kind))
	}
	return Result{Kind: kind, Err: err, Content: "error: " + err.Error()}
}

// fatalError marks an error as fatal to the whole run.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// ErrFatal matches, with errors.Is, every error wrapped by [Fatal].
var ErrFatal = errors.New("tool: fatal")

func (e *fatalError) Is(target error) bool { return target == ErrFatal }

// Fatal marks err as fatal: returned by a tool's function, it stops the whole run instead of
// being fed back to the model. The agent loop ends with a fatal-tool stop reason and the
// partial transcript. Fatal(nil) returns nil.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return &fatalError{err: err}
}

// Fatalf is [Fatal] of fmt.Errorf(format, args...).
func Fatalf(format string, args ...any) error { return Fatal(fmt.Errorf(format, args...)) }

// IsFatal reports whether err was marked with [Fatal].
func IsFatal(err error) bool { return errors.Is(err, ErrFatal) }
