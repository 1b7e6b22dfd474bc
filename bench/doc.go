// Package bench drives toolcall, a hand-written seed-style loop on go-openai (the floor), and
// the peer frameworks with the same scripted in-process model (package script: no network, no
// HTTP), each implemented the way its own documentation teaches: its agent or runner, its
// tool declaration API, and an adapter from the scripted model to its model interface.
//
// It is a module of its own so that the SDK never depends on its peers. google.golang.org/adk/v2
// is in the nested module ./adk: it cannot be built together with toolcall (see
// BENCHMARKS.md). The benchmarks are in bench_test.go, the behaviour table (emission order,
// unknown tool, malformed arguments) in behaviour_test.go.
package bench
