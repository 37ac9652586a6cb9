package engine

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/profilesvc/profilesvc-go"
)

// doc is one target item as the engine sees it.
type doc struct {
	item   Document
	key    string            // its name in document_validations
	kind   string            // recognised type, or "document"
	values map[string]string // schema field -> value
	chunks []chunk
}

// chunk is a passage of a document's text, for citations.
type chunk struct {
	index, start, end int
	text              string
}

// readDocuments is the first step: it recognises each document's type,
// names it for document_validations (passport, passport_2...) and reads
// the values of the schema's fields from it.
func (r *run) readDocuments() {
	r.docs = make([]*doc, len(r.in.Items))
	r.targets = make([]string, len(r.in.Items))
	kindCount := map[string]int{}
	for i, it := range r.in.Items {
		d := &doc{item: it, kind: recognise(it), values: map[string]string{}, chunks: chunkText(it.Text)}
		kindCount[d.kind]++
		d.key = d.kind
		if kindCount[d.kind] > 1 {
			d.key = fmt.Sprintf("%s_%d", d.kind, kindCount[d.kind])
		}
		for _, kv := range pairs(it) {
			f, ok := r.fieldOf(kv[0])
			if ok && kv[1] != "" {
				if _, seen := d.values[f]; !seen {
					d.values[f] = kv[1]
				}
			}
		}
		r.docs[i] = d
		r.targets[i] = it.ID
	}
}

// fieldOf returns the schema field a document's key stands for: the field
// of the same name regardless of case and separators, or of which the key
// is a synonym.
func (r *run) fieldOf(key string) (string, bool) {
	nk := normKey(key)
	if f, ok := r.byNorm[nk]; ok {
		return f, true
	}
	if syn, ok := synonyms[nk]; ok && slices.Contains(r.fields, syn) {
		return syn, true
	}
	return "", false
}

// hasIdentityDocument reports whether a readable identity document is among
// the documents.
func (r *run) hasIdentityDocument() bool {
	for _, d := range r.docs {
		if d.item.Readable && slices.Contains(identityKinds, d.kind) {
			return true
		}
	}
	return false
}

// shows reports whether any document shows field f.
func (r *run) shows(f string) bool {
	for _, d := range r.docs {
		if _, ok := d.values[f]; ok {
			return true
		}
	}
	return false
}

var synonyms = map[string]string{
	"name": "full_name", "fullname": "full_name", "holdername": "full_name", "accountholder": "full_name",
	"customername": "full_name", "employeename": "full_name",
	"dob": "date_of_birth", "birthdate": "date_of_birth", "dateofbirth": "date_of_birth",
	"passportnumber": "document_number", "passportno": "document_number", "documentno": "document_number",
	"idnumber": "document_number", "licencenumber": "document_number", "licensenumber": "document_number",
	"expiry": "expiry_date", "expires": "expiry_date", "expirationdate": "expiry_date", "dateofexpiry": "expiry_date",
	"validuntil": "expiry_date", "expirydate": "expiry_date",
	"residentialaddress": "address", "homeaddress": "address",
	"netpay": "monthly_income", "monthlysalary": "monthly_income",
}

// normKey folds a key to letters and digits in lower case.
func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var kvLine = regexp.MustCompile(`^\s*([\p{L}][\p{L}\p{N} _\-/'.()]{0,48}?)\s*[:=]\s*(\S.*?)\s*$`)

// pairs reads the key/value pairs of a document, in order of appearance:
// the fields of JSON at any depth, the header and first row of CSV, or
// else the "Key: value" lines of text.
func pairs(it Document) [][2]string {
	text := strings.TrimSpace(it.Text)
	if text == "" {
		return nil
	}
	if it.Type == profilesvc.ItemJSON || it.ContentType == "application/json" || strings.HasPrefix(text, "{") {
		var v any
		if json.Unmarshal([]byte(text), &v) == nil {
			var out [][2]string
			flatten("", v, &out)
			return out
		}
	}
	if it.ContentType == "text/csv" {
		if out, ok := csvPairs(text); ok {
			return out
		}
	}
	var out [][2]string
	for _, line := range strings.Split(text, "\n") {
		if m := kvLine.FindStringSubmatch(line); m != nil {
			out = append(out, [2]string{m[1], m[2]})
		}
	}
	return out
}

// csvPairs pairs a CSV's header with its first row; ok is false when text
// is not CSV of two rows at least.
func csvPairs(text string) (out [][2]string, ok bool) {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		return nil, false
	}
	for i, h := range rows[0] {
		if i < len(rows[1]) {
			out = append(out, [2]string{h, rows[1][i]})
		}
	}
	return out, true
}

// flatten appends the leaves of a JSON value, each under the name of the
// object field that holds it.
func flatten(prefix string, v any, out *[][2]string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(k, x[k], out)
		}
	case []any:
		for _, e := range x {
			flatten(prefix, e, out)
		}
	case nil:
	default:
		if prefix != "" {
			*out = append(*out, [2]string{prefix, strings.TrimSpace(fmt.Sprint(x))})
		}
	}
}

// kindWords are the words that tell each document type, in order of
// precedence.
var kindWords = []struct{ kind, words string }{
	{"passport", "passport"},
	{"drivers_licence", "driver's licen|driving licen|drivers licen|driver licen|driver_licen"},
	{"national_id", "national id|identity card|id card|national_id"},
	{"bank_statement", "bank statement|account statement|bank_statement|iban|sort code"},
	{"utility_bill", "utility bill|electricity|water bill|gas bill|utility_bill"},
	{"payslip", "payslip|pay slip|salary statement|net pay"},
}

// recognise tells a document's type from its name and text.
func recognise(it Document) string {
	hay := strings.ToLower(it.Name + " " + it.Text)
	for _, k := range kindWords {
		for _, w := range strings.Split(k.words, "|") {
			if strings.Contains(hay, w) {
				return k.kind
			}
		}
	}
	return "document"
}

// requiredFields lists what each recognised type must show.
var requiredFields = map[string][]string{
	"passport":        {"full_name", "date_of_birth", "document_number", "expiry_date"},
	"drivers_licence": {"full_name", "date_of_birth", "document_number", "expiry_date"},
	"national_id":     {"full_name", "date_of_birth", "document_number"},
	"bank_statement":  {"full_name", "address"},
	"utility_bill":    {"full_name", "address"},
	"payslip":         {"full_name"},
}

// identityKinds are the document types that prove identity.
var identityKinds = []string{"passport", "drivers_licence", "national_id"}

// chunkText splits text into passages of about 240 bytes on line breaks.
func chunkText(text string) []chunk {
	var out []chunk
	start := 0
	for start < len(text) {
		end := min(start+240, len(text))
		if end < len(text) {
			if nl := strings.LastIndexByte(text[start:end], '\n'); nl > 0 {
				end = start + nl + 1
			}
		}
		out = append(out, chunk{index: len(out), start: start, end: end, text: text[start:end]})
		start = end
	}
	return out
}
