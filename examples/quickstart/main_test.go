package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestOfflineQuickstart(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), nil, env(nil), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	for _, want := range []string{"晴，气温26℃，东南风2级", "83699.1"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("answer %q does not contain %q", stdout.String(), want)
		}
	}
	if !strings.Contains(stderr.String(), "offline") {
		t.Errorf("stderr does not say it runs offline: %q", stderr.String())
	}
}

func TestOfflineOtherQuestion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"写一首诗"}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout.String(), "OPENAI_API_KEY") {
		t.Errorf("offline help missing: %q", stdout.String())
	}
}

func TestVerbosePrintsTranscript(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-v"}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"step 1:", "get_weather", "--- transcript ---", "tool (call_1)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}

// A provider answering 401: exit 1 with one clear line, no stack trace.
func TestProviderErrorIsOneLine(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}})
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), nil, env(map[string]string{"OPENAI_API_KEY": "bad", "OPENAI_BASE_URL": srv.URL + "/v1"}), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "401") || !strings.Contains(lines[0], "OPENAI_API_KEY") {
		t.Errorf("stderr = %q, want one line naming 401 and the key", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want empty", stdout.String())
	}
}

// A real provider round trip over HTTP: two parallel calls, then the answer.
func TestOnlineRoundTrip(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) == 1 {
			if req["temperature"] == nil {
				t.Errorf("request has no temperature: %v", req)
			}
			w.Write([]byte(`{"id":"1","object":"chat.completion","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[
				{"id":"call_w","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"北京\"}"}},
				{"id":"call_c","type":"function","function":{"name":"calculate","arguments":"{\"expression\":\"123.45 * 678\"}"}}]}}]}`))
			return
		}
		msgs := req["messages"].([]any)
		last := msgs[len(msgs)-1].(map[string]any)
		w.Write([]byte(`{"id":"2","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":` + mustJSON(last["content"].(string)) + `}}]}`))
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), nil, env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1"}), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != "123.45 * 678 = 83699.1" {
		t.Errorf("answer = %q", got)
	}
}

func mustJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestStreamFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-stream"}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := stdout.String(); !strings.Contains(got, "83699.1") || !strings.HasSuffix(got, "\n") || strings.Count(got, "\n") != 1 {
		t.Errorf("streamed answer = %q", got)
	}
}

// 429 with Retry-After, then success: the quickstart's model retry waits as asked.
func TestRetryAfterThenSuccess(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`))
			return
		}
		w.Write([]byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"你好！"}}]}`))
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run(context.Background(), []string{"你好"}, env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1"}), &stdout, &stderr)
	if code != 0 || strings.TrimSpace(stdout.String()) != "你好！" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if n.Load() != 2 {
		t.Errorf("%d requests, want 2", n.Load())
	}
	if waited := time.Since(start); waited < time.Second {
		t.Errorf("retried after %v, before the server's Retry-After of 1s", waited)
	}
}

// -trace writes the run's page and leaves the answer on stdout as it is without it.
func TestTraceFlag(t *testing.T) {
	var plain, stderr bytes.Buffer
	if code := run(context.Background(), nil, env(nil), &plain, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	path := filepath.Join(t.TempDir(), "run.html")
	var stdout bytes.Buffer
	stderr.Reset()
	if code := run(context.Background(), []string{"-trace", path}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr.String())
	}
	if got, want := stdout.String(), plain.String(); got != want {
		t.Errorf("stdout with -trace = %q, want it as without: %q", got, want)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "get_weather", "calculate", "83699.1", "Content-Security-Policy"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the trace lacks %q", want)
		}
	}
}

// -trace to a path that cannot be created fails before the run: the model is not paid for
// an answer the program would not print.
func TestTraceFlagBadPath(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(500)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	bad := filepath.Join(t.TempDir(), "no", "such", "dir.html")
	code := run(context.Background(), []string{"-trace", bad}, env(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL + "/v1"}), &stdout, &stderr)
	if code != 1 || hits.Load() != 0 || !strings.Contains(stderr.String(), "dir.html") {
		t.Errorf("-trace to a path that cannot be created: exit %d after %d model requests, stderr %q; want exit 1 before any, naming the file", code, hits.Load(), stderr.String())
	}
}
