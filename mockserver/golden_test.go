package mockserver_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"mime"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// The golden files hold the mock's whole answers to every route
// (published, inferred, storage and control), and the text of an English
// and a Korean report: any change of an answer shows as a diff. Each file
// is named after what its answer shows (get-analysis-completed.json,
// error-folder-not-found.json), and each case runs on a server of its
// own, with a fake clock of its own and an ID seed drawn from its name:
// it builds the state it needs, unrecorded, then sends the one request
// whose answer its file holds, so that adding a case changes no other
// case's file. Regenerate them with
//
//	go test ./mockserver -run TestGolden -args -update

// goldenUpdate reports whether -update was given: the flag is defined by
// the package's internal tests, which share this test binary.
func goldenUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// goldenDir is where the golden files live.
const goldenDir = "testdata/golden"

// goldenKey is the API key of the golden servers.
const goldenKey = "5d0c3a52-1b6e-4f0a-9c1d-2e8f7a6b5c4d"

// goldenT0 is when the fake clock of each case starts.
var goldenT0 = time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC)

// goldenAnswer is what a golden file holds of one answer.
type goldenAnswer struct {
	Request string            `json:"request"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    any               `json:"body,omitempty"`
}

// goldenHeaders are the headers an answer is compared on; the others
// (Date) vary from run to run.
var goldenHeaders = []string{"Content-Type", "Content-Disposition", "Retry-After", "X-Request-Id"}

// goldenFile compares an answer with its golden file, name.json, or
// writes the file with -update.
func goldenFile(t *testing.T, srv *mockserver.Server, name string, r request, resp *response) {
	t.Helper()
	got := goldenAnswer{Request: r.Method + " " + r.Path, Status: resp.Status, Headers: map[string]string{}}
	for _, h := range goldenHeaders {
		if v := resp.Header.Get(h); v != "" {
			got.Headers[h] = v
		}
	}
	// The server's port changes from run to run.
	body := *resp
	body.Body = bytes.ReplaceAll(resp.Body, []byte(srv.URL), []byte("http://mock.test"))
	got.Body = goldenBody(t, &body)
	b, err := json.MarshalIndent(got, "", "  ")
	require.NoError(t, err)
	goldenCompare(t, name+".json", append(b, '\n'))
}

// goldenCompare compares what a golden file should hold with the file, or
// writes the file with -update.
func goldenCompare(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join(goldenDir, name)
	if goldenUpdate() {
		require.NoError(t, os.MkdirAll(goldenDir, 0o755))
		require.NoError(t, os.WriteFile(file, got, 0o644))
		return
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err, "no golden file: run go test ./mockserver -run TestGolden -args -update")
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("the answer differs from %s (-want +got):\n%s", file, diff)
	}
}

// goldenBody is an answer's body as the golden file holds it: JSON as
// JSON, text as a string, a PDF as its size and digest (its text has golden
// files of its own).
func goldenBody(t *testing.T, resp *response) any {
	t.Helper()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case len(resp.Body) == 0:
		return nil
	case mt == "application/json":
		var v any
		require.NoError(t, json.Unmarshal(resp.Body, &v), "a JSON answer: %s", resp.Body)
		return v
	case mt == "application/pdf":
		sum := sha256.Sum256(resp.Body)
		return map[string]any{"pdfBytes": len(resp.Body), "sha256": hex.EncodeToString(sum[:])}
	default:
		return string(resp.Body)
	}
}

// goldenMultipart builds an upload with a fixed boundary, so that the
// recorded request is the same on every run.
func goldenMultipart(filename, contentType string, data []byte, fields ...[2]string) ([]byte, string) {
	const boundary = "golden-boundary-7d2c"
	var b bytes.Buffer
	for _, f := range fields {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", boundary, f[0], f[1])
	}
	fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=%q\r\nContent-Type: %s\r\n\r\n", boundary, filename, contentType)
	b.Write(data)
	fmt.Fprintf(&b, "\r\n--%s--\r\n", boundary)
	return b.Bytes(), "multipart/form-data; boundary=" + boundary
}

// goldenID reads an ID from a JSON answer.
func goldenID(t *testing.T, resp *response, key string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(resp.Body, &m), "%s", resp)
	if key == "" {
		key = "id"
	}
	v, ok := m[key].(string)
	require.True(t, ok, "no %q in %s", key, resp)
	return v
}

const goldenPassport = "PASSPORT\nFull Name: Jane Marie Doe\nNationality: Canadian\nDate of Birth: 1990-04-12\nPassport Number: AB1234567\nExpiry Date: 2031-05-01\n"

// goldenScene is the server of one case and what the case's builders
// have made on it. Each builder makes its part once, after the parts it
// stands on, with the requests a client would send; every request, built
// or recorded, comes a second after the one before on the case's clock.
type goldenScene struct {
	t     *testing.T
	srv   *mockserver.Server
	clock *mockserver.FakeClock

	pid, defaultFolder        string // profile
	profileUpdated            bool   // renamed Jane M. Doe
	folder                    string // "Statements" (and "Bills" beside it)
	folderRenamed             bool   // "Statements" renamed "Bank statements"
	passport, statement, bill string // a file, a text and a JSON item
	itemUpdated               bool   // the statement renamed "March statement"
	aid                       string // an analysis of the three items
	analysisCompleted         bool   // processed, then completed
}

// send sends a request of the case at the next second of its clock, with
// the golden key unless r has a key of its own.
func (s *goldenScene) send(r request) *response {
	s.t.Helper()
	s.clock.Advance(time.Second)
	if r.Key == "" {
		r.Key = goldenKey
	}
	return send(s.t, s.srv, r)
}

// build sends a request that builds the case's state: it must succeed.
func (s *goldenScene) build(r request) *response {
	s.t.Helper()
	resp := s.send(r)
	require.Less(s.t, resp.Status, 300, "building the state: %s %s: %s", r.Method, r.Path, resp)
	return resp
}

// profile makes the profile: Jane Marie Doe, with a description and
// metadata.
func (s *goldenScene) profile() string {
	s.t.Helper()
	if s.pid == "" {
		created := s.build(goldenCreateProfile)
		s.pid = goldenID(s.t, created, "")
		var p struct {
			Folders []struct {
				ID string `json:"id"`
			} `json:"folders"`
		}
		require.NoError(s.t, json.Unmarshal(created.Body, &p))
		require.NotEmpty(s.t, p.Folders, "the profile has no default folder: %s", created)
		s.defaultFolder = p.Folders[0].ID
	}
	return s.pid
}

// updatedProfile renames the profile Jane M. Doe and changes its
// metadata.
func (s *goldenScene) updatedProfile() string {
	s.t.Helper()
	s.profile()
	if !s.profileUpdated {
		s.build(s.updateProfile())
		s.profileUpdated = true
	}
	return s.pid
}

func (s *goldenScene) updateProfile() request {
	return request{Method: "PATCH", Path: "/v1/profiles/" + s.pid, JSON: map[string]any{"name": "Jane M. Doe", "metadata": map[string]any{"caseRef": "C-8"}}}
}

// createFolder is the request that makes a folder of the profile.
func (s *goldenScene) createFolder(name string) request {
	return request{Method: "POST", Path: "/v1/profiles/" + s.pid + "/folders", JSON: map[string]any{"name": name}}
}

// folders makes two folders of the updated profile, Statements and Bills.
func (s *goldenScene) folders() {
	s.t.Helper()
	s.updatedProfile()
	if s.folder == "" {
		s.folder = goldenID(s.t, s.build(s.createFolder("Statements")), "")
		s.build(s.createFolder("Bills"))
	}
}

func (s *goldenScene) renameFolder() request {
	return request{Method: "PATCH", Path: "/v1/folders/" + s.folder, JSON: map[string]any{"name": "Bank statements"}}
}

// renamedFolder renames Statements Bank statements.
func (s *goldenScene) renamedFolder() {
	s.t.Helper()
	s.folders()
	if !s.folderRenamed {
		s.build(s.renameFolder())
		s.folderRenamed = true
	}
}

func (s *goldenScene) uploadPassport() request {
	body, ct := goldenMultipart("passport.txt", "text/plain", []byte(goldenPassport), [2]string{"name", "Passport scan"}, [2]string{"metadata", `{"side":"front"}`})
	return request{Method: "POST", Path: "/v1/folders/" + s.defaultFolder + "/items", Body: body, ContentType: ct}
}

func (s *goldenScene) createStatement() request {
	return request{Method: "POST", Path: "/v1/folders/" + s.folder + "/items",
		JSON: map[string]any{"type": "text", "name": "Bank statement", "content": "Bank statement\nAccount holder: Jane Marie Doe\nDate of birth: 12/04/1990\nAddress: 12 Elm Street"}}
}

func (s *goldenScene) createBill() request {
	return request{Method: "POST", Path: "/v1/folders/" + s.folder + "/items",
		JSON: map[string]any{"type": "json", "name": "Utility bill", "content": map[string]any{"document_type": "utility bill", "customer_name": "Jane Marie Doe", "address": "12 Elm Street"}}}
}

// items uploads the passport into the default folder, and makes the bank
// statement (text) and the utility bill (JSON) in Bank statements.
func (s *goldenScene) items() {
	s.t.Helper()
	s.renamedFolder()
	if s.passport == "" {
		s.passport = goldenID(s.t, s.build(s.uploadPassport()), "")
		s.statement = goldenID(s.t, s.build(s.createStatement()), "")
		s.bill = goldenID(s.t, s.build(s.createBill()), "")
	}
}

func (s *goldenScene) updateItem() request {
	return request{Method: "PATCH", Path: "/v1/items/" + s.statement, JSON: map[string]any{"name": "March statement", "metadata": map[string]any{"month": "2026-03"}}}
}

// updatedItem renames the statement March statement, with metadata.
func (s *goldenScene) updatedItem() {
	s.t.Helper()
	s.items()
	if !s.itemUpdated {
		s.build(s.updateItem())
		s.itemUpdated = true
	}
}

// startAnalysis is the request that starts an analysis of the profile's
// items.
func (s *goldenScene) startAnalysis(items ...string) request {
	var targets []map[string]any
	for _, id := range items {
		targets = append(targets, map[string]any{"itemId": id})
	}
	body := map[string]any{"targetItems": targets}
	if len(items) == 3 {
		body["clientMetadata"] = map[string]any{"requestedBy": "golden"}
	}
	return request{Method: "POST", Path: "/v1/analyses/" + s.pid + "/analyze", JSON: body}
}

// analysis starts an analysis of the three items, left pending.
func (s *goldenScene) analysis() string {
	s.t.Helper()
	s.updatedItem()
	if s.aid == "" {
		s.aid = goldenID(s.t, s.build(s.startAnalysis(s.passport, s.statement, s.bill)), "")
	}
	return s.aid
}

// control is a request of the control API on the analysis.
func (s *goldenScene) control(action string, body any) request {
	return request{Method: "POST", Path: "/_mock/analyses/" + s.aid + "/" + action, JSON: body}
}

// completedAnalysis moves the analysis to processing, then completes it.
func (s *goldenScene) completedAnalysis() string {
	s.t.Helper()
	s.analysis()
	if !s.analysisCompleted {
		s.build(s.control("process", nil))
		s.build(s.control("complete", nil))
		s.analysisCompleted = true
	}
	return s.aid
}

// failedAnalysis starts an analysis of the passport alone and fails it.
func (s *goldenScene) failedAnalysis() string {
	s.t.Helper()
	s.items()
	id := goldenID(s.t, s.build(s.startAnalysis(s.passport)), "")
	s.build(request{Method: "POST", Path: "/_mock/analyses/" + id + "/fail", JSON: map[string]any{"error": "the document is unreadable"}})
	return id
}

// addFault injects a fault on GET /v1/profiles/*: 503 twice.
func (s *goldenScene) addFault() string {
	s.t.Helper()
	return goldenID(s.t, s.build(goldenAddFault), "")
}

var (
	goldenCreateProfile = request{Method: "POST", Path: "/v1/workflows/wf_default/profiles",
		JSON: map[string]any{"name": "Jane Marie Doe", "description": "Golden applicant", "metadata": map[string]any{"caseRef": "C-7"}}}
	goldenAddFault = request{Method: "POST", Path: "/_mock/faults",
		JSON: map[string]any{"method": "GET", "path": "/v1/profiles/*", "status": 503, "retryAfterSeconds": 2, "times": 2}}
	goldenAddWorkflow = request{Method: "POST", Path: "/_mock/workflows", JSON: map[string]any{"id": "wf_kyc", "name": "KYC",
		"policy": []map[string]any{{"actionName": "check_consistency", "category": "Data Consistency", "query": "Do the documents agree?"}}}}
)

// goldenCase is one golden file: the state its case builds and the
// request whose answer the file holds.
type goldenCase struct {
	name string
	req  func(s *goldenScene) request
	// report, when set, names a golden file that holds the text of the
	// answer, a PDF report.
	report string
}

// The cases of each route, a test each: the golden tests run in
// parallel with the others, each case after the other.
var (
	// goldenProfiles are the cases of the profiles' routes.
	goldenProfiles = []goldenCase{
		{name: "create-profile", req: func(s *goldenScene) request { return goldenCreateProfile }},
		{name: "error-workflow-not-found", req: func(s *goldenScene) request {
			return request{Method: "POST", Path: "/v1/workflows/wf_missing/profiles", JSON: map[string]any{"name": "X"}}
		}},
		{name: "error-profile-without-name", req: func(s *goldenScene) request {
			return request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"description": "x"}}
		}},
		{name: "get-profile", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/v1/profiles/" + s.profile()} }},
		{name: "update-profile", req: func(s *goldenScene) request { s.profile(); return s.updateProfile() }},
		{name: "error-profile-not-found", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/v1/profiles/pf_missing"} }},
		{name: "list-profiles", req: func(s *goldenScene) request {
			s.updatedProfile()
			return request{Method: "GET", Path: "/v1/workflows/wf_default/profiles?limit=5&sort=name&order=asc"}
		}},
	}

	// goldenFolders are the cases of the folders' routes.
	goldenFolders = []goldenCase{
		{name: "create-folder", req: func(s *goldenScene) request { s.updatedProfile(); return s.createFolder("Statements") }},
		{name: "create-folder-second", req: func(s *goldenScene) request {
			s.updatedProfile()
			s.build(s.createFolder("Statements"))
			return s.createFolder("Bills")
		}},
		{name: "list-folders-page-1", req: func(s *goldenScene) request {
			s.folders()
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid + "/folders?limit=2&sort=name&order=asc"}
		}},
		{name: "list-folders-page-2", req: func(s *goldenScene) request {
			s.folders()
			page := s.build(request{Method: "GET", Path: "/v1/profiles/" + s.pid + "/folders?limit=2&sort=name&order=asc"})
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid + "/folders?limit=2&cursor=" + goldenID(s.t, page, "nextCursor")}
		}},
		{name: "list-folders-search", req: func(s *goldenScene) request {
			s.folders()
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid + "/folders?search=STATE"}
		}},
		{name: "error-list-folders-profile-not-found", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/profiles/pf_missing/folders"}
		}},
		{name: "rename-folder", req: func(s *goldenScene) request { s.folders(); return s.renameFolder() }},
		{name: "error-rename-default-folder", req: func(s *goldenScene) request {
			s.profile()
			return request{Method: "PATCH", Path: "/v1/folders/" + s.defaultFolder, JSON: map[string]any{"name": "mine"}}
		}},
	}

	// goldenItems are the cases of the items' routes and the storage routes.
	goldenItems = []goldenCase{
		{name: "upload-file", req: func(s *goldenScene) request { s.renamedFolder(); return s.uploadPassport() }},
		{name: "create-text-item", req: func(s *goldenScene) request { s.renamedFolder(); return s.createStatement() }},
		{name: "create-json-item", req: func(s *goldenScene) request { s.renamedFolder(); return s.createBill() }},
		{name: "error-item-type-unknown", req: func(s *goldenScene) request {
			s.renamedFolder()
			return request{Method: "POST", Path: "/v1/folders/" + s.folder + "/items", JSON: map[string]any{"type": "video", "content": "x"}}
		}},
		{name: "get-folder", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "GET", Path: "/v1/folders/" + s.folder}
		}},
		{name: "error-folder-not-found", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/v1/folders/fld_missing"} }},
		{name: "get-item", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "GET", Path: "/v1/items/" + s.passport}
		}},
		{name: "update-item", req: func(s *goldenScene) request { s.items(); return s.updateItem() }},
		{name: "error-update-file-content", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "PATCH", Path: "/v1/items/" + s.passport, JSON: map[string]any{"content": "x"}}
		}},
		{name: "item-original", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "GET", Path: "/storage/items/" + s.passport + "/original"}
		}},
		{name: "item-text", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "GET", Path: "/storage/items/" + s.bill + "/text"}
		}},
		{name: "get-profile-with-items", req: func(s *goldenScene) request {
			s.updatedItem()
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid}
		}},
	}

	// goldenAnalyses are the cases of the analyses' routes.
	goldenAnalyses = []goldenCase{
		{name: "start-analysis", req: func(s *goldenScene) request {
			s.updatedItem()
			return s.startAnalysis(s.passport, s.statement, s.bill)
		}},
		{name: "error-analysis-in-progress", req: func(s *goldenScene) request {
			s.analysis()
			return s.startAnalysis(s.passport, s.statement, s.bill)
		}},
		{name: "get-analysis-pending", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/v1/analyses/" + s.analysis()} }},
		{name: "control-process", req: func(s *goldenScene) request { s.analysis(); return s.control("process", nil) }},
		{name: "control-complete", req: func(s *goldenScene) request {
			s.analysis()
			s.build(s.control("process", nil))
			return s.control("complete", nil)
		}},
		{name: "get-analysis-completed", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/analyses/" + s.completedAnalysis()}
		}},
		{name: "long-poll-completed", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/analyses/" + s.completedAnalysis() + "?waitForReport=true&timeoutSeconds=10"}
		}},
		{name: "error-analysis-not-found", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/v1/analyses/analysis_missing"} }},
		{name: "list-analyses", req: func(s *goldenScene) request {
			s.completedAnalysis()
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid + "/analyses"}
		}},
		{name: "control-verification", req: func(s *goldenScene) request {
			s.completedAnalysis()
			return s.control("verification", map[string]any{"verificationStatus": "approved"})
		}},
	}

	// goldenReports are the cases of the reports.
	goldenReports = []goldenCase{
		{name: "error-report-not-available", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/analyses/" + s.analysis() + "/report"}
		}},
		{name: "report-en", report: "report-en.txt", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/analyses/" + s.completedAnalysis() + "/report"}
		}},
		{name: "report-ko-raw", report: "report-ko-raw.txt", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/analyses/" + s.completedAnalysis() + "/report?locale=ko&includeRawData=true"}
		}},
		{name: "error-report-locale", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/analyses/" + s.completedAnalysis() + "/report?locale=fr"}
		}},
	}

	// goldenControl are the cases of the control API.
	goldenControl = []goldenCase{
		{name: "control-item-status", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "POST", Path: "/_mock/items/" + s.bill + "/status", JSON: map[string]any{"status": "PROCESSING"}}
		}},
		{name: "error-analysis-item-inactive", req: func(s *goldenScene) request {
			s.items()
			s.build(request{Method: "POST", Path: "/_mock/items/" + s.bill + "/status", JSON: map[string]any{"status": "PROCESSING"}})
			return s.startAnalysis(s.bill)
		}},
		{name: "start-analysis-of-one-item", req: func(s *goldenScene) request { s.items(); return s.startAnalysis(s.passport) }},
		{name: "control-fail", req: func(s *goldenScene) request {
			s.items()
			failing := goldenID(s.t, s.build(s.startAnalysis(s.passport)), "")
			return request{Method: "POST", Path: "/_mock/analyses/" + failing + "/fail", JSON: map[string]any{"error": "the document is unreadable"}}
		}},
		{name: "control-list-workflows", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/_mock/workflows"} }},
		{name: "control-add-workflow", req: func(s *goldenScene) request { return goldenAddWorkflow }},
		{name: "control-seed", req: func(s *goldenScene) request {
			s.build(goldenAddWorkflow)
			return request{Method: "POST", Path: "/_mock/seed", JSON: map[string]any{"profiles": []map[string]any{{"id": "pf_seeded", "workflowId": "wf_kyc", "name": "Seeded",
				"folders": []map[string]any{{"name": "default", "items": []map[string]any{{"id": "item_seeded", "type": "text", "name": "note", "content": "Full Name: Sam Roe"}}}}}}}}
		}},
		{name: "control-add-fault", req: func(s *goldenScene) request { return goldenAddFault }},
		{name: "control-list-faults", req: func(s *goldenScene) request { s.addFault(); return request{Method: "GET", Path: "/_mock/faults"} }},
		{name: "fault-answer", req: func(s *goldenScene) request {
			s.profile()
			s.addFault()
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid}
		}},
		{name: "control-remove-fault", req: func(s *goldenScene) request {
			return request{Method: "DELETE", Path: "/_mock/faults/" + s.addFault()}
		}},
		{name: "control-clear-faults", req: func(s *goldenScene) request { s.addFault(); return request{Method: "DELETE", Path: "/_mock/faults"} }},
		// The record of the requests that built the items, and of one
		// refused.
		{name: "control-requests", req: func(s *goldenScene) request {
			s.items()
			s.send(request{Method: "GET", Path: "/v1/profiles/pf_missing"})
			return request{Method: "GET", Path: "/_mock/requests"}
		}},
		{name: "control-clear-requests", req: func(s *goldenScene) request { s.profile(); return request{Method: "DELETE", Path: "/_mock/requests"} }},
	}

	// goldenRefusals are the routes and keys the service refuses.
	goldenRefusals = []goldenCase{
		{name: "error-route-not-found", req: func(s *goldenScene) request { return request{Method: "GET", Path: "/v1/nothing"} }},
		{name: "error-method-not-allowed", req: func(s *goldenScene) request { return request{Method: "PUT", Path: "/v1/profiles/" + s.profile()} }},
		{name: "error-wrong-key", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/profiles/" + s.profile(), Key: "0a0b0c0d-1111-4222-8333-944455556666"}
		}},
		{name: "error-no-key", req: func(s *goldenScene) request {
			return request{Method: "GET", Path: "/v1/profiles/" + s.profile(), Key: noKey}
		}},
	}

	// goldenDeletions are the cases of the deletions.
	goldenDeletions = []goldenCase{
		{name: "delete-item", req: func(s *goldenScene) request { s.items(); return request{Method: "DELETE", Path: "/v1/items/" + s.bill} }},
		{name: "error-delete-item-not-found", req: func(s *goldenScene) request {
			s.items()
			s.build(request{Method: "DELETE", Path: "/v1/items/" + s.bill})
			return request{Method: "DELETE", Path: "/v1/items/" + s.bill}
		}},
		{name: "error-delete-default-folder", req: func(s *goldenScene) request {
			s.profile()
			return request{Method: "DELETE", Path: "/v1/folders/" + s.defaultFolder}
		}},
		{name: "delete-folder", req: func(s *goldenScene) request {
			s.items()
			return request{Method: "DELETE", Path: "/v1/folders/" + s.folder}
		}},
		{name: "delete-analysis", req: func(s *goldenScene) request {
			return request{Method: "DELETE", Path: "/v1/analyses/" + s.failedAnalysis()}
		}},
		// The profile after its bill, its folder of statements and its
		// analysis are deleted.
		{name: "get-profile-after-deletions", req: func(s *goldenScene) request {
			s.updatedItem()
			failed := s.failedAnalysis()
			s.build(request{Method: "DELETE", Path: "/v1/items/" + s.bill})
			s.build(request{Method: "DELETE", Path: "/v1/folders/" + s.folder})
			s.build(request{Method: "DELETE", Path: "/v1/analyses/" + failed})
			return request{Method: "GET", Path: "/v1/profiles/" + s.pid}
		}},
		{name: "delete-profile", req: func(s *goldenScene) request { return request{Method: "DELETE", Path: "/v1/profiles/" + s.profile()} }},
		{name: "error-delete-profile-not-found", req: func(s *goldenScene) request {
			s.build(request{Method: "DELETE", Path: "/v1/profiles/" + s.profile()})
			return request{Method: "DELETE", Path: "/v1/profiles/" + s.pid}
		}},
		{name: "control-reset", req: func(s *goldenScene) request { s.profile(); return request{Method: "POST", Path: "/_mock/reset"} }},
	}
)

// goldenSections are the cases, by the section of the API they show.
var goldenSections = []struct {
	name  string
	cases []goldenCase
}{
	{"profiles", goldenProfiles}, {"folders", goldenFolders}, {"items", goldenItems}, {"analyses", goldenAnalyses},
	{"reports", goldenReports}, {"control", goldenControl}, {"refusals", goldenRefusals}, {"deletions", goldenDeletions},
}

// TestGolden holds each case's answer to its golden file, the sections in
// parallel, each section's cases one after the other.
func TestGolden(t *testing.T) {
	for _, sec := range goldenSections {
		t.Run(sec.name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, sec.cases)
		})
	}
}

// goldenSeed is the ID seed of a case, drawn from its name.
func goldenSeed(name string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return h.Sum64()
}

// runGolden runs cases one after the other, each on a server of its own
// made with the case's clock and ID seed.
func runGolden(t *testing.T, cases []goldenCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := mockserver.NewFakeClock(goldenT0)
			srv := mockserver.NewTest(t, mockserver.WithAPIKey(goldenKey), mockserver.WithIDSeed(goldenSeed(c.name)),
				mockserver.WithClock(clock), mockserver.WithManualAnalyses())
			s := &goldenScene{t: t, srv: srv, clock: clock}
			r := c.req(s)
			resp := s.send(r)
			goldenFile(t, srv, c.name, r, resp)
			if c.report != "" {
				goldenCompare(t, c.report, []byte(goldenPDFRows(t, resp.Body)))
			}
		})
	}
}

// TestGoldenNoStrays checks that every case has a name of its own, and
// that every golden file is a case's: with -update, it removes those no
// case writes any more.
func TestGoldenNoStrays(t *testing.T) {
	t.Parallel()
	files := map[string]bool{}
	for _, sec := range goldenSections {
		for _, c := range sec.cases {
			require.False(t, files[c.name+".json"], "two cases named %s", c.name)
			files[c.name+".json"] = true
			if c.report != "" {
				files[c.report] = true
			}
		}
	}
	entries, err := os.ReadDir(goldenDir)
	require.NoError(t, err)
	for _, e := range entries {
		if files[e.Name()] {
			continue
		}
		if goldenUpdate() {
			require.NoError(t, os.Remove(filepath.Join(goldenDir, e.Name())))
			continue
		}
		assert.Failf(t, "a stray golden file", "%s: no case writes it any more", e.Name())
	}
}

// goldenPDFRows is the text of a PDF a line to each row of text as a
// reader sees it, with a line between pages (pdftest.Transcript): a change
// of the report shows as a change of the rows it touches.
func goldenPDFRows(t *testing.T, pdf []byte) string {
	t.Helper()
	pdftest.Validate(t, pdf)
	return pdftest.Transcript(t, pdf)
}
