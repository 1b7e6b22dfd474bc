package main

import (
	"strings"
	"testing"
)

func TestCalculate(t *testing.T) {
	tests := []struct {
		expr, want, wantErr string
	}{
		{expr: "123.45 * 678", want: "83699.1"},
		{expr: "12.5 * 4 + 2", want: "52"},
		{expr: "0.1 + 0.2", want: "0.3"},
		{expr: "(1 + 2) * 3", want: "9"},
		{expr: "10 % 3", want: "1"},
		{expr: "2 ** 10", want: "1024"},
		{expr: "2 ** (3 ** 2)", want: "512"},
		{expr: "(2 ** 3) ** 2", want: "64"},
		{expr: "(-2) ** 2", want: "4"},
		{expr: "-(2 ** 2)", want: "-4"},
		{expr: "3 - 2 ** 2", want: "-1"},
		{expr: "sqrt(16) + abs(-3)", want: "7"},
		{expr: "pow(2, 0.5) * pow(2, 0.5)", want: "2"},
		{expr: "1 / 3", want: "0.333333333333"},
		{expr: "-5 + 2", want: "-3"},
		{expr: "2 ^ 3", wantErr: "XOR"},
		{expr: "2 ** 3 ** 2", wantErr: "ambiguous power chain"},
		{expr: "-2 ** 2", wantErr: "ambiguous negative base"},
		{expr: "-(2)**2", wantErr: "ambiguous negative base"},
		{expr: "-(1+1)**2", wantErr: "ambiguous negative base"},
		{expr: "-sqrt(4)**2", wantErr: "ambiguous negative base"},
		{expr: "-abs(-3)**2", wantErr: "ambiguous negative base"},
		{expr: "2 * -(3) ** 2", wantErr: "ambiguous negative base"},
		{expr: "sqrt(4) ** 2", want: "4"},
		{expr: "2 ** -1", want: "0.5"},
		{expr: "3 - (2) ** 2", want: "-1"},
		{expr: "1 / 0", wantErr: "no finite value"},
		{expr: "sqrt(-1)", wantErr: "no finite value"},
		{expr: "x + 1", wantErr: `unknown name "x"`},
		{expr: "1 > 2", wantErr: "unsupported character"},
		{expr: "'a' + 'b'", wantErr: "unsupported character"},
		{expr: "(1 + 2", wantErr: "cannot parse"},
		{expr: "exec(1)", wantErr: "cannot parse"},
		{expr: "", wantErr: "empty expression"},
		{expr: strings.Repeat("1+", 200) + "1", wantErr: "limit"},
		{expr: "1 +* 2", wantErr: "cannot parse"},
	}
	for _, tc := range tests {
		got, err := Calculate(tc.expr)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Calculate(%q) = %q, %v; want error containing %q", tc.expr, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Calculate(%q) = %q, %v; want %q", tc.expr, got, err, tc.want)
		}
	}
}

func FuzzCalculate(f *testing.F) {
	for _, s := range []string{"123.45 * 678", "2 ** 3", "((1))", "sqrt(2)", "1/0", "-(-(-1))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Calculate(s) // must never panic
		if err == nil && (got == "" || strings.Contains(got, "Inf") || strings.Contains(got, "NaN")) {
			t.Errorf("Calculate(%q) = %q", s, got)
		}
	})
}
