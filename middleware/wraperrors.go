package middleware

import (
	"context"
	"maps"
	"strings"

	"github.com/toolcall/toolcall/tool"
)

// defaultGuidance is the next-step advice per kind; see DefaultGuidance.
var defaultGuidance = map[tool.Kind]string{
	tool.KindInvalidJSON:      "fix the arguments and call again.",
	tool.KindInvalidArguments: "fix the arguments and call again.",
	tool.KindUnknownTool:      "call one of the available tools, or answer without one.",
	tool.KindToolError:        "this tool is unavailable for this request: do not repeat the same call; try another way or tell the user.",
	tool.KindTimeout:          "this tool is unavailable right now: try another way or tell the user.",
	tool.KindPanic:            "this tool is broken (a bug, not your arguments): do not call it again; try another way or tell the user.",
	tool.KindCanceled:         "the request was canceled: do not retry.",
	tool.KindDenied:           "this call is not permitted as made: do not repeat it; change it only if the refusal says how, otherwise do without it or tell the user.",
	tool.KindLoop:             "stop repeating this call: use the results you already have, or answer.",
	tool.KindNotExecuted:      "this call was not run: answer with the information you have.",
}

// defaultAdvice is the guidance for a kind missing from both maps.
const defaultAdvice = "try another way or tell the user."

// DefaultGuidance returns the next-step advice [WrapErrors] gives for a kind of failure unless
// WrapErrorsOptions.Guidance overrides it: "fix the arguments and call again." for
// invalid_json and invalid_arguments, "this tool is unavailable right now: try another way or
// tell the user." for timeout, and so on for every kind in package tool; "try another way or
// tell the user." for a kind it does not know.
func DefaultGuidance(kind tool.Kind) string {
	if s, ok := defaultGuidance[kind]; ok {
		return s
	}
	return defaultAdvice
}

// WrapErrorsOptions configures [WrapErrors]. The zero value gives the [DefaultGuidance] of
// every kind.
type WrapErrorsOptions struct {
	// Guidance overrides the next-step advice per kind; kinds it does not list keep their
	// default. An empty string drops the line for that kind.
	Guidance map[tool.Kind]string
}

// WrapErrors rewrites the content of every failed result (Kind != "") into one envelope the
// model can rely on, whatever produced the failure:
//
//	error: invalid_arguments
//	tool: get_weather
//	message: invalid arguments for tool get_weather: …
//	next step: fix the arguments and call again.
//
// The message is the result's content without its leading "error: ". Kind, Err and the other
// fields are unchanged, and so is Original: the envelope contains the original message whole.
// Successful results pass through untouched. opts may be nil.
//
// Install WrapErrors outside the middleware that produce failures (Timeout, the policies,
// Approve), so it sees theirs too.
func WrapErrors(opts *WrapErrorsOptions) tool.Middleware {
	guidance := maps.Clone(defaultGuidance)
	if opts != nil {
		maps.Copy(guidance, opts.Guidance)
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			res := next(ctx, call)
			if !res.Failed() {
				return res
			}
			advice, ok := guidance[res.Kind]
			if !ok {
				advice = defaultAdvice
			}
			msg := strings.TrimPrefix(res.Content, "error: ")
			if msg == "" && res.Err != nil {
				msg = res.Err.Error()
			}
			res.Content = "error: " + string(res.Kind) + "\ntool: " + call.Name + "\nmessage: " + msg
			if advice != "" {
				res.Content += "\nnext step: " + advice
			}
			return res
		}
	}
}
