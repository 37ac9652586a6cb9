package profilesvc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// The examples run against the embedded mock server, so that `go test`
// checks their output. Against the real service, make the client with
// NewClient and your own key and address instead of srv.Client().

func ExampleNewClient() {
	srv := mockserver.New() // stands in for the service
	defer srv.Close()

	client, err := profilesvc.NewClient(
		profilesvc.WithAPIKey(srv.APIKey), // or $PROFILESVC_API_KEY
		profilesvc.WithBaseURL(srv.URL),   // or $PROFILESVC_BASE_URL
		profilesvc.WithUserAgent("myapp/1.0"),
	)
	if err != nil {
		log.Fatal(err)
	}
	profile, err := client.CreateProfile(context.Background(), "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(profile.Name, profile.ItemsCount)
	// Output: Jane Doe 0
}

func ExampleClient_CreateProfile() {
	srv := mockserver.New()
	defer srv.Close()
	client := srv.Client()

	profile, err := client.CreateProfile(context.Background(), "wf_default", profilesvc.CreateProfileParams{
		Name:     "Jane Doe",
		Metadata: profilesvc.Object{"caseRef": "C-1001"},
	})
	if err != nil {
		log.Fatal(err)
	}
	folder := profile.DefaultFolder()
	fmt.Println(profile.Name, profile.Metadata["caseRef"])
	fmt.Println(folder.Name, folder.IsDefault)
	// Output:
	// Jane Doe C-1001
	// default true
}

func ExampleClient_UploadFile() {
	srv := mockserver.New()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, err := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		log.Fatal(err)
	}

	// Any io.Reader is streamed; an *os.File or a *bytes.Reader can also be
	// sent again if the request is retried.
	doc := strings.NewReader("PASSPORT\nFull Name: Jane Doe\n")
	item, err := client.UploadFile(ctx, profile.DefaultFolder().ID, doc, profilesvc.UploadParams{
		Filename: "passport.txt",
		Metadata: profilesvc.Object{"side": "front"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(item.Type, item.Name, item.SizeBytes, item.Status, item.Detected.FileCategory)
	// Output: file passport.txt 29 ACTIVE text
}

func ExampleClient_StartAnalysis() {
	srv := mockserver.New(mockserver.WithAnalysisDuration(200 * time.Millisecond))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	item, _ := client.CreateTextItem(ctx, profile.DefaultFolder().ID,
		"PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n",
		profilesvc.CreateItemParams{Name: "passport"})

	id, err := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	if err != nil {
		log.Fatal(err)
	}
	// WaitForAnalysis long polls: it returns as soon as the analysis ends.
	// OnUpdate hears of every status change, for a progress display.
	analysis, err := client.WaitForAnalysis(ctx, id, &profilesvc.WaitOptions{
		OnUpdate: func(a *profilesvc.Analysis) {
			if a.Status.IsTerminal() {
				fmt.Println("status:", a.Status)
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	review, _ := analysis.ExtractedData.ReviewResult()
	values, _ := analysis.ExtractedData.ExtractedValues()
	fmt.Println("risk:", analysis.RiskAssessment.RiskLevel, "decision:", review.FinalAction)
	fmt.Println("name:", values["full_name"])
	// Output:
	// status: completed
	// risk: low decision: approve
	// name: Jane Doe
}

// WaitForAnalysis with a progress display: OnUpdate hears of every status
// change, the first included. The mock runs on a fake clock here, which
// the goroutine moves as time would pass; against a real service there is
// nothing to move.
func ExampleClient_WaitForAnalysis() {
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC))
	srv := mockserver.New(mockserver.WithClock(clock), mockserver.WithAnalysisDuration(30*time.Second))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	item, _ := client.CreateTextItem(ctx, profile.DefaultFolder().ID, "PASSPORT\nFull Name: Jane Doe\n", profilesvc.CreateItemParams{})
	id, _ := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})

	go func() {
		// Thirty seconds pass: the analysis's two stages and, each time,
		// the 10-second long poll that WaitForAnalysis holds.
		_ = clock.BlockUntil(ctx, 3)
		clock.Advance(10 * time.Second)
		_ = clock.BlockUntil(ctx, 2)
		clock.Advance(20 * time.Second)
	}()

	analysis, err := client.WaitForAnalysis(ctx, id, &profilesvc.WaitOptions{
		OnUpdate: func(a *profilesvc.Analysis) {
			fmt.Printf("%s at %s\n", a.Status, clock.Now().Format("15:04:05"))
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("report ready:", analysis.PrimaryReportID != nil)
	// Output:
	// pending at 09:00:00
	// processing at 09:00:10
	// completed at 09:00:30
	// report ready: true
}

func ExampleClient_DownloadReport() {
	srv := mockserver.New(mockserver.WithAnalysisDuration(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	item, _ := client.CreateTextItem(ctx, profile.DefaultFolder().ID, "PASSPORT\nFull Name: Jane Doe\n", profilesvc.CreateItemParams{})
	id, _ := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	if _, err := client.WaitForAnalysis(ctx, id, nil); err != nil {
		log.Fatal(err)
	}

	report, err := client.DownloadReport(ctx, id, &profilesvc.ReportParams{Locale: profilesvc.LocaleKorean})
	if err != nil {
		log.Fatal(err)
	}
	defer report.Body.Close()
	// The body streams; copy it where it belongs (or use report.SaveFile).
	head := make([]byte, 5)
	if _, err := io.ReadFull(report.Body, head); err != nil {
		log.Fatal(err)
	}
	fmt.Println(report.ContentType, string(head), report.Filename == "analysis_"+id+"_report.pdf")
	// Output: application/pdf %PDF- true
}

func ExampleClient_SaveReport() {
	srv := mockserver.New(mockserver.WithAnalysisDuration(0))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	item, _ := client.CreateTextItem(ctx, profile.DefaultFolder().ID, "PASSPORT\nFull Name: Jane Doe\n", profilesvc.CreateItemParams{})
	id, _ := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	if _, err := client.WaitForAnalysis(ctx, id, nil); err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "reports")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Into a directory, each variant gets a name of its own; a path that
	// names a file is used as given.
	for _, params := range []*profilesvc.ReportParams{
		nil, // English
		{Locale: profilesvc.LocaleKorean},
		{Locale: profilesvc.LocaleKorean, IncludeRawData: true},
	} {
		path, err := client.SaveReport(ctx, id, dir, params)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(strings.TrimPrefix(filepath.Base(path), "analysis_"+id))
	}
	// Output:
	// _report.pdf
	// _report.ko.pdf
	// _report.ko.raw.pdf
}

// A middleware wraps every attempt of every call: here it times each one
// and counts the answers by route. RouteTemplate names the route without
// its IDs, so that metrics and span names stay few.
func ExampleWithMiddleware() {
	srv := mockserver.New()
	defer srv.Close()

	var mu sync.Mutex
	calls := map[string]int{}
	var total time.Duration
	timing := func(req *http.Request, next profilesvc.MiddlewareNext) (*http.Response, error) {
		start := time.Now()
		resp, err := next(req)
		status := "error"
		if err == nil {
			status = strconv.Itoa(resp.StatusCode)
		}
		mu.Lock()
		defer mu.Unlock()
		// Never log req.Header: it holds the API key.
		calls[req.Method+" "+profilesvc.RouteTemplate(req.Context())+" "+status]++
		total += time.Since(start)
		return resp, err
	}
	client := srv.Client(profilesvc.WithMiddleware(timing))

	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	for range 3 {
		if _, err := client.GetProfile(ctx, profile.ID); err != nil {
			log.Fatal(err)
		}
	}
	_, _ = client.GetProfile(ctx, "pf_missing")

	mu.Lock()
	defer mu.Unlock()
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		fmt.Println(k, calls[k])
	}
	fmt.Println("timed:", total > 0)
	// Output:
	// GET /v1/profiles/{profileId} 200 3
	// GET /v1/profiles/{profileId} 404 1
	// POST /v1/workflows/{workflowId}/profiles 201 1
	// timed: true
}

func ExampleWithResponseInto() {
	srv := mockserver.New()
	defer srv.Close()
	client := srv.Client()

	var resp *http.Response
	profile, err := client.CreateProfile(context.Background(), "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"},
		profilesvc.WithResponseInto(&resp))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(profile.Name, resp.StatusCode, strings.HasPrefix(resp.Header.Get("X-Request-Id"), "req_"))
	// Output: Jane Doe 201 true
}

func ExampleClient_ListFolders() {
	srv := mockserver.New()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	profile, _ := client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Jane Doe"})
	for _, name := range []string{"Invoices", "Contracts", "IDs"} {
		if _, err := client.CreateFolder(ctx, profile.ID, name); err != nil {
			log.Fatal(err)
		}
	}

	// The iterator fetches page after page (two folders each here).
	params := &profilesvc.ListFoldersParams{Sort: profilesvc.SortByName, Order: profilesvc.Ascending, Limit: 2}
	for folder, err := range client.ListFolders(ctx, profile.ID, params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(folder.Name)
	}
	// Output:
	// Contracts
	// default
	// IDs
	// Invoices
}

func Example_errorHandling() {
	srv := mockserver.New()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	_, err := client.GetFolder(ctx, "fld_missing")
	var apiErr *profilesvc.APIError
	switch {
	case errors.Is(err, profilesvc.ErrFolderNotFound) && errors.As(err, &apiErr):
		fmt.Println("no such folder:", apiErr.StatusCode, apiErr.Code)
	case err != nil:
		log.Fatal(err)
	}

	_, err = client.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: ""})
	if errors.Is(err, profilesvc.ErrValidation) && errors.As(err, &apiErr) {
		fmt.Println("invalid:", apiErr.Message)
	}
	// Output:
	// no such folder: 404 SVC_3009
	// invalid: field "name" is required and must not be empty
}
