package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileExchangePoolNoLeak runs many requests at once, with
// different IDs (with encoded slashes) and keys, among held requests
// abandoned by their clients and clients that disconnect before their
// answer; every answer must name the ID it was asked for and carry its
// own request ID, so that no exchange's state leaks into another's. Run
// it with -race.
func TestHostileExchangePoolNoLeak(t *testing.T) {
	srv := New(WithMultiTenant())
	defer srv.Close()
	_, err := srv.Tenant.InjectFault(Fault{Path: "/v1/analyses/held_*", Delay: 10 * time.Minute})
	require.NoError(t, err, "injecting the fault that holds the held_* requests")
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer hc.CloseIdleConnections()
	ctx, abandon := context.WithCancel(context.Background())
	var held sync.WaitGroup
	for i := range 8 {
		held.Add(1)
		go func() {
			defer held.Done()
			req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/v1/analyses/held_%d?waitForReport=true&timeoutSeconds=10", srv.URL, i), nil)
			req.Header.Set("X-Api-Key", srv.APIKey)
			if resp, err := hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	addr := strings.TrimPrefix(srv.URL, "http://")
	var wg sync.WaitGroup
	var mu sync.Mutex
	ids := map[string]string{}
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := srv.APIKey
			if g%2 == 1 {
				key = fmt.Sprintf("00000000-0000-4000-8000-%012d", g)
			}
			for i := range 40 {
				if i%10 == 0 { // a client that leaves before its answer
					if c, err := net.Dial("tcp", addr); err == nil {
						fmt.Fprintf(c, "GET /v1/analyses/gone_%d_%d HTTP/1.1\r\nHost: m\r\nX-Api-Key: %s\r\n\r\n", g, i, key)
						c.Close()
					}
				}
				id := fmt.Sprintf("an_%d_%d%%2F%d", g, i, i*7)
				want := fmt.Sprintf("an_%d_%d/%d", g, i, i*7)
				path := "/v1/analyses/" + id
				if i%3 == 0 {
					path += "/report"
				}
				req, _ := http.NewRequest("GET", srv.URL+path, nil)
				req.URL.RawPath = path
				req.Header.Set("X-Api-Key", key)
				resp, err := hc.Do(req)
				if !assert.NoError(t, err, "GET %s, want an answer", path) {
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var e struct {
					Error struct{ Code, Message string }
				}
				_ = json.Unmarshal(b, &e)
				assert.True(t, resp.StatusCode == 404 && e.Error.Code == "ANALYSIS_NOT_FOUND" && strings.Contains(e.Error.Message, `"`+want+`"`),
					"GET %s: %d %s, want ANALYSIS_NOT_FOUND naming %q", path, resp.StatusCode, b, want)
				rid := resp.Header.Get("X-Request-Id")
				mu.Lock()
				prev, dup := ids[rid]
				assert.True(t, !dup && rid != "", "request ID %q of %s was also %s's, want a request ID of its own", rid, path, prev)
				ids[rid] = path
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	abandon()
	held.Wait()
	assert.Len(t, ids, 16*40, "distinct request IDs, want one per request")
}
