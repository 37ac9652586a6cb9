// A whole flow against the Profile Document Analysis Service (or the
// project's mock of it), every call typed by the `paths` that
// openapi-typescript generates from api/openapi.yaml, and made with
// openapi-fetch.
//
// Usage: node dist/flow.js BASE_URL API_KEY
//    or: PROFILESVC_BASE_URL=... PROFILESVC_API_KEY=... node dist/flow.js
// PROFILESVC_WORKFLOW_ID names the workflow (default wf_default, the mock's).
//
// It prints one line per step and exits non-zero, saying why, on the first
// answer it did not expect.

import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
type ErrorBody = Schemas["Error"];
type Analysis = Schemas["Analysis"];

// Free-form JSON objects (a JSON item's content, an item's metadata) are
// `additionalProperties: true` in the document, which openapi-typescript
// generates as `{ [key: string]: unknown }`: a Record<string, unknown>
// fits them as it is, with no assertion.

class FlowError extends Error {}

function fail(message: string): never {
  throw new FlowError(message);
}

function step(message: string): void {
  console.log(`ok  ${message}`);
}

function check(condition: boolean, message: string): void {
  if (!condition) fail(message);
}

// What every openapi-fetch call resolves to: either `data` (a success
// answer's body, typed by the operation's 2XX response) or `error` (an error
// answer's body, typed by the union of the operation's 4XX and 5XX responses).
interface Answer<D, E> {
  data?: D;
  error?: E;
  response: Response;
}

function describe(answer: Answer<unknown, ErrorBody>): string {
  const { error, response } = answer;
  if (error !== undefined) {
    return `${response.status} ${error.error.code}: ${error.error.message}`;
  }
  return `${response.status} ${response.statusText}`;
}

// expectOk returns the body of a success answer of the given status.
function expectOk<D, E extends ErrorBody>(what: string, answer: Answer<D, E>, status: number): D {
  if (answer.error !== undefined || answer.response.status !== status) {
    fail(`${what}: expected ${status}, got ${describe(answer)}`);
  }
  if (answer.data === undefined) fail(`${what}: ${status} without a body`);
  return answer.data;
}

// expectNoContent checks a 204 answer.
function expectNoContent<E extends ErrorBody>(what: string, answer: Answer<unknown, E>): void {
  if (answer.error !== undefined || answer.response.status !== 204) {
    fail(`${what}: expected 204, got ${describe(answer)}`);
  }
}

// expectError checks an error answer and returns its typed body. `status`
// and `code` must be among those the document gives the operation: a code
// the operation cannot answer does not compile.
function expectError<E extends ErrorBody, C extends E["error"]["code"]>(
  what: string,
  answer: Answer<unknown, E>,
  status: E["error"]["status"],
  code: C,
): E {
  const { error, response } = answer;
  if (error === undefined) fail(`${what}: expected ${status} ${code}, got ${describe(answer)}`);
  const { code: gotCode, status: gotStatus, message } = error.error;
  check(
    response.status === status && gotStatus === status && gotCode === code,
    `${what}: expected ${status} ${code}, got ${describe(answer)} (body status ${gotStatus})`,
  );
  check(message.length > 0, `${what}: the error has an empty message`);
  step(`${what}: ${gotStatus} ${gotCode} (${message})`);
  return error;
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

async function main(baseUrl: string, apiKey: string, workflowId: string): Promise<void> {
  const client = createClient<paths>({ baseUrl, headers: { "x-api-key": apiKey } });

  // --- Profile, folders, items.

  const created = expectOk(
    "create profile",
    await client.POST("/v1/workflows/{workflowId}/profiles", {
      params: { path: { workflowId } },
      body: {
        name: "TypeScript flow",
        description: "Made by examples/typescript",
        metadata: { source: "openapi-fetch" },
      },
    }),
    201,
  );
  const profileId = created.id;
  check(profileId.startsWith("pf_"), `create profile: id ${profileId} has no pf_ prefix`);
  check(created.workflowId === workflowId, `create profile: workflowId ${created.workflowId}, not ${workflowId}`);
  check(created.itemsCount === 0 && created.lastAnalysisAt === null, "create profile: not empty");
  check(created.description === "Made by examples/typescript", "create profile: description not kept");
  step(`create profile ${profileId} in ${workflowId} with ${created.folders.length} folder(s)`);

  const folderPage = expectOk(
    "list folders",
    await client.GET("/v1/profiles/{profileId}/folders", {
      params: { path: { profileId }, query: { sort: "createdAt", order: "asc", limit: 10 } },
    }),
    200,
  );
  const defaultFolder = folderPage.items.find((folder) => folder.isDefault);
  if (defaultFolder === undefined) fail("list folders: no default folder");
  check(defaultFolder.name === "default", `list folders: the default folder is named ${defaultFolder.name}`);
  check(
    created.folders.some((folder) => folder.id === defaultFolder.id && folder.isDefault),
    "list folders: the default folder is not the one the create answer showed",
  );
  check(folderPage.count === folderPage.items.length, "list folders: count is not the number of folders");
  step(`list folders: ${folderPage.count} folder(s), default ${defaultFolder.id}, nextCursor ${folderPage.nextCursor}`);

  const folder = expectOk(
    "create folder",
    await client.POST("/v1/profiles/{profileId}/folders", {
      params: { path: { profileId } },
      body: { name: "Income documents" },
    }),
    201,
  );
  check(!folder.isDefault && folder.profileId === profileId, "create folder: wrong folder");
  step(`create folder ${folder.id} "${folder.name}"`);
  const folderId = folder.id;

  // A file upload is multipart/form-data. The document's upload schema
  // (UploadRequest) types the body; the bodySerializer turns it into the
  // FormData that fetch sends, with its boundary.
  const payslip = "PAYSLIP February 2025\nEmployee: Jane Doe\nEmployer: ACME Corp.\nGross pay: 4,200,000\n";
  const uploaded = expectOk(
    "upload file",
    await client.POST("/v1/folders/{folderId}/items", {
      params: { path: { folderId } },
      body: {
        file: payslip,
        name: "payslip-2025-02.txt",
        metadata: JSON.stringify({ month: "2025-02" }),
      },
      bodySerializer(body) {
        // The operation's body is the union of its two media types' schemas:
        // UploadRequest (multipart) and CreateItemRequest (JSON).
        if (!("file" in body)) fail("upload file: the body is not an upload");
        const form = new FormData();
        form.append("file", new Blob([body.file], { type: "text/plain" }), "payslip-2025-02.txt");
        if (body.name !== undefined) form.append("name", body.name);
        if (body.metadata !== undefined) form.append("metadata", body.metadata);
        return form;
      },
    }),
    201,
  );
  check(uploaded.type === "file" && uploaded.content === null, "upload file: not a file item");
  check(uploaded.folderId === folderId, "upload file: in the wrong folder");
  check(uploaded.sizeBytes === utf8Length(payslip), `upload file: sizeBytes ${uploaded.sizeBytes}`);
  check(uploaded.status === "ACTIVE", `upload file: status ${uploaded.status}`);
  step(
    `upload file ${uploaded.id} "${uploaded.name}" (${uploaded.contentType}, ${uploaded.sizeBytes} bytes, ${uploaded.detected.fileCategory})`,
  );

  const note = expectOk(
    "create text item",
    await client.POST("/v1/folders/{folderId}/items", {
      params: { path: { folderId } },
      body: {
        type: "text",
        name: "Employer note",
        content: "Confirmed by phone with HR: employed since 2019-04-01.",
      },
    }),
    201,
  );
  check(note.type === "text" && typeof note.content === "string", "create text item: not a text item");
  step(`create text item ${note.id} "${note.name}"`);

  const applicationForm: Record<string, unknown> = { applicant_name: "Jane Doe", monthly_gross_income: 4200000 };
  const form = expectOk(
    "create JSON item",
    await client.POST("/v1/folders/{folderId}/items", {
      params: { path: { folderId } },
      body: {
        type: "json",
        name: "Application form",
        content: applicationForm,
      },
    }),
    201,
  );
  check(form.type === "json" && typeof form.content === "object" && form.content !== null, "create JSON item: not a JSON item");
  const kept = typeof form.content === "object" && form.content !== null ? Object.entries(form.content) : [];
  check(
    kept.length === Object.keys(applicationForm).length && kept.every(([key, value]) => applicationForm[key] === value),
    `create JSON item: content ${JSON.stringify(form.content)}`,
  );
  step(`create JSON item ${form.id} "${form.name}" (${form.contentType})`);

  const folderWithItems = expectOk(
    "get folder",
    await client.GET("/v1/folders/{folderId}", { params: { path: { folderId } } }),
    200,
  );
  const itemIds = [uploaded.id, note.id, form.id];
  check(
    folderWithItems.itemsCount === 3 && itemIds.every((id) => folderWithItems.items.some((item) => item.id === id)),
    `get folder: ${folderWithItems.itemsCount} items, not the 3 made`,
  );
  step(`get folder: ${folderWithItems.items.map((item) => `${item.type}:${item.id}`).join(", ")}`);

  const checkedBy: Record<string, unknown> = { checkedBy: "examples/typescript" };
  const updatedNote = expectOk(
    "update item",
    await client.PATCH("/v1/items/{itemId}", {
      params: { path: { itemId: note.id } },
      body: {
        name: "Employer note (checked)",
        content: "Confirmed by phone with HR on 2025-03-14: employed since 2019-04-01.",
        metadata: checkedBy,
      },
    }),
    200,
  );
  check(updatedNote.name === "Employer note (checked)", "update item: name not changed");
  check(typeof updatedNote.content === "string" && updatedNote.content.includes("2025-03-14"), "update item: content not changed");
  check(Object.keys(updatedNote.metadata).includes("checkedBy"), "update item: metadata not merged");
  step(`update item ${updatedNote.id}: name "${updatedNote.name}"`);

  // The document says a null description clears it.
  const profile = expectOk(
    "update profile",
    await client.PATCH("/v1/profiles/{profileId}", {
      params: { path: { profileId } },
      body: { description: null },
    }),
    200,
  );
  check(profile.description === undefined, `update profile: description still "${profile.description}"`);
  step(`update profile ${profile.id}: description cleared`);

  // --- The analysis.

  const analyze = () =>
    client.POST("/v1/analyses/{profileId}/analyze", {
      params: { path: { profileId } },
      body: { targetItems: itemIds.map((itemId) => ({ itemId })) },
    });
  const started = expectOk("start analysis", await analyze(), 202);
  let analysisId = started.id;
  check(analysisId.startsWith("analysis_"), `start analysis: id ${analysisId} has no analysis_ prefix`);
  step(`start analysis ${analysisId} over ${itemIds.length} items`);

  // A profile runs one analysis at a time: a second start while the first
  // runs is refused. (An analysis that ends at once, as a mock may make it,
  // lets the second start through; then the second is the one followed.)
  const second = await analyze();
  if (second.error === undefined) {
    const first = expectOk(
      "get first analysis",
      await client.GET("/v1/analyses/{analysisId}", { params: { path: { analysisId } } }),
      200,
    );
    check(
      first.status === "completed" || first.status === "failed",
      `second start: accepted (${second.response.status}) while analysis ${analysisId} is ${first.status}`,
    );
    analysisId = expectOk("second start", second, 202).id;
    step(`second start accepted: analysis ${first.id} had already ${first.status}; following ${analysisId}`);
  } else {
    expectError("second start while one runs", second, 409, "ANALYSIS_IN_PROGRESS");
  }

  // Before the analysis completes, its report is not available.
  const early = await client.GET("/v1/analyses/{analysisId}/report", {
    params: { path: { analysisId } },
    parseAs: "arrayBuffer",
  });
  if (early.error === undefined) {
    const now = expectOk(
      "get analysis",
      await client.GET("/v1/analyses/{analysisId}", { params: { path: { analysisId } } }),
      200,
    );
    check(now.status === "completed", `report before the long poll: ${early.response.status} while the analysis is ${now.status}`);
    step(`report before the long poll: ${early.response.status} (the analysis had already completed)`);
  } else {
    expectError("report before completion", early, 400, "REPORT_NOT_AVAILABLE");
  }

  let analysis: Analysis | undefined;
  for (let round = 1; analysis === undefined; round++) {
    const current = expectOk(
      `long poll ${round}`,
      await client.GET("/v1/analyses/{analysisId}", {
        params: { path: { analysisId }, query: { waitForReport: true, timeoutSeconds: 30 } },
      }),
      200,
    );
    step(`long poll ${round}: ${current.status}`);
    switch (current.status) {
      case "completed":
        analysis = current;
        break;
      case "failed":
        fail(`analysis ${analysisId} failed: ${current.error ?? "no error given"}`);
      case "pending":
      case "processing":
        if (round >= 20) fail(`analysis ${analysisId} still ${current.status} after ${round} long polls`);
        break;
    }
  }

  check(analysis.id === analysisId && analysis.profileId === profileId, "analysis: wrong analysis");
  check(analysis.error === null, `analysis: error ${analysis.error}`);
  check(analysis.completedAt !== null, "analysis: completed without completedAt");
  const reportId = analysis.primaryReportId;
  check(reportId !== null && reportId.startsWith("rpt_"), `analysis: primaryReportId ${reportId}`);
  step(
    `analysis ${analysis.id}: ${analysis.status} in ${analysis.processingTimeMs} ms, playbook ${analysis.playbookId}, verification ${analysis.verificationStatus}, report ${reportId}`,
  );

  const risk = analysis.riskAssessment ?? fail("analysis: completed without riskAssessment");
  check(risk.riskScore >= 0 && risk.riskScore <= 100, `analysis: riskScore ${risk.riskScore} out of 0..100`);
  step(`risk: ${risk.riskLevel}, score ${risk.riskScore}, ${risk.riskFactors.length} factors`);

  const findings = analysis.findings ?? fail("analysis: completed without findings");
  const ordered = [...findings].sort((a, b) => a.sortOrder - b.sortOrder);
  const results = { passed: 0, warning: 0, failed: 0 };
  for (const finding of ordered) results[finding.result]++;
  step(
    `findings: ${findings.length} (passed ${results.passed}, warning ${results.warning}, failed ${results.failed}), first "${ordered[0]?.category ?? "none"}"`,
  );

  const recommendations = analysis.recommendations ?? fail("analysis: completed without recommendations");
  const top = [...recommendations].sort((a, b) => a.priority - b.priority)[0];
  step(`recommendations: ${recommendations.length}, first: ${top === undefined ? "none" : `${top.content} (priority ${top.priority})`}`);

  const review = analysis.extractedData?.review_result;
  const extractedValues = Object.keys(analysis.extractedData?.extracted_values ?? {});
  step(
    `review: ${review?.final_action ?? "none"} (${review?.final_risk_level ?? "no risk level"}), ${extractedValues.length} extracted values`,
  );

  const judgements = analysis.extractedData?.category_judgements;
  step(`consistency: ${judgements?.overall_consistency_result ?? "not given"}`);

  const auditLog = analysis.agentAuditLog ?? [];
  const history = analysis.systemMetadata?.workflowHistory ?? [];
  const missing = Object.entries(analysis.extractionStatus ?? {}).filter(([, status]) => status === "missing");
  step(
    `audit log: ${auditLog.length} steps (${auditLog.filter((entry) => entry.success).length} succeeded), history ${history.length} entries, ${missing.length} schema fields missing`,
  );

  const targets = analysis.targetItems ?? fail("analysis: completed without targetItems");
  check(
    targets.length === itemIds.length && itemIds.every((id) => targets.some((target) => target.itemId === id)),
    "analysis: targetItems are not the items named",
  );
  step(`target items: ${targets.map((target) => `${target.type}:${target.name}`).join(", ")}`);

  // The report is a PDF: read its bytes, not JSON.
  const report = await client.GET("/v1/analyses/{analysisId}/report", {
    params: { path: { analysisId }, query: { locale: "en", includeRawData: false } },
    parseAs: "arrayBuffer",
  });
  const pdf = new Uint8Array(expectOk("download report", report, 200));
  const magic = String.fromCharCode(...pdf.subarray(0, 5));
  check(magic === "%PDF-", `download report: starts with ${JSON.stringify(magic)}, not %PDF-`);
  const contentType = report.response.headers.get("content-type") ?? "";
  check(contentType.startsWith("application/pdf"), `download report: Content-Type ${contentType}`);
  const disposition = report.response.headers.get("content-disposition") ?? "";
  check(
    /^attachment/i.test(disposition) && disposition.includes(`analysis_${analysisId.replace(/^analysis_/, "")}_report.pdf`),
    `download report: Content-Disposition ${disposition}`,
  );
  step(`download report: ${pdf.length} bytes, ${contentType}, ${disposition}`);

  // --- Error answers of the document, read from their typed bodies.

  const stranger = createClient<paths>({
    baseUrl,
    headers: { "x-api-key": "00000000-0000-4000-8000-000000000000" },
  });
  expectError(
    "wrong API key",
    await stranger.GET("/v1/profiles/{profileId}", { params: { path: { profileId } } }),
    401,
    "UNAUTHORIZED",
  );

  expectError(
    "update an unknown profile",
    await client.PATCH("/v1/profiles/{profileId}", {
      params: { path: { profileId: "pf_does_not_exist" } },
      body: { name: "nobody" },
    }),
    404,
    "PROFILE_NOT_FOUND",
  );

  expectError(
    "list the folders of an unknown profile",
    await client.GET("/v1/profiles/{profileId}/folders", {
      params: { path: { profileId: "pf_does_not_exist" } },
    }),
    404,
    "SVC_3005",
  );

  expectError(
    "rename the default folder",
    await client.PATCH("/v1/folders/{folderId}", {
      params: { path: { folderId: defaultFolder.id } },
      body: { name: "renamed" },
    }),
    400,
    "CANNOT_MODIFY_DEFAULT_FOLDER",
  );

  // The schema asks for at least one target item (minItems 1), which the
  // generated type does not carry: the server refuses the empty list.
  expectError(
    "start an analysis of no items",
    await client.POST("/v1/analyses/{profileId}/analyze", {
      params: { path: { profileId } },
      body: { targetItems: [] },
    }),
    400,
    "VALIDATION_ERROR",
  );

  expectError(
    "start an analysis of an unknown item",
    await client.POST("/v1/analyses/{profileId}/analyze", {
      params: { path: { profileId } },
      body: { targetItems: [{ itemId: "item_does_not_exist" }] },
    }),
    400,
    "INVALID_ITEM_IDS",
  );

  expectError(
    "get an unknown analysis",
    await client.GET("/v1/analyses/{analysisId}", {
      params: { path: { analysisId: "analysis_does_not_exist" } },
    }),
    404,
    "ANALYSIS_NOT_FOUND",
  );

  // --- Clean up.

  expectNoContent(
    "delete profile",
    await client.DELETE("/v1/profiles/{profileId}", { params: { path: { profileId } } }),
  );
  step(`delete profile ${profileId}`);
  expectError(
    "get the deleted profile",
    await client.GET("/v1/profiles/{profileId}", { params: { path: { profileId } } }),
    404,
    "PROFILE_NOT_FOUND",
  );
}

const baseUrl = (process.argv[2] ?? process.env["PROFILESVC_BASE_URL"] ?? "").replace(/\/+$/, "");
const apiKey = process.argv[3] ?? process.env["PROFILESVC_API_KEY"] ?? "";
const workflowId = process.env["PROFILESVC_WORKFLOW_ID"] ?? "wf_default";
if (baseUrl === "" || apiKey === "") {
  console.error("usage: node dist/flow.js BASE_URL API_KEY (or set PROFILESVC_BASE_URL and PROFILESVC_API_KEY)");
  process.exit(2);
}

try {
  await main(baseUrl, apiKey, workflowId);
  console.log("flow: every step passed");
} catch (err) {
  if (err instanceof FlowError) {
    console.error(`flow failed: ${err.message}`);
  } else if (err instanceof Error) {
    // fetch fails with a TypeError whose cause says why (refused, reset...).
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
    console.error(`flow failed: ${err.name}: ${err.message}${cause}`);
  } else {
    console.error(`flow failed: ${String(err)}`);
  }
  process.exit(1);
}
