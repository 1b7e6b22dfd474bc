package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// str handles the string a quote of n bytes opens at s[i] and returns the index after it.
func (f *fixer) str(i int, q rune, n int) int {
	s := f.s
	f.at = i
	key := f.open()
	f.bare = false
	switch q {
	case '"':
	case '\'', '`', '´':
		f.fixes |= fixSingleQuotes
	default:
		f.fixes |= fixSmartQuotes
	}
	f.prev = 'v'
	if key {
		f.prev = 'k'
	}
	start := i + n
	for j := start; j < len(s); {
		switch c := s[j]; {
		case c == '\\':
			j += 2
			continue
		case c < ' ':
			f.fixes |= fixControlChars
		}
		m := closes(s, j, q)
		if m == 0 {
			j++
			continue
		}
		k := j + m
		l := k
		for l < len(s) && (s[l] == ' ' || s[l] == '\t' || s[l] == '\r') {
			l++
		}
		if l == len(s) || strings.IndexByte(",:[]/{}()\n+0123456789", s[l]) >= 0 {
			f.typed = key
			f.content(start, j)
			return k
		}
		if q, _ := quoteAt(s, l); q != 0 {
			f.typed = key
			f.content(start, j)
			return k
		}
		p := j - 1
		for p >= start && isJSONSpace(s[p]) {
			p--
		}
		if p > start && s[p] == ',' && keyAt(s, k, q) {
			// {"a": "x, "b": 1}: the string ends before the comma; this quote opens "b".
			f.fixes |= fixMissingQuotes
			f.typed = false
			f.content(start, p)
			return p
		}
		f.fixes |= fixInnerQuotes
		j = k
	}
	// The text ends inside the string. Cut off, unless it ends with a delimiter: then, as the
	// repairer does, the string ends at the first delimiter, and that must close the object
	// ({"a": "x}).
	last := strings.TrimRight(s, " \t\r\n")
	if last == "" || strings.IndexByte(",:[]/{}()+", last[len(last)-1]) < 0 {
		f.refuse(errCutOff)
		return len(s)
	}
	d := start + strings.IndexAny(s[start:], ",[]/{}\n+")
	if d < start || s[d] != '}' && s[d] != ']' {
		// Give up for good: scanning on from d would read the rest of s once per string.
		f.stop(i, "a string has no end quote")
		return len(s)
	}
	f.fixes |= fixMissingQuotes
	f.content(start, d)
	return d
}

// keyAt reports whether s[k:] continues an object key opened by a quote of q's family: a
// short text, its closing quote, then a colon.
func keyAt(s string, k int, q rune) bool {
	for x := k; x < len(s) && x < k+256; x++ {
		if strings.IndexByte(",{}[]:\n\\", s[x]) >= 0 {
			return false
		}
		if m := closes(s, x, q); m > 0 {
			x += m
			for x < len(s) && isJSONSpace(s[x]) {
				x++
			}
			return x < len(s) && s[x] == ':'
		}
	}
	return false
}

// content writes the text s[i:j] of a string, trimmed of trailing whitespace, as a JSON
// string.
func (f *fixer) content(i, j int) {
	s := f.s
	for j > i && isJSONSpace(s[j-1]) {
		j--
	}
	f.put('"')
	for k := i; k < j && f.write; k++ {
		c := s[k]
		switch {
		case c == '\\':
			if k+1 >= j {
				f.stop(k, "a string ends with a backslash")
				return
			}
			switch e := s[k+1]; {
			case strings.IndexByte(`"\/bfnrt`, e) >= 0:
				f.put(c, e)
				k++
			case e == '\'':
				f.fixes |= fixBackslashes
				f.put(e)
				k++
			case e == 'u' && k+5 < j && isHex(s[k+2]) && isHex(s[k+3]) && isHex(s[k+4]) && isHex(s[k+5]):
				f.out = append(f.out, s[k:k+6]...)
				k += 5
			default:
				f.stop(k, `invalid escape in a string`)
				return
			}
		case c == '"':
			f.put('\\', '"')
		case c < ' ':
			f.out = appendControl(f.out, c)
		default:
			f.put(c)
		}
	}
	f.put('"')
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func appendControl(b []byte, c byte) []byte {
	switch c {
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	}
	return fmt.Appendf(b, `\u%04x`, c)
}

// word handles the unquoted token at s[i]: a number, a literal, an unquoted key or value.
// It returns the index after it.
func (f *fixer) word(i int) int {
	s := f.s
	if strings.IndexByte("/\\+()", s[i]) >= 0 {
		if s[i] == '\\' {
			f.fixes |= fixEscapes // {\"a\": 1}: the repairer drops the backslashes
		}
		f.stop(i, fmt.Sprintf("unexpected character %q", s[i]))
		return i + 1
	}
	if strings.HasPrefix(s[i:], "...") {
		f.err = errEllipsis
		return i + 3
	}
	f.at = i
	key := f.open()
	f.prev = 'v'
	f.bare = false
	if key {
		f.prev = 'k'
		f.typed = false
	}
	j := i
	switch c := s[i]; {
	case key:
	case c == '-' || c == '.' || '0' <= c && c <= '9':
		for j < len(s) && strings.IndexByte("+-.eE0123456789", s[j]) >= 0 {
			j++
		}
		switch num := s[i:j]; {
		case isNumber(num):
			f.puts(num)
		default:
			f.stop(i, "invalid number "+num)
		}
		return j
	}
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	name := s[i:j]
	l := j
	for l < len(s) && (s[l] == ' ' || s[l] == '\t') {
		l++
	}
	if name != "" && l < len(s) && s[l] == '(' {
		f.err = fmt.Errorf("the arguments contain a function call (%s(…): send plain JSON values", name)
		return j
	}
	if !key && name != "" && (j == len(s) || !isNameByte(s[j])) {
		lit := ""
		switch name {
		case "true", "false", "null":
			lit = name
		case "True", "False":
			f.fixes |= fixPython
			lit = "true"
			if name == "False" {
				lit = "false"
			}
		case "None":
			f.fixes |= fixPython
			lit = "null"
		case "undefined":
			f.fixes |= fixUndefined
			lit = "null"
		}
		if lit != "" {
			f.puts(lit)
			return j
		}
	}
	// As the repairer does, read an unquoted key up to ':', a value up to a delimiter or a
	// quote; both may hold spaces.
	for j < len(s) && strings.IndexByte(",[]{}/\n+\"'", s[j]) < 0 && !(key && s[j] == ':') {
		if q, _ := quoteAt(s, j); q != 0 {
			break
		}
		j++
	}
	if j == i {
		f.stop(i, fmt.Sprintf("unexpected character %q", s[i]))
		return i + 1
	}
	if key {
		f.fixes |= fixUnquotedKeys
	} else {
		f.fixes |= fixBareValues
		f.bare = true
	}
	f.quote(strings.TrimRight(s[i:j], " \t\r"))
	if !key && j < len(s) && s[j] == '"' {
		f.fixes |= fixMissingQuotes // {"a": x"}: drop the lone end quote
		j++
	}
	return j
}

// quote writes text as a JSON string.
func (f *fixer) quote(text string) {
	if !f.write {
		return
	}
	f.out = append(f.out, '"')
	for k := 0; k < len(text); k++ {
		switch c := text[k]; {
		case c == '"' || c == '\\':
			f.out = append(f.out, '\\', c)
		case c < ' ':
			f.out = appendControl(f.out, c)
		default:
			f.out = append(f.out, c)
		}
	}
	f.out = append(f.out, '"')
}

// isNumber reports whether s is a JSON number.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		k := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - k
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// skipComment returns the index after the comment at s[i].
func skipComment(s string, i int) int {
	end := "\n"
	if s[i+1] == '*' {
		end = "*/"
	}
	if k := strings.Index(s[i+2:], end); k >= 0 {
		return i + 2 + k + len(end)
	}
	return len(s)
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '$'
}

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

// closes returns the length of the quote at s[j] if it closes a string opened by q, else 0.
// As in the repairer, " and ' close only themselves; the other quotes close any quote of the
// same family.
func closes(s string, j int, q rune) int {
	c, n := quoteAt(s, j)
	switch {
	case c == 0:
		return 0
	case q == '"' || q == '\'':
		if c == q {
			return n
		}
	case isDoubleLike(q) == isDoubleLike(c):
		return n
	}
	return 0
}

func isDoubleLike(r rune) bool { return r == '"' || r == '“' || r == '”' }

var errEllipsis = errors.New(`the arguments use "..." in place of values: send every value in full`)

// sameMeaning checks that out, the repair of src, says what src says: see the rules in the
// doc of DecodeArguments.
func sameMeaning(src, out string) error {
	cursor := 0
	nulls := 0
	lastString, lastEmpty := false, false
	lastAt, lastEnd := 0, 0
	for i := 0; i < len(out); {
		c := out[i]
		switch {
		case c == '"':
			j, esc := i+1, false
			for out[j] != '"' {
				if out[j] == '\\' {
					esc = true
					j++
				}
				j++
			}
			raw, dec := out[i+1:j], out[i+1:j]
			if esc {
				dec = unquote(out[i : j+1])
			}
			i = j + 1
			lastString, lastEmpty = true, raw == ""
			if raw == "" {
				continue
			}
			at, n := find(src[cursor:], raw, dec)
			if at < 0 {
				return fmt.Errorf("cannot repair the arguments without changing them: %s is not in the text sent", clip(dec))
			}
			lastAt, lastEnd = cursor+at, cursor+at+n
			cursor = lastEnd
		case c == '-' || '0' <= c && c <= '9':
			j := i
			for j < len(out) && strings.IndexByte("+-.eE0123456789", out[j]) >= 0 {
				j++
			}
			num := out[i:j]
			i = j
			lastString = false
			at := strings.Index(src[cursor:], num)
			if at < 0 {
				return fmt.Errorf("cannot repair the arguments without changing them: the number %s is not in the text sent", num)
			}
			cursor += at + len(num)
		case c == 'n':
			nulls++
			lastString = false
			i += 4
		case c == 't' || c == 'f':
			lastString = false
			i += 4
		default:
			i++
		}
	}
	if nulls > strings.Count(src, "null")+strings.Count(src, "None")+strings.Count(src, "undefined") {
		return errNoValue
	}
	if strings.Count(out, "...") < strings.Count(src, "...") {
		return errEllipsis
	}
	if lastString {
		if err := openAtEnd(src, lastAt, lastEnd, lastEmpty); err != nil {
			return err
		}
	}
	return nil
}

// unquote decodes the JSON string s.
func unquote(s string) string {
	var v string
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

// openAtEnd reports whether the last string of the repaired object, found at src[at:end],
// ends the text with no closing quote or bracket after it: the text was cut inside a string
// (errCutOff) or after an unquoted value (errCutValue), which may both be incomplete.
func openAtEnd(src string, at, end int, empty bool) error {
	if empty {
		// {"a": " → {"a": ""}: src ends with an opening quote.
		t := strings.TrimRight(src, " \t\r\n")
		_, n := utf8.DecodeLastRuneInString(t)
		if n == 0 {
			return nil
		}
		if q, _ := quoteAt(t, len(t)-n); q == 0 {
			return nil
		}
		t = strings.TrimRight(t[:len(t)-n], " \t\r\n")
		if t != "" && strings.IndexByte(":,[{", t[len(t)-1]) >= 0 {
			return errCutOff
		}
		return nil
	}
	for i := end; i < len(src); i++ {
		if q, _ := quoteAt(src, i); q != 0 || src[i] == '}' || src[i] == ']' {
			return nil
		}
	}
	if _, n := utf8.DecodeLastRuneInString(src[:at]); n > 0 {
		if q, _ := quoteAt(src, at-n); q != 0 {
			return errCutOff
		}
	}
	return errCutValue
}

// find returns where the string leaf with the given raw and decoded text first appears in s,
// and the length of the appearance: as decoded, as written, or as written between single
// quotes ('it\'s'). at is -1 when it does not appear. Leaves sit close to each other in the
// text, so find looks near the start of s first: a search of all of s for every leaf would
// take quadratic time.
func find(s, raw, dec string) (at, n int) {
	forms := [3]string{dec, raw}
	if strings.Contains(dec, "'") {
		forms[2] = strings.ReplaceAll(dec, "'", `\'`)
	}
	window := 256 + 2*len(raw)
	for _, whole := range [2]bool{false, true} {
		at = -1
		for _, f := range forms {
			if f == "" {
				continue
			}
			w := s
			if !whole && len(w) > window+len(f) {
				w = w[:window+len(f)]
			}
			if at >= 0 {
				w = w[:min(len(w), at+len(f))]
			}
			if k := strings.Index(w, f); k >= 0 && (at < 0 || k < at) {
				at, n = k, len(f)
			}
		}
		if at >= 0 {
			return at, n
		}
	}
	return -1, 0
}

// clip quotes s for an error message, shortened to about 40 bytes.
func clip(s string) string {
	if len(s) > 40 {
		i := 40
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		s = s[:i] + "…"
	}
	return fmt.Sprintf("%q", s)
}
