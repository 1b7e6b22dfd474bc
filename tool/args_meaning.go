package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

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
