package mockserver

import "github.com/profilesvc/profilesvc-go/mockserver/engine"

// AnalysisInput is what an analysis runs over. It is engine.Input; see
// package engine.
type AnalysisInput = engine.Input

// InputItem is one target item of an analysis, an element of
// AnalysisInput.Items. It is engine.Document, under the name the server
// gives what it analyses (an item, in the API as here); the engine,
// which knows nothing of the API, calls it a document. The alias stays
// exported, under this name, for analyzers (WithAnalyzer) that name it;
// within package mockserver the type is always called InputItem.
type InputItem = engine.Document

// AnalysisResult is what an analysis yields. It is engine.Result; see
// package engine.
type AnalysisResult = engine.Result

// Analyzer runs an analysis. An error fails the analysis with the error's
// text. See WithAnalyzer. It is engine.Analyzer; engine.Default is the
// default engine.
type Analyzer = engine.Analyzer
