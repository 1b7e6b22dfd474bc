package middleware

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolcall/toolcall/tool"
)

// Arrays longer than structureMaxItems are summarized by their length and their first
// structureShown elements. Content longer than structureMaxBytes, or nested deeper than
// structureMaxDepth, is left as it is: it is not parsed whole, and the lines of a deeper
// value would be paths no one reads.
const (
	structureMaxItems = 10
	structureShown    = 3
	structureMaxBytes = 1 << 20
	structureMaxDepth = 32
)

// Structure turns a successful result whose content is a JSON object or array into compact
// "field: value" lines, the concise description a model reads more reliably (and in fewer
// tokens) than nested JSON:
//
//	{"city":"北京","now":{"temp":21.5,"sky":"晴"},"alerts":[],"hours":[20,21,22]}
//
// becomes
//
//	city: 北京
//	now.temp: 21.5
//	now.sky: 晴
//	alerts: []
//	hours: 20, 21, 22
//
// Nested keys are joined with dots, in the order the JSON had them. An array of scalars is
// one line of comma-separated values; an array of objects or arrays gives lines with indexed
// paths (items[0].name). An array of more than 10 elements is summarized by its length and
// its first 3 (items: 250 items; first 3: a, b, c). Strings are written unquoted unless they
// are empty, span lines, or (in a list) contain a comma; numbers keep their JSON text.
//
// Anything else passes through unchanged: failed results, content that is not JSON, a bare
// JSON scalar, JSON over 1 MiB or nested deeper than 32 levels. When Structure rewrites a result it sets Result.Original to the JSON, unless
// an inner middleware had already set it.
func Structure() tool.Middleware {
	return func(next tool.Handler) tool.Handler {
		return func(ctx context.Context, call tool.Call) tool.Result {
			res := next(ctx, call)
			if res.Failed() {
				return res
			}
			s := strings.TrimSpace(res.Content)
			if s == "" || (s[0] != '{' && s[0] != '[') || len(s) > structureMaxBytes {
				return res
			}
			v := jsontext.Value(s)
			if !v.IsValid() || checkDepth(v, structureMaxDepth) != nil {
				return res
			}
			var b strings.Builder
			writeLines(&b, "", v)
			if res.Original == "" {
				res.Original = res.Content
			}
			res.Content = b.String()
			return res
		}
	}
}

// writeLines writes the lines of the valid JSON value v, found at path.
func writeLines(b *strings.Builder, path string, v jsontext.Value) {
	switch v.Kind() {
	case '{':
		dec := jsontext.NewDecoder(bytes.NewReader(v))
		dec.ReadToken() // '{'
		if dec.PeekKind() == '}' {
			writeLine(b, path, "{}")
		}
		for dec.PeekKind() != '}' {
			name, _ := dec.ReadToken()
			p := name.String()
			if path != "" {
				p = path + "." + p
			}
			member, _ := dec.ReadValue()
			writeLines(b, p, member)
		}
	case '[':
		elems := elements(v)
		n := len(elems)
		if n == 0 {
			writeLine(b, path, "[]")
			return
		}
		shown := n
		if n > structureMaxItems {
			shown = structureShown
		}
		if scalars(elems) {
			list := make([]string, shown)
			for i := range list {
				list[i] = scalar(elems[i], true)
			}
			text := strings.Join(list, ", ")
			if shown < n {
				text = strconv.Itoa(n) + " items; first " + strconv.Itoa(shown) + ": " + text
			}
			writeLine(b, path, text)
			return
		}
		if shown < n {
			writeLine(b, path, strconv.Itoa(n)+" items; first "+strconv.Itoa(shown)+":")
		}
		for i := range shown {
			writeLines(b, path+"["+strconv.Itoa(i)+"]", elems[i])
		}
	default:
		writeLine(b, path, scalar(v, false))
	}
}

// elements returns the elements of the valid JSON array v.
func elements(v jsontext.Value) []jsontext.Value {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	dec.ReadToken() // '['
	var elems []jsontext.Value
	for dec.PeekKind() != ']' {
		e, _ := dec.ReadValue()
		elems = append(elems, e.Clone())
	}
	return elems
}

func writeLine(b *strings.Builder, path, value string) {
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	if path != "" {
		b.WriteString(path)
		b.WriteString(": ")
	}
	b.WriteString(value)
}

func scalars(vs []jsontext.Value) bool {
	for _, v := range vs {
		if k := v.Kind(); k == '{' || k == '[' {
			return false
		}
	}
	return true
}

func scalar(v jsontext.Value, inList bool) string {
	if v.Kind() != '"' {
		return string(v)
	}
	u, _ := jsontext.AppendUnquote(nil, v) // v is valid: no error
	s := string(u)
	if s == "" || strings.ContainsAny(s, "\n\r") || (inList && strings.Contains(s, ",")) {
		return strconv.Quote(s)
	}
	return s
}
