// Package agentkittest provides a scripted model for testing agents offline, the way
// net/http/httptest serves HTTP tests.
//
// A [Model] plays a queue of replies — text, tool calls, errors, or replies computed from the
// request — records every request it receives, and reports a test failure when a request
// breaks the wire rules (agentkit.ValidateHistory) or when the script runs out:
//
//	m := agentkittest.New(t,
//		agentkittest.ToolCalls(agentkittest.Call("get_weather", `{"city":"北京"}`)),
//		agentkittest.Text("北京晴，26℃。"),
//	)
//	agent := agentkit.New(m, &agentkit.Options{Tools: tools})
//	res, err := agent.Run(ctx, "北京天气怎么样？")
//	// assert on res, err, m.Requests()
package agentkittest
