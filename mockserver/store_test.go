package mockserver

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// mapID is the identity of a map: equal for two values that share one.
func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

// TestStoreSharesRecordsWithItsViews checks that the store copies no user
// data under the tenant's lock: the views it returns share the records'
// metadata, which the store never changes in place, so that answers are
// encoded after the lock is released; and that the test kit hands its
// callers copies of their own.
func TestStoreSharesRecordsWithItsViews(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	heavy := map[string]any{"blob": strings.Repeat("m", 1<<20)}
	p, e := srv.store.createProfile(profileSpec{workflowID: DefaultWorkflowID, name: "heavy", metadata: heavy})
	require.Nil(t, e)
	stored := srv.store.st.profiles[p.ID].metadata

	got, e := srv.store.profile(p.ID, false)
	require.Nil(t, e)
	assert.Equal(t, mapID(stored), mapID(got.Metadata), "a profile view copies the metadata")
	q := listQuery{sort: "createdAt", order: "desc", limit: 10}
	page, e := withLock(srv.store, func(st *state) (pageBody[*profilesvc.Profile], *apiError) {
		return st.listProfiles(DefaultWorkflowID, q, srv.encodeCursor)
	})
	require.Nil(t, e)
	require.Len(t, page.Items, 1)
	assert.Equal(t, mapID(stored), mapID(page.Items[0].Metadata), "a listing copies the metadata")

	// An update replaces the map; the old one, which a view may still be
	// encoding, is left as it was.
	replaced := map[string]any{"blob": "small"}
	e = srv.store.do(func(st *state) *apiError {
		_, e := st.updateProfile(p.ID, profileUpdate{metadata: &replaced})
		return e
	})
	require.Nil(t, e)
	assert.Equal(t, strings.Repeat("m", 1<<20), got.Metadata["blob"], "the map an earlier view holds changed")

	// The kit's callers get copies.
	mine, ok := srv.Profile(p.ID)
	require.True(t, ok)
	mine.Metadata["blob"] = "changed by the caller"
	again, _ := srv.Profile(p.ID)
	assert.Equal(t, "small", again.Metadata["blob"])

	it, err := srv.AddTextItem(p.Folders[0].ID, "note", "text")
	require.NoError(t, err)
	e = srv.store.do(func(st *state) *apiError {
		_, e := st.updateItem(it.ID, itemUpdate{metadata: map[string]any{"k": "v"}})
		return e
	})
	require.Nil(t, e)
	view, _ := srv.Item(it.ID)
	view.Metadata["k"] = "changed by the caller"
	view.Content[0] = 'X'
	fresh, _ := srv.Item(it.ID)
	assert.Equal(t, "v", fresh.Metadata["k"])
	assert.Equal(t, byte('"'), fresh.Content[0])
}
