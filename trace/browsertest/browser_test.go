package browsertest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/trace"
)

var screenshot = flag.String("screenshot", "", "write the screenshot of the page (PNG) to this file, for the README")

// chromium returns the path of the browser: Debian's /usr/bin/chromium, or a chromium on
// PATH. Under CI a missing browser fails the test; elsewhere it skips.
func chromium(t *testing.T) string {
	for _, p := range []string{"/usr/bin/chromium", "chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (.ci/run installs Debian's chromium package)")
	}
	t.Skip("chromium is not installed: apt-get install chromium chromium-driver to run the browser tests")
	return ""
}

// seen is what the browser reported while it showed a page.
type seen struct {
	mu       sync.Mutex
	problems []string // console errors and warnings, exceptions, CSP violations
	requests []string // every URL the page asked for
	dialogs  []string // alert, confirm, prompt
}

func (s *seen) listen(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			s.problems = append(s.problems, fmt.Sprintf("console.%s", ev.Type))
		}
	case *runtime.EventExceptionThrown:
		s.problems = append(s.problems, "exception: "+ev.ExceptionDetails.Text)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			s.problems = append(s.problems, fmt.Sprintf("%s %s: %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text))
		}
	case *network.EventRequestWillBeSent:
		s.requests = append(s.requests, ev.Request.URL)
	case *page.EventJavascriptDialogOpening:
		s.dialogs = append(s.dialogs, string(ev.Type)+": "+ev.Message)
	}
}

func (s *seen) get() (problems, requests, dialogs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...), append([]string(nil), s.requests...), append([]string(nil), s.dialogs...)
}

// browser starts a headless Chromium with a new empty profile, that reaches nothing outside.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 820),
	)
	t.Cleanup(cancelAlloc) // runs before the profile's TempDir is removed
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	return tab
}

// load opens the page in the browser, and returns what it reported.
func load(t *testing.T, ctx context.Context, html []byte) (*seen, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "run.html")
	if err := os.WriteFile(file, html, 0o644); err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: file}).String()
	s := &seen{}
	if err := chromedp.Listen(ctx, s.listen); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(u), chromedp.WaitReady(chromedp.CSS("#timeline"))); err != nil {
		t.Fatal(err)
	}
	return s, u
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// pages are the two ways a run's page is made, from its Result and as it goes.
func pages(t *testing.T) map[string]struct {
	html []byte
	res  *agentkit.Result
} {
	res := run(t, nil)
	realistic(res)
	var fromResult bytes.Buffer
	if err := trace.Write(&fromResult, res, &trace.Options{Err: agentkit.ErrPaused, Title: "toolcall trace · 北京天气"}); err != nil {
		t.Fatal(err)
	}
	var recorded bytes.Buffer
	rec := trace.NewRecorder(&recorded, nil)
	res2 := run(t, rec.OnEvent)
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	return map[string]struct {
		html []byte
		res  *agentkit.Result
	}{"Write": {fromResult.Bytes(), res}, "Recorder": {recorded.Bytes(), res2}}
}

func TestPageInChromium(t *testing.T) {
	for name, p := range pages(t) {
		t.Run(name, func(t *testing.T) {
			ctx := browser(t)
			s, u := load(t, ctx, p.html)

			if got, want := eval[int](t, ctx, `document.querySelectorAll("rect.bar").length`), calls(p.res); got != want {
				t.Errorf("the timeline has %d bars, want %d (model calls + tool calls)", got, want)
			}
			if name == "Write" {
				shoot(t, ctx)
			}
			checkSearch(t, ctx)
			checkInjection(t, ctx)

			problems, requests, dialogs := s.get()
			if len(problems) > 0 {
				t.Errorf("the browser reported:\n%s", strings.Join(problems, "\n"))
			}
			for _, r := range requests {
				if r != u {
					t.Errorf("the page asked for %s", r)
				}
			}
			if len(dialogs) > 0 {
				t.Errorf("the page opened dialogs: %v", dialogs)
			}
		})
	}
}

// checkSearch types a Chinese word in the search box, as an IME commits it: the messages and
// calls that hold it are shown (their details opened), the others hidden; clearing the box
// shows them all again.
func checkSearch(t *testing.T, ctx context.Context) {
	t.Helper()
	type item struct {
		Has     bool `json:"has"`
		Hidden  bool `json:"hidden"`
		Visible bool `json:"visible"`
	}
	items := func() []item {
		return eval[[]item](t, ctx, `[...document.querySelectorAll(".item")].map(el => ({
			has: el.textContent.includes("`+chineseWord+`"), hidden: el.hidden, visible: el.checkVisibility()}))`)
	}
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#q"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: chineseWord}); err != nil {
		t.Fatal(err)
	}
	all := items()
	matched := 0
	for i, it := range all {
		switch {
		case it.Has && !it.Visible:
			t.Errorf("item %d holds %q and is not shown", i, chineseWord)
		case !it.Has && (it.Visible || !it.Hidden):
			t.Errorf("item %d does not hold %q and is shown", i, chineseWord)
		}
		if it.Has {
			matched++
		}
	}
	if matched == 0 || matched == len(all) {
		t.Errorf("%d of %d items hold %q: the search shows nothing apart", matched, len(all), chineseWord)
	}
	if got, want := eval[string](t, ctx, `document.getElementById("count").textContent`), fmt.Sprintf("%d of %d shown", matched, len(all)); got != want {
		t.Errorf("the count says %q, want %q", got, want)
	}
	// Clear the box: everything comes back.
	eval[bool](t, ctx, `(q => { q.value = ""; return q.dispatchEvent(new Event("input")) })(document.getElementById("q"))`)
	for i, it := range items() {
		if it.Hidden {
			t.Errorf("item %d is still hidden after the search was cleared", i)
		}
	}
}

// checkInjection: the tool result holding markup is shown as text, and made no element.
func checkInjection(t *testing.T, ctx context.Context) {
	t.Helper()
	if n := eval[int](t, ctx, `document.querySelectorAll("img, iframe, object, embed").length`); n != 0 {
		t.Errorf("the page has %d injected elements", n)
	}
	if n := eval[int](t, ctx, `document.scripts.length`); n != 1 {
		t.Errorf("the page has %d scripts, want its one own", n)
	}
	js := `[...document.querySelectorAll("pre.text")].filter(p => p.textContent === ` + fmt.Sprintf("%q", injected) + `).length`
	if n := eval[int](t, ctx, js); n == 0 {
		t.Errorf("the injected tool result is not shown as text")
	}
}

// shoot takes the screenshot of the page's top: the title, the timeline and the summary.
func shoot(t *testing.T, ctx context.Context) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("the screenshot is not a PNG")
	}
	out := *screenshot
	if out == "" {
		out = filepath.Join(t.TempDir(), "trace.png")
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(png))
}

// TestTheCheckerSeesViolations is the check checked: a page with markup that breaks its
// policy (an inline script, a remote image) is reported, and nothing it asks for loads.
func TestTheCheckerSeesViolations(t *testing.T) {
	res := run(t, nil)
	var b bytes.Buffer
	if err := trace.Write(&b, res, nil); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b.Bytes(), []byte("<main>"), []byte(`<main><script>alert("x")</script><img src="http://127.0.0.1:9/x.png">`), 1)
	ctx := browser(t)
	s, _ := load(t, ctx, bad)
	problems, _, dialogs := s.get()
	var csp int
	for _, p := range problems {
		if strings.Contains(p, "Content Security Policy") {
			csp++
		}
	}
	if csp < 2 {
		t.Errorf("the browser reported %d CSP violations for an inline script and a remote image, want 2; it reported:\n%s", csp, strings.Join(problems, "\n"))
	}
	if len(dialogs) > 0 {
		t.Errorf("the blocked script ran: %v", dialogs)
	}
}
