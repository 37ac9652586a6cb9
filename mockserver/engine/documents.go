package engine

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// doc is one target item as the engine sees it.
type doc struct {
	item   Document          // its name cut to MaxValueBytes
	key    string            // its name in document_validations
	kind   string            // recognised type, or "document"
	values map[string]string // schema field -> value
	firsts map[string]string // normKey -> the first value of a key of that name, for r.lookups
	chunks int               // how many passages its text has
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
		d := &doc{item: it, kind: recognise(it), values: map[string]string{}, firsts: map[string]string{}}
		d.item.Name = truncate(it.Name, MaxValueBytes)
		for range chunks(it.Text) {
			d.chunks++
		}
		kindCount[d.kind]++
		d.key = d.kind
		if kindCount[d.kind] > 1 {
			d.key = fmt.Sprintf("%s_%d", d.kind, kindCount[d.kind])
		}
		r.readValues(d)
		r.docs[i] = d
		r.targets[i] = it.ID
	}
}

// readValues reads from d the first value of each schema field that it
// shows, and the first value of each key r.lookups names, each cut to
// MaxValueBytes. It stops reading once it has them all.
func (r *run) readValues(d *doc) {
	for k, v := range pairs(d.item, r.wants) {
		nk := normKey(k)
		if f, ok := r.fieldOf(nk); ok && v != "" {
			if _, seen := d.values[f]; !seen {
				d.values[f] = keepValue(v)
			}
		}
		if _, seen := d.firsts[nk]; r.lookups[nk] && !seen {
			d.firsts[nk] = keepValue(v)
		}
		if len(d.values) == len(r.fields) && len(d.firsts) == len(r.lookups) {
			return
		}
	}
}

// wants reports whether a document's key, folded by normKey, is one the
// engine reads: a schema field's, or one r.lookups names.
func (r *run) wants(nk string) bool {
	_, ok := r.fieldOf(nk)
	return ok || r.lookups[nk]
}

// fieldOf returns the schema field a document's key, folded by normKey,
// stands for: the field of the same name regardless of case and
// separators, or of which the key is a synonym.
func (r *run) fieldOf(nk string) (string, bool) {
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

// pairs reads the key/value pairs of a document, in order of appearance:
// the fields of JSON at any depth, the header and first row of CSV, or
// else the "Key: value" lines of text. It holds no more of them than it
// must: lines are read one at a time, and of JSON, whose fields it gives
// in the order of their names, it keeps only the pairs of the keys want
// names (folded by normKey) that can be the first value of their key.
func pairs(it Document, want func(nk string) bool) iter.Seq2[string, string] {
	return func(yield func(k, v string) bool) {
		text := strings.TrimSpace(it.Text)
		if text == "" {
			return
		}
		if it.Type == profilesvc.ItemJSON || it.ContentType == "application/json" || strings.HasPrefix(text, "{") {
			if out, ok := jsonPairs(text, want); ok {
				for _, l := range out {
					if !yield(l.key, l.value) {
						return
					}
				}
				return
			}
		}
		if it.ContentType == "text/csv" {
			if out, ok := csvPairs(text); ok {
				for _, kv := range out {
					if !yield(kv[0], kv[1]) {
						return
					}
				}
				return
			}
		}
		for line := range strings.SplitSeq(text, "\n") {
			if k, v, ok := keyValue(line); ok && !yield(k, v) {
				return
			}
		}
	}
}

// lineSpace is what separates the parts of a "Key: value" line: ASCII
// spaces, tabs and line ends.
const lineSpace = "\t\n\f\r "

// keyValue reads a "Key: value" line: after any lineSpace, a key of a
// letter then at most 48 letters, digits, spaces or any of _-/'.(); then
// the first ':' or '=', with any lineSpace around it; then a value, which
// is the rest of the line but for trailing lineSpace and must not be
// empty. It is the regular expression
//
//	^\s*([\p{L}][\p{L}\p{N} _\-/'.()]{0,48}?)\s*[:=]\s*(\S.*?)\s*$
//
// without its cost: nothing allocated, a line read once.
func keyValue(line string) (key, value string, ok bool) {
	rest := strings.TrimLeft(line, lineSpace)
	sep := strings.IndexAny(rest, ":=")
	if sep < 0 {
		return "", "", false
	}
	key = strings.TrimRight(rest[:sep], lineSpace)
	value = strings.TrimRight(strings.TrimLeft(rest[sep+1:], lineSpace), lineSpace)
	if value == "" || !isKey(key) {
		return "", "", false
	}
	return key, value, true
}

// isKey reports whether k is a key of a "Key: value" line: a letter then
// at most 48 letters, digits, spaces or any of _-/'.().
func isKey(k string) bool {
	n := 0
	for _, r := range k {
		n++
		switch {
		case n > 49:
			return false
		case unicode.IsLetter(r):
		case n > 1 && (unicode.IsNumber(r) || strings.ContainsRune(" _-/'.()", r)):
		default:
			return false
		}
	}
	return n > 0
}

// csvPairs pairs a CSV's header with its first row; ok is false when text
// is not CSV of two rows at least. It reads the rest only to check it.
func csvPairs(text string) (out [][2]string, ok bool) {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var rows [2][]string
	n := 0
	for ; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		if n < len(rows) {
			rows[n] = slices.Clone(rec)
		}
	}
	if n < 2 {
		return nil, false
	}
	for i, h := range rows[0] {
		if i < len(rows[1]) {
			out = append(out, [2]string{h, rows[1][i]})
		}
	}
	return out, true
}

// leaf is a key/value pair of JSON: a value and the name of the object
// field that holds it.
type leaf struct {
	key, norm, value string // norm is normKey(key)
}

// leaves are the pairs of a part of a JSON value, in order, of which only
// the first of each key and the first non-empty one of each key are kept:
// the engine reads no other, since it takes the first value of a key, or
// its first non-empty one, and an outer part keeps the order of an inner
// one's pairs. They are few (twice the keys the engine reads at most), and
// looked through in turn.
type leaves []leaf

// add appends l unless it can be the first of its key in no way.
func (ls *leaves) add(l leaf) {
	keep, keepNonEmpty := true, l.value != ""
	for _, o := range *ls {
		if o.norm == l.norm {
			keep = false
			keepNonEmpty = keepNonEmpty && o.value == ""
		}
	}
	if keep || keepNonEmpty {
		*ls = append(*ls, l)
	}
}

// field is an object's field of JSON that holds leaves.
type field struct {
	name   string
	leaves leaves
}

// maxJSONDepth is how deeply encoding/json nests arrays and objects; a
// deeper value is not JSON to it, nor to the engine.
const maxJSONDepth = 10000

// errJSONDepth reports a JSON value nested more deeply than maxJSONDepth.
var errJSONDepth = errors.New("JSON nested too deeply")

// jsonPairs reads the leaves of a JSON value, each under the name of the
// object field that holds it: an object's fields in the order of their
// names (the last of a name repeated), an array's elements in order. It
// reads the text as a stream and keeps only the leaves of keys want
// names, pruned as leaves prunes them, so that what it holds does not
// grow with the document; each value is cut to MaxValueBytes. ok is false
// when text is not one JSON value.
func jsonPairs(text string, want func(nk string) bool) (out []leaf, ok bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	ls, err := jsonLeaves(dec, "", 0, want)
	if err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more than one value
	}
	return ls, true
}

// jsonLeaves reads the JSON value that comes next from dec, held by the
// object field named prefix ("" for none) at the given depth of nesting,
// and returns its leaves.
func jsonLeaves(dec *json.Decoder, prefix string, depth int, want func(nk string) bool) (leaves, error) {
	var ls leaves
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	delim, isDelim := tok.(json.Delim)
	switch {
	case isDelim && depth+1 > maxJSONDepth:
		return nil, errJSONDepth
	case isDelim && delim == '{':
		var fields []field // those that hold leaves; the last of a name repeated
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			name, _ := keyTok.(string)
			inner, err := jsonLeaves(dec, name, depth+1, want)
			if err != nil {
				return nil, err
			}
			fields = slices.DeleteFunc(fields, func(f field) bool { return f.name == name })
			if len(inner) > 0 {
				fields = append(fields, field{name, inner})
			}
		}
		slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
		for _, f := range fields {
			for _, l := range f.leaves {
				ls.add(l)
			}
		}
	case isDelim: // '['
		for dec.More() {
			inner, err := jsonLeaves(dec, prefix, depth+1, want)
			if err != nil {
				return nil, err
			}
			for _, l := range inner {
				ls.add(l)
			}
		}
	case tok == nil || prefix == "":
		return nil, nil
	default:
		if nk := normKey(prefix); want(nk) {
			ls.add(leaf{key: prefix, norm: nk, value: keepValue(strings.TrimSpace(fmt.Sprint(tok)))})
		}
		return ls, nil
	}
	_, err = dec.Token() // the closing delimiter
	return ls, err
}

// kindWords are the words that tell each document type, in order of
// precedence.
var kindWords = []struct {
	kind  string
	words []string
}{
	{"passport", []string{"passport"}},
	{"drivers_licence", []string{"driver's licen", "driving licen", "drivers licen", "driver licen", "driver_licen"}},
	{"national_id", []string{"national id", "identity card", "id card", "national_id"}},
	{"bank_statement", []string{"bank statement", "account statement", "bank_statement", "iban", "sort code"}},
	{"utility_bill", []string{"utility bill", "electricity", "water bill", "gas bill", "utility_bill"}},
	{"payslip", []string{"payslip", "pay slip", "salary statement", "net pay"}},
}

// maxKindWord is the length in bytes of the longest of kindWords.
var maxKindWord = func() int {
	n := 0
	for _, k := range kindWords {
		for _, w := range k.words {
			n = max(n, len(w))
		}
	}
	return n
}()

// recognisePiece is how much of a document's text recognise reads at a
// time.
const recognisePiece = 64 << 10

// recognise tells a document's type from its name and text: the first
// type of kindWords one of whose words the name and text, lower-cased and
// joined by a space, hold. It reads the text a piece at a time, so that
// it never holds a lower-cased copy of the whole.
func recognise(it Document) string {
	found := make([]bool, len(kindWords))
	tail := "" // the end of what was read, lower-cased, for words across pieces
	read := func(piece string) {
		lower := strings.ToLower(piece)
		across := tail + lower[:min(len(lower), maxKindWord-1)]
		for i, k := range kindWords {
			for _, w := range k.words {
				if !found[i] && (strings.Contains(lower, w) || strings.Contains(across, w)) {
					found[i] = true
				}
			}
		}
		end := lower
		if len(lower) < maxKindWord-1 {
			end = across
		}
		tail = end[max(0, len(end)-(maxKindWord-1)):]
	}
	read(it.Name + " ")
	for text := it.Text; text != "" && !found[0]; {
		end := min(recognisePiece, len(text))
		for end < len(text) && !utf8.RuneStart(text[end]) {
			end++ // a piece ends on a character's boundary, and is lower-cased as in the whole
		}
		read(text[:end])
		text = text[end:]
	}
	for i, k := range kindWords {
		if found[i] {
			return k.kind
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

// chunks returns the passages of text, for citations: pieces of at most
// MaxCitationBytes, each cut after the last line break within that size
// where there is one, else on a character's boundary.
func chunks(text string) iter.Seq[chunk] {
	return func(yield func(chunk) bool) {
		for index, start := 0, 0; start < len(text); index++ {
			end := min(start+MaxCitationBytes, len(text))
			if end < len(text) {
				if nl := strings.LastIndexByte(text[start:end], '\n'); nl > 0 {
					end = start + nl + 1
				} else {
					for end > start+1 && !utf8.RuneStart(text[end]) {
						end--
					}
				}
			}
			if !yield(chunk{index: index, start: start, end: end, text: text[start:end]}) {
				return
			}
			start = end
		}
	}
}
