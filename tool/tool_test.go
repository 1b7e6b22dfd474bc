package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolcall/toolcall/tool"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州"`
	Unit string `json:"unit,omitempty" jsonschema:"enum=c,enum=f"`
}

func weather(ctx context.Context, in weatherIn) (string, error) {
	if in.City == "北京" {
		return "晴，气温26℃，东南风2级", nil
	}
	return in.City + "暂无数据", nil
}

func TestNewRefusesBadNameAndDescription(t *testing.T) {
	fn := func(ctx context.Context, in struct{}) (string, error) { return "", nil }
	tests := []struct {
		name, desc, wantErr string
	}{
		{"", "d", "name must match"},
		{"get weather", "d", "name must match"},
		{strings.Repeat("a", 65), "d", "name must match"},
		{"天气", "d", "name must match"},
		{"ok_name-1", "", "empty description"},
		{"ok_name-1", "  \n", "empty description"},
	}
	for _, tc := range tests {
		err := newNamedErr(tc.name, tc.desc, fn)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("New(%q, %q) panic = %v, want it to contain %q", tc.name, tc.desc, err, tc.wantErr)
		}
		_, err = tool.Raw(tc.name, tc.desc, json.RawMessage(`{"type":"object"}`), func(context.Context, json.RawMessage) (string, error) { return "", nil })
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("Raw(%q, %q) error = %v, want it to contain %q", tc.name, tc.desc, err, tc.wantErr)
		}
	}
	if err := newNamedErr(strings.Repeat("a", 64), "d", fn); err != nil {
		t.Errorf("64-character name refused: %v", err)
	}
}

// newNamedErr runs tool.New and returns its panic as an error (nil when it did not panic).
func newNamedErr(name, desc string, fn tool.Func[struct{}, string]) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	tool.New(name, desc, fn)
	return nil
}

func TestNewPanicsNamingTool(t *testing.T) {
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(p.(error).Error(), `"bad"`) {
			t.Errorf("panic = %v, want an error naming the tool", p)
		}
	}()
	tool.New("bad", "d", func(ctx context.Context, in struct{ C chan int }) (string, error) { return "", nil })
}

func TestHandleOutcomes(t *testing.T) {
	type out struct {
		Text string `json:"text"`
		Tag  string `json:"tag"`
	}
	tests := []struct {
		name        string
		fn          tool.Func[weatherIn, any]
		args        string
		ctx         func() (context.Context, context.CancelFunc)
		wantKind    tool.Kind
		wantContent string // substring
		wantRepair  bool
	}{
		{name: "string verbatim", fn: func(ctx context.Context, in weatherIn) (any, error) { return "晴 <26℃> & 风", nil },
			args: `{"city":"北京"}`, wantContent: "晴 <26℃> & 风"},
		{name: "struct as compact JSON, no escaping", fn: func(ctx context.Context, in weatherIn) (any, error) { return out{"北京<晴>", "a&b"}, nil },
			args: `{"city":"北京"}`, wantContent: `{"text":"北京<晴>","tag":"a&b"}`},
		{name: "empty output gets placeholder", fn: func(ctx context.Context, in weatherIn) (any, error) { return "", nil },
			args: `{"city":"北京"}`, wantContent: tool.EmptyContent},
		{name: "error becomes result", fn: func(ctx context.Context, in weatherIn) (any, error) { return nil, errors.New("api down") },
			args: `{"city":"北京"}`, wantKind: tool.KindToolError, wantContent: "get_weather failed: api down"},
		{name: "panic recovered", fn: func(ctx context.Context, in weatherIn) (any, error) { panic("nil map") },
			args: `{"city":"北京"}`, wantKind: tool.KindPanic, wantContent: "get_weather crashed (nil map)"},
		{name: "invalid arguments", fn: func(ctx context.Context, in weatherIn) (any, error) { return "ran", nil },
			args: `{"city":42}`, wantKind: tool.KindInvalidArguments, wantContent: "/city"},
		{name: "unrepairable JSON", fn: func(ctx context.Context, in weatherIn) (any, error) { return "ran", nil },
			args: `the city is Beijing`, wantKind: tool.KindInvalidJSON, wantContent: "not valid JSON"},
		{name: "repaired fence", fn: func(ctx context.Context, in weatherIn) (any, error) { return in.City, nil },
			args: "```json\n{\"city\": \"北京\",}\n```", wantContent: "北京", wantRepair: true},
		{name: "deadline is a timeout", fn: func(ctx context.Context, in weatherIn) (any, error) { <-ctx.Done(); return nil, ctx.Err() },
			args: `{"city":"北京"}`, ctx: func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(context.Background(), time.Millisecond)
			},
			wantKind: tool.KindTimeout, wantContent: "timed out"},
		{name: "the tool's own deadline is a timeout", fn: func(ctx context.Context, in weatherIn) (any, error) {
			own, cancel := context.WithTimeout(ctx, time.Millisecond)
			defer cancel()
			<-own.Done()
			return nil, fmt.Errorf("the server did not answer: %w", own.Err())
		},
			args: `{"city":"北京"}`, wantKind: tool.KindTimeout, wantContent: "get_weather timed out: the server did not answer"},
		{name: "fatal kept", fn: func(ctx context.Context, in weatherIn) (any, error) { return nil, tool.Fatalf("quota exhausted") },
			args: `{"city":"北京"}`, wantKind: tool.KindToolError, wantContent: "quota exhausted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if tc.ctx != nil {
				ctx, cancel = tc.ctx()
			}
			defer cancel()
			tl := tool.New("get_weather", "查询天气", tc.fn)
			res := tl.Handle(ctx, tool.Call{ID: "c1", Name: "get_weather", Arguments: tc.args})
			if res.Kind != tc.wantKind {
				t.Errorf("Kind = %q, want %q (content %q)", res.Kind, tc.wantKind, res.Content)
			}
			if !strings.Contains(res.Content, tc.wantContent) {
				t.Errorf("Content = %q, want it to contain %q", res.Content, tc.wantContent)
			}
			if (res.Repair != "") != tc.wantRepair {
				t.Errorf("Repair = %q, want repair %v", res.Repair, tc.wantRepair)
			}
			if res.Failed() != (tc.wantKind != "") || (res.Err == nil) != (tc.wantKind == "") {
				t.Errorf("Failed() = %v, Err = %v", res.Failed(), res.Err)
			}
		})
	}
}

func TestHandleKeepsTypedValueAndCall(t *testing.T) {
	type point struct{ X, Y int }
	var seen tool.Call
	tl := tool.New("p", "point", func(ctx context.Context, in struct{}) (point, error) {
		seen, _ = tool.CallFromContext(ctx)
		return point{1, 2}, nil
	})
	res := tl.Handle(context.Background(), tool.Call{ID: "id7", Name: "p", Arguments: ""})
	if got, ok := res.Value.(point); !ok || got != (point{1, 2}) {
		t.Errorf("Value = %#v, want point{1,2}", res.Value)
	}
	if res.Content != `{"X":1,"Y":2}` {
		t.Errorf("Content = %q", res.Content)
	}
	if seen.ID != "id7" {
		t.Errorf("CallFromContext id = %q, want id7", seen.ID)
	}
}

func TestPointerInput(t *testing.T) {
	tl := tool.New("w", "weather", func(ctx context.Context, in *weatherIn) (string, error) { return in.City, nil })
	if res := tl.Handle(context.Background(), tool.Call{Arguments: `{"city":"上海"}`}); res.Content != "上海" {
		t.Errorf("Content = %q (%v)", res.Content, res.Err)
	}
}

func TestRawTool(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)
	tl, err := tool.Raw("search", "searches", schema, func(ctx context.Context, args json.RawMessage) (string, error) {
		return "got " + string(args), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res := tl.Handle(context.Background(), tool.Call{Arguments: `{'q': 'go'}`}); res.Content != `got {"q":"go"}` {
		t.Errorf("Content = %q, want the canonical arguments", res.Content)
	}
	if res := tl.Handle(context.Background(), tool.Call{Arguments: `{}`}); res.Kind != tool.KindInvalidArguments {
		t.Errorf("missing q: Kind = %q", res.Kind)
	}
	if _, err := tool.Raw("x", "d", json.RawMessage(`{"type":"string"}`), func(ctx context.Context, a json.RawMessage) (string, error) { return "", nil }); err == nil {
		t.Errorf("a non-object root schema was accepted")
	}
}

// mcpLike is an output with more than text: the model reads its ToolContent, the
// application gets it whole.
type mcpLike struct {
	Text   string
	Images int
}

func (m mcpLike) ToolContent() string {
	return fmt.Sprintf("%s [%d images]", m.Text, m.Images)
}

// TestOutputValueAndContent: whatever a tool returns is kept whole in Result.Value, and the
// model reads what Encode makes of it — a Contenter's own text first — for typed and raw
// tools alike.
func TestOutputValueAndContent(t *testing.T) {
	schema := json.RawMessage(`{"type":"object"}`)
	rawStruct, err := tool.Raw("r1", "raw, struct out", schema, func(context.Context, json.RawMessage) (weatherIn, error) {
		return weatherIn{City: "北京"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rawContenter, err := tool.Raw("r2", "raw, contenter out", schema, func(context.Context, json.RawMessage) (mcpLike, error) {
		return mcpLike{Text: "a chart", Images: 2}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rawFailing, err := tool.Raw("r3", "raw, failing", schema, func(context.Context, json.RawMessage) (mcpLike, error) {
		return mcpLike{Text: "ignored"}, errors.New("server said no")
	})
	if err != nil {
		t.Fatal(err)
	}
	typed := tool.New("t1", "typed, contenter out", func(context.Context, struct{}) (mcpLike, error) {
		return mcpLike{Text: "typed", Images: 1}, nil
	})
	tests := []struct {
		tool        *tool.Tool
		wantContent string
		wantValue   any
		wantKind    tool.Kind
	}{
		{rawStruct, `{"city":"北京"}`, weatherIn{City: "北京"}, ""},
		{rawContenter, "a chart [2 images]", mcpLike{Text: "a chart", Images: 2}, ""},
		{rawFailing, "", nil, tool.KindToolError},
		{typed, "typed [1 images]", mcpLike{Text: "typed", Images: 1}, ""},
	}
	for _, tc := range tests {
		res := tc.tool.Handle(context.Background(), tool.Call{Name: tc.tool.Name(), Arguments: `{}`})
		if res.Kind != tc.wantKind {
			t.Errorf("%s: Kind = %q, want %q (%q)", tc.tool.Name(), res.Kind, tc.wantKind, res.Content)
			continue
		}
		if tc.wantKind != "" {
			if res.Value != nil {
				t.Errorf("%s: a failed call kept Value %#v", tc.tool.Name(), res.Value)
			}
			continue
		}
		if res.Content != tc.wantContent {
			t.Errorf("%s: Content = %q, want %q", tc.tool.Name(), res.Content, tc.wantContent)
		}
		if res.Value != tc.wantValue {
			t.Errorf("%s: Value = %#v, want %#v", tc.tool.Name(), res.Value, tc.wantValue)
		}
	}
}

func TestSchemaOverride(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","enum":["北京","上海"]}},"required":["city"]}`)
	tl := tool.New("w", "weather", weather, tool.Options{Schema: schema})
	if res := tl.Handle(context.Background(), tool.Call{Arguments: `{"city":"广州"}`}); res.Kind != tool.KindInvalidArguments {
		t.Errorf("override not applied: %q", res.Content)
	}
	var got map[string]any
	if err := json.Unmarshal(tl.Parameters(), &got); err != nil || got["properties"].(map[string]any)["city"].(map[string]any)["enum"] == nil {
		t.Errorf("Parameters = %s", tl.Parameters())
	}
}

func TestFatal(t *testing.T) {
	base := errors.New("x")
	err := tool.Fatal(base)
	if !tool.IsFatal(err) || !errors.Is(err, base) || err.Error() != "x" {
		t.Errorf("Fatal(x) = %v, IsFatal %v", err, tool.IsFatal(err))
	}
	if tool.IsFatal(base) || tool.Fatal(nil) != nil {
		t.Errorf("plain error reported fatal, or Fatal(nil) != nil")
	}
}

func TestChainOrder(t *testing.T) {
	var trace []string
	mw := func(name string) tool.Middleware {
		return func(next tool.Handler) tool.Handler {
			return func(ctx context.Context, c tool.Call) tool.Result {
				trace = append(trace, name+">")
				r := next(ctx, c)
				trace = append(trace, "<"+name)
				return r
			}
		}
	}
	h := tool.Chain(mw("a"), nil, mw("b"))(func(ctx context.Context, c tool.Call) tool.Result {
		trace = append(trace, "tool")
		return tool.Text("ok")
	})
	h(context.Background(), tool.Call{})
	if got, want := strings.Join(trace, " "), "a> b> tool <b <a"; got != want {
		t.Errorf("order = %q, want %q", got, want)
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"plain", "plain"},
		{json.RawMessage(`{"a":1}`), `{"a":1}`},
		{[]byte("bytes"), "bytes"},
		{nil, ""},
		{map[string]any{"城市": "北京", "b": "<&>"}, `{"b":"<&>","城市":"北京"}`},
		{[]int{1, 2}, "[1,2]"},
		{3.5, "3.5"},
		{mcpLike{Text: "x", Images: 3}, "x [3 images]"},
		{&mcpLike{Text: "p"}, "p [0 images]"},
	}
	for _, tc := range tests {
		got, err := tool.Encode(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Encode(%#v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := tool.Encode(make(chan int)); err == nil {
		t.Errorf("Encode(chan) succeeded")
	}
}

// TestRawSchemaBounds: a schema is outside input too (an MCP server's tools): its size and
// its nesting are bounded before anything walks it.
func TestRawSchemaBounds(t *testing.T) {
	fn := func(context.Context, json.RawMessage) (string, error) { return "", nil }
	deep := `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"array","items":`, 300) + `{}` + strings.Repeat("}", 300) + `}}`
	tests := []struct{ name, schema, want string }{
		{"10 MB of [", strings.Repeat("[", 10<<20), "the schema is 10485760 bytes, over the 1048576-byte limit"},
		{"300 levels", deep, "nests deeper than 256 levels"},
	}
	for _, tt := range tests {
		_, err := tool.Raw("deep", "a deep schema", json.RawMessage(tt.schema), fn)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Raw(%s) error = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}
