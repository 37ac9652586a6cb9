package mockserver_test

// The shared helpers of the mock server's tests (package mockserver_test).
//
// Requests go through net/http with the path sent byte for byte as the
// request target (no cleaning, no redirects followed). Answers are decoded
// into plain maps where their shape is checked, so that it is checked
// against the interface document rather than through the SDK's types.
// Fixtures are made over HTTP (createProfile, startAnalysis, ...) or
// through the test kit (addProfile, addProfileWithItem, ...), and a state
// to snapshot (buildSnapshotFixture). A test waits for events: a long
// poll's answer on a channel, a timer armed on a clock (timerClock,
// blockUntil, gatedClock), a long poll's wait for a change
// (awaitPollWait), a kit call made in the background (goCall, receive,
// watchedCtx), never for a fixed time.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// ---------------------------------------------------------------------
// Servers and clients.

// newServer starts a mock server for the test; it is closed when the test
// ends.
func newServer(t *testing.T, opts ...mockserver.Option) *mockserver.Server {
	t.Helper()
	return mockserver.NewTest(t, opts...)
}

// openapiChecked holds a server made with New, Start or NewHandler to
// api/openapi.yaml, as NewTest holds its own, failing t on a disagreement.
// The server must close before t ends.
func openapiChecked(t testing.TB) mockserver.Option {
	return mockserver.WithOpenAPICheck(func(err error) {
		t.Errorf("the mock's exchange disagrees with api/openapi.yaml: %v", err)
	})
}

// rawClient is the client of the raw requests: no retries, and no
// redirects followed, so that a path-cleaning redirect shows up as the
// 301/302 it is.
var rawClient = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// newHTTPClient returns an HTTP client with its own transport, roomy
// enough for a hundred parallel connections, that follows no redirect; its
// idle connections are closed when the test ends, so that no connection
// loop outlives the test (the package's TestMain checks with goleak).
func newHTTPClient(t testing.TB) *http.Client {
	t.Helper()
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// newSDK returns an SDK client of the server on its own transport, without
// retries: under load every answer must be right the first time.
func newSDK(t testing.TB, srv *mockserver.Server) *profilesvc.Client {
	t.Helper()
	return srv.Client(profilesvc.WithMaxRetries(0), profilesvc.WithHTTPClient(newHTTPClient(t)))
}

// ---------------------------------------------------------------------
// Requests.

// noKey, as request.Key, sends no x-api-key header at all.
const noKey = "\x00no-key"

// request is one raw request. Path may hold a query ("?..."); it is sent
// byte for byte as the request target.
type request struct {
	Method string
	Path   string
	// Base is the address of the server when it is not the mock's own
	// URL: that of a test server serving the mock's Handler.
	Base string
	// Body is sent as is; JSON, when not nil, is marshalled instead and
	// sent as application/json.
	Body        []byte
	JSON        any
	ContentType string
	// Key is the x-api-key header: "" means the server's key, noKey none.
	Key    string
	Header http.Header
	Ctx    context.Context
}

// response is an answer, read in full.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *response) String() string {
	b := r.Body
	if len(b) > 600 {
		b = append(b[:600:600], "..."...)
	}
	return fmt.Sprintf("%d %s", r.Status, b)
}

// build makes the *http.Request of r to srv.
func (r request) build(srv *mockserver.Server) (*http.Request, error) {
	body, ct := r.Body, r.ContentType
	if r.JSON != nil {
		b, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, fmt.Errorf("marshalling the body of %s %s: %w", r.Method, r.Path, err)
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
	base := r.Base
	if base == "" {
		base = srv.URL
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("bad server URL %q: %w", base, err)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, base, rd)
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", r.Method, r.Path, err)
	}
	// The path goes in Opaque, so that Go neither cleans nor re-escapes it.
	p, q, _ := strings.Cut(r.Path, "?")
	req.URL = &url.URL{Scheme: u.Scheme, Host: u.Host, Opaque: p, RawQuery: q}
	req.Host = u.Host
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
	case noKey:
	default:
		req.Header.Set("x-api-key", r.Key)
	}
	return req, nil
}

// roundTrip sends req with hc and reads the whole answer.
func roundTrip(hc *http.Client, req *http.Request) (*response, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// sendWith sends r with hc and returns the answer or the error. It is safe
// to call from any goroutine: it reports, rather than fails the test.
func sendWith(hc *http.Client, srv *mockserver.Server, r request) (*response, error) {
	req, err := r.build(srv)
	if err != nil {
		return nil, err
	}
	return roundTrip(hc, req)
}

// send sends a request; a transport error fails the test.
func send(t *testing.T, srv *mockserver.Server, r request) *response {
	t.Helper()
	resp, err := sendWith(rawClient, srv, r)
	require.NoError(t, err, "%s %s", r.Method, r.Path)
	return resp
}

// do sends a request with the server's API key. A body that is a string or
// a []byte is sent as it is, any other as its JSON; either way as
// application/json. A nil body sends none.
func do(t *testing.T, srv *mockserver.Server, method, path string, body any) *response {
	t.Helper()
	r := request{Method: method, Path: path}
	switch b := body.(type) {
	case nil:
	case string:
		r.Body, r.ContentType = []byte(b), "application/json"
	case []byte:
		r.Body, r.ContentType = b, "application/json"
	default:
		r.JSON = b
	}
	return send(t, srv, r)
}

// doJSON sends a request and returns the answer's JSON object, which must
// come with wantStatus.
func doJSON(t *testing.T, srv *mockserver.Server, method, path string, body any, wantStatus int) map[string]any {
	t.Helper()
	return jsonObject(t, do(t, srv, method, path, body), wantStatus)
}

// sendRaw sends a request line and headers over a fresh connection, for
// targets net/http's client cannot send as is (such as "//v1/...").
func sendRaw(t *testing.T, srv *mockserver.Server, method, target string, header map[string]string) *response {
	t.Helper()
	host := strings.TrimPrefix(srv.URL, "http://")
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	require.NoError(t, err, "dial")
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, host)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	b.WriteString("\r\n")
	_, err = io.WriteString(conn, b.String())
	require.NoError(t, err, "write")
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	require.NoError(t, err, "reading the answer to %s %s", method, target)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return &response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// fetch GETs an absolute URL the mock handed out, which must point at the
// mock itself, with key as request.Key.
func fetch(t *testing.T, srv *mockserver.Server, rawURL, key string) *response {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err, "bad URL %q", rawURL)
	require.Equal(t, srv.URL, "http://"+u.Host, "URL %q does not point at the mock", rawURL)
	return send(t, srv, request{Method: "GET", Path: u.EscapedPath(), Key: key})
}

// multipartBody builds a multipart/form-data body: the given fields, in
// order, then a part "file" when filename or data is set.
func multipartBody(t *testing.T, filename string, data []byte, fields ...[2]string) (body []byte, contentType string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		require.NoError(t, mw.WriteField(f[0], f[1]))
	}
	if filename != "" || data != nil {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
		h.Set("Content-Type", "application/octet-stream")
		w, err := mw.CreatePart(h)
		require.NoError(t, err)
		_, _ = w.Write(data)
	}
	require.NoError(t, mw.Close())
	return buf.Bytes(), mw.FormDataContentType()
}

// upload uploads a file into a folder and returns the raw answer.
func upload(t *testing.T, srv *mockserver.Server, folderID, filename string, data []byte, fields ...[2]string) *response {
	t.Helper()
	body, ct := multipartBody(t, filename, data, fields...)
	return send(t, srv, request{Method: "POST", Path: "/v1/folders/" + folderID + "/items", Body: body, ContentType: ct})
}

// ---------------------------------------------------------------------
// Answers.

// wantStatus fails the test unless the answer has the status.
func wantStatus(t *testing.T, r *response, status int) {
	t.Helper()
	require.Equal(t, status, r.Status, "status of the answer %s", r)
}

// decode decodes a JSON answer into v, checking its Content-Type and that
// it holds one JSON value.
func decode(t *testing.T, r *response, v any) {
	t.Helper()
	ct := r.Header.Get("Content-Type")
	require.True(t, strings.HasPrefix(ct, "application/json"), "Content-Type = %q, want application/json; answer %s", ct, r)
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	require.NoError(t, dec.Decode(v), "answer is not JSON: %s", r)
	require.False(t, dec.More(), "answer has data after its JSON value: %s", r)
}

// jsonObject checks the status and returns the answer's JSON object.
func jsonObject(t *testing.T, r *response, wantStatus int) map[string]any {
	t.Helper()
	require.Equal(t, wantStatus, r.Status, "status of the answer %s", r)
	var m map[string]any
	decode(t, r, &m)
	require.NotNil(t, m, "answer is null, want a JSON object")
	return m
}

// wantError checks an error answer: the HTTP status, a body of the
// document's shape (wantErrorShape), the code, and a message containing
// each of msgHas (case-insensitively). It returns the message.
func wantError(t *testing.T, r *response, status int, code string, msgHas ...string) string {
	t.Helper()
	require.Equal(t, status, r.Status, "status of the answer (want %s): %s", code, r)
	wantErrorShape(t, r)
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	assert.Equal(t, code, body.Error.Code, "error.code of the answer %s", r)
	for _, s := range msgHas {
		assert.Contains(t, strings.ToLower(body.Error.Message), strings.ToLower(s), "error.message = %q, want it to name %q", body.Error.Message, s)
	}
	return body.Error.Message
}

// wantErrorShape checks that an answer is an error body of the document's
// shape, whatever its code: {"error":{"code":string,"status":number ==
// HTTP status,"message":non-empty string}} and nothing else, as
// application/json.
func wantErrorShape(t *testing.T, r *response) {
	t.Helper()
	require.GreaterOrEqual(t, r.Status, 400, "want an error status; answer %s", r)
	var top map[string]json.RawMessage
	decode(t, r, &top)
	require.True(t, len(top) == 1 && top["error"] != nil, "error body must be {\"error\":{...}} alone, got %s", r.Body)
	var inner map[string]any
	require.NoError(t, json.Unmarshal(top["error"], &inner), "error must be an object, got %s", top["error"])
	require.NotNil(t, inner, "error must be an object, got %s", top["error"])
	wantExactKeys(t, "error", inner, "code", "status", "message")
	code, ok := inner["code"].(string)
	assert.True(t, ok && code != "", "error.code = %#v, want a non-empty string", inner["code"])
	assert.Equal(t, float64(r.Status), inner["status"], "error.status, want the number %d (the HTTP status)", r.Status)
	msg, ok := inner["message"].(string)
	assert.True(t, ok && strings.TrimSpace(msg) != "", "error.message = %#v, want a non-empty string", inner["message"])
}

// errorShape is wantErrorShape for a goroutine that must not fail the
// test: it returns what is wrong with an error answer, or nil.
func errorShape(r *response) error {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("error answer %d has Content-Type %q, want application/json: %.300q", r.Status, ct, r.Body)
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	var env struct {
		Error *struct {
			Code    *string `json:"code"`
			Status  *int    `json:"status"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	if err := dec.Decode(&env); err != nil {
		return fmt.Errorf("error answer %d is not {error:{code,status,message}}: %v: %.300q", r.Status, err, r.Body)
	}
	if dec.More() {
		return fmt.Errorf("error answer %d has data after its JSON object: %.300q", r.Status, r.Body)
	}
	e := env.Error
	switch {
	case e == nil:
		return fmt.Errorf("error answer %d has no \"error\" object: %.300q", r.Status, r.Body)
	case e.Code == nil || *e.Code == "":
		return fmt.Errorf("error answer %d has no code: %.300q", r.Status, r.Body)
	case e.Status == nil || *e.Status != r.Status:
		return fmt.Errorf("error answer %d has error.status %v, want the HTTP status: %.300q", r.Status, e.Status, r.Body)
	case e.Message == nil || strings.TrimSpace(*e.Message) == "":
		return fmt.Errorf("error answer %d has no message: %.300q", r.Status, r.Body)
	}
	return nil
}

// errorCode returns the code of an error body, or "".
func errorCode(body []byte) string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &env)
	return env.Error.Code
}

// wantNoContent checks a 204 answer with an empty body.
func wantNoContent(t *testing.T, r *response) {
	t.Helper()
	require.Equal(t, http.StatusNoContent, r.Status, "status of the answer %s", r)
	assert.Empty(t, r.Body, "204 answer has a body: %q", r.Body)
}

// ---------------------------------------------------------------------
// Fields of JSON answers. Each check names what it looks at ("what"), and
// each accessor checks the type of the field it returns.

// wantKeys checks that m has every key (a null value counts as present).
func wantKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, ok := m[k]
		assert.True(t, ok, "%s: key %q is missing; have %v", what, k, sortedKeys(m))
	}
}

// wantExactKeys checks that m has exactly these keys.
func wantExactKeys(t *testing.T, what string, m map[string]any, keys ...string) {
	t.Helper()
	want := slices.Sorted(slices.Values(keys))
	if diff := cmp.Diff(want, sortedKeys(m)); diff != "" {
		t.Errorf("%s: keys differ from exactly %v (-want +got):\n%s", what, want, diff)
	}
}

// wantNoKey checks that m does not have key.
func wantNoKey(t *testing.T, what string, m map[string]any, key string) {
	t.Helper()
	v, ok := m[key]
	assert.False(t, ok, "%s: key %q must be absent, got %#v", what, key, v)
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }

// wantNull checks that key is present with the value null.
func wantNull(t *testing.T, what string, m map[string]any, key string) {
	t.Helper()
	v, ok := m[key]
	if assert.True(t, ok, "%s: key %q is missing, want it present with null", what, key) {
		assert.Nil(t, v, "%s: %q = %#v, want null", what, key, v)
	}
}

// stringField returns m[key], which must be a string.
func stringField(t *testing.T, what string, m map[string]any, key string) string {
	t.Helper()
	s, ok := m[key].(string)
	assert.True(t, ok, "%s: %q = %#v, want a string", what, key, m[key])
	return s
}

// numberField returns m[key], which must be a number.
func numberField(t *testing.T, what string, m map[string]any, key string) float64 {
	t.Helper()
	n, ok := m[key].(float64)
	assert.True(t, ok, "%s: %q = %#v, want a number", what, key, m[key])
	return n
}

// boolField returns m[key], which must be a boolean.
func boolField(t *testing.T, what string, m map[string]any, key string) bool {
	t.Helper()
	b, ok := m[key].(bool)
	assert.True(t, ok, "%s: %q = %#v, want a boolean", what, key, m[key])
	return b
}

// objectField returns m[key], which must be an object.
func objectField(t *testing.T, what string, m map[string]any, key string) map[string]any {
	t.Helper()
	o, ok := m[key].(map[string]any)
	assert.True(t, ok, "%s: %q = %#v, want an object", what, key, m[key])
	return o
}

// arrayField returns m[key], which must be an array (not null).
func arrayField(t *testing.T, what string, m map[string]any, key string) []any {
	t.Helper()
	a, ok := m[key].([]any)
	assert.True(t, ok, "%s: %q = %#v, want an array", what, key, m[key])
	return a
}

// objectsField returns the array m[key] as objects.
func objectsField(t *testing.T, what string, m map[string]any, key string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, v := range arrayField(t, what, m, key) {
		o, ok := v.(map[string]any)
		if !assert.True(t, ok, "%s: %s[%d] = %#v, want an object", what, key, i, v) {
			continue
		}
		out = append(out, o)
	}
	return out
}

// idField checks that m[key] is an ID with one of the prefixes, followed by
// enough characters to be unguessable, and returns it.
func idField(t *testing.T, what string, m map[string]any, key string, prefixes ...string) string {
	t.Helper()
	id := stringField(t, what, m, key)
	wantUnguessableID(t, what+"."+key, id, prefixes...)
	return id
}

// wantUnguessableID checks that id has one of the prefixes, followed by
// enough characters to be unguessable.
func wantUnguessableID(t *testing.T, what, id string, prefixes ...string) {
	t.Helper()
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(id, p); ok {
			assert.GreaterOrEqual(t, len(rest), 12, "%s = %q: only %d characters after the prefix, too few to be unguessable", what, id, len(rest))
			return
		}
	}
	assert.Failf(t, "an ID without its prefix", "%s = %q, want a prefix of %v", what, id, prefixes)
}

// idSuffix is the random part of a server ID: 20 characters of lower-case
// base32 without i, l, o and u.
const idSuffix = `[0-9a-hjkmnp-tv-z]{20}`

// uuidPattern is a random (version 4) UUID, as generated API keys are.
var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// requestIDPattern is a well-formed request ID: req_ and the 20 base32
// characters of every server ID.
var requestIDPattern = regexp.MustCompile(`^req_` + idSuffix + `$`)

// wantRandomID checks that id is prefix followed by a server ID's random
// suffix.
func wantRandomID(t testing.TB, id, prefix string) {
	t.Helper()
	assert.Regexp(t, `^`+regexp.QuoteMeta(prefix)+idSuffix+`$`, id, "ID %q: want %s followed by 20 base32 characters", id, prefix)
}

// timeField checks that m[key] is an RFC 3339 timestamp in UTC ("Z") and
// returns it.
func timeField(t *testing.T, what string, m map[string]any, key string) time.Time {
	t.Helper()
	s, ok := m[key].(string)
	if !assert.True(t, ok, "%s: %q = %#v, want an RFC 3339 timestamp string", what, key, m[key]) {
		return time.Time{}
	}
	return wantUTCTime(t, what+"."+key, s)
}

// wantUTCTime checks that s is an RFC 3339 timestamp in UTC ("Z") and
// returns it.
func wantUTCTime(t *testing.T, what, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, s)
	if !assert.NoError(t, err, "%s = %q is not RFC 3339", what, s) {
		return time.Time{}
	}
	assert.True(t, strings.HasSuffix(s, "Z") && ts.Location() == time.UTC, "%s = %q is not in UTC (want a Z suffix)", what, s)
	return ts
}

// wantSameJSON checks that got and want are the same JSON value.
func wantSameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	var gv, wv any
	_ = json.Unmarshal(g, &gv)
	_ = json.Unmarshal(w, &wv)
	if diff := cmp.Diff(wv, gv); diff != "" {
		t.Errorf("%s = %s, want %s (-want +got):\n%s", what, g, w, diff)
	}
}

// wantOneOf checks that v is one of the allowed strings.
func wantOneOf(t *testing.T, what string, v any, allowed ...string) {
	t.Helper()
	s, ok := v.(string)
	assert.True(t, ok && slices.Contains(allowed, s), "%s = %#v, want one of %v", what, v, allowed)
}

// ---------------------------------------------------------------------
// Fixtures over HTTP.

// postProfile creates a profile in wf_default and returns the create
// answer.
func postProfile(t *testing.T, srv *mockserver.Server, name string) map[string]any {
	t.Helper()
	return doJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": name}, http.StatusCreated)
}

// createProfile creates a profile and returns its ID and its default
// folder's.
func createProfile(t *testing.T, srv *mockserver.Server, name string) (profileID, defaultFolderID string) {
	t.Helper()
	p := postProfile(t, srv, name)
	folders := objectsField(t, "profile", p, "folders")
	require.Len(t, folders, 1, "folders of a new profile")
	return p["id"].(string), folders[0]["id"].(string)
}

// createFolder creates a folder and returns its ID.
func createFolder(t *testing.T, srv *mockserver.Server, profileID, name string) string {
	t.Helper()
	f := doJSON(t, srv, "POST", "/v1/profiles/"+profileID+"/folders", map[string]any{"name": name}, http.StatusCreated)
	return f["id"].(string)
}

// createTextItem creates a text item and returns its ID.
func createTextItem(t *testing.T, srv *mockserver.Server, folderID, name, text string) string {
	t.Helper()
	it := doJSON(t, srv, "POST", "/v1/folders/"+folderID+"/items",
		map[string]any{"type": "text", "name": name, "content": text}, http.StatusCreated)
	return it["id"].(string)
}

// targets is a start-analysis body naming the items.
func targets(itemIDs ...string) map[string]any {
	refs := []any{}
	for _, id := range itemIDs {
		refs = append(refs, map[string]any{"itemId": id})
	}
	return map[string]any{"targetItems": refs}
}

// startAnalysis starts an analysis of the items over HTTP and returns its
// ID.
func startAnalysis(t *testing.T, srv *mockserver.Server, profileID string, itemIDs ...string) string {
	t.Helper()
	a := jsonObject(t, do(t, srv, "POST", "/v1/analyses/"+profileID+"/analyze", targets(itemIDs...)), http.StatusAccepted)
	id, _ := a["id"].(string)
	require.True(t, strings.HasPrefix(id, "analysis_"), "start answered id %#v, want an analysis_ ID", a["id"])
	return id
}

// getAnalysis reads an analysis.
func getAnalysis(t *testing.T, srv *mockserver.Server, id string) map[string]any {
	t.Helper()
	return doJSON(t, srv, "GET", "/v1/analyses/"+id, nil, http.StatusOK)
}

// identityDoc is a text item the default engine reads as a passport.
const identityDoc = "Passport\nFull name: Jane Doe\nDate of birth: 1990-04-01\nPassport number: X1234567\nExpiry date: 2099-01-01\n"

// analysisFixture makes a profile with two ACTIVE text items.
func analysisFixture(t *testing.T, srv *mockserver.Server) (profileID string, itemIDs []string) {
	t.Helper()
	pid, fid := createProfile(t, srv, "Analysis subject")
	a := createTextItem(t, srv, fid, "passport.txt", identityDoc)
	b := createTextItem(t, srv, fid, "bank statement", "Bank statement\nAccount holder: Jane Doe\nAddress: 1 Main St\n")
	return pid, []string{a, b}
}

// pngBytes is the start of a PNG file: its signature and an IHDR chunk.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x00IEND\xaeB`\x82")

// pdfBytes is a small text-based PDF whose page shows "Hello PDF world".
var pdfBytes = []byte("%PDF-1.4\n" +
	"1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" +
	"2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n" +
	"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>\nendobj\n" +
	"4 0 obj\n<< /Length 47 >>\nstream\nBT /F1 12 Tf 72 712 Td (Hello PDF world) Tj ET\nendstream\nendobj\n" +
	"5 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n" +
	"trailer\n<< /Root 1 0 R >>\n%%EOF\n")

// ---------------------------------------------------------------------
// Fixtures through the test kit.

// passportOf is a text document the default engine reads as the passport
// of name.
func passportOf(name string) string {
	return "PASSPORT\nFull Name: " + name + "\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"
}

// passportDoc is Jane Doe's passport.
var passportDoc = passportOf("Jane Doe")

// addProfile creates a profile in wf_default through the kit and returns it
// with its default folder's ID.
func addProfile(t testing.TB, ten *mockserver.Tenant, name string) (*profilesvc.Profile, string) {
	t.Helper()
	p, err := ten.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: name})
	require.NoError(t, err, "CreateProfile")
	require.True(t, len(p.Folders) == 1 && p.Folders[0].IsDefault, "CreateProfile: folders %+v, want the default folder alone", p.Folders)
	return p, p.Folders[0].ID
}

// addProfileWithItem creates, through the kit, a profile named name whose
// default folder holds its passport (passportOf) as the text item
// "passport.txt"; it returns the profile's ID, the folder's and the
// item's.
func addProfileWithItem(t testing.TB, ten *mockserver.Tenant, name string) (profileID, folderID, itemID string) {
	t.Helper()
	p, fid := addProfile(t, ten, name)
	it, err := ten.AddTextItem(fid, "passport.txt", passportOf(name))
	require.NoError(t, err, "AddTextItem")
	return p.ID, fid, it.ID
}

// analysisOf returns an analysis through the kit, failing if it is gone.
func analysisOf(t testing.TB, ten *mockserver.Tenant, id string) *profilesvc.Analysis {
	t.Helper()
	a, ok := ten.Analysis(id)
	require.True(t, ok, "Analysis(%s): not found", id)
	return a
}

// wantAnalysisStatus checks an analysis's status through the kit.
func wantAnalysisStatus(t testing.TB, ten *mockserver.Tenant, id string, want profilesvc.AnalysisStatus) *profilesvc.Analysis {
	t.Helper()
	a := analysisOf(t, ten, id)
	require.Equal(t, want, a.Status, "status of analysis %s", id)
	return a
}

// testSeed is a seed with a workflow, two profiles, folders and items of
// every type.
func testSeed() *mockserver.Seed {
	return &mockserver.Seed{
		Workflows: []mockserver.Workflow{{
			ID:           "wf_seed",
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"extracted_values":{"type":"object"}}}`),
		}},
		Profiles: []mockserver.SeedProfile{
			{
				ID: "pf_alpha", WorkflowID: "wf_seed", Name: "Alpha", Description: "seeded", Metadata: map[string]any{"tier": "gold"},
				Folders: []mockserver.SeedFolder{
					{Name: "default", Items: []mockserver.SeedItem{{Type: profilesvc.ItemText, Name: "note", Content: json.RawMessage(`"hello"`)}}},
					{ID: "fld_ids", Name: "IDs", Items: []mockserver.SeedItem{
						{ID: "item_passport", Type: profilesvc.ItemFile, Name: "passport.txt", Data: []byte(passportDoc)},
						{Type: profilesvc.ItemJSON, Name: "form", Content: json.RawMessage(`{"full_name":"Jane Doe"}`), Status: profilesvc.ItemProcessing},
					}},
				},
			},
			{Name: "Beta"},
		},
	}
}

// checkSeeded checks the state testSeed leaves.
func checkSeeded(t *testing.T, ten *mockserver.Tenant) {
	t.Helper()
	p, ok := ten.Profile("pf_alpha")
	require.True(t, ok, "seeded profile pf_alpha not found")
	assert.True(t, p.WorkflowID == "wf_seed" && p.Name == "Alpha" && p.Description == "seeded" && p.Metadata["tier"] == "gold" && p.ItemsCount == 3,
		"seeded profile = %+v", p)
	assert.True(t, len(p.Folders) == 2 && p.Folders[0].Name == "default" && p.Folders[0].IsDefault && p.Folders[0].ItemsCount == 1 && p.Folders[1].ID == "fld_ids",
		"seeded folders = %+v", p.Folders)
	f, ok := ten.Folder("fld_ids")
	require.True(t, ok && len(f.Items) == 2, "seeded folder fld_ids = %+v, %v", f, ok)
	b, ok := ten.ItemBytes("item_passport")
	assert.True(t, ok && string(b) == passportDoc, "seeded file bytes = %q, %v", b, ok)
	form, ok := ten.Item(f.Items[1].ID)
	assert.True(t, ok && form.Type == profilesvc.ItemJSON && form.Status == profilesvc.ItemProcessing, "seeded json item = %+v", form)
	ps := ten.Profiles()
	require.Len(t, ps, 2, "Profiles()")
	beta := ps[slices.IndexFunc(ps, func(p *profilesvc.Profile) bool { return p.ID != "pf_alpha" })]
	assert.True(t, beta.Name == "Beta" && beta.WorkflowID == mockserver.DefaultWorkflowID, "seeded profile without a workflow = %+v, want it in wf_default", beta)
	wantRandomID(t, beta.ID, "pf_")
	assert.True(t, slices.ContainsFunc(ten.Workflows(), func(w mockserver.Workflow) bool { return w.ID == "wf_seed" }), "the seed's workflow was not added")
}

// ---------------------------------------------------------------------
// Checks of the resources of the interface document.

// analysisFields are the analysis fields the document marks always
// present.
var analysisFields = []string{"id", "profileId", "folderId", "engineId", "playbookId", "engine", "status",
	"processingTimeMs", "verificationStatus", "error", "options", "clientMetadata", "primaryReportId",
	"requestedAt", "completedAt", "createdAt"}

// resultFields are the fields a completed analysis adds.
var resultFields = []string{"riskAssessment", "extractedData", "outputSchema", "extractionStatus",
	"rawActionResults", "agentAuditLog", "findings", "recommendations", "targetItems", "systemMetadata"}

// checkAnalysis checks the always-present fields of an analysis.
func checkAnalysis(t *testing.T, a map[string]any, profileID, status string) {
	t.Helper()
	wantKeys(t, "analysis", a, analysisFields...)
	idField(t, "analysis", a, "id", "analysis_")
	assert.Equal(t, profileID, a["profileId"], "profileId")
	wantNull(t, "analysis", a, "folderId")
	wantNull(t, "analysis", a, "engineId")
	wantNull(t, "analysis", a, "engine")
	pb := stringField(t, "analysis", a, "playbookId")
	assert.True(t, strings.HasPrefix(pb, "PB-") && len(pb) > 3, "playbookId = %q, want a PB- prefix", pb)
	assert.Equal(t, status, a["status"], "status")
	ms := numberField(t, "analysis", a, "processingTimeMs")
	assert.GreaterOrEqual(t, ms, 0.0, "processingTimeMs = %v, want >= 0", ms)
	wantOneOf(t, "verificationStatus", a["verificationStatus"], "pending_review", "approved", "rejected")
	for _, k := range []string{"options", "clientMetadata"} {
		if a[k] != nil {
			objectField(t, "analysis", a, k)
		}
	}
	requested := timeField(t, "analysis", a, "requestedAt")
	timeField(t, "analysis", a, "createdAt")
	switch status {
	case "completed":
		wantNull(t, "completed analysis", a, "error")
		idField(t, "completed analysis", a, "primaryReportId", "rpt_")
		done := timeField(t, "completed analysis", a, "completedAt")
		assert.False(t, done.Before(requested), "completedAt %v is before requestedAt %v", done, requested)
	case "failed":
		msg, ok := a["error"].(string)
		assert.True(t, ok && msg != "", "failed analysis: error = %#v, want a message", a["error"])
		wantNull(t, "failed analysis", a, "primaryReportId")
	default:
		wantNull(t, status+" analysis", a, "error")
		wantNull(t, status+" analysis", a, "primaryReportId")
		wantNull(t, status+" analysis", a, "completedAt")
	}
}

// checkResult checks the result fields of a completed analysis of
// wf_default and their consistency with each other.
func checkResult(t *testing.T, a map[string]any, profileID string, itemIDs []string) {
	t.Helper()
	checkResultOf(t, a, profileID, itemIDs, mockserver.DefaultWorkflow())
}

// checkResultOf checks the result fields of a completed analysis of the
// workflow wf: every one present, one finding, audit entry, history entry
// and raw result per action of its policy, and the extracted data
// consistent with the risk assessment and the output schema.
func checkResultOf(t *testing.T, a map[string]any, profileID string, itemIDs []string, wf mockserver.Workflow) {
	t.Helper()
	wantKeys(t, "completed analysis", a, resultFields...)
	for _, k := range resultFields {
		assert.NotNil(t, a[k], "completed analysis: %s is null", k)
	}
	policy := wf.Policy

	ra := objectField(t, "analysis", a, "riskAssessment")
	wantOneOf(t, "riskAssessment.riskLevel", ra["riskLevel"], "low", "medium", "high")
	s := numberField(t, "riskAssessment", ra, "riskScore")
	assert.True(t, s >= 0 && s <= 100, "riskScore = %v, want 0..100", s)
	for i, f := range arrayField(t, "riskAssessment", ra, "riskFactors") {
		_, ok := f.(string)
		assert.True(t, ok, "riskFactors[%d] = %#v, want a string", i, f)
	}

	ed := objectField(t, "analysis", a, "extractedData")
	os := objectField(t, "analysis", a, "outputSchema")
	props := objectField(t, "outputSchema", os, "properties")
	es := objectField(t, "analysis", a, "extractionStatus")
	assert.Len(t, es, len(props), "extractionStatus has %d fields, the output schema %d", len(es), len(props))
	for k := range props {
		wantOneOf(t, "extractionStatus."+k, es[k], "extracted", "missing")
	}
	for k := range ed {
		assert.Contains(t, props, k, "extractedData.%s is not a field of the output schema", k)
	}
	if _, ok := props["request_id"]; ok {
		assert.Equal(t, profileID, ed["request_id"], "extractedData.request_id, want the profile ID")
		b, _ := json.Marshal(props["request_id"])
		assert.Contains(t, string(b), profileID, "outputSchema.properties.request_id = %s, want it to hold the profile ID", b)
	}
	if _, ok := props["review_result"]; !ok {
		checkActions(t, a, itemIDs, policy)
		return
	}
	rr := objectField(t, "extractedData", ed, "review_result")
	wantOneOf(t, "review_result.final_action", rr["final_action"], "approve", "reject", "manual_review")
	assert.Equal(t, ra["riskLevel"], rr["final_risk_level"], "review_result.final_risk_level, want riskAssessment.riskLevel")
	stringField(t, "review_result", rr, "final_action_reason")
	stringField(t, "review_result", rr, "final_risk_level_reason")
	objectField(t, "extractedData", ed, "extracted_values")
	cj := objectField(t, "extractedData", ed, "category_judgements")
	wantOneOf(t, "overall_consistency_result", cj["overall_consistency_result"], "pass", "needs_review", "fail")
	for k, v := range cj {
		if strings.HasSuffix(k, "_check_result") {
			wantOneOf(t, "category_judgements."+k, v, "pass", "fail", "unverifiable", "needs_review")
		}
	}
	for k, v := range objectField(t, "extractedData", ed, "document_validations") {
		if strings.HasSuffix(k, "_is_valid") {
			_, ok := v.(bool)
			assert.True(t, ok, "document_validations.%s = %#v, want a boolean", k, v)
		}
	}

	checkActions(t, a, itemIDs, policy)
}

// checkActions checks that a completed analysis has one finding, audit
// entry, history entry and raw result per action of the policy, in order,
// and that its recommendations and target items are well formed.
func checkActions(t *testing.T, a map[string]any, itemIDs []string, policy []mockserver.PolicyAction) {
	t.Helper()
	n := len(policy)
	rar := objectField(t, "analysis", a, "rawActionResults")
	audit := objectsField(t, "analysis", a, "agentAuditLog")
	findings := objectsField(t, "analysis", a, "findings")
	sm := objectField(t, "analysis", a, "systemMetadata")
	history := objectsField(t, "systemMetadata", sm, "workflowHistory")
	require.True(t, len(rar) == n && len(audit) == n && len(findings) == n && len(history) == n,
		"rawActionResults %d, agentAuditLog %d, findings %d, workflowHistory %d: want %d each (one per policy action)",
		len(rar), len(audit), len(findings), len(history), n)
	numberField(t, "systemMetadata", sm, "totalIterations")
	wantIDs := []any{}
	for i := 1; i <= n; i++ {
		wantIDs = append(wantIDs, float64(i))
	}
	wantSameJSON(t, "systemMetadata.completedWorkIds", sm["completedWorkIds"], wantIDs)

	findingIDs := map[string]bool{}
	targetIDs := make([]any, len(itemIDs))
	for i, id := range itemIDs {
		targetIDs[i] = id
	}
	for i, act := range policy {
		workID := float64(i + 1)
		e := audit[i]
		what := fmt.Sprintf("agentAuditLog[%d]", i)
		wantKeys(t, what, e, "workId", "actionName", "category", "query", "reasoning", "success", "iteration", "durationMs", "executedAt", "targetItemIds")
		assert.True(t, e["workId"] == workID && e["actionName"] == act.ActionName && e["category"] == act.Category,
			"%s = workId %v action %v category %v, want %v %s %s", what, e["workId"], e["actionName"], e["category"], workID, act.ActionName, act.Category)
		stringField(t, what, e, "query")
		stringField(t, what, e, "reasoning")
		boolField(t, what, e, "success")
		numberField(t, what, e, "iteration")
		numberField(t, what, e, "durationMs")
		timeField(t, what, e, "executedAt")
		wantSameJSON(t, what+".targetItemIds", e["targetItemIds"], targetIDs)
		if v, ok := e["verificationStatus"]; ok && v != nil {
			wantOneOf(t, what+".verificationStatus", v, "passed", "needs_review", "failed")
		}
		if rag, ok := e["ragResponse"]; ok && rag != nil {
			r := objectField(t, what, e, "ragResponse")
			wantKeys(t, what+".ragResponse", r, "answer", "citations", "chunksSearched", "processingTimeMs")
		}
		if calls, ok := e["mcpToolCalls"]; ok && calls != nil {
			for j, c := range objectsField(t, what, e, "mcpToolCalls") {
				wantKeys(t, fmt.Sprintf("%s.mcpToolCalls[%d]", what, j), c, "toolName", "engineCode", "engineName", "params",
					"success", "startedAt", "executionTimeMs", "rawContent", "fallbackToRag", "selectionReason")
			}
		}

		h := history[i]
		what = fmt.Sprintf("workflowHistory[%d]", i)
		wantKeys(t, what, h, "workId", "actionName", "query", "reason", "success", "iteration", "timestamp")
		assert.True(t, h["workId"] == workID && h["actionName"] == act.ActionName,
			"%s = workId %v action %v, want %v %s", what, h["workId"], h["actionName"], workID, act.ActionName)
		timeField(t, what, h, "timestamp")

		r, ok := rar[act.ActionName].(map[string]any)
		if assert.True(t, ok, "rawActionResults has no object for action %s", act.ActionName) {
			what = "rawActionResults." + act.ActionName
			wantKeys(t, what, r, "answer", "workId", "citationsCount", "verificationStatus")
			stringField(t, what, r, "answer")
			numberField(t, what, r, "citationsCount")
			assert.Equal(t, workID, r["workId"], "%s.workId", what)
			wantOneOf(t, what+".verificationStatus", r["verificationStatus"], "passed", "needs_review", "failed")
			if v, ok := e["verificationStatus"]; ok && v != nil {
				assert.Equal(t, v, r["verificationStatus"], "%s.verificationStatus, want the audit entry's", what)
			}
		}

		f := findings[i]
		what = fmt.Sprintf("findings[%d]", i)
		wantKeys(t, what, f, "id", "category", "result", "details", "sortOrder")
		fid := idField(t, what, f, "id", "af_")
		assert.False(t, findingIDs[fid], "finding ID %s repeated", fid)
		findingIDs[fid] = true
		assert.Equal(t, act.ActionName, f["category"], "%s.category, want the action name", what)
		wantOneOf(t, what+".result", f["result"], "passed", "warning", "failed")
		stringField(t, what, f, "details")
		numberField(t, what, f, "sortOrder")
	}

	recs := objectsField(t, "analysis", a, "recommendations")
	assert.NotEmpty(t, recs, "no recommendations")
	for i, r := range recs {
		what := fmt.Sprintf("recommendations[%d]", i)
		wantKeys(t, what, r, "id", "content", "priority", "sortOrder")
		idField(t, what, r, "id", "ar_")
		stringField(t, what, r, "content")
		numberField(t, what, r, "priority")
		numberField(t, what, r, "sortOrder")
	}

	targetItems := objectsField(t, "analysis", a, "targetItems")
	require.Len(t, targetItems, len(itemIDs), "targetItems")
	for i, ti := range targetItems {
		what := fmt.Sprintf("targetItems[%d]", i)
		wantKeys(t, what, ti, "itemId", "name", "type", "sourceRef")
		assert.Equal(t, itemIDs[i], ti["itemId"], "%s.itemId", what)
		stringField(t, what, ti, "name")
		wantOneOf(t, what+".type", ti["type"], "file", "text", "json")
		if ti["sourceRef"] != nil {
			stringField(t, what, ti, "sourceRef")
		}
	}
}

// checkProfile checks the fields every profile answer has.
func checkProfile(t *testing.T, what string, p map[string]any) {
	t.Helper()
	wantKeys(t, what, p, "id", "workflowId", "name", "itemsCount", "lastAnalysisAt", "createdAt", "updatedAt")
	idField(t, what, p, "id", "pf_")
	stringField(t, what, p, "workflowId")
	stringField(t, what, p, "name")
	numberField(t, what, p, "itemsCount")
	if v := p["lastAnalysisAt"]; v != nil {
		timeField(t, what, p, "lastAnalysisAt")
	}
	created := timeField(t, what, p, "createdAt")
	updated := timeField(t, what, p, "updatedAt")
	assert.False(t, updated.Before(created), "%s: updatedAt %v is before createdAt %v", what, updated, created)
	if d, ok := p["description"]; ok {
		_, isStr := d.(string)
		assert.True(t, isStr, "%s: description = %#v, want a string", what, d)
	}
	if m, ok := p["metadata"]; ok && m != nil {
		objectField(t, what, p, "metadata")
	}
}

// checkFolder checks the fields of a folder answer (without items).
func checkFolder(t *testing.T, what string, f map[string]any, profileID string) {
	t.Helper()
	wantKeys(t, what, f, "id", "profileId", "name", "isDefault", "itemsCount", "createdAt", "updatedAt")
	idField(t, what, f, "id", "fld_", "fd_")
	assert.Equal(t, profileID, stringField(t, what, f, "profileId"), "%s: profileId", what)
	stringField(t, what, f, "name")
	boolField(t, what, f, "isDefault")
	numberField(t, what, f, "itemsCount")
	timeField(t, what, f, "createdAt")
	timeField(t, what, f, "updatedAt")
}

// listFolders reads one page of a profile's folders and checks its shape.
func listFolders(t *testing.T, srv *mockserver.Server, profileID, query string) (ids []string, names []string, next *string) {
	t.Helper()
	page := doJSON(t, srv, "GET", "/v1/profiles/"+profileID+"/folders"+query, nil, http.StatusOK)
	wantExactKeys(t, "folder page", page, "count", "nextCursor", "items")
	items := objectsField(t, "folder page", page, "items")
	count := numberField(t, "folder page", page, "count")
	assert.Equal(t, len(items), int(count), "count = %v, but the page has %d items", count, len(items))
	for i, f := range items {
		what := fmt.Sprintf("items[%d]", i)
		checkFolder(t, what, f, profileID)
		wantNoKey(t, what, f, "items")
		ids = append(ids, f["id"].(string))
		names = append(names, f["name"].(string))
	}
	switch c := page["nextCursor"].(type) {
	case string:
		assert.NotEmpty(t, c, "nextCursor is an empty string: want a cursor or null")
		next = &c
	case nil:
		wantNull(t, "folder page", page, "nextCursor")
	default:
		assert.Failf(t, "a nextCursor of the wrong type", "nextCursor = %#v, want a string or null", c)
	}
	return ids, names, next
}

// checkItem checks every field of the document's full Item.
func checkItem(t *testing.T, what string, it map[string]any, folderID string) {
	t.Helper()
	wantKeys(t, what, it, "id", "folderId", "type", "name", "content", "contentType", "sizeBytes",
		"url", "storageOriginalUrl", "detected", "metadata", "status", "processedAt", "createdAt")
	idField(t, what, it, "id", "item_")
	assert.Equal(t, folderID, stringField(t, what, it, "folderId"), "%s: folderId", what)
	switch typ := stringField(t, what, it, "type"); typ {
	case "file":
		wantNull(t, what, it, "content")
	case "text":
		stringField(t, what, it, "content")
	case "json":
		assert.NotNil(t, it["content"], "%s: content of a json item is null", what)
	default:
		assert.Failf(t, "an item of an unknown type", "%s: type = %q, want file, text or json", what, typ)
	}
	stringField(t, what, it, "name")
	ct := stringField(t, what, it, "contentType")
	assert.Contains(t, ct, "/", "%s: contentType = %q, want a MIME type", what, ct)
	numberField(t, what, it, "sizeBytes")
	for _, k := range []string{"url", "storageOriginalUrl"} {
		u, err := url.Parse(stringField(t, what, it, k))
		assert.True(t, err == nil && u.Scheme == "http" && u.Host != "", "%s: %s = %q, want an absolute http URL", what, k, it[k])
	}
	d := objectField(t, what, it, "detected")
	wantExactKeys(t, what+".detected", d, "contentType", "extension", "fileCategory")
	stringField(t, what+".detected", d, "contentType")
	stringField(t, what+".detected", d, "extension")
	stringField(t, what+".detected", d, "fileCategory")
	objectField(t, what, it, "metadata")
	assert.Equal(t, "ACTIVE", stringField(t, what, it, "status"), "%s: status", what)
	timeField(t, what, it, "processedAt")
	timeField(t, what, it, "createdAt")
}

// ---------------------------------------------------------------------
// Requests in the background: long polls.

// poll is the outcome of a request sent in the background.
type poll struct {
	resp *response
	err  error
}

// goSend sends r in the background and returns the channel its outcome
// arrives on. The request is built here, on the test's goroutine.
func goSend(t *testing.T, srv *mockserver.Server, r request) <-chan poll {
	t.Helper()
	req, err := r.build(srv)
	require.NoError(t, err)
	out := make(chan poll, 1)
	go func() {
		resp, err := roundTrip(rawClient, req)
		out <- poll{resp: resp, err: err}
	}()
	return out
}

// longPoll starts GET path in the background.
func longPoll(t *testing.T, srv *mockserver.Server, ctx context.Context, path string) <-chan poll {
	t.Helper()
	return goSend(t, srv, request{Method: "GET", Path: path, Ctx: ctx})
}

// await waits for the outcome of a request sent in the background.
func await(t testing.TB, ch <-chan poll, within time.Duration) poll {
	t.Helper()
	select {
	case p := <-ch:
		return p
	case <-time.After(within):
		require.FailNowf(t, "no answer", "the request sent in the background did not answer within %v", within)
		return poll{}
	}
}

// awaitAnswer waits for the answer of a request sent in the background; a
// transport error fails the test.
func awaitAnswer(t testing.TB, ch <-chan poll, within time.Duration) *response {
	t.Helper()
	p := await(t, ch, within)
	require.NoError(t, p.err, "the request sent in the background")
	return p.resp
}

// wantNotAnswered checks that a request sent in the background has not
// been answered yet, without waiting.
func wantNotAnswered(t testing.TB, ch <-chan poll) {
	t.Helper()
	select {
	case p := <-ch:
		require.FailNowf(t, "answered early", "the request was answered early: %s, error %v", p.resp, p.err)
	default:
	}
}

// awaitPollWait waits for the next signal of a server made with
// mockserver.WithPollWaits(waits): the long poll ch has read its analysis,
// found it not done, and waits for its next change. A poll that answers
// instead fails the test, as does no signal within a minute, a bound far
// above any machine's.
func awaitPollWait(t testing.TB, waits <-chan struct{}, ch <-chan poll) {
	t.Helper()
	select {
	case <-waits:
	case p := <-ch:
		require.FailNowf(t, "answered early", "the long poll answered rather than wait for a change: %s, error %v", p.resp, p.err)
	case <-time.After(time.Minute):
		require.FailNow(t, "no long poll waits", "no long poll waited for a change within a minute")
	}
}

// ---------------------------------------------------------------------
// Shutting down.

// dialQuiet opens a connection to srv, a server made with WithTLS, and
// sends no request on it, as http.Transport does with a spare connection.
// The handshake, done when it returns, says that the server has accepted
// the connection. It is closed when the test ends.
func dialQuiet(t *testing.T, srv *mockserver.Server) net.Conn {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	// A hang guard only, for the dial and the handshake.
	d := &net.Dialer{Timeout: time.Minute}
	conn, err := tls.DialWithDialer(d, "tcp", strings.TrimPrefix(srv.URL, "https://"), &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	require.NoError(t, err, "dialling %s", srv.URL)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// wantQuietConnClosed shuts srv down with its grace period already over,
// and checks that conn, the client's side of a connection that has sent
// no request, was closed at once rather than left to the grace period:
// the shutdown, if it says that the grace period ended, cut no
// connection, and conn reads its end.
func wantQuietConnClosed(t *testing.T, srv *mockserver.Server, conn net.Conn) {
	t.Helper()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := srv.Shutdown(ended); err != nil {
		assert.ErrorIs(t, err, context.Canceled, "Shutdown with its grace period over")
		assert.Contains(t, err.Error(), ": 0 connections under way cut", "Shutdown left a connection that had sent nothing to the grace period")
	}
	// A hang guard only: the connection is closed already.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := conn.Read(make([]byte, 1))
	var ne net.Error
	require.False(t, err == nil || errors.As(err, &ne) && ne.Timeout(), "the connection that sent nothing is still open after Shutdown: %v", err)
}

// ---------------------------------------------------------------------
// Failures kept.

// recordedErrors is a testing.TB that keeps what ExpectRequests reports
// instead of failing the test; anything else goes to the real test.
type recordedErrors struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (r *recordedErrors) Helper() {}

func (r *recordedErrors) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprint(args...))
}

func (r *recordedErrors) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}

func (r *recordedErrors) messages() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

// ---------------------------------------------------------------------
// Clocks.

// kitT0 is when the fake clocks of the kit tests start.
var kitT0 = time.Date(2030, 4, 1, 9, 0, 0, 0, time.UTC)

// blockUntil waits until n timers are armed on the fake clock: with
// manual analyses, a held long poll's timeout is the only timer, so n = 1
// means the server holds the poll.
func blockUntil(t testing.TB, c *mockserver.FakeClock, n int) {
	t.Helper()
	// A hang guard only, far above any machine's.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, c.BlockUntil(ctx, n), "waiting for %d timers on the fake clock", n)
}

// wantHeldFor checks that a request sent in the background (ch) is held
// for d on the fake clock, by the one timer armed on it: not answered a
// nanosecond before d has passed, answered once it has. No time passes
// but the clock's, so the check is exact. It returns the answer.
func wantHeldFor(t *testing.T, c *mockserver.FakeClock, ch <-chan poll, d time.Duration) *response {
	t.Helper()
	blockUntil(t, c, 1)
	c.Advance(d - time.Nanosecond)
	require.Equal(t, 1, c.Timers(), "timers %v into a hold of %v, want the hold's still waiting", d-time.Nanosecond, d)
	wantNotAnswered(t, ch)
	c.Advance(time.Nanosecond)
	return awaitAnswer(t, ch, time.Minute)
}

// timerClock wraps a Clock and reports each AfterFunc (its duration) on
// armed, and each stop of such a timer on stopped, so that a test knows
// when a long poll or a delayed request is held and when it has been let
// go of.
type timerClock struct {
	mockserver.Clock
	armed   chan time.Duration
	stopped chan time.Duration
}

func newTimerClock(c mockserver.Clock) *timerClock {
	return &timerClock{Clock: c, armed: make(chan time.Duration, 64), stopped: make(chan time.Duration, 64)}
}

func (c *timerClock) AfterFunc(d time.Duration, f func()) func() bool {
	stop := c.Clock.AfterFunc(d, f)
	select {
	case c.armed <- d:
	default:
	}
	var once sync.Once
	return func() bool {
		ok := stop()
		once.Do(func() {
			select {
			case c.stopped <- d:
			default:
			}
		})
		return ok
	}
}

// waitArmed waits until a timer of duration d is armed on the clock. It
// fails the test after a minute, a bound far above any machine's (a hang
// guard, not a measure).
func (c *timerClock) waitArmed(t testing.TB, d time.Duration) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case got := <-c.armed:
			if got == d {
				return
			}
		case <-deadline:
			require.FailNowf(t, "no timer", "no timer of %v was armed within a minute", d)
		}
	}
}

// waitStopped waits until a timer of duration d is stopped. It fails the
// test after a minute, a bound far above any machine's (a hang guard, not
// a measure).
func (c *timerClock) waitStopped(t testing.TB, d time.Duration) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case got := <-c.stopped:
			if got == d {
				return
			}
		case <-deadline:
			require.FailNowf(t, "timer not stopped", "the timer of %v was not stopped within a minute", d)
		}
	}
}

// wallClock is the real clock, for wrapping in a timerClock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
func (wallClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// gatedClock is the real clock whose timers, once they have run their
// time, wait for release before they fire: a test looks at what a timer
// is to change before it can have changed, without a fake clock.
type gatedClock struct {
	wallClock
	gate chan struct{}
	once sync.Once
}

// newGatedClock returns a gated clock that is released when the test
// ends, should the test not release it.
func newGatedClock(t testing.TB) *gatedClock {
	c := &gatedClock{gate: make(chan struct{})}
	t.Cleanup(c.release)
	return c
}

func (c *gatedClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, func() {
		<-c.gate
		f()
	}).Stop
}

// release lets the timers fire, now and from now on.
func (c *gatedClock) release() { c.once.Do(func() { close(c.gate) }) }

// risingClock is the real clock with no two readings alike: each is at
// least a millisecond after the one before, the resolution of the mock's
// timestamps, so that records made one after the other have distinct
// times without a test sleeping between them.
type risingClock struct {
	mu   sync.Mutex
	last time.Time
}

func (c *risingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if next := c.last.Add(time.Millisecond); now.Before(next) {
		now = next
	}
	c.last = now
	return now
}

func (c *risingClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// ---------------------------------------------------------------------
// Waits for calls made in the background.

// watchedCtx is a context that says when a waiter first asks for its Done
// channel. AwaitRequest and AwaitAnalysis ask for it only once they have
// looked and found nothing, with the record's (or the store's) change
// channel already in hand: a request or an analysis made after waiting is
// closed comes after the wait began, and must end it.
type watchedCtx struct {
	context.Context
	once    sync.Once
	waiting chan struct{}
}

// newWatchedCtx returns a watched context and its cancel function.
func newWatchedCtx(parent context.Context) (*watchedCtx, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	return &watchedCtx{Context: ctx, waiting: make(chan struct{})}, cancel
}

func (c *watchedCtx) Done() <-chan struct{} {
	c.once.Do(func() { close(c.waiting) })
	return c.Context.Done()
}

// outcome is what a call made in the background returned.
type outcome[T any] struct {
	v   T
	err error
}

// goCall runs f in its own goroutine; its outcome arrives on the channel.
func goCall[T any](f func() (T, error)) <-chan outcome[T] {
	ch := make(chan outcome[T], 1)
	go func() {
		v, err := f()
		ch <- outcome[T]{v, err}
	}()
	return ch
}

// receive waits for a value on ch (or its closing). It fails the test
// after a minute, a bound far above any machine's (a hang guard, not a
// measure).
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		require.FailNowf(t, "nothing came", "%s: nothing within a minute", what)
		var zero T
		return zero
	}
}

// requestIDs returns the request IDs of recorded requests, in order.
func requestIDs(rs []mockserver.RecordedRequest) []string {
	ids := []string{}
	for _, r := range rs {
		ids = append(ids, r.RequestID)
	}
	return ids
}

// ---------------------------------------------------------------------
// A state to snapshot.

// snapshotFixture is what buildSnapshotFixture made.
type snapshotFixture struct {
	alpha, beta        string // profiles
	idsFolder          string // alpha's second folder
	png, form          string // items of alpha
	completed, running string // beta's analysis, alpha's
}

// snapshotRunDuration is how long the fixture's analyses take.
const snapshotRunDuration = 10 * time.Second

// buildSnapshotFixture fills srv: two profiles, a second folder, items of
// each type (text, JSON, files with their bytes), beta's analysis
// completed and approved, alpha's running, halfway through its run.
func buildSnapshotFixture(t *testing.T, srv *mockserver.Server, fc *mockserver.FakeClock) snapshotFixture {
	t.Helper()
	var f snapshotFixture
	alpha, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Alpha", Description: "first", Metadata: map[string]any{"tier": "gold"}})
	require.NoError(t, err)
	f.alpha = alpha.ID
	ids, err := srv.CreateFolder(alpha.ID, "IDs")
	require.NoError(t, err)
	f.idsFolder = ids.ID
	passport, err := srv.AddTextItem(alpha.Folders[0].ID, "passport.txt", passportOf("Jane Doe"))
	require.NoError(t, err)
	form, err := srv.AddItem(ids.ID, mockserver.SeedItem{Type: profilesvc.ItemJSON, Name: "form",
		Content: json.RawMessage(`{"full_name":"Jane Doe","age":40}`), Metadata: map[string]any{"source": "web"}})
	require.NoError(t, err)
	f.form = form.ID
	png, err := srv.AddFileItem(ids.ID, "scan.png", pngBytes)
	require.NoError(t, err)
	f.png = png.ID
	_, err = srv.AddFileItem(ids.ID, "letter.pdf", pdfBytes)
	require.NoError(t, err)

	beta, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Beta"})
	require.NoError(t, err)
	f.beta = beta.ID
	betaDoc, err := srv.AddTextItem(beta.Folders[0].ID, "passport.txt", passportOf("John Roe"))
	require.NoError(t, err)
	f.completed = startAnalysis(t, srv, beta.ID, betaDoc.ID)
	blockUntil(t, fc, 2)
	fc.Advance(snapshotRunDuration)
	wantAnalysisStatus(t, srv.Tenant, f.completed, profilesvc.AnalysisCompleted)
	require.NoError(t, srv.SetVerificationStatus(f.completed, profilesvc.VerificationApproved))

	f.running = startAnalysis(t, srv, alpha.ID, passport.ID, form.ID)
	blockUntil(t, fc, 2)
	fc.Advance(snapshotRunDuration / 2)
	wantAnalysisStatus(t, srv.Tenant, f.running, profilesvc.AnalysisProcessing)
	return f
}
