package tool_test

import (
	"context"
	"testing"

	"github.com/toolcall/toolcall/tool"
)

type twoFields struct {
	City string `json:"city" jsonschema:"description=城市中文名"`
	Days int    `json:"days" jsonschema:"minimum=1,maximum=7"`
}

func benchHandle(b *testing.B, args string) {
	t := tool.New("forecast", "天气预报", func(ctx context.Context, in twoFields) (string, error) {
		return in.City, nil
	})
	call := tool.Call{ID: "call_1", Name: "forecast", Arguments: args}
	ctx, cancel := context.WithCancel(context.Background()) // as a server's request context
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if r := t.Handle(ctx, call); r.Failed() {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkHandle is a full call — decode, validate, run, encode — of a two-field tool.
func BenchmarkHandle(b *testing.B) {
	b.Run("valid", func(b *testing.B) { benchHandle(b, `{"city":"北京","days":3}`) })
	b.Run("repaired", func(b *testing.B) { benchHandle(b, "```json\n{'city': '北京', 'days': 3,}\n```") })
}
