package mockserver_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/profilesvc/profilesvc-go"
)

func TestUploadFileItem(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, fid := createProfile(t, srv, "Uploader")
	cases := []struct {
		name     string
		filename string
		data     []byte
		fields   [][2]string
		wantName string
		detected [3]string // contentType, extension, fileCategory
		text     *string   // what url serves; nil: not checked
		meta     map[string]any
	}{
		{name: "png", filename: "photo.png", data: pngBytes, wantName: "photo.png",
			detected: [3]string{"image/png", "png", "image"}},
		{name: "pdf", filename: "statement.pdf", data: pdfBytes, wantName: "statement.pdf",
			detected: [3]string{"application/pdf", "pdf", "document"}, text: profilesvc.Ptr("Hello PDF world")},
		{name: "pdf without extension", filename: "scan", data: pdfBytes, wantName: "scan",
			detected: [3]string{"application/pdf", "pdf", "document"}},
		{name: "csv", filename: "people.csv", data: []byte("name,dob\nAlice,1990-01-01\n"), wantName: "people.csv",
			detected: [3]string{"text/csv", "csv", "spreadsheet"}, text: profilesvc.Ptr("name,dob\nAlice,1990-01-01\n")},
		{name: "txt", filename: "notes.txt", data: []byte("hello world\n"), wantName: "notes.txt",
			detected: [3]string{"text/plain", "txt", "text"}, text: profilesvc.Ptr("hello world\n")},
		{name: "json file", filename: "data.json", data: []byte(`{"a": 1}`), wantName: "data.json",
			detected: [3]string{"application/json", "json", "data"}, text: profilesvc.Ptr(`{"a": 1}`)},
		{name: "name and metadata fields", filename: "raw.txt", data: []byte("Key: value\n"),
			fields:   [][2]string{{"name", "Display name"}, {"metadata", `{"source":"scanner","pages":2}`}},
			wantName: "Display name", detected: [3]string{"text/plain", "txt", "text"},
			text: profilesvc.Ptr("Key: value\n"), meta: map[string]any{"source": "scanner", "pages": float64(2)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it := jsonObject(t, upload(t, srv, fid, c.filename, c.data, c.fields...), http.StatusCreated)
			checkItem(t, "uploaded item", it, fid)
			assert.True(t, it["type"] == "file" && it["name"] == c.wantName, "type %v name %v, want file %q", it["type"], it["name"], c.wantName)
			assert.Equal(t, float64(len(c.data)), it["sizeBytes"], "sizeBytes")
			d := it["detected"].(map[string]any)
			got := [3]string{fmt.Sprint(d["contentType"]), fmt.Sprint(d["extension"]), fmt.Sprint(d["fileCategory"])}
			if diff := cmp.Diff(c.detected, got); diff != "" {
				t.Errorf("detected (-want +got):\n%s", diff)
			}
			assert.Equal(t, c.detected[0], it["contentType"], "contentType (the declared type was application/octet-stream)")
			meta := c.meta
			if meta == nil {
				meta = map[string]any{}
			}
			wantSameJSON(t, "metadata", it["metadata"], meta)

			// The original, with the key: the same bytes.
			orig := fetch(t, srv, it["storageOriginalUrl"].(string), "")
			assert.True(t, orig.Status == http.StatusOK && bytes.Equal(orig.Body, c.data),
				"storageOriginalUrl: %d with %d bytes, want 200 with the %d uploaded bytes", orig.Status, len(orig.Body), len(c.data))
			ct := orig.Header.Get("Content-Type")
			assert.True(t, strings.HasPrefix(ct, c.detected[0]), "storageOriginalUrl Content-Type = %q, want %q", ct, c.detected[0])
			// The extracted text, with the key.
			txt := fetch(t, srv, it["url"].(string), "")
			if assert.Equal(t, http.StatusOK, txt.Status, "url: %s", txt) && c.text != nil {
				assert.Equal(t, strings.TrimSpace(*c.text), strings.TrimSpace(string(txt.Body)), "what url serves")
			}
			// Without the key or with a wrong one: 401.
			for _, k := range []string{"storageOriginalUrl", "url"} {
				wantError(t, fetch(t, srv, it[k].(string), noKey), http.StatusUnauthorized, "UNAUTHORIZED")
				wantError(t, fetch(t, srv, it[k].(string), "00000000-0000-4000-8000-000000000000"), http.StatusUnauthorized, "UNAUTHORIZED")
			}
			// GET answers the same item.
			g := doJSON(t, srv, "GET", "/v1/items/"+it["id"].(string), nil, http.StatusOK)
			wantSameJSON(t, "GET item", g, it)
		})
	}
}

func TestCreateTextAndJSONItems(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, fid := createProfile(t, srv, "P")

	t.Run("text", func(t *testing.T) {
		text := "Full name: Jane Doe\n한국어 텍스트"
		it := doJSON(t, srv, "POST", "/v1/folders/"+fid+"/items",
			map[string]any{"type": "text", "name": "note", "content": text, "metadata": map[string]any{"lang": "ko"}}, http.StatusCreated)
		checkItem(t, "text item", it, fid)
		assert.True(t, it["type"] == "text" && it["name"] == "note" && it["content"] == text, "text item = %v", it)
		assert.True(t, it["contentType"] == "text/plain" && it["sizeBytes"] == float64(len(text)),
			"contentType %v sizeBytes %v, want text/plain %d", it["contentType"], it["sizeBytes"], len(text))
		wantSameJSON(t, "metadata", it["metadata"], map[string]any{"lang": "ko"})
		r := fetch(t, srv, it["url"].(string), "")
		assert.True(t, r.Status == 200 && string(r.Body) == text, "url serves %s, want the text", r)
		r = fetch(t, srv, it["storageOriginalUrl"].(string), "")
		assert.True(t, r.Status == 200 && string(r.Body) == text, "storageOriginalUrl serves %s, want the text", r)
		wantSameJSON(t, "GET text item", doJSON(t, srv, "GET", "/v1/items/"+it["id"].(string), nil, http.StatusOK), it)
	})
	t.Run("json", func(t *testing.T) {
		content := map[string]any{"full_name": "Jane Doe", "list": []any{float64(1), "two"}, "nested": map[string]any{"ok": true}}
		it := doJSON(t, srv, "POST", "/v1/folders/"+fid+"/items",
			map[string]any{"type": "json", "name": "record", "content": content}, http.StatusCreated)
		checkItem(t, "json item", it, fid)
		assert.True(t, it["type"] == "json" && it["name"] == "record" && it["contentType"] == "application/json", "json item = %v", it)
		wantSameJSON(t, "content", it["content"], content)
		assert.IsType(t, map[string]any{}, it["content"], "content = %#v, want an object", it["content"])
		wantSameJSON(t, "metadata", it["metadata"], map[string]any{})
		wantSameJSON(t, "GET json item", doJSON(t, srv, "GET", "/v1/items/"+it["id"].(string), nil, http.StatusOK), it)
	})
	t.Run("bad bodies", func(t *testing.T) {
		cases := []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"no type", map[string]any{"content": "x"}, "type"},
			{"type file", map[string]any{"type": "file", "content": "x"}, "type"},
			{"unknown type", map[string]any{"type": "image", "content": "x"}, "type"},
			{"no content", map[string]any{"type": "text"}, "content"},
			{"null content", map[string]any{"type": "json", "content": nil}, "content"},
			{"text with object content", map[string]any{"type": "text", "content": map[string]any{}}, "content"},
			{"empty name", map[string]any{"type": "text", "name": "", "content": "x"}, "name"},
			{"metadata not an object", map[string]any{"type": "text", "content": "x", "metadata": "m"}, "metadata"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				wantError(t, do(t, srv, "POST", "/v1/folders/"+fid+"/items", c.body), http.StatusBadRequest, "VALIDATION_ERROR", c.field)
			})
		}
		f := doJSON(t, srv, "GET", "/v1/folders/"+fid, nil, http.StatusOK)
		assert.Len(t, arrayField(t, "folder", f, "items"), 2, "items of the folder after refused creates")
	})
}

func TestUpdateItem(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	_, fid := createProfile(t, srv, "P")
	text := doJSON(t, srv, "POST", "/v1/folders/"+fid+"/items", map[string]any{
		"type": "text", "name": "note", "content": "old text", "metadata": map[string]any{"a": float64(1), "b": "x"},
	}, http.StatusCreated)
	textID := text["id"].(string)
	jsonID := doJSON(t, srv, "POST", "/v1/folders/"+fid+"/items",
		map[string]any{"type": "json", "name": "rec", "content": map[string]any{"v": float64(1)}}, http.StatusCreated)["id"].(string)
	file := jsonObject(t, upload(t, srv, fid, "f.txt", []byte("file bytes"), [2]string{"metadata", `{"keep":"me"}`}), http.StatusCreated)
	fileID := file["id"].(string)

	t.Run("metadata merged", func(t *testing.T) {
		it := doJSON(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"metadata": map[string]any{"b": "y", "c": true}}, http.StatusOK)
		checkItem(t, "patched item", it, fid)
		wantSameJSON(t, "metadata", it["metadata"], map[string]any{"a": float64(1), "b": "y", "c": true})
		assert.True(t, it["content"] == "old text" && it["name"] == "note", "fields not in the body changed: %v", it)
		got := doJSON(t, srv, "GET", "/v1/items/"+textID, nil, http.StatusOK)
		wantSameJSON(t, "stored metadata", got["metadata"], map[string]any{"a": float64(1), "b": "y", "c": true})
	})
	t.Run("text content and name", func(t *testing.T) {
		it := doJSON(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"content": "brand new text", "name": "renamed"}, http.StatusOK)
		checkItem(t, "patched item", it, fid)
		assert.True(t, it["content"] == "brand new text" && it["name"] == "renamed" && it["sizeBytes"] == float64(len("brand new text")),
			"patched text item = %v", it)
		wantSameJSON(t, "metadata kept", it["metadata"], map[string]any{"a": float64(1), "b": "y", "c": true})
		r := fetch(t, srv, it["url"].(string), "")
		assert.Equal(t, "brand new text", string(r.Body), "what url serves after the update")
	})
	t.Run("json content", func(t *testing.T) {
		it := doJSON(t, srv, "PATCH", "/v1/items/"+jsonID, map[string]any{"content": map[string]any{"v": float64(2), "w": []any{"x"}}}, http.StatusOK)
		checkItem(t, "patched item", it, fid)
		wantSameJSON(t, "json content", it["content"], map[string]any{"v": float64(2), "w": []any{"x"}})
		wantSameJSON(t, "stored json content", doJSON(t, srv, "GET", "/v1/items/"+jsonID, nil, http.StatusOK)["content"], it["content"])
	})
	t.Run("file: name and metadata only", func(t *testing.T) {
		it := doJSON(t, srv, "PATCH", "/v1/items/"+fileID, map[string]any{"name": "g.txt", "metadata": map[string]any{"new": "v"}}, http.StatusOK)
		checkItem(t, "patched file", it, fid)
		wantSameJSON(t, "file metadata", it["metadata"], map[string]any{"keep": "me", "new": "v"})
		for _, content := range []any{"replacement", map[string]any{"x": 1}} {
			r := do(t, srv, "PATCH", "/v1/items/"+fileID, map[string]any{"content": content})
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "content")
		}
		r := do(t, srv, "PATCH", "/v1/items/"+fileID, map[string]any{"content": "x", "name": "should not apply"})
		wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "content")
		got := doJSON(t, srv, "GET", "/v1/items/"+fileID, nil, http.StatusOK)
		wantNull(t, "file item", got, "content")
		assert.Equal(t, "g.txt", got["name"], "name after a refused update")
		b, _ := srv.ItemBytes(fileID)
		assert.Equal(t, "file bytes", string(b), "file bytes after a refused update")
	})
	t.Run("bad content for the type", func(t *testing.T) {
		wantError(t, do(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"content": map[string]any{"a": 1}}), http.StatusBadRequest, "VALIDATION_ERROR", "content")
		wantError(t, do(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"content": nil}), http.StatusBadRequest, "VALIDATION_ERROR", "content")
		wantError(t, do(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"metadata": "x"}), http.StatusBadRequest, "VALIDATION_ERROR", "metadata")
		wantError(t, do(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"name": ""}), http.StatusBadRequest, "VALIDATION_ERROR", "name")
	})
}

func TestUnknownItem(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	const nope = "item_doesnotexist000"
	for _, c := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PATCH", map[string]any{"name": "x"}}, {"DELETE", nil}} {
		t.Run(c.method, func(t *testing.T) {
			wantError(t, do(t, srv, c.method, "/v1/items/"+nope, c.body), http.StatusNotFound, "ITEM_NOT_FOUND", nope)
		})
	}
	t.Run("storage", func(t *testing.T) {
		wantError(t, do(t, srv, "GET", "/storage/items/"+nope+"/original", nil), http.StatusNotFound, "ITEM_NOT_FOUND")
		wantError(t, do(t, srv, "GET", "/storage/items/"+nope+"/text", nil), http.StatusNotFound, "ITEM_NOT_FOUND")
	})
}

func TestDeleteItem(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, fid := createProfile(t, srv, "P")
	it := jsonObject(t, upload(t, srv, fid, "a.txt", []byte("abc")), http.StatusCreated)
	id := it["id"].(string)
	other := createTextItem(t, srv, fid, "b", "keep")

	wantNoContent(t, do(t, srv, "DELETE", "/v1/items/"+id, nil))
	wantError(t, do(t, srv, "GET", "/v1/items/"+id, nil), http.StatusNotFound, "ITEM_NOT_FOUND", id)
	wantError(t, do(t, srv, "DELETE", "/v1/items/"+id, nil), http.StatusNotFound, "ITEM_NOT_FOUND", id)
	wantError(t, fetch(t, srv, it["storageOriginalUrl"].(string), ""), http.StatusNotFound, "ITEM_NOT_FOUND")
	wantError(t, fetch(t, srv, it["url"].(string), ""), http.StatusNotFound, "ITEM_NOT_FOUND")

	f := doJSON(t, srv, "GET", "/v1/folders/"+fid, nil, http.StatusOK)
	items := objectsField(t, "folder", f, "items")
	assert.True(t, len(items) == 1 && items[0]["id"] == other && f["itemsCount"] == float64(1), "folder after delete = %v", f)
	p := doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	assert.Equal(t, float64(1), p["itemsCount"], "profile itemsCount")
}

func TestUploadIntoUnknownFolder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	wantError(t, upload(t, srv, "fld_nope", "a.txt", []byte("x")), http.StatusNotFound, "FOLDER_NOT_FOUND", "fld_nope")
}
