package mockserver

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

// detect tells an uploaded file's type from its bytes and its name: the
// bytes first (http.DetectContentType's sniffing), then the name's
// extension where sniffing finds only generic text or binary.
func detect(name string, data []byte) profilesvc.Detected {
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

// extractText returns the text the engine can read from an item's bytes,
// and whether it could read any: text formats as they are, PDFs through
// their text operators; images and other binaries give none.
func extractText(contentType string, data []byte) (string, bool) {
	switch {
	case strings.HasPrefix(contentType, "text/"), contentType == "application/json", contentType == "application/xml":
		if !utf8.Valid(data) {
			return strings.ToValidUTF8(string(data), "\uFFFD"), true
		}
		return string(data), true
	case contentType == "application/pdf":
		return pdfText(data)
	}
	return "", false
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
