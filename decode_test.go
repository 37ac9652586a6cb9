package profilesvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The golden files under testdata are written by hand from the interface
// document: each carries every field the document gives its resource, with
// realistic values. The tests below serve them through jsonServer,
// decode them with the SDK's own methods and compare the result with a
// fully written Go value, then marshal the result again and compare it with
// the file, which proves that every JSON tag matches its field.

// resourceCmpOpts compare decoded resources: Raw is checked on its own, and
// JSON kept as bytes is compared by value rather than by spelling.
var resourceCmpOpts = cmp.Options{
	cmpopts.IgnoreFields(Profile{}, "Raw"),
	cmpopts.IgnoreFields(Folder{}, "Raw"),
	cmpopts.IgnoreFields(Item{}, "Raw"),
	cmpopts.IgnoreFields(Analysis{}, "Raw"),
	cmp.Transformer("RawJSON", func(r RawJSON) any { return jsonValue(r) }),
	cmp.Transformer("ExtractedData", func(d ExtractedData) any { return jsonValue(d) }),
}

// mustTime parses an RFC 3339 timestamp of an expected value.
func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, "bad timestamp in test")
	return v
}

func mustTimePtr(t testing.TB, s string) *time.Time {
	t.Helper()
	v := mustTime(t, s)
	return &v
}

// jsonArrayMember returns the JSON of member key of the object in b.
func jsonArrayMember(t testing.TB, b []byte, key string) []json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &top), "golden file")
	var elems []json.RawMessage
	require.NoError(t, json.Unmarshal(top[key], &elems), "golden file: member %q", key)
	return elems
}

// goldenCase is a golden file and the call that reads it.
type goldenCase struct {
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
}

// goldenCases lists the golden files, each with the call that reads it
// and the value it must decode to.
func goldenCases() []goldenCase {
	return []goldenCase{
		{
			file: "profile_create.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.CreateProfile(ctx, "wf_7c1d2e9a", CreateProfileParams{Name: "Jane Doe"})
			},
			want:      wantProfileCreate,
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
			want: wantProfile,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Profile).Raw) },
		},
		{
			file: "folder.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetFolder(ctx, "fd_5t7v9x1z")
			},
			want: wantFolder,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Folder).Raw) },
		},
		{
			file: "folder_page.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.ListFoldersPage(ctx, "pf_3k9x2m7q", &ListFoldersParams{Limit: 2})
			},
			want:      wantFolderPage,
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
			want: wantItemText,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Item).Raw) },
		},
		{
			file: "item_json.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UpdateItem(ctx, "item_j9k0l1m2", UpdateItemParams{Metadata: Object{"reviewed": true}})
			},
			want: wantItemJSON,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Item).Raw) },
		},
		{
			file: "item_file.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.UploadFile(ctx, "fd_5t7v9x1z", strings.NewReader("%PDF-1.7"), UploadParams{Filename: "payslip-2025-02.pdf"})
			},
			want: wantItemFile,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Item).Raw) },
		},
		{
			file: "analysis_completed.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_q7w8e9r0", nil)
			},
			want: wantAnalysisCompleted,
			raw:  func(got any) json.RawMessage { return json.RawMessage(got.(*Analysis).Raw) },
		},
		{
			file: "analysis_pending.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_p4o5i6u7", nil)
			},
			want:         wantAnalysisPending,
			raw:          func(got any) json.RawMessage { return json.RawMessage(got.(*Analysis).Raw) },
			nullIsAbsent: true,
		},
		{
			file: "analysis_failed.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.GetAnalysis(ctx, "analysis_f1a2i3l4", nil)
			},
			want:         wantAnalysisFailed,
			raw:          func(got any) json.RawMessage { return json.RawMessage(got.(*Analysis).Raw) },
			nullIsAbsent: true,
		},
	}
}

func TestDecodeGoldenFiles(t *testing.T) {
	t.Parallel()
	tests := goldenCases()
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".json"), func(t *testing.T) {
			file := readGolden(t, tt.file)
			srv := jsonServer(t, file)
			got, err := tt.call(context.Background(), srv.client(t))
			require.NoError(t, err, "call")
			if diff := cmp.Diff(tt.want(t), got, resourceCmpOpts); diff != "" {
				t.Errorf("decoded value mismatch (-want +got):\n%s", diff)
			}

			if tt.raw != nil {
				raw, want := tt.raw(got), bytes.TrimSpace(file)
				assert.True(t, bytes.Equal(raw, want), "Raw is not the bytes of the file:\ngot  %q\nwant %q", raw, want)
			}
			if tt.nested != nil {
				wantElems := jsonArrayMember(t, file, tt.nestedKey)
				gotRaws := tt.nested(got)
				require.Len(t, gotRaws, len(wantElems), "nested resources")
				for i := range wantElems {
					assert.True(t, bytes.Equal(gotRaws[i], wantElems[i]), "%s[%d].Raw = %s, want %s", tt.nestedKey, i, gotRaws[i], wantElems[i])
				}
			}

			again, err := json.Marshal(got)
			require.NoError(t, err, "marshal")
			if diff := jsonDiff(t, file, again, tt.nullIsAbsent); diff != "" {
				t.Errorf("re-marshalled JSON differs from the file (-file +marshalled):\n%s", diff)
			}
		})
	}
}

func wantProfileCreate(t *testing.T) any {
	created := mustTime(t, "2025-03-14T09:26:53.589Z")
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

func wantProfile(t *testing.T) any {
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
		LastAnalysisAt: mustTimePtr(t, "2025-03-14T10:02:11.204Z"),
		CreatedAt:      mustTime(t, "2025-03-14T09:26:53.589Z"),
		UpdatedAt:      mustTime(t, "2025-03-14T10:15:42.031+09:00"),
	}
}

func wantFolder(t *testing.T) any {
	return &Folder{
		ID:         "fd_5t7v9x1z",
		ProfileID:  "pf_3k9x2m7q",
		Name:       "Income documents",
		IsDefault:  false,
		ItemsCount: 3,
		CreatedAt:  mustTime(t, "2025-03-14T09:31:07.118Z"),
		UpdatedAt:  mustTime(t, "2025-03-14T09:40:22.917Z"),
		Items: []ItemSummary{
			{
				ID:          "item_a1b2c3d4",
				Type:        ItemFile,
				Name:        "payslip-2025-02.pdf",
				ContentType: Ptr("application/pdf"),
				SizeBytes:   Ptr[int64](184213),
				CreatedAt:   mustTime(t, "2025-03-14T09:32:15.004Z"),
			},
			{
				ID:          "item_e5f6g7h8",
				Type:        ItemText,
				Name:        "Employer note",
				ContentType: Ptr("text/plain"),
				SizeBytes:   Ptr[int64](131),
				CreatedAt:   mustTime(t, "2025-03-14T09:33:01.502Z"),
			},
			{
				ID:          "item_j9k0l1m2",
				Type:        ItemJSON,
				Name:        "Bank API export",
				ContentType: nil,
				SizeBytes:   nil,
				CreatedAt:   mustTime(t, "2025-03-14T09:40:22.917Z"),
			},
		},
	}
}

func wantFolderPage(t *testing.T) any {
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
				CreatedAt:  mustTime(t, "2025-03-14T09:31:07.118Z"),
				UpdatedAt:  mustTime(t, "2025-03-14T09:40:22.917Z"),
			},
			{
				ID:         "fld_8h2n4p6r",
				ProfileID:  "pf_3k9x2m7q",
				Name:       "default",
				IsDefault:  true,
				ItemsCount: 0,
				CreatedAt:  mustTime(t, "2025-03-14T09:26:53.589Z"),
				UpdatedAt:  mustTime(t, "2025-03-14T09:26:53.589Z"),
			},
		},
	}
}

func wantItemText(t *testing.T) any {
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
		ProcessedAt:        mustTimePtr(t, "2025-03-14T09:33:02.771Z"),
		CreatedAt:          mustTime(t, "2025-03-14T09:33:01.502Z"),
	}
}

func wantItemJSON(t *testing.T) any {
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
		ProcessedAt:        mustTimePtr(t, "2025-03-14T09:40:23.312Z"),
		CreatedAt:          mustTime(t, "2025-03-14T09:40:22.917Z"),
	}
}

func wantItemFile(t *testing.T) any {
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
		ProcessedAt:        mustTimePtr(t, "2025-03-14T09:32:19.846Z"),
		CreatedAt:          mustTime(t, "2025-03-14T09:32:15.004Z"),
	}
}

// completedExtractedData is the extractedData of analysis_completed.json.
const completedExtractedData = `{
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

// completedOutputSchema is the outputSchema of analysis_completed.json.
const completedOutputSchema = `{
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

func wantAnalysisCompleted(t *testing.T) any {
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
		RequestedAt:        mustTime(t, "2025-03-14T10:02:11.204Z"),
		CompletedAt:        mustTimePtr(t, "2025-03-14T10:02:59.417Z"),
		CreatedAt:          mustTime(t, "2025-03-14T10:02:11.204Z"),
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
					Timestamp:  mustTime(t, "2025-03-14T10:02:14.031Z"),
				},
				{
					WorkID:     2,
					ActionName: "extract_income",
					Query:      "What is the applicant's monthly gross income?",
					Reason:     "Income is needed for the affordability check",
					Success:    true,
					Iteration:  1,
					Timestamp:  mustTime(t, "2025-03-14T10:02:21.662Z"),
				},
				{
					WorkID:     3,
					ActionName: "verify_business_registration",
					Query:      "Is business registration 123-45-67890 active?",
					Reason:     "The employer must be an active business",
					Success:    true,
					Iteration:  2,
					Timestamp:  mustTime(t, "2025-03-14T10:02:33.108Z"),
				},
				{
					WorkID:     4,
					ActionName: "check_consistency",
					Query:      "Do name, income and employer agree across documents?",
					Reason:     "Cross-document consistency is required by policy",
					Success:    true,
					Iteration:  2,
					Timestamp:  mustTime(t, "2025-03-14T10:02:51.377Z"),
				},
			},
		},
		ExtractedData: ExtractedData(completedExtractedData),
		OutputSchema:  RawJSON(completedOutputSchema),
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
				ExecutedAt:    mustTime(t, "2025-03-14T10:02:14.031Z"),
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
				ExecutedAt:         mustTime(t, "2025-03-14T10:02:21.662Z"),
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
				ExecutedAt:         mustTime(t, "2025-03-14T10:02:33.108Z"),
				VerificationStatus: StepPassed,
				TargetItemIDs:      []string{"item_a1b2c3d4"},
				MCPToolCalls: []MCPToolCall{{
					ToolName:        "business_status_lookup",
					EngineCode:      "NTS_BIZ",
					EngineName:      "National Tax Service business status",
					Params:          Object{"businessNumber": "1234567890"},
					Success:         true,
					StartedAt:       mustTime(t, "2025-03-14T10:02:32.197Z"),
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
				ExecutedAt:         mustTime(t, "2025-03-14T10:02:51.377Z"),
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

func wantAnalysisPending(t *testing.T) any {
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
		RequestedAt:        mustTime(t, "2025-03-15T08:00:01.337Z"),
		CompletedAt:        nil,
		CreatedAt:          mustTime(t, "2025-03-15T08:00:01.337Z"),
		ExtractedData:      ExtractedData("null"),
		OutputSchema:       RawJSON("null"),
		TargetItems: []TargetItem{
			{ItemID: "item_a1b2c3d4", Name: "payslip-2025-02.pdf", Type: ItemFile, SourceRef: nil},
		},
	}
}

func wantAnalysisFailed(t *testing.T) any {
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
		RequestedAt:        mustTime(t, "2025-03-15T08:10:44.921Z"),
		CreatedAt:          mustTime(t, "2025-03-15T08:10:44.921Z"),
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
				Timestamp:  mustTime(t, "2025-03-15T08:11:00.793Z"),
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
			ExecutedAt:         mustTime(t, "2025-03-15T08:11:00.793Z"),
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

func TestExtractedDataAccessors(t *testing.T) {
	t.Parallel()
	d := analysisFromGolden(t, "analysis_completed.json").ExtractedData

	t.Run("ReviewResult", func(t *testing.T) {
		got, err := d.ReviewResult()
		require.NoError(t, err)
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
		require.NoError(t, err)
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
		require.NoError(t, err)
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
		require.NoError(t, err)
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
		require.NoError(t, err)
		if diff := cmp.Diff([]string{"EMPLOYER_NAME_MISMATCH", "STALE_BANK_STATEMENT"}, got); diff != "" {
			t.Errorf("PolicyFlags mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("RecommendedNextSteps", func(t *testing.T) {
		got, err := d.RecommendedNextSteps()
		require.NoError(t, err)
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
		require.NoError(t, err)
		assert.Equal(t, "pf_3k9x2m7q", got, "RequestID()")
	})
}

// TestExtractedDataAccessorsWithoutData: an analysis that has not completed
// (null), data without the common sub-objects ({}) and sub-objects that are
// null all give zero values and no error.
func TestExtractedDataAccessorsWithoutData(t *testing.T) {
	t.Parallel()
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
			assert.NoError(t, err, "ReviewResult()")
			assert.Nil(t, rr, "ReviewResult()")
			ev, err := tt.data.ExtractedValues()
			assert.NoError(t, err, "ExtractedValues()")
			assert.Nil(t, ev, "ExtractedValues()")
			cj, err := tt.data.CategoryJudgements()
			assert.NoError(t, err, "CategoryJudgements()")
			assert.Nil(t, cj, "CategoryJudgements()")
			dv, err := tt.data.DocumentValidations()
			assert.NoError(t, err, "DocumentValidations()")
			assert.Nil(t, dv, "DocumentValidations()")
			pf, err := tt.data.PolicyFlags()
			assert.NoError(t, err, "PolicyFlags()")
			assert.Nil(t, pf, "PolicyFlags()")
			ns, err := tt.data.RecommendedNextSteps()
			assert.NoError(t, err, "RecommendedNextSteps()")
			assert.Nil(t, ns, "RecommendedNextSteps()")
			id, err := tt.data.RequestID()
			assert.NoError(t, err, "RequestID()")
			assert.Empty(t, id, "RequestID()")
		})
	}
}

// TestExtractedDataAccessorErrors: a sub-object of the wrong shape is an
// error naming it, not a silent zero value.
func TestExtractedDataAccessorErrors(t *testing.T) {
	t.Parallel()
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
			require.Error(t, err, "no error for %s", tt.data)
			assert.Contains(t, err.Error(), tt.key, "the error does not name %q", tt.key)
		})
	}
}

func TestCategoryJudgementsJSON(t *testing.T) {
	t.Parallel()
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
	require.NoError(t, json.Unmarshal([]byte(wire), &got))
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
	require.NoError(t, err)
	if diff := jsonDiff(t, []byte(wire), out, false); diff != "" {
		t.Errorf("MarshalJSON does not give back the wire form (-wire +marshalled):\n%s", diff)
	}
}

func TestDocumentValidationsJSON(t *testing.T) {
	t.Parallel()
	const wire = `{
		"id_card_is_valid": true,
		"id_card_is_valid_reason": "Photo and number match the registry.",
		"bank_statement_is_valid": false,
		"bank_statement_is_valid_reason": "Older than 30 days."
	}`
	var got DocumentValidations
	require.NoError(t, json.Unmarshal([]byte(wire), &got))
	want := DocumentValidations{
		"id_card":        {IsValid: true, Reason: "Photo and number match the registry."},
		"bank_statement": {IsValid: false, Reason: "Older than 30 days."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded mismatch (-want +got):\n%s", diff)
	}
	out, err := json.Marshal(got)
	require.NoError(t, err)
	if diff := jsonDiff(t, []byte(wire), out, false); diff != "" {
		t.Errorf("MarshalJSON does not give back the wire form (-wire +marshalled):\n%s", diff)
	}
}

func TestAnalysisDecodeExtractedData(t *testing.T) {
	t.Parallel()
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
		a := analysisFromGolden(t, "analysis_completed.json")
		var got kycResult
		require.NoError(t, a.DecodeExtractedData(&got))
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
		assert.Equal(t, CheckFail, got.CategoryJudgements.Checks["bank_account"].Result, "category_judgements bank_account")
		assert.Equal(t, CheckNeedsReview, got.CategoryJudgements.OverallConsistencyResult, "overall consistency")
		assert.False(t, got.DocumentValidations["bank_statement"].IsValid, "document_validations bank_statement")
		assert.Nil(t, got.ProofOfAddress, "proof_of_address")
	})
	t.Run("pending leaves the value untouched", func(t *testing.T) {
		a := analysisFromGolden(t, "analysis_pending.json")
		assert.True(t, a.ExtractedData.IsNull(), "ExtractedData.IsNull() for a pending analysis")
		got := kycResult{RequestID: "unchanged"}
		require.NoError(t, a.DecodeExtractedData(&got))
		assert.Equal(t, "unchanged", got.RequestID, "RequestID, left untouched")
	})
	t.Run("wrong type is an error", func(t *testing.T) {
		a := analysisFromGolden(t, "analysis_completed.json")
		var n int
		assert.Error(t, a.DecodeExtractedData(&n), "decoding an object into an int")
	})
}

func TestAnalysisDecodeOutputSchema(t *testing.T) {
	t.Parallel()
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
	a := analysisFromGolden(t, "analysis_completed.json")
	var got schema
	require.NoError(t, a.DecodeOutputSchema(&got))
	assert.Equal(t, "http://json-schema.org/draft-07/schema#", got.Schema, "$schema")
	assert.Equal(t, "Retail loan KYC", got.Title, "title")
	assert.Equal(t, "object", got.Type, "type")
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
	require.NoError(t, json.Unmarshal(got.Properties["review_result"].Value, &rr))
	fromData, err := a.ExtractedData.ReviewResult()
	require.NoError(t, err)
	if diff := cmp.Diff(fromData, &rr); diff != "" {
		t.Errorf("review_result of the schema differs from extractedData (-data +schema):\n%s", diff)
	}

	pending := analysisFromGolden(t, "analysis_pending.json")
	untouched := schema{Title: "unchanged"}
	assert.NoError(t, pending.DecodeOutputSchema(&untouched), "DecodeOutputSchema of a null schema")
	assert.Equal(t, "unchanged", untouched.Title, "DecodeOutputSchema of a null schema leaves the value untouched")
}

func TestItemContent(t *testing.T) {
	t.Parallel()
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
			srv := jsonServer(t, readGolden(t, tt.file))
			it, err := srv.client(t).GetItem(context.Background(), "item_x")
			require.NoError(t, err)
			text, err := it.Text()
			if tt.textErr {
				assert.Error(t, err, "Text() of a %s item = %q, want an error", it.Type, text)
			} else {
				assert.NoError(t, err, "Text()")
				assert.Equal(t, tt.wantText, text, "Text()")
			}
			got, err := tt.decode(it)
			if tt.wantErr {
				assert.Error(t, err, "DecodeContent")
				return
			}
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeContent mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalysisDone(t *testing.T) {
	t.Parallel()
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
			assert.Equal(t, tt.want, a.Done(), "Done()")
		})
	}
	for file, want := range map[string]bool{
		"analysis_completed.json": true,
		"analysis_pending.json":   false,
		"analysis_failed.json":    true,
	} {
		t.Run(file, func(t *testing.T) {
			assert.Equal(t, want, analysisFromGolden(t, file).Done(), "Done()")
		})
	}
}

func TestAnalysisStatusIsTerminal(t *testing.T) {
	t.Parallel()
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
			assert.Equal(t, tt.want, tt.status.IsTerminal(), "%q.IsTerminal()", tt.status)
		})
	}
}

// TestDecodeUnknownFields: a field this version of the SDK does not know is
// no error, and is kept in Raw.
func TestDecodeUnknownFields(t *testing.T) {
	t.Parallel()
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
			srv := jsonServer(t, []byte(tt.body))
			id, raw, err := tt.call(context.Background(), srv.client(t))
			require.NoError(t, err, "an unknown field was refused")
			assert.NotEmpty(t, id, "the known fields were not decoded: empty ID")
			var members map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &members), "Raw is not a JSON object: %q", raw)
			want, got := jsonValue([]byte(`{"tier":"gold","scores":[1,2]}`)), jsonValue(members["futureField"])
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Raw futureField mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
