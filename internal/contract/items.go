package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
)

// Documents the suite analyses: a file, a text and a JSON document about
// one made-up person.
const (
	passportText  = "PASSPORT\nFull Name: Jane Contract\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"
	statementText = "Bank statement\nAccount holder: Jane Contract\nAddress: 12 Elm Street"
)

// item is the part of an item's answer the checks read.
type item struct {
	ID       string          `json:"id"`
	FolderID string          `json:"folderId"`
	Type     string          `json:"type"`
	Name     string          `json:"name"`
	Content  json.RawMessage `json:"content"`
	Metadata map[string]any  `json:"metadata"`
	Status   string          `json:"status"`
}

// createItem sends a new item and reads the answer.
func (s *suite) createItem(ctx context.Context, folderID string, r request) (answer, item, error) {
	r.method, r.path, r.id = "POST", "/v1/folders/{folderId}/items", folderID
	a := s.c.do(ctx, r)
	var it item
	if a.status == http.StatusCreated {
		s.report.Created.Items++
	}
	if err := expect(a, http.StatusCreated); err != nil {
		return a, it, err
	}
	if err := a.decode(&it); err != nil {
		return a, it, err
	}
	return a, it, nil
}

// textItem is the request of a text item.
func textItem(name, text string, metadata map[string]any) request {
	body := map[string]any{"type": "text", "name": name, "content": text}
	if metadata != nil {
		body["metadata"] = metadata
	}
	return request{json: body}
}

// items checks the inferred item endpoints and the published update.
func (s *suite) items(ctx context.Context) {
	s.check("assume.upload-file", Assumption, inferred("POST", "/v1/folders/{folderId}/items (multipart/form-data)"),
		"uploading a file as multipart/form-data (file, name, metadata) answers 201 with a file item, content null", func() error { return checkAssumeUploadFile(ctx, s) })
	s.check("assume.create-text-item", Assumption, inferred("POST", "/v1/folders/{folderId}/items (application/json)"),
		"creating a text item from JSON {type, name, content, metadata} answers 201 with it", func() error { return checkAssumeCreateTextItem(ctx, s) })
	s.check("assume.create-json-item", Assumption, inferred("POST", "/v1/folders/{folderId}/items (application/json)"),
		"creating a JSON item from JSON {type, name, content} answers 201 with it", func() error { return checkAssumeCreateJsonItem(ctx, s) })
	s.check("assume.items-active", Assumption, secStates, "a new item is ACTIVE at once, so that it can be analysed", func() error { return checkAssumeItemsActive(ctx, s) })
	s.check("assume.get-item", Assumption, inferred("GET", "/v1/items/{itemId}"), "reading an item answers 200 with the full item", func() error { return checkAssumeGetItem(ctx, s) })
	s.check("endpoints.get-folder", Rule, endpoint("GET", "/v1/folders/{folderId}"), "reading a folder answers 200 with the folder and the summaries of its items", func() error { return checkEndpointsGetFolder(ctx, s) })
	section := endpoint("PATCH", "/v1/items/{itemId}")
	s.check("endpoints.update-item", Rule, section, "updating an item's name and metadata answers 200 with the full item; metadata is merged", func() error { return checkEndpointsUpdateItem(ctx, s) })
	s.check("endpoints.update-item-content", Rule, section, "the content of a text item can be changed", func() error { return checkEndpointsUpdateItemContent(ctx, s) })
	s.check("endpoints.update-file-content", Rule, section, "the content of a file item cannot be changed: the request is refused", func() error { return checkEndpointsUpdateFileContent(ctx, s) })
	s.check("assume.update-file-content-code", Assumption, secGaps, "changing a file item's content is refused with 400 VALIDATION_ERROR", func() error { return checkAssumeUpdateFileContentCode(ctx, s) })
}

// checkAssumeUploadFile runs the check assume.upload-file.
func checkAssumeUploadFile(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
		return err
	}
	body, ct, err := upload("passport.txt", []byte(passportText), "name", "Passport scan", "metadata", `{"side":"front"}`)
	if err != nil {
		return err
	}
	a, it, err := s.createItem(ctx, s.st.defaultFolder, request{raw: body, contentType: ct})
	if err != nil {
		return err
	}
	s.st.fileItem = it.ID
	s.st.newItems = append(s.st.newItems, it)
	if it.Type != "file" || it.Name != "Passport scan" || string(it.Content) != "null" || it.Metadata["side"] != "front" || it.FolderID != s.st.defaultFolder {
		return fail(`a file item "Passport scan" in the default folder, content null, metadata {"side":"front"}`, excerpt(a.body))
	}
	return nil
}

// checkAssumeCreateTextItem runs the check assume.create-text-item.
func checkAssumeCreateTextItem(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
		return err
	}
	a, it, err := s.createItem(ctx, s.st.defaultFolder, textItem("Bank statement", statementText, map[string]any{"first": "1"}))
	if err != nil {
		return err
	}
	s.st.textItem = it.ID
	s.st.newItems = append(s.st.newItems, it)
	var text string
	if it.Type != "text" || json.Unmarshal(it.Content, &text) != nil || text != statementText {
		return fail("a text item with the content sent", excerpt(a.body))
	}
	return nil
}

// checkAssumeCreateJsonItem runs the check assume.create-json-item.
func checkAssumeCreateJsonItem(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
		return err
	}
	content := map[string]any{"document_type": "utility bill", "customer_name": "Jane Contract", "address": "12 Elm Street"}
	a, it, err := s.createItem(ctx, s.st.defaultFolder, request{json: map[string]any{"type": "json", "name": "Utility bill", "content": content}})
	if err != nil {
		return err
	}
	s.st.jsonItem = it.ID
	s.st.newItems = append(s.st.newItems, it)
	var got map[string]any
	if it.Type != "json" || json.Unmarshal(it.Content, &got) != nil || !reflect.DeepEqual(got, content) {
		return fail("a json item with the content sent", excerpt(a.body))
	}
	return nil
}

// checkAssumeItemsActive runs the check assume.items-active.
func checkAssumeItemsActive(ctx context.Context, s *suite) error {
	if err := need(len(s.st.newItems) > 0, "an item"); err != nil {
		return err
	}
	for _, it := range s.st.newItems {
		if it.Status != "ACTIVE" {
			return fail("status ACTIVE", fmt.Sprintf("item %s %s", it.ID, it.Status))
		}
	}
	return nil
}

// checkAssumeGetItem runs the check assume.get-item.
func checkAssumeGetItem(ctx context.Context, s *suite) error {
	if err := need(s.st.fileItem != "", "the file item"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/items/{itemId}", id: s.st.fileItem})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var it item
	if err := a.decode(&it); err != nil {
		return err
	}
	if it.ID != s.st.fileItem {
		return fail("item "+s.st.fileItem, excerpt(a.body))
	}
	return nil
}

// checkEndpointsGetFolder runs the check endpoints.get-folder.
func checkEndpointsGetFolder(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "" && len(s.st.newItems) == 3, "the three items"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/folders/{folderId}", id: s.st.defaultFolder})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var f struct {
		ID    string `json:"id"`
		Items []item `json:"items"`
	}
	if err := a.decode(&f); err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, it := range f.Items {
		ids[it.ID] = true
	}
	if f.ID != s.st.defaultFolder || len(f.Items) != 3 || !ids[s.st.fileItem] || !ids[s.st.textItem] || !ids[s.st.jsonItem] {
		return fail("the default folder with the three items", excerpt(a.body))
	}
	return nil
}

// checkEndpointsUpdateItem runs the check endpoints.update-item.
func checkEndpointsUpdateItem(ctx context.Context, s *suite) error {
	if err := need(s.st.textItem != "", "the text item"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "PATCH", path: "/v1/items/{itemId}", id: s.st.textItem,
		json: map[string]any{"name": "March statement", "metadata": map[string]any{"second": "2"}}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var it item
	if err := a.decode(&it); err != nil {
		return err
	}
	if it.Name != "March statement" || it.Metadata["first"] != "1" || it.Metadata["second"] != "2" {
		return fail(`name "March statement", metadata {"first":"1","second":"2"}`, excerpt(a.body))
	}
	return nil
}

// checkEndpointsUpdateItemContent runs the check endpoints.update-item-content.
func checkEndpointsUpdateItemContent(ctx context.Context, s *suite) error {
	if err := need(s.st.textItem != "", "the text item"); err != nil {
		return err
	}
	text := statementText + "\nDate of Birth: 1990-04-12"
	a := s.c.do(ctx, request{method: "PATCH", path: "/v1/items/{itemId}", id: s.st.textItem, json: map[string]any{"content": text}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var it item
	if err := a.decode(&it); err != nil {
		return err
	}
	var got string
	if json.Unmarshal(it.Content, &got) != nil || got != text {
		return fail("the new content", excerpt(a.body))
	}
	return nil
}

// checkEndpointsUpdateFileContent runs the check endpoints.update-file-content.
func checkEndpointsUpdateFileContent(ctx context.Context, s *suite) error {
	if err := need(s.st.fileItem != "", "the file item"); err != nil {
		return err
	}
	s.st.fileContent = s.c.do(ctx, request{method: "PATCH", path: "/v1/items/{itemId}", id: s.st.fileItem, json: map[string]any{"content": "replaced"}})
	return expectRefused(s.st.fileContent)
}

// checkAssumeUpdateFileContentCode runs the check assume.update-file-content-code.
func checkAssumeUpdateFileContentCode(ctx context.Context, s *suite) error {
	if err := need(s.st.fileContent.status != 0, "the refused update"); err != nil {
		return err
	}
	return expect(s.st.fileContent, http.StatusBadRequest, "VALIDATION_ERROR")
}
