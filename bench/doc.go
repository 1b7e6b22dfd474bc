// Package bench drives toolcall, a hand-written seed-style loop on go-openai (the floor,
// package internal/script/handwritten), and the peer frameworks with the same scripted model
// (package internal/script), each implemented the way its own documentation teaches: its
// agent or runner and its tool declaration API. Every framework runs two ways: in process,
// through an adapter from the script to its model interface, and through HTTP, with its own
// OpenAI client pointed at script.Handler on loopback, so that encoding each request and
// decoding each response are part of the cost.
//
// It is a module of its own so that the SDK never depends on its peers. google.golang.org/adk/v2
// is in the nested module ./adk: it cannot be built together with toolcall (their
// OpenTelemetry requirements conflict). The benchmarks are in bench_test.go (BenchmarkRatio
// and BenchmarkRatioHTTP are the ones BENCHMARKS.md reports: go run ./cmd/report regenerates
// it), the behaviour table (emission order, unknown tool, malformed arguments) in
// behaviour_test.go. The prompt-cache workload (cache.go, cacheways.go: how much of each
// request a provider's prompt cache serves, per context strategy and peer) counts tokens and
// times nothing: TestCacheable checks it, and go run ./cmd/report -cache writes its table.
package bench
