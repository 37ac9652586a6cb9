package mockserver_test

// The mock's concurrency invariants under real parallel load over HTTP:
// many goroutines, many connections, the race detector watching. Each test
// drives one invariant the issue names and checks it both while the load
// runs and at the end, against the kit (srv.Profile, srv.Folder, ...) and
// against the HTTP listings. Helpers are prefixed "rel".

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// relHTTPClient returns an HTTP client with its own transport, roomy enough
// for a hundred parallel connections, that follows no redirect; its idle
// connections are closed when the test ends, so that no connection loop
// outlives the test (the package's TestMain checks with goleak).
func relHTTPClient(t testing.TB) *http.Client {
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// relSDK returns an SDK client of the server on its own transport, without
// retries: under this load every answer must be right the first time.
func relSDK(t testing.TB, srv *mockserver.Server) *profilesvc.Client {
	return srv.Client(profilesvc.WithMaxRetries(0), profilesvc.WithHTTPClient(relHTTPClient(t)))
}

// relResp is a raw answer, read in full.
type relResp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r relResp) String() string {
	b := r.Body
	if len(b) > 400 {
		b = append(b[:400:400], "..."...)
	}
	return fmt.Sprintf("%d %s", r.Status, b)
}

// relDo sends one request with the server's key; it is safe to call from
// any goroutine (it reports, rather than fails the test).
func relDo(ctx context.Context, hc *http.Client, srv *mockserver.Server, method, path, contentType string, body []byte) (relResp, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, rd)
	if err != nil {
		return relResp{}, err
	}
	req.Header.Set("x-api-key", srv.APIKey)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return relResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return relResp{}, err
	}
	return relResp{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// relErrorShape checks that an answer is the service's error body:
// {"error":{"code":non-empty string,"status":the HTTP status,"message":
// non-empty string}}, nothing else, as application/json.
func relErrorShape(status int, header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("error answer %d has Content-Type %q, want application/json: %.300q", status, ct, body)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var env struct {
		Error *struct {
			Code    *string `json:"code"`
			Status  *int    `json:"status"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	if err := dec.Decode(&env); err != nil {
		return fmt.Errorf("error answer %d is not {error:{code,status,message}}: %v: %.300q", status, err, body)
	}
	if dec.More() {
		return fmt.Errorf("error answer %d has data after its JSON object: %.300q", status, body)
	}
	e := env.Error
	switch {
	case e == nil:
		return fmt.Errorf("error answer %d has no \"error\" object: %.300q", status, body)
	case e.Code == nil || *e.Code == "":
		return fmt.Errorf("error answer %d has no code: %.300q", status, body)
	case e.Status == nil || *e.Status != status:
		return fmt.Errorf("error answer %d has error.status %v, want the HTTP status: %.300q", status, e.Status, body)
	case e.Message == nil || strings.TrimSpace(*e.Message) == "":
		return fmt.Errorf("error answer %d has no message: %.300q", status, body)
	}
	return nil
}

// relErrorCode returns the code of an error body, or "".
func relErrorCode(body []byte) string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &env)
	return env.Error.Code
}

// relStartBody is a start-analysis body naming the items.
func relStartBody(itemIDs ...string) []byte {
	refs := make([]map[string]string, len(itemIDs))
	for i, id := range itemIDs {
		refs[i] = map[string]string{"itemId": id}
	}
	b, _ := json.Marshal(map[string]any{"targetItems": refs})
	return b
}

// relProfile creates a profile with one text item through the kit and
// returns the profile's ID, its default folder's and the item's.
func relProfile(t testing.TB, srv *mockserver.Server, name string) (pid, folder, item string) {
	t.Helper()
	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: name})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	it, err := srv.AddTextItem(p.Folders[0].ID, "passport.txt",
		"PASSPORT\nFull Name: "+name+"\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n")
	if err != nil {
		t.Fatalf("AddTextItem: %v", err)
	}
	return p.ID, p.Folders[0].ID, it.ID
}

// TestRelConcurrentStartAnalysis sends 100 starts of one profile at once,
// over 100 connections, three rounds in a row: each round exactly one is
// accepted and the 99 others get 409 ANALYSIS_IN_PROGRESS naming the
// winner; the profile holds exactly one analysis more after each round.
func TestRelConcurrentStartAnalysis(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithRequestRecordSize(1000))
	hc := relHTTPClient(t)
	pid, _, item := relProfile(t, srv, "Racing Profile")
	const n, rounds = 100, 3
	path := "/v1/analyses/" + pid + "/analyze"
	var winners []string
	for round := range rounds {
		results := make([]relResp, n)
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
				results[i], errs[i] = relDo(context.Background(), hc, srv, "POST", path, "application/json", relStartBody(item))
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
				t.Errorf("round %d, start %d: %v", round, i, errs[i])
			case r.Status == http.StatusAccepted:
				var out struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(r.Body, &out); err != nil || !strings.HasPrefix(out.ID, "analysis_") {
					t.Errorf("round %d: accepted answer %s has no analysis ID", round, r)
				}
				accepted = append(accepted, out.ID)
			case r.Status == http.StatusConflict:
				conflicts++
				if err := relErrorShape(r.Status, r.Header, r.Body); err != nil {
					t.Error(err)
				}
				if code := relErrorCode(r.Body); code != profilesvc.CodeAnalysisInProgress {
					t.Errorf("round %d: 409 with code %q, want ANALYSIS_IN_PROGRESS: %s", round, code, r)
				}
			default:
				t.Errorf("round %d, start %d: unexpected answer %s", round, i, r)
			}
		}
		if len(accepted) != 1 || conflicts != n-1 {
			t.Fatalf("round %d: %d accepted (%v) and %d conflicts, want 1 and %d", round, len(accepted), accepted, conflicts, n-1)
		}
		winner := accepted[0]
		winners = append(winners, winner)
		for i, r := range results {
			if r.Status == http.StatusConflict && !bytes.Contains(r.Body, []byte(winner)) {
				t.Errorf("round %d, start %d: the conflict does not name the running analysis %s: %s", round, i, winner, r)
				break
			}
		}
		got := srv.Analyses(pid)
		if len(got) != round+1 || got[0].ID != winner || got[0].Status != profilesvc.AnalysisPending {
			t.Fatalf("round %d: the profile holds %d analyses (newest %+v), want %d with %s pending first", round, len(got), got, round+1, winner)
		}
		r, err := relDo(context.Background(), hc, srv, "GET", "/v1/profiles/"+pid+"/analyses?limit=100", "", nil)
		var page struct {
			Count int `json:"count"`
		}
		if err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &page) != nil || page.Count != round+1 {
			t.Errorf("round %d: listing = %s %v, want %d analyses", round, r, err, round+1)
		}
		if err := srv.CompleteAnalysis(winner); err != nil {
			t.Fatalf("CompleteAnalysis(%s): %v", winner, err)
		}
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
	if total != n*rounds || ok202 != rounds {
		t.Errorf("the record holds %d starts with %d accepted, want %d and %d", total, ok202, n*rounds, rounds)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(winners)))) != rounds {
		t.Errorf("winners %v are not distinct", winners)
	}
}

// relItemLedger is what the workers of TestRelConcurrentItemsCount know of
// the items: every item created (with its folder and bytes) and every item
// deleted (by its DELETE's 204 or with its folder).
type relItemLedger struct {
	mu        sync.Mutex
	folderOf  map[string]string // item -> folder
	data      map[string][]byte // item -> bytes sent
	deleted   map[string]bool   // a DELETE answered 204
	withDir   map[string]bool   // deleted with its folder
	notFound  map[string]int    // DELETE answered 404 (someone else deleted it)
	alive     []string          // candidates for deletion
	twiceGone []string          // items whose deletion was answered 204 twice
}

func (l *relItemLedger) created(id, folder string, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.folderOf[id] = folder
	l.data[id] = data
	l.alive = append(l.alive, id)
}

func (l *relItemLedger) pick(rng *rand.Rand) (string, bool) {
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
	c := relSDK(t, srv)
	ctx := t.Context()
	pid, def, seedItem := relProfile(t, srv, "Counting Profile")
	folders := []string{def}
	for i := range 3 {
		f, err := srv.CreateFolder(pid, fmt.Sprintf("folder %d", i))
		if err != nil {
			t.Fatal(err)
		}
		folders = append(folders, f.ID)
	}
	seedBytes, _ := srv.ItemBytes(seedItem)
	ledger := &relItemLedger{
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
					if err != nil {
						t.Errorf("worker %d: UploadFile: %v", w, err)
						continue
					}
					ledger.created(it.ID, folder, data)
				case r < 6: // a text item
					folder := folders[rng.IntN(len(folders))]
					text := fmt.Sprintf("note of worker %d op %d", w, op)
					it, err := c.CreateTextItem(ctx, folder, text, profilesvc.CreateItemParams{Name: "note"})
					if err != nil {
						t.Errorf("worker %d: CreateTextItem: %v", w, err)
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
						t.Errorf("worker %d: DeleteItem(%s): %v", w, id, err)
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
			if err != nil {
				t.Errorf("churner: CreateFolder: %v", err)
				return
			}
			var fill sync.WaitGroup
			var mu sync.Mutex
			for j := range 3 {
				fill.Add(1)
				go func() {
					defer fill.Done()
					it, err := c.UploadFile(ctx, f.ID, strings.NewReader(fmt.Sprintf("temp %d/%d", i, j)), profilesvc.UploadParams{Filename: "t.txt"})
					if err != nil {
						t.Errorf("churner: UploadFile: %v", err)
						return
					}
					mu.Lock()
					churned = append(churned, it.ID)
					mu.Unlock()
				}()
			}
			fill.Wait()
			if got, err := c.GetFolder(ctx, f.ID); err != nil || got.ItemsCount != 3 || len(got.Items) != 3 {
				t.Errorf("churner: temporary folder = %+v, %v; want 3 items", got, err)
			}
			if err := c.DeleteFolder(ctx, f.ID); err != nil {
				t.Errorf("churner: DeleteFolder: %v", err)
			}
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
			if !ok {
				t.Errorf("observer: the profile is gone")
				return
			}
			sum := 0
			for _, f := range p.Folders {
				sum += f.ItemsCount
			}
			if p.ItemsCount != sum {
				t.Errorf("observer: profile itemsCount %d, its folders hold %d", p.ItemsCount, sum)
			}
			for _, fid := range folders {
				if f, ok := srv.Folder(fid); !ok || f.ItemsCount != len(f.Items) {
					t.Errorf("observer: kit folder %s = %+v, want itemsCount = len(items)", fid, f)
				}
				f, err := c.GetFolder(ctx, fid)
				if err != nil || f.ItemsCount != len(f.Items) {
					t.Errorf("observer: GET folder %s: itemsCount %d with %d items, %v", fid, f.ItemsCount, len(f.Items), err)
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
	if snapshots.Load() == 0 {
		t.Error("the observer saw no snapshot while the load ran")
	}
	for _, id := range churned {
		ledger.withDir[id] = true
	}

	// The end state is exactly what the answers said.
	if len(ledger.twiceGone) > 0 {
		t.Errorf("items deleted twice (204 twice): %v", ledger.twiceGone)
	}
	for id, n := range ledger.notFound {
		if !ledger.deleted[id] {
			t.Errorf("DELETE of item %s answered 404 %d times, but no DELETE of it succeeded", id, n)
		}
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
		if !ok {
			t.Fatalf("folder %s is gone", fid)
		}
		var kit []string
		for _, it := range kf.Items {
			kit = append(kit, it.ID)
		}
		slices.Sort(kit)
		if !slices.Equal(kit, want[fid]) || kf.ItemsCount != len(want[fid]) {
			t.Errorf("folder %s: the kit lists %d items (itemsCount %d), want %d: got %v, want %v", fid, len(kit), kf.ItemsCount, len(want[fid]), kit, want[fid])
		}
		hf, err := c.GetFolder(ctx, fid)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range hf.Items {
			got = append(got, it.ID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want[fid]) || hf.ItemsCount != len(want[fid]) {
			t.Errorf("GET folder %s lists %d items (itemsCount %d), want %d", fid, len(got), hf.ItemsCount, len(want[fid]))
		}
	}
	listed := 0
	for f, err := range c.ListFolders(ctx, pid, &profilesvc.ListFoldersParams{Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(folders, f.ID) {
			t.Errorf("the listing holds folder %s (%q), which should be gone", f.ID, f.Name)
			continue
		}
		listed++
		if f.ItemsCount != len(want[f.ID]) {
			t.Errorf("the listing gives folder %s itemsCount %d, want %d", f.ID, f.ItemsCount, len(want[f.ID]))
		}
	}
	if listed != len(folders) {
		t.Errorf("the listing holds %d of the %d folders", listed, len(folders))
	}
	if kp, _ := srv.Profile(pid); kp.ItemsCount != total {
		t.Errorf("the kit's profile itemsCount = %d, want %d", kp.ItemsCount, total)
	}
	if hp, err := c.GetProfile(ctx, pid); err != nil || hp.ItemsCount != total {
		t.Errorf("GET profile itemsCount = %v, %v; want %d", hp, err, total)
	}
	for id, data := range ledger.data {
		b, ok := srv.ItemBytes(id)
		switch {
		case ledger.deleted[id] && ok:
			t.Errorf("deleted item %s is still stored", id)
		case !ledger.deleted[id] && !ok:
			t.Errorf("item %s was lost", id)
		case ok && !bytes.Equal(b, data):
			t.Errorf("item %s holds %d bytes, not the %d uploaded", id, len(b), len(data))
		}
	}
	for id := range ledger.withDir {
		if _, ok := srv.Item(id); ok {
			t.Errorf("item %s of a deleted folder is still stored", id)
		}
		if _, err := c.GetItem(ctx, id); !errors.Is(err, profilesvc.ErrItemNotFound) {
			t.Errorf("GET item %s of a deleted folder: %v, want ITEM_NOT_FOUND", id, err)
		}
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
	hc := relHTTPClient(t)
	ctx := t.Context()
	const profiles, perProfile, goroutines = 6, 14, 3
	type prof struct {
		id, item string
		started  atomic.Int64
		mu       sync.Mutex
		ids      []string
	}
	ps := make([]*prof, profiles)
	for i := range ps {
		ps[i] = &prof{}
		ps[i].id, _, ps[i].item = relProfile(t, srv, fmt.Sprintf("Retained %d", i))
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
		if len(list) > 5 {
			t.Errorf("profile %s holds %d analyses (kit)", p.id, len(list))
		}
		for _, a := range list {
			createdAt.LoadOrStore(a.ID, a.CreatedAt)
		}
		r, err := relDo(ctx, hc, srv, "GET", "/v1/profiles/"+p.id+"/analyses?limit=100", "", nil)
		var page struct {
			Count int               `json:"count"`
			Items []json.RawMessage `json:"items"`
		}
		if err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &page) != nil {
			t.Errorf("listing analyses of %s: %s %v", p.id, r, err)
			return
		}
		if page.Count > 5 || len(page.Items) > 5 {
			t.Errorf("profile %s lists %d analyses (count %d)", p.id, len(page.Items), page.Count)
		}
		observations.Add(1)
	}
	for range 2 {
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
	}
	for pi, p := range ps {
		for g := range goroutines {
			load.Add(1)
			go func() {
				defer load.Done()
				rng := rand.New(rand.NewPCG(uint64(pi), uint64(g)))
				for p.started.Load() < perProfile {
					r, err := relDo(ctx, hc, srv, "POST", "/v1/analyses/"+p.id+"/analyze", "application/json", relStartBody(p.item))
					if err != nil {
						t.Errorf("start on %s: %v", p.id, err)
						return
					}
					switch r.Status {
					case http.StatusConflict:
						time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
						continue
					case http.StatusAccepted:
					default:
						t.Errorf("start on %s: %s", p.id, r)
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
						r, err := relDo(ctx, hc, srv, "POST", "/_mock/analyses/"+out.ID+"/complete", "", nil)
						if err != nil || (r.Status != http.StatusOK && r.Status != http.StatusConflict && r.Status != http.StatusNotFound) {
							t.Errorf("completing %s: %s %v", out.ID, r, err)
						}
					}
				}
			}()
		}
	}
	load.Wait()
	// Let the last runs finish, observing all the while.
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range ps {
		for {
			running := false
			for _, a := range srv.Analyses(p.id) {
				running = running || !a.Status.IsTerminal()
			}
			if !running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the analyses of %s are still running after 10s", p.id)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	close(stop)
	obs.Wait()
	if t.Failed() {
		return
	}

	for _, p := range ps {
		if len(p.ids) < perProfile {
			t.Fatalf("profile %s: %d analyses started, want at least %d", p.id, len(p.ids), perProfile)
		}
		kept := srv.Analyses(p.id)
		if len(kept) != 5 {
			t.Errorf("profile %s holds %d analyses at the end, want exactly 5", p.id, len(kept))
			continue
		}
		keptIDs := map[string]bool{}
		oldestKept := kept[len(kept)-1].CreatedAt
		for _, a := range kept {
			keptIDs[a.ID] = true
			if a.Status != profilesvc.AnalysisCompleted {
				t.Errorf("kept analysis %s is %s, want completed", a.ID, a.Status)
			}
			if !slices.Contains(p.ids, a.ID) {
				t.Errorf("kept analysis %s was never started by the test", a.ID)
			}
		}
		// Listed newest first, and the same five over HTTP.
		if !sort.SliceIsSorted(kept, func(i, j int) bool { return kept[i].CreatedAt.After(kept[j].CreatedAt) }) {
			t.Errorf("profile %s: analyses not newest first", p.id)
		}
		r, err := relDo(ctx, hc, srv, "GET", "/v1/profiles/"+p.id+"/analyses?limit=100", "", nil)
		var page struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		if err != nil || json.Unmarshal(r.Body, &page) != nil || len(page.Items) != 5 {
			t.Errorf("profile %s: listing %s %v, want 5 analyses", p.id, r, err)
		}
		for i, it := range page.Items {
			if it.ID != kept[i].ID {
				t.Errorf("profile %s: listing[%d] = %s, kit %s", p.id, i, it.ID, kept[i].ID)
			}
		}
		// Every older one is gone, from every route, and was older.
		gone := 0
		for _, id := range p.ids {
			if keptIDs[id] {
				continue
			}
			gone++
			if v, ok := createdAt.Load(id); ok && v.(time.Time).After(oldestKept) {
				t.Errorf("profile %s: deleted analysis %s was created at %v, after the oldest kept one (%v)", p.id, id, v, oldestKept)
			}
			for _, path := range []string{"/v1/analyses/" + id, "/v1/analyses/" + id + "/report"} {
				r, err := relDo(ctx, hc, srv, "GET", path, "", nil)
				if err != nil || r.Status != http.StatusNotFound || relErrorCode(r.Body) != profilesvc.CodeAnalysisNotFound {
					t.Errorf("GET %s of a deleted analysis: %s %v, want 404 ANALYSIS_NOT_FOUND", path, r, err)
				}
			}
		}
		if gone != len(p.ids)-5 {
			t.Errorf("profile %s: %d analyses gone, want %d", p.id, gone, len(p.ids)-5)
		}
	}
	if maxSeen.Load() != 5 {
		t.Errorf("the largest observation was %d analyses, want 5 reached and never passed", maxSeen.Load())
	}
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
	srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(0))
	c := relSDK(t, srv)
	ctx := t.Context()
	pid, def, _ := relProfile(t, srv, "Paged Profile")
	stable := map[string]bool{def: true}
	var poolMu sync.Mutex
	var pool []string // churn folders that may be deleted
	letters := "abcdefghijklmnopqrstuvwxyz"
	for i := range 24 {
		f, err := srv.CreateFolder(pid, fmt.Sprintf("%c stable %02d", letters[(i*7)%26], i))
		if err != nil {
			t.Fatal(err)
		}
		stable[f.ID] = true
		// A churn folder between every two stable ones, in every order.
		g, err := srv.CreateFolder(pid, fmt.Sprintf("%c churn %02d", letters[(i*11+3)%26], i))
		if err != nil {
			t.Fatal(err)
		}
		pool = append(pool, g.ID)
		time.Sleep(time.Millisecond) // distinct creation times
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
	for w := range 2 {
		churn.Add(1)
		go func() {
			defer churn.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if rng.IntN(2) == 0 {
					f, err := c.CreateFolder(ctx, pid, fmt.Sprintf("%c new %d-%d", letters[rng.IntN(26)], w, i))
					if err != nil {
						t.Errorf("churn: CreateFolder: %v", err)
						return
					}
					created.Add(1)
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
				if err := c.DeleteFolder(ctx, id); err != nil {
					t.Errorf("churn: DeleteFolder(%s): %v", id, err)
					return
				}
				deleted.Add(1)
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
					if err != nil {
						t.Errorf("%s: %v", what, err)
						return
					}
					seen[f.ID]++
					time.Sleep(300 * time.Microsecond) // let the churn move between pages
				}
				for id, n := range seen {
					if n > 1 {
						t.Errorf("%s: folder %s listed %d times", what, id, n)
					}
				}
				for id := range stable {
					if seen[id] != 1 {
						t.Errorf("%s: stable folder %s listed %d times, want once", what, id, seen[id])
					}
				}
			}()
		}
	}
	walks.Wait()
	close(stop)
	churn.Wait()
	if created.Load() == 0 || deleted.Load() == 0 {
		t.Errorf("the churn made %d folders and deleted %d during the walks; want both", created.Load(), deleted.Load())
	}
	t.Logf("%d walks while the churn made %d folders and deleted %d", 2*len(orders), created.Load(), deleted.Load())
}
