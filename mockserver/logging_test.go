package mockserver_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/testutil"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestRequestLogNeverHoldsTheKey logs every request at debug level, with
// right and wrong keys, and checks that no key reaches the log.
func TestRequestLogNeverHoldsTheKey(t *testing.T) {
	t.Parallel()
	var logs testutil.LockedBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	const key = "6f1d2c3b-4a59-4e8d-9c7b-1a2b3c4d5e6f"
	const wrong = "0a0b0c0d-1111-4222-8333-944455556666"
	srv := mockserver.NewTest(t, mockserver.WithAPIKey(key), mockserver.WithLogger(logger))
	for _, k := range []string{key, wrong, ""} {
		for _, path := range []string{"/v1/profiles/pf_x", "/v1/nowhere", "/_mock/requests"} {
			req, _ := http.NewRequest("GET", srv.URL+path+"?k="+k, nil)
			if k != "" {
				req.Header.Set("x-api-key", k)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
		}
	}
	got := logs.String()
	require.Equal(t, 9, strings.Count(got, `"msg":"request"`), "request lines in the log:\n%s", got)
	for _, k := range []string{key, wrong} {
		// The key in a query is the caller's doing; in a header it must
		// never be logged. The log holds paths, not queries.
		assert.NotContains(t, got, k, "the log holds the key %s", k)
	}
}
