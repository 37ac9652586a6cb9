package openapicheck_test

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// Answers of the mock, as the tests below alter them.
const (
	profileJSON = `{"id":"pf_1","workflowId":"wf_default","name":"Jane","itemsCount":0,"lastAnalysisAt":null,` +
		`"createdAt":"2030-03-01T09:00:01Z","updatedAt":"2030-03-01T09:00:01Z"}`
	createdJSON = `{"id":"pf_1","workflowId":"wf_default","name":"Jane","itemsCount":0,"lastAnalysisAt":null,` +
		`"folders":[{"id":"fld_1","name":"default","isDefault":true,"itemsCount":0,"createdAt":"2030-03-01T09:00:01Z"}],` +
		`"createdAt":"2030-03-01T09:00:01Z","updatedAt":"2030-03-01T09:00:01Z"}`
	itemJSON = `{"id":"item_1","folderId":"fld_1","type":"file","name":"passport.txt","content":null,"contentType":"text/plain",` +
		`"sizeBytes":4,"url":"http://mock.test/storage/items/item_1/text","storageOriginalUrl":"http://mock.test/storage/items/item_1/original",` +
		`"detected":{"contentType":"text/plain","extension":"txt","fileCategory":"text"},"metadata":{},"status":"ACTIVE",` +
		`"processedAt":"2030-03-01T09:00:01Z","createdAt":"2030-03-01T09:00:01Z"}`
)

// errorBody is the service's error body.
func errorBody(status int, code string) string {
	return `{"error":{"code":"` + code + `","status":` + strconv.Itoa(status) + `,"message":"m"}}`
}

// jsonHeader is the header of a request or answer with a JSON body.
func jsonHeader(kv ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// keyed is a request header with the API key.
func keyed(kv ...string) http.Header {
	h := http.Header{"X-Api-Key": {"5d0c3a52-1b6e-4f0a-9c1d-2e8f7a6b5c4d"}}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// upload is a multipart/form-data body with the given parts (a "file"
// part is a file).
func upload(t *testing.T, parts ...string) (http.Header, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(parts); i += 2 {
		if parts[i] == "file" {
			fw, err := w.CreateFormFile("file", "passport.txt")
			require.NoError(t, err)
			_, err = fw.Write([]byte(parts[i+1]))
			require.NoError(t, err)
			continue
		}
		require.NoError(t, w.WriteField(parts[i], parts[i+1]))
	}
	require.NoError(t, w.Close())
	return keyed("Content-Type", w.FormDataContentType()), b.Bytes()
}

func TestCheck(t *testing.T) {
	v := newValidator(t)
	upHeader, upBody := upload(t, "file", "PASSPORT", "name", "Passport", "metadata", `{"side":"front"}`)
	noFileHeader, noFileBody := upload(t, "name", "Passport")
	type want struct{ operation, in, field string }
	tests := []struct {
		name string
		ex   openapicheck.Exchange
		want []want // nil: no mismatch
	}{
		{
			name: "a create and its answer",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"name":"Jane"}`), Status: 201, ResponseHeader: jsonHeader("X-Request-Id", "req_1"), ResponseBody: []byte(createdJSON)},
		},
		{
			name: "an answer without a required field",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(strings.Replace(profileJSON, `"lastAnalysisAt":null,`, "", 1))},
			want: []want{{"getProfile", "answer", "body /lastAnalysisAt"}},
		},
		{
			name: "an answer with a field of the wrong type",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(strings.Replace(profileJSON, `"itemsCount":0`, `"itemsCount":"0"`, 1))},
			want: []want{{"getProfile", "answer", "body /itemsCount"}},
		},
		{
			name: "an answer with a field the document does not have",
			ex: openapicheck.Exchange{Method: "PATCH", URL: "/v1/profiles/pf_1", Header: keyed("Content-Type", "application/json"), Body: []byte(`{"name":"J"}`),
				Status: 200, ResponseHeader: jsonHeader(), ResponseBody: []byte(createdJSON)},
			want: []want{{"updateProfile", "answer", "body /folders"}},
		},
		{
			name: "an answer with a status the operation does not have",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"name":"Jane"}`), Status: 200, ResponseHeader: jsonHeader(), ResponseBody: []byte(createdJSON)},
			want: []want{{"createProfile", "answer", "status"}},
		},
		{
			name: "an error with the code of another call",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/folders", Header: keyed(), Status: 404, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(404, "PROFILE_NOT_FOUND"))},
			want: []want{{"listFolders", "answer", "body /error/code"}},
		},
		{
			name: "an error whose status disagrees with the answer's",
			ex: openapicheck.Exchange{Method: "DELETE", URL: "/v1/analyses/analysis_1", Header: keyed(), Status: 404, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(400, "ANALYSIS_NOT_FOUND"))},
			want: []want{{"deleteAnalysis", "answer", "body /error/status"}},
		},
		{
			name: "a query value out of bounds, accepted",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/folders?limit=500", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(`{"count":0,"nextCursor":null,"items":[]}`)},
			want: []want{{"listFolders", "request", "query limit"}},
		},
		{
			name: "a query value out of bounds, refused",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/folders?limit=500", Header: keyed(), Status: 400, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(400, "VALIDATION_ERROR"))},
		},
		{
			name: "an unknown query parameter, accepted",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report?page=2", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {`attachment; filename="analysis_analysis_1_report.pdf"`}},
				ResponseBody:   []byte("%PDF-1.7")},
			want: []want{{"downloadReport", "request", "query page"}},
		},
		{
			name: "no API key, accepted",
			ex:   openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Status: 200, ResponseHeader: jsonHeader(), ResponseBody: []byte(profileJSON)},
			want: []want{{"getProfile", "request", "header x-api-key"}},
		},
		{
			name: "no API key, refused",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Status: 401, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(401, "UNAUTHORIZED"))},
		},
		{
			name: "a body field the document does not have, accepted",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"name":"Jane","nickname":"J"}`), Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(createdJSON)},
			want: []want{{"createProfile", "request", "body /nickname"}},
		},
		{
			name: "a name too long, refused with the code of the call",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"name":"` + strings.Repeat("x", 256) + `"}`), Status: 400, ResponseHeader: jsonHeader(), ResponseBody: []byte(errorBody(400, "VALIDATION_ERROR"))},
		},
		{
			name: "an empty target list, accepted",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/analyses/pf_1/analyze", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"targetItems":[]}`), Status: 202, ResponseHeader: jsonHeader(), ResponseBody: []byte(`{"id":"analysis_1"}`)},
			want: []want{{"startAnalysis", "request", "body /targetItems"}},
		},
		{
			name: "an upload",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: upHeader, Body: upBody,
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
		},
		{
			name: "an upload without its file, accepted",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: noFileHeader, Body: noFileBody,
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
			want: []want{{"createItem", "request", "body /file"}},
		},
		{
			name: "a text item",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"type":"text","name":"Note","content":"hello"}`), Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
		},
		{
			name: "a report",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report?locale=ko&includeRawData=true", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {`attachment; filename="analysis_analysis_1_report.pdf"`}},
				ResponseBody:   []byte("%PDF-1.7\n...")},
		},
		{
			name: "a report that is not a PDF",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {`attachment; filename="analysis_analysis_1_report.pdf"`}},
				ResponseBody:   []byte("<html>")},
			want: []want{{"downloadReport", "answer", "body"}},
		},
		{
			name: "a report without its file name",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf"}}, ResponseBody: []byte("%PDF-1.7")},
			want: []want{{"downloadReport", "answer", "header Content-Disposition"}},
		},
		{
			name: "a report of another media type",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"text/html"}, "Content-Disposition": {`attachment; filename="analysis_analysis_1_report.pdf"`}},
				ResponseBody:   []byte("%PDF-1.7")},
			want: []want{{"downloadReport", "answer", "header Content-Type"}},
		},
		{
			name: "a 503 without Retry-After",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: upHeader, Body: upBody, Status: 503,
				ResponseHeader: jsonHeader(), ResponseBody: []byte(errorBody(503, "SERVICE_UNAVAILABLE"))},
			want: []want{{"createItem", "answer", "header Retry-After"}},
		},
		{
			name: "HEAD, answered without a body",
			ex:   openapicheck.Exchange{Method: "HEAD", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 200, ResponseHeader: jsonHeader()},
		},
		{
			name: "HEAD, answered with a body",
			ex: openapicheck.Exchange{Method: "HEAD", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(profileJSON)},
			want: []want{{"getProfile", "answer", "body"}},
		},
		{
			name: "a deletion",
			ex:   openapicheck.Exchange{Method: "DELETE", URL: "/v1/items/item_1", Header: keyed(), Status: 204, ResponseHeader: http.Header{}},
		},
		{
			name: "a deletion answered with a body",
			ex: openapicheck.Exchange{Method: "DELETE", URL: "/v1/items/item_1", Header: keyed(), Status: 204, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(`{}`)},
			want: []want{{"deleteItem", "answer", "body"}},
		},
		{
			name: "an ID with an escaped slash stays in its segment",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1%2Ffolders", Header: keyed(), Status: 404, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(404, "PROFILE_NOT_FOUND"))},
		},
		{
			name: "an unknown route, answered 404",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Header: keyed(), Status: 404, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(404, "NOT_FOUND"))},
		},
		{
			name: "an unknown route, answered 200",
			ex:   openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(), ResponseBody: []byte(`{}`)},
			want: []want{{"GET /v1/nothing", "answer", "status"}},
		},
		{
			name: "a method the path does not have, answered 405",
			ex: openapicheck.Exchange{Method: "PUT", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 405, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(405, "METHOD_NOT_ALLOWED"))},
		},
		{
			name: "a method the path does not have, answered with a bad body",
			ex: openapicheck.Exchange{Method: "PUT", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 405, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(`{"message":"no"}`)},
			want: []want{{"PUT /v1/profiles/{profileId}", "answer", "body /error"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Check(t.Context(), tt.ex)
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var ms openapicheck.Mismatches
			require.ErrorAs(t, err, &ms)
			var got []want
			for _, m := range ms {
				got = append(got, want{m.Operation, m.In, m.Field})
				require.Contains(t, err.Error(), m.Problem)
				require.NotEmpty(t, m.Problem)
			}
			require.Equal(t, tt.want, got, "%v", err)
			var m *openapicheck.Mismatch
			require.ErrorAs(t, err, &m)
		})
	}
}

func TestCheckOutsideTheDocument(t *testing.T) {
	v := newValidator(t)
	err := v.Check(t.Context(), openapicheck.Exchange{Method: "POST", URL: "/_mock/reset", Status: 204})
	require.ErrorIs(t, err, openapicheck.ErrNotInDocument)
	var m *openapicheck.Mismatch
	require.False(t, errors.As(err, &m))

	control := newControlValidator(t)
	require.NoError(t, control.Check(t.Context(), openapicheck.Exchange{Method: "POST", URL: "/_mock/reset", Header: keyed(), Status: 204, ResponseHeader: http.Header{}}))
	require.NoError(t, control.Check(t.Context(), openapicheck.Exchange{Method: "GET", URL: "/_mock/openapi.yaml", Status: 200,
		ResponseHeader: http.Header{"Content-Type": {"application/yaml"}}, ResponseBody: []byte("openapi: 3.1.0\n")}))
}

func TestMismatchError(t *testing.T) {
	m := &openapicheck.Mismatch{Operation: "getFolder", Method: "GET", URL: "/v1/folders/fld_1", In: "answer", Field: "body /items/0/sizeBytes", Problem: "got string, want integer"}
	require.Equal(t, "getFolder (GET /v1/folders/fld_1): answer body /items/0/sizeBytes: got string, want integer", m.Error())
}
