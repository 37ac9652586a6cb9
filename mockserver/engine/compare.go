package engine

import (
	"fmt"
	"strings"

	"github.com/profilesvc/profilesvc-go"
)

// compareFields is the second step: it compares each field across the
// documents that show it, for category_judgements and extracted_values.
func (r *run) compareFields() {
	r.extracted = map[string]any{}
	r.judgements = map[string]any{}
	for _, f := range r.fields {
		res, reason := r.compareField(f)
		switch res {
		case profilesvc.CheckFail:
			r.fails = append(r.fails, f)
		case profilesvc.CheckNeedsReview, profilesvc.CheckUnverifiable:
			r.reviews = append(r.reviews, f)
		}
		r.judgements[f+"_check_result"] = res
		r.judgements[f+"_check_reason"] = reason
	}
	overall, reason, fact := profilesvc.CheckPass, "Every value shown by more than one document agrees.", Fact{Key: FactAllAgree}
	switch {
	case len(r.fails) > 0:
		overall, reason = profilesvc.CheckFail, "The documents disagree on "+labels(r.fails)+"."
		fact = Fact{Key: FactDisagree, Fields: r.fails}
	case len(r.reviews) > 0:
		overall, reason = profilesvc.CheckNeedsReview, "These values could not be confirmed by a second document: "+labels(r.reviews)+"."
		fact = Fact{Key: FactUnconfirmed, Fields: r.reviews}
	}
	r.judgements["overall_consistency_result"] = overall
	r.judgements["overall_consistency_reason"] = r.say(reason, fact)
}

// compareField sets the extracted value of field f and judges it: pass
// when the documents that show it agree, fail when they differ,
// needs_review when one shows it, unverifiable when none does.
func (r *run) compareField(f string) (profilesvc.CheckResult, string) {
	var holders []*doc
	for _, d := range r.docs {
		if _, ok := d.values[f]; ok {
			holders = append(holders, d)
		}
	}
	switch len(holders) {
	case 0:
		r.extracted[f] = nil
		return profilesvc.CheckUnverifiable, r.say(fmt.Sprintf("No document shows %s.", label(f)),
			Fact{Key: FactFieldNone, Fields: []string{f}})
	case 1:
		r.extracted[f] = holders[0].values[f]
		name := holders[0].item.Name
		return profilesvc.CheckNeedsReview, r.say(fmt.Sprintf("Only %s shows %s; nothing to compare it with.", name, label(f)),
			Fact{Key: FactFieldOne, Fields: []string{f}, Documents: []string{name}})
	}
	r.extracted[f] = holders[0].values[f]
	first := normValue(f, holders[0].values[f])
	agree := true
	var diff, names, values []string
	for _, d := range holders {
		diff = append(diff, fmt.Sprintf("%s: %q", d.item.Name, d.values[f]))
		names, values = append(names, d.item.Name), append(values, d.values[f])
		if normValue(f, d.values[f]) != first {
			agree = false
		}
	}
	if agree {
		return profilesvc.CheckPass, r.say(fmt.Sprintf("%d documents agree on %s.", len(holders), label(f)),
			Fact{Key: FactFieldAgree, Fields: []string{f}, Numbers: []int{len(holders)}})
	}
	return profilesvc.CheckFail, r.say(fmt.Sprintf("The documents disagree on %s (%s).", label(f), strings.Join(diff, "; ")),
		Fact{Key: FactFieldDiffer, Fields: []string{f}, Documents: names, Values: values})
}
