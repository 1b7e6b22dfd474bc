package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolcall/toolcall/bench"
)

// cacheHeading starts the prompt-cache section; -cache replaces the section it starts.
const cacheHeading = "## Prompt cache: "

// cacheBefore is the heading the prompt-cache section goes before when the page has none.
const cacheBefore = "## A call of an MCP server's tool"

// cacheRow is one row of the prompt-cache table.
type cacheRow struct {
	name string
	st   bench.CacheStats
	err  error
}

// cacheRows runs the prompt-cache workload through every way (seconds: it counts tokens, it
// times nothing).
func cacheRows() []cacheRow {
	var rows []cacheRow
	for _, way := range bench.CacheWays() {
		fmt.Fprintf(os.Stderr, "report: prompt cache, %s\n", way.Name)
		st, err := bench.RunCache(context.Background(), way, bench.CacheTurns)
		rows = append(rows, cacheRow{way.Name, st, err})
	}
	return rows
}

func cacheSection(p func(string, ...any), rows []cacheRow) {
	p("%sa %d-turn conversation, in input tokens (`go run ./cmd/report -cache` redoes this section alone)", cacheHeading, bench.CacheTurns)
	p("")
	p("A `get_report` call (~800 bytes) and a 30-word answer per turn, a 360-token system prompt, %d requests, RunSession on InMemory, each way through its", 2*bench.CacheTurns)
	p("own OpenAI client to a recording server. Tokens: %s's (`memory.NewCounter`), tools included; cacheable: the longest prefix (tools, then messages as sent) equal to the previous request's, by OpenAI's rule (0 below 1,024, else in 128-token steps); cost index: uncached + 0.1 × cacheable.", bench.CacheModel)
	p("")
	p("| way | prompt tokens | cacheable | cost index |")
	p("|---|---:|---:|---:|")
	for _, r := range rows {
		if r.err != nil {
			p("| %s | failed: %s | | |", r.name, strings.ReplaceAll(r.err.Error(), "|", "/"))
			continue
		}
		p("| %s | %s | %.1f%% | %s |", r.name, millions(float64(r.st.Prompt)), 100*r.st.Share(), millions(r.st.CostIndex()))
	}
}

func millions(x float64) string { return fmt.Sprintf("%.2f M", x/1e6) }

// spliceCache returns page with its prompt-cache section replaced by section, or inserted
// before cacheBefore when it has none.
func spliceCache(page, section string) (string, error) {
	lines := strings.SplitAfter(page, "\n")
	from, to := -1, len(lines)
	for i, l := range lines {
		switch {
		case from < 0 && strings.HasPrefix(l, cacheHeading):
			from = i
		case from >= 0 && strings.HasPrefix(l, "## "):
			to = i
		}
		if from >= 0 && to < len(lines) {
			break
		}
	}
	if from < 0 {
		for i, l := range lines {
			if strings.HasPrefix(l, cacheBefore) {
				from, to = i, i
				break
			}
		}
	}
	if from < 0 {
		return "", fmt.Errorf("the page has neither %q nor %q", cacheHeading, cacheBefore)
	}
	return strings.Join(lines[:from], "") + section + "\n" + strings.Join(lines[to:], ""), nil
}

// cacheOnly redoes the prompt-cache section of the page at out, in place.
func cacheOnly(out string) error {
	old, err := os.ReadFile(out)
	if err != nil {
		return err
	}
	var b strings.Builder
	cacheSection(func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }, cacheRows())
	page, err := spliceCache(string(old), b.String())
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(page), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report: wrote the prompt-cache section of %s (%d lines)\n", out, strings.Count(page, "\n"))
	return nil
}
