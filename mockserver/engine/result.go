package engine

import (
	"encoding/json"

	"github.com/profilesvc/profilesvc-go"
)

// Result is what an analysis yields. The mock server adds the IDs of
// findings and recommendations, the timestamps and the report.
type Result struct {
	RiskAssessment   profilesvc.RiskAssessment
	ExtractedData    json.RawMessage
	OutputSchema     json.RawMessage
	ExtractionStatus map[string]profilesvc.ExtractionStatus
	RawActionResults map[string]profilesvc.RawActionResult
	AgentAuditLog    []profilesvc.AuditLogEntry
	Findings         []profilesvc.Finding
	Recommendations  []profilesvc.Recommendation
	SystemMetadata   profilesvc.SystemMetadata
	ProcessingTimeMs float64
	// PlaybookID and Engine, when set, become the analysis's playbookId
	// and engine: a result replayed from a recording of the service
	// carries the service's.
	PlaybookID string            `json:",omitempty"`
	Engine     profilesvc.Object `json:",omitempty"`
	// Facts are what the result's sentences say, as data, and what the
	// engine read of each document, for the mock server's report; the
	// analysis the API returns does not carry them. Default fills them;
	// a result made otherwise may leave them empty.
	Facts Facts
}

// Normalize gives every part of r its empty value rather than null, and a
// risk level graded from the score when r has none, so that a completed
// analysis always has all of them, whatever analyzer made it.
func (r *Result) Normalize() {
	if r.RiskAssessment.RiskFactors == nil {
		r.RiskAssessment.RiskFactors = []string{}
	}
	if r.RiskAssessment.RiskLevel == "" {
		r.RiskAssessment.RiskLevel = riskLevel(r.RiskAssessment.RiskScore)
	}
	if len(r.ExtractedData) == 0 || string(r.ExtractedData) == "null" {
		r.ExtractedData = json.RawMessage("{}")
	}
	if len(r.OutputSchema) == 0 || string(r.OutputSchema) == "null" {
		r.OutputSchema = json.RawMessage("{}")
	}
	if r.ExtractionStatus == nil {
		r.ExtractionStatus = map[string]profilesvc.ExtractionStatus{}
	}
	if r.RawActionResults == nil {
		r.RawActionResults = map[string]profilesvc.RawActionResult{}
	}
	if r.AgentAuditLog == nil {
		r.AgentAuditLog = []profilesvc.AuditLogEntry{}
	}
	if r.Findings == nil {
		r.Findings = []profilesvc.Finding{}
	}
	if r.Recommendations == nil {
		r.Recommendations = []profilesvc.Recommendation{}
	}
	if r.SystemMetadata.CompletedWorkIDs == nil {
		r.SystemMetadata.CompletedWorkIDs = []int{}
	}
	if r.SystemMetadata.WorkflowHistory == nil {
		r.SystemMetadata.WorkflowHistory = []profilesvc.WorkflowHistoryEntry{}
	}
	for i := range r.AgentAuditLog {
		if r.AgentAuditLog[i].TargetItemIDs == nil {
			r.AgentAuditLog[i].TargetItemIDs = []string{}
		}
	}
}
