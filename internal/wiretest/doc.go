// Package wiretest holds the tests that run the SDK against a real OpenAI-compatible server
// no one here wrote (@copilotkit/aimock, started by package aimock), and the two helpers they
// use to check what goes over the wire:
//
//   - [Capture], an http.RoundTripper that records every request body and response status,
//     put in the go-openai client under test;
//   - [Schema], a validator compiled from a schema of OpenAI's OpenAPI document
//     (../shared/openai-openapi/openapi.json beside the repository), used to check that every
//     request body the client sent is one the chat-completions API accepts.
package wiretest
