package mockserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/filelimit"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// MaxReplayFileSize bounds a recording WithReplayFile reads.
const MaxReplayFileSize = 1 << 30

// replay is what a recording shows of the service's analyses: each
// completed or failed analysis, with the keys of its documents.
type replay struct {
	analyses []*recordedAnalysis
}

// recordedAnalysis is an analysis of the recording, as it last was.
type recordedAnalysis struct {
	a profilesvc.Analysis
	// keys name its target items, in order: the digest of each one's
	// content, or, for one the recording has no digest of, "name:" with
	// its type and name.
	keys    []string
	itemIDs []string
}

// harRead is the part of an HTTP Archive a replay reads.
type harRead struct {
	Log *struct {
		Entries []struct {
			Request struct {
				Method string `json:"method"`
				URL    string `json:"url"`
			} `json:"request"`
			Response struct {
				Status  int `json:"status"`
				Content struct {
					MimeType string `json:"mimeType"`
					Text     string `json:"text"`
					Encoding string `json:"encoding"`
				} `json:"content"`
			} `json:"response"`
			Profilesvc *harUploadInfo `json:"_profilesvc"`
		} `json:"entries"`
	} `json:"log"`
}

// loadReplay reads a recording: an error names the entry and the field
// that cannot be read.
func loadReplay(path string) (*replay, error) {
	data, err := filelimit.Read(path, MaxReplayFileSize)
	if err != nil {
		return nil, fmt.Errorf("the recording %s: %w", path, err)
	}
	var h harRead
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("the recording %s is not an HTTP Archive: %w", path, err)
	}
	if h.Log == nil {
		return nil, fmt.Errorf("the recording %s is not an HTTP Archive: field \"log\" is missing", path)
	}
	digests := map[string]string{} // item ID -> digest
	byID := map[string]*recordedAnalysis{}
	var order []string
	analysis, _ := parsePathTemplate(apiroutes.Analysis)
	for i, e := range h.Log.Entries {
		if e.Profilesvc != nil && e.Profilesvc.ItemID != "" && e.Profilesvc.SHA256 != "" {
			digests[e.Profilesvc.ItemID] = e.Profilesvc.SHA256
		}
		if e.Request.Method != "GET" || e.Response.Status != 200 {
			continue
		}
		u, err := url.Parse(e.Request.URL)
		if err != nil {
			return nil, fmt.Errorf("the recording %s: entries[%d].request.url: %v", path, i, err)
		}
		if !pathHasSuffixTemplate(u.EscapedPath(), &analysis) {
			continue
		}
		body := []byte(e.Response.Content.Text)
		if e.Response.Content.Encoding == "base64" {
			if body, err = base64.StdEncoding.DecodeString(e.Response.Content.Text); err != nil {
				return nil, fmt.Errorf("the recording %s: entries[%d].response.content.text: not base64: %v", path, i, err)
			}
		}
		var a profilesvc.Analysis
		if err := json.Unmarshal(body, &a); err != nil {
			return nil, fmt.Errorf("the recording %s: entries[%d].response.content.text: not an analysis: %v", path, i, err)
		}
		if a.ID == "" {
			return nil, fmt.Errorf("the recording %s: entries[%d].response.content.text: the analysis has no \"id\"", path, i)
		}
		if a.Status != profilesvc.AnalysisCompleted && a.Status != profilesvc.AnalysisFailed {
			continue
		}
		if err := checkRecordedAnalysis(&a); err != nil {
			return nil, fmt.Errorf("the recording %s: entries[%d].response.content.text: %w", path, i, err)
		}
		if _, seen := byID[a.ID]; !seen {
			order = append(order, a.ID)
		}
		byID[a.ID] = &recordedAnalysis{a: a}
	}
	rp := &replay{}
	for _, id := range order {
		ra := byID[id]
		for _, t := range ra.a.TargetItems {
			key, ok := digests[t.ItemID]
			if !ok {
				key = nameKey(t.Type, t.Name)
			}
			ra.keys = append(ra.keys, key)
			ra.itemIDs = append(ra.itemIDs, t.ItemID)
		}
		rp.analyses = append(rp.analyses, ra)
	}
	return rp, nil
}

// pathHasSuffixTemplate reports whether an escaped path, with the base
// URL's path before it, ends in a path of the template: a recording's
// URLs hold the service's base.
func pathHasSuffixTemplate(escaped string, t *pathTemplate) bool {
	segs := strings.Split(escaped, "/")
	n := len(t.segments)
	if len(segs) < n+1 {
		return false
	}
	return t.match("/"+strings.Join(segs[len(segs)-n:], "/"), nil)
}

// nameKey is the key of an item matched by type and name.
func nameKey(typ profilesvc.ItemType, name string) string {
	return "name:" + string(typ) + "\x00" + name
}

// documentKeys returns the digest of each document's content and its
// name key.
func documentKeys(docs []engine.Document) (digests, names []string) {
	for _, d := range docs {
		var dg string
		switch d.Type {
		case profilesvc.ItemJSON:
			if canon, err := canonicalJSON(d.Data); err == nil {
				dg = sha256Hex(canon)
			}
		default: // a file's bytes; a text's, in UTF-8
			dg = sha256Hex(d.Data)
		}
		digests = append(digests, dg)
		names = append(names, nameKey(d.Type, d.Name))
	}
	return digests, names
}

// match finds the recorded analysis over the same documents: the same
// number, each recorded one matched by a different document, by digest or
// by name key. It returns the mock's item ID for each recorded item.
func (rp *replay) match(docs []engine.Document) (*recordedAnalysis, []string) {
	digests, names := documentKeys(docs)
	for i := len(rp.analyses) - 1; i >= 0; i-- { // the latest first
		ra := rp.analyses[i]
		if len(ra.keys) != len(docs) {
			continue
		}
		used := make([]bool, len(docs))
		ids := make([]string, len(ra.keys))
		ok := true
		for k, key := range ra.keys {
			j := -1
			for d := range docs {
				if !used[d] && (digests[d] == key || names[d] == key) {
					j = d
					break
				}
			}
			if j < 0 {
				ok = false
				break
			}
			used[j] = true
			ids[k] = docs[j].ID
		}
		if ok {
			return ra, ids
		}
	}
	return nil, nil
}

// analyzer is the server's analyzer under the replay: the recorded result
// for recorded documents, base's (or, strict, a failure) for others.
func (rp *replay) analyzer(base engine.Analyzer, strict bool) engine.Analyzer {
	return func(ctx context.Context, in engine.Input) (engine.Result, error) {
		ra, ids := rp.match(in.Items)
		if ra == nil {
			if strict {
				digests, _ := documentKeys(in.Items)
				return engine.Result{}, fmt.Errorf("no recording matches the documents of this analysis (sha256 %s)", strings.Join(digests, ", "))
			}
			return base(ctx, in)
		}
		return ra.result(in, ids)
	}
}

// result is the recorded analysis's outcome for the analysis of in, the
// recorded IDs (the analysis's, its profile's, its items') replaced by the
// mock's.
func (ra *recordedAnalysis) result(in engine.Input, itemIDs []string) (engine.Result, error) {
	ids := map[string]string{ra.a.ID: in.AnalysisID, ra.a.ProfileID: in.Profile.ID}
	for k, old := range ra.itemIDs {
		ids[old] = itemIDs[k]
	}
	a := ra.a
	if a.Status == profilesvc.AnalysisFailed {
		msg := "the analysis failed"
		if a.Error != nil {
			msg = rewriteIDs(*a.Error, ids)
		}
		return engine.Result{}, errors.New(msg)
	}
	raw, err := json.Marshal(replayedParts{a.RiskAssessment, json.RawMessage(a.ExtractedData), json.RawMessage(a.OutputSchema), a.ExtractionStatus,
		a.RawActionResults, a.AgentAuditLog, a.Findings, a.Recommendations, a.SystemMetadata, a.Engine})
	if err != nil {
		return engine.Result{}, fmt.Errorf("replaying the recorded analysis %s: %w", a.ID, err)
	}
	raw = []byte(rewriteIDs(string(raw), ids))
	var out replayedParts
	if err := json.Unmarshal(raw, &out); err != nil {
		return engine.Result{}, fmt.Errorf("replaying the recorded analysis %s: %w", a.ID, err)
	}
	res := engine.Result{
		ExtractedData: out.ExtractedData, OutputSchema: out.OutputSchema, ExtractionStatus: out.ExtractionStatus,
		RawActionResults: out.RawActionResults, AgentAuditLog: out.AgentAuditLog, Findings: out.Findings,
		Recommendations: out.Recommendations, ProcessingTimeMs: a.ProcessingTimeMs, PlaybookID: a.PlaybookID, Engine: out.Engine,
	}
	if out.RiskAssessment != nil {
		res.RiskAssessment = *out.RiskAssessment
	}
	if out.SystemMetadata != nil {
		res.SystemMetadata = *out.SystemMetadata
	}
	return res, nil
}

// replayedParts are the parts of a recorded analysis a replay serves,
// encoded for the rewriting of their IDs and decoded again.
type replayedParts struct {
	RiskAssessment   *profilesvc.RiskAssessment             `json:"riskAssessment"`
	ExtractedData    json.RawMessage                        `json:"extractedData"`
	OutputSchema     json.RawMessage                        `json:"outputSchema"`
	ExtractionStatus map[string]profilesvc.ExtractionStatus `json:"extractionStatus"`
	RawActionResults map[string]profilesvc.RawActionResult  `json:"rawActionResults"`
	AgentAuditLog    []profilesvc.AuditLogEntry             `json:"agentAuditLog"`
	Findings         []profilesvc.Finding                   `json:"findings"`
	Recommendations  []profilesvc.Recommendation            `json:"recommendations"`
	SystemMetadata   *profilesvc.SystemMetadata             `json:"systemMetadata"`
	Engine           profilesvc.Object                      `json:"engine"`
}

// rewriteIDs replaces each recorded ID in s with the mock's: where it
// stands as a whole token (ASCII letters, digits, "_", "-", "." and "~",
// a final "." or "~" left out), so that "item_1" is not rewritten inside
// "item_10". Only IDs of the service's form (a prefix, "_", and more) are
// rewritten: a recorded ID that is a plain word would rewrite that word
// wherever the result says it.
func rewriteIDs(s string, ids map[string]string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isIDByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isIDByte(s[j]) {
			j++
		}
		tok := strings.TrimRight(s[i:j], ".~")
		if to, ok := ids[tok]; ok && idForm(tok) && to != "" {
			b.WriteString(s[last:i])
			b.WriteString(to)
			last = i + len(tok)
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isIDByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '~'
}

// idForm reports whether s has the form of the service's IDs: a prefix,
// "_", and more.
func idForm(s string) bool {
	i := strings.IndexByte(s, '_')
	return i > 0 && i < len(s)-1
}

// replayWarning tells of a recording that replays nothing.
func (s *Server) replayWarning(msg string) {
	l := s.cfg.logger
	if l == nil {
		l = slog.Default()
	}
	l.Warn(msg)
}

// checkRecordedAnalysis holds the parts of a recorded analysis that a
// replay serves to the service's document, as the mock's own answers are
// held: a replayed result the document refuses would make the mock answer
// what the service could not. Each part is checked as the mock would
// serve it (decoded, so that a field the document does not list is
// dropped); the error names the part and the field.
func checkRecordedAnalysis(a *profilesvc.Analysis) error {
	v, err := openapicheck.New()
	if err != nil {
		return err
	}
	type part struct {
		name, schema string
		value        any
	}
	var parts []part
	if a.RiskAssessment != nil {
		parts = append(parts, part{"riskAssessment", "RiskAssessment", a.RiskAssessment})
	}
	if a.SystemMetadata != nil {
		parts = append(parts, part{"systemMetadata", "SystemMetadata", a.SystemMetadata})
	}
	if len(a.ExtractedData) > 0 {
		parts = append(parts, part{"extractedData", "ExtractedData", json.RawMessage(a.ExtractedData)})
	}
	for k, r := range a.RawActionResults {
		parts = append(parts, part{"rawActionResults/" + k, "RawActionResult", r})
	}
	for i, e := range a.AgentAuditLog {
		parts = append(parts, part{fmt.Sprintf("agentAuditLog/%d", i), "AuditLogEntry", e})
	}
	for i, f := range a.Findings {
		parts = append(parts, part{fmt.Sprintf("findings/%d", i), "Finding", f})
	}
	for i, r := range a.Recommendations {
		parts = append(parts, part{fmt.Sprintf("recommendations/%d", i), "Recommendation", r})
	}
	for _, p := range parts {
		raw, err := json.Marshal(p.value)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		var ms openapicheck.Mismatches
		if err := v.CheckSchema(p.schema, raw); errors.As(err, &ms) && len(ms) > 0 {
			field := strings.TrimSpace(strings.TrimPrefix(ms[0].Field, "body"))
			return fmt.Errorf("the analysis disagrees with api/openapi.yaml: /%s%s: %s", p.name, field, ms[0].Problem)
		} else if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
	}
	return nil
}
