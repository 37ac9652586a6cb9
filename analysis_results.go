package profilesvc

import "time"

// The results of a completed analysis: the parts of an Analysis that the
// service fills once it has run, and the values of their enumerations.

// StepStatus is the verdict of one action of an analysis, in its audit log
// and raw action results.
type StepStatus string

// Step statuses.
const (
	StepPassed      StepStatus = "passed"
	StepNeedsReview StepStatus = "needs_review"
	StepFailed      StepStatus = "failed"
)

// RiskLevel grades an analysis's risk.
type RiskLevel string

// Risk levels.
const (
	RiskLow    RiskLevel = "low"
	RiskMedium RiskLevel = "medium"
	RiskHigh   RiskLevel = "high"
)

// FindingResult is the outcome of one check of an analysis.
type FindingResult string

// Finding results.
const (
	FindingPassed  FindingResult = "passed"
	FindingWarning FindingResult = "warning"
	FindingFailed  FindingResult = "failed"
)

// ExtractionStatus says whether a top-level field of the output schema was
// filled.
type ExtractionStatus string

// Extraction statuses.
const (
	Extracted         ExtractionStatus = "extracted"
	ExtractionMissing ExtractionStatus = "missing"
)

// Action categories of an audit log entry. The workflow's policy sets
// them; these are the ones the interface document names.
const (
	CategoryDocumentClassification = "Document Classification"
	CategoryDataExtraction         = "Data Extraction"
	CategoryFormatValidation       = "Format Validation"
	CategoryStatusValidation       = "Status Validation"
	CategoryDataConsistency        = "Data Consistency"
	CategoryDocumentProcessing     = "Document Processing"
	CategoryMCP                    = "mcp"
)

// RiskAssessment grades the risk the analysis found.
type RiskAssessment struct {
	RiskLevel RiskLevel `json:"riskLevel"`
	// RiskScore is 0 to 100, higher meaning riskier.
	RiskScore   float64  `json:"riskScore"`
	RiskFactors []string `json:"riskFactors"`
}

// SystemMetadata records how the analysis ran.
type SystemMetadata struct {
	TotalIterations  int                    `json:"totalIterations"`
	CompletedWorkIDs []int                  `json:"completedWorkIds"`
	WorkflowHistory  []WorkflowHistoryEntry `json:"workflowHistory"`
}

// WorkflowHistoryEntry is one action the analysis ran.
type WorkflowHistoryEntry struct {
	// WorkID numbers the actions from 1.
	WorkID     int       `json:"workId"`
	ActionName string    `json:"actionName"`
	Query      string    `json:"query"`
	Reason     string    `json:"reason"`
	Success    bool      `json:"success"`
	Iteration  int       `json:"iteration"`
	Timestamp  time.Time `json:"timestamp"`
}

// RawActionResult is the raw answer of one action, keyed by its name in
// Analysis.RawActionResults.
type RawActionResult struct {
	Answer             string     `json:"answer"`
	WorkID             int        `json:"workId"`
	CitationsCount     int        `json:"citationsCount"`
	VerificationStatus StepStatus `json:"verificationStatus"`
}

// AuditLogEntry is the trace of one action.
type AuditLogEntry struct {
	WorkID     int    `json:"workId"`
	ActionName string `json:"actionName"`
	// Category is one of the Category constants or another of the
	// workflow's.
	Category   string    `json:"category"`
	Query      string    `json:"query"`
	Reasoning  string    `json:"reasoning"`
	Success    bool      `json:"success"`
	Iteration  int       `json:"iteration"`
	DurationMs float64   `json:"durationMs"`
	ExecutedAt time.Time `json:"executedAt"`
	// VerificationStatus is empty for a step without a pass or fail.
	VerificationStatus StepStatus `json:"verificationStatus,omitempty"`
	TargetItemIDs      []string   `json:"targetItemIds"`
	// RAGResponse is set when a retrieval query ran.
	RAGResponse *RAGResponse `json:"ragResponse,omitempty"`
	// MCPToolCalls is set when external tools were called.
	MCPToolCalls []MCPToolCall `json:"mcpToolCalls,omitempty"`
}

// RAGResponse is the answer of a retrieval query.
type RAGResponse struct {
	Answer string `json:"answer"`
	// Citations point at the passages the answer rests on. Their fields
	// are not published; the mock server sends itemId, chunkIndex, start,
	// end and text.
	Citations        []Object `json:"citations"`
	ChunksSearched   int      `json:"chunksSearched"`
	ProcessingTimeMs float64  `json:"processingTimeMs"`
}

// MCPToolCall is one call of an external tool.
type MCPToolCall struct {
	ToolName        string    `json:"toolName"`
	EngineCode      string    `json:"engineCode"`
	EngineName      string    `json:"engineName"`
	Params          Object    `json:"params"`
	Success         bool      `json:"success"`
	StartedAt       time.Time `json:"startedAt"`
	ExecutionTimeMs float64   `json:"executionTimeMs"`
	RawContent      Object    `json:"rawContent"`
	// FallbackToRAG reports whether retrieval ran because the tool failed.
	FallbackToRAG   bool   `json:"fallbackToRag"`
	SelectionReason string `json:"selectionReason"`
}

// Finding is the outcome of one check, named after its action.
type Finding struct {
	// ID has the prefix "af_".
	ID       string        `json:"id"`
	Category string        `json:"category"`
	Result   FindingResult `json:"result"`
	// Details may be truncated.
	Details   string `json:"details"`
	SortOrder int    `json:"sortOrder"`
}

// Recommendation is a step the analysis advises.
type Recommendation struct {
	// ID has the prefix "ar_".
	ID      string `json:"id"`
	Content string `json:"content"`
	// Priority 1 comes first.
	Priority  int `json:"priority"`
	SortOrder int `json:"sortOrder"`
}

// TargetItem is an item the analysis covered.
type TargetItem struct {
	ItemID    string   `json:"itemId"`
	Name      string   `json:"name"`
	Type      ItemType `json:"type"`
	SourceRef *string  `json:"sourceRef"`
}
