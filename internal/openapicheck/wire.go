package openapicheck

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
)

// Transport returns an http.RoundTripper that sends each request through
// next (http.DefaultTransport when nil) and checks it and its answer with
// Check, calling report with each error but ErrNotInDocument (a request
// outside the document, such as the mock's /_mock/ control API, is not
// checked). It reads the answer's body whole, and hands the caller a copy.
// A request that got no answer is not checked.
func (v *Validator) Transport(next http.RoundTripper, report func(error)) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		var body []byte
		if req.Body != nil && req.Body != http.NoBody {
			b, err := io.ReadAll(req.Body)
			_ = req.Body.Close()
			if err != nil {
				return nil, err
			}
			body = b
			req = req.Clone(req.Context())
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		resp, err := next.RoundTrip(req)
		if err != nil {
			return resp, err
		}
		answer, readErr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(answer))
		if readErr != nil {
			return resp, readErr
		}
		v.reportCheck(req, body, resp.StatusCode, resp.Header, answer, report)
		return resp, nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Handler returns an http.Handler that serves each request with next and
// checks it and its answer with Check once next has returned, calling
// report with each error but ErrNotInDocument. It passes flushes,
// hijacking and http.ResponseController through.
//
// It checks the exchange as it went over the wire. The request's body is
// what next read of it: the Handler reads no more, so that a server that
// refuses a body without reading it still does. An answer to HEAD has no
// body, whatever next wrote, since net/http sends none. Not checked: an
// answer whose connection was hijacked (a dropped connection), and a
// request whose client left before any answer began, which had none.
func (v *Validator) Handler(next http.Handler, report func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A path outside the document's (the mock's /_mock/ routes) is
		// served without keeping a copy of its request and answer, which
		// Check would refuse to judge (ErrNotInDocument): a snapshot
		// streamed to a slow client costs no more than without the check.
		if !v.underPaths(r.URL.EscapedPath()) {
			next.ServeHTTP(w, r)
			return
		}
		var body bytes.Buffer
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(r.Body, &body), r.Body}
		}
		rec := &recorder{ResponseWriter: w, head: r.Method == http.MethodHead}
		next.ServeHTTP(rec, r)
		if rec.hijacked || rec.status == 0 && r.Context().Err() != nil {
			return
		}
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		header := rec.header
		if header == nil { // nothing written: net/http sends the headers now
			header = w.Header().Clone()
		}
		v.reportCheck(r, body.Bytes(), status, header, rec.body.Bytes(), report)
	})
}

// reportCheck checks one exchange and reports its error.
func (v *Validator) reportCheck(r *http.Request, body []byte, status int, header http.Header, answer []byte, report func(error)) {
	err := v.Check(r.Context(), Exchange{
		Method: r.Method, URL: r.URL.RequestURI(), Header: r.Header, Body: body,
		Status: status, ResponseHeader: header, ResponseBody: answer,
	})
	if err != nil && !errors.Is(err, ErrNotInDocument) {
		report(err)
	}
}

// recorder keeps a copy of the answer a handler writes, as net/http sends
// it: the headers as they were when the status was written (later changes
// are not sent), with the Content-Type net/http sniffs from the body when
// the handler set none; of an answer to HEAD, none of its body, which is
// not sent.
type recorder struct {
	http.ResponseWriter
	head     bool
	status   int
	header   http.Header // nil until the status is written
	sniffed  bool
	body     bytes.Buffer
	hijacked bool
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
		r.header = r.ResponseWriter.Header().Clone()
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
		r.header = r.ResponseWriter.Header().Clone()
	}
	if !r.sniffed && len(b) > 0 {
		r.sniffed = true
		if _, set := r.header["Content-Type"]; !set && r.header.Get("Transfer-Encoding") == "" {
			r.header.Set("Content-Type", http.DetectContentType(b))
		}
	}
	if !r.head {
		r.body.Write(b)
	}
	return r.ResponseWriter.Write(b)
}

// Flush passes a flush through.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Hijack passes hijacking through; the exchange is then not checked.
func (r *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := r.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	r.hijacked = true
	return hj.Hijack()
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
