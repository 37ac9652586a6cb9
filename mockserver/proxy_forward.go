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
	"sync/atomic"
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
// bytes. The transport may still be reading the body when the service has
// answered (a 413 before the upload's end): the answer's check reads the
// capture through snapshot, under the lock.
type captureReader struct {
	io.ReadCloser
	limit int

	mu       sync.Mutex
	buf      bytes.Buffer
	overflow bool  // there was more than limit
	eof      bool  // the body was read to its end
	total    int64 // the bytes read
}

func (c *captureReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
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

// capture is what a captureReader has seen of a body, at one moment.
type capture struct {
	data     []byte // a copy
	overflow bool
	eof      bool
	total    int64
}

// whole reports whether data is the whole body.
func (c capture) whole() bool { return c.eof && !c.overflow }

// snapshot returns what the reader has seen so far; a nil reader has seen
// no body.
func (c *captureReader) snapshot() capture {
	if c == nil {
		return capture{eof: true}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return capture{data: bytes.Clone(c.buf.Bytes()), overflow: c.overflow, eof: c.eof, total: c.total}
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
// maxCheckedAnswerBody, within the memory all answers under way may hold,
// maxHeldAnswers; beyond either, it goes on unchecked), of any other the
// first bytes (a report streams on from there). That reading is bounded
// by the proxy's timeout too: a service that begins an answer and stalls
// gets the client a 504, not a wait without end. An answer in a
// Content-Encoding the proxy did not undo is passed on unchecked, and
// recorded by its size and digest only. Then the answer goes on, the
// bytes read first and the rest as it comes.
func (p *Proxy) observeAnswer(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(proxyExchangeKey{}).(*proxyExchange)
	if ex == nil {
		return nil
	}
	encoded := contentEncoded(resp.Header)
	whole := isJSON(resp.Header.Get("Content-Type")) && !encoded
	held := &heldAnswer{budget: p.answers}
	head, complete, err := p.readHead(ex, resp, whole, encoded, held)
	if err != nil {
		held.release()
		return err // 504 for a stall, 502 for a service that broke off
	}
	ex.answered = true
	ex.headersAt = time.Now()
	header := resp.Header.Clone()
	checkable := !encoded && (!whole || complete)
	p.finishExchange(ex, resp.StatusCode, header, head, whole, checkable)
	body := &closeHook{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), Closer: resp.Body, hook: held.release}
	resp.Body = body
	if p.rec == nil {
		return nil
	}
	if whole && complete {
		p.rec.add(p.harEntry(ex, resp.StatusCode, header, head, int64(len(head)), time.Now()))
		return nil
	}
	// Streamed: recorded once it has passed, with its size and digest.
	status := resp.StatusCode
	hb := &bodyHasher{ReadCloser: body, h: sha256.New(), length: resp.ContentLength, done: func(b *bodyHasher) {
		var kept []byte
		if b.keep != nil {
			kept = b.keep.Bytes()
		}
		e := p.harEntry(ex, status, header, kept, b.size, time.Now())
		e.Response.Content.SHA256 = hex.EncodeToString(b.h.Sum(nil))
		p.rec.add(e)
	}}
	if p.rec.bodies && !encoded {
		// An encoded body's bytes are never kept: the key could not be
		// searched for in them.
		hb.keep = &bytes.Buffer{}
	}
	resp.Body = hb
	return nil
}

// readHead reads what the check needs of an answer, within what is left
// of the proxy's timeout: a JSON answer whole, up to maxCheckedAnswerBody
// and while held can take its bytes (complete is false when it could
// not), of another the first len(pdfSignature) bytes, of an encoded one
// nothing.
func (p *Proxy) readHead(ex *proxyExchange, resp *http.Response, whole, encoded bool, held *heldAnswer) (head []byte, complete bool, err error) {
	if encoded {
		return nil, false, nil
	}
	left := p.cfg.timeout - time.Since(ex.start)
	if left <= 0 {
		_ = resp.Body.Close()
		return nil, false, errUpstreamTimeout
	}
	var stalled atomic.Bool
	timer := time.AfterFunc(left, func() {
		stalled.Store(true)
		_ = resp.Body.Close()
	})
	defer timer.Stop()
	if whole {
		head, complete, err = readWhole(resp.Body, held)
	} else {
		head, err = readPrefix(resp.Body, len(pdfSignature))
	}
	if stalled.Load() {
		return nil, false, errUpstreamTimeout
	}
	return head, complete, err
}

// readWhole reads a JSON answer up to maxCheckedAnswerBody, taking each
// piece from held's budget first; complete is false when it stopped
// before the end, for either bound.
func readWhole(r io.Reader, held *heldAnswer) ([]byte, bool, error) {
	var buf []byte
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			if len(buf)+n > maxCheckedAnswerBody || !held.take(n) {
				return append(buf, chunk[:n]...), false, nil
			}
			buf = append(buf, chunk[:n]...)
		}
		if errors.Is(err, io.EOF) {
			return buf, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// maxHeldAnswers is the memory the JSON answers read whole for their
// check may hold at once, all requests together.
const maxHeldAnswers = 256 << 20

// heldAnswer is the share of maxHeldAnswers one answer holds, given back
// once the answer has gone on.
type heldAnswer struct {
	budget *budget
	n      int64
	once   sync.Once
}

func (h *heldAnswer) take(n int) bool {
	if !h.budget.take(int64(n)) {
		return false
	}
	h.n += int64(n)
	return true
}

func (h *heldAnswer) release() { h.once.Do(func() { h.budget.give(h.n) }) }

// closeHook calls hook once the body is closed.
type closeHook struct {
	io.Reader
	io.Closer
	hook func()
}

func (c *closeHook) Close() error {
	err := c.Closer.Close()
	c.hook()
	return err
}

// contentEncoded reports an answer in a Content-Encoding other than
// identity: one the transport did not undo.
func contentEncoded(h http.Header) bool {
	ce := strings.TrimSpace(h.Get("Content-Encoding"))
	return ce != "" && !strings.EqualFold(ce, "identity")
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
	c := ex.body.snapshot()
	switch {
	case ex.upload != nil:
		pd.SHA256, _ = ex.upload.result()
		if p.rec.bodies && c.whole() {
			pd.Text, pd.Encoding = base64.StdEncoding.EncodeToString(redactSecret(c.data, ex.key)), "base64"
		}
	case !c.whole():
		// Larger than what is kept, or not sent whole: its size only.
	default:
		pd.Text, pd.Encoding = inlineBody(ct, c.data, ex.key, p.rec.bodies)
		if pd.Text == "" || pd.Encoding != "" {
			pd.SHA256 = sha256Hex(c.data)
		}
	}
	return pd, c.total
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
	case ex.body != nil && ex.body.snapshot().whole():
		var req struct {
			Type    profilesvc.ItemType `json:"type"`
			Content json.RawMessage     `json:"content"`
		}
		if json.Unmarshal(ex.body.snapshot().data, &req) == nil && len(req.Content) > 0 {
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
		if c := ex.body.snapshot(); c.whole() {
			reqBody = c.data
		} else {
			check = p.check.CheckAnswer // the request's body was not kept whole
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
	e := recordEntry{
		time: ex.start.UTC(), requestID: requestID, method: ex.method, path: redactSecretString(ex.path, ex.key),
		rawQuery: redactSecretString(ex.rawQuery, ex.key), header: ex.header, status: status,
	}
	if ex.body != nil {
		c := ex.body.snapshot()
		b := c.data
		if len(b) > maxRecordedBody {
			b = b[:maxRecordedBody]
		}
		e.body = bytes.Clone(redactSecret(b, ex.key))
		e.bodyTruncated = c.overflow || len(c.data) > maxRecordedBody
		e.bodySize = c.total
	}
	p.record.add(ex.gen, e)
}
