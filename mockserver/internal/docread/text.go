package docread

import (
	"strings"
	"unicode/utf8"
)

// Text returns the text the analysis engine can read from a document's
// bytes, given its content type (as Detect tells it), and whether it could
// read any. Text formats (text/*, application/json, application/xml) are
// read as they are, their invalid UTF-8 replaced with U+FFFD, and are
// always readable, even when empty; PDFs are read as PDFText reads them;
// images and other binaries give none.
func Text(contentType string, data []byte) (text string, readable bool) {
	switch {
	case strings.HasPrefix(contentType, "text/"), contentType == "application/json", contentType == "application/xml":
		if !utf8.Valid(data) {
			return strings.ToValidUTF8(string(data), "\uFFFD"), true
		}
		return string(data), true
	case contentType == "application/pdf":
		return PDFText(data)
	}
	return "", false
}
