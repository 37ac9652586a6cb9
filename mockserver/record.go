package mockserver

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"slices"
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
	// Header holds the request's headers, with x-api-key redacted; nil for
	// a request that failed authentication, of which the record keeps the
	// method and path only.
	Header http.Header `json:"header"`
	// Body holds the first 64 KiB of the body the client sent.
	Body []byte `json:"body,omitempty"`
	// BodyTruncated reports that the body was longer than what is kept;
	// BodySize is then its whole size (at least).
	BodyTruncated bool  `json:"bodyTruncated,omitempty"`
	BodySize      int64 `json:"bodySize,omitempty"`
	// Status is the status of the answer; 0 for a dropped connection.
	Status int `json:"status"`
}

// maxRecordedBody is how much of a body the record keeps.
const maxRecordedBody = 64 << 10

// redacted stands in for the API key in recorded headers.
const redacted = "[REDACTED]"

// requestRecord keeps the newest requests, up to a number of entries and a
// number of bytes, and counts those it drops to keep within them. It keeps
// them as they came (headers and query not copied nor redacted) and makes
// RecordedRequests of them when they are read, so that recording costs a
// request little. Its generation counts the resets: a request is added
// with the generation it arrived in, and one that arrived before the
// latest reset is dropped, so that a request under way when the record is
// cleared (a held long poll, a delayed one) does not appear in it
// afterwards.
type requestRecord struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int64
	entries    []recordEntry // oldest first, from head; allocated on first use
	head       int
	bytes      int64         // the size of the entries kept
	dropped    int           // entries dropped to keep within the bounds
	gen        atomic.Uint64 // changed under mu; read without it
	// changed, once asked for, is closed (and dropped) at the next add or
	// reset, for AwaitRequest.
	changed chan struct{}
}

// recordEntry is a request as the record keeps it.
type recordEntry struct {
	time                    time.Time
	requestID, method, path string
	rawQuery                string
	header                  http.Header // the request's own: never changed
	body                    []byte
	bodyTruncated           bool
	bodySize                int64
	status                  int
	// bytes is what the entry counts for (size), kept for when it is
	// dropped: the headers of an old request are no longer in the cache.
	bytes int64
}

// size is what an entry counts for against the record's byte bound: what
// it holds, and a share for the rest of the entry.
func (e *recordEntry) size() int64 {
	n := int64(256 + len(e.path) + len(e.rawQuery) + len(e.body))
	for k, vs := range e.header {
		n += int64(len(k))
		for _, v := range vs {
			n += int64(len(v))
		}
	}
	return n
}

// recorded makes the RecordedRequest of an entry: the query parsed, the
// headers copied with the API key redacted.
func (e *recordEntry) recorded() RecordedRequest {
	rec := RecordedRequest{
		Time: e.time, RequestID: e.requestID, Method: e.method, Path: e.path,
		Body: e.body, BodyTruncated: e.bodyTruncated, Status: e.status,
	}
	if e.header != nil {
		rec.Header = redactHeader(e.header)
	}
	if e.bodyTruncated {
		rec.BodySize = e.bodySize
	}
	if e.rawQuery != "" {
		rec.Query, _ = url.ParseQuery(e.rawQuery)
	}
	return rec
}

func newRequestRecord(maxEntries int, maxBytes int64) *requestRecord {
	return &requestRecord{maxEntries: maxEntries, maxBytes: maxBytes}
}

// generation returns the record's current generation, for add.
func (r *requestRecord) generation() uint64 { return r.gen.Load() }

// add keeps e, a request that arrived in generation gen, unless the record
// has been reset since, dropping the oldest entries as the bounds require.
func (r *requestRecord) add(gen uint64, e recordEntry) {
	size := e.size()
	e.bytes = size
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen.Load() {
		return
	}
	if r.maxEntries == 0 || size > r.maxBytes {
		r.dropped++
		return
	}
	r.entries = append(r.entries, e)
	r.bytes += size
	r.notify()
	for len(r.entries)-r.head > r.maxEntries || r.bytes > r.maxBytes {
		r.bytes -= r.entries[r.head].bytes
		r.entries[r.head] = recordEntry{}
		r.head++
		r.dropped++
	}
	if r.head > len(r.entries)/2 && r.head > 64 {
		// In place: the array, once grown, serves the record's life.
		n := copy(r.entries, r.entries[r.head:])
		clear(r.entries[n:])
		r.entries, r.head = r.entries[:n], 0
	}
}

// snapshot returns the kept entries, oldest first, and the count dropped.
func (r *requestRecord) snapshot() ([]recordEntry, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.entries[r.head:]), r.dropped
}

// all returns the kept requests, oldest first.
func (r *requestRecord) all() []RecordedRequest {
	entries, _ := r.snapshot()
	out := make([]RecordedRequest, len(entries))
	for i := range entries {
		out[i] = entries[i].recorded()
	}
	return out
}

// droppedCount returns how many entries were dropped since the last reset.
func (r *requestRecord) droppedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// reset empties the record and starts a new generation.
func (r *requestRecord) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entries, r.head, r.bytes, r.dropped = nil, 0, 0, 0
	r.gen.Add(1)
	r.notify()
}

// changes returns a channel closed at the record's next change.
func (r *requestRecord) changes() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}

// notify wakes those waiting for a change; r.mu is held.
func (r *requestRecord) notify() {
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// pendingRecord is a request on its way into its tenant's record: what is
// known of it when it arrives.
type pendingRecord struct {
	gen uint64
	r   *http.Request
	tap *bodyTap
	// bare keeps the method and path only: a request that failed
	// authentication, whose headers and body are nobody's to see.
	bare bool
}

// startRecording arranges for the request to be recorded once its answer's
// status is known, unless it is not to be recorded at all.
func startRecording(x *exchange, r *http.Request, bare bool) {
	if x.recordTo == nil || x.control || x.recordingOn {
		return
	}
	x.recordingOn = true
	p := &x.recording
	p.gen, p.r, p.bare = x.recordTo.record.generation(), r, bare
	if !bare && r.Body != nil && r.Body != http.NoBody {
		p.tap = &bodyTap{ReadCloser: r.Body}
		r.Body = p.tap
	}
}

// finish adds the request, answered with status, to the record.
func (p *pendingRecord) finish(x *exchange, status int) {
	r := p.r
	e := recordEntry{
		time: x.srv.clock.Now().UTC(), requestID: x.requestID, method: r.Method, path: r.URL.EscapedPath(), status: status,
	}
	if !p.bare {
		e.rawQuery, e.header = r.URL.RawQuery, r.Header
	}
	if p.tap != nil {
		p.tap.finish()
		e.body = p.tap.buf.Bytes()
		e.bodyTruncated = p.tap.truncated
		e.bodySize = max(p.tap.total, r.ContentLength)
	}
	x.recordTo.record.add(p.gen, e)
}

// bodyTap keeps a copy of what the handler reads of a body.
type bodyTap struct {
	io.ReadCloser
	buf       bytes.Buffer
	truncated bool
	done      bool  // the body has been read to its end, or failed
	total     int64 // how much was read
}

func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.total += int64(n)
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
