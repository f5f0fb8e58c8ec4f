import http from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** A 1×1 PNG and a few bytes of WAV: the media tools' payloads. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const noArgs = { type: "object", properties: {} } as const;
const tool = (name: string, description: string, inputSchema: Record<string, unknown> = noArgs) => ({ name, description, inputSchema });

const TOOLS = [
  tool("test_simple_text", "Answers a short text"),
  tool("test_image_content", "Answers an image"),
  tool("test_audio_content", "Answers an audio clip"),
  tool("test_embedded_resource", "Answers an embedded resource"),
  tool("test_multiple_content_types", "Answers text, an image and a resource"),
  tool("test_error_handling", "Always answers a tool error"),
  tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100"),
  tool("test_tool_with_logging", "Logs three messages while it runs"),
  tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
    properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
    additionalProperties: false,
  }),
];

const RESOURCES = [
  { uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain" },
  { uri: "test://static-binary", name: "static-binary", description: "A static PNG", mimeType: "image/png" },
  { uri: "test://watched-resource", name: "watched-resource", description: "A resource to subscribe to", mimeType: "text/plain" },
];

const PROMPTS = [
  { name: "test_simple_prompt", description: "A prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  { name: "test_prompt_with_embedded_resource", description: "A prompt embedding a resource", arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }] },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];

function readResource(uri: string) {
  const template = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (template) return { uri, mimeType: "application/json", text: JSON.stringify({ id: template[1], templateTest: true, data: `Data for ID: ${template[1]}` }) };
  if (uri === "test://static-text") return { uri, mimeType: "text/plain", text: "This is the content of the static text resource." };
  if (uri === "test://static-binary") return { uri, mimeType: "image/png", blob: PNG };
  if (uri === "test://watched-resource") return { uri, mimeType: "text/plain", text: "watched" };
  throw new Error(`unknown resource ${uri}`);
}

function getPrompt(name: string, args: Record<string, string>) {
  const user = (content: Record<string, unknown>) => ({ role: "user" as const, content });
  switch (name) {
    case "test_simple_prompt":
      return [user({ type: "text", text: "This is a simple prompt for testing." })];
    case "test_prompt_with_arguments":
      return [user({ type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` })];
    case "test_prompt_with_embedded_resource":
      return [
        user({ type: "resource", resource: { uri: args.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } }),
        user({ type: "text", text: "Please process the embedded resource above." }),
      ];
    case "test_prompt_with_image":
      return [user({ type: "image", data: PNG, mimeType: "image/png" }), user({ type: "text", text: "Please analyze the image above." })];
    default:
      throw new Error(`unknown prompt ${name}`);
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The tool scenarios of the official MCP conformance suite's server side, written against the
 * scenario descriptions (SDK v1 low-level server, stateless Streamable HTTP): the upstream the
 * conformance test runs directly and then through the gateway.
 */
function conformanceServer(watch: Watch): Server {
  const server = new Server({ name: "conformance-upstream", version: "1.0.0" }, {
    capabilities: { tools: {}, logging: {}, resources: { subscribe: true }, prompts: {}, completions: {} },
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS as never }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: "test://template/{id}/data", name: "template", description: "Data by id", mimeType: "application/json" }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({ contents: [readResource(request.params.uri)] as never }));
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    watch.subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    watch.subscribed.delete(request.params.uri);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => ({ messages: getPrompt(request.params.name, request.params.arguments ?? {}) as never }));
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const values = ["paris", "park", "party"].filter((value) => value.startsWith(request.params.argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  server.setRequestHandler(SetLevelRequestSchema, async () => ({}));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    switch (request.params.name) {
      case "test_simple_text":
        return { content: [{ type: "text", text: "This is a simple text response for testing." }] };
      case "test_image_content":
        return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
      case "test_audio_content":
        return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
      case "test_embedded_resource":
        return { content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }] };
      case "test_multiple_content_types":
        return {
          content: [
            { type: "text", text: "Multiple content types test:" },
            { type: "image", data: PNG, mimeType: "image/png" },
            { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
          ],
        };
      case "test_error_handling":
        return { isError: true, content: [{ type: "text", text: "This tool intentionally returns an error for testing" }] };
      case "test_tool_with_progress": {
        const progressToken = request.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (progressToken !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
          await pause(50);
        }
        return { content: [{ type: "text", text: "progress reported" }] };
      }
      case "test_tool_with_logging":
        for (const data of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
          await extra.sendNotification({ method: "notifications/message", params: { level: "info", data } });
          await pause(50);
        }
        return { content: [{ type: "text", text: "logged three messages" }] };
      case "json_schema_2020_12_tool":
        return { content: [{ type: "text", text: JSON.stringify(request.params.arguments ?? {}) }] };
      default:
        throw new Error(`unknown tool ${request.params.name}`);
    }
  });
  return server;
}

export interface HttpEndpoint {
  url: string;
  stop(): Promise<void>;
}

/**
 * What a stateless upstream can know about subscriptions: the URIs subscribed (by anyone; a
 * stateless server cannot tell its clients apart) and the servers holding an open GET stream,
 * which is where an update outside any request can go.
 */
interface Watch {
  subscribed: Set<string>;
  streams: Set<Server>;
}

export interface ConformanceUpstream extends HttpEndpoint {
  /** The resource changed: `notifications/resources/updated` on every open GET stream, if anyone subscribed to it. Answers how many streams it went to. */
  touch(uri: string): Promise<number>;
  /** The URIs subscribed now. */
  subscribed(): string[];
  /** How many GET streams are open now. */
  openStreams(): number;
}

function listen(httpServer: http.Server, path: string): Promise<HttpEndpoint> {
  return new Promise((resolve) =>
    httpServer.listen(0, "127.0.0.1", () => {
      const { port } = httpServer.address() as AddressInfo;
      resolve({
        url: `http://localhost:${port}${path}`,
        stop: () =>
          new Promise<void>((done) => {
            httpServer.closeAllConnections();
            httpServer.close(() => done());
          }),
      });
    }),
  );
}

/** The conformance upstream on Streamable HTTP, in this process (localhost only: DNS rebinding protection on). */
export async function startConformanceUpstream(): Promise<ConformanceUpstream> {
  const watch: Watch = { subscribed: new Set(), streams: new Set() };
  const httpServer = http.createServer(async (req, res) => {
    const server = conformanceServer(watch);
    if (req.method === "GET") {
      watch.streams.add(server);
      res.on("close", () => watch.streams.delete(server));
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableDnsRebindingProtection: true,
      allowedHosts: [`localhost:${(httpServer.address() as AddressInfo).port}`, `127.0.0.1:${(httpServer.address() as AddressInfo).port}`],
    });
    res.on("close", () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  const endpoint = await listen(httpServer, "/mcp");
  return {
    ...endpoint,
    async touch(uri) {
      if (!watch.subscribed.has(uri)) return 0;
      const streams = [...watch.streams];
      await Promise.all(streams.map((server) => server.sendResourceUpdated({ uri }).catch(() => undefined)));
      return streams.length;
    },
    subscribed: () => [...watch.subscribed].sort(),
    openStreams: () => watch.streams.size,
  };
}

/**
 * What an MCP client config does for the conformance runner, which cannot send headers: every
 * request to this local port reaches `target` with the project API key as bearer token, and
 * otherwise as sent (Host and Origin included, so the DNS-rebinding scenario tests the gateway).
 */
export function startBearerProxy(target: string, apiKey: string): Promise<HttpEndpoint> {
  const to = new URL(target);
  const httpServer = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${apiKey}` };
    const upstream = http.request({ host: to.hostname, port: to.port, path: to.pathname, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return listen(httpServer, "/mcp");
}
