// Package browsertest checks the pages of package trace in a real browser: a headless
// Chromium (Debian's chromium package, /usr/bin/chromium), driven over the DevTools protocol
// with github.com/chromedp/chromedp. It is a module of its own so that the SDK's go.mod
// never gains a browser driver, and it holds tests only.
//
// The tests load a page from a file, and check that the browser reports no console error
// and no Content-Security-Policy violation, fetches nothing but the page, draws one
// timeline bar per model call and tool call, that the search box finds a message written
// in Chinese and hides the others, and that markup injected in a tool result stays text.
// Under CI (CI=true) a missing Chromium fails them; elsewhere they skip, saying so.
//
// The README's screenshot is taken by the same test:
//
//	cd trace/browsertest && go test -run TestPageInChromium -args -screenshot ../../docs/trace.png
package browsertest
