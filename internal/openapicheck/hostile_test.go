package openapicheck

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileCheckRefusesHostileAnswers holds the check (fast path and
// kin-openapi alike) to reporting answers that disagree with the
// document: wrong types, extra and missing fields, duplicate keys,
// trailing data, a missing or malformed required header, on GET and HEAD;
// each report names the part of the answer at fault.
func TestHostileCheckRefusesHostileAnswers(t *testing.T) {
	v, err := SharedService()
	require.NoError(t, err, "SharedService")
	key := "00000000-0000-4000-8000-000000000000"
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	req := hdr("X-Api-Key", key)
	body := func(s string) []byte { return []byte(s) }
	tests := []struct {
		name  string
		ex    Exchange
		field string
	}{
		{"report without Content-Disposition", Exchange{Method: "GET", URL: "/v1/analyses/an_1/report", Header: req, Status: 200, ResponseHeader: hdr("Content-Type", "application/pdf"), ResponseBody: body("%PDF-1.4")}, "header Content-Disposition"},
		{"HEAD report without Content-Disposition", Exchange{Method: "HEAD", URL: "/v1/analyses/an_1/report", Header: req, Status: 200, ResponseHeader: hdr("Content-Type", "application/pdf")}, "header Content-Disposition"},
		{"HEAD report with a malformed Content-Disposition", Exchange{Method: "HEAD", URL: "/v1/analyses/an_1/report", Header: req, Status: 200, ResponseHeader: hdr("Content-Type", "application/pdf", "Content-Disposition", "inline")}, "header Content-Disposition"},
		{"undeclared status on HEAD", Exchange{Method: "HEAD", URL: "/v1/analyses/an_1", Header: req, Status: 429, ResponseHeader: hdr("Content-Type", "application/json")}, "status"},
		{"status as a string", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":"404","message":"x"}}`)}, "body /error/status"},
		{"status not the answer's", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":500,"message":"x"}}`)}, "body /error/status"},
		{"fractional status", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404.5,"message":"x"}}`)}, "body /error/status"},
		{"extra field", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404,"message":"x","extra":1}}`)}, "body /error/extra"},
		{"missing field, charset", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json; charset=utf-8"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404}}`)}, "body /error/message"},
		{"missing field, upper-case media type", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "APPLICATION/JSON"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404}}`)}, "body /error/message"},
		{"duplicate key, the last of the wrong type", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404,"message":"x","message":7}}`)}, "body /error/message"},
		{"trailing data", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404,"message":"x"}} x`)}, "body"},
		{"no Content-Type", Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404,"message":"x"}}`)}, "header Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Check(context.Background(), tt.ex)
			require.Error(t, err, "%s: the check let it pass, want a report", tt.name)
			assert.Contains(t, err.Error(), "answer "+tt.field, "%s: the report does not name answer %s, want it named", tt.name, tt.field)
		})
	}
	ok := Exchange{Method: "GET", URL: "/v1/analyses/an_1", Header: req, Status: 404, ResponseHeader: hdr("Content-Type", "application/json"), ResponseBody: body(`{"error":{"code":"ANALYSIS_NOT_FOUND","status":404,"message":"x"}}`)}
	assert.NoError(t, v.Check(context.Background(), ok), "a well-formed 404 is reported, want it accepted")
}
