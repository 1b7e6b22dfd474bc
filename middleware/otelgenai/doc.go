// Package otelgenai traces agent runs with OpenTelemetry, following its GenAI semantic
// conventions: a span per run, per model call and per tool call ([Tracing]).
//
// It is a package of its own, apart from package middleware, so that a program that does not
// trace never compiles or links OpenTelemetry; it imports only the OTel API
// (go.opentelemetry.io/otel/trace), never the SDK or its global provider.
package otelgenai
