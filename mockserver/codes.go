package mockserver

import "github.com/profilesvc/profilesvc-go"

// Error codes the mock answers with. Those of the interface document, and
// those the SDK knows for what the document leaves open, are profilesvc's
// constants; these are the mock's own, for its test kit and faults.
const (
	// codeConflict is the default code of an injected 409.
	codeConflict = "CONFLICT"
	// codeAnalysisNotPending refuses to move an analysis to processing
	// that is not pending.
	codeAnalysisNotPending = "ANALYSIS_NOT_PENDING"
	// codeAnalysisFinished refuses to complete or fail an analysis that
	// has already ended.
	codeAnalysisFinished = "ANALYSIS_FINISHED"
	// codeOriginNotAllowed refuses a CORS preflight from an origin that
	// WithCORS does not allow.
	codeOriginNotAllowed = "ORIGIN_NOT_ALLOWED"
)

// Is lets an error of the test kit match the profilesvc sentinel of its
// code and status with errors.Is, as the SDK's errors do:
// errors.Is(err, profilesvc.ErrProfileNotFound).
func (e *apiError) Is(target error) bool {
	return (&profilesvc.APIError{StatusCode: e.status, Code: e.code}).Is(target)
}
