package trace

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/tool"
)

var (
	//go:embed page.tmpl
	pageTemplate string
	//go:embed style.css
	style string
	//go:embed script.js
	script string
)

// defaultExcerpt is the number of characters of a long text shown before "full text".
const defaultExcerpt = 2000

// writer writes a page fragment by fragment: the head, each turn (its request, its reply,
// its calls), then the end with the summary and the timeline. Every way to make a page —
// from a Result, from a session, from events — goes through it. The first error sticks.
type writer struct {
	w       io.Writer
	t       *template.Template
	err     error
	open    bool // a turn's section is open
	bars    timeline
	excerpt int
}

func newWriter(w io.Writer, opts *Options, untimed bool) *writer {
	wr := &writer{w: w, excerpt: opts.Excerpt, bars: timeline{untimed: untimed}}
	if wr.excerpt <= 0 {
		wr.excerpt = defaultExcerpt
	}
	wr.t = template.Must(template.New("page").Funcs(template.FuncMap{
		"excerpt": wr.cut,
		"dur":     formatDuration,
		"tokens":  tokens,
		"kind":    kindLabel,
		"kindcls": kindClass,
		"msgAt":   func(n int, m openai.ChatCompletionMessage) numbered { return numbered{N: n, M: m} },
		"pos":     func(kept, i int) int { return kept + i + 1 },
	}).Parse(pageTemplate))
	return wr
}

// numbered is a message with its position in its request (0 for a reply).
type numbered struct {
	N int
	M openai.ChatCompletionMessage
}

// exec writes the fragment name of the page. Bytes that are not UTF-8 (a tool's binary
// output, a stream cut inside a character) become U+FFFD, as a browser would show them, so
// that the page is UTF-8 whatever the run held.
func (w *writer) exec(name string, data any) {
	if w.err != nil {
		return
	}
	var b strings.Builder
	if w.err = w.t.ExecuteTemplate(&b, name, data); w.err == nil {
		_, w.err = io.WriteString(w.w, strings.ToValidUTF8(b.String(), "\uFFFD"))
	}
}

// head writes the page up to its first turn.
func (w *writer) head(title string, notes []string) {
	if title == "" {
		title = "toolcall trace"
	}
	w.exec("head", struct {
		Title, CSP string
		CSS        template.CSS
		JS         template.JS
		Notes      []string
	}{title, csp(), template.CSS(style), template.JS(script), notes})
}

// csp is the page's Content-Security-Policy: nothing but its own style and script.
func csp() string {
	return "default-src 'none'; style-src '" + hash(style) + "'; script-src '" + hash(script) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'"
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// turn opens a turn's section with what its request carried.
func (w *writer) turn(t *turn) {
	w.closeTurn()
	w.open = true
	w.exec("turn", t)
}

// reply writes a turn's reply — its duration, tokens, cost and message, or its error — and
// draws its model call from start for length.
func (w *writer) reply(t *turn, start, length time.Duration) {
	w.exec("reply", t)
	w.bars.add(bar{Lane: 0, Start: start, Dur: length, Label: fmt.Sprintf("model %d", t.Iteration),
		Class: modelClass(t), Href: fmt.Sprintf("#t%d", t.Iteration)})
}

// call writes a tool call of the current turn, drawn in its lane from start for length.
func (w *writer) call(c *call, lane int, start, length time.Duration) {
	anchor := fmt.Sprintf("t%dc%d", c.Iteration, lane)
	w.exec("call", struct {
		*call
		Anchor string
	}{c, anchor})
	w.bars.add(bar{Lane: lane, Start: start, Dur: length, Label: c.Name, Class: kindClass(c.Result), Href: "#" + anchor})
}

func (w *writer) closeTurn() {
	if w.open {
		w.exec("close", nil)
		w.open = false
	}
}

// end writes the summary, the timeline and the end of the page.
func (w *writer) end(s *summary) {
	w.closeTurn()
	w.exec("end", struct {
		*summary
		Timeline svg
	}{s, w.bars.svg()})
}

// excerpt is a text cut for display: its head, and whether the full text is longer.
type excerpt struct {
	Head, Full string
	Cut        bool
	Runes      int
}

func (w *writer) cut(s string) excerpt {
	n := utf8.RuneCountInString(s)
	if n <= w.excerpt {
		return excerpt{Head: s, Runes: n}
	}
	i, k := 0, 0
	for i = range s {
		if k == w.excerpt {
			break
		}
		k++
	}
	return excerpt{Head: s[:i] + "…", Full: s, Cut: true, Runes: n}
}

func formatDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

// kindLabel says what a result's kind means, for people.
func kindLabel(r tool.Result) string { label, _ := kind(r); return label }

// kindClass is the CSS class of a result's kind.
func kindClass(r tool.Result) string { _, class := kind(r); return class }

// kind returns what a result's kind means, for people, and its CSS class.
func kind(r tool.Result) (label, class string) {
	switch r.Kind {
	case "":
		if r.Repair != "" {
			return "ok, arguments repaired", "repaired"
		}
		return "ok", "ok"
	case tool.KindLoop:
		return "refused by the loop guard", "loop"
	case tool.KindPending:
		return "waiting for a decision (the run paused)", "pending"
	case tool.KindInvalidArguments:
		return "validation failed (invalid_arguments)", "invalid"
	case tool.KindInvalidJSON:
		return "invalid JSON (invalid_json)", "invalid"
	case tool.KindDenied:
		return "denied (denied)", "pending"
	}
	return "failed: " + string(r.Kind), "failed"
}

func modelClass(t *turn) string {
	if t.Err != "" {
		return "model failed"
	}
	return "model"
}
