package mockserver_test

// Seeds: LoadSeed, WithSeed and LoadSeedFile.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitLoadSeed(t *testing.T) {
	t.Parallel()
	t.Run("valid", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		require.NoError(t, srv.LoadSeed(testSeed()), "LoadSeed")
		checkSeeded(t, srv.Tenant)
		// Loaded state is served over HTTP.
		wantStatus(t, do(t, srv, "GET", "/v1/profiles/pf_alpha", nil), 200)
		wantStatus(t, do(t, srv, "GET", "/v1/items/item_passport", nil), 200)
		assert.NoError(t, srv.LoadSeed(nil), "LoadSeed(nil)")
	})

	t.Run("WithSeed", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithSeed(testSeed()))
		checkSeeded(t, srv.Tenant)
	})

	invalid := []struct {
		name   string
		mutate func(s *mockserver.Seed)
	}{
		{"invalid workflow", func(s *mockserver.Seed) { s.Workflows = append(s.Workflows, mockserver.Workflow{ID: "bad"}) }},
		{"unknown workflow", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{WorkflowID: "wf_missing", Name: "x"})
		}},
		{"empty profile name", func(s *mockserver.Seed) { s.Profiles = append(s.Profiles, mockserver.SeedProfile{}) }},
		{"bad profile ID", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{ID: "alpha", Name: "x"})
		}},
		{"duplicate profile ID", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{ID: "pf_alpha", Name: "again"})
		}},
		{"empty folder name", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{Name: "x", Folders: []mockserver.SeedFolder{{Name: ""}}})
		}},
		{"bad item type", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{Name: "x", Folders: []mockserver.SeedFolder{{Name: "f", Items: []mockserver.SeedItem{{Type: "pdf", Name: "x"}}}}})
		}},
		{"duplicate item ID", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{Name: "x", Folders: []mockserver.SeedFolder{{Name: "default", Items: []mockserver.SeedItem{
				{ID: "item_passport", Type: profilesvc.ItemFile, Name: "dup", Data: []byte("x")},
			}}}})
		}},
	}
	for _, tc := range invalid {
		t.Run("loads nothing on "+tc.name, func(t *testing.T) {
			srv := mockserver.NewTest(t)
			existing, _ := addProfile(t, srv.Tenant, "Existing")
			s := testSeed()
			tc.mutate(s)
			require.Error(t, srv.LoadSeed(s), "LoadSeed succeeded, want an error")
			ps := srv.Profiles()
			assert.True(t, len(ps) == 1 && ps[0].ID == existing.ID, "after a failed load, profiles = %v; want only %s", ps, existing.ID)
			if len(ps) == 1 {
				assert.True(t, len(ps[0].Folders) == 1 && ps[0].ItemsCount == 0, "after a failed load, the existing profile changed: %+v", ps[0])
			}
			ws := srv.Workflows()
			assert.Len(t, ws, 1, "after a failed load, workflows = %v; want wf_default alone", ws)
			for _, id := range []string{"item_passport"} {
				_, ok := srv.Item(id)
				assert.False(t, ok, "after a failed load, item %s exists", id)
			}
			_, ok := srv.Folder("fld_ids")
			assert.False(t, ok, "after a failed load, folder fld_ids exists")
			wantError(t, do(t, srv, "GET", "/v1/profiles/pf_alpha", nil), 404, "PROFILE_NOT_FOUND")
			// The state still works.
			_, err := srv.CreateFolder(existing.ID, "after")
			assert.NoError(t, err, "CreateFolder after a failed load")
		})
	}
}

// TestKitLoadSeedPathFromGo: a seed given in Go whose file item names a
// Path (and no Data) must not silently load an empty file: either the file
// is read or the seed is refused.
func TestKitLoadSeedPathFromGo(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "passport.txt")
	require.NoError(t, os.WriteFile(path, []byte(passportDoc), 0o644))
	srv := mockserver.NewTest(t)
	err := srv.LoadSeed(&mockserver.Seed{Profiles: []mockserver.SeedProfile{{ID: "pf_path", Name: "Path", Folders: []mockserver.SeedFolder{
		{Name: "default", Items: []mockserver.SeedItem{{ID: "item_path", Type: profilesvc.ItemFile, Path: path}}},
	}}}})
	if err != nil {
		_, ok := srv.Profile("pf_path")
		assert.False(t, ok, "LoadSeed failed (%v) but loaded the profile", err)
		return
	}
	b, _ := srv.ItemBytes("item_path")
	assert.Equal(t, passportDoc, string(b), "LoadSeed accepted a file item with a path and stored %d bytes: want the file's bytes or an error", len(b))
}

func TestKitLoadSeedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "docs", "passport.txt"), []byte(passportDoc), 0o644))
	abs := filepath.Join(dir, "absolute.csv")
	require.NoError(t, os.WriteFile(abs, []byte("full_name,date_of_birth\nJane Doe,1990-04-12\n"), 0o644))
	write := func(t *testing.T, name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	absJSON, _ := json.Marshal(abs)
	good := write(t, "seed.json", `{
  "workflows": [{"id": "wf_file", "outputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}],
  "profiles": [{
    "id": "pf_file", "name": "From a file",
    "folders": [
      {"name": "default", "items": [
        {"type": "file", "path": "docs/passport.txt"},
        {"type": "file", "name": "income.csv", "path": `+string(absJSON)+`},
        {"type": "text", "name": "note", "content": "hello"},
        {"type": "json", "name": "form", "content": {"full_name": "Jane Doe"}}
      ]}
    ]
  }]
}`)

	s, err := mockserver.LoadSeedFile(good)
	require.NoError(t, err, "LoadSeedFile")
	srv := mockserver.NewTest(t)
	require.NoError(t, srv.LoadSeed(s), "LoadSeed of the file's seed")
	p, ok := srv.Profile("pf_file")
	require.True(t, ok && p.ItemsCount == 4, "profile pf_file = %+v, %v", p, ok)
	f, _ := srv.Folder(p.Folders[0].ID)
	require.Len(t, f.Items, 4, "default folder items = %+v", f.Items)
	assert.Equal(t, "passport.txt", f.Items[0].Name, "name of a file item without a name, want the file's base name")
	b, _ := srv.ItemBytes(f.Items[0].ID)
	assert.Equal(t, passportDoc, string(b), "the relative path's bytes, want the file's, read relative to the seed file")
	b, _ = srv.ItemBytes(f.Items[1].ID)
	assert.True(t, strings.HasPrefix(string(b), "full_name,"), "the absolute path's bytes = %q", b)
	assert.True(t, slices.ContainsFunc(srv.Workflows(), func(w mockserver.Workflow) bool { return w.ID == "wf_file" }), "the seed file's workflow is missing")

	for _, tc := range []struct{ name, content string }{
		{"missing item file", `{"profiles":[{"name":"x","folders":[{"name":"default","items":[{"type":"file","path":"docs/nope.txt"}]}]}]}`},
		{"malformed JSON", `{"profiles":[`},
		{"unknown field", `{"profilez":[]}`},
		{"wrong type", `{"profiles":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, strings.ReplaceAll(tc.name, " ", "_")+".json", tc.content)
			s, err := mockserver.LoadSeedFile(p)
			assert.Error(t, err, "LoadSeedFile succeeded: %+v", s)
		})
	}
	_, err = mockserver.LoadSeedFile(filepath.Join(dir, "absent.json"))
	assert.Error(t, err, "LoadSeedFile of a missing file succeeded")
}
