package otelprofilesvc_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/otelprofilesvc"
)

const hostileKey = "sk_live_hostile_0123456789abcdef"

type rig struct {
	client *profilesvc.Client
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
}

// newRig: a client of handler h, instrumented into memory.
func newRig(t *testing.T, h http.Handler, opts ...profilesvc.Option) *rig {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return newRigURL(t, srv.URL, opts...)
}

func newRigURL(t *testing.T, base string, opts ...profilesvc.Option) *rig {
	t.Helper()
	r := &rig{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	all := append([]profilesvc.Option{profilesvc.WithBaseURL(base), profilesvc.WithAPIKey(hostileKey), profilesvc.WithMaxRetries(0),
		profilesvc.WithMiddleware(otelprofilesvc.Middleware(otelprofilesvc.WithTracerProvider(tp), otelprofilesvc.WithMeterProvider(mp),
			otelprofilesvc.WithPropagators(propagation.TraceContext{})))}, opts...)
	c, err := profilesvc.NewClient(all...)
	require.NoError(t, err)
	r.client = c
	return r
}

// telemetry dumps every span and metric as text.
func (r *rig) telemetry(t *testing.T) string {
	var b strings.Builder
	for _, s := range r.spans.Ended() {
		fmt.Fprintln(&b, s.Name(), s.Attributes(), s.Events(), s.Status())
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	fmt.Fprintf(&b, "%+v", rm)
	return b.String()
}

// durationPoints returns the data points of http.client.request.duration.
func (r *rig) durationPoints(t *testing.T) []metricdata.HistogramDataPoint[float64] {
	var rm metricdata.ResourceMetrics
	require.NoError(t, r.reader.Collect(context.Background(), &rm))
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "http.client.request.duration" {
				return m.Data.(metricdata.Histogram[float64]).DataPoints
			}
		}
	}
	return nil
}

func errorJSON(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, msg)
}
