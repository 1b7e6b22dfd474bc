package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

func TestParallelOffline(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-latency", "300ms"}, func(string) string { return "" }, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	// Emission order: 北京, 上海, 广州, 深圳 — and the answer pairs each city with its own weather.
	if !strings.Contains(out, "北京：晴，气温26℃，东南风2级。上海：多云，气温28℃，湿度65%。广州：阵雨，气温30℃，体感较热。深圳：多云转晴，气温29℃。") {
		t.Errorf("answer mixes up cities:\n%s", out)
	}
	// The lookups overlapped (all four do unless the machine starves a goroutine for 300 ms).
	var peak int
	fmt.Sscanf(out[strings.Index(out, "peak concurrency:"):], "peak concurrency: %d", &peak)
	if peak < 2 {
		t.Errorf("peak concurrency %d: the calls did not run concurrently\n%s", peak, out)
	}
}
