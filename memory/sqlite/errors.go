package sqlite

import "errors"

var (
	// ErrCorrupt: a stored message could not be read back (not JSON, no role, a missing
	// sequence number). The error names the session and the row.
	ErrCorrupt = errors.New("sqlite: corrupt stored message")

	// ErrSchemaVersion: the database was written by a newer version of this package, with a
	// schema this one does not know.
	ErrSchemaVersion = errors.New("sqlite: unsupported schema version")
)
