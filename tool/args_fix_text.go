package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The fixer's reading of strings, bare words and numbers (args_fix.go has the pass itself).

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
	sc := scanner{data: []byte(s)}
	_, ok := sc.number()
	return ok && sc.pos == len(s)
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
