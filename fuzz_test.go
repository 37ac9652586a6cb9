package profilesvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// apiKeyForms are the API keys FuzzAPIError masks: the service's UUID
// form, and a key made of characters that JSON encoders and HTML escape
// (a server written with encoding/json sends "&" as \u0026).
var apiKeyForms = []string{
	"3f0c8a7e-5b1d-4c2e-9a6f-7d8e9f0a1b2c",
	"sk_live&<Key>+/=\"Quote'",
}

// FuzzAPIError feeds newAPIError arbitrary statuses, headers and bodies,
// with an API key inserted into the body at an arbitrary place (or not):
// it never panics, its error text is never empty, it keeps the status, and
// the key never appears in the error text or the kept body, whatever form
// the server echoed it in.
func FuzzAPIError(f *testing.F) {
	f.Add(503, "application/json", "", []byte(`{"error":{"code":"SERVICE_UNAVAILABLE","status":503,"message":"down"}}`), byte(0), uint16(0xFFFF))
	f.Add(401, "application/json", "", []byte(`{"error":{"code":"UNAUTHORIZED","status":401,"message":"invalid API key "}}`), byte(0), uint16(66))
	f.Add(429, "text/plain", "3", []byte("slow down"), byte(1), uint16(0))
	f.Add(502, "text/html; charset=utf-8", "", []byte("<html><body><h1>Bad Gateway</h1></body></html>"), byte(0), uint16(19))
	f.Add(404, "", "Wed, 21 Oct 2015 07:28:00 GMT", []byte{}, byte(0), uint16(0xFFFF))
	f.Add(0, "application/octet-stream", "-1", []byte{0xff, 0xfe, 0x00}, byte(1), uint16(2))
	f.Add(-7, "application/json", "99999999999999999999", []byte(`{"error":null}`), byte(0), uint16(0xFFFF))
	f.Fuzz(func(t *testing.T, status int, contentType, retryAfter string, body []byte, which byte, at uint16) {
		secret := apiKeyForms[int(which)%len(apiKeyForms)]
		if at != 0xFFFF {
			i := int(at) % (len(body) + 1)
			body = append(append(append([]byte(nil), body[:i]...), secret...), body[i:]...)
		}
		h := http.Header{}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		original := append([]byte(nil), body...)
		e := newAPIError(status, h, body, newSecret(secret))
		msg := e.Error()
		require.NotEmpty(t, strings.TrimSpace(msg), "Error() is empty")
		require.Equal(t, status, e.StatusCode, "StatusCode")
		require.NotContains(t, msg, secret, "the API key is in the error text (body %q)", original)
		require.False(t, bytes.Contains(e.Body, []byte(secret)), "the API key is in the kept body %q", e.Body)
		require.NotContains(t, e.Code, secret, "the API key is in the code")
		require.GreaterOrEqual(t, e.RetryAfter, time.Duration(0), "RetryAfter")
		require.Equal(t, status >= 500, errors.Is(e, ErrServer), "errors.Is(ErrServer) for status %d", status)
		require.True(t, bytes.Equal(body, original), "newAPIError changed the caller's body")
	})
}

// FuzzDecodeAnalysis unmarshals arbitrary bytes into every type the SDK
// decodes answers into, and calls their accessors on whatever decoded:
// nothing panics.
func FuzzDecodeAnalysis(f *testing.F) {
	f.Add([]byte(`{"id":"analysis_1","profileId":"pf_1","status":"completed","primaryReportId":"rpt_1","requestedAt":"2030-01-01T00:00:00Z","createdAt":"2030-01-01T00:00:00Z","extractedData":{"review_result":{"final_action":"approve"},"extracted_values":{"full_name":"Jane"},"category_judgements":{"full_name_check_result":"pass","full_name_check_reason":"ok"},"document_validations":{"passport_is_valid":true,"passport_is_valid_reason":"ok"},"policy_flags":["x"],"recommended_next_steps":[],"request_id":"pf_1"}}`))
	f.Add([]byte(`{"extractedData":{"category_judgements":{"_check_result":1},"document_validations":{"_is_valid":"yes"},"review_result":[]}}`))
	f.Add([]byte(`{"id":"item_1","type":"text","content":"hello","metadata":{"a":[1,{"b":null}]},"detected":{"contentType":"text/plain"}}`))
	f.Add([]byte(`{"id":"pf_1","folders":[{"id":"fld_1","isDefault":true,"items":[{"id":"item_1","sizeBytes":null}]}],"lastAnalysisAt":null}`))
	f.Add([]byte(`{"count":1,"nextCursor":"abc","items":[{"id":"fld_1"}]}`))
	f.Add([]byte(`{"createdAt":"0000-01-01T00:00:00+23:59","completedAt":"9999-12-31T23:59:59.999999999Z"}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a Analysis
		if json.Unmarshal(data, &a) == nil {
			_ = a.Done()
			var v any
			_ = a.DecodeExtractedData(&v)
			_ = a.DecodeOutputSchema(&v)
			d := a.ExtractedData
			_, _ = d.ReviewResult()
			_, _ = d.ExtractedValues()
			if cj, err := d.CategoryJudgements(); err == nil && cj != nil {
				_ = cj.Fields()
				_, _ = json.Marshal(cj)
			}
			if dv, err := d.DocumentValidations(); err == nil {
				_, _ = json.Marshal(dv)
			}
			_, _ = d.PolicyFlags()
			_, _ = d.RecommendedNextSteps()
			_, _ = d.RequestID()
			_, _ = json.Marshal(&a)
		}
		var p Profile
		if json.Unmarshal(data, &p) == nil {
			_ = p.DefaultFolder()
			_, _ = json.Marshal(&p)
		}
		var fo Folder
		if json.Unmarshal(data, &fo) == nil {
			_, _ = json.Marshal(&fo)
		}
		var it Item
		if json.Unmarshal(data, &it) == nil {
			_, _ = it.Text()
			var v any
			_ = it.DecodeContent(&v)
			_, _ = json.Marshal(&it)
		}
		var page Page[Folder]
		_ = json.Unmarshal(data, &page)
		var cj CategoryJudgements
		_ = json.Unmarshal(data, &cj)
		var dv DocumentValidations
		_ = json.Unmarshal(data, &dv)
	})
}
