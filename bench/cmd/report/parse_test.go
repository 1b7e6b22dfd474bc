package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	out := `goos: linux
cpu: AMD EPYC
BenchmarkRatio/Round/toolcall-2         	   17530	     18728 ns/op	      4608 B/run	        34.00 allocs/run	         2.372 x-handwritten
BenchmarkRatio/Round/toolcall-2         	   17000	     18000 ns/op	      4608 B/run	        34.00 allocs/run	         2.000 x-handwritten
BenchmarkRatio/Round/toolcall-2         	   17000	     18000 ns/op	      4608 B/run	        34.00 allocs/run	         3.000 x-handwritten
BenchmarkSleep/fantasy-stream/calls=8-2 	       3	 101000000 ns/op
some log line
PASS
`
	r := parse(out)
	if r.cpu != "AMD EPYC" {
		t.Errorf("cpu: got %q, want %q", r.cpu, "AMD EPYC")
	}
	got := r.values("BenchmarkRatio/Round/toolcall", "x-handwritten")
	if diff := cmp.Diff([]float64{2, 2.372, 3}, got); diff != "" {
		t.Errorf("x-handwritten (-want +got):\n%s", diff)
	}
	if m, ok := r.median("BenchmarkRatio/Round/toolcall", "x-handwritten"); !ok || m != 2.372 {
		t.Errorf("median: got %v, %v; want 2.372", m, ok)
	}
	if m, ok := r.median("BenchmarkSleep/fantasy-stream/calls=8", "ns/op"); !ok || m != 101e6 {
		t.Errorf("sleep: got %v, %v; want 1.01e8", m, ok)
	}
	if _, ok := r.median("BenchmarkRatio/Chain/toolcall", "ns/op"); ok {
		t.Error("a benchmark that did not run has a median")
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{duration(7329), "7.33 µs"},
		{duration(16270), "16.3 µs"},
		{duration(633310405), "633 ms"},
		{duration(1950157837), "1.95 s"},
		{size(3652), "3.6 KiB"},
		{size(165611176), "158 MiB"},
		{size(900), "900 B"},
		{count(31.15), "31"},
		{count(716233), "716,233"},
		{ratio(2.372), "2.37"},
		{ratio(22.79), "22.8"},
		{ratio(411.9), "412"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
