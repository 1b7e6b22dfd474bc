package script

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Behaviour is one framework's row of the behaviour table.
type Behaviour struct {
	Framework string
	// Order is the order of the results the model read after the parallel turn (slow was
	// emitted first, fast second), and whether the calls overlapped.
	Order string
	// Unknown, Comma and NotJSON say what the framework did with a call of an unknown tool,
	// with arguments {"city": "北京",} and with arguments `not json`.
	Unknown, Comma, NotJSON string
}

// OrderOutcome describes an order test: the results the model read and the tools' log.
func OrderOutcome(err error, rec *Recorder, events []string) string {
	if err != nil {
		return "error: " + clip(err.Error(), 60)
	}
	rs := rec.Results()
	if len(rs) == 0 {
		return "no results reached the model"
	}
	var ids []string
	for _, r := range rs[0] {
		ids = append(ids, strings.TrimPrefix(r.ID, "call_"))
	}
	order := strings.Join(ids, ",")
	switch order {
	case "slow,fast":
		order = "emission order (slow,fast)"
	case "fast,slow":
		order = "COMPLETION order (fast,slow)"
	}
	mode := "calls ran one after the other"
	for _, e := range events {
		if e == "fast end" {
			mode = "calls overlapped, fast finished first"
			break
		}
		if e == "slow end" {
			break
		}
	}
	return order + "; " + mode
}

// FailureOutcome describes what a framework did with a bad call: ended the run with an
// error, ran the tool (the arguments were repaired), or fed an error back to the model.
func FailureOutcome(err error, rec *Recorder) string {
	if err != nil {
		return "ABORT: " + clip(oneLine(err.Error()), 90)
	}
	rs := rec.Results()
	if len(rs) == 0 || len(rs[0]) == 0 {
		return "answered without a result reaching the model"
	}
	c := rs[0][0].Content
	if strings.Contains(c, Weather("北京")) {
		return "repaired, tool ran: " + clip(oneLine(c), 40)
	}
	return "fed back: " + clip(oneLine(c), 90)
}

// Table renders rows as a Markdown table.
func Table(rows []Behaviour) string {
	var b strings.Builder
	b.WriteString("| framework | parallel turn, 2nd call finishes first | unknown tool | `{\"city\": \"北京\",}` | `not json` |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Framework, esc(r.Order), esc(r.Unknown), esc(r.Comma), esc(r.NotJSON))
	}
	return b.String()
}

func esc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
