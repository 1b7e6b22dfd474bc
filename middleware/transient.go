package middleware

import "errors"

// ErrTransient matches, with errors.Is, every error wrapped by [Transient].
var ErrTransient = errors.New("middleware: transient")

type transientError struct{ err error }

func (e *transientError) Error() string        { return e.err.Error() }
func (e *transientError) Unwrap() error        { return e.err }
func (e *transientError) Is(target error) bool { return target == ErrTransient }

// Transient marks err as transient: a failure that may not happen again if the same call is
// repeated shortly (a timeout of a backend, a 503, a lock held by someone else). A tool returns
// Transient(err) for [Retry] to retry it; the message is err's. Transient(nil) returns nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return &transientError{err: err}
}

// IsTransient reports whether err was marked with [Transient].
func IsTransient(err error) bool { return errors.Is(err, ErrTransient) }
