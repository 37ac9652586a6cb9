package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// resultCeiling is the most bytes of a result's JSON, facts included,
// whatever its documents.
const resultCeiling = 10 << 20

// largeDocuments are documents that grow with n: n lines, n passages or n
// bytes of a value.
var largeDocuments = []struct {
	name string
	doc  func(n int) engine.Document
}{
	{"one line many times", func(n int) engine.Document {
		return testDoc("item_1", "passport.txt", profilesvc.ItemText, "PASSPORT\n"+strings.Repeat("Full Name: Jane Doe\n", n))
	}},
	{"many distinct keys", func(n int) engine.Document {
		var b strings.Builder
		b.WriteString("PASSPORT\nFull Name: Jane Doe\n")
		for i := range n {
			fmt.Fprintf(&b, "Key %d: value %d\n", i, i)
		}
		return testDoc("item_1", "passport.txt", profilesvc.ItemText, b.String())
	}},
	{"one long value", func(n int) engine.Document {
		return testDoc("item_1", "passport.txt", profilesvc.ItemText, "PASSPORT\nFull Name: "+strings.Repeat("Jane Doe ", n)+"\n")
	}},
	{"a value many times in JSON", func(n int) engine.Document {
		return testDoc("item_1", "passport.json", profilesvc.ItemJSON,
			`{"document_type": "passport", "people": [`+strings.Repeat(`{"full_name": "Jane Doe"}, `, n)+`{"full_name": "Jane Doe"}]}`)
	}},
	{"a long CSV cell", func(n int) engine.Document {
		d := testDoc("item_1", "passport.csv", profilesvc.ItemText, "document,full_name\npassport,"+strings.Repeat("Jane Doe ", n)+"\n")
		d.ContentType = "text/csv"
		return d
	}},
}

// TestBounds_SizeDoesNotGrowWithTheDocuments checks that a result is as
// large for a document four times as large, within a few bytes (the
// number of passages searched), and under the ceiling. The smaller
// document is already far past every bound: thousands of lines, passages
// and values, tens of KB of a value.
func TestBounds_SizeDoesNotGrowWithTheDocuments(t *testing.T) {
	t.Parallel()
	const n = 5_000
	for _, tt := range largeDocuments {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			statement := testDoc("item_2", "statement.txt", profilesvc.ItemText, bankText)
			small := resultJSON(t, analyze(t, testInput(tt.doc(n), statement)))
			large := resultJSON(t, analyze(t, testInput(tt.doc(4*n), statement)))
			assert.LessOrEqual(t, len(large), resultCeiling, "the result of the larger document")
			assert.LessOrEqual(t, len(large), len(small)+16, "the result grew from %d to %d bytes with the document", len(small), len(large))
		})
	}
}

// TestBounds_CitationsAreCappedFairly checks that an audit entry cites at
// most MaxCitations passages, each document's in turn: a document that
// shows a value in every passage leaves room for the others.
func TestBounds_CitationsAreCappedFairly(t *testing.T) {
	passport := "PASSPORT\n" + strings.Repeat("Full Name: Jane Doe\n", 2000)
	in := testInput(
		testDoc("item_1", "passport.txt", profilesvc.ItemText, passport),
		testDoc("item_2", "statement.txt", profilesvc.ItemText, bankText),
	)
	res := analyze(t, in)
	texts := map[string]string{"item_1": passport, "item_2": bankText}
	full := 0
	for _, e := range res.AgentAuditLog {
		if e.RAGResponse == nil {
			continue
		}
		cites := e.RAGResponse.Citations
		assert.LessOrEqual(t, len(cites), engine.MaxCitations, "%s: citations", e.ActionName)
		if len(cites) == engine.MaxCitations {
			full++
		}
		assert.Equal(t, len(cites), res.RawActionResults[e.ActionName].CitationsCount, "%s: citationsCount", e.ActionName)
		last := map[string]int{}
		for i, c := range cites {
			item := fmt.Sprint(c["itemId"])
			start, end := c["start"].(int), c["end"].(int)
			assert.True(t, strings.TrimSpace(texts[item][start:end]) == c["text"], "%s: citation %d does not quote its item", e.ActionName, i)
			assert.Greater(t, start, last[item]-1, "%s: citation %d out of order", e.ActionName, i)
			last[item] = start
		}
		assert.Contains(t, last, "item_2", "%s: the statement is cited beside the passport's many passages", e.ActionName)
	}
	assert.NotZero(t, full, "retrieval steps that cite as many passages as they may")
}

// TestBounds_CitationTextIsWholeCharacters checks that a passage cut
// inside a long line ends on a character's boundary.
func TestBounds_CitationTextIsWholeCharacters(t *testing.T) {
	text := "PASSPORT\nFull Name: Jane Doe\nJane Doe  " + strings.Repeat("한", 200) + "\n"
	res := analyze(t, testInput(testDoc("item_1", "passport.txt", profilesvc.ItemText, text)))
	cited := 0
	for _, e := range res.AgentAuditLog {
		if e.RAGResponse == nil {
			continue
		}
		for _, c := range e.RAGResponse.Citations {
			cited++
			s := c["text"].(string)
			assert.True(t, utf8.ValidString(s), "%s: citation %q is not valid UTF-8", e.ActionName, s)
			assert.LessOrEqual(t, len(s), engine.MaxCitationBytes, "%s: citation text", e.ActionName)
		}
	}
	assert.NotZero(t, cited, "citations")
}

// TestBounds_LongValuesAreCut checks that a value longer than
// MaxValueBytes, in a line, a JSON field or a CSV cell, is cut on a
// character's boundary and marked, in the extracted data and the facts.
func TestBounds_LongValuesAreCut(t *testing.T) {
	long := strings.Repeat("é", engine.MaxValueBytes) // two bytes each
	tests := []struct {
		name string
		doc  engine.Document
	}{
		{"line", testDoc("item_1", "passport.txt", profilesvc.ItemText, "PASSPORT\nFull Name: "+long+"\n")},
		{"JSON field", testDoc("item_1", "passport.json", profilesvc.ItemJSON, `{"document_type": "passport", "full_name": "`+long+`"}`)},
		{"CSV cell", func() engine.Document {
			d := testDoc("item_1", "passport.csv", profilesvc.ItemText, "document,full_name\npassport,"+long+"\n")
			d.ContentType = "text/csv"
			return d
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := analyze(t, testInput(tt.doc))
			var data struct {
				ExtractedValues map[string]any `json:"extracted_values"`
			}
			require.NoError(t, json.Unmarshal(res.ExtractedData, &data))
			got, _ := data.ExtractedValues["full_name"].(string)
			checkCut(t, "extracted full_name", got, long, engine.MaxValueBytes)
			require.Len(t, res.Facts.Documents, 1)
			checkCut(t, "the document's facts", res.Facts.Documents[0].Values["full_name"], long, engine.MaxValueBytes)
		})
	}
}

// TestBounds_ScriptValuesAreCut checks that a scripted outcome's value is
// cut as a document's values are.
func TestBounds_ScriptValuesAreCut(t *testing.T) {
	long := strings.Repeat("é", engine.MaxValueBytes)
	in := testInput(testDoc("item_1", "doc", profilesvc.ItemText, "mock:fail="+long+"\nmock:risk="+long+"\n"))
	s := engine.ParseScript(in)
	checkCut(t, "mock:fail", s.Fail, long, engine.MaxValueBytes)
	checkCut(t, "mock:risk", s.Risk, long, engine.MaxValueBytes)
}

// TestBounds_SentencesAreCut checks that every sentence Default writes is
// at most MaxTextBytes, however many documents it lists, and keeps its
// facts, whole.
func TestBounds_SentencesAreCut(t *testing.T) {
	var docs []engine.Document
	for i := range engine.MaxDocuments {
		name := fmt.Sprintf("%03d %s", i, strings.Repeat("é", 125))
		docs = append(docs, testDoc(fmt.Sprintf("item_%d", i), name, profilesvc.ItemText, fmt.Sprintf("Full Name: Person %d\nDate of birth: %d\n", i, i)))
	}
	in := testInput(docs...)
	res := analyze(t, in)
	all := sentences(t, res)
	for name, raw := range res.RawActionResults {
		all["answer of "+name] = raw.Answer
	}
	cut := 0
	for where, text := range all {
		assert.LessOrEqual(t, len(text), engine.MaxTextBytes, "%s", where)
		assert.True(t, utf8.ValidString(text), "%s: not valid UTF-8", where)
		if strings.HasSuffix(text, "…") {
			cut++
		}
		if !strings.HasPrefix(where, "answer of ") {
			assert.Contains(t, res.Facts.Sentences, text, "%s: no facts for the sentence as cut", where)
		}
	}
	assert.NotZero(t, cut, "sentences cut")
	classified := res.Facts.Sentences[res.Findings[0].Details]
	require.NotEmpty(t, classified)
	assert.Len(t, classified[0].Documents, engine.MaxDocuments, "the classification's facts name every document")
}

// TestBounds_Ceiling checks the largest result the bounds let through: as
// many documents as an analysis reads, each with long values of control
// characters (which JSON writes six bytes each) and a passage to cite on
// every line, under a policy of as many actions as a workflow holds.
func TestBounds_Ceiling(t *testing.T) {
	control := strings.Repeat("\x01", 2*engine.MaxValueBytes)
	var docs []engine.Document
	for i := range engine.MaxDocuments {
		var b strings.Builder
		fmt.Fprintf(&b, "PASSPORT\nDate of Birth: %d%s\nPassport Number: %d%s\nExpiry Date: %d%s\nAddress: %d%s\nNationality: %d%s\nAccount number: %d%s\nNet pay: %d%s\n",
			i, control, i, control, i, control, i, control, i, control, i, control, i, control)
		b.WriteString(strings.Repeat(fmt.Sprintf("Full Name: \x02\x03\x04 %d\n", i), 200))
		name := fmt.Sprintf("%03d %s", i, strings.Repeat("\x05", 250))
		docs = append(docs, testDoc(fmt.Sprintf("item_%d", i), name, profilesvc.ItemText, b.String()))
	}
	in := testInput(docs...)
	def := engine.DefaultWorkflow().Policy
	in.Workflow.Policy = nil
	for i := range engine.MaxPolicyActions {
		a := def[i%len(def)]
		a.ActionName = fmt.Sprintf("%s_%d", a.ActionName, i)
		in.Workflow.Policy = append(in.Workflow.Policy, a)
	}
	res := analyze(t, in)
	full := resultJSON(t, res)
	res.Facts = engine.Facts{}
	analysis := resultJSON(t, res)
	t.Logf("the largest result: %d bytes, %d of them without its facts", len(full), len(analysis))
	assert.LessOrEqual(t, len(analysis), resultCeiling, "the result without its facts, as an analysis carries it")
	assert.LessOrEqual(t, len(full), 2*resultCeiling, "the result with its facts")
}

// TestBounds_InputTooLarge checks that Default refuses more documents, a
// longer policy or a larger schema than the bounds allow, and runs one at
// the bounds, and that Workflow.Validate refuses such a workflow.
func TestBounds_InputTooLarge(t *testing.T) {
	doc := func(i int) engine.Document {
		return testDoc(fmt.Sprintf("item_%d", i), "passport.txt", profilesvc.ItemText, passportText)
	}
	docs := func(n int) []engine.Document {
		out := make([]engine.Document, n)
		for i := range out {
			out[i] = doc(i)
		}
		return out
	}
	policy := func(n int) []engine.PolicyAction {
		out := make([]engine.PolicyAction, n)
		for i := range out {
			out[i] = engine.PolicyAction{ActionName: fmt.Sprintf("step_%d", i), Category: "Document Processing"}
		}
		return out
	}
	schema := func(top, extracted int) json.RawMessage {
		props := map[string]any{}
		values := map[string]any{}
		for i := range extracted {
			values[fmt.Sprintf("field_%d", i)] = map[string]any{"type": "string"}
		}
		props["extracted_values"] = map[string]any{"type": "object", "properties": values}
		for i := range top - 1 {
			props[fmt.Sprintf("top_%d", i)] = map[string]any{"type": "string"}
		}
		b, err := json.Marshal(map[string]any{"type": "object", "properties": props})
		require.NoError(t, err)
		return b
	}
	tests := []struct {
		name     string
		docs     int
		workflow engine.Workflow
		wantErr  string // a part of the error; "" for none
	}{
		{name: "at the bounds", docs: engine.MaxDocuments, workflow: engine.Workflow{ID: "wf_x",
			OutputSchema: schema(engine.MaxSchemaFields, engine.MaxSchemaFields), Policy: policy(engine.MaxPolicyActions)}},
		{name: "too many documents", docs: engine.MaxDocuments + 1, workflow: engine.DefaultWorkflow(),
			wantErr: fmt.Sprintf("at most %d documents", engine.MaxDocuments)},
		{name: "policy too long", docs: 1, workflow: engine.Workflow{ID: "wf_x", Policy: policy(engine.MaxPolicyActions + 1)},
			wantErr: fmt.Sprintf(`field "policy" must have at most %d actions`, engine.MaxPolicyActions)},
		{name: "too many top-level properties", docs: 1, workflow: engine.Workflow{ID: "wf_x",
			OutputSchema: schema(engine.MaxSchemaFields+1, 1), Policy: policy(1)},
			wantErr: fmt.Sprintf(`field "outputSchema" must have at most %d properties`, engine.MaxSchemaFields)},
		{name: "too many extracted values", docs: 1, workflow: engine.Workflow{ID: "wf_x",
			OutputSchema: schema(1, engine.MaxSchemaFields+1), Policy: policy(1)},
			wantErr: fmt.Sprintf(`field "outputSchema" must have at most %d properties in extracted_values`, engine.MaxSchemaFields)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(docs(tt.docs)...)
			in.Workflow = tt.workflow
			_, err := engine.Default(t.Context(), in)
			validateErr := tt.workflow.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err, "Default")
				assert.NoError(t, validateErr, "Validate")
				return
			}
			if assert.Error(t, err, "Default") {
				assert.Contains(t, err.Error(), tt.wantErr, "Default")
			}
			if tt.docs <= engine.MaxDocuments && assert.Error(t, validateErr, "Validate") {
				assert.Contains(t, validateErr.Error(), tt.wantErr, "Validate")
			}
		})
	}
}

// TestBounds_ResultSharesNoMemoryWithTheDocuments checks that the values
// and citations of a result are copies, so that a result kept for long
// does not keep its documents' text in memory.
func TestBounds_ResultSharesNoMemoryWithTheDocuments(t *testing.T) {
	text := passportText + strings.Repeat("Note: nothing\n", 1000)
	res := analyze(t, testInput(testDoc("item_1", "passport.txt", profilesvc.ItemText, text)))
	within := func(s string) bool {
		if s == "" {
			return false
		}
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
		return p >= start && p < start+uintptr(len(text))
	}
	for f, v := range res.Facts.Documents[0].Values {
		assert.False(t, within(v), "the value of %s shares the document's memory", f)
	}
	for _, e := range res.AgentAuditLog {
		if e.RAGResponse == nil {
			continue
		}
		for i, c := range e.RAGResponse.Citations {
			assert.False(t, within(c["text"].(string)), "%s: citation %d shares the document's memory", e.ActionName, i)
		}
	}
}
