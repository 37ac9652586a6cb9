package profilesvc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
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
