package profilesvc

// The tests of the client's endpoints: one table per resource, each case a
// call of a method and the request the service must receive (method,
// escaped path, query, headers and body), then what the call decoded; the
// escaping of IDs in paths; and the walks of listings across pages.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProfileEndpoints calls each method of the client on profiles.
func TestProfileEndpoints(t *testing.T) {
	t.Parallel()
	runEndpointCases(t, []endpointCase{
		{
			name:   "CreateProfile",
			status: http.StatusCreated,
			resp:   profileWithFoldersJSON,
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
				assert.Equal(t, "pf_1", p.ID, "profile ID")
				assert.Equal(t, "wf_1", p.WorkflowID, "profile's workflow")
				if f := p.DefaultFolder(); assert.NotNil(t, f, "DefaultFolder()") {
					assert.Equal(t, "fld_1", f.ID, "DefaultFolder()")
				}
			},
		},
		{
			name:   "CreateProfile name only",
			status: http.StatusCreated,
			resp:   profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateProfile(ctx, "wf_1", CreateProfileParams{Name: "Jane Doe"})
			},
			method: "POST",
			path:   "/v1/workflows/wf_1/profiles",
			body:   `{"name":"Jane Doe"}`,
			check:  checkID("pf_1"),
		},
		{
			name: "UpdateProfile nil fields",
			resp: profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{}`,
			check:  checkID("pf_1"),
		},
		{
			name: "UpdateProfile empty metadata clears it",
			resp: profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{Metadata: Object{}})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{"metadata":{}}`,
			check:  checkID("pf_1"),
		},
		{
			name: "UpdateProfile empty description clears it",
			resp: profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_1", UpdateProfileParams{Description: Ptr("")})
			},
			method: "PATCH",
			path:   "/v1/profiles/pf_1",
			body:   `{"description":""}`,
			check:  checkID("pf_1"),
		},
		{
			name: "UpdateProfile every field",
			resp: profileWithFoldersJSON,
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
			check:  checkID("pf_1"),
		},
		{
			name:   "DeleteProfile",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteProfile(ctx, "pf_1")
			},
			method: "DELETE",
			path:   "/v1/profiles/pf_1",
			check:  checkNil,
		},
		{
			name: "GetProfile",
			resp: profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetProfile(ctx, "pf_1")
			},
			method: "GET",
			path:   "/v1/profiles/pf_1",
			check:  checkID("pf_1"),
		},
		{
			name: "ListProfilesPage defaults",
			resp: pageJSON("cur_2", "pf_1", "pf_2"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListProfilesPage(ctx, "wf_1", nil)
			},
			method: "GET",
			path:   "/v1/workflows/wf_1/profiles",
			check:  checkPage[Profile]("cur_2", "pf_1", "pf_2"),
		},
		{
			name: "ListProfilesPage every parameter",
			resp: pageJSON("", "pf_3"),
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
			check: checkPage[Profile]("", "pf_3"),
		},
	})
}

// TestFolderEndpoints calls each method of the client on folders.
func TestFolderEndpoints(t *testing.T) {
	t.Parallel()
	runEndpointCases(t, []endpointCase{
		{
			name: "ListFoldersPage defaults",
			resp: pageJSON("", "fld_1"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_1", nil)
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/folders",
			check:  checkPage[Folder]("", "fld_1"),
		},
		{
			name: "ListFoldersPage zero params",
			resp: pageJSON("", "fld_1"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_1", &ListFoldersParams{})
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/folders",
			check:  checkPage[Folder]("", "fld_1"),
		},
		{
			name: "ListFoldersPage every parameter",
			resp: pageJSON("cur_3", "fld_2", "fld_3"),
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
			check: checkPage[Folder]("cur_3", "fld_2", "fld_3"),
		},
		{
			name: "GetFolder",
			resp: folderWithItemsJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetFolder(ctx, "fld_2")
			},
			method: "GET",
			path:   "/v1/folders/fld_2",
			check: func(t *testing.T, got any) {
				f := got.(*Folder)
				assert.Equal(t, "fld_2", f.ID, "folder ID")
				if assert.Len(t, f.Items, 1, "the folder's items") {
					assert.Equal(t, "item_1", f.Items[0].ID, "the folder's item")
				}
			},
		},
		{
			name:   "CreateFolder",
			status: http.StatusCreated,
			resp:   folderWithItemsJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateFolder(ctx, "pf_1", "Bank statements")
			},
			method: "POST",
			path:   "/v1/profiles/pf_1/folders",
			body:   `{"name":"Bank statements"}`,
			check:  checkID("fld_2"),
		},
		{
			name: "RenameFolder",
			resp: folderWithItemsJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.RenameFolder(ctx, "fld_2", "Statements <2025>")
			},
			method: "PATCH",
			path:   "/v1/folders/fld_2",
			body:   `{"name":"Statements <2025>"}`,
			check:  checkID("fld_2"),
		},
		{
			name:   "DeleteFolder",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteFolder(ctx, "fld_2")
			},
			method: "DELETE",
			path:   "/v1/folders/fld_2",
			check:  checkNil,
		},
	})
}

// TestItemEndpoints calls each method of the client that makes, reads,
// changes or deletes an item: text, JSON and uploaded files.
func TestItemEndpoints(t *testing.T) {
	t.Parallel()
	pdf := []byte("%PDF-1.4 payslip")
	png := []byte("\x89PNG\r\n\x1a\n scan")
	pngPath := writeTempFile(t, "scan.png", png)

	runEndpointCases(t, []endpointCase{
		{
			name:   "CreateTextItem",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTextItem(ctx, "fld_2", "Employed since 2019.\nSalary 4,200,000.", CreateItemParams{
					Name: "Employer note", Metadata: Object{"source": "call"},
				})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"text","name":"Employer note","content":"Employed since 2019.\nSalary 4,200,000.","metadata":{"source":"call"}}`,
			check:  checkID("item_1"),
		},
		{
			name:   "CreateTextItem without params",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTextItem(ctx, "fld_2", "", CreateItemParams{})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"text","content":""}`,
			check:  checkID("item_1"),
		},
		{
			name:   "CreateJSONItem",
			status: http.StatusCreated,
			resp:   fileItemJSON,
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
			check:  checkID("item_1"),
		},
		{
			name:   "CreateJSONItem array content",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateJSONItem(ctx, "fld_2", []any{1, "two", nil}, CreateItemParams{})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			body:   `{"type":"json","content":[1,"two",null]}`,
			check:  checkID("item_1"),
		},
		{
			name:   "UploadFile",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFile(ctx, "fld_2", bytes.NewReader(pdf), UploadParams{
					Filename: "payslip-2025-02.pdf",
					Name:     "Payslip, February",
					Metadata: Object{"month": "2025-02", "pages": 2, "nested": Object{"ok": true}},
				})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &wantUpload{
				filename:    "payslip-2025-02.pdf",
				contentType: "application/pdf",
				data:        pdf,
				name:        "Payslip, February",
				metadata:    `{"month":"2025-02","pages":2,"nested":{"ok":true}}`,
			},
			check: checkID("item_1"),
		},
		{
			name:   "UploadFile defaults",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFile(ctx, "fld_2", strings.NewReader("raw bytes"), UploadParams{})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &wantUpload{filename: "upload", contentType: "application/octet-stream", data: []byte("raw bytes")},
			check:  checkID("item_1"),
		},
		{
			name:   "UploadFile stream with explicit content type",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				r := io.MultiReader(strings.NewReader("a,b\n"), strings.NewReader("1,2\n"))
				return c.UploadFile(ctx, "fld_2", r, UploadParams{Filename: "ledger.txt", ContentType: "text/csv", Metadata: Object{}})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &wantUpload{filename: "ledger.txt", contentType: "text/csv", data: []byte("a,b\n1,2\n"), metadata: `{}`, streamed: true},
			check:  checkID("item_1"),
		},
		{
			name:   "UploadFilePath",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFilePath(ctx, "fld_2", pngPath, UploadParams{Metadata: Object{"source": "scanner"}})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &wantUpload{filename: "scan.png", contentType: "image/png", data: png, metadata: `{"source":"scanner"}`},
			check:  checkID("item_1"),
		},
		{
			name:   "UploadFilePath with params",
			status: http.StatusCreated,
			resp:   fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFilePath(ctx, "fld_2", pngPath, UploadParams{Filename: "id-card.png", Name: "ID card", ContentType: "image/x-png"})
			},
			method: "POST",
			path:   "/v1/folders/fld_2/items",
			upload: &wantUpload{filename: "id-card.png", contentType: "image/x-png", data: png, name: "ID card"},
			check:  checkID("item_1"),
		},
		{
			name: "GetItem",
			resp: fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetItem(ctx, "item_1")
			},
			method: "GET",
			path:   "/v1/items/item_1",
			check:  checkID("item_1"),
		},
		{
			name: "UpdateItem every field",
			resp: fileItemJSON,
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
			check:  checkID("item_1"),
		},
		{
			name: "UpdateItem nil fields",
			resp: fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_1", UpdateItemParams{})
			},
			method: "PATCH",
			path:   "/v1/items/item_1",
			body:   `{}`,
			check:  checkID("item_1"),
		},
		{
			name: "UpdateItem empty text content",
			resp: fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_1", UpdateItemParams{Name: Ptr(""), Content: ""})
			},
			method: "PATCH",
			path:   "/v1/items/item_1",
			body:   `{"name":"","content":""}`,
			check:  checkID("item_1"),
		},
		{
			name:   "DeleteItem",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteItem(ctx, "item_1")
			},
			method: "DELETE",
			path:   "/v1/items/item_1",
			check:  checkNil,
		},
	})
}

// TestAnalysisEndpoints calls each method of the client on analyses.
func TestAnalysisEndpoints(t *testing.T) {
	t.Parallel()
	runEndpointCases(t, []endpointCase{
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
			check:  checkID("analysis_1"),
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
			check:  checkID("analysis_2"),
		},
		{
			name: "GetAnalysis",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", nil)
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			check: func(t *testing.T, got any) {
				a := got.(*Analysis)
				assert.Equal(t, "analysis_1", a.ID, "analysis ID")
				assert.Equal(t, AnalysisCompleted, a.Status, "analysis status")
				assert.True(t, a.Done(), "analysis done")
			},
		},
		{
			name: "GetAnalysis params without wait",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{Timeout: time.Minute})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			check:  checkID("analysis_1"),
		},
		{
			name: "GetAnalysis WaitForReport",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}},
			check:  checkID("analysis_1"),
		},
		{
			name: "GetAnalysis WaitForReport with Timeout",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 45 * time.Second})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"45"}},
			check:  checkID("analysis_1"),
		},
		{
			name: "GetAnalysis Timeout rounded up to a second",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 61500 * time.Millisecond})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"62"}},
			check:  checkID("analysis_1"),
		},
		{
			name: "GetAnalysis Timeout below the minimum",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: 2 * time.Second})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"10"}},
			check:  checkID("analysis_1"),
		},
		{
			name: "GetAnalysis Timeout above the maximum",
			resp: reportedAnalysisJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_1", &GetAnalysisParams{WaitForReport: true, Timeout: time.Hour})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1",
			query:  url.Values{"waitForReport": {"true"}, "timeoutSeconds": {"300"}},
			check:  checkID("analysis_1"),
		},
		{
			name:   "DeleteAnalysis",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.DeleteAnalysis(ctx, "analysis_1")
			},
			method: "DELETE",
			path:   "/v1/analyses/analysis_1",
			check:  checkNil,
		},
		{
			name: "ListAnalysesPage defaults",
			resp: pageJSON("", "analysis_2", "analysis_1"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListAnalysesPage(ctx, "pf_1", nil)
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/analyses",
			check:  checkPage[Analysis]("", "analysis_2", "analysis_1"),
		},
		{
			name: "ListAnalysesPage every parameter",
			resp: pageJSON("cur_9", "analysis_5"),
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListAnalysesPage(ctx, "pf_1", &ListAnalysesParams{Limit: 1, Cursor: "cur_8"})
			},
			method: "GET",
			path:   "/v1/profiles/pf_1/analyses",
			query:  url.Values{"limit": {"1"}, "cursor": {"cur_8"}},
			check:  checkPage[Analysis]("cur_9", "analysis_5"),
		},
	})
}

// TestReportEndpoints downloads the report of an analysis in each of its
// variants.
func TestReportEndpoints(t *testing.T) {
	t.Parallel()
	runEndpointCases(t, []endpointCase{
		{
			name:        "DownloadReport ko with raw data",
			contentType: "application/pdf",
			resp:        tinyPDF,
			header:      map[string]string{"Content-Disposition": `attachment; filename="analysis_analysis_1_report.pdf"`},
			call: func(ctx context.Context, c *Client) (any, error) {
				return downloadWhole(ctx, c, &ReportParams{Locale: LocaleKorean, IncludeRawData: true})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1/report",
			query:  url.Values{"locale": {"ko"}, "includeRawData": {"true"}},
			accept: "application/pdf",
			check: func(t *testing.T, got any) {
				want := downloadedReport{
					Filename:      "analysis_analysis_1_report.pdf",
					ContentType:   "application/pdf",
					ContentLength: int64(len(tinyPDF)),
					Data:          tinyPDF,
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("report mismatch (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:        "DownloadReport defaults",
			contentType: "application/pdf",
			resp:        tinyPDF,
			call: func(ctx context.Context, c *Client) (any, error) {
				return downloadWhole(ctx, c, nil)
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1/report",
			accept: "application/pdf",
			check: func(t *testing.T, got any) {
				r := got.(downloadedReport)
				assert.Equal(t, tinyPDF, r.Data, "the report's bytes")
				assert.Equal(t, "analysis_analysis_1_report.pdf", r.Filename, "the fallback name")
			},
		},
		{
			name:        "DownloadReport en without raw data",
			contentType: "application/pdf",
			resp:        tinyPDF,
			call: func(ctx context.Context, c *Client) (any, error) {
				return downloadWhole(ctx, c, &ReportParams{Locale: LocaleEnglish})
			},
			method: "GET",
			path:   "/v1/analyses/analysis_1/report",
			query:  url.Values{"locale": {"en"}},
			accept: "application/pdf",
			check: func(t *testing.T, got any) {
				assert.Equal(t, tinyPDF, got.(downloadedReport).Data, "the report's bytes")
			},
		},
	})
}

// TestDoEndpoint sends requests with Do, the escape hatch: its path as
// given, under the version root, with its query and body.
func TestDoEndpoint(t *testing.T) {
	t.Parallel()
	runEndpointCases(t, []endpointCase{
		{
			name: "Do GET with query",
			resp: profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				var out Profile
				err := c.Do(ctx, "GET", "/profiles/pf_1?expand=folders&expand=items&x=a%20b", nil, &out)
				return &out, err
			},
			method: "GET",
			path:   "/v1/profiles/pf_1",
			query:  url.Values{"expand": {"folders", "items"}, "x": {"a b"}},
			check:  checkID("pf_1"),
		},
		{
			name:   "Do POST raw JSON bytes",
			status: http.StatusCreated,
			resp:   profileWithFoldersJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				var out map[string]any
				err := c.Do(ctx, "post", "v1/workflows/wf_1/profiles", []byte(`{"name":"Raw","metadata":{"a":[1,2]}}`), &out)
				return out["id"], err
			},
			method: "POST",
			path:   "/v1/workflows/wf_1/profiles",
			body:   `{"name":"Raw","metadata":{"a":[1,2]}}`,
			check:  checkID("pf_1"),
		},
		{
			name: "Do PATCH encodes a value",
			resp: fileItemJSON,
			call: func(ctx context.Context, c *Client) (any, error) {
				var out Item
				err := c.Do(ctx, "PATCH", "/items/item%2F1", map[string]any{"name": "n", "metadata": map[string]int{"k": 1}}, &out)
				return &out, err
			},
			method: "PATCH",
			path:   "/v1/items/item%2F1",
			body:   `{"name":"n","metadata":{"k":1}}`,
			check:  checkID("item_1"),
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
			check:  checkNil,
		},
		{
			name:   "Do DELETE without answer",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.Do(ctx, "DELETE", "/v1/folders/fld_2", nil, nil)
			},
			method: "DELETE",
			path:   "/v1/folders/fld_2",
			check:  checkNil,
		},
	})
}

// downloadedReport is what DownloadReport gave, read whole.
type downloadedReport struct {
	Filename      string
	ContentType   string
	ContentLength int64
	Data          string
}

// downloadWhole downloads the report of analysis_1 and reads it whole.
func downloadWhole(ctx context.Context, c *Client, params *ReportParams) (any, error) {
	rep, err := c.DownloadReport(ctx, "analysis_1", params)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := rep.WriteTo(&buf); err != nil {
		return nil, err
	}
	return downloadedReport{
		Filename:      rep.Filename,
		ContentType:   rep.ContentType,
		ContentLength: rep.ContentLength,
		Data:          buf.String(),
	}, nil
}

// idMethod is a method of the client that puts one ID in its path.
type idMethod struct {
	name string
	// path is the escaped path, with %s where the escaped ID goes.
	path string
	call func(ctx context.Context, c *Client, id string) error
}

// idMethods lists every method of the client that takes an ID. t makes
// the file that UploadFilePath reads.
func idMethods(t *testing.T) []idMethod {
	file := writeTempFile(t, "doc.pdf", []byte("%PDF-1.4"))
	dir := t.TempDir()
	drain := func(seq iter.Seq2[any, error]) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	return []idMethod{
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
			return drain(anySeq(c.ListProfiles(ctx, id, nil)))
		}},
		{"ListFoldersPage", "/v1/profiles/%s/folders", func(ctx context.Context, c *Client, id string) error {
			_, err := c.ListFoldersPage(ctx, id, nil)
			return err
		}},
		{"ListFolders", "/v1/profiles/%s/folders", func(ctx context.Context, c *Client, id string) error {
			return drain(anySeq(c.ListFolders(ctx, id, nil)))
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
			return drain(anySeq(c.ListAnalyses(ctx, id, nil)))
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

// anySeq forgets the type of an iterator's values.
func anySeq[T any](seq iter.Seq2[*T, error]) iter.Seq2[any, error] {
	return func(yield func(any, error) bool) {
		for v, err := range seq {
			if !yield(v, err) {
				return
			}
		}
	}
}

// answerAnyCall answers any call of idMethods successfully: a PDF for a
// report, nothing for a delete, else a JSON object every result type
// decodes (an analysis that is done, an empty page, an ID).
func answerAnyCall(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/report"):
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = io.WriteString(w, tinyPDF)
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
	t.Parallel()
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
	for _, m := range idMethods(t) {
		for _, e := range escaped {
			t.Run(m.name+"/"+e.name, func(t *testing.T) {
				srv := newTestServer(t, answerAnyCall)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				require.NoError(t, m.call(ctx, srv.client(t, WithMaxRetries(0)), e.id), "call")
				reqs := srv.requests()
				require.Len(t, reqs, 1, "the service received %d requests, want 1", len(reqs))
				assert.Equal(t, fmt.Sprintf(m.path, e.escaped), reqs[0].EscapedPath, "escaped path")
				assert.Equal(t, fmt.Sprintf(m.path, e.id), reqs[0].Path, "decoded path")
				// Only the long poll of WaitForAnalysis has a query here;
				// anything else came from the ID.
				for k := range reqs[0].Query {
					assert.Contains(t, []string{"waitForReport", "timeoutSeconds"}, k,
						"query = %v: the ID leaked out of its segment", reqs[0].Query)
				}
			})
		}
	}

	for _, m := range idMethods(t) {
		for _, id := range []string{"", ".", ".."} {
			t.Run(fmt.Sprintf("%s/refuses %q", m.name, id), func(t *testing.T) {
				srv := newTestServer(t, answerAnyCall)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				assert.ErrorIs(t, m.call(ctx, srv.client(t), id), ErrInvalidID)
				assert.Empty(t, srv.requests(), "the service received requests, want none")
			})
		}
	}
}

// listing adapts one of the client's listings to the pagination tests.
type listing struct {
	name string
	path string
	// fullParams: the listing takes Search, Sort and Order besides Limit.
	fullParams bool
	walk       func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error]
}

// idsOf turns an iterator of resources into one of their IDs; a nil
// resource becomes "<nil>".
func idsOf[T any](seq iter.Seq2[*T, error], id func(*T) string) iter.Seq2[string, error] {
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

var listings = []listing{
	{
		name: "ListFolders", path: "/v1/profiles/pf_1/folders", fullParams: true,
		walk: func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error] {
			return idsOf(c.ListFolders(ctx, "pf_1", p), func(f *Folder) string { return f.ID })
		},
	},
	{
		name: "ListProfiles", path: "/v1/workflows/wf_1/profiles", fullParams: true,
		walk: func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error] {
			return idsOf(c.ListProfiles(ctx, "wf_1", p), func(p *Profile) string { return p.ID })
		},
	},
	{
		name: "ListAnalyses", path: "/v1/profiles/pf_1/analyses",
		walk: func(ctx context.Context, c *Client, p *ListParams) iter.Seq2[string, error] {
			var ap *ListAnalysesParams
			if p != nil {
				ap = &ListAnalysesParams{Limit: p.Limit, Cursor: p.Cursor}
			}
			return idsOf(c.ListAnalyses(ctx, "pf_1", ap), func(a *Analysis) string { return a.ID })
		},
	},
}

// pageSpec is the answer to the page at one cursor: its entries and next
// cursor, or an error.
type pageSpec struct {
	ids  []string
	next string
	fail bool
}

// yielded is one value an iterator yielded.
type yielded struct {
	ID  string
	Err bool
}

// TestIterators walks the listings across pages.
func TestIterators(t *testing.T) {
	t.Parallel()
	threePages := map[string]pageSpec{
		"":   {ids: []string{"e1", "e2"}, next: "c2"},
		"c2": {ids: []string{"e3", "e4"}, next: "c3"},
		"c3": {ids: []string{"e5"}},
	}
	all := []yielded{{"e1", false}, {"e2", false}, {"e3", false}, {"e4", false}, {"e5", false}}
	tests := []struct {
		name   string
		pages  map[string]pageSpec
		params *ListParams
		// stopAfter breaks out of the loop after that many values; 0 never.
		stopAfter int
		want      []yielded
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
			pages: map[string]pageSpec{
				"":   {ids: []string{"e1", "e2"}, next: "c2"},
				"c2": {fail: true},
				"c3": {ids: []string{"e5"}},
			},
			want:    []yielded{{"e1", false}, {"e2", false}, {"<nil>", true}},
			cursors: []string{"", "c2"},
		},
		{
			name:    "failing first page",
			pages:   map[string]pageSpec{"": {fail: true}},
			want:    []yielded{{"<nil>", true}},
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
			pages: map[string]pageSpec{
				"":   {ids: []string{"e1", "e2"}, next: "c2"},
				"c2": {ids: []string{"e3"}, next: "c2"},
			},
			want:    []yielded{{"e1", false}, {"e2", false}, {"e3", false}, {"<nil>", true}},
			cursors: []string{"", "c2"},
		},
		{
			name:    "repeated starting cursor ends with an error",
			pages:   map[string]pageSpec{"c2": {ids: []string{"e3"}, next: "c2"}},
			params:  &ListParams{Cursor: "c2"},
			want:    []yielded{{"e3", false}, {"<nil>", true}},
			cursors: []string{"c2"},
		},
		{
			name:    "empty listing",
			pages:   map[string]pageSpec{"": {}},
			cursors: []string{""},
		},
		{
			name: "empty page in the middle",
			pages: map[string]pageSpec{
				"":   {ids: []string{"e1"}, next: "c2"},
				"c2": {next: "c3"},
				"c3": {ids: []string{"e5"}},
			},
			want:    []yielded{{"e1", false}, {"e5", false}},
			cursors: []string{"", "c2", "c3"},
		},
	}
	for _, l := range listings {
		for _, tt := range tests {
			t.Run(l.name+"/"+tt.name, func(t *testing.T) {
				srv := pagesServer(t, l.path, tt.pages)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				got := collectIDs(t, l.walk(ctx, srv.client(t, WithMaxRetries(0)), tt.params), tt.stopAfter)
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("yielded values mismatch (-want +got):\n%s", diff)
				}
				var cursors []string
				for _, r := range srv.requests() {
					cursors = append(cursors, r.Query.Get("cursor"))
					if v, ok := r.Query["cursor"]; ok {
						assert.True(t, len(v) == 1 && v[0] != "", "cursor query %q: want one non-empty value or none", v)
					}
				}
				if diff := cmp.Diff(tt.cursors, cursors); diff != "" {
					t.Errorf("cursors of the requests mismatch (-want +got):\n%s", diff)
				}
			})
		}

		t.Run(l.name+"/keeps params on every page", func(t *testing.T) {
			srv := pagesServer(t, l.path, threePages)
			params := &ListParams{Limit: 2}
			if l.fullParams {
				params.Search, params.Sort, params.Order = "bank statements", SortByName, Ascending
			}
			before := *params
			got := collectIDs(t, l.walk(context.Background(), srv.client(t), params), 0)
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
				assert.Equal(t, http.MethodGet, r.Method, "request method")
				assert.Equal(t, l.path, r.EscapedPath, "request path")
			}
			if diff := cmp.Diff(wantQueries, gotQueries); diff != "" {
				t.Errorf("queries mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, *params); diff != "" {
				t.Errorf("the walk changed the caller's params (-before +after):\n%s", diff)
			}
		})
	}
}

// pagesServer serves the pages of a listing at path by their cursor. A
// cursor it has no page for, or more requests than any walk needs, is an
// error answer, so that a runaway walk ends.
func pagesServer(t *testing.T, path string, pages map[string]pageSpec) *testServer {
	t.Helper()
	var srv *testServer
	srv = newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if !assert.LessOrEqual(t, len(srv.requests()), 10, "requests: the walk does not end") {
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
		respond(w, http.StatusOK, pageJSON(p.next, p.ids...))
	})
	return srv
}

// collectIDs ranges over seq, breaking after stopAfter values (never if 0)
// or at 50, and returns what it yielded.
func collectIDs(t *testing.T, seq iter.Seq2[string, error], stopAfter int) []yielded {
	t.Helper()
	var got []yielded
	for id, err := range seq {
		if err != nil {
			var apiErr *APIError
			assert.True(t, errors.As(err, &apiErr) || strings.Contains(err.Error(), "cursor"), "unexpected error: %v", err)
		}
		got = append(got, yielded{ID: id, Err: err != nil})
		if len(got) == stopAfter || len(got) >= 50 {
			break
		}
	}
	return got
}
