package tool

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The fast path of the validator: the raw bytes are checked against a compiled form of the
// common keywords, without decoding them. It can only say "valid"; see validator.

type fastResult uint8

const (
	fastOK      fastResult = iota // valid, and the scanner is past the value
	fastFail                      // definitely invalid
	fastUnknown                   // the fast path cannot tell
)

// JSON types as a bit set.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeNumber
	typeInteger
	typeString
	typeArray
	typeObject
)

// fastNode is a compiled schema for the fast path. It covers the keywords reflected and
// strict schemas use; a schema with any other keyword compiles to an unsupported node, and
// a value reaching it goes to the full validator.
type fastNode struct {
	unsupported bool
	never       bool  // the false schema
	types       uint8 // 0: any type
	enum        []fastValue
	hasEnum     bool
	format      func(any) error
	ref         *fastNode
	allOf       []*fastNode
	anyOf       []*fastNode
	oneOf       []*fastNode
	not         *fastNode

	props        map[string]fastProp
	requiredMask uint64
	additional   *fastNode // schema of other properties; nil with noAdditional false: anything
	noAdditional bool

	items              *fastNode
	minItems, maxItems int // -1: none

	minLength, maxLength int // -1: none
	pattern              *regexp.Regexp

	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf *fastNumber
}

type fastProp struct {
	node     *fastNode // nil: the name is only required, its value goes to additional
	required uint64    // bit in requiredMask, 0 when optional
}

// fastValue is one enum or const value: a scalar.
type fastValue struct {
	typ uint8
	str string
	b   bool
	num *fastNumber
}

// fastNumber is a number from the schema.
type fastNumber struct {
	rat   *big.Rat // exact
	i     int64
	isInt bool    // rat is an integer that fits i
	f     float64 // rat, rounded
	tol   float64 // a float64 difference beyond tol from f decides a comparison
}

func newFastNumber(r *big.Rat) *fastNumber {
	n := &fastNumber{rat: r}
	if r.IsInt() && r.Num().IsInt64() {
		n.i, n.isInt = r.Num().Int64(), true
	}
	n.f, _ = r.Float64()
	n.tol = 1e-9 * max(1, math.Abs(n.f))
	return n
}

// check validates the value at the scanner's position against n.
func (n *fastNode) check(s *scanner) fastResult {
	if n.unsupported {
		return fastUnknown
	}
	if n.never {
		return fastFail
	}
	s.ws()
	if s.pos >= len(s.data) || s.depth > 200 {
		return fastUnknown
	}
	s.depth++
	r := n.checkValue(s)
	s.depth--
	return r
}

func (n *fastNode) checkValue(s *scanner) fastResult {
	start := s.pos
	if r := n.own(s); r != fastOK {
		return r
	}
	end := s.pos
	if n.ref == nil && n.allOf == nil && n.anyOf == nil && n.oneOf == nil && n.not == nil {
		return fastOK
	}
	// Applicators see the same value: each rescans it from start. Their results combine
	// with AND: a failure decides, then an unknown.
	res := fastOK
	and := func(r fastResult) {
		if r == fastFail || (r == fastUnknown && res == fastOK) {
			res = r
		}
	}
	sub := func(n *fastNode) fastResult {
		s.pos = start
		return n.check(s)
	}
	if n.ref != nil {
		and(sub(n.ref))
	}
	for _, x := range n.allOf {
		and(sub(x))
	}
	if n.anyOf != nil {
		r := fastFail
		for _, x := range n.anyOf {
			if rr := sub(x); rr == fastOK {
				r = fastOK
				break
			} else if rr == fastUnknown {
				r = fastUnknown
			}
		}
		and(r)
	}
	if n.oneOf != nil {
		matched, unknown := 0, false
		for _, x := range n.oneOf {
			switch sub(x) {
			case fastOK:
				matched++
			case fastUnknown:
				unknown = true
			}
		}
		switch {
		case matched > 1:
			and(fastFail)
		case unknown:
			and(fastUnknown)
		case matched == 0:
			and(fastFail)
		}
	}
	if n.not != nil {
		switch sub(n.not) {
		case fastOK:
			and(fastFail)
		case fastUnknown:
			and(fastUnknown)
		}
	}
	s.pos = end
	return res
}

// anyValue accepts every value; skipping a value is checking it against anyValue.
var anyValue = &fastNode{minItems: -1, maxItems: -1, minLength: -1, maxLength: -1}

// own checks the value against n's own keywords (not its applicators) and moves past it.
func (n *fastNode) own(s *scanner) fastResult {
	switch c := s.data[s.pos]; {
	case c == '{':
		if !n.allows(typeObject) || n.hasEnum {
			return fastFail
		}
		return n.object(s)
	case c == '[':
		if !n.allows(typeArray) || n.hasEnum {
			return fastFail
		}
		return n.array(s)
	case c == '"':
		return n.string(s)
	case c == 't' || c == 'f' || c == 'n':
		return n.literal(s)
	case c == '-' || (c >= '0' && c <= '9'):
		return n.number(s)
	}
	return fastUnknown
}

func (n *fastNode) allows(t uint8) bool {
	return n.types == 0 || n.types&t != 0
}

func (n *fastNode) object(s *scanner) fastResult {
	s.pos++
	var seen uint64
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return n.required(seen)
	}
	for {
		s.ws()
		keyStart := s.pos
		raw, escaped, ok := s.string()
		if !ok {
			return fastUnknown
		}
		var p fastProp
		if n.props != nil {
			if escaped {
				var key string
				if json.Unmarshal(s.data[keyStart:s.pos], &key) != nil {
					return fastUnknown
				}
				p = n.props[key]
			} else {
				p = n.props[string(s.data[raw:s.rawEnd])]
			}
		}
		s.ws()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return fastUnknown
		}
		s.pos++
		seen |= p.required
		sub := p.node
		if sub == nil {
			if n.noAdditional {
				return fastFail
			}
			sub = n.additional
		}
		if sub != nil {
			if r := sub.check(s); r != fastOK {
				return r
			}
		} else if !s.skip() {
			return fastUnknown
		}
		s.ws()
		if s.pos >= len(s.data) {
			return fastUnknown
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return n.required(seen)
		default:
			return fastUnknown
		}
	}
}

func (n *fastNode) required(seen uint64) fastResult {
	if seen&n.requiredMask != n.requiredMask {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) array(s *scanner) fastResult {
	s.pos++
	count := 0
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return n.arrayLength(count)
	}
	for {
		if n.items != nil {
			if r := n.items.check(s); r != fastOK {
				return r
			}
		} else if !s.skip() {
			return fastUnknown
		}
		count++
		s.ws()
		if s.pos >= len(s.data) {
			return fastUnknown
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return n.arrayLength(count)
		default:
			return fastUnknown
		}
	}
}

func (n *fastNode) arrayLength(count int) fastResult {
	if (n.minItems >= 0 && count < n.minItems) || (n.maxItems >= 0 && count > n.maxItems) {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) string(s *scanner) fastResult {
	start := s.pos
	raw, escaped, ok := s.string()
	if !ok {
		return fastUnknown
	}
	if !n.allows(typeString) {
		return fastFail
	}
	if !n.hasEnum && n.minLength < 0 && n.maxLength < 0 && n.pattern == nil && n.format == nil {
		return fastOK
	}
	b := s.data[raw:s.rawEnd]
	if escaped {
		var str string
		if json.Unmarshal(s.data[start:s.pos], &str) != nil {
			return fastUnknown
		}
		b = []byte(str)
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e fastValue) bool { return e.typ == typeString && e.str == string(b) }) {
		return fastFail
	}
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCount(b)
		if (n.minLength >= 0 && l < n.minLength) || (n.maxLength >= 0 && l > n.maxLength) {
			return fastFail
		}
	}
	if n.pattern != nil && !n.pattern.Match(b) {
		return fastFail
	}
	if n.format != nil && n.format(string(b)) != nil {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) literal(s *scanner) fastResult {
	var v fastValue
	switch {
	case bytes.HasPrefix(s.data[s.pos:], []byte("true")):
		v, s.pos = fastValue{typ: typeBoolean, b: true}, s.pos+4
	case bytes.HasPrefix(s.data[s.pos:], []byte("false")):
		v, s.pos = fastValue{typ: typeBoolean}, s.pos+5
	case bytes.HasPrefix(s.data[s.pos:], []byte("null")):
		v, s.pos = fastValue{typ: typeNull}, s.pos+4
	default:
		return fastUnknown
	}
	if !n.allows(v.typ) {
		return fastFail
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, v.equal) {
		return fastFail
	}
	return fastOK
}

func (n *fastNode) number(s *scanner) fastResult {
	start := s.pos
	plain, ok := s.number()
	if !ok {
		return fastUnknown
	}
	v := fastLiteral{lit: s.data[start:s.pos]}
	if !plain && hugeExponent(v.lit) {
		return fastFail
	}
	if plain {
		v.i, v.isInt = parseInt(v.lit)
	}
	r := n.numberValue(&v)
	if v.bad {
		return fastUnknown
	}
	return r
}

func (n *fastNode) numberValue(v *fastLiteral) fastResult {
	if n.types != 0 && n.types&typeNumber == 0 {
		if n.types&typeInteger == 0 || (!v.isInt && !v.exact().IsInt()) {
			return fastFail
		}
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e fastValue) bool { return e.typ == typeNumber && v.cmp(e.num) == 0 }) {
		return fastFail
	}
	if (n.minimum != nil && v.cmp(n.minimum) < 0) ||
		(n.maximum != nil && v.cmp(n.maximum) > 0) ||
		(n.exclusiveMinimum != nil && v.cmp(n.exclusiveMinimum) <= 0) ||
		(n.exclusiveMaximum != nil && v.cmp(n.exclusiveMaximum) >= 0) {
		return fastFail
	}
	if m := n.multipleOf; m != nil {
		switch {
		case m.rat.Sign() == 0:
			return fastUnknown
		case v.isInt && m.isInt:
			if v.i%m.i != 0 {
				return fastFail
			}
		case !new(big.Rat).Quo(v.exact(), m.rat).IsInt():
			return fastFail
		}
	}
	return fastOK
}

// fastLiteral is a number from the arguments. Integers that fit int64 are compared as
// such; others as float64 when the difference is far beyond rounding errors (both sides
// are within 2^-53 relative of the exact values, the tolerance is 1e-9); and exactly with
// math/big, as the full validator does, in the remaining cases.
type fastLiteral struct {
	lit    []byte
	i      int64
	isInt  bool // a plain integer literal that fits i
	f      float64
	fState int8 // 0: f not parsed yet, 1: f holds lit, -1: lit does not fit float64
	rat    *big.Rat
	bad    bool // math/big could not parse lit: the result means nothing
}

func (v *fastLiteral) exact() *big.Rat {
	if v.rat == nil {
		r, ok := new(big.Rat).SetString(string(v.lit))
		if !ok {
			v.bad, r = true, new(big.Rat)
		}
		v.rat = r
	}
	return v.rat
}

// cmp compares the literal with schema number b.
func (v *fastLiteral) cmp(b *fastNumber) int {
	if v.isInt && b.isInt {
		switch {
		case v.i < b.i:
			return -1
		case v.i > b.i:
			return 1
		}
		return 0
	}
	if v.fState == 0 {
		var err error
		v.f, err = strconv.ParseFloat(string(v.lit), 64)
		v.fState = 1
		if err != nil {
			v.fState = -1
		}
	}
	if v.fState == 1 {
		switch d := v.f - b.f; {
		case d > b.tol:
			return 1
		case d < -b.tol:
			return -1
		}
	}
	return v.exact().Cmp(b.rat)
}
