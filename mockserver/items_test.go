package mockserver_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hPDF is a small text-based PDF whose page shows "Hello PDF world".
var hPDF = []byte("%PDF-1.4\n" +
	"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
	"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n" +
	"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n" +
	"4 0 obj\n<< /Length 47 >>\nstream\nBT /F1 12 Tf 72 712 Td (Hello PDF world) Tj ET\nendstream\nendobj\n" +
	"5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n" +
	"trailer\n<< /Root 1 0 R >>\n%%EOF\n")

// hCheckItem checks every field of the document's full Item.
func hCheckItem(t *testing.T, what string, it map[string]any, folderID string) {
	t.Helper()
	hKeys(t, what, it, "id", "folderId", "type", "name", "content", "contentType", "sizeBytes",
		"url", "storageOriginalUrl", "detected", "metadata", "status", "processedAt", "createdAt")
	hID(t, what, it, "id", "item_")
	if got := hStr(t, what, it, "folderId"); got != folderID {
		t.Errorf("%s: folderId = %q, want %q", what, got, folderID)
	}
	switch typ := hStr(t, what, it, "type"); typ {
	case "file":
		hNull(t, what, it, "content")
	case "text":
		hStr(t, what, it, "content")
	case "json":
		if it["content"] == nil {
			t.Errorf("%s: content of a json item is null", what)
		}
	default:
		t.Errorf("%s: type = %q, want file, text or json", what, typ)
	}
	hStr(t, what, it, "name")
	if ct := hStr(t, what, it, "contentType"); !strings.Contains(ct, "/") {
		t.Errorf("%s: contentType = %q, want a MIME type", what, ct)
	}
	hNum(t, what, it, "sizeBytes")
	for _, k := range []string{"url", "storageOriginalUrl"} {
		u, err := url.Parse(hStr(t, what, it, k))
		if err != nil || u.Scheme != "http" || u.Host == "" {
			t.Errorf("%s: %s = %q, want an absolute http URL", what, k, it[k])
		}
	}
	d := hMap(t, what, it, "detected")
	hExactKeys(t, what+".detected", d, "contentType", "extension", "fileCategory")
	hStr(t, what+".detected", d, "contentType")
	hStr(t, what+".detected", d, "extension")
	hStr(t, what+".detected", d, "fileCategory")
	hMap(t, what, it, "metadata")
	if got := hStr(t, what, it, "status"); got != "ACTIVE" {
		t.Errorf("%s: status = %q, want ACTIVE", what, got)
	}
	hTime(t, what, it, "processedAt")
	hTime(t, what, it, "createdAt")
}

// hFetch GETs an absolute URL the mock handed out, which must point at the
// mock itself.
func hFetch(t *testing.T, srv *mockserver.Server, rawURL, key string) *hResp {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatalf("bad URL %q: %v", rawURL, err)
	}
	if "http://"+u.Host != srv.URL {
		t.Fatalf("URL %q does not point at the mock %s", rawURL, srv.URL)
	}
	return hSend(t, srv, hReq{Method: "GET", Path: u.EscapedPath(), Key: key})
}

func TestUploadFileItem(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	_, fid := hProfile(t, srv, "Uploader")
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
		{name: "png", filename: "photo.png", data: hPNG, wantName: "photo.png",
			detected: [3]string{"image/png", "png", "image"}},
		{name: "pdf", filename: "statement.pdf", data: hPDF, wantName: "statement.pdf",
			detected: [3]string{"application/pdf", "pdf", "document"}, text: profilesvc.Ptr("Hello PDF world")},
		{name: "pdf without extension", filename: "scan", data: hPDF, wantName: "scan",
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
			it := hObj(t, hUpload(t, srv, fid, c.filename, c.data, c.fields...), http.StatusCreated)
			hCheckItem(t, "uploaded item", it, fid)
			if it["type"] != "file" || it["name"] != c.wantName {
				t.Errorf("type %v name %v, want file %q", it["type"], it["name"], c.wantName)
			}
			if it["sizeBytes"] != float64(len(c.data)) {
				t.Errorf("sizeBytes = %v, want %d", it["sizeBytes"], len(c.data))
			}
			d := it["detected"].(map[string]any)
			got := [3]string{fmt.Sprint(d["contentType"]), fmt.Sprint(d["extension"]), fmt.Sprint(d["fileCategory"])}
			if got != c.detected {
				t.Errorf("detected = %v, want %v", got, c.detected)
			}
			if it["contentType"] != c.detected[0] {
				t.Errorf("contentType = %v, want %v (the declared type was application/octet-stream)", it["contentType"], c.detected[0])
			}
			meta := c.meta
			if meta == nil {
				meta = map[string]any{}
			}
			hEqualJSON(t, "metadata", it["metadata"], meta)

			// The original, with the key: the same bytes.
			orig := hFetch(t, srv, it["storageOriginalUrl"].(string), "")
			if orig.Status != http.StatusOK || !bytes.Equal(orig.Body, c.data) {
				t.Errorf("storageOriginalUrl: %d with %d bytes, want 200 with the %d uploaded bytes", orig.Status, len(orig.Body), len(c.data))
			}
			if ct := orig.Header.Get("Content-Type"); !strings.HasPrefix(ct, c.detected[0]) {
				t.Errorf("storageOriginalUrl Content-Type = %q, want %q", ct, c.detected[0])
			}
			// The extracted text, with the key.
			txt := hFetch(t, srv, it["url"].(string), "")
			if txt.Status != http.StatusOK {
				t.Errorf("url: %s, want 200", txt)
			} else if c.text != nil && strings.TrimSpace(string(txt.Body)) != strings.TrimSpace(*c.text) {
				t.Errorf("url serves %q, want %q", txt.Body, *c.text)
			}
			// Without the key or with a wrong one: 401.
			for _, k := range []string{"storageOriginalUrl", "url"} {
				hErr(t, hFetch(t, srv, it[k].(string), hNoKey), http.StatusUnauthorized, "UNAUTHORIZED")
				hErr(t, hFetch(t, srv, it[k].(string), "00000000-0000-4000-8000-000000000000"), http.StatusUnauthorized, "UNAUTHORIZED")
			}
			// GET answers the same item.
			g := hJSON(t, srv, "GET", "/v1/items/"+it["id"].(string), nil, http.StatusOK)
			hEqualJSON(t, "GET item", g, it)
		})
	}
}

func TestCreateTextAndJSONItems(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	_, fid := hProfile(t, srv, "P")

	t.Run("text", func(t *testing.T) {
		text := "Full name: Jane Doe\n한국어 텍스트"
		it := hJSON(t, srv, "POST", "/v1/folders/"+fid+"/items",
			map[string]any{"type": "text", "name": "note", "content": text, "metadata": map[string]any{"lang": "ko"}}, http.StatusCreated)
		hCheckItem(t, "text item", it, fid)
		if it["type"] != "text" || it["name"] != "note" || it["content"] != text {
			t.Errorf("text item = %v", it)
		}
		if it["contentType"] != "text/plain" || it["sizeBytes"] != float64(len(text)) {
			t.Errorf("contentType %v sizeBytes %v, want text/plain %d", it["contentType"], it["sizeBytes"], len(text))
		}
		hEqualJSON(t, "metadata", it["metadata"], map[string]any{"lang": "ko"})
		if r := hFetch(t, srv, it["url"].(string), ""); r.Status != 200 || string(r.Body) != text {
			t.Errorf("url serves %s, want the text", r)
		}
		if r := hFetch(t, srv, it["storageOriginalUrl"].(string), ""); r.Status != 200 || string(r.Body) != text {
			t.Errorf("storageOriginalUrl serves %s, want the text", r)
		}
		hEqualJSON(t, "GET text item", hJSON(t, srv, "GET", "/v1/items/"+it["id"].(string), nil, http.StatusOK), it)
	})
	t.Run("json", func(t *testing.T) {
		content := map[string]any{"full_name": "Jane Doe", "list": []any{float64(1), "two"}, "nested": map[string]any{"ok": true}}
		it := hJSON(t, srv, "POST", "/v1/folders/"+fid+"/items",
			map[string]any{"type": "json", "name": "record", "content": content}, http.StatusCreated)
		hCheckItem(t, "json item", it, fid)
		if it["type"] != "json" || it["name"] != "record" || it["contentType"] != "application/json" {
			t.Errorf("json item = %v", it)
		}
		hEqualJSON(t, "content", it["content"], content)
		if _, ok := it["content"].(map[string]any); !ok {
			t.Errorf("content = %#v, want an object", it["content"])
		}
		hEqualJSON(t, "metadata", it["metadata"], map[string]any{})
		hEqualJSON(t, "GET json item", hJSON(t, srv, "GET", "/v1/items/"+it["id"].(string), nil, http.StatusOK), it)
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
				hErr(t, hDo(t, srv, "POST", "/v1/folders/"+fid+"/items", c.body), http.StatusBadRequest, "VALIDATION_ERROR", c.field)
			})
		}
		f := hJSON(t, srv, "GET", "/v1/folders/"+fid, nil, http.StatusOK)
		if n := len(hArr(t, "folder", f, "items")); n != 2 {
			t.Errorf("folder has %d items after refused creates, want 2", n)
		}
	})
}

func TestUpdateItem(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	_, fid := hProfile(t, srv, "P")
	text := hJSON(t, srv, "POST", "/v1/folders/"+fid+"/items", map[string]any{
		"type": "text", "name": "note", "content": "old text", "metadata": map[string]any{"a": float64(1), "b": "x"},
	}, http.StatusCreated)
	textID := text["id"].(string)
	jsonID := hJSON(t, srv, "POST", "/v1/folders/"+fid+"/items",
		map[string]any{"type": "json", "name": "rec", "content": map[string]any{"v": float64(1)}}, http.StatusCreated)["id"].(string)
	file := hObj(t, hUpload(t, srv, fid, "f.txt", []byte("file bytes"), [2]string{"metadata", `{"keep":"me"}`}), http.StatusCreated)
	fileID := file["id"].(string)

	t.Run("metadata merged", func(t *testing.T) {
		it := hJSON(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"metadata": map[string]any{"b": "y", "c": true}}, http.StatusOK)
		hCheckItem(t, "patched item", it, fid)
		hEqualJSON(t, "metadata", it["metadata"], map[string]any{"a": float64(1), "b": "y", "c": true})
		if it["content"] != "old text" || it["name"] != "note" {
			t.Errorf("fields not in the body changed: %v", it)
		}
		got := hJSON(t, srv, "GET", "/v1/items/"+textID, nil, http.StatusOK)
		hEqualJSON(t, "stored metadata", got["metadata"], map[string]any{"a": float64(1), "b": "y", "c": true})
	})
	t.Run("text content and name", func(t *testing.T) {
		it := hJSON(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"content": "brand new text", "name": "renamed"}, http.StatusOK)
		hCheckItem(t, "patched item", it, fid)
		if it["content"] != "brand new text" || it["name"] != "renamed" || it["sizeBytes"] != float64(len("brand new text")) {
			t.Errorf("patched text item = %v", it)
		}
		hEqualJSON(t, "metadata kept", it["metadata"], map[string]any{"a": float64(1), "b": "y", "c": true})
		if r := hFetch(t, srv, it["url"].(string), ""); string(r.Body) != "brand new text" {
			t.Errorf("url serves %q after the update, want the new text", r.Body)
		}
	})
	t.Run("json content", func(t *testing.T) {
		it := hJSON(t, srv, "PATCH", "/v1/items/"+jsonID, map[string]any{"content": map[string]any{"v": float64(2), "w": []any{"x"}}}, http.StatusOK)
		hCheckItem(t, "patched item", it, fid)
		hEqualJSON(t, "json content", it["content"], map[string]any{"v": float64(2), "w": []any{"x"}})
		hEqualJSON(t, "stored json content", hJSON(t, srv, "GET", "/v1/items/"+jsonID, nil, http.StatusOK)["content"], it["content"])
	})
	t.Run("file: name and metadata only", func(t *testing.T) {
		it := hJSON(t, srv, "PATCH", "/v1/items/"+fileID, map[string]any{"name": "g.txt", "metadata": map[string]any{"new": "v"}}, http.StatusOK)
		hCheckItem(t, "patched file", it, fid)
		hEqualJSON(t, "file metadata", it["metadata"], map[string]any{"keep": "me", "new": "v"})
		for _, content := range []any{"replacement", map[string]any{"x": 1}} {
			r := hDo(t, srv, "PATCH", "/v1/items/"+fileID, map[string]any{"content": content})
			hErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "content")
		}
		r := hDo(t, srv, "PATCH", "/v1/items/"+fileID, map[string]any{"content": "x", "name": "should not apply"})
		hErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "content")
		got := hJSON(t, srv, "GET", "/v1/items/"+fileID, nil, http.StatusOK)
		hNull(t, "file item", got, "content")
		if got["name"] != "g.txt" {
			t.Errorf("a refused update changed the name to %v", got["name"])
		}
		if b, _ := srv.ItemBytes(fileID); string(b) != "file bytes" {
			t.Errorf("file bytes changed to %q", b)
		}
	})
	t.Run("bad content for the type", func(t *testing.T) {
		hErr(t, hDo(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"content": map[string]any{"a": 1}}), http.StatusBadRequest, "VALIDATION_ERROR", "content")
		hErr(t, hDo(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"content": nil}), http.StatusBadRequest, "VALIDATION_ERROR", "content")
		hErr(t, hDo(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"metadata": "x"}), http.StatusBadRequest, "VALIDATION_ERROR", "metadata")
		hErr(t, hDo(t, srv, "PATCH", "/v1/items/"+textID, map[string]any{"name": ""}), http.StatusBadRequest, "VALIDATION_ERROR", "name")
	})
}

func TestUnknownItem(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	const nope = "item_doesnotexist000"
	for _, c := range []struct {
		method string
		body   any
	}{{"GET", nil}, {"PATCH", map[string]any{"name": "x"}}, {"DELETE", nil}} {
		t.Run(c.method, func(t *testing.T) {
			hErr(t, hDo(t, srv, c.method, "/v1/items/"+nope, c.body), http.StatusNotFound, "ITEM_NOT_FOUND", nope)
		})
	}
	t.Run("storage", func(t *testing.T) {
		hErr(t, hDo(t, srv, "GET", "/storage/items/"+nope+"/original", nil), http.StatusNotFound, "ITEM_NOT_FOUND")
		hErr(t, hDo(t, srv, "GET", "/storage/items/"+nope+"/text", nil), http.StatusNotFound, "ITEM_NOT_FOUND")
	})
}

func TestDeleteItem(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	pid, fid := hProfile(t, srv, "P")
	it := hObj(t, hUpload(t, srv, fid, "a.txt", []byte("abc")), http.StatusCreated)
	id := it["id"].(string)
	other := hTextItem(t, srv, fid, "b", "keep")

	hNoBody(t, hDo(t, srv, "DELETE", "/v1/items/"+id, nil))
	hErr(t, hDo(t, srv, "GET", "/v1/items/"+id, nil), http.StatusNotFound, "ITEM_NOT_FOUND", id)
	hErr(t, hDo(t, srv, "DELETE", "/v1/items/"+id, nil), http.StatusNotFound, "ITEM_NOT_FOUND", id)
	hErr(t, hFetch(t, srv, it["storageOriginalUrl"].(string), ""), http.StatusNotFound, "ITEM_NOT_FOUND")
	hErr(t, hFetch(t, srv, it["url"].(string), ""), http.StatusNotFound, "ITEM_NOT_FOUND")

	f := hJSON(t, srv, "GET", "/v1/folders/"+fid, nil, http.StatusOK)
	items := hObjs(t, "folder", f, "items")
	if len(items) != 1 || items[0]["id"] != other || f["itemsCount"] != float64(1) {
		t.Errorf("folder after delete = %v", f)
	}
	if p := hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK); p["itemsCount"] != float64(1) {
		t.Errorf("profile itemsCount = %v, want 1", p["itemsCount"])
	}
}

func TestUploadIntoUnknownFolder(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	hErr(t, hUpload(t, srv, "fld_nope", "a.txt", []byte("x")), http.StatusNotFound, "FOLDER_NOT_FOUND", "fld_nope")
}
