package mockserver

import "github.com/profilesvc/profilesvc-go/mockserver/engine"

// AnalysisInput is what an analysis runs over. It is engine.Input; see
// package engine.
type AnalysisInput = engine.Input

// InputItem is one target item of an analysis. It is engine.Document; see
// package engine.
type InputItem = engine.Document

// AnalysisResult is what an analysis yields. It is engine.Result; see
// package engine.
type AnalysisResult = engine.Result

// Analyzer runs an analysis. An error fails the analysis with the error's
// text. See WithAnalyzer. It is engine.Analyzer; engine.Default is the
// default engine.
type Analyzer = engine.Analyzer
