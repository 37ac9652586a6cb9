package engine_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// keyValueLines are lines of text that are, or are nearly, "Key: value"
// lines.
var keyValueLines = []string{
	"Full Name: Jane Doe", "  Full Name :  Jane Doe  ", "Full Name:Jane Doe\r", "Full Name = Jane Doe",
	"DOB: 1990-04-12", "Date of birth\t:\t12/04/1990\t", "Key:: value", "Key: : value", "Key:", "Key:   \t",
	": value", "1 Key: value", "Key 1: value", "K: v", "Ké: vé", "한국어 이름: 홍길동", "Na\tme: x", "Name \t x: y",
	"Name (as shown): Jane", "Name's: Jane", "a.b/c-d_e: f", "Name!: x", "Key=value=more", "Key: value: more",
	strings.Repeat("k", 49) + ": v", strings.Repeat("k", 50) + ": v", strings.Repeat("é", 49) + ": v",
	"Key: \x01\x02", "Key: \xff\xfe", "K\xffey: v", "Key\v: v", "Key: \vv", "\u00a0Key: v", "Key:\u00a0v\u00a0",
	"Key\u00a0: v", "", "   ", "no separator", "Key: v\f", "\fKey: v", "x:\ty", "Key: value   with   spaces  ",
	"Ⅻ: roman", "Key Ⅻ: roman", "Key\uFFFD: v",
}

// TestKeyValueLine checks that Default reads a "Key: value" line as the
// regular expression that defines it does.
func TestKeyValueLine(t *testing.T) {
	for _, line := range keyValueLines {
		checkKeyValueLine(t, line)
	}
}

// FuzzKeyValueLine checks TestKeyValueLine's rule on any line.
func FuzzKeyValueLine(f *testing.F) {
	for _, line := range keyValueLines {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "\n") {
			t.Skip("a line has no line break")
		}
		checkKeyValueLine(t, line)
	})
}

// jsonDocuments are JSON texts, and texts nearly JSON, with keys repeated,
// nested, in arrays, empty, and of every kind of value.
var jsonDocuments = []string{
	`{"full_name": "Jane Doe"}`,
	`{"b": "2", "a": "1", "c": {"a": "3"}}`,
	`{"a": "first", "a": "last"}`,
	`{"a": "first", "a": null}`,
	`{"a": {"a": "inner"}, "a": "outer"}`,
	`{"people": [{"full_name": ""}, {"full_name": "Jane"}, {"full_name": "John"}]}`,
	`{"full_name": ["", "  ", "Jane", "John"], "fullName": "J"}`,
	`{"n": 12345678, "f": 1.5, "b": true, "z": false, "e": "", "s": "  padded  "}`,
	`{"Full Name": "A", "full_name": "B", "FULL-NAME": ""}`,
	`[{"a": "1"}, [{"a": "2"}, "loose"], "top"]`,
	`"just a string"`, `42`, `null`, `[]`, `{}`,
	`{"a": 1e400}`, `{"a": "1"} {"b": "2"}`, `{"a": "1",}`, `{"a": "1"`, `not json`, ``,
	`{"a": "x"}   `, "\t{\"a\": \"\\u00e9\\n\\ud83d\\ude00\"}\n", `{"a": "` + "\xff" + `"}`,
	`{"a": {"b": {"c": {"d": "deep"}}}, "d": "shallow"}`,
	`{"a": "` + strings.Repeat("é", engine.MaxValueBytes) + `"}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"x":` + strings.Repeat(`{"x":`, 9998) + `"v"` + strings.Repeat("}", 9999),
}

// TestJSONValues checks that Default reads of JSON the values
// encoding/json reads of the whole value: for each key, the same first
// value and the same first non-empty one.
func TestJSONValues(t *testing.T) {
	for _, text := range jsonDocuments {
		checkJSONValues(t, text)
	}
}

// FuzzJSONValues checks TestJSONValues's rule on any text.
func FuzzJSONValues(f *testing.F) {
	for _, text := range jsonDocuments {
		f.Add(text)
	}
	f.Fuzz(checkJSONValues)
}

// checkKeyValueLine checks that line reads as engine.KeyValuePattern
// reads it.
func checkKeyValueLine(t *testing.T, line string) {
	t.Helper()
	key, value, ok := engine.KeyValueLine(line)
	m := engine.KeyValuePattern.FindStringSubmatch(line)
	if m == nil {
		assert.False(t, ok, "%q: read as %q = %q, which the pattern does not match", line, key, value)
		return
	}
	if assert.True(t, ok, "%q: not read, which the pattern reads as %q = %q", line, m[1], m[2]) {
		assert.Equal(t, []string{m[1], m[2]}, []string{key, value}, "%q: key and value", line)
	}
}

// checkJSONValues checks that text gives the values encoding/json reads of
// it.
func checkJSONValues(t *testing.T, text string) {
	first, nonEmpty, ok := engine.FirstValues(text)
	wantFirst, wantNonEmpty, wantOK := engine.FirstValuesReference(text)
	short := text
	if len(short) > 80 {
		short = short[:80] + "..."
	}
	if !assert.Equal(t, wantOK, ok, "%q: read as JSON", short) || !ok {
		return
	}
	if diff := cmp.Diff(wantFirst, first); diff != "" {
		t.Errorf("%q: first values (-encoding/json +engine):\n%s", short, diff)
	}
	if diff := cmp.Diff(wantNonEmpty, nonEmpty); diff != "" {
		t.Errorf("%q: first non-empty values (-encoding/json +engine):\n%s", short, diff)
	}
}

// TestRecognise checks that a document's type is told from its name and
// its whole text, whatever its length, with the types' precedence.
func TestRecognise(t *testing.T) {
	const piece = 64 << 10 // what Default reads at a time
	filler := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name, docName, text, want string
	}{
		{"in the name", "Passport scan", "Full Name: Jane Doe", "passport"},
		{"across the name and the text", "Bank", "Statement\nAccount holder: Jane Doe", "bank_statement"},
		{"in the text, in capitals", "scan.txt", "PASSPORT\nFull Name: Jane Doe", "passport"},
		{"across two pieces", "scan.txt", filler(piece-4) + "PASSPORT", "passport"},
		{"across two pieces after a wide character", "scan.txt", strings.Repeat("İ", piece/2-1) + "Bank Statement", "bank_statement"},
		{"far into the text", "scan.txt", filler(5*piece) + "\nUtility bill", "utility_bill"},
		{"the first type wins, wherever it is", "scan.txt", "Bank statement\n" + filler(3*piece) + "passport", "passport"},
		{"none", "scan.txt", filler(2 * piece), "document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := analyze(t, testInput(testDoc("item_1", tt.docName, profilesvc.ItemText, tt.text)))
			assert.Equal(t, tt.want, res.Facts.Documents[0].Kind)
		})
	}
}
