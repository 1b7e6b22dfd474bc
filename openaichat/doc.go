// Package openaichat is an [agentkit.Model] that speaks the OpenAI chat-completions wire over
// HTTP, with go-openai's types (github.com/sashabaranov/go-openai) as its requests and
// replies, plus what those types cannot carry. A *openai.Client is a Model too; use this one
// when a provider needs more than go-openai sends or keeps:
//
//   - Provider extras round-trip. Fields a provider sends on an assistant message or a tool
//     call and expects back — OpenRouter's and the Vercel AI gateway's reasoning and
//     reasoning_details (Gemini's thought signatures, Claude's signed thinking), Google's
//     extra_content.google.thought_signature — are kept on the message as
//     [agentkit.ProviderExtras] and sent back unchanged, from the run's transcript, a stored
//     session or a context strategy's view. go-openai drops them, and Gemini then answers
//     400 to the next request.
//   - Stream errors and ends. An SSE error event (Groq sends one inside a 200 stream) is the
//     provider's error, an [*Error]; a stream that ends with "data: [DONE]" is a normal end
//     with or without a finish_reason; a body that stops or a connection cut before either
//     is [agentkit.ErrStreamTruncated]. go-openai cannot tell [DONE] from a body that ends
//     (io.EOF for both) and reports a JSON syntax error for an error event.
//   - Request extras go-openai has no field for — prompt_cache_key, OpenRouter's provider
//     routing and reasoning options, any other top-level field — per client
//     (Options.Request) and per request ([WithRequest]); with Options.SessionCacheKey, each
//     agent session its own prompt_cache_key, derived from the session id
//     ([SessionCacheKey]), so a conversation keeps reaching the cache that holds its prefix.
//   - A temperature of 0 reaches the wire as 0 (go-openai drops it: the agent sends
//     [agentkit.WireZeroTemperature], which this client sends as 0).
//   - Bounds and errors as servers need them: the response body is bounded
//     (Options.MaxResponseBytes, 16 MiB), a 200 body that is an error object is the error it
//     is, an error keeps the provider's detail (OpenRouter's error.metadata.raw) and its
//     Retry-After ([middleware.ModelRetry] waits what the server asked), and arguments sent
//     as a JSON object instead of a string are that object's text.
//
// Why not a library: go-openai is the history type (the design card) and the one other Go
// client of the wire; its types have no place for extras and its stream reader loses error
// events, and the official openai-go client has its own types. The wire is small — one POST,
// JSON or server-sent events — so this package encodes it with encoding/json around
// go-openai's own marshaling, and reads SSE by the WHATWG rules (event, data, comments).
//
// The client reads no environment variable; it sends the API key it is given as a bearer
// token, and nothing when there is none.
package openaichat
