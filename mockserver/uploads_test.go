package mockserver

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

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

// gatedBody is the body of an upload held back: its first Read tells
// reading, and waits for release before the body is read on.
type gatedBody struct {
	io.Reader
	once    sync.Once
	reading chan struct{}
	release chan struct{}
}

func (b *gatedBody) Read(p []byte) (int, error) {
	b.once.Do(func() {
		close(b.reading)
		<-b.release
	})
	return b.Reader.Read(p)
}

// TestUploadsShareAMemoryBudget holds two uploads under way, their bodies
// held back, once they have taken their share of the server's upload
// budget (the handler reads an upload's body only once it has), and
// checks that a third is refused with 503 and Retry-After, and accepted
// once the two are done.
func TestUploadsShareAMemoryBudget(t *testing.T) {
	t.Parallel()
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

	upload := func(rd io.Reader) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", target, rd)
		req.ContentLength = int64(len(body))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("x-api-key", srv.APIKey)
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, req)
		return w
	}
	release := make(chan struct{})
	var once sync.Once
	letGo := func() { once.Do(func() { close(release) }) }
	defer letGo() // should the test stop early
	codes := make(chan int, 2)
	var wg sync.WaitGroup
	for range 2 {
		gb := &gatedBody{Reader: bytes.NewReader(body), reading: make(chan struct{}), release: release}
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- upload(gb).Code
		}()
		waitSignal(t, gb.reading, "the upload's body read")
	}
	// Both have taken their share: the budget is down to the rest.
	assert.EqualValues(t, int64(2<<20)-2*int64(len(body)), srv.uploads.leftNow(), "what is left of the budget with two uploads under way")

	w := upload(bytes.NewReader(body))
	require.Equal(t, http.StatusServiceUnavailable, w.Code, "%s", w.Body)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Contains(t, w.Body.String(), "WithUploadMemory")

	letGo()
	wg.Wait()
	close(codes)
	for code := range codes {
		assert.Equal(t, http.StatusCreated, code, "an upload let go on")
	}
	assert.EqualValues(t, 2<<20, srv.uploads.leftNow(), "the budget is given back")
	assert.Equal(t, http.StatusCreated, upload(bytes.NewReader(body)).Code)
}
