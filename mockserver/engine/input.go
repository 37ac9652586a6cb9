package engine

import (
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// Input is what an analysis runs over: the workflow, the profile and the
// target items with the text read from them.
type Input struct {
	AnalysisID     string
	Profile        profilesvc.Profile
	Workflow       Workflow
	Items          []Document
	Options        map[string]any
	ClientMetadata map[string]any
	// RequestedAt is when the analysis started: the reference date for
	// checks such as expiry.
	RequestedAt time.Time
}

// Document is one target item of an analysis.
type Document struct {
	ID       string
	Name     string
	Type     profilesvc.ItemType
	Metadata map[string]any
	// ContentType is the detected type of the bytes.
	ContentType string
	// Text is what could be read of the item, and Readable is false for
	// images and other binaries. The engine reads nothing itself: the
	// caller (the mock server) fills both before the engine runs.
	Text     string
	Readable bool
	// Data is the original bytes.
	Data []byte
	// CreatedAt is when the item was uploaded or created.
	CreatedAt time.Time
}
