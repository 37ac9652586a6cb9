package mockserver_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestKitNewTestClientRetriesQuickly injects two 503s on an upload: the
// client of a NewTest server retries after waits of a few milliseconds
// (TestRetryWait, then twice that, each with the SDK's jitter down to
// half), not the SDK's 500ms, and a test's own WithRetryWait wins.
func TestKitNewTestClientRetriesQuickly(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	p, fid := addProfile(t, srv.Tenant, "Retries")
	_ = p
	_, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/folders/*/items", Status: 503, Times: 2})
	require.NoError(t, err)

	h := &testutil.RetryWaits{}
	client := srv.Client(profilesvc.WithLogger(slog.New(h)))
	_, err = client.UploadFile(t.Context(), fid, bytes.NewReader([]byte("PASSPORT\nFull Name: Jane Doe\n")), profilesvc.UploadParams{Filename: "passport.txt"})
	require.NoError(t, err, "the upload after two 503s")
	waits := h.Waits()
	require.Len(t, waits, 2, "retries logged")
	for i, w := range waits {
		limit := mockserver.TestRetryWait << i
		assert.True(t, w >= limit/2 && w <= limit, "wait %d = %v, want within [%v, %v]", i+1, w, limit/2, limit)
	}

	t.Run("WithRetryWait overrides", func(t *testing.T) {
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Times: 1})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		// The test cancels at the retry's warning, so that it never waits.
		h := &testutil.RetryWaits{OnRetry: cancel}
		client := srv.Client(profilesvc.WithLogger(slog.New(h)), profilesvc.WithRetryWait(time.Hour, 2*time.Hour))
		_, err = client.GetProfile(ctx, p.ID)
		require.ErrorIs(t, err, context.Canceled)
		waits := h.Waits()
		require.Len(t, waits, 1, "retries logged")
		assert.GreaterOrEqual(t, waits[0], 30*time.Minute, "the wait of a client given WithRetryWait(1h, 2h)")
	})
}
