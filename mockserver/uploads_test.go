package mockserver

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// leftNow returns what is left of the budget.
func (b *budget) leftNow() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
}

// TestUploadsShareAMemoryBudget holds two uploads under way, their bodies
// held back, until they have taken the server's whole upload budget, and
// checks that a third is refused with 503 and Retry-After, and accepted
// once the two are done.
func TestUploadsShareAMemoryBudget(t *testing.T) {
	srv := NewTest(t, WithMaxUploadSize(1<<20), WithUploadMemory(2<<20))
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "u"})
	require.NoError(t, err)
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("file", "big.bin")
	_, _ = fw.Write(bytes.Repeat([]byte{'z'}, 900<<10))
	_ = mw.Close()
	body, ct := b.Bytes(), mw.FormDataContentType()
	target := "/v1/folders/" + p.Folders[0].ID + "/items"

	var held []*io.PipeWriter
	var wg sync.WaitGroup
	for range 2 {
		pr, pw := io.Pipe()
		held = append(held, pw)
		req, _ := http.NewRequest("POST", srv.URL+target, pr)
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("x-api-key", srv.APIKey)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := http.DefaultClient.Do(req); err == nil {
				_ = resp.Body.Close()
			}
		}()
		_, _ = pw.Write(body[:100])
	}
	// Both have taken their share once the budget is down to the rest.
	want := int64(2<<20) - 2*int64(len(body))
	deadline := time.Now().Add(time.Minute)
	for srv.uploads.leftNow() != want {
		require.True(t, time.Now().Before(deadline), "the two uploads never took their share: %d left", srv.uploads.leftNow())
		runtime.Gosched()
	}

	third := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", target, bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("x-api-key", srv.APIKey)
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, req)
		return w
	}
	w := third()
	require.Equal(t, http.StatusServiceUnavailable, w.Code, "%s", w.Body)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Contains(t, w.Body.String(), "WithUploadMemory")

	for _, pw := range held {
		_, _ = pw.Write(body[100:])
		_ = pw.Close()
	}
	wg.Wait()
	assert.EqualValues(t, 2<<20, srv.uploads.leftNow(), "the budget is given back")
	assert.Equal(t, http.StatusCreated, third().Code)
}
