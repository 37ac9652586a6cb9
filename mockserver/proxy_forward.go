package mockserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// Bounds of what the proxy keeps of an exchange to check it: a JSON
// answer whole up to maxCheckedAnswerBody (a larger one is passed on
// unchecked), of any other answer the first bytes that come (a PDF is
// checked by its status, headers and signature; answerPrefix at most),
// and a request's body up to
// maxCheckedRequestBody (an upload larger than that is passed on whole,
// and only its answer is checked). An upload or a report passes through
// without being held whole.
const (
	maxCheckedAnswerBody  = 32 << 20
	answerPrefix          = 1 << 10
	maxCheckedRequestBody = 2 << 20
)

// errUpstreamTimeout is the cause of a forwarded request the service did
// not begin to answer in time.
var errUpstreamTimeout = errors.New("the service did not answer in time")

// answerTimeout is the transport to the service with a bound on the wait
// for an answer's headers only: once the answer has begun, its body
// streams for as long as it takes (a report of 30 MiB on a slow link).
type answerTimeout struct {
	next  http.RoundTripper
	after time.Duration
}

func (a *answerTimeout) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(r.Context())
	timer := time.AfterFunc(a.after, func() { cancel(errUpstreamTimeout) })
	resp, err := a.next.RoundTrip(r.WithContext(ctx))
	if !timer.Stop() {
		// The bound passed: whatever came is too late.
		if err == nil {
			_ = resp.Body.Close()
		}
		cancel(errUpstreamTimeout)
		return nil, errUpstreamTimeout
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// cancelOnClose releases an answer's context once its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel(nil)
	return err
}

// captureReader passes a request's body through and keeps its first limit
// bytes; overflow is set when there were more, eof when it was read to
// its end; total counts the bytes read.
type captureReader struct {
	io.ReadCloser
	limit    int
	buf      bytes.Buffer
	overflow bool
	eof      bool
	total    int64
}

func (c *captureReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.total += int64(n)
	if n > 0 {
		room := c.limit - c.buf.Len()
		switch {
		case room >= n:
			c.buf.Write(p[:n])
		default:
			if room > 0 {
				c.buf.Write(p[:room])
			}
			c.overflow = true
		}
	}
	if errors.Is(err, io.EOF) {
		c.eof = true
	}
	return n, err
}

// pdfSignature begins every PDF document: the check of a report reads no
// more of it.
const pdfSignature = "%PDF-"

// readPrefix reads from r until it has at least n bytes, or r ends,
// without waiting for more than what arrives: a body that streams slowly
// goes on as soon as its first n bytes have come.
func readPrefix(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, answerPrefix)
	for len(buf) < n {
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// isJSON reports whether a Content-Type is JSON's.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// observeAnswer is the reverse proxy's ModifyResponse: the service's
// answer has begun. It reads what the check needs before any of it goes
// on, so that the exchange is recorded, checked and counted by the time
// the client has its answer: a JSON answer whole (up to
// maxCheckedAnswerBody; a larger one goes on unchecked), of any other the
// first bytes (a report streams on from there). Then the answer goes on,
// the bytes read first and the rest as it comes.
func (p *Proxy) observeAnswer(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(proxyExchangeKey{}).(*proxyExchange)
	if ex == nil {
		return nil
	}
	whole := isJSON(resp.Header.Get("Content-Type"))
	var head []byte
	var err error
	if whole {
		head, err = io.ReadAll(io.LimitReader(resp.Body, maxCheckedAnswerBody+1))
	} else {
		head, err = readPrefix(resp.Body, len(pdfSignature))
	}
	if err != nil {
		return err // the service broke off: 502
	}
	ex.answered = true
	ex.headersAt = time.Now()
	checked, checkable := head, true
	if whole && len(head) > maxCheckedAnswerBody {
		checked, checkable = head[:maxCheckedAnswerBody], false
	}
	header := resp.Header.Clone()
	p.finishExchange(ex, resp.StatusCode, header, checked, whole, checkable)
	body := struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	resp.Body = body
	if p.rec == nil {
		return nil
	}
	if whole && checkable {
		p.rec.add(p.harEntry(ex, resp.StatusCode, header, head, int64(len(head)), time.Now()))
		return nil
	}
	// Streamed: recorded once it has passed, with its size and digest.
	status := resp.StatusCode
	hb := &bodyHasher{ReadCloser: body, h: sha256.New(), done: func(b *bodyHasher) {
		var kept []byte
		if b.keep != nil {
			kept = b.keep.Bytes()
		}
		e := p.harEntry(ex, status, header, kept, b.size, time.Now())
		e.Response.Content.SHA256 = hex.EncodeToString(b.h.Sum(nil))
		p.rec.add(e)
	}}
	if p.rec.bodies {
		hb.keep = &bytes.Buffer{}
	}
	resp.Body = hb
	return nil
}

// folderItems is the route of uploads, whose entries a recording ties to
// their items.
var folderItems = sync.OnceValue(func() *pathTemplate {
	t, err := parsePathTemplate(apiroutes.FolderItems)
	if err != nil {
		panic(err)
	}
	return &t
})

// harEntry makes the recording's entry of an exchange: body is the
// answer's (whole for JSON; kept bytes, or none, for a streamed one) and
// size its size.
func (p *Proxy) harEntry(ex *proxyExchange, status int, header http.Header, body []byte, size int64, end time.Time) harEntry {
	key := ex.key
	e := harEntry{
		StartedDateTime: ex.start.UTC(),
		Time:            millis(end.Sub(ex.start)),
		Request: harRequest{
			Method: ex.method, URL: redactSecretString(strings.TrimSuffix(p.Target, "/")+ex.target, key), HTTPVersion: "HTTP/1.1",
			Cookies: []harNameValue{}, Headers: harHeaders(ex.header, key), QueryString: harQuery(ex.rawQuery, key), HeadersSize: -1, BodySize: 0,
		},
		Response: harResponse{
			Status: status, StatusText: http.StatusText(status), HTTPVersion: "HTTP/1.1", Cookies: []harNameValue{},
			Headers: harHeaders(header, key), RedirectURL: redactSecretString(header.Get("Location"), key), HeadersSize: -1, BodySize: size,
			Content: harBody{Size: size, MimeType: header.Get("Content-Type")},
		},
		Timings: harTimings{Send: 0, Wait: millis(ex.headersAt.Sub(ex.start)), Receive: millis(end.Sub(ex.headersAt))},
	}
	e.Request.PostData, e.Request.BodySize = p.harPostData(ex)
	if len(body) > 0 {
		e.Response.Content.Text, e.Response.Content.Encoding = inlineBody(e.Response.Content.MimeType, body, key, p.rec.bodies)
		if e.Response.Content.Text == "" || e.Response.Content.Encoding != "" {
			e.Response.Content.SHA256 = sha256Hex(body)
		}
	}
	if ex.method == http.MethodPost && status == http.StatusCreated && folderItems().match(ex.path, nil) {
		e.Profilesvc = uploadInfo(ex, body)
	}
	return e
}

// harPostData is the recording's form of a request's body, and its size.
func (p *Proxy) harPostData(ex *proxyExchange) (*harPostData, int64) {
	if ex.body == nil {
		return nil, 0
	}
	ct := ex.header.Get("Content-Type")
	pd := &harPostData{MimeType: ct}
	data := ex.body.buf.Bytes()
	switch {
	case ex.upload != nil:
		pd.SHA256, _ = ex.upload.result()
		if p.rec.bodies && !ex.body.overflow {
			pd.Text, pd.Encoding = base64.StdEncoding.EncodeToString(redactSecret(data, ex.key)), "base64"
		}
	case ex.body.overflow:
		// Larger than what is kept: its size only.
	default:
		pd.Text, pd.Encoding = inlineBody(ct, data, ex.key, p.rec.bodies)
		if pd.Text == "" || pd.Encoding != "" {
			pd.SHA256 = sha256Hex(data)
		}
	}
	return pd, ex.body.total
}

// uploadInfo ties an upload's entry to its item: the digest of its
// content (a file's, from the tap; a text's or a JSON item's, from the
// body) and the item ID of the answer.
func uploadInfo(ex *proxyExchange, answer []byte) *harUploadInfo {
	var info harUploadInfo
	var item struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(answer, &item) == nil {
		info.ItemID = item.ID
	}
	switch {
	case ex.upload != nil:
		info.SHA256, _ = ex.upload.result()
	case ex.body != nil && !ex.body.overflow:
		var req struct {
			Type    profilesvc.ItemType `json:"type"`
			Content json.RawMessage     `json:"content"`
		}
		if json.Unmarshal(ex.body.buf.Bytes(), &req) == nil && len(req.Content) > 0 {
			info.SHA256, _ = itemDigest(req.Type, req.Content)
		}
	}
	if info.SHA256 == "" {
		return nil
	}
	return &info
}

// finishExchange records a forwarded exchange, checks it against the
// document and counts it. checkable is false for a JSON answer too large
// to check.
func (p *Proxy) finishExchange(ex *proxyExchange, status int, header http.Header, body []byte, whole, checkable bool) {
	requestID := header.Get(requestIDHeader)
	ex.status, ex.requestID = status, requestID
	p.recordExchange(ex, status, requestID)
	if !checkable {
		p.obs.count(ex.method, redactSecretString(ex.path, ex.key), status, header, nil, nil)
		return
	}
	check := p.check.Check
	var reqBody []byte
	if ex.body != nil {
		if ex.body.overflow || !ex.body.eof {
			check = p.check.CheckAnswer // the request's body was not kept whole
		} else {
			reqBody = ex.body.buf.Bytes()
		}
	}
	err := check(context.Background(), openapicheck.Exchange{
		Method: ex.method, URL: ex.target, Header: ex.header, Body: reqBody,
		Status: status, ResponseHeader: header, ResponseBody: body,
	})
	if errors.Is(err, openapicheck.ErrNotInDocument) {
		err = nil
	}
	var jsonBody []byte
	if whole {
		jsonBody = body
	}
	found := p.obs.count(ex.method, redactSecretString(ex.path, ex.key), status, header, jsonBody, err)
	for _, v := range found {
		v.RequestID = requestID
		v.Path, v.Message = redactSecretString(v.Path, ex.key), redactSecretString(v.Message, ex.key)
		p.obs.addViolation(v)
		if p.cfg.logger != nil {
			p.cfg.logger.Warn("the service's exchange disagrees with api/openapi.yaml",
				"operation", v.OperationID, "requestId", v.RequestID, "pointer", v.Pointer, "message", v.Message)
		}
	}
}

// recordExchange adds a forwarded request to the proxy's record, its
// headers redacted.
func (p *Proxy) recordExchange(ex *proxyExchange, status int, requestID string) {
	header := ex.header.Clone()
	for name, vs := range header {
		for i, v := range vs {
			vs[i] = redactSecretString(v, ex.key)
		}
		header[name] = vs
	}
	e := recordEntry{
		time: ex.start.UTC(), requestID: requestID, method: ex.method, path: redactSecretString(ex.path, ex.key),
		rawQuery: redactSecretString(ex.rawQuery, ex.key), header: header, status: status,
	}
	if ex.body != nil {
		b := ex.body.buf.Bytes()
		if len(b) > maxRecordedBody {
			b = b[:maxRecordedBody]
		}
		e.body = bytes.Clone(redactSecret(b, ex.key))
		e.bodyTruncated = ex.body.overflow || ex.body.buf.Len() > maxRecordedBody
		e.bodySize = ex.body.total
	}
	p.record.add(ex.gen, e)
}
