package postgres

import "errors"

var (
	// ErrCorrupt: a stored message could not be read back (not JSON, no role, a missing
	// sequence number). The error names the session and the row.
	ErrCorrupt = errors.New("postgres: corrupt stored message")

	// ErrSchemaVersion: the database holds a schema written by a newer version of this
	// package, which this one does not know. Nothing was changed.
	ErrSchemaVersion = errors.New("postgres: unsupported schema version")
)
