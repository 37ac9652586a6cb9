package mockserver

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// RecordedRequest is a request the server received, as the request record
// keeps it.
type RecordedRequest struct {
	Time time.Time `json:"time"`
	// RequestID is the request ID the answer carried in its X-Request-Id
	// header (the SDK's APIError.RequestID), to find in the record the
	// request behind an answer or an error.
	RequestID string `json:"requestId"`
	Method    string `json:"method"`
	// Path is the path as sent, escaped.
	Path  string     `json:"path"`
	Query url.Values `json:"query,omitempty"`
	// Header holds the request's headers, with x-api-key redacted.
	Header http.Header `json:"header"`
	// Body holds the first 64 KiB of the body the client sent.
	Body []byte `json:"body,omitempty"`
	// BodyTruncated reports that the body was longer than what is kept.
	BodyTruncated bool `json:"bodyTruncated,omitempty"`
	// Status is the status of the answer; 0 for a dropped connection.
	Status int `json:"status"`
}

// maxRecordedBody is how much of a body the record keeps.
const maxRecordedBody = 64 << 10

// redacted stands in for the API key in recorded headers.
const redacted = "[REDACTED]"

// requestRing keeps the newest requests, up to its size. Its generation
// counts the resets: a request is added with the generation it arrived
// in, and one that arrived before the latest reset is dropped, so that a
// request under way when the record is cleared (a held long poll, a
// delayed one) does not appear in it afterwards.
type requestRing struct {
	mu   sync.Mutex
	buf  []RecordedRequest
	next int
	full bool
	gen  uint64
}

func newRequestRing(size int) *requestRing {
	return &requestRing{buf: make([]RecordedRequest, size)}
}

// generation returns the record's current generation, for add.
func (r *requestRing) generation() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen
}

// add keeps rec, a request that arrived in generation gen, unless the
// record has been reset since.
func (r *requestRing) add(gen uint64, rec RecordedRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.buf) == 0 || gen != r.gen {
		return
	}
	r.buf[r.next] = rec
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// all returns the kept requests, oldest first.
func (r *requestRing) all() []RecordedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []RecordedRequest
	if r.full {
		out = append(out, r.buf[r.next:]...)
	}
	out = append(out, r.buf[:r.next]...)
	return out
}

// reset empties the record and starts a new generation.
func (r *requestRing) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.buf)
	r.next, r.full = 0, false
	r.gen++
}

// bodyTap keeps a copy of what the handler reads of a body.
type bodyTap struct {
	io.ReadCloser
	buf       bytes.Buffer
	truncated bool
	done      bool // the body has been read to its end, or failed
}

func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if err != nil {
		t.done = true
	}
	if n > 0 {
		room := maxRecordedBody - t.buf.Len()
		if room >= n {
			t.buf.Write(p[:n])
		} else {
			if room > 0 {
				t.buf.Write(p[:room])
			}
			t.truncated = true
		}
	}
	return n, err
}

// finish reads what the handler left of the body, up to what the record
// keeps, so that the record shows what the client sent even when it was
// answered without being read (a fault, a 401, an unknown route).
func (t *bodyTap) finish() {
	if t.done || t.truncated {
		return
	}
	room := int64(maxRecordedBody - t.buf.Len())
	_, _ = io.Copy(io.Discard, io.LimitReader(t, room+1))
}

// statusWriter remembers the status of the answer and tells onStatus of
// it, once, before the answer is sent.
type statusWriter struct {
	http.ResponseWriter
	status    int
	onStatus  func(status int)
	committed bool
}

// commit calls onStatus once.
func (w *statusWriter) commit(status int) {
	if w.committed {
		return
	}
	w.committed = true
	if w.onStatus != nil {
		w.onStatus(status)
	}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.commit(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.commit(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes through, for streamed answers.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack passes hijacking through, for injected dropped connections; the
// request is recorded, with no status, first.
func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.commit(0)
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	return hj.Hijack()
}
