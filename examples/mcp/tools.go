package main

import (
	"context"
	"fmt"
	"time"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/tool"
)

// Forecast is get_weather's output: typed, so the MCP server lists its output schema and
// sends it as structured content beside the text.
type Forecast struct {
	City    string `json:"city"`
	Date    string `json:"date"`
	Sky     string `json:"sky"`
	HighC   int    `json:"high_c"`
	LowC    int    `json:"low_c"`
	Outdoor bool   `json:"outdoor" jsonschema_description:"whether it is pleasant to sit outside"`
}

// Booking is book_table's output.
type Booking struct {
	ID      string `json:"id"`
	People  int    `json:"people"`
	Time    string `json:"time"`
	Outdoor bool   `json:"outdoor"`
}

// restaurantTools are the tools the MCP server serves. Their annotations travel to the
// client: get_weather is read-only, book_table adds without destroying, cancel_booking
// destroys.
func restaurantTools() []*tool.Tool {
	weather := tool.New("get_weather", "查询城市某天的天气预报。用户问天气、或要决定能否户外用餐时使用。",
		func(ctx context.Context, in struct {
			City string `json:"city" jsonschema:"description=城市中文名，例如：北京"`
			Date string `json:"date" jsonschema:"enum=今天,enum=明天"`
		}) (Forecast, error) {
			return Forecast{City: in.City, Date: in.Date, Sky: "晴", HighC: 24, LowC: 15, Outdoor: true}, nil
		},
		tool.Options{Annotations: tool.Annotations{Title: "Weather", ReadOnly: true}})

	book := tool.New("book_table", "预订餐桌。people 是人数，time 是用餐时间。",
		func(ctx context.Context, in struct {
			People  int    `json:"people" jsonschema:"minimum=1,maximum=20"`
			Time    string `json:"time" jsonschema:"description=用餐时间，例如：明天 19:00"`
			Outdoor bool   `json:"outdoor,omitempty"`
		}) (Booking, error) {
			// Work that takes a while reports how far it has come. (A notification sent in the
			// very instant before the answer may reach the client after it, and the client
			// then drops it: progress is advisory.)
			for i, step := range []string{"查询空位", "确认预订"} {
				agentkit.ReportProgress(ctx, agentkit.Progress{Done: float64(i + 1), Total: 2, Message: step})
				if err := work(ctx, 100*time.Millisecond); err != nil {
					return Booking{}, err
				}
			}
			return Booking{ID: "B-2048", People: in.People, Time: in.Time, Outdoor: in.Outdoor}, nil
		},
		tool.Options{Annotations: tool.Annotations{Title: "Book a table", Destructive: new(false)}})

	cancel := tool.New("cancel_booking", "取消一个预订。id 形如 B-1024。",
		func(ctx context.Context, in struct {
			ID string `json:"id" jsonschema:"pattern=^B-[0-9]+$"`
		}) (string, error) {
			return fmt.Sprintf("预订 %s 已取消", in.ID), nil
		},
		tool.Options{Annotations: tool.Annotations{Title: "Cancel a booking", Destructive: new(true), Idempotent: true}})

	return []*tool.Tool{weather, book, cancel}
}

// work stands for the time a real step takes, returning early when ctx is done.
func work(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
