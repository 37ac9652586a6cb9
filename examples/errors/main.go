// Command errors shows how to handle each kind of error the SDK returns:
// validation errors, not-found errors, an analysis already in progress,
// a report not yet available, and transient failures that are retried
// (with Retry-After), made by injecting faults into the embedded mock
// server.
//
//	go run ./examples/errors
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "errors:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	srv := mockserver.New(mockserver.WithAnalysisDuration(500 * time.Millisecond))
	defer srv.Close()
	client := srv.Client()

	// Validation: the message names the field.
	_, err := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: ""})
	var apiErr *profilesvc.APIError
	if errors.Is(err, profilesvc.ErrValidation) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "validation: %d %s: %s\n", apiErr.StatusCode, apiErr.Code, apiErr.Message)
	} else {
		return fmt.Errorf("want a validation error, got %v", err)
	}

	// Not found: each resource has its sentinel, and every 404 matches
	// ErrNotFound. The numeric code SVC_3009 matches ErrFolderNotFound.
	_, err = client.GetFolder(ctx, "fld_missing")
	if errors.Is(err, profilesvc.ErrFolderNotFound) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "not found: folder, code %s, also ErrNotFound: %v\n", apiErr.Code, errors.Is(err, profilesvc.ErrNotFound))
	} else {
		return fmt.Errorf("want a folder not found, got %v", err)
	}
	if err := client.DeleteItem(ctx, "item_missing"); !errors.Is(err, profilesvc.ErrItemNotFound) {
		return fmt.Errorf("want an item not found, got %v", err)
	}
	fmt.Fprintln(out, "not found: item")

	// An analysis in progress: wait for the running one, then start again.
	profile, err := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		return err
	}
	item, err := client.CreateTextItem(ctx, profile.DefaultFolder().ID,
		"PASSPORT\nFull Name: Jane Doe\nPassport Number: X1234567\n", profilesvc.CreateItemParams{Name: "passport"})
	if err != nil {
		return err
	}
	start := profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}}
	first, err := client.StartAnalysis(ctx, profile.ID, start)
	if err != nil {
		return err
	}
	// The report of an analysis that has not completed is not available.
	if _, err := client.DownloadReport(ctx, first, nil); errors.Is(err, profilesvc.ErrReportNotAvailable) {
		fmt.Fprintln(out, "report not available: the analysis has not completed")
	} else {
		return fmt.Errorf("want report not available, got %v", err)
	}
	if _, err := client.StartAnalysis(ctx, profile.ID, start); errors.Is(err, profilesvc.ErrAnalysisInProgress) {
		fmt.Fprintln(out, "in progress: waiting for the running analysis")
		running, err := client.RunningAnalysis(ctx, profile.ID)
		if err != nil {
			return err
		}
		if running != nil {
			if _, err := client.WaitForAnalysis(ctx, running.ID, nil); err != nil {
				return err
			}
		}
		if _, err := client.StartAnalysis(ctx, profile.ID, start); err != nil {
			return err
		}
		fmt.Fprintln(out, "in progress: started again once it had finished")
	} else {
		return fmt.Errorf("want an analysis in progress, got %v", err)
	}

	// Transient failures are retried: two 503 answers asking to retry after
	// a second, then success. The logger shows the retries.
	logged := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{
		Level: slog.LevelWarn,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "wait" || a.Key == "error" {
				return slog.Attr{}
			}
			return a
		},
	}))
	retrying := srv.Client(profilesvc.WithLogger(logged))
	if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, RetryAfter: time.Second, Times: 2}); err != nil {
		return err
	}
	began := time.Now()
	if _, err := retrying.GetProfile(ctx, profile.ID); err != nil {
		return err
	}
	fmt.Fprintf(out, "retried: succeeded after waiting %.0fs as asked\n", time.Since(began).Seconds())

	// A Retry-After longer than the client waits for is not slept on: the
	// error comes back at once, with the wait it asked for.
	if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, RetryAfter: time.Hour, Times: 1}); err != nil {
		return err
	}
	_, err = client.GetProfile(ctx, profile.ID)
	if errors.Is(err, profilesvc.ErrServiceUnavailable) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "not retried: the service asked to wait %v\n", apiErr.RetryAfter)
	} else {
		return fmt.Errorf("want a service unavailable, got %v", err)
	}
	return nil
}
