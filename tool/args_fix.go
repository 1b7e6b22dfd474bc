package tool

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// fixes is the set of repairs applied to one argument text.
type fixes uint32

const (
	fixBOM fixes = 1 << iota
	fixWhitespace
	fixDoubled
	fixFence
	fixText
	fixExtraClosers
	fixComments
	fixSingleQuotes
	fixSmartQuotes
	fixPython
	fixUndefined
	fixUnquotedKeys
	fixBareValues
	fixTrailingCommas
	fixExtraCommas
	fixMissingCommas
	fixMissingColons
	fixMissingQuotes
	fixInnerQuotes
	fixControlChars
	fixEscapes
	fixBackslashes
	fixClosers
	fixOther
)

var fixNames = [...]string{
	"removed byte order mark",
	"trimmed unusual whitespace",
	"decoded arguments encoded twice as a JSON string",
	"stripped markdown fence",
	"removed text around the JSON",
	"removed extra closing bracket",
	"removed comments",
	"replaced single quotes",
	"replaced smart quotes",
	"converted Python literals",
	"replaced undefined with null",
	"quoted unquoted keys",
	"quoted bare values",
	"removed trailing comma",
	"removed extra comma",
	"added missing comma",
	"added missing colon",
	"added missing quote",
	"escaped inner quotes",
	"escaped control characters",
	"removed stray backslashes",
	"fixed invalid escapes",
	"added missing closing bracket",
	"repaired malformed JSON",
}

func (f fixes) String() string {
	var b strings.Builder
	for i, name := range fixNames {
		if f&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(name)
		}
	}
	return b.String()
}

// fixer repairs the common syntax errors of JSON-like text in one linear pass, without the
// repairer: the repairer copies its whole output at every comma, so it takes seconds on
// 64 KiB of text with many commas. The fixer follows the repairer's rules where they matter:
// a quote ends a string only when a delimiter follows it, and a string whose end quote is
// missing ends before a comma followed by the next quoted key.
//
// The fixer gives up (bail >= 0) where the repairer may know better; it then keeps scanning
// without writing, to find where the object ends and what it contains.
type fixer struct {
	s     string
	out   []byte
	write bool   // false once the fixer gave up
	stack []byte // open '{' and '['
	prev  byte   // the last token: 0, '{', '[', ',', ':', 'k' (an object key) or 'v' (a value)
	typed bool   // the last key was a string with both its quotes: it may miss its colon
	bare  bool   // the last value was unquoted text: at the end of s, it may be cut
	comma int    // index in out of the last comma written, -1 if none since an opener
	depth int    // deepest nesting seen
	end   int    // just past the '}' that closes the object s starts with; -1 while open
	fixes fixes
	at    int    // where the current token starts
	err   error  // a refusal: repairing would change the meaning
	bail  int    // where the fixer gave up, -1 if it did not
	why   string // what it found there
	seen  fixes  // the fixes found before it gave up
}

// fix runs a fixer over s, which starts with '{'.
func fix(s string) *fixer {
	f := &fixer{s: s, out: make([]byte, 0, len(s)+8), write: true, comma: -1, end: -1, bail: -1}
	f.run()
	if f.bail >= 0 {
		// Past the point where it gave up, the fixer's reading of s is a guess.
		f.fixes = f.seen
	}
	return f
}

func (f *fixer) run() {
	s := f.s
	i := 0
	for i < len(s) && f.err == nil && f.end < 0 {
		c := s[i]
		switch {
		case isJSONSpace(c):
			f.put(c)
			i++
		case c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			f.fixes |= fixComments
			i = skipComment(s, i)
		case c == '{' || c == '[':
			if f.open() {
				f.stop(i, "expected an object key")
			}
			f.stack = append(f.stack, c)
			f.depth = max(f.depth, len(f.stack))
			if f.depth > maxRepairDepth {
				f.err = fmt.Errorf("arguments nest deeper than %d levels", maxRepairDepth)
				return
			}
			f.put(c)
			f.prev = c
			i++
		case c == '}' || c == ']':
			i = f.close(i)
		case c == ',':
			switch f.prev {
			case '{', '[':
				f.comma = -1
				f.fixes |= fixExtraCommas
			case ',':
				f.fixes |= fixExtraCommas
			case ':', 'k':
				f.refuse(errNoValue)
			default:
				f.comma = len(f.out)
				f.put(c)
			}
			f.prev = ','
			i++
		case c == ':':
			if f.prev != 'k' {
				f.stop(i, "unexpected character ':'")
			}
			f.put(c)
			f.prev = ':'
			i++
		default:
			if q, n := quoteAt(s, i); q != 0 {
				i = f.str(i, q, n)
			} else {
				i = f.word(i)
			}
		}
	}
	if f.err != nil || f.end >= 0 {
		return
	}
	// The text ended inside the object: the model forgot closing brackets, or its output was
	// cut. Only the first is repaired, when the text ends with a complete value.
	switch {
	case f.prev == ':' || f.prev == 'k':
		f.refuse(errNoValue)
		return
	case f.prev == ',':
		f.refuse(errCutComma)
		return
	case f.bare:
		f.refuse(errCutValue)
		return
	}
	f.fixes |= fixClosers
	for k := len(f.stack) - 1; k >= 0; k-- {
		f.put(closer(f.stack[k]))
	}
}

var errNoValue = errors.New("an object key has no value: the arguments end too early or a value is missing")

// put writes bytes to the output, until the fixer gives up.
func (f *fixer) put(b ...byte) {
	if f.write {
		f.out = append(f.out, b...)
	}
}

func (f *fixer) puts(s string) {
	if f.write {
		f.out = append(f.out, s...)
	}
}

// refuse refuses the text for err, found by reading it as the fixer does: once the fixer
// gave up, that reading may be wrong, and the repairer and sameMeaning decide instead.
func (f *fixer) refuse(err error) {
	if f.write {
		f.err = err
	}
}

// stop gives up at s[i].
func (f *fixer) stop(i int, why string) {
	if f.bail < 0 {
		f.bail, f.why, f.write, f.seen = i, why, false, f.fixes
	}
}

// open prepares for a key or a value: it inserts a missing comma or colon and reports
// whether the token is an object key.
func (f *fixer) open() (key bool) {
	switch f.prev {
	case 'v':
		f.fixes |= fixMissingCommas
		f.insert(',')
		f.prev = ','
	case 'k':
		if !f.typed {
			f.stop(f.at, "expected ':' after an object key")
		}
		f.fixes |= fixMissingColons
		f.insert(':')
		f.prev = ':'
	}
	return len(f.stack) > 0 && f.stack[len(f.stack)-1] == '{' && (f.prev == '{' || f.prev == ',')
}

// insert writes c after the last token written, before the whitespace that follows it.
func (f *fixer) insert(c byte) {
	if !f.write {
		return
	}
	k := len(f.out)
	for k > 0 && isJSONSpace(f.out[k-1]) {
		k--
	}
	f.out = slices.Insert(f.out, k, c)
	if c == ',' {
		f.comma = k
	}
}

// dropComma removes the comma written last, a trailing comma. After an extra comma, as in
// [,], there is none.
func (f *fixer) dropComma() {
	if f.comma < 0 {
		return
	}
	f.fixes |= fixTrailingCommas
	if f.write {
		f.out = slices.Delete(f.out, f.comma, f.comma+1)
	}
	f.comma = -1
}

// close handles the '}' or ']' at s[i].
func (f *fixer) close(i int) int {
	c := f.s[i]
	switch f.prev {
	case ':', 'k':
		f.refuse(errNoValue)
	case ',':
		f.dropComma()
	}
	open := byte('{')
	if c == ']' {
		open = '['
	}
	k := len(f.stack) - 1
	for k >= 0 && f.stack[k] != open {
		k--
	}
	if k < 0 {
		f.stop(i, fmt.Sprintf("unexpected character %q", c))
		return i + 1
	}
	if k < len(f.stack)-1 {
		f.fixes |= fixClosers
		for j := len(f.stack) - 1; j > k; j-- {
			f.put(closer(f.stack[j]))
		}
	}
	f.put(c)
	f.stack = f.stack[:k]
	f.prev = 'v'
	f.bare = false
	if len(f.stack) == 0 {
		f.end = i + 1
	}
	return i + 1
}

func closer(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}
