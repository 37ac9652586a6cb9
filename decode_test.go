package profilesvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The golden files under testdata are written by hand from the interface
// document: each carries every field the document gives its resource, with
// realistic values. The tests below serve them through newTestServer,
// decode them with the SDK's own methods and compare the result with a
// fully written Go value, then marshal the result again and compare it with
// the file, which proves that every JSON tag matches its field.

// goldenCmpOpts compare decoded resources: Raw is checked on its own, and
// JSON kept as bytes is compared by value rather than by spelling.
var goldenCmpOpts = cmp.Options{
	cmpopts.IgnoreFields(Profile{}, "Raw"),
	cmpopts.IgnoreFields(Folder{}, "Raw"),
	cmpopts.IgnoreFields(Item{}, "Raw"),
	cmpopts.IgnoreFields(Analysis{}, "Raw"),
	cmp.Transformer("RawJSON", func(r RawJSON) any { return goldenJSONValue(r) }),
	cmp.Transformer("ExtractedData", func(d ExtractedData) any { return goldenJSONValue(d) }),
}

// goldenJSONValue decodes JSON text for comparison; empty text is nil, like
// null.
func goldenJSONValue(b []byte) any {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "invalid JSON: " + err.Error() + ": " + string(b)
	}
	return v
}

// goldenRead returns the bytes of testdata/name.
func goldenRead(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("reading golden file: %v", err)
	}
	return b
}

// goldenTime parses an RFC 3339 timestamp of an expected value.
func goldenTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad timestamp in test: %v", err)
	}
	return v
}

func goldenTimePtr(t testing.TB, s string) *time.Time {
	t.Helper()
	v := goldenTime(t, s)
	return &v
}

// goldenServer answers every request with body as 200 JSON.
func goldenServer(t testing.TB, body []byte) *testServer {
	t.Helper()
	return newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respond(w, http.StatusOK, string(body))
	})
}

// goldenDropNulls removes, recursively, the members of objects whose value
// is null, so that an absent member and a null one compare equal.
func goldenDropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if e != nil {
				out[k] = goldenDropNulls(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = goldenDropNulls(e)
		}
		return out
	}
	return v
}

// goldenJSONDiff reports how got differs from want as JSON values; with
// nullIsAbsent, a null member and an absent one are the same.
func goldenJSONDiff(t testing.TB, want, got []byte, nullIsAbsent bool) string {
	t.Helper()
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if nullIsAbsent {
		w, g = goldenDropNulls(w), goldenDropNulls(g)
	}
	return cmp.Diff(w, g)
}

// goldenMember returns the JSON of member key of the object in b.
func goldenMember(t testing.TB, b []byte, key string) []json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatalf("golden file: %v", err)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(top[key], &elems); err != nil {
		t.Fatalf("golden file: member %q: %v", key, err)
	}
	return elems
}

func TestDecodeGoldenFiles(t *testing.T) {
	tests := []struct {
		file string
		call func(ctx context.Context, c *Client) (any, error)
		want func(t *testing.T) any
		// raw returns the Raw of the top-level resource, if it has one.
		raw func(got any) json.RawMessage
		// nestedKey names the array of the file whose elements are
		// resources with their own Raw; nested returns those Raws.
		nestedKey string
		nested    func(got any) []json.RawMessage
		// nullIsAbsent: the file sends null for members the SDK omits when
		// they are empty (the results of an analysis that has not
		// completed).
		nullIsAbsent bool
	}{
		{
			file: "profile_create.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateProfile(ctx, "wf_7c1d2e9a", CreateProfileParams{Name: "Jane Doe"})
			},
			want:      goldenWantProfileCreate,
			raw:       func(got any) json.RawMessage { return json.RawMessage(got.(*Profile).Raw) },
			nestedKey: "folders",
			nested: func(got any) []json.RawMessage {
				var out []json.RawMessage
				for _, f := range got.(*Profile).Folders {
					out = append(out, json.RawMessage(f.Raw))
				}
				return out
			},
		},
		{
			file: "profile.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateProfile(ctx, "pf_3k9x2m7q", UpdateProfileParams{Name: Ptr("Jane Doe (joint applicant)")})
			},
			want: goldenWantProfile,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Profile).Raw) },
		},
		{
			file: "folder.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetFolder(ctx, "fd_5t7v9x1z")
			},
			want: goldenWantFolder,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Folder).Raw) },
		},
		{
			file: "folder_page.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_3k9x2m7q", &ListFoldersParams{Limit: 2})
			},
			want:      goldenWantFolderPage,
			nestedKey: "items",
			nested: func(got any) []json.RawMessage {
				var out []json.RawMessage
				for _, f := range got.(*FolderPage).Items {
					out = append(out, json.RawMessage(f.Raw))
				}
				return out
			},
		},
		{
			file: "item_text.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateTextItem(ctx, "fd_5t7v9x1z", "Confirmed by phone", CreateItemParams{Name: "Employer note"})
			},
			want: goldenWantItemText,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Item).Raw) },
		},
		{
			file: "item_json.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_j9k0l1m2", UpdateItemParams{Metadata: Object{"reviewed": true}})
			},
			want: goldenWantItemJSON,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Item).Raw) },
		},
		{
			file: "item_file.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFile(ctx, "fd_5t7v9x1z", strings.NewReader("%PDF-1.7"), UploadParams{Filename: "payslip-2025-02.pdf"})
			},
			want: goldenWantItemFile,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Item).Raw) },
		},
		{
			file: "analysis_completed.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_q7w8e9r0", nil)
			},
			want: goldenWantAnalysisCompleted,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Analysis).Raw) },
		},
		{
			file: "analysis_pending.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_p4o5i6u7", nil)
			},
			want:         goldenWantAnalysisPending,
			raw:          func(got any) json.RawMessage { return json.RawMessage(got.(*Analysis).Raw) },
			nullIsAbsent: true,
		},
		{
			file: "analysis_failed.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_f1a2i3l4", nil)
			},
			want:         goldenWantAnalysisFailed,
			raw:          func(got any) json.RawMessage { return json.RawMessage(got.(*Analysis).Raw) },
			nullIsAbsent: true,
		},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".json"), func(t *testing.T) {
			file := goldenRead(t, tt.file)
			srv := goldenServer(t, file)
			got, err := tt.call(context.Background(), srv.client(t))
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if diff := cmp.Diff(tt.want(t), got, goldenCmpOpts); diff != "" {
				t.Errorf("decoded value mismatch (-want +got):\n%s", diff)
			}

			if tt.raw != nil {
				if raw, want := tt.raw(got), bytes.TrimSpace(file); !bytes.Equal(raw, want) {
					t.Errorf("Raw is not the bytes of the file:\ngot  %q\nwant %q", raw, want)
				}
			}
			if tt.nested != nil {
				wantElems := goldenMember(t, file, tt.nestedKey)
				gotRaws := tt.nested(got)
				if len(gotRaws) != len(wantElems) {
					t.Fatalf("%d nested resources, want %d", len(gotRaws), len(wantElems))
				}
				for i := range wantElems {
					if !bytes.Equal(gotRaws[i], wantElems[i]) {
						t.Errorf("%s[%d].Raw = %s, want %s", tt.nestedKey, i, gotRaws[i], wantElems[i])
					}
				}
			}

			again, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if diff := goldenJSONDiff(t, file, again, tt.nullIsAbsent); diff != "" {
				t.Errorf("re-marshalled JSON differs from the file (-file +marshalled):\n%s", diff)
			}
		})
	}
}

func goldenWantProfileCreate(t *testing.T) any {
	created := goldenTime(t, "2025-03-14T09:26:53.589Z")
	return &Profile{
		ID:          "pf_3k9x2m7q",
		WorkflowID:  "wf_7c1d2e9a",
		Name:        "Jane Doe",
		Description: "Retail loan onboarding, branch 114",
		Metadata: Object{
			"customerRef": "CUST-20931",
			"channel":     "branch",
			"priority":    float64(2),
			"vip":         false,
		},
		ItemsCount:     0,
		LastAnalysisAt: nil,
		Folders: []Folder{{
			ID:         "fld_8h2n4p6r",
			Name:       "default",
			IsDefault:  true,
			ItemsCount: 0,
			CreatedAt:  created,
		}},
		CreatedAt: created,
		UpdatedAt: created,
	}
}

func goldenWantProfile(t *testing.T) any {
	return &Profile{
		ID:          "pf_3k9x2m7q",
		WorkflowID:  "wf_7c1d2e9a",
		Name:        "Jane Doe (joint applicant)",
		Description: "Retail loan onboarding, branch 114; co-signer added",
		Metadata: Object{
			"customerRef": "CUST-20931",
			"tags":        []any{"kyc", "retail"},
			"address":     map[string]any{"city": "Seoul", "postalCode": "04524"},
		},
		ItemsCount:     3,
		LastAnalysisAt: goldenTimePtr(t, "2025-03-14T10:02:11.204Z"),
		CreatedAt:      goldenTime(t, "2025-03-14T09:26:53.589Z"),
		UpdatedAt:      goldenTime(t, "2025-03-14T10:15:42.031+09:00"),
	}
}

func goldenWantFolder(t *testing.T) any {
	return &Folder{
		ID:         "fd_5t7v9x1z",
		ProfileID:  "pf_3k9x2m7q",
		Name:       "Income documents",
		IsDefault:  false,
		ItemsCount: 3,
		CreatedAt:  goldenTime(t, "2025-03-14T09:31:07.118Z"),
		UpdatedAt:  goldenTime(t, "2025-03-14T09:40:22.917Z"),
		Items: []ItemSummary{
			{
				ID:          "item_a1b2c3d4",
				Type:        ItemFile,
				Name:        "payslip-2025-02.pdf",
				ContentType: Ptr("application/pdf"),
				SizeBytes:   Ptr[int64](184213),
				CreatedAt:   goldenTime(t, "2025-03-14T09:32:15.004Z"),
			},
			{
				ID:          "item_e5f6g7h8",
				Type:        ItemText,
				Name:        "Employer note",
				ContentType: Ptr("text/plain"),
				SizeBytes:   Ptr[int64](131),
				CreatedAt:   goldenTime(t, "2025-03-14T09:33:01.502Z"),
			},
			{
				ID:          "item_j9k0l1m2",
				Type:        ItemJSON,
				Name:        "Bank API export",
				ContentType: nil,
				SizeBytes:   nil,
				CreatedAt:   goldenTime(t, "2025-03-14T09:40:22.917Z"),
			},
		},
	}
}

func goldenWantFolderPage(t *testing.T) any {
	return &FolderPage{
		Count:      2,
		NextCursor: "eyJjcmVhdGVkQXQiOiIyMDI1LTAzLTE0VDA5OjI2OjUzLjU4OVoiLCJpZCI6ImZsZF84aDJuNHA2ciJ9",
		Items: []Folder{
			{
				ID:         "fd_5t7v9x1z",
				ProfileID:  "pf_3k9x2m7q",
				Name:       "Income documents",
				IsDefault:  false,
				ItemsCount: 3,
				CreatedAt:  goldenTime(t, "2025-03-14T09:31:07.118Z"),
				UpdatedAt:  goldenTime(t, "2025-03-14T09:40:22.917Z"),
			},
			{
				ID:         "fld_8h2n4p6r",
				ProfileID:  "pf_3k9x2m7q",
				Name:       "default",
				IsDefault:  true,
				ItemsCount: 0,
				CreatedAt:  goldenTime(t, "2025-03-14T09:26:53.589Z"),
				UpdatedAt:  goldenTime(t, "2025-03-14T09:26:53.589Z"),
			},
		},
	}
}

func goldenWantItemText(t *testing.T) any {
	return &Item{
		ID:                 "item_e5f6g7h8",
		FolderID:           "fd_5t7v9x1z",
		Type:               ItemText,
		Name:               "Employer note",
		Content:            RawJSON(`"Confirmed by phone with HR (Mr. Park):\nemployed since 2019-04-01, monthly gross salary KRW 4,200,000 — \"permanent\" contract."`),
		ContentType:        "text/plain",
		SizeBytes:          131,
		URL:                "https://storage.example.com/extracted/item_e5f6g7h8.txt",
		StorageOriginalURL: "https://storage.example.com/original/item_e5f6g7h8.txt",
		Detected:           &Detected{ContentType: "text/plain", Extension: "txt", FileCategory: "text"},
		Metadata:           Object{"source": "call-center", "agentId": "A-2231"},
		Status:             ItemActive,
		ProcessedAt:        goldenTimePtr(t, "2025-03-14T09:33:02.771Z"),
		CreatedAt:          goldenTime(t, "2025-03-14T09:33:01.502Z"),
	}
}

func goldenWantItemJSON(t *testing.T) any {
	return &Item{
		ID:       "item_j9k0l1m2",
		FolderID: "fd_5t7v9x1z",
		Type:     ItemJSON,
		Name:     "Bank API export",
		Content: RawJSON(`{
			"accountNumber": "110-234-567890",
			"bank": "Shinhan Bank",
			"balance": 12850000,
			"currency": "KRW",
			"transactions": [
				{"date": "2025-02-25", "amount": 4200000, "description": "SALARY ACME CORP"},
				{"date": "2025-02-27", "amount": -850000, "description": "RENT"}
			]
		}`),
		ContentType:        "application/json",
		SizeBytes:          342,
		URL:                "https://storage.example.com/extracted/item_j9k0l1m2.txt",
		StorageOriginalURL: "https://storage.example.com/original/item_j9k0l1m2.json",
		Detected:           &Detected{ContentType: "application/json", Extension: "json", FileCategory: "structured"},
		Metadata:           Object{"source": "open-banking", "fetchedAt": "2025-03-14T09:40:20Z", "reviewed": true},
		Status:             ItemActive,
		ProcessedAt:        goldenTimePtr(t, "2025-03-14T09:40:23.312Z"),
		CreatedAt:          goldenTime(t, "2025-03-14T09:40:22.917Z"),
	}
}

func goldenWantItemFile(t *testing.T) any {
	return &Item{
		ID:                 "item_a1b2c3d4",
		FolderID:           "fd_5t7v9x1z",
		Type:               ItemFile,
		Name:               "payslip-2025-02.pdf",
		Content:            RawJSON(`null`),
		ContentType:        "application/pdf",
		SizeBytes:          184213,
		URL:                "https://storage.example.com/extracted/item_a1b2c3d4.txt",
		StorageOriginalURL: "https://storage.example.com/original/item_a1b2c3d4.pdf",
		Detected:           &Detected{ContentType: "application/pdf", Extension: "pdf", FileCategory: "document"},
		Metadata:           Object{"uploadedBy": "agent-17", "pages": float64(2)},
		Status:             ItemActive,
		ProcessedAt:        goldenTimePtr(t, "2025-03-14T09:32:19.846Z"),
		CreatedAt:          goldenTime(t, "2025-03-14T09:32:15.004Z"),
	}
}

// goldenExtractedData is the extractedData of analysis_completed.json.
const goldenExtractedData = `{
	"request_id": "pf_3k9x2m7q",
	"policy_flags": ["EMPLOYER_NAME_MISMATCH", "STALE_BANK_STATEMENT"],
	"review_result": {
		"final_action": "manual_review",
		"final_risk_level": "medium",
		"final_action_reason": "Employer name on the payslip does not match the employer note.",
		"final_risk_level_reason": "Income is verified but one document is older than policy allows."
	},
	"extracted_values": {
		"applicant_name": "Jane Doe",
		"date_of_birth": "1988-07-21",
		"employer_name": "ACME Corp.",
		"monthly_gross_income": 4200000,
		"currency": "KRW",
		"bank_statement_date": "2025-01-31",
		"business_registration_number": "123-45-67890"
	},
	"category_judgements": {
		"name_check_result": "pass",
		"name_check_reason": "The name matches on the payslip, the employer note and the bank export.",
		"date_of_birth_check_result": "pass",
		"date_of_birth_check_reason": "Only one document states it; it is well formed.",
		"income_check_result": "pass",
		"income_check_reason": "KRW 4,200,000 on the payslip and as the salary credit on 2025-02-25.",
		"employer_check_result": "needs_review",
		"employer_check_reason": "Payslip says ACME Corp.; the employer note says ACME Holdings.",
		"address_check_result": "unverifiable",
		"address_check_reason": "No proof-of-address document was provided.",
		"bank_account_check_result": "fail",
		"bank_account_check_reason": "The salary account on the payslip differs from the exported account.",
		"overall_consistency_result": "needs_review",
		"overall_consistency_reason": "Two checks need a person: employer and bank account."
	},
	"document_validations": {
		"payslip_is_valid": true,
		"payslip_is_valid_reason": "Issued 2025-02-25 by a registered employer.",
		"employer_note_is_valid": true,
		"employer_note_is_valid_reason": "Recorded by an agent with a call reference.",
		"bank_statement_is_valid": false,
		"bank_statement_is_valid_reason": "Dated 2025-01-31, more than 30 days before the request."
	},
	"recommended_next_steps": [
		"Request an employment certificate issued within the last 30 days",
		"Request a current bank statement for the salary account"
	],
	"proof_of_address": null
}`

// goldenOutputSchema is the outputSchema of analysis_completed.json.
const goldenOutputSchema = `{
	"$schema": "http://json-schema.org/draft-07/schema#",
	"title": "Retail loan KYC",
	"type": "object",
	"required": ["request_id", "review_result"],
	"properties": {
		"request_id": {"type": "string", "value": "pf_3k9x2m7q"},
		"policy_flags": {
			"type": "array",
			"items": {"type": "string"},
			"value": ["EMPLOYER_NAME_MISMATCH", "STALE_BANK_STATEMENT"]
		},
		"review_result": {
			"type": "object",
			"value": {
				"final_action": "manual_review",
				"final_risk_level": "medium",
				"final_action_reason": "Employer name on the payslip does not match the employer note.",
				"final_risk_level_reason": "Income is verified but one document is older than policy allows."
			}
		},
		"extracted_values": {
			"type": "object",
			"value": {"applicant_name": "Jane Doe", "monthly_gross_income": 4200000}
		},
		"recommended_next_steps": {
			"type": "array",
			"items": {"type": "string"},
			"value": [
				"Request an employment certificate issued within the last 30 days",
				"Request a current bank statement for the salary account"
			]
		},
		"proof_of_address": {"type": ["object", "null"], "value": null}
	}
}`

func goldenWantAnalysisCompleted(t *testing.T) any {
	allItems := []string{"item_a1b2c3d4", "item_e5f6g7h8", "item_j9k0l1m2"}
	return &Analysis{
		ID:                 "analysis_q7w8e9r0",
		ProfileID:          "pf_3k9x2m7q",
		FolderID:           Ptr("fd_5t7v9x1z"),
		EngineID:           Ptr("eng_kyc_v2"),
		PlaybookID:         "PB-KYC-001",
		Engine:             Object{"id": "eng_kyc_v2", "name": "KYC Verification Engine", "version": "2.3.1"},
		Status:             AnalysisCompleted,
		ProcessingTimeMs:   48213,
		VerificationStatus: VerificationPendingReview,
		Error:              nil,
		Options:            Object{"language": "en", "strictMode": true},
		ClientMetadata:     Object{"caseId": "CASE-88412", "requestedBy": "underwriter-42"},
		PrimaryReportID:    Ptr("rpt_z1x2c3v4"),
		RequestedAt:        goldenTime(t, "2025-03-14T10:02:11.204Z"),
		CompletedAt:        goldenTimePtr(t, "2025-03-14T10:02:59.417Z"),
		CreatedAt:          goldenTime(t, "2025-03-14T10:02:11.204Z"),
		RiskAssessment: &RiskAssessment{
			RiskLevel: RiskMedium,
			RiskScore: 42.5,
			RiskFactors: []string{
				"Employer name differs between payslip and employer note",
				"Bank statement older than 30 days",
			},
		},
		SystemMetadata: &SystemMetadata{
			TotalIterations:  2,
			CompletedWorkIDs: []int{1, 2, 3, 4},
			WorkflowHistory: []WorkflowHistoryEntry{
				{
					WorkID:     1,
					ActionName: "classify_documents",
					Query:      "Classify each document by type",
					Reason:     "Find which required documents are present",
					Success:    true,
					Iteration:  1,
					Timestamp:  goldenTime(t, "2025-03-14T10:02:14.031Z"),
				},
				{
					WorkID:     2,
					ActionName: "extract_income",
					Query:      "What is the applicant's monthly gross income?",
					Reason:     "Income is needed for the affordability check",
					Success:    true,
					Iteration:  1,
					Timestamp:  goldenTime(t, "2025-03-14T10:02:21.662Z"),
				},
				{
					WorkID:     3,
					ActionName: "verify_business_registration",
					Query:      "Is business registration 123-45-67890 active?",
					Reason:     "The employer must be an active business",
					Success:    true,
					Iteration:  2,
					Timestamp:  goldenTime(t, "2025-03-14T10:02:33.108Z"),
				},
				{
					WorkID:     4,
					ActionName: "check_consistency",
					Query:      "Do name, income and employer agree across documents?",
					Reason:     "Cross-document consistency is required by policy",
					Success:    true,
					Iteration:  2,
					Timestamp:  goldenTime(t, "2025-03-14T10:02:51.377Z"),
				},
			},
		},
		ExtractedData: ExtractedData(goldenExtractedData),
		OutputSchema:  RawJSON(goldenOutputSchema),
		ExtractionStatus: map[string]ExtractionStatus{
			"request_id":             Extracted,
			"policy_flags":           Extracted,
			"review_result":          Extracted,
			"extracted_values":       Extracted,
			"category_judgements":    Extracted,
			"document_validations":   Extracted,
			"recommended_next_steps": Extracted,
			"proof_of_address":       ExtractionMissing,
		},
		RawActionResults: map[string]RawActionResult{
			"classify_documents": {
				Answer:             "payslip-2025-02.pdf: payslip; Employer note: employment confirmation; Bank API export: bank statement.",
				WorkID:             1,
				CitationsCount:     3,
				VerificationStatus: StepPassed,
			},
			"extract_income": {
				Answer:             "Monthly gross income is KRW 4,200,000 (payslip, February 2025).",
				WorkID:             2,
				CitationsCount:     2,
				VerificationStatus: StepPassed,
			},
			"verify_business_registration": {
				Answer:             "Business 123-45-67890 is active (general taxpayer).",
				WorkID:             3,
				CitationsCount:     0,
				VerificationStatus: StepPassed,
			},
			"check_consistency": {
				Answer:             "Employer name and salary account differ between documents.",
				WorkID:             4,
				CitationsCount:     4,
				VerificationStatus: StepNeedsReview,
			},
		},
		AgentAuditLog: []AuditLogEntry{
			{
				WorkID:        1,
				ActionName:    "classify_documents",
				Category:      CategoryDocumentClassification,
				Query:         "Classify each document by type",
				Reasoning:     "",
				Success:       true,
				Iteration:     1,
				DurationMs:    2841,
				ExecutedAt:    goldenTime(t, "2025-03-14T10:02:14.031Z"),
				TargetItemIDs: allItems,
			},
			{
				WorkID:             2,
				ActionName:         "extract_income",
				Category:           CategoryDataExtraction,
				Query:              "What is the applicant's monthly gross income?",
				Reasoning:          "The payslip states the gross amount; the bank export confirms the credit.",
				Success:            true,
				Iteration:          1,
				DurationMs:         7512,
				ExecutedAt:         goldenTime(t, "2025-03-14T10:02:21.662Z"),
				VerificationStatus: StepPassed,
				TargetItemIDs:      []string{"item_a1b2c3d4", "item_j9k0l1m2"},
				RAGResponse: &RAGResponse{
					Answer: "Monthly gross income is KRW 4,200,000.",
					Citations: []Object{
						{
							"itemId":     "item_a1b2c3d4",
							"chunkIndex": float64(3),
							"start":      float64(1204),
							"end":        float64(1262),
							"text":       "Gross pay (monthly) ........ KRW 4,200,000",
						},
						{
							"itemId":     "item_j9k0l1m2",
							"chunkIndex": float64(0),
							"start":      float64(212),
							"end":        float64(287),
							"text":       `{"date": "2025-02-25", "amount": 4200000, "description": "SALARY ACME CORP"}`,
						},
					},
					ChunksSearched:   24,
					ProcessingTimeMs: 1184,
				},
			},
			{
				WorkID:             3,
				ActionName:         "verify_business_registration",
				Category:           CategoryMCP,
				Query:              "Is business registration 123-45-67890 active?",
				Reasoning:          "Checked the national registry for the employer's business number.",
				Success:            true,
				Iteration:          2,
				DurationMs:         911,
				ExecutedAt:         goldenTime(t, "2025-03-14T10:02:33.108Z"),
				VerificationStatus: StepPassed,
				TargetItemIDs:      []string{"item_a1b2c3d4"},
				MCPToolCalls: []MCPToolCall{{
					ToolName:        "business_status_lookup",
					EngineCode:      "NTS_BIZ",
					EngineName:      "National Tax Service business status",
					Params:          Object{"businessNumber": "1234567890"},
					Success:         true,
					StartedAt:       goldenTime(t, "2025-03-14T10:02:32.197Z"),
					ExecutionTimeMs: 632,
					RawContent:      Object{"status": "active", "taxType": "general", "closedAt": nil},
					FallbackToRAG:   false,
					SelectionReason: "A business number was extracted; the registry is authoritative.",
				}},
			},
			{
				WorkID:             4,
				ActionName:         "check_consistency",
				Category:           CategoryDataConsistency,
				Query:              "Do name, income and employer agree across documents?",
				Reasoning:          "Employer name and salary account differ.",
				Success:            true,
				Iteration:          2,
				DurationMs:         18269,
				ExecutedAt:         goldenTime(t, "2025-03-14T10:02:51.377Z"),
				VerificationStatus: StepNeedsReview,
				TargetItemIDs:      allItems,
			},
		},
		Findings: []Finding{
			{
				ID:        "af_1n2b3v4c",
				Category:  "classify_documents",
				Result:    FindingPassed,
				Details:   "Three documents classified: payslip, employment confirmation, bank statement.",
				SortOrder: 1,
			},
			{
				ID:        "af_5x6z7a8s",
				Category:  "extract_income",
				Result:    FindingPassed,
				Details:   "Monthly gross income KRW 4,200,000.",
				SortOrder: 2,
			},
			{
				ID:        "af_9d0f1g2h",
				Category:  "check_consistency",
				Result:    FindingWarning,
				Details:   "Employer name differs: payslip says ACME Corp., the employer note says ACME Holdings; the salary account on the payslip (110-234-5...",
				SortOrder: 3,
			},
			{
				ID:        "af_3j4k5l6m",
				Category:  "bank_statement_freshness",
				Result:    FindingFailed,
				Details:   "Bank statement dated 2025-01-31 is older than 30 days.",
				SortOrder: 4,
			},
		},
		Recommendations: []Recommendation{
			{
				ID:        "ar_7q8w9e0r",
				Content:   "Request an employment certificate issued within the last 30 days.",
				Priority:  1,
				SortOrder: 1,
			},
			{
				ID:        "ar_1t2y3u4i",
				Content:   "Request a current bank statement for the salary account.",
				Priority:  2,
				SortOrder: 2,
			},
		},
		TargetItems: []TargetItem{
			{ItemID: "item_a1b2c3d4", Name: "payslip-2025-02.pdf", Type: ItemFile, SourceRef: Ptr("crm:CUST-20931/payslip-2025-02")},
			{ItemID: "item_e5f6g7h8", Name: "Employer note", Type: ItemText, SourceRef: nil},
			{ItemID: "item_j9k0l1m2", Name: "Bank API export", Type: ItemJSON, SourceRef: nil},
		},
	}
}

func goldenWantAnalysisPending(t *testing.T) any {
	return &Analysis{
		ID:                 "analysis_p4o5i6u7",
		ProfileID:          "pf_3k9x2m7q",
		FolderID:           nil,
		EngineID:           nil,
		PlaybookID:         "PB-KYC-001",
		Engine:             nil,
		Status:             AnalysisPending,
		ProcessingTimeMs:   0,
		VerificationStatus: VerificationPendingReview,
		Error:              nil,
		Options:            nil,
		ClientMetadata:     nil,
		PrimaryReportID:    nil,
		RequestedAt:        goldenTime(t, "2025-03-15T08:00:01.337Z"),
		CompletedAt:        nil,
		CreatedAt:          goldenTime(t, "2025-03-15T08:00:01.337Z"),
		ExtractedData:      ExtractedData("null"),
		OutputSchema:       RawJSON("null"),
		TargetItems: []TargetItem{
			{ItemID: "item_a1b2c3d4", Name: "payslip-2025-02.pdf", Type: ItemFile, SourceRef: nil},
		},
	}
}

func goldenWantAnalysisFailed(t *testing.T) any {
	return &Analysis{
		ID:                 "analysis_f1a2i3l4",
		ProfileID:          "pf_3k9x2m7q",
		PlaybookID:         "PB-KYC-001",
		Status:             AnalysisFailed,
		ProcessingTimeMs:   15872,
		VerificationStatus: VerificationRejected,
		Error:              Ptr("Document processing failed: item_j9k0l1m2 could not be parsed (unsupported encoding)"),
		Options:            Object{"language": "ko"},
		ClientMetadata:     Object{"caseId": "CASE-88413"},
		RequestedAt:        goldenTime(t, "2025-03-15T08:10:44.921Z"),
		CreatedAt:          goldenTime(t, "2025-03-15T08:10:44.921Z"),
		SystemMetadata: &SystemMetadata{
			TotalIterations:  1,
			CompletedWorkIDs: []int{},
			WorkflowHistory: []WorkflowHistoryEntry{{
				WorkID:     1,
				ActionName: "classify_documents",
				Query:      "Classify each document by type",
				Reason:     "Find which required documents are present",
				Success:    false,
				Iteration:  1,
				Timestamp:  goldenTime(t, "2025-03-15T08:11:00.793Z"),
			}},
		},
		ExtractedData: ExtractedData("null"),
		OutputSchema:  RawJSON("null"),
		AgentAuditLog: []AuditLogEntry{{
			WorkID:             1,
			ActionName:         "classify_documents",
			Category:           CategoryDocumentProcessing,
			Query:              "Classify each document by type",
			Reasoning:          "item_j9k0l1m2 is not valid UTF-8.",
			Success:            false,
			Iteration:          1,
			DurationMs:         15802,
			ExecutedAt:         goldenTime(t, "2025-03-15T08:11:00.793Z"),
			VerificationStatus: StepFailed,
			TargetItemIDs:      []string{"item_j9k0l1m2"},
		}},
		Findings: []Finding{{
			ID:        "af_0p9o8i7u",
			Category:  "classify_documents",
			Result:    FindingFailed,
			Details:   "Could not read item_j9k0l1m2: unsupported encoding.",
			SortOrder: 1,
		}},
		TargetItems: []TargetItem{
			{ItemID: "item_j9k0l1m2", Name: "Bank API export", Type: ItemJSON, SourceRef: nil},
		},
	}
}

// goldenAnalysis decodes a golden analysis through GetAnalysis.
func goldenAnalysis(t *testing.T, file string) *Analysis {
	t.Helper()
	srv := goldenServer(t, goldenRead(t, file))
	a, err := srv.client(t).GetAnalysis(context.Background(), "analysis_x", nil)
	if err != nil {
		t.Fatalf("GetAnalysis: %v", err)
	}
	return a
}

func TestExtractedDataAccessors(t *testing.T) {
	d := goldenAnalysis(t, "analysis_completed.json").ExtractedData

	t.Run("ReviewResult", func(t *testing.T) {
		got, err := d.ReviewResult()
		if err != nil {
			t.Fatal(err)
		}
		want := &ReviewResult{
			FinalAction:          ActionManualReview,
			FinalRiskLevel:       RiskMedium,
			FinalActionReason:    "Employer name on the payslip does not match the employer note.",
			FinalRiskLevelReason: "Income is verified but one document is older than policy allows.",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ReviewResult mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("ExtractedValues", func(t *testing.T) {
		got, err := d.ExtractedValues()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"applicant_name":               "Jane Doe",
			"date_of_birth":                "1988-07-21",
			"employer_name":                "ACME Corp.",
			"monthly_gross_income":         float64(4200000),
			"currency":                     "KRW",
			"bank_statement_date":          "2025-01-31",
			"business_registration_number": "123-45-67890",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ExtractedValues mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("CategoryJudgements", func(t *testing.T) {
		got, err := d.CategoryJudgements()
		if err != nil {
			t.Fatal(err)
		}
		want := &CategoryJudgements{
			Checks: map[string]FieldCheck{
				"name":          {Result: CheckPass, Reason: "The name matches on the payslip, the employer note and the bank export."},
				"date_of_birth": {Result: CheckPass, Reason: "Only one document states it; it is well formed."},
				"income":        {Result: CheckPass, Reason: "KRW 4,200,000 on the payslip and as the salary credit on 2025-02-25."},
				"employer":      {Result: CheckNeedsReview, Reason: "Payslip says ACME Corp.; the employer note says ACME Holdings."},
				"address":       {Result: CheckUnverifiable, Reason: "No proof-of-address document was provided."},
				"bank_account":  {Result: CheckFail, Reason: "The salary account on the payslip differs from the exported account."},
			},
			OverallConsistencyResult: CheckNeedsReview,
			OverallConsistencyReason: "Two checks need a person: employer and bank account.",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("CategoryJudgements mismatch (-want +got):\n%s", diff)
		}
		wantFields := []string{"address", "bank_account", "date_of_birth", "employer", "income", "name"}
		if diff := cmp.Diff(wantFields, got.Fields()); diff != "" {
			t.Errorf("Fields() mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("DocumentValidations", func(t *testing.T) {
		got, err := d.DocumentValidations()
		if err != nil {
			t.Fatal(err)
		}
		want := DocumentValidations{
			"payslip":        {IsValid: true, Reason: "Issued 2025-02-25 by a registered employer."},
			"employer_note":  {IsValid: true, Reason: "Recorded by an agent with a call reference."},
			"bank_statement": {IsValid: false, Reason: "Dated 2025-01-31, more than 30 days before the request."},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DocumentValidations mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("PolicyFlags", func(t *testing.T) {
		got, err := d.PolicyFlags()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"EMPLOYER_NAME_MISMATCH", "STALE_BANK_STATEMENT"}, got); diff != "" {
			t.Errorf("PolicyFlags mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("RecommendedNextSteps", func(t *testing.T) {
		got, err := d.RecommendedNextSteps()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			"Request an employment certificate issued within the last 30 days",
			"Request a current bank statement for the salary account",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("RecommendedNextSteps mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("RequestID", func(t *testing.T) {
		got, err := d.RequestID()
		if err != nil {
			t.Fatal(err)
		}
		if got != "pf_3k9x2m7q" {
			t.Errorf("RequestID() = %q, want pf_3k9x2m7q", got)
		}
	})
}

// TestExtractedDataAccessorsWithoutData: an analysis that has not completed
// (null), data without the common sub-objects ({}) and sub-objects that are
// null all give zero values and no error.
func TestExtractedDataAccessorsWithoutData(t *testing.T) {
	tests := []struct {
		name string
		data ExtractedData
	}{
		{"absent", nil},
		{"null", ExtractedData("null")},
		{"empty object", ExtractedData(`{}`)},
		{"null members", ExtractedData(`{"review_result":null,"extracted_values":null,"category_judgements":null,"document_validations":null,"policy_flags":null,"recommended_next_steps":null,"request_id":null}`)},
		{"other members only", ExtractedData(`{"loan_terms":{"amount":1000}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rr, err := tt.data.ReviewResult()
			if err != nil || rr != nil {
				t.Errorf("ReviewResult() = %v, %v; want nil, nil", rr, err)
			}
			ev, err := tt.data.ExtractedValues()
			if err != nil || ev != nil {
				t.Errorf("ExtractedValues() = %v, %v; want nil, nil", ev, err)
			}
			cj, err := tt.data.CategoryJudgements()
			if err != nil || cj != nil {
				t.Errorf("CategoryJudgements() = %v, %v; want nil, nil", cj, err)
			}
			dv, err := tt.data.DocumentValidations()
			if err != nil || dv != nil {
				t.Errorf("DocumentValidations() = %v, %v; want nil, nil", dv, err)
			}
			pf, err := tt.data.PolicyFlags()
			if err != nil || pf != nil {
				t.Errorf("PolicyFlags() = %v, %v; want nil, nil", pf, err)
			}
			ns, err := tt.data.RecommendedNextSteps()
			if err != nil || ns != nil {
				t.Errorf("RecommendedNextSteps() = %v, %v; want nil, nil", ns, err)
			}
			id, err := tt.data.RequestID()
			if err != nil || id != "" {
				t.Errorf("RequestID() = %q, %v; want empty, nil", id, err)
			}
		})
	}
}

// TestExtractedDataAccessorErrors: a sub-object of the wrong shape is an
// error naming it, not a silent zero value.
func TestExtractedDataAccessorErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		call func(d ExtractedData) error
		key  string
	}{
		{"data not an object", `["x"]`, func(d ExtractedData) error { _, err := d.RequestID(); return err }, "extracted data"},
		{"review_result a string", `{"review_result":"approve"}`, func(d ExtractedData) error { _, err := d.ReviewResult(); return err }, "review_result"},
		{"extracted_values an array", `{"extracted_values":[1]}`, func(d ExtractedData) error { _, err := d.ExtractedValues(); return err }, "extracted_values"},
		{"check result a number", `{"category_judgements":{"name_check_result":1}}`, func(d ExtractedData) error { _, err := d.CategoryJudgements(); return err }, "name_check_result"},
		{"is_valid a string", `{"document_validations":{"payslip_is_valid":"yes"}}`, func(d ExtractedData) error { _, err := d.DocumentValidations(); return err }, "payslip_is_valid"},
		{"policy_flags a string", `{"policy_flags":"X"}`, func(d ExtractedData) error { _, err := d.PolicyFlags(); return err }, "policy_flags"},
		{"next steps of numbers", `{"recommended_next_steps":[1,2]}`, func(d ExtractedData) error { _, err := d.RecommendedNextSteps(); return err }, "recommended_next_steps"},
		{"request_id a number", `{"request_id":42}`, func(d ExtractedData) error { _, err := d.RequestID(); return err }, "request_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(ExtractedData(tt.data))
			if err == nil {
				t.Fatalf("no error for %s", tt.data)
			}
			if !strings.Contains(err.Error(), tt.key) {
				t.Errorf("error %q does not name %q", err, tt.key)
			}
		})
	}
}

func TestCategoryJudgementsJSON(t *testing.T) {
	const wire = `{
		"income_check_result": "pass",
		"income_check_reason": "Payslip and bank credit agree.",
		"date_of_birth_check_result": "unverifiable",
		"date_of_birth_check_reason": "",
		"overall_consistency_result": "pass",
		"overall_consistency_reason": "All values agree.",
		"checked_by": "engine-v2"
	}`
	var got CategoryJudgements
	if err := json.Unmarshal([]byte(wire), &got); err != nil {
		t.Fatal(err)
	}
	want := CategoryJudgements{
		Checks: map[string]FieldCheck{
			"income":        {Result: CheckPass, Reason: "Payslip and bank credit agree."},
			"date_of_birth": {Result: CheckUnverifiable, Reason: ""},
		},
		OverallConsistencyResult: CheckPass,
		OverallConsistencyReason: "All values agree.",
		Other:                    map[string]json.RawMessage{"checked_by": json.RawMessage(`"engine-v2"`)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"date_of_birth", "income"}, got.Fields()); diff != "" {
		t.Errorf("Fields() mismatch (-want +got):\n%s", diff)
	}
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := goldenJSONDiff(t, []byte(wire), out, false); diff != "" {
		t.Errorf("MarshalJSON does not give back the wire form (-wire +marshalled):\n%s", diff)
	}
}

func TestDocumentValidationsJSON(t *testing.T) {
	const wire = `{
		"id_card_is_valid": true,
		"id_card_is_valid_reason": "Photo and number match the registry.",
		"bank_statement_is_valid": false,
		"bank_statement_is_valid_reason": "Older than 30 days."
	}`
	var got DocumentValidations
	if err := json.Unmarshal([]byte(wire), &got); err != nil {
		t.Fatal(err)
	}
	want := DocumentValidations{
		"id_card":        {IsValid: true, Reason: "Photo and number match the registry."},
		"bank_statement": {IsValid: false, Reason: "Older than 30 days."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded mismatch (-want +got):\n%s", diff)
	}
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := goldenJSONDiff(t, []byte(wire), out, false); diff != "" {
		t.Errorf("MarshalJSON does not give back the wire form (-wire +marshalled):\n%s", diff)
	}
}

func TestAnalysisDecodeExtractedData(t *testing.T) {
	// kycResult is what a caller would write for the workflow's schema.
	type kycResult struct {
		RequestID       string       `json:"request_id"`
		PolicyFlags     []string     `json:"policy_flags"`
		ReviewResult    ReviewResult `json:"review_result"`
		ExtractedValues struct {
			ApplicantName      string `json:"applicant_name"`
			DateOfBirth        string `json:"date_of_birth"`
			EmployerName       string `json:"employer_name"`
			MonthlyGrossIncome int64  `json:"monthly_gross_income"`
			Currency           string `json:"currency"`
		} `json:"extracted_values"`
		CategoryJudgements   CategoryJudgements  `json:"category_judgements"`
		DocumentValidations  DocumentValidations `json:"document_validations"`
		RecommendedNextSteps []string            `json:"recommended_next_steps"`
		ProofOfAddress       *struct{}           `json:"proof_of_address"`
	}

	t.Run("completed", func(t *testing.T) {
		a := goldenAnalysis(t, "analysis_completed.json")
		var got kycResult
		if err := a.DecodeExtractedData(&got); err != nil {
			t.Fatal(err)
		}
		var want kycResult
		want.RequestID = "pf_3k9x2m7q"
		want.PolicyFlags = []string{"EMPLOYER_NAME_MISMATCH", "STALE_BANK_STATEMENT"}
		want.ReviewResult = ReviewResult{
			FinalAction:          ActionManualReview,
			FinalRiskLevel:       RiskMedium,
			FinalActionReason:    "Employer name on the payslip does not match the employer note.",
			FinalRiskLevelReason: "Income is verified but one document is older than policy allows.",
		}
		want.ExtractedValues.ApplicantName = "Jane Doe"
		want.ExtractedValues.DateOfBirth = "1988-07-21"
		want.ExtractedValues.EmployerName = "ACME Corp."
		want.ExtractedValues.MonthlyGrossIncome = 4200000
		want.ExtractedValues.Currency = "KRW"
		want.RecommendedNextSteps = []string{
			"Request an employment certificate issued within the last 30 days",
			"Request a current bank statement for the salary account",
		}
		// The two flat sub-objects are checked in detail elsewhere; here,
		// that they decode inside the caller's type.
		opts := cmpopts.IgnoreFields(kycResult{}, "CategoryJudgements", "DocumentValidations")
		if diff := cmp.Diff(want, got, opts); diff != "" {
			t.Errorf("DecodeExtractedData mismatch (-want +got):\n%s", diff)
		}
		if c := got.CategoryJudgements.Checks["bank_account"]; c.Result != CheckFail {
			t.Errorf("category_judgements bank_account = %+v, want fail", c)
		}
		if got.CategoryJudgements.OverallConsistencyResult != CheckNeedsReview {
			t.Errorf("overall consistency = %q, want needs_review", got.CategoryJudgements.OverallConsistencyResult)
		}
		if v := got.DocumentValidations["bank_statement"]; v.IsValid {
			t.Errorf("document_validations bank_statement = %+v, want invalid", v)
		}
		if got.ProofOfAddress != nil {
			t.Errorf("proof_of_address = %v, want nil", got.ProofOfAddress)
		}
	})
	t.Run("pending leaves the value untouched", func(t *testing.T) {
		a := goldenAnalysis(t, "analysis_pending.json")
		if !a.ExtractedData.IsNull() {
			t.Errorf("ExtractedData.IsNull() = false for a pending analysis")
		}
		got := kycResult{RequestID: "unchanged"}
		if err := a.DecodeExtractedData(&got); err != nil {
			t.Fatal(err)
		}
		if got.RequestID != "unchanged" {
			t.Errorf("RequestID = %q, want it untouched", got.RequestID)
		}
	})
	t.Run("wrong type is an error", func(t *testing.T) {
		a := goldenAnalysis(t, "analysis_completed.json")
		var n int
		if err := a.DecodeExtractedData(&n); err == nil {
			t.Error("decoding an object into an int gave no error")
		}
	})
}

func TestAnalysisDecodeOutputSchema(t *testing.T) {
	type property struct {
		Type  any             `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	type schema struct {
		Schema     string              `json:"$schema"`
		Title      string              `json:"title"`
		Type       string              `json:"type"`
		Required   []string            `json:"required"`
		Properties map[string]property `json:"properties"`
	}
	a := goldenAnalysis(t, "analysis_completed.json")
	var got schema
	if err := a.DecodeOutputSchema(&got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != "http://json-schema.org/draft-07/schema#" || got.Title != "Retail loan KYC" || got.Type != "object" {
		t.Errorf("schema header = %q %q %q", got.Schema, got.Title, got.Type)
	}
	if diff := cmp.Diff([]string{"request_id", "review_result"}, got.Required); diff != "" {
		t.Errorf("required mismatch (-want +got):\n%s", diff)
	}
	wantProps := []string{"extracted_values", "policy_flags", "proof_of_address", "recommended_next_steps", "request_id", "review_result"}
	var gotProps []string
	for k := range got.Properties {
		gotProps = append(gotProps, k)
	}
	if diff := cmp.Diff(wantProps, gotProps, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("properties mismatch (-want +got):\n%s", diff)
	}
	// The schema holds the same data as extractedData.
	var rr ReviewResult
	if err := json.Unmarshal(got.Properties["review_result"].Value, &rr); err != nil {
		t.Fatal(err)
	}
	fromData, err := a.ExtractedData.ReviewResult()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(fromData, &rr); diff != "" {
		t.Errorf("review_result of the schema differs from extractedData (-data +schema):\n%s", diff)
	}

	pending := goldenAnalysis(t, "analysis_pending.json")
	untouched := schema{Title: "unchanged"}
	if err := pending.DecodeOutputSchema(&untouched); err != nil || untouched.Title != "unchanged" {
		t.Errorf("DecodeOutputSchema of a null schema = %v, title %q; want nil and untouched", err, untouched.Title)
	}
}

func TestItemContent(t *testing.T) {
	type bankExport struct {
		AccountNumber string `json:"accountNumber"`
		Balance       int64  `json:"balance"`
		Transactions  []struct {
			Date   string `json:"date"`
			Amount int64  `json:"amount"`
		} `json:"transactions"`
	}
	tests := []struct {
		file     string
		wantText string
		textErr  bool
		// decode decodes the content with DecodeContent and returns it.
		decode  func(it *Item) (any, error)
		want    any
		wantErr bool
	}{
		{
			file:     "item_text.json",
			wantText: "Confirmed by phone with HR (Mr. Park):\nemployed since 2019-04-01, monthly gross salary KRW 4,200,000 — \"permanent\" contract.",
			decode: func(it *Item) (any, error) {
				var s string
				err := it.DecodeContent(&s)
				return s, err
			},
			want: "Confirmed by phone with HR (Mr. Park):\nemployed since 2019-04-01, monthly gross salary KRW 4,200,000 — \"permanent\" contract.",
		},
		{
			file:    "item_json.json",
			textErr: true,
			decode: func(it *Item) (any, error) {
				var b bankExport
				err := it.DecodeContent(&b)
				return b, err
			},
			want: bankExport{
				AccountNumber: "110-234-567890",
				Balance:       12850000,
				Transactions: []struct {
					Date   string `json:"date"`
					Amount int64  `json:"amount"`
				}{{"2025-02-25", 4200000}, {"2025-02-27", -850000}},
			},
		},
		{
			file:    "item_file.json",
			textErr: true,
			decode: func(it *Item) (any, error) {
				b := bankExport{AccountNumber: "untouched"}
				err := it.DecodeContent(&b)
				return b, err
			},
			// A file's content is null: the value is left as it was.
			want: bankExport{AccountNumber: "untouched"},
		},
		{
			file:    "item_json.json",
			textErr: true,
			decode: func(it *Item) (any, error) {
				var s string
				err := it.DecodeContent(&s)
				return s, err
			},
			wantErr: true,
		},
	}
	for _, tt := range tests {
		name := strings.TrimSuffix(tt.file, ".json")
		if tt.wantErr {
			name += " wrong type"
		}
		t.Run(name, func(t *testing.T) {
			srv := goldenServer(t, goldenRead(t, tt.file))
			it, err := srv.client(t).GetItem(context.Background(), "item_x")
			if err != nil {
				t.Fatal(err)
			}
			text, err := it.Text()
			if tt.textErr {
				if err == nil {
					t.Errorf("Text() of a %s item = %q, want an error", it.Type, text)
				}
			} else if err != nil || text != tt.wantText {
				t.Errorf("Text() = %q, %v; want %q", text, err, tt.wantText)
			}
			got, err := tt.decode(it)
			if tt.wantErr {
				if err == nil {
					t.Errorf("DecodeContent gave no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeContent mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalysisDone(t *testing.T) {
	tests := []struct {
		name   string
		status AnalysisStatus
		report *string
		want   bool
	}{
		{"pending", AnalysisPending, nil, false},
		{"processing", AnalysisProcessing, nil, false},
		{"completed without report", AnalysisCompleted, nil, false},
		{"completed with report", AnalysisCompleted, Ptr("rpt_1"), true},
		{"failed", AnalysisFailed, nil, true},
		{"failed with report", AnalysisFailed, Ptr("rpt_1"), true},
		{"unknown status", AnalysisStatus("queued"), Ptr("rpt_1"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Analysis{Status: tt.status, PrimaryReportID: tt.report}
			if got := a.Done(); got != tt.want {
				t.Errorf("Done() = %v, want %v", got, tt.want)
			}
		})
	}
	for file, want := range map[string]bool{
		"analysis_completed.json": true,
		"analysis_pending.json":   false,
		"analysis_failed.json":    true,
	} {
		t.Run(file, func(t *testing.T) {
			if got := goldenAnalysis(t, file).Done(); got != want {
				t.Errorf("Done() = %v, want %v", got, want)
			}
		})
	}
}

func TestAnalysisStatusIsTerminal(t *testing.T) {
	tests := []struct {
		status AnalysisStatus
		want   bool
	}{
		{AnalysisPending, false},
		{AnalysisProcessing, false},
		{AnalysisCompleted, true},
		{AnalysisFailed, true},
		{"", false},
		{"COMPLETED", false},
		{"cancelled", false},
	}
	for _, tt := range tests {
		t.Run(string(tt.status), func(t *testing.T) {
			if got := tt.status.IsTerminal(); got != tt.want {
				t.Errorf("%q.IsTerminal() = %v, want %v", tt.status, got, tt.want)
			}
		})
	}
}

// TestDecodeUnknownFields: a field this version of the SDK does not know is
// no error, and is kept in Raw.
func TestDecodeUnknownFields(t *testing.T) {
	const extra = `"futureField":{"tier":"gold","scores":[1,2]}`
	tests := []struct {
		name string
		body string
		call func(ctx context.Context, c *Client) (id string, raw json.RawMessage, err error)
	}{
		{
			name: "profile",
			body: `{"id":"pf_1","workflowId":"wf_1","name":"A","itemsCount":0,"lastAnalysisAt":null,"createdAt":"2025-03-14T09:26:53Z","updatedAt":"2025-03-14T09:26:53Z",` + extra + `}`,
			call: func(ctx context.Context, c *Client) (string, json.RawMessage, error) {
				p, err := c.GetProfile(ctx, "pf_1")
				if err != nil {
					return "", nil, err
				}
				return p.ID, json.RawMessage(p.Raw), nil
			},
		},
		{
			name: "folder",
			body: `{"id":"fld_1","profileId":"pf_1","name":"default","isDefault":true,"itemsCount":0,"createdAt":"2025-03-14T09:26:53Z","items":[{"id":"item_1","type":"file","name":"a.pdf","contentType":null,"sizeBytes":null,"createdAt":"2025-03-14T09:26:53Z","pageCount":3}],` + extra + `}`,
			call: func(ctx context.Context, c *Client) (string, json.RawMessage, error) {
				f, err := c.GetFolder(ctx, "fld_1")
				if err != nil {
					return "", nil, err
				}
				return f.ID, json.RawMessage(f.Raw), nil
			},
		},
		{
			name: "item",
			body: `{"id":"item_1","folderId":"fld_1","type":"text","name":"n","content":"hi","status":"ACTIVE","createdAt":"2025-03-14T09:26:53Z",` + extra + `}`,
			call: func(ctx context.Context, c *Client) (string, json.RawMessage, error) {
				it, err := c.GetItem(ctx, "item_1")
				if err != nil {
					return "", nil, err
				}
				return it.ID, json.RawMessage(it.Raw), nil
			},
		},
		{
			name: "analysis",
			body: `{"id":"analysis_1","profileId":"pf_1","status":"processing","requestedAt":"2025-03-14T09:26:53Z","createdAt":"2025-03-14T09:26:53Z","agentAuditLog":[{"workId":1,"tokenUsage":{"in":10}}],` + extra + `}`,
			call: func(ctx context.Context, c *Client) (string, json.RawMessage, error) {
				a, err := c.GetAnalysis(ctx, "analysis_1", nil)
				if err != nil {
					return "", nil, err
				}
				return a.ID, json.RawMessage(a.Raw), nil
			},
		},
		{
			name: "folder page",
			body: `{"count":1,"nextCursor":null,"total":57,"items":[{"id":"fld_1","name":"default","isDefault":true,"itemsCount":0,"createdAt":"2025-03-14T09:26:53Z",` + extra + `}]}`,
			call: func(ctx context.Context, c *Client) (string, json.RawMessage, error) {
				p, err := c.ListFoldersPage(ctx, "pf_1", nil)
				if err != nil {
					return "", nil, err
				}
				if len(p.Items) != 1 {
					return "", nil, errors.New("page has no folder")
				}
				return p.Items[0].ID, json.RawMessage(p.Items[0].Raw), nil
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := goldenServer(t, []byte(tt.body))
			id, raw, err := tt.call(context.Background(), srv.client(t))
			if err != nil {
				t.Fatalf("an unknown field was refused: %v", err)
			}
			if id == "" {
				t.Error("the known fields were not decoded: empty ID")
			}
			var members map[string]json.RawMessage
			if err := json.Unmarshal(raw, &members); err != nil {
				t.Fatalf("Raw is not a JSON object: %v (%q)", err, raw)
			}
			if got, want := goldenJSONValue(members["futureField"]), goldenJSONValue([]byte(`{"tier":"gold","scores":[1,2]}`)); !cmp.Equal(got, want) {
				t.Errorf("Raw futureField = %v, want %v", got, want)
			}
		})
	}
}
