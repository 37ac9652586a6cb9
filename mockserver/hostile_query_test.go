package mockserver_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// armedClock is a fake clock that reports the duration of every timer
// armed on it, so that a test reads the wait a long poll asked for
// without any time passing.
type armedClock struct {
	*mockserver.FakeClock
	armed chan time.Duration
}

func (c *armedClock) AfterFunc(d time.Duration, f func()) func() bool {
	stop := c.FakeClock.AfterFunc(d, f)
	c.armed <- d
	return stop
}

// documentRefusesQuery reports whether api/openapi.yaml refuses the query
// parameter param of a GET of target: the document's checker is given
// the request with an answer of 200, and says whether the request's
// parameter is at fault.
func documentRefusesQuery(t *testing.T, v *openapicheck.Validator, target, param string) (bool, string) {
	t.Helper()
	err := v.Check(context.Background(), openapicheck.Exchange{
		Method:         http.MethodGet,
		URL:            target,
		Header:         http.Header{"X-Api-Key": {"k"}},
		Status:         http.StatusOK,
		ResponseHeader: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}},
		ResponseBody:   []byte(`{}`),
	})
	var ms openapicheck.Mismatches
	if !errors.As(err, &ms) {
		require.NoError(t, err, "checking %s", target)
		return false, ""
	}
	for _, m := range ms {
		if m.In == "request" && (strings.Contains(m.Field, param) || m.Field == "URL" || m.Field == "query") {
			return true, m.Error()
		}
	}
	return false, ""
}

// exactNanos is the exact value of a plain decimal, in nanoseconds, or
// nil when v is not one.
func exactNanos(v string) *big.Rat {
	r, ok := new(big.Rat).SetString(v)
	if !ok {
		return nil
	}
	return r.Mul(r, big.NewRat(int64(time.Second), 1))
}

// Every spelling of timeoutSeconds, however odd, is either refused with
// 400 VALIDATION_ERROR that names timeoutSeconds (or says the query
// string is malformed), or taken with a hold of 10 to 300 seconds on the
// server's clock, within a microsecond of the value written; never a 500,
// and never taken where the document refuses it. The hold is read from
// the timer the poll arms on a fake clock: no time passes.
func TestHostileTimeoutSecondsOddSpellings(t *testing.T) {
	t.Parallel()
	doc, err := openapicheck.New()
	require.NoError(t, err)
	clock := &armedClock{FakeClock: mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)), armed: make(chan time.Duration, 1)}
	srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := analysisFixture(t, srv)
	id := startAnalysis(t, srv, pid, items...)
	require.NoError(t, srv.StartProcessing(id))

	queries := []string{
		// Plain decimals, some at the edges of the range and of float64.
		"timeoutSeconds=10", "timeoutSeconds=300", "timeoutSeconds=010", "timeoutSeconds=0010.5000",
		"timeoutSeconds=00000000000000000000000000000010",
		"timeoutSeconds=10.0000000000000000000000001", "timeoutSeconds=299.9999999999999999999",
		"timeoutSeconds=300.0000000000000000001", "timeoutSeconds=9.9999999999999999999",
		"timeoutSeconds=10.000000000000000000000000000001", "timeoutSeconds=300.00000000000000000000000000001",
		"timeoutSeconds=299.99999999999997", "timeoutSeconds=10.000000001", "timeoutSeconds=123.456789123",
		// Escaped within the query.
		"timeoutSeconds=10%2E5", "timeoutSeconds=3%30", "timeout%53econds=30", "timeoutSeconds=%2B30",
		"timeoutSeconds=30%00", "timeoutSeconds=30%20", "timeoutSeconds=%2030", "timeoutSeconds=30%2C5",
		"timeoutSeconds=%", "timeoutSeconds=30%zz", "timeoutSeconds=30;waitForReport=true",
		// Other digits and notations.
		"timeoutSeconds=%D9%A1%D9%A0",       // Arabic-Indic ١٠
		"timeoutSeconds=%EF%BC%91%EF%BC%90", // full-width １０
		"timeoutSeconds=%E0%A5%A7%E0%A5%A6", // Devanagari १०
		"timeoutSeconds=1%CC%810",           // a combining mark between digits
		"timeoutSeconds=1e1", "timeoutSeconds=10e0", "timeoutSeconds=0x1E", "timeoutSeconds=0x1Ep0",
		"timeoutSeconds=30.", "timeoutSeconds=.5", "timeoutSeconds=.", "timeoutSeconds=", "timeoutSeconds",
		"timeoutSeconds=-0", "timeoutSeconds=-30", "timeoutSeconds=Infinity", "timeoutSeconds=inf",
		"timeoutSeconds=NaN", "timeoutSeconds=3_0", "timeoutSeconds=30..0", "timeoutSeconds=30.0.0",
		"timeoutSeconds=1" + strings.Repeat("0", 4096), "timeoutSeconds=10." + strings.Repeat("0", 4096),
		// Given twice, or under another name.
		"timeoutSeconds=30&timeoutSeconds=30", "timeoutSeconds=30&timeout%53econds=40",
		"timeoutSeconds[]=30", "TimeoutSeconds=30", "timeoutseconds=30",
	}
	for _, q := range queries {
		target := "/v1/analyses/" + id + "?waitForReport=true&" + q
		poll := longPoll(t, srv, context.Background(), target)
		var armed time.Duration
		var r *response
		select {
		case armed = <-clock.armed:
		case p := <-poll:
			require.NoError(t, p.err, "%s", q)
			r = p.resp
		case <-time.After(time.Minute): // a hang guard only
			t.Fatalf("%s: neither answered nor held within a minute", q)
		}
		docRefuses, why := documentRefusesQuery(t, doc, target, "timeoutSeconds")
		if r != nil {
			// Refused at once.
			if !assert.Equal(t, http.StatusBadRequest, r.Status, "%s: %s", q, r) {
				continue
			}
			msg := wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR")
			named := strings.Contains(strings.ToLower(msg), "timeoutseconds") || strings.Contains(msg, "query string is malformed")
			assert.True(t, named, "%s: refused with %q, which names neither timeoutSeconds nor a malformed query", q, msg)
			continue
		}
		// Held: the wait is within the range, and that of the value
		// written.
		assert.False(t, docRefuses, "%s: the mock holds the poll for %v, but the document refuses the request: %s", q, armed, why)
		assert.True(t, armed >= 10*time.Second && armed <= 300*time.Second, "%s: held for %v, want 10s to 300s", q, armed)
		v := strings.TrimPrefix(q, "timeoutSeconds=")
		if exact := exactNanos(v); exact != nil {
			diff := new(big.Rat).Sub(exact, new(big.Rat).SetInt64(int64(armed)))
			assert.True(t, diff.Abs(diff).Cmp(big.NewRat(int64(time.Microsecond), 1)) <= 0, "%s: held for %v, want %s s", q, armed, v)
		}
		clock.Advance(armed)
		a := jsonObject(t, awaitAnswer(t, poll, time.Minute), http.StatusOK)
		checkAnalysis(t, a, pid, "processing")
	}
}

// limit is an integer: every spelling the mock takes, the document takes,
// and every one the mock refuses (with 400 VALIDATION_ERROR naming limit),
// the document refuses; 10.0 among them.
func TestHostileLimitSpellingsAgreeWithTheDocument(t *testing.T) {
	t.Parallel()
	doc, err := openapicheck.New()
	require.NoError(t, err)
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "limits")
	for _, v := range []string{
		"1", "10", "100", "010", "+10", "%2B10", "0000000000000000000000000000000000000010", "10%2E0",
		"0", "-0", "-1", "101", "10.0", "10.5", "1e1", "1E1", "0x0A", "0b1010", "0o12", "1_0", "%2010", "10%20",
		"%D9%A1%D9%A0", "%EF%BC%91%EF%BC%90", "9223372036854775807", "9223372036854775808",
		"18446744073709551616", "", "Infinity", "NaN",
	} {
		target := "/v1/profiles/" + pid + "/folders?limit=" + v
		r := do(t, srv, http.MethodGet, target, nil)
		docRefuses, why := documentRefusesQuery(t, doc, target, "limit")
		switch r.Status {
		case http.StatusOK:
			assert.False(t, docRefuses, "limit=%s: the mock takes it, the document refuses it: %s", v, why)
		case http.StatusBadRequest:
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "limit")
			assert.True(t, docRefuses, "limit=%s: the mock refuses it (%s), the document takes it", v, r)
		default:
			t.Errorf("limit=%s: %s, want 200 or 400", v, r)
		}
	}
}
