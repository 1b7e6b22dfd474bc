package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolcall/toolcall/tool"
)

// Rule is one check on a call's arguments, beyond what the schema says. Build one with
// [OneOf], [Pattern], [Range] or [RuleFunc]. The zero Rule accepts everything.
//
// A field Rule names its field by a dotted path into the arguments object: "city",
// "route.to", "items.0.sku" (object keys, and array indexes in decimal). A field that is
// absent passes: whether it is required is the schema's business.
type Rule struct {
	path  string
	field func(v any) error // checks the value at path
	fn    func(ctx context.Context, call tool.Call, args json.RawMessage) error
}

// OneOf requires the field at path to equal one of values, compared as JSON (numbers by
// value: 1 equals 1.0). OneOf panics if a value cannot be encoded as JSON.
func OneOf(path string, values ...any) Rule {
	allowed := make([]any, len(values))
	shown := make([]string, len(values))
	for i, v := range values {
		b, err := json.Marshal(v)
		if err == nil {
			allowed[i], err = decodeAny(b)
		}
		if err != nil {
			panic(fmt.Sprintf("middleware.OneOf %q: value %v: %v", path, v, err))
		}
		shown[i] = string(b)
	}
	list := strings.Join(shown, ", ")
	return Rule{path: path, field: func(v any) error {
		for _, a := range allowed {
			if jsonEqual(a, v) {
				return nil
			}
		}
		return fmt.Errorf("%s must be one of %s; got %s", path, list, show(v))
	}}
}

// Pattern requires the field at path to be a string matching the regular expression expr
// (RE2 syntax; anchor it with ^ and $ to match the whole string). Pattern panics if expr does
// not compile.
func Pattern(path, expr string) Rule {
	re := regexp.MustCompile(expr)
	return Rule{path: path, field: func(v any) error {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be a string matching %s; got %s", path, expr, show(v))
		}
		if !re.MatchString(s) {
			return fmt.Errorf("%s must match the pattern %s; got %s", path, expr, show(v))
		}
		return nil
	}}
}

// Range requires the field at path to be a number from lo to hi, both included. Use
// math.Inf for a bound on one side only.
func Range(path string, lo, hi float64) Rule {
	bound := func(f float64) *big.Rat { // the decimal the caller wrote: 0.01 is 1/100
		if math.IsInf(f, 0) {
			return nil
		}
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
		return r
	}
	min, max := bound(lo), bound(hi)
	return Rule{path: path, field: func(v any) error {
		n, ok := v.(json.Number)
		r, valid := new(big.Rat).SetString(string(n)) // exact: 1000.0000000000000001 is over 1000
		if !ok || !valid {
			return fmt.Errorf("%s must be a number from %v to %v; got %s", path, lo, hi, show(v))
		}
		if min != nil && r.Cmp(min) < 0 || max != nil && r.Cmp(max) > 0 {
			return fmt.Errorf("%s must be from %v to %v; got %s", path, lo, hi, n)
		}
		return nil
	}}
}

// RuleFunc returns a Rule that runs f on the validated arguments (one JSON object, the text
// [tool.Tool.Arguments] returns; call.Arguments is the same text). A non-nil error refuses the
// call; its message is what the model reads, so say what is wrong and what would be accepted.
func RuleFunc(f func(ctx context.Context, call tool.Call, args json.RawMessage) error) Rule {
	return Rule{fn: f}
}

// Check applies rules to the calls of the tool named toolName (every tool when toolName is
// ""). The arguments are first repaired and validated against the schema (as the tool would);
// arguments the schema refuses get the same result the tool would give, without any rule
// running. Then the rules run in order on the validated arguments — exactly what
// [tool.Tool.Arguments] returns, never the raw text — and the first that fails refuses the
// call with a [tool.KindDenied] result carrying its message:
//
//	middleware.Check("transfer",
//		middleware.OneOf("currency", "CNY", "USD"),
//		middleware.Range("amount", 0.01, 1000),
//		middleware.Pattern("account", `^[0-9]{8,20}$`))
//
// Field rules decode the arguments at most 64 levels deep (the tool's own bound); deeper
// arguments are refused, since they cannot be checked. Calls to tools that do not exist pass
// through.
func Check(toolName string, rules ...Rule) tool.Middleware {
	rules = append([]Rule(nil), rules...)
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			if call.Tool == nil || (toolName != "" && call.Name != toolName) {
				return next(ctx, call)
			}
			args, fail := validated(call)
			if fail != nil {
				return *fail
			}
			if err := checkRules(ctx, call, args, rules); err != nil {
				res := refuse(call, err.Error()+". Call again only with arguments that satisfy this, if the user's request allows it.")
				res.Err = fmt.Errorf("middleware: call to %s denied: %w", call.Name, err)
				return res
			}
			return next(ctx, call)
		}
	}
}

// checkRules runs rules in order on the validated arguments args, with call.Arguments set to
// them, and returns the first failure.
func checkRules(ctx context.Context, call tool.Call, args json.RawMessage, rules []Rule) error {
	call.Arguments = string(args)
	var decoded any
	for _, r := range rules {
		var err error
		switch {
		case r.fn != nil:
			err = r.fn(ctx, call, args)
		case r.field != nil:
			if decoded == nil {
				if decoded, err = decodeAny(args); errors.Is(err, errTooDeep) {
					return fmt.Errorf("the arguments nest deeper than %d levels, too deep to check", argumentsMaxDepth)
				} else if err != nil {
					return fmt.Errorf("the arguments could not be checked: %w", err)
				}
			}
			if v, ok := lookupPath(decoded, r.path); ok {
				err = r.field(v)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// jsonEqual compares decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	na, ok1 := a.(json.Number)
	nb, ok2 := b.(json.Number)
	if ok1 && ok2 {
		fa, err1 := na.Float64()
		fb, err2 := nb.Float64()
		return err1 == nil && err2 == nil && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

// show renders a decoded value as compact JSON for a message, cut to 80 characters.
func show(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(b.String(), "\n")
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:77]) + "..."
	}
	return s
}
