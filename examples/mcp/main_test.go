package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain lets the test binary be the example's MCP server too: the example starts itself
// (os.Executable) with -serve, which in a test is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-serve" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantOut    []string
		wantErr    []string
		notWantOut []string
	}{
		{
			name:    "approved",
			args:    nil,
			wantOut: []string{`"id":"B-2048"`, `"people":2`, "预订 B-1024 已取消"},
			wantErr: []string{`approval: cancel_booking {"id":"B-1024"} — approved`},
		},
		{
			name:       "declined",
			args:       []string{"-deny"},
			wantOut:    []string{`"id":"B-2048"`, "declined"},
			wantErr:    []string{"— declined"},
			notWantOut: []string{"已取消"},
		},
		{
			name:    "verbose",
			args:    []string{"-v"},
			wantOut: []string{"已取消"},
			wantErr: []string{"→ get_weather", "book_table: 1/2 查询空位", "book_table: 2/2 确认预订", `← get_weather: {"city":"北京"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.notWantOut {
				if strings.Contains(stdout.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			// Only the destructive call is asked about: get_weather is read-only, book_table
			// additive.
			if n := strings.Count(stderr.String(), "approval:"); n != 1 {
				t.Errorf("%d approvals asked, want 1:\n%s", n, stderr.String())
			}
		})
	}
}
