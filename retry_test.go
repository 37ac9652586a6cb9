package profilesvc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// ---- policy functions on their own ----

func TestIsIdempotent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method string
		want   bool
	}{
		{http.MethodGet, true},
		{http.MethodHead, true},
		{http.MethodOptions, true},
		{http.MethodPut, true},
		{http.MethodPatch, true},
		{http.MethodDelete, true},
		{http.MethodPost, false},
		{http.MethodConnect, false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			assert.Equal(t, tt.want, isIdempotent(tt.method))
		})
	}
}

func TestRetryableStatus(t *testing.T) {
	t.Parallel()
	idempotent := map[int]bool{
		200: false, 201: false, 204: false, 301: false,
		400: false, 401: false, 403: false, 404: false, 409: false, 413: false, 422: false,
		429: true,
		500: true, 501: false, 502: true, 503: true, 504: true, 505: false,
	}
	post := map[int]bool{
		400: false, 401: false, 404: false, 409: false,
		429: true,
		500: false, 501: false, 502: false, 503: true, 504: false,
	}
	for _, method := range []string{http.MethodGet, http.MethodPatch, http.MethodDelete} {
		for status, want := range idempotent {
			t.Run(method+"/"+strconv.Itoa(status), func(t *testing.T) {
				assert.Equal(t, want, retryableStatus(isIdempotent(method), status))
			})
		}
	}
	for status, want := range post {
		t.Run("POST/"+strconv.Itoa(status), func(t *testing.T) {
			assert.Equal(t, want, retryableStatus(isIdempotent(http.MethodPost), status))
		})
	}
}

// realDialError returns the error of a dial to a port nothing
// listens on.
func realDialError(t *testing.T) error {
	t.Helper()
	addr := closedAddr(t)
	_, err := http.Get("http://" + addr + "/")
	require.Error(t, err)
	return err
}

// realCertError returns the error of a request to a TLS server
// whose certificate the client does not trust.
func realCertError(t *testing.T) error {
	t.Helper()
	srv := untrustedTLSServer(t)
	_, err := (&http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}).Get(srv.URL)
	require.Error(t, err)
	return err
}

func TestRetryableError(t *testing.T) {
	t.Parallel()
	dial := &url.Error{Op: "Post", URL: "http://x/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	dns := &url.Error{Op: "Get", URL: "http://x/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}}
	bareDNS := &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}
	reset := &url.Error{Op: "Post", URL: "http://x/v1", Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}
	unexpectedEOF := &url.Error{Op: "Post", URL: "http://x/v1", Err: io.ErrUnexpectedEOF}
	attemptTimeout := &url.Error{Op: "Post", URL: "http://x/v1", Err: fmt.Errorf("%w after 1s (%v)", ErrRequestTimeout, context.DeadlineExceeded)}

	tests := []struct {
		name     string
		err      error
		wantGET  bool
		wantPOST bool
	}{
		{"nil", nil, false, false},
		{"context canceled", context.Canceled, false, false},
		{"wrapped context canceled", &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}, false, false},
		{"dial refused", dial, true, true},
		{"dns failure", dns, true, true},
		{"bare dns error", bareDNS, true, true},
		{"real dial error", realDialError(t), true, true},
		{"unexpected EOF", unexpectedEOF, true, false},
		{"bare unexpected EOF", io.ErrUnexpectedEOF, true, false},
		{"EOF", io.EOF, true, false},
		{"connection reset after sending", reset, true, false},
		{"attempt timeout", attemptTimeout, true, false},
		{"x509 unknown authority", &url.Error{Op: "Get", URL: "https://x", Err: x509.UnknownAuthorityError{}}, false, false},
		{"x509 hostname", &url.Error{Op: "Get", URL: "https://x", Err: x509.HostnameError{Certificate: &x509.Certificate{}, Host: "x"}}, false, false},
		{"x509 expired", &url.Error{Op: "Get", URL: "https://x", Err: x509.CertificateInvalidError{Reason: x509.Expired}}, false, false},
		{"tls verification", &url.Error{Op: "Get", URL: "https://x", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, false, false},
		{"real untrusted certificate", realCertError(t), false, false},
		{"unsupported scheme", &url.Error{Op: "Get", URL: "ftp://x", Err: errors.New(`unsupported protocol scheme "ftp"`)}, false, false},
		{"too many redirects", &url.Error{Op: "Get", URL: "http://x", Err: errors.New("stopped after 10 redirects")}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantGET, retryableError(true, tt.err), "GET")
			assert.Equal(t, tt.wantPOST, retryableError(false, tt.err), "POST")
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	const (
		min = 100 * time.Millisecond
		max = 10 * time.Second
	)
	jitterZero := func() float64 { return 0 }
	jitterHigh := func() float64 { return 0.999 }

	t.Run("exact steps with zero jitter", func(t *testing.T) {
		want := []time.Duration{
			50 * time.Millisecond,   // 100ms
			100 * time.Millisecond,  // 200ms
			200 * time.Millisecond,  // 400ms
			400 * time.Millisecond,  // 800ms
			800 * time.Millisecond,  // 1.6s
			1600 * time.Millisecond, // 3.2s
			3200 * time.Millisecond, // 6.4s
			5 * time.Second,         // 12.8s capped at 10s
			5 * time.Second,
		}
		var got []time.Duration
		for n := range want {
			got = append(got, backoff(min, max, n, jitterZero))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("backoff (-want +got):\n%s", diff)
		}
	})

	for _, j := range []struct {
		name string
		f    func() float64
	}{{"jitter 0", jitterZero}, {"jitter 0.5", func() float64 { return 0.5 }}, {"jitter 0.999", jitterHigh}} {
		t.Run("bounds/"+j.name, func(t *testing.T) {
			prev := time.Duration(0)
			for n := 0; n < 70; n++ {
				step := min
				for i := 0; i < n && step < max; i++ {
					step *= 2
				}
				if step > max {
					step = max
				}
				got := backoff(min, max, n, j.f)
				assert.GreaterOrEqual(t, got, step/2, "attempt %d", n)
				assert.LessOrEqual(t, got, step, "attempt %d", n)
				assert.GreaterOrEqual(t, got, prev, "attempt %d: backoff must not shrink", n)
				prev = got
			}
		})
	}

	t.Run("high jitter stays below the step", func(t *testing.T) {
		assert.Less(t, backoff(min, max, 0, jitterHigh), min)
		assert.Greater(t, backoff(min, max, 0, jitterHigh), 99*time.Millisecond)
		assert.Less(t, backoff(min, max, 100, jitterHigh), max)
	})

	t.Run("huge attempt does not overflow", func(t *testing.T) {
		got := backoff(min, max, 1<<30, jitterHigh)
		assert.Greater(t, got, max/2-1)
		assert.LessOrEqual(t, got, max)
		got = backoff(time.Duration(1)<<62, time.Duration(1<<63-1), 5, jitterZero)
		assert.Greater(t, got, time.Duration(0))
	})

	t.Run("min equals max", func(t *testing.T) {
		for n := 0; n < 5; n++ {
			got := backoff(time.Second, time.Second, n, jitterZero)
			assert.Equal(t, 500*time.Millisecond, got)
		}
	})

	t.Run("zero min means no wait", func(t *testing.T) {
		assert.Equal(t, time.Duration(0), backoff(0, time.Second, 3, jitterHigh))
	})
}

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		value  string
		want   time.Duration
		wantOK bool
	}{
		{"empty", "", 0, false},
		{"blank", "   ", 0, false},
		{"zero seconds", "0", 0, true},
		{"one second", "1", time.Second, true},
		{"seconds", "120", 120 * time.Second, true},
		{"seconds with spaces", " 7 ", 7 * time.Second, true},
		{"negative", "-1", 0, false},
		{"fraction", "1.5", 0, false},
		{"garbage", "soon", 0, false},
		{"number and unit", "10s", 0, false},
		{"http date in the future", now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"rfc850 date in the future", now.Add(time.Hour).Format(time.RFC850), time.Hour, true},
		{"asctime date in the future", now.Add(2 * time.Minute).Format(time.ANSIC), 2 * time.Minute, true},
		{"http date now", now.Format(http.TimeFormat), 0, true},
		{"http date in the past", now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"malformed date", "Tue, 99 Mar 2025 10:00:00 GMT", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.value, now)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}

	t.Run("huge number does not overflow", func(t *testing.T) {
		got, ok := parseRetryAfter("9223372036854775807", now)
		assert.True(t, ok)
		assert.Greater(t, got, 100*365*24*time.Hour)
		got, ok = parseRetryAfter("99999999999999999999999", now)
		if ok {
			assert.Greater(t, got, time.Duration(0))
		}
	})
}

// ---- retry behaviour end to end ----

func TestRetry_IdempotentRetriedThenSucceeds(t *testing.T) {
	t.Parallel()
	for _, call := range idempotentCalls {
		for _, status := range []int{429, 500, 502, 503, 504} {
			t.Run(call.name+"/"+strconv.Itoa(status), func(t *testing.T) {
				srv := newTestServer(t, answerInTurn(answerStatus(status), answerStatus(status), answerOK))
				err := call.call(context.Background(), srv.client(t))
				require.NoError(t, err)
				reqs := srv.requests()
				require.Len(t, reqs, 3)
				for _, r := range reqs {
					assert.Equal(t, reqs[0].Method, r.Method)
					assert.Equal(t, reqs[0].Path, r.Path)
					assert.Equal(t, string(reqs[0].Body), string(r.Body), "the same body is sent again")
					assert.Equal(t, testAPIKey, r.Header.Get("x-api-key"))
				}
			})
		}
	}
}

func TestRetry_IdempotentNotRetriedOnOtherStatuses(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 409, 422, 501} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := newTestServer(t, answerStatus(status))
			_, err := srv.client(t).GetProfile(context.Background(), "pf_1")
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.Equal(t, 1, apiErr.Attempts)
			assert.Len(t, srv.requests(), 1)
		})
	}
}

func TestRetry_GivesUpWithLastAPIError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		opts         []Option
		wantAttempts int
	}{
		{"default retries", nil, DefaultMaxRetries + 1},
		{"one retry", []Option{WithMaxRetries(1)}, 2},
		{"five retries", []Option{WithMaxRetries(5)}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				i := n.Add(1)
				w.Header().Set("X-Request-Id", "req_"+strconv.Itoa(int(i)))
				respondError(w, http.StatusServiceUnavailable, CodeServiceUnavailable, "down for maintenance "+strconv.Itoa(int(i)))
			})
			_, err := srv.client(t, tt.opts...).GetProfile(context.Background(), "pf_1")
			require.Error(t, err)
			assert.Len(t, srv.requests(), tt.wantAttempts)

			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, http.StatusServiceUnavailable, apiErr.StatusCode)
			assert.Equal(t, CodeServiceUnavailable, apiErr.Code)
			assert.Equal(t, tt.wantAttempts, apiErr.Attempts)
			last := strconv.Itoa(tt.wantAttempts)
			assert.Equal(t, "down for maintenance "+last, apiErr.Message, "the last answer's error")
			assert.Equal(t, "req_"+last, apiErr.RequestID)
			assert.Contains(t, err.Error(), last+" attempts")
			assert.NotContains(t, err.Error(), "giving up")
			assert.ErrorIs(t, err, ErrServiceUnavailable)
			assert.ErrorIs(t, err, ErrServer)
		})
	}
}

func TestRetry_MaxRetriesZeroSendsOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"503", answerStatus(503)},
		{"429", answerStatus(429)},
		{"dropped connection", dropConnection},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, tt.handler)
			_, err := srv.client(t, WithMaxRetries(0)).GetProfile(context.Background(), "pf_1")
			require.Error(t, err)
			assert.Len(t, srv.requests(), 1)
			assert.NotContains(t, err.Error(), "attempts")
		})
	}
}

func TestRetry_PostNotRetriedOnAmbiguousFailure(t *testing.T) {
	t.Parallel()
	for _, call := range postCalls {
		for _, status := range []int{500, 502, 504} {
			t.Run(call.name+"/"+strconv.Itoa(status), func(t *testing.T) {
				srv := newTestServer(t, answerInTurn(answerStatus(status), answerOK))
				err := call.call(context.Background(), srv.client(t))
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, status, apiErr.StatusCode)
				assert.Equal(t, 1, apiErr.Attempts)
				assert.ErrorIs(t, err, ErrServer)
				assert.Len(t, srv.requests(), 1, "a POST must not be sent twice after an ambiguous failure")
			})
		}
		// StartAnalysis, alone of the POSTs, reconciles a lost answer: it
		// sends the request once more (see analyses_test.go), so that the
		// 409 of the service's one-running-analysis rule can tell whether
		// the first one acted. Every other POST is sent once.
		sent := 1
		if call.name == "StartAnalysis" {
			sent = 2
		}
		t.Run(call.name+"/dropped connection", func(t *testing.T) {
			srv := newTestServer(t, answerInTurn(dropConnection, answerOK))
			err := call.call(context.Background(), srv.client(t))
			assert.Len(t, srv.requests(), sent, "the request was sent: it must not be sent again")
			if sent == 2 {
				assert.NoError(t, err, "the second start was accepted")
				return
			}
			require.Error(t, err)
			var apiErr *APIError
			assert.False(t, errors.As(err, &apiErr), "no answer, so no *APIError: %v", err)
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
		})
		t.Run(call.name+"/attempt timeout", func(t *testing.T) {
			// Parallel: the attempts' limits are waited for.
			t.Parallel()
			arrived := make(chan struct{}, 4)
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				<-r.Context().Done()
			})
			// The attempt's limit must outlast the request's way to the
			// server on a busy machine, or no request arrives to time out.
			err := call.call(context.Background(), srv.client(t, WithRequestTimeout(time.Second)))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrOutcomeUnknown)
			assert.ErrorIs(t, err, ErrRequestTimeout)
			// The server may record a request after the client gave up
			// on it: wait for each one that was sent.
			for i := range sent {
				select {
				case <-arrived:
				case <-time.After(time.Minute): // a hang guard only
					require.FailNow(t, "request not received", "request %d of %d", i+1, sent)
				}
			}
			assert.Len(t, srv.requests(), sent, "a POST that timed out may have been acted on")
		})
	}
}

func TestRetry_PostRetriedOn429And503(t *testing.T) {
	t.Parallel()
	for _, call := range postCalls {
		for _, status := range []int{429, 503} {
			t.Run(call.name+"/"+strconv.Itoa(status), func(t *testing.T) {
				srv := newTestServer(t, answerInTurn(answerStatus(status), answerStatus(status), answerOK))
				err := call.call(context.Background(), srv.client(t))
				require.NoError(t, err)
				reqs := srv.requests()
				require.Len(t, reqs, 3)
				for _, r := range reqs[1:] {
					assert.Equal(t, string(reqs[0].Body), string(r.Body), "the same body is sent again")
					assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
				}
				assert.NotEmpty(t, reqs[0].Body)
			})
		}
	}
}

func TestRetry_IdempotentRetriedOnDroppedConnection(t *testing.T) {
	t.Parallel()
	for _, call := range idempotentCalls {
		t.Run(call.name, func(t *testing.T) {
			srv := newTestServer(t, answerInTurn(dropConnection, dropConnection, answerOK))
			require.NoError(t, call.call(context.Background(), srv.client(t)))
			assert.GreaterOrEqual(t, len(srv.requests()), 3)
		})
	}
}

func TestRetry_ConnectionRefused(t *testing.T) {
	t.Parallel()
	calls := append(append([]sdkCall{}, postCalls...), idempotentCalls...)
	for _, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			base := "http://" + closedAddr(t)
			counter := &countingTransport{base: http.DefaultTransport}
			c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL(base),
				WithRetryWait(time.Millisecond, 5*time.Millisecond),
				WithHTTPClient(&http.Client{Transport: counter}))
			require.NoError(t, err)

			err = call.call(context.Background(), c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "after 4 attempts")
			assert.Contains(t, err.Error(), "connection refused")
			assert.NotContains(t, err.Error(), testAPIKey)
			var opErr *net.OpError
			require.ErrorAs(t, err, &opErr)
			assert.Equal(t, "dial", opErr.Op)
			assert.Equal(t, int32(DefaultMaxRetries+1), counter.n.Load(), "a request that never connected is retried, POST too")
		})
	}

	t.Run("default transport", func(t *testing.T) {
		c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("http://"+closedAddr(t)),
			WithRetryWait(time.Millisecond, 5*time.Millisecond))
		require.NoError(t, err)
		_, err = c.CreateProfile(context.Background(), "wf_1", CreateProfileParams{Name: "Jane"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "after 4 attempts")
	})
}

func TestRetry_UntrustedCertificateNotRetried(t *testing.T) {
	t.Parallel()
	srv := untrustedTLSServer(t)
	counter := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
	c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL(srv.URL),
		WithRetryWait(time.Millisecond, 5*time.Millisecond),
		WithHTTPClient(&http.Client{Transport: counter}))
	require.NoError(t, err)
	_, err = c.GetProfile(context.Background(), "pf_1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate")
	assert.Equal(t, int32(1), counter.n.Load(), "a certificate error cannot be cured by retrying")
}

func TestRetry_RetryAfterHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		retryAfter func() string
		// minWait and maxWait bound the wait the client chose.
		minWait, maxWait time.Duration
	}{
		{"seconds on 503", http.StatusServiceUnavailable, func() string { return "1" }, time.Second, time.Second},
		// A date has a resolution of a second: 1.5s from now, truncated,
		// is at least half a second away.
		{"http date on 429", http.StatusTooManyRequests, func() string {
			return time.Now().Add(1500 * time.Millisecond).UTC().Format(http.TimeFormat)
		}, 400 * time.Millisecond, 1500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, answerInTurn(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", tt.retryAfter())
				respondError(w, tt.status, "BUSY", "busy")
			}, answerOK))
			// The maximum wait is above the asked-for wait, so it is honoured
			// rather than the 1ms backoff.
			waits := &testutil.RetryWaits{}
			c := srv.client(t, WithRetryWait(time.Millisecond, 5*time.Second), WithLogger(slog.New(waits)))
			_, err := c.CreateProfile(context.Background(), "wf_1", CreateProfileParams{Name: "Jane"})
			require.NoError(t, err)
			assert.Len(t, srv.requests(), 2)
			// The wait chosen is the one asked for, not the maximum, and it
			// is the wait the transport started before the retry.
			got := waits.Waits()
			require.Len(t, got, 1, "the retries logged")
			assert.GreaterOrEqual(t, got[0], tt.minWait, "the wait before the retry")
			assert.LessOrEqual(t, got[0], tt.maxWait, "the wait before the retry")
			assert.Equal(t, got, waits.Started(), "the waits the transport started, want the ones chosen")
		})
	}
}

func TestRetry_RetryAfterBeyondMaxWaitReturnsAtOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		retryAfter string
		sentinel   error
		want       time.Duration
	}{
		{"429 seconds", http.StatusTooManyRequests, "120", ErrRateLimited, 120 * time.Second},
		{"503 seconds", http.StatusServiceUnavailable, "60", ErrServiceUnavailable, 60 * time.Second},
		{"429 http date", http.StatusTooManyRequests, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), ErrRateLimited, time.Hour},
	}
	for _, tt := range tests {
		for _, call := range []sdkCall{idempotentCalls[0], postCalls[0]} {
			t.Run(tt.name+"/"+call.name, func(t *testing.T) {
				srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Retry-After", tt.retryAfter)
					respondError(w, tt.status, "SLOW_DOWN", "slow down")
				})
				// A hang guard only: nothing is waited for.
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				waits := &testutil.RetryWaits{}
				err := call.call(ctx, srv.client(t, WithRetryWait(time.Millisecond, time.Second), WithLogger(slog.New(waits))))
				require.Error(t, err)
				// Not waited for: no wait chosen, none started.
				assert.Empty(t, waits.Waits(), "the waits chosen")
				assert.Empty(t, waits.Started(), "the waits started")
				assert.NotErrorIs(t, err, context.DeadlineExceeded, "the service's error, not a deadline")
				assert.Len(t, srv.requests(), 1)
				assert.ErrorIs(t, err, tt.sentinel)
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.InDelta(t, float64(tt.want), float64(apiErr.RetryAfter), float64(2*time.Second))
			})
		}
	}
}

func TestRetry_WaitPastDeadlineNotStarted(t *testing.T) {
	t.Parallel()
	// Every wait below is an hour or more, the context's deadline a
	// minute away: a wait started would outlast the deadline.
	tests := []struct {
		name    string
		opts    []Option
		handler http.HandlerFunc
		call    sdkCall
	}{
		{
			name: "retry-after past the deadline",
			opts: []Option{WithRetryWait(time.Millisecond, 2*time.Hour)},
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3600")
				respondError(w, http.StatusServiceUnavailable, CodeServiceUnavailable, "later")
			},
			call: idempotentCalls[0],
		},
		{
			name:    "backoff past the deadline",
			opts:    []Option{WithRetryWait(time.Hour, 2*time.Hour)},
			handler: answerStatus(http.StatusBadGateway),
			call:    idempotentCalls[0],
		},
		{
			name: "post 429 with retry-after past the deadline",
			opts: []Option{WithRetryWait(time.Millisecond, 2*time.Hour)},
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3600")
				respondError(w, http.StatusTooManyRequests, CodeRateLimited, "later")
			},
			call: postCalls[0],
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, tt.handler)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			waits := &testutil.RetryWaits{}
			err := tt.call.call(ctx, srv.client(t, append(tt.opts, WithLogger(slog.New(waits)))...))
			require.Error(t, err)
			assert.NoError(t, ctx.Err(), "returned before the deadline, without waiting for it")
			assert.Empty(t, waits.Started(), "the waits started")
			assert.Len(t, srv.requests(), 1)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr, "the last answer is kept")
			assert.GreaterOrEqual(t, apiErr.StatusCode, 429)
			assert.NotContains(t, err.Error(), testAPIKey)
		})
	}
}

func TestRetry_CancelDuringBackoff(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respondError(w, http.StatusServiceUnavailable, CodeServiceUnavailable, "down")
	})
	// A backoff of half an hour at least: it cannot end within the minute
	// awaitDone waits, so the call returns for the cancel or not at all.
	c := srv.client(t, WithRetryWait(time.Hour, 2*time.Hour))
	id, done := inBackground(func() error {
		_, err := c.GetProfile(ctx, "pf_1")
		return err
	})
	// Cancel once the client is asleep before its retry.
	awaitParked(t, id, inRetryBackoff)
	cancel()
	err := awaitDone(t, done, "GetProfile")
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Len(t, srv.requests(), 1)
}

func TestRetry_CancelledContextSendsNothing(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerOK)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := srv.client(t).GetProfile(ctx, "pf_1")
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, srv.requests())
}
