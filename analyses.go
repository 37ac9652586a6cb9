package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// AnalysisStatus is the state of an analysis.
type AnalysisStatus string

// Analysis statuses. An analysis goes from pending to processing, then to
// completed or failed.
const (
	AnalysisPending    AnalysisStatus = "pending"
	AnalysisProcessing AnalysisStatus = "processing"
	AnalysisCompleted  AnalysisStatus = "completed"
	AnalysisFailed     AnalysisStatus = "failed"
)

// IsTerminal reports whether the status is final: completed or failed.
func (s AnalysisStatus) IsTerminal() bool {
	return s == AnalysisCompleted || s == AnalysisFailed
}

// VerificationStatus is a person's verdict on an analysis.
type VerificationStatus string

// Verification statuses.
const (
	VerificationPendingReview VerificationStatus = "pending_review"
	VerificationApproved      VerificationStatus = "approved"
	VerificationRejected      VerificationStatus = "rejected"
)

// Analysis is an asynchronous analysis of a profile's items. The fields
// after CreatedAt are set once the analysis has completed.
type Analysis struct {
	// ID has the prefix "analysis_".
	ID        string `json:"id"`
	ProfileID string `json:"profileId"`
	// FolderID is nil for an analysis of the whole profile.
	FolderID *string `json:"folderId"`
	// EngineID and Engine are nil when the default engine ran.
	EngineID *string `json:"engineId"`
	// PlaybookID has the prefix "PB-".
	PlaybookID         string             `json:"playbookId"`
	Engine             Object             `json:"engine"`
	Status             AnalysisStatus     `json:"status"`
	ProcessingTimeMs   float64            `json:"processingTimeMs"`
	VerificationStatus VerificationStatus `json:"verificationStatus"`
	// Error says why a failed analysis failed; nil otherwise.
	Error *string `json:"error"`
	// Options and ClientMetadata echo what StartAnalysis sent.
	Options        Object `json:"options"`
	ClientMetadata Object `json:"clientMetadata"`
	// PrimaryReportID has the prefix "rpt_"; nil until the report exists.
	PrimaryReportID *string    `json:"primaryReportId"`
	RequestedAt     time.Time  `json:"requestedAt"`
	CompletedAt     *time.Time `json:"completedAt"`
	CreatedAt       time.Time  `json:"createdAt"`

	RiskAssessment *RiskAssessment `json:"riskAssessment,omitempty"`
	SystemMetadata *SystemMetadata `json:"systemMetadata,omitempty"`
	// ExtractedData is shaped by the workflow's output schema: see its
	// accessors and Decode.
	ExtractedData ExtractedData `json:"extractedData,omitempty"`
	// OutputSchema is the workflow's JSON Schema with the values filled in.
	OutputSchema     RawJSON                     `json:"outputSchema,omitempty"`
	ExtractionStatus map[string]ExtractionStatus `json:"extractionStatus,omitempty"`
	RawActionResults map[string]RawActionResult  `json:"rawActionResults,omitempty"`
	AgentAuditLog    []AuditLogEntry             `json:"agentAuditLog,omitempty"`
	Findings         []Finding                   `json:"findings,omitempty"`
	Recommendations  []Recommendation            `json:"recommendations,omitempty"`
	TargetItems      []TargetItem                `json:"targetItems,omitempty"`

	// Raw is the analysis's JSON as the service sent it.
	Raw RawJSON `json:"-"`
}

// UnmarshalJSON decodes the analysis and keeps its JSON in Raw.
func (a *Analysis) UnmarshalJSON(b []byte) error {
	type plain Analysis
	if err := unmarshal(b, (*plain)(a)); err != nil {
		return err
	}
	a.Raw = append(RawJSON(nil), b...)
	return nil
}

// DecodeExtractedData unmarshals the extracted data into v, the caller's
// own type for the workflow's output schema.
func (a *Analysis) DecodeExtractedData(v any) error { return RawJSON(a.ExtractedData).Decode(v) }

// DecodeOutputSchema unmarshals the filled-in output schema into v.
func (a *Analysis) DecodeOutputSchema(v any) error { return a.OutputSchema.Decode(v) }

// Decision returns the review's decision, the final_action of the
// extracted data's review_result: ActionApprove, ActionReject or
// ActionManualReview, what an application acts on. It is "" with a nil
// error while the analysis has no extracted data (before it completes, or
// when it failed) and for a workflow whose output schema has no
// review_result; the error reports extracted data that cannot be read.
// ExtractedData.ReviewResult gives the reasons with it.
func (a *Analysis) Decision() (FinalAction, error) {
	r, err := a.ExtractedData.ReviewResult()
	if err != nil || r == nil {
		return "", err
	}
	return r.FinalAction, nil
}

// Done reports whether the analysis has finished: failed, or completed
// with its report generated.
func (a *Analysis) Done() bool {
	return a.Status == AnalysisFailed || (a.Status == AnalysisCompleted && a.PrimaryReportID != nil)
}

// StartAnalysisParams is the body of StartAnalysis.
type StartAnalysisParams struct {
	// ItemIDs are the items to analyse, at least one, all ACTIVE and in the
	// profile.
	ItemIDs []string
	// Options and ClientMetadata are stored with the analysis and echoed by
	// GetAnalysis.
	Options        Object
	ClientMetadata Object
}

type targetItemRef struct {
	ItemID string `json:"itemId"`
}

type startAnalysisBody struct {
	TargetItems    []targetItemRef `json:"targetItems"`
	Options        Object          `json:"options,omitempty"`
	ClientMetadata Object          `json:"clientMetadata,omitempty"`
}

// StartAnalysis starts an analysis of a profile's items and returns its ID
// at once; the analysis runs in the background (see WaitForAnalysis). A
// profile runs one analysis at a time: a second start gets
// ErrAnalysisInProgress. Items that are not ACTIVE or not in the profile
// get ErrInvalidItemIDs. The request is retried only where the service
// certainly did not act on it, so it never starts two analyses.
//
// When the request was sent but its answer was lost (ErrOutcomeUnknown),
// StartAnalysis reconciles on the service's own rule of one running
// analysis per profile: it sends the request once more; a 202 gives the
// new ID; a 409 ANALYSIS_IN_PROGRESS means the first request most likely
// started an analysis, which it looks for among the profile's running
// ones (ListAnalyses, an inferred endpoint): one of the same items,
// requested no earlier than 5 seconds before the first request was sent
// (for clock skew), is returned with a nil error. When none matches, or
// the service has no such listing, the first error is returned: it still
// matches ErrOutcomeUnknown.
//
// POST /v1/analyses/{profileId}/analyze
func (c *Client) StartAnalysis(ctx context.Context, profileID string, params StartAnalysisParams, opts ...RequestOption) (string, error) {
	began := time.Now()
	id, err := c.startAnalysis(ctx, profileID, params, opts)
	if err == nil || !errors.Is(err, ErrOutcomeUnknown) || ctx.Err() != nil {
		return id, err
	}
	id, again := c.startAnalysis(ctx, profileID, params, opts)
	switch {
	case again == nil:
		return id, nil
	case errors.Is(again, ErrAnalysisInProgress):
		if a := c.startedAnalysis(ctx, profileID, params.ItemIDs, began, opts); a != nil {
			return a.ID, nil
		}
	}
	return "", err
}

// startAnalysis sends one start request.
func (c *Client) startAnalysis(ctx context.Context, profileID string, params StartAnalysisParams, opts []RequestOption) (string, error) {
	r, err := newRequest(http.MethodPost, apiroutes.Analyze, profileID)
	if err != nil {
		return "", err
	}
	body := startAnalysisBody{
		TargetItems:    make([]targetItemRef, len(params.ItemIDs)),
		Options:        params.Options,
		ClientMetadata: params.ClientMetadata,
	}
	for i, id := range params.ItemIDs {
		body.TargetItems[i].ItemID = id
	}
	r.json = body
	var out struct {
		ID string `json:"id"`
	}
	if err := c.do(ctx, r, &out, opts); err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", r.errorf("the answer has no analysis ID")
	}
	return out.ID, nil
}

// startSkew is how far the service's clock may be behind the client's when
// a lost start is matched to the analysis it started.
const startSkew = 5 * time.Second

// startedAnalysis returns the profile's running analysis if it is the one
// a start request sent at began asked for: the same items, requested no
// earlier than began less the clock skew. It returns nil when there is
// none or the listing fails.
func (c *Client) startedAnalysis(ctx context.Context, profileID string, itemIDs []string, began time.Time, opts []RequestOption) *Analysis {
	a, err := c.RunningAnalysis(ctx, profileID, opts...)
	if err != nil || a == nil || a.RequestedAt.Before(began.Add(-startSkew)) {
		return nil
	}
	want := slices.Clone(itemIDs)
	got := make([]string, len(a.TargetItems))
	for i, t := range a.TargetItems {
		got[i] = t.ItemID
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(slices.Compact(want), slices.Compact(got)) {
		return nil
	}
	return a
}

// RunningAnalysis returns the profile's analysis that is pending or
// processing, or nil and no error when none is: a profile runs at most one
// at a time. It walks the profile's analyses, newest first.
//
// GET /v1/profiles/{profileId}/analyses (inferred: not in the published
// interface; verified only against this project's mock server)
func (c *Client) RunningAnalysis(ctx context.Context, profileID string, opts ...RequestOption) (*Analysis, error) {
	for a, err := range c.ListAnalyses(ctx, profileID, nil, opts...) {
		if err != nil {
			return nil, err
		}
		if a.Status == AnalysisPending || a.Status == AnalysisProcessing {
			return a, nil
		}
	}
	return nil, nil
}

// Long-poll bounds of GetAnalysis's timeoutSeconds.
const (
	MinLongPoll = 10 * time.Second
	MaxLongPoll = 300 * time.Second
)

// GetAnalysisParams turn GetAnalysis into a long poll.
type GetAnalysisParams struct {
	// WaitForReport holds the request until the analysis's report is
	// generated, it fails, or Timeout passes.
	WaitForReport bool
	// Timeout is the longest the service holds the request, rounded to whole
	// seconds and clamped to 10s..300s; zero leaves the service's default
	// of 120s.
	Timeout time.Duration
}

// GetAnalysis returns an analysis. With params.WaitForReport it is a long
// poll: the service answers when the report is ready, the analysis fails,
// or the timeout passes, whichever comes first. params may be nil.
//
// GET /v1/analyses/{analysisId}
func (c *Client) GetAnalysis(ctx context.Context, analysisID string, params *GetAnalysisParams, opts ...RequestOption) (*Analysis, error) {
	r, err := newRequest(http.MethodGet, apiroutes.Analysis, analysisID)
	if err != nil {
		return nil, err
	}
	if params != nil && params.WaitForReport {
		hold := 120 * time.Second
		r.query = url.Values{apiroutes.QueryWaitForReport: {"true"}}
		if params.Timeout != 0 {
			hold = clampLongPoll(params.Timeout)
			r.query.Set(apiroutes.QueryTimeoutSeconds, strconv.Itoa(int(hold/time.Second)))
		}
		r.longPoll = hold
	}
	var a Analysis
	if err := c.do(ctx, r, &a, opts); err != nil {
		return nil, err
	}
	if a.ID == "" || !a.Status.valid() {
		// Masked before the excerpts are cut, which could end within the
		// key, and after.
		shown := func(v string) string { return excerpt([]byte(c.secret.mask(v)), 40) }
		return nil, c.secret.maskErr(fmt.Errorf("%w: GET %s: the answer is not an analysis (id %q, status %q)",
			ErrMalformedResponse, r.path, shown(a.ID), shown(string(a.Status))))
	}
	return &a, nil
}

// valid reports whether s is one of the four statuses.
func (s AnalysisStatus) valid() bool {
	switch s {
	case AnalysisPending, AnalysisProcessing, AnalysisCompleted, AnalysisFailed:
		return true
	}
	return false
}

// clampLongPoll rounds d up to whole seconds within MinLongPoll..MaxLongPoll.
func clampLongPoll(d time.Duration) time.Duration {
	d = (d + time.Second - 1).Truncate(time.Second)
	return min(max(d, MinLongPoll), MaxLongPoll)
}

// DeleteAnalysis deletes an analysis and its report; a running analysis is
// cancelled.
//
// DELETE /v1/analyses/{analysisId}
func (c *Client) DeleteAnalysis(ctx context.Context, analysisID string, opts ...RequestOption) error {
	r, err := newRequest(http.MethodDelete, apiroutes.Analysis, analysisID)
	if err != nil {
		return err
	}
	return c.do(ctx, r, nil, opts)
}

// ListAnalysesParams select a page of a profile's analyses, newest first.
// The zero value asks for the first 10.
type ListAnalysesParams struct {
	// Limit is the page size, 1 to 100; default 10.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
}

// AnalysisPage is one page of a profile's analyses.
type AnalysisPage = Page[Analysis]

// ListAnalysesPage returns one page of a profile's analyses, newest first.
// params may be nil.
//
// GET /v1/profiles/{profileId}/analyses (inferred: not in the published
// interface; verified only against this project's mock server)
func (c *Client) ListAnalysesPage(ctx context.Context, profileID string, params *ListAnalysesParams, opts ...RequestOption) (*AnalysisPage, error) {
	r, err := newRequest(http.MethodGet, apiroutes.ProfileAnalyses, profileID)
	if err != nil {
		return nil, err
	}
	lp := &ListParams{}
	if params != nil {
		lp.Limit, lp.Cursor = params.Limit, params.Cursor
	}
	r.query = lp.values()
	var page AnalysisPage
	if err := c.do(ctx, r, &page, opts); err != nil {
		return nil, err
	}
	return &page, nil
}

// ListAnalyses walks every page of a profile's analyses, newest first. The
// walk stops at the first error, which it yields. params may be nil.
//
// GET /v1/profiles/{profileId}/analyses (inferred: not in the published
// interface; verified only against this project's mock server)
func (c *Client) ListAnalyses(ctx context.Context, profileID string, params *ListAnalysesParams, opts ...RequestOption) iter.Seq2[*Analysis, error] {
	start := ""
	if params != nil {
		start = params.Cursor
	}
	return paginate(ctx, c.secret, start, func(ctx context.Context, cursor string) (*Page[Analysis], error) {
		p := ListAnalysesParams{Cursor: cursor}
		if params != nil {
			p.Limit = params.Limit
		}
		return c.ListAnalysesPage(ctx, profileID, &p, opts...)
	})
}
