// Package wiretest holds the tests that run the SDK against a real OpenAI-compatible server
// no one here wrote (@copilotkit/aimock, started by package aimock), and the two helpers they
// use to check what goes over the wire:
//
//   - [Capture], an http.RoundTripper that records every request body and response status,
//     put in the HTTP client of the client under test;
//   - [Schema], a validator compiled from a schema of OpenAI's OpenAPI document
//     (../shared/openai-openapi/openapi.json beside the repository), used to check that every
//     request body the client sent is one the chat-completions API accepts.
//
// Every test that drives a model runs once per client of the wire, as subtests named by the
// client: go-openai's *openai.Client (streaming through agentkit.OpenAIStreaming) and the
// repository's *openaichat.Client, with the same assertions, where the two differ each
// one's documented behaviour. The subtests share one aimock server; each client sends its
// own X-Test-Id, under which aimock counts fixture matches and keeps its journal.
package wiretest
