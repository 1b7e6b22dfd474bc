// Package aimock runs @copilotkit/aimock, an OpenAI-compatible mock server published on the
// npm registry, for tests that must talk HTTP to a server no one here wrote.
//
// The package is pinned at [Version] by testdata/package.json and its lockfile, and installed
// into testdata/node_modules by
//
//	npm ci --prefix testdata
//
// (.ci/run does it before go test). [Start] runs the installed server with node on 127.0.0.1,
// on a port the kernel picks, scripted by a JSON fixture file, and stops it when the test
// ends. When node or the package is missing the test is skipped, or fails when the
// environment variable CI is set, so that CI can never silently skip the wire tests.
//
// The fixture files of the tests are in testdata/aimock. They follow aimock's format:
// {"fixtures": [{"match": {...}, "response": {...}}, ...]}, first match wins. The fields used
// here, as documented in the package's skills/write-fixtures/SKILL.md and implemented in
// dist/fixture-loader.js and dist/server.js:
//
//   - match: userMessage (substring of the last user message), hasToolResult (a tool message
//     after the last user message), toolCallId (tool_call_id of the last message when it is a
//     tool message), sequenceIndex (how many times this group of fixtures matched before).
//   - response: content; toolCalls [{id, name, arguments}]; error {message, type, code} with
//     status and retryAfter (a 429 always carries Retry-After, retryAfter seconds or 1).
//   - per fixture: chunkSize (characters per streamed fragment), latency (milliseconds
//     between SSE chunks), truncateAfterChunks (destroy the connection after that many SSE
//     chunks; give the fixture a latency, or the chunks written in the same tick are lost with
//     the connection, headers included), chaos {dropRate, malformedRate,
//     disconnectRate} (1 makes it certain: a 500, a 200 whose body is not JSON, a connection
//     closed before any response).
package aimock
