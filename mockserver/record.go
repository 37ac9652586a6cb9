package mockserver

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
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

// requestRing keeps the newest requests, up to its size, allocated on
// first use. It keeps them as they came (headers and query not copied nor
// redacted) and makes RecordedRequests of them when they are read, so that
// recording costs a request little. Its generation counts the resets: a
// request is added with the generation it arrived in, and one that
// arrived before the latest reset is dropped, so that a request under way
// when the record is cleared (a held long poll, a delayed one) does not
// appear in it afterwards.
type requestRing struct {
	mu   sync.Mutex
	size int
	buf  []recordEntry
	next int
	full bool
	gen  atomic.Uint64 // changed under mu; read without it
}

// recordEntry is a request as the ring keeps it.
type recordEntry struct {
	time                    time.Time
	requestID, method, path string
	rawQuery                string
	header                  http.Header // the request's own: never changed
	body                    []byte
	bodyTruncated           bool
	status                  int
}

// recorded makes the RecordedRequest of an entry: the query parsed, the
// headers copied with the API key redacted.
func (e *recordEntry) recorded() RecordedRequest {
	rec := RecordedRequest{
		Time: e.time, RequestID: e.requestID, Method: e.method, Path: e.path,
		Header: redactHeader(e.header), Body: e.body, BodyTruncated: e.bodyTruncated, Status: e.status,
	}
	if e.rawQuery != "" {
		rec.Query, _ = url.ParseQuery(e.rawQuery)
	}
	return rec
}

func newRequestRing(size int) *requestRing {
	return &requestRing{size: size}
}

// generation returns the record's current generation, for add.
func (r *requestRing) generation() uint64 { return r.gen.Load() }

// add keeps e, a request that arrived in generation gen, unless the record
// has been reset since.
func (r *requestRing) add(gen uint64, e recordEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.size == 0 || gen != r.gen.Load() {
		return
	}
	if r.buf == nil {
		r.buf = make([]recordEntry, r.size)
	}
	r.buf[r.next] = e
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

// all returns the kept requests, oldest first.
func (r *requestRing) all() []RecordedRequest {
	r.mu.Lock()
	var entries []recordEntry
	if r.full {
		entries = append(entries, r.buf[r.next:]...)
	}
	entries = append(entries, r.buf[:r.next]...)
	r.mu.Unlock()
	out := make([]RecordedRequest, len(entries))
	for i := range entries {
		out[i] = entries[i].recorded()
	}
	return out
}

// reset empties the record and starts a new generation.
func (r *requestRing) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = nil
	r.next, r.full = 0, false
	r.gen.Add(1)
}

// pendingRecord is a request on its way into its tenant's record: what is
// known of it when it arrives.
type pendingRecord struct {
	gen uint64
	r   *http.Request
	tap *bodyTap
}

// startRecording arranges for the request to be recorded once its answer's
// status is known, unless it is not to be recorded at all.
func startRecording(x *exchange, r *http.Request) {
	if x.recordTo == nil || x.control || x.recordingOn {
		return
	}
	x.recordingOn = true
	p := &x.recording
	p.gen, p.r = x.recordTo.record.generation(), r
	if r.Body != nil && r.Body != http.NoBody {
		p.tap = &bodyTap{ReadCloser: r.Body}
		r.Body = p.tap
	}
}

// finish adds the request, answered with status, to the record.
func (p *pendingRecord) finish(x *exchange, status int) {
	r := p.r
	e := recordEntry{
		time: x.srv.clock.Now().UTC(), requestID: x.requestID, method: r.Method, path: r.URL.EscapedPath(),
		rawQuery: r.URL.RawQuery, header: r.Header, status: status,
	}
	if p.tap != nil {
		p.tap.finish()
		e.body = p.tap.buf.Bytes()
		e.bodyTruncated = p.tap.truncated
	}
	x.recordTo.record.add(p.gen, e)
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
