package profilesvc

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ExtractedData is an analysis's structured result. Its fields are set by
// the workflow's output schema, so it is kept as JSON: Decode reads it into
// the caller's own type, and the accessors read the sub-objects most
// workflows share.
type ExtractedData RawJSON

// Decode unmarshals the data into v, which must be a pointer.
func (d ExtractedData) Decode(v any) error { return RawJSON(d).Decode(v) }

// IsNull reports whether there is no data: the analysis has not completed.
func (d ExtractedData) IsNull() bool { return RawJSON(d).IsNull() }

// String returns the JSON text, so that the data prints as text with %v.
func (d ExtractedData) String() string { return string(d) }

// MarshalJSON returns the data as is, or null when it is empty.
func (d ExtractedData) MarshalJSON() ([]byte, error) { return RawJSON(d).MarshalJSON() }

// UnmarshalJSON keeps a copy of the bytes.
func (d *ExtractedData) UnmarshalJSON(b []byte) error { return (*RawJSON)(d).UnmarshalJSON(b) }

// field decodes one top-level field into v; found is false when the data
// has no such field.
func (d ExtractedData) field(name string, v any) (found bool, err error) {
	if d.IsNull() {
		return false, nil
	}
	var top map[string]json.RawMessage
	if err := unmarshal(d, &top); err != nil {
		return false, fmt.Errorf("profilesvc: extracted data: %w", err)
	}
	raw, ok := top[name]
	if !ok || RawJSON(raw).IsNull() {
		return false, nil
	}
	if err := unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("profilesvc: extracted data: %s: %w", name, err)
	}
	return true, nil
}

// ReviewResult returns the review_result sub-object, or nil if there is
// none.
func (d ExtractedData) ReviewResult() (*ReviewResult, error) {
	var r ReviewResult
	if ok, err := d.field("review_result", &r); !ok || err != nil {
		return nil, err
	}
	return &r, nil
}

// ExtractedValues returns the extracted_values sub-object: the raw values
// read from the documents, named by the schema.
func (d ExtractedData) ExtractedValues() (map[string]any, error) {
	var v map[string]any
	_, err := d.field("extracted_values", &v)
	return v, err
}

// CategoryJudgements returns the category_judgements sub-object, or nil if
// there is none.
func (d ExtractedData) CategoryJudgements() (*CategoryJudgements, error) {
	var c CategoryJudgements
	if ok, err := d.field("category_judgements", &c); !ok || err != nil {
		return nil, err
	}
	return &c, nil
}

// DocumentValidations returns the document_validations sub-object.
func (d ExtractedData) DocumentValidations() (DocumentValidations, error) {
	var v DocumentValidations
	_, err := d.field("document_validations", &v)
	return v, err
}

// PolicyFlags returns the policy_flags list.
func (d ExtractedData) PolicyFlags() ([]string, error) {
	var v []string
	_, err := d.field("policy_flags", &v)
	return v, err
}

// RecommendedNextSteps returns the recommended_next_steps list.
func (d ExtractedData) RecommendedNextSteps() ([]string, error) {
	var v []string
	_, err := d.field("recommended_next_steps", &v)
	return v, err
}

// RequestID returns request_id, which equals the profile ID.
func (d ExtractedData) RequestID() (string, error) {
	var v string
	_, err := d.field("request_id", &v)
	return v, err
}

// FinalAction is the decision of a review.
type FinalAction string

// Final actions.
const (
	ActionApprove      FinalAction = "approve"
	ActionReject       FinalAction = "reject"
	ActionManualReview FinalAction = "manual_review"
)

// ReviewResult is the overall decision of an analysis.
type ReviewResult struct {
	FinalAction          FinalAction `json:"final_action"`
	FinalRiskLevel       RiskLevel   `json:"final_risk_level"`
	FinalActionReason    string      `json:"final_action_reason"`
	FinalRiskLevelReason string      `json:"final_risk_level_reason"`
}

// CheckResult is the outcome of comparing a value across documents.
type CheckResult string

// Check results.
const (
	CheckPass         CheckResult = "pass"
	CheckFail         CheckResult = "fail"
	CheckUnverifiable CheckResult = "unverifiable" // no document has the value
	CheckNeedsReview  CheckResult = "needs_review"
)

// FieldCheck is the judgement of one field across documents.
type FieldCheck struct {
	Result CheckResult
	Reason string
}

// CategoryJudgements compares extracted values across documents. On the
// wire each field is a pair of keys, {field}_check_result and
// {field}_check_reason; Checks holds them by field name.
type CategoryJudgements struct {
	Checks                   map[string]FieldCheck
	OverallConsistencyResult CheckResult
	OverallConsistencyReason string
	// Other holds keys that fit neither pattern.
	Other map[string]json.RawMessage
}

const (
	checkResultSuffix = "_check_result"
	checkReasonSuffix = "_check_reason"
)

// UnmarshalJSON reads the flat wire form.
func (c *CategoryJudgements) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*c = CategoryJudgements{Checks: map[string]FieldCheck{}}
	str := func(raw json.RawMessage) (string, error) {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	for k, raw := range m {
		var err error
		switch {
		case k == "overall_consistency_result":
			var s string
			s, err = str(raw)
			c.OverallConsistencyResult = CheckResult(s)
		case k == "overall_consistency_reason":
			c.OverallConsistencyReason, err = str(raw)
		case strings.HasSuffix(k, checkResultSuffix):
			f := strings.TrimSuffix(k, checkResultSuffix)
			var s string
			s, err = str(raw)
			fc := c.Checks[f]
			fc.Result = CheckResult(s)
			c.Checks[f] = fc
		case strings.HasSuffix(k, checkReasonSuffix):
			f := strings.TrimSuffix(k, checkReasonSuffix)
			fc := c.Checks[f]
			fc.Reason, err = str(raw)
			c.Checks[f] = fc
		default:
			if c.Other == nil {
				c.Other = map[string]json.RawMessage{}
			}
			c.Other[k] = raw
		}
		if err != nil {
			return fmt.Errorf("category_judgements.%s: %w", k, err)
		}
	}
	return nil
}

// MarshalJSON writes the flat wire form.
func (c CategoryJudgements) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 2*len(c.Checks)+2+len(c.Other))
	for k, v := range c.Other {
		m[k] = v
	}
	for f, fc := range c.Checks {
		m[f+checkResultSuffix] = fc.Result
		m[f+checkReasonSuffix] = fc.Reason
	}
	if c.OverallConsistencyResult != "" {
		m["overall_consistency_result"] = c.OverallConsistencyResult
	}
	if c.OverallConsistencyReason != "" {
		m["overall_consistency_reason"] = c.OverallConsistencyReason
	}
	return json.Marshal(m)
}

// Fields returns the names of the checked fields, sorted.
func (c *CategoryJudgements) Fields() []string {
	return slices.Sorted(maps.Keys(c.Checks))
}

// DocumentValidation is the verdict on one document.
type DocumentValidation struct {
	IsValid bool
	Reason  string
}

// DocumentValidations holds the verdict on each document, by document
// name. On the wire each is a pair of keys, {document}_is_valid and
// {document}_is_valid_reason.
type DocumentValidations map[string]DocumentValidation

const (
	isValidSuffix       = "_is_valid"
	isValidReasonSuffix = "_is_valid_reason"
)

// UnmarshalJSON reads the flat wire form; keys that fit neither pattern are
// ignored.
func (v *DocumentValidations) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out := DocumentValidations{}
	for k, raw := range m {
		switch {
		case strings.HasSuffix(k, isValidReasonSuffix):
			doc := strings.TrimSuffix(k, isValidReasonSuffix)
			dv := out[doc]
			if err := json.Unmarshal(raw, &dv.Reason); err != nil {
				return fmt.Errorf("document_validations.%s: %w", k, err)
			}
			out[doc] = dv
		case strings.HasSuffix(k, isValidSuffix):
			doc := strings.TrimSuffix(k, isValidSuffix)
			dv := out[doc]
			if err := json.Unmarshal(raw, &dv.IsValid); err != nil {
				return fmt.Errorf("document_validations.%s: %w", k, err)
			}
			out[doc] = dv
		}
	}
	*v = out
	return nil
}

// MarshalJSON writes the flat wire form.
func (v DocumentValidations) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, 2*len(v))
	for doc, dv := range v {
		m[doc+isValidSuffix] = dv.IsValid
		m[doc+isValidReasonSuffix] = dv.Reason
	}
	return json.Marshal(m)
}
