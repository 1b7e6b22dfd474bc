package trace

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// bar is one call on the timeline: a model call in lane 0, a tool call in the lane of its
// place among its turn's calls, so that the calls of a turn stand side by side.
type bar struct {
	Lane       int
	Start, Dur time.Duration
	Label      string
	Class      string
	Href       string
}

// timeline collects the bars of a page. An untimed one (a stored session) counts Start and
// Dur in slots: it shows the order of calls, not their time.
type timeline struct {
	bars    []bar
	untimed bool
}

func (t *timeline) add(b bar) { t.bars = append(t.bars, b) }

// svg is the timeline drawn: attributes only, no inline style, so that the page's
// Content-Security-Policy holds.
type svg struct {
	Width, Height int
	Bars          []drawn
	Lanes         []lane
	Ticks         []tick
	Untimed       bool
}

type drawn struct {
	bar
	X, Y, W, TX string
	Title       string
	// Inside says the label fits inside the bar; otherwise only the bar's title names it.
	Inside bool
}

type lane struct {
	Y    string
	Name string
}

type tick struct {
	X, Label string
}

// Geometry of the drawing, in SVG user units.
const (
	labelWidth = 70
	plotWidth  = 900
	rowHeight  = 22
	barHeight  = 16
	axisHeight = 20
	minBar     = 2
)

func (t *timeline) svg() svg {
	var end time.Duration
	lanes := 1
	for _, b := range t.bars {
		end = max(end, b.Start+b.Dur)
		lanes = max(lanes, b.Lane+1)
	}
	scale := func(d time.Duration) float64 {
		if end == 0 {
			return 0
		}
		return float64(d) / float64(end) * plotWidth
	}
	out := svg{Width: labelWidth + plotWidth + 40, Height: lanes*rowHeight + axisHeight, Untimed: t.untimed}
	for _, b := range t.bars {
		x, w := labelWidth+scale(b.Start), max(scale(b.Dur), minBar)
		y := b.Lane*rowHeight + (rowHeight-barHeight)/2
		fits := w >= float64(7*utf8.RuneCountInString(b.Label)+8)
		out.Bars = append(out.Bars, drawn{bar: b, X: num(x), Y: strconv.Itoa(y), W: num(w), TX: num(x + 4), Title: t.title(b), Inside: fits})
	}
	for i := range lanes {
		name := "model"
		if i > 0 {
			name = "call " + strconv.Itoa(i)
		}
		out.Lanes = append(out.Lanes, lane{Y: strconv.Itoa(i*rowHeight + rowHeight/2 + 4), Name: name})
	}
	for i := range 5 {
		d := end * time.Duration(i) / 4
		label := formatDuration(d)
		if t.untimed {
			label = ""
		}
		out.Ticks = append(out.Ticks, tick{X: num(labelWidth + scale(d)), Label: label})
	}
	return out
}

func (t *timeline) title(b bar) string {
	if t.untimed {
		return b.Label
	}
	return b.Label + ": " + formatDuration(b.Dur) + " from " + formatDuration(b.Start)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
