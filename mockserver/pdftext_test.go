package mockserver

// Text-based PDFs through the server: the text an uploaded PDF's url
// serves, and the analysis of it. How PDFs are read is tested in package
// docread.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// passportLines is a passport as a text PDF shows it.
var passportLines = []string{
	"PASSPORT",
	"Full Name: Jane Doe",
	"Date of Birth: 1990-04-12",
	"Passport Number: X1234567",
	"Expiry Date: 2031-05-01",
}

// uploadFile uploads a file item as multipart/form-data and returns the
// answer's item.
func uploadFile(t *testing.T, srv *Server, folderID, filename, contentType string, data []byte) *profilesvc.Item {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
	h.Set("Content-Type", contentType)
	part, err := mw.CreatePart(h)
	require.NoError(t, err)
	_, err = part.Write(data)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	r := send(t, srv, "POST", "/v1/folders/"+folderID+"/items", mw.FormDataContentType(), body.Bytes())
	require.Equal(t, http.StatusCreated, r.status, "uploading %s: %s", filename, r)
	var it profilesvc.Item
	require.NoError(t, json.Unmarshal(r.body, &it), "upload answer %s", r)
	return &it
}

// TestPDFTextThroughTheServer uploads a text PDF, reads its text from the
// item's url, and analyses it.
func TestPDFTextThroughTheServer(t *testing.T) {
	t.Parallel()
	want := strings.Join(passportLines, "\n")
	pdf := pdftest.Lines(t, passportLines...)
	for _, route := range []string{"multipart upload", "AddFileItem"} {
		t.Run(route, func(t *testing.T) {
			srv := NewTest(t, WithManualAnalyses(), WithClock(NewFakeClock(fixtureStart)), WithIDSeed(11))
			p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Text PDF"})
			require.NoError(t, err)
			var it *profilesvc.Item
			if route == "AddFileItem" {
				it, err = srv.AddFileItem(p.Folders[0].ID, "passport.pdf", pdf)
				require.NoError(t, err, "AddFileItem")
			} else {
				it = uploadFile(t, srv, p.Folders[0].ID, "passport.pdf", "application/pdf", pdf)
			}
			require.True(t, it.Type == profilesvc.ItemFile && it.Detected != nil && it.Detected.ContentType == "application/pdf",
				"item type %q, detected %+v: want a file detected as application/pdf", it.Type, it.Detected)
			require.True(t, strings.HasPrefix(it.URL, srv.URL+"/"), "item url %q is not on the server %s", it.URL, srv.URL)

			// The url artifact serves the text read from the PDF.
			r := send(t, srv, "GET", strings.TrimPrefix(it.URL, srv.URL), "", nil)
			require.Equal(t, http.StatusOK, r.status, "GET %s: %s", it.URL, r)
			ct := r.header.Get("Content-Type")
			assert.True(t, strings.HasPrefix(ct, "text/plain"), "url Content-Type = %q, want text/plain", ct)
			assert.Equal(t, want, string(r.body), "url text")
			text, ok := srv.ItemText(it.ID)
			assert.True(t, ok && text == want, "ItemText = (%q, %v), want (%q, true)", text, ok, want)
			// The original is the PDF, unchanged.
			o := send(t, srv, "GET", strings.TrimPrefix(it.StorageOriginalURL, srv.URL), "", nil)
			assert.True(t, o.status == http.StatusOK && bytes.Equal(o.body, pdf),
				"storageOriginalUrl gives %d, %d bytes; want 200 and the %d bytes uploaded", o.status, len(o.body), len(pdf))

			// The engine reads the same text.
			id := startOverHTTP(t, srv, p.ID, it.ID)
			require.NoError(t, srv.CompleteAnalysis(id), "CompleteAnalysis")
			a, ok := srv.Analysis(id)
			require.True(t, ok && a.Status == profilesvc.AnalysisCompleted, "analysis %s: %+v", id, a)
			values, err := a.ExtractedData.ExtractedValues()
			require.NoError(t, err, "extracted_values")
			for field, v := range map[string]string{"full_name": "Jane Doe", "date_of_birth": "1990-04-12", "document_number": "X1234567", "expiry_date": "2031-05-01"} {
				got, _ := values[field].(string)
				assert.Equal(t, v, got, "extracted_values.%s = %#v", field, values[field])
			}
		})
	}
}
