package otelprofilesvc_test

import (
	"context"
	"fmt"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/otelprofilesvc"
)

// ExampleMiddleware traces a client's calls: here into an in-memory
// recorder; in an application, the tracer provider of its exporter (or
// none, for the global one, otel.SetTracerProvider).
func ExampleMiddleware() {
	srv := mockserver.New()
	defer srv.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	defer tp.Shutdown(context.Background())

	client := srv.Client(profilesvc.WithMiddleware(otelprofilesvc.Middleware(otelprofilesvc.WithTracerProvider(tp))))
	ctx := context.Background()
	profile, err := client.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		fmt.Println(err)
		return
	}
	_, _ = client.GetProfile(ctx, profile.ID)
	for _, s := range spans.Ended() {
		fmt.Println(s.Name())
	}
	// Output:
	// POST /v1/workflows/{workflowId}/profiles
	// GET /v1/profiles/{profileId}
}
