package docread_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// png is the smallest PNG: one pixel.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde\x00\x00\x00\x00IEND\xaeB`\x82")

// TestDetect tells files' types from their bytes first, then from their
// names.
func TestDetect(t *testing.T) {
	pdf := pdftest.Lines(t, "Hello PDF world")
	tests := []struct {
		name, filename string
		data           []byte
		want           profilesvc.Detected
	}{
		{"png", "photo.png", png, profilesvc.Detected{ContentType: "image/png", Extension: "png", FileCategory: "image"}},
		{"extension in capitals", "PHOTO.PNG", png, profilesvc.Detected{ContentType: "image/png", Extension: "png", FileCategory: "image"}},
		{"bytes win over the extension", "photo.txt", png, profilesvc.Detected{ContentType: "image/png", Extension: "txt", FileCategory: "image"}},
		{"pdf", "statement.pdf", pdf, profilesvc.Detected{ContentType: "application/pdf", Extension: "pdf", FileCategory: "document"}},
		{"pdf without extension", "scan", pdf, profilesvc.Detected{ContentType: "application/pdf", Extension: "pdf", FileCategory: "document"}},
		{"jpeg without extension", "camera", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"),
			profilesvc.Detected{ContentType: "image/jpeg", Extension: "jpg", FileCategory: "image"}},
		{"zip", "bundle.zip", []byte("PK\x03\x04\x14\x00\x00\x00"), profilesvc.Detected{ContentType: "application/zip", Extension: "zip", FileCategory: "archive"}},
		{"csv", "people.csv", []byte("name,dob\nAlice,1990-01-01\n"),
			profilesvc.Detected{ContentType: "text/csv", Extension: "csv", FileCategory: "spreadsheet"}},
		{"txt", "notes.txt", []byte("hello world\n"), profilesvc.Detected{ContentType: "text/plain", Extension: "txt", FileCategory: "text"}},
		{"markdown", "README.md", []byte("# Title\n\nSome text.\n"),
			profilesvc.Detected{ContentType: "text/markdown", Extension: "md", FileCategory: "text"}},
		{"json file", "data.json", []byte(`{"a": 1}`), profilesvc.Detected{ContentType: "application/json", Extension: "json", FileCategory: "data"}},
		{"json object without extension", "data", []byte(" {\"a\": 1}\n"),
			profilesvc.Detected{ContentType: "application/json", Extension: "json", FileCategory: "data"}},
		{"json array without extension", "list", []byte(`[1, 2]`),
			profilesvc.Detected{ContentType: "application/json", Extension: "json", FileCategory: "data"}},
		{"a json number is text", "n", []byte(`42`), profilesvc.Detected{ContentType: "text/plain", Extension: "txt", FileCategory: "text"}},
		{"html without extension", "page", []byte("<html><body>hi</body></html>"),
			profilesvc.Detected{ContentType: "text/html", Extension: "html", FileCategory: "text"}},
		{"unknown extension", "scan.notatype", []byte("hello"), profilesvc.Detected{ContentType: "text/plain", Extension: "notatype", FileCategory: "text"}},
		{"empty", "empty", nil, profilesvc.Detected{ContentType: "text/plain", Extension: "txt", FileCategory: "text"}},
		{"binary under a text extension stays binary", "blob.txt", []byte("\x00\x01\x02\xff\x80"),
			profilesvc.Detected{ContentType: "application/octet-stream", Extension: "txt", FileCategory: "other"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := docread.Detect(tc.filename, tc.data)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Detect(%q) (-want +got):\n%s", tc.filename, diff)
			}
		})
	}
}
