// Package script is the scripted model every framework of the benchmarks is driven by, in
// framework-neutral terms, and the tools' behaviour.
//
// A framework's adapter translates the request its agent sends into a [View] (the latest user
// message and the tool results after the latest assistant message), asks the [Script] for a
// [Reply], and translates the reply into the framework's response type. Every reply a script
// can give is known in advance ([Script.Replies]), so adapters may build their native responses
// once, at construction, as a real client's decoding would not; the hand-written floor and
// toolcall get exactly the same treatment. [Handler] serves the same script over HTTP as an
// OpenAI-compatible server, for the benchmarks in which each framework's own OpenAI client
// decodes every response.
//
// Package handwritten is the floor every ratio is measured against: the seed article's loop
// written by hand on go-openai.
//
// It is a module of its own, whose one dependency is go-openai, because
// google.golang.org/adk/v2 v2.2.0 cannot be built in the same module as toolcall (its
// OpenTelemetry requirements conflict) and both modules use it.
package script
