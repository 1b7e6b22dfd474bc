package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestMiddlewareExample(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  []string
	}{
		{"support, approves", nil, "y\n", []string{
			"search_logs " + `{"service":"payment"}` + " -> ok",
			"full result kept for the application",
			`delete_user {"user_id":4242} -> ok`,
			`delete_user {"user_id":7} -> denied`,
			"billing_report {} -> denied",
			"user 4242 deleted",
		}},
		{"support, declines", nil, "n\n", []string{`delete_user {"user_id":4242} -> denied`, "billing_report {} -> denied"}},
		{"no terminal fails closed", nil, "", []string{`delete_user {"user_id":4242} -> denied`}},
		{"admin", []string{"-role", "admin", "-yes"}, "", []string{"billing_report {} -> ok", "本月收入"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tc.args, func(string) string { return "" }, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, stdout.String())
				}
			}
		})
	}
}
