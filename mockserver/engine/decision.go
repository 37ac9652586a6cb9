package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/profilesvc/profilesvc-go"
)

// The risk levels by score, from 0 to 100: low below MediumRiskFrom,
// medium below HighRiskFrom, high from HighRiskFrom. Default grades its
// score so, and so does Result.Normalize a result without a level.
const (
	MediumRiskFrom = 25
	HighRiskFrom   = 60
)

// What each finding adds to Default's risk score.
const (
	riskPerFailure = 40
	riskPerWarning = 10
)

// riskLevel grades a score.
func riskLevel(score float64) profilesvc.RiskLevel {
	switch {
	case score >= HighRiskFrom:
		return profilesvc.RiskHigh
	case score >= MediumRiskFrom:
		return profilesvc.RiskMedium
	}
	return profilesvc.RiskLow
}

// scriptedScores are the risk scores of mock:risk=low|medium|high.
var scriptedScores = map[profilesvc.RiskLevel]float64{
	profilesvc.RiskLow: 10, profilesvc.RiskMedium: 45, profilesvc.RiskHigh: 85,
}

// grade is the fifth step: risk score = 40 per failed finding + 10 per
// warning, at most 100, unless mock:risk= says otherwise; then the risk
// level and the order of the recommendations, most urgent first.
func (r *run) grade() {
	r.score = float64(min(100, riskPerFailure*len(r.failed)+riskPerWarning*len(r.warned)))
	r.factors = []string{}
	for _, f := range r.failed {
		r.factors = append(r.factors, r.say("failed: "+f, Fact{Key: FactRiskFailed, Actions: []string{f}}))
	}
	for _, w := range r.warned {
		r.factors = append(r.factors, r.say("warning: "+w, Fact{Key: FactRiskWarning, Actions: []string{w}}))
	}
	if v := ParseScript(r.in).Risk; v != "" {
		if s, ok := scriptedScores[profilesvc.RiskLevel(v)]; ok {
			r.score = s
		}
		r.factors = append(r.factors, r.say("scripted outcome: mock:risk="+v, Fact{Key: FactRiskScripted, Values: []string{v}}))
	}
	r.level = riskLevel(r.score)
	res := &r.res
	res.RiskAssessment = profilesvc.RiskAssessment{RiskLevel: r.level, RiskScore: r.score, RiskFactors: r.factors}
	if len(res.Recommendations) == 0 {
		res.Recommendations = append(res.Recommendations, profilesvc.Recommendation{
			Content: r.say("No issue found: the profile can be approved.", Fact{Key: FactRecNoIssue}), Priority: 3})
	}
	sort.SliceStable(res.Recommendations, func(i, j int) bool { return res.Recommendations[i].Priority < res.Recommendations[j].Priority })
	for i := range res.Recommendations {
		res.Recommendations[i].SortOrder = i + 1
	}
}

// decide is the sixth step: low risk approves, medium asks for manual
// review, high rejects; then the policy flags and the next steps.
func (r *run) decide() {
	r.action = profilesvc.ActionApprove
	reason, fact := "Every check passed or raised only minor warnings.", Fact{Key: FactDecideApprove}
	switch r.level {
	case profilesvc.RiskMedium:
		flagged := append(append([]string{}, r.failed...), r.warned...)
		r.action = profilesvc.ActionManualReview
		reason, fact = "Some checks need a person's review: "+strings.Join(flagged, ", ")+".", Fact{Key: FactDecideReview, Actions: flagged}
	case profilesvc.RiskHigh:
		r.action = profilesvc.ActionReject
		reason, fact = "Several checks failed: "+strings.Join(r.failed, ", ")+".", Fact{Key: FactDecideReject, Actions: r.failed}
	}
	if len(r.failed) == 0 && r.level == profilesvc.RiskHigh {
		reason, fact = "The risk was scripted as high.", Fact{Key: FactDecideScript}
	}
	r.actionReason = r.say(reason, fact)
	r.flags = []string{}
	for _, f := range r.fails {
		r.flags = append(r.flags, "data_mismatch:"+f)
	}
	for _, n := range r.expired {
		r.flags = append(r.flags, "expired_document:"+n)
	}
	for _, n := range r.unreadable {
		r.flags = append(r.flags, "unreadable_document:"+n)
	}
	for _, n := range r.invalid {
		r.flags = append(r.flags, "incomplete_document:"+n)
	}
	if slices.Contains(r.fields, "document_number") && !r.hasIdentityDocument() {
		r.flags = append(r.flags, "missing_identity_document")
	}
	r.steps = []string{}
	for _, rec := range r.res.Recommendations {
		r.steps = append(r.steps, rec.Content)
	}
}

// riskReason explains the risk level.
func (r *run) riskReason() string {
	return r.say(fmt.Sprintf("Risk score %.0f of 100 from %d failed and %d warning checks.", r.score, len(r.failed), len(r.warned)),
		Fact{Key: FactRiskBasis, Numbers: []int{int(r.score), len(r.failed), len(r.warned)}})
}
