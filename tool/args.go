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

// DefaultArgumentLimit is the size cap, in bytes, of the argument text of one call when
// Options.ArgumentLimit is zero.
const DefaultArgumentLimit = 64 << 10

// maxRepairDepth caps the nesting of text sent to the repairer: it recurses per level and
// copies its output once per missing bracket, so deep nesting costs quadratic time.
const maxRepairDepth = 64

// maxRepairerInput caps the text given to the repairer, whose time grows with the square of
// its input: 3 s for 64 KiB of missing commas, 50 ms for 8 KiB.
const maxRepairerInput = 8 << 10

// DecodeArguments turns the raw argument text a model sent into the bytes of one JSON object.
//
// limit caps len(raw) in bytes; limit <= 0 means [DefaultArgumentLimit]. Longer text is
// refused without any repair.
//
// Text that is already one JSON object, JSON whitespace around it aside, is returned as it
// is with an empty repair; this is the fast path every call takes. The empty string, JSON
// whitespace and null are the usual ways to send no arguments: they decode to {} with an
// empty repair too.
//
// Other text is repaired when the repair fixes syntax only. Accepted:
//   - around the object: a markdown fence (```json … ``` or ``` … ```), prose before or
//     after it (a JSONP-style callback( … ); too), a byte order mark, unusual whitespace,
//     comments, extra closing brackets;
//   - a JSON string whose content is an object: the arguments encoded twice, decoded once;
//   - in the object: trailing, leading and doubled commas, missing commas, a missing colon
//     after a quoted key, comments, single quotes, smart quotes (“ ” ‘ ’), backticks,
//     unquoted keys and values (values become strings), Python's True, False and None,
//     JavaScript's undefined (null), control characters and quotes left unescaped in
//     strings, a closing quote missing before the comma that precedes the next "key":, or
//     before the final closing brace;
//   - missing closing brackets at the end of the text, when it ends with a complete value: a
//     closed string, a closing bracket, a number or a literal;
//   - for text up to 8 KiB, the other repairs of github.com/kaptinlin/jsonrepair that pass
//     the rules below (a number with leading zeros or a regular expression becomes a
//     string, unescaped backslashes of a Windows path are escaped, for example).
//
// A repair that would change meaning is not attempted: DecodeArguments returns an error
// instead. The result must be one JSON object: not an array, a string, a number, nor two
// objects (a second JSON value, or braces, in the text after the object are refused). And
// the repair may only add, remove or change syntax; precisely:
//   - every key and string value of the result appears in the input, in order, as written
//     or as decoded: joining strings ("a" + "b") is refused, and so is a dropped invalid
//     escape ("\q");
//   - every number appears in the input as written: 2. is not completed to 2.0;
//   - no null is invented for a key without a value, and the text may not end inside a
//     string, after an unquoted value or after a comma: it was cut off, and the last key or
//     value may be incomplete;
//   - an ellipsis (...) standing for left-out values is refused, not dropped;
//   - a function call inside the object, such as NumberLong(2), is refused, not unwrapped;
//   - text that needs a repair is refused if it is not valid UTF-8 or nests deeper than 64
//     levels.
//
// repair is a short description of what was fixed, for logs ("stripped markdown fence;
// removed trailing comma"). It is empty only when obj is the input trimmed of JSON
// whitespace, or when the input meant no arguments as above. On error, obj is nil, repair is
// empty and the error's message says what is wrong, and where, for the model to read.
//
// obj is never shared: the caller may keep and modify it.
func DecodeArguments(raw string, limit int) (obj []byte, repair string, err error) {
	if limit <= 0 {
		limit = DefaultArgumentLimit
	}
	if len(raw) > limit {
		return nil, "", fmt.Errorf("arguments are %d bytes, over the %d-byte limit", len(raw), limit)
	}
	i, j := 0, len(raw)
	for i < j && isJSONSpace(raw[i]) {
		i++
	}
	for j > i && isJSONSpace(raw[j-1]) {
		j--
	}
	s := raw[i:j]
	if s == "" || s == "null" {
		return []byte("{}"), "", nil
	}
	if s[0] == '{' {
		b := []byte(s)
		if json.Valid(b) {
			return b, "", nil
		}
	}
	return repairArguments(s, i)
}

// repairArguments is the slow path of DecodeArguments: s is the argument text trimmed of
// JSON whitespace, starting at byte base of what the model sent.
func repairArguments(s string, base int) (obj []byte, repair string, err error) {
	if !utf8.ValidString(s) {
		i := 0
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return nil, "", fmt.Errorf("arguments are not valid UTF-8 text (byte %d)", base+i)
	}
	var fx fixes
	if t := strings.TrimPrefix(s, "\uFEFF"); len(t) != len(s) {
		fx |= fixBOM
		base += len(s) - len(t)
		s = t
	}
	if t := strings.TrimLeftFunc(s, unicode.IsSpace); len(t) != len(s) {
		fx |= fixWhitespace
		base += len(s) - len(t)
		s = t
	}
	if t := strings.TrimRightFunc(s, unicode.IsSpace); len(t) != len(s) {
		fx |= fixWhitespace
		s = t
	}
	if s == "" || s == "null" {
		return []byte("{}"), fx.String(), nil
	}
	if s[0] == '"' {
		return decodeDoubled(s, fx)
	}
	if open, body, around := fence(s); open >= 0 {
		fx |= fixFence
		if around {
			fx |= fixText
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
	if start < 0 {
		return nil, "", fmt.Errorf("expected one JSON object, got %s", describe(s))
	}
	if start > 0 {
		switch s[0] {
		case '[', '"':
			return nil, "", fmt.Errorf("expected one JSON object, got %s", describe(s))
		}
		fx |= fixText
	}
	base += start
	src := s[start:]
	f := fix(src)
	if f.err != nil {
		return nil, "", located(f.err, base+len(src))
	}
	fx |= f.fixes
	whole := false // the text after the object is not prose: the repairer must see it
	if f.end >= 0 {
		rest := strings.TrimLeft(src[f.end:], " \t\r\n")
		switch {
		case rest == "":
		case onlyComments(rest):
			fx |= fixComments
		case strings.Trim(rest, "}] \t\r\n") == "":
			fx |= fixExtraClosers
		case strings.ContainsAny(rest, "{["):
			at := base + len(src) - len(rest) + strings.IndexAny(rest, "{[")
			return nil, "", fmt.Errorf("expected one JSON object, found another value at byte %d", at)
		case isProse(rest):
			fx |= fixText
		default:
			whole = true
		}
		if !whole {
			src = src[:f.end]
		}
	}

	if !whole && f.bail < 0 && json.Valid(f.out) {
		out := f.out
		if err := sameMeaning(src, string(out)); err != nil {
			return nil, "", located(err, base+len(src))
		}
		if fx == 0 {
			fx = fixOther
		}
		return out, fx.String(), nil
	}

	if len(src) > maxRepairerInput {
		if f.bail < 0 {
			return nil, "", fmt.Errorf("unexpected text after the JSON object at byte %d", base+f.end)
		}
		return nil, "", fmt.Errorf("%s at byte %d", f.why, base+f.bail)
	}
	if f.end < 0 && strings.HasSuffix(strings.TrimRight(src, " \t\r\n"), ",") {
		return nil, "", located(errCutComma, base+len(src))
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
	return []byte(out), (fx | fixOther).String(), nil
}

// located adds where the text ends to a refusal that happened there.
func located(err error, end int) error {
	if err == errCutOff || err == errCutValue || err == errCutComma {
		return fmt.Errorf("%w at byte %d: the arguments look cut off", err, end)
	}
	return err
}

// The text ends where a repair would have to guess what comes next.
var (
	errCutOff   = errors.New("unexpected end of input inside a string")
	errCutValue = errors.New("unexpected end of input after an unquoted value")
	errCutComma = errors.New("unexpected end of input after a comma")
)

// onlyComments reports whether s holds only comments and whitespace.
func onlyComments(s string) bool {
	for i := 0; i < len(s); {
		switch {
		case isJSONSpace(s[i]):
			i++
		case s[i] == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			i = skipComment(s, i)
		default:
			return false
		}
	}
	return true
}

// decodeDoubled decodes arguments sent as a JSON string whose content is the arguments
// object. It decodes once: a string inside the string is refused.
func decodeDoubled(s string, fx fixes) ([]byte, string, error) {
	var inner string
	if json.Unmarshal([]byte(s), &inner) != nil {
		return nil, "", fmt.Errorf("expected one JSON object, got %s", describe(s))
	}
	t := strings.TrimSpace(inner)
	if t == "" || t == "null" {
		return []byte("{}"), (fx | fixDoubled).String(), nil
	}
	if t[0] != '{' {
		return nil, "", fmt.Errorf("expected one JSON object, got a string")
	}
	b, note, err := DecodeArguments(inner, len(inner))
	if err != nil {
		return nil, "", fmt.Errorf("arguments are a JSON string holding malformed JSON: %w", err)
	}
	fx |= fixDoubled
	if note != "" {
		return b, fx.String() + "; " + note, nil
	}
	return b, fx.String(), nil
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
	// Position counts runes of src.
	at, n := len(src), 0
	for i := range src {
		if n == re.Position {
			at = i
			break
		}
		n++
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

// isProse reports whether text after the object reads as prose (or a JSONP ");") rather
// than the continuation of a JSON value the repairer should see.
func isProse(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	if unicode.IsLetter(r) {
		return true
	}
	return strings.ContainsRune("`');.!?*#<>-—。！？（）", r)
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
	i, j := 0, len(s)
	for i < j && isJSONSpace(s[i]) {
		i++
	}
	for j > i && isJSONSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
