// Package httpbody bounds HTTP response bodies, for middleware.Transport and openaichat: no
// reply, however large, is read whole.
package httpbody

import "io"

// Limit returns r reading at most max bytes: past them, a Read returns tooLarge (unless the
// body ends exactly at max bytes).
func Limit(r io.ReadCloser, max int64, tooLarge error) io.ReadCloser {
	return &limited{r: r, left: max, tooLarge: tooLarge}
}

type limited struct {
	r        io.ReadCloser
	left     int64
	tooLarge error
}

func (b *limited) Read(p []byte) (int, error) {
	if b.left <= 0 { // the bound is reached: the body must end here
		if n, err := b.r.Read(make([]byte, 1)); n == 0 && err != nil {
			return 0, err
		}
		return 0, b.tooLarge
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limited) Close() error { return b.r.Close() }
