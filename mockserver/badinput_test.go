package mockserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestBadInput sends bad input to every endpoint that takes a body or a
// query, and paths that try to leave their segment. Every answer must be
// the document's error body with a status below 500, the expected status
// and code, and a message naming what was wrong; none may redirect; and
// none may change the state.
func TestBadInput(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithMaxJSONBody(1024), mockserver.WithMaxUploadSize(4096), mockserver.WithManualAnalyses())
	pid, def := createProfile(t, srv, "Subject")
	fid := createFolder(t, srv, pid, "Second")
	textID := createTextItem(t, srv, def, "note", "hello")
	fileID := jsonObject(t, upload(t, srv, def, "a.txt", []byte("file")), http.StatusCreated)["id"].(string)
	aid := startAnalysis(t, srv, pid, textID)
	require.NoError(t, srv.CompleteAnalysis(aid))

	const (
		jsonCT = "application/json"
		b400   = http.StatusBadRequest
		v      = "VALIDATION_ERROR"
	)
	big := strings.Repeat("x", 2000)             // over the 1024-byte JSON limit
	bigFile := []byte(strings.Repeat("y", 5000)) // over the 4096-byte upload limit
	target := `{"targetItems":[{"itemId":"` + textID + `"}]`
	mp := func(filename string, data []byte, fields ...[2]string) (string, string) {
		b, ct := multipartBody(t, filename, data, fields...)
		return string(b), ct
	}
	mpNoFile, mpNoFileCT := mp("", nil, [2]string{"name", "x"})
	mpUnknown, mpUnknownCT := mp("a.txt", []byte("a"), [2]string{"colour", "red"})
	mpMeta, mpMetaCT := mp("a.txt", []byte("a"), [2]string{"metadata", `"not an object"`})
	mpMetaArr, mpMetaArrCT := mp("a.txt", []byte("a"), [2]string{"metadata", `[1,2]`})
	mpName, mpNameCT := mp("a.txt", []byte("a"), [2]string{"name", strings.Repeat("n", 256)})
	mpEmptyName, mpEmptyNameCT := mp("a.txt", []byte("a"), [2]string{"name", ""})
	mpBig, mpBigCT := mp("big.txt", bigFile)
	mpTrunc, mpTruncCT := mp("a.txt", []byte("abc"))
	mpTrunc = mpTrunc[:len(mpTrunc)-10]

	profiles := "/v1/workflows/wf_default/profiles"
	profile := "/v1/profiles/" + pid
	folders := "/v1/profiles/" + pid + "/folders"
	folder := "/v1/folders/" + fid
	items := "/v1/folders/" + def + "/items"
	item := "/v1/items/" + textID
	analyze := "/v1/analyses/" + pid + "/analyze"
	analysis := "/v1/analyses/" + aid
	analyses := "/v1/profiles/" + pid + "/analyses"

	cases := []struct {
		name         string
		method, path string
		ctype, body  string
		rawTCP       bool // sent over a bare connection, byte for byte
		status       int
		code         string
		msg          string // a part of the message, naming what was wrong
	}{
		// POST /v1/workflows/{workflowId}/profiles
		{"create profile: malformed JSON", "POST", profiles, jsonCT, `{"name":`, false, b400, v, "JSON"},
		{"create profile: not JSON at all", "POST", profiles, jsonCT, `name=x`, false, b400, v, "JSON"},
		{"create profile: unquoted key", "POST", profiles, jsonCT, `{name:"x"}`, false, b400, v, "JSON"},
		{"create profile: name a number", "POST", profiles, jsonCT, `{"name":5}`, false, b400, v, "name"},
		{"create profile: description a number", "POST", profiles, jsonCT, `{"name":"a","description":1}`, false, b400, v, "description"},
		{"create profile: metadata a string", "POST", profiles, jsonCT, `{"name":"a","metadata":"m"}`, false, b400, v, "metadata"},
		{"create profile: metadata an array", "POST", profiles, jsonCT, `{"name":"a","metadata":[1]}`, false, b400, v, "metadata"},
		{"create profile: unknown field", "POST", profiles, jsonCT, `{"name":"a","nmae":"b"}`, false, b400, v, "nmae"},
		{"create profile: field name in another case", "POST", profiles, jsonCT, `{"Name":" "}`, false, b400, v, "unknown field"},
		{"create profile: second JSON value", "POST", profiles, jsonCT, `{"name":"a"} {"name":"b"}`, false, b400, v, "JSON"},
		{"create profile: trailing garbage", "POST", profiles, jsonCT, `{"name":"a"}x`, false, b400, v, "JSON"},
		{"create profile: trailing brace", "POST", profiles, jsonCT, `{"name":"a"}}`, false, b400, v, "after"},
		{"create profile: array body", "POST", profiles, jsonCT, `[{"name":"a"}]`, false, b400, v, "object"},
		{"create profile: null body", "POST", profiles, jsonCT, `null`, false, b400, v, "object"},
		{"create profile: empty body", "POST", profiles, jsonCT, ``, false, b400, v, "empty"},
		{"create profile: missing name", "POST", profiles, jsonCT, `{"description":"d"}`, false, b400, v, "name"},
		{"create profile: 256-character name", "POST", profiles, jsonCT, `{"name":"` + strings.Repeat("가", 256) + `"}`, false, b400, v, "name"},
		{"create profile: text/plain", "POST", profiles, "text/plain", `{"name":"a"}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create profile: form encoded", "POST", profiles, "application/x-www-form-urlencoded", `name=a`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create profile: no Content-Type", "POST", profiles, "", `{"name":"a"}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create profile: unparsable Content-Type", "POST", profiles, "application/json; ===", `{"name":"a"}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create profile: over the JSON limit", "POST", profiles, jsonCT, `{"name":"a","description":"` + big + `"}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},

		// GET /v1/workflows/{workflowId}/profiles
		{"list profiles: limit 0", "GET", profiles + "?limit=0", "", "", false, b400, v, "limit"},
		{"list profiles: limit x", "GET", profiles + "?limit=x", "", "", false, b400, v, "limit"},
		{"list profiles: sort size", "GET", profiles + "?sort=size", "", "", false, b400, v, "sort"},
		{"list profiles: order up", "GET", profiles + "?order=up", "", "", false, b400, v, "order"},
		{"list profiles: bad cursor", "GET", profiles + "?cursor=bad!", "", "", false, b400, v, "cursor"},
		{"list profiles: long search", "GET", profiles + "?search=" + strings.Repeat("s", 256), "", "", false, b400, v, "search"},
		{"list profiles: unknown parameter", "GET", profiles + "?page=2", "", "", false, b400, v, "page"},
		{"list profiles: invalid percent-escape", "GET", profiles + "?cursor=%zz", "", "", false, b400, v, "%zz"},

		// PATCH /v1/profiles/{profileId}
		{"update profile: malformed JSON", "PATCH", profile, jsonCT, `{"name"`, false, b400, v, "JSON"},
		{"update profile: name a number", "PATCH", profile, jsonCT, `{"name":5}`, false, b400, v, "name"},
		{"update profile: name null", "PATCH", profile, jsonCT, `{"name":null}`, false, b400, v, "name"},
		{"update profile: metadata an array", "PATCH", profile, jsonCT, `{"metadata":[1]}`, false, b400, v, "metadata"},
		{"update profile: description an object", "PATCH", profile, jsonCT, `{"description":{}}`, false, b400, v, "description"},
		{"update profile: unknown field", "PATCH", profile, jsonCT, `{"folders":[]}`, false, b400, v, "folders"},
		{"update profile: field name in another case", "PATCH", profile, jsonCT, `{"NAME":""}`, false, b400, v, "unknown field"},
		{"update profile: trailing data", "PATCH", profile, jsonCT, `{}{}`, false, b400, v, "JSON"},
		{"update profile: null body", "PATCH", profile, jsonCT, `null`, false, b400, v, "object"},
		{"update profile: empty name", "PATCH", profile, jsonCT, `{"name":""}`, false, b400, v, "name"},
		{"update profile: 256-character name", "PATCH", profile, jsonCT, `{"name":"` + strings.Repeat("a", 256) + `"}`, false, b400, v, "name"},
		{"update profile: text/plain", "PATCH", profile, "text/plain", `{}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"update profile: over the JSON limit", "PATCH", profile, jsonCT, `{"description":"` + big + `"}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},

		// POST and GET /v1/profiles/{profileId}/folders
		{"create folder: malformed JSON", "POST", folders, jsonCT, `{`, false, b400, v, "JSON"},
		{"create folder: name an array", "POST", folders, jsonCT, `{"name":["a"]}`, false, b400, v, "name"},
		{"create folder: missing name", "POST", folders, jsonCT, `{}`, false, b400, v, "name"},
		{"create folder: whitespace name", "POST", folders, jsonCT, `{"name":"   "}`, false, b400, v, "name"},
		{"create folder: 256-character name", "POST", folders, jsonCT, `{"name":"` + strings.Repeat("f", 256) + `"}`, false, b400, v, "name"},
		{"create folder: unknown field", "POST", folders, jsonCT, `{"name":"a","isDefault":true}`, false, b400, v, "isDefault"},
		{"create folder: text/plain", "POST", folders, "text/plain", `{"name":"a"}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create folder: over the JSON limit", "POST", folders, jsonCT, `{"name":"` + big + `"}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},
		{"list folders: limit 101", "GET", folders + "?limit=101", "", "", false, b400, v, "limit"},
		{"list folders: limit -1", "GET", folders + "?limit=-1", "", "", false, b400, v, "limit"},
		{"list folders: limit 10.0", "GET", folders + "?limit=10.0", "", "", false, b400, v, "limit"},
		{"list folders: limit 10.5", "GET", folders + "?limit=10.5", "", "", false, b400, v, "limit"},
		{"list folders: limit given twice", "GET", folders + "?limit=1&limit=2", "", "", false, b400, v, "limit"},
		{"list folders: sort bogus", "GET", folders + "?sort=bogus", "", "", false, b400, v, "sort"},
		{"list folders: order sideways", "GET", folders + "?order=sideways", "", "", false, b400, v, "order"},
		{"list folders: cursor garbage", "GET", folders + "?cursor=garbage!!", "", "", false, b400, v, "cursor"},
		{"list folders: long search", "GET", folders + "?search=" + strings.Repeat("s", 300), "", "", false, b400, v, "search"},
		{"list folders: unknown parameter", "GET", folders + "?q=x", "", "", false, b400, v, "q"},

		// PATCH /v1/folders/{folderId}
		{"rename folder: malformed JSON", "PATCH", folder, jsonCT, `{"name":"a"`, false, b400, v, "JSON"},
		{"rename folder: name a boolean", "PATCH", folder, jsonCT, `{"name":true}`, false, b400, v, "name"},
		{"rename folder: missing name", "PATCH", folder, jsonCT, `{}`, false, b400, v, "name"},
		{"rename folder: 256-character name", "PATCH", folder, jsonCT, `{"name":"` + strings.Repeat("r", 256) + `"}`, false, b400, v, "name"},
		{"rename folder: unknown field", "PATCH", folder, jsonCT, `{"name":"a","profileId":"x"}`, false, b400, v, "profileId"},
		{"rename folder: text/plain", "PATCH", folder, "text/plain", `{"name":"a"}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"rename folder: over the JSON limit", "PATCH", folder, jsonCT, `{"name":"` + big + `"}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},

		// POST /v1/folders/{folderId}/items
		{"create item: malformed JSON", "POST", items, jsonCT, `{"type":"text",`, false, b400, v, "JSON"},
		{"create item: type a number", "POST", items, jsonCT, `{"type":5,"content":"x"}`, false, b400, v, "type"},
		{"create item: type file as JSON", "POST", items, jsonCT, `{"type":"file","content":"x"}`, false, b400, v, "type"},
		{"create item: missing type", "POST", items, jsonCT, `{"content":"x"}`, false, b400, v, "type"},
		{"create item: missing content", "POST", items, jsonCT, `{"type":"text"}`, false, b400, v, "content"},
		{"create item: text content a number", "POST", items, jsonCT, `{"type":"text","content":5}`, false, b400, v, "content"},
		{"create item: JSON content an array", "POST", items, jsonCT, `{"type":"json","content":[1,2]}`, false, b400, v, "content"},
		{"create item: JSON content a string", "POST", items, jsonCT, `{"type":"json","content":"x"}`, false, b400, v, "content"},
		{"create item: name a number", "POST", items, jsonCT, `{"type":"text","content":"x","name":1}`, false, b400, v, "name"},
		{"create item: 256-character name", "POST", items, jsonCT, `{"type":"text","content":"x","name":"` + strings.Repeat("i", 256) + `"}`, false, b400, v, "name"},
		{"create item: unknown field", "POST", items, jsonCT, `{"type":"text","content":"x","status":"ACTIVE"}`, false, b400, v, "status"},
		{"create item: field name in another case", "POST", items, jsonCT, `{"Type":"bogus","content":"x"}`, false, b400, v, "unknown field"},
		{"create item: text/plain", "POST", items, "text/plain", `hello`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create item: no Content-Type", "POST", items, "", `hello`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"create item: over the JSON limit", "POST", items, jsonCT, `{"type":"text","content":"` + big + `"}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},
		{"upload: no file part", "POST", items, mpNoFileCT, mpNoFile, false, b400, v, "file"},
		{"upload: unknown field", "POST", items, mpUnknownCT, mpUnknown, false, b400, v, "colour"},
		{"upload: metadata a string", "POST", items, mpMetaCT, mpMeta, false, b400, v, "metadata"},
		{"upload: metadata an array", "POST", items, mpMetaArrCT, mpMetaArr, false, b400, v, "metadata"},
		{"upload: 256-character name", "POST", items, mpNameCT, mpName, false, b400, v, "name"},
		{"upload: empty name", "POST", items, mpEmptyNameCT, mpEmptyName, false, b400, v, "name"},
		{"upload: no boundary", "POST", items, "multipart/form-data", mpTrunc, false, b400, v, "multipart"},
		{"upload: truncated body", "POST", items, mpTruncCT, mpTrunc, false, b400, v, "multipart"},
		{"upload: over the upload limit", "POST", items, mpBigCT, mpBig, false, 413, "PAYLOAD_TOO_LARGE", "limit"},

		// PATCH /v1/items/{itemId}
		{"update item: malformed JSON", "PATCH", item, jsonCT, `{"metadata":{}`, false, b400, v, "JSON"},
		{"update item: metadata a string", "PATCH", item, jsonCT, `{"metadata":"x"}`, false, b400, v, "metadata"},
		{"update item: metadata null", "PATCH", item, jsonCT, `{"metadata":null}`, false, b400, v, "metadata"},
		{"update item: null body", "PATCH", item, jsonCT, `null`, false, b400, v, "object"},
		{"update item: name a number", "PATCH", item, jsonCT, `{"name":5}`, false, b400, v, "name"},
		{"update item: text content an object", "PATCH", item, jsonCT, `{"content":{"a":1}}`, false, b400, v, "content"},
		{"update item: content of a file", "PATCH", "/v1/items/" + fileID, jsonCT, `{"content":"x"}`, false, b400, v, "content"},
		{"update item: unknown field", "PATCH", item, jsonCT, `{"type":"json"}`, false, b400, v, "type"},
		{"update item: field name in another case", "PATCH", item, jsonCT, `{"Content":{"a":1}}`, false, b400, v, "unknown field"},
		{"update item: 256-character name", "PATCH", item, jsonCT, `{"name":"` + strings.Repeat("n", 256) + `"}`, false, b400, v, "name"},
		{"update item: text/plain", "PATCH", item, "text/plain", `{}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"update item: over the JSON limit", "PATCH", item, jsonCT, `{"content":"` + big + `"}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},

		// POST /v1/analyses/{profileId}/analyze
		{"analyze: malformed JSON", "POST", analyze, jsonCT, `{"targetItems":[`, false, b400, v, "JSON"},
		{"analyze: targetItems a string", "POST", analyze, jsonCT, `{"targetItems":"x"}`, false, b400, v, "targetItems"},
		{"analyze: itemId a number", "POST", analyze, jsonCT, `{"targetItems":[{"itemId":5}]}`, false, b400, v, "itemId"},
		{"analyze: entry a string", "POST", analyze, jsonCT, `{"targetItems":["` + textID + `"]}`, false, b400, v, "targetItems"},
		{"analyze: options a string", "POST", analyze, jsonCT, target + `,"options":"x"}`, false, b400, v, "options"},
		{"analyze: clientMetadata a number", "POST", analyze, jsonCT, target + `,"clientMetadata":1}`, false, b400, v, "clientMetadata"},
		{"analyze: unknown field", "POST", analyze, jsonCT, target + `,"engineId":"e"}`, false, b400, v, "engineId"},
		{"analyze: unknown field in an entry", "POST", analyze, jsonCT, `{"targetItems":[{"itemId":"` + textID + `","id":"x"}]}`, false, b400, v, "id"},
		{"analyze: field name in another case", "POST", analyze, jsonCT, `{"TargetItems":[{"itemId":"item_nope"}]}`, false, b400, v, "unknown field"},
		{"analyze: entry field name in another case", "POST", analyze, jsonCT, `{"targetItems":[{"ItemId":"item_nope"}]}`, false, b400, v, "unknown field"},
		{"analyze: trailing data", "POST", analyze, jsonCT, target + `}[]`, false, b400, v, "JSON"},
		{"analyze: missing targetItems", "POST", analyze, jsonCT, `{}`, false, b400, v, "targetItems"},
		{"analyze: empty targetItems", "POST", analyze, jsonCT, `{"targetItems":[]}`, false, b400, v, "targetItems"},
		{"analyze: entry without itemId", "POST", analyze, jsonCT, `{"targetItems":[{}]}`, false, b400, v, "targetItems[0].itemId"},
		{"analyze: empty itemId", "POST", analyze, jsonCT, `{"targetItems":[{"itemId":"` + textID + `"},{"itemId":""}]}`, false, b400, v, "targetItems[1].itemId"},
		{"analyze: text/plain", "POST", analyze, "text/plain", target + `}`, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"analyze: multipart", "POST", analyze, mpUnknownCT, mpUnknown, false, 415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type"},
		{"analyze: over the JSON limit", "POST", analyze, jsonCT, target + `,"clientMetadata":{"x":"` + big + `"}}`, false, 413, "PAYLOAD_TOO_LARGE", "limit"},

		// GET /v1/analyses/{analysisId}, its report, and a profile's analyses
		{"get analysis: waitForReport maybe", "GET", analysis + "?waitForReport=maybe", "", "", false, b400, v, "waitForReport"},
		{"get analysis: timeoutSeconds 5", "GET", analysis + "?waitForReport=true&timeoutSeconds=5", "", "", false, b400, v, "timeoutSeconds"},
		{"get analysis: timeoutSeconds 1000", "GET", analysis + "?waitForReport=true&timeoutSeconds=1000", "", "", false, b400, v, "timeoutSeconds"},
		{"get analysis: timeoutSeconds ten", "GET", analysis + "?waitForReport=true&timeoutSeconds=ten", "", "", false, b400, v, "timeoutSeconds"},
		{"get analysis: unknown parameter", "GET", analysis + "?include=all", "", "", false, b400, v, "include"},
		{"report: locale fr", "GET", analysis + "/report?locale=fr", "", "", false, b400, v, "locale"},
		{"report: includeRawData 1", "GET", analysis + "/report?includeRawData=1", "", "", false, b400, v, "includeRawData"},
		{"report: unknown parameter", "GET", analysis + "/report?download=1", "", "", false, b400, v, "download"},
		{"list analyses: limit 0", "GET", analyses + "?limit=0", "", "", false, b400, v, "limit"},
		{"list analyses: sort (not offered)", "GET", analyses + "?sort=name", "", "", false, b400, v, "sort"},
		{"list analyses: bad cursor", "GET", analyses + "?cursor=%7B%7D", "", "", false, b400, v, "cursor"},

		// Unknown routes and wrong methods.
		{"unknown route", "GET", "/v1/nothing", "", "", false, 404, "NOT_FOUND", "/v1/nothing"},
		{"unknown version", "GET", "/v2/profiles/" + pid, "", "", false, 404, "NOT_FOUND", "/v2"},
		{"trailing slash", "GET", profile + "/", "", "", false, 404, "NOT_FOUND", "no route"},
		{"empty ID segment", "GET", "/v1/profiles//folders", "", "", false, 404, "NOT_FOUND", "no route"},
		{"PUT a profile", "PUT", profile, jsonCT, `{"name":"a"}`, false, 405, "METHOD_NOT_ALLOWED", "PUT"},
		{"POST an item", "POST", item, jsonCT, `{}`, false, 405, "METHOD_NOT_ALLOWED", "POST"},
		{"DELETE the profile list", "DELETE", profiles, "", "", false, 405, "METHOD_NOT_ALLOWED", "DELETE"},
		{"PATCH an analysis", "PATCH", analysis, jsonCT, `{}`, false, 405, "METHOD_NOT_ALLOWED", "PATCH"},
		{"GET analyze", "GET", analyze, "", "", false, 405, "METHOD_NOT_ALLOWED", "GET"},
		{"DELETE a report", "DELETE", analysis + "/report", "", "", false, 405, "METHOD_NOT_ALLOWED", "DELETE"},
		{"HEAD a folder list: answered as GET, without a body", "HEAD", folders, "", "", false, 200, "", ""},

		// Path IDs are opaque segments: no escape, no cleaning, no redirect.
		{"encoded slash and .. in a folder ID", "GET", "/v1/folders/..%2Fprofiles%2F" + pid, "", "", false, 404, "SVC_3009", "../profiles/" + pid},
		{"encoded dots and slash in a folder ID", "GET", "/v1/folders/%2E%2E%2Fprofiles%2F" + pid, "", "", false, 404, "SVC_3009", "profiles/" + pid},
		{"encoded slash in a profile ID", "GET", "/v1/profiles/" + pid + "%2Ffolders", "", "", false, 404, "PROFILE_NOT_FOUND", pid + "/folders"},
		{"encoded slash in an item ID", "GET", "/v1/items/..%2F..%2Fprofiles%2F" + pid, "", "", false, 404, "ITEM_NOT_FOUND", "profiles/" + pid},
		{"encoded slash in an analysis ID", "GET", "/v1/analyses/" + aid + "%2Freport", "", "", false, 404, "ANALYSIS_NOT_FOUND", aid + "/report"},
		{"dot-dot segment after an item", "GET", "/v1/items/../profiles/" + pid, "", "", false, 404, "NOT_FOUND", "no route"},
		{"dot-dot segment after a profile", "GET", "/v1/profiles/" + pid + "/../" + pid, "", "", false, 404, "NOT_FOUND", "no route"},
		{"dot segment", "GET", "/v1/./profiles/" + pid, "", "", false, 404, "NOT_FOUND", "no route"},
		{"dot-dot as a profile ID", "GET", "/v1/profiles/..", "", "", false, 404, "PROFILE_NOT_FOUND", ".."},
		{"encoded dot-dot as a profile ID", "PATCH", "/v1/profiles/%2e%2e", jsonCT, `{"name":"x"}`, false, 404, "PROFILE_NOT_FOUND", ".."},
		{"dot as a folder ID", "GET", "/v1/folders/.", "", "", false, 404, "SVC_3009", `"."`},
		{"delete through an encoded slash", "DELETE", "/v1/folders/..%2Ffolders%2F" + fid, "", "", false, 404, "FOLDER_NOT_FOUND", fid},
		{"delete an item through ..", "DELETE", "/v1/items/" + textID + "%2F..", "", "", false, 404, "ITEM_NOT_FOUND", textID},
		{"delete a profile through ..", "DELETE", "/v1/folders/" + fid + "/../../profiles/" + pid, "", "", false, 404, "NOT_FOUND", "no route"},
		{"double leading slash", "GET", "//v1/profiles/" + pid, "", "", true, 404, "NOT_FOUND", "no route"},
		{"double inner slash", "GET", "/v1//profiles/" + pid, "", "", true, 404, "NOT_FOUND", "no route"},
		{"raw dot-dot over the wire", "GET", "/v1/items/../../v1/profiles/" + pid, "", "", true, 404, "NOT_FOUND", "no route"},
		{"storage through ..", "GET", "/storage/items/../../v1/profiles/" + pid, "", "", true, 404, "NOT_FOUND", "no route"},
		{"control API through an encoded slash", "POST", "/_mock/items/" + textID + "%2F..%2F..%2Freset/status", jsonCT, `{"status":"FAILED"}`, false, 404, "ITEM_NOT_FOUND", "reset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r *response
			if c.rawTCP {
				r = sendRaw(t, srv, c.method, c.path, map[string]string{"x-api-key": srv.APIKey})
			} else {
				var body []byte
				if c.body != "" || c.ctype != "" {
					body = []byte(c.body)
				}
				r = send(t, srv, request{Method: c.method, Path: c.path, ContentType: c.ctype, Body: body})
			}
			require.Less(t, r.Status, 500, "server error: %s", r)
			require.False(t, r.Status >= 300 && r.Status < 400 || r.Header.Get("Location") != "", "redirect: %d to %q", r.Status, r.Header.Get("Location"))
			if c.method == "HEAD" {
				assert.Equal(t, c.status, r.Status, "status")
				assert.Empty(t, r.Body, "a HEAD answer has no body")
				assert.Equal(t, "application/json; charset=utf-8", r.Header.Get("Content-Type"), "the GET's Content-Type")
				return
			}
			wantError(t, r, c.status, c.code, c.msg)
		})
	}

	// None of it changed anything.
	t.Run("state unchanged", func(t *testing.T) {
		assert.Len(t, srv.Profiles(), 1, "profiles")
		p := doJSON(t, srv, "GET", profile, nil, http.StatusOK)
		assert.True(t, p["name"] == "Subject" && p["itemsCount"] == float64(2), "profile = %v", p)
		f := doJSON(t, srv, "GET", folder, nil, http.StatusOK)
		assert.Equal(t, "Second", f["name"], "folder = %v", f)
		it := doJSON(t, srv, "GET", item, nil, http.StatusOK)
		assert.True(t, it["name"] == "note" && it["content"] == "hello" && it["status"] == "ACTIVE", "item = %v", it)
		wantSameJSON(t, "item metadata", it["metadata"], map[string]any{})
		assert.Len(t, srv.Analyses(pid), 1, "analyses")
		d := doJSON(t, srv, "GET", "/v1/folders/"+def, nil, http.StatusOK)
		assert.Len(t, arrayField(t, "default folder", d, "items"), 2, "items of the default folder")
	})
}
