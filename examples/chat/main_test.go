package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestChatRemembersAndFolds(t *testing.T) {
	db := filepath.Join(t.TempDir(), "chat.db")
	noenv := func(string) string { return "" }
	var in strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&in, "这是第 %d 句话，内容比较长，用来让对话变长，从而触发折叠。\n", i)
	}
	in.WriteString("北京天气怎么样？\n")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-db", db, "-trigger", "300"}, noenv, strings.NewReader(in.String()), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "查到了：晴，气温26℃") {
		t.Errorf("no weather answer:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "[memory] folded") {
		t.Errorf("the conversation never folded:\n%s", stderr.String())
	}

	// A second run on the same file: the session is still there, whole.
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-db", db}, noenv, strings.NewReader("/history\n"), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"这是第 0 句话", "这是第 11 句话", "get_weather", "查到了"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stored history lacks %q", want)
		}
	}
}
