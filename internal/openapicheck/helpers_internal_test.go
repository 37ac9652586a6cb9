package openapicheck

// Helpers of the package's internal tests.

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requestCase is an exchange of requestCases, for the service's document
// or, when control is set, the control API's.
type requestCase struct {
	name    string
	control bool
	ex      Exchange
}

// requestCases are requests whose parameters, JSON bodies, multipart
// bodies and answers' headers are checked, each accepted with success
// (so that what the document refuses is reported) and some refused.
func requestCases(t *testing.T) []requestCase {
	t.Helper()
	key := func(kv ...string) http.Header {
		h := http.Header{"X-Api-Key": {"5d0c3a52-1b6e-4f0a-9c1d-2e8f7a6b5c4d"}}
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	jsonAnswer := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
	profile := []byte(`{"id":"pf_1","workflowId":"wf_default","name":"Jane","itemsCount":0,"lastAnalysisAt":null,` +
		`"createdAt":"2030-03-01T09:00:01Z","updatedAt":"2030-03-01T09:00:01Z"}`)
	page := []byte(`{"count":0,"nextCursor":null,"items":[]}`)
	get := func(name, url string) requestCase {
		return requestCase{name: name, ex: Exchange{Method: "GET", URL: url, Header: key(), Status: 200, ResponseHeader: jsonAnswer, ResponseBody: page}}
	}
	post := func(name, url, body string, status int) requestCase {
		return requestCase{name: name, ex: Exchange{Method: "POST", URL: url, Header: key("Content-Type", "application/json"), Body: []byte(body),
			Status: status, ResponseHeader: jsonAnswer, ResponseBody: profile}}
	}
	upload := func(name string, parts ...string) requestCase {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		for i := 0; i+2 < len(parts); i += 3 {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="`+parts[i]+`"; filename="f"`)
			if parts[i+1] != "" {
				h.Set("Content-Type", parts[i+1])
			}
			pw, err := w.CreatePart(h)
			require.NoError(t, err)
			_, err = pw.Write([]byte(parts[i+2]))
			require.NoError(t, err)
		}
		require.NoError(t, w.Close())
		return requestCase{name: name, ex: Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: key("Content-Type", w.FormDataContentType()),
			Body: b.Bytes(), Status: 201, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}}
	}
	report := func(name, query string, header http.Header) requestCase {
		return requestCase{name: name, ex: Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report" + query, Header: key(), Status: 200,
			ResponseHeader: header, ResponseBody: []byte("%PDF-1.7\n")}}
	}
	pdf := func(disposition string) http.Header {
		return http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {disposition}}
	}
	cases := []requestCase{
		get("a page, every parameter given", "/v1/profiles/pf_1/folders?limit=10&sort=name&order=asc&search=x&cursor=c"),
		get("a page, no parameter", "/v1/profiles/pf_1/folders"),
		get("a limit of 0", "/v1/profiles/pf_1/folders?limit=0"),
		get("a limit that is not a number", "/v1/profiles/pf_1/folders?limit=ten"),
		get("a limit given empty", "/v1/profiles/pf_1/folders?limit="),
		get("a limit given twice", "/v1/profiles/pf_1/folders?limit=1&limit=500"),
		get("an empty limit, then a bad one", "/v1/profiles/pf_1/folders?limit=&limit=500"),
		get("a sort not of the list", "/v1/profiles/pf_1/folders?sort=size"),
		get("a search too long", "/v1/profiles/pf_1/folders?search="+strings.Repeat("s", 256)),
		get("two bad parameters", "/v1/workflows/wf_default/profiles?limit=101&order=up"),
		get("a parameter the operation does not have", "/v1/profiles/pf_1/folders?page=2"),
		get("a long poll", "/v1/analyses/analysis_1?waitForReport=true&timeoutSeconds=10"),
		get("a long poll too short", "/v1/analyses/analysis_1?waitForReport=yes&timeoutSeconds=5"),
		get("an escaped path parameter", "/v1/profiles/pf%201"),
		{name: "no API key", ex: Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Status: 200, ResponseHeader: jsonAnswer, ResponseBody: profile}},
		{name: "no API key, refused", ex: Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Status: 401, ResponseHeader: jsonAnswer,
			ResponseBody: []byte(`{"error":{"code":"UNAUTHORIZED","status":401,"message":"m"}}`)}},
		post("a profile", "/v1/workflows/wf_default/profiles", `{"name":"Jane","description":null,"metadata":{"a":1}}`, 201),
		post("a profile of a field too many", "/v1/workflows/wf_default/profiles", `{"name":"Jane","nickname":"J"}`, 201),
		post("a profile without a name", "/v1/workflows/wf_default/profiles", `{"description":"d"}`, 201),
		post("a profile of a blank name", "/v1/workflows/wf_default/profiles", `{"name":"   "}`, 201),
		post("a profile of a name too long", "/v1/workflows/wf_default/profiles", `{"name":"`+strings.Repeat("n", 256)+`"}`, 201),
		post("a profile of wrong types", "/v1/workflows/wf_default/profiles", `{"name":5,"description":[],"metadata":"m"}`, 201),
		post("a profile, refused", "/v1/workflows/wf_default/profiles", `{"name":5}`, 400),
		post("an empty body", "/v1/workflows/wf_default/profiles", ``, 201),
		post("a body that is not JSON", "/v1/workflows/wf_default/profiles", `name=Jane`, 201),
		post("a body of two values", "/v1/workflows/wf_default/profiles", `{"name":"Jane"} {"name":"Joe"}`, 201),
		post("a text item", "/v1/folders/fld_1/items", `{"type":"text","name":"Note","content":"hello"}`, 201),
		post("an item of no type", "/v1/folders/fld_1/items", `{"type":"pdf","content":5}`, 201),
		post("an analysis", "/v1/analyses/pf_1/analyze", `{"targetItems":[{"itemId":"item_1"}],"options":null}`, 202),
		post("an analysis of no items", "/v1/analyses/pf_1/analyze", `{"targetItems":[]}`, 202),
		post("an analysis of bad items", "/v1/analyses/pf_1/analyze", `{"targetItems":[{},{"itemId":""},{"itemId":"i","x":1}]}`, 202),
		{name: "a body of another media type", ex: Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: key("Content-Type", "text/plain"),
			Body: []byte(`{"name":"Jane"}`), Status: 201, ResponseHeader: jsonAnswer, ResponseBody: profile}},
		{name: "an item's metadata set to null", ex: Exchange{Method: "PATCH", URL: "/v1/items/item_1", Header: key("Content-Type", "application/json; charset=utf-8"),
			Body: []byte(`{"metadata":null}`), Status: 200, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		upload("an upload", "file", "text/plain", "PASSPORT", "name", "", "Passport", "metadata", "", `{"side":"front"}`),
		upload("an upload of a JSON file", "file", "application/json", `{"a":1}`),
		upload("an upload without its file", "name", "", "Passport"),
		upload("an upload of an unknown part", "file", "", "x", "colour", "", "red"),
		report("a report", "?locale=ko&includeRawData=true", pdf(`attachment; filename="analysis_analysis_1_report.pdf"`)),
		report("a report of a locale not of the list", "?locale=fr&includeRawData=maybe", pdf(`attachment; filename="analysis_analysis_1_report.pdf"`)),
		report("a report of a bad disposition", "", pdf(`inline`)),
		report("a report without its disposition", "", http.Header{"Content-Type": {"application/pdf"}}),
		{name: "a 503 with Retry-After", ex: Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Header: key(), Status: 503,
			ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"1"}},
			ResponseBody:   []byte(`{"error":{"code":"SERVICE_UNAVAILABLE","status":503,"message":"m"}}`)}},
		{name: "a 503 with a bad Retry-After", ex: Exchange{Method: "GET", URL: "/v1/profiles/pf_1", Header: key(), Status: 503,
			ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"soon"}},
			ResponseBody:   []byte(`{"error":{"code":"SERVICE_UNAVAILABLE","status":503,"message":"m"}}`)}},
		{name: "an unknown path, answered 503 with a bad Retry-After", ex: Exchange{Method: "GET", URL: "/v1/nothing", Header: key(), Status: 503,
			ResponseHeader: http.Header{"Content-Type": {"application/json"}, "Retry-After": {"later"}},
			ResponseBody:   []byte(`{"error":{"code":"SERVICE_UNAVAILABLE","status":503,"message":"m"}}`)}},
		{name: "HEAD", ex: Exchange{Method: "HEAD", URL: "/v1/profiles/pf_1?limit=0", Header: key(), Status: 200, ResponseHeader: jsonAnswer}},
	}
	control := []requestCase{
		{name: "a workflow", ex: Exchange{Method: "POST", URL: "/_mock/workflows", Header: key("Content-Type", "application/json"),
			Body: []byte(`{"id":"wf_kyc","name":"KYC","policy":[{"actionName":"a","category":"c"}]}`), Status: 201, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		// One error each: of several, kin-openapi reports one, which
		// one depends on the order of a map.
		{name: "a workflow of an ID too short", ex: Exchange{Method: "POST", URL: "/_mock/workflows", Header: key("Content-Type", "application/json"),
			Body: []byte(`{"id":"wf_"}`), Status: 201, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		{name: "a workflow of an action without its category", ex: Exchange{Method: "POST", URL: "/_mock/workflows", Header: key("Content-Type", "application/json"),
			Body: []byte(`{"id":"wf_kyc","policy":[{"actionName":"a"}]}`), Status: 201, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		{name: "a seed", ex: Exchange{Method: "POST", URL: "/_mock/seed", Header: key("Content-Type", "application/json"),
			Body:   []byte(`{"profiles":[{"name":"Jane","folders":[{"name":"default","default":true,"items":[{"type":"text","content":"hi"}]}]}]}`),
			Status: 200, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		{name: "a bad seed", ex: Exchange{Method: "POST", URL: "/_mock/seed", Header: key("Content-Type", "application/json"),
			Body: []byte(`{"profiles":[{"id":"x","folders":[{"items":[{"type":"pdf"}]}]}]}`), Status: 200, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		{name: "a fault with its ID", ex: Exchange{Method: "POST", URL: "/_mock/faults", Header: key("Content-Type", "application/json"),
			Body: []byte(`{"id":"fault_9","status":503,"delayMs":-1}`), Status: 201, ResponseHeader: jsonAnswer, ResponseBody: []byte(`{}`)}},
		{name: "a fault removed", ex: Exchange{Method: "DELETE", URL: "/_mock/faults/fault_1", Header: key(), Status: 204, ResponseHeader: http.Header{}}},
	}
	for _, c := range control {
		c.control = true
		cases = append(cases, c)
	}
	return cases
}
