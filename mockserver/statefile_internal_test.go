package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// TestSaveState_NeverOlderThanAcknowledged writes the state file twice at
// once: the first write has taken its state and is about to put it in
// place when the state changes and a second write starts. The second
// waits its turn, so the file ends with the newer state; were it to go
// ahead, it would be acknowledged, then overwritten by the older state.
func TestSaveState_NeverOlderThanAcknowledged(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	firstRenaming := make(chan struct{})
	release := make(chan struct{})
	queued := make(chan struct{}, 1)
	var renames atomic.Int32
	srv, err := NewHandler(WithStateFile(state), func(c *config) {
		c.stateEvent = func(event string) {
			switch event {
			case "queued":
				queued <- struct{}{}
			case "renaming":
				if renames.Add(1) == 1 {
					close(firstRenaming)
					<-release
				}
			}
		}
	})
	require.NoError(t, err)
	defer srv.Close()

	first := make(chan error, 1)
	go func() { first <- srv.saveState() }()
	<-firstRenaming
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Made between the writes"})
	require.NoError(t, err)
	second := make(chan error, 1)
	go func() { second <- srv.saveState() }()
	select {
	case err := <-second:
		require.NoError(t, err)
		assert.Fail(t, "the second write was done while the first still held an older state")
	case <-queued:
	}
	close(release)
	require.NoError(t, <-first)
	if len(second) == 0 {
		require.NoError(t, <-second)
	}
	b, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Contains(t, string(b), p.ID, "the state file lacks the profile made before the newest write was acknowledged")
}

// TestWriteSnapshot_RecordByRecord writes a snapshot of large items: no
// write holds more than about one record's encoding (the four items
// whole would be twice that), and the encoding reads back as the
// snapshot.
func TestWriteSnapshot_RecordByRecord(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler()
	require.NoError(t, err)
	defer srv.Close()
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Big"})
	require.NoError(t, err)
	const items, itemSize = 4, 256 << 10
	for i := range items {
		_, err := srv.AddFileItem(p.Folders[0].ID, fmt.Sprintf("scan %d.bin", i), bytes.Repeat([]byte{byte(i)}, itemSize))
		require.NoError(t, err)
	}
	d := srv.Tenant.store.snapshot()
	var w maxWriteRecorder
	require.NoError(t, writeSnapshot(&w, &d))
	base64Size := itemSize * 4 / 3
	assert.Less(t, w.max, 2*base64Size, "the largest write of a snapshot of %d items of %d bytes", items, itemSize)
	assert.Greater(t, w.total, items*base64Size, "the snapshot's encoding")

	var back Snapshot
	require.NoError(t, back.UnmarshalJSON(w.buf.Bytes()))
	again, err := back.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, w.buf.Len(), len(again), "the snapshot read back and written again")
}

// TestListings_StreamRecordByRecord lists profiles of large metadata: the
// answer goes to the connection a record at a time, never whole (the
// four records would be twice the largest write allowed).
func TestListings_StreamRecordByRecord(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler()
	require.NoError(t, err)
	defer srv.Close()
	const profiles, metaSize = 4, 256 << 10
	for i := range profiles {
		_, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{
			Name: fmt.Sprintf("Profile %d", i), Metadata: profilesvc.Object{"blob": strings.Repeat("x", metaSize)},
		})
		require.NoError(t, err)
	}
	req := httptest.NewRequest("GET", "/v1/workflows/wf_default/profiles?limit=10", nil)
	req.Header.Set("x-api-key", srv.APIKey)
	w := &maxWriteRecorder{header: http.Header{}}
	srv.ServeHTTP(w, req)
	require.Equal(t, 200, w.status, "%.300s", w.buf.String())
	var page struct {
		Count int `json:"count"`
		Items []struct {
			Metadata map[string]string `json:"metadata"`
		} `json:"items"`
	}
	require.NoError(t, json.Unmarshal(w.buf.Bytes(), &page))
	require.Equal(t, profiles, page.Count)
	require.Len(t, page.Items, profiles)
	assert.Len(t, page.Items[profiles-1].Metadata["blob"], metaSize)
	assert.Less(t, w.max, 2*metaSize, "the largest write of a listing of %d profiles of %d bytes of metadata", profiles, metaSize)
}

// TestUploads_ChunkedTakeMemoryAsItArrives sends an upload of unknown
// length (chunked) slowly: it holds of the upload budget what has
// arrived, not the whole upload limit, so that another upload fits
// beside it; and one that would pass the budget mid-way is refused with
// 503.
func TestUploads_ChunkedTakeMemoryAsItArrives(t *testing.T) {
	t.Parallel()
	const limit = 8 << 20
	srv, err := NewHandler(WithMaxUploadSize(limit), WithUploadMemory(limit))
	require.NoError(t, err)
	defer srv.Close()
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Uploads"})
	require.NoError(t, err)
	folder := p.Folders[0].ID

	// The first upload: its head and 2 MiB of its file, then it waits.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	slow := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		req := httptest.NewRequest("POST", "/v1/folders/"+folder+"/items", pr)
		req.ContentLength = -1
		req.Header.Set("x-api-key", srv.APIKey)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		slow <- rec
	}()
	part, err := mw.CreateFormFile("file", "slow.bin")
	require.NoError(t, err)
	_, err = part.Write(bytes.Repeat([]byte("a"), 2<<20)) // returns once read
	require.NoError(t, err)
	held := limit - budgetLeft(srv.uploads)
	assert.LessOrEqual(t, held, int64(4<<20), "the budget a chunked upload holds after 2 MiB arrived")

	// A second upload fits beside it.
	quick := chunkedUpload(t, srv, folder, "quick.bin", bytes.Repeat([]byte("b"), 3<<20))
	assert.Equal(t, 201, quick.Code, "an upload beside a slow chunked one: %.300s", quick.Body.String())

	// A third, within the upload limit but not within what the budget
	// has left beside the first, is refused mid-way.
	big := chunkedUpload(t, srv, folder, "big.bin", bytes.Repeat([]byte("c"), 6<<20))
	assert.Equal(t, 503, big.Code, "a chunked upload past the budget: %.300s", big.Body.String())
	assert.Equal(t, "1", big.Header().Get("Retry-After"))

	// The first ends, whole.
	_, err = part.Write(bytes.Repeat([]byte("a"), 1<<20))
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	require.NoError(t, pw.Close())
	rec := <-slow
	require.Equal(t, 201, rec.Code, "the slow chunked upload: %.300s", rec.Body.String())
	var it profilesvc.Item
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &it))
	assert.EqualValues(t, 3<<20, it.SizeBytes, "the slow upload's size")
	assert.Equal(t, int64(limit), budgetLeft(srv.uploads), "the budget once the uploads are done")
}

// budgetLeft is what a budget has left.
func budgetLeft(b *budget) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
}

// chunkedUpload uploads data with no Content-Length, as a chunked request
// comes.
func chunkedUpload(t *testing.T, srv *Server, folder, name string, data []byte) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", name)
	require.NoError(t, err)
	_, _ = part.Write(data)
	require.NoError(t, mw.Close())
	req := httptest.NewRequest("POST", "/v1/folders/"+folder+"/items", io.NopCloser(&body))
	req.ContentLength = -1
	req.Header.Set("x-api-key", srv.APIKey)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

// TestShapedWriter_BelowTenBytesASecond trickles answers slower than 10
// bytes a second: a byte at a time, each pause the time a byte takes at
// the rate, not a tenth of a second.
func TestShapedWriter_BelowTenBytesASecond(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		rate  int
		bytes int
		pause time.Duration
	}{
		{1, 3, time.Second},
		{2, 4, 500 * time.Millisecond},
		{5, 3, 200 * time.Millisecond},
		{25, 6, 80 * time.Millisecond}, // two bytes a step
	} {
		t.Run(fmt.Sprintf("%d bytes a second", tt.rate), func(t *testing.T) {
			clock := &pauseClock{FakeClock: NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
			rec := httptest.NewRecorder()
			w := &shapedWriter{ResponseWriter: rec, fault: Fault{BytesPerSecond: tt.rate}, clock: clock,
				ctx: httptest.NewRequest("GET", "/", nil)}
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, err := w.Write(make([]byte, tt.bytes))
				assert.NoError(t, err)
			}()
			var pauses []time.Duration
			for {
				armed := make(chan error, 1)
				go func() { armed <- clock.BlockUntil(t.Context(), 1) }()
				select {
				case <-done:
					step := max(1, tt.rate/10)
					want := make([]time.Duration, (tt.bytes-1)/step)
					for i := range want {
						want[i] = tt.pause
					}
					assert.Equal(t, want, pauses, "the pauses of %d bytes at %d bytes a second", tt.bytes, tt.rate)
					return
				case err := <-armed:
					require.NoError(t, err)
					d := clock.last()
					pauses = append(pauses, d)
					clock.Advance(d)
				}
			}
		})
	}
}

// pauseClock is a fake clock that remembers the duration of the last
// timer armed on it.
type pauseClock struct {
	*FakeClock
	lastD atomic.Int64
}

func (c *pauseClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.lastD.Store(int64(d))
	return c.FakeClock.AfterFunc(d, f)
}

func (c *pauseClock) last() time.Duration { return time.Duration(c.lastD.Load()) }

// maxWriteRecorder is a ResponseWriter (and an io.Writer) that keeps what
// is written and the size of its largest write.
type maxWriteRecorder struct {
	header     http.Header
	status     int
	buf        bytes.Buffer
	max, total int
}

func (w *maxWriteRecorder) Header() http.Header { return w.header }

func (w *maxWriteRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *maxWriteRecorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.max = max(w.max, len(p))
	w.total += len(p)
	return w.buf.Write(p)
}

// TestReports_ARenderingBegunBeforeARestoreIsNotKept renders a report of
// a state, restores a snapshot in which the profile has another name
// (its records of the same IDs and versions), then keeps the rendering:
// it is not kept, and the next download renders the restored state.
func TestReports_ARenderingBegunBeforeARestoreIsNotKept(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler(WithManualAnalyses())
	require.NoError(t, err)
	defer srv.Close()
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "First name"})
	require.NoError(t, err)
	it, err := srv.AddTextItem(p.Folders[0].ID, "passport.txt", "PASSPORT\nFull Name: Jane Doe\n")
	require.NoError(t, err)
	id, e := srv.startAnalysis(p.ID, []string{it.ID}, nil, nil)
	require.Nil(t, e)
	require.NoError(t, srv.CompleteAnalysis(id))
	first, err := srv.Snapshot()
	require.NoError(t, err)
	second := "Second name"
	e = srv.store.do(func(st *state) *apiError {
		_, e := st.updateProfile(p.ID, profileUpdate{name: &second})
		return e
	})
	require.Nil(t, e)
	renamed, err := srv.Snapshot()
	require.NoError(t, err)

	v := reportVariant{locale: "en"}
	require.NoError(t, srv.Restore(first))
	reportInput := func() (reportSource, *apiError) {
		return withLock(srv.store, func(st *state) (reportSource, *apiError) { return st.reportInput(id, v) })
	}
	src, e := reportInput()
	require.Nil(t, e)
	require.Nil(t, src.kept)
	require.NoError(t, srv.Restore(renamed))
	_ = srv.store.do(func(st *state) *apiError {
		st.keepReport(id, v, src.version, []byte("a report of the first state"))
		return nil
	})
	again, e := reportInput()
	require.Nil(t, e)
	assert.Nil(t, again.kept, "a report rendered before the restore, kept after it")
}

// TestSeeds_TakeMemoryFromTheUploadBudget sends a seed while the budget
// of uploads under way is spent: it is refused with 503 and Retry-After,
// and taken once the budget is back.
func TestSeeds_TakeMemoryFromTheUploadBudget(t *testing.T) {
	t.Parallel()
	srv, err := NewHandler()
	require.NoError(t, err)
	defer srv.Close()
	seed := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/_mock/seed", strings.NewReader(`{"profiles":[{"name":"Seeded"}]}`))
		req.Header.Set("x-api-key", srv.APIKey)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	all := budgetLeft(srv.uploads)
	require.True(t, srv.uploads.take(all))
	busy := seed()
	assert.Equal(t, 503, busy.Code, "a seed while the upload budget is spent: %s", busy.Body)
	assert.Equal(t, "1", busy.Header().Get("Retry-After"))
	srv.uploads.give(all)
	done := seed()
	assert.Equal(t, 204, done.Code, "a seed once the budget is back: %s", done.Body)
	assert.Equal(t, all, budgetLeft(srv.uploads), "the budget after the seed")
}
