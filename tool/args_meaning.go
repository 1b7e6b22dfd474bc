package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

var errEllipsis = errors.New(`the arguments use "..." in place of values: send every value in full`)

// callPattern finds what reads as a function call: a name, then an opening parenthesis.
var callPattern = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*[ \t]*\(`)

// sameMeaning checks that out, the repair of src, says what src says: see the rules in the
// doc of DecodeArguments.
func sameMeaning(src, out string) error {
	cursor := 0
	nulls := 0
	lastString, lastEmpty := false, false
	lastAt, lastEnd := 0, 0
	// out is valid JSON: read its leaves in order, as written (duplicate names and invalid
	// UTF-8 are for the parse stage to refuse).
	d := jsontext.NewDecoder(strings.NewReader(out), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for k := d.PeekKind(); k != 0; k = d.PeekKind() {
		if k == '{' || k == '}' || k == '[' || k == ']' {
			d.ReadToken()
			continue
		}
		v, _ := d.ReadValue()
		lastString = k == '"'
		switch k {
		case '"':
			raw, dec := string(v[1:len(v)-1]), string(v[1:len(v)-1])
			if strings.IndexByte(raw, '\\') >= 0 {
				_ = json.Unmarshal(v, &dec) // valid: jsontext read it
			}
			if lastEmpty = raw == ""; lastEmpty {
				continue
			}
			at, n := find(src[cursor:], raw, dec)
			if at < 0 {
				return fmt.Errorf("cannot repair the arguments without changing them: %s is not in the text sent", clip(dec))
			}
			lastAt, lastEnd = cursor+at, cursor+at+n
			cursor = lastEnd
		case '0':
			num := string(v)
			at := strings.Index(src[cursor:], num)
			if at < 0 {
				return fmt.Errorf("cannot repair the arguments without changing them: the number %s is not in the text sent", num)
			}
			cursor += at + len(num)
		case 'n':
			nulls++
		}
	}
	if nulls > strings.Count(src, "null")+strings.Count(src, "None")+strings.Count(src, "undefined") {
		return errNoValue
	}
	if strings.Count(out, "...") < strings.Count(src, "...") {
		return errEllipsis
	}
	if err := droppedCall(src, out); err != nil {
		return err
	}
	if lastString {
		if err := openAtEnd(src, lastAt, lastEnd, lastEmpty); err != nil {
			return err
		}
	}
	return nil
}

// droppedCall refuses a repair that unwrapped a function call, NumberLong(2) or ISODate(…),
// or dropped text that read as one: every call in src must still be in out, inside a string.
func droppedCall(src, out string) error {
	kept := map[string]int{}
	for _, c := range callPattern.FindAllString(out, -1) {
		kept[c]++
	}
	for _, c := range callPattern.FindAllString(src, -1) {
		if kept[c] == 0 {
			name := strings.TrimRight(c, " \t(")
			return fmt.Errorf("the arguments contain a function call (%s(…): send plain JSON values", name)
		}
		kept[c]--
	}
	return nil
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
// quotes ('it\'s'). at is -1 when it does not appear. s is at most the repairer's 8 KiB.
func find(s, raw, dec string) (at, n int) {
	at = -1
	for _, f := range []string{dec, raw, strings.ReplaceAll(dec, "'", `\'`)} {
		if k := strings.Index(s, f); f != "" && k >= 0 && (at < 0 || k < at) {
			at, n = k, len(f)
		}
	}
	return at, n
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
