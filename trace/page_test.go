package trace

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

func resultPage(t *testing.T) (*agentkit.Result, string) {
	t.Helper()
	res, err := richRun(t, nil)
	var b strings.Builder
	if err := Write(&b, res, &Options{Err: err, Title: "追踪 trace"}); err != nil {
		t.Fatal(err)
	}
	return res, b.String()
}

func TestResultPageHasEveryCall(t *testing.T) {
	defer goleak.VerifyNone(t)
	res, page := resultPage(t)
	doc := parse(t, page)

	bars := doc.all(classed("rect", "bar"))
	if got, want := len(bars), len(res.Steps)+callCount(res); got != want {
		t.Errorf("the timeline has %d bars, want %d (model calls + tool calls)", got, want)
	}
	// Every call of the Result has its section, in order, with its id and name.
	var got, want []string
	for _, n := range doc.all(classed("details", "call")) {
		sum := n.all(tagged("summary"))[0]
		got = append(got, sum.all(classed("span", "id"))[0].textContent()+" "+sum.all(classed("span", "name"))[0].textContent())
	}
	for _, s := range res.Steps {
		for _, c := range s.Calls {
			want = append(want, c.Call.ID+" "+c.Call.Name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call sections (-want +got):\n%s", diff)
	}
	// Each bar links to its call's section.
	ids := map[string]bool{}
	for _, n := range doc.all(func(n *node) bool { return n.attr["id"] != "" }) {
		ids[n.attr["id"]] = true
	}
	for _, a := range doc.all(tagged("a")) {
		if h := a.attr["href"]; !ids[strings.TrimPrefix(h, "#")] {
			t.Errorf("a bar links to %q, which is no element of the page", h)
		}
	}
}

func TestResultPageShowsWhatHappened(t *testing.T) {
	res, page := resultPage(t)
	doc := parse(t, page)
	badges := map[string]string{} // kind class → badge text
	for _, n := range doc.all(classed("details", "call")) {
		cls := strings.Fields(n.attr["class"])[2]
		badges[cls] = n.all(classed("span", "badge"))[0].textContent()
	}
	want := map[string]string{
		"repaired": kindLabel(tool.Result{Repair: "x"}),
		"invalid":  kindLabel(tool.Result{Kind: tool.KindInvalidArguments}),
		"failed":   kindLabel(tool.Result{Kind: tool.KindPanic}),
		"ok":       "ok",
		"loop":     kindLabel(tool.Result{Kind: tool.KindLoop}),
		"pending":  kindLabel(tool.Result{Kind: tool.KindPending}),
	}
	if diff := cmp.Diff(want, badges); diff != "" {
		t.Errorf("badges by kind (-want +got):\n%s", diff)
	}
	text := doc.textContent()
	for _, s := range []string{
		"repair: repaired malformed JSON", // the repair
		"/city: expected string",          // the validation failure, with its path
		"stop: paused",                    // the pause
		"transfer",                        // the call waiting for approval
		"cached " + strconv.Itoa(res.Steps[0].Usage.CachedTokens), // cached tokens of a step
		"cached " + strconv.Itoa(res.Usage.CachedTokens),          // and of the run
		"追踪 trace",                         // the title, as written
		"tool boom panicked",               // the panic's error
		"before a middleware shortened it", // middleware.Truncate's original
		agentkit.ErrPaused.Error(),         // the run's error
	} {
		if !strings.Contains(text, s) {
			t.Errorf("the page does not say %q", s)
		}
	}
	if res.Pause == nil || len(doc.all(classed("ul", "pending"))) != 1 {
		t.Errorf("the paused run's pending calls are not listed")
	}
}

func TestEveryRequestsMessages(t *testing.T) {
	res, page := resultPage(t)
	doc := parse(t, page)
	requests := doc.all(classed("details", "request"))
	if got, want := len(requests), len(res.Steps); got != want {
		t.Fatalf("%d requests shown, want %d", got, want)
	}
	// Request k carried the transcript up to the k-th reply; each shows the messages the one
	// before did not carry, numbered from where they stand.
	reqs := requestsOf(res)
	for k, r := range requests {
		var got []string
		for _, m := range r.all(classed("div", "msg")) {
			got = append(got, m.all(classed("span", "n"))[0].textContent())
		}
		from := 0
		if k > 0 {
			from = len(reqs[k-1])
		}
		var want []string
		for i := from; i < len(reqs[k]); i++ {
			want = append(want, "#"+strconv.Itoa(i+1))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("request %d's messages (-want +got):\n%s", k+1, diff)
		}
	}
}

func TestLargeTextsAreCutWithTheFullTextAClickAway(t *testing.T) {
	res, page := resultPage(t)
	doc := parse(t, page)
	long := res.Steps[0].Calls[4].Result // fetch "big", shortened by middleware.Truncate(3000)
	var found bool
	for _, d := range doc.all(classed("details", "full")) {
		full := d.all(tagged("pre"))[0].textContent()
		if full == long.Content {
			found = true
		}
	}
	if !found {
		t.Errorf("the full text of the large result is not a click away")
	}
	for _, p := range doc.all(classed("pre", "text")) {
		if n := utf8.RuneCountInString(p.textContent()); n > defaultExcerpt+1 && !isFull(doc, p) {
			t.Errorf("a text of %d characters is shown uncut", n)
		}
	}
}

// isFull reports whether p is the full text inside a "full text" details.
func isFull(doc *node, p *node) bool {
	for _, d := range doc.all(func(n *node) bool { return n.tag == "details" && (n.hasClass("full")) }) {
		for _, c := range d.all(tagged("pre")) {
			if c == p {
				return true
			}
		}
	}
	return false
}

func TestSelfContained(t *testing.T) {
	_, page := resultPage(t)
	doc := parse(t, page)
	for _, n := range doc.all(func(*node) bool { return true }) {
		switch n.tag {
		case "link", "img", "iframe", "object", "embed", "base", "form", "image", "use", "video", "audio", "source":
			t.Errorf("the page has a <%s> element", n.tag)
		}
		for k, v := range n.attr {
			if k == "src" || (k == "href" && !strings.HasPrefix(v, "#")) || strings.Contains(strings.ToLower(v), "http") {
				t.Errorf("<%s %s=%q> points outside the page", n.tag, k, v)
			}
		}
	}
	for _, s := range doc.all(tagged("style")) {
		if css := s.textContent(); strings.Contains(css, "url(") || strings.Contains(css, "@import") {
			t.Errorf("the style loads a resource")
		}
	}
	if got := len(doc.all(tagged("script"))); got != 1 {
		t.Errorf("the page has %d scripts, want its one own", got)
	}
}

func TestContentSecurityPolicy(t *testing.T) {
	_, page := resultPage(t)
	doc := parse(t, page)
	metas := doc.all(func(n *node) bool {
		return n.tag == "meta" && strings.EqualFold(n.attr["http-equiv"], "Content-Security-Policy")
	})
	if len(metas) != 1 {
		t.Fatalf("%d CSP meta tags, want 1", len(metas))
	}
	policy := map[string]string{}
	for _, d := range strings.Split(metas[0].attr["content"], ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		policy[name] = value
	}
	sha := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	want := map[string]string{
		"default-src": "'none'",
		"script-src":  sha(doc.all(tagged("script"))[0].textContent()),
		"style-src":   sha(doc.all(tagged("style"))[0].textContent()),
		"img-src":     "'none'",
		"base-uri":    "'none'",
		"form-action": "'none'",
	}
	if diff := cmp.Diff(want, policy); diff != "" {
		t.Errorf("the policy (-want +got):\n%s", diff)
	}
	// The meta charset comes first, within the bytes a browser reads to find it.
	if i := strings.Index(page, `<meta charset="utf-8">`); i < 0 || i > 1024 {
		t.Errorf("meta charset at %d, want within the first 1024 bytes", i)
	}
}
