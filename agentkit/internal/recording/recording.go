// Package recording reads recorded HTTP traffic for replay tests: go-vcr v2 cassettes,
// vcrpy cassettes (bodies stored as parsed_body), httprr traces, raw SSE bodies and bare
// JSON error bodies. It is test support: it reads the recordings in ../shared/recordings,
// and its YAML reader handles the subset those cassettes use, not YAML at large.
package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Exchange is one recorded HTTP request and its response.
type Exchange struct {
	// Method and URL of the request; empty when the recording holds the response only.
	Method, URL string
	// Request is the request body (JSON for chat completions); nil when not recorded.
	Request []byte
	// Status is the response's HTTP status code.
	Status int
	// ContentType is the response's Content-Type.
	ContentType string
	// Response is the response body as the server sent it (JSON or SSE text).
	Response []byte
}

// Files lists the recordings of dir (../shared/recordings) that Load reads: one file per
// recording, in a folder per source. The folder field/ holds recordings of another layout (a
// folder per recording, described by its SOURCES.md) and is not listed.
func Files(dir string) ([]string, error) {
	all, err := filepath.Glob(filepath.Join(dir, "*", "*"))
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range all {
		if rel, _ := filepath.Rel(dir, f); !strings.HasPrefix(filepath.ToSlash(rel), "field/") {
			files = append(files, f)
		}
	}
	return files, nil
}

// ChatCompletion reports whether e is a POST to a chat-completions endpoint.
func (e *Exchange) ChatCompletion() bool {
	return (e.Method == "" || e.Method == http.MethodPost) && (e.URL == "" || strings.HasSuffix(strings.SplitN(e.URL, "?", 2)[0], "/chat/completions"))
}

// Stream reports whether the response is a server-sent event stream.
func (e *Exchange) Stream() bool { return strings.HasPrefix(e.ContentType, "text/event-stream") }

// Load reads the recording at path, choosing the format by its extension:
//
//   - .yaml: a go-vcr v2 cassette ("version: 2", bodies as text) or a vcrpy cassette
//     (bodies as parsed_body YAML, re-encoded here as JSON);
//   - .httprr: an httprr trace ("httprr trace v1", then per exchange "<reqlen> <resplen>\n"
//     and the raw HTTP/1.1 request and response);
//   - .sse: a raw SSE response body, status 200;
//   - .json: a bare JSON response body; the status is the number ending the file name
//     ("..._400.json"), 200 when there is none.
func Load(path string) ([]Exchange, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var xs []Exchange
	switch ext := filepath.Ext(path); ext {
	case ".yaml", ".yml":
		xs, err = parseCassette(data)
	case ".httprr":
		xs, err = ParseHTTPRR(data)
	case ".sse":
		xs = []Exchange{{Status: http.StatusOK, ContentType: "text/event-stream", Response: data}}
	case ".json":
		status := http.StatusOK
		base := strings.TrimSuffix(filepath.Base(path), ext)
		if i := strings.LastIndexByte(base, '_'); i >= 0 {
			if n, err := strconv.Atoi(base[i+1:]); err == nil && n >= 100 && n <= 599 {
				status = n
			}
		}
		xs = []Exchange{{Status: status, ContentType: "application/json", Response: data}}
	default:
		return nil, fmt.Errorf("recording: %s: unknown format %q", path, ext)
	}
	if err != nil {
		return nil, fmt.Errorf("recording: %s: %w", path, err)
	}
	return xs, nil
}

func parseCassette(data []byte) ([]Exchange, error) {
	doc, err := ParseYAML(data)
	if err != nil {
		return nil, err
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, errors.New("cassette is not a mapping")
	}
	items, ok := top["interactions"].([]any)
	if !ok {
		return nil, errors.New("cassette has no interactions")
	}
	var xs []Exchange
	for i, it := range items {
		m, _ := it.(map[string]any)
		req, _ := m["request"].(map[string]any)
		resp, _ := m["response"].(map[string]any)
		if req == nil || resp == nil {
			return nil, fmt.Errorf("interaction %d: no request or response", i)
		}
		var x Exchange
		x.Method, _ = req["method"].(string)
		if x.URL, _ = req["url"].(string); x.URL == "" {
			x.URL, _ = req["uri"].(string) // vcrpy
		}
		if x.Request, err = body(req); err != nil {
			return nil, fmt.Errorf("interaction %d: request: %w", i, err)
		}
		if x.Response, err = body(resp); err != nil {
			return nil, fmt.Errorf("interaction %d: response: %w", i, err)
		}
		x.ContentType = header(resp, "Content-Type")
		switch s := resp["status"].(type) {
		case map[string]any: // vcrpy: status: {code, message}
			x.Status = number(s["code"])
		default: // go-vcr: code: 200, status: "200 OK"
			x.Status = number(resp["code"])
		}
		if x.Status == 0 {
			return nil, fmt.Errorf("interaction %d: no status code", i)
		}
		xs = append(xs, x)
	}
	return xs, nil
}

// body returns the body of a cassette request or response: go-vcr's body text, or vcrpy's
// parsed_body encoded as JSON.
func body(m map[string]any) ([]byte, error) {
	if pb, ok := m["parsed_body"]; ok {
		return json.Marshal(pb)
	}
	switch b := m["body"].(type) {
	case string:
		return []byte(b), nil
	case nil:
		return nil, nil
	default:
		return nil, fmt.Errorf("body of type %T", b)
	}
}

// header returns the first value of the header name (case-insensitive) of a cassette request
// or response.
func header(m map[string]any, name string) string {
	h, _ := m["headers"].(map[string]any)
	for k, v := range h {
		if !strings.EqualFold(k, name) {
			continue
		}
		switch v := v.(type) {
		case []any:
			if len(v) > 0 {
				s, _ := v[0].(string)
				return s
			}
		case string:
			return v
		}
	}
	return ""
}

func number(v any) int {
	switch v := v.(type) {
	case json.Number:
		n, _ := strconv.Atoi(string(v))
		return n
	case string:
		n, _ := strconv.Atoi(v)
		return n
	}
	return 0
}

// ParseHTTPRR parses an httprr trace (golang.org/x/oscar/internal/httprr, as copied into
// langchaingo): the line "httprr trace v1", then for each exchange a line
// "<request length> <response length>" followed by the raw request and the raw response.
func ParseHTTPRR(data []byte) ([]Exchange, error) {
	rest, ok := bytes.CutPrefix(data, []byte("httprr trace v1\n"))
	if !ok {
		return nil, errors.New("not an httprr trace v1")
	}
	var xs []Exchange
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("exchange %d: no length line", len(xs))
		}
		var nreq, nresp int
		if _, err := fmt.Sscanf(string(line), "%d %d", &nreq, &nresp); err != nil {
			return nil, fmt.Errorf("exchange %d: length line %q: %w", len(xs), line, err)
		}
		if nreq < 0 || nresp < 0 || nreq+nresp > len(after) {
			return nil, fmt.Errorf("exchange %d: lengths %d+%d exceed the %d bytes left", len(xs), nreq, nresp, len(after))
		}
		rawReq, rawResp := after[:nreq], after[nreq:nreq+nresp]
		rest = after[nreq+nresp:]

		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rawReq)))
		if err != nil {
			return nil, fmt.Errorf("exchange %d: request: %w", len(xs), err)
		}
		reqBody, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, fmt.Errorf("exchange %d: request body: %w", len(xs), err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rawResp)), req)
		if err != nil {
			return nil, fmt.Errorf("exchange %d: response: %w", len(xs), err)
		}
		respBody, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("exchange %d: response body: %w", len(xs), err)
		}
		xs = append(xs, Exchange{
			Method:      req.Method,
			URL:         req.URL.String(),
			Request:     reqBody,
			Status:      resp.StatusCode,
			ContentType: resp.Header.Get("Content-Type"),
			Response:    respBody,
		})
	}
	return xs, nil
}

// ParseYAML parses the block-style YAML that go-vcr and vcrpy write: mappings, sequences
// (also "- " items at the indentation of their key), plain scalars (folded over several
// lines), single- and double-quoted scalars (also over several lines), literal block scalars
// (|, |-, |+ and an indentation digit), and the empty flow collections [] and {} (other flow
// collections are read as JSON). Mappings become map[string]any, sequences []any, numbers
// json.Number, null nil, true and false bool, anything else string. Anchors, tags, folded
// block scalars (>) and multi-document streams are refused.
func ParseYAML(data []byte) (any, error) {
	text := string(data)
	text = strings.TrimSuffix(text, "\n")
	p := &yamlParser{lines: strings.Split(text, "\n")}
	for p.i < len(p.lines) && (blankLine(p.lines[p.i]) || p.lines[p.i] == "---" || strings.HasPrefix(p.lines[p.i], "%")) {
		p.i++
	}
	v, err := p.block(-1)
	if err != nil {
		return nil, err
	}
	p.skipBlank()
	if p.i < len(p.lines) && p.lines[p.i] != "..." {
		return nil, p.errorf("unexpected content")
	}
	return v, nil
}

type yamlParser struct {
	lines []string
	i     int
}

func (p *yamlParser) errorf(format string, args ...any) error {
	return fmt.Errorf("yaml line %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

// blankLine reports whether a line is empty, spaces, or a comment (outside block scalars).
func blankLine(s string) bool {
	t := strings.TrimLeft(s, " ")
	return t == "" || t[0] == '#'
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

func (p *yamlParser) skipBlank() {
	for p.i < len(p.lines) && blankLine(p.lines[p.i]) {
		p.i++
	}
}

func isItem(content string) bool { return content == "-" || strings.HasPrefix(content, "- ") }

// block parses the node starting at the next non-blank line, which belongs to it when it is
// indented more than parent.
func (p *yamlParser) block(parent int) (any, error) {
	p.skipBlank()
	if p.i >= len(p.lines) {
		return nil, nil
	}
	line := p.lines[p.i]
	ind := indentOf(line)
	if ind <= parent {
		return nil, nil
	}
	content := line[ind:]
	if strings.HasPrefix(content, "\t") {
		return nil, p.errorf("tab in indentation")
	}
	if isItem(content) {
		return p.sequence(ind)
	}
	if _, _, ok, err := splitKey(content); err != nil {
		return nil, p.errorf("%v", err)
	} else if ok {
		return p.mapping(ind)
	}
	p.i++
	return p.scalar(parent, content)
}

// sequence parses the "- " items at indentation ind.
func (p *yamlParser) sequence(ind int) (any, error) {
	out := []any{}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) {
			return out, nil
		}
		line := p.lines[p.i]
		if indentOf(line) != ind || !isItem(line[ind:]) {
			return out, nil
		}
		rest := strings.TrimPrefix(line[ind:], "-")
		if strings.TrimSpace(rest) == "" {
			p.i++
			v, err := p.block(ind)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
			continue
		}
		// "- key: value" or "- scalar": read the item as if the dash were a space.
		p.lines[p.i] = strings.Repeat(" ", ind+1) + rest
		v, err := p.block(ind)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// mapping parses the "key: value" lines at indentation ind.
func (p *yamlParser) mapping(ind int) (any, error) {
	out := map[string]any{}
	for {
		p.skipBlank()
		if p.i >= len(p.lines) {
			return out, nil
		}
		line := p.lines[p.i]
		switch n := indentOf(line); {
		case n < ind:
			return out, nil
		case n > ind:
			return nil, p.errorf("unexpected indentation")
		}
		content := line[ind:]
		if isItem(content) {
			return out, nil // the sequence of an enclosing key at the same indentation
		}
		key, rest, ok, err := splitKey(content)
		if err != nil {
			return nil, p.errorf("%v", err)
		}
		if !ok {
			return nil, p.errorf("want a key: %.40q", content)
		}
		if _, dup := out[key]; dup {
			return nil, p.errorf("duplicate key %q", key)
		}
		p.i++
		var v any
		if rest == "" {
			p.skipBlank()
			if p.i < len(p.lines) && indentOf(p.lines[p.i]) == ind && isItem(p.lines[p.i][ind:]) {
				v, err = p.sequence(ind)
			} else {
				v, err = p.block(ind)
			}
		} else {
			v, err = p.scalar(ind, rest)
		}
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
}

// splitKey splits "key: rest" (or "key:" at the end of the line). The key may be quoted.
func splitKey(content string) (key, rest string, ok bool, err error) {
	if content != "" && (content[0] == '\'' || content[0] == '"') {
		k, after, closed, err := quoted(content)
		if err != nil || !closed {
			return "", "", false, err
		}
		after = strings.TrimLeft(after, " ")
		if after == ":" || strings.HasPrefix(after, ": ") {
			return k, strings.TrimSpace(after[1:]), true, nil
		}
		return "", "", false, nil
	}
	i := strings.Index(content, ": ")
	if i < 0 {
		if !strings.HasSuffix(content, ":") {
			return "", "", false, nil
		}
		i = len(content) - 1
	}
	key = strings.TrimRight(content[:i], " ")
	if key == "" || strings.ContainsAny(key[:1], "[{&*!|>%@`") {
		return "", "", false, nil
	}
	return key, strings.TrimSpace(content[i+1:]), true, nil
}

// scalar parses a value that begins with first, on a line already consumed; continuation
// lines are those indented more than parent.
func (p *yamlParser) scalar(parent int, first string) (any, error) {
	switch first[0] {
	case '|':
		return p.literal(parent, first)
	case '>':
		return nil, p.errorf("folded block scalars are not supported")
	case '&', '*', '!':
		return nil, p.errorf("anchors, aliases and tags are not supported")
	case '\'', '"':
		text := first
		for {
			s, after, closed, err := quoted(text)
			if err != nil {
				return nil, p.errorf("%v", err)
			}
			if closed {
				if a := strings.TrimSpace(after); a != "" && a[0] != '#' {
					return nil, p.errorf("text after a quoted scalar: %.40q", a)
				}
				return s, nil
			}
			// The quote goes on: fold the next line in, as YAML does, and parse again.
			if p.i >= len(p.lines) {
				return nil, p.errorf("unterminated quoted scalar")
			}
			text = foldQuoted(text, p.lines[p.i])
			p.i++
		}
	case '[', '{':
		var v any
		d := json.NewDecoder(strings.NewReader(first))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, p.errorf("flow collection that is not JSON: %.40q", first)
		}
		return v, nil
	}
	// A plain scalar, perhaps folded over more-indented lines.
	var b strings.Builder
	b.WriteString(strings.TrimSpace(first))
	breaks := 0
	for p.i < len(p.lines) {
		line := p.lines[p.i]
		if strings.TrimSpace(line) == "" {
			breaks++
			p.i++
			continue
		}
		if indentOf(line) <= parent {
			break
		}
		if breaks == 0 {
			b.WriteByte(' ')
		}
		for ; breaks > 0; breaks-- {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimSpace(line))
		p.i++
	}
	// Blank lines after the scalar belong to what follows.
	p.i -= breaks
	return resolvePlain(b.String()), nil
}

// foldQuoted appends the next line of a multi-line quoted scalar to text: a line break
// between two lines becomes a space (marked "\x00" until quoted resolves it), and each empty
// line a newline, the break before the empty lines being dropped.
func foldQuoted(text, next string) string {
	next = strings.TrimLeft(next, " \t")
	switch {
	case next == "":
		if strings.HasSuffix(text, "\n") {
			return text + "\n"
		}
		return strings.TrimRight(text, " \t") + "\n"
	case strings.HasSuffix(text, "\n"):
		return text + next
	case text[0] == '"' && strings.HasSuffix(text, `\`) && !strings.HasSuffix(text, `\\`):
		return text[:len(text)-1] + next // an escaped line break joins without a space
	}
	return strings.TrimRight(text, " \t") + "\x00" + next
}

// quoted parses the quoted scalar at the start of s. closed is false when s ends first.
// Line joins made by foldQuoted are resolved here: "\x00" is a folded break (a space), and
// "\n" followed by more text an empty line (the newline stays, the break before it goes).
func quoted(s string) (val, after string, closed bool, err error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0:
			b.WriteByte(' ')
		case c == '\n':
			b.WriteByte('\n')
		case q == '\'' && c == '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), s[i+1:], true, nil
		case q == '"' && c == '"':
			return b.String(), s[i+1:], true, nil
		case q == '"' && c == '\\':
			if i+1 >= len(s) {
				return "", "", false, nil
			}
			i++
			n, err := unescape(&b, s[i:])
			if err != nil {
				return "", "", false, err
			}
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false, nil
}

// unescape writes the double-quoted escape starting at s (after the backslash) and returns
// the bytes it used.
func unescape(b *strings.Builder, s string) (int, error) {
	simple := map[byte]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f",
		'r': "\r", 'e': "\x1b", ' ': " ", '"': `"`, '/': "/", '\\': `\`, 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	if r, ok := simple[s[0]]; ok {
		b.WriteString(r)
		return 1, nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if width == 0 || len(s) < 1+width {
		return 0, fmt.Errorf("bad escape \\%c", s[0])
	}
	n, err := strconv.ParseUint(s[1:1+width], 16, 32)
	if err != nil {
		return 0, fmt.Errorf("bad escape \\%s", s[:1+width])
	}
	if s[0] == 'x' {
		b.WriteByte(byte(n))
	} else {
		b.WriteRune(rune(n))
	}
	return 1 + width, nil
}

// literal parses a literal block scalar whose header (|, |-, |+, |2 ...) was on a line
// already consumed; its content lines are indented more than parent.
func (p *yamlParser) literal(parent int, header string) (any, error) {
	chomp, indent := byte(0), 0
	for _, c := range []byte(strings.TrimSpace(header[1:])) {
		switch {
		case c == '-' || c == '+':
			chomp = c
		case c >= '1' && c <= '9':
			indent = parent + int(c-'0')
			if parent < 0 {
				indent = int(c - '0')
			}
		case c == ' ' || c == '#':
		default:
			return nil, p.errorf("bad block scalar header %q", header)
		}
	}
	var lines []string
	for ; p.i < len(p.lines); p.i++ {
		line := p.lines[p.i]
		if strings.Trim(line, " ") == "" {
			if indent > 0 && len(line) > indent {
				lines = append(lines, line[indent:])
			} else {
				lines = append(lines, "")
			}
			continue
		}
		n := indentOf(line)
		if indent == 0 {
			if n <= parent {
				break
			}
			indent = n
		}
		if n < indent {
			break
		}
		lines = append(lines, line[indent:])
	}
	// Trailing blank lines are read but belong to the scalar only when kept (|+); in any
	// case the lines after them are not the scalar's.
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	text := strings.Join(lines[:end], "\n")
	switch {
	case chomp == '+':
		if end > 0 {
			text += "\n"
		}
		text += strings.Repeat("\n", len(lines)-end)
	case chomp == 0 && end > 0:
		text += "\n"
	}
	return text, nil
}

// resolvePlain types a plain scalar: null, booleans and JSON numbers; anything else is a
// string.
func resolvePlain(s string) any {
	switch s {
	case "null", "Null", "NULL", "~", "":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	}
	if jsonNumber(s) {
		return json.Number(s)
	}
	return s
}

// jsonNumber reports whether s is a number in JSON syntax: a JSON value that starts as a
// number does and has no whitespace around it.
func jsonNumber(s string) bool {
	return s != "" && (s[0] == '-' || '0' <= s[0] && s[0] <= '9') &&
		!strings.ContainsAny(s, " \t\r\n") && json.Valid([]byte(s))
}
