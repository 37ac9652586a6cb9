package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
)

// The item routes: each decodes its request, runs one operation of the
// store under the tenant's lock and writes its answer. Uploads and JSON items make the same
// itemSpec, which the store stores as the test kit's and seeds' items.

// createItemBody is the JSON form of create item.
type createItemBody struct {
	Type     *string         `json:"type"`
	Name     *string         `json:"name"`
	Content  json.RawMessage `json:"content"`
	Metadata map[string]any  `json:"metadata"`
}

func handleCreateItem(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	spec, e := decodeItemSpec(t, r)
	if e == nil {
		e = spec.prepare()
	}
	if e != nil {
		return e
	}
	it, e := t.store.addItem(pathVar(r, "folderId"), spec, baseURL(r))
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusCreated, it)
	return nil
}

// decodeItemSpec reads a new item from a multipart upload or a JSON body.
func decodeItemSpec(t *Tenant, r *http.Request) (*itemSpec, *apiError) {
	switch mediaType(r) {
	case "multipart/form-data":
		up, e := readUploadWithin(t.srv, r)
		if e != nil {
			return nil, e
		}
		return &itemSpec{typ: profilesvc.ItemFile, name: up.name, data: up.data, declared: up.contentType,
			filename: up.filename, metadata: up.metadata}, nil
	case "application/json":
		var b createItemBody
		if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
			return nil, e
		}
		if b.Type == nil {
			return nil, validation("field \"type\" is required: text or json (upload files as multipart/form-data)")
		}
		typ := profilesvc.ItemType(*b.Type)
		if typ != profilesvc.ItemText && typ != profilesvc.ItemJSON {
			return nil, validation("field \"type\" must be text or json, not %q (upload files as multipart/form-data)", *b.Type)
		}
		spec := &itemSpec{typ: typ, content: b.Content, metadata: b.Metadata}
		if b.Name != nil {
			if e := checkName("name", *b.Name); e != nil {
				return nil, e
			}
			spec.name = *b.Name
		}
		return spec, nil
	}
	return nil, errorf(http.StatusUnsupportedMediaType, profilesvc.CodeUnsupportedMediaType,
		"Content-Type %q is not supported here: upload a file as multipart/form-data, or a text or JSON item as application/json", r.Header.Get("Content-Type"))
}

// Bounds of an upload's fields: a name is read up to maxNamePart bytes
// (four bytes for each of its most characters), metadata up to
// maxMetadataPart.
const (
	maxNamePart     = 4 * maxNameLength
	maxMetadataPart = 1 << 20
)

// upload is a parsed multipart upload.
type upload struct {
	name, filename, contentType string
	data                        []byte
	metadata                    map[string]any
}

// readUploadWithin reads an upload within the limits: one that declares
// more than the upload limit is refused before anything is read, and the
// memory it takes is reserved from the server's budget for uploads under
// way (all of it at once when the request declares its length, block by
// block as the bytes arrive when it does not), or the upload is refused
// with 503 and Retry-After.
func readUploadWithin(s *Server, r *http.Request) (*upload, *apiError) {
	limit := s.cfg.maxUpload
	if r.ContentLength > limit {
		return nil, errorf(http.StatusRequestEntityTooLarge, profilesvc.CodePayloadTooLarge,
			"the upload declares %d bytes, more than the limit of %d bytes", r.ContentLength, limit)
	}
	mem := &reservation{budget: s.uploads}
	defer mem.release()
	if r.ContentLength >= 0 && !mem.take(r.ContentLength) {
		return nil, uploadMemoryFull()
	}
	return readUpload(r, limit, mem)
}

// uploadMemoryFull is the answer to an upload that would pass the budget
// of uploads under way.
func uploadMemoryFull() *apiError {
	e := errorf(http.StatusServiceUnavailable, profilesvc.CodeServiceUnavailable,
		"too many uploads are under way: try again shortly (-upload-memory, WithUploadMemory)")
	e.retryAfter = "1"
	return e
}

// budget is an amount of memory that requests take from and give back.
type budget struct {
	mu   sync.Mutex
	left int64
}

// take takes n bytes if they are left.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// give gives n bytes back.
func (b *budget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// reservation is the memory one request holds of a budget, given back
// whole by release.
type reservation struct {
	budget *budget
	held   int64
}

func (r *reservation) take(n int64) bool {
	if !r.budget.take(n) {
		return false
	}
	r.held += n
	return true
}

func (r *reservation) release() {
	r.budget.give(r.held)
	r.held = 0
}

// uploadBlockSize is the block an upload of unknown length is read in,
// each taken from the budget before it is read into.
const uploadBlockSize = 1 << 20

// uploadBlocks keeps the blocks of uploads of unknown length for the
// next, so that a stream of them does not leave the garbage collector
// blocks to catch up with.
var uploadBlocks = sync.Pool{New: func() any { b := make([]byte, uploadBlockSize); return &b }}

// errUploadMemory is the failure of an upload of unknown length that would
// pass the budget of uploads under way.
var errUploadMemory = errors.New("the memory of uploads under way is spent")

// readBlocks reads an upload's file of unknown length in blocks, each
// taken from mem before it is read into, then copies them into one piece:
// an upload never holds more memory than its bytes that have arrived,
// rounded up to a block, and the copy of those bytes.
func readBlocks(src io.Reader, mem *reservation) ([]byte, error) {
	// io.ReadFull reports a short last block as io.ErrUnexpectedEOF, as
	// a body cut short reports itself: the source's own error tells them
	// apart.
	from := &sourceErr{r: src}
	src = from
	var blocks []*[]byte
	defer func() {
		for _, b := range blocks {
			uploadBlocks.Put(b)
		}
	}()
	total := 0
	for {
		if !mem.take(uploadBlockSize) {
			return nil, errUploadMemory
		}
		b := uploadBlocks.Get().(*[]byte)
		blocks = append(blocks, b)
		n, err := io.ReadFull(src, *b)
		total += n
		if from.err != nil {
			return nil, from.err
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	data := make([]byte, total)
	at := 0
	for _, b := range blocks {
		at += copy(data[at:], *b)
	}
	return data, nil
}

// sourceErr keeps the first error of its reader but io.EOF.
type sourceErr struct {
	r   io.Reader
	err error
}

func (s *sourceErr) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// readUpload reads a multipart/form-data item: the part "file" (required,
// once) and the optional fields "name" and "metadata" (a JSON object).
func readUpload(r *http.Request, limit int64, mem *reservation) (*upload, *apiError) {
	r.Body = http.MaxBytesReader(nil, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, validation("the multipart body is not valid: %v", err)
	}
	up := &upload{}
	var sawFile, sawName bool
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, multipartError(err, limit)
		}
		field := part.FormName()
		switch field {
		case "file":
			if sawFile {
				return nil, validation("the multipart body has more than one part \"file\"")
			}
			sawFile = true
			data, err := readFilePart(part, r.ContentLength, mem)
			if err == errUploadMemory {
				return nil, uploadMemoryFull()
			}
			if err != nil {
				return nil, multipartError(err, limit)
			}
			up.data = data
			up.contentType = part.Header.Get("Content-Type")
			up.filename = part.FileName()
			if !sawName {
				up.name = up.filename
			}
		case "name":
			b, err := io.ReadAll(io.LimitReader(part, maxNamePart+1))
			if err != nil {
				return nil, multipartError(err, limit)
			}
			if len(b) > maxNamePart {
				return nil, validation("field \"name\" is too long: at most %d characters", maxNameLength)
			}
			if e := checkName("name", string(b)); e != nil {
				return nil, e
			}
			up.name, sawName = string(b), true
		case "metadata":
			b, err := io.ReadAll(io.LimitReader(part, maxMetadataPart+1))
			if err != nil {
				return nil, multipartError(err, limit)
			}
			if len(b) > maxMetadataPart {
				return nil, validation("field \"metadata\" is too long: at most %d bytes", maxMetadataPart)
			}
			if err := json.Unmarshal(b, &up.metadata); err != nil || up.metadata == nil {
				return nil, validation("field \"metadata\" must be a JSON object")
			}
		default:
			return nil, validation("unknown multipart field %q: expected file, name and metadata", field)
		}
	}
	if !sawFile {
		return nil, validation("the multipart part \"file\" is required")
	}
	if up.name == "" {
		up.name = "upload"
	}
	if !utf8.ValidString(up.name) || utf8.RuneCountInString(up.name) > maxNameLength {
		return nil, validation("the file name must be valid UTF-8 of at most %d characters", maxNameLength)
	}
	return up, nil
}

// readFilePart reads an upload's file: into a buffer the size of the
// whole body when the request declares it (the file cannot be larger,
// and the buffer never doubles), else in blocks taken from mem as they
// are read into.
func readFilePart(part io.Reader, length int64, mem *reservation) ([]byte, error) {
	if length < 0 {
		return readBlocks(part, mem)
	}
	var buf bytes.Buffer
	buf.Grow(int(length) + bytes.MinRead)
	if _, err := buf.ReadFrom(part); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func multipartError(err error, limit int64) *apiError {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, profilesvc.CodePayloadTooLarge,
			"the upload is larger than the limit of %d bytes", limit)
	}
	if errors.Is(err, multipart.ErrMessageTooLarge) {
		return errorf(http.StatusRequestEntityTooLarge, profilesvc.CodePayloadTooLarge, "the multipart headers are too large")
	}
	return validation("the multipart body is not valid: %v", err)
}

func handleGetItem(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	it, e := t.store.item(pathVar(r, "itemId"), baseURL(r))
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// updateItemBody is the body of update item: every field optional.
type updateItemBody struct {
	Name     opt[string]         `json:"name"`
	Metadata opt[map[string]any] `json:"metadata"`
	Content  json.RawMessage     `json:"content"`
}

func handleUpdateItem(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var b updateItemBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if e := checkOptName(b.Name); e != nil {
		return e
	}
	if b.Metadata.set && b.Metadata.null {
		return validation("field \"metadata\" must be an object, not null")
	}
	id := pathVar(r, "itemId")
	u := itemUpdate{metadata: b.Metadata.value}
	if b.Name.set {
		u.name = &b.Name.value
	}
	if b.Content != nil {
		// An item's type never changes: the content is checked for it
		// before the lock is taken again.
		typ, e := withLock(t.store, func(st *state) (profilesvc.ItemType, *apiError) {
			if it := st.items[id]; it != nil {
				return it.typ, nil
			}
			return "", itemNotFound(id)
		})
		if e != nil {
			return e
		}
		if e := u.setContent(typ, b.Content); e != nil {
			return e
		}
	}
	base := baseURL(r)
	it, e := withLock(t.store, func(st *state) (*profilesvc.Item, *apiError) {
		it, e := st.updateItem(id, u)
		if e != nil {
			return nil, e
		}
		return itemView(it, base), nil
	})
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// setContent checks new content for an item of typ and reads its bytes
// and text.
func (u *itemUpdate) setContent(typ profilesvc.ItemType, raw json.RawMessage) *apiError {
	if typ == profilesvc.ItemFile {
		return validation("field \"content\" cannot be changed on a file item: delete it and upload a new file")
	}
	content, data, e := checkItemContent(typ, raw)
	if e != nil {
		return e
	}
	contentType := "text/plain"
	if typ == profilesvc.ItemJSON {
		contentType = "application/json"
	}
	u.content, u.data, u.typ = content, data, typ
	u.text, _ = docread.Text(contentType, data)
	return nil
}

func handleDeleteItem(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "itemId")
	if e := t.store.do(func(st *state) *apiError { return st.deleteItem(id) }); e != nil {
		return e
	}
	noContent(w)
	return nil
}

// handleItemOriginal serves an item's original bytes (storageOriginalUrl).
func handleItemOriginal(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	return serveArtifact(t, w, r, true)
}

// handleItemText serves the text extracted from an item (url).
func handleItemText(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	return serveArtifact(t, w, r, false)
}

// serveArtifact serves one of an item's stored artifacts.
func serveArtifact(t *Tenant, w http.ResponseWriter, r *http.Request, original bool) *apiError {
	ct, data, e := t.store.artifact(pathVar(r, "itemId"), original)
	if e != nil {
		return e
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	return nil
}

// declaredOr returns the content type the client declared, unless it is
// missing or generic, in which case the detected one.
func declaredOr(declared, detected string) string {
	if declared == "" || strings.HasPrefix(declared, "application/octet-stream") {
		return detected
	}
	return declared
}
