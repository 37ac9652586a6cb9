package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
	"github.com/profilesvc/profilesvc-go/internal/origin"
)

// client sends the suite's requests and holds every answer to the
// document.
type client struct {
	base      string // scheme, host and any path before /v1, no trailing slash
	key       string
	hc        *http.Client
	doc       *openapicheck.Validator
	now       func() time.Time
	timeout   time.Duration // of a request that is not a long poll
	exchanges int           // answers received
	noID      []string      // requests whose answer had no X-Request-Id
	// extra lists the answers' fields the document does not list, once
	// each ("getFolder: answer body /owner"), for assume.documented-fields
	// alone: a field more is not a broken rule.
	extra []string
}

// request is one request of the suite.
type request struct {
	// path is the path's template, such as "/v1/items/{itemId}"; id fills
	// its one parameter, escaped into a segment of its own.
	method, path, id string
	query            url.Values
	// json is encoded as the body, with Content-Type application/json;
	// raw is sent as it is, with contentType.
	json        any
	raw         []byte
	contentType string
	// key replaces the API key: noKey sends none.
	key   string
	noKey bool
	// hold is how long the service may hold the request (a long poll).
	hold time.Duration
}

// answer is what came back.
type answer struct {
	status  int
	header  http.Header
	body    []byte
	elapsed time.Duration
	// err says why no answer came: a transport failure, a request not
	// sent (an ID that cannot be a path segment), or a redirect to another
	// origin, not followed (*otherOrigin).
	err error
	// mismatch is the document's disagreement with the exchange.
	mismatch error
	// target is the request's method and path, for messages.
	target string
}

// target is the request's path and query: its ID escaped into its own
// segment (url.PathEscape), so that an ID holding a "/", "?" or "#"
// reaches no other route, and refused (apiroutes.ErrInvalidID) when
// empty, "." or "..", which no escaping keeps in its segment. Most IDs come
// from the service's answers: the suite trusts none of them to be a path.
func (r request) target() (string, error) {
	p := r.path
	if r.id != "" || strings.Contains(p, "{") {
		var err error
		if p, err = apiroutes.Expand(p, r.id); err != nil {
			return "", err
		}
	}
	if len(r.query) > 0 {
		p += "?" + r.query.Encode()
	}
	return p, nil
}

// do sends a request and checks the exchange against the document. A
// redirect to another origin is not followed: the answer's err is an
// *otherOrigin.
func (c *client) do(ctx context.Context, r request) answer {
	target, err := r.target()
	if err != nil {
		return answer{target: r.method + " " + r.path, err: fmt.Errorf("not sent: %w", err)}
	}
	a := answer{target: r.method + " " + target}
	body := r.raw
	ct := r.contentType
	if r.json != nil {
		b, err := json.Marshal(r.json)
		if err != nil {
			a.err = err
			return a
		}
		body, ct = b, "application/json"
	}
	timeout := c.timeout
	if r.hold > 0 {
		timeout = r.hold + 30*time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+target, bytes.NewReader(body))
	if err != nil {
		a.err = err
		return a
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	switch {
	case r.noKey:
	case r.key != "":
		req.Header.Set("x-api-key", r.key)
	default:
		req.Header.Set("x-api-key", c.key)
	}
	req.Header.Set("User-Agent", "profilesvc-contract")
	start := c.now()
	resp, err := c.hc.Do(req)
	var away *otherOrigin
	if errors.As(err, &away) {
		err = away // said as it is, without the *url.Error around it
	}
	if err != nil {
		a.err = err
		return a
	}
	defer resp.Body.Close()
	a.body, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	a.elapsed = c.now().Sub(start)
	if err != nil {
		a.err = fmt.Errorf("reading the answer: %w", err)
		return a
	}
	a.status, a.header = resp.StatusCode, resp.Header
	c.exchanges++
	if resp.Header.Get("X-Request-Id") == "" {
		c.noID = append(c.noID, a.target)
	}
	ex := openapicheck.Exchange{
		Method: r.method, URL: target, Header: req.Header, Body: body,
		Status: a.status, ResponseHeader: a.header, ResponseBody: a.body,
	}
	// The document's verdict on the request counts only when the service
	// took it (a request the document refuses must be refused): an error
	// answer is held to the document alone, which spares reading again a
	// body the service refused, such as the 2 MiB one of
	// assume.payload-too-large.
	if a.status >= 200 && a.status < 300 {
		a.mismatch = c.doc.Check(ctx, ex)
	} else {
		a.mismatch = c.doc.CheckAnswer(ctx, ex)
	}
	if errors.Is(a.mismatch, openapicheck.ErrNotInDocument) {
		a.mismatch = nil // the mock's control API, which the service has not
	}
	a.mismatch = c.setExtraApart(a.mismatch)
	return a
}

// setExtraApart records the fields of an answer that the document does not
// list, and returns the rest of the mismatch, if any.
func (c *client) setExtraApart(err error) error {
	var ms openapicheck.Mismatches
	if !errors.As(err, &ms) {
		return err
	}
	var rest openapicheck.Mismatches
	for _, m := range ms {
		if !m.UndocumentedField() {
			rest = append(rest, m)
			continue
		}
		if what := m.Operation + ": " + m.In + " " + m.Field; !slices.Contains(c.extra, what) {
			c.extra = append(c.extra, what)
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return rest
}

// upload is a multipart/form-data body: a file part and fields.
func upload(filename string, data []byte, fields ...string) ([]byte, string, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	fw, err := w.CreateFormFile("file", filename)
	if err != nil {
		return nil, "", err
	}
	if _, err := fw.Write(data); err != nil {
		return nil, "", err
	}
	for i := 0; i+1 < len(fields); i += 2 {
		if err := w.WriteField(fields[i], fields[i+1]); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), w.FormDataContentType(), nil
}

// errorCode is the code of an error answer's body, or "".
func (a answer) errorCode() string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(a.body, &e)
	return e.Error.Code
}

// decode reads the answer's JSON body.
func (a answer) decode(v any) error {
	if err := json.Unmarshal(a.body, v); err != nil {
		return fail("a JSON body", fmt.Sprintf("%s (%v)", excerpt(a.body), err))
	}
	return nil
}

// describe says what came: the status and code, or the failure.
func (a answer) describe() string {
	if a.err != nil {
		if errors.Is(a.err, apiroutes.ErrInvalidID) || errors.As(a.err, new(*otherOrigin)) {
			return a.err.Error() // the suite's refusal, not the network's failure
		}
		return "no answer: " + a.err.Error()
	}
	s := fmt.Sprintf("%d", a.status)
	if code := a.errorCode(); code != "" {
		s += " " + code
	}
	return s
}

// excerpt is the start of a body, for a message.
func excerpt(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "an empty body"
	}
	return s
}

// normalizeBase turns a base URL, with or without a trailing slash and
// /v1, into the address the paths are appended to.
func normalizeBase(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("the base URL %q is not a URL: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("the base URL %q must be http:// or https:// with a host", raw)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/v1")
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimSuffix(u.String(), "/"), nil
}

// keyStaysHome returns a copy of hc whose redirects are followed only
// within the origin of the request (scheme, host and port: http to https
// is another origin), by hc's own policy, or up to 10 when it has none. A
// redirect to another origin is not followed, whatever hc's policy, so
// that neither the key nor a body goes there: the request's error is an
// *otherOrigin.
func keyStaysHome(hc *http.Client) *http.Client {
	c := *hc
	policy := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !origin.Same(req.URL, via[0].URL) {
			away := &otherOrigin{to: req.URL.Scheme + "://" + req.URL.Host}
			if req.Response != nil {
				away.status = req.Response.StatusCode
			}
			return away
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// otherOrigin is the failure of a request the service redirected to
// another origin, which the suite does not follow.
type otherOrigin struct {
	status int    // of the redirect
	to     string // the origin redirected to
}

func (e *otherOrigin) Error() string {
	return fmt.Sprintf("redirected to another origin (%d to %s): not followed, so that the key stays with the service", e.status, e.to)
}
