package trace

import (
	"slices"
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

// timeline collects the bars of a page. An untimed one (a stored session) ignores Start and
// Dur and lays the bars out in order (slotted): it shows the order of calls, not their time.
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
	// Note says why a timed page's timeline is not (zeroNote), "" otherwise.
	Note string
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

// zeroNote says why a timed page's timeline shows order only.
const zeroNote = "Every duration is zero: the timeline shows the order of the calls, not their time."

func (t *timeline) svg() svg {
	bars, untimed, note := t.bars, t.untimed, ""
	if !untimed && extent(bars) == 0 && len(bars) > 0 { // bars all drawn at 0 would hide each other
		untimed, note = true, zeroNote
	}
	if untimed {
		bars = slotted(bars)
	}
	end := extent(bars)
	lanes := 1
	for _, b := range bars {
		lanes = max(lanes, b.Lane+1)
	}
	scale := func(d time.Duration) float64 {
		if end == 0 {
			return 0
		}
		return float64(d) / float64(end) * plotWidth
	}
	out := svg{Width: labelWidth + plotWidth + 40, Height: lanes*rowHeight + axisHeight, Untimed: untimed, Note: note}
	for _, b := range bars {
		x, w := labelWidth+scale(b.Start), max(scale(b.Dur), minBar)
		y := b.Lane*rowHeight + (rowHeight-barHeight)/2
		fits := w >= float64(7*utf8.RuneCountInString(b.Label)+8)
		out.Bars = append(out.Bars, drawn{bar: b, X: num(x), Y: strconv.Itoa(y), W: num(w), TX: num(x + 4), Title: title(b, untimed), Inside: fits})
	}
	for i := range lanes {
		name := "model"
		if i > 0 {
			name = "call " + strconv.Itoa(i)
		}
		out.Lanes = append(out.Lanes, lane{Y: strconv.Itoa(i*rowHeight + rowHeight/2 + 4), Name: name})
	}
	for i := range 5 {
		if end == 0 { // nothing drawn: no axis
			break
		}
		d := end * time.Duration(i) / 4
		label := formatDuration(d)
		if untimed {
			label = ""
		}
		out.Ticks = append(out.Ticks, tick{X: num(labelWidth + scale(d)), Label: label})
	}
	return out
}

// extent is the time the bars span, from 0.
func extent(bars []bar) time.Duration {
	var end time.Duration
	for _, b := range bars {
		end = max(end, b.Start+b.Dur)
	}
	return end
}

// slotted lays bars out in order, one slot each: a model call, then its calls side by side
// in the next slot.
func slotted(bars []bar) []bar {
	out := slices.Clone(bars)
	var slot time.Duration
	for i := range out {
		if out[i].Lane == 0 && i > 0 {
			slot += 2
		}
		out[i].Start, out[i].Dur = slot, 1
		if out[i].Lane > 0 {
			out[i].Start = slot + 1
		}
	}
	return out
}

func title(b bar, untimed bool) string {
	if untimed {
		return b.Label
	}
	return b.Label + ": " + formatDuration(b.Dur) + " from " + formatDuration(b.Start)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
