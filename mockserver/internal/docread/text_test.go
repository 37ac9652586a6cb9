package docread_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// TestText reads text formats as they are, PDFs through their text
// operators, and nothing else.
func TestText(t *testing.T) {
	tests := []struct {
		name         string
		contentType  string
		data         []byte
		want         string
		wantReadable bool
	}{
		{"plain text", "text/plain", []byte("Full Name: Jane Doe\n"), "Full Name: Jane Doe\n", true},
		{"empty text is readable", "text/plain", nil, "", true},
		{"invalid UTF-8 is replaced", "text/plain", []byte("Jos\xe9 M\xfcller"), "Jos\uFFFD M\uFFFDller", true},
		{"csv", "text/csv", []byte("name,dob\nAlice,1990-01-01\n"), "name,dob\nAlice,1990-01-01\n", true},
		{"markdown", "text/markdown", []byte("# Title\n"), "# Title\n", true},
		{"json", "application/json", []byte(`{"a": 1}`), `{"a": 1}`, true},
		{"xml", "application/xml", []byte("<a>1</a>"), "<a>1</a>", true},
		{"text pdf", "application/pdf", pdftest.Lines(t, "PASSPORT", "Full Name: Jane Doe"), "PASSPORT\nFull Name: Jane Doe", true},
		{"pdf without text", "application/pdf", pdftest.Minimal(t, "q 0.5 g 72 72 200 100 re f Q", pdftest.Plain), "", false},
		{"not a pdf", "application/pdf", []byte("Full Name: Jane Doe"), "", false},
		{"image", "image/png", png, "", false},
		{"binary", "application/octet-stream", []byte("Full Name: Jane Doe"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, readable := docread.Text(tc.contentType, tc.data)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantReadable, readable, "readable")
		})
	}
}
