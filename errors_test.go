package profilesvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// errorsTestSentinel names a sentinel error for readable failures.
type errorsTestSentinel struct {
	name string
	err  error
}

// errorsTestAllSentinels is every sentinel the package exports.
var errorsTestAllSentinels = []errorsTestSentinel{
	{"ErrUnauthorized", ErrUnauthorized},
	{"ErrInvalidItemIDs", ErrInvalidItemIDs},
	{"ErrReportNotAvailable", ErrReportNotAvailable},
	{"ErrCannotModifyDefaultFolder", ErrCannotModifyDefaultFolder},
	{"ErrCannotDeleteDefaultFolder", ErrCannotDeleteDefaultFolder},
	{"ErrProfileNotFound", ErrProfileNotFound},
	{"ErrFolderNotFound", ErrFolderNotFound},
	{"ErrItemNotFound", ErrItemNotFound},
	{"ErrAnalysisNotFound", ErrAnalysisNotFound},
	{"ErrAnalysisInProgress", ErrAnalysisInProgress},
	{"ErrValidation", ErrValidation},
	{"ErrWorkflowNotFound", ErrWorkflowNotFound},
	{"ErrMethodNotAllowed", ErrMethodNotAllowed},
	{"ErrUnsupportedMediaType", ErrUnsupportedMediaType},
	{"ErrPayloadTooLarge", ErrPayloadTooLarge},
	{"ErrRateLimited", ErrRateLimited},
	{"ErrServiceUnavailable", ErrServiceUnavailable},
	{"ErrNotFound", ErrNotFound},
	{"ErrServer", ErrServer},
	{"ErrAnalysisFailed", ErrAnalysisFailed},
	{"ErrWaitTimeout", ErrWaitTimeout},
	{"ErrInvalidID", ErrInvalidID},
	{"ErrNotPDF", ErrNotPDF},
}

// errorsTestBody is the service's error JSON for code and status.
func errorsTestBody(code string, status int, message string) []byte {
	return []byte(`{"error":{"code":"` + code + `","status":` + strconv.Itoa(status) + `,"message":"` + message + `"}}`)
}

// errorsTestAssertMatches checks that err matches exactly the sentinels in
// want, and no other sentinel of the package.
func errorsTestAssertMatches(t *testing.T, err error, want ...error) {
	t.Helper()
	for _, s := range errorsTestAllSentinels {
		expected := false
		for _, w := range want {
			if w == s.err {
				expected = true
			}
		}
		tAssert.Equal(t, expected, errors.Is(err, s.err), "errors.Is(%v, %s)", err, s.name)
	}
}

func TestAPIError_ErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  *APIError
		want string
	}{
		{
			name: "code message and call",
			err:  &APIError{StatusCode: 409, Code: CodeAnalysisInProgress, Message: "an analysis is running", Method: "POST", Path: "/v1/analyses/pf_1/analyze", Attempts: 1},
			want: "profilesvc: 409 ANALYSIS_IN_PROGRESS: an analysis is running (POST /v1/analyses/pf_1/analyze)",
		},
		{
			name: "several attempts",
			err:  &APIError{StatusCode: 503, Code: CodeServiceUnavailable, Message: "down", Method: "GET", Path: "/v1/analyses/a", Attempts: 4},
			want: "profilesvc: 503 SERVICE_UNAVAILABLE: down (GET /v1/analyses/a, 4 attempts)",
		},
		{
			name: "no code",
			err:  &APIError{StatusCode: 502, Message: "Bad Gateway (empty body)"},
			want: "profilesvc: 502: Bad Gateway (empty body)",
		},
		{
			name: "status only",
			err:  &APIError{StatusCode: 500},
			want: "profilesvc: 500",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tAssert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

func TestAPIError_ErrorFormatEndToEnd(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respondError(w, http.StatusConflict, CodeAnalysisInProgress, "an analysis is already running")
	})
	_, err := srv.client(t).StartAnalysis(context.Background(), "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
	tRequire.Error(t, err)
	tAssert.True(t, strings.HasPrefix(err.Error(), "profilesvc: 409 ANALYSIS_IN_PROGRESS: an analysis is already running ("),
		"error %q", err.Error())
	tAssert.Contains(t, err.Error(), "POST /v1/analyses/pf_1/analyze")
	tAssert.ErrorIs(t, err, ErrAnalysisInProgress)
	tAssert.Len(t, srv.requests(), 1)
}

func TestAPIError_IsSentinelOfEveryCode(t *testing.T) {
	tests := []struct {
		code   string
		status int
		want   []error
	}{
		{CodeUnauthorized, 401, []error{ErrUnauthorized}},
		{CodeInvalidItemIDs, 400, []error{ErrInvalidItemIDs}},
		{CodeReportNotAvailable, 400, []error{ErrReportNotAvailable}},
		{CodeCannotModifyDefaultFolder, 400, []error{ErrCannotModifyDefaultFolder}},
		{CodeCannotDeleteDefaultFolder, 400, []error{ErrCannotDeleteDefaultFolder}},
		{CodeProfileNotFound, 404, []error{ErrProfileNotFound, ErrNotFound}},
		{CodeFolderNotFound, 404, []error{ErrFolderNotFound, ErrNotFound}},
		{CodeItemNotFound, 404, []error{ErrItemNotFound, ErrNotFound}},
		{CodeAnalysisNotFound, 404, []error{ErrAnalysisNotFound, ErrNotFound}},
		{CodeAnalysisInProgress, 409, []error{ErrAnalysisInProgress}},
		{CodeProfileNotFoundSVC, 404, []error{ErrProfileNotFound, ErrNotFound}},
		{CodeFolderNotFoundSVC, 404, []error{ErrFolderNotFound, ErrNotFound}},
		{CodeValidation, 400, []error{ErrValidation}},
		{CodeWorkflowNotFound, 404, []error{ErrWorkflowNotFound, ErrNotFound}},
		{CodeNotFound, 404, []error{ErrNotFound}},
		{CodeMethodNotAllowed, 405, []error{ErrMethodNotAllowed}},
		{CodeUnsupportedMediaType, 415, []error{ErrUnsupportedMediaType}},
		{CodePayloadTooLarge, 413, []error{ErrPayloadTooLarge}},
		{CodeRateLimited, 429, []error{ErrRateLimited}},
		{CodeInternal, 500, []error{ErrServer}},
		{CodeServiceUnavailable, 503, []error{ErrServiceUnavailable, ErrServer}},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			e := newAPIError(tt.status, http.Header{}, errorsTestBody(tt.code, tt.status, "msg"), "")
			tAssert.Equal(t, tt.code, e.Code, "Code keeps the raw code")
			tAssert.Equal(t, tt.status, e.StatusCode)
			tAssert.Equal(t, "msg", e.Message)
			errorsTestAssertMatches(t, e, tt.want...)
			// Wrapping keeps the matches.
			errorsTestAssertMatches(t, fmt.Errorf("call: %w", e), tt.want...)
		})
	}
}

func TestAPIError_SVCCodesEndToEnd(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		call     func(c *Client) error
		sentinel error
	}{
		{
			name: "list folders SVC_3005",
			code: CodeProfileNotFoundSVC,
			call: func(c *Client) error {
				_, err := c.ListFoldersPage(context.Background(), "pf_missing", nil)
				return err
			},
			sentinel: ErrProfileNotFound,
		},
		{
			name: "get folder SVC_3009",
			code: CodeFolderNotFoundSVC,
			call: func(c *Client) error {
				_, err := c.GetFolder(context.Background(), "fd_missing")
				return err
			},
			sentinel: ErrFolderNotFound,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				respondError(w, http.StatusNotFound, tt.code, "not here")
			})
			err := tt.call(srv.client(t))
			tRequire.Error(t, err)
			tAssert.ErrorIs(t, err, tt.sentinel)
			tAssert.ErrorIs(t, err, ErrNotFound)
			var apiErr *APIError
			tRequire.ErrorAs(t, err, &apiErr)
			tAssert.Equal(t, tt.code, apiErr.Code)
			tAssert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
			tAssert.Len(t, srv.requests(), 1, "a 404 is not retried")
		})
	}
}

func TestAPIError_StatusFallback(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
		want   []error
	}{
		{"unknown code 404", 404, "SOMETHING_NEW", []error{ErrNotFound}},
		{"unknown code 401", 401, "KEY_REVOKED", []error{ErrUnauthorized}},
		{"unknown code 405", 405, "NOPE", []error{ErrMethodNotAllowed}},
		{"unknown code 413", 413, "TOO_BIG", []error{ErrPayloadTooLarge}},
		{"unknown code 415", 415, "BAD_TYPE", []error{ErrUnsupportedMediaType}},
		{"unknown code 429", 429, "SLOW_DOWN", []error{ErrRateLimited}},
		{"unknown code 500", 500, "DB_DOWN", []error{ErrServer}},
		{"unknown code 502", 502, "UPSTREAM", []error{ErrServer}},
		{"unknown code 503", 503, "MAINTENANCE", []error{ErrServiceUnavailable, ErrServer}},
		{"unknown code 504", 504, "UPSTREAM_TIMEOUT", []error{ErrServer}},
		{"unknown code 400", 400, "WHATEVER", nil},
		{"unknown code 418", 418, "TEAPOT", nil},
		{"no code 404", 404, "", []error{ErrNotFound}},
		{"named code with other 404", 404, CodeAnalysisInProgress, []error{ErrAnalysisInProgress, ErrNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newAPIError(tt.status, http.Header{}, errorsTestBody(tt.code, tt.status, "m"), "")
			errorsTestAssertMatches(t, e, tt.want...)
		})
	}
}

func TestAPIError_AsGivesDetails(t *testing.T) {
	body := `{"error":{"code":"RATE_LIMITED","status":429,"message":"slow down"}}`
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_abc123")
		w.Header().Set("Retry-After", "120")
		respond(w, http.StatusTooManyRequests, body)
	})
	_, err := srv.client(t).GetProfile(context.Background(), "pf_1")
	tRequire.Error(t, err)

	var apiErr *APIError
	tRequire.ErrorAs(t, err, &apiErr)
	want := &APIError{
		StatusCode: http.StatusTooManyRequests,
		Code:       CodeRateLimited,
		Message:    "slow down",
		Body:       []byte(body),
		RequestID:  "req_abc123",
		RetryAfter: 120 * time.Second,
		Method:     http.MethodGet,
		Path:       "/v1/profiles/pf_1",
		Attempts:   1,
	}
	if diff := cmp.Diff(want, apiErr); diff != "" {
		t.Errorf("APIError mismatch (-want +got):\n%s", diff)
	}
	tAssert.ErrorIs(t, err, ErrRateLimited)
}

func TestAPIError_MasksSecret(t *testing.T) {
	const secret = "secret-key-123"
	tests := []struct {
		name        string
		contentType string
		body        string
	}{
		{"json message", "application/json", `{"error":{"code":"UNAUTHORIZED","status":401,"message":"key secret-key-123 revoked"}}`},
		{"html page", "text/html", "<p>bad key secret-key-123</p>"},
		{"plain text twice", "text/plain", "secret-key-123 secret-key-123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			h.Set("Content-Type", tt.contentType)
			e := newAPIError(http.StatusUnauthorized, h, []byte(tt.body), secret)
			tAssert.NotContains(t, e.Error(), secret)
			tAssert.NotContains(t, e.Message, secret)
			tAssert.NotContains(t, string(e.Body), secret)
			tAssert.ErrorIs(t, e, ErrUnauthorized)
		})
	}
}

func TestAPIError_RequestIDCaseInsensitive(t *testing.T) {
	h := http.Header{}
	h.Set("x-request-id", "req_lower")
	e := newAPIError(404, h, errorsTestBody(CodeItemNotFound, 404, "gone"), "")
	tAssert.Equal(t, "req_lower", e.RequestID)
}

func TestAPIError_NonJSONBodies(t *testing.T) {
	const html = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.25.3</center>
</body>
</html>`
	binary := make([]byte, 300)
	for i := range binary {
		binary[i] = byte(i)
	}
	tests := []struct {
		name        string
		status      int
		contentType string
		body        []byte
		sentinels   []error
		// wantInMessage are substrings the message must hold.
		wantInMessage []string
	}{
		{
			name: "html from a proxy", status: 502, contentType: "text/html", body: []byte(html),
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"Bad Gateway", "nginx/1.25.3"},
		},
		{
			name: "empty body", status: 500, contentType: "",
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"Internal Server Error", "empty"},
		},
		{
			name: "whitespace body", status: 404, contentType: "application/json", body: []byte(" \n\t "),
			sentinels:     []error{ErrNotFound},
			wantInMessage: []string{"Not Found", "empty"},
		},
		{
			name: "binary body", status: 503, contentType: "application/octet-stream", body: binary,
			sentinels:     []error{ErrServiceUnavailable, ErrServer},
			wantInMessage: []string{"Service Unavailable", "300-byte", "application/octet-stream"},
		},
		{
			name: "binary without content type", status: 400, body: binary,
			wantInMessage: []string{"Bad Request", "300-byte"},
		},
		{
			name: "plain text", status: 401, contentType: "text/plain; charset=utf-8", body: []byte("Unauthorized: bad key\n"),
			sentinels:     []error{ErrUnauthorized},
			wantInMessage: []string{"Unauthorized", "bad key"},
		},
		{
			name: "json without the envelope", status: 400, contentType: "application/json", body: []byte(`{"message":"missing name"}`),
			wantInMessage: []string{"Bad Request", "missing name"},
		},
		{
			name: "error as a string", status: 409, contentType: "application/json", body: []byte(`{"error":"conflict"}`),
			wantInMessage: []string{"Conflict", "conflict"},
		},
		{
			name: "truncated json", status: 500, contentType: "application/json", body: []byte(`{"error":{"code":"INTER`),
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"Internal Server Error"},
		},
		{
			name: "invalid utf8 text", status: 502, contentType: "text/plain", body: []byte{0xff, 0xfe, 'o', 'k', 0xc3},
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"Bad Gateway"},
		},
		{
			name: "unclosed tag", status: 504, contentType: "text/html", body: []byte("<html<<<"),
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"Gateway Timeout"},
		},
		{
			name: "unknown status", status: 599, contentType: "text/plain", body: []byte("odd"),
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"odd"},
		},
		{
			name: "long text", status: 500, contentType: "text/plain", body: []byte(strings.Repeat("a very long line ", 10000)),
			sentinels:     []error{ErrServer},
			wantInMessage: []string{"Internal Server Error", "a very long line"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.contentType != "" {
				h.Set("Content-Type", tt.contentType)
			}
			var e *APIError
			tRequire.NotPanics(t, func() { e = newAPIError(tt.status, h, tt.body, "") })
			tAssert.Equal(t, tt.status, e.StatusCode)
			tAssert.Empty(t, e.Code)
			tAssert.Equal(t, tt.body, e.Body)
			tRequire.NotEmpty(t, e.Message)
			for _, s := range tt.wantInMessage {
				tAssert.Contains(t, e.Message, s)
			}
			tAssert.Less(t, len(e.Message), 1000, "the message is an excerpt, not the whole body")
			tAssert.True(t, strings.HasPrefix(e.Error(), "profilesvc: "+strconv.Itoa(tt.status)+": "), "Error() = %q", e.Error())
			errorsTestAssertMatches(t, e, tt.sentinels...)
		})
	}
}

func TestAPIError_NonJSONBodiesEndToEnd(t *testing.T) {
	const html = `<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>`
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		wantInMsg   string
	}{
		{"html 502 from a proxy", 502, "text/html", html, "Bad Gateway"},
		{"empty 500", 500, "", "", "empty body"},
		{"binary 400", 400, "application/octet-stream", "\x00\x01\x02\xff", "4-byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.contentType != "" {
					w.Header().Set("Content-Type", tt.contentType)
				}
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			var err error
			tRequire.NotPanics(t, func() {
				_, err = srv.client(t, WithMaxRetries(0)).GetProfile(context.Background(), "pf_1")
			})
			var apiErr *APIError
			tRequire.ErrorAs(t, err, &apiErr)
			tAssert.Equal(t, tt.status, apiErr.StatusCode)
			tAssert.Equal(t, []byte(tt.body), apiErr.Body)
			tAssert.Contains(t, apiErr.Message, tt.wantInMsg)
			tAssert.Contains(t, err.Error(), strconv.Itoa(tt.status))
		})
	}
}

func TestAPIError_BodyIsBounded(t *testing.T) {
	big := strings.Repeat("x", 200<<10)
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(big))
	})
	_, err := srv.client(t).GetProfile(context.Background(), "pf_1")
	var apiErr *APIError
	tRequire.ErrorAs(t, err, &apiErr)
	tAssert.LessOrEqual(t, len(apiErr.Body), 64<<10)
	tAssert.NotEmpty(t, apiErr.Body)
}

func TestAPIError_RetryAfterParsed(t *testing.T) {
	tests := []struct {
		name  string
		value string
		min   time.Duration
		max   time.Duration
	}{
		{"seconds", "30", 30 * time.Second, 30 * time.Second},
		{"none", "", 0, 0},
		{"garbage", "soon", 0, 0},
		{"http date", time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat), 80 * time.Second, 91 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.value != "" {
				h.Set("Retry-After", tt.value)
			}
			e := newAPIError(http.StatusServiceUnavailable, h, nil, "")
			tAssert.GreaterOrEqual(t, e.RetryAfter, tt.min)
			tAssert.LessOrEqual(t, e.RetryAfter, tt.max)
		})
	}
}

func TestAnalysisFailedError(t *testing.T) {
	tests := []struct {
		name string
		err  *AnalysisFailedError
		want string
	}{
		{"with reason", &AnalysisFailedError{AnalysisID: "analysis_1", Reason: "unreadable document"}, "profilesvc: analysis analysis_1 failed: unreadable document"},
		{"without reason", &AnalysisFailedError{AnalysisID: "analysis_2"}, "profilesvc: analysis analysis_2 failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tAssert.Equal(t, tt.want, tt.err.Error())
			wrapped := fmt.Errorf("wait: %w", tt.err)
			errorsTestAssertMatches(t, wrapped, ErrAnalysisFailed)
			var got *AnalysisFailedError
			tRequire.ErrorAs(t, wrapped, &got)
			tAssert.Equal(t, tt.err, got)
		})
	}
}

// ---- assertions ----
//
// tAssert and tRequire are a small stand-in for testify's assert and
// require, with the same method names and argument order, for the test
// files of this package that use them. (testify cannot be built with this
// module's go.mod as it stands: its assert package needs
// go.yaml.in/yaml/v3, which go.mod does not list.) A tAssert failure marks
// the test failed and goes on; a tRequire failure stops the test.

type tCheck struct{ fatal bool }

var (
	tAssert  = tCheck{}
	tRequire = tCheck{fatal: true}
)

// fail reports a failed check with the caller's optional message.
func (c tCheck) fail(t testing.TB, what string, msgAndArgs []any) bool {
	t.Helper()
	msg := ""
	if len(msgAndArgs) > 0 {
		if format, ok := msgAndArgs[0].(string); ok {
			msg = fmt.Sprintf(format, msgAndArgs[1:]...)
		} else {
			msg = fmt.Sprint(msgAndArgs...)
		}
		msg = "\n\tmessage: " + msg
	}
	if c.fatal {
		t.Fatalf("%s%s", what, msg)
	} else {
		t.Errorf("%s%s", what, msg)
	}
	return false
}

// tDiff describes how want and got differ.
func tDiff(want, got any) (s string) {
	defer func() {
		if recover() != nil {
			s = fmt.Sprintf("want: %#v\n\tgot:  %#v", want, got)
		}
	}()
	if w, ok := want.([]byte); ok {
		if g, ok := got.([]byte); ok {
			return fmt.Sprintf("want: %q\n\tgot:  %q", w, g)
		}
	}
	if ws, ok := want.(string); ok {
		if gs, ok := got.(string); ok {
			return fmt.Sprintf("want: %q\n\tgot:  %q", ws, gs)
		}
	}
	return fmt.Sprintf("(-want +got):\n%s", cmp.Diff(want, got))
}

func tEqual(want, got any) bool {
	if w, ok := want.([]byte); ok {
		g, ok := got.([]byte)
		return ok && bytes.Equal(w, g)
	}
	return reflect.DeepEqual(want, got)
}

func (c tCheck) Equal(t testing.TB, want, got any, msgAndArgs ...any) bool {
	t.Helper()
	if !tEqual(want, got) {
		return c.fail(t, "not equal: "+tDiff(want, got), msgAndArgs)
	}
	return true
}

func (c tCheck) NotEqual(t testing.TB, notWant, got any, msgAndArgs ...any) bool {
	t.Helper()
	if tEqual(notWant, got) {
		return c.fail(t, fmt.Sprintf("should not be %#v", got), msgAndArgs)
	}
	return true
}

func (c tCheck) True(t testing.TB, v bool, msgAndArgs ...any) bool {
	t.Helper()
	if !v {
		return c.fail(t, "should be true", msgAndArgs)
	}
	return true
}

func (c tCheck) False(t testing.TB, v bool, msgAndArgs ...any) bool {
	t.Helper()
	if v {
		return c.fail(t, "should be false", msgAndArgs)
	}
	return true
}

func tIsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

func (c tCheck) Nil(t testing.TB, v any, msgAndArgs ...any) bool {
	t.Helper()
	if !tIsNil(v) {
		return c.fail(t, fmt.Sprintf("should be nil: %#v", v), msgAndArgs)
	}
	return true
}

func (c tCheck) NotNil(t testing.TB, v any, msgAndArgs ...any) bool {
	t.Helper()
	if tIsNil(v) {
		return c.fail(t, "should not be nil", msgAndArgs)
	}
	return true
}

func (c tCheck) NoError(t testing.TB, err error, msgAndArgs ...any) bool {
	t.Helper()
	if err != nil {
		return c.fail(t, fmt.Sprintf("unexpected error: %v", err), msgAndArgs)
	}
	return true
}

func (c tCheck) Error(t testing.TB, err error, msgAndArgs ...any) bool {
	t.Helper()
	if err == nil {
		return c.fail(t, "an error was expected", msgAndArgs)
	}
	return true
}

func (c tCheck) ErrorContains(t testing.TB, err error, sub string, msgAndArgs ...any) bool {
	t.Helper()
	if err == nil {
		return c.fail(t, fmt.Sprintf("an error containing %q was expected", sub), msgAndArgs)
	}
	if !strings.Contains(err.Error(), sub) {
		return c.fail(t, fmt.Sprintf("error %q does not contain %q", err, sub), msgAndArgs)
	}
	return true
}

func (c tCheck) ErrorIs(t testing.TB, err, target error, msgAndArgs ...any) bool {
	t.Helper()
	if !errors.Is(err, target) {
		return c.fail(t, fmt.Sprintf("error %v does not match %v", err, target), msgAndArgs)
	}
	return true
}

func (c tCheck) NotErrorIs(t testing.TB, err, target error, msgAndArgs ...any) bool {
	t.Helper()
	if errors.Is(err, target) {
		return c.fail(t, fmt.Sprintf("error %v should not match %v", err, target), msgAndArgs)
	}
	return true
}

func (c tCheck) ErrorAs(t testing.TB, err error, target any, msgAndArgs ...any) bool {
	t.Helper()
	if !errors.As(err, target) {
		return c.fail(t, fmt.Sprintf("error %v has no %T in its chain", err, target), msgAndArgs)
	}
	return true
}

func (c tCheck) Len(t testing.TB, v any, n int, msgAndArgs ...any) bool {
	t.Helper()
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array, reflect.Chan:
		if rv.Len() != n {
			return c.fail(t, fmt.Sprintf("length %d, want %d: %v", rv.Len(), n, v), msgAndArgs)
		}
		return true
	}
	return c.fail(t, fmt.Sprintf("%T has no length", v), msgAndArgs)
}

func tIsEmpty(v any) bool {
	if tIsNil(v) {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array, reflect.Chan:
		return rv.Len() == 0
	}
	return rv.IsZero()
}

func (c tCheck) Empty(t testing.TB, v any, msgAndArgs ...any) bool {
	t.Helper()
	if !tIsEmpty(v) {
		return c.fail(t, fmt.Sprintf("should be empty: %v", v), msgAndArgs)
	}
	return true
}

func (c tCheck) NotEmpty(t testing.TB, v any, msgAndArgs ...any) bool {
	t.Helper()
	if tIsEmpty(v) {
		return c.fail(t, "should not be empty", msgAndArgs)
	}
	return true
}

// tContains reports whether s (a string or a slice) holds sub.
func tContains(s, sub any) bool {
	if str, ok := s.(string); ok {
		subStr, ok := sub.(string)
		return ok && strings.Contains(str, subStr)
	}
	rv := reflect.ValueOf(s)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		for i := 0; i < rv.Len(); i++ {
			if tEqual(sub, rv.Index(i).Interface()) {
				return true
			}
		}
	}
	return false
}

func (c tCheck) Contains(t testing.TB, s, sub any, msgAndArgs ...any) bool {
	t.Helper()
	if !tContains(s, sub) {
		return c.fail(t, fmt.Sprintf("%q does not contain %q", s, sub), msgAndArgs)
	}
	return true
}

func (c tCheck) NotContains(t testing.TB, s, sub any, msgAndArgs ...any) bool {
	t.Helper()
	if tContains(s, sub) {
		return c.fail(t, fmt.Sprintf("%q should not contain %q", s, sub), msgAndArgs)
	}
	return true
}

// tNumber converts an integer, float or duration to float64.
func tNumber(v any) float64 {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	panic(fmt.Sprintf("not a number: %T", v))
}

func (c tCheck) compare(t testing.TB, a, b any, ok func(x, y float64) bool, op string, msgAndArgs []any) bool {
	t.Helper()
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return c.fail(t, fmt.Sprintf("cannot compare %T with %T", a, b), msgAndArgs)
	}
	if !ok(tNumber(a), tNumber(b)) {
		return c.fail(t, fmt.Sprintf("%v is not %s %v", a, op, b), msgAndArgs)
	}
	return true
}

func (c tCheck) Less(t testing.TB, a, b any, msgAndArgs ...any) bool {
	t.Helper()
	return c.compare(t, a, b, func(x, y float64) bool { return x < y }, "<", msgAndArgs)
}

func (c tCheck) LessOrEqual(t testing.TB, a, b any, msgAndArgs ...any) bool {
	t.Helper()
	return c.compare(t, a, b, func(x, y float64) bool { return x <= y }, "<=", msgAndArgs)
}

func (c tCheck) Greater(t testing.TB, a, b any, msgAndArgs ...any) bool {
	t.Helper()
	return c.compare(t, a, b, func(x, y float64) bool { return x > y }, ">", msgAndArgs)
}

func (c tCheck) GreaterOrEqual(t testing.TB, a, b any, msgAndArgs ...any) bool {
	t.Helper()
	return c.compare(t, a, b, func(x, y float64) bool { return x >= y }, ">=", msgAndArgs)
}

func (c tCheck) InDelta(t testing.TB, want, got, delta float64, msgAndArgs ...any) bool {
	t.Helper()
	if d := want - got; d > delta || d < -delta {
		return c.fail(t, fmt.Sprintf("%v and %v differ by more than %v", want, got, delta), msgAndArgs)
	}
	return true
}

func (c tCheck) NotPanics(t testing.TB, f func(), msgAndArgs ...any) (ok bool) {
	t.Helper()
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		f()
	}()
	if panicked != nil {
		return c.fail(t, fmt.Sprintf("panicked: %v", panicked), msgAndArgs)
	}
	return true
}

func (c tCheck) FileExists(t testing.TB, path string, msgAndArgs ...any) bool {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return c.fail(t, fmt.Sprintf("no file at %s (%v)", path, err), msgAndArgs)
	}
	return true
}

func (c tCheck) NoFileExists(t testing.TB, path string, msgAndArgs ...any) bool {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		return c.fail(t, fmt.Sprintf("a file exists at %s", path), msgAndArgs)
	}
	return true
}
