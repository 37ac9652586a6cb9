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

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// pdfTPassportLines is a passport as a text PDF shows it.
var pdfTPassportLines = []string{
	"PASSPORT",
	"Full Name: Jane Doe",
	"Date of Birth: 1990-04-12",
	"Passport Number: X1234567",
	"Expiry Date: 2031-05-01",
}

// pdfTUpload uploads a file item as multipart/form-data and returns the
// answer's item.
func pdfTUpload(t *testing.T, srv *Server, folderID, filename, contentType string, data []byte) *profilesvc.Item {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
	h.Set("Content-Type", contentType)
	part, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	r := pdfTDo(t, srv, "POST", "/v1/folders/"+folderID+"/items", mw.FormDataContentType(), body.Bytes())
	if r.status != http.StatusCreated {
		t.Fatalf("uploading %s: %s", filename, r)
	}
	var it profilesvc.Item
	if err := json.Unmarshal(r.body, &it); err != nil {
		t.Fatalf("upload answer %s: %v", r, err)
	}
	return &it
}

// TestPDFTextThroughTheServer uploads a text PDF, reads its text from the
// item's url, and analyses it.
func TestPDFTextThroughTheServer(t *testing.T) {
	want := strings.Join(pdfTPassportLines, "\n")
	pdf := pdftest.Lines(t, pdfTPassportLines...)
	for _, route := range []string{"multipart upload", "AddFileItem"} {
		t.Run(route, func(t *testing.T) {
			srv := NewTest(t, WithManualAnalyses(), WithClock(NewFakeClock(pdfTStart)), WithIDSeed(11))
			p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Text PDF"})
			if err != nil {
				t.Fatal(err)
			}
			var it *profilesvc.Item
			if route == "AddFileItem" {
				if it, err = srv.AddFileItem(p.Folders[0].ID, "passport.pdf", pdf); err != nil {
					t.Fatalf("AddFileItem: %v", err)
				}
			} else {
				it = pdfTUpload(t, srv, p.Folders[0].ID, "passport.pdf", "application/pdf", pdf)
			}
			if it.Type != profilesvc.ItemFile || it.Detected == nil || it.Detected.ContentType != "application/pdf" {
				t.Fatalf("item type %q, detected %+v: want a file detected as application/pdf", it.Type, it.Detected)
			}
			if !strings.HasPrefix(it.URL, srv.URL+"/") {
				t.Fatalf("item url %q is not on the server %s", it.URL, srv.URL)
			}

			// The url artifact serves the text read from the PDF.
			r := pdfTDo(t, srv, "GET", strings.TrimPrefix(it.URL, srv.URL), "", nil)
			if r.status != http.StatusOK {
				t.Fatalf("GET %s: %s", it.URL, r)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("url Content-Type = %q, want text/plain", ct)
			}
			if string(r.body) != want {
				t.Errorf("url text = %q, want %q", r.body, want)
			}
			if text, ok := srv.ItemText(it.ID); !ok || text != want {
				t.Errorf("ItemText = (%q, %v), want (%q, true)", text, ok, want)
			}
			// The original is the PDF, unchanged.
			if o := pdfTDo(t, srv, "GET", strings.TrimPrefix(it.StorageOriginalURL, srv.URL), "", nil); o.status != http.StatusOK || !bytes.Equal(o.body, pdf) {
				t.Errorf("storageOriginalUrl gives %d, %d bytes; want 200 and the %d bytes uploaded", o.status, len(o.body), len(pdf))
			}

			// The engine reads the same text.
			id := pdfTStartAnalysis(t, srv, p.ID, it.ID)
			if err := srv.CompleteAnalysis(id); err != nil {
				t.Fatalf("CompleteAnalysis: %v", err)
			}
			a, ok := srv.Analysis(id)
			if !ok || a.Status != profilesvc.AnalysisCompleted {
				t.Fatalf("analysis %s: %+v", id, a)
			}
			values, err := a.ExtractedData.ExtractedValues()
			if err != nil {
				t.Fatalf("extracted_values: %v", err)
			}
			for field, v := range map[string]string{"full_name": "Jane Doe", "date_of_birth": "1990-04-12", "document_number": "X1234567", "expiry_date": "2031-05-01"} {
				if got, _ := values[field].(string); got != v {
					t.Errorf("extracted_values.%s = %#v, want %q", field, values[field], v)
				}
			}
		})
	}
}
