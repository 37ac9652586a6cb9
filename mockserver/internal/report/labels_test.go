package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// TestLabelsComplete checks that every label has its words in both
// languages: every field of the table is a text or a map of texts, and no
// text is empty in either language.
func TestLabelsComplete(t *testing.T) {
	textType := reflect.TypeFor[text]()
	v := reflect.ValueOf(labels)
	for i := range v.NumField() {
		f := v.Type().Field(i)
		isMap := f.Type.Kind() == reflect.Map && f.Type.Elem() == textType
		assert.True(t, f.Type == textType || isMap, "labels.%s is a %s: neither a text nor a map of texts", f.Name, f.Type)
		if isMap {
			assert.NotZero(t, v.Field(i).Len(), "labels.%s is empty", f.Name)
		}
	}
	n := 0
	eachText(func(where string, tx text) {
		n++
		assert.NotEmpty(t, tx.en, "labels.%s in English", where)
		assert.NotEmpty(t, tx.ko, "labels.%s in Korean", where)
	})
	assert.Greater(t, n, v.NumField(), "the texts of the labels")
}

// TestFactWordsComplete checks that the report has words for every key
// of a fact the engine declares, in both languages, and for no other key.
func TestFactWordsComplete(t *testing.T) {
	declared := engineFactKeys(t)
	require.NotEmpty(t, declared, "the engine's fact keys")
	if diff := cmp.Diff(declared, slices.Sorted(maps.Keys(factWords))); diff != "" {
		t.Errorf("the keys the engine declares, against those the report says (-engine +report):\n%s", diff)
	}
	for k, w := range factWords {
		assert.NotNil(t, w.en, "%s in English", k)
		assert.NotNil(t, w.ko, "%s in Korean", k)
	}
}

// engineFactKeys lists, in order, the constants of type FactKey that the
// engine's source declares.
func engineFactKeys(t *testing.T) []engine.FactKey {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "engine", "*.go"))
	require.NoError(t, err)
	var out []engine.FactKey
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "FactKey" {
					continue
				}
				require.Len(t, vs.Values, len(vs.Names), "%s: a FactKey without its value", fset.Position(vs.Pos()))
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					require.True(t, ok && lit.Kind == token.STRING, "%s: a FactKey's value is not a string literal", fset.Position(v.Pos()))
					key, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					out = append(out, engine.FactKey(key))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestLabelHelpers(t *testing.T) {
	en, ko := english, korean
	for _, tc := range []struct{ got, want string }{
		{en.validationName("passport"), "Passport"},
		{en.validationName("passport_2"), "Passport 2"},
		{ko.validationName("bank_statement_3"), "은행 거래내역서 3"},
		{en.validationName("document_00"), "Document 00"},
		{en.validationName("employment_letter"), "Employment letter"},
		{en.fieldNames([]string{"full_name", "date_of_birth", "employer_id"}), "full name, date of birth and employer id"},
		{ko.fieldNames([]string{"full_name", "date_of_birth"}), "성명, 생년월일"},
		{en.actionName("cross_check_identity"), "Cross-check identity"},
		{en.actionName("check_income"), "Check income"},
		{ko.workflowName("wf_default", "Identity and financial document review"), "신원 및 금융 문서 검토"},
		{ko.workflowName("wf_kyc", "KYC"), "KYC"},
		{en.isoDate("2031-05-01"), "1 May 2031"},
		{ko.isoDate("2031-05-01"), "2031년 5월 1일"},
		{en.isoDate("soon"), "soon"},
		{englishList(nil), ""},
		{englishList([]string{"a", "b"}), "a and b"},
		{englishCount(1, "document", "documents"), "1 document"},
		{englishCount(0, "document", "documents"), "0 documents"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}
