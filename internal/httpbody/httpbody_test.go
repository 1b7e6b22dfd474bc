package httpbody

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLimit(t *testing.T) {
	tooLarge := errors.New("too large")
	tests := []struct {
		body    string
		max     int64
		want    string
		wantErr error
	}{
		{"hello", 10, "hello", nil},
		{"hello", 5, "hello", nil}, // exactly the bound
		{"hello!", 5, "hello", tooLarge},
		{"", 0, "", nil},
		{"x", 0, "", tooLarge},
	}
	for _, tt := range tests {
		got, err := io.ReadAll(Limit(io.NopCloser(strings.NewReader(tt.body)), tt.max, tooLarge))
		if string(got) != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("Limit(%q, %d): %q, %v; want %q, %v", tt.body, tt.max, got, err, tt.want, tt.wantErr)
		}
	}
}
