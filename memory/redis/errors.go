package redis

import "errors"

var (
	// ErrCorrupt: a stored message could not be read back (not JSON, no role). The error
	// names the session and the message's position.
	ErrCorrupt = errors.New("redis: corrupt stored message")

	// ErrLayoutVersion: the key prefix holds data of a newer layout than this package
	// knows (or a version key that is not one), written by a newer version of it.
	ErrLayoutVersion = errors.New("redis: unsupported data layout version")
)
