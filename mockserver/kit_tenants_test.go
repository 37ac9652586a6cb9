package mockserver_test

// Namespaces: a multi-tenant server's tenants, and a single-tenant
// server's one key.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitMultiTenant(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithMultiTenant())
	keyA := "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2d"
	keyB := "F1E2D3C4-B5A6-4978-8695-A4B3C2D1E0F9" // upper case is well formed too
	ctx := t.Context()

	ca := srv.Client(profilesvc.WithAPIKey(keyA), profilesvc.WithMaxRetries(0))
	cb := srv.Client(profilesvc.WithAPIKey(keyB), profilesvc.WithMaxRetries(0))
	pa, err := ca.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "A's"})
	require.NoError(t, err, "tenant A")
	pb, err := cb.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "B's"})
	require.NoError(t, err, "tenant B")

	// Each sees its own profile only.
	_, err = ca.GetProfile(ctx, pa.ID)
	assert.NoError(t, err, "A reading its profile")
	_, err = cb.GetProfile(ctx, pa.ID)
	assert.ErrorIs(t, err, profilesvc.ErrProfileNotFound, "B reading A's profile")
	_, err = ca.GetFolder(ctx, pb.DefaultFolder().ID)
	assert.ErrorIs(t, err, profilesvc.ErrFolderNotFound, "A reading B's folder")
	assert.ErrorIs(t, cb.DeleteProfile(ctx, pa.ID), profilesvc.ErrProfileNotFound, "B deleting A's profile")
	_, err = srv.Client().GetProfile(ctx, pa.ID)
	assert.ErrorIs(t, err, profilesvc.ErrProfileNotFound, "the server's own key reading A's profile")

	// TenantOf.
	ta, tb := srv.TenantOf(keyA), srv.TenantOf(keyB)
	require.True(t, ta != nil && tb != nil && ta != tb && ta != srv.Tenant,
		"TenantOf: A %p, B %p, own %p: want two distinct namespaces apart from the server's", ta, tb, srv.Tenant)
	assert.True(t, srv.TenantOf(keyA) == ta && srv.TenantOf(strings.ToUpper(keyA)) == ta && srv.TenantOf(strings.ToLower(keyB)) == tb,
		"TenantOf is not stable for a key (or its other case)")
	assert.Same(t, srv.Tenant, srv.TenantOf(srv.APIKey), "TenantOf(the server's key) is not srv.Tenant")
	assert.True(t, srv.TenantOf("not-a-uuid") == nil && srv.TenantOf("") == nil, "TenantOf of a malformed key is not nil")
	ps := ta.Profiles()
	assert.True(t, len(ps) == 1 && ps[0].ID == pa.ID, "A's namespace holds %v", ps)
	assert.Empty(t, srv.Profiles(), "the server's own namespace holds the tenants' profiles")

	// Faults are per namespace.
	_, err = ta.InjectFault(mockserver.Fault{Status: 503})
	require.NoError(t, err)
	_, err = ca.GetProfile(ctx, pa.ID)
	assert.ErrorIs(t, err, profilesvc.ErrServiceUnavailable, "A under its fault, want 503")
	_, err = cb.GetProfile(ctx, pb.ID)
	assert.NoError(t, err, "B got A's fault")
	ta.ClearFaults()

	// Records are per namespace.
	ta.ClearRequests()
	tb.ClearRequests()
	send(t, srv, request{Method: "GET", Path: "/v1/profiles/" + pa.ID, Key: keyA})
	ra, rb := ta.Requests(), tb.Requests()
	assert.True(t, len(ra) == 1 && len(rb) == 0, "after A's request: A recorded %d, B %d; want 1 and 0", len(ra), len(rb))
	all, _ := json.Marshal(ta.Requests())
	assert.NotContains(t, string(all), keyA, "A's record holds its key")

	// The control API acts on the caller's namespace.
	wantStatus(t, send(t, srv, request{Method: "POST", Path: "/_mock/reset", Key: keyB}), 204)
	assert.True(t, len(tb.Profiles()) == 0 && len(ta.Profiles()) == 1, "B's reset: A has %d profiles, B %d; want 1 and 0", len(ta.Profiles()), len(tb.Profiles()))

	// A key that is not a UUID is refused, as is no key at all.
	for _, key := range []string{"not-a-uuid", "0b6a3c2e1f4d4a5b9c8d7e6f5a4b3c2d", "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2g", noKey} {
		wantError(t, send(t, srv, request{Method: "GET", Path: "/v1/profiles/" + pa.ID, Key: key}), 401, "UNAUTHORIZED")
	}
}

func TestKitSingleTenantRefusesOtherUUIDs(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	other := "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2d"
	wantError(t, send(t, srv, request{Method: "GET", Path: "/v1/profiles/pf_x", Key: other}), 401, "UNAUTHORIZED")
	assert.Nil(t, srv.TenantOf(other), "TenantOf(another UUID) on a single-tenant server is not nil")
	assert.Same(t, srv.Tenant, srv.TenantOf(srv.APIKey), "TenantOf(the server's key) is not srv.Tenant")
}
