package openapicheck_test

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"net/textproto"
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

// uploadOf is a multipart/form-data body whose file part has the media
// type given.
func uploadOf(t *testing.T, mediaType, data string) (http.Header, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="document"`)
	h.Set("Content-Type", mediaType)
	fw, err := w.CreatePart(h)
	require.NoError(t, err)
	_, err = fw.Write([]byte(data))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return keyed("Content-Type", w.FormDataContentType()), b.Bytes()
}

func TestCheck(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	upHeader, upBody := upload(t, "file", "PASSPORT", "name", "Passport", "metadata", `{"side":"front"}`)
	noFileHeader, noFileBody := upload(t, "name", "Passport")
	textHeader, textBody := uploadOf(t, "text/plain; charset=utf-8", "PASSPORT")
	pdfHeader, pdfBody := uploadOf(t, "application/pdf", "%PDF-1.7\n\x00\xff")
	jsonFileHeader, jsonFileBody := uploadOf(t, "application/json", `{"full_name":"Jane"}`)
	csvHeader, csvBody := uploadOf(t, "text/csv", "a,\"b\nc")
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
			name: "an upload of a text file",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: textHeader, Body: textBody,
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
		},
		{
			name: "an upload of a PDF",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: pdfHeader, Body: pdfBody,
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
		},
		{
			name: "an upload of a JSON file, its bytes a string",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: jsonFileHeader, Body: jsonFileBody,
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
		},
		{
			name: "an upload of a CSV file that does not parse",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: csvHeader, Body: csvBody,
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
		},
		{
			name: "an upload cut short, accepted",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: upHeader, Body: upBody[:len(upBody)/2],
				Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(itemJSON)},
			want: []want{{"createItem", "request", "body"}},
		},
		{
			name: "an upload cut short, refused",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: upHeader, Body: upBody[:len(upBody)/2],
				Status: 400, ResponseHeader: jsonHeader(), ResponseBody: []byte(errorBody(400, "VALIDATION_ERROR"))},
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
			name: "a path with a trailing slash is not its operation's",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/", Header: keyed(), Status: 404, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(404, "NOT_FOUND"))},
		},
		{
			name: "a path with a trailing slash, answered as its operation",
			ex:   openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(), ResponseBody: []byte(profileJSON)},
			want: []want{{"GET /v1/profiles/pf_1/", "answer", "status"}},
		},
		{
			name: "an unknown route without a key, answered 401 before routing",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Status: 401, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(401, "UNAUTHORIZED"))},
		},
		{
			name: "a method the path does not have, answered 401 before routing",
			ex: openapicheck.Exchange{Method: "OPTIONS", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 401, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(401, "UNAUTHORIZED"))},
		},
		{
			name: "an unknown route, answered 401 with another code",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Status: 401, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(401, "NOT_FOUND"))},
			want: []want{{"GET /v1/nothing", "answer", "body /error/code"}},
		},
		{
			name: "an unknown route, answered 503 before routing",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Header: keyed(), Status: 503, ResponseHeader: jsonHeader("Retry-After", "1"),
				ResponseBody: []byte(errorBody(503, "SERVICE_UNAVAILABLE"))},
		},
		{
			name: "an unknown route, answered 503 without Retry-After",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Header: keyed(), Status: 503, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(503, "SERVICE_UNAVAILABLE"))},
			want: []want{{"GET /v1/nothing", "answer", "header Retry-After"}},
		},
		{
			name: "an unknown route, answered 409",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/nothing", Header: keyed(), Status: 409, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(409, "ANALYSIS_IN_PROGRESS"))},
			want: []want{{"GET /v1/nothing", "answer", "status"}},
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
			want: []want{{"PUT /v1/profiles/{profileId}", "answer", "body /error"}, {"PUT /v1/profiles/{profileId}", "answer", "body /message"}},
		},
		{
			name: "an answer written twice: a value, then an error",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(profileJSON + "\n" + errorBody(500, "INTERNAL_ERROR"))},
			want: []want{{"getProfile", "answer", "body"}},
		},
		{
			name: "a request body of two values, answered 201",
			ex: openapicheck.Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: keyed("Content-Type", "application/json"),
				Body: []byte(`{"name":"Jane"} {"bogus":1}`), Status: 201, ResponseHeader: jsonHeader(), ResponseBody: []byte(createdJSON)},
			want: []want{{"createProfile", "request", "body"}},
		},
		{
			name: "an answer whose Content-Type is not a media type",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/json; charset"}}, ResponseBody: []byte("not json at all")},
			want: []want{{"getProfile", "answer", "header Content-Type"}},
		},
		{
			name: "a report whose Content-Type repeats a parameter",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf; x=1; x=2"}}, ResponseBody: []byte("hello")},
			want: []want{{"downloadReport", "answer", "header Content-Type"}},
		},
		{
			name: "a report whose disposition is written in capitals",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {`Attachment; Filename="analysis_1_report.pdf"`}},
				ResponseBody:   []byte("%PDF-1.7\n")},
		},
		{
			name: "a report whose file name has one quote",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
				ResponseHeader: http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {`attachment; filename="analysis_1_report.pdf`}},
				ResponseBody:   []byte("%PDF-1.7\n")},
			want: []want{{"downloadReport", "answer", "header Content-Disposition"}},
		},
		{
			name: "a parameter given twice, answered 200",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/folders?limit=1&limit=500", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(`{"count":0,"nextCursor":null,"items":[]}`)},
			want: []want{{"listFolders", "request", "query limit"}},
		},
		{
			name: "a parameter given twice, refused",
			ex: openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/folders?limit=1&limit=500", Header: keyed(), Status: 400, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(errorBody(400, "VALIDATION_ERROR"))},
		},
		{
			name: "a path of two leading slashes is under the document's paths",
			ex: openapicheck.Exchange{Method: "GET", URL: "//v1/profiles/pf_1", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
				ResponseBody: []byte(profileJSON)},
			want: []want{{"GET //v1/profiles/pf_1", "answer", "status"}},
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
	t.Parallel()
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
	t.Parallel()
	m := &openapicheck.Mismatch{Operation: "getFolder", Method: "GET", URL: "/v1/folders/fld_1", In: "answer", Field: "body /items/0/sizeBytes", Problem: "got string, want integer"}
	require.Equal(t, "getFolder (GET /v1/folders/fld_1): answer body /items/0/sizeBytes: got string, want integer", m.Error())
}

func TestCheckControl(t *testing.T) {
	t.Parallel()
	v := newControlValidator(t)
	entry := func(body string) string {
		return `{"count":1,"dropped":0,"items":[{"time":"2030-03-01T09:00:01Z","requestId":"req_1","method":"POST","path":"/v1/folders/fld_1/items",` +
			`"header":{"Content-Type":["text/plain"]},` + body + `,"status":201}]}`
	}
	for _, tt := range []struct {
		name string
		ex   openapicheck.Exchange
		want string // the field that disagrees; "" for none
	}{
		{"the health check", openapicheck.Exchange{Method: "GET", URL: "/_mock/health", Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(`{"status":"ok","version":"0.2.0"}`)}, ""},
		{"a JSON body recorded as JSON", openapicheck.Exchange{Method: "GET", URL: "/_mock/requests", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(entry(`"body":{"name":"Jane"}`))}, ""},
		{"a text body recorded as text", openapicheck.Exchange{Method: "GET", URL: "/_mock/requests", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(entry(`"body":"hello","bodyEncoding":"text"`))}, ""},
		{"a body truncated", openapicheck.Exchange{Method: "GET", URL: "/_mock/requests", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(entry(`"body":"aGVsbG8=","bodyEncoding":"base64","bodyTruncated":true,"bodySize":70000`))}, ""},
		{"an encoded body that is not a string", openapicheck.Exchange{Method: "GET", URL: "/_mock/requests", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(entry(`"body":{"name":"Jane"},"bodyEncoding":"text"`))}, "body /items/0/body"},
		{"a body truncated without its size", openapicheck.Exchange{Method: "GET", URL: "/_mock/requests", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(entry(`"body":"aGVsbG8=","bodyEncoding":"base64","bodyTruncated":true`))}, "body /items/0/bodySize"},
		{"a fault that trickles", openapicheck.Exchange{Method: "POST", URL: "/_mock/faults", Header: keyed("Content-Type", "application/json"),
			Body: []byte(`{"path":"/v1/analyses/*/report","truncate":100,"bytesPerSecond":1000}`), Status: 201, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(`{"id":"fault_1","path":"/v1/analyses/*/report","truncate":100,"bytesPerSecond":1000}`)}, ""},
		{"the state written", openapicheck.Exchange{Method: "POST", URL: "/_mock/snapshot", Header: keyed(), Status: 200, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(`{"path":"/tmp/state.json"}`)}, ""},
		{"an unknown path, answered 404 with the error body", openapicheck.Exchange{Method: "GET", URL: "/_mock/nope", Header: keyed(), Status: 404, ResponseHeader: jsonHeader(),
			ResponseBody: []byte(errorBody(404, "NOT_FOUND"))}, ""},
		{"an unknown path, answered 404 with text", openapicheck.Exchange{Method: "GET", URL: "/_mock/nope", Header: keyed(), Status: 404,
			ResponseHeader: http.Header{"Content-Type": {"text/plain"}}, ResponseBody: []byte("garbage")}, "header Content-Type"},
		{"a method the path does not have, answered with a bad body", openapicheck.Exchange{Method: "PUT", URL: "/_mock/reset", Header: keyed(), Status: 405,
			ResponseHeader: jsonHeader(), ResponseBody: []byte(`{"x":1}`)}, "body /error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Check(t.Context(), tt.ex)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			var m *openapicheck.Mismatch
			require.ErrorAs(t, err, &m)
			require.Equal(t, tt.want, m.Field, "%v", err)
		})
	}
}
