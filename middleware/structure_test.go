package middleware_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolcall/toolcall/middleware"
	"github.com/toolcall/toolcall/tool"
)

func TestStructure(t *testing.T) {
	nums := make([]string, 250)
	for i := range nums {
		nums[i] = fmt.Sprint(i + 1)
	}
	objs := make([]string, 12)
	for i := range objs {
		objs[i] = fmt.Sprintf(`{"id":%d}`, i)
	}
	nested := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name string
		in   string
		want string // "" means unchanged
	}{
		{"flat object", `{"city":"北京","temp":21.5,"rain":false,"alert":null}`, "city: 北京\ntemp: 21.5\nrain: false\nalert: null"},
		{"nested keys dotted, order kept", `{"z":{"b":{"c":1},"a":2},"y":3}`, "z.b.c: 1\nz.a: 2\ny: 3"},
		{"array of scalars joined", `{"tags":["a","b, c",""],"hours":[20,21]}`, "tags: a, \"b, c\", \"\"\nhours: 20, 21"},
		{"long array summarized", `{"items":[` + strings.Join(nums, ",") + `]}`, "items: 250 items; first 3: 1, 2, 3"},
		{"array of objects indexed", `{"rows":[{"n":"a"},{"n":"b"}]}`, "rows[0].n: a\nrows[1].n: b"},
		{"long array of objects", `{"rows":[` + strings.Join(objs, ",") + `]}`, "rows: 12 items; first 3:\nrows[0].id: 0\nrows[1].id: 1\nrows[2].id: 2"},
		{"empty containers", `{"a":[],"b":{}}`, "a: []\nb: {}"},
		{"top-level array of objects", ` [{"a":1},{"a":2}] `, "[0].a: 1\n[1].a: 2"},
		{"top-level array of scalars", `[1,2,3]`, "1, 2, 3"},
		{"multi-line string quoted", `{"text":"line1\nline2"}`, `text: "line1\nline2"`},
		{"big number text kept", `{"id":12345678901234567890}`, "id: 12345678901234567890"},
		{"not JSON", `晴，26℃`, ""},
		{"JSON scalar", `"just a string"`, ""},
		{"broken JSON", `{"a":1`, ""},
		{"trailing data", `{"a":1} {"b":2}`, ""},
		{"32 levels", nested(32), strings.Repeat("a.", 31) + "a: 1"},
		{"33 levels", nested(33), ""},
		{"100,000 levels, under the size bound", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), ""},
		{"10 MB of [", strings.Repeat("[", 10<<20), ""},
		{"over 1 MiB", `{"a":"` + strings.Repeat("x", 1<<20) + `"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(middleware.Structure(), fixed(tool.Text(tt.in), nil), tool.Call{})
			want, wantOrig := tt.want, tt.in
			if want == "" {
				want, wantOrig = tt.in, ""
			}
			if got.Content != want {
				t.Errorf("content\n got %q\nwant %q", clip(got.Content), clip(want))
			}
			if got.Original != wantOrig {
				t.Errorf("original %q, want %q", clip(got.Original), clip(wantOrig))
			}
		})
	}
}

func TestStructureLeavesFailuresAlone(t *testing.T) {
	in := tool.Result{Kind: tool.KindToolError, Content: `{"error":"x"}`, Err: errBackend}
	got := run(middleware.Structure(), fixed(in, nil), tool.Call{})
	if got.Content != in.Content || got.Original != "" {
		t.Errorf("failure rewritten: %q", got.Content)
	}
}

func ExampleStructure() {
	weather := tool.New("get_weather", "查询城市天气。", func(ctx context.Context, in struct {
		City string `json:"city"`
	}) (any, error) {
		return map[string]any{
			"city":   in.City,
			"now":    map[string]any{"temp": 26, "sky": "晴"},
			"hourly": []int{26, 27, 27, 25},
		}, nil
	})
	h := middleware.Structure()(weather.Handle)
	res := h(context.Background(), tool.Call{ID: "call_1", Name: "get_weather", Arguments: `{"city":"北京"}`, Tool: weather})
	fmt.Println(res.Content)
	fmt.Println("original:", res.Original)
	// Output:
	// city: 北京
	// hourly: 26, 27, 27, 25
	// now.sky: 晴
	// now.temp: 26
	// original: {"city":"北京","hourly":[26,27,27,25],"now":{"sky":"晴","temp":26}}
}
