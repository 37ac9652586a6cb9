package profilesvc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAnalysisDecision reads the review's decision from the extracted
// data: the final action when there is one, "" without an error when the
// analysis has no extracted data or no review_result, and an error when
// the data cannot be read.
func TestAnalysisDecision(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		data    string
		want    FinalAction
		wantErr bool
	}{
		{name: "approve", data: `{"review_result":{"final_action":"approve","final_risk_level":"low"}}`, want: ActionApprove},
		{name: "reject", data: `{"review_result":{"final_action":"reject"}}`, want: ActionReject},
		{name: "manual review", data: `{"review_result":{"final_action":"manual_review"}}`, want: ActionManualReview},
		{name: "no extracted data", data: ``},
		{name: "null extracted data", data: `null`},
		{name: "no review_result", data: `{"extracted_values":{}}`},
		{name: "null review_result", data: `{"review_result":null}`},
		{name: "review_result of the wrong type", data: `{"review_result":"approve"}`, wantErr: true},
		{name: "final_action of the wrong type", data: `{"review_result":{"final_action":7}}`, wantErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &Analysis{ExtractedData: ExtractedData(tt.data)}
			got, err := a.Decision()
			if tt.wantErr {
				assert.Error(t, err)
				assert.Empty(t, got)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
