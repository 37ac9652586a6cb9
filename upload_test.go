package profilesvc

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patternReader gives n bytes without allocating: a large upload that
// exists nowhere in memory.
type patternReader struct {
	remaining int64
	pattern   []byte
}

func newPatternReader(n int64) *patternReader {
	pattern := make([]byte, 32<<10)
	for i := range pattern {
		pattern[i] = byte('a' + i%26)
	}
	return &patternReader{remaining: n, pattern: pattern}
}

func (g *patternReader) Read(p []byte) (int, error) {
	if g.remaining <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.remaining {
		p = p[:g.remaining]
	}
	n := 0
	for n < len(p) {
		n += copy(p[n:], g.pattern)
	}
	g.remaining -= int64(n)
	return n, nil
}

func TestUploadFile_StreamsWithoutBuffering(t *testing.T) {
	// Not parallel: it reads the process's allocation counters. The file
	// is three times the bound on what the upload may allocate: a client
	// that held it in memory, even once, would pass the bound.
	const size, bound = 24 << 20, 8 << 20
	tests := []struct {
		name     string
		params   UploadParams
		wantSize bool // the request carries a Content-Length
	}{
		{"unknown size", UploadParams{Filename: "big.bin"}, false},
		{"size given", UploadParams{Filename: "big.bin", Size: size}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var received, contentLength atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n, _ := io.Copy(io.Discard, r.Body)
				received.Store(n)
				contentLength.Store(r.ContentLength)
				answerCreatedItem(w, r)
			}))
			defer srv.Close()
			c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL(srv.URL))
			require.NoError(t, err)

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err = c.UploadFile(context.Background(), "fd_1", newPatternReader(size), tt.params)
			runtime.ReadMemStats(&after)
			require.NoError(t, err)

			assert.Greater(t, received.Load(), int64(size), "the whole file and its framing arrived")
			grown := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d KiB while uploading %d MiB", grown>>10, size>>20)
			assert.Less(t, grown, uint64(bound), "allocated %d KiB to upload %d MiB", grown>>10, size>>20)
			if tt.wantSize {
				assert.Equal(t, received.Load(), contentLength.Load())
			} else {
				assert.Equal(t, int64(-1), contentLength.Load(), "sent chunked")
			}
		})
	}
}

func TestUploadFile_SeekableBodyResentOnRetry(t *testing.T) {
	t.Parallel()
	content := randomBytes(256 << 10)
	for _, src := range seekableSources {
		t.Run(src.name, func(t *testing.T) {
			srv := newTestServer(t, answerInTurn(answerStatus(http.StatusServiceUnavailable), answerCreatedItem))
			r, want := src.make(t, content)
			it, err := srv.client(t).UploadFile(context.Background(), "fd_1", r, UploadParams{Filename: "doc.pdf"})
			require.NoError(t, err)
			assert.Equal(t, "item_1", it.ID)

			reqs := srv.requests()
			require.Len(t, reqs, 2)
			for i, req := range reqs {
				file := formParts(t, req)["file"]
				assert.True(t, bytes.Equal(want, file.Data), "request %d: file part of %d bytes, want %d", i, len(file.Data), len(want))
				assert.Equal(t, strconv.Itoa(len(req.Body)), req.Header.Get("Content-Length"), "request %d", i)
			}
		})
	}
}

func TestUploadFile_SeekableBodyRewoundAfterFailedDial(t *testing.T) {
	t.Parallel()
	// A POST that never reached the service is retried; a file whose bytes
	// were partly read by the failed attempt is sent again from its start.
	content := randomBytes(64 << 10)
	f := openTempFile(t, content)
	srv := newTestServer(t, answerCreatedItem)
	var calls atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if calls.Add(1) == 1 {
			_, _ = io.CopyN(io.Discard, req.Body, 1000)
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
		}
		return http.DefaultTransport.RoundTrip(req)
	})}
	_, err := srv.client(t, WithHTTPClient(hc)).UploadFile(context.Background(), "fd_1", f, UploadParams{})
	require.NoError(t, err)
	assert.Equal(t, int32(2), calls.Load())
	reqs := srv.requests()
	require.Len(t, reqs, 1)
	assert.True(t, bytes.Equal(content, formParts(t, reqs[0])["file"].Data), "the file is sent whole from its start")
	assert.Equal(t, strconv.Itoa(len(reqs[0].Body)), reqs[0].Header.Get("Content-Length"))
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestUploadFile_NonSeekableSentOnce(t *testing.T) {
	t.Parallel()
	content := randomBytes(64 << 10)
	sources := []struct {
		name string
		make func() io.Reader
	}{
		{"io.MultiReader", func() io.Reader { return io.MultiReader(bytes.NewReader(content)) }},
		{"wrapped reader", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(content)} }},
		{"pipe", func() io.Reader {
			pr, pw := io.Pipe()
			go func() {
				_, _ = pw.Write(content)
				_ = pw.Close()
			}()
			return pr
		}},
	}
	for _, src := range sources {
		for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusBadGateway} {
			t.Run(src.name+"/"+strconv.Itoa(status), func(t *testing.T) {
				srv := newTestServer(t, answerInTurn(answerStatus(status), answerCreatedItem))
				_, err := srv.client(t).UploadFile(context.Background(), "fd_1", src.make(), UploadParams{Filename: "doc.pdf"})
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, status, apiErr.StatusCode)
				reqs := srv.requests()
				require.Len(t, reqs, 1, "a reader that cannot be rewound is sent once only")
				assert.True(t, bytes.Equal(content, formParts(t, reqs[0])["file"].Data))
			})
		}
		t.Run(src.name+"/success", func(t *testing.T) {
			srv := newTestServer(t, answerCreatedItem)
			_, err := srv.client(t).UploadFile(context.Background(), "fd_1", src.make(), UploadParams{Filename: "doc.pdf"})
			require.NoError(t, err)
			reqs := srv.requests()
			require.Len(t, reqs, 1)
			assert.True(t, bytes.Equal(content, formParts(t, reqs[0])["file"].Data))
			assert.Empty(t, reqs[0].Header.Get("Content-Length"), "the size is unknown: sent chunked")
		})
	}

	t.Run("connection refused", func(t *testing.T) {
		counter := &countingTransport{base: http.DefaultTransport}
		c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL("http://"+closedAddr(t)),
			WithRetryWait(time.Millisecond, 5*time.Millisecond), WithHTTPClient(&http.Client{Transport: counter}))
		require.NoError(t, err)
		_, err = c.UploadFile(context.Background(), "fd_1", io.MultiReader(bytes.NewReader(content)), UploadParams{})
		require.Error(t, err)
		assert.Equal(t, int32(1), counter.n.Load())
	})
}

func TestUploadFile_ContentLength(t *testing.T) {
	t.Parallel()
	content := randomBytes(10000)
	tests := []struct {
		name       string
		reader     func(t *testing.T) io.Reader
		params     UploadParams
		wantLength bool
	}{
		{"bytes.Reader", func(t *testing.T) io.Reader { return bytes.NewReader(content) }, UploadParams{}, true},
		{"os.File", func(t *testing.T) io.Reader { return openTempFile(t, content) }, UploadParams{}, true},
		{"strings.Reader", func(t *testing.T) io.Reader { return strings.NewReader(string(content)) }, UploadParams{}, true},
		{"bytes.Buffer", func(t *testing.T) io.Reader { return bytes.NewBuffer(append([]byte(nil), content...)) }, UploadParams{}, true},
		{"non-seekable with size", func(t *testing.T) io.Reader { return io.MultiReader(bytes.NewReader(content)) }, UploadParams{Size: int64(len(content))}, true},
		{"non-seekable", func(t *testing.T) io.Reader { return io.MultiReader(bytes.NewReader(content)) }, UploadParams{}, false},
		{"empty bytes.Reader", func(t *testing.T) io.Reader { return bytes.NewReader(nil) }, UploadParams{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, answerCreatedItem)
			_, err := srv.client(t).UploadFile(context.Background(), "fd_1", tt.reader(t), tt.params)
			require.NoError(t, err)
			req := srv.requests()[0]
			if tt.wantLength {
				assert.Equal(t, strconv.Itoa(len(req.Body)), req.Header.Get("Content-Length"))
			} else {
				assert.Empty(t, req.Header.Get("Content-Length"))
			}
		})
	}
}

func TestUploadFile_Fields(t *testing.T) {
	t.Parallel()
	content := []byte("%PDF-1.7 tiny")
	f := openTempFile(t, content)
	tests := []struct {
		name            string
		reader          io.Reader
		params          UploadParams
		wantFileName    string
		wantContentType string
		wantName        string
		wantMetadata    map[string]any
	}{
		{
			name: "os.File defaults", reader: f,
			wantFileName: "document.pdf", wantContentType: "application/pdf",
		},
		{
			name: "reader defaults", reader: bytes.NewReader(content),
			wantFileName: "upload", wantContentType: "application/octet-stream",
		},
		{
			name: "all fields", reader: bytes.NewReader(content),
			params:       UploadParams{Filename: "scan.png", Name: "Passport scan", ContentType: "image/png", Metadata: Object{"side": "front", "page": 1}},
			wantFileName: "scan.png", wantContentType: "image/png", wantName: "Passport scan",
			wantMetadata: map[string]any{"side": "front", "page": float64(1)},
		},
		{
			name: "type from the extension", reader: bytes.NewReader(content),
			params:       UploadParams{Filename: "NOTES.TXT"},
			wantFileName: "NOTES.TXT", wantContentType: "text/plain; charset=utf-8",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, answerCreatedItem)
			_, err := srv.client(t).UploadFile(context.Background(), "fd_1", tt.reader, tt.params)
			require.NoError(t, err)
			req := srv.requests()[0]
			assert.Equal(t, http.MethodPost, req.Method)
			assert.Equal(t, "/v1/folders/fd_1/items", req.Path)
			parts := formParts(t, req)
			file := parts["file"]
			assert.Equal(t, content, file.Data)
			assert.Equal(t, tt.wantFileName, file.FileName)
			assert.Equal(t, tt.wantContentType, file.ContentType)
			if tt.wantName != "" {
				assert.Equal(t, tt.wantName, string(parts["name"].Data))
			} else {
				_, ok := parts["name"]
				assert.False(t, ok)
			}
			if tt.wantMetadata != nil {
				var got map[string]any
				require.NoError(t, json.Unmarshal(parts["metadata"].Data, &got))
				if diff := cmp.Diff(tt.wantMetadata, got); diff != "" {
					t.Errorf("metadata field (-want +got):\n%s", diff)
				}
			}
		})
	}

	// UploadFile leaves the caller's file open.
	_, err := f.Stat()
	assert.NoError(t, err)
	_, err = f.Seek(0, io.SeekStart)
	assert.NoError(t, err)
}

func TestUploadFilePath(t *testing.T) {
	t.Parallel()
	content := randomBytes(5000)
	path := filepath.Join(t.TempDir(), "contract.pdf")
	require.NoError(t, os.WriteFile(path, content, 0o600))
	srv := newTestServer(t, answerInTurn(answerStatus(http.StatusServiceUnavailable), answerCreatedItem))
	_, err := srv.client(t).UploadFilePath(context.Background(), "fd_1", path, UploadParams{})
	require.NoError(t, err)
	reqs := srv.requests()
	require.Len(t, reqs, 2, "a file on disk can be sent again")
	for _, req := range reqs {
		file := formParts(t, req)["file"]
		assert.Equal(t, "contract.pdf", file.FileName)
		assert.True(t, bytes.Equal(content, file.Data))
	}

	_, err = srv.client(t).UploadFilePath(context.Background(), "fd_1", filepath.Join(t.TempDir(), "missing.pdf"), UploadParams{})
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Len(t, srv.requests(), 2)
}

func TestUploadFile_BadInput(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, answerCreatedItem)
	c := srv.client(t)
	_, err := c.UploadFile(context.Background(), "fd_1", nil, UploadParams{})
	assert.Error(t, err)
	_, err = c.UploadFile(context.Background(), "", bytes.NewReader([]byte("x")), UploadParams{})
	assert.ErrorIs(t, err, ErrInvalidID)
	assert.Empty(t, srv.requests())
}

// countingBytes returns n bytes of big-endian 32-bit counters, so that
// any shift or gap in a copy shows.
func countingBytes(n int) []byte {
	b := make([]byte, n)
	for i := 0; i+4 <= n; i += 4 {
		binary.BigEndian.PutUint32(b[i:], uint32(i/4))
	}
	return b
}

func TestUploadFile_SeekableRetryAfterEarlyAnswer(t *testing.T) {
	t.Parallel()
	// A busy service may answer 503 before it has read the body. Go's
	// http.RoundTripper may go on using a request body until it closes it,
	// even after RoundTrip has returned, so the retry must not rewind and
	// reread the same reader meanwhile (the race detector reports a retry
	// that does), and must carry the whole file. The file is larger than
	// the socket buffers, so that the first attempt is still being written
	// when its answer arrives.
	content := countingBytes(4 << 20)
	for _, src := range []readerSource{seekableSources[0], seekableSources[4]} {
		t.Run(src.name, func(t *testing.T) {
			var n atomic.Int32
			done := make(chan struct{})
			var got atomic.Value
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					// Answer at once, without reading the body, and keep the
					// connection open until the test ends.
					conn, rw, err := w.(http.Hijacker).Hijack()
					if err != nil {
						return
					}
					defer conn.Close()
					body := `{"error":{"code":"SERVICE_UNAVAILABLE","status":503,"message":"busy"}}`
					// As a server that answers before reading the body must,
					// it closes the connection: without Connection: close,
					// the client could send the retry down this connection,
					// which nobody reads.
					_, _ = rw.WriteString("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: " +
						strconv.Itoa(len(body)) + "\r\n\r\n" + body)
					_ = rw.Flush()
					select {
					case <-done:
					case <-time.After(5 * time.Second):
					}
					return
				}
				body, _ := io.ReadAll(r.Body)
				got.Store(recordedRequest{Header: r.Header.Clone(), Body: body})
				answerCreatedItem(w, r)
			}))
			defer srv.Close()
			defer close(done)
			c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL(srv.URL), WithRetryWait(time.Millisecond, 5*time.Millisecond))
			require.NoError(t, err)
			r, want := src.make(t, content)
			_, err = c.UploadFile(context.Background(), "fd_1", r, UploadParams{Filename: "doc.pdf"})
			require.NoError(t, err)
			require.Equal(t, int32(2), n.Load())
			rec, _ := got.Load().(recordedRequest)
			file := formParts(t, rec)["file"].Data
			assert.True(t, bytes.Equal(want, file), "the retry sent %d bytes that differ from the file's %d", len(file), len(want))
		})
	}
}
