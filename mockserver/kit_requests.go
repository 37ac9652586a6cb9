package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// RequestMatch selects recorded requests. An empty field matches anything.
type RequestMatch struct {
	// Method is the request's method, such as "POST".
	Method string
	// Path is a path pattern, as Fault.Path: "/v1/analyses/*/report",
	// where "*" matches one segment, and an ID may be given unescaped
	// ("pf/x" for the segment "pf%2Fx") or escaped. The package doc's
	// "Path patterns" states the rule.
	Path string
	// Query holds parameters the request must carry with these values;
	// others may come with them.
	Query url.Values
	// Status is the status of the answer (0 for a dropped connection
	// cannot be asked for: 0 matches any).
	Status int
}

// String shows the match as a request line.
func (m RequestMatch) String() string {
	var b strings.Builder
	b.WriteString(or(m.Method, "*"))
	b.WriteString(" ")
	b.WriteString(or(m.Path, "(any path)"))
	if len(m.Query) > 0 {
		b.WriteString("?" + m.Query.Encode())
	}
	if m.Status != 0 {
		fmt.Fprintf(&b, " → %d", m.Status)
	}
	return b.String()
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// mismatches returns the fields of m that r does not match: "method",
// "path", "query", "status".
func (m RequestMatch) mismatches(r RecordedRequest) []string {
	var out []string
	if m.Method != "" && !strings.EqualFold(m.Method, r.Method) {
		out = append(out, "method")
	}
	if m.Path != "" && !pathMatches(m.Path, r.Path) {
		out = append(out, "path")
	}
	for k, want := range m.Query {
		if !slices.Equal(r.Query[k], want) {
			out = append(out, "query")
			break
		}
	}
	if m.Status != 0 && m.Status != r.Status {
		out = append(out, "status")
	}
	return out
}

// matchesEntry reports whether m selects a record's entry, without
// making its RecordedRequest (whose headers are copied) when m asks
// nothing of the query.
func (m RequestMatch) matchesEntry(e *recordEntry) bool {
	if len(m.Query) > 0 {
		return m.Matches(e.recorded())
	}
	return (m.Method == "" || strings.EqualFold(m.Method, e.method)) &&
		(m.Path == "" || pathMatches(m.Path, e.path)) &&
		(m.Status == 0 || m.Status == e.status)
}

// fields counts the fields m sets: those a request can differ in.
func (m RequestMatch) fields() int {
	n := 0
	for _, set := range []bool{m.Method != "", m.Path != "", len(m.Query) > 0, m.Status != 0} {
		if set {
			n++
		}
	}
	return n
}

// Matches reports whether r is one of the requests m selects.
func (m RequestMatch) Matches(r RecordedRequest) bool { return len(m.mismatches(r)) == 0 }

// check reports a Path that is not a pattern (see Fault.Path).
func (m RequestMatch) check() error {
	if m.Path == "" {
		return nil
	}
	if err := checkPathPattern(m.Path); err != nil {
		return fmt.Errorf("mockserver: RequestMatch.Path: the path pattern %q is not valid: %v", clip(m.Path), err)
	}
	return nil
}

// RequestsMatching returns the recorded requests that m selects, oldest
// first; none when m's Path is not a valid pattern, which AwaitRequest
// and ExpectRequests report.
func (t *Tenant) RequestsMatching(m RequestMatch) []RecordedRequest {
	var out []RecordedRequest
	for _, r := range t.Requests() {
		if m.Matches(r) {
			out = append(out, r)
		}
	}
	return out
}

// AwaitRequest returns the first recorded request (since the last
// ClearRequests or Reset) that m selects, waiting for it if it has not
// come yet: a test waits for the request its code under test sends in the
// background, never for a fixed time. When ctx ends first, the error
// matches ctx's error.
func (t *Tenant) AwaitRequest(ctx context.Context, m RequestMatch) (RecordedRequest, error) {
	if err := m.check(); err != nil {
		return RecordedRequest{}, err
	}
	for {
		changed := t.record.changes()
		if got := t.RequestsMatching(m); len(got) > 0 {
			return got[0], nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return RecordedRequest{}, fmt.Errorf("mockserver: waiting for a request %s: %w", m, ctx.Err())
		}
	}
}

// ExpectRequests fails tb unless exactly n recorded requests match m. Its
// message lists the near misses: the recorded requests that differ from m
// in exactly one of its fields (method, path, query, status), and which,
// so that a wrong path or a missing query parameter shows at once. A
// match that sets fewer than two fields has no near misses: every request
// it does not select would be one.
func (t *Tenant) ExpectRequests(tb testing.TB, m RequestMatch, n int) {
	tb.Helper()
	if err := m.check(); err != nil {
		tb.Error(err)
		return
	}
	all := t.Requests()
	var matched int
	var near []string
	for _, r := range all {
		switch miss := m.mismatches(r); {
		case len(miss) == 0:
			matched++
		case len(miss) == 1 && m.fields() >= 2:
			near = append(near, fmt.Sprintf("  %s %s", describeRequest(r), "(differs in "+miss[0]+")"))
		}
	}
	if matched == n {
		return
	}
	msg := fmt.Sprintf("mockserver: %d requests match %s, want %d (of %d recorded)", matched, m, n, len(all))
	if len(near) > 0 {
		msg += "\nnear misses:\n" + strings.Join(near, "\n")
	}
	tb.Error(msg)
}

// describeRequest is a recorded request as a line.
func describeRequest(r RecordedRequest) string {
	line := r.Method + " " + r.Path
	if len(r.Query) > 0 {
		line += "?" + r.Query.Encode()
	}
	return fmt.Sprintf("%s → %d", line, r.Status)
}

// BodyText returns the recorded body as text.
func (r RecordedRequest) BodyText() string { return string(r.Body) }

// DecodeJSON decodes the recorded body, a JSON value, into v.
func (r RecordedRequest) DecodeJSON(v any) error {
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("mockserver: the recorded body of %s %s: %w", r.Method, r.Path, err)
	}
	return nil
}

// isJSONBody reports whether a request says its body is JSON.
func isJSONBody(r RecordedRequest) bool {
	ct := strings.ToLower(r.Header.Get("Content-Type"))
	return strings.HasPrefix(ct, "application/json") || strings.Contains(ct, "+json")
}

// recordedJSON is the JSON form of a recorded request: a JSON body (one
// sent as application/json) as JSON, a text body as a string with
// bodyEncoding "text", any other as base64 with bodyEncoding "base64".
// A JSON body comes back as the same JSON value, compacted (the
// whitespace between its tokens is not kept); RecordedRequest.Body in Go
// keeps the bytes as sent.
type recordedJSON struct {
	Time          string          `json:"time"`
	RequestID     string          `json:"requestId"`
	Method        string          `json:"method"`
	Path          string          `json:"path"`
	Query         url.Values      `json:"query,omitempty"`
	Header        http.Header     `json:"header"`
	Body          json.RawMessage `json:"body,omitempty"`
	BodyEncoding  string          `json:"bodyEncoding,omitempty"`
	BodyTruncated bool            `json:"bodyTruncated,omitempty"`
	BodySize      int64           `json:"bodySize,omitempty"`
	Status        int             `json:"status"`
}

// MarshalJSON encodes the request as GET /_mock/requests lists it, its
// body readable: a JSON body as JSON, a text body as a string with
// "bodyEncoding": "text", anything else in base64 with "bodyEncoding":
// "base64".
func (r RecordedRequest) MarshalJSON() ([]byte, error) {
	j := recordedJSON{
		Time: r.Time.Format(time.RFC3339Nano), RequestID: r.RequestID, Method: r.Method, Path: r.Path,
		Query: r.Query, Header: r.Header, BodyTruncated: r.BodyTruncated, BodySize: r.BodySize, Status: r.Status,
	}
	switch {
	case len(r.Body) == 0:
	case !r.BodyTruncated && isJSONBody(r) && json.Valid(r.Body):
		j.Body = r.Body
	case utf8.Valid(r.Body):
		j.Body, _ = json.Marshal(string(r.Body))
		j.BodyEncoding = "text"
	default:
		j.Body, _ = json.Marshal(r.Body) // base64
		j.BodyEncoding = "base64"
	}
	// Not escaped for HTML: the body reads as the client sent it.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (r *RecordedRequest) UnmarshalJSON(b []byte) error {
	var j recordedJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = RecordedRequest{RequestID: j.RequestID, Method: j.Method, Path: j.Path, Query: j.Query, Header: j.Header,
		BodyTruncated: j.BodyTruncated, BodySize: j.BodySize, Status: j.Status}
	if j.Time != "" {
		if err := r.Time.UnmarshalText([]byte(j.Time)); err != nil {
			return err
		}
	}
	switch {
	case len(j.Body) == 0:
	case j.BodyEncoding == "base64":
		return json.Unmarshal(j.Body, &r.Body)
	case j.BodyEncoding == "text":
		var s string
		if err := json.Unmarshal(j.Body, &s); err != nil {
			return err
		}
		r.Body = []byte(s)
	default:
		r.Body = append([]byte(nil), j.Body...)
	}
	return nil
}
