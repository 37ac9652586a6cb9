package report

import (
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
)

// TestLabelsComplete checks that both languages have every word: no
// label empty, and the same keys in each of their tables.
func TestLabelsComplete(t *testing.T) {
	en, ko := reflect.ValueOf(englishLabels), reflect.ValueOf(koreanLabels)
	for i := range en.NumField() {
		name := en.Type().Field(i).Name
		switch f := en.Field(i); f.Kind() {
		case reflect.String:
			assert.NotEmpty(t, f.String(), "en.%s", name)
			assert.NotEmpty(t, ko.Field(i).String(), "ko.%s", name)
		case reflect.Map:
			if diff := cmp.Diff(sortedMapKeys(f), sortedMapKeys(ko.Field(i))); diff != "" && name != "workflows" {
				t.Errorf("the keys of %s (-en +ko):\n%s", name, diff)
			}
		case reflect.Func:
			assert.False(t, f.IsNil(), "en.%s", name)
			assert.False(t, ko.Field(i).IsNil(), "ko.%s", name)
		}
	}
}

// sortedMapKeys lists a map's keys as strings, in order.
func sortedMapKeys(m reflect.Value) []string {
	var out []string
	for _, k := range m.MapKeys() {
		out = append(out, k.String())
	}
	slices.Sort(out)
	return out
}

func TestLabelHelpers(t *testing.T) {
	en, ko := labelsFor("en"), labelsFor("ko")
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
		{en.count(1, "document", "documents"), "1 document"},
		{en.count(0, "document", "documents"), "0 documents"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}
