package mockserver_test

// Injected faults: answers, delays, dropped connections, answers cut or
// trickled, counts, probabilities, and the list of faults.

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitFaultStatus(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	aid := startAnalysis(t, srv, pid, iid)

	fid, err := srv.InjectFault(mockserver.Fault{
		Method: "get", Path: "/v1/analyses/*", Status: 503, Code: "SERVICE_UNAVAILABLE", Message: "down for maintenance", RetryAfter: 7 * time.Second,
	})
	require.NoError(t, err, "InjectFault")
	require.NotEmpty(t, fid, "InjectFault returned no ID")

	for _, path := range []string{"/v1/analyses/" + aid, "/v1/analyses/analysis_other"} {
		r := do(t, srv, "GET", path, nil)
		msg := wantError(t, r, 503, "SERVICE_UNAVAILABLE")
		assert.Equal(t, "down for maintenance", msg, "message")
		assert.Equal(t, "7", r.Header.Get("Retry-After"), "Retry-After")
	}
	// Not matched: another method, a longer path, another resource.
	wantStatus(t, do(t, srv, "DELETE", "/v1/analyses/analysis_missing", nil), 404)
	wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+aid+"/report", nil), 400)
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+pid, nil), 200)

	require.True(t, srv.RemoveFault(fid), "RemoveFault(%s)", fid)
	wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+aid, nil), 200)

	t.Run("defaults from the status", func(t *testing.T) {
		_, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 429})
		require.NoError(t, err)
		defer srv.ClearFaults()
		r := do(t, srv, "GET", "/v1/profiles/"+pid, nil)
		wantError(t, r, 429, "RATE_LIMITED")
		assert.Empty(t, r.Header.Get("Retry-After"), "Retry-After sent without one set")
	})
}

func TestKitFaultDelay(t *testing.T) {
	t.Parallel()
	// The delay runs on the server's clock: on a fake one, the answer
	// comes once the delay has passed on it, and not a nanosecond before.
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithClock(clock))
	p, _ := addProfile(t, srv.Tenant, "Delayed")
	_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Delay: 150 * time.Millisecond})
	require.NoError(t, err)
	get := request{Method: "GET", Path: "/v1/profiles/" + p.ID}
	r := wantHeldFor(t, clock, goSend(t, srv, get), 150*time.Millisecond)
	wantStatus(t, r, 200) // a delay alone lets the real answer through
	var got profilesvc.Profile
	decode(t, r, &got)
	assert.Equal(t, p.ID, got.ID, "the profile of the delayed answer")
	srv.ClearFaults()

	// A delay with a status: the error after the delay.
	_, err = srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Delay: 100 * time.Millisecond, Status: 500})
	require.NoError(t, err)
	r = wantHeldFor(t, clock, goSend(t, srv, get), 100*time.Millisecond)
	wantError(t, r, 500, "INTERNAL_ERROR")
}

func TestKitFaultDrop(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	p, _ := addProfile(t, srv.Tenant, "Dropped")
	_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Drop: true})
	require.NoError(t, err)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/profiles/"+p.ID, nil)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
		require.FailNowf(t, "a dropped request got an answer", "status %d", resp.StatusCode)
	}
	// The SDK sees a transport error too.
	_, err = srv.Client().GetProfile(t.Context(), p.ID, profilesvc.WithRetries(0))
	var apiErr *profilesvc.APIError
	if assert.Error(t, err, "GetProfile through a dropped connection, want a transport error") {
		assert.NotErrorAs(t, err, &apiErr, "GetProfile through a dropped connection = %v, want a transport error", err)
	}
	reqs := srv.Requests()
	assert.True(t, len(reqs) > 0 && reqs[len(reqs)-1].Status == 0, "a dropped request is recorded with status %v, want 0", reqs)
	// Other requests are unaffected.
	wantStatus(t, do(t, srv, "PATCH", "/v1/profiles/"+p.ID, map[string]any{"name": "still here"}), 200)
}

func TestKitFaultTimes(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	p, _ := addProfile(t, srv.Tenant, "Times")
	fid, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 503, Times: 2})
	require.NoError(t, err)
	wantError(t, do(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 503, "SERVICE_UNAVAILABLE")
	fs := srv.Faults()
	assert.True(t, len(fs) == 1 && fs[0].ID == fid && fs[0].Times == 1, "Faults() after one use = %+v, want %s with 1 left", fs, fid)
	// A request the fault does not match does not use it up.
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+p.ID+"/folders", nil), 200)
	wantError(t, do(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 503, "SERVICE_UNAVAILABLE")
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 200)
	assert.Empty(t, srv.Faults(), "Faults() after the fault's uses")
}

func TestKitFaultProbability(t *testing.T) {
	t.Parallel()
	const n = 1000
	const prob = 0.3
	pattern := func(seed uint64, opts ...mockserver.Option) []bool {
		srv := mockserver.NewTest(t, append([]mockserver.Option{mockserver.WithFaultSeed(seed), mockserver.WithRequestRecordSize(0)}, opts...)...)
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Probability: prob})
		require.NoError(t, err)
		// The requests go to the server's handler, as its listener hands
		// them on, without a connection each: which of them the fault
		// hits is decided there.
		out := make([]bool, n)
		for i := range out {
			req := httptest.NewRequest("GET", "/v1/profiles/pf_missing", nil)
			req.Header.Set("x-api-key", srv.APIKey)
			w := httptest.NewRecorder()
			srv.Handler().ServeHTTP(w, req)
			switch w.Code {
			case 503:
				out[i] = true
			case 404:
			default:
				require.FailNowf(t, "unexpected status", "request %d: status %d", i, w.Code)
			}
		}
		return out
	}
	// The first server holds its answers to the document; the others give
	// the same two answers again, unchecked.
	a, b := pattern(42), pattern(42, mockserver.WithOpenAPICheck(nil))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two servers with the same fault seed injected on different requests (-first +second):\n%s", diff)
	}
	count := 0
	for _, hit := range a {
		if hit {
			count++
		}
	}
	lo, hi := int(n*prob*0.7), int(n*prob*1.3)
	assert.True(t, count >= lo && count <= hi, "a fault with probability %v hit %d of %d requests, want %d..%d", prob, count, n, lo, hi)
	c := pattern(43, mockserver.WithOpenAPICheck(nil))
	assert.NotEqual(t, a, c, "fault seeds 42 and 43 injected on the very same requests")
}

func TestKitFaultList(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	id1, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, RetryAfter: 2 * time.Second})
	require.NoError(t, err)
	id2, err := srv.InjectFault(mockserver.Fault{Path: "/v1/folders/*", Drop: true, Times: 3})
	require.NoError(t, err)
	require.NotEqual(t, id1, id2, "two faults share the ID %s", id1)
	fs := srv.Faults()
	require.True(t, len(fs) == 2 && fs[0].ID == id1 && fs[1].ID == id2, "Faults() = %+v", fs)
	assert.True(t, fs[0].Method == "GET" && fs[0].Status == 503 && fs[0].Code == "SERVICE_UNAVAILABLE" && fs[0].RetryAfter == 2*time.Second,
		"first fault = %+v", fs[0])
	assert.True(t, fs[1].Drop && fs[1].Times == 3, "second fault = %+v", fs[1])
	assert.True(t, srv.RemoveFault(id1), "RemoveFault(%s)", id1)
	assert.False(t, srv.RemoveFault(id1), "RemoveFault of a removed fault")
	assert.False(t, srv.RemoveFault("fault_missing"), "RemoveFault of an unknown fault")
	fs = srv.Faults()
	assert.True(t, len(fs) == 1 && fs[0].ID == id2, "Faults() after RemoveFault = %+v", fs)
	_, err = srv.InjectFault(mockserver.Fault{Status: 500})
	require.NoError(t, err)
	srv.ClearFaults()
	assert.Empty(t, srv.Faults(), "Faults() after ClearFaults")
	wantError(t, do(t, srv, "GET", "/v1/profiles/pf_missing", nil), 404, "PROFILE_NOT_FOUND")
}

func TestKitFaultInvalid(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	for _, tc := range []struct {
		name string
		f    mockserver.Fault
	}{
		{"nothing to do", mockserver.Fault{Path: "/v1/*"}},
		{"status below 400", mockserver.Fault{Status: 200}},
		{"status above 599", mockserver.Fault{Status: 600}},
		{"status and drop", mockserver.Fault{Status: 503, Drop: true}},
		{"negative times", mockserver.Fault{Status: 503, Times: -1}},
		{"probability above 1", mockserver.Fault{Status: 503, Probability: 1.5}},
		{"negative probability", mockserver.Fault{Status: 503, Probability: -0.1}},
		{"bad pattern", mockserver.Fault{Status: 503, Path: "/v1/[profiles"}},
		{"negative delay", mockserver.Fault{Status: 503, Delay: -time.Second}},
		{"delay too long", mockserver.Fault{Delay: 11 * time.Minute}},
		{"negative retry-after", mockserver.Fault{Status: 503, RetryAfter: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := srv.InjectFault(tc.f)
			assert.Error(t, err, "InjectFault(%+v) = %s, want an error", tc.f, id)
		})
	}
	assert.Empty(t, srv.Faults(), "refused faults were kept")
}

// injectVia injects a fault through the kit ("Go") or through POST
// /_mock/faults ("HTTP", with j, the fault's JSON form, which the answer
// must echo).
func injectVia(t *testing.T, srv *mockserver.Server, via string, f mockserver.Fault, j map[string]any) {
	t.Helper()
	switch via {
	case "Go":
		_, err := srv.InjectFault(f)
		require.NoError(t, err, "InjectFault(%+v)", f)
	case "HTTP":
		got := doJSON(t, srv, "POST", "/_mock/faults", j, http.StatusCreated)
		for k, v := range j {
			wantSameJSON(t, "the added fault's "+k, got[k], v)
		}
	default:
		require.FailNowf(t, "unknown way", "%q", via)
	}
}

// advanceUntil moves the fake clock by step each time the server has a
// timer armed on it, until done delivers: it returns what came and how
// many steps it took. Between steps it waits for the timer (BlockUntil),
// never for a fixed time.
func advanceUntil[T any](t *testing.T, fc *mockserver.FakeClock, step time.Duration, done <-chan T) (T, int) {
	t.Helper()
	for steps := 0; ; steps++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
		armed := make(chan error, 1)
		go func() { armed <- fc.BlockUntil(ctx, 1) }()
		select {
		case v := <-done:
			cancel()
			<-armed
			return v, steps
		case err := <-armed:
			cancel()
			require.NoError(t, err, "after %d steps, neither the answer nor a timer came", steps)
			fc.Advance(step)
		}
	}
}

// ---------------------------------------------------------------------
// Faults that cut or trickle an answer.

func TestKitFaultTruncate(t *testing.T) {
	t.Parallel()
	for _, via := range []string{"Go", "HTTP"} {
		t.Run(via, func(t *testing.T) {
			t.Run("JSON answer", func(t *testing.T) {
				srv := newServer(t)
				p, _ := addProfile(t, srv.Tenant, "Cut")
				injectVia(t, srv, via, mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Truncate: 20},
					map[string]any{"method": "GET", "path": "/v1/profiles/*", "truncate": 20})
				_, err := newSDK(t, srv).GetProfile(t.Context(), p.ID)
				require.Error(t, err, "GetProfile of a cut answer")

				req, err := request{Method: "GET", Path: "/v1/profiles/" + p.ID}.build(srv)
				require.NoError(t, err)
				resp, err := newHTTPClient(t).Do(req)
				require.NoError(t, err, "the headers of the cut answer")
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "reading the cut answer")
				assert.Len(t, body, 20, "bytes of the cut answer")
				assert.Greater(t, resp.ContentLength, int64(20), "Content-Length promises the whole answer")
			})

			t.Run("report", func(t *testing.T) {
				// An empty result: its report, of a page or two, is far
				// longer than the cut, and rendered in a fraction of the
				// time of a full one.
				bare := func(context.Context, mockserver.AnalysisInput) (mockserver.AnalysisResult, error) {
					return mockserver.AnalysisResult{}, nil
				}
				srv := newServer(t, mockserver.WithManualAnalyses(), mockserver.WithAnalyzer(bare))
				pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
				id := startAnalysis(t, srv, pid, iid)
				require.NoError(t, srv.CompleteAnalysis(id))
				injectVia(t, srv, via, mockserver.Fault{Method: "GET", Path: "/v1/analyses/*/report", Truncate: 1000},
					map[string]any{"method": "GET", "path": "/v1/analyses/*/report", "truncate": 1000})
				c := newSDK(t, srv)
				for _, tt := range []struct {
					name string
					save func(dir string) (string, error)
				}{
					{"Client.SaveReport into a directory", func(dir string) (string, error) { return c.SaveReport(t.Context(), id, dir, nil) }},
					{"Client.SaveReport to a path", func(dir string) (string, error) {
						return c.SaveReport(t.Context(), id, filepath.Join(dir, "report.pdf"), nil)
					}},
					{"Report.SaveFile into a directory", func(dir string) (string, error) {
						rep, err := c.DownloadReport(t.Context(), id, nil)
						require.NoError(t, err, "DownloadReport: the answer's start comes whole")
						return rep.SaveFile(dir)
					}},
					{"Report.SaveFile to a path", func(dir string) (string, error) {
						rep, err := c.DownloadReport(t.Context(), id, &profilesvc.ReportParams{Locale: profilesvc.LocaleKorean})
						require.NoError(t, err, "DownloadReport: the answer's start comes whole")
						return rep.SaveFile(filepath.Join(dir, "report.pdf"))
					}},
				} {
					t.Run(tt.name, func(t *testing.T) {
						dir := t.TempDir()
						path, err := tt.save(dir)
						require.Error(t, err, "saving a cut report gave %q", path)
						assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "the error of a cut download")
						entries, err := os.ReadDir(dir)
						require.NoError(t, err)
						var names []string
						for _, e := range entries {
							names = append(names, e.Name())
						}
						assert.Empty(t, names, "files left in the directory by a cut download")
					})
				}
			})
		})
	}
}

func TestKitFaultBytesPerSecond(t *testing.T) {
	t.Parallel()
	const rate = 200                    // bytes a second: 20 bytes a step
	const step = 100 * time.Millisecond // the fault's step on the clock
	for _, via := range []string{"Go", "HTTP"} {
		t.Run(via, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := newServer(t, mockserver.WithClock(fc))
			p, _ := addProfile(t, srv.Tenant, "Trickled")
			whole := do(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
			wantStatus(t, whole, 200)
			injectVia(t, srv, via, mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", BytesPerSecond: rate},
				map[string]any{"method": "GET", "path": "/v1/profiles/*", "bytesPerSecond": rate})

			sent := goSend(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID})
			got, steps := advanceUntil(t, fc, step, sent)
			require.NoError(t, got.err, "the trickled answer")
			wantStatus(t, got.resp, 200)
			assert.Equal(t, string(whole.Body), string(got.resp.Body), "the trickled answer, against the same answer untouched")
			chunk := rate * int(step) / int(time.Second)
			want := int(math.Ceil(float64(len(whole.Body))/float64(chunk))) - 1
			assert.Equal(t, want, steps, "steps of %v the clock took to send %d bytes at %d bytes a second: it must not come sooner", step, len(whole.Body), rate)
			assert.Equal(t, kitT0.Add(time.Duration(steps)*step), fc.Now(), "the fake clock")
		})
	}

	t.Run("through the SDK", func(t *testing.T) {
		fc := mockserver.NewFakeClock(kitT0)
		srv := newServer(t, mockserver.WithClock(fc))
		p, _ := addProfile(t, srv.Tenant, "Trickled")
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", BytesPerSecond: rate})
		require.NoError(t, err)
		c := newSDK(t, srv)
		got, steps := advanceUntil(t, fc, step, goCall(func() (*profilesvc.Profile, error) { return c.GetProfile(context.Background(), p.ID) }))
		require.NoError(t, got.err, "GetProfile of a trickled answer")
		assert.Greater(t, steps, 1, "steps of the clock")
		want, _ := srv.Profile(p.ID)
		assert.True(t, got.v.ID == want.ID && got.v.Name == want.Name && got.v.CreatedAt.Equal(want.CreatedAt), "GetProfile = %+v", got.v)
	})
}
