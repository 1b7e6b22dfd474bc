package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// invoke runs the program once, as a process would, and returns its exit code and outputs.
func invoke(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// paused makes the first invocation and returns the state file's path.
func paused(t *testing.T) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "run.json")
	code, out, errOut := invoke(t, "-state", state, "转账 500 元给 bob")
	if code != 0 || !strings.Contains(out, "paused") || !strings.Contains(out, `pending: call_1 transfer {"amount":500,"to":"bob"} (approval)`) {
		t.Fatalf("first invocation: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if strings.Contains(errOut, "bank:") {
		t.Fatalf("the transfer ran before its approval: %s", errOut)
	}
	for _, f := range []string{state, state + ".key", state + ".ledger.db"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("the first invocation left no %s: %v", filepath.Base(f), err)
		}
	}
	return state
}

// Pause, approve, resume again: the transfer runs once, the second resume says why it ran
// nothing.
func TestApproveOnce(t *testing.T) {
	state := paused(t)
	code, out, errOut := invoke(t, "-state", state, "-approve", "call_1")
	if code != 0 || !strings.Contains(out, "pending: call_1 transfer") || !strings.Contains(out, "完成：已向 bob 转账 500 元。") {
		t.Fatalf("approve: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if n := strings.Count(errOut, "bank: transferred 500 to bob"); n != 1 {
		t.Errorf("approve: the transfer ran %d times, want 1", n)
	}
	code, _, errOut = invoke(t, "-state", state, "-approve", "call_1")
	if code != 1 || !strings.Contains(errOut, "already resumed") || strings.Contains(errOut, "bank:") {
		t.Errorf("second resume: exit %d, stderr %q; want 1, already resumed, no transfer", code, errOut)
	}
}

// A rejection's message reaches the model; nothing is transferred.
func TestReject(t *testing.T) {
	state := paused(t)
	code, out, errOut := invoke(t, "-state", state, "-reject", "call_1", "-message", "金额不对")
	if code != 0 || !strings.Contains(out, "好的，没有转账。") || !strings.Contains(out, "金额不对") || strings.Contains(errOut, "bank:") {
		t.Errorf("reject: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// Two processes resuming the same file at once: one transfer between them.
func TestConcurrentResumes(t *testing.T) {
	state := paused(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var codes []int
	var errs string
	for range 2 {
		wg.Go(func() {
			code, _, errOut := invoke(t, "-state", state, "-approve", "call_1")
			mu.Lock()
			codes, errs = append(codes, code), errs+errOut
			mu.Unlock()
		})
	}
	wg.Wait()
	if n := strings.Count(errs, "bank: transferred"); n != 1 || codes[0]+codes[1] != 1 {
		t.Errorf("two resumes at once: exits %v, %d transfers; want one 0 and one 1, 1 transfer\n%s", codes, n, errs)
	}
}

// An edited state, a wrong decision, bad flags: a clear line, nothing transferred.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(state string)
		args     []string
		wantCode int
		want     string
	}{
		{"amount edited", func(state string) {
			b, _ := os.ReadFile(state)
			os.WriteFile(state, bytes.Replace(b, []byte(`"amount": 500`), []byte(`"amount": 50000`), 1), 0o600)
		}, []string{"-approve", "call_1"}, 1, "altered"},
		{"another key", func(state string) { os.WriteFile(state+".key", []byte("another key"), 0o600) }, []string{"-approve", "call_1"}, 1, "altered"},
		{"key file emptied", func(state string) { os.WriteFile(state+".key", nil, 0o600) }, []string{"-approve", "call_1"}, 1, "key file "},
		{"unknown call", nil, []string{"-approve", "call_9"}, 1, "every pending call needs"},
		{"request and decision", nil, []string{"-approve", "call_1", "再转一次"}, 2, "either a request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state := paused(t)
			if tt.edit != nil {
				tt.edit(state)
			}
			code, _, errOut := invoke(t, append([]string{"-state", state}, tt.args...)...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "bank:") {
				t.Errorf("exit %d, stderr %q; want %d, %q, no transfer", code, errOut, tt.wantCode, tt.want)
			}
		})
	}
}
