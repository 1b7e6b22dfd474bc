// Package trace writes the trace of an agent run as one self-contained HTML page: a
// timeline of the model calls and tool calls (a turn's calls side by side), each call's
// duration, the tokens (cached too), repairs, validation failures, errors and their kinds,
// loop-guard refusals, approvals and pauses, and every message each request carried,
// collapsible and searchable.
//
// Three ways to make one, one page format:
//
//	trace.Write(f, res, &trace.Options{Err: err}) // from a run's agentkit.Result
//	trace.WriteSession(f, msgs, nil)               // from a stored session's messages
//	rec := trace.NewRecorder(f, nil)               // as a long run goes, from its events:
//	defer rec.Close()                              // (ends the page of a run that panicked)
//	agent := agentkit.New(model, &agentkit.Options{OnEvent: rec.OnEvent, …})
//
// A Result holds durations but not start times, so its timeline lays the steps end to end
// (approximate); a Recorder takes the time of each event as it arrives, so calls started
// early while the model streamed are drawn where they began; a stored session holds no
// durations at all, and its timeline shows order, not time. Each page says which it is.
//
// The page is safe to open whatever the run held. It loads nothing: no network, no font, no
// image; its style and its one script (the search box, the timeline's links) are inline, and a
// Content-Security-Policy meta tag allows those two by their hashes and nothing else.
// Every string — messages, arguments, results, errors — is escaped by html/template, so a
// tool result holding "</script>" or "<img onerror=…>" is shown as text. Long texts are
// cut (Options.Excerpt) with the full text a click away. The page is UTF-8: Chinese text
// reads as it was written.
//
// The package's own tests check the page's structure; trace/browsertest, a module of its
// own (so that the SDK does not depend on a browser driver), loads it in a headless
// Chromium and takes the screenshot of the README.
package trace
