package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIError_ErrorFormat(t *testing.T) {
	t.Parallel()
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
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

func TestAPIError_ErrorFormatEndToEnd(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respondError(w, http.StatusConflict, CodeAnalysisInProgress, "an analysis is already running")
	})
	_, err := srv.client(t).StartAnalysis(context.Background(), "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "profilesvc: 409 ANALYSIS_IN_PROGRESS: an analysis is already running ("),
		"error %q", err.Error())
	assert.Contains(t, err.Error(), "POST /v1/analyses/pf_1/analyze")
	assert.ErrorIs(t, err, ErrAnalysisInProgress)
	assert.Len(t, srv.requests(), 1)
}

func TestAPIError_IsSentinelOfEveryCode(t *testing.T) {
	t.Parallel()
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
			e := newAPIError(tt.status, http.Header{}, errorBody(tt.code, tt.status, "msg"), nil)
			assert.Equal(t, tt.code, e.Code, "Code keeps the raw code")
			assert.Equal(t, tt.status, e.StatusCode)
			assert.Equal(t, "msg", e.Message)
			assertMatchesOnly(t, e, tt.want...)
			// Wrapping keeps the matches.
			assertMatchesOnly(t, fmt.Errorf("call: %w", e), tt.want...)
		})
	}
}

func TestAPIError_SVCCodesEndToEnd(t *testing.T) {
	t.Parallel()
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
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.sentinel)
			assert.ErrorIs(t, err, ErrNotFound)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.code, apiErr.Code)
			assert.Equal(t, http.StatusNotFound, apiErr.StatusCode)
			assert.Len(t, srv.requests(), 1, "a 404 is not retried")
		})
	}
}

func TestAPIError_StatusFallback(t *testing.T) {
	t.Parallel()
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
			e := newAPIError(tt.status, http.Header{}, errorBody(tt.code, tt.status, "m"), nil)
			assertMatchesOnly(t, e, tt.want...)
		})
	}
}

func TestAPIError_AsGivesDetails(t *testing.T) {
	t.Parallel()
	body := `{"error":{"code":"RATE_LIMITED","status":429,"message":"slow down"}}`
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_abc123")
		w.Header().Set("Retry-After", "120")
		respond(w, http.StatusTooManyRequests, body)
	})
	_, err := srv.client(t).GetProfile(context.Background(), "pf_1")
	require.Error(t, err)

	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
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
	assert.ErrorIs(t, err, ErrRateLimited)
}

func TestAPIError_MasksSecret(t *testing.T) {
	t.Parallel()
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
			e := newAPIError(http.StatusUnauthorized, h, []byte(tt.body), newSecret(secret))
			assert.NotContains(t, e.Error(), secret)
			assert.NotContains(t, e.Message, secret)
			assert.NotContains(t, string(e.Body), secret)
			assert.ErrorIs(t, e, ErrUnauthorized)
		})
	}
}

func TestAPIError_RequestIDCaseInsensitive(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("x-request-id", "req_lower")
	e := newAPIError(404, h, errorBody(CodeItemNotFound, 404, "gone"), nil)
	assert.Equal(t, "req_lower", e.RequestID)
}

func TestAPIError_NonJSONBodies(t *testing.T) {
	t.Parallel()
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
			require.NotPanics(t, func() { e = newAPIError(tt.status, h, tt.body, nil) })
			assert.Equal(t, tt.status, e.StatusCode)
			assert.Empty(t, e.Code)
			assert.Equal(t, tt.body, e.Body)
			require.NotEmpty(t, e.Message)
			for _, s := range tt.wantInMessage {
				assert.Contains(t, e.Message, s)
			}
			assert.Less(t, len(e.Message), 1000, "the message is an excerpt, not the whole body")
			assert.True(t, strings.HasPrefix(e.Error(), "profilesvc: "+strconv.Itoa(tt.status)+": "), "Error() = %q", e.Error())
			assertMatchesOnly(t, e, tt.sentinels...)
		})
	}
}

func TestAPIError_NonJSONBodiesEndToEnd(t *testing.T) {
	t.Parallel()
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
			require.NotPanics(t, func() {
				_, err = srv.client(t, WithMaxRetries(0)).GetProfile(context.Background(), "pf_1")
			})
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.body, string(apiErr.Body))
			assert.Contains(t, apiErr.Message, tt.wantInMsg)
			assert.Contains(t, err.Error(), strconv.Itoa(tt.status))
		})
	}
}

func TestAPIError_BodyIsBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 200<<10)
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(big))
	})
	_, err := srv.client(t).GetProfile(context.Background(), "pf_1")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.LessOrEqual(t, len(apiErr.Body), 64<<10)
	assert.NotEmpty(t, apiErr.Body)
}

func TestAPIError_RetryAfterParsed(t *testing.T) {
	t.Parallel()
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
			e := newAPIError(http.StatusServiceUnavailable, h, nil, nil)
			assert.GreaterOrEqual(t, e.RetryAfter, tt.min)
			assert.LessOrEqual(t, e.RetryAfter, tt.max)
		})
	}
}

func TestAnalysisFailedError(t *testing.T) {
	t.Parallel()
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
			assert.Equal(t, tt.want, tt.err.Error())
			wrapped := fmt.Errorf("wait: %w", tt.err)
			assertMatchesOnly(t, wrapped, ErrAnalysisFailed)
			var got *AnalysisFailedError
			require.ErrorAs(t, wrapped, &got)
			if diff := cmp.Diff(tt.err, got); diff != "" {
				t.Errorf("errors.As gave (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrOutcomeUnknown checks which failures leave a request's outcome
// unknown: a request that is not idempotent, written whole, whose answer
// never came. A GET is retried instead, and a connection never made is
// not ambiguous.
func TestErrOutcomeUnknown(t *testing.T) {
	t.Parallel()
	// bodyCut answers 201 with half a body, then drops the connection.
	bodyCut := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "200")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"pf_1",`))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	hold := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	create := func(c *Client) error {
		_, err := c.CreateProfile(t.Context(), "wf_1", CreateProfileParams{Name: "Jane"})
		return err
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		opts    []Option
		call    func(*Client) error
		want    bool
		// sent is how many requests the server saw.
		sent int
	}{
		{"POST, connection closed after the request", dropConnection, nil, create, true, 1},
		{"POST, answer cut in its body", bodyCut, nil, create, true, 1},
		{"POST, attempt timed out after the request", hold, []Option{WithRequestTimeout(50 * time.Millisecond)}, create, true, 1},
		{"GET, connection closed: retried, not unknown", dropConnection, []Option{WithMaxRetries(1)}, func(c *Client) error {
			_, err := c.GetProfile(t.Context(), "pf_1")
			return err
		}, false, 2},
		{"POST answered with an error", answerStatus(500), nil, create, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newTestServer(t, tt.handler)
			err := tt.call(srv.client(t, tt.opts...))
			require.Error(t, err)
			assert.Equal(t, tt.want, errors.Is(err, ErrOutcomeUnknown), "errors.Is(%v, ErrOutcomeUnknown)", err)
			if tt.want {
				assert.Contains(t, err.Error(), "the request was sent, but its answer was lost")
			}
			assert.Len(t, srv.requests(), tt.sent)
		})
	}

	t.Run("no connection: not unknown", func(t *testing.T) {
		t.Parallel()
		srv := newTestServer(t, answerOK)
		base := srv.URL
		srv.Close()
		c, err := NewClient(WithAPIKey(testAPIKey), WithBaseURL(base), WithMaxRetries(0))
		require.NoError(t, err)
		err = create(c)
		require.Error(t, err)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
	})
}

// TestTransportErrorNamesTheCallOnce checks that an error without an answer
// names its method and URL once, then the cause, and keeps the
// *url.Error in its chain.
func TestTransportErrorNamesTheCallOnce(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, dropConnection)
	for _, tc := range []struct {
		method string
		call   func(*Client) error
		path   string
	}{
		{"POST", func(c *Client) error {
			_, err := c.CreateProfile(t.Context(), "wf_1", CreateProfileParams{Name: "Jane"})
			return err
		}, "/v1/workflows/wf_1/profiles"},
		{"GET", func(c *Client) error { _, err := c.GetProfile(t.Context(), "pf_1"); return err }, "/v1/profiles/pf_1"},
	} {
		err := tc.call(srv.client(t, WithMaxRetries(1)))
		require.Error(t, err)
		msg := err.Error()
		url := srv.URL + tc.path
		assert.True(t, strings.HasPrefix(msg, "profilesvc: "+tc.method+" "+url+": "), msg)
		assert.Equal(t, 1, strings.Count(msg, url), "the URL once: %s", msg)
		assert.Equal(t, 1, strings.Count(strings.ToUpper(msg), tc.method+" "), "the method once: %s", msg)
		assert.Contains(t, msg, "EOF")
		var uerr *neturl.Error
		assert.ErrorAs(t, err, &uerr, "the transport's error stays in the chain")
	}
}
