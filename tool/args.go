package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultArgumentLimit is the size cap, in bytes, of the argument text of one call when
// Options.ArgumentLimit is zero.
const DefaultArgumentLimit = 64 << 10

// maxRepairerInput caps the text given to the repairer, whose time grows with the square of
// its input: 3 s for 64 KiB of missing commas, 50 ms for 8 KiB.
const maxRepairerInput = 8 << 10

// DecodeArguments turns the raw argument text a model sent into the bytes of one JSON object:
// the repair stage of [Tool.Arguments].
//
// limit caps len(raw) in bytes; limit <= 0 means [DefaultArgumentLimit]. Longer text is
// refused without any repair.
//
// Text that is already one JSON object, JSON whitespace around it aside, is returned as it
// is with an empty repair. The empty string, JSON whitespace and null are the usual ways to
// send no arguments: they decode to {} with an empty repair too.
//
// Other text is repaired when the repair fixes syntax only. First, simple steps unwrap the
// object: a byte order mark, unusual whitespace, a markdown fence (```json … ``` or ``` … ```),
// prose before or after the object (a JSONP-style callback( … ); too), comments or extra
// closing brackets after it, and arguments encoded twice (a JSON string whose content is the
// object, decoded once); closing brackets missing at the end are added when that is all the
// text lacks. What is left, when it is not JSON, goes to
// github.com/kaptinlin/jsonrepair, for up to 8 KiB of text: trailing, leading and missing
// commas, a missing colon after a quoted key, comments, single quotes, smart quotes (“ ” ‘ ’),
// unquoted keys and values (values become strings), Python's True, False and None,
// JavaScript's undefined (null), quotes and the control characters \b \f \n \r \t left
// unescaped in strings, a closing quote missing before the comma that precedes the next
// "key": or before the final closing brace, a number with leading zeros or a regular
// expression (they become strings), the unescaped backslashes of a Windows path, missing
// closing brackets. Malformed text over 8 KiB is refused: the repairer's time grows with the
// square of its input. What the repairer cannot read is refused with its reason and place:
// a doubled comma (a value may be missing there), an apostrophe inside a single-quoted
// string, another control character.
//
// A repair that would change meaning is not attempted: DecodeArguments returns an error
// instead. The result must be one JSON object: not an array, a string, a number, nor two
// objects (a second JSON value, or braces, in the text after the object are refused). And
// the repair may only add, remove or change syntax; precisely:
//   - every key and string value of the result appears in the input, in order, as written
//     or as decoded: joining strings ("a" + "b") is refused, and so is a dropped invalid
//     escape ("\q");
//   - every number appears in the input as written: 2. is not completed to 2.0;
//   - no null is invented for a key without a value;
//   - nothing that may have been cut off is completed: the text may not end inside a string,
//     after a number, a literal or an unquoted value, after a comma, a colon or an opening
//     bracket (a closed string or a closing bracket at the end may still be followed by the
//     missing closing brackets);
//   - an ellipsis (...) standing for left-out values is refused, not dropped;
//   - a function call inside the object, such as NumberLong(2), is refused, not unwrapped;
//   - text that needs a repair is refused if it is not valid UTF-8 or nests deeper than 64
//     levels.
//
// repair is a short description of what was fixed, for logs ("stripped markdown fence;
// repaired malformed JSON"): the unwrapping steps by name, the repairer's work as "repaired
// malformed JSON". It is empty only when obj is the input trimmed of JSON whitespace, or
// when the input meant no arguments as above. On error, obj is nil, repair is empty and the
// error's message says what is wrong, and where, for the model to read.
//
// obj is never shared: the caller may keep and modify it.
func DecodeArguments(raw string, limit int) (obj []byte, repair string, err error) {
	if limit <= 0 {
		limit = DefaultArgumentLimit
	}
	if len(raw) > limit {
		return nil, "", fmt.Errorf("arguments are %d bytes, over the %d-byte limit", len(raw), limit)
	}
	lead := len(raw) - len(strings.TrimLeft(raw, " \t\r\n"))
	s := trimJSONSpace(raw)
	if s == "" || s == "null" {
		return []byte("{}"), "", nil
	}
	if s[0] == '{' {
		b := []byte(s)
		if json.Valid(b) {
			return b, "", nil
		}
	}
	return repairArguments(s, lead)
}

// repairArguments unwraps the object in s, the argument text trimmed of JSON whitespace,
// starting at byte base of what the model sent, and repairs it.
func repairArguments(s string, base int) (obj []byte, repair string, err error) {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return nil, "", fmt.Errorf("arguments are not valid UTF-8 text (byte %d)", base+i)
		}
	}
	s, base, fx := trimAround(s, base)
	if s == "" || s == "null" {
		return []byte("{}"), fx.String(), nil
	}
	if s[0] == '"' {
		return decodeDoubled(s, fx)
	}
	if open, body, around := fence(s); open >= 0 {
		fx = fx.with(noteFence)
		if around {
			fx = fx.with(noteText)
		}
		t := strings.TrimSpace(body)
		switch t {
		case "":
			return nil, "", errors.New("expected one JSON object, got an empty code block")
		case "null":
			return []byte("{}"), fx.String(), nil
		}
		base += open + strings.Index(body, t)
		s = t
	}
	start := strings.IndexByte(s, '{')
	if start < 0 || start > 0 && (s[0] == '[' || s[0] == '"') {
		return nil, "", fmt.Errorf("expected one JSON object, got %s", describe(s))
	}
	if start > 0 {
		fx = fx.with(noteText)
	}
	return repairObject(s[start:], base+start, fx)
}

// trimAround removes a byte order mark and unusual whitespace around s.
func trimAround(s string, base int) (string, int, notes) {
	var fx notes
	if t, ok := strings.CutPrefix(s, "\uFEFF"); ok {
		fx = fx.with("removed byte order mark")
		base, s = base+len(s)-len(t), t
	}
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	base += len(s) - len(t)
	if t = strings.TrimRightFunc(t, unicode.IsSpace); len(t) != len(s) {
		fx = fx.with("trimmed unusual whitespace")
	}
	return t, base, fx
}

// decodeDoubled decodes arguments sent as a JSON string whose content is the arguments
// object. It decodes once: a string inside the string is refused.
func decodeDoubled(s string, fx notes) ([]byte, string, error) {
	var inner string
	if json.Unmarshal([]byte(s), &inner) != nil {
		return nil, "", fmt.Errorf("expected one JSON object, got %s", describe(s))
	}
	fx = fx.with(noteDoubled)
	switch t := strings.TrimSpace(inner); {
	case t == "" || t == "null":
		return []byte("{}"), fx.String(), nil
	case t[0] != '{':
		return nil, "", errors.New("expected one JSON object, got a string")
	}
	b, note, err := DecodeArguments(inner, len(inner))
	if err != nil {
		return nil, "", fmt.Errorf("arguments are a JSON string holding malformed JSON: %w", err)
	}
	if note != "" {
		fx = append(fx, note) // the inner repair's notes, as they are
	}
	return b, fx.String(), nil
}

// fence finds a markdown code fence opened before the first '{' of s. It returns the offset
// of the body in s (-1 when there is no fence), the body, and whether text surrounds the
// fence. A missing closing fence is tolerated.
func fence(s string) (offset int, body string, around bool) {
	open := strings.Index(s, "```")
	if open < 0 {
		return -1, "", false
	}
	if b := strings.IndexByte(s, '{'); b >= 0 && b < open {
		return -1, "", false
	}
	around = open > 0
	i := open + 3
	for i < len(s) && isInfoByte(s[i]) { // the language tag: json, JSON, jsonc, …
		i++
	}
	body = s[i:]
	if c := strings.LastIndex(body, "```"); c >= 0 {
		around = around || strings.TrimSpace(body[c+3:]) != ""
		body = body[:c]
	}
	return i, body, around
}

func isInfoByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '+' || c == '.'
}

// describe names the kind of JSON value s starts with, for an error message.
func describe(s string) string {
	switch {
	case s == "":
		return "nothing"
	case s[0] == '[':
		return "an array"
	case s[0] == '"' || s[0] == '\'':
		return "a string"
	case s[0] == '-' || '0' <= s[0] && s[0] <= '9':
		return "a number"
	case strings.HasPrefix(s, "true") || strings.HasPrefix(s, "false"):
		return "a boolean"
	case strings.HasPrefix(s, "null"):
		return "null followed by more text"
	}
	return "text with no JSON object in it"
}

// trimJSONSpace trims the four JSON whitespace bytes from both ends of s.
func trimJSONSpace(s string) string {
	return strings.Trim(s, " \t\r\n")
}

// notes lists the repairs applied to one argument text, in order, each once.
type notes []string

func (n notes) with(note string) notes {
	if slices.Contains(n, note) {
		return n
	}
	return append(slices.Clip(n), note)
}

func (n notes) String() string { return strings.Join(n, "; ") }

const (
	noteFence    = "stripped markdown fence"
	noteText     = "removed text around the JSON"
	noteRepaired = "repaired malformed JSON"
	noteDoubled  = "decoded arguments encoded twice as a JSON string"
)
