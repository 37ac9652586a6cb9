package engine

import (
	"fmt"
	"slices"
	"time"
)

// What is wrong with a document, if anything.
const (
	docUnreadable   = "unreadable"
	docUnrecognised = "unrecognised"
	docIncomplete   = "incomplete"
	docExpired      = "expired"
)

// docCheck is the verdict on one document.
type docCheck struct {
	reason  string
	problem string // one of the doc* constants, or "" for a valid document
	expired bool   // its expiry date has passed, whatever its problem
}

// validateDocuments is the third step: it validates each document, for
// document_validations, and lists the unreadable, expired and incomplete
// ones for the policy and the flags.
func (r *run) validateDocuments() {
	r.validations = map[string]any{}
	for _, d := range r.docs {
		c := r.validateDocument(d)
		switch {
		case c.problem == docUnreadable:
			r.unreadable = append(r.unreadable, d.item.Name)
		case c.problem == docExpired:
			r.expired = append(r.expired, d.item.Name)
		case c.problem == docIncomplete && !c.expired:
			// An expired document that also lacks fields is neither.
			r.invalid = append(r.invalid, d.item.Name)
		}
		r.validations[d.key+"_is_valid"] = c.problem == ""
		r.validations[d.key+"_is_valid_reason"] = c.reason
	}
}

// validateDocument judges d: valid when it is readable, of a recognised
// type, shows the fields its type requires (of those the schema asks for)
// and has not expired as of the analysis's start.
func (r *run) validateDocument(d *doc) docCheck {
	var missing []string
	for _, f := range requiredFields[d.kind] {
		if _, ok := d.values[f]; !ok && slices.Contains(r.fields, f) {
			missing = append(missing, f)
		}
	}
	expT, hasExp := parseDate(d.values["expiry_date"])
	expired := hasExp && expT.Before(r.in.RequestedAt)
	name, kind := d.item.Name, label(d.kind)
	fact := Fact{Documents: []string{name}, Kinds: []string{d.kind}}
	if hasExp {
		fact.Date = expT.Format(time.DateOnly)
	}
	switch {
	case !d.item.Readable:
		f := Fact{Key: FactDocUnreadable, Documents: fact.Documents, Values: []string{d.item.ContentType}}
		return docCheck{r.say(fmt.Sprintf("%s could not be read (%s); it needs a person to check it.", name, d.item.ContentType), f), docUnreadable, expired}
	case d.kind == "document":
		f := Fact{Key: FactDocUnrecognised, Documents: fact.Documents}
		return docCheck{r.say(fmt.Sprintf("%s is not a recognised document type.", name), f), docUnrecognised, expired}
	case len(missing) > 0:
		f := Fact{Key: FactDocIncomplete, Documents: fact.Documents, Kinds: fact.Kinds, Fields: missing}
		return docCheck{r.say(fmt.Sprintf("%s (%s) lacks %s.", name, kind, labels(missing)), f), docIncomplete, expired}
	case expired:
		fact.Key = FactDocExpired
		return docCheck{r.say(fmt.Sprintf("%s (%s) expired on %s.", name, kind, expT.Format(time.DateOnly)), fact), docExpired, expired}
	}
	reason := fmt.Sprintf("%s is a %s with every required field", name, kind)
	if hasExp {
		reason += ", valid until " + expT.Format(time.DateOnly)
	}
	fact.Key = FactDocValid
	return docCheck{reason: r.say(reason+".", fact)}
}
