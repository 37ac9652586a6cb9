package mockserver_test

// Tests of the embedding API (New, NewTest, Start, NewHandler, Close,
// Client) and of the test kit, through Go and through the /_mock/ control
// API over HTTP. Helpers are prefixed with "k".

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// kPassport is a text document the default engine reads as a passport.
const kPassport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"

var (
	kUUIDPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	// kIDSuffix is the random part of a server ID: 20 characters of
	// lower-case base32 without i, l, o and u.
	kIDSuffix = `[0-9a-hjkmnp-tv-z]{20}`
)

// kResp is a raw HTTP answer.
type kResp struct {
	Status int
	Header http.Header
	Body   []byte
}

// kHTTP is the plain client of the raw requests: no retries, no redirects.
var kHTTP = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// kDo sends a raw request to base+path with the key (none if empty). body
// is nil, a string or []byte sent as they are, or a value to encode as
// JSON; a non-nil body is sent as application/json.
func kDo(t testing.TB, base, key, method, path string, body any) kResp {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("encoding the body: %v", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, base+path, rd)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := kHTTP.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return kResp{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// kCall is kDo against a server with its own key.
func kCall(t testing.TB, srv *mockserver.Server, method, path string, body any) kResp {
	t.Helper()
	return kDo(t, srv.URL, srv.APIKey, method, path, body)
}

// kWant fails the test unless the answer has the status.
func kWant(t testing.TB, r kResp, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
}

// kJSON decodes an answer's body into v.
func kJSON(t testing.TB, r kResp, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// kWantError checks that the answer is the service's error: the status,
// a JSON body of exactly {error:{code,status,message}} with that code, the
// same status and a message; it returns the message.
func kWantError(t testing.TB, r kResp, status int, code string) string {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var top map[string]json.RawMessage
	kJSON(t, r, &top)
	if len(top) != 1 || top["error"] == nil {
		t.Fatalf("error body %s: want exactly the key \"error\"", r.Body)
	}
	var inner map[string]any
	if err := json.Unmarshal(top["error"], &inner); err != nil {
		t.Fatalf("error body %s: %v", r.Body, err)
	}
	if len(inner) != 3 {
		t.Errorf("error body %s: want exactly code, status and message", r.Body)
	}
	if inner["code"] != code {
		t.Errorf("error code = %v, want %s; body: %s", inner["code"], code, r.Body)
	}
	if inner["status"] != float64(status) {
		t.Errorf("error status = %v, want %d", inner["status"], status)
	}
	msg, _ := inner["message"].(string)
	if strings.TrimSpace(msg) == "" {
		t.Errorf("error body %s: empty message", r.Body)
	}
	return msg
}

// kProfile creates a profile in wf_default through the kit and returns it
// with its default folder's ID.
func kProfile(t testing.TB, ten *mockserver.Tenant, name string) (*profilesvc.Profile, string) {
	t.Helper()
	p, err := ten.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: name})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	if len(p.Folders) != 1 || !p.Folders[0].IsDefault {
		t.Fatalf("CreateProfile: folders %+v, want the default folder alone", p.Folders)
	}
	return p, p.Folders[0].ID
}

// kProfileWithItem creates a profile holding the passport as a text item.
func kProfileWithItem(t testing.TB, ten *mockserver.Tenant) (profileID, itemID string) {
	t.Helper()
	p, fid := kProfile(t, ten, "Jane Doe")
	it, err := ten.AddTextItem(fid, "passport.txt", kPassport)
	if err != nil {
		t.Fatalf("AddTextItem: %v", err)
	}
	return p.ID, it.ID
}

// kStart starts an analysis over HTTP and returns its ID.
func kStart(t testing.TB, base, key, profileID string, itemIDs ...string) string {
	t.Helper()
	r := kStartResp(t, base, key, profileID, itemIDs...)
	kWant(t, r, http.StatusAccepted)
	var out struct {
		ID string `json:"id"`
	}
	kJSON(t, r, &out)
	if !strings.HasPrefix(out.ID, "analysis_") {
		t.Fatalf("start answered id %q", out.ID)
	}
	return out.ID
}

func kStartResp(t testing.TB, base, key, profileID string, itemIDs ...string) kResp {
	t.Helper()
	refs := make([]map[string]string, len(itemIDs))
	for i, id := range itemIDs {
		refs[i] = map[string]string{"itemId": id}
	}
	return kDo(t, base, key, "POST", "/v1/analyses/"+profileID+"/analyze", map[string]any{"targetItems": refs})
}

// kAnalysis returns an analysis through the kit, failing if it is gone.
func kAnalysis(t testing.TB, ten *mockserver.Tenant, id string) *profilesvc.Analysis {
	t.Helper()
	a, ok := ten.Analysis(id)
	if !ok {
		t.Fatalf("Analysis(%s): not found", id)
	}
	return a
}

// kWantStatus checks an analysis's status through the kit.
func kWantStatus(t testing.TB, ten *mockserver.Tenant, id string, want profilesvc.AnalysisStatus) *profilesvc.Analysis {
	t.Helper()
	a := kAnalysis(t, ten, id)
	if a.Status != want {
		t.Fatalf("analysis %s status = %s, want %s", id, a.Status, want)
	}
	return a
}

// kWantID checks that id is prefix followed by a random suffix.
func kWantID(t testing.TB, id, prefix string) {
	t.Helper()
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + kIDSuffix + `$`).MatchString(id) {
		t.Errorf("ID %q: want %s followed by 20 base32 characters", id, prefix)
	}
}

// kLongPoll starts a long poll of an analysis in a goroutine; the channel
// gets its answer, or a zero kResp with Status -1 on a transport error.
func kLongPoll(t testing.TB, base, key, id string, timeoutSeconds int) <-chan kResp {
	t.Helper()
	ch := make(chan kResp, 1)
	go func() {
		req, err := http.NewRequest("GET", fmt.Sprintf("%s/v1/analyses/%s?waitForReport=true&timeoutSeconds=%d", base, id, timeoutSeconds), nil)
		if err != nil {
			ch <- kResp{Status: -1}
			return
		}
		req.Header.Set("x-api-key", key)
		resp, err := (&http.Client{Timeout: time.Duration(timeoutSeconds+30) * time.Second}).Do(req)
		if err != nil {
			ch <- kResp{Status: -1, Body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		ch <- kResp{Status: resp.StatusCode, Header: resp.Header, Body: b}
	}()
	return ch
}

// kReceive waits for a long poll's answer.
func kReceive(t testing.TB, ch <-chan kResp, within time.Duration) kResp {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(within):
		t.Fatalf("no answer within %v", within)
		return kResp{}
	}
}

// kWantBlocked checks that a long poll has not answered yet.
func kWantBlocked(t testing.TB, ch <-chan kResp, wait time.Duration) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("the long poll answered early: %d %s", r.Status, r.Body)
	case <-time.After(wait):
	}
}

// kHeld waits until the server holds a long poll: with manual analyses,
// the poll's timeout is the only timer on the fake clock.
func kHeld(t testing.TB, fc *mockserver.FakeClock) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := fc.BlockUntil(ctx, 1); err != nil {
		t.Fatalf("the long poll is not held: %v", err)
	}
}

// ---------------------------------------------------------------------
// Embedding.

func TestKitNew(t *testing.T) {
	srv := mockserver.New()
	defer srv.Close()

	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+$`).MatchString(srv.URL) {
		t.Errorf("URL = %q, want http://127.0.0.1:PORT", srv.URL)
	}
	if !kUUIDPattern.MatchString(srv.APIKey) {
		t.Errorf("APIKey = %q, want a random (version 4) UUID", srv.APIKey)
	}
	other := mockserver.New()
	defer other.Close()
	if other.APIKey == srv.APIKey {
		t.Errorf("two servers share the API key %s", srv.APIKey)
	}
	if other.URL == srv.URL {
		t.Errorf("two servers share the URL %s", srv.URL)
	}

	// Client is pointed at the server with its key, and takes options.
	c := srv.Client(profilesvc.WithUserAgent("kit-test/1"))
	if c.BaseURL() != srv.URL {
		t.Errorf("Client().BaseURL() = %q, want %q", c.BaseURL(), srv.URL)
	}
	p, err := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Through the client"})
	if err != nil {
		t.Fatalf("CreateProfile through srv.Client: %v", err)
	}
	if _, ok := srv.Profile(p.ID); !ok {
		t.Errorf("the profile the client created is not in the server's state")
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("User-Agent") == "" || !strings.HasPrefix(reqs[0].Header.Get("User-Agent"), "kit-test/1 ") {
		t.Errorf("the client's options were not applied: requests %+v", reqs)
	}

	// A missing or wrong key gets 401.
	kWantError(t, kDo(t, srv.URL, "", "GET", "/v1/profiles/"+p.ID, nil), 401, "UNAUTHORIZED")
	kWantError(t, kDo(t, srv.URL, "00000000-0000-4000-8000-000000000000", "GET", "/v1/profiles/"+p.ID, nil), 401, "UNAUTHORIZED")

	// Close is idempotent, and the server stops answering.
	srv.Close()
	srv.Close()
	if _, err := c.GetProfile(t.Context(), p.ID, profilesvc.WithRetries(0)); err == nil {
		t.Errorf("GetProfile after Close succeeded")
	}
}

func TestKitWithAPIKey(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithAPIKey("my-fixed-key"))
	if srv.APIKey != "my-fixed-key" {
		t.Fatalf("APIKey = %q, want my-fixed-key", srv.APIKey)
	}
	kWant(t, kDo(t, srv.URL, "my-fixed-key", "GET", "/_mock/workflows", nil), 200)
	kWantError(t, kDo(t, srv.URL, "my-fixed-key-2", "GET", "/_mock/workflows", nil), 401, "UNAUTHORIZED")
	kWantError(t, kDo(t, srv.URL, "my-fixed-ke", "GET", "/_mock/workflows", nil), 401, "UNAUTHORIZED")
	if _, err := srv.Client().CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "x"}); err != nil {
		t.Fatalf("srv.Client with a fixed key: %v", err)
	}
}

func TestKitNewTestClosesAtCleanup(t *testing.T) {
	var url string
	t.Run("inner", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		url = srv.URL
		kWant(t, kCall(t, srv, "GET", "/_mock/workflows", nil), 200)
	})
	req, _ := http.NewRequest("GET", url+"/_mock/workflows", nil)
	resp, err := (&http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{}}).Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("the server of a finished test still answers (%d): NewTest must close it at cleanup", resp.StatusCode)
	}
}

func TestKitStart(t *testing.T) {
	srv, err := mockserver.Start("127.0.0.1:0", mockserver.WithAPIKey("k"))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer srv.Close()
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || strings.HasSuffix(srv.URL, ":0") {
		t.Errorf("URL = %q, want the port picked", srv.URL)
	}
	kWant(t, kDo(t, srv.URL, "k", "GET", "/_mock/workflows", nil), 200)

	// The address is taken: Start reports it.
	addr := strings.TrimPrefix(srv.URL, "http://")
	if s2, err := mockserver.Start(addr); err == nil {
		s2.Close()
		t.Errorf("Start on a taken address %s succeeded", addr)
	}

	bad := []struct {
		name string
		addr string
		opts []mockserver.Option
	}{
		{"bad address", "127.0.0.1:notaport", nil},
		{"negative duration", "127.0.0.1:0", []mockserver.Option{mockserver.WithAnalysisDuration(-time.Second)}},
		{"nil clock", "127.0.0.1:0", []mockserver.Option{mockserver.WithClock(nil)}},
		{"zero JSON limit", "127.0.0.1:0", []mockserver.Option{mockserver.WithMaxJSONBody(0)}},
		{"zero upload limit", "127.0.0.1:0", []mockserver.Option{mockserver.WithMaxUploadSize(0)}},
		{"negative record size", "127.0.0.1:0", []mockserver.Option{mockserver.WithRequestRecordSize(-1)}},
		{"invalid workflow", "127.0.0.1:0", []mockserver.Option{mockserver.WithWorkflows(mockserver.Workflow{ID: "nope"})}},
		{"invalid seed", "127.0.0.1:0", []mockserver.Option{mockserver.WithSeed(&mockserver.Seed{Profiles: []mockserver.SeedProfile{{Name: ""}}})}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			s, err := mockserver.Start(tc.addr, tc.opts...)
			if err == nil {
				s.Close()
				t.Fatalf("Start succeeded, want an error")
			}
		})
	}

	t.Run("New panics on a bad option", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Errorf("New with a negative duration did not panic")
			}
		}()
		s := mockserver.New(mockserver.WithAnalysisDuration(-1))
		s.Close()
	})
}

func TestKitNewHandler(t *testing.T) {
	srv, err := mockserver.NewHandler(mockserver.WithManualAnalyses())
	if err != nil {
		t.Fatalf("NewHandler: %v", err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close) // runs first: releases long polls before ts.Close waits for them
	if srv.URL != "" {
		t.Errorf("URL = %q, want empty for a server that does not listen", srv.URL)
	}
	if !kUUIDPattern.MatchString(srv.APIKey) {
		t.Errorf("APIKey = %q, want a UUID", srv.APIKey)
	}

	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(ts.URL), profilesvc.WithAPIKey(srv.APIKey))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Handler"})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, kPassport, profilesvc.CreateItemParams{Name: "passport"})
	if err != nil {
		t.Fatalf("CreateTextItem: %v", err)
	}
	// The artifact addresses name the address the request reached.
	if !strings.HasPrefix(it.URL, ts.URL+"/") || !strings.HasPrefix(it.StorageOriginalURL, ts.URL+"/") {
		t.Errorf("url %q and storageOriginalUrl %q: want them under %s", it.URL, it.StorageOriginalURL, ts.URL)
	}
	r := kDo(t, it.StorageOriginalURL, srv.APIKey, "GET", "", nil)
	kWant(t, r, 200)
	if string(r.Body) != kPassport {
		t.Errorf("storageOriginalUrl served %q", r.Body)
	}
	if _, ok := srv.Profile(p.ID); !ok {
		t.Errorf("the kit does not see the profile created over the handler")
	}

	// Close ends a long poll on the handler at once.
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	ch := kLongPoll(t, ts.URL, srv.APIKey, id, 300)
	kWantBlocked(t, ch, 100*time.Millisecond)
	start := time.Now()
	srv.Close()
	got := kReceive(t, ch, 3*time.Second)
	if got.Status != 200 {
		t.Errorf("long poll after Close: %d %s", got.Status, got.Body)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the long poll ended %v after Close", d)
	}
	srv.Close() // idempotent
}

func TestKitClose(t *testing.T) {
	t.Run("releases a long poll promptly", func(t *testing.T) {
		srv := mockserver.New(mockserver.WithManualAnalyses())
		defer srv.Close()
		pid, iid := kProfileWithItem(t, srv.Tenant)
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		ch := kLongPoll(t, srv.URL, srv.APIKey, id, 300)
		kWantBlocked(t, ch, 150*time.Millisecond)

		start := time.Now()
		done := make(chan struct{})
		go func() { srv.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(4 * time.Second):
			t.Fatalf("Close did not return within 4s with a long poll held")
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Close took %v with a long poll held", d)
		}
		got := kReceive(t, ch, 2*time.Second)
		if got.Status != 200 {
			t.Fatalf("the held long poll got %d %s, want 200 with the analysis as it stands", got.Status, got.Body)
		}
		var a profilesvc.Analysis
		kJSON(t, got, &a)
		if a.ID != id || a.Status != profilesvc.AnalysisPending {
			t.Errorf("the held long poll answered %s %s, want %s pending", a.ID, a.Status, id)
		}

		again := make(chan struct{})
		go func() { srv.Close(); close(again) }()
		select {
		case <-again:
		case <-time.After(time.Second):
			t.Fatalf("a second Close did not return at once")
		}
	})

	t.Run("releases a delayed request promptly", func(t *testing.T) {
		srv := mockserver.New()
		defer srv.Close()
		if _, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Delay: 5 * time.Minute}); err != nil {
			t.Fatal(err)
		}
		ch := make(chan error, 1)
		go func() {
			req, _ := http.NewRequest("GET", srv.URL+"/v1/profiles/pf_x", nil)
			req.Header.Set("x-api-key", srv.APIKey)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			ch <- err
		}()
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		srv.Close()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Close took %v with a delayed request held", d)
		}
		select {
		case <-ch:
		case <-time.After(3 * time.Second):
			t.Fatalf("the delayed request was not released by Close")
		}
	})

	t.Run("does not wait for a connection that sent nothing", func(t *testing.T) {
		// A client's transport may open a connection it then keeps unused
		// (racing dials of concurrent requests do this): Close must not
		// wait for it, as httptest.Server.Close does not.
		srv := mockserver.New()
		defer srv.Close()
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		kWant(t, kCall(t, srv, "GET", "/_mock/workflows", nil), 200)
		start := time.Now()
		srv.Close()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Close took %v with an unused connection open, want it prompt", d)
		}
	})

	t.Run("Shutdown", func(t *testing.T) {
		srv := mockserver.New()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close() // after Shutdown: a no-op
	})
}

// ---------------------------------------------------------------------
// Seeding and inspection.

func TestKitAddWorkflow(t *testing.T) {
	srv := mockserver.NewTest(t)
	base := srv.Workflows()
	if len(base) != 1 || base[0].ID != mockserver.DefaultWorkflowID {
		t.Fatalf("Workflows() = %+v, want wf_default alone", base)
	}
	for _, prop := range []string{"review_result", "extracted_values", "category_judgements", "document_validations", "policy_flags", "recommended_next_steps", "request_id"} {
		if !bytes.Contains(base[0].OutputSchema, []byte(`"`+prop+`"`)) {
			t.Errorf("wf_default's output schema lacks %s", prop)
		}
	}

	invalid := []struct {
		name string
		w    mockserver.Workflow
	}{
		{"empty ID", mockserver.Workflow{}},
		{"ID without wf_", mockserver.Workflow{ID: "kyc"}},
		{"ID wf_ alone", mockserver.Workflow{ID: "wf_"}},
		{"ID too long", mockserver.Workflow{ID: "wf_" + strings.Repeat("x", 200)}},
		{"schema not JSON", mockserver.Workflow{ID: "wf_a", OutputSchema: json.RawMessage(`{`)}},
		{"schema an array", mockserver.Workflow{ID: "wf_a", OutputSchema: json.RawMessage(`[1]`)}},
		{"schema without properties", mockserver.Workflow{ID: "wf_a", OutputSchema: json.RawMessage(`{"type":"object"}`)}},
		{"policy without action name", mockserver.Workflow{ID: "wf_a", Policy: []mockserver.PolicyAction{{Category: "Data Extraction"}}}},
		{"policy without category", mockserver.Workflow{ID: "wf_a", Policy: []mockserver.PolicyAction{{ActionName: "extract"}}}},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			if err := srv.AddWorkflow(tc.w); err == nil {
				t.Errorf("AddWorkflow(%+v) succeeded, want an error", tc.w)
			}
			if got := len(srv.Workflows()); got != 1 {
				t.Errorf("after a refused workflow there are %d workflows", got)
			}
		})
	}

	wf := mockserver.Workflow{
		ID:           "wf_kyc",
		Name:         "KYC",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"extracted_values":{"type":"object","properties":{"full_name":{"type":"string"}}}}}`),
		Policy:       []mockserver.PolicyAction{{ActionName: "extract", Category: "Data Extraction", Query: "Extract the name."}},
	}
	if err := srv.AddWorkflow(wf); err != nil {
		t.Fatalf("AddWorkflow: %v", err)
	}
	wf.Policy[0].ActionName = "changed after adding"
	got := srv.Workflows()
	if len(got) != 2 {
		t.Fatalf("Workflows() = %d entries, want 2", len(got))
	}
	i := slices.IndexFunc(got, func(w mockserver.Workflow) bool { return w.ID == "wf_kyc" })
	if i < 0 || got[i].Name != "KYC" || got[i].Policy[0].ActionName != "extract" {
		t.Errorf("stored workflow %+v: want a copy of what was added", got)
	}
	p, err := srv.Client().CreateProfile(t.Context(), "wf_kyc", profilesvc.CreateProfileParams{Name: "In KYC"})
	if err != nil {
		t.Fatalf("CreateProfile in the added workflow: %v", err)
	}
	if p.WorkflowID != "wf_kyc" {
		t.Errorf("workflowId = %q", p.WorkflowID)
	}
}

func TestKitCreateAndInspect(t *testing.T) {
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	fc := mockserver.NewFakeClock(t0)
	srv := mockserver.NewTest(t, mockserver.WithClock(fc), mockserver.WithManualAnalyses())

	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{
		Name: "Jane Doe", Description: "KYC file", Metadata: profilesvc.Object{"tier": "gold"},
	})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	kWantID(t, p.ID, "pf_")
	if p.Name != "Jane Doe" || p.Description != "KYC file" || p.Metadata["tier"] != "gold" || p.ItemsCount != 0 || p.LastAnalysisAt != nil {
		t.Errorf("CreateProfile = %+v", p)
	}
	if !p.CreatedAt.Equal(t0) {
		t.Errorf("createdAt = %v, want the fake clock's %v", p.CreatedAt, t0)
	}
	if len(p.Folders) != 1 || p.Folders[0].Name != "default" || !p.Folders[0].IsDefault {
		t.Fatalf("folders = %+v, want the default folder", p.Folders)
	}
	defID := p.Folders[0].ID

	for _, tc := range []struct {
		name string
		wf   string
		prm  profilesvc.CreateProfileParams
	}{
		{"unknown workflow", "wf_missing", profilesvc.CreateProfileParams{Name: "x"}},
		{"empty name", mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{}},
		{"name too long", mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: strings.Repeat("n", 256)}},
	} {
		if _, err := srv.CreateProfile(tc.wf, tc.prm); err == nil {
			t.Errorf("CreateProfile with %s succeeded", tc.name)
		}
	}

	fc.Advance(time.Second)
	f, err := srv.CreateFolder(p.ID, "Identity")
	if err != nil {
		t.Fatalf("CreateFolder: %v", err)
	}
	kWantID(t, f.ID, "fld_")
	if f.Name != "Identity" || f.IsDefault || f.ProfileID != p.ID {
		t.Errorf("CreateFolder = %+v", f)
	}
	if _, err := srv.CreateFolder("pf_missing", "x"); err == nil {
		t.Errorf("CreateFolder in an unknown profile succeeded")
	}
	if _, err := srv.CreateFolder(p.ID, ""); err == nil {
		t.Errorf("CreateFolder with an empty name succeeded")
	}

	text, err := srv.AddTextItem(defID, "note", "Applicant called on Monday.")
	if err != nil {
		t.Fatalf("AddTextItem: %v", err)
	}
	file, err := srv.AddFileItem(f.ID, "passport.txt", []byte(kPassport))
	if err != nil {
		t.Fatalf("AddFileItem: %v", err)
	}
	js, err := srv.AddItem(f.ID, mockserver.SeedItem{
		Type: profilesvc.ItemJSON, Name: "form", Content: json.RawMessage(`{"full_name": "Jane Doe"}`),
		Metadata: map[string]any{"source": "web"},
	})
	if err != nil {
		t.Fatalf("AddItem json: %v", err)
	}
	held, err := srv.AddItem(f.ID, mockserver.SeedItem{Type: profilesvc.ItemText, Name: "held", Content: json.RawMessage(`"x"`), Status: profilesvc.ItemProcessing})
	if err != nil {
		t.Fatalf("AddItem with a status: %v", err)
	}
	for _, it := range []*profilesvc.Item{text, file, js, held} {
		kWantID(t, it.ID, "item_")
	}
	if text.Type != profilesvc.ItemText || file.Type != profilesvc.ItemFile || js.Type != profilesvc.ItemJSON {
		t.Errorf("types %s %s %s", text.Type, file.Type, js.Type)
	}
	if s, err := text.Text(); err != nil || s != "Applicant called on Monday." {
		t.Errorf("text item content = %q, %v", s, err)
	}
	if !file.Content.IsNull() || file.SizeBytes != int64(len(kPassport)) || file.Status != profilesvc.ItemActive {
		t.Errorf("file item = content %s, size %d, status %s", file.Content, file.SizeBytes, file.Status)
	}
	if file.Detected == nil || file.Detected.ContentType != "text/plain" || file.Detected.Extension != "txt" {
		t.Errorf("file item detected = %+v", file.Detected)
	}
	if !strings.HasPrefix(file.URL, srv.URL+"/") || !strings.HasPrefix(file.StorageOriginalURL, srv.URL+"/") {
		t.Errorf("file item addresses %q, %q: want them under %s", file.URL, file.StorageOriginalURL, srv.URL)
	}
	if held.Status != profilesvc.ItemProcessing {
		t.Errorf("item added with status PROCESSING has %s", held.Status)
	}

	for _, tc := range []struct {
		name   string
		folder string
		spec   mockserver.SeedItem
	}{
		{"unknown folder", "fld_missing", mockserver.SeedItem{Type: profilesvc.ItemFile, Name: "a", Data: []byte("a")}},
		{"unknown type", f.ID, mockserver.SeedItem{Type: "pdf", Name: "a"}},
		{"text without content", f.ID, mockserver.SeedItem{Type: profilesvc.ItemText, Name: "a"}},
		{"text with a number", f.ID, mockserver.SeedItem{Type: profilesvc.ItemText, Name: "a", Content: json.RawMessage(`5`)}},
		{"json not JSON", f.ID, mockserver.SeedItem{Type: profilesvc.ItemJSON, Name: "a", Content: json.RawMessage(`{x`)}},
		{"name too long", f.ID, mockserver.SeedItem{Type: profilesvc.ItemFile, Name: strings.Repeat("a", 256), Data: []byte("a")}},
		{"bad fixed ID", f.ID, mockserver.SeedItem{ID: "nope", Type: profilesvc.ItemFile, Name: "a", Data: []byte("a")}},
		{"taken fixed ID", f.ID, mockserver.SeedItem{ID: file.ID, Type: profilesvc.ItemFile, Name: "a", Data: []byte("a")}},
	} {
		if _, err := srv.AddItem(tc.folder, tc.spec); err == nil {
			t.Errorf("AddItem with %s succeeded", tc.name)
		}
	}
	if _, err := srv.AddTextItem("fld_missing", "a", "b"); err == nil {
		t.Errorf("AddTextItem in an unknown folder succeeded")
	}
	if _, err := srv.AddFileItem("fld_missing", "a", []byte("b")); err == nil {
		t.Errorf("AddFileItem in an unknown folder succeeded")
	}

	// Inspection.
	gp, ok := srv.Profile(p.ID)
	if !ok {
		t.Fatalf("Profile(%s) not found", p.ID)
	}
	if gp.ItemsCount != 4 || len(gp.Folders) != 2 {
		t.Errorf("Profile: itemsCount %d, folders %d; want 4 and 2", gp.ItemsCount, len(gp.Folders))
	}
	gf, ok := srv.Folder(f.ID)
	if !ok {
		t.Fatalf("Folder(%s) not found", f.ID)
	}
	var names []string
	for _, s := range gf.Items {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"passport.txt", "form", "held"}, names); diff != "" || gf.ItemsCount != 3 {
		t.Errorf("Folder items (-want +got):\n%s itemsCount %d", diff, gf.ItemsCount)
	}
	gi, ok := srv.Item(js.ID)
	if !ok || gi.Metadata["source"] != "web" || gi.FolderID != f.ID {
		t.Errorf("Item(%s) = %+v, %v", js.ID, gi, ok)
	}
	if b, ok := srv.ItemBytes(file.ID); !ok || string(b) != kPassport {
		t.Errorf("ItemBytes(file) = %q, %v", b, ok)
	}
	if b, ok := srv.ItemBytes(text.ID); !ok || string(b) != "Applicant called on Monday." {
		t.Errorf("ItemBytes(text) = %q, %v", b, ok)
	}
	var content map[string]any
	if b, ok := srv.ItemBytes(js.ID); !ok || json.Unmarshal(b, &content) != nil || content["full_name"] != "Jane Doe" {
		t.Errorf("ItemBytes(json) = %q, %v", b, ok)
	}
	if s, ok := srv.ItemText(file.ID); !ok || !strings.Contains(s, "Full Name: Jane Doe") {
		t.Errorf("ItemText(file) = %q, %v", s, ok)
	}
	// ItemBytes returns a copy.
	if b, _ := srv.ItemBytes(file.ID); len(b) > 0 {
		b[0] = 'X'
		if again, _ := srv.ItemBytes(file.ID); string(again) != kPassport {
			t.Errorf("changing ItemBytes' result changed the stored bytes")
		}
	}

	// The kit's state is the HTTP API's state.
	r := kCall(t, srv, "GET", "/v1/items/"+file.ID, nil)
	kWant(t, r, 200)
	r = kDo(t, file.StorageOriginalURL, srv.APIKey, "GET", "", nil)
	kWant(t, r, 200)
	if string(r.Body) != kPassport {
		t.Errorf("storageOriginalUrl served %q", r.Body)
	}

	// Profiles: oldest first.
	fc.Advance(time.Second)
	p2, _ := kProfile(t, srv.Tenant, "Second")
	ps := srv.Profiles()
	if len(ps) != 2 || ps[0].ID != p.ID || ps[1].ID != p2.ID {
		t.Errorf("Profiles() = %v, want [%s %s]", ps, p.ID, p2.ID)
	}

	// Analyses: newest first.
	a1 := kStart(t, srv.URL, srv.APIKey, p.ID, file.ID)
	if err := srv.CompleteAnalysis(a1); err != nil {
		t.Fatal(err)
	}
	fc.Advance(time.Second)
	a2 := kStart(t, srv.URL, srv.APIKey, p.ID, js.ID)
	var ids []string
	for _, a := range srv.Analyses(p.ID) {
		ids = append(ids, a.ID)
	}
	if diff := cmp.Diff([]string{a2, a1}, ids); diff != "" {
		t.Errorf("Analyses(profile) (-want +got):\n%s", diff)
	}

	// Unknown IDs.
	if _, ok := srv.Profile("pf_missing"); ok {
		t.Errorf("Profile(unknown) found")
	}
	if _, ok := srv.Folder("fld_missing"); ok {
		t.Errorf("Folder(unknown) found")
	}
	if _, ok := srv.Item("item_missing"); ok {
		t.Errorf("Item(unknown) found")
	}
	if _, ok := srv.ItemBytes("item_missing"); ok {
		t.Errorf("ItemBytes(unknown) found")
	}
	if _, ok := srv.ItemText("item_missing"); ok {
		t.Errorf("ItemText(unknown) found")
	}
	if _, ok := srv.Analysis("analysis_missing"); ok {
		t.Errorf("Analysis(unknown) found")
	}
	if got := srv.Analyses("pf_missing"); len(got) != 0 {
		t.Errorf("Analyses(unknown) = %v", got)
	}
}

// kSeed is a seed with a workflow, two profiles, folders and items of
// every type.
func kSeed() *mockserver.Seed {
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
						{ID: "item_passport", Type: profilesvc.ItemFile, Name: "passport.txt", Data: []byte(kPassport)},
						{Type: profilesvc.ItemJSON, Name: "form", Content: json.RawMessage(`{"full_name":"Jane Doe"}`), Status: profilesvc.ItemProcessing},
					}},
				},
			},
			{Name: "Beta"},
		},
	}
}

// kCheckSeeded checks the state kSeed leaves.
func kCheckSeeded(t *testing.T, ten *mockserver.Tenant) {
	t.Helper()
	p, ok := ten.Profile("pf_alpha")
	if !ok {
		t.Fatalf("seeded profile pf_alpha not found")
	}
	if p.WorkflowID != "wf_seed" || p.Name != "Alpha" || p.Description != "seeded" || p.Metadata["tier"] != "gold" || p.ItemsCount != 3 {
		t.Errorf("seeded profile = %+v", p)
	}
	if len(p.Folders) != 2 || p.Folders[0].Name != "default" || !p.Folders[0].IsDefault || p.Folders[0].ItemsCount != 1 || p.Folders[1].ID != "fld_ids" {
		t.Errorf("seeded folders = %+v", p.Folders)
	}
	f, ok := ten.Folder("fld_ids")
	if !ok || len(f.Items) != 2 {
		t.Fatalf("seeded folder fld_ids = %+v, %v", f, ok)
	}
	if b, ok := ten.ItemBytes("item_passport"); !ok || string(b) != kPassport {
		t.Errorf("seeded file bytes = %q, %v", b, ok)
	}
	form, ok := ten.Item(f.Items[1].ID)
	if !ok || form.Type != profilesvc.ItemJSON || form.Status != profilesvc.ItemProcessing {
		t.Errorf("seeded json item = %+v", form)
	}
	ps := ten.Profiles()
	if len(ps) != 2 {
		t.Fatalf("Profiles() = %d, want 2", len(ps))
	}
	beta := ps[slices.IndexFunc(ps, func(p *profilesvc.Profile) bool { return p.ID != "pf_alpha" })]
	if beta.Name != "Beta" || beta.WorkflowID != mockserver.DefaultWorkflowID {
		t.Errorf("seeded profile without a workflow = %+v, want it in wf_default", beta)
	}
	kWantID(t, beta.ID, "pf_")
	if !slices.ContainsFunc(ten.Workflows(), func(w mockserver.Workflow) bool { return w.ID == "wf_seed" }) {
		t.Errorf("the seed's workflow was not added")
	}
}

func TestKitLoadSeed(t *testing.T) {
	t.Run("valid", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		if err := srv.LoadSeed(kSeed()); err != nil {
			t.Fatalf("LoadSeed: %v", err)
		}
		kCheckSeeded(t, srv.Tenant)
		// Loaded state is served over HTTP.
		kWant(t, kCall(t, srv, "GET", "/v1/profiles/pf_alpha", nil), 200)
		kWant(t, kCall(t, srv, "GET", "/v1/items/item_passport", nil), 200)
		if err := srv.LoadSeed(nil); err != nil {
			t.Errorf("LoadSeed(nil) = %v", err)
		}
	})

	t.Run("WithSeed", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithSeed(kSeed()))
		kCheckSeeded(t, srv.Tenant)
	})

	invalid := []struct {
		name   string
		mutate func(s *mockserver.Seed)
	}{
		{"invalid workflow", func(s *mockserver.Seed) { s.Workflows = append(s.Workflows, mockserver.Workflow{ID: "bad"}) }},
		{"unknown workflow", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{WorkflowID: "wf_missing", Name: "x"})
		}},
		{"empty profile name", func(s *mockserver.Seed) { s.Profiles = append(s.Profiles, mockserver.SeedProfile{}) }},
		{"bad profile ID", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{ID: "alpha", Name: "x"})
		}},
		{"duplicate profile ID", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{ID: "pf_alpha", Name: "again"})
		}},
		{"empty folder name", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{Name: "x", Folders: []mockserver.SeedFolder{{Name: ""}}})
		}},
		{"bad item type", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{Name: "x", Folders: []mockserver.SeedFolder{{Name: "f", Items: []mockserver.SeedItem{{Type: "pdf", Name: "x"}}}}})
		}},
		{"duplicate item ID", func(s *mockserver.Seed) {
			s.Profiles = append(s.Profiles, mockserver.SeedProfile{Name: "x", Folders: []mockserver.SeedFolder{{Name: "default", Items: []mockserver.SeedItem{
				{ID: "item_passport", Type: profilesvc.ItemFile, Name: "dup", Data: []byte("x")},
			}}}})
		}},
	}
	for _, tc := range invalid {
		t.Run("loads nothing on "+tc.name, func(t *testing.T) {
			srv := mockserver.NewTest(t)
			existing, _ := kProfile(t, srv.Tenant, "Existing")
			s := kSeed()
			tc.mutate(s)
			if err := srv.LoadSeed(s); err == nil {
				t.Fatalf("LoadSeed succeeded, want an error")
			}
			ps := srv.Profiles()
			if len(ps) != 1 || ps[0].ID != existing.ID {
				t.Errorf("after a failed load, profiles = %v; want only %s", ps, existing.ID)
			}
			if len(ps) == 1 && (len(ps[0].Folders) != 1 || ps[0].ItemsCount != 0) {
				t.Errorf("after a failed load, the existing profile changed: %+v", ps[0])
			}
			if ws := srv.Workflows(); len(ws) != 1 {
				t.Errorf("after a failed load, workflows = %v; want wf_default alone", ws)
			}
			for _, id := range []string{"item_passport"} {
				if _, ok := srv.Item(id); ok {
					t.Errorf("after a failed load, item %s exists", id)
				}
			}
			if _, ok := srv.Folder("fld_ids"); ok {
				t.Errorf("after a failed load, folder fld_ids exists")
			}
			kWantError(t, kCall(t, srv, "GET", "/v1/profiles/pf_alpha", nil), 404, "PROFILE_NOT_FOUND")
			// The state still works.
			if _, err := srv.CreateFolder(existing.ID, "after"); err != nil {
				t.Errorf("CreateFolder after a failed load: %v", err)
			}
		})
	}
}

// TestKitLoadSeedPathFromGo: a seed given in Go whose file item names a
// Path (and no Data) must not silently load an empty file: either the file
// is read or the seed is refused.
func TestKitLoadSeedPathFromGo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "passport.txt")
	if err := os.WriteFile(path, []byte(kPassport), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := mockserver.NewTest(t)
	err := srv.LoadSeed(&mockserver.Seed{Profiles: []mockserver.SeedProfile{{ID: "pf_path", Name: "Path", Folders: []mockserver.SeedFolder{
		{Name: "default", Items: []mockserver.SeedItem{{ID: "item_path", Type: profilesvc.ItemFile, Path: path}}},
	}}}})
	if err != nil {
		if _, ok := srv.Profile("pf_path"); ok {
			t.Errorf("LoadSeed failed (%v) but loaded the profile", err)
		}
		return
	}
	if b, _ := srv.ItemBytes("item_path"); string(b) != kPassport {
		t.Errorf("LoadSeed accepted a file item with a path and stored %q (%d bytes): want the file's bytes or an error", b, len(b))
	}
}

func TestKitLoadSeedFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "passport.txt"), []byte(kPassport), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(dir, "absolute.csv")
	if err := os.WriteFile(abs, []byte("full_name,date_of_birth\nJane Doe,1990-04-12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, name, content string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	absJSON, _ := json.Marshal(abs)
	good := write(t, "seed.json", `{
  "workflows": [{"id": "wf_file", "outputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}],
  "profiles": [{
    "id": "pf_file", "name": "From a file",
    "folders": [
      {"name": "default", "items": [
        {"type": "file", "path": "docs/passport.txt"},
        {"type": "file", "name": "income.csv", "path": `+string(absJSON)+`},
        {"type": "text", "name": "note", "content": "hello"},
        {"type": "json", "name": "form", "content": {"full_name": "Jane Doe"}}
      ]}
    ]
  }]
}`)

	s, err := mockserver.LoadSeedFile(good)
	if err != nil {
		t.Fatalf("LoadSeedFile: %v", err)
	}
	srv := mockserver.NewTest(t)
	if err := srv.LoadSeed(s); err != nil {
		t.Fatalf("LoadSeed of the file's seed: %v", err)
	}
	p, ok := srv.Profile("pf_file")
	if !ok || p.ItemsCount != 4 {
		t.Fatalf("profile pf_file = %+v, %v", p, ok)
	}
	f, _ := srv.Folder(p.Folders[0].ID)
	if len(f.Items) != 4 {
		t.Fatalf("default folder items = %+v", f.Items)
	}
	if f.Items[0].Name != "passport.txt" {
		t.Errorf("a file item without a name is named %q, want the file's base name", f.Items[0].Name)
	}
	if b, _ := srv.ItemBytes(f.Items[0].ID); string(b) != kPassport {
		t.Errorf("the relative path's bytes = %q, want the file's, read relative to the seed file", b)
	}
	if b, _ := srv.ItemBytes(f.Items[1].ID); !strings.HasPrefix(string(b), "full_name,") {
		t.Errorf("the absolute path's bytes = %q", b)
	}
	if !slices.ContainsFunc(srv.Workflows(), func(w mockserver.Workflow) bool { return w.ID == "wf_file" }) {
		t.Errorf("the seed file's workflow is missing")
	}

	for _, tc := range []struct{ name, content string }{
		{"missing item file", `{"profiles":[{"name":"x","folders":[{"name":"default","items":[{"type":"file","path":"docs/nope.txt"}]}]}]}`},
		{"malformed JSON", `{"profiles":[`},
		{"unknown field", `{"profilez":[]}`},
		{"wrong type", `{"profiles":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, strings.ReplaceAll(tc.name, " ", "_")+".json", tc.content)
			if s, err := mockserver.LoadSeedFile(p); err == nil {
				t.Errorf("LoadSeedFile succeeded: %+v", s)
			}
		})
	}
	if _, err := mockserver.LoadSeedFile(filepath.Join(dir, "absent.json")); err == nil {
		t.Errorf("LoadSeedFile of a missing file succeeded")
	}
}

// ---------------------------------------------------------------------
// Time.

func TestKitAnalysisDurationFakeClock(t *testing.T) {
	t0 := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	fc := mockserver.NewFakeClock(t0)
	const d = 10 * time.Second
	srv := mockserver.NewTest(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(d))
	pid, iid := kProfileWithItem(t, srv.Tenant)
	fc.Advance(5 * time.Second)
	started := t0.Add(5 * time.Second)
	id := kStart(t, srv.URL, srv.APIKey, pid, iid)

	a := kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
	if !a.RequestedAt.Equal(started) || !a.CreatedAt.Equal(started) {
		t.Errorf("requestedAt %v, createdAt %v: want the fake clock's %v", a.RequestedAt, a.CreatedAt, started)
	}
	if a.CompletedAt != nil || a.PrimaryReportID != nil || a.VerificationStatus != profilesvc.VerificationPendingReview {
		t.Errorf("pending analysis = completedAt %v, report %v, verification %s", a.CompletedAt, a.PrimaryReportID, a.VerificationStatus)
	}
	if p, _ := srv.Profile(pid); p.LastAnalysisAt == nil || !p.LastAnalysisAt.Equal(started) {
		t.Errorf("lastAnalysisAt = %v, want %v", p.LastAnalysisAt, started)
	}

	fc.Advance(d/10 - time.Millisecond)
	kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
	fc.Advance(time.Millisecond)
	kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
	fc.Advance(d - d/10 - time.Millisecond)
	kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
	// Over HTTP too.
	var viaHTTP profilesvc.Analysis
	kJSON(t, kCall(t, srv, "GET", "/v1/analyses/"+id, nil), &viaHTTP)
	if viaHTTP.Status != profilesvc.AnalysisProcessing {
		t.Errorf("GET says %s, want processing", viaHTTP.Status)
	}
	kWantError(t, kCall(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")

	fc.Advance(time.Millisecond)
	a = kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
	if a.CompletedAt == nil || !a.CompletedAt.Equal(started.Add(d)) {
		t.Errorf("completedAt = %v, want %v", a.CompletedAt, started.Add(d))
	}
	if a.PrimaryReportID == nil {
		t.Errorf("completed analysis without a report ID")
	}
	for _, e := range a.AgentAuditLog {
		if e.ExecutedAt.Before(started) || e.ExecutedAt.After(started.Add(d)) {
			t.Errorf("audit entry %s executedAt %v: not within the run %v..%v", e.ActionName, e.ExecutedAt, started, started.Add(d))
		}
	}
	kWant(t, kCall(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 200)

	// The request record follows the fake clock too.
	for _, r := range srv.Requests() {
		if r.Time.Before(t0) || r.Time.After(started.Add(d)) {
			t.Errorf("recorded request at %v: want the fake clock's time", r.Time)
		}
	}
}

func TestKitAnalysisDurationRealClock(t *testing.T) {
	t.Run("long poll wakes at completion", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(200*time.Millisecond))
		pid, iid := kProfileWithItem(t, srv.Tenant)
		start := time.Now()
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		r := kReceive(t, kLongPoll(t, srv.URL, srv.APIKey, id, 10), 5*time.Second)
		kWant(t, r, 200)
		var a profilesvc.Analysis
		kJSON(t, r, &a)
		if a.Status != profilesvc.AnalysisCompleted || a.PrimaryReportID == nil {
			t.Errorf("long poll answered %s, report %v; want completed with its report", a.Status, a.PrimaryReportID)
		}
		if el := time.Since(start); el < 150*time.Millisecond || el > 3*time.Second {
			t.Errorf("completed after %v, want about 200ms", el)
		}
	})
	t.Run("zero completes at once", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(0))
		pid, iid := kProfileWithItem(t, srv.Tenant)
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		r := kReceive(t, kLongPoll(t, srv.URL, srv.APIKey, id, 10), 3*time.Second)
		var a profilesvc.Analysis
		kJSON(t, r, &a)
		if a.Status != profilesvc.AnalysisCompleted {
			t.Errorf("status %s, want completed", a.Status)
		}
	})
}

func TestKitManualAnalyses(t *testing.T) {
	fc := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fc), mockserver.WithAnalysisDuration(time.Second))
	pid, iid := kProfileWithItem(t, srv.Tenant)

	t.Run("waits for the test", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		fc.Advance(time.Hour)
		kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)

		if err := srv.StartProcessing(id); err != nil {
			t.Fatalf("StartProcessing: %v", err)
		}
		kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
		if err := srv.StartProcessing(id); err == nil {
			t.Errorf("StartProcessing of a processing analysis succeeded")
		}
		kWantError(t, kStartResp(t, srv.URL, srv.APIKey, pid, iid), 409, "ANALYSIS_IN_PROGRESS")

		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatalf("CompleteAnalysis: %v", err)
		}
		a := kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
		if a.PrimaryReportID == nil || a.CompletedAt == nil || a.RiskAssessment == nil || a.Error != nil {
			t.Errorf("completed analysis = report %v, completedAt %v, risk %v, error %v", a.PrimaryReportID, a.CompletedAt, a.RiskAssessment, a.Error)
		}
		if !a.CompletedAt.Equal(fc.Now()) {
			t.Errorf("completedAt %v, want the clock's %v", a.CompletedAt, fc.Now())
		}
		kWant(t, kCall(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 200)

		if err := srv.CompleteAnalysis(id); err == nil {
			t.Errorf("completing a completed analysis succeeded")
		}
		if err := srv.FailAnalysis(id, "late"); err == nil {
			t.Errorf("failing a completed analysis succeeded")
		}
		if err := srv.StartProcessing(id); err == nil {
			t.Errorf("StartProcessing of a completed analysis succeeded")
		}
		kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
	})

	t.Run("complete from pending", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatalf("CompleteAnalysis: %v", err)
		}
		kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
	})

	t.Run("fail", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		if err := srv.StartProcessing(id); err != nil {
			t.Fatal(err)
		}
		if err := srv.FailAnalysis(id, "scanner jammed"); err != nil {
			t.Fatalf("FailAnalysis: %v", err)
		}
		a := kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisFailed)
		if a.Error == nil || *a.Error != "scanner jammed" {
			t.Errorf("error = %v, want \"scanner jammed\"", a.Error)
		}
		if a.PrimaryReportID != nil {
			t.Errorf("a failed analysis has a report ID")
		}
		kWantError(t, kCall(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")
		if err := srv.FailAnalysis(id, "again"); err == nil {
			t.Errorf("failing a failed analysis succeeded")
		}
		if err := srv.CompleteAnalysis(id); err == nil {
			t.Errorf("completing a failed analysis succeeded")
		}
	})

	t.Run("fail without a message", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		if err := srv.FailAnalysis(id, ""); err != nil {
			t.Fatal(err)
		}
		a := kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisFailed)
		if a.Error == nil || strings.TrimSpace(*a.Error) == "" {
			t.Errorf("error = %v, want a default text", a.Error)
		}
	})

	t.Run("a long poll wakes on the change", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		ch := kLongPoll(t, srv.URL, srv.APIKey, id, 10)
		kWantBlocked(t, ch, 100*time.Millisecond)
		if err := srv.StartProcessing(id); err != nil {
			t.Fatal(err)
		}
		kWantBlocked(t, ch, 100*time.Millisecond) // processing is not the end
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		r := kReceive(t, ch, 2*time.Second)
		var a profilesvc.Analysis
		kJSON(t, r, &a)
		if a.Status != profilesvc.AnalysisCompleted || a.PrimaryReportID == nil {
			t.Errorf("long poll answered %s, want completed with its report", a.Status)
		}
	})

	t.Run("unknown analysis", func(t *testing.T) {
		for name, err := range map[string]error{
			"StartProcessing":  srv.StartProcessing("analysis_missing"),
			"CompleteAnalysis": srv.CompleteAnalysis("analysis_missing"),
			"FailAnalysis":     srv.FailAnalysis("analysis_missing", "x"),
		} {
			if err == nil {
				t.Errorf("%s of an unknown analysis succeeded", name)
			}
		}
	})
}

// ---------------------------------------------------------------------
// Item status and verification status.

func TestKitSetItemStatus(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, iid := kProfileWithItem(t, srv.Tenant)

	if err := srv.SetItemStatus(iid, profilesvc.ItemProcessing); err != nil {
		t.Fatalf("SetItemStatus: %v", err)
	}
	if it, _ := srv.Item(iid); it.Status != profilesvc.ItemProcessing {
		t.Errorf("status = %s, want PROCESSING", it.Status)
	}
	var item profilesvc.Item
	kJSON(t, kCall(t, srv, "GET", "/v1/items/"+iid, nil), &item)
	if item.Status != profilesvc.ItemProcessing {
		t.Errorf("GET item status = %s, want PROCESSING", item.Status)
	}
	msg := kWantError(t, kStartResp(t, srv.URL, srv.APIKey, pid, iid), 400, "INVALID_ITEM_IDS")
	if !strings.Contains(msg, iid) {
		t.Errorf("INVALID_ITEM_IDS message %q does not name %s", msg, iid)
	}
	if got := srv.Analyses(pid); len(got) != 0 {
		t.Errorf("a refused start created analyses: %v", got)
	}

	if err := srv.SetItemStatus(iid, profilesvc.ItemActive); err != nil {
		t.Fatal(err)
	}
	kStart(t, srv.URL, srv.APIKey, pid, iid)

	if err := srv.SetItemStatus(iid, ""); err == nil {
		t.Errorf("SetItemStatus with an empty status succeeded")
	}
	if err := srv.SetItemStatus("item_missing", profilesvc.ItemActive); err == nil {
		t.Errorf("SetItemStatus of an unknown item succeeded")
	}
}

func TestKitSetVerificationStatus(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, iid := kProfileWithItem(t, srv.Tenant)
	id := kStart(t, srv.URL, srv.APIKey, pid, iid)
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	for _, vs := range []profilesvc.VerificationStatus{profilesvc.VerificationApproved, profilesvc.VerificationRejected, profilesvc.VerificationPendingReview} {
		t.Run(string(vs), func(t *testing.T) {
			if err := srv.SetVerificationStatus(id, vs); err != nil {
				t.Fatalf("SetVerificationStatus(%s): %v", vs, err)
			}
			var a profilesvc.Analysis
			kJSON(t, kCall(t, srv, "GET", "/v1/analyses/"+id, nil), &a)
			if a.VerificationStatus != vs {
				t.Errorf("GET verificationStatus = %s, want %s", a.VerificationStatus, vs)
			}
		})
	}
	for _, bad := range []profilesvc.VerificationStatus{"", "maybe", "APPROVED"} {
		if err := srv.SetVerificationStatus(id, bad); err == nil {
			t.Errorf("SetVerificationStatus(%q) succeeded", bad)
		}
	}
	if a := kAnalysis(t, srv.Tenant, id); a.VerificationStatus != profilesvc.VerificationPendingReview {
		t.Errorf("a refused value changed the status to %s", a.VerificationStatus)
	}
	if err := srv.SetVerificationStatus("analysis_missing", profilesvc.VerificationApproved); err == nil {
		t.Errorf("SetVerificationStatus of an unknown analysis succeeded")
	}
}

// ---------------------------------------------------------------------
// Fault injection.

func TestKitFaultStatus(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, iid := kProfileWithItem(t, srv.Tenant)
	aid := kStart(t, srv.URL, srv.APIKey, pid, iid)

	fid, err := srv.InjectFault(mockserver.Fault{
		Method: "get", Path: "/v1/analyses/*", Status: 503, Code: "SERVICE_UNAVAILABLE", Message: "down for maintenance", RetryAfter: 7 * time.Second,
	})
	if err != nil {
		t.Fatalf("InjectFault: %v", err)
	}
	if fid == "" {
		t.Fatalf("InjectFault returned no ID")
	}

	for _, path := range []string{"/v1/analyses/" + aid, "/v1/analyses/analysis_other"} {
		r := kCall(t, srv, "GET", path, nil)
		msg := kWantError(t, r, 503, "SERVICE_UNAVAILABLE")
		if msg != "down for maintenance" {
			t.Errorf("message = %q", msg)
		}
		if ra := r.Header.Get("Retry-After"); ra != "7" {
			t.Errorf("Retry-After = %q, want 7", ra)
		}
	}
	// Not matched: another method, a longer path, another resource.
	kWant(t, kCall(t, srv, "DELETE", "/v1/analyses/analysis_missing", nil), 404)
	kWant(t, kCall(t, srv, "GET", "/v1/analyses/"+aid+"/report", nil), 400)
	kWant(t, kCall(t, srv, "GET", "/v1/profiles/"+pid, nil), 200)

	if !srv.RemoveFault(fid) {
		t.Fatalf("RemoveFault(%s) = false", fid)
	}
	kWant(t, kCall(t, srv, "GET", "/v1/analyses/"+aid, nil), 200)

	t.Run("defaults from the status", func(t *testing.T) {
		if _, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 429}); err != nil {
			t.Fatal(err)
		}
		defer srv.ClearFaults()
		r := kCall(t, srv, "GET", "/v1/profiles/"+pid, nil)
		kWantError(t, r, 429, "RATE_LIMITED")
		if r.Header.Get("Retry-After") != "" {
			t.Errorf("Retry-After %q sent without one set", r.Header.Get("Retry-After"))
		}
	})
}

func TestKitFaultDelay(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := kProfile(t, srv.Tenant, "Delayed")
	if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Delay: 150 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Errorf("the answer came after %v, want at least the 150ms delay", el)
	}
	kWant(t, r, 200) // a delay alone lets the real answer through
	var got profilesvc.Profile
	kJSON(t, r, &got)
	if got.ID != p.ID {
		t.Errorf("delayed answer is profile %q", got.ID)
	}
	srv.ClearFaults()

	// A delay with a status: the error after the delay.
	if _, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Delay: 100 * time.Millisecond, Status: 500}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	r = kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Errorf("the error came after %v, want at least 100ms", el)
	}
	kWantError(t, r, 500, "INTERNAL_ERROR")
}

func TestKitFaultDrop(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := kProfile(t, srv.Tenant, "Dropped")
	if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Drop: true}); err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/profiles/"+p.ID, nil)
	req.Header.Set("x-api-key", srv.APIKey)
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped request got an answer: %d", resp.StatusCode)
	}
	// The SDK sees a transport error too.
	_, err = srv.Client().GetProfile(t.Context(), p.ID, profilesvc.WithRetries(0))
	var apiErr *profilesvc.APIError
	if err == nil || errors.As(err, &apiErr) {
		t.Errorf("GetProfile through a dropped connection = %v, want a transport error", err)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || reqs[len(reqs)-1].Status != 0 {
		t.Errorf("a dropped request is recorded with status %v, want 0", reqs)
	}
	// Other requests are unaffected.
	kWant(t, kCall(t, srv, "PATCH", "/v1/profiles/"+p.ID, map[string]any{"name": "still here"}), 200)
}

func TestKitFaultTimes(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := kProfile(t, srv.Tenant, "Times")
	fid, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 503, Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	kWantError(t, kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 503, "SERVICE_UNAVAILABLE")
	fs := srv.Faults()
	if len(fs) != 1 || fs[0].ID != fid || fs[0].Times != 1 {
		t.Errorf("Faults() after one use = %+v, want %s with 1 left", fs, fid)
	}
	// A request the fault does not match does not use it up.
	kWant(t, kCall(t, srv, "GET", "/v1/profiles/"+p.ID+"/folders", nil), 200)
	kWantError(t, kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 503, "SERVICE_UNAVAILABLE")
	kWant(t, kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 200)
	if fs := srv.Faults(); len(fs) != 0 {
		t.Errorf("Faults() after the fault's uses = %+v, want none", fs)
	}
}

func TestKitFaultProbability(t *testing.T) {
	const n = 1000
	const prob = 0.3
	pattern := func(seed uint64) []bool {
		srv := mockserver.NewTest(t, mockserver.WithFaultSeed(seed), mockserver.WithRequestRecordSize(0))
		if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Probability: prob}); err != nil {
			t.Fatal(err)
		}
		hc := &http.Client{Timeout: 10 * time.Second}
		out := make([]bool, n)
		for i := range out {
			req, _ := http.NewRequest("GET", srv.URL+"/v1/profiles/pf_missing", nil)
			req.Header.Set("x-api-key", srv.APIKey)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case 503:
				out[i] = true
			case 404:
			default:
				t.Fatalf("request %d: status %d", i, resp.StatusCode)
			}
		}
		return out
	}
	a, b := pattern(42), pattern(42)
	if !slices.Equal(a, b) {
		t.Errorf("two servers with the same fault seed injected on different requests")
	}
	count := 0
	for _, hit := range a {
		if hit {
			count++
		}
	}
	if lo, hi := int(n*prob*0.7), int(n*prob*1.3); count < lo || count > hi {
		t.Errorf("a fault with probability %v hit %d of %d requests, want %d..%d", prob, count, n, lo, hi)
	}
	if c := pattern(43); slices.Equal(a, c) {
		t.Errorf("fault seeds 42 and 43 injected on the very same requests")
	}
}

func TestKitFaultList(t *testing.T) {
	srv := mockserver.NewTest(t)
	id1, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, RetryAfter: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := srv.InjectFault(mockserver.Fault{Path: "/v1/folders/*", Drop: true, Times: 3})
	if err != nil {
		t.Fatal(err)
	}
	if id1 == id2 {
		t.Fatalf("two faults share the ID %s", id1)
	}
	fs := srv.Faults()
	if len(fs) != 2 || fs[0].ID != id1 || fs[1].ID != id2 {
		t.Fatalf("Faults() = %+v", fs)
	}
	if fs[0].Method != "GET" || fs[0].Status != 503 || fs[0].Code != "SERVICE_UNAVAILABLE" || fs[0].RetryAfter != 2*time.Second {
		t.Errorf("first fault = %+v", fs[0])
	}
	if !fs[1].Drop || fs[1].Times != 3 {
		t.Errorf("second fault = %+v", fs[1])
	}
	if !srv.RemoveFault(id1) {
		t.Errorf("RemoveFault(%s) = false", id1)
	}
	if srv.RemoveFault(id1) {
		t.Errorf("RemoveFault of a removed fault = true")
	}
	if srv.RemoveFault("fault_missing") {
		t.Errorf("RemoveFault of an unknown fault = true")
	}
	if fs := srv.Faults(); len(fs) != 1 || fs[0].ID != id2 {
		t.Errorf("Faults() after RemoveFault = %+v", fs)
	}
	if _, err := srv.InjectFault(mockserver.Fault{Status: 500}); err != nil {
		t.Fatal(err)
	}
	srv.ClearFaults()
	if fs := srv.Faults(); len(fs) != 0 {
		t.Errorf("Faults() after ClearFaults = %+v", fs)
	}
	kWantError(t, kCall(t, srv, "GET", "/v1/profiles/pf_missing", nil), 404, "PROFILE_NOT_FOUND")
}

func TestKitFaultInvalid(t *testing.T) {
	srv := mockserver.NewTest(t)
	for _, tc := range []struct {
		name string
		f    mockserver.Fault
	}{
		{"nothing to do", mockserver.Fault{Path: "/v1/*"}},
		{"status below 400", mockserver.Fault{Status: 200}},
		{"status above 599", mockserver.Fault{Status: 600}},
		{"status and drop", mockserver.Fault{Status: 503, Drop: true}},
		{"negative times", mockserver.Fault{Status: 503, Times: -1}},
		{"probability above 1", mockserver.Fault{Status: 503, Probability: 1.5}},
		{"negative probability", mockserver.Fault{Status: 503, Probability: -0.1}},
		{"bad pattern", mockserver.Fault{Status: 503, Path: "/v1/[profiles"}},
		{"negative delay", mockserver.Fault{Status: 503, Delay: -time.Second}},
		{"delay too long", mockserver.Fault{Delay: 11 * time.Minute}},
		{"negative retry-after", mockserver.Fault{Status: 503, RetryAfter: -time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if id, err := srv.InjectFault(tc.f); err == nil {
				t.Errorf("InjectFault(%+v) = %s, want an error", tc.f, id)
			}
		})
	}
	if fs := srv.Faults(); len(fs) != 0 {
		t.Errorf("refused faults were kept: %+v", fs)
	}
}

// ---------------------------------------------------------------------
// The request record.

func TestKitRequestRecord(t *testing.T) {
	srv := mockserver.NewTest(t)
	c := srv.Client()
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Recorded", Metadata: profilesvc.Object{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListFoldersPage(ctx, p.ID, &profilesvc.ListParams{Limit: 2, Search: "def ault"}); err != nil {
		t.Fatal(err)
	}
	// An escaped ID, sent raw.
	kWantError(t, kCall(t, srv, "GET", "/v1/profiles/pf%2Fodd%20id", nil), 404, "PROFILE_NOT_FOUND")
	// A wrong key is recorded too, redacted.
	kWantError(t, kDo(t, srv.URL, "wrong-key-value", "GET", "/v1/profiles/"+p.ID, nil), 401, "UNAUTHORIZED")
	// The control API is not recorded.
	kWant(t, kCall(t, srv, "GET", "/_mock/requests", nil), 200)
	kWant(t, kCall(t, srv, "GET", "/_mock/faults", nil), 200)

	reqs := srv.Requests()
	if len(reqs) != 4 {
		for _, r := range reqs {
			t.Logf("%s %s", r.Method, r.Path)
		}
		t.Fatalf("recorded %d requests, want 4 (no /_mock/ calls)", len(reqs))
	}
	create := reqs[0]
	if create.Method != "POST" || create.Path != "/v1/workflows/wf_default/profiles" || create.Status != 201 {
		t.Errorf("first request = %s %s %d", create.Method, create.Path, create.Status)
	}
	var body map[string]any
	if err := json.Unmarshal(create.Body, &body); err != nil || body["name"] != "Recorded" {
		t.Errorf("recorded body %q: want the JSON the client sent", create.Body)
	}
	if create.Header.Get("Content-Type") != "application/json" {
		t.Errorf("recorded Content-Type = %q", create.Header.Get("Content-Type"))
	}
	if create.Header.Get("X-Api-Key") != "[REDACTED]" {
		t.Errorf("recorded x-api-key = %q, want [REDACTED]", create.Header.Get("X-Api-Key"))
	}
	list := reqs[1]
	if list.Method != "GET" || list.Path != "/v1/profiles/"+p.ID+"/folders" {
		t.Errorf("second request = %s %s", list.Method, list.Path)
	}
	if list.Query.Get("limit") != "2" || list.Query.Get("search") != "def ault" {
		t.Errorf("recorded query = %v, want limit=2 and search=\"def ault\"", list.Query)
	}
	if len(list.Body) != 0 {
		t.Errorf("a GET recorded a body %q", list.Body)
	}
	if reqs[2].Path != "/v1/profiles/pf%2Fodd%20id" {
		t.Errorf("recorded path %q, want the escaped path as sent", reqs[2].Path)
	}
	// A request that failed authentication: its method and path only.
	if reqs[3].Status != 401 || reqs[3].Header != nil || reqs[3].Body != nil || reqs[3].Method == "" || reqs[3].Path == "" {
		t.Errorf("the wrong-key request is recorded as %+v, want 401 with its method and path only", reqs[3])
	}

	// The key is nowhere in the record.
	all, err := json.Marshal(reqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{srv.APIKey, "wrong-key-value"} {
		if bytes.Contains(all, []byte(secret)) {
			t.Errorf("the record holds the key %q: %s", secret, all)
		}
	}
	// Nor in the record served over HTTP.
	r := kCall(t, srv, "GET", "/_mock/requests", nil)
	if bytes.Contains(r.Body, []byte(srv.APIKey)) {
		t.Errorf("GET /_mock/requests holds the key")
	}

	srv.ClearRequests()
	if got := srv.Requests(); len(got) != 0 {
		t.Errorf("Requests() after ClearRequests = %d entries", len(got))
	}
}

// TestKitRequestRecordBodyAsSent checks that the record holds the body the
// client sent even when no handler read it: an answer from a fault, an
// unknown route; but not of a request that failed authentication, whose
// method and path alone are kept. The record is there to assert on what a client sent,
// and a retried upload's first attempt is exactly what such a test checks.
func TestKitRequestRecordBodyAsSent(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := kProfile(t, srv.Tenant, "Body")
	if _, err := srv.InjectFault(mockserver.Fault{Method: "PATCH", Path: "/v1/profiles/*", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	const body = `{"name":"renamed"}`
	kWantError(t, kCall(t, srv, "PATCH", "/v1/profiles/"+p.ID, body), 503, "SERVICE_UNAVAILABLE")
	kWantError(t, kDo(t, srv.URL, "wrong-key", "PATCH", "/v1/profiles/"+p.ID, body), 401, "UNAUTHORIZED")
	kWantError(t, kCall(t, srv, "PATCH", "/v1/nowhere", body), 404, "NOT_FOUND")
	kWant(t, kCall(t, srv, "PATCH", "/v1/profiles/"+p.ID, body), 200)
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	for i, what := range []string{"answered by a fault", "refused with 401", "to an unknown route", "handled"} {
		want := body
		if i == 1 {
			want = "" // failed authentication: method and path only
		}
		if string(reqs[i].Body) != want {
			t.Errorf("request %s: recorded body %q, want %q", what, reqs[i].Body, want)
		}
	}
}

func TestKitRequestRecordTruncatesLongBodies(t *testing.T) {
	srv := mockserver.NewTest(t)
	_, fid := kProfile(t, srv.Tenant, "Long")
	long := strings.Repeat("x", 100<<10)
	raw, _ := json.Marshal(map[string]any{"type": "text", "name": "long", "content": long})
	kWant(t, kCall(t, srv, "POST", "/v1/folders/"+fid+"/items", raw), 201)
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Body) != 64<<10 || !last.BodyTruncated || !bytes.Equal(last.Body, raw[:64<<10]) {
		t.Errorf("recorded %d bytes, truncated %v; want the first 64 KiB and the flag", len(last.Body), last.BodyTruncated)
	}
}

func TestKitRequestRecordRing(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(5))
	for i := range 8 {
		kCall(t, srv, "GET", fmt.Sprintf("/v1/profiles/pf_%d", i), nil)
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	want := []string{"/v1/profiles/pf_3", "/v1/profiles/pf_4", "/v1/profiles/pf_5", "/v1/profiles/pf_6", "/v1/profiles/pf_7"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("record after 8 requests (-want +got):\n%s", diff)
	}
	srv.ClearRequests()
	kCall(t, srv, "GET", "/v1/profiles/pf_after", nil)
	if got := srv.Requests(); len(got) != 1 || got[0].Path != "/v1/profiles/pf_after" {
		t.Errorf("record after ClearRequests and one request = %+v", got)
	}

	t.Run("size 0 keeps none", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithRequestRecordSize(0))
		kCall(t, srv, "GET", "/v1/profiles/pf_x", nil)
		if got := srv.Requests(); len(got) != 0 {
			t.Errorf("record of size 0 holds %d requests", len(got))
		}
	})
}

// ---------------------------------------------------------------------
// Reset.

func TestKitReset(t *testing.T) {
	extra := mockserver.Workflow{ID: "wf_configured", OutputSchema: json.RawMessage(`{"properties":{}}`)}
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithWorkflows(extra))
	if err := srv.AddWorkflow(mockserver.Workflow{ID: "wf_added"}); err != nil {
		t.Fatal(err)
	}
	pid, iid := kProfileWithItem(t, srv.Tenant)
	aid := kStart(t, srv.URL, srv.APIKey, pid, iid)
	pending := kLongPoll(t, srv.URL, srv.APIKey, aid, 10)
	if _, err := srv.InjectFault(mockserver.Fault{Path: "/nothing", Status: 500}); err != nil {
		t.Fatal(err)
	}
	kWantBlocked(t, pending, 100*time.Millisecond)

	srv.Reset()

	if ps := srv.Profiles(); len(ps) != 0 {
		t.Errorf("Profiles() after Reset = %v", ps)
	}
	if _, ok := srv.Item(iid); ok {
		t.Errorf("item %s survived Reset", iid)
	}
	if _, ok := srv.Analysis(aid); ok {
		t.Errorf("analysis %s survived Reset", aid)
	}
	if fs := srv.Faults(); len(fs) != 0 {
		t.Errorf("faults survived Reset: %+v", fs)
	}
	if rs := srv.Requests(); len(rs) != 0 {
		t.Errorf("the request record survived Reset: %d entries", len(rs))
	}
	var ids []string
	for _, w := range srv.Workflows() {
		ids = append(ids, w.ID)
	}
	if diff := cmp.Diff([]string{"wf_configured", "wf_default"}, ids); diff != "" {
		t.Errorf("workflows after Reset (-want +got):\n%s", diff)
	}
	// A long poll under way answers 404.
	kWantError(t, kReceive(t, pending, 2*time.Second), 404, "ANALYSIS_NOT_FOUND")
	kWantError(t, kCall(t, srv, "GET", "/v1/profiles/"+pid, nil), 404, "PROFILE_NOT_FOUND")

	// The server works after Reset.
	pid2, iid2 := kProfileWithItem(t, srv.Tenant)
	kStart(t, srv.URL, srv.APIKey, pid2, iid2)
}

// TestKitResetDropsRequestsUnderWay holds a long poll, resets, and waits
// for the poll's 404: the poll arrived before the Reset, so the record it
// is answered into is empty, however the answer and the Reset interleave.
// A request that arrives after the Reset is recorded as usual.
func TestKitResetDropsRequestsUnderWay(t *testing.T) {
	fc := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fc))
	pid, iid := kProfileWithItem(t, srv.Tenant)
	aid := kStart(t, srv.URL, srv.APIKey, pid, iid)
	poll := kLongPoll(t, srv.URL, srv.APIKey, aid, 10)
	kHeld(t, fc)

	srv.Reset()
	r := kReceive(t, poll, 5*time.Second)
	kWantError(t, r, 404, "ANALYSIS_NOT_FOUND")
	if rs := srv.Requests(); len(rs) != 0 {
		t.Fatalf("the long poll held across Reset was recorded: %+v", rs)
	}

	after := kCall(t, srv, "GET", "/v1/profiles/"+pid, nil)
	kWantError(t, after, 404, "PROFILE_NOT_FOUND")
	rs := srv.Requests()
	if len(rs) != 1 || rs[0].RequestID != after.Header.Get("X-Request-Id") || rs[0].Status != 404 {
		t.Errorf("record after Reset and one request = %+v, want that request (%s) alone", rs, after.Header.Get("X-Request-Id"))
	}
}

// TestKitClearRequestsDropsRequestsUnderWay holds a long poll, clears the
// record, then lets the poll time out: it arrived before ClearRequests, so
// it is not recorded when it is answered.
func TestKitClearRequestsDropsRequestsUnderWay(t *testing.T) {
	fc := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fc))
	pid, iid := kProfileWithItem(t, srv.Tenant)
	aid := kStart(t, srv.URL, srv.APIKey, pid, iid)
	poll := kLongPoll(t, srv.URL, srv.APIKey, aid, 10)
	kHeld(t, fc)

	srv.ClearRequests()
	fc.Advance(10 * time.Second)
	kWant(t, kReceive(t, poll, 5*time.Second), 200)
	if rs := srv.Requests(); len(rs) != 0 {
		t.Fatalf("the long poll held across ClearRequests was recorded: %+v", rs)
	}

	// Over HTTP too, and the record goes on with the next request.
	poll = kLongPoll(t, srv.URL, srv.APIKey, aid, 10)
	kHeld(t, fc)
	kWant(t, kCall(t, srv, "DELETE", "/_mock/requests", nil), 204)
	after := kCall(t, srv, "GET", "/v1/analyses/"+aid, nil)
	kWant(t, after, 200)
	fc.Advance(10 * time.Second)
	kWant(t, kReceive(t, poll, 5*time.Second), 200)
	rs := srv.Requests()
	if len(rs) != 1 || rs[0].RequestID != after.Header.Get("X-Request-Id") {
		t.Errorf("record = %+v, want the request after the clearing (%s) alone", rs, after.Header.Get("X-Request-Id"))
	}
}

// ---------------------------------------------------------------------
// Multi-tenant.

func TestKitMultiTenant(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithMultiTenant())
	keyA := "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2d"
	keyB := "F1E2D3C4-B5A6-4978-8695-A4B3C2D1E0F9" // upper case is well formed too
	ctx := t.Context()

	ca := srv.Client(profilesvc.WithAPIKey(keyA), profilesvc.WithMaxRetries(0))
	cb := srv.Client(profilesvc.WithAPIKey(keyB), profilesvc.WithMaxRetries(0))
	pa, err := ca.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "A's"})
	if err != nil {
		t.Fatalf("tenant A: %v", err)
	}
	pb, err := cb.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "B's"})
	if err != nil {
		t.Fatalf("tenant B: %v", err)
	}

	// Each sees its own profile only.
	if _, err := ca.GetProfile(ctx, pa.ID); err != nil {
		t.Errorf("A reading its profile: %v", err)
	}
	if _, err := cb.GetProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("B reading A's profile = %v, want ErrProfileNotFound", err)
	}
	if _, err := ca.GetFolder(ctx, pb.DefaultFolder().ID); !errors.Is(err, profilesvc.ErrFolderNotFound) {
		t.Errorf("A reading B's folder = %v, want ErrFolderNotFound", err)
	}
	if err := cb.DeleteProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("B deleting A's profile = %v, want ErrProfileNotFound", err)
	}
	if _, err := srv.Client().GetProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("the server's own key reading A's profile = %v, want ErrProfileNotFound", err)
	}

	// TenantOf.
	ta, tb := srv.TenantOf(keyA), srv.TenantOf(keyB)
	if ta == nil || tb == nil || ta == tb || ta == srv.Tenant {
		t.Fatalf("TenantOf: A %p, B %p, own %p: want two distinct namespaces apart from the server's", ta, tb, srv.Tenant)
	}
	if srv.TenantOf(keyA) != ta || srv.TenantOf(strings.ToUpper(keyA)) != ta || srv.TenantOf(strings.ToLower(keyB)) != tb {
		t.Errorf("TenantOf is not stable for a key (or its other case)")
	}
	if srv.TenantOf(srv.APIKey) != srv.Tenant {
		t.Errorf("TenantOf(the server's key) is not srv.Tenant")
	}
	if srv.TenantOf("not-a-uuid") != nil || srv.TenantOf("") != nil {
		t.Errorf("TenantOf of a malformed key is not nil")
	}
	if ps := ta.Profiles(); len(ps) != 1 || ps[0].ID != pa.ID {
		t.Errorf("A's namespace holds %v", ps)
	}
	if len(srv.Profiles()) != 0 {
		t.Errorf("the server's own namespace holds the tenants' profiles")
	}

	// Faults are per namespace.
	if _, err := ta.InjectFault(mockserver.Fault{Status: 503}); err != nil {
		t.Fatal(err)
	}
	if _, err := ca.GetProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrServiceUnavailable) {
		t.Errorf("A under its fault = %v, want 503", err)
	}
	if _, err := cb.GetProfile(ctx, pb.ID); err != nil {
		t.Errorf("B got A's fault: %v", err)
	}
	ta.ClearFaults()

	// Records are per namespace.
	ta.ClearRequests()
	tb.ClearRequests()
	kDo(t, srv.URL, keyA, "GET", "/v1/profiles/"+pa.ID, nil)
	if ra, rb := ta.Requests(), tb.Requests(); len(ra) != 1 || len(rb) != 0 {
		t.Errorf("after A's request: A recorded %d, B %d; want 1 and 0", len(ra), len(rb))
	}
	if all, _ := json.Marshal(ta.Requests()); bytes.Contains(all, []byte(keyA)) {
		t.Errorf("A's record holds its key")
	}

	// The control API acts on the caller's namespace.
	kWant(t, kDo(t, srv.URL, keyB, "POST", "/_mock/reset", nil), 204)
	if len(tb.Profiles()) != 0 || len(ta.Profiles()) != 1 {
		t.Errorf("B's reset: A has %d profiles, B %d; want 1 and 0", len(ta.Profiles()), len(tb.Profiles()))
	}

	// A key that is not a UUID is refused.
	for _, key := range []string{"not-a-uuid", "0b6a3c2e1f4d4a5b9c8d7e6f5a4b3c2d", "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2g", ""} {
		kWantError(t, kDo(t, srv.URL, key, "GET", "/v1/profiles/"+pa.ID, nil), 401, "UNAUTHORIZED")
	}
}

func TestKitSingleTenantRefusesOtherUUIDs(t *testing.T) {
	srv := mockserver.NewTest(t)
	other := "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2d"
	kWantError(t, kDo(t, srv.URL, other, "GET", "/v1/profiles/pf_x", nil), 401, "UNAUTHORIZED")
	if srv.TenantOf(other) != nil {
		t.Errorf("TenantOf(another UUID) on a single-tenant server is not nil")
	}
	if srv.TenantOf(srv.APIKey) != srv.Tenant {
		t.Errorf("TenantOf(the server's key) is not srv.Tenant")
	}
}

// ---------------------------------------------------------------------
// IDs.

// kIDRun makes the same sequence of requests on a server and returns every
// ID they produce, with the prefix each must have.
func kIDRun(t *testing.T, srv *mockserver.Server) (ids, prefixes []string) {
	t.Helper()
	ctx := t.Context()
	c := srv.Client()
	add := func(id, prefix string) {
		ids = append(ids, id)
		prefixes = append(prefixes, prefix)
	}
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "IDs"})
	if err != nil {
		t.Fatal(err)
	}
	add(p.ID, "pf_")
	add(p.DefaultFolder().ID, "fld_")
	f, err := c.CreateFolder(ctx, p.ID, "second")
	if err != nil {
		t.Fatal(err)
	}
	add(f.ID, "fld_")
	it, err := c.UploadFile(ctx, f.ID, strings.NewReader(kPassport), profilesvc.UploadParams{Filename: "passport.txt"})
	if err != nil {
		t.Fatal(err)
	}
	add(it.ID, "item_")
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	add(id, "analysis_")
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	a := kAnalysis(t, srv.Tenant, id)
	if a.PrimaryReportID == nil || len(a.Findings) == 0 || len(a.Recommendations) == 0 {
		t.Fatalf("completed analysis lacks a report, findings or recommendations: %+v", a)
	}
	add(*a.PrimaryReportID, "rpt_")
	for _, f := range a.Findings {
		add(f.ID, "af_")
	}
	for _, r := range a.Recommendations {
		add(r.ID, "ar_")
	}
	if !strings.HasPrefix(a.PlaybookID, "PB-") {
		t.Errorf("playbookId %q, want the PB- prefix", a.PlaybookID)
	}
	return ids, prefixes
}

func TestKitIDs(t *testing.T) {
	seeded := func(seed uint64) *mockserver.Server {
		return mockserver.NewTest(t, mockserver.WithIDSeed(seed), mockserver.WithManualAnalyses())
	}
	a, prefixes := kIDRun(t, seeded(7))
	b, _ := kIDRun(t, seeded(7))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two servers with ID seed 7 gave different IDs (-first +second):\n%s", diff)
	}
	for i, id := range a {
		kWantID(t, id, prefixes[i])
	}
	c, _ := kIDRun(t, seeded(8))
	if slices.Equal(a, c) {
		t.Errorf("ID seeds 7 and 8 gave the same IDs")
	}

	// Without a seed: prefixed, random, different on every server.
	r1, _ := kIDRun(t, mockserver.NewTest(t, mockserver.WithManualAnalyses()))
	r2, _ := kIDRun(t, mockserver.NewTest(t, mockserver.WithManualAnalyses()))
	for i := range r1 {
		kWantID(t, r1[i], prefixes[i])
		if r1[i] == r2[i] {
			t.Errorf("two unseeded servers both made ID %s", r1[i])
		}
	}
	seen := map[string]bool{}
	for _, id := range append(r1, r2...) {
		suffix := id[strings.IndexAny(id, "_")+1:]
		if seen[suffix] {
			t.Errorf("random part %s repeated", suffix)
		}
		seen[suffix] = true
	}
}

// ---------------------------------------------------------------------
// The /_mock/ control API over HTTP.

func TestKitControlAuth(t *testing.T) {
	srv := mockserver.NewTest(t)
	routes := []struct{ method, path string }{
		{"POST", "/_mock/reset"},
		{"GET", "/_mock/workflows"},
		{"POST", "/_mock/workflows"},
		{"POST", "/_mock/seed"},
		{"POST", "/_mock/items/item_x/status"},
		{"POST", "/_mock/analyses/analysis_x/process"},
		{"POST", "/_mock/analyses/analysis_x/complete"},
		{"POST", "/_mock/analyses/analysis_x/fail"},
		{"POST", "/_mock/analyses/analysis_x/verification"},
		{"GET", "/_mock/faults"},
		{"POST", "/_mock/faults"},
		{"DELETE", "/_mock/faults"},
		{"DELETE", "/_mock/faults/fault_1"},
		{"GET", "/_mock/requests"},
		{"DELETE", "/_mock/requests"},
	}
	p, _ := kProfile(t, srv.Tenant, "Survives unauthorised calls")
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			kWantError(t, kDo(t, srv.URL, "", rt.method, rt.path, nil), 401, "UNAUTHORIZED")
			kWantError(t, kDo(t, srv.URL, "00000000-0000-4000-8000-000000000000", rt.method, rt.path, nil), 401, "UNAUTHORIZED")
		})
	}
	if _, ok := srv.Profile(p.ID); !ok {
		t.Errorf("an unauthorised /_mock/reset reset the state")
	}
}

func TestKitControlReset(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := kProfile(t, srv.Tenant, "To reset")
	if _, err := srv.InjectFault(mockserver.Fault{Path: "/none", Status: 500}); err != nil {
		t.Fatal(err)
	}
	r := kCall(t, srv, "POST", "/_mock/reset", nil)
	kWant(t, r, 204)
	if len(r.Body) != 0 {
		t.Errorf("204 with a body %q", r.Body)
	}
	if _, ok := srv.Profile(p.ID); ok || len(srv.Faults()) != 0 {
		t.Errorf("POST /_mock/reset left state behind")
	}
}

func TestKitControlWorkflows(t *testing.T) {
	srv := mockserver.NewTest(t)
	var list struct {
		Items []mockserver.Workflow `json:"items"`
	}
	kJSON(t, kCall(t, srv, "GET", "/_mock/workflows", nil), &list)
	if len(list.Items) != 1 || list.Items[0].ID != mockserver.DefaultWorkflowID || len(list.Items[0].OutputSchema) == 0 || len(list.Items[0].Policy) == 0 {
		t.Fatalf("GET /_mock/workflows = %+v", list)
	}

	r := kCall(t, srv, "POST", "/_mock/workflows", `{"id":"wf_http","name":"Over HTTP","outputSchema":{"type":"object","properties":{"extracted_values":{"type":"object"}}},"policy":[{"actionName":"extract","category":"Data Extraction","query":"q"}]}`)
	kWant(t, r, 201)
	var created mockserver.Workflow
	kJSON(t, r, &created)
	if created.ID != "wf_http" || created.Name != "Over HTTP" {
		t.Errorf("POST /_mock/workflows answered %+v", created)
	}
	kJSON(t, kCall(t, srv, "GET", "/_mock/workflows", nil), &list)
	if len(list.Items) != 2 {
		t.Errorf("workflows after POST = %+v", list.Items)
	}
	kWant(t, kCall(t, srv, "POST", "/v1/workflows/wf_http/profiles", `{"name":"in wf_http"}`), 201)

	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"bad id", `{"id":"http"}`, 400, "VALIDATION_ERROR"},
		{"schema without properties", `{"id":"wf_x","outputSchema":{"type":"object"}}`, 400, "VALIDATION_ERROR"},
		{"malformed JSON", `{"id":`, 400, "VALIDATION_ERROR"},
		{"wrong type", `{"id":5}`, 400, "VALIDATION_ERROR"},
		{"unknown field", `{"id":"wf_x","extra":1}`, 400, "VALIDATION_ERROR"},
		{"empty body", ``, 400, "VALIDATION_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kWantError(t, kCall(t, srv, "POST", "/_mock/workflows", tc.body), tc.status, tc.code)
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		req, _ := http.NewRequest("POST", srv.URL+"/_mock/workflows", strings.NewReader(`id=wf_x`))
		req.Header.Set("x-api-key", srv.APIKey)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := kHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		kWantError(t, kResp{Status: resp.StatusCode, Header: resp.Header, Body: b}, 415, "UNSUPPORTED_MEDIA_TYPE")
	})
	kJSON(t, kCall(t, srv, "GET", "/_mock/workflows", nil), &list)
	if len(list.Items) != 2 {
		t.Errorf("refused workflows were added: %+v", list.Items)
	}
}

func TestKitControlSeed(t *testing.T) {
	srv := mockserver.NewTest(t)
	raw, err := json.Marshal(kSeed())
	if err != nil {
		t.Fatal(err)
	}
	r := kCall(t, srv, "POST", "/_mock/seed", raw)
	kWant(t, r, 204)
	kCheckSeeded(t, srv.Tenant)

	t.Run("path refused", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		kWantError(t, kCall(t, srv, "POST", "/_mock/seed", `{"profiles":[{"name":"x","folders":[{"name":"default","items":[{"type":"file","path":"/etc/passwd"}]}]}]}`), 400, "VALIDATION_ERROR")
		if len(srv.Profiles()) != 0 {
			t.Errorf("a refused seed loaded profiles")
		}
	})
	t.Run("invalid seed loads nothing", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		kWantError(t, kCall(t, srv, "POST", "/_mock/seed", `{"profiles":[{"name":"ok"},{"name":"x","workflowId":"wf_missing"}]}`), 400, "VALIDATION_ERROR")
		if len(srv.Profiles()) != 0 {
			t.Errorf("a refused seed loaded profiles: %v", srv.Profiles())
		}
	})
	t.Run("bad bodies", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		for _, body := range []string{`{"profiles":`, `{"profiles":{}}`, `{"nope":1}`, `[]`} {
			kWantError(t, kCall(t, srv, "POST", "/_mock/seed", body), 400, "VALIDATION_ERROR")
		}
	})
}

func TestKitControlItemStatus(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, iid := kProfileWithItem(t, srv.Tenant)

	r := kCall(t, srv, "POST", "/_mock/items/"+iid+"/status", `{"status":"PROCESSING"}`)
	kWant(t, r, 200)
	var it profilesvc.Item
	kJSON(t, r, &it)
	if it.ID != iid || it.Status != profilesvc.ItemProcessing {
		t.Errorf("answer = %s %s, want %s PROCESSING", it.ID, it.Status, iid)
	}
	kWantError(t, kStartResp(t, srv.URL, srv.APIKey, pid, iid), 400, "INVALID_ITEM_IDS")
	kWant(t, kCall(t, srv, "POST", "/_mock/items/"+iid+"/status", `{"status":"ACTIVE"}`), 200)
	kStart(t, srv.URL, srv.APIKey, pid, iid)

	for _, body := range []string{`{}`, `{"status":""}`, `{"status":5}`, `{"status":"ACTIVE","x":1}`, `not json`} {
		kWantError(t, kCall(t, srv, "POST", "/_mock/items/"+iid+"/status", body), 400, "VALIDATION_ERROR")
	}
	kWantError(t, kCall(t, srv, "POST", "/_mock/items/item_missing/status", `{"status":"ACTIVE"}`), 404, "ITEM_NOT_FOUND")
}

func TestKitControlAnalyses(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, iid := kProfileWithItem(t, srv.Tenant)
	decode := func(t *testing.T, r kResp) profilesvc.Analysis {
		t.Helper()
		kWant(t, r, 200)
		var a profilesvc.Analysis
		kJSON(t, r, &a)
		return a
	}

	t.Run("process and complete", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		if a := decode(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/process", nil)); a.ID != id || a.Status != profilesvc.AnalysisProcessing {
			t.Errorf("process answered %s %s", a.ID, a.Status)
		}
		kWantError(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/process", nil), 409, "ANALYSIS_NOT_PENDING")
		a := decode(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/complete", nil))
		if a.Status != profilesvc.AnalysisCompleted || a.PrimaryReportID == nil {
			t.Errorf("complete answered %s, report %v", a.Status, a.PrimaryReportID)
		}
		kWantError(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/complete", nil), 409, "ANALYSIS_FINISHED")
		kWantError(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/fail", `{"error":"late"}`), 409, "ANALYSIS_FINISHED")

		for _, vs := range []string{"approved", "rejected"} {
			a := decode(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/verification", `{"verificationStatus":"`+vs+`"}`))
			if string(a.VerificationStatus) != vs {
				t.Errorf("verification answered %s, want %s", a.VerificationStatus, vs)
			}
			var got profilesvc.Analysis
			kJSON(t, kCall(t, srv, "GET", "/v1/analyses/"+id, nil), &got)
			if string(got.VerificationStatus) != vs {
				t.Errorf("GET after verification %s says %s", vs, got.VerificationStatus)
			}
		}
		for _, body := range []string{`{"verificationStatus":"maybe"}`, `{}`, `{"verificationStatus":1}`, `{"status":"approved"}`, `{`} {
			kWantError(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/verification", body), 400, "VALIDATION_ERROR")
		}
	})

	t.Run("fail with a message", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		a := decode(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/fail", `{"error":"document unreadable"}`))
		if a.Status != profilesvc.AnalysisFailed || a.Error == nil || *a.Error != "document unreadable" {
			t.Errorf("fail answered %s, error %v", a.Status, a.Error)
		}
	})

	t.Run("fail without a body", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		req, _ := http.NewRequest("POST", srv.URL+"/_mock/analyses/"+id+"/fail", nil)
		req.Header.Set("x-api-key", srv.APIKey)
		resp, err := kHTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		a := decode(t, kResp{Status: resp.StatusCode, Header: resp.Header, Body: b})
		if a.Status != profilesvc.AnalysisFailed || a.Error == nil || *a.Error == "" {
			t.Errorf("fail without a body answered %s, error %v", a.Status, a.Error)
		}
	})

	t.Run("fail with a bad body", func(t *testing.T) {
		id := kStart(t, srv.URL, srv.APIKey, pid, iid)
		for _, body := range []string{`{"error":5}`, `{"reason":"x"}`, `{`} {
			kWantError(t, kCall(t, srv, "POST", "/_mock/analyses/"+id+"/fail", body), 400, "VALIDATION_ERROR")
		}
		kWantStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("unknown analysis", func(t *testing.T) {
		for _, tc := range []struct{ path, body string }{
			{"/_mock/analyses/analysis_missing/process", ""},
			{"/_mock/analyses/analysis_missing/complete", ""},
			{"/_mock/analyses/analysis_missing/fail", `{"error":"x"}`},
			{"/_mock/analyses/analysis_missing/verification", `{"verificationStatus":"approved"}`},
		} {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			kWantError(t, kCall(t, srv, "POST", tc.path, body), 404, "ANALYSIS_NOT_FOUND")
		}
	})
}

func TestKitControlFaults(t *testing.T) {
	srv := mockserver.NewTest(t)
	p, _ := kProfile(t, srv.Tenant, "Faulty")

	r := kCall(t, srv, "POST", "/_mock/faults", `{"method":"GET","path":"/v1/profiles/*","status":503,"code":"SERVICE_UNAVAILABLE","message":"try later","retryAfterSeconds":2,"times":1}`)
	kWant(t, r, 201)
	// The JSON form of a fault.
	type fault struct {
		ID                string `json:"id"`
		Status            int    `json:"status"`
		Times             int    `json:"times"`
		RetryAfterSeconds int    `json:"retryAfterSeconds"`
	}
	var f fault
	kJSON(t, r, &f)
	if f.ID == "" || f.Status != 503 || f.Times != 1 || f.RetryAfterSeconds != 2 {
		t.Errorf("POST /_mock/faults answered %+v", f)
	}
	var list struct {
		Items []fault `json:"items"`
	}
	kJSON(t, kCall(t, srv, "GET", "/_mock/faults", nil), &list)
	if len(list.Items) != 1 || list.Items[0].ID != f.ID {
		t.Fatalf("GET /_mock/faults = %+v", list)
	}
	r = kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
	if kWantError(t, r, 503, "SERVICE_UNAVAILABLE") != "try later" || r.Header.Get("Retry-After") != "2" {
		t.Errorf("fault answer: Retry-After %q, body %s", r.Header.Get("Retry-After"), r.Body)
	}
	kWant(t, kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 200) // used up

	// A delay and a drop over HTTP.
	kWant(t, kCall(t, srv, "POST", "/_mock/faults", `{"path":"/v1/profiles/*","delayMs":120,"times":1}`), 201)
	start := time.Now()
	kWant(t, kCall(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 200)
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Errorf("delayMs 120 answered after %v", el)
	}
	r = kCall(t, srv, "POST", "/_mock/faults", `{"path":"/v1/folders/*","drop":true}`)
	kWant(t, r, 201)
	var drop mockserver.Fault
	kJSON(t, r, &drop)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/folders/fld_x", nil)
	req.Header.Set("x-api-key", srv.APIKey)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("a drop fault over HTTP let an answer through: %d", resp.StatusCode)
	}

	// DELETE one, then all.
	r = kCall(t, srv, "DELETE", "/_mock/faults/"+drop.ID, nil)
	kWant(t, r, 204)
	kWantError(t, kCall(t, srv, "DELETE", "/_mock/faults/"+drop.ID, nil), 404, "NOT_FOUND")
	kWant(t, kCall(t, srv, "GET", "/v1/folders/"+p.Folders[0].ID, nil), 200)
	kWant(t, kCall(t, srv, "POST", "/_mock/faults", `{"status":500}`), 201)
	kWant(t, kCall(t, srv, "POST", "/_mock/faults", `{"status":502}`), 201)
	kWant(t, kCall(t, srv, "DELETE", "/_mock/faults", nil), 204)
	kJSON(t, kCall(t, srv, "GET", "/_mock/faults", nil), &list)
	if len(list.Items) != 0 {
		t.Errorf("faults after DELETE /_mock/faults = %+v", list.Items)
	}
	// The control API is not subject to faults.
	kWant(t, kCall(t, srv, "POST", "/_mock/faults", `{"status":500}`), 201)
	kWant(t, kCall(t, srv, "GET", "/_mock/faults", nil), 200)
	kWant(t, kCall(t, srv, "DELETE", "/_mock/faults", nil), 204)

	for _, body := range []string{
		`{}`, `{"status":200}`, `{"status":503,"drop":true}`, `{"status":503,"times":-1}`,
		`{"status":503,"probability":2}`, `{"status":503,"path":"["}`, `{"status":"503"}`,
		`{"status":503,"unknown":1}`, `{"status":503`,
		// Out-of-range numbers: refused, not silently ignored or wrapped.
		`{"status":503,"retryAfterSeconds":-1}`, `{"status":503,"delayMs":-1}`,
		`{"status":503,"retryAfterSeconds":100000000000}`,
	} {
		t.Run(body, func(t *testing.T) {
			kWantError(t, kCall(t, srv, "POST", "/_mock/faults", body), 400, "VALIDATION_ERROR")
		})
	}
	kJSON(t, kCall(t, srv, "GET", "/_mock/faults", nil), &list)
	if len(list.Items) != 0 {
		t.Errorf("refused faults were kept: %+v", list.Items)
	}
}

func TestKitControlRequests(t *testing.T) {
	srv := mockserver.NewTest(t)
	kCall(t, srv, "POST", "/v1/workflows/wf_default/profiles", `{"name":"recorded"}`)
	kCall(t, srv, "GET", "/v1/profiles/pf_missing?x=1", nil)

	var list struct {
		Count int                          `json:"count"`
		Items []mockserver.RecordedRequest `json:"items"`
	}
	r := kCall(t, srv, "GET", "/_mock/requests", nil)
	kWant(t, r, 200)
	kJSON(t, r, &list)
	if list.Count != 2 || len(list.Items) != 2 {
		t.Fatalf("GET /_mock/requests = %s", r.Body)
	}
	if list.Items[0].Method != "POST" || string(list.Items[0].Body) != `{"name":"recorded"}` || list.Items[0].Status != 201 {
		t.Errorf("first recorded request = %+v", list.Items[0])
	}
	if list.Items[1].Path != "/v1/profiles/pf_missing" || list.Items[1].Query.Get("x") != "1" || list.Items[1].Status != 400 {
		t.Errorf("second recorded request = %+v", list.Items[1])
	}
	if list.Items[0].Header.Get("X-Api-Key") != "[REDACTED]" {
		t.Errorf("recorded key %q", list.Items[0].Header.Get("X-Api-Key"))
	}
	if bytes.Contains(r.Body, []byte(srv.APIKey)) {
		t.Errorf("GET /_mock/requests holds the key")
	}

	kWant(t, kCall(t, srv, "DELETE", "/_mock/requests", nil), 204)
	kJSON(t, kCall(t, srv, "GET", "/_mock/requests", nil), &list)
	if list.Count != 0 || list.Items == nil || len(list.Items) != 0 {
		t.Errorf("after DELETE /_mock/requests: count %d, items %v (want 0 and [])", list.Count, list.Items)
	}
}

// TestKitConcurrentUse drives the kit and the HTTP API from many
// goroutines at once, for the race detector.
func TestKitConcurrentUse(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(20*time.Millisecond), mockserver.WithRequestRecordSize(50))
	type target struct{ pid, iid string }
	targets := make([]target, 4)
	for i := range targets {
		targets[i].pid, targets[i].iid = kProfileWithItem(t, srv.Tenant)
	}
	hc := &http.Client{Timeout: 20 * time.Second}
	send := func(method, path, body string) (int, []byte, error) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+path, rd)
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("x-api-key", srv.APIKey)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	var wg sync.WaitGroup
	for i, tg := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, b, err := send("POST", "/v1/analyses/"+tg.pid+"/analyze", `{"targetItems":[{"itemId":"`+tg.iid+`"}]}`)
			if err != nil || status != 202 {
				t.Errorf("start %d: %d %s %v", i, status, b, err)
				return
			}
			var out struct{ ID string }
			_ = json.Unmarshal(b, &out)
			_, _ = srv.InjectFault(mockserver.Fault{Path: fmt.Sprintf("/none/%d", i), Status: 500})
			_ = srv.Faults()
			_ = srv.Requests()
			_, _ = srv.AddTextItem(srv.Profiles()[0].Folders[0].ID, "more", "text")
			status, b, err = send("GET", "/v1/analyses/"+out.ID+"?waitForReport=true&timeoutSeconds=10", "")
			var a profilesvc.Analysis
			if err != nil || status != 200 || json.Unmarshal(b, &a) != nil || a.Status != profilesvc.AnalysisCompleted {
				t.Errorf("long poll %d: %d %s %v", i, status, b, err)
			}
			_ = srv.SetVerificationStatus(out.ID, profilesvc.VerificationApproved)
			_ = srv.Analyses(tg.pid)
			_, _ = srv.Analysis(out.ID)
			if status, b, err := send("GET", "/v1/analyses/"+out.ID+"/report?locale=ko", ""); err != nil || status != 200 || !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Errorf("report %d: %d %v", i, status, err)
			}
		}()
	}
	wg.Wait()
}
