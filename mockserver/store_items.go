package mockserver

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
)

// itemSpec is a new item, whatever its source: an upload or a JSON item of
// the API, the test kit, a seed. Every item is made from one, on one path:
// prepare checks and reads it, outside the lock; state.addItem stores it.
type itemSpec struct {
	typ  profilesvc.ItemType
	name string // "" for "Untitled <type>"
	// content is a text item's text (a JSON string) or a JSON item's
	// value, as given; data is a file's bytes.
	content json.RawMessage
	data    []byte
	// declared is the content type the client declared for a file;
	// filename, the upload's file name, names the file for detection.
	declared string
	filename string
	metadata map[string]any // the store's once given
	id       string         // fixed by a seed or the kit; "" for a new one
	status   profilesvc.ItemStatus

	// Filled by prepare.
	stored      json.RawMessage
	contentType string
	detected    profilesvc.Detected
	text        string
	readable    bool
}

// prepare checks the spec and works out what the item stores: its content
// in stored form, its bytes, what its bytes are and their text.
func (spec *itemSpec) prepare() *apiError {
	switch spec.typ {
	case profilesvc.ItemText, profilesvc.ItemJSON:
		stored, data, e := checkItemContent(spec.typ, spec.content)
		if e != nil {
			return e
		}
		spec.stored, spec.data = stored, data
	case profilesvc.ItemFile:
	default:
		return validation("field \"type\" must be text, json or file, not %q", spec.typ)
	}
	if spec.name == "" {
		spec.name = "Untitled " + string(spec.typ)
	}
	if e := checkName("name", spec.name); e != nil {
		return e
	}
	if why := badContentType(spec.declared); why != "" {
		return validation("the file's Content-Type %s", why)
	}
	if why := badItemStatus(spec.status); spec.status != "" && why != "" {
		return validation("field \"status\" %s", why)
	}
	switch spec.typ {
	case profilesvc.ItemText:
		spec.contentType = "text/plain"
		spec.detected = profilesvc.Detected{ContentType: "text/plain", Extension: "txt", FileCategory: "text"}
	case profilesvc.ItemJSON:
		spec.contentType = "application/json"
		spec.detected = profilesvc.Detected{ContentType: "application/json", Extension: "json", FileCategory: "data"}
	default:
		named := spec.name
		if spec.filename != "" {
			named = spec.filename
		}
		spec.detected = docread.Detect(named, spec.data)
		spec.contentType = declaredOr(spec.declared, spec.detected.ContentType)
	}
	spec.text, spec.readable = docread.Text(spec.detected.ContentType, spec.data)
	if spec.typ != profilesvc.ItemFile {
		spec.readable = true
	}
	return nil
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
	// The interface document gives an item's content as a string or an
	// object: a JSON item's is an object.
	if compact[0] != '{' {
		return nil, nil, validation("field \"content\" must be a JSON object for a json item")
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

// addItem stores a prepared item in a folder.
func (st *state) addItem(folderID string, spec *itemSpec) (*itemRec, *apiError) {
	f := st.folders[folderID]
	if f == nil {
		return nil, folderNotFound(folderID)
	}
	now := st.now()
	processed := now
	it := &itemRec{
		id: st.newID("item_"), folderID: f.id, profileID: f.profileID, typ: spec.typ, name: spec.name,
		content: spec.stored, data: spec.data, text: spec.text, readable: spec.readable,
		contentType: spec.contentType, detected: spec.detected, metadata: spec.metadata,
		status: profilesvc.ItemActive, processedAt: &processed, createdAt: now,
	}
	if spec.id != "" {
		if e := checkFixedID(spec.id, "item_", st.items[spec.id] != nil); e != nil {
			return nil, e
		}
		it.id = spec.id
	}
	if spec.status != "" {
		it.status = spec.status
	}
	st.items[it.id] = it
	f.itemIDs = append(f.itemIDs, it.id)
	f.updatedAt = it.createdAt
	f.changed()
	return it, nil
}

// itemUpdate is a change of an item, checked and read outside the lock.
type itemUpdate struct {
	name     *string
	metadata map[string]any // merged into the item's, key by key; nil for none
	// content, when set, replaces a text or JSON item's content, with its
	// bytes and text.
	content json.RawMessage
	data    []byte
	text    string
	typ     profilesvc.ItemType // the type the content was checked for
}

// updateItem changes an item.
func (st *state) updateItem(id string, u itemUpdate) (*itemRec, *apiError) {
	it := st.items[id]
	if it == nil {
		return nil, itemNotFound(id)
	}
	if u.content != nil && u.typ != it.typ {
		return nil, validation("field \"content\" does not fit a %s item", it.typ)
	}
	if u.name != nil {
		it.name = *u.name
	}
	if u.metadata != nil {
		merged := maps.Clone(it.metadata)
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, u.metadata)
		it.metadata = merged
	}
	if u.content != nil {
		it.content, it.data, it.text = u.content, u.data, u.text
	}
	if f := st.folders[it.folderID]; f != nil {
		f.changed() // the name or the size of its summary
	}
	return it, nil
}

// deleteItem removes an item.
func (st *state) deleteItem(id string) *apiError {
	it := st.items[id]
	if it == nil {
		return itemNotFound(id)
	}
	delete(st.items, id)
	if f := st.folders[it.folderID]; f != nil {
		f.itemIDs = slices.DeleteFunc(f.itemIDs, func(v string) bool { return v == id })
		f.changed()
	}
	return nil
}

// The store's operations on items that the test kit and a route share.
// Views name the item's artifacts under base, the address the request
// reached the server at.

// addItem stores a prepared item in a folder.
func (s *store) addItem(folderID string, spec *itemSpec, base string) (*profilesvc.Item, *apiError) {
	return withLock(s, func(st *state) (*profilesvc.Item, *apiError) {
		it, e := st.addItem(folderID, spec)
		if e != nil {
			return nil, e
		}
		return itemView(it, base), nil
	})
}

// item returns an item in full.
func (s *store) item(id, base string) (*profilesvc.Item, *apiError) {
	return withLock(s, func(st *state) (*profilesvc.Item, *apiError) {
		it := st.items[id]
		if it == nil {
			return nil, itemNotFound(id)
		}
		return itemView(it, base), nil
	})
}

// artifact returns an item's original bytes, or its text, with their
// content type.
func (s *store) artifact(id string, original bool) (string, []byte, *apiError) {
	type typed struct {
		contentType string
		data        []byte
	}
	a, e := withLock(s, func(st *state) (typed, *apiError) {
		it := st.items[id]
		if it == nil {
			return typed{}, itemNotFound(id)
		}
		if original {
			return typed{it.contentType, it.data}, nil
		}
		return typed{"text/plain; charset=utf-8", []byte(it.text)}, nil
	})
	return a.contentType, a.data, e
}

// setItemStatus sets an item's status: anything but ACTIVE makes analyses
// refuse it.
func (s *store) setItemStatus(id string, status profilesvc.ItemStatus, base string) (*profilesvc.Item, *apiError) {
	if why := badItemStatus(status); why != "" {
		return nil, validation("field \"status\" %s", why)
	}
	return withLock(s, func(st *state) (*profilesvc.Item, *apiError) {
		it := st.items[id]
		if it == nil {
			return nil, itemNotFound(id)
		}
		it.status = status
		return itemView(it, base), nil
	})
}

func itemNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeItemNotFound, "item %q does not exist", id)
}
