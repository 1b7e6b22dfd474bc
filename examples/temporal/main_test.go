package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/temporal"
)

// TestAgentWaitsForApproval runs the example's workflow in Temporal's in-process test
// environment: it waits for the approval of send_message, and answers once approved.
func TestAgentWaitsForApproval(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	newAgent().Register(env)
	var pending []agentkit.PendingCall
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(temporal.QueryPending)
		if err == nil {
			err = v.Get(&pending)
		}
		if err != nil {
			t.Error(err)
		}
		env.UpdateWorkflow(temporal.UpdateDecide, "u", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Error(err) }, OnAccept: func() {}, OnComplete: func(any, error) {},
		}, []agentkit.Decision{{CallID: "call_2", Approve: true}})
	}, time.Hour) // test time: skipped, not waited
	env.ExecuteWorkflow(temporal.WorkflowName, temporal.NewInput("北京天气怎么样？发给 bob"))
	var res temporal.Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].Name != "send_message" || string(pending[0].Arguments) != `{"to":"bob","text":"北京：晴，25°C"}` {
		t.Errorf("pending = %+v", pending)
	}
	if got, want := res.Output, "北京今天晴，25°C。消息：已发送给 bob"; got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage"},
		{[]string{"bogus"}, "unknown command"},
		{[]string{"decide", "-id", "x"}, "one of -approve and -reject"},
		{[]string{"start", "-nope"}, "flag provided but not defined"},
	} {
		var stderr strings.Builder
		if got := run(context.Background(), tc.args, io.Discard, &stderr); got != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run(%q) = %d, stderr %q; want 2 and %q", tc.args, got, stderr.String(), tc.want)
		}
	}
}
