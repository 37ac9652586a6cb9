package engine

import "encoding/json"

// defaultOutputSchema is wf_default's output schema: an identity and
// financial document review.
const defaultOutputSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "Identity and financial document review",
  "type": "object",
  "properties": {
    "request_id": {"type": "string", "description": "The profile ID."},
    "review_result": {
      "type": "object",
      "properties": {
        "final_action": {"type": "string", "enum": ["approve", "manual_review", "reject"]},
        "final_risk_level": {"type": "string", "enum": ["low", "medium", "high"]},
        "final_action_reason": {"type": "string"},
        "final_risk_level_reason": {"type": "string"}
      }
    },
    "extracted_values": {
      "type": "object",
      "properties": {
        "full_name": {"type": ["string", "null"]},
        "date_of_birth": {"type": ["string", "null"], "format": "date"},
        "document_number": {"type": ["string", "null"]},
        "expiry_date": {"type": ["string", "null"], "format": "date"},
        "address": {"type": ["string", "null"]},
        "nationality": {"type": ["string", "null"]},
        "account_number": {"type": ["string", "null"]},
        "monthly_income": {"type": ["string", "null"]}
      }
    },
    "category_judgements": {"type": "object"},
    "document_validations": {"type": "object"},
    "policy_flags": {"type": "array", "items": {"type": "string"}},
    "recommended_next_steps": {"type": "array", "items": {"type": "string"}}
  }
}`

// DefaultWorkflow returns wf_default: an identity and financial document
// review whose policy classifies the documents, extracts identity fields,
// validates their formats and expiry, compares them across documents, looks
// the document number up in a (simulated) registry and compiles a decision.
func DefaultWorkflow() Workflow {
	return Workflow{
		ID:           DefaultWorkflowID,
		Name:         "Identity and financial document review",
		OutputSchema: json.RawMessage(defaultOutputSchema),
		Policy: []PolicyAction{
			{ActionName: "classify_documents", Category: "Document Classification",
				Query: "Identify the type of each submitted document."},
			{ActionName: "extract_identity_fields", Category: "Data Extraction",
				Query: "Extract the full name, date of birth, document number, expiry date and address from each document."},
			{ActionName: "validate_field_formats", Category: "Format Validation",
				Query: "Check that dates and document numbers are well formed."},
			{ActionName: "check_document_expiry", Category: "Status Validation",
				Query: "Check that no identity document has expired."},
			{ActionName: "cross_check_identity", Category: "Data Consistency",
				Query: "Compare the extracted values across the documents."},
			{ActionName: "verify_document_registry", Category: "mcp",
				Query: "Look the document number up in the issuing authority's registry."},
			{ActionName: "compile_review", Category: "Document Processing",
				Query: "Compile the findings into a review decision."},
		},
	}
}
