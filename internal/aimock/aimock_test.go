//go:build unix

package aimock

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartServesFixturesAndStops(t *testing.T) {
	var s *Server
	t.Run("run", func(t *testing.T) {
		s = Start(t, "../../testdata/aimock/hello.json")
		if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || !strings.HasSuffix(s.URL, "/v1") || s.URL != s.Origin+"/v1" {
			t.Fatalf("URL = %q, Origin = %q", s.URL, s.Origin)
		}
		body := `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hello there"}]}`
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Post(s.URL+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got struct {
			Choices []struct {
				Message struct{ Content string } `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 || len(got.Choices) != 1 || got.Choices[0].Message.Content != "Hi from aimock." {
			t.Fatalf("status %d, reply %+v", resp.StatusCode, got)
		}
	})
	if s == nil {
		return // skipped
	}
	// The subtest's cleanup stopped the server: the process is reaped and the port closed.
	select {
	case <-s.done:
	default:
		t.Fatal("the server is still running after the test's cleanup")
	}
	if err := syscall.Kill(-s.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-pgid, 0) = %v, want ESRCH: a process of the server's group is still alive", err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	if resp, err := c.Get(s.Origin + "/health"); err == nil {
		resp.Body.Close()
		t.Errorf("GET /health after stop succeeded: %s", resp.Status)
	}
}

// A server that exits at startup is reported with its output, not waited for until the timeout.
func TestStartReportsAnEarlyExit(t *testing.T) {
	node, cli, err := locate()
	if err != nil {
		t.Skip(err)
	}
	begin := time.Now()
	_, err = start(node, cli, filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "exited before listening") || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("err = %v, want an early exit naming the fixture path", err)
	}
	if d := time.Since(begin); d > startTimeout/2 {
		t.Errorf("took %v", d)
	}
}

// Without node or the package, a test is skipped locally and fails in CI.
func TestUnavailable(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			rec := &recorder{TB: t}
			done := make(chan struct{})
			go func() { // Skip and Fatal end the goroutine
				defer close(done)
				unavailable(rec, errors.New("node not found in PATH"))
			}()
			<-done
			want := "skip"
			if ci != "" {
				want = "fatal"
			}
			if rec.how != want || !strings.Contains(rec.msg, "npm ci --prefix testdata") || !strings.Contains(rec.msg, "node not found") {
				t.Errorf("%s(%q), want %s with the cause and the npm ci command", rec.how, rec.msg, want)
			}
		})
	}
}

// recorder records a Skip or Fatal instead of ending the test.
type recorder struct {
	testing.TB
	how, msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Skip(args ...any) {
	r.how, r.msg = "skip", fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.how, r.msg = "fatal", fmt.Sprint(args...)
	runtime.Goexit()
}
