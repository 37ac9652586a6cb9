package mockserver_test

// Snapshots and state files that must never crash, corrupt or lose the
// server's state: hostile snapshots refused whole, IDs never drawn again
// after a restore, state files checked at start and written through
// links, and the file and seed readers bounded.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/filelimit"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// TestRestore_RefusesASnapshotThatDoesNotHoldTogether restores, into a
// server holding state of its own, snapshots broken one way each: every
// one is refused, naming its record and field, and the server's state is
// as it was and still served.
func TestRestore_RefusesASnapshotThatDoesNotHoldTogether(t *testing.T) {
	t.Parallel()
	fc := mockserver.NewFakeClock(kitT0)
	src := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(snapshotRunDuration))
	buildSnapshotFixture(t, src, fc)
	good := snapshotJSON(t, src)

	for _, tt := range []struct {
		name   string
		mutate func(s map[string]any)
		want   []string // in the error, in order
	}{
		{"a workflow whose schema spells properties in capitals", func(s map[string]any) {
			at(s, "workflows", 0)["outputSchema"] = map[string]any{"type": "object", "PROPERTIES": map[string]any{"x": map[string]any{"type": "string"}}}
		}, []string{"workflows[0] (wf_default)", "outputSchema"}},
		{"no workflow", func(s map[string]any) { s["workflows"] = []any{} }, []string{"workflows", "at least one workflow"}},
		{"two workflows with one ID", func(s map[string]any) {
			s["workflows"] = append(s["workflows"].([]any), s["workflows"].([]any)[0])
		}, []string{"workflows[1] (wf_default)", `"id"`}},
		{"a profile of a workflow the snapshot lacks", func(s map[string]any) { at(s, "profiles", 0)["workflowId"] = "wf_gone" }, []string{"profiles[0]", `"workflowId"`, "wf_gone"}},
		{"a folder of no profile", func(s map[string]any) { at(s, "folders", 1)["profileId"] = "pf_nobody" }, []string{"folders[1]", `"profileId"`, "pf_nobody"}},
		{"an item of no folder", func(s map[string]any) { at(s, "items", 0)["folderId"] = "fld_nowhere" }, []string{"items[0]", `"folderId"`, "fld_nowhere"}},
		{"an analysis of no profile", func(s map[string]any) {
			a := at(s, "analyses", 0)["analysis"].(map[string]any)
			a["profileId"] = "pf_nobody"
		}, []string{"analyses[0]", `"analysis.profileId"`, "pf_nobody"}},
		{"a profile's ID with a slash", func(s map[string]any) { at(s, "profiles", 0)["id"] = "pf_a/b" }, []string{"profiles[0] (pf_a/b)", `"id"`}},
		{"an item's ID of the wrong prefix", func(s map[string]any) { at(s, "items", 0)["id"] = "pf_123" }, []string{"items[0] (pf_123)", `"id"`, `"item_"`}},
		{"two items with one ID", func(s map[string]any) {
			items := s["items"].([]any)
			items[1].(map[string]any)["id"] = items[0].(map[string]any)["id"]
		}, []string{"items[1]", `"id"`, "earlier record"}},
		{"a profile listing a folder of another profile", func(s map[string]any) {
			p0, p1 := at(s, "profiles", 0), at(s, "profiles", 1)
			p1["folderIds"] = append(p1["folderIds"].([]any), p0["folderIds"].([]any)[1])
		}, []string{"profiles[1]", `"folderIds[1]"`, "another profile"}},
		{"a folder that lists an item of another folder", func(s map[string]any) {
			f := at(s, "folders", 0)
			f["itemIds"] = append(f["itemIds"].([]any), at(s, "folders", 1)["itemIds"].([]any)[0])
		}, []string{"folders[0]", `"itemIds[1]"`, "another folder"}},
		{"the sequence counter at the maximum of its type", func(s map[string]any) { s["seq"] = json.Number("9223372036854775807") }, []string{"the snapshot", `"seq"`}},
		{"a record's sequence number beyond the counter", func(s map[string]any) { at(s, "folders", 0)["seq"] = json.Number("100000") }, []string{"folders[0]", `"seq"`}},
		{"an analysis of an unknown status", func(s map[string]any) {
			at(s, "analyses", 0)["analysis"].(map[string]any)["status"] = "exploded"
		}, []string{"analyses[0]", `"analysis.status"`, "exploded"}},
		{"a completed analysis without its risk", func(s map[string]any) {
			delete(at(s, "analyses", 0)["analysis"].(map[string]any), "riskAssessment")
		}, []string{"analyses[0]", `"analysis.riskAssessment"`}},
		{"two running analyses of one profile", func(s map[string]any) {
			// A copy of alpha's running analysis, under another ID and
			// sequence number, listed by alpha too.
			var second map[string]any
			b, _ := json.Marshal(at(s, "analyses", 1))
			_ = json.Unmarshal(b, &second)
			a := second["analysis"].(map[string]any)
			a["id"] = "analysis_second"
			seq, _ := s["seq"].(json.Number).Int64()
			s["seq"] = seq + 1
			second["seq"] = seq + 1
			s["analyses"] = append(s["analyses"].([]any), second)
			for _, p := range s["profiles"].([]any) {
				if pm := p.(map[string]any); pm["id"] == a["profileId"] {
					pm["analysisIds"] = append(pm["analysisIds"].([]any), "analysis_second")
				}
			}
		}, []string{"analyses[2] (analysis_second)", `"analysis.status"`, "same profile"}},
		{"a run whose workflow would break the engine", func(s map[string]any) {
			in := at(s, "analyses", 1)["input"].(map[string]any)
			in["Workflow"].(map[string]any)["outputSchema"] = map[string]any{"PROPERTIES": map[string]any{}}
		}, []string{"analyses[1]", `"input.Workflow"`, "outputSchema"}},
		{"a run of an endless duration", func(s map[string]any) { at(s, "analyses", 1)["durationMs"] = json.Number("9223372036854775807") }, []string{"analyses[1]", `"durationMs"`}},
		{"an analysis's document named longer than a name may be", func(s map[string]any) {
			in := at(s, "analyses", 1)["input"].(map[string]any)
			in["Items"].([]any)[0].(map[string]any)["Name"] = strings.Repeat("x", 20_000)
		}, []string{"analyses[1]", `"input.Items[0].Name"`}},
		{"an analysis's target item named longer than a name may be", func(s map[string]any) {
			a := at(s, "analyses", 0)["analysis"].(map[string]any)
			a["targetItems"].([]any)[0].(map[string]any)["name"] = strings.Repeat("y", 300)
		}, []string{"analyses[0]", `"analysis.targetItems[0].name"`}},
		{"a profile made at the zero time", func(s map[string]any) { at(s, "profiles", 0)["createdAt"] = "0001-01-01T00:00:00Z" }, []string{"profiles[0]", `"createdAt"`}},
		{"an analysis the service could not give", func(s map[string]any) {
			at(s, "analyses", 0)["analysis"].(map[string]any)["riskAssessment"].(map[string]any)["riskScore"] = 101
		}, []string{"analyses[0]", `"analysis/riskAssessment/riskScore"`, "not what the service gives"}},
		{"an item's ID with a percent sign", func(s map[string]any) { at(s, "items", 0)["id"] = "item_50%off" }, []string{"items[0] (item_50%off)", `"id"`}},
		{"an analysis's ID with a quote", func(s map[string]any) {
			a := at(s, "analyses", 0)["analysis"].(map[string]any)
			a["id"] = `analysis_a"b`
		}, []string{"analyses[0]", `"id"`}},
		{"a JSON item whose bytes are not its content", func(s map[string]any) {
			for _, it := range s["items"].([]any) {
				if m := it.(map[string]any); m["type"] == "json" {
					m["data"] = "/9j/4AAQ" // a JPEG's first bytes, in base64
				}
			}
		}, []string{"items[", `"data"`}},
		{"a JSON item whose content is not an object", func(s map[string]any) {
			for _, it := range s["items"].([]any) {
				if m := it.(map[string]any); m["type"] == "json" {
					m["content"] = "not an object"
				}
			}
		}, []string{"items[", `"content"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newServer(t)
			before, _ := addProfile(t, srv.Tenant, "Kept")
			snap := brokenSnapshot(t, good, tt.mutate)
			err := srv.Restore(snap)
			require.Error(t, err, "Restore of a snapshot with %s", tt.name)
			wantInOrder(t, err.Error(), tt.want...)
			profiles := srv.Profiles()
			require.Len(t, profiles, 1, "the server's profiles after a refused Restore")
			assert.Equal(t, before.ID, profiles[0].ID, "the server's profile after a refused Restore")
			wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+before.ID, nil), 200)
		})
	}

	t.Run("the snapshot unbroken", func(t *testing.T) {
		srv := newServer(t, mockserver.WithClock(mockserver.NewFakeClock(fc.Now())))
		require.NoError(t, srv.Restore(brokenSnapshot(t, good, func(map[string]any) {})))
	})
	t.Run("an empty snapshot", func(t *testing.T) {
		srv := newServer(t)
		err := srv.Restore(&mockserver.Snapshot{})
		require.Error(t, err, "Restore(&Snapshot{})")
		assert.Contains(t, err.Error(), "workflow")
		assert.Len(t, srv.Workflows(), 1, "the workflows after a refused Restore(&Snapshot{})")
	})
}

// TestAnalyses_AnEnginePanicFailsTheAnalysis panics in the engine, as
// run by the server's own clock: the process goes on, the analysis
// fails naming the cause, and the panic is logged with its stack.
func TestAnalyses_AnEnginePanicFailsTheAnalysis(t *testing.T) {
	t.Parallel()
	var logged testutil.LockedBuffer
	srv := newServer(t, mockserver.WithAnalysisDuration(0),
		mockserver.WithLogger(slog.New(slog.NewTextHandler(&logged, nil))),
		mockserver.WithAnalyzer(func(context.Context, mockserver.AnalysisInput) (mockserver.AnalysisResult, error) {
			m := func() map[string]any { return nil }()
			m["boom"] = 1 // assignment to entry in nil map, as a misspelt "properties" once made the engine do
			return mockserver.AnalysisResult{}, nil
		}))
	pid, _, item := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	id := startAnalysis(t, srv, pid, item)
	wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=60", nil), 200)
	a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisFailed)
	require.NotNil(t, a.Error)
	assert.Contains(t, *a.Error, "assignment to entry in nil map", "the failed analysis's error")
	log := logged.String()
	assert.Contains(t, log, "the analysis engine panicked", "the log")
	assert.Contains(t, log, "runtime/debug.Stack", "the log holds the panic's stack")
	assert.Contains(t, log, id, "the log names the analysis")
}

// TestIDs_NeverDrawnAgain restores a seeded server's snapshot into a new
// server of the same seed, which would draw the same IDs again: new
// records get new IDs, the same on every run, and every restored record
// stays; and a new record never takes an ID a seed fixed.
func TestIDs_NeverDrawnAgain(t *testing.T) {
	t.Parallel()
	const seed = 7
	first := newServer(t, mockserver.WithIDSeed(seed))
	old, oldFolder, oldItem := addProfileWithItem(t, first.Tenant, "Saved")
	snap, err := first.Snapshot()
	require.NoError(t, err)

	restoredAndCreate := func() (string, string) {
		srv := newServer(t, mockserver.WithIDSeed(seed))
		require.NoError(t, srv.Restore(snap))
		p := postProfile(t, srv, "New")
		id := stringField(t, "the new profile", p, "id")
		folder := stringField(t, "the new profile's folder", objectsField(t, "the new profile", p, "folders")[0], "id")
		assert.NotEqual(t, old, id, "a new profile took the ID of a restored one")
		assert.NotEqual(t, oldFolder, folder, "a new folder took the ID of a restored one")
		wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+old, nil), 200)
		got, ok := srv.Item(oldItem)
		require.True(t, ok, "the restored item")
		assert.Equal(t, oldFolder, got.FolderID)
		return id, folder
	}
	id1, folder1 := restoredAndCreate()
	id2, folder2 := restoredAndCreate()
	assert.Equal(t, id1, id2, "the IDs after a restore differ between two runs of the same seed and snapshot")
	assert.Equal(t, folder1, folder2)

	t.Run("an ID a seed fixed", func(t *testing.T) {
		// The second profile a server of this seed makes gets next; a
		// seed that fixes that ID first must not lose its profile.
		probe := newServer(t, mockserver.WithIDSeed(seed))
		addProfile(t, probe.Tenant, "first")
		next, _ := addProfile(t, probe.Tenant, "second")
		srv := newServer(t, mockserver.WithIDSeed(seed), mockserver.WithSeed(&mockserver.Seed{
			Profiles: []mockserver.SeedProfile{{ID: next.ID, Name: "Fixed"}},
		}))
		made, _ := addProfile(t, srv.Tenant, "Made")
		assert.NotEqual(t, next.ID, made.ID, "a new profile took the ID a seed fixed")
		fixed, ok := srv.Profile(next.ID)
		require.True(t, ok, "the seeded profile")
		assert.Equal(t, "Fixed", fixed.Name, "the seeded profile")
	})
}

// TestStateFile_CheckedAtStart starts servers on state files that cannot
// be kept: each start fails with a message naming the file, and the file
// is left as it was.
func TestStateFile_CheckedAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notADir := filepath.Join(dir, "plain")
	require.NoError(t, os.WriteFile(notADir, []byte("x"), 0o644))
	hostile := filepath.Join(dir, "hostile.json")
	src := newServer(t)
	addProfile(t, src.Tenant, "Jane")
	raw := snapshotJSON(t, src)
	broken := brokenSnapshotJSON(t, raw, func(s map[string]any) { at(s, "folders", 0)["profileId"] = "pf_nobody" })
	require.NoError(t, os.WriteFile(hostile, broken, 0o600))

	for _, tt := range []struct {
		name, path string
		want       string
	}{
		{"in a directory that does not exist", filepath.Join(dir, "missing", "state.json"), "cannot be written"},
		{"under a file", filepath.Join(notADir, "state.json"), "cannot be written"},
		{"a directory", dir, "not a regular file"},
		{"endless", "/dev/zero", ""},
		{"a snapshot that does not hold together", hostile, "folders[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mockserver.Start("127.0.0.1:0", mockserver.WithStateFile(tt.path))
			require.Error(t, err, "Start with the state file %s", tt.path)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	got, err := os.ReadFile(hostile)
	require.NoError(t, err)
	assert.Equal(t, broken, got, "a state file refused at start was changed")
}

// TestStateFile_Writes keeps state files the way a crash or a link would
// break them: a stale temporary file is removed at start, a link is
// written through, and a write that fails at shutdown is an error that
// says the state was lost.
func TestStateFile_Writes(t *testing.T) {
	t.Parallel()
	t.Run("a stale temporary file is removed at start", func(t *testing.T) {
		dir := t.TempDir()
		state := filepath.Join(dir, "state.json")
		part := filepath.Join(dir, ".state.json.part")
		require.NoError(t, os.WriteFile(part, []byte(`{"version":1,"half":`), 0o600))
		srv := newServer(t, mockserver.WithStateFile(state))
		_, err := os.Stat(part)
		assert.ErrorIs(t, err, os.ErrNotExist, "the temporary file of an interrupted write, after a start")
		addProfile(t, srv.Tenant, "Jane")
		require.NoError(t, srv.Shutdown(t.Context()))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		assert.Equal(t, []string{"state.json"}, names, "the directory after a write")
	})

	t.Run("a symbolic link is written through", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "real.json")
		link := filepath.Join(dir, "state.json")
		require.NoError(t, os.Symlink("real.json", link))
		srv := newServer(t, mockserver.WithStateFile(link))
		p, _ := addProfile(t, srv.Tenant, "Jane")
		require.NoError(t, srv.Shutdown(t.Context()))
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the state file is no longer a link")
		b, err := os.ReadFile(target)
		require.NoError(t, err, "the link's target")
		assert.Contains(t, string(b), p.ID, "the link's target holds the state")

		again := newServer(t, mockserver.WithStateFile(link))
		_, ok := again.Profile(p.ID)
		assert.True(t, ok, "the profile after a restart through the link")
	})

	t.Run("a stale temporary file that is a link is never followed", func(t *testing.T) {
		dir := t.TempDir()
		victim := filepath.Join(dir, "victim.txt")
		require.NoError(t, os.WriteFile(victim, []byte("IMPORTANT DATA\n"), 0o600))
		require.NoError(t, os.Symlink("victim.txt", filepath.Join(dir, ".state.json.part")))
		srv := newServer(t, mockserver.WithStateFile(filepath.Join(dir, "state.json")))
		addProfile(t, srv.Tenant, "Jane")
		require.NoError(t, srv.Shutdown(t.Context()))
		b, err := os.ReadFile(victim)
		require.NoError(t, err)
		assert.Equal(t, "IMPORTANT DATA\n", string(b), "the file a stale temporary link pointed to")
	})

	t.Run("a link through a linked directory and ..", func(t *testing.T) {
		// state.json -> dirlink/../t.json, dirlink -> sub/deep: the
		// system resolves the state file to sub/t.json.
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub", "deep"), 0o755))
		require.NoError(t, os.Symlink(filepath.Join("sub", "deep"), filepath.Join(dir, "dirlink")))
		link := filepath.Join(dir, "state.json")
		require.NoError(t, os.Symlink("dirlink/../t.json", link))
		srv := newServer(t, mockserver.WithStateFile(link))
		p, _ := addProfile(t, srv.Tenant, "Jane")
		require.NoError(t, srv.Shutdown(t.Context()))
		b, err := os.ReadFile(filepath.Join(dir, "sub", "t.json"))
		require.NoError(t, err, "the file the link resolves to")
		assert.Contains(t, string(b), p.ID)
		_, err = os.Stat(filepath.Join(dir, "t.json"))
		assert.ErrorIs(t, err, os.ErrNotExist, "a file beside the link, where a lexical reading of it points")
		again := newServer(t, mockserver.WithStateFile(link))
		_, ok := again.Profile(p.ID)
		assert.True(t, ok, "the profile after a restart through the link")
	})

	t.Run("a write that fails at shutdown", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "gone")
		require.NoError(t, os.Mkdir(dir, 0o755))
		srv := newServer(t, mockserver.WithStateFile(filepath.Join(dir, "state.json")))
		addProfile(t, srv.Tenant, "Jane")
		require.NoError(t, os.RemoveAll(dir))
		err := srv.Shutdown(t.Context())
		require.Error(t, err, "Shutdown with the state file's directory gone")
		assert.ErrorIs(t, err, mockserver.ErrStateNotSaved)
	})
}

// TestSeedFile_Bounded reads seed files that never end or are larger
// than the bound: each is refused, not read into memory whole.
func TestSeedFile_Bounded(t *testing.T) {
	t.Parallel()
	_, err := mockserver.LoadSeedFile("/dev/zero")
	require.Error(t, err, "a seed of /dev/zero")

	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(mockserver.MaxSeedFileSize+1))
	require.NoError(t, f.Close())
	_, err = mockserver.LoadSeedFile(big)
	assert.ErrorIs(t, err, filelimit.ErrTooLarge, "a seed file over the bound")

	named := filepath.Join(dir, "named.json")
	require.NoError(t, os.WriteFile(named, []byte(`{"profiles":[{"name":"P","folders":[{"name":"default","items":[{"type":"file","path":"/dev/zero"}]}]}]}`), 0o600))
	_, err = mockserver.LoadSeedFile(named)
	assert.ErrorIs(t, err, filelimit.ErrTooLarge, "a seed naming /dev/zero")

	trailing := filepath.Join(dir, "trailing.json")
	require.NoError(t, os.WriteFile(trailing, []byte(`{"profiles":[]} {"more":1}`), 0o600))
	_, err = mockserver.LoadSeedFile(trailing)
	assert.Error(t, err, "a seed followed by more")
}

// snapshotJSON is srv's snapshot, encoded.
func snapshotJSON(t *testing.T, srv *mockserver.Server) []byte {
	t.Helper()
	snap, err := srv.Snapshot()
	require.NoError(t, err)
	raw, err := snap.MarshalJSON()
	require.NoError(t, err)
	return raw
}

// brokenSnapshotJSON decodes an encoded snapshot, breaks it with fn and
// encodes it again.
func brokenSnapshotJSON(t *testing.T, raw []byte, fn func(s map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var s map[string]any
	require.NoError(t, dec.Decode(&s))
	fn(s)
	out, err := json.Marshal(s)
	require.NoError(t, err)
	return out
}

// brokenSnapshot is the snapshot raw encodes, broken by fn.
func brokenSnapshot(t *testing.T, raw []byte, fn func(s map[string]any)) *mockserver.Snapshot {
	t.Helper()
	var snap mockserver.Snapshot
	require.NoError(t, snap.UnmarshalJSON(brokenSnapshotJSON(t, raw, fn)), "decoding the broken snapshot")
	return &snap
}

// at is the i-th object of the list s[list].
func at(s map[string]any, list string, i int) map[string]any {
	return s[list].([]any)[i].(map[string]any)
}

// wantInOrder checks that s holds each of parts, in order.
func wantInOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	rest := s
	for _, p := range parts {
		i := strings.Index(rest, p)
		if !assert.GreaterOrEqual(t, i, 0, "%q lacks %q (after what came before)", s, p) {
			return
		}
		rest = rest[i+len(p):]
	}
}

// TestState_WhatTheServerHoldsItLoads makes, through every path that
// makes or changes a record, the values a restored state would refuse:
// each is refused where it comes in, or loads again, so that a server
// never writes a state file it cannot start on.
func TestState_WhatTheServerHoldsItLoads(t *testing.T) {
	t.Parallel()
	t.Run("IDs a seed fixes", func(t *testing.T) {
		srv := newServer(t)
		for _, id := range []string{"pf_50%off", "pf_tab\there", "pf_nbsp\u00a0x", "pf_a\\b", "pf_zw\u200bj"} {
			err := srv.LoadSeed(&mockserver.Seed{Profiles: []mockserver.SeedProfile{{ID: id, Name: "P"}}})
			assert.Error(t, err, "a seed fixing the ID %q", id)
		}
	})
	t.Run("a workflow's ID and name", func(t *testing.T) {
		srv := newServer(t)
		for _, w := range []mockserver.Workflow{
			{ID: "wf_a/b"}, {ID: "wf_a%2Fb"}, {ID: "wf_a b"}, {ID: "wf_\xff"}, {ID: "wf_\xfe"}, {ID: "wf_a\"b"},
			{ID: "wf_named", Name: strings.Repeat("Long workflow name ", 40_000)},
		} {
			assert.Error(t, srv.AddWorkflow(w), "AddWorkflow(%.40q)", w.ID+" "+w.Name)
		}
		wantStatus(t, do(t, srv, "POST", "/_mock/workflows", map[string]any{"id": "wf_a?b#c"}), 400)
		assert.Len(t, srv.Workflows(), 1, "the workflows after those refused")
	})
	t.Run("an item's status", func(t *testing.T) {
		srv := newServer(t)
		_, _, item := addProfileWithItem(t, srv.Tenant, "Jane")
		assert.Error(t, srv.SetItemStatus(item, profilesvc.ItemStatus(strings.Repeat("S", 256))), "a status of 256 bytes")
		assert.Error(t, srv.SetItemStatus(item, "HELD\n"), "a status with a control character")
		wantStatus(t, do(t, srv, "POST", "/_mock/items/"+item+"/status", map[string]any{"status": strings.Repeat("S", 256)}), 400)
	})
	t.Run("an upload's Content-Type", func(t *testing.T) {
		srv := newServer(t)
		_, folder := createProfile(t, srv, "Uploads")
		for _, ct := range []string{"text/plain; x=\u0085", "text/plain; x=" + strings.Repeat("y", 300)} {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			part, err := mw.CreatePart(textproto.MIMEHeader{
				"Content-Disposition": {`form-data; name="file"; filename="a.txt"`}, "Content-Type": {ct}})
			require.NoError(t, err)
			_, _ = part.Write([]byte("hello"))
			require.NoError(t, mw.Close())
			r := send(t, srv, request{Method: "POST", Path: "/v1/folders/" + folder + "/items", Body: body.Bytes(), ContentType: mw.FormDataContentType()})
			wantError(t, r, 400, "VALIDATION_ERROR", "Content-Type")
		}
	})
	t.Run("a run longer than a state file keeps", func(t *testing.T) {
		for _, opt := range []mockserver.Option{mockserver.WithAnalysisDuration(9000 * time.Hour), mockserver.WithReportDelay(9000 * time.Hour)} {
			_, err := mockserver.Start("127.0.0.1:0", opt)
			assert.ErrorContains(t, err, "longer than a year")
		}
	})
	t.Run("a sequence counter at the bound", func(t *testing.T) {
		src := newServer(t)
		addProfile(t, src.Tenant, "Jane")
		raw := brokenSnapshotJSON(t, snapshotJSON(t, src), func(s map[string]any) {
			s["seq"] = json.Number("9007199254740992")
			at(s, "profiles", 0)["seq"] = json.Number("9007199254740991")
			at(s, "folders", 0)["seq"] = json.Number("9007199254740992")
		})
		var snap mockserver.Snapshot
		require.NoError(t, snap.UnmarshalJSON(raw))
		srv := newServer(t)
		require.NoError(t, srv.Restore(&snap), "a snapshot at the bound")
		addProfile(t, srv.Tenant, "Made after")
		again := snapshotJSON(t, srv)
		var next mockserver.Snapshot
		require.NoError(t, next.UnmarshalJSON(again))
		assert.NoError(t, newServer(t).Restore(&next), "the server's own snapshot, after a record made past the bound")
	})
}

// TestRestore_ARunBegunBeforeLeavesTheRestoredAnalysis restores a
// snapshot while the engine runs an analysis of the state it replaces:
// the run's end is dropped, and the restored analysis stays as the
// snapshot has it.
func TestRestore_ARunBegunBeforeLeavesTheRestoredAnalysis(t *testing.T) {
	t.Parallel()
	inEngine, release := make(chan struct{}), make(chan struct{})
	srv := newServer(t, mockserver.WithManualAnalyses(),
		mockserver.WithAnalyzer(func(ctx context.Context, in mockserver.AnalysisInput) (mockserver.AnalysisResult, error) {
			close(inEngine)
			<-release
			return engine.Default(ctx, in)
		}))
	pid, _, item := addProfileWithItem(t, srv.Tenant, "Jane")
	id := startAnalysis(t, srv, pid, item)
	snap, err := srv.Snapshot()
	require.NoError(t, err)
	completed := make(chan error, 1)
	go func() { completed <- srv.CompleteAnalysis(id) }()
	<-inEngine
	require.NoError(t, srv.Restore(snap))
	close(release)
	require.NoError(t, <-completed)
	wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
}

// TestRequestIDs_NeverAgainAfterARestore restores one snapshot twice into
// a seeded server: the request IDs after the second are not those after
// the first, which the request record still holds.
func TestRequestIDs_NeverAgainAfterARestore(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithIDSeed(11))
	p, _ := addProfile(t, srv.Tenant, "Jane")
	snap, err := srv.Snapshot()
	require.NoError(t, err)
	seen := map[string]bool{}
	for round := range 2 {
		require.NoError(t, srv.Restore(snap))
		for range 3 {
			r := do(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
			id := r.Header.Get("X-Request-Id")
			assert.False(t, seen[id], "round %d: request ID %s given again", round+1, id)
			seen[id] = true
		}
	}
}

// TestListings_OrderOfTimesOutsideUnixNanos lists folders made on a clock
// set before 1970 and after 2262, where nanoseconds since 1970 are
// negative or overflow: they come in the order they were made.
func TestListings_OrderOfTimesOutsideUnixNanos(t *testing.T) {
	t.Parallel()
	for _, start := range []time.Time{time.Date(1960, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 5, 1, 0, 0, 0, 0, time.UTC)} {
		t.Run(start.Format("2006"), func(t *testing.T) {
			fc := mockserver.NewFakeClock(start)
			srv := newServer(t, mockserver.WithClock(fc))
			pid, _ := createProfile(t, srv, "Times")
			var want []string
			for i := range 3 {
				fc.Advance(time.Hour)
				want = append(want, createFolder(t, srv, pid, fmt.Sprintf("folder %d", i)))
			}
			ids, _, _ := listFolders(t, srv, pid, "?sort=createdAt&order=asc")
			assert.Equal(t, want, ids[1:], "folders by creation time, oldest first")
		})
	}
}
