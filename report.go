package profilesvc

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
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
	// Filename is the file name the service gave, reduced to a base name,
	// with the API key masked should the service have echoed it;
	// "analysis_{id}_report.pdf" if it gave none.
	Filename string
	// ContentType is the answer's Content-Type: application/pdf (with the
	// API key masked in its parameters, as in Filename).
	ContentType string
	// ContentLength is the size in bytes, or -1 when unknown.
	ContentLength int64
	// Locale and IncludeRawData are the variant that was asked for: they
	// name the file SaveFile writes into a directory.
	Locale         Locale
	IncludeRawData bool

	// secret masks the API key in the errors of WriteTo and SaveFile; nil
	// for a Report the caller made.
	secret *secret
}

// WriteTo copies the whole report to w and closes the body.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	defer r.Body.Close()
	n, err := io.Copy(w, r.Body)
	if err != nil {
		return n, r.secret.maskErr(fmt.Errorf("profilesvc: reading report %s: %w", r.Filename, err))
	}
	return n, nil
}

// SaveFile writes the whole report to the file at path and closes the
// body. It returns the path written.
//
// A path that is an existing directory gets a file named after the
// report's Filename and variant, so that the variants of one analysis
// never overwrite each other: "<base>.pdf" for the English report without
// raw data, "<base>.<locale>.pdf" or "<base>.<locale>.raw.pdf" otherwise
// ("analysis_x_report.ko.raw.pdf"), where base is Filename without its
// ".pdf". Any other path is used as given.
//
// The report is written to a temporary file beside the target first, then
// renamed, so a failed download never leaves a truncated PDF at path. The
// file is created with mode 0644, less the process's umask.
func (r *Report) SaveFile(path string) (string, error) {
	defer r.Body.Close()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, r.variantFilename())
	}
	tmp, err := createPartFile(filepath.Dir(path))
	if err != nil {
		return "", r.secret.maskErr(fmt.Errorf("profilesvc: saving report: %w", err))
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
		return "", r.secret.maskErr(fmt.Errorf("profilesvc: saving report to %s: %w", path, err))
	}
	return path, nil
}

// variantFilename is the name SaveFile gives the report in a directory.
func (r *Report) variantFilename() string {
	base := r.Filename
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".pdf") {
		base = strings.TrimSuffix(base, ext)
	}
	locale := r.Locale
	if locale == "" {
		locale = LocaleEnglish
	}
	if locale == LocaleEnglish && !r.IncludeRawData {
		return base + ".pdf"
	}
	name := base + "." + string(locale)
	if r.IncludeRawData {
		name += ".raw"
	}
	return name + ".pdf"
}

// createPartFile creates a new temporary file in dir with mode 0644 less
// the umask (os.CreateTemp would make it 0600, which the rename keeps).
func createPartFile(dir string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, ".report-"+strconv.FormatUint(rand.Uint64(), 36)+".pdf.part")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary file name in %s", dir)
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
	r.stream = true
	var variant ReportParams
	if params != nil {
		variant = *params
		q := url.Values{}
		if params.Locale != "" {
			q.Set(apiroutes.QueryLocale, string(params.Locale))
		}
		if params.IncludeRawData {
			q.Set(apiroutes.QueryIncludeRawData, "true")
		}
		r.query = q
	}
	cc := newCallConfig(opts)
	resp, err := c.send(ctx, r, cc)
	if err != nil {
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(ct)
	br := bufio.NewReader(resp.Body)
	magic, _ := br.Peek(5)
	if mediaType != "application/pdf" || !bytes.Equal(magic, []byte("%PDF-")) {
		closeBody(resp.Body)
		return nil, c.secret.maskErr(fmt.Errorf("%w: GET %s answered %d with Content-Type %q and a body starting %q",
			ErrNotPDF, r.path, resp.StatusCode, c.secret.mask(ct), magic))
	}
	cc.keepResponse(resp)
	return &Report{
		Body:           readCloser{Reader: br, Closer: resp.Body},
		Filename:       reportFilename(resp.Header.Get("Content-Disposition"), analysisID, c.secret),
		ContentType:    c.secret.mask(ct),
		ContentLength:  resp.ContentLength,
		Locale:         variant.Locale,
		IncludeRawData: variant.IncludeRawData,
		secret:         c.secret,
	}, nil
}

// reportFilename takes the file name from a Content-Disposition header,
// with the API key masked (once the header's own encoding is decoded, and
// before the name is cut), reduced to a base name so that it cannot point
// elsewhere, with the service's naming as the fallback.
func reportFilename(disposition, analysisID string, secret *secret) string {
	fallback := "analysis_" + analysisID + "_report.pdf"
	_, params, err := mime.ParseMediaType(disposition)
	if err != nil {
		return fallback
	}
	name := secret.mask(params["filename"])
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

// SaveReport downloads a report and writes it to path, as DownloadReport
// followed by Report.SaveFile; it returns the path written. Into a
// directory, each variant gets a name of its own (see Report.SaveFile), so
// the English and the Korean report of one analysis can be saved side by
// side:
//
//	en, err := client.SaveReport(ctx, id, dir, nil)                                          // dir/<the server's file name>.pdf
//	ko, err := client.SaveReport(ctx, id, dir, &profilesvc.ReportParams{Locale: profilesvc.LocaleKorean}) // dir/<the same>.ko.pdf
func (c *Client) SaveReport(ctx context.Context, analysisID, path string, params *ReportParams, opts ...RequestOption) (string, error) {
	rep, err := c.DownloadReport(ctx, analysisID, params, opts...)
	if err != nil {
		return "", err
	}
	return rep.SaveFile(path)
}
