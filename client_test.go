package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewClient_EnvDefaults(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	t.Setenv(EnvAPIKey, "env-key-1234")
	t.Setenv(EnvBaseURL, srv.URL+"/v1/")

	c, err := NewClient()
	require.NoError(t, err)
	assert.Equal(t, srv.URL, c.BaseURL())
	_, err = c.GetProfile(context.Background(), "pf_1")
	require.NoError(t, err)

	reqs := srv.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "env-key-1234", reqs[0].Header.Get("x-api-key"))
	assert.Equal(t, "/v1/profiles/pf_1", reqs[0].Path)
}

func TestNewClient_OptionsWinOverEnv(t *testing.T) {
	envSrv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	optSrv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	t.Setenv(EnvAPIKey, "env-key")
	t.Setenv(EnvBaseURL, envSrv.URL)

	tests := []struct {
		name     string
		opts     []Option
		wantSrv  *testServer
		wantKey  string
		otherSrv *testServer
	}{
		{"both options", []Option{WithAPIKey("option-key"), WithBaseURL(optSrv.URL)}, optSrv, "option-key", envSrv},
		{"key option, env URL", []Option{WithAPIKey("option-key")}, envSrv, "option-key", optSrv},
		{"URL option, env key", []Option{WithBaseURL(optSrv.URL)}, optSrv, "env-key", envSrv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			beforeWant, beforeOther := len(tt.wantSrv.requests()), len(tt.otherSrv.requests())
			c, err := NewClient(tt.opts...)
			require.NoError(t, err)
			_, err = c.GetProfile(context.Background(), "pf_1")
			require.NoError(t, err)
			reqs := tt.wantSrv.requests()
			require.Len(t, reqs, beforeWant+1)
			assert.Equal(t, tt.wantKey, reqs[len(reqs)-1].Header.Get("x-api-key"))
			assert.Len(t, tt.otherSrv.requests(), beforeOther)
		})
	}
}

func TestNewClient_MissingKeyOrURL(t *testing.T) {
	tests := []struct {
		name    string
		envKey  string
		envURL  string
		opts    []Option
		wantErr string
	}{
		{"nothing at all", "", "", nil, EnvAPIKey},
		{"no key", "", "https://api.example.com", nil, EnvAPIKey},
		{"no key with URL option", "", "", []Option{WithBaseURL("https://api.example.com")}, EnvAPIKey},
		{"blank key", "   ", "https://api.example.com", nil, EnvAPIKey},
		{"no URL", "key", "", nil, EnvBaseURL},
		{"no URL with key option", "", "", []Option{WithAPIKey("key")}, EnvBaseURL},
		{"blank URL", "key", "  ", nil, EnvBaseURL},
		{"key with a line break", "", "https://api.example.com", []Option{WithAPIKey("abc\r\nX-Evil: 1")}, "line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvAPIKey, tt.envKey)
			t.Setenv(EnvBaseURL, tt.envURL)
			c, err := NewClient(tt.opts...)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestNewClient_BaseURLForms(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	tests := []struct {
		suffix   string
		wantPath string
		wantBase string
	}{
		{"", "/v1/profiles/pf_1", ""},
		{"/", "/v1/profiles/pf_1", ""},
		{"/v1", "/v1/profiles/pf_1", ""},
		{"/v1/", "/v1/profiles/pf_1", ""},
		{"/prefix", "/prefix/v1/profiles/pf_1", "/prefix"},
		{"/prefix/", "/prefix/v1/profiles/pf_1", "/prefix"},
		{"/prefix/v1", "/prefix/v1/profiles/pf_1", "/prefix"},
		{"/prefix/v1/", "/prefix/v1/profiles/pf_1", "/prefix"},
		{"/a/b/v1/", "/a/b/v1/profiles/pf_1", "/a/b"},
	}
	for _, tt := range tests {
		t.Run("base"+tt.suffix, func(t *testing.T) {
			before := len(srv.requests())
			c := srv.client(t, WithBaseURL(srv.URL+tt.suffix))
			assert.Equal(t, srv.URL+tt.wantBase, c.BaseURL())
			_, err := c.GetProfile(context.Background(), "pf_1")
			require.NoError(t, err)
			reqs := srv.requests()
			require.Len(t, reqs, before+1)
			assert.Equal(t, tt.wantPath, reqs[len(reqs)-1].Path)
		})
	}
}

// clearClientEnv empties the variables NewClient reads, so that the
// machine's own settings cannot leak into a test.
func clearClientEnv(t *testing.T) {
	t.Helper()
	t.Setenv(EnvAPIKey, "")
	t.Setenv(EnvBaseURL, "")
}

func TestNewClient_BadBaseURL(t *testing.T) {
	tests := []struct {
		name string
		url  string
	}{
		{"no scheme", "api.example.com"},
		{"no scheme with path", "api.example.com/v1"},
		{"ftp", "ftp://api.example.com"},
		{"file", "file:///etc/passwd"},
		{"no host", "http://"},
		{"no host with path", "https:///v1"},
		{"with query", "https://api.example.com/v1?x=1"},
		{"with fragment", "https://api.example.com/#top"},
		{"with user info", "https://user:pass@api.example.com"},
		{"unparsable", "://api.example.com"},
		{"bad port", "http://api.example.com:port"},
		{"control character", "http://api.example.com/\x7f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearClientEnv(t)
			c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL(tt.url))
			require.Error(t, err)
			assert.Nil(t, c)
			assert.Contains(t, err.Error(), "base URL")
			assert.NotContains(t, err.Error(), testAPIKey)
		})
	}
}

func TestNewClient_BadNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opt     Option
		wantErr bool
	}{
		{"negative retries", WithMaxRetries(-1), true},
		{"zero retries", WithMaxRetries(0), false},
		{"negative request timeout", WithRequestTimeout(-time.Nanosecond), true},
		{"zero request timeout", WithRequestTimeout(0), false},
		{"zero min wait", WithRetryWait(0, time.Second), true},
		{"negative min wait", WithRetryWait(-time.Millisecond, time.Second), true},
		{"negative max wait", WithRetryWait(time.Millisecond, -time.Second), true},
		{"min above max", WithRetryWait(2*time.Second, time.Second), true},
		{"zero max wait", WithRetryWait(time.Second, 0), true},
		{"min equals max", WithRetryWait(time.Second, time.Second), false},
		{"sane waits", WithRetryWait(100*time.Millisecond, 10*time.Second), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("https://api.example.com"), tt.opt)
			if tt.wantErr {
				assert.Error(t, err)
				assert.Nil(t, c)
				if err != nil {
					assert.True(t, strings.HasPrefix(err.Error(), "profilesvc: "), "error %q", err)
				}
			} else {
				assert.NoError(t, err)
				assert.NotNil(t, c)
			}
		})
	}
}

func TestNewClient_UserAgent(t *testing.T) {
	t.Parallel()
	sdkUA := "profilesvc-go/" + Version + " go/" + strings.TrimPrefix(runtime.Version(), "go")
	tests := []struct {
		name string
		opts []Option
		want string
	}{
		{"default", nil, sdkUA},
		{"caller's product first", []Option{WithUserAgent("myapp/1.2")}, "myapp/1.2 " + sdkUA},
		{"empty is ignored", []Option{WithUserAgent("")}, sdkUA},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
			_, err := srv.client(t, tt.opts...).GetProfile(context.Background(), "pf_1")
			require.NoError(t, err)
			assert.Equal(t, tt.want, srv.requests()[0].Header.Get("User-Agent"))
		})
	}
}

func TestNewClient_WithHTTPClientTransport(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	counter := &countingTransport{base: http.DefaultTransport}
	hc := &http.Client{Transport: counter, Timeout: 7 * time.Second}
	c := srv.client(t, WithHTTPClient(hc))
	_, err := c.GetProfile(context.Background(), "pf_1")
	require.NoError(t, err)
	_, err = c.CreateProfile(context.Background(), "wf_1", CreateProfileParams{Name: "Jane"})
	require.NoError(t, err)
	assert.Equal(t, int32(2), counter.n.Load(), "every request goes through the given transport")
	assert.Len(t, srv.requests(), 2)

	// The caller's client is not changed.
	assert.Equal(t, http.RoundTripper(counter), hc.Transport)
	assert.Equal(t, 7*time.Second, hc.Timeout)
	assert.Nil(t, hc.CheckRedirect)
}

func TestNewClient_WithHTTPClientTimeoutIsPerRequest(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		holdRequest(r, 150*time.Millisecond)
		if strings.HasPrefix(r.URL.Path, "/v1/analyses/") {
			respond(w, http.StatusOK, completedAnalysisJSON)
			return
		}
		respond(w, http.StatusOK, profileJSON)
	})

	t.Run("timeout bounds an ordinary request", func(t *testing.T) {
		c := srv.client(t, WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}), WithMaxRetries(0))
		_, err := c.GetProfile(context.Background(), "pf_1")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "timed out")
	})
	t.Run("timeout does not cut a long poll", func(t *testing.T) {
		c := srv.client(t, WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}), WithMaxRetries(0))
		a, err := c.GetAnalysis(context.Background(), "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 10 * time.Second})
		require.NoError(t, err)
		assert.Equal(t, AnalysisCompleted, a.Status)
	})
	t.Run("WithRequestTimeout wins over the client's timeout", func(t *testing.T) {
		c := srv.client(t, WithHTTPClient(&http.Client{Timeout: 50 * time.Millisecond}), WithRequestTimeout(5*time.Second), WithMaxRetries(0))
		_, err := c.GetProfile(context.Background(), "pf_1")
		require.NoError(t, err)
	})
}

func TestNewClient_RedirectToOtherHostNotFollowed(t *testing.T) {
	t.Parallel()
	other := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	tests := []struct {
		name   string
		status int
		call   sdkCall
	}{
		{"302 on GET", http.StatusFound, idempotentCalls[0]},
		{"301 on GET", http.StatusMovedPermanently, idempotentCalls[0]},
		{"307 on POST", http.StatusTemporaryRedirect, postCalls[0]},
		{"308 on PATCH", http.StatusPermanentRedirect, idempotentCalls[1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path, tt.status)
			})
			err := tt.call.call(context.Background(), srv.client(t))
			require.Error(t, err)
			var apiErr *APIError
			if assert.ErrorAs(t, err, &apiErr) {
				assert.Equal(t, tt.status, apiErr.StatusCode)
			}
			assert.Len(t, srv.requests(), 1)
			assert.Empty(t, other.requests(), "the API key must never reach another host")
		})
	}
}

func TestNewClient_RedirectOnSameHostFollowed(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/profiles/pf_old" {
			http.Redirect(w, r, "/v1/profiles/pf_1", http.StatusFound)
			return
		}
		respond(w, http.StatusOK, profileJSON)
	})
	p, err := srv.client(t).GetProfile(context.Background(), "pf_old")
	require.NoError(t, err)
	assert.Equal(t, "pf_1", p.ID)
	reqs := srv.requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "/v1/profiles/pf_1", reqs[1].Path)
	assert.Equal(t, testAPIKey, reqs[1].Header.Get("x-api-key"))
}

func TestClient_APIKeyNeverLogged(t *testing.T) {
	t.Parallel()
	var flaky atomic.Int32
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/profiles/pf_ok":
			respond(w, http.StatusOK, profileJSON)
		case "/v1/profiles/pf_flaky":
			if flaky.Add(1) < 3 {
				respondError(w, http.StatusServiceUnavailable, CodeServiceUnavailable, "busy")
				return
			}
			respond(w, http.StatusOK, profileJSON)
		case "/v1/profiles/pf_down":
			respondError(w, http.StatusInternalServerError, CodeInternal, "boom")
		case "/v1/profiles/pf_drop":
			dropConnection(w, r)
		case "/v1/workflows/wf_1/profiles":
			respondError(w, http.StatusUnauthorized, CodeUnauthorized, "invalid API key")
		default:
			respondError(w, http.StatusNotFound, CodeNotFound, "no route")
		}
	})
	logger, buf := newDebugLogger()
	c := srv.client(t, WithLogger(logger))
	ctx := context.Background()

	_, err := c.GetProfile(ctx, "pf_ok")
	assert.NoError(t, err)
	_, err = c.GetProfile(ctx, "pf_flaky")
	assert.NoError(t, err)
	_, err = c.GetProfile(ctx, "pf_down")
	assert.Error(t, err)
	_, err = c.GetProfile(ctx, "pf_drop")
	assert.Error(t, err)
	_, err = c.CreateProfile(ctx, "wf_1", CreateProfileParams{Name: "Jane"})
	assert.ErrorIs(t, err, ErrUnauthorized)
	_, err = c.GetProfile(ctx, "pf_missing")
	assert.ErrorIs(t, err, ErrNotFound)

	refused, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("http://"+closedAddr(t)),
		WithRetryWait(time.Millisecond, 5*time.Millisecond), WithLogger(logger))
	require.NoError(t, err)
	_, err = refused.StartAnalysis(ctx, "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
	assert.Error(t, err)

	logs := buf.String()
	require.NotEmpty(t, logs)
	assert.Contains(t, logs, `"level":"DEBUG"`, "debug lines are written")
	assert.Contains(t, logs, "retrying request", "retries are logged")
	assert.Contains(t, logs, "pf_flaky")
	assert.Contains(t, logs, "connection refused")
	assertLogLinesWithout(t, logs, testAPIKey)
}

func TestClient_APIKeyNeverLoggedWhenServerEchoesIt(t *testing.T) {
	t.Parallel()
	// A server (or a proxy) that repeats the key it got in its error
	// message must not make the SDK's own log lines carry it.
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respondError(w, http.StatusServiceUnavailable, CodeServiceUnavailable, "key "+r.Header.Get("x-api-key")+" is throttled")
	})
	logger, buf := newDebugLogger()
	_, err := srv.client(t, WithLogger(logger), WithMaxRetries(1)).GetProfile(context.Background(), "pf_1")
	require.Error(t, err)
	logs := buf.String()
	require.NotEmpty(t, logs)
	assertLogLinesWithout(t, logs, testAPIKey)
}

func TestClient_APIKeyNotInErrors(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/profiles/pf_401":
			respondError(w, http.StatusUnauthorized, CodeUnauthorized, "invalid API key")
		case "/v1/profiles/pf_500":
			respondError(w, http.StatusInternalServerError, CodeInternal, "boom")
		case "/v1/profiles/pf_slow":
			holdRequest(r, time.Second)
		case "/v1/profiles/pf_echo401":
			respondError(w, http.StatusUnauthorized, CodeUnauthorized, "API key "+r.Header.Get("x-api-key")+" is not valid")
		case "/v1/profiles/pf_echo503":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "<html><body>Upstream refused key "+r.Header.Get("x-api-key")+"</body></html>")
		default:
			respond(w, http.StatusOK, profileJSON)
		}
	})
	c := srv.client(t)
	refused, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("http://"+closedAddr(t)),
		WithRetryWait(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)

	tests := []struct {
		name string
		call func() error
	}{
		{"401", func() error { _, err := c.GetProfile(context.Background(), "pf_401"); return err }},
		{"500 after retries", func() error { _, err := c.GetProfile(context.Background(), "pf_500"); return err }},
		{"401 echoing the key", func() error { _, err := c.GetProfile(context.Background(), "pf_echo401"); return err }},
		{"503 page echoing the key, after retries", func() error {
			_, err := c.GetProfile(context.Background(), "pf_echo503")
			return err
		}},
		{"connection refused", func() error {
			_, err := refused.CreateProfile(context.Background(), "wf_1", CreateProfileParams{Name: "x"})
			return err
		}},
		{"invalid ID", func() error { _, err := c.GetProfile(context.Background(), ""); return err }},
		{"attempt timeout", func() error {
			_, err := c.GetProfile(context.Background(), "pf_slow", WithTimeout(20*time.Millisecond), WithRetries(1))
			return err
		}},
		{"context deadline", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := c.GetProfile(ctx, "pf_slow")
			return err
		}},
		{"NewClient bad URL", func() error {
			_, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("ftp://api.example.com"))
			return err
		}},
		{"NewClient URL with the key as user info", func() error {
			_, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("https://user:"+testAPIKey+"@api.example.com"))
			return err
		}},
		{"NewClient URL with the key in the query", func() error {
			_, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("https://api.example.com/v1?api_key="+testAPIKey))
			return err
		}},
		{"NewClient unparsable URL holding the key", func() error {
			_, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("https://user:"+testAPIKey+"@api.example.com:port"))
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			assert.NotContains(t, err.Error(), testAPIKey)
			assert.NotContains(t, fmt.Sprintf("%+v", err), testAPIKey)
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				assert.NotContains(t, string(apiErr.Body), testAPIKey)
				assert.NotContains(t, apiErr.Message, testAPIKey)
			}
		})
	}
}

func TestClient_RequestTimeoutBoundsOneAttempt(t *testing.T) {
	t.Parallel()
	// The server never answers: only the attempt's own limit ends each
	// attempt.
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	// The attempts are counted, and their deadlines read, on the client's
	// side: the server may not have seen the last attempt yet when the
	// call returns.
	var attempts atomic.Int32
	var limits []time.Duration
	var mu sync.Mutex
	count := func(req *http.Request, next MiddlewareNext) (*http.Response, error) {
		attempts.Add(1)
		if dl, ok := req.Context().Deadline(); ok {
			mu.Lock()
			limits = append(limits, time.Until(dl))
			mu.Unlock()
		}
		return next(req)
	}
	_, err := srv.client(t, WithRequestTimeout(50*time.Millisecond), WithMiddleware(count)).GetProfile(context.Background(), "pf_1")
	require.Error(t, err)
	assert.EqualValues(t, DefaultMaxRetries+1, attempts.Load(), "a timed-out GET is retried")
	mu.Lock()
	require.Len(t, limits, DefaultMaxRetries+1, "every attempt has a deadline")
	for i, d := range limits {
		assert.LessOrEqual(t, d, 50*time.Millisecond, "attempt %d", i+1)
	}
	mu.Unlock()
	assert.LessOrEqual(t, len(srv.requests()), DefaultMaxRetries+1)
	assert.Contains(t, err.Error(), "after 4 attempts")
	assert.Contains(t, err.Error(), "timed out")
	assert.ErrorIs(t, err, ErrRequestTimeout)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the caller's context did not run out")
	assert.NotErrorIs(t, err, context.Canceled)
}

func TestClient_RequestTimeoutCoversTheBody(t *testing.T) {
	t.Parallel()
	// The server sends the head of its answer and the start of the body,
	// then holds the rest far longer than an attempt may last: only an
	// attempt limit that covers the body ends the call before the server
	// finishes, and it does so by cutting each body short.
	var cut, finished atomic.Int32
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, `{"id":"pf_1",`)
		w.(http.Flusher).Flush()
		if holdRequest(r, 10*time.Second) {
			cut.Add(1)
			return
		}
		finished.Add(1)
		_, _ = io.WriteString(w, `"name":"Jane"}`)
	})
	_, err := srv.client(t, WithRequestTimeout(100*time.Millisecond)).GetProfile(context.Background(), "pf_1")
	require.Error(t, err)
	srv.Close() // waits for the handlers to end
	assert.Zero(t, finished.Load(), "the server finished a body: the attempt's limit did not cut it")
	assert.EqualValues(t, len(srv.requests()), cut.Load(), "every attempt's body was cut short by the client")
}

func TestClient_LongPollNotCutByRequestTimeout(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		holdRequest(r, 200*time.Millisecond)
		respond(w, http.StatusOK, completedAnalysisJSON)
	})
	c := srv.client(t, WithRequestTimeout(50*time.Millisecond), WithMaxRetries(0))

	a, err := c.GetAnalysis(context.Background(), "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 10 * time.Second})
	require.NoError(t, err, "a long poll's limit is its hold plus a margin")
	assert.Equal(t, "analysis_1", a.ID)
	reqs := srv.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "true", reqs[0].Query.Get("waitForReport"))
	assert.Equal(t, "10", reqs[0].Query.Get("timeoutSeconds"))

	// The same request without the long poll is bound by the timeout.
	_, err = c.GetAnalysis(context.Background(), "analysis_1", nil)
	assert.Error(t, err)
}

func TestClient_RequestOptionsChangeOneCall(t *testing.T) {
	t.Parallel()
	t.Run("WithTimeout", func(t *testing.T) {
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			holdRequest(r, 120*time.Millisecond)
			respond(w, http.StatusOK, profileJSON)
		})
		c := srv.client(t, WithMaxRetries(0))
		_, err := c.GetProfile(context.Background(), "pf_1", WithTimeout(30*time.Millisecond))
		assert.Error(t, err)
		_, err = c.GetProfile(context.Background(), "pf_1")
		assert.NoError(t, err, "the next call has the client's timeout again")

		// And the other way round: a longer timeout for one call.
		short := srv.client(t, WithMaxRetries(0), WithRequestTimeout(30*time.Millisecond))
		_, err = short.GetProfile(context.Background(), "pf_1", WithTimeout(5*time.Second))
		assert.NoError(t, err)
		_, err = short.GetProfile(context.Background(), "pf_1")
		assert.Error(t, err)
	})

	t.Run("WithRetries", func(t *testing.T) {
		srv := newTestServer(t, answerStatus(http.StatusServiceUnavailable))
		c := srv.client(t)
		_, err := c.GetProfile(context.Background(), "pf_1", WithRetries(1))
		assert.Error(t, err)
		assert.Len(t, srv.requests(), 2)
		_, err = c.GetProfile(context.Background(), "pf_1", WithRetries(0))
		assert.Error(t, err)
		assert.Len(t, srv.requests(), 3)
		_, err = c.GetProfile(context.Background(), "pf_1")
		assert.Error(t, err)
		assert.Len(t, srv.requests(), 3+DefaultMaxRetries+1, "the next call has the client's retries again")

		none := srv.client(t, WithMaxRetries(0))
		_, err = none.GetProfile(context.Background(), "pf_1", WithRetries(2))
		assert.Error(t, err)
		assert.Len(t, srv.requests(), 3+DefaultMaxRetries+1+3)
	})

	t.Run("WithHeader", func(t *testing.T) {
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
		c := srv.client(t)
		_, err := c.GetProfile(context.Background(), "pf_1", WithHeader("X-Trace-Id", "t-1"), WithHeader("X-Trace-Id", "t-2"), WithHeader("Idempotency-Key", "k"))
		require.NoError(t, err)
		_, err = c.GetProfile(context.Background(), "pf_1")
		require.NoError(t, err)
		reqs := srv.requests()
		require.Len(t, reqs, 2)
		if diff := cmp.Diff([]string{"t-1", "t-2"}, reqs[0].Header.Values("X-Trace-Id")); diff != "" {
			t.Errorf("X-Trace-Id mismatch (-want +got):\n%s", diff)
		}
		assert.Equal(t, "k", reqs[0].Header.Get("Idempotency-Key"))
		assert.Empty(t, reqs[1].Header.Values("X-Trace-Id"), "the header belongs to one call only")
		assert.Empty(t, reqs[1].Header.Get("Idempotency-Key"))
	})

	t.Run("WithHeader cannot replace the API key", func(t *testing.T) {
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
		_, err := srv.client(t).GetProfile(context.Background(), "pf_1", WithHeader("X-Api-Key", "someone-else"))
		require.NoError(t, err)
		if diff := cmp.Diff([]string{testAPIKey}, srv.requests()[0].Header.Values("x-api-key")); diff != "" {
			t.Errorf("x-api-key mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestClient_InvalidIDSendsNothing(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, profileJSON) })
	c := srv.client(t)
	for _, id := range []string{"", ".", ".."} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			_, err := c.GetProfile(context.Background(), id)
			assert.ErrorIs(t, err, ErrInvalidID)
			var apiErr *APIError
			assert.False(t, errors.As(err, &apiErr))
		})
	}
	assert.Empty(t, srv.requests())
}

// TestVersionIsSemantic checks that Version is a semantic version
// (semver.org 2.0.0), as the User-Agent and the module's tags need.
func TestVersionIsSemantic(t *testing.T) {
	t.Parallel()
	semver := regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	assert.Regexp(t, semver, Version)
}
