package openapicheck_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// fakeService answers GET /v1/profiles/{id} with a profile whose
// itemsCount is given, and the rest with 204.
func fakeService(itemsCount string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/v1/profiles/") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, strings.Replace(profileJSON, `"itemsCount":0`, `"itemsCount":`+itemsCount, 1))
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
}

// reports collects the errors a wiring reports.
type reports struct {
	mu   sync.Mutex
	errs []error
}

func (r *reports) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *reports) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func send(t *testing.T, c *http.Client, method, url, body string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("x-api-key", "k")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

func TestTransport(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	for _, tt := range []struct {
		name, itemsCount string
		wantField        string
	}{
		{"a right answer", "3", ""},
		{"a wrong answer", `"3"`, "body /itemsCount"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(fakeService(tt.itemsCount))
			defer srv.Close()
			var got reports
			c := &http.Client{Transport: v.Transport(nil, got.add)}
			body := send(t, c, "GET", srv.URL+"/v1/profiles/pf_1", "")
			require.Contains(t, string(body), `"id":"pf_1"`, "the caller reads the answer whole")
			send(t, c, "POST", srv.URL+"/_mock/reset", "")
			errs := got.all()
			if tt.wantField == "" {
				require.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			var m *openapicheck.Mismatch
			require.ErrorAs(t, errs[0], &m)
			require.Equal(t, "getProfile", m.Operation)
			require.Equal(t, tt.wantField, m.Field)
		})
	}
}

func TestHandler(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	var got reports
	srv := httptest.NewServer(v.Handler(fakeService(`"3"`), got.add))
	defer srv.Close()
	send(t, http.DefaultClient, "GET", srv.URL+"/v1/profiles/pf_1", "")
	// A request body the document refuses, answered with success: the
	// handler saw the body, whether or not the service read it.
	send(t, http.DefaultClient, "PATCH", srv.URL+"/v1/profiles/pf_1", `{"nickname":"J"}`)
	errs := got.all()
	require.Len(t, errs, 2)
	var m *openapicheck.Mismatch
	require.ErrorAs(t, errs[0], &m)
	require.Equal(t, "answer", m.In)
	require.Equal(t, "body /itemsCount", m.Field)
	require.ErrorAs(t, errs[1], &m)
	require.Equal(t, "updateProfile", m.Operation)
	require.Equal(t, "request", m.In)
	require.Equal(t, "body /nickname", m.Field)
}

func TestHandlerPassesHijackingThrough(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	var got reports
	drop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		require.NoError(t, err)
		_ = conn.Close()
	})
	srv := httptest.NewServer(v.Handler(drop, got.add))
	defer srv.Close()
	req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+"/v1/profiles/pf_1", bytes.NewReader(nil))
	require.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err, "the connection was dropped")
	require.Empty(t, got.all(), "a dropped connection has no answer to check")
}

func TestHandlerChecksHEADWithoutABody(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	var got reports
	// A handler that writes the body of GET for HEAD too, as many do:
	// net/http sends none.
	profile := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, profileJSON)
	})
	srv := httptest.NewServer(v.Handler(profile, got.add))
	defer srv.Close()
	require.Empty(t, send(t, http.DefaultClient, "HEAD", srv.URL+"/v1/profiles/pf_1", ""))
	require.Empty(t, got.all(), "the answer to HEAD went without its body")
}

func TestHandlerLeavesAnUnansweredRequestUnchecked(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	var got reports
	started, done := make(chan struct{}), make(chan struct{})
	// A long poll that lets go without answering when its client leaves.
	poll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	})
	checked := v.Handler(poll, got.add)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(done)
		checked.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/analyses/analysis_1?waitForReport=true", nil)
	require.NoError(t, err)
	go func() {
		<-started
		cancel()
	}()
	_, err = http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.Canceled)
	<-done
	require.Empty(t, got.all(), "the client left before any answer: there is none to check")
}

func TestHandlerReadsNoMoreOfTheBodyThanTheServer(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	var got reports
	// A server that refuses a body it will not read.
	refuse := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, `{"error":{"code":"PAYLOAD_TOO_LARGE","status":413,"message":"too large"}}`)
	})
	checked := v.Handler(refuse, got.add)
	read := make(chan int64, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		counted := &countingReader{r: r.Body}
		r.Body = struct {
			io.Reader
			io.Closer
		}{counted, r.Body}
		checked.ServeHTTP(w, r)
		read <- counted.n
	}))
	defer srv.Close()
	send(t, http.DefaultClient, "PATCH", srv.URL+"/v1/profiles/pf_1", `{"name":"`+strings.Repeat("x", 64<<10)+`"}`)
	require.Zero(t, <-read, "bytes of the body read by the check")
	require.Empty(t, got.all())
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestHandlerChecksTheHeadersAsSent(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	const pdf = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
	for _, tt := range []struct {
		name   string
		report http.HandlerFunc
		want   string // the field reported; "" for none
	}{
		{"a header set after the status is not sent", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.WriteHeader(http.StatusOK)
			w.Header().Set("Content-Disposition", `attachment; filename="analysis_1_report.pdf"`)
			_, _ = io.WriteString(w, pdf)
		}, "header Content-Disposition"},
		{"a PDF without a Content-Type is sent as net/http sniffs it", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Disposition", `attachment; filename="analysis_1_report.pdf"`)
			_, _ = io.WriteString(w, pdf)
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got reports
			srv := httptest.NewServer(v.Handler(tt.report, got.add))
			defer srv.Close()
			send(t, http.DefaultClient, "GET", srv.URL+"/v1/analyses/analysis_1/report", "")
			errs := got.all()
			if tt.want == "" {
				require.Empty(t, errs)
				return
			}
			require.Len(t, errs, 1)
			var m *openapicheck.Mismatch
			require.ErrorAs(t, errs[0], &m)
			require.Equal(t, tt.want, m.Field, "%v", m)
		})
	}
}
