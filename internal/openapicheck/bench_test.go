package openapicheck_test

// BenchmarkCheckRequest measures Check on exchanges whose requests carry
// what a check decodes and validates: path and query parameters, a JSON
// body, a multipart upload, and an answer's header of a pattern. Without
// a server, so that the figures are the check's alone.
//
//	go test -run '^$' -bench BenchmarkCheckRequest -benchmem ./internal/openapicheck

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

func BenchmarkCheckRequest(b *testing.B) {
	v, err := openapicheck.New()
	require.NoError(b, err)
	var up bytes.Buffer
	w := multipart.NewWriter(&up)
	fw, err := w.CreateFormFile("file", "passport.txt")
	require.NoError(b, err)
	_, err = fw.Write([]byte("PASSPORT"))
	require.NoError(b, err)
	require.NoError(b, w.WriteField("name", "Passport"))
	require.NoError(b, w.WriteField("metadata", `{"side":"front"}`))
	require.NoError(b, w.Close())
	for _, bb := range []struct {
		name string
		ex   openapicheck.Exchange
	}{
		{"parameters", openapicheck.Exchange{Method: "GET", URL: "/v1/profiles/pf_1/folders?limit=10&sort=name&order=asc&search=x", Header: keyed(),
			Status: 200, ResponseHeader: jsonHeader("X-Request-Id", "req_1"), ResponseBody: []byte(`{"count":0,"nextCursor":null,"items":[]}`)}},
		{"JSON body", openapicheck.Exchange{Method: "POST", URL: "/v1/workflows/wf_default/profiles", Header: keyed("Content-Type", "application/json"),
			Body: []byte(`{"name":"Jane","metadata":{"customerRef":"CUST-1"}}`), Status: 201, ResponseHeader: jsonHeader("X-Request-Id", "req_1"), ResponseBody: []byte(createdJSON)}},
		{"multipart", openapicheck.Exchange{Method: "POST", URL: "/v1/folders/fld_1/items", Header: keyed("Content-Type", w.FormDataContentType()), Body: up.Bytes(),
			Status: 201, ResponseHeader: jsonHeader("X-Request-Id", "req_1"), ResponseBody: []byte(itemJSON)}},
		{"answer header", openapicheck.Exchange{Method: "GET", URL: "/v1/analyses/analysis_1/report", Header: keyed(), Status: 200,
			ResponseHeader: http.Header{"Content-Type": {"application/pdf"}, "Content-Disposition": {`attachment; filename="analysis_analysis_1_report.pdf"`}},
			ResponseBody:   []byte("%PDF-1.7\n")}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			require.NoError(b, v.Check(b.Context(), bb.ex))
			b.ReportAllocs()
			for b.Loop() {
				if err := v.Check(b.Context(), bb.ex); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
