// Command oapiflow runs a whole flow of the client that oapi-codegen
// generates from api/openapi.yaml (into the package api, beside this file)
// against a running mock, and checks that every answer decodes into its
// generated type with unknown fields disallowed. It prints one line per
// step and exits 1 at the first disagreement.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"oapiflow/api"
)

const passport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"

func main() {
	baseURL := flag.String("base-url", "", "the mock's base URL")
	key := flag.String("api-key", "", "the mock's API key")
	maxJSON := flag.Int("max-json-body", 0, "the mock's -max-json-body")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f, err := newFlow(*baseURL, *key, *maxJSON)
	if err == nil {
		err = f.run(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oapiflow:", err)
		os.Exit(1)
	}
	fmt.Println("oapiflow: every step passed")
}

// flow holds the clients and what the steps made.
type flow struct {
	c, wrongKey *api.ClientWithResponses
	http        *http.Client
	baseURL     string
	key         string
	maxJSON     int

	profileID, defaultFolderID, folderID string
	fileID, textID, jsonID               string
	analysisID                           string
}

func newFlow(baseURL, key string, maxJSON int) (*flow, error) {
	if baseURL == "" || key == "" || maxJSON <= 0 {
		return nil, errors.New("-base-url, -api-key and -max-json-body are required")
	}
	withKey := func(k string) api.ClientOption {
		return api.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Api-Key", k)
			return nil
		})
	}
	c, err := api.NewClientWithResponses(baseURL, withKey(key))
	if err != nil {
		return nil, err
	}
	wrong, err := api.NewClientWithResponses(baseURL, withKey("00000000-0000-4000-8000-000000000000"))
	if err != nil {
		return nil, err
	}
	return &flow{c: c, wrongKey: wrong, http: &http.Client{Timeout: time.Minute}, baseURL: strings.TrimRight(baseURL, "/"), key: key, maxJSON: maxJSON}, nil
}

func (f *flow) run(ctx context.Context) error {
	for _, s := range []struct {
		name string
		do   func(context.Context) error
	}{
		{"profiles", f.profiles},
		{"folders", f.folders},
		{"items", f.items},
		{"update profile with nulls", f.clearProfile},
		{"analysis", f.analysis},
		{"report", f.report},
		{"errors", f.errors},
		{"deletes", f.deletes},
	} {
		if err := s.do(ctx); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Println("ok", s.name)
	}
	return nil
}

func (f *flow) profiles(ctx context.Context) error {
	r, err := f.c.CreateProfileWithResponse(ctx, "wf_default", api.CreateProfileRequest{
		Name:        "Jane Doe",
		Description: ptr("Retail loan onboarding"),
		Metadata:    &api.NullableMetadata{"customerRef": "CUST-20931"},
	})
	v, err := answer("create profile", r, err, http.StatusCreated)
	if err != nil {
		return err
	}
	p := v.(*api.CreatedProfile)
	if len(p.Folders) != 1 || !p.Folders[0].IsDefault {
		return fmt.Errorf("create profile: folders %+v, want the default folder alone", p.Folders)
	}
	f.profileID, f.defaultFolderID = p.Id, p.Folders[0].Id
	g, err := f.c.GetProfileWithResponse(ctx, f.profileID)
	if _, err := answer("get profile", g, err, http.StatusOK); err != nil {
		return err
	}
	l, err := f.c.ListProfilesWithResponse(ctx, "wf_default", &api.ListProfilesParams{Limit: ptr(5)})
	_, err = answer("list profiles", l, err, http.StatusOK)
	return err
}

func (f *flow) folders(ctx context.Context) error {
	l, err := f.c.ListFoldersWithResponse(ctx, f.profileID, &api.ListFoldersParams{Limit: ptr(10)})
	v, err := answer("list folders", l, err, http.StatusOK)
	if err != nil {
		return err
	}
	if page := v.(*api.FolderPage); page.Count != 1 || page.Items[0].Id != f.defaultFolderID {
		return fmt.Errorf("list folders: %+v, want the default folder alone", page)
	}
	c, err := f.c.CreateFolderWithResponse(ctx, f.profileID, api.FolderNameRequest{Name: "Payslips"})
	v, err = answer("create folder", c, err, http.StatusCreated)
	if err != nil {
		return err
	}
	f.folderID = v.(*api.Folder).Id
	rn, err := f.c.RenameFolderWithResponse(ctx, f.folderID, api.FolderNameRequest{Name: "Payslips 2025"})
	if _, err := answer("rename folder", rn, err, http.StatusOK); err != nil {
		return err
	}
	// Two folders, a page of one: the first page's nextCursor leads to
	// the second, the last.
	first, err := f.c.ListFoldersWithResponse(ctx, f.profileID, &api.ListFoldersParams{Limit: ptr(1)})
	if v, err = answer("list folders, first page", first, err, http.StatusOK); err != nil {
		return err
	}
	page := v.(*api.FolderPage)
	if page.Count != 1 || page.NextCursor == nil || *page.NextCursor == "" {
		return fmt.Errorf("list folders, first page: %+v, want one folder and a cursor", page)
	}
	next, err := f.c.ListFoldersWithResponse(ctx, f.profileID, &api.ListFoldersParams{Limit: ptr(1), Cursor: page.NextCursor})
	if v, err = answer("list folders, next page", next, err, http.StatusOK); err != nil {
		return err
	}
	if last := v.(*api.FolderPage); last.Count != 1 || last.NextCursor != nil || last.Items[0].Id == page.Items[0].Id {
		return fmt.Errorf("list folders, next page: %+v, want the other folder and no cursor", last)
	}
	return nil
}

func (f *flow) items(ctx context.Context) error {
	body, ct, err := multipartFile("passport.txt", "text/plain", passport, `{"source":"scanner"}`)
	if err != nil {
		return err
	}
	up, err := f.c.CreateItemWithBodyWithResponse(ctx, f.folderID, ct, body)
	v, err := answer("upload file", up, err, http.StatusCreated)
	if err != nil {
		return err
	}
	f.fileID = v.(*api.Item).Id

	var text api.CreateItemRequest_Content
	if err := text.FromCreateItemRequestContent0("Confirmed by phone with HR: employed since 2019-04-01."); err != nil {
		return err
	}
	name := "Employer note"
	tr, err := f.c.CreateItemWithResponse(ctx, f.folderID, api.CreateItemRequest{Type: api.CreateItemRequestTypeText, Name: &name, Content: text})
	if v, err = answer("create text item", tr, err, http.StatusCreated); err != nil {
		return err
	}
	f.textID = v.(*api.Item).Id

	var doc api.CreateItemRequest_Content
	if err := doc.FromCreateItemRequestContent1(map[string]any{"employer": "Acme Ltd", "monthlySalary": 4200.5}); err != nil {
		return err
	}
	jr, err := f.c.CreateItemWithResponse(ctx, f.folderID, api.CreateItemRequest{Type: api.CreateItemRequestTypeJson, Content: doc, Metadata: &api.NullableMetadata{"origin": "crm"}})
	if v, err = answer("create JSON item", jr, err, http.StatusCreated); err != nil {
		return err
	}
	item := v.(*api.Item)
	f.jsonID = item.Id
	if got, err := item.Content.AsItemContent1(); err != nil || got["employer"] != "Acme Ltd" {
		return fmt.Errorf("create JSON item: content %v (%v), want the object sent", got, err)
	}

	var newText api.UpdateItemRequest_Content
	if err := newText.FromUpdateItemRequestContent0("Confirmed in writing by HR."); err != nil {
		return err
	}
	newName := "Employer note (confirmed)"
	ur, err := f.c.UpdateItemWithResponse(ctx, f.textID, api.UpdateItemRequest{Name: &newName, Content: &newText, Metadata: &api.Metadata{"reviewed": true}})
	if v, err = answer("update item", ur, err, http.StatusOK); err != nil {
		return err
	}
	if got := v.(*api.Item); got.Name != newName {
		return fmt.Errorf("update item: name %q, want %q", got.Name, newName)
	}
	gi, err := f.c.GetItemWithResponse(ctx, f.fileID)
	if _, err := answer("get item", gi, err, http.StatusOK); err != nil {
		return err
	}
	gf, err := f.c.GetFolderWithResponse(ctx, f.folderID)
	if v, err = answer("get folder", gf, err, http.StatusOK); err != nil {
		return err
	}
	if n := len(v.(*api.FolderWithItems).Items); n != 3 {
		return fmt.Errorf("get folder: %d items, want 3", n)
	}
	return nil
}

// clearProfile sends null for the description and the metadata, which the
// document says clears them: the generated type can say null for both.
func (f *flow) clearProfile(ctx context.Context) error {
	var noMetadata api.NullableMetadata // nil: encoded as null
	r, err := f.c.UpdateProfileWithResponse(ctx, f.profileID, api.UpdateProfileRequest{
		Description: nullable.NewNullNullable[string](),
		Metadata:    &noMetadata,
	})
	v, err := answer("update profile", r, err, http.StatusOK)
	if err != nil {
		return err
	}
	if p := v.(*api.Profile); p.Description != nil || p.Metadata != nil && len(*p.Metadata) > 0 {
		return fmt.Errorf("update profile: description %v and metadata %v after null, want both cleared", p.Description, p.Metadata)
	}
	return nil
}

func (f *flow) analysis(ctx context.Context) error {
	body := api.StartAnalysisRequest{ClientMetadata: &api.NullableMetadata{"ticket": "LN-1"}}
	for _, id := range []string{f.fileID, f.textID, f.jsonID} {
		body.TargetItems = append(body.TargetItems, struct {
			ItemId string `json:"itemId"`
		}{ItemId: id})
	}
	r, err := f.c.StartAnalysisWithResponse(ctx, f.profileID, body)
	v, err := answer("start analysis", r, err, http.StatusAccepted)
	if err != nil {
		return err
	}
	f.analysisID = v.(*api.AnalysisStarted).Id

	// Still running (the mock's analyses last an hour here, until the
	// control API completes them): a second start and the report are
	// refused.
	again, err := f.c.StartAnalysisWithResponse(ctx, f.profileID, body)
	if err := wantError("start analysis again", again, err, http.StatusConflict, "ANALYSIS_IN_PROGRESS"); err != nil {
		return err
	}
	early, err := f.c.DownloadReportWithResponse(ctx, f.analysisID, nil)
	if err := wantError("report before completion", early, err, http.StatusBadRequest, "REPORT_NOT_AVAILABLE"); err != nil {
		return err
	}

	// A long poll, answered when the analysis completes.
	type polled struct {
		a   *api.Analysis
		err error
	}
	done := make(chan polled, 1)
	go func() {
		wait, secs := true, api.TimeoutSeconds(30)
		var last polled
		for range 10 {
			g, err := f.c.GetAnalysisWithResponse(ctx, f.analysisID, &api.GetAnalysisParams{WaitForReport: &wait, TimeoutSeconds: &secs})
			v, err := answer("long-poll analysis", g, err, http.StatusOK)
			if err != nil {
				done <- polled{err: err}
				return
			}
			last = polled{a: v.(*api.Analysis)}
			if s := last.a.Status; s == api.AnalysisStatusCompleted || s == api.AnalysisStatusFailed {
				break
			}
		}
		done <- last
	}()
	if err := f.control(ctx, "/_mock/analyses/"+f.analysisID+"/complete"); err != nil {
		return err
	}
	p := <-done
	if p.err != nil {
		return p.err
	}
	a := p.a
	if a.Status != api.AnalysisStatusCompleted || a.RiskAssessment == nil || a.Findings == nil || a.Recommendations == nil || a.PrimaryReportId == nil {
		return fmt.Errorf("long-poll analysis: status %s with results %v, want completed with a risk assessment, findings, recommendations and a report", a.Status, a.RiskAssessment != nil)
	}
	la, err := f.c.ListAnalysesWithResponse(ctx, f.profileID, nil)
	_, err = answer("list analyses", la, err, http.StatusOK)
	return err
}

func (f *flow) report(ctx context.Context) error {
	r, err := f.c.DownloadReportWithResponse(ctx, f.analysisID, nil)
	if _, err := answer("download report", r, err, http.StatusOK); err != nil {
		return err
	}
	if !bytes.HasPrefix(r.Body, []byte("%PDF-")) || r.HTTPResponse.Header.Get("Content-Type") != "application/pdf" {
		return fmt.Errorf("download report: %s answer starting %q, want a PDF", r.HTTPResponse.Header.Get("Content-Type"), excerpt(r.Body[:min(len(r.Body), 8)]))
	}
	return nil
}

// errors provokes each error of the document, and those the mock adds for
// malformed requests, and checks each body decodes into its generated type.
func (f *flow) errors(ctx context.Context) error {
	const (
		unknownProfile  = "pf_zzzzzzzzzzzzzzzzzzzz"
		unknownFolder   = "fd_zzzzzzzzzzzzzzzzzzzz"
		unknownItem     = "item_zzzzzzzzzzzzzzzzzzzz"
		unknownAnalysis = "analysis_zzzzzzzzzzzzzzzzzzzz"
	)
	name := api.FolderNameRequest{Name: "x"}
	items := api.StartAnalysisRequest{TargetItems: []struct {
		ItemId string `json:"itemId"`
	}{{ItemId: unknownItem}}}
	huge := strings.Repeat("x", f.maxJSON)
	checks := []struct {
		step   string
		call   func() (any, error)
		status int
		code   string
	}{
		{"wrong key", func() (any, error) { return f.wrongKey.GetProfileWithResponse(ctx, f.profileID) }, 401, "UNAUTHORIZED"},
		{"unknown workflow", func() (any, error) {
			return f.c.CreateProfileWithResponse(ctx, "wf_unknown", api.CreateProfileRequest{Name: "x"})
		}, 404, "WORKFLOW_NOT_FOUND"},
		{"blank profile name", func() (any, error) {
			return f.c.CreateProfileWithResponse(ctx, "wf_default", api.CreateProfileRequest{Name: " "})
		}, 400, "VALIDATION_ERROR"},
		{"unknown member", func() (any, error) {
			return f.c.CreateProfileWithBodyWithResponse(ctx, "wf_default", "application/json", strings.NewReader(`{"name":"x","colour":"red"}`))
		}, 400, "VALIDATION_ERROR"},
		{"not JSON", func() (any, error) {
			return f.c.CreateProfileWithBodyWithResponse(ctx, "wf_default", "text/plain", strings.NewReader(`name=x`))
		}, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"body over the limit", func() (any, error) {
			return f.c.CreateProfileWithResponse(ctx, "wf_default", api.CreateProfileRequest{Name: "x", Description: &huge})
		}, 413, "PAYLOAD_TOO_LARGE"},
		{"update unknown profile", func() (any, error) {
			return f.c.UpdateProfileWithResponse(ctx, unknownProfile, api.UpdateProfileRequest{Name: ptr("x")})
		}, 404, "PROFILE_NOT_FOUND"},
		{"list folders of unknown profile", func() (any, error) { return f.c.ListFoldersWithResponse(ctx, unknownProfile, nil) }, 404, "SVC_3005"},
		{"get unknown folder", func() (any, error) { return f.c.GetFolderWithResponse(ctx, unknownFolder) }, 404, "SVC_3009"},
		{"rename unknown folder", func() (any, error) { return f.c.RenameFolderWithResponse(ctx, unknownFolder, name) }, 404, "FOLDER_NOT_FOUND"},
		{"rename default folder", func() (any, error) { return f.c.RenameFolderWithResponse(ctx, f.defaultFolderID, name) }, 400, "CANNOT_MODIFY_DEFAULT_FOLDER"},
		{"delete default folder", func() (any, error) { return f.c.DeleteFolderWithResponse(ctx, f.defaultFolderID) }, 400, "CANNOT_DELETE_DEFAULT_FOLDER"},
		{"update unknown item", func() (any, error) {
			return f.c.UpdateItemWithResponse(ctx, unknownItem, api.UpdateItemRequest{Name: ptr("x")})
		}, 404, "ITEM_NOT_FOUND"},
		{"analyse unknown item", func() (any, error) { return f.c.StartAnalysisWithResponse(ctx, f.profileID, items) }, 400, "INVALID_ITEM_IDS"},
		{"analyse in unknown profile", func() (any, error) { return f.c.StartAnalysisWithResponse(ctx, unknownProfile, items) }, 404, "PROFILE_NOT_FOUND"},
		{"report of unknown analysis", func() (any, error) { return f.c.DownloadReportWithResponse(ctx, unknownAnalysis, nil) }, 404, "ANALYSIS_NOT_FOUND"},
		{"get unknown analysis", func() (any, error) { return f.c.GetAnalysisWithResponse(ctx, unknownAnalysis, nil) }, 404, "ANALYSIS_NOT_FOUND"},
		{"timeout out of bounds", func() (any, error) {
			secs := api.TimeoutSeconds(5)
			return f.c.GetAnalysisWithResponse(ctx, f.analysisID, &api.GetAnalysisParams{TimeoutSeconds: &secs})
		}, 400, "VALIDATION_ERROR"},
	}
	for _, c := range checks {
		r, err := c.call()
		if err := wantError(c.step, r, err, c.status, c.code); err != nil {
			return err
		}
	}
	return nil
}

func (f *flow) deletes(ctx context.Context) error {
	for _, d := range []struct {
		step string
		call func() (any, error)
	}{
		{"delete analysis", func() (any, error) { return f.c.DeleteAnalysisWithResponse(ctx, f.analysisID) }},
		{"delete item", func() (any, error) { return f.c.DeleteItemWithResponse(ctx, f.jsonID) }},
		{"delete folder", func() (any, error) { return f.c.DeleteFolderWithResponse(ctx, f.folderID) }},
		{"delete profile", func() (any, error) { return f.c.DeleteProfileWithResponse(ctx, f.profileID) }},
	} {
		r, err := d.call()
		if _, err := answer(d.step, r, err, http.StatusNoContent); err != nil {
			return err
		}
	}
	return nil
}

// control calls a POST route of the mock's control API.
func (f *flow) control(ctx context.Context, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.baseURL+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Api-Key", f.key)
	resp, err := f.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, b)
	}
	return nil
}

// multipartFile is an upload's body: the part file, with its media type,
// and the field metadata.
func multipartFile(name, mediaType, content, metadata string) (io.Reader, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, name))
	h.Set("Content-Type", mediaType)
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := io.WriteString(part, content); err != nil {
		return nil, "", err
	}
	if err := w.WriteField("metadata", metadata); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &b, w.FormDataContentType(), nil
}

func ptr[T any](v T) *T { return &v }
