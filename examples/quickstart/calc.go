package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/Knetic/govaluate"
)

// maxExpression caps the length of an expression: govaluate's parser slows down sharply on
// deep nesting, and no arithmetic a user asks for in chat is longer.
const maxExpression = 256

// functions are the only functions an expression may call. Nothing reaches outside the
// process: no variables, no parameters, no I/O.
var functions = map[string]govaluate.ExpressionFunction{
	"sqrt":  unary(math.Sqrt),
	"abs":   unary(math.Abs),
	"floor": unary(math.Floor),
	"ceil":  unary(math.Ceil),
	"round": unary(math.Round),
	"ln":    unary(math.Log),
	"log10": unary(math.Log10),
	"pow": func(args ...any) (any, error) {
		if len(args) != 2 {
			return nil, errors.New("pow takes 2 arguments")
		}
		a, ok1 := args[0].(float64)
		b, ok2 := args[1].(float64)
		if !ok1 || !ok2 {
			return nil, errors.New("pow takes numbers")
		}
		return math.Pow(a, b), nil
	},
}

func unary(f func(float64) float64) govaluate.ExpressionFunction {
	return func(args ...any) (any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("takes 1 argument, got %d", len(args))
		}
		x, ok := args[0].(float64)
		if !ok {
			return nil, errors.New("takes a number")
		}
		return f(x), nil
	}
}

// Calculate evaluates an arithmetic expression safely with github.com/Knetic/govaluate.
//
// Operators: + - * / % and ** (power), parentheses, and the functions sqrt, abs, floor, ceil,
// round, ln, log10, pow(a, b). govaluate's own semantics are tightened where they would give a
// silently wrong answer:
//   - "^" is bitwise XOR in govaluate (2^3 = 1): it is refused, with a hint to use **.
//   - "**" is left-associative and applies after unary minus (2**3**2 = 64, -2**2 = 4), unlike
//     the usual mathematical convention: a chain a**b**c and a negated base — -a**b,
//     -(a)**b, -f(a)**b — are refused unless parenthesized.
//   - Division by zero and any other non-finite result (+Inf, NaN) are errors, not "+Inf".
//   - Variables, strings, comparisons, logical and bitwise operators are refused; input is
//     capped at 256 bytes; a panic inside govaluate is recovered into an error.
//
// The result is rounded to 12 significant digits, so 0.1+0.2 gives 0.3.
func Calculate(expr string) (result string, err error) {
	expr = strings.TrimSpace(expr)
	switch {
	case expr == "":
		return "", errors.New("empty expression")
	case len(expr) > maxExpression:
		return "", fmt.Errorf("expression is %d bytes, over the %d-byte limit", len(expr), maxExpression)
	case strings.Contains(expr, "^"):
		return "", errors.New(`"^" is not supported (it would mean XOR); write powers with **, e.g. 2 ** 10`)
	}
	for _, r := range expr {
		if !strings.ContainsRune("0123456789.+-*/%(), \t", r) && !('a' <= r && r <= 'z') && r != '_' {
			return "", fmt.Errorf("unsupported character %q: only numbers, + - * / %% ** ( ) and the functions sqrt abs floor ceil round ln log10 pow are allowed", r)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			result, err = "", fmt.Errorf("cannot evaluate %q", expr)
		}
	}()
	e, err := govaluate.NewEvaluableExpressionWithFunctions(expr, functions)
	if err != nil {
		return "", fmt.Errorf("cannot parse %q: %v", expr, err)
	}
	if vars := e.Vars(); len(vars) > 0 {
		return "", fmt.Errorf("unknown name %q: only numbers and the listed functions are allowed", vars[0])
	}
	if err := checkPower(e.Tokens()); err != nil {
		return "", err
	}
	v, err := e.Evaluate(nil)
	if err != nil {
		return "", fmt.Errorf("cannot evaluate %q: %v", expr, err)
	}
	f, ok := v.(float64)
	if !ok {
		return "", fmt.Errorf("%q is not an arithmetic expression", expr)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("%q has no finite value (division by zero?)", expr)
	}
	f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// baseStart returns the index of the first token of the base of the ** at tokens[i]: a
// number, a parenthesized group, or a function call.
func baseStart(tokens []govaluate.ExpressionToken, i int) int {
	j := i - 1
	if j >= 0 && tokens[j].Kind == govaluate.CLAUSE_CLOSE {
		for depth := 0; j >= 0; j-- {
			switch tokens[j].Kind {
			case govaluate.CLAUSE_CLOSE:
				depth++
			case govaluate.CLAUSE:
				depth--
			}
			if depth == 0 {
				break
			}
		}
		if j > 0 && tokens[j-1].Kind == govaluate.FUNCTION {
			j--
		}
	}
	return j
}

// checkPower refuses the ** forms whose govaluate meaning differs from the mathematical one.
func checkPower(tokens []govaluate.ExpressionToken) error {
	depth := 0
	lastPowDepth := -1 // depth of a ** seen since the last operator of lower precedence
	for i, t := range tokens {
		switch t.Kind {
		case govaluate.CLAUSE:
			depth++
		case govaluate.CLAUSE_CLOSE:
			depth--
			if lastPowDepth > depth {
				lastPowDepth = -1
			}
		case govaluate.MODIFIER, govaluate.COMPARATOR, govaluate.LOGICALOP, govaluate.TERNARY:
			if t.Value == "**" {
				if lastPowDepth == depth {
					return errors.New("ambiguous power chain a ** b ** c: add parentheses, e.g. 2 ** (3 ** 2)")
				}
				lastPowDepth = depth
				if b := baseStart(tokens, i); b > 0 && tokens[b-1].Kind == govaluate.PREFIX {
					return errors.New("ambiguous negative base -a ** b: write -(a ** b) or (-a) ** b")
				}
			} else {
				lastPowDepth = -1
			}
		case govaluate.SEPARATOR:
			lastPowDepth = -1
		}
	}
	return nil
}
