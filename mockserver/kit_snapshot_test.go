package mockserver_test

// Snapshot and Restore: the state a snapshot holds, restored in place and
// in a new server through its JSON, long polls held across a restore, and
// the snapshots refused.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// kitState is what the kit says of a server's whole state.
type kitState struct {
	Workflows []mockserver.Workflow
	Profiles  []*profilesvc.Profile
	Folders   map[string]*profilesvc.Folder
	Items     map[string]*profilesvc.Item
	Bytes     map[string][]byte
	Analyses  map[string][]*profilesvc.Analysis // by profile, oldest first
}

// stateOf reads a server's state through the kit: every profile, each of
// its folders, items with their bytes, and analyses. The items' URLs,
// which name the server, are given relative to it, so that the states of
// two servers compare.
func stateOf(t testing.TB, srv *mockserver.Server) kitState {
	t.Helper()
	s := kitState{
		Workflows: srv.Workflows(), Profiles: srv.Profiles(),
		Folders: map[string]*profilesvc.Folder{}, Items: map[string]*profilesvc.Item{},
		Bytes: map[string][]byte{}, Analyses: map[string][]*profilesvc.Analysis{},
	}
	for _, p := range s.Profiles {
		for _, fs := range p.Folders {
			f, ok := srv.Folder(fs.ID)
			require.True(t, ok, "Folder(%s) of profile %s", fs.ID, p.ID)
			s.Folders[f.ID] = f
			for _, sum := range f.Items {
				it, ok := srv.Item(sum.ID)
				require.True(t, ok, "Item(%s) of folder %s", sum.ID, f.ID)
				it.URL = strings.TrimPrefix(it.URL, srv.URL)
				it.StorageOriginalURL = strings.TrimPrefix(it.StorageOriginalURL, srv.URL)
				s.Items[it.ID] = it
				b, ok := srv.ItemBytes(sum.ID)
				require.True(t, ok, "ItemBytes(%s)", sum.ID)
				s.Bytes[it.ID] = b
			}
		}
		s.Analyses[p.ID] = srv.Analyses(p.ID)
	}
	return s
}

// sameJSON compares JSON values by their meaning: a snapshot keeps a
// workflow's output schema compacted.
var sameJSON = cmp.Comparer(func(a, b json.RawMessage) bool {
	var av, bv any
	if json.Unmarshal(a, &av) != nil || json.Unmarshal(b, &bv) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(av, bv)
})

// wantState fails the test unless srv's state is want.
func wantState(t testing.TB, srv *mockserver.Server, want kitState, when string) {
	t.Helper()
	if diff := cmp.Diff(want, stateOf(t, srv), sameJSON); diff != "" {
		t.Errorf("%s: the state differs from the snapshot's (-want +got):\n%s", when, diff)
	}
}

// changeEverything deletes, adds, renames and finishes, through the API
// and the kit, without moving the clock.
func changeEverything(t *testing.T, srv *mockserver.Server, f snapshotFixture, round int) {
	t.Helper()
	wantNoContent(t, do(t, srv, "DELETE", "/v1/profiles/"+f.beta, nil))
	doJSON(t, srv, "PATCH", "/v1/profiles/"+f.alpha, map[string]any{"name": fmt.Sprintf("Alpha %d", round), "metadata": map[string]any{"tier": "silver"}}, 200)
	doJSON(t, srv, "PATCH", "/v1/folders/"+f.idsFolder, map[string]any{"name": fmt.Sprintf("Papers %d", round)}, 200)
	doJSON(t, srv, "PATCH", "/v1/items/"+f.form, map[string]any{"name": "form 2", "metadata": map[string]any{"source": "post"}}, 200)
	wantNoContent(t, do(t, srv, "DELETE", "/v1/items/"+f.png, nil))
	createTextItem(t, srv, f.idsFolder, "new note", "added after the snapshot")
	addProfileWithItem(t, srv.Tenant, fmt.Sprintf("Gamma %d", round))
	require.NoError(t, srv.FailAnalysis(f.running, "changed"))
	require.NoError(t, srv.AddWorkflow(mockserver.Workflow{ID: fmt.Sprintf("wf_added_%d", round),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"extracted_values":{"type":"object"}}}`)}))
}

func TestKitSnapshotRestore(t *testing.T) {
	t.Parallel()
	fc := mockserver.NewFakeClock(kitT0)
	srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(snapshotRunDuration))
	f := buildSnapshotFixture(t, srv, fc)
	want := stateOf(t, srv)
	require.Len(t, want.Profiles, 2)
	require.Len(t, want.Items, 5)
	snap, err := srv.Snapshot()
	require.NoError(t, err, "Snapshot")
	encoded, err := snap.MarshalJSON()
	require.NoError(t, err, "MarshalJSON")

	// Restore the same snapshot twice, with changes before each: the
	// state is the snapshot's each time, and the snapshot is unchanged.
	for round := 1; round <= 2; round++ {
		changeEverything(t, srv, f, round)
		require.False(t, cmp.Equal(want, stateOf(t, srv), sameJSON), "round %d: the changes changed nothing", round)
		require.NoError(t, srv.Restore(snap), "Restore, round %d", round)
		wantState(t, srv, want, fmt.Sprintf("after Restore, round %d", round))
		again, err := snap.MarshalJSON()
		require.NoError(t, err)
		assert.JSONEq(t, string(encoded), string(again), "round %d: the snapshot changed with the state restored from it", round)
	}

	// The JSON round trip, into a new server whose clock stands where the
	// old one did.
	var decoded mockserver.Snapshot
	require.NoError(t, decoded.UnmarshalJSON(encoded), "UnmarshalJSON")
	fc2 := mockserver.NewFakeClock(fc.Now())
	srv2 := newServer(t, mockserver.WithClock(fc2), mockserver.WithAnalysisDuration(snapshotRunDuration))
	require.NoError(t, srv2.Restore(&decoded), "Restore of the decoded snapshot")
	wantState(t, srv2, want, "in a new server, after the JSON round trip")

	// The running analysis resumes on each server's clock: it completes
	// after the rest of its run.
	for name, s := range map[string]struct {
		srv *mockserver.Server
		fc  *mockserver.FakeClock
	}{"restored in place": {srv, fc}, "restored in a new server": {srv2, fc2}} {
		t.Run(name, func(t *testing.T) {
			blockUntil(t, s.fc, 1)
			rest := snapshotRunDuration / 2
			s.fc.Advance(rest - time.Millisecond)
			wantAnalysisStatus(t, s.srv.Tenant, f.running, profilesvc.AnalysisProcessing)
			s.fc.Advance(time.Millisecond)
			a := wantAnalysisStatus(t, s.srv.Tenant, f.running, profilesvc.AnalysisCompleted)
			end := kitT0.Add(2 * snapshotRunDuration) // beta's run, then alpha's
			assert.True(t, a.CompletedAt != nil && a.CompletedAt.Equal(end), "completedAt = %v, want the end of its run, %v", a.CompletedAt, end)
			wantStatus(t, do(t, s.srv, "GET", "/v1/analyses/"+f.completed+"/report", nil), 200)
		})
	}
}

// TestKitRestoreLongPolls restores a snapshot while long polls are held:
// one on an analysis the snapshot has goes on waiting, and answers when
// the restored analysis completes; one on an analysis it lacks answers
// 404.
func TestKitRestoreLongPolls(t *testing.T) {
	t.Parallel()
	fc := mockserver.NewFakeClock(kitT0)
	srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(snapshotRunDuration))
	kept, _, keptItem := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	keptID := startAnalysis(t, srv, kept, keptItem)
	blockUntil(t, fc, 2)
	fc.Advance(snapshotRunDuration / 2)
	snap, err := srv.Snapshot()
	require.NoError(t, err)
	gone, _, goneItem := addProfileWithItem(t, srv.Tenant, "John Roe")
	goneID := startAnalysis(t, srv, gone, goneItem)
	const wait = "?waitForReport=true&timeoutSeconds=300"
	keptPoll := longPoll(t, srv, t.Context(), "/v1/analyses/"+keptID+wait)
	gonePoll := longPoll(t, srv, t.Context(), "/v1/analyses/"+goneID+wait)
	blockUntil(t, fc, 5) // the runs' three timers, the polls' two

	require.NoError(t, srv.Restore(snap))
	wantError(t, awaitAnswer(t, gonePoll, time.Minute), 404, "ANALYSIS_NOT_FOUND")
	wantNotAnswered(t, keptPoll)
	blockUntil(t, fc, 2) // the restored run's end, the poll's timeout
	fc.Advance(snapshotRunDuration / 2)
	a := jsonObject(t, awaitAnswer(t, keptPoll, time.Minute), 200)
	checkAnalysis(t, a, kept, "completed")
}

func TestKitSnapshotRestoreErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	assert.Error(t, srv.Restore(nil), "Restore(nil)")
	var s mockserver.Snapshot
	assert.Error(t, s.UnmarshalJSON([]byte(`{"version":99}`)), "a snapshot of an unknown version")
	assert.Error(t, s.UnmarshalJSON([]byte(`{"version":`)), "malformed JSON")
}

// BenchmarkRestore restores a snapshot of 100 items (text, JSON and file
// items in turn) into the server it was taken of: one op is one Restore.
func BenchmarkRestore(b *testing.B) {
	srv := mockserver.NewTest(b)
	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Bench"})
	require.NoError(b, err)
	fid := p.Folders[0].ID
	for i := range 100 {
		var err error
		switch i % 3 {
		case 0:
			_, err = srv.AddTextItem(fid, fmt.Sprintf("note %d", i), passportOf(fmt.Sprintf("Person %d", i)))
		case 1:
			_, err = srv.AddItem(fid, mockserver.SeedItem{Type: profilesvc.ItemJSON, Name: fmt.Sprintf("form %d", i),
				Content: json.RawMessage(fmt.Sprintf(`{"full_name":"Person %d"}`, i))})
		default:
			_, err = srv.AddFileItem(fid, fmt.Sprintf("scan %d.pdf", i), pdfBytes)
		}
		require.NoError(b, err)
	}
	snap, err := srv.Snapshot()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if err := srv.Restore(snap); err != nil {
			b.Fatal(err)
		}
	}
}
