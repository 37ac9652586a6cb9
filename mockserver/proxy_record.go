package mockserver

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// A proxy with a recording (WithProxyRecording, the binary's -record
// FILE) keeps every exchange it forwards as an entry of an HTTP Archive
// (HAR 1.2), the format browsers' developer tools, Charles and Fiddler
// open, and writes it whole, atomically, at shutdown and on POST
// /_mock/recording. What it keeps:
//
//   - the request: method, URL, headers, query, and a JSON or text body
//     inline (up to maxInlineBody); of an upload, its size and SHA-256;
//   - the answer: status, headers, a JSON or text body inline (up to
//     maxInlineBody); of a PDF or any other body, its size and SHA-256;
//     with WithProxyRecordBodies, those bytes too, in base64;
//   - timings: the wait for the answer's headers and the receiving of
//     its body;
//   - for an upload (a file, a text or a JSON item), in the custom field
//     _profilesvc, the SHA-256 of the item's content as uploaded and the
//     ID the service gave the item, by which a replaying mock finds the
//     documents of a recorded analysis (see itemDigest).
//
// The key never reaches the file: x-api-key is REDACTED, and so is any
// occurrence of the key's value in a URL, a header or a body, whatever its
// case or escaping (redactSecret).

// ErrRecordingNotSaved is matched by the error of a write of a proxy's
// recording that failed (Shutdown, WriteRecording): the file keeps what it
// held before.
var ErrRecordingNotSaved = errors.New("mockserver: the recording was not written")

// maxInlineBody is the largest JSON or text body a recording holds inline.
const maxInlineBody = 1 << 20

// maxRecordedUpload is the most of a request's body a recording with
// WithProxyRecordBodies keeps: the mock's largest upload, and a margin for
// the multipart framing.
const maxRecordedUpload = DefaultMaxUploadSize + 1<<20

// maxRecordingBytes bounds what a recording holds in memory; past it,
// entries keep their bodies' sizes and digests only. maxRecordingEntries
// bounds its entries; past it, exchanges are counted, not kept (the
// archive's comment says how many).
const (
	maxRecordingBytes   = 256 << 20
	maxRecordingEntries = 200_000
)

// WithProxyRecording records the exchanges the proxy forwards to path, an
// HTTP Archive written at shutdown and on POST /_mock/recording. The
// binary's -record FILE.
func WithProxyRecording(path string) ProxyOption {
	return func(c *proxyConfig) { c.recordPath = path }
}

// WithProxyRecordBodies keeps in the recording the bytes of uploads and of
// answers that are neither JSON nor text (PDF reports), in base64, not
// only their sizes and digests. The binary's -record-bodies.
func WithProxyRecordBodies() ProxyOption {
	return func(c *proxyConfig) { c.recordBodies = true }
}

// harLog is an HTTP Archive.
type harLog struct {
	Log harContent `json:"log"`
}

type harContent struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Entries []harEntry `json:"entries"`
	Comment string     `json:"comment,omitempty"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime time.Time      `json:"startedDateTime"`
	Time            float64        `json:"time"`
	Request         harRequest     `json:"request"`
	Response        harResponse    `json:"response"`
	Cache           struct{}       `json:"cache"`
	Timings         harTimings     `json:"timings"`
	Profilesvc      *harUploadInfo `json:"_profilesvc,omitempty"`
}

type harNameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string         `json:"method"`
	URL         string         `json:"url"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []harNameValue `json:"cookies"`
	Headers     []harNameValue `json:"headers"`
	QueryString []harNameValue `json:"queryString"`
	PostData    *harPostData   `json:"postData,omitempty"`
	HeadersSize int            `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	// Encoding and SHA256 are this recording's own: base64 for bytes
	// kept with WithProxyRecordBodies; the digest of a body not inline.
	Encoding string `json:"_encoding,omitempty"`
	SHA256   string `json:"_sha256,omitempty"`
}

type harResponse struct {
	Status      int            `json:"status"`
	StatusText  string         `json:"statusText"`
	HTTPVersion string         `json:"httpVersion"`
	Cookies     []harNameValue `json:"cookies"`
	Headers     []harNameValue `json:"headers"`
	Content     harBody        `json:"content"`
	RedirectURL string         `json:"redirectURL"`
	HeadersSize int            `json:"headersSize"`
	BodySize    int64          `json:"bodySize"`
}

type harBody struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
	SHA256   string `json:"_sha256,omitempty"`
}

type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// harUploadInfo ties an upload's entry to its item: the SHA-256 of the
// item's content (itemDigest) and the service's item ID.
type harUploadInfo struct {
	SHA256 string `json:"sha256"`
	ItemID string `json:"itemId,omitempty"`
}

// recording is a proxy's HTTP Archive under way.
type recording struct {
	path   string
	bodies bool

	mu      sync.Mutex
	entries []harEntry
	held    int64 // the bytes the entries hold
	dropped int   // entries not kept, past maxRecordingEntries

	writeMu sync.Mutex // one write of the file at a time
}

func newRecording(path string, bodies bool) *recording {
	return &recording{path: path, bodies: bodies}
}

// add keeps an entry.
func (rec *recording) add(e harEntry) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.entries) >= maxRecordingEntries {
		rec.dropped++
		return
	}
	size := int64(len(e.Response.Content.Text))
	if e.Request.PostData != nil {
		size += int64(len(e.Request.PostData.Text))
	}
	if rec.held+size > maxRecordingBytes {
		e.Response.Content.Text, e.Response.Content.Encoding = "", ""
		if e.Request.PostData != nil {
			e.Request.PostData.Text, e.Request.PostData.Encoding = "", ""
		}
		size = 0
	}
	// What the entry holds beside its bodies counts too: its URL and
	// headers, which a service may make large.
	size += int64(256 + len(e.Request.URL))
	for _, h := range [][]harNameValue{e.Request.Headers, e.Response.Headers, e.Request.QueryString} {
		for _, nv := range h {
			size += int64(len(nv.Name) + len(nv.Value))
		}
	}
	rec.held += size
	rec.entries = append(rec.entries, e)
}

// har returns the archive as it stands.
func (rec *recording) har() harLog {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	h := harLog{Log: harContent{Version: "1.2", Creator: harCreator{Name: "profilesvc-mock", Version: profilesvc.Version}, Entries: slices.Clone(rec.entries)}}
	if rec.dropped > 0 {
		h.Log.Comment = fmt.Sprintf("%d later exchanges were not recorded: a recording keeps %d", rec.dropped, maxRecordingEntries)
	}
	return h
}

// encode returns the archive in JSON.
func (rec *recording) encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec.har()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// write writes the archive to its file, whole: to a file beside it,
// synced, then renamed over it, so that the file always holds a whole
// archive. It returns the bytes written.
func (rec *recording) write() ([]byte, error) {
	rec.writeMu.Lock()
	defer rec.writeMu.Unlock()
	data, err := rec.encode()
	if err != nil || rec.path == "" {
		return data, err
	}
	part, err := writeSynced(rec.path, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRecordingNotSaved, err)
	}
	if err := os.Rename(part, rec.path); err != nil {
		_ = os.Remove(part)
		return nil, fmt.Errorf("%w: %w", ErrRecordingNotSaved, err)
	}
	syncDir(filepath.Dir(rec.path))
	return data, nil
}

// writeSynced writes data to a new file beside path, made for the write
// (never one that exists, nor through a link someone left there), syncs
// it, and returns its name; on an error, nothing is left behind.
func writeSynced(path string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return "", err
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", err
	}
	w := bufio.NewWriter(f)
	if _, err := w.Write(data); err != nil {
		return fail(err)
	}
	if err := w.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// checkRecordingPath checks, at start, that the recording can be written
// where it is asked for.
func checkRecordingPath(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("the recording %s: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("the recording %s: %s is not a directory", path, dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("the recording %s is a directory", path)
	}
	f, err := os.CreateTemp(dir, ".profilesvc-recording-check-*")
	if err != nil {
		return fmt.Errorf("the recording %s cannot be written: %w", path, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// itemDigest is the SHA-256, in hex, of an item's content as uploaded:
// a file's bytes; a text item's text in UTF-8; a JSON item's value
// encoded with sorted keys, no insignificant whitespace and no HTML
// escaping, its numbers as Go's float64 writes them (1.0 as 1). A
// replaying mock computes it of its own items the same way.
func itemDigest(kind profilesvc.ItemType, content []byte) (string, error) {
	switch kind {
	case profilesvc.ItemText:
		var s string
		if err := json.Unmarshal(content, &s); err != nil {
			return "", fmt.Errorf("the text item's content is not a string: %w", err)
		}
		content = []byte(s)
	case profilesvc.ItemJSON:
		canon, err := canonicalJSON(content)
		if err != nil {
			return "", err
		}
		content = canon
	}
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:]), nil
}

// canonicalJSON re-encodes a JSON value with sorted keys, no
// insignificant whitespace and no HTML escaping, its numbers as float64s.
func canonicalJSON(raw []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("the JSON item's content is not JSON: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// uploadTap hashes the part "file" of a multipart upload as the body
// passes through the proxy, without holding it: the body is fed to a
// multipart reader in a goroutine of its own.
type uploadTap struct {
	io.ReadCloser
	pw   *io.PipeWriter
	done chan struct{}
	// Set by the goroutine before done closes.
	digest string
	size   int64
}

// newUploadTap taps body, a multipart/form-data body with the boundary.
func newUploadTap(body io.ReadCloser, boundary string) *uploadTap {
	pr, pw := io.Pipe()
	t := &uploadTap{ReadCloser: body, pw: pw, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		mr := multipart.NewReader(pr, boundary)
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			if part.FormName() == "file" && t.digest == "" {
				h := sha256.New()
				n, err := io.Copy(h, part)
				if err == nil {
					t.digest, t.size = hex.EncodeToString(h.Sum(nil)), n
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr) // the rest, so that the tee never blocks
	}()
	return t
}

func (t *uploadTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 {
		_, _ = t.pw.Write(p[:n])
	}
	if err != nil {
		_ = t.pw.Close()
	}
	return n, err
}

// result waits for the tap's goroutine, once the body is done with, and
// returns the file's digest ("" when the body had no whole file part).
func (t *uploadTap) result() (string, int64) {
	_ = t.pw.Close()
	<-t.done
	return t.digest, t.size
}

// bodyHasher counts and hashes an answer's body as it streams to the
// client, keeping its bytes only when asked to. done is called once: as
// soon as the body's last byte has been read from the service (its
// Content-Length reached, or its end), before that byte goes on to the
// client, so that the entry is in the recording by the time the client
// has the whole answer; else at Close, for a body cut short.
type bodyHasher struct {
	io.ReadCloser
	h      hash.Hash
	size   int64
	length int64 // the Content-Length, or -1
	keep   *bytes.Buffer
	done   func(*bodyHasher)
	called bool
}

func (b *bodyHasher) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.h.Write(p[:n])
		b.size += int64(n)
		if b.keep != nil && b.keep.Len() < maxCheckedAnswerBody {
			b.keep.Write(p[:n])
		}
	}
	if errors.Is(err, io.EOF) || b.length >= 0 && b.size >= b.length {
		b.finish()
	}
	return n, err
}

func (b *bodyHasher) Close() error {
	err := b.ReadCloser.Close()
	b.finish()
	return err
}

func (b *bodyHasher) finish() {
	if !b.called {
		b.called = true
		b.done(b)
	}
}

// harHeaders lists headers for a recording, sorted, every value of the
// key redacted, x-api-key replaced whole.
func harHeaders(h http.Header, key string) []harNameValue {
	out := []harNameValue{}
	for _, name := range slices.Sorted(mapsKeys(h)) {
		for _, v := range h[name] {
			if http.CanonicalHeaderKey(name) == "X-Api-Key" {
				v = redactedValue
			}
			out = append(out, harNameValue{Name: redactSecretString(name, key), Value: redactSecretString(v, key)})
		}
	}
	return out
}

// harQuery lists a raw query's parameters, redacted.
func harQuery(rawQuery, key string) []harNameValue {
	out := []harNameValue{}
	values, _ := url.ParseQuery(rawQuery)
	for _, name := range slices.Sorted(mapsKeys(values)) {
		for _, v := range values[name] {
			out = append(out, harNameValue{Name: redactSecretString(name, key), Value: redactSecretString(v, key)})
		}
	}
	return out
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// isText reports whether a media type's body is text a recording holds
// inline.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return isJSON(contentType) || len(mt) > 5 && mt[:5] == "text/"
}

// inlineBody is a body as a recording holds it: text inline (redacted),
// up to maxInlineBody; else its digest, and with bodies its bytes in
// base64 (redacted).
func inlineBody(contentType string, data []byte, key string, bodies bool) (text, encoding string) {
	if isText(contentType) && len(data) <= maxInlineBody {
		return string(redactSecret(data, key)), ""
	}
	if bodies {
		return base64.StdEncoding.EncodeToString(redactSecret(data, key)), "base64"
	}
	return "", ""
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
