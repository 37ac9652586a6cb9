package profilesvc

// Attacks of a hostile or broken service on the client: answers too large
// to hold, the API key echoed where Go's transport quotes it, a body that
// stalls, a redirect to another host, answers that are not what the call
// expects. Each is a test that fails without its fix.

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// hostileKey is the API key the hostile servers echo.
const hostileKey = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"

// hostileServer serves h; the test's client has the hostile key.
func hostileServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// hostileClient is a client of url with the hostile key and short waits.
func hostileClient(t *testing.T, url string, opts ...Option) *Client {
	t.Helper()
	c, err := NewClient(append([]Option{WithAPIKey(hostileKey), WithBaseURL(url), WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	return c
}

// rawAnswer hijacks the connection and writes a raw answer, then closes it:
// for answers net/http's server would not send.
func rawAnswer(w http.ResponseWriter, raw string) {
	conn, rw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = rw.WriteString(raw)
	_ = rw.Flush()
}

// assertNoKey checks that no form of the key (any case) is in s.
func assertNoKey(t *testing.T, what, s string) {
	t.Helper()
	assert.NotContains(t, strings.ToLower(s), strings.ToLower(hostileKey), "%s shows the key: %s", what, s)
	// Nor the key's two halves, as markup could split it.
	assert.NotContains(t, strings.ToLower(s), hostileKey[:10], "%s shows part of the key: %s", what, s)
}

func TestResponseSize_GzipBombIsRefusedWithinTheLimit(t *testing.T) {
	// Not parallel: it reads the process's allocation counters.
	const limit = 8 << 20
	// A gzip file is a series of members, each inflated after the one
	// before: one member of 1 MiB of zeros (1.3 KB at the fastest level),
	// sent 512 times, is a bomb of 512 MiB, built in milliseconds.
	var member bytes.Buffer
	zw, err := gzip.NewWriterLevel(&member, gzip.BestSpeed)
	require.NoError(t, err)
	_, err = zw.Write(make([]byte, 1<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	compressed := bytes.Repeat(member.Bytes(), 512) // 512 MiB once inflated
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(compressed)
	})
	c := hostileClient(t, srv.URL, WithMaxResponseSize(limit))

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.GetProfile(t.Context(), "pf_1")
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.Contains(t, err.Error(), strconv.Itoa(limit))
	allocated := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, allocated, uint64(2*limit), "allocated %d bytes reading a bomb with a limit of %d", allocated, limit)
}

func TestResponseSize_EndlessBodyStopsAtTheLimit(t *testing.T) {
	t.Parallel()
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	// No attempt timeout: only the limit can end the call.
	c := hostileClient(t, srv.URL, WithMaxResponseSize(1<<20), WithRequestTimeout(0))
	_, err := c.GetProfile(t.Context(), "pf_1")
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.NotErrorIs(t, err, ErrRequestTimeout)
}

func TestResponseSize_AnnouncedLengthBeyondTheLimitIsNotAllocated(t *testing.T) {
	// Not parallel: it reads the process's allocation counters.
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		rawAnswer(w, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 66060288\r\n\r\n{\"id\":\"pf_1\"}")
	})
	c := hostileClient(t, srv.URL, WithMaxRetries(0))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := c.GetProfile(t.Context(), "pf_1")
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "a 63 MiB Content-Length must not be allocated")
}

func TestResponseSize_Option(t *testing.T) {
	t.Parallel()
	_, err := NewClient(WithAPIKey(hostileKey), WithBaseURL("http://x"), WithMaxResponseSize(0))
	assert.ErrorContains(t, err, "must be positive")

	body := `{"id":"pf_1","name":"` + strings.Repeat("a", 2000) + `"}`
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, body) })
	_, err = hostileClient(t, srv.URL, WithMaxResponseSize(int64(len(body)))).GetProfile(t.Context(), "pf_1")
	assert.NoError(t, err, "an answer of exactly the limit is read")
	_, err = hostileClient(t, srv.URL, WithMaxResponseSize(int64(len(body)-1)), WithMaxRetries(3)).GetProfile(t.Context(), "pf_1")
	assert.ErrorIs(t, err, ErrResponseTooLarge)
}

func TestResponseSize_ReportsAreStreamedWithoutLimit(t *testing.T) {
	t.Parallel()
	pdf := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 3<<20)...)
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(pdf)
	})
	rep, err := hostileClient(t, srv.URL, WithMaxResponseSize(1<<20)).DownloadReport(t.Context(), "analysis_1", nil)
	require.NoError(t, err)
	n, err := rep.WriteTo(io.Discard)
	require.NoError(t, err)
	assert.EqualValues(t, len(pdf), n)
}

// TestKeyNeverLeaks has a broken server echo the key where Go's transport
// quotes it, or in forms a plain search misses, and checks every string
// the SDK gives: the error, an *APIError's fields, an *url.Error reached
// with errors.As, and the log lines of the retries.
func TestKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	upper := strings.ToUpper(hostileKey)
	split := "<p>" + hostileKey[:10] + "<b>" + hostileKey[10:] + "</b></p>"
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"in the status line", func(w http.ResponseWriter, r *http.Request) {
			rawAnswer(w, "HTTP/1.1 "+hostileKey+"\r\nContent-Length: 0\r\n\r\n")
		}},
		{"in a header line without a colon", func(w http.ResponseWriter, r *http.Request) {
			rawAnswer(w, "HTTP/1.1 200 OK\r\nX-Echo "+hostileKey+"\r\nContent-Length: 0\r\n\r\n")
		}},
		{"as the Content-Length", func(w http.ResponseWriter, r *http.Request) {
			rawAnswer(w, "HTTP/1.1 200 OK\r\nContent-Length: "+hostileKey+"\r\n\r\n")
		}},
		{"upper-cased in an error body", func(w http.ResponseWriter, r *http.Request) {
			respondError(w, http.StatusBadRequest, "BAD_KEY_"+upper, "the key "+upper+" is wrong")
		}},
		{"split by markup in an HTML page", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html><body>"+split+"</body></html>")
		}},
		{"in X-Request-Id", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-Id", "req-"+hostileKey)
			respondError(w, http.StatusNotFound, CodeNotFound, "gone")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := hostileServer(t, tt.handler)
			var logs testutil.LockedBuffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			_, err := hostileClient(t, srv.URL, WithMaxRetries(1), WithLogger(logger)).GetProfile(t.Context(), "pf_1")
			require.Error(t, err)
			assertNoKey(t, "the error", err.Error())
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				assertNoKey(t, "APIError.Code", apiErr.Code)
				assertNoKey(t, "APIError.Message", apiErr.Message)
				assertNoKey(t, "APIError.Body", string(apiErr.Body))
				assertNoKey(t, "APIError.RequestID", apiErr.RequestID)
			}
			var uerr *url.Error
			if errors.As(err, &uerr) {
				assertNoKey(t, "the *url.Error", uerr.Error())
			}
			assertNoKey(t, "the log", logs.String())
		})
	}
}

func TestTimeoutWhileReadingTheBody(t *testing.T) {
	t.Parallel()
	srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"id":"pf_1",`)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	})
	var attempts atomic.Int32
	count := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		attempts.Add(1)
		return next(req)
	}
	_, err := hostileClient(t, srv.URL, WithRequestTimeout(100*time.Millisecond), WithMiddleware(count)).GetProfile(t.Context(), "pf_1")
	require.ErrorIs(t, err, ErrRequestTimeout, "as a timeout before the headers is")
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the caller's context did not end")
	assert.EqualValues(t, DefaultMaxRetries+1, attempts.Load(), "an idempotent call is retried after it")
}

func TestRedirectToAnotherHostNeverCarriesTheKey(t *testing.T) {
	t.Parallel()
	var foreignKey, homeKey atomic.Value
	foreignKey.Store("")
	homeKey.Store("")
	foreign := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		foreignKey.Store(r.Header.Get("x-api-key"))
		respond(w, http.StatusOK, profileJSON)
	})
	home := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/profiles/pf_away":
			http.Redirect(w, r, foreign.URL+"/v1/profiles/pf_1", http.StatusFound)
		case "/v1/profiles/pf_moved":
			http.Redirect(w, r, "/v1/profiles/pf_1", http.StatusFound)
		default:
			homeKey.Store(r.Header.Get("x-api-key"))
			respond(w, http.StatusOK, profileJSON)
		}
	})
	followAll := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	c := hostileClient(t, home.URL, WithHTTPClient(followAll))

	_, err := c.GetProfile(t.Context(), "pf_away")
	require.NoError(t, err, "the caller's policy follows the redirect")
	assert.Empty(t, foreignKey.Load(), "the other host got the key")

	_, err = c.GetProfile(t.Context(), "pf_moved")
	require.NoError(t, err)
	assert.Equal(t, hostileKey, homeKey.Load(), "a redirect within the service keeps the key")

	// The default policy does not follow a redirect to another host.
	_, err = hostileClient(t, home.URL).GetProfile(t.Context(), "pf_away")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusFound, apiErr.StatusCode)
}

func TestWaitForAnalysis_MalformedAnswers(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"not json", "null", `{"id":"","status":"done"}`, `[]`} {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				respond(w, http.StatusOK, body)
			})
			// No deadline: the wait must end on its own.
			a, err := hostileClient(t, srv.URL, WithMaxRetries(2)).WaitForAnalysis(context.Background(), "analysis_1", nil)
			require.ErrorIs(t, err, ErrMalformedResponse)
			assert.Nil(t, a)
			assert.EqualValues(t, 3, n.Load(), "asked once and retried as often as WithMaxRetries allows")
			assert.NotContains(t, err.Error(), "still :")
		})
	}
	t.Run("GetAnalysis", func(t *testing.T) {
		t.Parallel()
		srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, "null") })
		_, err := hostileClient(t, srv.URL).GetAnalysis(t.Context(), "analysis_1", nil)
		assert.ErrorIs(t, err, ErrMalformedResponse)
	})
}
