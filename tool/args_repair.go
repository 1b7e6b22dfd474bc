package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kaptinlin/jsonrepair"
)

// The repair of the object itself (args.go unwraps it): a quick reading of the text finds
// where the object ends and whether it was cut off; github.com/kaptinlin/jsonrepair repairs
// it; args_meaning.go checks that the repair kept its meaning.

// repairObject repairs src, text that starts with '{' at byte base of what the model sent.
func repairObject(src string, base int, fx notes) ([]byte, string, error) {
	r := readObject(src)
	if r.depth > maxDepth { // the repairer recurses per level
		return nil, "", fmt.Errorf("arguments nest deeper than %d levels", maxDepth)
	}
	if r.end >= 0 {
		rest := strings.TrimLeft(src[r.end:], " \t\r\n")
		switch {
		case rest == "":
		case onlyComments(rest):
			fx = fx.with("removed comments")
		case strings.Trim(rest, "}] \t\r\n") == "":
			fx = fx.with("removed extra closing bracket")
		case strings.ContainsAny(rest, "{["):
			at := base + len(src) - len(rest) + strings.IndexAny(rest, "{[")
			return nil, "", fmt.Errorf("expected one JSON object, found another value at byte %d", at)
		case isProse(rest):
			fx = fx.with(noteText)
		default:
			r.end = -1 // not prose: the repairer must see it
		}
		if r.end >= 0 {
			src = src[:r.end]
			if json.Valid([]byte(src)) {
				return []byte(src), fx.String(), nil
			}
		}
	}
	if r.end < 0 {
		if err := r.cutOff(src); err != nil {
			return nil, "", located(err, base+len(src))
		}
		if closed := src + r.closers(); json.Valid([]byte(closed)) { // only brackets missing
			return []byte(closed), fx.with("added missing closing bracket").String(), nil
		}
	}
	if len(src) > maxRepairerInput {
		return nil, "", fmt.Errorf("the arguments are %d bytes of malformed JSON, over the %d bytes that can be repaired safely: send valid JSON", len(src), maxRepairerInput)
	}
	out, err := runRepair(src)
	if err != nil {
		return nil, "", describeRepairError(src, base, err)
	}
	out = trimJSONSpace(out)
	if out == "" || !json.Valid([]byte(out)) {
		return nil, "", errors.New("the arguments are malformed JSON that cannot be repaired safely")
	}
	if out[0] != '{' {
		return nil, "", fmt.Errorf("expected one JSON object, got %s", describe(out))
	}
	if err := sameMeaning(src, out); err != nil {
		return nil, "", located(err, base+len(src))
	}
	return []byte(out), fx.with(noteRepaired).String(), nil
}

// reading is what a quick, tolerant reading of malformed text finds: strings open and close
// at quotes ("…", '…', “…”, ‘…’, `…`), brackets count outside them.
type reading struct {
	end      int    // just past the bracket that closes the object the text starts with; -1 if none
	depth    int    // the deepest nesting seen
	open     []byte // the brackets open at the end of the text
	inString bool   // the text ends inside a string
}

// closers returns the brackets that close what is open at the end of the text.
func (r reading) closers() string {
	b := make([]byte, len(r.open))
	for i, c := range r.open {
		b[len(b)-1-i] = c + 2 // '[' + 2 == ']', '{' + 2 == '}'
	}
	return string(b)
}

// readObject reads s, which starts with '{'.
func readObject(s string) reading {
	r := reading{end: -1}
	var open rune // the quote of the string being read; 0 outside strings
	for i := 0; i < len(s); {
		q, n := quoteAt(s, i)
		switch c := s[i]; {
		case open != 0 && c == '\\':
			_, m := utf8.DecodeRuneInString(s[min(i+1, len(s)):])
			n = 1 + m
		case open != 0:
			if q != 0 && closes(open, q, s, i, n) {
				open = 0
			}
		case q != 0:
			open = q
		case c == '{' || c == '[':
			r.open = append(r.open, c)
			r.depth = max(r.depth, len(r.open))
		case c == '}' || c == ']':
			if r.open = r.open[:max(len(r.open)-1, 0)]; len(r.open) == 0 {
				r.end = i + 1
				return r
			}
		}
		if n == 0 {
			n = 1
		}
		i += n
	}
	r.inString = open != 0
	return r
}

// closes reports whether quote q, n bytes at s[i], closes a string opened by quote open. As in
// the repairer, " and ' close only themselves, the other quotes any quote of their family; and
// a single quote between two letters is an apostrophe (it's, l’été).
func closes(open, q rune, s string, i, n int) bool {
	if open == '"' || open == '\'' {
		if q != open {
			return false
		}
	} else if isDoubleLike(open) != isDoubleLike(q) {
		return false
	}
	if isDoubleLike(q) {
		return true
	}
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+n:])
	return !unicode.IsLetter(before) || !unicode.IsLetter(after)
}

func isDoubleLike(r rune) bool { return r == '"' || r == '“' || r == '”' }

// quoteAt returns the quote character at s[i] and its length in bytes, or 0.
func quoteAt(s string, i int) (rune, int) {
	switch c := s[i]; {
	case c == '"' || c == '\'' || c == '`':
		return rune(c), 1
	case c < utf8.RuneSelf:
		return 0, 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	switch r {
	case '“', '”', '‘', '’', '´':
		return r, n
	}
	return 0, 0
}

// cutOff reports whether src, an object the reading found not closed, ends where its last
// value may be incomplete: the model forgot closing brackets, or its output was cut. Only the
// first is repaired, when the text ends with a closed string or a closing bracket.
func (r reading) cutOff(src string) error {
	t := strings.TrimRight(src, " \t\r\n")
	last, n := utf8.DecodeLastRuneInString(t)
	switch {
	case r.inString && (last == '}' || last == ']'):
		return nil // {"a": "x}: a missing end quote, as the repairer reads it
	case r.inString:
		return errCutOff
	case last == '}' || last == ']':
		return nil
	case last == ',':
		return errCutComma
	case last == ':':
		return errNoValue
	case last == '{' || last == '[':
		return errCutOpen
	}
	if q, _ := quoteAt(t, len(t)-n); q != 0 {
		return nil // a closed string
	}
	return errCutValue
}

// The text ends where a repair would have to guess what comes next.
var (
	errCutOff   = errors.New("unexpected end of input inside a string")
	errCutValue = errors.New("unexpected end of input after an unquoted value")
	errCutComma = errors.New("unexpected end of input after a comma")
	errCutOpen  = errors.New("unexpected end of input after an opening bracket")
	errNoValue  = errors.New("an object key has no value: the arguments end too early or a value is missing")
)

// located adds where the text ends to a refusal that happened there.
func located(err error, end int) error {
	switch err {
	case errCutOff, errCutValue, errCutComma, errCutOpen:
		return fmt.Errorf("%w at byte %d: the arguments look cut off", err, end)
	}
	return err
}

// onlyComments reports whether s holds only comments and whitespace.
func onlyComments(s string) bool {
	for {
		end := ""
		switch s = strings.TrimLeft(s, " \t\r\n"); {
		case s == "":
			return true
		case strings.HasPrefix(s, "//"):
			end = "\n"
		case strings.HasPrefix(s, "/*"):
			end = "*/"
		default:
			return false
		}
		k := strings.Index(s[2:], end)
		if k < 0 {
			return true // a comment runs to the end
		}
		s = s[2+k+len(end):]
	}
}

// isProse reports whether text after the object reads as prose (or a JSONP ");") rather
// than the continuation of a JSON value the repairer should see.
func isProse(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	if unicode.IsLetter(r) {
		return true
	}
	return strings.ContainsRune("`');.!?*#<>-—。！？（）", r)
}

// runRepair calls the repairer, turning a panic into an error.
func runRepair(s string) (out string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = "", fmt.Errorf("repair failed: %v", p)
		}
	}()
	return jsonrepair.Repair(s)
}

// describeRepairError rewrites an error of the repairer for the model: what is wrong, at
// which byte of the text it sent. src starts at byte base of that text.
func describeRepairError(src string, base int, err error) error {
	var re *jsonrepair.Error
	if !errors.As(err, &re) {
		return errors.New("the arguments are malformed JSON that cannot be repaired safely")
	}
	at := len(src) // Position counts runes of src, which is valid UTF-8
	if runes := []rune(src); re.Position >= 0 && re.Position < len(runes) {
		at = len(string(runes[:re.Position]))
	}
	var what string
	switch {
	case errors.Is(err, jsonrepair.ErrUnexpectedEnd):
		what = "unexpected end of input"
	case errors.Is(err, jsonrepair.ErrObjectKeyExpected):
		what = "expected an object key"
	case errors.Is(err, jsonrepair.ErrColonExpected):
		what = "expected ':' after an object key"
	case errors.Is(err, jsonrepair.ErrInvalidCharacter):
		what = "invalid control character in a string"
	case errors.Is(err, jsonrepair.ErrInvalidUnicode):
		what = `invalid \u escape in a string`
	case at < len(src):
		r, _ := utf8.DecodeRuneInString(src[at:])
		what = fmt.Sprintf("unexpected character %q", r)
	default:
		what = "unexpected end of input"
	}
	return fmt.Errorf("%s at byte %d", what, base+at)
}
