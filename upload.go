package profilesvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// UploadParams are the optional fields of UploadFile.
type UploadParams struct {
	// Filename is the file name sent with the bytes; its extension helps
	// the service tell the file's type. Default: the base name of an
	// *os.File, else "upload".
	Filename string
	// Name is the item's display name; default the file name.
	Name string
	// ContentType is the MIME type of the bytes; default guessed from the
	// file name's extension, else application/octet-stream.
	ContentType string
	// Metadata is sent as the multipart field "metadata", a JSON object.
	Metadata Object
	// Size is the number of bytes the reader will give, if known, so that
	// the request carries a Content-Length. It is found by itself for an
	// *os.File, *bytes.Reader, *strings.Reader and *bytes.Buffer.
	Size int64
}

// UploadFile uploads the bytes of r as a file item of a folder. The bytes
// are streamed as they are read, never held in memory whole. A body that
// can be rewound (an io.Seeker such as *os.File or *bytes.Reader) is sent
// again from where it started if the request is retried; any other reader
// is sent once only, without retries.
//
// POST /v1/folders/{folderId}/items, as multipart/form-data with the part
// "file" and the optional fields "name" and "metadata" (inferred: not in the
// published interface; verified only against this project's mock server)
func (c *Client) UploadFile(ctx context.Context, folderID string, r io.Reader, params UploadParams, opts ...RequestOption) (*Item, error) {
	req, err := newRequest(http.MethodPost, apiroutes.FolderItems, folderID)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("profilesvc: UploadFile: nil reader")
	}
	body, err := newMultipartBody(r, params)
	if err != nil {
		return nil, fmt.Errorf("profilesvc: UploadFile: %w", err)
	}
	req.body = body
	var it Item
	if err := c.do(ctx, req, &it, opts); err != nil {
		return nil, err
	}
	return &it, nil
}

// UploadFilePath uploads the file at path as a file item of a folder, with
// its base name as the file name unless params say otherwise.
//
// POST /v1/folders/{folderId}/items, as multipart/form-data (inferred: not
// in the published interface; verified only against this project's mock
// server), as UploadFile.
func (c *Client) UploadFilePath(ctx context.Context, folderID, path string, params UploadParams, opts ...RequestOption) (*Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("profilesvc: UploadFilePath: %w", err)
	}
	defer f.Close()
	return c.UploadFile(ctx, folderID, f, params, opts...)
}

// newMultipartBody frames r as multipart/form-data without copying it: the
// fields and the file part's header are made in memory, then the file's
// bytes are read from r as the request is sent, then the closing boundary.
func newMultipartBody(r io.Reader, p UploadParams) (*bodySpec, error) {
	filename := p.Filename
	if filename == "" {
		if f, ok := r.(*os.File); ok {
			filename = filepath.Base(f.Name())
		} else {
			filename = "upload"
		}
	}
	contentType := p.ContentType
	if contentType == "" {
		contentType = mime.TypeByExtension(strings.ToLower(filepath.Ext(filename)))
		if contentType == "" {
			contentType = "application/octet-stream"
		}
	}

	var head bytes.Buffer
	mw := multipart.NewWriter(&head)
	if p.Name != "" {
		if err := mw.WriteField("name", p.Name); err != nil {
			return nil, err
		}
	}
	if p.Metadata != nil {
		meta, err := jsonBytes(p.Metadata)
		if err != nil {
			return nil, fmt.Errorf("encoding metadata: %w", err)
		}
		if err := mw.WriteField("metadata", string(meta)); err != nil {
			return nil, err
		}
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", multipart.FileContentDisposition("file", filename))
	h.Set("Content-Type", contentType)
	if _, err := mw.CreatePart(h); err != nil {
		return nil, err
	}
	mark := head.Len()
	if err := mw.Close(); err != nil {
		return nil, err
	}
	prefix := head.Bytes()[:mark:mark]
	suffix := head.Bytes()[mark:]

	src, err := newUploadSource(r, p.Size)
	if err != nil {
		return nil, err
	}
	return &bodySpec{
		contentType: mw.FormDataContentType(),
		replayable:  src.seeker != nil,
		open: func() (io.Reader, error) {
			data, err := src.open()
			if err != nil {
				return nil, err
			}
			mr := io.MultiReader(bytes.NewReader(prefix), data, bytes.NewReader(suffix))
			if src.size < 0 {
				return mr, nil
			}
			return &sizedReader{Reader: mr, n: len(prefix) + int(src.size) + len(suffix)}, nil
		},
	}, nil
}

// uploadSource gives the file's bytes to each attempt: from the start again
// for a seekable reader, once only for any other.
type uploadSource struct {
	r      io.Reader
	seeker io.Seeker
	start  int64
	size   int64 // -1 when unknown
	read   atomic.Bool

	mu      sync.Mutex
	current *attemptReader // the seekable source's reader of the latest attempt
}

// attemptReader reads the source for one attempt, until the next attempt
// ends it; Read and end exclude each other.
type attemptReader struct {
	mu    sync.Mutex
	r     io.Reader
	ended bool
}

var errAttemptOver = errors.New("a newer attempt of the request is sending the body")

func (a *attemptReader) Read(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ended {
		return 0, errAttemptOver
	}
	return a.r.Read(p)
}

// end stops the reader, waiting for a Read under way to return.
func (a *attemptReader) end() {
	a.mu.Lock()
	a.ended = true
	a.mu.Unlock()
}

func newUploadSource(r io.Reader, size int64) (*uploadSource, error) {
	s := &uploadSource{r: r, size: -1}
	if size > 0 {
		s.size = size
	}
	if b, ok := r.(*bytes.Buffer); ok {
		r = bytes.NewReader(b.Bytes())
		s.r = r
	}
	if sk, ok := r.(io.Seeker); ok {
		off, err := sk.Seek(0, io.SeekCurrent)
		if err == nil {
			s.seeker, s.start = sk, off
		}
	}
	if s.size < 0 {
		switch v := r.(type) {
		case interface{ Len() int }:
			s.size = int64(v.Len())
		case *os.File:
			if fi, err := v.Stat(); err == nil && fi.Mode().IsRegular() {
				s.size = fi.Size() - s.start
			}
		}
	}
	return s, nil
}

var errBodyConsumed = errors.New("the upload's reader cannot be rewound, so it cannot be sent again")

func (s *uploadSource) open() (io.Reader, error) {
	if s.seeker != nil {
		// The transport may still be reading the previous attempt's body
		// after that attempt got its answer: end that reader first, so that
		// the rewind below cannot race with it.
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.current != nil {
			s.current.end()
		}
		if _, err := s.seeker.Seek(s.start, io.SeekStart); err != nil {
			return nil, fmt.Errorf("rewinding the upload: %w", err)
		}
		s.current = &attemptReader{r: s.r}
		return s.current, nil
	}
	if s.read.Load() {
		return nil, errBodyConsumed
	}
	return onceReader{s}, nil
}

// onceReader marks a non-seekable source as read from its first Read.
type onceReader struct{ s *uploadSource }

func (o onceReader) Read(p []byte) (int, error) {
	o.s.read.Store(true)
	return o.s.r.Read(p)
}

// sizedReader tells go-retryablehttp the body's length, so that the request
// carries a Content-Length.
type sizedReader struct {
	io.Reader
	n int
}

func (r *sizedReader) Len() int { return r.n }
