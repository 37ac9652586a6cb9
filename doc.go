// Package profilesvc is a client for the Profile Document Analysis Service:
// it stores documents in profiles and runs asynchronous analyses over them.
//
// # Resources
//
// A workflow owns profiles; a profile owns folders (one of them, the
// default folder, is made with the profile); a folder owns items: uploaded
// files, texts and JSON values. An analysis runs over chosen items of a
// profile and yields a risk assessment, extracted data shaped by the
// workflow's output schema, findings, recommendations and a PDF report.
//
// # Getting started
//
//	client, err := profilesvc.NewClient() // $PROFILESVC_API_KEY, $PROFILESVC_BASE_URL
//	if err != nil {
//		return err
//	}
//	profile, err := client.CreateProfile(ctx, workflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"}) // one of your service's workflows
//	...
//	item, err := client.UploadFilePath(ctx, profile.DefaultFolder().ID, "passport.pdf", profilesvc.UploadParams{})
//	...
//	id, err := client.StartAnalysis(ctx, profile.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
//	...
//	analysis, err := client.WaitForAnalysis(ctx, id, nil)
//	...
//	_, err = client.SaveReport(ctx, id, "report.pdf", nil)
//
// Every method takes a context first, which bounds the call with its
// retries, and optional RequestOption values last (WithHeader,
// WithRetries, WithTimeout, WithCallMiddleware, WithResponseInto) that
// change that call only. Profile.DefaultFolder reads the answer of
// CreateProfile; for a profile read any other way, Client.DefaultFolder
// asks the service.
//
// # Errors
//
// Every answer with a status outside 2xx becomes an *APIError holding the
// status, the service's error code and message, and the request ID. Branch
// with errors.Is on the sentinels:
//
//	_, err := client.StartAnalysis(ctx, profileID, params)
//	switch {
//	case errors.Is(err, profilesvc.ErrAnalysisInProgress):
//		// wait for the running one
//	case errors.Is(err, profilesvc.ErrInvalidItemIDs):
//		// fix the item list
//	}
//
// The numeric-style codes SVC_3005 and SVC_3009 match ErrProfileNotFound
// and ErrFolderNotFound; any 404 matches ErrNotFound, any 5xx ErrServer.
//
// # Retries
//
// Requests are retried with exponential backoff and jitter. GET, PATCH and
// DELETE retry on connection errors and on 429, 500, 502, 503 and 504.
// POST retries only where the service certainly did not act: on 429 and
// 503, or when no connection could be made; so a retry never starts a
// second analysis or creates a second profile. Retry-After is honoured up
// to the maximum wait; a longer one returns the error at once, with the
// wait in APIError.RetryAfter. No wait is started that would pass the
// context's deadline.
//
// A POST whose request was written but whose answer was lost (the
// connection failed, or the attempt ran out of time) matches
// ErrOutcomeUnknown: the service may or may not have acted. StartAnalysis
// reconciles such a failure with the rule of one running analysis per
// profile: it asks once more and, on a 409, returns the running analysis
// that its first request started, when it finds one.
//
// # Middleware
//
// WithMiddleware wraps every attempt of every call in functions of the
// caller's, for tracing, metrics or logging; RouteTemplate names the route
// of the call an attempt belongs to without its IDs. A middleware sees the
// API key in the x-api-key header and must not log it.
//
// # Long polling
//
// GetAnalysis with WaitForReport holds the request on the service until the
// analysis's report is ready; WaitForAnalysis builds on it to wait for an
// analysis to finish within one round trip of its end, reporting each
// status change through WaitOptions.OnUpdate (within about 10 seconds of
// the change: with OnUpdate, each poll is held 10 seconds at most).
//
// # Paging
//
// ListFolders, ListProfiles and ListAnalyses return iterators that follow
// the service's cursors across pages; the ...Page methods return one page.
//
// # Inferred endpoints
//
// The interface document publishes twelve endpoints. Creating folders,
// uploading, reading and deleting items, reading and listing profiles and
// listing analyses exist but are not shown; the methods for them
// (CreateFolder, UploadFile, CreateTextItem, CreateJSONItem, GetItem,
// DeleteItem, GetProfile, ListProfiles, ListAnalyses) follow the conventions
// of the published ones and are verified only against this project's mock
// server, package mockserver.
package profilesvc
