package mockserver_test

// GET /_mock/requests's filters under attack: odd values, and the
// promise that over HTTP they select what RequestMatch selects.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// recordPage is an answer of GET /_mock/requests.
type recordPage struct {
	Count   int
	Dropped int
	Items   []struct {
		RequestID string
		Method    string
		Path      string
		Status    int
	}
}

func listRecord(t *testing.T, srv *mockserver.Server, q url.Values) (*response, recordPage) {
	t.Helper()
	target := "/_mock/requests"
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	r := do(t, srv, "GET", target, nil)
	var page recordPage
	if r.Status == http.StatusOK {
		require.NoError(t, json.Unmarshal(r.Body, &page), "%s", r)
	}
	return r, page
}

// The filters over HTTP select exactly what Tenant.RequestsMatching
// selects for the same RequestMatch, the newest `limit` of them, for
// random requests (methods in any case, escaped and unescaped segments,
// wrong keys) and random patterns (wildcards, globs, escapes, IDs with
// slashes, malformed ones, which are refused with 400 and select nothing
// in Go).
func TestHostileRequestsFilterIsRequestMatch(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithOpenAPICheck(nil))
	rng := rand.New(rand.NewPCG(22, 2022))
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	segments := []string{"v1", "profiles", "analyses", "folders", "items", "report", "pf_abc", "pf%2Fx", "pf%2fx", "caf%C3%A9",
		"a%20b", "analysis_1", "analysis_2", "x*y", "%2A", "..", "%2e%2e", "_mock", "A"}
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "get", "Post"}
	for range 150 {
		n := 1 + rng.IntN(4)
		segs := make([]string, n)
		for i := range segs {
			segs[i] = pick(segments)
		}
		path := "/" + strings.Join(segs, "/")
		if strings.HasPrefix(path, "/_mock") {
			path = "/v1" + path
		}
		key := ""
		if rng.IntN(8) == 0 {
			key = "wrong"
		}
		r, err := sendWith(rawClient, srv, request{Method: pick(methods), Path: path, Key: key})
		require.NoError(t, err)
		require.Less(t, r.Status, 500, "%s %s", path, r)
	}
	all := srv.Requests()
	require.Len(t, all, 150)

	patterns := []string{"", "/", "/**", "/*", "/*/*", "/*/*/*", "/v1/*", "/v1/**", "/v1/profiles/*", "/v1/profiles/pf/x", "/v1/profiles/pf%2Fx",
		"/v1/*/pf_*", "/v1/*/analysis_[12]", "/v1/*/analysis_?", "/v1/*/caf%c3%a9", "/v1/*/café", "/v1/*/a b", "/v1/*/x*y", "/v1/*/%2A",
		"/v1/[", "/v1/\\", "/v1/*/[a-", "v1/profiles", "/v1/profiles/", "//v1//profiles", "/v1/../v1/profiles", "/V1/*", "/v1/*/%2e%2e"}
	var selecting, refused int
	for i := range 400 {
		m := mockserver.RequestMatch{Path: pick(patterns)}
		switch rng.IntN(6) {
		case 0:
			m.Path = pick(patterns) + pick(patterns)
		case 1, 2, 3:
			// A recorded path, some segments a wildcard, some unescaped.
			segs := strings.Split(strings.TrimPrefix(all[rng.IntN(len(all))].Path, "/"), "/")
			for j, sg := range segs {
				switch rng.IntN(4) {
				case 0:
					segs[j] = "*"
				case 1:
					if u, err := url.PathUnescape(sg); err == nil {
						segs[j] = u
					}
				}
			}
			m.Path = "/" + strings.Join(segs, "/")
		}
		if rng.IntN(2) == 0 {
			m.Method = pick(methods)
		}
		if rng.IntN(3) == 0 {
			m.Status = []int{200, 201, 204, 400, 401, 404, 405}[rng.IntN(7)]
		}
		limit := []int{0, 0, 1, 3, 1000}[rng.IntN(5)]
		q := url.Values{}
		if m.Path != "" || rng.IntN(2) == 0 {
			q.Set("path", m.Path)
		}
		if m.Method != "" {
			q.Set("method", m.Method)
		}
		if m.Status != 0 {
			q.Set("status", fmt.Sprint(m.Status))
		}
		if limit > 0 {
			q.Set("limit", fmt.Sprint(limit))
		}
		want := requestIDs(srv.RequestsMatching(m))
		r, page := listRecord(t, srv, q)
		if r.Status == http.StatusBadRequest {
			refused++
			assert.Empty(t, want, "#%d %v: refused over HTTP, selects requests in Go", i, q)
			continue
		}
		require.Equal(t, http.StatusOK, r.Status, "#%d %v: %s", i, q, r)
		if len(want) > 0 {
			selecting++
		}
		if limit > 0 && len(want) > limit {
			want = want[len(want)-limit:]
		}
		got := []string{}
		for _, it := range page.Items {
			got = append(got, it.RequestID)
		}
		if want == nil {
			want = []string{}
		}
		assert.Equal(t, len(got), page.Count, "#%d %v: count", i, q)
		assert.Equal(t, want, got, "#%d %v (%s)", i, q, m)
	}
	t.Logf("%d matches selected requests, %d were refused", selecting, refused)
	assert.Greater(t, selecting, 80, "the random matches select requests")
	assert.Greater(t, refused, 10, "some random patterns are malformed")
}

// Odd values of the filters: refused with 400 naming the parameter, or
// taken as the RequestMatch they spell; never a 500.
func TestHostileRequestsFilterOddValues(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	wantStatus(t, do(t, srv, "GET", "/v1/analyses/analysis_unknown000000000000", nil), http.StatusNotFound)
	for _, tt := range []struct {
		query string
		want  int
		has   string
	}{
		{"method=GET&method=POST", 400, "method"},
		{"path=/a&path=/b", 400, "path"},
		{"status=404&status=404", 400, "status"},
		{"limit=1&limit=1", 400, "limit"},
		{"path=%", 400, ""},
		{"path=%ZZ", 400, ""},
		{"method=M-SEARCH", 400, "method"},
		{"method=" + strings.Repeat("G", 33), 400, "method"},
		{"method=GÉT", 400, "method"},
		{"status=4e2", 400, "status"},
		{"status=404.0", 400, "status"},
		{"status=%20404", 400, "status"},
		{"status=99999999999999999999999", 400, "status"},
		{"limit=-1", 400, "limit"},
		{"limit=1e3", 400, "limit"},
		{"path=" + url.QueryEscape("/"+strings.Repeat("a", 1024)), 400, "path"},
		{"path=" + url.QueryEscape("/[a-"), 400, "path"},
		{"path=" + url.QueryEscape("/"+strings.Repeat("*", 1023)), 200, ""},
		{"path=" + url.QueryEscape("/v1/analyses/"+strings.Repeat("*?", 500)), 200, ""},
		{"path=" + url.QueryEscape("/v1/analyses/анализ_*"), 200, ""},
		{"path=", 200, ""},
		{"method=get", 200, ""},
		{"status=%2B404", 200, ""},
		{"status=0404", 200, ""},
		{"limit=0001", 200, ""},
		{"x=1", 400, "x"},
		{"path=/v1/*;status=404", 400, ""},
	} {
		t.Run(tt.query, func(t *testing.T) {
			r := do(t, srv, "GET", "/_mock/requests?"+tt.query, nil)
			require.Equal(t, tt.want, r.Status, "%s", r)
			if tt.want == 400 {
				msg := wantError(t, r, 400, "VALIDATION_ERROR")
				assert.Contains(t, msg, tt.has)
				assert.LessOrEqual(t, len(msg), 400, "the echoed value is clipped")
			}
		})
	}
}

// dropped counts what the record dropped to keep within its bounds,
// whatever the filters, and starts again from 0 when the record is
// emptied.
func TestHostileRequestsDroppedCount(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithRequestRecordSize(10), mockserver.WithRequestRecordBytes(64<<10))
	for range 20 {
		wantStatus(t, do(t, srv, "GET", "/v1/analyses/analysis_unknown000000000000", nil), http.StatusNotFound)
	}
	for range 5 {
		wantStatus(t, send(t, srv, request{Method: "GET", Path: "/v1/profiles", Key: "wrong"}), http.StatusUnauthorized)
	}
	for _, q := range []url.Values{nil, {"method": {"DELETE"}}, {"status": {"401"}}, {"limit": {"1"}}, {"path": {"/nothing"}}} {
		r, page := listRecord(t, srv, q)
		require.Equal(t, http.StatusOK, r.Status)
		assert.Equal(t, 15, page.Dropped, "%v", q)
		assert.Equal(t, srv.RequestsDropped(), page.Dropped)
	}
	_, page := listRecord(t, srv, url.Values{"status": {"401"}})
	assert.Equal(t, 5, page.Count)
	// A body larger than the record's bytes: dropped on its own.
	big := strings.Repeat("x", 80<<10)
	do(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]string{"name": big})
	_, page = listRecord(t, srv, nil)
	assert.Equal(t, 16, page.Dropped)
	wantNoContent(t, do(t, srv, "DELETE", "/_mock/requests", nil))
	_, page = listRecord(t, srv, nil)
	assert.Zero(t, page.Dropped)
	assert.Zero(t, page.Count)
}

// The document of the control API says of listRequests's path that `*`
// matches one segment and that there is no wildcard of several: `**` is a
// segment of wildcards like `*`, so that /v1/** selects the two-segment
// paths under /v1/ and nothing deeper, and /** nothing here, where every
// path has more segments; a pattern selects the paths of as many
// segments.
func TestHostileRequestsFilterDoubleStar(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "Deep")
	wantStatus(t, do(t, srv, "GET", "/v1/analyses/analysis_unknown000000000000", nil), http.StatusNotFound)
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+pid+"/folders", nil), http.StatusOK)
	require.Len(t, srv.Requests(), 3)
	for _, tt := range []struct {
		path string
		want int
	}{
		{"/**", 0},
		{"/v1/**", 0},
		{"/v1/**/*", 1},
		{"/v1/*/*", 1},
		{"/v1/*/*/*", 2},
		{"/v1/*/*/*/*", 0},
	} {
		_, page := listRecord(t, srv, url.Values{"path": {tt.path}})
		assert.Equal(t, tt.want, page.Count, "path=%s", tt.path)
	}
}

// A proxy's GET /_mock/requests takes the same filters as a simulating
// mock's (method, path, status and limit), and answers what they select.
func TestHostileProxyRequestsFiltered(t *testing.T) {
	t.Parallel()
	p := proxyToMissingService(t)
	serveVia(t, p, "GET", "/v1/profiles/pf_1", "k")
	serveVia(t, p, "DELETE", "/v1/profiles/pf_1", "k")
	serveVia(t, p, "GET", "/v1/analyses/analysis_1", "k")
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"method=DELETE", []string{"DELETE /v1/profiles/pf_1"}},
		{"path=/v1/analyses/*", []string{"GET /v1/analyses/analysis_1"}},
		{"status=200", nil},
		{"limit=1", []string{"GET /v1/analyses/analysis_1"}},
	} {
		rec := serveVia(t, p, "GET", "/_mock/requests?"+tt.query, p.APIKey)
		require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
		var page recordPage
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &page))
		var got []string
		for _, it := range page.Items {
			got = append(got, it.Method+" "+it.Path)
		}
		assert.Equal(t, tt.want, got, "a proxy's GET /_mock/requests?%s", tt.query)
		assert.Equal(t, len(tt.want), page.Count)
	}
}
