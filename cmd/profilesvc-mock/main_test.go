package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

const mPassport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"

var (
	mListening = regexp.MustCompile(`(?m)^listening on (https?://(\S+):(\d+))$`)
	mKeyLine   = regexp.MustCompile(`(?m)^api key: (\S+)$`)
	mUUID      = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

// mRun is a run of the command in a goroutine.
type mRun struct {
	URL, Key       string
	stdout, stderr *testutil.LockedBuffer
	cancel         context.CancelFunc
	done           chan error
	stopped        bool
}

// mStart calls run with args in a goroutine and waits until it prints its
// address (http or https) and API key, and, with -tls-ca-out, that it
// wrote the certificate. The run is stopped when the test ends.
func mStart(t *testing.T, args ...string) *mRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m := &mRun{stdout: &testutil.LockedBuffer{}, stderr: &testutil.LockedBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() { m.done <- run(ctx, args, m.stdout, m.stderr) }()
	t.Cleanup(func() {
		if !m.stopped {
			_ = m.stop(t)
		}
	})
	wantCert := slices.Contains(args, "-tls-ca-out")
	// A hang guard only: the lines come as soon as the server listens.
	deadline := time.After(time.Minute)
	for {
		wrote := m.stdout.Changed()
		out := m.stdout.String()
		lm, km := mListening.FindStringSubmatch(out), mKeyLine.FindStringSubmatch(out)
		if lm != nil && km != nil && (!wantCert || mCertLine.MatchString(out)) {
			m.URL, m.Key = lm[1], km[1]
			return m
		}
		select {
		case <-wrote:
		case err := <-m.done:
			m.stopped = true
			t.Fatalf("run(%q) returned %v before serving; stdout %q, stderr %q", args, err, out, m.stderr.String())
		case <-deadline:
			t.Fatalf("run(%q) printed no address and key within a minute; stdout %q", args, out)
		}
	}
}

// stop cancels the run's context and returns what run returned; it fails
// the test unless run returns within a minute, a bound far above any
// machine's (and above the default grace period of its shutdown).
func (m *mRun) stop(t *testing.T) error {
	t.Helper()
	m.cancel()
	m.stopped = true
	select {
	case err := <-m.done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("run did not return within a minute of its context ending")
		return nil
	}
}

// mRunError calls run with args, expecting it to fail at once.
func mRunError(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testutil.LockedBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, args, &stdout, &stderr) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatalf("run(%q) = nil, want an error", args)
		}
		if strings.Contains(stdout.String(), "listening on") {
			t.Errorf("run(%q) failed but printed %q", args, stdout.String())
		}
		return stdout.String(), stderr.String(), err
	case <-time.After(time.Minute):
		cancel()
		<-done
		t.Fatalf("run(%q) served instead of failing", args)
		return "", "", nil
	}
}

// mRequest sends a raw request and returns the status and body.
func mRequest(t *testing.T, method, url, key, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-api-key", key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// mClient is an SDK client for the run.
func mClient(t *testing.T, m *mRun, key string) *profilesvc.Client {
	t.Helper()
	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(m.URL), profilesvc.WithAPIKey(key), profilesvc.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRunServes(t *testing.T) {
	const key = "3f1c9a52-7b4e-4d2a-9e6f-0a1b2c3d4e5f"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-analysis-duration", "100ms")
	if !strings.HasPrefix(m.URL, "http://127.0.0.1:") || strings.HasSuffix(m.URL, ":0") {
		t.Errorf("listening on %q: want 127.0.0.1 and the picked port", m.URL)
	}
	if m.Key != key {
		t.Errorf("printed key %q, want %q", m.Key, key)
	}

	ctx := t.Context()
	c := mClient(t, m, key)
	p, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	page, err := c.ListFoldersPage(ctx, p.ID, nil)
	if err != nil {
		t.Fatalf("ListFoldersPage: %v", err)
	}
	if page.Count != 1 || len(page.Items) != 1 || page.Items[0].Name != "default" || !page.Items[0].IsDefault || page.NextCursor != "" {
		t.Errorf("folder listing = %+v, want the default folder alone", page)
	}
	it, err := c.UploadFile(ctx, page.Items[0].ID, strings.NewReader(mPassport), profilesvc.UploadParams{Filename: "passport.txt"})
	if err != nil {
		t.Fatalf("UploadFile: %v", err)
	}
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatalf("StartAnalysis: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	a, err := c.WaitForAnalysis(wctx, id, nil)
	if err != nil || a.Status != profilesvc.AnalysisCompleted {
		t.Fatalf("WaitForAnalysis = %v, %v; want completed within the 100ms analysis duration", a, err)
	}
	rep, err := c.DownloadReport(ctx, id, nil)
	if err != nil {
		t.Fatalf("DownloadReport: %v", err)
	}
	var pdf bytes.Buffer
	if _, err := rep.WriteTo(&pdf); err != nil || !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")) {
		t.Errorf("report = %q..., %v", pdf.Bytes()[:min(8, pdf.Len())], err)
	}

	// Authentication.
	status, body := mRequest(t, "GET", m.URL+"/v1/profiles/"+p.ID, "", "")
	if status != 401 || !bytes.Contains(body, []byte(`"UNAUTHORIZED"`)) {
		t.Errorf("without a key: %d %s", status, body)
	}
	if _, err := mClient(t, m, "wrong").GetProfile(ctx, p.ID); !errors.Is(err, profilesvc.ErrUnauthorized) {
		t.Errorf("with a wrong key: %v", err)
	}
	// The control API is served.
	if status, body := mRequest(t, "GET", m.URL+"/_mock/requests", key, ""); status != 200 || bytes.Contains(body, []byte(key)) {
		t.Errorf("GET /_mock/requests: %d (the key must not appear)", status)
	}

	if err := m.stop(t); err != nil {
		t.Errorf("run returned %v after its context ended, want nil", err)
	}
	if _, err := c.GetProfile(ctx, p.ID); err == nil {
		t.Errorf("the server still answers after run returned")
	}
}

func TestRunGracefulShutdownReleasesLongPoll(t *testing.T) {
	const key = "my-key"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-analysis-duration", "1h")
	ctx := t.Context()
	c := mClient(t, m, key)
	p, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Long"})
	if err != nil {
		t.Fatal(err)
	}
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, mPassport, profilesvc.CreateItemParams{})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		a   *profilesvc.Analysis
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		a, err := c.GetAnalysis(ctx, id, &profilesvc.GetAnalysisParams{WaitForReport: true, Timeout: 300 * time.Second})
		ch <- answer{a, err}
	}()
	awaitPollHeld(t)
	select {
	case got := <-ch:
		t.Fatalf("the long poll answered at once: %+v", got)
	default:
	}

	// Neither the poll's 300s nor the analysis's hour can pass within the
	// minute waited here: the poll is answered by the shutdown, or not at
	// all, and a shutdown that left it to the grace period would cut it.
	if err := m.stop(t); err != nil {
		t.Errorf("run returned %v, want nil", err)
	}
	if out := m.stdout.String(); strings.Contains(out, "under way cut") {
		t.Errorf("the shutdown cut connections: stdout %q", out)
	}
	select {
	case got := <-ch:
		if got.err != nil || got.a.ID != id || got.a.Status.IsTerminal() {
			t.Errorf("the held long poll got %+v, %v; want the running analysis as it stands", got.a, got.err)
		}
	case <-time.After(time.Minute):
		t.Errorf("the held long poll was not answered by the shutdown")
	}
}

// awaitPollHeld returns once a goroutine of the process waits in the
// mock's long poll (mockserver.longPoll) for its analysis to change: the
// server then holds the poll. The binary announces none of its waits, so
// the event watched for is the runtime's own account of the goroutine.
// It fails the test after a minute, a bound far above any machine's, so
// that a poll that is never held fails rather than hangs the test.
func awaitPollHeld(t *testing.T) {
	t.Helper()
	const fn = "github.com/profilesvc/profilesvc-go/mockserver.longPoll("
	deadline := time.Now().Add(time.Minute)
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n == len(buf) {
			buf = make([]byte, 2*len(buf))
			continue
		}
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			head, frames, _ := strings.Cut(g, "\n")
			if strings.Contains(head, " [select") && strings.HasPrefix(frames, fn) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no long poll was held within a minute")
		}
		runtime.Gosched()
	}
}

func TestRunSeed(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "passport.txt"), []byte(mPassport), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join(dir, "seed.json")
	if err := os.WriteFile(seed, []byte(`{
  "workflows": [{"id": "wf_seeded", "outputSchema": {"type": "object", "properties": {"extracted_values": {"type": "object"}}}}],
  "profiles": [{
    "id": "pf_seeded", "workflowId": "wf_seeded", "name": "Seeded",
    "folders": [{"name": "default", "items": [
      {"id": "item_seeded", "type": "file", "path": "docs/passport.txt"},
      {"type": "text", "name": "note", "content": "hello"}
    ]}]
  }]
}`), 0o644); err != nil {
		t.Fatal(err)
	}
	const key = "seed-key"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-seed", seed)

	status, body := mRequest(t, "GET", m.URL+"/v1/profiles/pf_seeded", key, "")
	if status != 200 {
		t.Fatalf("GET the seeded profile: %d %s", status, body)
	}
	var p profilesvc.Profile
	if err := json.Unmarshal(body, &p); err != nil || p.WorkflowID != "wf_seeded" || p.ItemsCount != 2 {
		t.Errorf("seeded profile = %+v, %v", p, err)
	}
	status, body = mRequest(t, "GET", m.URL+"/v1/items/item_seeded", key, "")
	var it profilesvc.Item
	if status != 200 || json.Unmarshal(body, &it) != nil || it.SizeBytes != int64(len(mPassport)) || it.Name != "passport.txt" {
		t.Fatalf("GET the seeded item: %d %s", status, body)
	}
	status, body = mRequest(t, "GET", it.StorageOriginalURL, key, "")
	if status != 200 || string(body) != mPassport {
		t.Errorf("the seeded file's bytes: %d %q", status, body)
	}
	status, _ = mRequest(t, "POST", m.URL+"/v1/workflows/wf_seeded/profiles", key, `{"name":"in the seeded workflow"}`)
	if status != 201 {
		t.Errorf("create a profile in the seeded workflow: %d", status)
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	malformed := filepath.Join(dir, "malformed.json")
	if err := os.WriteFile(malformed, []byte(`{"profiles": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	invalid := filepath.Join(dir, "invalid.json")
	if err := os.WriteFile(invalid, []byte(`{"profiles": [{"name": ""}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	missingItem := filepath.Join(dir, "missing-item.json")
	if err := os.WriteFile(missingItem, []byte(`{"profiles":[{"name":"x","folders":[{"name":"default","items":[{"type":"file","path":"nope.pdf"}]}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in the error's text
	}{
		{"unknown flag", []string{"-nope"}, "nope"},
		{"bad duration", []string{"-addr", "127.0.0.1:0", "-analysis-duration", "soon"}, "soon"},
		{"negative duration", []string{"-addr", "127.0.0.1:0", "-analysis-duration", "-1s"}, "negative"},
		{"bad id seed", []string{"-id-seed", "x"}, "id-seed"},
		{"missing seed file", []string{"-addr", "127.0.0.1:0", "-seed", filepath.Join(dir, "absent.json")}, "absent.json"},
		{"malformed seed file", []string{"-addr", "127.0.0.1:0", "-seed", malformed}, "malformed.json"},
		{"invalid seed", []string{"-addr", "127.0.0.1:0", "-seed", invalid}, "name"},
		{"seed item file missing", []string{"-addr", "127.0.0.1:0", "-seed", missingItem}, "nope.pdf"},
		{"bad address", []string{"-addr", "127.0.0.1:notaport"}, "127.0.0.1:notaport"},
		{"extra argument", []string{"-addr", "127.0.0.1:0", "serve"}, "serve"},
		{"manual analyses with a duration", []string{"-addr", "127.0.0.1:0", "-manual-analyses", "-analysis-duration", "1s"}, "-manual-analyses and -analysis-duration"},
		{"manual analyses in proxy mode", []string{"-addr", "127.0.0.1:0", "-proxy", "http://127.0.0.1:1", "-manual-analyses"}, "-manual-analyses"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := mRunError(t, tc.args...)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}

	t.Run("usage on a bad flag", func(t *testing.T) {
		_, stderr, _ := mRunError(t, "-nope")
		if !strings.Contains(stderr, "-addr") || !strings.Contains(stderr, "-api-key") {
			t.Errorf("stderr %q: want the usage", stderr)
		}
	})
	t.Run("help", func(t *testing.T) {
		_, stderr, err := mRunError(t, "-h")
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("-h returned %v, want flag.ErrHelp", err)
		}
		for _, f := range []string{"-addr", "-api-key", "-analysis-duration", "-seed", "-log-requests", "-multi-tenant", "-id-seed"} {
			if !strings.Contains(stderr, f) {
				t.Errorf("usage lacks %s: %q", f, stderr)
			}
		}
	})
	t.Run("address in use", func(t *testing.T) {
		m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k")
		addr := strings.TrimPrefix(m.URL, "http://")
		_, _, err := mRunError(t, "-addr", addr)
		if !strings.Contains(err.Error(), addr) {
			t.Errorf("error %q does not name %s", err, addr)
		}
	})
}

func TestRunAPIKeyDefault(t *testing.T) {
	t.Run("from the environment", func(t *testing.T) {
		t.Setenv("PROFILESVC_API_KEY", "key-from-env")
		m := mStart(t, "-addr", "127.0.0.1:0")
		if m.Key != "key-from-env" {
			t.Errorf("printed key %q, want key-from-env", m.Key)
		}
		if status, body := mRequest(t, "GET", m.URL+"/_mock/workflows", "key-from-env", ""); status != 200 {
			t.Errorf("with the key from the environment: %d %s", status, body)
		}
	})
	t.Run("flag wins over the environment", func(t *testing.T) {
		t.Setenv("PROFILESVC_API_KEY", "key-from-env")
		m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "key-from-flag")
		if m.Key != "key-from-flag" {
			t.Errorf("printed key %q, want key-from-flag", m.Key)
		}
		if status, _ := mRequest(t, "GET", m.URL+"/_mock/workflows", "key-from-env", ""); status != 401 {
			t.Errorf("the environment's key is accepted although -api-key was given: %d", status)
		}
	})
	t.Run("generated", func(t *testing.T) {
		t.Setenv("PROFILESVC_API_KEY", "")
		m := mStart(t, "-addr", "127.0.0.1:0")
		if !mUUID.MatchString(m.Key) {
			t.Errorf("printed key %q, want a generated UUID", m.Key)
		}
		if status, _ := mRequest(t, "GET", m.URL+"/_mock/workflows", m.Key, ""); status != 200 {
			t.Errorf("the generated key is refused: %d", status)
		}
	})
}

func TestRunMultiTenant(t *testing.T) {
	m := mStart(t, "-addr", "127.0.0.1:0", "-multi-tenant")
	keyA, keyB := "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2d", "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a"
	ctx := t.Context()
	pa, err := mClient(t, m, keyA).CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "A"})
	if err != nil {
		t.Fatalf("tenant A: %v", err)
	}
	if _, err := mClient(t, m, keyB).GetProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("B reading A's profile = %v, want ErrProfileNotFound", err)
	}
	if _, err := mClient(t, m, keyA).GetProfile(ctx, pa.ID); err != nil {
		t.Errorf("A reading its profile: %v", err)
	}
	if _, err := mClient(t, m, m.Key).GetProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("the printed key reading A's profile = %v, want ErrProfileNotFound", err)
	}
	if _, err := mClient(t, m, "not-a-uuid").GetProfile(ctx, pa.ID); !errors.Is(err, profilesvc.ErrUnauthorized) {
		t.Errorf("a key that is not a UUID = %v, want ErrUnauthorized", err)
	}
	// Faults are per tenant.
	if status, body := mRequest(t, "POST", m.URL+"/_mock/faults", keyB, `{"status":503}`); status != 201 {
		t.Fatalf("B's fault: %d %s", status, body)
	}
	if _, err := mClient(t, m, keyA).GetProfile(ctx, pa.ID); err != nil {
		t.Errorf("A got B's fault: %v", err)
	}
}

func TestRunIDSeed(t *testing.T) {
	// create makes a profile and reads a missing one, and returns the
	// profile's ID and the request ID of the error.
	create := func() (profileID, requestID string) {
		m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k", "-id-seed", "3")
		defer m.stop(t)
		c := mClient(t, m, "k")
		p, err := c.CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "x"})
		if err != nil {
			t.Fatal(err)
		}
		var apiErr *profilesvc.APIError
		if _, err := c.GetProfile(t.Context(), "pf_missing"); !errors.As(err, &apiErr) {
			t.Fatalf("GetProfile of a missing profile = %v, want an *APIError", err)
		}
		return p.ID, apiErr.RequestID
	}
	a, ra := create()
	b, rb := create()
	if a != b || !strings.HasPrefix(a, "pf_") {
		t.Errorf("two runs with -id-seed 3 made profiles %s and %s, want the same pf_ ID", a, b)
	}
	if ra != rb || !strings.HasPrefix(ra, "req_") {
		t.Errorf("two runs with -id-seed 3 answered with request IDs %q and %q, want the same req_ ID", ra, rb)
	}
}

func TestRunLogRequests(t *testing.T) {
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k", "-log-requests")
	mRequest(t, "GET", m.URL+"/v1/profiles/pf_logged", "k", "")
	// A hang guard only: the line is written as the request ends.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	log, err := m.stderr.WaitFor(ctx, "/v1/profiles/pf_logged")
	if err != nil {
		t.Fatalf("stderr %q does not log the request: %v", log, err)
	}
	if strings.Contains(log, "x-api-key") || strings.Contains(log, "=k ") {
		t.Errorf("the request log shows the key: %q", log)
	}
	if !strings.Contains(log, "requestId=req_") {
		t.Errorf("the request log does not give the request ID: %q", log)
	}

	quiet := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k")
	mRequest(t, "GET", quiet.URL+"/v1/profiles/pf_quiet", "k", "")
	// Once run has returned, its stderr is final.
	if err := quiet.stop(t); err != nil {
		t.Fatalf("run returned %v after its context ended, want nil", err)
	}
	if s := quiet.stderr.String(); strings.Contains(s, "pf_quiet") {
		t.Errorf("without -log-requests, stderr logs requests: %q", s)
	}
}

func TestRunAnyInterface(t *testing.T) {
	m := mStart(t, "-addr", ":0", "-api-key", "k")
	if status, body := mRequest(t, "GET", m.URL+"/_mock/workflows", "k", ""); status != 200 {
		t.Errorf("the printed address %s does not answer: %d %s", m.URL, status, body)
	}
}

// TestRunSlowHeaders checks that a client that sends its headers slowly is
// cut off by the server's header timeout (-read-header-timeout, here
// half a second rather than the default 10s) and does not hold the server
// meanwhile; the flag's default is checked on its own.
func TestRunSlowHeaders(t *testing.T) {
	t.Parallel()
	f, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.readHeaderTimeout != mockserver.DefaultReadHeaderTimeout || mockserver.DefaultReadHeaderTimeout != 10*time.Second {
		t.Errorf("-read-header-timeout defaults to %v, want %v", f.readHeaderTimeout, 10*time.Second)
	}
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k", "-read-header-timeout", "500ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(m.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "GET /_mock/workflows HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\n"); err != nil {
		t.Fatal(err)
	}
	// Trickle a header line every tenth of a second: never finishing the
	// headers, always sending before the timeout.
	stopTrickle := make(chan struct{})
	defer close(stopTrickle)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stopTrickle:
				return
			case <-time.After(100 * time.Millisecond):
				if _, err := fmt.Fprintf(conn, "x-slow-%d: 1\r\n", i); err != nil {
					return
				}
			}
		}
	}()

	// Meanwhile the server answers others.
	if status, _ := mRequest(t, "GET", m.URL+"/_mock/workflows", "k", ""); status != 200 {
		t.Errorf("while a slow client is connected, another request got %d", status)
	}

	// A hang guard: the server's header timeout ends the connection long
	// before; without one, the trickle would hold it open for ever.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	b, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the slow client was still connected after a minute: no header timeout")
	}
	if bytes.Contains(b, []byte("HTTP/1.1 200")) {
		t.Errorf("the slow client got an answer: %q", b)
	}
}

// TestRunMainSignals runs main in a child process (this test binary again)
// and checks that SIGINT and SIGTERM stop it gracefully with exit status 0.
func TestRunMainSignals(t *testing.T) {
	if os.Getenv("PROFILESVC_MOCK_MAIN_CHILD") == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("PROFILESVC_MOCK_MAIN_ARGS")), &args); err != nil {
			t.Fatal(err)
		}
		os.Args = append([]string{"profilesvc-mock"}, args...)
		main()
		return
	}
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			args, _ := json.Marshal([]string{"-addr", "127.0.0.1:0", "-api-key", "k"})
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunMainSignals$", "-test.count=1")
			cmd.Env = append(os.Environ(), "PROFILESVC_MOCK_MAIN_CHILD=1", "PROFILESVC_MOCK_MAIN_ARGS="+string(args))
			var stdout, stderr testutil.LockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			exited := false
			defer func() {
				if !exited {
					_ = cmd.Process.Kill()
					<-waited
				}
			}()
			var url string
			// A hang guard only: the child prints its address as soon as
			// it listens.
			deadline := time.After(time.Minute)
			for url == "" {
				wrote := stdout.Changed()
				if lm := mListening.FindStringSubmatch(stdout.String()); lm != nil {
					url = lm[1]
					break
				}
				select {
				case <-wrote:
				case err := <-waited:
					exited = true
					t.Fatalf("the child exited before serving: %v; stdout %q stderr %q", err, stdout.String(), stderr.String())
				case <-deadline:
					t.Fatalf("the child printed no address within a minute; stdout %q", stdout.String())
				}
			}
			if status, _ := mRequest(t, "GET", url+"/_mock/workflows", "k", ""); status != 200 {
				t.Fatalf("the child answered %d", status)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-waited:
				exited = true
				if err != nil {
					t.Errorf("after %s the child exited with %v, want status 0; stderr %q", sig, err, stderr.String())
				}
			case <-time.After(time.Minute):
				t.Fatalf("the child did not exit within a minute of %s", sig)
			}
		})
	}
}

// TestRunShutdownCutsSlowUploads stops the server while an upload trickles
// in: once the grace period ends, the connection is cut, and run returns
// no error (the binary exits 0) and says how many it cut.
func TestRunShutdownCutsSlowUploads(t *testing.T) {
	const key = "3c2b1a09-8f7e-4d6c-9b5a-493827161504"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-shutdown-grace", "200ms")
	c := mClient(t, m, key)
	p, err := c.CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(m.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A hang guard only, for the reads below.
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	// The upload asks to be told to go on (Expect: 100-continue): the
	// server says so once the handler reads the body, the upload then
	// under way. The body it declares never comes in full.
	if _, err := fmt.Fprintf(conn, "POST /v1/folders/%s/items HTTP/1.1\r\nHost: x\r\nx-api-key: %s\r\n"+
		"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n",
		p.DefaultFolder().ID, key); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusContinue {
		t.Fatalf("the upload was not let go on: %v, %v", resp, err)
	}
	if _, err := fmt.Fprint(conn, "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\r\nslow"); err != nil {
		t.Fatal(err)
	}

	if err := m.stop(t); err != nil {
		t.Fatalf("run returned %v after cutting the upload; want nil (exit 0)", err)
	}
	if out := m.stdout.String(); !strings.Contains(out, "1 connections under way cut") {
		t.Errorf("stdout %q does not say how many connections were cut", out)
	}
	// The connection was cut: no answer, and no more to read.
	rest, err := io.ReadAll(br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the upload's connection is still open after the shutdown")
	}
	if len(rest) > 0 {
		t.Errorf("the cut upload got an answer: %q", rest)
	}
}
