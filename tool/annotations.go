package tool

// Annotations are hints about what a tool does to the world, with the meanings and defaults
// of MCP's tool annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint),
// so that a tool from an MCP server and a tool declared here answer the same questions the
// same way. They are hints, not guarantees: a tool from a server you do not trust may say
// anything. Middleware reads them through [Call].Tool — middleware.When with
// middleware.Destructive or middleware.Idempotent, say — to ask for approval or to retry.
//
// The zero Annotations says nothing, and so, as in MCP, describes a tool that may modify its
// environment destructively and reaches an open world.
type Annotations struct {
	// Title is a name for people, shown by user interfaces; the model reads the tool's name
	// and description.
	Title string
	// ReadOnly: the tool does not modify its environment. Default false.
	ReadOnly bool
	// Destructive: the tool may perform destructive updates (delete, overwrite) rather than
	// only additive ones. Meaningful only when ReadOnly is false. Nil means true.
	Destructive *bool
	// Idempotent: calling the tool again with the same arguments has no further effect on its
	// environment. Meaningful only when ReadOnly is false. Default false.
	Idempotent bool
	// OpenWorld: the tool interacts with an open world of external entities (a web search)
	// rather than a closed domain (a memory). Nil means true.
	OpenWorld *bool
}

// IsDestructive reports whether the tool may destroy something: not read-only, and not
// marked non-destructive.
func (a Annotations) IsDestructive() bool {
	return !a.ReadOnly && (a.Destructive == nil || *a.Destructive)
}

// IsIdempotent reports whether a call may be repeated without further effect: the tool is
// read-only or marked idempotent. Only such calls are safe to retry blindly.
func (a Annotations) IsIdempotent() bool { return a.ReadOnly || a.Idempotent }

// IsOpenWorld reports whether the tool reaches an open world: not marked closed.
func (a Annotations) IsOpenWorld() bool { return a.OpenWorld == nil || *a.OpenWorld }

// clone returns a with pointers of its own, so that a Tool stays immutable after the caller's
// Options change.
func (a Annotations) clone() Annotations {
	if a.Destructive != nil {
		v := *a.Destructive
		a.Destructive = &v
	}
	if a.OpenWorld != nil {
		v := *a.OpenWorld
		a.OpenWorld = &v
	}
	return a
}
