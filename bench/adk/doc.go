// Package adk drives google.golang.org/adk/v2 with the scripted model of the benchmarks. It is
// a module of its own: adk v2.2.0 needs go.opentelemetry.io/otel/log v0.20.0, whose API
// otel v1.47.0 (required by toolcall) no longer has, so the two cannot be built together.
package adk
