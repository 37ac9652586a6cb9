package profilesvc

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"
)

// testAPIKey is the key the clients of these tests send.
const testAPIKey = "3f0c8a7e-5b1d-4c2e-9a6f-7d8e9f0a1b2c"

// recordedRequest is one request a testServer received.
type recordedRequest struct {
	Method string
	// Path is the decoded path; EscapedPath is the path as it was sent.
	Path        string
	EscapedPath string
	Query       url.Values
	Header      http.Header
	Body        []byte
}

// testServer is an httptest.Server that records every request and answers
// with a handler the test gives.
type testServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []recordedRequest
}

// newTestServer starts a server answering with h (after recording the
// request; h reads the body from the record) and closes it when the test
// ends.
func newTestServer(t testing.TB, h http.HandlerFunc) *testServer {
	t.Helper()
	s := &testServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recordedRequest{
			Method:      r.Method,
			Path:        r.URL.Path,
			EscapedPath: r.URL.EscapedPath(),
			Query:       r.URL.Query(),
			Header:      r.Header.Clone(),
			Body:        body,
		})
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// requests returns a copy of what the server received so far.
func (s *testServer) requests() []recordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recordedRequest(nil), s.reqs...)
}

// client returns a client of the server with the test key and retry waits
// short enough for tests; opts come last and win.
func (s *testServer) client(t testing.TB, opts ...Option) *Client {
	t.Helper()
	all := append([]Option{
		WithAPIKey(testAPIKey),
		WithBaseURL(s.URL),
		WithRetryWait(time.Millisecond, 5*time.Millisecond),
	}, opts...)
	c, err := NewClient(all...)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// respond writes a JSON answer.
func respond(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// respondError writes the service's error body.
func respondError(w http.ResponseWriter, status int, code, message string) {
	respond(w, status, `{"error":{"code":"`+code+`","status":`+strconv.Itoa(status)+`,"message":"`+message+`"}}`)
}
