package profilesvc

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Error codes the service sends in the body of an error response. The
// first group is the interface document's; the second is what the mock
// server sends where the document leaves the code open.
const (
	CodeUnauthorized              = "UNAUTHORIZED"
	CodeInvalidItemIDs            = "INVALID_ITEM_IDS"
	CodeReportNotAvailable        = "REPORT_NOT_AVAILABLE"
	CodeCannotModifyDefaultFolder = "CANNOT_MODIFY_DEFAULT_FOLDER"
	CodeCannotDeleteDefaultFolder = "CANNOT_DELETE_DEFAULT_FOLDER"
	CodeProfileNotFound           = "PROFILE_NOT_FOUND"
	CodeFolderNotFound            = "FOLDER_NOT_FOUND"
	CodeItemNotFound              = "ITEM_NOT_FOUND"
	CodeAnalysisNotFound          = "ANALYSIS_NOT_FOUND"
	CodeAnalysisInProgress        = "ANALYSIS_IN_PROGRESS"
	// CodeProfileNotFoundSVC is the numeric-style code of an unknown
	// profile on the list-folders call.
	CodeProfileNotFoundSVC = "SVC_3005"
	// CodeFolderNotFoundSVC is the numeric-style code of an unknown folder
	// on the single-folder call.
	CodeFolderNotFoundSVC = "SVC_3009"

	CodeValidation           = "VALIDATION_ERROR"
	CodeWorkflowNotFound     = "WORKFLOW_NOT_FOUND"
	CodeNotFound             = "NOT_FOUND"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeUnsupportedMediaType = "UNSUPPORTED_MEDIA_TYPE"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeRateLimited          = "RATE_LIMITED"
	CodeInternal             = "INTERNAL_ERROR"
	CodeServiceUnavailable   = "SERVICE_UNAVAILABLE"
)

// Sentinel errors for use with errors.Is. An *APIError matches the sentinel
// of its code; the two SVC_ codes match the named not-found sentinels, and
// every 404 also matches ErrNotFound.
var (
	ErrUnauthorized              = errors.New("profilesvc: unauthorized")
	ErrInvalidItemIDs            = errors.New("profilesvc: invalid item IDs")
	ErrReportNotAvailable        = errors.New("profilesvc: report not available")
	ErrCannotModifyDefaultFolder = errors.New("profilesvc: cannot modify the default folder")
	ErrCannotDeleteDefaultFolder = errors.New("profilesvc: cannot delete the default folder")
	ErrProfileNotFound           = errors.New("profilesvc: profile not found")
	ErrFolderNotFound            = errors.New("profilesvc: folder not found")
	ErrItemNotFound              = errors.New("profilesvc: item not found")
	ErrAnalysisNotFound          = errors.New("profilesvc: analysis not found")
	ErrAnalysisInProgress        = errors.New("profilesvc: analysis in progress")
	ErrValidation                = errors.New("profilesvc: validation error")
	ErrWorkflowNotFound          = errors.New("profilesvc: workflow not found")
	ErrMethodNotAllowed          = errors.New("profilesvc: method not allowed")
	ErrUnsupportedMediaType      = errors.New("profilesvc: unsupported media type")
	ErrPayloadTooLarge           = errors.New("profilesvc: payload too large")
	ErrRateLimited               = errors.New("profilesvc: rate limited")
	ErrServiceUnavailable        = errors.New("profilesvc: service unavailable")

	// ErrNotFound matches every 404 answer, whatever its code.
	ErrNotFound = errors.New("profilesvc: not found")
	// ErrServer matches every 5xx answer, whatever its code.
	ErrServer = errors.New("profilesvc: server error")

	// ErrAnalysisFailed is matched by the error WaitForAnalysis returns when
	// the analysis ends with status failed; see *AnalysisFailedError.
	ErrAnalysisFailed = errors.New("profilesvc: analysis failed")
	// ErrWaitTimeout is matched by the error WaitForAnalysis returns when its
	// context's deadline passes before the analysis ends.
	ErrWaitTimeout = errors.New("profilesvc: timed out waiting for analysis")
	// ErrInvalidID is returned, before anything is sent, for an ID that
	// cannot be used in a path: an empty string, "." or "..".
	ErrInvalidID = errors.New("profilesvc: invalid ID")
	// ErrNotPDF is returned by DownloadReport when a successful answer is
	// not a PDF document.
	ErrNotPDF = errors.New("profilesvc: report is not a PDF")
	// ErrRequestTimeout is matched by the error of a request whose attempts
	// ran out of their own time limit (WithRequestTimeout, WithTimeout)
	// while the caller's context still had time.
	ErrRequestTimeout = errors.New("profilesvc: request timed out")
	// ErrOutcomeUnknown is matched by the error of a request that is not
	// idempotent (a POST) when it may have reached the service but its
	// answer was lost: the connection failed, or the attempt ran out of
	// time, after the request was written. The service may or may not have
	// acted on it, so it is not retried; StartAnalysis reconciles it on its
	// own (see there).
	ErrOutcomeUnknown = errors.New("profilesvc: outcome unknown: the request may have reached the service, but its answer was lost")
)

// sentinelForCode maps an error code to its sentinel, or nil.
func sentinelForCode(code string) error {
	switch code {
	case CodeUnauthorized:
		return ErrUnauthorized
	case CodeInvalidItemIDs:
		return ErrInvalidItemIDs
	case CodeReportNotAvailable:
		return ErrReportNotAvailable
	case CodeCannotModifyDefaultFolder:
		return ErrCannotModifyDefaultFolder
	case CodeCannotDeleteDefaultFolder:
		return ErrCannotDeleteDefaultFolder
	case CodeProfileNotFound, CodeProfileNotFoundSVC:
		return ErrProfileNotFound
	case CodeFolderNotFound, CodeFolderNotFoundSVC:
		return ErrFolderNotFound
	case CodeItemNotFound:
		return ErrItemNotFound
	case CodeAnalysisNotFound:
		return ErrAnalysisNotFound
	case CodeAnalysisInProgress:
		return ErrAnalysisInProgress
	case CodeValidation:
		return ErrValidation
	case CodeWorkflowNotFound:
		return ErrWorkflowNotFound
	case CodeNotFound:
		return ErrNotFound
	case CodeMethodNotAllowed:
		return ErrMethodNotAllowed
	case CodeUnsupportedMediaType:
		return ErrUnsupportedMediaType
	case CodePayloadTooLarge:
		return ErrPayloadTooLarge
	case CodeRateLimited:
		return ErrRateLimited
	case CodeServiceUnavailable:
		return ErrServiceUnavailable
	}
	return nil
}

// sentinelForStatus maps an HTTP status to the sentinel every answer with
// that status matches, whatever its code, or nil.
func sentinelForStatus(status int) error {
	switch {
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusMethodNotAllowed:
		return ErrMethodNotAllowed
	case status == http.StatusRequestEntityTooLarge:
		return ErrPayloadTooLarge
	case status == http.StatusUnsupportedMediaType:
		return ErrUnsupportedMediaType
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status == http.StatusServiceUnavailable:
		return ErrServiceUnavailable
	}
	return nil
}

// APIError is an error answer of the service: any response outside 2xx (a
// redirect the client does not follow included). Use errors.Is with the Err sentinels to branch on the kind of
// failure, and errors.As to reach the details.
type APIError struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Code is the error code of the body as sent ("SVC_3005" stays
	// "SVC_3005"); empty when the body was not the service's error JSON.
	Code string
	// Message is the body's message or, for a body that was not the
	// service's error JSON, a description of what came back.
	Message string
	// Body is the raw response body, at most 64 KiB of it, with the API
	// key masked should the server have echoed it, in any of the forms the
	// SDK masks (JSON escapes included, so that decoding Body does not
	// reveal it either).
	Body []byte
	// RequestID is the value of the answer's request ID header
	// (X-Request-Id), if the service sent one.
	RequestID string
	// RetryAfter is the wait the answer asked for in its Retry-After
	// header, or zero.
	RetryAfter time.Duration
	// Method and Path name the request that failed.
	Method, Path string
	// Attempts is how many times the request was sent.
	Attempts int
}

// Error reads like "profilesvc: 409 ANALYSIS_IN_PROGRESS: <message>".
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("profilesvc: ")
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if e.Code != "" {
		b.WriteString(" ")
		b.WriteString(e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Method != "" {
		fmt.Fprintf(&b, " (%s %s", e.Method, e.Path)
		if e.Attempts > 1 {
			fmt.Fprintf(&b, ", %d attempts", e.Attempts)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Is reports whether the error matches target: the sentinel of its code,
// ErrNotFound for any 404, ErrServer for any 5xx, and the sentinel of its
// status where the code is unknown.
func (e *APIError) Is(target error) bool {
	if target == nil {
		return false
	}
	if s := sentinelForCode(e.Code); s != nil && s == target {
		return true
	}
	if s := sentinelForStatus(e.StatusCode); s != nil && s == target {
		return true
	}
	return target == ErrServer && e.StatusCode >= 500
}

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// errorEnvelope is the service's error body.
type errorEnvelope struct {
	Error *struct {
		Code    string `json:"code"`
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

// newAPIError builds an *APIError from an answer's status, headers and
// body. A body that is not the service's error JSON (an HTML page from a
// proxy, an empty body) still gives a useful message. The API key, should
// a server echo it, is masked in every field.
func newAPIError(status int, header http.Header, body []byte, secret *secret) *APIError {
	e := &APIError{
		StatusCode: status,
		Body:       secret.maskBytes(body),
		RequestID:  secret.mask(header.Get("X-Request-Id")),
	}
	if d, ok := parseRetryAfter(header.Get("Retry-After"), time.Now()); ok {
		e.RetryAfter = d
	}
	var env errorEnvelope
	if len(bytes.TrimSpace(body)) > 0 && unmarshal(body, &env) == nil && env.Error != nil &&
		(env.Error.Code != "" || env.Error.Message != "") {
		// Masked again once decoded: a JSON escape could have hidden the
		// key from the mask of the raw bytes.
		e.Code = secret.mask(env.Error.Code)
		e.Message = secret.mask(env.Error.Message)
		return e
	}
	// The excerpt is made from the masked body, since one cut short could
	// end within the key, where the mask no longer finds it; and masked
	// again once made.
	e.Message = secret.mask(describeBody(status, header.Get("Content-Type"), len(body), e.Body))
	return e
}

// describeBody says what an answer of size bytes that is not the service's
// error JSON held: its status text and, for text, a short printable excerpt
// of body.
func describeBody(status int, contentType string, size int, body []byte) string {
	msg := http.StatusText(status)
	if msg == "" {
		msg = "unexpected status"
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return msg + " (empty body)"
	}
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if mediaType == "" {
		mediaType = "unknown content type"
	}
	if !strings.HasPrefix(mediaType, "text/") && mediaType != "application/json" {
		return fmt.Sprintf("%s (%d-byte %s body)", msg, size, mediaType)
	}
	return fmt.Sprintf("%s (%s body: %q)", msg, mediaType, excerpt(trimmed, 120))
}

// excerpt returns at most n runes of b with markup tags dropped and white
// space folded, for an error message.
func excerpt(b []byte, n int) string {
	var out strings.Builder
	inTag, space := false, false
	for len(b) > 0 && out.Len() < n*4 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		switch {
		case r == '<':
			inTag = true
			continue
		case r == '>' && inTag:
			inTag = false
			space = true
			continue
		case inTag:
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		case !unicode.IsPrint(r):
			continue
		}
		if space && out.Len() > 0 {
			out.WriteByte(' ')
		}
		space = false
		out.WriteRune(r)
	}
	s := out.String()
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

// AnalysisFailedError is returned by WaitForAnalysis when the analysis ends
// with status failed. It matches ErrAnalysisFailed. Its fields come from
// the service's answer, with the API key masked should the service have
// echoed it.
type AnalysisFailedError struct {
	// AnalysisID is the analysis that failed.
	AnalysisID string
	// Reason is the analysis's error text.
	Reason string
}

// Error reads like "profilesvc: analysis analysis_x failed: <reason>".
func (e *AnalysisFailedError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("profilesvc: analysis %s failed", e.AnalysisID)
	}
	return fmt.Sprintf("profilesvc: analysis %s failed: %s", e.AnalysisID, e.Reason)
}

// Is reports whether target is ErrAnalysisFailed.
func (e *AnalysisFailedError) Is(target error) bool { return target == ErrAnalysisFailed }

// outcomeUnknownError is the failure of a request that may have reached the
// service: it matches ErrOutcomeUnknown and keeps the transport's error.
type outcomeUnknownError struct {
	err error
}

func (e *outcomeUnknownError) Error() string {
	return "outcome unknown: the request was sent, but its answer was lost, so the service may or may not have acted on it: " + e.err.Error()
}

func (e *outcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

func (e *outcomeUnknownError) Unwrap() error { return e.err }

// transportError is the error of a call that got no answer. It names the
// call once, by method and URL, then the cause: the *url.Error of the
// transport stays in the chain for errors.As, without repeating the
// method and URL it also names.
type transportError struct {
	method, url string
	attempts    int
	err         error
	secret      *secret
}

func (e *transportError) Error() string {
	cause := e.err
	var uerr *url.Error
	if errors.As(cause, &uerr) {
		cause = uerr.Err
	}
	if e.attempts > 1 {
		return e.secret.mask(fmt.Sprintf("profilesvc: %s %s: after %d attempts: %v", e.method, e.url, e.attempts, cause))
	}
	return e.secret.mask(fmt.Sprintf("profilesvc: %s %s: %v", e.method, e.url, cause))
}

func (e *transportError) Unwrap() error { return e.err }
