package tool

import "unicode/utf8"

// The scanner of the validator's fast path (validate_fast.go), which the flat decoder
// (decode_flat.go) also reads arguments with: a strict JSON reader over bytes, one token at
// a time, that never allocates.

// scanner reads one JSON value at a time from data.
type scanner struct {
	data   []byte
	pos    int
	rawEnd int // end of the content of the last string scanned
	depth  int
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// parseInt parses a plain integer literal that fits int64 without overflow checks: at most
// 18 digits.
func parseInt(lit []byte) (int64, bool) {
	neg := lit[0] == '-'
	if neg {
		lit = lit[1:]
	}
	if len(lit) > 18 {
		return 0, false
	}
	var i int64
	for _, c := range lit {
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}

// string scans a JSON string. raw is the offset of its first byte after the quote; the
// content ends at s.rawEnd. escaped reports backslash escapes.
func (s *scanner) string() (raw int, escaped, ok bool) {
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return 0, false, false
	}
	s.pos++
	raw = s.pos
	ascii := true
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			s.rawEnd = s.pos
			s.pos++
			if !ascii && !utf8.Valid(s.data[raw:s.rawEnd]) {
				return 0, false, false
			}
			return raw, escaped, true
		case c == '\\':
			escaped = true
			if s.pos+1 >= len(s.data) {
				return 0, false, false
			}
			switch s.data[s.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos += 2
			case 'u':
				if s.pos+6 > len(s.data) {
					return 0, false, false
				}
				for _, h := range s.data[s.pos+2 : s.pos+6] {
					if !jsonHexDigit(h) {
						return 0, false, false
					}
				}
				s.pos += 6
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		default:
			if c >= utf8.RuneSelf {
				ascii = false
			}
			s.pos++
		}
	}
	return 0, false, false
}

func jsonHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number scans a JSON number; plain reports an integer literal (no fraction, no exponent).
func (s *scanner) number() (plain, ok bool) {
	d := s.data
	i := s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	plain = true
	if i < len(d) && d[i] == '.' {
		plain = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		plain = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return false, false
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	s.pos = i
	return plain, true
}

// skip moves past one value of any kind, checking its syntax.
func (s *scanner) skip() bool {
	return anyValue.check(s) == fastOK
}
