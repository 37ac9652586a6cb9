package profilesvc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// DefaultMaxResponseSize is the largest JSON answer the client reads,
// counted after decompression: see WithMaxResponseSize.
const DefaultMaxResponseSize = 32 << 20

// WithMaxResponseSize sets the largest JSON answer the client reads, in
// bytes, counted after decompression; a larger one is an error matching
// ErrResponseTooLarge, and is not read further. Reports are streamed and
// have no limit of their own. Default 32 MiB.
func WithMaxResponseSize(n int64) Option {
	return func(c *config) { c.maxResponseSize = &n }
}

// ErrResponseTooLarge is matched by the error of a call whose answer is
// larger than the client reads (WithMaxResponseSize).
var ErrResponseTooLarge = errors.New("profilesvc: the answer is too large")

// ErrMalformedResponse is matched by the error of a call whose successful
// answer is not what the call expects: not JSON, or JSON of another shape
// (an analysis without an ID or a status, say).
var ErrMalformedResponse = errors.New("profilesvc: malformed answer")

// Sizes of the pieces an answer of unknown length is read in: small first,
// for the many small answers, then larger ones.
const (
	firstPiece = 4 << 10
	piece      = 64 << 10
)

// readAnswer reads a whole answer of at most max bytes. An announced length
// within the limit is read into one buffer of that size; one beyond it is
// refused before anything is read; an answer of unknown length (chunked,
// or decompressed on the way) is read in pieces, so that no more than the
// limit and a piece is ever held for it, however large it claims or turns
// out to be.
func readAnswer(body io.Reader, contentLength, max int64) ([]byte, error) {
	tooLarge := func() error {
		return fmt.Errorf("%w: more than the limit of %d bytes (WithMaxResponseSize)", ErrResponseTooLarge, max)
	}
	switch {
	case contentLength > max:
		return nil, tooLarge()
	case contentLength == 0:
		return nil, nil
	case contentLength > 0:
		buf := make([]byte, contentLength)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var pieces [][]byte
	var total int64
	size := int64(firstPiece)
	for {
		p := make([]byte, min(size, max+1-total))
		n, err := io.ReadFull(body, p)
		pieces = append(pieces, p[:n])
		total += int64(n)
		if total > max {
			return nil, tooLarge()
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = piece
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	return bytes.Join(pieces, nil), nil
}

// bufferedBody is an answer read whole within the retry loop; do decodes
// its bytes without copying them.
type bufferedBody struct {
	*bytes.Reader
	data []byte
}

func (bufferedBody) Close() error { return nil }

// readBody is the response handler of a call whose answer is decoded: it
// reads a successful answer whole, within the attempt, so that a failure
// while reading (a timeout, a lost connection) is an attempt's failure,
// retried as one, and an answer too large is refused. The error of a
// request that is not idempotent leaves its outcome unknown: the service
// acted on it, but its answer is lost.
func (r *retrier) readBody(resp *http.Response) error {
	// go-retryablehttp calls check again for the same attempt.
	r.rechecking = true
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil
	}
	data, err := readAnswer(resp.Body, resp.ContentLength, r.maxResponse)
	_ = resp.Body.Close()
	if err != nil {
		if !r.idempotent && !errors.Is(err, ErrResponseTooLarge) {
			err = &outcomeUnknownError{err: err}
		}
		return fmt.Errorf("reading the answer: %w", err)
	}
	resp.Body = bufferedBody{Reader: bytes.NewReader(data), data: data}
	return nil
}
