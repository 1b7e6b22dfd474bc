package browsertest

import (
	"bytes"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/toolcall/toolcall/trace"
)

// TestBarOpensItsCall: clicking a tool call's bar shows that call: its section is opened
// and scrolled to, also when a search had hidden it.
func TestBarOpensItsCall(t *testing.T) {
	res := run(t, nil)
	var b bytes.Buffer
	if err := trace.Write(&b, res, nil); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	load(t, ctx, b.Bytes())
	// A search that hides the call: a word in another call only.
	eval[bool](t, ctx, `(q => { q.value = "`+chineseWord+`"; return q.dispatchEvent(new Event("input")) })(document.getElementById("q"))`)
	for _, id := range []string{"t1c6", "t1c4"} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href="#`+id+`"] rect`))); err != nil {
			t.Fatal(err)
		}
		type state struct {
			Open, Visible, InView bool
		}
		got := eval[state](t, ctx, `(el => { const r = el.getBoundingClientRect();
			return {Open: el.open, Visible: el.checkVisibility(), InView: r.height > 0 && r.top > -1 && r.top < innerHeight} })(document.getElementById("`+id+`"))`)
		if got != (state{true, true, true}) {
			t.Errorf("after a click on the bar of %s: its call is %+v, want open, visible and in view", id, got)
		}
	}
}
