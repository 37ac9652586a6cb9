// Command ogenflow uses the client that ogen generates from
// api/openapi.yaml (into the package api, beside this file) against a
// running mock: it creates a profile, clears its description and metadata
// with nulls, and reads an error body, each into its generated type. It exits 1 at the
// first surprise.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"ogenflow/api"
)

// key is the SecuritySource of the generated client.
type key string

func (k key) ApiKey(context.Context, api.OperationName) (api.ApiKey, error) {
	return api.ApiKey{APIKey: string(k)}, nil
}

func main() {
	baseURL := flag.String("base-url", "", "the mock's base URL")
	apiKey := flag.String("api-key", "", "the mock's API key")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, *baseURL, key(*apiKey)); err != nil {
		fmt.Fprintln(os.Stderr, "ogenflow:", err)
		os.Exit(1)
	}
	fmt.Println("ogenflow: every step passed")
}

func run(ctx context.Context, baseURL string, k key) error {
	c, err := api.NewClient(baseURL, k)
	if err != nil {
		return err
	}
	res, err := c.CreateProfile(ctx, &api.CreateProfileRequest{
		Name:        "Jane Doe",
		Description: api.NewOptNilString("Retail loan onboarding"),
		Metadata:    api.NewOptNilNullableMetadata(api.NullableMetadata{"customerRef": []byte(`"CUST-20931"`)}),
	}, api.CreateProfileParams{WorkflowId: "wf_default"})
	if err != nil {
		return fmt.Errorf("create profile: %w", err)
	}
	created, ok := res.(*api.CreatedProfileHeaders)
	if !ok {
		return fmt.Errorf("create profile: answered %T, want *api.CreatedProfileHeaders", res)
	}
	p := created.Response
	if len(p.Folders) != 1 || !p.Folders[0].IsDefault {
		return fmt.Errorf("create profile: folders %+v, want the default folder alone", p.Folders)
	}

	var clear api.OptNilString
	clear.SetToNull()
	var noMetadata api.OptNilNullableMetadata
	noMetadata.SetToNull()
	upd, err := c.UpdateProfile(ctx, &api.UpdateProfileRequest{Description: clear, Metadata: noMetadata}, api.UpdateProfileParams{ProfileId: p.ID})
	if err != nil {
		return fmt.Errorf("update profile: %w", err)
	}
	got, ok := upd.(*api.ProfileHeaders)
	if !ok {
		return fmt.Errorf("update profile: answered %T, want *api.ProfileHeaders", upd)
	}
	if d, set := got.Response.Description.Get(); set {
		return fmt.Errorf("update profile: description %q after null, want none", d)
	}
	if m, set := got.Response.Metadata.Get(); set && len(m) > 0 {
		return fmt.Errorf("update profile: metadata %v after null, want none", m)
	}

	res, err = c.CreateProfile(ctx, &api.CreateProfileRequest{Name: "x"}, api.CreateProfileParams{WorkflowId: "wf_unknown"})
	if err != nil {
		return fmt.Errorf("create profile in an unknown workflow: %w", err)
	}
	nf, ok := res.(*api.WorkflowNotFoundHeaders)
	if !ok {
		return fmt.Errorf("create profile in an unknown workflow: answered %T, want *api.WorkflowNotFoundHeaders", res)
	}
	if e := nf.Response.Error; e.Code != "WORKFLOW_NOT_FOUND" || e.Status != 404 || e.Message == "" {
		return fmt.Errorf("create profile in an unknown workflow: error %+v", e)
	}
	return nil
}
