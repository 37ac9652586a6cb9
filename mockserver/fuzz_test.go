package mockserver_test

// Fuzz targets of the mock's request decoding: JSON bodies, listing
// cursors, multipart uploads and path IDs. Whatever arrives, the mock never
// answers 5xx, never redirects, answers every error with the service's
// error body, and never reaches a resource other than the one named. Each
// target starts one server, outside f.Fuzz, and puts it back to a fixed
// state (Reset and a seed with fixed IDs) where an input may have changed
// it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// The fixed IDs of the fuzz targets' state.
const (
	fixedProfile      = "pf_fuzz"
	fixedOtherProfile = "pf_fuzzother"
	fixedFolder       = "fld_fuzz"
	fixedOtherFolder  = "fld_fuzzother"
	fixedTextItem     = "item_fuzztext"
	fixedJSONItem     = "item_fuzzjson"
	fixedFileItem     = "item_fuzzfile"
	fixedOtherItem    = "item_fuzzother"
)

// fixedSeed is the state every fuzz target starts from: two profiles, a
// second folder in each, and a text, a JSON and a file item.
func fixedSeed() *mockserver.Seed {
	return &mockserver.Seed{Profiles: []mockserver.SeedProfile{
		{ID: fixedProfile, Name: "Fuzz", Folders: []mockserver.SeedFolder{
			{Name: "default", Items: []mockserver.SeedItem{
				{ID: fixedTextItem, Type: profilesvc.ItemText, Name: "passport", Content: json.RawMessage(`"PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12"`)},
				{ID: fixedJSONItem, Type: profilesvc.ItemJSON, Name: "data", Content: json.RawMessage(`{"full_name":"Jane Doe"}`)},
				{ID: fixedFileItem, Type: profilesvc.ItemFile, Name: "scan.txt", Data: []byte("Full Name: Jane Doe\n")},
			}},
			{ID: fixedFolder, Name: "Second"},
		}},
		{ID: fixedOtherProfile, Name: "Other", Folders: []mockserver.SeedFolder{
			{ID: fixedOtherFolder, Name: "Other folder", Items: []mockserver.SeedItem{
				{ID: fixedOtherItem, Type: profilesvc.ItemText, Name: "other", Content: json.RawMessage(`"Full Name: John Roe"`)},
			}},
		}},
	}}
}

// fuzzEnv is a fuzz target's server and client.
type fuzzEnv struct {
	srv *mockserver.Server
	hc  *http.Client

	mu sync.Mutex
	// input is the input being run, which a disagreement with
	// api/openapi.yaml fails; stray keeps those that came with none.
	input *testing.T
	stray []error
}

// startFuzzEnv starts the server of a fuzz target, with small body limits so
// that inputs reach them, and loads the fixed state. The server holds its
// exchanges to api/openapi.yaml, as NewTest's do, but fails the input that
// caused a disagreement rather than f, which cannot fail inside the fuzz
// target: each target's function calls e.run(t) first.
func startFuzzEnv(f *testing.F, opts ...mockserver.Option) *fuzzEnv {
	f.Helper()
	e := &fuzzEnv{hc: newHTTPClient(f)}
	all := append([]mockserver.Option{
		mockserver.WithManualAnalyses(),
		mockserver.WithRequestRecordSize(8),
		mockserver.WithMaxJSONBody(2048),
		mockserver.WithMaxUploadSize(4096),
		mockserver.WithOpenAPICheck(e.disagrees),
	}, opts...)
	e.srv = mockserver.NewTest(f, all...)
	f.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, err := range e.stray {
			f.Errorf("mockserver: the mock's exchange disagrees with api/openapi.yaml: %v", err)
		}
	})
	require.NoError(f, e.reset())
	return e
}

// run makes t the input that disagreements fail, until it ends.
func (e *fuzzEnv) run(t *testing.T) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.input = t
	t.Cleanup(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.input = nil
	})
}

// disagrees fails the input being run with a disagreement of the mock's
// exchange with api/openapi.yaml.
func (e *fuzzEnv) disagrees(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.input == nil {
		e.stray = append(e.stray, err)
		return
	}
	e.input.Errorf("mockserver: the mock's exchange disagrees with api/openapi.yaml: %v", err)
}

// reset puts the server back to the fixed state.
func (e *fuzzEnv) reset() error {
	e.srv.Reset()
	return e.srv.LoadSeed(fixedSeed())
}

// analysis starts an analysis of the fixed profile, completed unless
// pending is set, and returns its ID.
func (e *fuzzEnv) analysis(pending bool) (string, error) {
	r, err := sendWith(e.hc, e.srv, request{Method: "POST", Path: "/v1/analyses/" + fixedProfile + "/analyze", JSON: targets(fixedTextItem, fixedJSONItem)})
	if err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	if r.Status != http.StatusAccepted || json.Unmarshal(r.Body, &out) != nil {
		return "", fmt.Errorf("starting the fixture's analysis: %s", r)
	}
	if !pending {
		if err := e.srv.CompleteAnalysis(out.ID); err != nil {
			return "", err
		}
	}
	return out.ID, nil
}

// send sends one request with a raw, already escaped path and query.
func (e *fuzzEnv) send(method, rawPath, contentType string, body []byte) (*response, error) {
	return sendWith(e.hc, e.srv, request{Method: method, Path: rawPath, ContentType: contentType, Body: body})
}

// checkFuzzAnswer fails the input unless the answer is below 500, not a
// redirect, and, for an error, the service's error body; a successful JSON
// answer must be JSON.
func checkFuzzAnswer(t *testing.T, what string, r *response) {
	t.Helper()
	require.Less(t, r.Status, 500, "%s: server error %s", what, r)
	require.False(t, r.Status >= 300 && r.Status < 400 || r.Header.Get("Location") != "", "%s: redirect %d to %q", what, r.Status, r.Header.Get("Location"))
	if r.Status >= 400 {
		require.NoError(t, errorShape(r), what)
		return
	}
	require.False(t, strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") && !json.Valid(r.Body), "%s: a %d answer that is not JSON: %s", what, r.Status, r)
}

// jsonEndpoint is an endpoint that takes a JSON body.
type jsonEndpoint struct {
	method, path string
	// analysis: the path names the fixture's analysis ({a}), which must be
	// pending for the call to succeed.
	analysis bool
}

// jsonEndpoints lists every endpoint that decodes a JSON body: the
// service's, then the control API's.
var jsonEndpoints = []jsonEndpoint{
	{"POST", "/v1/workflows/wf_default/profiles", false},
	{"PATCH", "/v1/profiles/" + fixedProfile, false},
	{"POST", "/v1/profiles/" + fixedProfile + "/folders", false},
	{"PATCH", "/v1/folders/" + fixedFolder, false},
	{"POST", "/v1/folders/" + fixedFolder + "/items", false},
	{"PATCH", "/v1/items/" + fixedTextItem, false},
	{"PATCH", "/v1/items/" + fixedJSONItem, false},
	{"PATCH", "/v1/items/" + fixedFileItem, false},
	{"POST", "/v1/analyses/" + fixedProfile + "/analyze", false},
	{"POST", "/_mock/workflows", false},
	{"POST", "/_mock/seed", false},
	{"POST", "/_mock/items/" + fixedTextItem + "/status", false},
	{"POST", "/_mock/analyses/{a}/fail", true},
	{"POST", "/_mock/analyses/{a}/verification", true},
	{"POST", "/_mock/faults", false},
}

// FuzzJSONBodies sends arbitrary bytes as application/json to every
// endpoint that takes a JSON body.
func FuzzJSONBodies(f *testing.F) {
	e := startFuzzEnv(f)
	for i := range jsonEndpoints {
		for _, body := range []string{
			`{}`, `{"name":"x"}`, `{"name":"x","description":"d","metadata":{"a":1}}`,
			`{"type":"text","content":"hello","name":"n","metadata":{}}`, `{"type":"json","content":{"a":[1,2]}}`,
			`{"content":"new"}`, `{"content":{"a":1}}`, `{"metadata":{"k":"v"},"name":"renamed"}`,
			`{"targetItems":[{"itemId":"` + fixedTextItem + `"}],"options":{"o":1},"clientMetadata":{"c":"x"}}`,
			`{"id":"wf_fuzz","name":"W","outputSchema":{"type":"object","properties":{"full_name":{"type":"string"}}},"policy":[{"actionName":"a","category":"c","query":"q"}]}`,
			`{"profiles":[{"name":"S","folders":[{"name":"F","items":[{"type":"file","name":"f.txt","data":"aGVsbG8="}]}]}]}`,
			`{"status":"FAILED"}`, `{"error":"it broke"}`, `{"verificationStatus":"approved"}`,
			`{"method":"GET","path":"/v1/profiles/*","status":503,"retryAfterSeconds":1,"times":1,"probability":0.5}`,
			`{"method":"GET","delayMs":1,"drop":true}`,
			`{"name":null}`, `{"Name":"x"}`, `[]`, `null`, `"x"`, `{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
		} {
			f.Add(uint8(i), []byte(body))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		e.run(t)
		ep := jsonEndpoints[int(which)%len(jsonEndpoints)]
		require.NoError(t, e.reset())
		path := ep.path
		if ep.analysis {
			id, err := e.analysis(true)
			require.NoError(t, err)
			path = strings.Replace(path, "{a}", id, 1)
		}
		r, err := e.send(ep.method, path, "application/json", body)
		require.NoError(t, err, "%s %s", ep.method, path)
		checkFuzzAnswer(t, ep.method+" "+path, r)
	})
}

// listings are the listings that take a cursor.
var listings = []string{
	"/v1/workflows/wf_default/profiles",
	"/v1/profiles/" + fixedProfile + "/folders",
	"/v1/profiles/" + fixedProfile + "/analyses",
}

// cursorQuery builds a listing's query around a cursor: variant picks
// the other parameters, and whether the cursor is escaped as a query value
// or sent as it is (only what cannot be sent at all escaped), so that
// malformed escapes, "&", "=" and ";" reach the server's parser.
func cursorQuery(variant uint8, cursor string) string {
	extras := []string{"", "limit=1", "limit=2&sort=name&order=asc", "sort=updatedAt", "order=desc", "search=f", "limit=1&search=", "limit=100&sort=createdAt&order=asc"}
	q := extras[int(variant&7)]
	c := url.QueryEscape(cursor)
	if variant&8 != 0 {
		var b strings.Builder
		for i := 0; i < len(cursor); i++ {
			ch := cursor[i]
			if ch <= ' ' || ch >= 0x7f || ch == '#' {
				fmt.Fprintf(&b, "%%%02X", ch)
			} else {
				b.WriteByte(ch)
			}
		}
		c = b.String()
	}
	if q != "" {
		q += "&"
	}
	return "?" + q + "cursor=" + c
}

// FuzzCursor sends arbitrary cursors to the listings of profiles, folders
// and analyses, among their other parameters; the seeds include the
// cursors the server itself made for each listing.
func FuzzCursor(f *testing.F) {
	e := startFuzzEnv(f)
	for i := range 4 {
		_, err := e.srv.CreateFolder(fixedProfile, fmt.Sprintf("extra %d", i))
		require.NoError(f, err)
		_, err = e.srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: fmt.Sprintf("Extra %d", i)})
		require.NoError(f, err)
	}
	for range 3 {
		_, err := e.analysis(false)
		require.NoError(f, err)
	}
	// The server's own cursors: valid for their listing, foreign to the
	// others.
	for li, path := range listings {
		for _, q := range []string{"?limit=1", "?limit=2&sort=name&order=asc"} {
			if li == 2 && strings.Contains(q, "sort") {
				continue
			}
			r, err := e.send("GET", path+q, "", nil)
			var page struct {
				NextCursor *string `json:"nextCursor"`
			}
			require.True(f, err == nil && r.Status == http.StatusOK && json.Unmarshal(r.Body, &page) == nil && page.NextCursor != nil,
				"GET %s%s: %s %v: want a page with a next cursor", path, q, r, err)
			for target := range listings {
				f.Add(uint8(target), uint8(1), *page.NextCursor)
				f.Add(uint8(target), uint8(2), *page.NextCursor)
				f.Add(uint8(target), uint8(8), *page.NextCursor)
			}
			body, sig, _ := strings.Cut(*page.NextCursor, ".")
			f.Add(uint8(li), uint8(0), body+"."+sig[:len(sig)/2])
			f.Add(uint8(li), uint8(0), body)
		}
	}
	for _, c := range []string{"", ".", "..", "a.b", "!!!", "%zz", "%", "a&limit=0", "x;y", "e30.AAAA", strings.Repeat("A", 3000) + ".x", "\x00\xff", "eyJsIjoiZm9sZGVyczpwZl9mdXp6In0.e30"} {
		for li := range listings {
			f.Add(uint8(li), uint8(0), c)
			f.Add(uint8(li), uint8(8), c)
		}
	}
	f.Fuzz(func(t *testing.T, which, variant uint8, cursor string) {
		e.run(t)
		path := listings[int(which)%len(listings)] + cursorQuery(variant, cursor)
		r, err := e.send("GET", path, "", nil)
		require.NoError(t, err, "GET %s", path)
		checkFuzzAnswer(t, "GET "+path, r)
	})
}

// sendableHeader reports whether Go's client can send v as a header
// value at all.
func sendableHeader(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// FuzzMultipartUpload sends arbitrary multipart bodies with arbitrary
// boundaries to the upload endpoint.
func FuzzMultipartUpload(f *testing.F) {
	e := startFuzzEnv(f)
	build := func(boundary string, parts ...[3]string) []byte {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		if boundary != "" {
			require.NoError(f, mw.SetBoundary(boundary))
		}
		for _, p := range parts {
			h := make(textproto.MIMEHeader)
			if p[1] != "" {
				h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p[0], p[1]))
				h.Set("Content-Type", "application/octet-stream")
			} else {
				h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p[0]))
			}
			w, _ := mw.CreatePart(h)
			_, _ = w.Write([]byte(p[2]))
		}
		_ = mw.Close()
		return buf.Bytes()
	}
	const b = "fuzzBoundary"
	for mode := range uint8(3) {
		f.Add(mode, b, build(b, [3]string{"file", "passport.txt", "Full Name: Jane Doe\n"}))
		f.Add(mode, b, build(b, [3]string{"name", "", "My scan"}, [3]string{"metadata", "", `{"a":1}`}, [3]string{"file", "scan.pdf", "%PDF-1.4\n%%EOF"}))
		f.Add(mode, b, build(b, [3]string{"file", "a.txt", "1"}, [3]string{"file", "b.txt", "2"}))
		f.Add(mode, b, build(b, [3]string{"metadata", "", `[1]`}, [3]string{"file", "a.txt", "1"}))
		f.Add(mode, b, build(b, [3]string{"other", "", "x"}))
		f.Add(mode, b, build(b, [3]string{"file", "", strings.Repeat("x", 5000)}))
		f.Add(mode, b, build(b, [3]string{"name", "", strings.Repeat("n", 300)}, [3]string{"file", "a.txt", "1"}))
		f.Add(mode, b, build(b, [3]string{"file", "../../etc/passwd", "root"}))
		f.Add(mode, "", []byte("--\r\n\r\n--"))
		f.Add(mode, `a"b`, build(b, [3]string{"file", "a.txt", "1"}))
		f.Add(mode, b, build(b, [3]string{"file", "a.txt", "1"})[:40])
	}
	f.Add(uint8(0), b+`"; boundary=other`, build(b, [3]string{"file", "a.txt", "1"}))
	f.Add(uint8(1), strings.Repeat("b", 71), build(strings.Repeat("b", 70), [3]string{"file", "a.txt", "1"}))
	f.Add(uint8(0), b, []byte("--"+b+"\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n--inner\r\n\r\nx\r\n--inner--\r\n--"+b+"--\r\n"))
	f.Add(uint8(0), b, []byte("--"+b+"\r\n"+strings.Repeat("X-H: v\r\n", 200)+"Content-Disposition: form-data; name=\"file\"\r\n\r\nx\r\n--"+b+"--\r\n"))
	f.Fuzz(func(t *testing.T, mode uint8, boundary string, body []byte) {
		e.run(t)
		var ct string
		switch mode % 3 {
		case 0:
			ct = "multipart/form-data; boundary=" + boundary
		case 1:
			ct = mime.FormatMediaType("multipart/form-data", map[string]string{"boundary": boundary})
			if ct == "" {
				ct = "multipart/form-data; boundary=" + boundary
			}
		case 2:
			ct = `multipart/form-data; boundary="` + boundary + `"`
		}
		if !sendableHeader(ct) {
			return // no client can send it
		}
		require.NoError(t, e.reset())
		path := "/v1/folders/" + fixedFolder + "/items"
		r, err := e.send("POST", path, ct, body)
		require.NoError(t, err, "POST %s with Content-Type %q", path, ct)
		checkFuzzAnswer(t, "upload with Content-Type "+ct, r)
		if r.Status == http.StatusCreated {
			var it profilesvc.Item
			err := json.Unmarshal(r.Body, &it)
			require.True(t, err == nil && it.FolderID == fixedFolder, "upload answered %s", r)
			stored, ok := e.srv.Item(it.ID)
			require.True(t, ok && stored.FolderID == fixedFolder && stored.SizeBytes == it.SizeBytes, "the uploaded item %s is stored as %+v", it.ID, stored)
		}
	})
}

// idRoute is a route with one path parameter, with a body that would
// succeed for the right ID.
type idRoute struct {
	method, template string
	kind             string // what the parameter names
	contentType      string
	body             string
	mutates          bool
}

// idRoutes lists every route that takes an ID in its path: the
// service's (from apiroutes, the list the SDK and the mock share), the
// storage artifacts and the control API.
func idRoutes() []idRoute {
	var out []idRoute
	seen := map[string]bool{}
	for _, r := range apiroutes.All() {
		key := r.Method + " " + r.Path
		if seen[key] {
			continue // CreateTextItem, CreateJSONItem and UploadFile share one
		}
		seen[key] = true
		rt := idRoute{method: r.Method, template: r.Path, mutates: r.Method != "GET"}
		_, param, _ := strings.Cut(r.Path, "{")
		param, _, _ = strings.Cut(param, "}")
		rt.kind = strings.TrimSuffix(param, "Id")
		switch r.Method + " " + r.Path {
		case "POST " + apiroutes.WorkflowProfiles, "POST " + apiroutes.ProfileFolders:
			rt.contentType, rt.body = "application/json", `{"name":"n"}`
		case "PATCH " + apiroutes.Profile, "PATCH " + apiroutes.Folder, "PATCH " + apiroutes.Item:
			rt.contentType, rt.body = "application/json", `{"name":"renamed"}`
		case "POST " + apiroutes.FolderItems:
			rt.contentType, rt.body = "application/json", `{"type":"text","content":"x"}`
		case "POST " + apiroutes.Analyze:
			rt.contentType, rt.body = "application/json", `{"targetItems":[{"itemId":"`+fixedTextItem+`"}]}`
		}
		out = append(out, rt)
	}
	return append(out,
		idRoute{method: "GET", template: "/storage/items/{itemId}/original", kind: "item"},
		idRoute{method: "GET", template: "/storage/items/{itemId}/text", kind: "item"},
		idRoute{method: "POST", template: "/_mock/items/{itemId}/status", kind: "item", contentType: "application/json", body: `{"status":"ACTIVE"}`, mutates: true},
		idRoute{method: "POST", template: "/_mock/analyses/{analysisId}/process", kind: "analysis", mutates: true},
		idRoute{method: "POST", template: "/_mock/analyses/{analysisId}/complete", kind: "analysis", mutates: true},
		idRoute{method: "POST", template: "/_mock/analyses/{analysisId}/fail", kind: "analysis", mutates: true},
		idRoute{method: "POST", template: "/_mock/analyses/{analysisId}/verification", kind: "analysis", contentType: "application/json", body: `{"verificationStatus":"approved"}`, mutates: true},
		idRoute{method: "DELETE", template: "/_mock/faults/{faultId}", kind: "fault", mutates: true},
	)
}

// stateSnapshot is what exists, by kind, and a fingerprint of all of it.
type stateSnapshot struct {
	ids         map[string][]string // kind -> IDs
	fingerprint string
}

func snapshot(srv *mockserver.Server) stateSnapshot {
	st := stateSnapshot{ids: map[string][]string{}}
	var fp bytes.Buffer
	for _, w := range srv.Workflows() {
		st.ids["workflow"] = append(st.ids["workflow"], w.ID)
		fmt.Fprintf(&fp, "w %s %s\n", w.ID, w.Name)
	}
	for _, p := range srv.Profiles() {
		st.ids["profile"] = append(st.ids["profile"], p.ID)
		fmt.Fprintf(&fp, "p %s %q %q %v %d %v\n", p.ID, p.Name, p.Description, p.Metadata, p.ItemsCount, p.UpdatedAt)
		for _, pf := range p.Folders {
			f, _ := srv.Folder(pf.ID)
			st.ids["folder"] = append(st.ids["folder"], f.ID)
			fmt.Fprintf(&fp, " f %s %q %d %v\n", f.ID, f.Name, f.ItemsCount, f.UpdatedAt)
			for _, is := range f.Items {
				it, _ := srv.Item(is.ID)
				st.ids["item"] = append(st.ids["item"], it.ID)
				fmt.Fprintf(&fp, "  i %s %q %s %v %s\n", it.ID, it.Name, it.Status, it.Metadata, it.Content)
			}
		}
		for _, a := range srv.Analyses(p.ID) {
			st.ids["analysis"] = append(st.ids["analysis"], a.ID)
			fmt.Fprintf(&fp, " a %s %s %s\n", a.ID, a.Status, a.VerificationStatus)
		}
	}
	for _, f := range srv.Faults() {
		st.ids["fault"] = append(st.ids["fault"], f.ID)
		fmt.Fprintf(&fp, "x %s\n", f.ID)
	}
	st.fingerprint = fp.String()
	return st
}

// FuzzPathIDs escapes arbitrary IDs into the path of every route, as the
// SDK does: the answer is never 5xx nor a redirect, an error is the
// service's error body, a success comes only for an ID that exists and is
// of the kind the route names (so an escaped "/" or ".." reaches no other
// resource), and a request that did not succeed changed nothing.
func FuzzPathIDs(f *testing.F) {
	e := startFuzzEnv(f)
	routes := idRoutes()
	var aid string
	setup := func() error {
		if err := e.reset(); err != nil {
			return err
		}
		// Pending: every route that takes an analysis can succeed on it
		// (the report answers REPORT_NOT_AVAILABLE, without the cost of a
		// PDF).
		var err error
		aid, err = e.analysis(true)
		return err
	}
	require.NoError(f, setup())
	def, _ := e.srv.Profile(fixedProfile)
	own := map[string][]string{
		"workflow": {"wf_default"},
		"profile":  {fixedProfile, fixedOtherProfile},
		"folder":   {fixedFolder, fixedOtherFolder, def.Folders[0].ID},
		"item":     {fixedTextItem, fixedFileItem, fixedOtherItem},
		"analysis": {aid},
		"fault":    {"fault_1"},
	}
	// Every route gets the IDs of its own kind and attempts to leave its
	// segment; a few get the odd strings too.
	escapes := []string{
		"../" + fixedOtherProfile, "..%2F" + fixedOtherProfile, fixedProfile + "/folders", fixedProfile + "/../" + fixedOtherProfile,
		"../../v1/profiles/" + fixedOtherProfile, fixedTextItem + "/../" + fixedOtherItem, aid + "/report", "./" + fixedFolder,
		"../../_mock/reset", fixedOtherFolder + "?x=1", fixedOtherItem + "#frag", "..", ".",
	}
	odd := []string{"", "...", "/", "//", "%2F", "%252F", "?", "#", "a b", "\x00", "é", "\xff", strings.ToUpper(fixedProfile), fixedProfile + " "}
	for ri, rt := range routes {
		for _, id := range append(own[rt.kind], escapes...) {
			f.Add(uint8(ri), id)
		}
		if ri%4 == 0 {
			for _, id := range odd {
				f.Add(uint8(ri), id)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, id string) {
		e.run(t)
		rt := routes[int(which)%len(routes)]
		open := strings.IndexByte(rt.template, '{')
		end := strings.IndexByte(rt.template, '}')
		path := rt.template[:open] + url.PathEscape(id) + rt.template[end+1:]
		if exp, err := apiroutes.Expand(rt.template, id); err == nil {
			require.Equal(t, exp, path, "the SDK's escaping, and this test's")
		}
		before := snapshot(e.srv)
		var body []byte
		if rt.body != "" {
			body = []byte(rt.body)
		}
		r, err := e.send(rt.method, path, rt.contentType, body)
		require.NoError(t, err, "%s %s", rt.method, path)
		what := rt.method + " " + path
		checkFuzzAnswer(t, what, r)
		if r.Status < 300 {
			require.Contains(t, before.ids[rt.kind], id, "%s: answered %s for %q, which is no %s that exists", what, r, id, rt.kind)
		} else if diff := cmp.Diff(before.fingerprint, snapshot(e.srv).fingerprint); diff != "" {
			t.Fatalf("%s: answered %d, but the state changed (-before +after):\n%s", what, r.Status, diff)
		}
		if r.Status < 300 && rt.mutates {
			require.NoError(t, setup())
		}
	})
}
