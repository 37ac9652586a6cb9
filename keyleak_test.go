package profilesvc

// The API key echoed by a hostile or broken server into every string of
// the service's that reaches an error, an exported field or a log line,
// in each of the forms a reader or a decoder would still see it in: an
// analysis's error text, a cursor, a report's Content-Type and file name,
// an item's type, an error body.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyForms are the forms the servers of these tests echo the key in, as
// the SDK reads the value (after its own JSON or header decoding): each
// shows the key to a reader, or decodes to it.
var keyForms = []struct {
	name string
	echo func(key string) string
}{
	{"as sent", func(k string) string { return k }},
	{"upper-cased", strings.ToUpper},
	{"every character apart by U+200B", func(k string) string { return strings.Join(strings.Split(k, ""), "\u200b") }},
	{"split by U+00A0", func(k string) string { return k[:18] + "\u00a0" + k[18:] }},
	{"as \\u escapes", jsonEscapes},
}

// jsonEscapes writes every character of s as a \u escape, as a JSON
// encoder may, with the hexadecimal digits in upper case.
func jsonEscapes(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, `\u%04X`, r)
	}
	return b.String()
}

// escapedRune is a \u escape, after any number of backslashes;
// percentEscaped is a run of URL percent-escapes.
var (
	escapedRune    = regexp.MustCompile(`\\+u([0-9a-fA-F]{4})`)
	percentEscaped = regexp.MustCompile(`(?:%[0-9a-fA-F]{2})+`)
)

// reveal returns s as a reader sees it once decoded: \u escapes and
// percent-escapes decoded, white space, format characters and plus signs
// (a space in a URL's query) dropped, in lower case.
func reveal(s string) string {
	s = escapedRune.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.ParseUint(m[len(m)-4:], 16, 32)
		return string(rune(n))
	})
	s = percentEscaped.ReplaceAllStringFunc(s, func(m string) string {
		d, err := url.PathUnescape(m)
		if err != nil {
			return m
		}
		return d
	})
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || r == '+' {
			return -1
		}
		return r
	}, s)
	return strings.ToLower(s)
}

// assertHidden checks that s does not show the hostile key, whole or a
// good part of it (an excerpt cut within it), even once decoded.
func assertHidden(t *testing.T, what, s string) {
	t.Helper()
	shown := reveal(s)
	for _, part := range []string{hostileKey, hostileKey[:12], hostileKey[len(hostileKey)-12:]} {
		assert.NotContains(t, shown, part, "%s shows the key: %q", what, s)
	}
}

// keyLeakClient is a client of base with the hostile key that logs at
// debug level into the returned buffer.
func keyLeakClient(t *testing.T, base string, opts ...Option) (*Client, func() string) {
	t.Helper()
	logger, logs := newDebugLogger()
	return hostileClient(t, base, append([]Option{WithLogger(logger)}, opts...)...), logs.String
}

func TestKeyLeak_FailedAnalysis(t *testing.T) {
	t.Parallel()
	for _, form := range keyForms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			echo := form.echo(hostileKey)
			id, err := json.Marshal("analysis_" + echo)
			require.NoError(t, err)
			body := strings.Replace(analysisJSON(AnalysisFailed, "", "the key "+echo+" is revoked"), `"id":"analysis_1"`, `"id":`+string(id), 1)
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, body) })
			c, logs := keyLeakClient(t, srv.URL)

			a, err := c.WaitForAnalysis(t.Context(), "analysis_1", nil)
			require.ErrorIs(t, err, ErrAnalysisFailed)
			require.NotNil(t, a)
			assertHidden(t, "the error", err.Error())
			var failed *AnalysisFailedError
			require.ErrorAs(t, err, &failed)
			assertHidden(t, "AnalysisFailedError.Reason", failed.Reason)
			assertHidden(t, "AnalysisFailedError.AnalysisID", failed.AnalysisID)
			assert.Equal(t, "the key "+redacted+" is revoked", failed.Reason, "the rest of the text is kept")
			assertHidden(t, "the log", logs())
		})
	}
}

func TestKeyLeak_RepeatedCursor(t *testing.T) {
	t.Parallel()
	for _, form := range keyForms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			page, err := json.Marshal(Page[Folder]{Count: 1, NextCursor: "cur_" + form.echo(hostileKey), Items: []Folder{{ID: "fo_1"}}})
			require.NoError(t, err)
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, string(page)) })
			c, logs := keyLeakClient(t, srv.URL)

			var last error
			for _, err := range c.ListFolders(t.Context(), "pf_1", nil) {
				last = err
			}
			require.Error(t, last, "the repeated cursor ends the walk with an error")
			assert.Contains(t, last.Error(), "cursor")
			assert.Contains(t, last.Error(), redacted)
			assertHidden(t, "the error", last.Error())
			assertHidden(t, "the log", logs())
		})
	}
}

func TestKeyLeak_NotPDF(t *testing.T) {
	t.Parallel()
	for _, form := range keyForms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				rawAnswer(w, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; note="+form.echo(hostileKey)+"\r\nContent-Length: 5\r\n\r\nhello")
			})
			c, logs := keyLeakClient(t, srv.URL)

			rep, err := c.DownloadReport(t.Context(), "analysis_1", nil)
			require.ErrorIs(t, err, ErrNotPDF)
			assert.Nil(t, rep)
			assert.Contains(t, err.Error(), redacted)
			assertHidden(t, "the error", err.Error())
			assertHidden(t, "the log", logs())
		})
	}
}

func TestKeyLeak_ReportFilename(t *testing.T) {
	t.Parallel()
	// answer is a report whose Content-Disposition names a file after the
	// key (encoded as RFC 2231 allows, which the SDK decodes), and whose
	// Content-Type has it in a parameter, cut short unless whole.
	answer := func(echo string, whole bool) http.HandlerFunc {
		pdf := fakePDF(2048)
		sent := pdf
		if !whole {
			sent = pdf[:100]
		}
		return func(w http.ResponseWriter, r *http.Request) {
			rawAnswer(w, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf; name=\"report-"+echo+"\"\r\n"+
				"Content-Disposition: attachment; filename*=UTF-8''"+url.PathEscape("report-"+echo+".pdf")+"\r\n"+
				"Content-Length: "+strconv.Itoa(len(pdf))+"\r\n\r\n"+string(sent))
		}
	}
	for _, form := range keyForms {
		echo := form.echo(hostileKey)
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			t.Run("WriteTo", func(t *testing.T) {
				t.Parallel()
				c, logs := keyLeakClient(t, hostileServer(t, answer(echo, false)).URL)
				rep, err := c.DownloadReport(t.Context(), "analysis_1", nil)
				require.NoError(t, err)
				assertHidden(t, "Report.Filename", rep.Filename)
				assertHidden(t, "Report.ContentType", rep.ContentType)
				_, err = rep.WriteTo(io.Discard)
				require.Error(t, err, "the body was cut short")
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
				assert.Contains(t, err.Error(), redacted)
				assertHidden(t, "the error", err.Error())
				assertHidden(t, "the log", logs())
			})
			t.Run("SaveFile", func(t *testing.T) {
				t.Parallel()
				c, _ := keyLeakClient(t, hostileServer(t, answer(echo, false)).URL)
				dir := t.TempDir()
				_, err := c.SaveReport(t.Context(), "analysis_1", dir, nil)
				require.Error(t, err, "the body was cut short")
				assert.Contains(t, err.Error(), redacted)
				assertHidden(t, "the error", err.Error())
				var pathErr *os.PathError
				if errors.As(err, &pathErr) {
					assertHidden(t, "the *os.PathError", pathErr.Error())
				}
				assert.Empty(t, dirEntries(t, dir), "a failed download leaves no file")
			})
			t.Run("the file saved", func(t *testing.T) {
				t.Parallel()
				c, _ := keyLeakClient(t, hostileServer(t, answer(echo, true)).URL)
				dir := t.TempDir()
				path, err := c.SaveReport(t.Context(), "analysis_1", dir, nil)
				require.NoError(t, err)
				assertHidden(t, "the path written", path)
				for _, name := range dirEntries(t, dir) {
					assertHidden(t, "the file's name", name)
				}
			})
		})
	}
}

func TestKeyLeak_ItemText(t *testing.T) {
	t.Parallel()
	for _, form := range keyForms {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			echo := form.echo(hostileKey)
			item, err := json.Marshal(map[string]any{"id": "item_" + echo, "folderId": "fo_1", "type": echo, "name": "note", "content": nil, "status": "ACTIVE"})
			require.NoError(t, err)
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) { respond(w, http.StatusOK, string(item)) })
			c, _ := keyLeakClient(t, srv.URL)

			it, err := c.GetItem(t.Context(), "item_1")
			require.NoError(t, err)
			_, err = it.Text()
			require.Error(t, err, "an item that is not text")
			assertHidden(t, "the error", err.Error())
		})
	}
	t.Run("a type the SDK knows is named", func(t *testing.T) {
		t.Parallel()
		_, err := (&Item{ID: "item_1", Type: ItemJSON}).Text()
		assert.ErrorContains(t, err, "a json item, not text")
	})
}

func TestKeyLeak_ErrorBody(t *testing.T) {
	t.Parallel()
	type answer struct {
		contentType string
		body        string
	}
	envelope := func(message string) answer {
		b, err := json.Marshal(map[string]any{"error": map[string]any{"code": "UNAUTHORIZED", "status": 401, "message": message}})
		if err != nil {
			panic(err)
		}
		return answer{"application/json", string(b)}
	}
	tests := []struct {
		name   string
		answer answer
	}{
		// The body's own escapes: the message decodes to the key as it was
		// sent, and the kept body must not hold it in escaped form.
		{"JSON escapes in the body", answer{"application/json",
			`{"error":{"code":"UNAUTHORIZED","status":401,"message":"bad key ` + jsonEscapes(hostileKey) + `"},"detail":"` + jsonEscapes(hostileKey) + `"}`}},
		{"JSON escapes in the body, lower-case hexadecimal", answer{"application/json",
			`{"msg":"` + strings.ToLower(jsonEscapes(hostileKey)) + `"}`}},
		{"escaped twice in the body", answer{"application/json",
			`{"error":{"code":"UNAUTHORIZED","status":401,"message":"` + strings.ReplaceAll(jsonEscapes(hostileKey), `\`, `\\`) + `"}}`}},
		// An excerpt of a text body is cut at 120 characters: it must not
		// end within the key and show part of it.
		{"a text body cut short within the key", answer{"text/plain", strings.Repeat("x", 100) + " " + hostileKey}},
	}
	for _, form := range keyForms {
		tests = append(tests,
			struct {
				name   string
				answer answer
			}{"the message " + form.name, envelope("bad key " + form.echo(hostileKey))},
			struct {
				name   string
				answer answer
			}{"a text body " + form.name, answer{"text/plain; charset=utf-8", "bad key " + form.echo(hostileKey)}},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := hostileServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.answer.contentType)
				w.WriteHeader(http.StatusBadGateway)
				_, _ = io.WriteString(w, tt.answer.body)
			})
			c, logs := keyLeakClient(t, srv.URL, WithMaxRetries(1))

			_, err := c.GetProfile(t.Context(), "pf_1")
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assertHidden(t, "the error", err.Error())
			assertHidden(t, "APIError.Code", apiErr.Code)
			assertHidden(t, "APIError.Message", apiErr.Message)
			assertHidden(t, "APIError.Body", string(apiErr.Body))
			assert.Contains(t, string(apiErr.Body), redacted, "the key is masked in the body, which is kept")
			if strings.HasPrefix(tt.answer.contentType, "application/json") {
				var decoded any
				require.NoError(t, json.Unmarshal(apiErr.Body, &decoded), "the masked body is still JSON: %s", apiErr.Body)
				assertHidden(t, "APIError.Body decoded", fmt.Sprint(decoded))
			}
			assertHidden(t, "the log", logs())
		})
	}
}

// TestSecretMask shows the forms the mask finds the key in, and some it
// must leave alone.
func TestSecretMask(t *testing.T) {
	t.Parallel()
	k := hostileKey
	apart := func(sep string) string { return strings.Join(strings.Split(k, ""), sep) }
	tests := []struct {
		name, text string
		masked     bool
	}{
		{"as sent", "key " + k + ".", true},
		{"mixed case", "key " + strings.ToUpper(k[:10]) + k[10:], true},
		{"apart by U+200B", apart("\u200b"), true},
		{"apart by U+00A0", apart("\u00a0"), true},
		{"apart by U+3000", apart("\u3000"), true},
		{"apart by U+2009", apart("\u2009"), true},
		{"apart by soft hyphens", apart("\u00ad"), true},
		{"apart by U+FEFF", apart("\ufeff"), true},
		{"apart by word joiners", apart("\u2060"), true},
		{"apart by zero-width joiners", apart("\u200d"), true},
		{"apart by variation selectors", apart("\ufe0f"), true},
		{"apart by a control character", apart("\x07"), true},
		{"apart by U+E0020, beyond the BMP", apart("\U000e0020"), true},
		{"apart by markup", "<p>" + apart("<b>") + "</p>", true},
		{"apart by escaped markup", apart(`\u003cb\u003e`), true},
		{"as \\u escapes", jsonEscapes(k), true},
		{"as \\u escapes of the other case", strings.ReplaceAll(jsonEscapes(k), `\u0066`, `\u0046`), true},
		{"escaped twice", strings.ReplaceAll(jsonEscapes(k), `\`, `\\`), true},
		{"some characters escaped", `{"msg":"\u0030` + k[1:18] + `\u002d` + k[19:] + `"}`, true},
		{"a hyphen escaped as itself", strings.ReplaceAll(k, "-", `\-`), true},
		{"apart by escaped U+200B", apart(`\u200B`), true},
		{"apart by escaped U+00A0", apart(`\u00a0`), true},
		{"apart by short escapes", apart(`\n`), true},
		{"apart by \\U escapes", apart(`\U0000200b`), true},
		{"apart by \\x escapes", apart(`\x09`), true},
		{"apart by a surrogate pair", apart(`\udb40\udc20`), true},
		{"as \\U and \\x escapes", `\U00000030\x66` + k[2:], true},
		{"apart by percent-escaped U+200B", apart("%E2%80%8B"), true},
		{"apart by percent-escaped U+00A0", apart("%c2%a0"), true},
		{"apart by plus signs", apart("+"), true},
		{"percent-escaped", "cursor=%30%66" + k[2:], true},
		{"a character changed", k[:35] + "0", false},
		// Escapes are decoded: these decode to text that is not the key.
		{"apart by escapes of visible characters", apart(`\u0041`), false},
		{"cut short", k[:35], false},
		{"a visible character between", k[:10] + "x" + k[10:], false},
		{"a tag not closed", k[:10] + "<b" + k[10:], false},
	}
	s := newSecret(k)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := s.mask(tt.text)
			assert.Equal(t, string(s.maskBytes([]byte(tt.text))), got, "maskBytes and mask agree")
			if !tt.masked {
				assert.Equal(t, tt.text, got, "nothing to mask")
				return
			}
			assert.Contains(t, got, redacted)
			assertHidden(t, "the masked text", got)
			if json.Valid([]byte(tt.text)) {
				assert.True(t, json.Valid([]byte(got)), "masked JSON stays JSON: %s", got)
			}
		})
	}
}
