package redis

// SetSkipRenew makes the Stores of o skip the renewal of a session's lease while skip
// returns true: a holder paused past its lease, for the tests.
func SetSkipRenew(o *Options, skip func(session string) bool) { o.skipRenew = skip }
