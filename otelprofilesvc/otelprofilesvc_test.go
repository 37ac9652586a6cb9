package otelprofilesvc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/otelprofilesvc"
)

// instrumented is a mock, a client of it traced and measured into an
// in-memory span recorder and a manual metric reader.
type instrumented struct {
	srv    *mockserver.Server
	client *profilesvc.Client
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
}

func newInstrumented(t *testing.T, opts ...mockserver.Option) *instrumented {
	t.Helper()
	in := &instrumented{srv: mockserver.NewTest(t, opts...), spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(in.spans))
	in.tp = tp
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(in.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	in.client = in.srv.Client(profilesvc.WithMiddleware(otelprofilesvc.Middleware(
		otelprofilesvc.WithTracerProvider(tp), otelprofilesvc.WithMeterProvider(mp),
		otelprofilesvc.WithPropagators(propagation.TraceContext{}))))
	return in
}

// ended returns the spans that have ended, by name.
func (in *instrumented) ended(name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range in.spans.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value
	}
	return out
}

func TestSpansFollowTheHTTPConventions(t *testing.T) {
	t.Parallel()
	in := newInstrumented(t)
	p, err := in.client.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Traced"})
	require.NoError(t, err)

	spans := in.ended("POST /v1/workflows/{workflowId}/profiles")
	require.Len(t, spans, 1, "one span per attempt, named after the route template")
	s := spans[0]
	u, err := url.Parse(in.srv.URL)
	require.NoError(t, err)
	port, _ := strconv.Atoi(u.Port())
	a := attrs(s)
	assert.Equal(t, "POST", a["http.request.method"].AsString())
	assert.Equal(t, u.Hostname(), a["server.address"].AsString())
	assert.Equal(t, int64(port), a["server.port"].AsInt64())
	assert.Equal(t, "/v1/workflows/{workflowId}/profiles", a["url.template"].AsString())
	assert.Equal(t, int64(201), a["http.response.status_code"].AsInt64())
	assert.NotContains(t, a, attribute.Key("http.request.resend_count"), "a first attempt has no resend count")
	assert.NotContains(t, a, attribute.Key("error.type"))
	assert.Equal(t, codes.Unset, s.Status().Code)

	// The trace context went with the request: the mock's record shows it.
	reqs := in.srv.Requests()
	require.NotEmpty(t, reqs)
	tp := reqs[len(reqs)-1].Header.Get("Traceparent")
	require.NotEmpty(t, tp, "the mock received no traceparent")
	assert.Contains(t, tp, s.SpanContext().TraceID().String())
	assert.Contains(t, tp, s.SpanContext().SpanID().String(), "the attempt's span is the parent")

	_, err = in.client.GetProfile(t.Context(), p.ID)
	require.NoError(t, err)
	require.Len(t, in.ended("GET /v1/profiles/{profileId}"), 1)
}

func TestARetriedAttemptHasASpanOfItsOwn(t *testing.T) {
	t.Parallel()
	in := newInstrumented(t)
	p, err := in.srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Retried"})
	require.NoError(t, err)
	_, err = in.srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: http.StatusServiceUnavailable, Times: 1})
	require.NoError(t, err)
	ctx, call := in.tp.Tracer("test").Start(t.Context(), "the caller's operation")
	_, err = in.client.GetProfile(ctx, p.ID)
	call.End()
	require.NoError(t, err)

	spans := in.ended("GET /v1/profiles/{profileId}")
	require.Len(t, spans, 2, "the 503 and the retry")
	for _, s := range spans {
		assert.Equal(t, call.SpanContext().SpanID(), s.Parent().SpanID(), "each attempt is a child of the caller's span")
	}
	first, second := attrs(spans[0]), attrs(spans[1])
	assert.Equal(t, int64(503), first["http.response.status_code"].AsInt64())
	assert.Equal(t, "SERVICE_UNAVAILABLE", first["error.type"].AsString())
	assert.Equal(t, codes.Error, spans[0].Status().Code, "a 5xx is an error")
	assert.NotContains(t, first, attribute.Key("http.request.resend_count"))
	assert.Equal(t, int64(1), second["http.request.resend_count"].AsInt64())
	assert.Equal(t, int64(200), second["http.response.status_code"].AsInt64())
	assert.Equal(t, call.SpanContext().TraceID(), spans[1].SpanContext().TraceID(), "both attempts are of the caller's trace")
}

func TestAConflictNamesItsCode(t *testing.T) {
	t.Parallel()
	in := newInstrumented(t, mockserver.WithManualAnalyses())
	p, err := in.client.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Busy"})
	require.NoError(t, err)
	it, err := in.client.CreateTextItem(t.Context(), p.DefaultFolder().ID, "a note", profilesvc.CreateItemParams{Name: "note"})
	require.NoError(t, err)
	_, err = in.client.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	_, err = in.client.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.ErrorIs(t, err, profilesvc.ErrAnalysisInProgress)

	spans := in.ended("POST /v1/analyses/{profileId}/analyze")
	require.Len(t, spans, 2)
	a := attrs(spans[1])
	assert.Equal(t, int64(409), a["http.response.status_code"].AsInt64())
	assert.Equal(t, "ANALYSIS_IN_PROGRESS", a["error.type"].AsString())
	assert.Equal(t, codes.Unset, spans[1].Status().Code, "a 4xx is the caller's, not an error of the span")
}

func TestALongPollCarriesItsTimeout(t *testing.T) {
	t.Parallel()
	in := newInstrumented(t)
	p, err := in.client.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Polled"})
	require.NoError(t, err)
	it, err := in.client.CreateTextItem(t.Context(), p.DefaultFolder().ID, "a note", profilesvc.CreateItemParams{Name: "note"})
	require.NoError(t, err)
	id, err := in.client.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	_, err = in.client.GetAnalysis(t.Context(), id, &profilesvc.GetAnalysisParams{WaitForReport: true, Timeout: 10 * time.Second})
	require.NoError(t, err)
	spans := in.ended("GET /v1/analyses/{analysisId}")
	require.NotEmpty(t, spans)
	assert.Equal(t, int64(10), attrs(spans[len(spans)-1])["profilesvc.long_poll.timeout_seconds"].AsInt64())
}

func TestTheDurationMetric(t *testing.T) {
	t.Parallel()
	in := newInstrumented(t)
	_, err := in.client.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Measured"})
	require.NoError(t, err)
	_, err = in.client.GetProfile(t.Context(), "pf_nobody")
	require.ErrorIs(t, err, profilesvc.ErrProfileNotFound)

	var rm metricdata.ResourceMetrics
	require.NoError(t, in.reader.Collect(t.Context(), &rm))
	var hist metricdata.Histogram[float64]
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "http.client.request.duration" {
				assert.Equal(t, "s", m.Unit)
				hist, found = m.Data.(metricdata.Histogram[float64])
			}
		}
	}
	require.True(t, found, "no http.client.request.duration histogram")
	byRoute := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, dp := range hist.DataPoints {
		route, _ := dp.Attributes.Value("url.template")
		status, _ := dp.Attributes.Value("http.response.status_code")
		byRoute[route.AsString()+" "+strconv.FormatInt(status.AsInt64(), 10)] = dp
		_, hasResend := dp.Attributes.Value("http.request.resend_count")
		assert.False(t, hasResend, "the resend count is not a metric attribute")
	}
	assert.Equal(t, uint64(1), byRoute["/v1/workflows/{workflowId}/profiles 201"].Count)
	notFound := byRoute["/v1/profiles/{profileId} 404"]
	assert.Equal(t, uint64(1), notFound.Count)
	code, _ := notFound.Attributes.Value("error.type")
	assert.Equal(t, "PROFILE_NOT_FOUND", code.AsString())
}

func TestNoKeyInTheTelemetry(t *testing.T) {
	t.Parallel()
	in := newInstrumented(t)
	p, err := in.client.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Secret"})
	require.NoError(t, err)
	_, err = in.client.GetProfile(t.Context(), p.ID)
	require.NoError(t, err)
	var all strings.Builder
	for _, s := range in.spans.Ended() {
		fmt.Fprintln(&all, s.Name(), s.Attributes(), s.Events(), s.Status())
		assert.NotContains(t, s.Name(), p.ID, "an ID in a span name")
		for _, kv := range s.Attributes() {
			assert.NotContains(t, kv.Value.String(), p.ID, "an ID in attribute %s", kv.Key)
		}
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, in.reader.Collect(t.Context(), &rm))
	fmt.Fprintf(&all, "%+v", rm)
	assert.NotContains(t, all.String(), in.srv.APIKey, "the key is in the telemetry")
}

func TestATransportErrorIsAnError(t *testing.T) {
	t.Parallel()
	gone := mockserver.New()
	base := gone.URL
	gone.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(base), profilesvc.WithAPIKey("k"), profilesvc.WithMaxRetries(0),
		profilesvc.WithMiddleware(otelprofilesvc.Middleware(otelprofilesvc.WithTracerProvider(tp))))
	require.NoError(t, err)
	_, err = c.GetProfile(t.Context(), "pf_1")
	require.Error(t, err)
	ended := spans.Ended()
	require.Len(t, ended, 1)
	assert.Equal(t, codes.Error, ended[0].Status().Code)
	assert.Equal(t, "connection_refused", attrs(ended[0])["error.type"].AsString())
}
