package profilesvc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDownloadReport_Streams(t *testing.T) {
	t.Parallel()
	first := fakePDF(32 << 10)
	second := bytes.Repeat([]byte("second chunk\n"), 4096)
	release := make(chan struct{})
	var releaseOnce sync.Once
	doRelease := func() { releaseOnce.Do(func() { close(release) }) }
	var secondWritten atomic.Bool

	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", `attachment; filename="analysis_1_report.pdf"`)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(first)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		case <-time.After(5 * time.Second):
		}
		secondWritten.Store(true)
		_, _ = w.Write(second)
	})
	t.Cleanup(doRelease) // before the server closes

	rep, err := srv.client(t).DownloadReport(context.Background(), "analysis_1", nil)
	require.NoError(t, err)
	defer rep.Body.Close()
	assert.False(t, secondWritten.Load(), "DownloadReport returned before the whole body was sent")

	got := make([]byte, len(first))
	_, err = io.ReadFull(rep.Body, got)
	require.NoError(t, err)
	assert.Equal(t, first, got)
	assert.False(t, secondWritten.Load(), "the first chunk was readable before the rest was sent")

	doRelease()
	rest, err := io.ReadAll(rep.Body)
	require.NoError(t, err)
	assert.Equal(t, second, rest)
	assert.Equal(t, int64(-1), rep.ContentLength, "a chunked answer has no known length")
	assert.Equal(t, "application/pdf", rep.ContentType)
}

func TestDownloadReport_Request(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		params    *ReportParams
		wantQuery string
	}{
		{"nil params", nil, ""},
		{"zero params", &ReportParams{}, ""},
		{"korean with raw data", &ReportParams{Locale: LocaleKorean, IncludeRawData: true}, "includeRawData=true&locale=ko"},
		{"english", &ReportParams{Locale: LocaleEnglish}, "locale=en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdfServer(t, fakePDF(100), "")
			rep, err := srv.client(t).DownloadReport(context.Background(), "analysis_1", tt.params)
			require.NoError(t, err)
			require.NoError(t, rep.Body.Close())
			reqs := srv.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, http.MethodGet, reqs[0].Method)
			assert.Equal(t, "/v1/analyses/analysis_1/report", reqs[0].Path)
			assert.Equal(t, "application/pdf", reqs[0].Header.Get("Accept"))
			assert.Equal(t, testAPIKey, reqs[0].Header.Get("x-api-key"))
			assert.Equal(t, tt.wantQuery, reqs[0].Query.Encode())
		})
	}
}

func TestDownloadReport_Filename(t *testing.T) {
	t.Parallel()
	const id = "analysis_42"
	fallback := "analysis_" + id + "_report.pdf"
	tests := []struct {
		name        string
		disposition string
		want        string
	}{
		{"quoted", `attachment; filename="analysis_x_report.pdf"`, "analysis_x_report.pdf"},
		{"unquoted", `attachment; filename=analysis_x_report.pdf`, "analysis_x_report.pdf"},
		{"RFC 5987", `attachment; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf`, "résumé final.pdf"},
		{"path traversal", `attachment; filename="../../etc/passwd"`, "passwd"},
		{"encoded path traversal", `attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd`, "passwd"},
		{"absolute path", `attachment; filename="/tmp/x/report.pdf"`, "report.pdf"},
		{"windows path", `attachment; filename="..\\..\\Windows\\evil.pdf"`, "evil.pdf"},
		{"dot dot only", `attachment; filename=".."`, fallback},
		{"empty name", `attachment; filename=""`, fallback},
		{"no filename", `attachment`, fallback},
		{"inline", `inline`, fallback},
		{"malformed", `;;;`, fallback},
		{"missing header", "", fallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := pdfServer(t, fakePDF(100), tt.disposition)
			rep, err := srv.client(t).DownloadReport(context.Background(), id, nil)
			require.NoError(t, err)
			defer rep.Body.Close()
			assert.Equal(t, tt.want, rep.Filename)
			assert.Equal(t, filepath.Base(rep.Filename), rep.Filename, "a base name only")
		})
	}
}

func TestDownloadReport_ContentTypeAndLength(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		contentType string
	}{
		{"plain", "application/pdf"},
		{"with parameter", "application/pdf; name=report.pdf"},
		{"upper case", "Application/PDF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pdf := fakePDF(5000)
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.Header().Set("Content-Length", strconv.Itoa(len(pdf)))
				_, _ = w.Write(pdf)
			})
			rep, err := srv.client(t).DownloadReport(context.Background(), "analysis_1", nil)
			require.NoError(t, err)
			defer rep.Body.Close()
			assert.Equal(t, tt.contentType, rep.ContentType)
			assert.Equal(t, int64(len(pdf)), rep.ContentLength)
			got, err := io.ReadAll(rep.Body)
			require.NoError(t, err)
			assert.Equal(t, pdf, got)
		})
	}
}

func TestDownloadReport_NotPDF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		contentType string
		body        string
	}{
		{"html page", "text/html; charset=utf-8", "<!doctype html><html><body>Login</body></html>"},
		{"json", "application/json", `{"id":"analysis_1","status":"completed"}`},
		{"text with PDF bytes", "text/plain", "%PDF-1.7\nhello"},
		{"octet stream", "application/octet-stream", "\x00\x01\x02\x03\x04\x05"},
		{"pdf type without PDF bytes", "application/pdf", "this is not a PDF"},
		{"pdf type with html", "application/pdf", "<html>error</html>"},
		{"pdf type with too short body", "application/pdf", "%PD"},
		{"pdf type with empty body", "application/pdf", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, tt.body)
			})
			rep, err := srv.client(t).DownloadReport(context.Background(), "analysis_1", nil)
			assert.Nil(t, rep)
			require.ErrorIs(t, err, ErrNotPDF)
			var apiErr *APIError
			assert.False(t, errors.As(err, &apiErr), "a 200 answer is not an API error")
			assert.Len(t, srv.requests(), 1)

			dir := t.TempDir()
			_, err = srv.client(t).SaveReport(context.Background(), "analysis_1", dir, nil)
			assert.ErrorIs(t, err, ErrNotPDF)
			assert.Empty(t, dirEntries(t, dir), "nothing is written for a body that is not a PDF")
		})
	}
}

func TestDownloadReport_ErrorAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		code      string
		sentinels []error
	}{
		{"not completed", http.StatusBadRequest, CodeReportNotAvailable, []error{ErrReportNotAvailable}},
		{"unknown analysis", http.StatusNotFound, CodeAnalysisNotFound, []error{ErrAnalysisNotFound, ErrNotFound}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				respondError(w, tt.status, tt.code, "nope")
			})
			rep, err := srv.client(t).DownloadReport(context.Background(), "analysis_1", nil)
			assert.Nil(t, rep)
			for _, s := range tt.sentinels {
				assert.ErrorIs(t, err, s)
			}
			assert.NotErrorIs(t, err, ErrNotPDF)
			var apiErr *APIError
			if assert.ErrorAs(t, err, &apiErr) {
				assert.Equal(t, tt.status, apiErr.StatusCode)
				assert.Equal(t, tt.code, apiErr.Code)
			}
			assert.Len(t, srv.requests(), 1)
		})
	}
}

func TestReport_WriteTo(t *testing.T) {
	t.Parallel()
	t.Run("end to end", func(t *testing.T) {
		pdf := fakePDF(200 << 10)
		srv := pdfServer(t, pdf, `attachment; filename="analysis_1_report.pdf"`)
		rep, err := srv.client(t).DownloadReport(context.Background(), "analysis_1", nil)
		require.NoError(t, err)
		var buf bytes.Buffer
		n, err := rep.WriteTo(&buf)
		require.NoError(t, err)
		assert.Equal(t, int64(len(pdf)), n)
		assert.Equal(t, pdf, buf.Bytes())
	})

	t.Run("closes the body", func(t *testing.T) {
		body := &closeRecorder{Reader: bytes.NewReader(fakePDF(100))}
		rep := &Report{Body: body, Filename: "r.pdf", ContentType: "application/pdf", ContentLength: -1}
		_, err := rep.WriteTo(io.Discard)
		require.NoError(t, err)
		assert.True(t, body.closed.Load())
	})

	t.Run("read failure", func(t *testing.T) {
		body := &closeRecorder{Reader: io.MultiReader(strings.NewReader("%PDF-1.7 part"), iotest.ErrReader(errors.New("connection reset")))}
		rep := &Report{Body: body, Filename: "r.pdf"}
		var buf bytes.Buffer
		n, err := rep.WriteTo(&buf)
		assert.ErrorContains(t, err, "connection reset")
		assert.Equal(t, int64(len("%PDF-1.7 part")), n)
		assert.True(t, body.closed.Load())
	})
}

// processUmask is the process's umask, read from the mode of a file
// created with 0777.
func processUmask(t *testing.T) os.FileMode {
	t.Helper()
	name := filepath.Join(t.TempDir(), "probe")
	f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY, 0o777)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	fi, err := os.Stat(name)
	require.NoError(t, err)
	return 0o777 &^ fi.Mode().Perm()
}

func TestReport_SaveFile(t *testing.T) {
	t.Parallel()
	pdf := fakePDF(64 << 10)
	newReport := func(r io.Reader) (*Report, *closeRecorder) {
		body := &closeRecorder{Reader: r}
		return &Report{Body: body, Filename: "analysis_1_report.pdf", ContentType: "application/pdf", ContentLength: int64(len(pdf))}, body
	}

	t.Run("to a path", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "my.pdf")
		rep, body := newReport(bytes.NewReader(pdf))
		got, err := rep.SaveFile(target)
		require.NoError(t, err)
		assert.Equal(t, target, got)
		data, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, pdf, data)
		assert.True(t, body.closed.Load())
		if diff := cmp.Diff([]string{"my.pdf"}, dirEntries(t, dir)); diff != "" {
			t.Errorf("a temporary file is left (-want +got):\n%s", diff)
		}
	})

	t.Run("replaces an existing file", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "my.pdf")
		require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
		rep, _ := newReport(bytes.NewReader(pdf))
		_, err := rep.SaveFile(target)
		require.NoError(t, err)
		data, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, pdf, data)
	})

	t.Run("into a directory", func(t *testing.T) {
		dir := t.TempDir()
		rep, _ := newReport(bytes.NewReader(pdf))
		got, err := rep.SaveFile(dir)
		require.NoError(t, err)
		want := filepath.Join(dir, "analysis_1_report.pdf")
		assert.Equal(t, want, got)
		data, err := os.ReadFile(want)
		require.NoError(t, err)
		assert.Equal(t, pdf, data)
		if diff := cmp.Diff([]string{"analysis_1_report.pdf"}, dirEntries(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
	})

	t.Run("body failing midway leaves no file", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "my.pdf")
		rep, body := newReport(io.MultiReader(bytes.NewReader(pdf[:10000]), iotest.ErrReader(io.ErrUnexpectedEOF)))
		_, err := rep.SaveFile(target)
		require.Error(t, err)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.NoFileExists(t, target)
		assert.Empty(t, dirEntries(t, dir), "the partial download is removed")
		assert.True(t, body.closed.Load())
	})

	t.Run("body failing midway keeps an existing file", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "my.pdf")
		require.NoError(t, os.WriteFile(target, []byte("previous report"), 0o644))
		rep, _ := newReport(io.MultiReader(bytes.NewReader(pdf[:10000]), iotest.ErrReader(io.ErrUnexpectedEOF)))
		_, err := rep.SaveFile(target)
		require.Error(t, err)
		data, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, "previous report", string(data))
		if diff := cmp.Diff([]string{"my.pdf"}, dirEntries(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
	})

	t.Run("mode 0644 less the umask", func(t *testing.T) {
		dir := t.TempDir()
		rep, _ := newReport(bytes.NewReader(pdf))
		got, err := rep.SaveFile(filepath.Join(dir, "my.pdf"))
		require.NoError(t, err)
		fi, err := os.Stat(got)
		require.NoError(t, err)
		umask := processUmask(t)
		assert.Equal(t, os.FileMode(0o644)&^umask, fi.Mode().Perm())
		assert.NotZero(t, fi.Mode().Perm()&0o044, "readable by others under the usual umask (%#o)", umask)
	})

	t.Run("a path given as a file keeps its name, whatever the variant", func(t *testing.T) {
		dir := t.TempDir()
		rep, _ := newReport(bytes.NewReader(pdf))
		rep.Locale, rep.IncludeRawData = LocaleKorean, true
		got, err := rep.SaveFile(filepath.Join(dir, "mine.pdf"))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "mine.pdf"), got)
	})

	t.Run("missing directory", func(t *testing.T) {
		rep, body := newReport(bytes.NewReader(pdf))
		_, err := rep.SaveFile(filepath.Join(t.TempDir(), "no", "such", "dir", "r.pdf"))
		assert.Error(t, err)
		assert.True(t, body.closed.Load())
	})
}

func TestClient_SaveReport(t *testing.T) {
	t.Parallel()
	pdf := fakePDF(100 << 10)

	t.Run("into a directory, every variant beside the others", func(t *testing.T) {
		srv := pdfServer(t, pdf, `attachment; filename="analysis_7_report.pdf"`)
		dir := t.TempDir()
		variants := []struct {
			params *ReportParams
			want   string
		}{
			{nil, "analysis_7_report.pdf"},
			{&ReportParams{Locale: LocaleEnglish}, "analysis_7_report.pdf"},
			{&ReportParams{Locale: LocaleKorean}, "analysis_7_report.ko.pdf"},
			{&ReportParams{IncludeRawData: true}, "analysis_7_report.en.raw.pdf"},
			{&ReportParams{Locale: LocaleKorean, IncludeRawData: true}, "analysis_7_report.ko.raw.pdf"},
		}
		for _, v := range variants {
			got, err := srv.client(t).SaveReport(context.Background(), "analysis_7", dir, v.params)
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(dir, v.want), got)
			data, err := os.ReadFile(got)
			require.NoError(t, err)
			assert.Equal(t, pdf, data)
		}
		want := []string{"analysis_7_report.en.raw.pdf", "analysis_7_report.ko.pdf", "analysis_7_report.ko.raw.pdf", "analysis_7_report.pdf"}
		if diff := cmp.Diff(want, dirEntries(t, dir)); diff != "" {
			t.Errorf("a variant overwrote another (-want +got):\n%s", diff)
		}
		assert.Equal(t, "ko", srv.requests()[2].Query.Get("locale"))
	})

	t.Run("to a path", func(t *testing.T) {
		srv := pdfServer(t, pdf, "")
		target := filepath.Join(t.TempDir(), "out.pdf")
		got, err := srv.client(t).SaveReport(context.Background(), "analysis_7", target, nil)
		require.NoError(t, err)
		assert.Equal(t, target, got)
		data, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, pdf, data)
	})

	t.Run("connection lost midway leaves no file", func(t *testing.T) {
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/pdf")
			w.Header().Set("Content-Length", strconv.Itoa(len(pdf)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(pdf[:len(pdf)/3])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		})
		dir := t.TempDir()
		target := filepath.Join(dir, "out.pdf")
		_, err := srv.client(t).SaveReport(context.Background(), "analysis_7", target, nil)
		require.Error(t, err)
		assert.NoFileExists(t, target)
		assert.Empty(t, dirEntries(t, dir))
	})

	t.Run("report not available", func(t *testing.T) {
		srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			respondError(w, http.StatusBadRequest, CodeReportNotAvailable, "analysis is processing")
		})
		dir := t.TempDir()
		_, err := srv.client(t).SaveReport(context.Background(), "analysis_7", dir, nil)
		assert.ErrorIs(t, err, ErrReportNotAvailable)
		assert.Empty(t, dirEntries(t, dir))
	})
}
