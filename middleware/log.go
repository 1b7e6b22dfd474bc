package middleware

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/toolcall/toolcall/tool"
)

// logArgumentsMax caps the characters of the arguments shown in a record.
const logArgumentsMax = 2000

// notShown stands for arguments that cannot be shown with the values in Redact hidden.
const notShown = "[not shown]"

// LogOptions configures [Log]. The zero value logs successes at Info, failures at Warn, with
// the arguments and nothing redacted.
type LogOptions struct {
	// Level is the level of the record of a successful call. Nil means slog.LevelInfo. A
	// failed call is logged at Warn, or at Level if that is higher.
	Level slog.Leveler
	// Redact names argument fields whose values are replaced by "[redacted]" in the logged
	// arguments, at any depth, matched without regard to case: "password" hides
	// {"password":…} and {"auth":{"Password":…}}. When some are configured and the call has
	// no validated arguments (the tool refused them, or the tool does not exist), the
	// arguments are not shown at all, since what to hide cannot be found safely: the record
	// says "[not shown]".
	Redact []string
	// OmitArguments leaves the arguments out of the records (their size is still logged).
	OmitArguments bool
}

// Log writes one record per call to logger, after the call, with message "tool call" and
// attributes:
//
//	tool        the tool name
//	call_id     the tool_call_id
//	duration    the time spent in the rest of the chain
//	kind        the failure kind, only on failure
//	truncated   whether an inner middleware shortened or rewrote the content (Original set)
//	args_bytes  the size of the raw argument text
//	arguments   the arguments, fields in Redact hidden, cut to 2000 characters
//	repair      the repair applied to the arguments, if any
//	error       Result.Err, if any
//
// The arguments shown are those the tool validated, exactly as [tool.Tool.Arguments] returns
// them (repaired, one JSON object), never the raw text. A call without validated arguments
// (the tool refused them, or the model named no tool) shows its raw text, cut, when Redact is
// empty, and "[not shown]" otherwise; Log never parses text the tool refused.
//
// Log outermost sees every call, including those refused by policies; placed just around
// the tool, it times the tool alone. A nil logger logs nothing. opts may be nil.
func Log(logger *slog.Logger, opts *LogOptions) tool.Middleware {
	if logger == nil {
		return func(next tool.Handler) tool.Handler { return next }
	}
	var o LogOptions
	if opts != nil {
		o = *opts
	}
	level := slog.LevelInfo
	if o.Level != nil {
		level = o.Level.Level()
	}
	redact := make(map[string]struct{}, len(o.Redact))
	for _, k := range o.Redact {
		redact[strings.ToLower(k)] = struct{}{}
	}
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			start := time.Now()
			res := next(ctx, call)
			dur := time.Since(start)
			lvl := level
			if res.Failed() {
				lvl = max(level, slog.LevelWarn)
			}
			if !logger.Enabled(ctx, lvl) {
				return res
			}
			attrs := make([]slog.Attr, 0, 9)
			attrs = append(attrs,
				slog.String("tool", call.Name),
				slog.String("call_id", call.ID),
				slog.Duration("duration", dur))
			if res.Failed() {
				attrs = append(attrs, slog.String("kind", string(res.Kind)))
			}
			attrs = append(attrs,
				slog.Bool("truncated", res.Original != ""),
				slog.Int("args_bytes", len(call.Arguments)))
			if !o.OmitArguments {
				attrs = append(attrs, slog.String("arguments", shownArguments(call, redact)))
			}
			if res.Repair != "" {
				attrs = append(attrs, slog.String("repair", res.Repair))
			}
			if res.Err != nil {
				attrs = append(attrs, slog.Any("error", res.Err))
			}
			logger.LogAttrs(ctx, lvl, "tool call", attrs...)
			return res
		}
	}
}

// shownArguments renders the arguments of call for a record: the validated arguments, with
// the values of the keys in redact (lower case) hidden; without validated arguments, the raw
// text when nothing is to be hidden.
func shownArguments(call tool.Call, redact map[string]struct{}) string {
	var args []byte
	valid := false
	if call.Tool != nil {
		a, _, err := call.Tool.Arguments(call.Arguments)
		args, valid = a, err == nil
	}
	switch {
	case !valid && len(redact) == 0:
		args = []byte(call.Arguments)
	case !valid:
		return notShown
	case len(redact) > 0:
		// The arguments are within the tool's size limit and nesting bound.
		redacted, hidden, err := redactJSON(args, argumentsMaxDepth, func(k string) bool {
			_, ok := redact[strings.ToLower(k)]
			return ok
		})
		if err != nil {
			return notShown
		}
		if hidden { // else the tool's own text, as it is
			args = redacted
		}
	}
	s, _ := truncateMiddle(string(args), logArgumentsMax)
	return s
}
