package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// srvRawSession speaks JSON-RPC to a streamable HTTP endpoint with plain net/http, to see the
// bytes the server sends rather than what a client library makes of them.
type srvRawSession struct {
	t       *testing.T
	url     string
	client  *http.Client
	session string
	nextID  int
}

func (r *srvRawSession) send(method string, params any, notification bool) json.RawMessage {
	r.t.Helper()
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if !notification {
		r.nextID++
		msg["id"] = r.nextID
	}
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		r.session = id
	}
	if notification {
		return nil
	}
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Result == nil {
		r.t.Fatalf("%s: status %d, body %s (%v)", method, resp.StatusCode, b, err)
	}
	return out.Result
}

// The annotations, schemas and results as they are on the wire.
func TestServerWire(t *testing.T) {
	s := newSrvFixture(t).server(t)
	ts := httptest.NewServer(sdkmcp.NewStreamableHTTPHandler(func(*http.Request) *sdkmcp.Server { return s }, &sdkmcp.StreamableHTTPOptions{JSONResponse: true}))
	hc := &http.Client{Transport: &http.Transport{}}
	defer func() {
		for ss := range s.Sessions() {
			ss.Close()
		}
		hc.CloseIdleConnections()
		ts.Close()
	}()
	r := &srvRawSession{t: t, url: ts.URL, client: hc}
	r.send("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "0"}}, false)
	r.send("notifications/initialized", map[string]any{}, true)

	var list struct {
		Tools []struct {
			Name         string          `json:"name"`
			Annotations  json.RawMessage `json:"annotations"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(r.send("tools/list", map[string]any{}, false), &list); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tl := range list.Tools {
		got[tl.Name] = string(tl.Annotations)
	}
	want := map[string]string{
		"get_weather": `{"idempotentHint":false,"openWorldHint":false,"readOnlyHint":true,"title":"Weather"}`,
		"forecast":    `{"destructiveHint":false,"idempotentHint":true,"readOnlyHint":false}`,
		"geographer":  `{"idempotentHint":false,"readOnlyHint":true}`,
		"fail":        "", "crash": "", "slow": "", "chart": "", "progress": "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations on the wire (-want +got):\n%s", diff)
	}

	res := r.send("tools/call", map[string]any{"name": "forecast", "arguments": map[string]any{"city": "北京"}}, false)
	if diff := cmp.Diff(`{"content":[{"type":"text","text":"{\"city\":\"北京\",\"temps\":[21.5,23]}"}],"structuredContent":{"city":"北京","temps":[21.5,23]}}`, string(res)); diff != "" {
		t.Errorf("tools/call forecast on the wire (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		name string
		args any
		want string
	}{
		{"fail", nil, `{"content":[{"type":"text","text":"error: tool fail failed: the database is down"}],"isError":true}`},
		{"fail", json.RawMessage(`null`), `{"content":[{"type":"text","text":"error: tool fail failed: the database is down"}],"isError":true}`},
		{"get_weather", json.RawMessage(`[1]`), `{"content":[{"type":"text","text":"the arguments for tool get_weather are not valid JSON: expected one JSON object, got an array. Expected a JSON object like {\"city\": \"\u003cstring\u003e\", \"days\": \u003cinteger 1..7\u003e}. Call the tool again with valid JSON arguments."}],"isError":true}`},
	} {
		params := map[string]any{"name": tt.name}
		if tt.args != nil {
			params["arguments"] = tt.args
		}
		res = r.send("tools/call", params, false)
		if diff := cmp.Diff(tt.want, string(res)); diff != "" {
			t.Errorf("tools/call %s %s on the wire (-want +got):\n%s", tt.name, tt.args, diff)
		}
	}
}

// Calls of one session run concurrently and each gets its own answer.
func TestServerConcurrentCalls(t *testing.T) {
	f := newSrvFixture(t)
	cs := srvConnectHTTP(t, f.server(t), srvClient(nil))
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			city := fmt.Sprintf("city-%d", i)
			res, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": city}})
			if err != nil {
				errs <- err
				return
			}
			if got, want := res.Content[0].(*sdkmcp.TextContent).Text, city+": 晴, ☀"; got != want {
				errs <- fmt.Errorf("got %q, want %q", got, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ids := map[string]bool{}
	for _, c := range f.seen() {
		ids[c.ID] = true
	}
	if len(ids) != n {
		t.Errorf("%d distinct call ids for %d calls", len(ids), n)
	}
}
