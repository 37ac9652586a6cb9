package mockserver_test

// The mock's concurrency invariants under real parallel load over HTTP:
// many goroutines, many connections, the race detector watching. Each test
// drives one invariant the issue names and checks it both while the load
// runs and at the end, against the kit (srv.Profile, srv.Folder, ...) and
// against the HTTP listings.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestRelConcurrentStartAnalysis sends 100 starts of one profile at once,
// over 100 connections, three rounds in a row: each round exactly one is
// accepted and the 99 others get 409 ANALYSIS_IN_PROGRESS naming the
// winner; the profile holds exactly one analysis more after each round.
func TestRelConcurrentStartAnalysis(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithRequestRecordSize(1000))
	hc := newHTTPClient(t)
	pid, _, item := addProfileWithItem(t, srv.Tenant, "Racing Profile")
	const n, rounds = 100, 3
	path := "/v1/analyses/" + pid + "/analyze"
	var winners []string
	for round := range rounds {
		results := make([]*response, n)
		errs := make([]error, n)
		var ready, done sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				ready.Done()
				<-start
				results[i], errs[i] = sendWith(hc, srv, request{Method: "POST", Path: path, JSON: targets(item)})
			}()
		}
		ready.Wait()
		close(start)
		done.Wait()

		var accepted []string
		conflicts := 0
		for i := range n {
			r := results[i]
			switch {
			case errs[i] != nil:
				assert.NoError(t, errs[i], "round %d, start %d", round, i)
			case r.Status == http.StatusAccepted:
				var out struct {
					ID string `json:"id"`
				}
				err := json.Unmarshal(r.Body, &out)
				assert.True(t, err == nil && strings.HasPrefix(out.ID, "analysis_"), "round %d: accepted answer %s has no analysis ID", round, r)
				accepted = append(accepted, out.ID)
			case r.Status == http.StatusConflict:
				conflicts++
				assert.NoError(t, errorShape(r))
				assert.Equal(t, profilesvc.CodeAnalysisInProgress, errorCode(r.Body), "round %d: code of a 409: %s", round, r)
			default:
				assert.Failf(t, "unexpected answer", "round %d, start %d: %s", round, i, r)
			}
		}
		require.True(t, len(accepted) == 1 && conflicts == n-1, "round %d: %d accepted (%v) and %d conflicts, want 1 and %d", round, len(accepted), accepted, conflicts, n-1)
		winner := accepted[0]
		winners = append(winners, winner)
		for i, r := range results {
			if r.Status == http.StatusConflict && !assert.Contains(t, string(r.Body), winner, "round %d, start %d: the conflict does not name the running analysis %s", round, i, winner) {
				break
			}
		}
		got := srv.Analyses(pid) // oldest first
		require.True(t, len(got) == round+1 && got[len(got)-1].ID == winner && got[len(got)-1].Status == profilesvc.AnalysisPending,
			"round %d: the profile holds %d analyses (%+v), want %d with %s pending last", round, len(got), got, round+1, winner)
		r, err := sendWith(hc, srv, request{Method: "GET", Path: "/v1/profiles/" + pid + "/analyses?limit=100"})
		var page struct {
			Count int `json:"count"`
		}
		assert.True(t, err == nil && r.Status == http.StatusOK && json.Unmarshal(r.Body, &page) == nil && page.Count == round+1,
			"round %d: listing = %s %v, want %d analyses", round, r, err, round+1)
		require.NoError(t, srv.CompleteAnalysis(winner), "CompleteAnalysis(%s)", winner)
	}

	// The record agrees: 300 starts arrived, 3 were accepted.
	var total, ok202 int
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Path == path {
			total++
			if r.Status == http.StatusAccepted {
				ok202++
			}
		}
	}
	assert.True(t, total == n*rounds && ok202 == rounds, "the record holds %d starts with %d accepted, want %d and %d", total, ok202, n*rounds, rounds)
	assert.Len(t, slices.Compact(slices.Sorted(slices.Values(winners))), rounds, "winners %v are not distinct", winners)
}

// itemLedger is what the workers of TestRelConcurrentItemsCount know of
// the items: every item created (with its folder and bytes) and every item
// deleted (by its DELETE's 204 or with its folder).
type itemLedger struct {
	mu        sync.Mutex
	folderOf  map[string]string // item -> folder
	data      map[string][]byte // item -> bytes sent
	deleted   map[string]bool   // a DELETE answered 204
	withDir   map[string]bool   // deleted with its folder
	notFound  map[string]int    // DELETE answered 404 (someone else deleted it)
	alive     []string          // candidates for deletion
	twiceGone []string          // items whose deletion was answered 204 twice
}

func (l *itemLedger) created(id, folder string, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.folderOf[id] = folder
	l.data[id] = data
	l.alive = append(l.alive, id)
}

func (l *itemLedger) pick(rng *rand.Rand) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.alive) == 0 {
		return "", false
	}
	return l.alive[rng.IntN(len(l.alive))], true
}

// TestRelConcurrentItemsCount uploads and deletes items across the
// folders of one profile from many goroutines at once, while a churner
// creates folders, fills them and deletes them whole, and an observer
// checks every snapshot: each folder's itemsCount equals its listed items,
// and the profile's itemsCount equals the sum over its folders. At the
// end every count equals the real number of items, by the kit and by the
// HTTP answers, and every item holds the bytes it was uploaded with.
func TestRelConcurrentItemsCount(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(0))
	c := newSDK(t, srv)
	ctx := t.Context()
	pid, def, seedItem := addProfileWithItem(t, srv.Tenant, "Counting Profile")
	folders := []string{def}
	for i := range 3 {
		f, err := srv.CreateFolder(pid, fmt.Sprintf("folder %d", i))
		require.NoError(t, err)
		folders = append(folders, f.ID)
	}
	seedBytes, _ := srv.ItemBytes(seedItem)
	ledger := &itemLedger{
		folderOf: map[string]string{seedItem: def}, data: map[string][]byte{seedItem: seedBytes},
		deleted: map[string]bool{}, withDir: map[string]bool{}, notFound: map[string]int{}, alive: []string{seedItem},
	}

	const workers, ops = 8, 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var loadWG sync.WaitGroup
	for w := range workers {
		loadWG.Add(1)
		go func() {
			defer loadWG.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for op := range ops {
				switch r := rng.IntN(10); {
				case r < 5: // upload a file
					folder := folders[rng.IntN(len(folders))]
					data := fmt.Appendf(nil, "worker %d op %d\n%s", w, op, strings.Repeat("x", rng.IntN(2000)))
					it, err := c.UploadFile(ctx, folder, bytes.NewReader(data), profilesvc.UploadParams{Filename: fmt.Sprintf("w%d-%d.txt", w, op)})
					if !assert.NoError(t, err, "worker %d: UploadFile", w) {
						continue
					}
					ledger.created(it.ID, folder, data)
				case r < 6: // a text item
					folder := folders[rng.IntN(len(folders))]
					text := fmt.Sprintf("note of worker %d op %d", w, op)
					it, err := c.CreateTextItem(ctx, folder, text, profilesvc.CreateItemParams{Name: "note"})
					if !assert.NoError(t, err, "worker %d: CreateTextItem", w) {
						continue
					}
					ledger.created(it.ID, folder, []byte(text))
				default: // delete an item, maybe one another worker deletes too
					id, ok := ledger.pick(rng)
					if !ok {
						continue
					}
					err := c.DeleteItem(ctx, id)
					ledger.mu.Lock()
					switch {
					case err == nil:
						if ledger.deleted[id] {
							ledger.twiceGone = append(ledger.twiceGone, id)
						}
						ledger.deleted[id] = true
						if i := slices.Index(ledger.alive, id); i >= 0 {
							ledger.alive = slices.Delete(ledger.alive, i, i+1)
						}
					case errors.Is(err, profilesvc.ErrItemNotFound):
						ledger.notFound[id]++
					default:
						assert.NoError(t, err, "worker %d: DeleteItem(%s)", w, id)
					}
					ledger.mu.Unlock()
				}
			}
		}()
	}

	// The churner: folders made, filled from several goroutines and deleted
	// whole, while the workers run.
	var churned []string
	loadWG.Add(1)
	go func() {
		defer loadWG.Done()
		for i := range 6 {
			f, err := c.CreateFolder(ctx, pid, fmt.Sprintf("temporary %d", i))
			if !assert.NoError(t, err, "churner: CreateFolder") {
				return
			}
			var fill sync.WaitGroup
			var mu sync.Mutex
			for j := range 3 {
				fill.Add(1)
				go func() {
					defer fill.Done()
					it, err := c.UploadFile(ctx, f.ID, strings.NewReader(fmt.Sprintf("temp %d/%d", i, j)), profilesvc.UploadParams{Filename: "t.txt"})
					if !assert.NoError(t, err, "churner: UploadFile") {
						return
					}
					mu.Lock()
					churned = append(churned, it.ID)
					mu.Unlock()
				}()
			}
			fill.Wait()
			got, err := c.GetFolder(ctx, f.ID)
			assert.True(t, err == nil && got.ItemsCount == 3 && len(got.Items) == 3, "churner: temporary folder = %+v, %v; want 3 items", got, err)
			assert.NoError(t, c.DeleteFolder(ctx, f.ID), "churner: DeleteFolder")
		}
	}()

	// The observer: every snapshot is consistent in itself.
	var snapshots atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			p, ok := srv.Profile(pid)
			if !assert.True(t, ok, "observer: the profile is gone") {
				return
			}
			sum := 0
			for _, f := range p.Folders {
				sum += f.ItemsCount
			}
			assert.Equal(t, sum, p.ItemsCount, "observer: profile itemsCount, want what its folders hold")
			for _, fid := range folders {
				kf, ok := srv.Folder(fid)
				assert.True(t, ok && kf.ItemsCount == len(kf.Items), "observer: kit folder %s = %+v, want itemsCount = len(items)", fid, kf)
				f, err := c.GetFolder(ctx, fid)
				if assert.NoError(t, err, "observer: GET folder %s", fid) {
					assert.Equal(t, len(f.Items), f.ItemsCount, "observer: GET folder %s: itemsCount, want its number of items", fid)
				}
			}
			snapshots.Add(1)
		}
	}()
	loadWG.Wait()
	close(stop)
	wg.Wait()
	if t.Failed() {
		return
	}
	assert.NotZero(t, snapshots.Load(), "the observer saw no snapshot while the load ran")
	for _, id := range churned {
		ledger.withDir[id] = true
	}

	// The end state is exactly what the answers said.
	assert.Empty(t, ledger.twiceGone, "items deleted twice (204 twice)")
	for id, n := range ledger.notFound {
		assert.True(t, ledger.deleted[id], "DELETE of item %s answered 404 %d times, but no DELETE of it succeeded", id, n)
	}
	want := map[string][]string{}
	total := 0
	for id, folder := range ledger.folderOf {
		if !ledger.deleted[id] {
			want[folder] = append(want[folder], id)
			total++
		}
	}
	for _, fid := range folders {
		slices.Sort(want[fid])
		kf, ok := srv.Folder(fid)
		require.True(t, ok, "folder %s is gone", fid)
		var kit []string
		for _, it := range kf.Items {
			kit = append(kit, it.ID)
		}
		slices.Sort(kit)
		if diff := cmp.Diff(want[fid], kit); diff != "" {
			t.Errorf("folder %s: the kit's items differ from what the answers said (-want +got):\n%s", fid, diff)
		}
		assert.Equal(t, len(want[fid]), kf.ItemsCount, "folder %s: the kit's itemsCount", fid)
		hf, err := c.GetFolder(ctx, fid)
		require.NoError(t, err)
		var got []string
		for _, it := range hf.Items {
			got = append(got, it.ID)
		}
		slices.Sort(got)
		if diff := cmp.Diff(want[fid], got); diff != "" {
			t.Errorf("GET folder %s: the items differ from what the answers said (-want +got):\n%s", fid, diff)
		}
		assert.Equal(t, len(want[fid]), hf.ItemsCount, "GET folder %s: itemsCount", fid)
	}
	listed := 0
	for f, err := range c.ListFolders(ctx, pid, &profilesvc.ListFoldersParams{Limit: 2}) {
		require.NoError(t, err)
		if !assert.Contains(t, folders, f.ID, "the listing holds folder %s (%q), which should be gone", f.ID, f.Name) {
			continue
		}
		listed++
		assert.Equal(t, len(want[f.ID]), f.ItemsCount, "the listing gives folder %s itemsCount", f.ID)
	}
	assert.Equal(t, len(folders), listed, "folders the listing holds")
	kp, _ := srv.Profile(pid)
	assert.Equal(t, total, kp.ItemsCount, "the kit's profile itemsCount")
	hp, err := c.GetProfile(ctx, pid)
	assert.True(t, err == nil && hp.ItemsCount == total, "GET profile itemsCount = %v, %v; want %d", hp, err, total)
	for id, data := range ledger.data {
		b, ok := srv.ItemBytes(id)
		if ledger.deleted[id] {
			assert.False(t, ok, "deleted item %s is still stored", id)
			continue
		}
		if assert.True(t, ok, "item %s was lost", id) {
			assert.True(t, bytes.Equal(b, data), "item %s holds %d bytes, not the %d uploaded", id, len(b), len(data))
		}
	}
	for id := range ledger.withDir {
		_, ok := srv.Item(id)
		assert.False(t, ok, "item %s of a deleted folder is still stored", id)
		_, err := c.GetItem(ctx, id)
		assert.ErrorIs(t, err, profilesvc.ErrItemNotFound, "GET item %s of a deleted folder", id)
	}
	t.Logf("%d items remain in %d folders; %d deleted; %d deleted with their folders; %d snapshots observed",
		total, len(folders), len(ledger.deleted), len(ledger.withDir), snapshots.Load())
}

// TestRelRetentionUnderConcurrentCompletion runs analyses back to back on
// several profiles from several goroutines each, with short runs that
// complete by the server's timers while the control API completes some of
// them at the same moment: no observation ever shows a profile with more
// than five analyses, and at the end each holds exactly the five newest,
// the older ones gone from every route.
func TestRelRetentionUnderConcurrentCompletion(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(4*time.Millisecond), mockserver.WithRequestRecordSize(0))
	hc := newHTTPClient(t)
	ctx := t.Context()
	// Twice the five kept on each profile, from three goroutines each: the
	// retention runs on every profile, five times over.
	const profiles, perProfile, goroutines = 3, 10, 3
	type prof struct {
		id, item string
		started  atomic.Int64
		mu       sync.Mutex
		ids      []string
	}
	ps := make([]*prof, profiles)
	for i := range ps {
		ps[i] = &prof{}
		ps[i].id, _, ps[i].item = addProfileWithItem(t, srv.Tenant, fmt.Sprintf("Retained %d", i))
	}

	var load, obs sync.WaitGroup
	stop := make(chan struct{})
	var maxSeen atomic.Int64
	var observations atomic.Int64
	createdAt := sync.Map{} // analysis ID -> time.Time, from every snapshot
	observe := func(p *prof) {
		list := srv.Analyses(p.id)
		if n := int64(len(list)); n > maxSeen.Load() {
			maxSeen.Store(n)
		}
		assert.LessOrEqual(t, len(list), 5, "profile %s holds %d analyses (kit)", p.id, len(list))
		for _, a := range list {
			createdAt.LoadOrStore(a.ID, a.CreatedAt)
		}
		r, err := sendWith(hc, srv, request{Method: "GET", Path: "/v1/profiles/" + p.id + "/analyses?limit=100", Ctx: ctx})
		var page struct {
			Count int               `json:"count"`
			Items []json.RawMessage `json:"items"`
		}
		if !assert.True(t, err == nil && r.Status == http.StatusOK && json.Unmarshal(r.Body, &page) == nil, "listing analyses of %s: %s %v", p.id, r, err) {
			return
		}
		assert.True(t, page.Count <= 5 && len(page.Items) <= 5, "profile %s lists %d analyses (count %d)", p.id, len(page.Items), page.Count)
		observations.Add(1)
	}
	// An observer, all the while the load runs.
	obs.Add(1)
	go func() {
		defer obs.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, p := range ps {
				observe(p)
			}
		}
	}()
	for pi, p := range ps {
		for g := range goroutines {
			load.Add(1)
			go func() {
				defer load.Done()
				rng := rand.New(rand.NewPCG(uint64(pi), uint64(g)))
				for p.started.Load() < perProfile {
					r, err := sendWith(hc, srv, request{Method: "POST", Path: "/v1/analyses/" + p.id + "/analyze", Ctx: ctx, JSON: targets(p.item)})
					if !assert.NoError(t, err, "start on %s", p.id) {
						return
					}
					switch r.Status {
					case http.StatusConflict:
						// A client backing off at random before it tries
						// again, as a real one would: the jitter spreads the
						// starts so that they race the completions. The test
						// waits for nothing here; the pause is the load's
						// shape.
						time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
						continue
					case http.StatusAccepted:
					default:
						assert.Failf(t, "unexpected answer to a start", "start on %s: %s", p.id, r)
						return
					}
					var out struct {
						ID string `json:"id"`
					}
					_ = json.Unmarshal(r.Body, &out)
					p.started.Add(1)
					p.mu.Lock()
					p.ids = append(p.ids, out.ID)
					p.mu.Unlock()
					if rng.IntN(2) == 0 {
						// Complete it now, racing the server's own timer.
						r, err := sendWith(hc, srv, request{Method: "POST", Path: "/_mock/analyses/" + out.ID + "/complete", Ctx: ctx})
						assert.True(t, err == nil && (r.Status == http.StatusOK || r.Status == http.StatusConflict || r.Status == http.StatusNotFound),
							"completing %s: %s %v", out.ID, r, err)
					}
				}
			}()
		}
	}
	load.Wait()
	// Let the last runs finish, observing all the while: a long poll on
	// each analysis still running answers as it ends (no start comes any
	// more, so none is deleted meanwhile).
	for _, p := range ps {
		for _, a := range srv.Analyses(p.id) {
			if a.Status.IsTerminal() {
				continue
			}
			r, err := sendWith(hc, srv, request{Method: "GET", Path: "/v1/analyses/" + a.ID + "?waitForReport=true&timeoutSeconds=10", Ctx: ctx})
			require.NoError(t, err, "long poll on %s", a.ID)
			require.Equal(t, http.StatusOK, r.Status, "long poll on %s: %s", a.ID, r)
		}
		for _, a := range srv.Analyses(p.id) {
			require.True(t, a.Status.IsTerminal(), "the analyses of %s are still running after a 10s long poll: %s is %s", p.id, a.ID, a.Status)
		}
	}
	close(stop)
	obs.Wait()
	if t.Failed() {
		return
	}

	for _, p := range ps {
		require.GreaterOrEqual(t, len(p.ids), perProfile, "profile %s: analyses started", p.id)
		kept := srv.Analyses(p.id)
		if !assert.Len(t, kept, 5, "profile %s: analyses held at the end, want exactly 5", p.id) {
			continue
		}
		slices.Reverse(kept) // the kit lists oldest first; the API newest first
		keptIDs := map[string]bool{}
		oldestKept := kept[len(kept)-1].CreatedAt
		for _, a := range kept {
			keptIDs[a.ID] = true
			assert.Equal(t, profilesvc.AnalysisCompleted, a.Status, "status of kept analysis %s", a.ID)
			assert.Contains(t, p.ids, a.ID, "kept analysis %s was never started by the test", a.ID)
		}
		// Listed newest first, and the same five over HTTP.
		assert.True(t, sort.SliceIsSorted(kept, func(i, j int) bool { return kept[i].CreatedAt.After(kept[j].CreatedAt) }), "profile %s: analyses not newest first", p.id)
		r, err := sendWith(hc, srv, request{Method: "GET", Path: "/v1/profiles/" + p.id + "/analyses?limit=100", Ctx: ctx})
		var page struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		assert.True(t, err == nil && json.Unmarshal(r.Body, &page) == nil && len(page.Items) == 5, "profile %s: listing %s %v, want 5 analyses", p.id, r, err)
		for i, it := range page.Items {
			assert.Equal(t, kept[i].ID, it.ID, "profile %s: listing[%d], want the kit's", p.id, i)
		}
		// Every older one is gone, from every route, and was older.
		gone := 0
		for _, id := range p.ids {
			if keptIDs[id] {
				continue
			}
			gone++
			if v, ok := createdAt.Load(id); ok {
				assert.False(t, v.(time.Time).After(oldestKept), "profile %s: deleted analysis %s was created at %v, after the oldest kept one (%v)", p.id, id, v, oldestKept)
			}
			for _, path := range []string{"/v1/analyses/" + id, "/v1/analyses/" + id + "/report"} {
				r, err := sendWith(hc, srv, request{Method: "GET", Path: path, Ctx: ctx})
				assert.True(t, err == nil && r.Status == http.StatusNotFound && errorCode(r.Body) == profilesvc.CodeAnalysisNotFound,
					"GET %s of a deleted analysis: %s %v, want 404 ANALYSIS_NOT_FOUND", path, r, err)
			}
		}
		assert.Equal(t, len(p.ids)-5, gone, "profile %s: analyses gone", p.id)
	}
	assert.Equal(t, int64(5), maxSeen.Load(), "the largest observation, want 5 reached and never passed")
	t.Logf("%d observations while %d analyses ran on %d profiles", observations.Load(), profiles*perProfile, profiles)
}

// TestRelFolderPaginationUnderChurn walks a profile's folders with the
// SDK's iterator, three to a page, in every order, while other goroutines
// create and delete other folders (some made among the stable ones before
// the walk, some new, with names that sort everywhere): every folder that
// existed for the whole walk is listed exactly once, and no folder is
// listed twice.
func TestRelFolderPaginationUnderChurn(t *testing.T) {
	t.Parallel()
	// A clock whose readings all differ: the folders made one after the
	// other have distinct creation times.
	srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(0), mockserver.WithClock(&risingClock{}))
	c := newSDK(t, srv)
	ctx := t.Context()
	pid, def, _ := addProfileWithItem(t, srv.Tenant, "Paged Profile")
	stable := map[string]bool{def: true}
	var poolMu sync.Mutex
	var pool []string // churn folders that may be deleted
	letters := "abcdefghijklmnopqrstuvwxyz"
	for i := range 12 {
		f, err := srv.CreateFolder(pid, fmt.Sprintf("%c stable %02d", letters[(i*7)%26], i))
		require.NoError(t, err)
		stable[f.ID] = true
		// A churn folder between every two stable ones, in every order.
		g, err := srv.CreateFolder(pid, fmt.Sprintf("%c churn %02d", letters[(i*11+3)%26], i))
		require.NoError(t, err)
		pool = append(pool, g.ID)
	}

	orders := []profilesvc.ListFoldersParams{
		{Limit: 3},
		{Limit: 3, Sort: profilesvc.SortByCreatedAt, Order: profilesvc.Ascending},
		{Limit: 3, Sort: profilesvc.SortByCreatedAt, Order: profilesvc.Descending},
		{Limit: 3, Sort: profilesvc.SortByName, Order: profilesvc.Ascending},
		{Limit: 3, Sort: profilesvc.SortByName, Order: profilesvc.Descending},
		{Limit: 3, Sort: profilesvc.SortByUpdatedAt, Order: profilesvc.Ascending},
		{Limit: 3, Sort: profilesvc.SortByUpdatedAt, Order: profilesvc.Descending},
	}
	stop := make(chan struct{})
	var churn sync.WaitGroup
	var created, deleted atomic.Int64
	changes := newBroadcast() // each change the churn makes
	for w := range 2 {
		churn.Add(1)
		go func() {
			defer churn.Done()
			defer changes.end() // a churn that fails wakes the walks for good
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if rng.IntN(2) == 0 {
					f, err := c.CreateFolder(ctx, pid, fmt.Sprintf("%c new %d-%d", letters[rng.IntN(26)], w, i))
					if !assert.NoError(t, err, "churn: CreateFolder") {
						return
					}
					created.Add(1)
					changes.notify()
					poolMu.Lock()
					pool = append(pool, f.ID)
					poolMu.Unlock()
					continue
				}
				poolMu.Lock()
				if len(pool) == 0 {
					poolMu.Unlock()
					continue
				}
				k := rng.IntN(len(pool))
				id := pool[k]
				pool = slices.Delete(pool, k, k+1)
				poolMu.Unlock()
				if !assert.NoError(t, c.DeleteFolder(ctx, id), "churn: DeleteFolder(%s)", id) {
					return
				}
				deleted.Add(1)
				changes.notify()
			}
		}()
	}

	var walks sync.WaitGroup
	for _, params := range orders {
		for rep := range 2 {
			walks.Add(1)
			go func() {
				defer walks.Done()
				what := fmt.Sprintf("walk sort=%q order=%q #%d", params.Sort, params.Order, rep)
				seen := map[string]int{}
				for f, err := range c.ListFolders(ctx, pid, &params) {
					if !assert.NoError(t, err, what) {
						return
					}
					next := changes.next()
					seen[f.ID]++
					// The churn changes the listing between any two
					// folders of the walk, and so between its pages.
					<-next
				}
				for id, n := range seen {
					assert.LessOrEqual(t, n, 1, "%s: folder %s listed %d times", what, id, n)
				}
				for id := range stable {
					assert.Equal(t, 1, seen[id], "%s: times stable folder %s was listed, want once", what, id)
				}
			}()
		}
	}
	walks.Wait()
	close(stop)
	churn.Wait()
	assert.True(t, created.Load() > 0 && deleted.Load() > 0, "the churn made %d folders and deleted %d during the walks; want both", created.Load(), deleted.Load())
	t.Logf("%d walks while the churn made %d folders and deleted %d", 2*len(orders), created.Load(), deleted.Load())
}

// broadcast wakes every waiter at each event, and for good once ended.
type broadcast struct {
	mu    sync.Mutex
	ch    chan struct{} // closed at the next event
	ended bool
}

func newBroadcast() *broadcast { return &broadcast{ch: make(chan struct{})} }

// next returns a channel closed at the next event, or closed already once
// the events have ended.
func (b *broadcast) next() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

// notify wakes the waiters of the next event.
func (b *broadcast) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return
	}
	close(b.ch)
	b.ch = make(chan struct{})
}

// end wakes every waiter, now and later.
func (b *broadcast) end() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.ended {
		b.ended = true
		close(b.ch)
	}
}
