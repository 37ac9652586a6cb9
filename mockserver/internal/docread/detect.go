// Package docread reads the documents uploaded to the mock server: Detect
// tells a file's type from its bytes and its name, and Text reads the text
// the analysis engine works on, from text formats as they are and from
// text-based PDFs through their text operators.
//
// Both are pure functions of their arguments, safe for concurrent use, and
// never fail: what cannot be read gives no text rather than an error.
package docread

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// Detect tells an uploaded file's type from its bytes and its name: the
// bytes first (http.DetectContentType's sniffing), then the name's
// extension where sniffing finds only generic text or binary, and JSON
// where plain text holds an object or an array. The result's Extension is
// the name's, lower-cased, or the type's usual one when the name has none;
// its FileCategory is document, image, spreadsheet, text, data, archive,
// audio, video or other.
func Detect(name string, data []byte) profilesvc.Detected {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), ".")
	sniffed := http.DetectContentType(data)
	ct, _, _ := mime.ParseMediaType(sniffed)
	byExt := ""
	if ext != "" {
		byExt, _, _ = mime.ParseMediaType(mime.TypeByExtension("." + ext))
	}
	switch {
	case ext == "md" || ext == "markdown":
		byExt = "text/markdown"
	case ext == "csv":
		byExt = "text/csv"
	case ext == "json":
		byExt = "application/json"
	}
	if (ct == "text/plain" || ct == "application/octet-stream") && byExt != "" {
		// Sniffing cannot tell CSV, JSON or Markdown from plain text.
		if ct == "application/octet-stream" && strings.HasPrefix(byExt, "text/") && !utf8.Valid(data) {
			byExt = ""
		}
		if byExt != "" {
			ct = byExt
		}
	}
	if ct == "text/plain" && json.Valid(bytes.TrimSpace(data)) && len(bytes.TrimSpace(data)) > 0 {
		if t := bytes.TrimSpace(data); t[0] == '{' || t[0] == '[' {
			ct = "application/json"
		}
	}
	if ext == "" {
		ext = preferredExtension(ct)
	}
	return profilesvc.Detected{ContentType: ct, Extension: ext, FileCategory: fileCategory(ct)}
}

// fileCategory groups content types: document, image, spreadsheet, text,
// data, archive, audio, video or other.
func fileCategory(ct string) string {
	switch {
	case ct == "application/pdf" || strings.Contains(ct, "wordprocessingml") || ct == "application/msword" || ct == "application/rtf":
		return "document"
	case strings.HasPrefix(ct, "image/"):
		return "image"
	case ct == "text/csv" || strings.Contains(ct, "spreadsheetml") || ct == "application/vnd.ms-excel":
		return "spreadsheet"
	case ct == "application/json" || ct == "application/xml" || ct == "text/xml":
		return "data"
	case strings.HasPrefix(ct, "text/"):
		return "text"
	case ct == "application/zip" || ct == "application/x-gzip" || ct == "application/gzip":
		return "archive"
	case strings.HasPrefix(ct, "audio/"):
		return "audio"
	case strings.HasPrefix(ct, "video/"):
		return "video"
	}
	return "other"
}

// preferredExtension is the usual extension of a content type.
func preferredExtension(ct string) string {
	switch ct {
	case "text/plain":
		return "txt"
	case "application/pdf":
		return "pdf"
	case "image/jpeg":
		return "jpg"
	case "image/png":
		return "png"
	case "application/json":
		return "json"
	case "text/csv":
		return "csv"
	case "text/markdown":
		return "md"
	case "text/html":
		return "html"
	}
	if exts, _ := mime.ExtensionsByType(ct); len(exts) > 0 {
		return strings.TrimPrefix(exts[0], ".")
	}
	return ""
}
