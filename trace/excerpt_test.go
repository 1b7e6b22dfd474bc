package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExcerpt(t *testing.T) {
	w := newWriter(&strings.Builder{}, &Options{Excerpt: 3}, false)
	for _, tc := range []struct {
		in   string
		want excerpt
	}{
		{"", excerpt{}},
		{"abc", excerpt{Head: "abc", Runes: 3}},
		{"北京天", excerpt{Head: "北京天", Runes: 3}},
		{"北京天气", excerpt{Head: "北京天…", Full: "北京天气", Cut: true, Runes: 4}},
		{"ab北京", excerpt{Head: "ab北…", Full: "ab北京", Cut: true, Runes: 4}},
	} {
		if diff := cmp.Diff(tc.want, w.cut(tc.in)); diff != "" {
			t.Errorf("cut(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
