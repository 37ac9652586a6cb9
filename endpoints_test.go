package profilesvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// epUserAgent is the form of the SDK's User-Agent header.
var epUserAgent = regexp.MustCompile(`^profilesvc-go/\d+\.\d+\.\d+ go/\S+$`)

// epPDF is a small PDF document, as DownloadReport expects one.
const epPDF = "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"

// Answers of the service the endpoint cases reuse.
const (
	epProfileJSON = `{"id":"pf_1","workflowId":"wf_1","name":"Jane Doe","itemsCount":0,"lastAnalysisAt":null,` +
		`"folders":[{"id":"fld_1","name":"default","isDefault":true,"itemsCount":0,"createdAt":"2025-03-14T09:26:53Z"}],` +
		`"createdAt":"2025-03-14T09:26:53Z","updatedAt":"2025-03-14T09:26:53Z"}`
	epFolderJSON = `{"id":"fld_2","profileId":"pf_1","name":"Bank statements","isDefault":false,"itemsCount":1,` +
		`"createdAt":"2025-03-14T09:26:53Z","updatedAt":"2025-03-14T09:30:00Z",` +
		`"items":[{"id":"item_1","type":"file","name":"a.pdf","contentType":"application/pdf","sizeBytes":10,"createdAt":"2025-03-14T09:30:00Z"}]}`
	epItemJSON = `{"id":"item_1","folderId":"fld_2","type":"file","name":"payslip.pdf","content":null,` +
		`"contentType":"application/pdf","sizeBytes":8,"status":"ACTIVE","createdAt":"2025-03-14T09:30:00Z"}`
	epAnalysisJSON = `{"id":"analysis_1","profileId":"pf_1","status":"completed","primaryReportId":"rpt_1",` +
		`"requestedAt":"2025-03-14T10:00:00Z","createdAt":"2025-03-14T10:00:00Z"}`
)

// epPage returns a page of the listing of resources with the given IDs.
func epPage(next string, ids ...string) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(`{"id":%q,"name":"entry %s"}`, id, id)
	}
	nc := "null"
	if next != "" {
		nc = fmt.Sprintf("%q", next)
	}
	return fmt.Sprintf(`{"count":%d,"nextCursor":%s,"items":[%s]}`, len(ids), nc, strings.Join(items, ","))
}

// epUpload is the multipart/form-data body an upload must send.
type epUpload struct {
	filename    string
	contentType string
	data        []byte
	// name is the "name" field; absent when empty.
	name string
	// metadata is the JSON of the "metadata" field; absent when empty.
	metadata string
	// streamed: the reader cannot be rewound or measured, so the body is
	// sent chunked; otherwise the request carries its Content-Length.
	streamed bool
}

// epReport is what DownloadReport gave, read whole.
type epReport struct {
	Filename      string
	ContentType   string
	ContentLength int64
	Data          string
}

// epCase is one call of an endpoint and what the service must receive.
type epCase struct {
	name string
	// status, contentType and resp make the answer: default 200,
	// application/json.
	status      int
	contentType string
	resp        string
	header      map[string]string
	call        func(ctx context.Context, c *Client) (any, error)

	method string
	path   string // as sent, escaped
	query  url.Values
	accept string // default application/json
	// body is the JSON the request must carry, compared as a value; empty
	// for a request without a body.
	body   string
	upload *epUpload
	// check looks at what the call returned.
	check func(t *testing.T, got any)
}

// epCheckID returns a check that the result's ID field is id.
func epCheckID(id string) func(t *testing.T, got any) {
	return func(t *testing.T, got any) {
		t.Helper()
		var gotID string
		switch v := got.(type) {
		case *Profile:
			gotID = v.ID
		case *Folder:
			gotID = v.ID
		case *Item:
			gotID = v.ID
		case *Analysis:
			gotID = v.ID
		case string:
			gotID = v
		default:
			t.Fatalf("unexpected result %T", got)
		}
		if gotID != id {
			t.Errorf("returned ID = %q, want %q", gotID, id)
		}
	}
}

// epCheckPage returns a check that the result is a page holding ids and
// next.
func epCheckPage[T any](next string, ids ...string) func(t *testing.T, got any) {
	return func(t *testing.T, got any) {
		t.Helper()
		p, ok := got.(*Page[T])
		if !ok {
			t.Fatalf("unexpected result %T", got)
		}
		var gotIDs []string
		for _, e := range p.Items {
			var probe struct {
				ID string `json:"id"`
			}
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &probe); err != nil {
				t.Fatal(err)
			}
			gotIDs = append(gotIDs, probe.ID)
		}
		if diff := cmp.Diff(ids, gotIDs); diff != "" {
			t.Errorf("page entries mismatch (-want +got):\n%s", diff)
		}
		if p.Count != len(ids) || p.NextCursor != next {
			t.Errorf("page count %d, nextCursor %q; want %d, %q", p.Count, p.NextCursor, len(ids), next)
		}
	}
}

// epCheckNil checks that a call with no result returned nothing.
func epCheckNil(t *testing.T, got any) {
	t.Helper()
	if got != nil {
		t.Errorf("returned %v, want nothing", got)
	}
}

// epWriteFile writes data to a new file named name and returns its path.
func epWriteFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// epCheckJSONBody compares a request's body with the JSON want, by value.
func epCheckJSONBody(t *testing.T, want string, got []byte) {
	t.Helper()
	var w, g any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expected body in test: %v", err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("request body is not JSON: %v: %q", err, got)
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("request body mismatch (-want +got):\n%s", diff)
	}
}

// epCheckUpload parses a multipart/form-data request body and compares it
// with want: the file part and exactly the fields want names.
func epCheckUpload(t *testing.T, want *epUpload, contentType string, body []byte) {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != "multipart/form-data" || params["boundary"] == "" {
		t.Fatalf("Content-Type = %q, want multipart/form-data with a boundary", contentType)
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	fields := map[string]string{}
	var sawFile bool
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading multipart body: %v", err)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			t.Fatalf("reading part %q: %v", part.FormName(), err)
		}
		if part.FormName() == "file" {
			if sawFile {
				t.Errorf("two file parts")
			}
			sawFile = true
			if got := part.FileName(); got != want.filename {
				t.Errorf("file part filename = %q, want %q", got, want.filename)
			}
			if got := part.Header.Get("Content-Type"); got != want.contentType {
				t.Errorf("file part Content-Type = %q, want %q", got, want.contentType)
			}
			if !bytes.Equal(data, want.data) {
				t.Errorf("file part bytes = %q, want %q", data, want.data)
			}
			continue
		}
		if _, dup := fields[part.FormName()]; dup {
			t.Errorf("field %q sent twice", part.FormName())
		}
		if part.FileName() != "" {
			t.Errorf("field %q carries a filename %q", part.FormName(), part.FileName())
		}
		fields[part.FormName()] = string(data)
	}
	if !sawFile {
		t.Fatalf("no part named file")
	}
	wantFields := map[string]string{}
	if want.name != "" {
		wantFields["name"] = want.name
	}
	if want.metadata != "" {
		wantFields["metadata"] = fields["metadata"] // compared as JSON below
		var w, g any
		if err := json.Unmarshal([]byte(want.metadata), &w); err != nil {
			t.Fatalf("bad expected metadata in test: %v", err)
		}
		if err := json.Unmarshal([]byte(fields["metadata"]), &g); err != nil {
			t.Errorf("metadata field is not JSON: %v: %q", err, fields["metadata"])
		} else if _, isObject := g.(map[string]any); !isObject {
			t.Errorf("metadata field %q is not a JSON object", fields["metadata"])
		} else if diff := cmp.Diff(w, g); diff != "" {
			t.Errorf("metadata field mismatch (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(wantFields, fields); diff != "" {
		t.Errorf("multipart fields mismatch (-want +got):\n%s", diff)
	}
}

// epCheckRequest compares what the service received with what the case
// says it must.
func epCheckRequest(t *testing.T, tc epCase, got recordedRequest) {
	t.Helper()
	if got.Method != tc.method {
		t.Errorf("method = %s, want %s", got.Method, tc.method)
	}
	if got.EscapedPath != tc.path {
		t.Errorf("path = %s, want %s", got.EscapedPath, tc.path)
	}
	if diff := cmp.Diff(tc.query, got.Query, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("query mismatch (-want +got):\n%s", diff)
	}

	h := got.Header
	if v := h.Values("X-Api-Key"); len(v) != 1 || v[0] != testAPIKey {
		t.Errorf("x-api-key = %q, want [%s]", v, testAPIKey)
	}
	wantAccept := tc.accept
	if wantAccept == "" {
		wantAccept = "application/json"
	}
	if v := h.Get("Accept"); v != wantAccept {
		t.Errorf("Accept = %q, want %q", v, wantAccept)
	}
	if ua := h.Get("User-Agent"); !epUserAgent.MatchString(ua) {
		t.Errorf("User-Agent = %q, want it to match %s", ua, epUserAgent)
	}

	switch {
	case tc.upload != nil:
		epCheckUpload(t, tc.upload, h.Get("Content-Type"), got.Body)
		cl := h.Get("Content-Length")
		if tc.upload.streamed && cl != "" {
			t.Errorf("Content-Length = %s for a reader of unknown size, want a chunked body", cl)
		}
		if want := fmt.Sprint(len(got.Body)); !tc.upload.streamed && cl != want {
			t.Errorf("Content-Length = %q, want %s", cl, want)
		}
	case tc.body != "":
		if v := h.Values("Content-Type"); len(v) != 1 || v[0] != "application/json" {
			t.Errorf("Content-Type = %q, want [application/json]", v)
		}
		epCheckJSONBody(t, tc.body, got.Body)
	default:
		if v, ok := h["Content-Type"]; ok {
			t.Errorf("Content-Type = %q on a request without a body", v)
		}
		if len(got.Body) != 0 {
			t.Errorf("body = %q, want none", got.Body)
		}
	}
}

// TestEndpoints calls every method of the client that talks to the service
// and checks the request the service received: method, escaped path,
// query, headers and body, and that the answer was decoded.
func TestEndpoints(t *testing.T) {
	pdf := []byte("%PDF-1.4 payslip")
	png := []byte("\x89PNG\r\n\x1a\n scan")
	pngPath := epWriteFile(t, "scan.png", png)

	tests := []epCase{
		// Profiles.
		{
			name:   "CreateProfile",
			status: http.StatusCreated,
			resp:   epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateProfile(ctx, "wf_1", CreateProfileParams{
					Name:        "Jane Doe",
					Description: "Retail onboarding",
					Metadata:    Object{"customerRef": "CUST-1", "priority": 2, "tags": []string{"kyc"}},
				})
			},
			method: "POST",
			path:   "/v1/workflows/wf_1/profiles",
			body:   `{"name":"Jane Doe","description":"Retail onboarding","metadata":{"customerRef":"CUST-1","priority":2,"tags":["kyc"]}}`,
			check: func(t *testing.T, got any) {
				p := got.(*Profile)
				if p.ID != "pf_1" || p.WorkflowID != "wf_1" {
					t.Errorf("profile %q in %q, want pf_1 in wf_1", p.ID, p.WorkflowID)
				}
				if f := p.DefaultFolder(); f == nil || f.ID != "fld_1" {
					t.Errorf("DefaultFolder() = %+v, want fld_1", f)
				}
			},
		},
		{
			name:   "CreateProfile name only",
			status: http.StatusCreated,
			resp:   epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateProfile(ctx, "wf_1", CreateProfileParams{Name: "Jane Doe"})
			},
			method: "POST",
			path:   "/v1/workflows/wf_1/profiles",
			body:   `{"name":"Jane Doe"}`,
			check:  epCheckID("pf_1"),
		},
		{
			name: "UpdateProfile nil fields",
			resp: epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{}`,
			check:  epCheckID("pf_1"),
		},
		{
			name: "UpdateProfile empty metadata clears it",
			resp: epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{Metadata: Object{}})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{"metadata":{}}`,
			check:  epCheckID("pf_1"),
		},
		{
			name: "UpdateProfile empty description clears it",
			resp: epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{Description: Ptr("")})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{"description":""}`,
			check:  epCheckID("pf_1"),
		},
		{
			name: "UpdateProfile every field",
			resp: epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{
					Name:        Ptr("Jane Q. Doe"),
					Description: Ptr("Joint applicant"),
					Metadata:    Object{"tier": "gold"},
				})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{"name":"Jane Q. Doe","description":"Joint applicant","metadata":{"tier":"gold"}}`,
			check:  epCheckID("pf_1"),
		},
		{
			name:   "DeleteProfile",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteProfile(ctx, "pf_1")
			},
			method: "DELETE",
			path:   "/v1/profiles/pf_1",
			check:  epCheckNil,
		},
		{
			name: "GetProfile",
			resp: epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetProfile(ctx, "pf_1")
			},
			method: "GET",
			path:   "/v1/profiles/pf_1",
			check:  epCheckID("pf_1"),
		},
		{
			name: "ListProfilesPage defaults",
			resp: epPage("cur_2", "pf_1", "pf_2"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListProfilesPage(ctx, "wf_1", nil)
			},
			method: "GET",
			path:   "/v1/workflows/wf_1/profiles",
			check:  epCheckPage[Profile]("cur_2", "pf_1", "pf_2"),
		},
		{
			name: "ListProfilesPage every parameter",
			resp: epPage("", "pf_3"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListProfilesPage(ctx, "wf_1", &ListProfilesParams{
					Search: "jane doe", Sort: SortByUpdatedAt, Order: Ascending, Limit: 25, Cursor: "cur_2",
				})
			},
			method: "GET",
			path:   "/v1/workflows/wf_1/profiles",
			query: url.Values{
				"search": {"jane doe"}, "sort": {"updatedAt"}, "order": {"asc"}, "limit": {"25"}, "cursor": {"cur_2"},
			},
			check: epCheckPage[Profile]("", "pf_3"),
		},

		// Folders.
		{
			name: "ListFoldersPage defaults",
			resp: epPage("", "fld_1"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_1", nil)
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/folders",
			check:  epCheckPage[Folder]("", "fld_1"),
		},
		{
			name: "ListFoldersPage zero params",
			resp: epPage("", "fld_1"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_1", &ListFoldersParams{})
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/folders",
			check:  epCheckPage[Folder]("", "fld_1"),
		},
		{
			name: "ListFoldersPage every parameter",
			resp: epPage("cur_3", "fld_2", "fld_3"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_1", &ListFoldersParams{
					Search: "bank & tax", Sort: SortByName, Order: Descending, Limit: 100, Cursor: "eyJpZCI6ImZsZF8xIn0=",
				})
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/folders",
			query: url.Values{
				"search": {"bank & tax"}, "sort": {"name"}, "order": {"desc"}, "limit": {"100"}, "cursor": {"eyJpZCI6ImZsZF8xIn0="},
			},
			check: epCheckPage[Folder]("cur_3", "fld_2", "fld_3"),
		},
		{
			name: "GetFolder",
			resp: epFolderJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetFolder(ctx, "fld_2")
			},
			method: "GET",
			path:   "/v1/folders/fld_2",
			check: func(t *testing.T, got any) {
				f := got.(*Folder)
				if f.ID != "fld_2" || len(f.Items) != 1 || f.Items[0].ID != "item_1" {
					t.Errorf("folder %q with items %+v, want fld_2 with item_1", f.ID, f.Items)
				}
			},
		},
		{
			name:   "CreateFolder",
			status: http.StatusCreated,
			resp:   epFolderJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateFolder(ctx, "pf_1", "Bank statements")
			},
			method: "POST",
			path:   "/v1/profiles/pf_1/folders",
			body:   `{"name":"Bank statements"}`,
			check:  epCheckID("fld_2"),
		},
		{
			name: "RenameFolder",
			resp: epFolderJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.RenameFolder(ctx, "fld_2", "Statements <2025>")
			},
			method: "PATCH",
			path:   "/v1/folders/fld_2",
			body:   `{"name":"Statements <2025>"}`,
			check:  epCheckID("fld_2"),
		},
		{
			name:   "DeleteFolder",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteFolder(ctx, "fld_2")
			},
			method: "DELETE",
			path:   "/v1/folders/fld_2",
			check:  epCheckNil,
		},

		// Items.
		{
			name:   "CreateTextItem",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTextItem(ctx, "fld_2", "Employed since 2019.\nSalary 4,200,000.", CreateItemParams{
					Name: "Employer note", Metadata: Object{"source": "call"},
				})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"text","name":"Employer note","content":"Employed since 2019.\nSalary 4,200,000.","metadata":{"source":"call"}}`,
			check:  epCheckID("item_1"),
		},
		{
			name:   "CreateTextItem without params",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTextItem(ctx, "fld_2", "", CreateItemParams{})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"text","content":""}`,
			check:  epCheckID("item_1"),
		},
		{
			name:   "CreateJSONItem",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				content := struct {
					Bank    string  `json:"bank"`
					Balance float64 `json:"balance"`
					Flags   []bool  `json:"flags"`
				}{"Shinhan", 12850000.5, []bool{true, false}}
				return c.CreateJSONItem(ctx, "fld_2", content, CreateItemParams{Name: "Bank export", Metadata: Object{"v": 2}})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"json","name":"Bank export","content":{"bank":"Shinhan","balance":12850000.5,"flags":[true,false]},"metadata":{"v":2}}`,
			check:  epCheckID("item_1"),
		},
		{
			name:   "CreateJSONItem array content",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateJSONItem(ctx, "fld_2", []any{1, "two", nil}, CreateItemParams{})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"json","content":[1,"two",null]}`,
			check:  epCheckID("item_1"),
		},
		{
			name:   "UploadFile",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFile(ctx, "fld_2", bytes.NewReader(pdf), UploadParams{
					Filename: "payslip-2025-02.pdf",
					Name:     "Payslip, February",
					Metadata: Object{"month": "2025-02", "pages": 2, "nested": Object{"ok": true}},
				})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &epUpload{
				filename:    "payslip-2025-02.pdf",
				contentType: "application/pdf",
				data:        pdf,
				name:        "Payslip, February",
				metadata:    `{"month":"2025-02","pages":2,"nested":{"ok":true}}`,
			},
			check: epCheckID("item_1"),
		},
		{
			name:   "UploadFile defaults",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFile(ctx, "fld_2", strings.NewReader("raw bytes"), UploadParams{})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &epUpload{filename: "upload", contentType: "application/octet-stream", data: []byte("raw bytes")},
			check:  epCheckID("item_1"),
		},
		{
			name:   "UploadFile stream with explicit content type",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				r := io.MultiReader(strings.NewReader("a,b\n"), strings.NewReader("1,2\n"))
				return c.UploadFile(ctx, "fld_2", r, UploadParams{Filename: "ledger.txt", ContentType: "text/csv", Metadata: Object{}})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &epUpload{filename: "ledger.txt", contentType: "text/csv", data: []byte("a,b\n1,2\n"), metadata: `{}`, streamed: true},
			check:  epCheckID("item_1"),
		},
		{
			name:   "UploadFilePath",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFilePath(ctx, "fld_2", pngPath, UploadParams{Metadata: Object{"source": "scanner"}})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &epUpload{filename: "scan.png", contentType: "image/png", data: png, metadata: `{"source":"scanner"}`},
			check:  epCheckID("item_1"),
		},
		{
			name:   "UploadFilePath with params",
			status: http.StatusCreated,
			resp:   epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFilePath(ctx, "fld_2", pngPath, UploadParams{Filename: "id-card.png", Name: "ID card", ContentType: "image/x-png"})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &epUpload{filename: "id-card.png", contentType: "image/x-png", data: png, name: "ID card"},
			check:  epCheckID("item_1"),
		},
		{
			name: "GetItem",
			resp: epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetItem(ctx, "item_1")
			},
			method: "GET",
			path:   "/v1/items/item_1",
			check:  epCheckID("item_1"),
		},
		{
			name: "UpdateItem every field",
			resp: epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_1", UpdateItemParams{
					Name:     Ptr("Payslip (Feb)"),
					Metadata: Object{"reviewed": true},
					Content:  map[string]any{"balance": 1},
				})
			},
			method: "PATCH",
			path:   "/v1/items/item_1",
			body:   `{"name":"Payslip (Feb)","metadata":{"reviewed":true},"content":{"balance":1}}`,
			check:  epCheckID("item_1"),
		},
		{
			name: "UpdateItem nil fields",
			resp: epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_1", UpdateItemParams{})
			},
			method: "PATCH",
			path:   "/v1/items/item_1",
			body:   `{}`,
			check:  epCheckID("item_1"),
		},
		{
			name: "UpdateItem empty text content",
			resp: epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_1", UpdateItemParams{Name: Ptr(""), Content: ""})
			},
			method: "PATCH",
			path:   "/v1/items/item_1",
			body:   `{"name":"","content":""}`,
			check:  epCheckID("item_1"),
		},
		{
			name:   "DeleteItem",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteItem(ctx, "item_1")
			},
			method: "DELETE",
			path:   "/v1/items/item_1",
			check:  epCheckNil,
		},

		// Analyses.
		{
			name:   "StartAnalysis",
			status: http.StatusAccepted,
			resp:   `{"id":"analysis_1"}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartAnalysis(ctx, "pf_1", StartAnalysisParams{
					ItemIDs:        []string{"item_1"},
					Options:        Object{"language": "ko", "strictMode": true},
					ClientMetadata: Object{"caseId": "CASE-7", "attempt": 1},
				})
			},
			method: "POST",
			path:   "/v1/analyses/pf_1/analyze",
			body:   `{"targetItems":[{"itemId":"item_1"}],"options":{"language":"ko","strictMode":true},"clientMetadata":{"caseId":"CASE-7","attempt":1}}`,
			check:  epCheckID("analysis_1"),
		},
		{
			name:   "StartAnalysis items only",
			status: http.StatusAccepted,
			resp:   `{"id":"analysis_2"}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.StartAnalysis(ctx, "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1", "item_2", "item_3"}})
			},
			method: "POST",
			path:   "/v1/analyses/pf_1/analyze",
			body:   `{"targetItems":[{"itemId":"item_1"},{"itemId":"item_2"},{"itemId":"item_3"}]}`,
			check:  epCheckID("analysis_2"),
		},
		{
			name: "GetAnalysis",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", nil)
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			check: func(t *testing.T, got any) {
				a := got.(*Analysis)
				if a.ID != "analysis_1" || a.Status != AnalysisCompleted || !a.Done() {
					t.Errorf("analysis %q %q done=%v, want analysis_1 completed and done", a.ID, a.Status, a.Done())
				}
			},
		},
		{
			name: "GetAnalysis params without wait",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{Timeout: time.Minute})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			check:  epCheckID("analysis_1"),
		},
		{
			name: "GetAnalysis WaitForReport",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}},
			check:  epCheckID("analysis_1"),
		},
		{
			name: "GetAnalysis WaitForReport with Timeout",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 45 * time.Second})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"45"}},
			check:  epCheckID("analysis_1"),
		},
		{
			name: "GetAnalysis Timeout rounded up to a second",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 61500 * time.Millisecond})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"62"}},
			check:  epCheckID("analysis_1"),
		},
		{
			name: "GetAnalysis Timeout below the minimum",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 2 * time.Second})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"10"}},
			check:  epCheckID("analysis_1"),
		},
		{
			name: "GetAnalysis Timeout above the maximum",
			resp: epAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: time.Hour})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"300"}},
			check:  epCheckID("analysis_1"),
		},
		{
			name:   "DeleteAnalysis",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteAnalysis(ctx, "analysis_1")
			},
			method: "DELETE",
			path:   "/v1/analyses/analysis_1",
			check:  epCheckNil,
		},
		{
			name: "ListAnalysesPage defaults",
			resp: epPage("", "analysis_2", "analysis_1"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListAnalysesPage(ctx, "pf_1", nil)
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/analyses",
			check:  epCheckPage[Analysis]("", "analysis_2", "analysis_1"),
		},
		{
			name: "ListAnalysesPage every parameter",
			resp: epPage("cur_9", "analysis_5"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListAnalysesPage(ctx, "pf_1", &ListAnalysesParams{Limit: 1, Cursor: "cur_8"})
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/analyses",
			query:  url.Values{"limit": {"1"}, "cursor": {"cur_8"}},
			check:  epCheckPage[Analysis]("cur_9", "analysis_5"),
		},
		{
			name:        "DownloadReport ko with raw data",
			contentType: "application/pdf",
			resp:        epPDF,
			header:      map[string]string{"Content-Disposition": `attachment; filename="analysis_analysis_1_report.pdf"`},
			call: func(ctx context.Context, c *Client) (any, error) {
				return epDownload(ctx, c, &ReportParams{Locale: LocaleKorean, IncludeRawData: true})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1/report",
			query:  url.Values{"locale": {"ko"}, "includeRawData": {"true"}},
			accept: "application/pdf",
			check: func(t *testing.T, got any) {
				want := epReport{
					Filename:      "analysis_analysis_1_report.pdf",
					ContentType:   "application/pdf",
					ContentLength: int64(len(epPDF)),
					Data:          epPDF,
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("report mismatch (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:        "DownloadReport defaults",
			contentType: "application/pdf",
			resp:        epPDF,
			call: func(ctx context.Context, c *Client) (any, error) {
				return epDownload(ctx, c, nil)
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1/report",
			accept: "application/pdf",
			check: func(t *testing.T, got any) {
				r := got.(epReport)
				if r.Data != epPDF || r.Filename != "analysis_analysis_1_report.pdf" {
					t.Errorf("report %q with %d bytes, want the fallback name and the PDF", r.Filename, len(r.Data))
				}
			},
		},
		{
			name:        "DownloadReport en without raw data",
			contentType: "application/pdf",
			resp:        epPDF,
			call: func(ctx context.Context, c *Client) (any, error) {
				return epDownload(ctx, c, &ReportParams{Locale: LocaleEnglish})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1/report",
			query:  url.Values{"locale": {"en"}},
			accept: "application/pdf",
			check: func(t *testing.T, got any) {
				if r := got.(epReport); r.Data != epPDF {
					t.Errorf("report bytes %q, want the PDF", r.Data)
				}
			},
		},

		// Do, the escape hatch.
		{
			name: "Do GET with query",
			resp: epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				var out Profile
				err := c.Do(ctx, "GET", "/profiles/pf_1?expand=folders&expand=items&x=a%20b", nil, &out)
				return &out, err
			},
			method: "GET",
			path:   "/v1/profiles/pf_1",
			query:  url.Values{"expand": {"folders", "items"}, "x": {"a b"}},
			check:  epCheckID("pf_1"),
		},
		{
			name:   "Do POST raw JSON bytes",
			status: http.StatusCreated,
			resp:   epProfileJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				var out map[string]any
				err := c.Do(ctx, "post", "v1/workflows/wf_1/profiles", []byte(`{"name":"Raw","metadata":{"a":[1,2]}}`), &out)
				return out["id"], err
			},
			method: "POST",
			path:   "/v1/workflows/wf_1/profiles",
			body:   `{"name":"Raw","metadata":{"a":[1,2]}}`,
			check:  epCheckID("pf_1"),
		},
		{
			name: "Do PATCH encodes a value",
			resp: epItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				var out Item
				err := c.Do(ctx, "PATCH", "/items/item%2F1", map[string]any{"name": "n", "metadata": map[string]int{"k": 1}}, &out)
				return &out, err
			},
			method: "PATCH",
			path:   "/v1/items/item%2F1",
			body:   `{"name":"n","metadata":{"k":1}}`,
			check:  epCheckID("item_1"),
		},
		{
			// Do leaves the path "/v1" as it is, so "/v1" with a query
			// must be that path too, not "/v1/v1".
			name: "Do version root with query",
			resp: `{}`,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.Do(ctx, "GET", "/v1?x=1", nil, nil)
			},
			method: "GET",
			path:   "/v1",
			query:  url.Values{"x": {"1"}},
			check:  epCheckNil,
		},
		{
			name:   "Do DELETE without answer",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.Do(ctx, "DELETE", "/v1/folders/fld_2", nil, nil)
			},
			method: "DELETE",
			path:   "/v1/folders/fld_2",
			check:  epCheckNil,
		},
	}

	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				status := tc.status
				if status == 0 {
					status = http.StatusOK
				}
				if status == http.StatusNoContent {
					w.WriteHeader(status)
					return
				}
				ct := tc.contentType
				if ct == "" {
					ct = "application/json"
				}
				w.Header().Set("Content-Type", ct)
				w.WriteHeader(status)
				_, _ = io.WriteString(w, tc.resp)
			})
			c := srv.client(t, WithMaxRetries(0))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			got, err := tc.call(ctx, c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := srv.requests()
			if len(reqs) != 1 {
				t.Fatalf("the service received %d requests, want 1", len(reqs))
			}
			epCheckRequest(t, tc, reqs[0])
			tc.check(t, got)
		})
	}
}

// epDownload downloads the report of analysis_1 and reads it whole.
func epDownload(ctx context.Context, c *Client, params *ReportParams) (any, error) {
	rep, err := c.DownloadReport(ctx, "analysis_1", params)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := rep.WriteTo(&buf); err != nil {
		return nil, err
	}
	return epReport{
		Filename:      rep.Filename,
		ContentType:   rep.ContentType,
		ContentLength: rep.ContentLength,
		Data:          buf.String(),
	}, nil
}

// epIDMethod is a method of the client that puts one ID in its path.
type epIDMethod struct {
	name string
	// path is the escaped path, with %s where the escaped ID goes.
	path string
	call func(ctx context.Context, c *Client, id string) error
}

// epIDMethods lists every method of the client that takes an ID. t makes
// the file that UploadFilePath reads.
func epIDMethods(t *testing.T) []epIDMethod {
	file := epWriteFile(t, "doc.pdf", []byte("%PDF-1.4"))
	dir := t.TempDir()
	drain := func(seq iter.Seq2[any, error]) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	return []epIDMethod{
		{"CreateProfile", "/v1/workflows/%s/profiles", func(ctx context.Context, c *Client, id string) error {
			_, err := c.CreateProfile(ctx, id, CreateProfileParams{Name: "n"})
			return err
		}},
		{"UpdateProfile", "/v1/profiles/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.UpdateProfile(ctx, id, UpdateProfileParams{})
			return err
		}},
		{"DeleteProfile", "/v1/profiles/%s", func(ctx context.Context, c *Client, id string) error {
			return c.DeleteProfile(ctx, id)
		}},
		{"GetProfile", "/v1/profiles/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.GetProfile(ctx, id)
			return err
		}},
		{"ListProfilesPage", "/v1/workflows/%s/profiles", func(ctx context.Context, c *Client, id string) error {
			_, err := c.ListProfilesPage(ctx, id, nil)
			return err
		}},
		{"ListProfiles", "/v1/workflows/%s/profiles", func(ctx context.Context, c *Client, id string) error {
			return drain(epAnySeq(c.ListProfiles(ctx, id, nil)))
		}},
		{"ListFoldersPage", "/v1/profiles/%s/folders", func(ctx context.Context, c *Client, id string) error {
			_, err := c.ListFoldersPage(ctx, id, nil)
			return err
		}},
		{"ListFolders", "/v1/profiles/%s/folders", func(ctx context.Context, c *Client, id string) error {
			return drain(epAnySeq(c.ListFolders(ctx, id, nil)))
		}},
		{"GetFolder", "/v1/folders/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.GetFolder(ctx, id)
			return err
		}},
		{"CreateFolder", "/v1/profiles/%s/folders", func(ctx context.Context, c *Client, id string) error {
			_, err := c.CreateFolder(ctx, id, "n")
			return err
		}},
		{"RenameFolder", "/v1/folders/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.RenameFolder(ctx, id, "n")
			return err
		}},
		{"DeleteFolder", "/v1/folders/%s", func(ctx context.Context, c *Client, id string) error {
			return c.DeleteFolder(ctx, id)
		}},
		{"CreateTextItem", "/v1/folders/%s/items", func(ctx context.Context, c *Client, id string) error {
			_, err := c.CreateTextItem(ctx, id, "t", CreateItemParams{})
			return err
		}},
		{"CreateJSONItem", "/v1/folders/%s/items", func(ctx context.Context, c *Client, id string) error {
			_, err := c.CreateJSONItem(ctx, id, Object{"a": 1}, CreateItemParams{})
			return err
		}},
		{"UploadFile", "/v1/folders/%s/items", func(ctx context.Context, c *Client, id string) error {
			_, err := c.UploadFile(ctx, id, strings.NewReader("x"), UploadParams{})
			return err
		}},
		{"UploadFilePath", "/v1/folders/%s/items", func(ctx context.Context, c *Client, id string) error {
			_, err := c.UploadFilePath(ctx, id, file, UploadParams{})
			return err
		}},
		{"GetItem", "/v1/items/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.GetItem(ctx, id)
			return err
		}},
		{"UpdateItem", "/v1/items/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.UpdateItem(ctx, id, UpdateItemParams{})
			return err
		}},
		{"DeleteItem", "/v1/items/%s", func(ctx context.Context, c *Client, id string) error {
			return c.DeleteItem(ctx, id)
		}},
		{"StartAnalysis", "/v1/analyses/%s/analyze", func(ctx context.Context, c *Client, id string) error {
			_, err := c.StartAnalysis(ctx, id, StartAnalysisParams{ItemIDs: []string{"item_1"}})
			return err
		}},
		{"GetAnalysis", "/v1/analyses/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.GetAnalysis(ctx, id, nil)
			return err
		}},
		{"WaitForAnalysis", "/v1/analyses/%s", func(ctx context.Context, c *Client, id string) error {
			_, err := c.WaitForAnalysis(ctx, id, nil)
			return err
		}},
		{"DeleteAnalysis", "/v1/analyses/%s", func(ctx context.Context, c *Client, id string) error {
			return c.DeleteAnalysis(ctx, id)
		}},
		{"ListAnalysesPage", "/v1/profiles/%s/analyses", func(ctx context.Context, c *Client, id string) error {
			_, err := c.ListAnalysesPage(ctx, id, nil)
			return err
		}},
		{"ListAnalyses", "/v1/profiles/%s/analyses", func(ctx context.Context, c *Client, id string) error {
			return drain(epAnySeq(c.ListAnalyses(ctx, id, nil)))
		}},
		{"DownloadReport", "/v1/analyses/%s/report", func(ctx context.Context, c *Client, id string) error {
			rep, err := c.DownloadReport(ctx, id, nil)
			if err == nil {
				_, err = rep.WriteTo(io.Discard)
			}
			return err
		}},
		{"SaveReport", "/v1/analyses/%s/report", func(ctx context.Context, c *Client, id string) error {
			_, err := c.SaveReport(ctx, id, filepath.Join(dir, "r.pdf"), nil)
			return err
		}},
	}
}

// epAnySeq forgets the type of an iterator's values.
func epAnySeq[T any](seq iter.Seq2[*T, error]) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			if !yield(v, err) {
				return
			}
		}
	}
}

// epAnyAnswer answers any call of epIDMethods successfully: a PDF for a
// report, nothing for a delete, else a JSON object every result type
// decodes (an analysis that is done, an empty page, an ID).
func epAnyAnswer(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/report"):
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = io.WriteString(w, epPDF)
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	default:
		respond(w, http.StatusOK, `{"id":"analysis_1","status":"completed","primaryReportId":"rpt_1","count":0,"nextCursor":null,"items":[]}`)
	}
}

// TestPathEscaping: an ID is escaped inside its own path segment, whatever
// it holds; an ID that no escaping can keep in its segment is refused
// before anything is sent.
func TestPathEscaping(t *testing.T) {
	escaped := []struct {
		name    string
		id      string
		escaped string
	}{
		{"slash", "a/b", "a%2Fb"},
		{"question mark", "a?b", "a%3Fb"},
		{"hash", "a#b", "a%23b"},
		{"percent", "50%off", "50%25off"},
		{"space", "my folder", "my%20folder"},
		{"dot-dot and slash", "../x", "..%2Fx"},
		{"all at once", "x/y?z#w %v", "x%2Fy%3Fz%23w%20%25v"},
		{"non-ASCII", "폴더", "%ED%8F%B4%EB%8D%94"},
		{"three dots", "...", "..."},
	}
	for _, m := range epIDMethods(t) {
		for _, e := range escaped {
			t.Run(m.name+"/"+e.name, func(t *testing.T) {
				srv := newTestServer(t, epAnyAnswer)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := m.call(ctx, srv.client(t, WithMaxRetries(0)), e.id); err != nil {
					t.Fatalf("call: %v", err)
				}
				reqs := srv.requests()
				if len(reqs) != 1 {
					t.Fatalf("the service received %d requests, want 1", len(reqs))
				}
				if want := fmt.Sprintf(m.path, e.escaped); reqs[0].EscapedPath != want {
					t.Errorf("escaped path = %s, want %s", reqs[0].EscapedPath, want)
				}
				if want := fmt.Sprintf(m.path, e.id); reqs[0].Path != want {
					t.Errorf("decoded path = %q, want %q", reqs[0].Path, want)
				}
				// Only the long poll of WaitForAnalysis has a query here;
				// anything else came from the ID.
				for k := range reqs[0].Query {
					if k != "waitForReport" && k != "timeoutSeconds" {
						t.Errorf("query = %v: the ID leaked out of its segment", reqs[0].Query)
					}
				}
			})
		}
	}

	for _, m := range epIDMethods(t) {
		for _, id := range []string{"", ".", ".."} {
			t.Run(fmt.Sprintf("%s/refuses %q", m.name, id), func(t *testing.T) {
				srv := newTestServer(t, epAnyAnswer)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				err := m.call(ctx, srv.client(t), id)
				if !errors.Is(err, ErrInvalidID) {
					t.Errorf("error = %v, want one matching ErrInvalidID", err)
				}
				if n := len(srv.requests()); n != 0 {
					t.Errorf("the service received %d requests, want none", n)
				}
			})
		}
	}
}

// epListing adapts one of the client's listings to the pagination tests.
type epListing struct {
	name string
	path string
	// fullParams: the listing takes Search, Sort and Order besides Limit.
	fullParams bool
	walk       func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error]
}

// epIDs turns an iterator of resources into one of their IDs; a nil
// resource becomes "<nil>".
func epIDs[T any](seq iter.Seq2[*T, error], id func(*T) string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for v, err := range seq {
			s := "<nil>"
			if v != nil {
				s = id(v)
			}
			if !yield(s, err) {
				return
			}
		}
	}
}

var epListings = []epListing{
	{
		name: "ListFolders", path: "/v1/profiles/pf_1/folders", fullParams: true,
		walk: func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error] {
			return epIDs(c.ListFolders(ctx, "pf_1", p), func(f *Folder) string { return f.ID })
		},
	},
	{
		name: "ListProfiles", path: "/v1/workflows/wf_1/profiles", fullParams: true,
		walk: func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error] {
			return epIDs(c.ListProfiles(ctx, "wf_1", p), func(p *Profile) string { return p.ID })
		},
	},
	{
		name: "ListAnalyses", path: "/v1/profiles/pf_1/analyses",
		walk: func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error] {
			var ap *ListAnalysesParams
			if p != nil {
				ap = &ListAnalysesParams{Limit: p.Limit, Cursor: p.Cursor}
			}
			return epIDs(c.ListAnalyses(ctx, "pf_1", ap), func(a *Analysis) string { return a.ID })
		},
	},
}

// epPageSpec is the answer to the page at one cursor: its entries and next
// cursor, or an error.
type epPageSpec struct {
	ids  []string
	next string
	fail bool
}

// epYield is one value an iterator yielded.
type epYield struct {
	ID  string
	Err bool
}

// TestIterators walks the listings across pages.
func TestIterators(t *testing.T) {
	threePages := map[string]epPageSpec{
		"":   {ids: []string{"e1", "e2"}, next: "c2"},
		"c2": {ids: []string{"e3", "e4"}, next: "c3"},
		"c3": {ids: []string{"e5"}},
	}
	all := []epYield{{"e1", false}, {"e2", false}, {"e3", false}, {"e4", false}, {"e5", false}}
	tests := []struct {
		name   string
		pages  map[string]epPageSpec
		params *ListParams
		// stopAfter breaks out of the loop after that many values; 0 never.
		stopAfter int
		want      []epYield
		// cursors are the cursor queries of the requests, "" for none.
		cursors []string
	}{
		{
			name:    "walks every page",
			pages:   threePages,
			want:    all,
			cursors: []string{"", "c2", "c3"},
		},
		{
			name:    "zero params walk every page",
			pages:   threePages,
			params:  &ListParams{},
			want:    all,
			cursors: []string{"", "c2", "c3"},
		},
		{
			name:      "break on the first value",
			pages:     threePages,
			stopAfter: 1,
			want:      all[:1],
			cursors:   []string{""},
		},
		{
			name:      "break in the second page",
			pages:     threePages,
			stopAfter: 3,
			want:      all[:3],
			cursors:   []string{"", "c2"},
		},
		{
			name:      "break at the end of a page",
			pages:     threePages,
			stopAfter: 2,
			want:      all[:2],
			cursors:   []string{""},
		},
		{
			name: "failing page yields an error and stops",
			pages: map[string]epPageSpec{
				"":   {ids: []string{"e1", "e2"}, next: "c2"},
				"c2": {fail: true},
				"c3": {ids: []string{"e5"}},
			},
			want:    []epYield{{"e1", false}, {"e2", false}, {"<nil>", true}},
			cursors: []string{"", "c2"},
		},
		{
			name:    "failing first page",
			pages:   map[string]epPageSpec{"": {fail: true}},
			want:    []epYield{{"<nil>", true}},
			cursors: []string{""},
		},
		{
			name:    "starts from params.Cursor",
			pages:   threePages,
			params:  &ListParams{Cursor: "c2"},
			want:    all[2:],
			cursors: []string{"c2", "c3"},
		},
		{
			name: "repeated cursor ends with an error",
			pages: map[string]epPageSpec{
				"":   {ids: []string{"e1", "e2"}, next: "c2"},
				"c2": {ids: []string{"e3"}, next: "c2"},
			},
			want:    []epYield{{"e1", false}, {"e2", false}, {"e3", false}, {"<nil>", true}},
			cursors: []string{"", "c2"},
		},
		{
			name:    "repeated starting cursor ends with an error",
			pages:   map[string]epPageSpec{"c2": {ids: []string{"e3"}, next: "c2"}},
			params:  &ListParams{Cursor: "c2"},
			want:    []epYield{{"e3", false}, {"<nil>", true}},
			cursors: []string{"c2"},
		},
		{
			name:    "empty listing",
			pages:   map[string]epPageSpec{"": {}},
			cursors: []string{""},
		},
		{
			name: "empty page in the middle",
			pages: map[string]epPageSpec{
				"":   {ids: []string{"e1"}, next: "c2"},
				"c2": {next: "c3"},
				"c3": {ids: []string{"e5"}},
			},
			want:    []epYield{{"e1", false}, {"e5", false}},
			cursors: []string{"", "c2", "c3"},
		},
	}
	for _, l := range epListings {
		for _, tt := range tests {
			t.Run(l.name+"/"+tt.name, func(t *testing.T) {
				srv := epPagesServer(t, l.path, tt.pages)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				got := epCollect(t, l.walk(ctx, srv.client(t, WithMaxRetries(0)), tt.params), tt.stopAfter)
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("yielded values mismatch (-want +got):\n%s", diff)
				}
				var cursors []string
				for _, r := range srv.requests() {
					cursors = append(cursors, r.Query.Get("cursor"))
					if v, ok := r.Query["cursor"]; ok && (len(v) != 1 || v[0] == "") {
						t.Errorf("cursor query %q: want one non-empty value or none", v)
					}
				}
				if diff := cmp.Diff(tt.cursors, cursors); diff != "" {
					t.Errorf("cursors of the requests mismatch (-want +got):\n%s", diff)
				}
			})
		}

		t.Run(l.name+"/keeps params on every page", func(t *testing.T) {
			srv := epPagesServer(t, l.path, threePages)
			params := &ListParams{Limit: 2}
			if l.fullParams {
				params.Search, params.Sort, params.Order = "bank statements", SortByName, Ascending
			}
			before := *params
			got := epCollect(t, l.walk(context.Background(), srv.client(t), params), 0)
			if diff := cmp.Diff(all, got); diff != "" {
				t.Errorf("yielded values mismatch (-want +got):\n%s", diff)
			}
			var wantQueries []url.Values
			for _, cursor := range []string{"", "c2", "c3"} {
				q := url.Values{"limit": {"2"}}
				if l.fullParams {
					q.Set("search", "bank statements")
					q.Set("sort", "name")
					q.Set("order", "asc")
				}
				if cursor != "" {
					q.Set("cursor", cursor)
				}
				wantQueries = append(wantQueries, q)
			}
			var gotQueries []url.Values
			for _, r := range srv.requests() {
				gotQueries = append(gotQueries, r.Query)
				if r.Method != http.MethodGet || r.EscapedPath != l.path {
					t.Errorf("request %s %s, want GET %s", r.Method, r.EscapedPath, l.path)
				}
			}
			if diff := cmp.Diff(wantQueries, gotQueries); diff != "" {
				t.Errorf("queries mismatch (-want +got):\n%s", diff)
			}
			if *params != before {
				t.Errorf("the walk changed the caller's params: %+v, was %+v", *params, before)
			}
		})
	}
}

// epPagesServer serves the pages of a listing at path by their cursor. A
// cursor it has no page for, or more requests than any walk needs, is an
// error answer, so that a runaway walk ends.
func epPagesServer(t *testing.T, path string, pages map[string]epPageSpec) *testServer {
	t.Helper()
	var srv *testServer
	srv = newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n := len(srv.requests()); n > 10 {
			t.Errorf("%d requests: the walk does not end", n)
			respondError(w, http.StatusBadRequest, CodeValidation, "too many requests")
			return
		}
		if r.URL.EscapedPath() != path {
			respondError(w, http.StatusNotFound, CodeNotFound, "wrong path")
			return
		}
		p, ok := pages[r.URL.Query().Get("cursor")]
		if !ok || p.fail {
			respondError(w, http.StatusBadRequest, CodeValidation, "bad cursor")
			return
		}
		respond(w, http.StatusOK, epPage(p.next, p.ids...))
	})
	return srv
}

// epCollect ranges over seq, breaking after stopAfter values (never if 0)
// or at 50, and returns what it yielded.
func epCollect(t *testing.T, seq iter.Seq2[string, error], stopAfter int) []epYield {
	t.Helper()
	var got []epYield
	for id, err := range seq {
		if err != nil {
			var apiErr *APIError
			if !errors.As(err, &apiErr) && !strings.Contains(err.Error(), "cursor") {
				t.Errorf("unexpected error: %v", err)
			}
		}
		got = append(got, epYield{ID: id, Err: err != nil})
		if len(got) == stopAfter || len(got) >= 50 {
			break
		}
	}
	return got
}
