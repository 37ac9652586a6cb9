package profilesvc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// Locale is the language of a report.
type Locale string

// Report locales.
const (
	LocaleEnglish Locale = "en"
	LocaleKorean  Locale = "ko"
)

// ReportParams choose the variant of a report. The zero value (or nil) asks
// for the English report without raw data.
type ReportParams struct {
	// Locale is en (default) or ko.
	Locale Locale
	// IncludeRawData adds the raw extracted data to the report.
	IncludeRawData bool
}

// Report is a PDF report being downloaded. Its Body streams from the
// network: read it, or use WriteTo or SaveFile, and close it.
type Report struct {
	// Body gives the PDF's bytes. The caller must close it.
	Body io.ReadCloser
	// Filename is the file name the service gave, reduced to a base name;
	// "analysis_{id}_report.pdf" if it gave none.
	Filename string
	// ContentType is the answer's Content-Type: application/pdf.
	ContentType string
	// ContentLength is the size in bytes, or -1 when unknown.
	ContentLength int64
}

// WriteTo copies the whole report to w and closes the body.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	defer r.Body.Close()
	n, err := io.Copy(w, r.Body)
	if err != nil {
		return n, fmt.Errorf("profilesvc: reading report %s: %w", r.Filename, err)
	}
	return n, nil
}

// SaveFile writes the whole report to the file at path (an existing
// directory means the report's Filename inside it) and closes the body. It
// writes to a temporary file first, so a failed download never leaves a
// truncated PDF at path. It returns the path written.
func (r *Report) SaveFile(path string) (string, error) {
	defer r.Body.Close()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, r.Filename)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".report-*.pdf.part")
	if err != nil {
		return "", fmt.Errorf("profilesvc: saving report: %w", err)
	}
	_, err = r.WriteTo(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("profilesvc: saving report to %s: %w", path, err)
	}
	return path, nil
}

// DownloadReport starts the download of a completed analysis's PDF report
// and returns it as it streams: nothing is buffered whole. An analysis that
// has not completed gets ErrReportNotAvailable; a successful answer that is
// not a PDF gets ErrNotPDF rather than a corrupt file. params may be nil.
//
// The client's request timeout covers reading the body too; use
// WithTimeout for a slow reader.
//
// GET /v1/analyses/{analysisId}/report
func (c *Client) DownloadReport(ctx context.Context, analysisID string, params *ReportParams, opts ...RequestOption) (*Report, error) {
	r, err := newRequest(http.MethodGet, apiroutes.AnalysisReport, analysisID)
	if err != nil {
		return nil, err
	}
	r.accept = "application/pdf"
	if params != nil {
		q := url.Values{}
		if params.Locale != "" {
			q.Set("locale", string(params.Locale))
		}
		if params.IncludeRawData {
			q.Set("includeRawData", "true")
		}
		r.query = q
	}
	resp, err := c.send(ctx, r, opts)
	if err != nil {
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(ct)
	br := bufio.NewReader(resp.Body)
	magic, _ := br.Peek(5)
	if mediaType != "application/pdf" || !bytes.Equal(magic, []byte("%PDF-")) {
		closeBody(resp.Body)
		return nil, fmt.Errorf("%w: GET %s answered %d with Content-Type %q and a body starting %q",
			ErrNotPDF, r.path, resp.StatusCode, ct, magic)
	}
	return &Report{
		Body:          readCloser{Reader: br, Closer: resp.Body},
		Filename:      reportFilename(resp.Header.Get("Content-Disposition"), analysisID),
		ContentType:   ct,
		ContentLength: resp.ContentLength,
	}, nil
}

// reportFilename takes the file name from a Content-Disposition header,
// reduced to a base name so that it cannot point elsewhere, with the
// service's naming as the fallback.
func reportFilename(disposition, analysisID string) string {
	fallback := "analysis_" + analysisID + "_report.pdf"
	_, params, err := mime.ParseMediaType(disposition)
	if err != nil {
		return fallback
	}
	name := params["filename"]
	name = strings.ReplaceAll(name, "\\", "/")
	name = filepath.Base(name)
	if name == "." || name == "/" || name == ".." || name == "" {
		return fallback
	}
	return name
}

type readCloser struct {
	io.Reader
	io.Closer
}

// SaveReport downloads a report and writes it to path, as
// DownloadReport followed by Report.SaveFile; it returns the path written.
func (c *Client) SaveReport(ctx context.Context, analysisID, path string, params *ReportParams, opts ...RequestOption) (string, error) {
	rep, err := c.DownloadReport(ctx, analysisID, params, opts...)
	if err != nil {
		return "", err
	}
	return rep.SaveFile(path)
}
