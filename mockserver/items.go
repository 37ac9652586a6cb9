package mockserver

import (
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
)

// itemView renders a stored item in full; base is the address its
// storage artifacts are served from.
func (t *Tenant) itemView(it *itemRec, base string) *profilesvc.Item {
	v := &profilesvc.Item{
		ID:                 it.id,
		FolderID:           it.folderID,
		Type:               it.typ,
		Name:               it.name,
		Content:            profilesvc.RawJSON("null"),
		ContentType:        it.contentType,
		SizeBytes:          int64(len(it.data)),
		URL:                base + strings.Replace(storageTextPath, "{itemId}", it.id, 1),
		StorageOriginalURL: base + strings.Replace(storageOriginalPath, "{itemId}", it.id, 1),
		Metadata:           cloneMap(it.metadata),
		Status:             it.status,
		ProcessedAt:        it.processedAt,
		CreatedAt:          it.createdAt,
	}
	if v.Metadata == nil {
		v.Metadata = map[string]any{}
	}
	if it.content != nil {
		v.Content = profilesvc.RawJSON(append([]byte(nil), it.content...))
	}
	d := it.detected
	v.Detected = &d
	return v
}

// baseURL is the address the request reached the server at.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// newItem builds an item from its bytes; the caller stores it.
func (t *Tenant) newItem(folder *folderRec, typ profilesvc.ItemType, name string, content json.RawMessage, data []byte, contentType string, metadata map[string]any) *itemRec {
	now := t.now()
	it := &itemRec{
		id:        t.srv.ids.next("item_"),
		folderID:  folder.id,
		profileID: folder.profileID,
		typ:       typ,
		name:      name,
		content:   content,
		data:      data,
		metadata:  cloneMap(metadata),
		status:    profilesvc.ItemActive,
		createdAt: now,
	}
	processed := now
	it.processedAt = &processed
	switch typ {
	case profilesvc.ItemText:
		it.contentType = "text/plain"
		it.detected = profilesvc.Detected{ContentType: "text/plain", Extension: "txt", FileCategory: "text"}
	case profilesvc.ItemJSON:
		it.contentType = "application/json"
		it.detected = profilesvc.Detected{ContentType: "application/json", Extension: "json", FileCategory: "data"}
	default:
		it.detected = docread.Detect(name, data)
		it.contentType = declaredOr(contentType, it.detected.ContentType)
	}
	it.text, _ = docread.Text(it.detected.ContentType, data)
	return it
}

// storeItem adds a new item to its folder.
func (t *Tenant) storeItem(folder *folderRec, it *itemRec) {
	t.st.items[it.id] = it
	folder.itemIDs = append(folder.itemIDs, it.id)
	folder.updatedAt = it.createdAt
	folder.changed()
}

// createItemBody is the JSON form of create item.
type createItemBody struct {
	Type     *string         `json:"type"`
	Name     *string         `json:"name"`
	Content  json.RawMessage `json:"content"`
	Metadata map[string]any  `json:"metadata"`
}

// checkItemContent validates the content of a text or JSON item and
// returns its stored JSON form and its bytes.
func checkItemContent(typ profilesvc.ItemType, raw json.RawMessage) (json.RawMessage, []byte, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, validation("field \"content\" is required for a %s item", typ)
	}
	if typ == profilesvc.ItemText {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, validation("field \"content\" must be a string for a text item")
		}
		return raw, []byte(s), nil
	}
	compact, err := compactJSON(raw)
	if err != nil {
		return nil, nil, validation("field \"content\" is not valid JSON: %v", err)
	}
	return compact, compact, nil
}

func compactJSON(raw json.RawMessage) (json.RawMessage, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func (t *Tenant) handleCreateItem(w http.ResponseWriter, r *http.Request) *apiError {
	folderID := pathVar(r, "folderId")
	var (
		typ      profilesvc.ItemType
		name     string
		content  json.RawMessage
		data     []byte
		declared string
		filename string
		metadata map[string]any
	)
	switch mediaType(r) {
	case "multipart/form-data":
		up, e := readUpload(r, t.srv.cfg.maxUpload)
		if e != nil {
			return e
		}
		typ, name, data, declared, metadata = profilesvc.ItemFile, up.name, up.data, up.contentType, up.metadata
		filename = up.filename
	case "application/json":
		var b createItemBody
		if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
			return e
		}
		if b.Type == nil {
			return validation("field \"type\" is required: text or json (upload files as multipart/form-data)")
		}
		typ = profilesvc.ItemType(*b.Type)
		if typ != profilesvc.ItemText && typ != profilesvc.ItemJSON {
			return validation("field \"type\" must be text or json, not %q (upload files as multipart/form-data)", *b.Type)
		}
		var e *apiError
		if content, data, e = checkItemContent(typ, b.Content); e != nil {
			return e
		}
		name = "Untitled " + string(typ)
		if b.Name != nil {
			if e := checkName("name", *b.Name); e != nil {
				return e
			}
			name = *b.Name
		}
		metadata = b.Metadata
	default:
		return errorf(http.StatusUnsupportedMediaType, profilesvc.CodeUnsupportedMediaType,
			"Content-Type %q is not supported here: upload a file as multipart/form-data, or a text or JSON item as application/json", r.Header.Get("Content-Type"))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.st.folders[folderID]
	if f == nil {
		return folderNotFound(folderID)
	}
	it := t.newItem(f, typ, name, content, data, declared, metadata)
	if filename != "" && filename != name {
		it.detected = docread.Detect(filename, data)
		it.contentType = declaredOr(declared, it.detected.ContentType)
		it.text, _ = docread.Text(it.detected.ContentType, data)
	}
	t.storeItem(f, it)
	writeJSON(w, http.StatusCreated, t.itemView(it, baseURL(r)))
	return nil
}

// upload is a parsed multipart upload.
type upload struct {
	name, filename, contentType string
	data                        []byte
	metadata                    map[string]any
}

// readUpload reads a multipart/form-data item: the part "file" (required,
// once) and the optional fields "name" and "metadata" (a JSON object).
func readUpload(r *http.Request, limit int64) (*upload, *apiError) {
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
			b, err := io.ReadAll(part)
			if err != nil {
				return nil, multipartError(err, limit)
			}
			up.data = b
			up.contentType = part.Header.Get("Content-Type")
			up.filename = part.FileName()
			if !sawName {
				up.name = up.filename
			}
		case "name":
			b, err := io.ReadAll(io.LimitReader(part, 4096))
			if err != nil {
				return nil, multipartError(err, limit)
			}
			if e := checkName("name", string(b)); e != nil {
				return nil, e
			}
			up.name, sawName = string(b), true
		case "metadata":
			b, err := io.ReadAll(io.LimitReader(part, 1<<20))
			if err != nil {
				return nil, multipartError(err, limit)
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

func itemNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeItemNotFound, "item %q does not exist", id)
}

func (t *Tenant) handleGetItem(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "itemId")
	t.mu.Lock()
	defer t.mu.Unlock()
	it := t.st.items[id]
	if it == nil {
		return itemNotFound(id)
	}
	writeJSON(w, http.StatusOK, t.itemView(it, baseURL(r)))
	return nil
}

// updateItemBody is the body of update item: every field optional.
type updateItemBody struct {
	Name     opt[string]         `json:"name"`
	Metadata opt[map[string]any] `json:"metadata"`
	Content  json.RawMessage     `json:"content"`
}

func (t *Tenant) handleUpdateItem(w http.ResponseWriter, r *http.Request) *apiError {
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
	t.mu.Lock()
	defer t.mu.Unlock()
	it := t.st.items[id]
	if it == nil {
		return itemNotFound(id)
	}
	var content json.RawMessage
	var data []byte
	if b.Content != nil {
		if it.typ == profilesvc.ItemFile {
			return validation("field \"content\" cannot be changed on a file item: delete it and upload a new file")
		}
		var e *apiError
		if content, data, e = checkItemContent(it.typ, b.Content); e != nil {
			return e
		}
	}
	if b.Name.set {
		it.name = b.Name.value
	}
	if b.Metadata.set {
		if it.metadata == nil {
			it.metadata = map[string]any{}
		}
		for k, v := range cloneMap(b.Metadata.value) {
			it.metadata[k] = v // merged, key by key
		}
	}
	if content != nil {
		it.content, it.data = content, data
		it.text, _ = docread.Text(it.detected.ContentType, data)
	}
	if f := t.st.folders[it.folderID]; f != nil {
		f.changed() // the name or the size of its summary
	}
	writeJSON(w, http.StatusOK, t.itemView(it, baseURL(r)))
	return nil
}

func (t *Tenant) handleDeleteItem(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "itemId")
	t.mu.Lock()
	defer t.mu.Unlock()
	it := t.st.items[id]
	if it == nil {
		return itemNotFound(id)
	}
	delete(t.st.items, id)
	if f := t.st.folders[it.folderID]; f != nil {
		f.itemIDs = removeString(f.itemIDs, id)
		f.changed()
	}
	noContent(w)
	return nil
}

// handleItemOriginal serves an item's original bytes (storageOriginalUrl).
func (t *Tenant) handleItemOriginal(w http.ResponseWriter, r *http.Request) *apiError {
	return t.serveArtifact(w, r, func(it *itemRec) (string, []byte) { return it.contentType, it.data })
}

// handleItemText serves the text extracted from an item (url).
func (t *Tenant) handleItemText(w http.ResponseWriter, r *http.Request) *apiError {
	return t.serveArtifact(w, r, func(it *itemRec) (string, []byte) { return "text/plain; charset=utf-8", []byte(it.text) })
}

// serveArtifact serves one of an item's stored artifacts.
func (t *Tenant) serveArtifact(w http.ResponseWriter, r *http.Request, pick func(*itemRec) (string, []byte)) *apiError {
	id := pathVar(r, "itemId")
	t.mu.Lock()
	it := t.st.items[id]
	var ct string
	var data []byte
	if it != nil {
		ct, data = pick(it)
	}
	t.mu.Unlock()
	if it == nil {
		return itemNotFound(id)
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
