package mockserver_test

// Helpers of the raw-HTTP tests of the mock server: every request goes
// through net/http with the path sent as is (no cleaning, no redirects
// followed), and every answer is decoded into plain maps, so that the JSON
// shape is checked against the interface document rather than through the
// SDK's types. Every helper here starts with "h".

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hClient never follows redirects: a path-cleaning redirect must show up as
// the 301/302 it is.
var hClient = &http.Client{
	Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	},
}

// hNoKey, passed as hReq.Key, sends no x-api-key header at all.
const hNoKey = "\x00no-key"

// hReq is one raw request. Path may hold a query ("?..."); it is sent
// byte for byte as the request target.
type hReq struct {
	Method string
	Path   string
	// Body is sent as is; JSON, when not nil, is marshalled instead and
	// sent as application/json.
	Body        []byte
	JSON        any
	ContentType string
	// Key is the x-api-key header: "" means the server's key, hNoKey none.
	Key    string
	Header http.Header
	Ctx    context.Context
}

// hResp is an answer, read in full.
type hResp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *hResp) String() string {
	b := r.Body
	if len(b) > 600 {
		b = append(append([]byte(nil), b[:600]...), "..."...)
	}
	return fmt.Sprintf("%d %s", r.Status, b)
}

// hNew starts a mock server for the test; it is closed when the test ends.
func hNew(t *testing.T, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	return mockserver.NewTest(t, opts...)
}

// hURL returns the *url.URL of a raw path on the server: the path goes in
// Opaque so that Go neither cleans nor re-escapes it.
func hURL(t *testing.T, srv *mockserver.Server, rawPath string) *url.URL {
	t.Helper()
	base, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatalf("bad server URL %q: %v", srv.URL, err)
	}
	p, q, _ := strings.Cut(rawPath, "?")
	return &url.URL{Scheme: base.Scheme, Host: base.Host, Opaque: p, RawQuery: q}
}

// hSendErr sends a request and returns the answer or the transport error.
func hSendErr(t *testing.T, srv *mockserver.Server, r hReq) (*hResp, error) {
	t.Helper()
	body := r.Body
	ct := r.ContentType
	if r.JSON != nil {
		b, err := json.Marshal(r.JSON)
		if err != nil {
			t.Fatalf("marshalling the request body: %v", err)
		}
		body = b
		if ct == "" {
			ct = "application/json"
		}
	}
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, srv.URL, rd)
	if err != nil {
		t.Fatalf("building %s %s: %v", r.Method, r.Path, err)
	}
	req.URL = hURL(t, srv, r.Path)
	req.Host = req.URL.Host
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	switch r.Key {
	case "":
		req.Header.Set("x-api-key", srv.APIKey)
	case hNoKey:
	default:
		req.Header.Set("x-api-key", r.Key)
	}
	resp, err := hClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &hResp{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// hSend sends a request; a transport error fails the test.
func hSend(t *testing.T, srv *mockserver.Server, r hReq) *hResp {
	t.Helper()
	resp, err := hSendErr(t, srv, r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	return resp
}

// hDo sends a request with the server's API key and, when body is not nil,
// body as JSON.
func hDo(t *testing.T, srv *mockserver.Server, method, path string, body any) *hResp {
	t.Helper()
	return hSend(t, srv, hReq{Method: method, Path: path, JSON: body})
}

// hRawTCP sends a request line and headers over a fresh connection, for
// targets net/http's client cannot send as is (such as "//v1/...").
func hRawTCP(t *testing.T, srv *mockserver.Server, method, target string, header map[string]string) *hResp {
	t.Helper()
	u := hURL(t, srv, "/")
	conn, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, u.Host)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatalf("write: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading the answer to %s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return &hResp{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// hDecode decodes a JSON answer into v, checking its Content-Type.
func hDecode(t *testing.T, r *hResp, v any) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type = %q, want application/json; answer %s", ct, r)
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("answer is not JSON: %v; answer %s", err, r)
	}
	if dec.More() {
		t.Fatalf("answer has data after its JSON value: %s", r)
	}
}

// hObj checks the status and returns the answer's JSON object.
func hObj(t *testing.T, r *hResp, wantStatus int) map[string]any {
	t.Helper()
	if r.Status != wantStatus {
		t.Fatalf("status = %d, want %d; answer %s", r.Status, wantStatus, r)
	}
	var m map[string]any
	hDecode(t, r, &m)
	if m == nil {
		t.Fatalf("answer is null, want a JSON object")
	}
	return m
}

// hJSON sends a request and returns the answer's JSON object, which must
// come with wantStatus.
func hJSON(t *testing.T, srv *mockserver.Server, method, path string, body any, wantStatus int) map[string]any {
	t.Helper()
	return hObj(t, hDo(t, srv, method, path, body), wantStatus)
}

// hErr checks an error answer: the HTTP status, and a body that is exactly
// {"error":{"code","status","message"}} with status equal to the HTTP
// status, the code, and a non-empty message containing each of msgHas
// (case-insensitively).
func hErr(t *testing.T, r *hResp, status int, code string, msgHas ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d (%s); answer %s", r.Status, status, code, r)
	}
	hErrShape(t, r)
	var body struct {
		Error struct {
			Code    string  `json:"code"`
			Status  float64 `json:"status"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	if body.Error.Code != code {
		t.Errorf("error.code = %q, want %q; answer %s", body.Error.Code, code, r)
	}
	for _, s := range msgHas {
		if !strings.Contains(strings.ToLower(body.Error.Message), strings.ToLower(s)) {
			t.Errorf("error.message = %q, want it to name %q", body.Error.Message, s)
		}
	}
}

// hErrShape checks that an answer is an error body of the document's shape,
// whatever its code: {"error":{"code":string,"status":number == HTTP
// status,"message":non-empty string}} and nothing else.
func hErrShape(t *testing.T, r *hResp) {
	t.Helper()
	if r.Status < 400 {
		t.Fatalf("status = %d, want an error status; answer %s", r.Status, r)
	}
	var top map[string]json.RawMessage
	hDecode(t, r, &top)
	if len(top) != 1 || top["error"] == nil {
		t.Fatalf("error body must be {\"error\":{...}} alone, got %s", r.Body)
	}
	var inner map[string]any
	if err := json.Unmarshal(top["error"], &inner); err != nil || inner == nil {
		t.Fatalf("error must be an object, got %s", top["error"])
	}
	hExactKeys(t, "error", inner, "code", "status", "message")
	if code, ok := inner["code"].(string); !ok || code == "" {
		t.Errorf("error.code = %#v, want a non-empty string", inner["code"])
	}
	if st, ok := inner["status"].(float64); !ok || int(st) != r.Status {
		t.Errorf("error.status = %#v, want the number %d (the HTTP status)", inner["status"], r.Status)
	}
	if msg, ok := inner["message"].(string); !ok || strings.TrimSpace(msg) == "" {
		t.Errorf("error.message = %#v, want a non-empty string", inner["message"])
	}
}

// hNoBody checks a 204 answer with an empty body.
func hNoBody(t *testing.T, r *hResp) {
	t.Helper()
	if r.Status != http.StatusNoContent {
		t.Fatalf("status = %d, want 204; answer %s", r.Status, r)
	}
	if len(r.Body) != 0 {
		t.Errorf("204 answer has a body: %q", r.Body)
	}
}

// hKeys checks that m has every key (a null value counts as present).
func hKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: key %q is missing; have %v", what, k, hSortedKeys(m))
		}
	}
}

// hExactKeys checks that m has exactly these keys.
func hExactKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	want := append([]string(nil), keys...)
	sort.Strings(want)
	if got := hSortedKeys(m); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: keys = %v, want exactly %v", what, got, want)
	}
}

// hNoKeyIn checks that m does not have key.
func hNoKeyIn(t *testing.T, what string, m map[string]any, key string) {
	t.Helper()
	if v, ok := m[key]; ok {
		t.Errorf("%s: key %q must be absent, got %#v", what, key, v)
	}
}

func hSortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hNull checks that key is present with the value null.
func hNull(t *testing.T, what string, m map[string]any, key string) {
	t.Helper()
	v, ok := m[key]
	if !ok {
		t.Errorf("%s: key %q is missing, want it present with null", what, key)
	} else if v != nil {
		t.Errorf("%s: %q = %#v, want null", what, key, v)
	}
}

// hStr returns m[key], which must be a string.
func hStr(t *testing.T, what string, m map[string]any, key string) string {
	t.Helper()
	s, ok := m[key].(string)
	if !ok {
		t.Errorf("%s: %q = %#v, want a string", what, key, m[key])
	}
	return s
}

// hNum returns m[key], which must be a number.
func hNum(t *testing.T, what string, m map[string]any, key string) float64 {
	t.Helper()
	n, ok := m[key].(float64)
	if !ok {
		t.Errorf("%s: %q = %#v, want a number", what, key, m[key])
	}
	return n
}

// hBool returns m[key], which must be a boolean.
func hBool(t *testing.T, what string, m map[string]any, key string) bool {
	t.Helper()
	b, ok := m[key].(bool)
	if !ok {
		t.Errorf("%s: %q = %#v, want a boolean", what, key, m[key])
	}
	return b
}

// hMap returns m[key], which must be an object.
func hMap(t *testing.T, what string, m map[string]any, key string) map[string]any {
	t.Helper()
	o, ok := m[key].(map[string]any)
	if !ok {
		t.Errorf("%s: %q = %#v, want an object", what, key, m[key])
	}
	return o
}

// hArr returns m[key], which must be an array (not null).
func hArr(t *testing.T, what string, m map[string]any, key string) []any {
	t.Helper()
	a, ok := m[key].([]any)
	if !ok {
		t.Errorf("%s: %q = %#v, want an array", what, key, m[key])
	}
	return a
}

// hObjs returns the array m[key] as objects.
func hObjs(t *testing.T, what string, m map[string]any, key string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, v := range hArr(t, what, m, key) {
		o, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: %s[%d] = %#v, want an object", what, key, i, v)
			continue
		}
		out = append(out, o)
	}
	return out
}

// hID checks that m[key] is an ID with one of the prefixes, followed by
// enough characters to be unguessable, and returns it.
func hID(t *testing.T, what string, m map[string]any, key string, prefixes ...string) string {
	t.Helper()
	id := hStr(t, what, m, key)
	hIDValue(t, what+"."+key, id, prefixes...)
	return id
}

func hIDValue(t *testing.T, what, id string, prefixes ...string) {
	t.Helper()
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) {
			if rest := strings.TrimPrefix(id, p); len(rest) < 12 {
				t.Errorf("%s = %q: only %d characters after the prefix, too few to be unguessable", what, id, len(rest))
			}
			return
		}
	}
	t.Errorf("%s = %q, want a prefix of %v", what, id, prefixes)
}

// hTime checks that m[key] is an RFC 3339 timestamp in UTC ("Z") and
// returns it.
func hTime(t *testing.T, what string, m map[string]any, key string) time.Time {
	t.Helper()
	s, ok := m[key].(string)
	if !ok {
		t.Errorf("%s: %q = %#v, want an RFC 3339 timestamp string", what, key, m[key])
		return time.Time{}
	}
	return hTimeValue(t, what+"."+key, s)
}

func hTimeValue(t *testing.T, what, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Errorf("%s = %q is not RFC 3339: %v", what, s, err)
		return time.Time{}
	}
	if !strings.HasSuffix(s, "Z") || ts.Location() != time.UTC {
		t.Errorf("%s = %q is not in UTC (want a Z suffix)", what, s)
	}
	return ts
}

// hEqualJSON checks that got and want are the same JSON value.
func hEqualJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	var gv, wv any
	_ = json.Unmarshal(g, &gv)
	_ = json.Unmarshal(w, &wv)
	if !reflect.DeepEqual(gv, wv) {
		t.Errorf("%s = %s, want %s", what, g, w)
	}
}

// hRepeat returns s repeated n times.
func hRepeat(s string, n int) string { return strings.Repeat(s, n) }

// ---- Fixtures through the HTTP API ----

// hCreateProfile creates a profile in wf_default and returns the create
// answer.
func hCreateProfile(t *testing.T, srv *mockserver.Server, name string) map[string]any {
	t.Helper()
	return hJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": name}, http.StatusCreated)
}

// hProfile creates a profile and returns its ID and its default folder's.
func hProfile(t *testing.T, srv *mockserver.Server, name string) (profileID, defaultFolderID string) {
	t.Helper()
	p := hCreateProfile(t, srv, name)
	folders := hObjs(t, "profile", p, "folders")
	if len(folders) != 1 {
		t.Fatalf("new profile has %d folders, want 1", len(folders))
	}
	return p["id"].(string), folders[0]["id"].(string)
}

// hFolder creates a folder and returns its ID.
func hFolder(t *testing.T, srv *mockserver.Server, profileID, name string) string {
	t.Helper()
	f := hJSON(t, srv, "POST", "/v1/profiles/"+profileID+"/folders", map[string]any{"name": name}, http.StatusCreated)
	return f["id"].(string)
}

// hTextItem creates a text item and returns its ID.
func hTextItem(t *testing.T, srv *mockserver.Server, folderID, name, text string) string {
	t.Helper()
	it := hJSON(t, srv, "POST", "/v1/folders/"+folderID+"/items",
		map[string]any{"type": "text", "name": name, "content": text}, http.StatusCreated)
	return it["id"].(string)
}

// hMultipart builds a multipart/form-data body: a part "file" (when
// filename or data is set) and the given fields, in order.
func hMultipart(t *testing.T, filename string, data []byte, fields ...[2]string) (body []byte, contentType string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if filename != "" || data != nil {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), mw.FormDataContentType()
}

// hUpload uploads a file into a folder and returns the raw answer.
func hUpload(t *testing.T, srv *mockserver.Server, folderID, filename string, data []byte, fields ...[2]string) *hResp {
	t.Helper()
	body, ct := hMultipart(t, filename, data, fields...)
	return hSend(t, srv, hReq{Method: "POST", Path: "/v1/folders/" + folderID + "/items", Body: body, ContentType: ct})
}

// hStart starts an analysis of the items and returns its ID.
func hStart(t *testing.T, srv *mockserver.Server, profileID string, itemIDs ...string) string {
	t.Helper()
	a := hJSON(t, srv, "POST", "/v1/analyses/"+profileID+"/analyze", hTargets(itemIDs...), http.StatusAccepted)
	return a["id"].(string)
}

// hTargets is a start-analysis body naming the items.
func hTargets(itemIDs ...string) map[string]any {
	refs := []any{}
	for _, id := range itemIDs {
		refs = append(refs, map[string]any{"itemId": id})
	}
	return map[string]any{"targetItems": refs}
}

// hGetAnalysis reads an analysis.
func hGetAnalysis(t *testing.T, srv *mockserver.Server, id string) map[string]any {
	t.Helper()
	return hJSON(t, srv, "GET", "/v1/analyses/"+id, nil, http.StatusOK)
}

// hIdentityText is a text item the default engine reads as a passport.
const hIdentityText = "Passport\nFull name: Jane Doe\nDate of birth: 1990-04-01\nPassport number: X1234567\nExpiry date: 2099-01-01\n"

// hAnalysisFixture makes a profile with two ACTIVE text items.
func hAnalysisFixture(t *testing.T, srv *mockserver.Server) (profileID string, itemIDs []string) {
	t.Helper()
	pid, fid := hProfile(t, srv, "Analysis subject")
	a := hTextItem(t, srv, fid, "passport.txt", hIdentityText)
	b := hTextItem(t, srv, fid, "bank statement", "Bank statement\nAccount holder: Jane Doe\nAddress: 1 Main St\n")
	return pid, []string{a, b}
}

// hClock wraps a Clock and reports each AfterFunc (its duration) on
// afters, and each stop of such a timer on stops, so that a test knows
// when a long poll is held and when it has let go.
type hClock struct {
	mockserver.Clock
	afters chan time.Duration
	stops  chan time.Duration
}

func hNewClock(c mockserver.Clock) *hClock {
	return &hClock{Clock: c, afters: make(chan time.Duration, 64), stops: make(chan time.Duration, 64)}
}

func (c *hClock) AfterFunc(d time.Duration, f func()) func() bool {
	stop := c.Clock.AfterFunc(d, f)
	select {
	case c.afters <- d:
	default:
	}
	var once sync.Once
	return func() bool {
		ok := stop()
		once.Do(func() {
			select {
			case c.stops <- d:
			default:
			}
		})
		return ok
	}
}

// hWaitAfter waits until a timer of duration d is set on the clock.
func (c *hClock) hWaitAfter(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case got := <-c.afters:
			if got == d {
				return
			}
		case <-deadline:
			t.Fatalf("no timer of %v was set within 5s", d)
		}
	}
}

// hWaitStop waits until a timer of duration d is stopped.
func (c *hClock) hWaitStop(t *testing.T, d time.Duration, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case got := <-c.stops:
			if got == d {
				return
			}
		case <-deadline:
			t.Fatalf("the timer of %v was not stopped within %v", d, within)
		}
	}
}

// hBlockUntil runs c.BlockUntil(ctx, n) in its own goroutine; its outcome
// arrives on the channel.
func hBlockUntil(ctx context.Context, c *mockserver.FakeClock, n int) <-chan error {
	done := make(chan error, 1)
	go func() { done <- c.BlockUntil(ctx, n) }()
	return done
}

// hNotReturned fails the test if the BlockUntil of done has returned.
func hNotReturned(t *testing.T, done <-chan error, why string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("BlockUntil returned %v %s", err, why)
	default:
	}
}

// hRealClock is the wall clock, for wrapping in hClock.
type hRealClock struct{}

func (hRealClock) Now() time.Time { return time.Now() }
func (hRealClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
